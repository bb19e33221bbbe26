#!/bin/sh
# Runs harness.html in headless Chromium through drive.mjs and prints the results. Serves a
# temporary folder laid out as the local chat page serves its files (/modules = node_modules
# here, /editors and /pm-editor.js from assets/chat) with python's static server. Needs `npm ci`
# here first. An argument (lexical,quill) narrows the editors.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
chat=$(cd "$here/../../assets/chat" && pwd)
port=${PORT:-8765}
root=$(mktemp -d)
ln -s "$here/node_modules" "$root/modules"
ln -s "$chat/editors" "$root/editors"
ln -s "$chat/pm-editor.js" "$root/pm-editor.js"
ln -s "$here/harness.html" "$root/index.html"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >"$root.log" 2>&1 &
server=$!
trap 'kill $server; rm -rf "$root" "$root.log"' EXIT
# The server is up when it answers; at most 5 s.
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done
node --experimental-websocket "$here/drive.mjs" "http://127.0.0.1:$port/index.html" "$@"
