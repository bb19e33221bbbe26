"""Deep Chat (the npm package `deep-chat`, a web component whose whole chat sits in its own open
shadow root), served with the scripted model (scripted.py): the page, the package's bundle from
tests/deepchat/node_modules, and its request handler. Deep Chat posts
`{"messages": [{"role": "user", "text": ...}]}` to the address in its `connect` setting; with
`stream` on, it reads the answer as server-sent events, `data: {"text": piece}` each, which it
appends. Usage: deepchat_server.py PORT."""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(__file__))
import scripted  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = os.path.join(HERE, "..", "deepchat", "node_modules", "deep-chat", "dist", "deepChat.bundle.js")

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Deep Chat</title>
<script type="module" src="/deepChat.bundle.js"></script></head>
<body style="margin: 0">
<deep-chat style="width: 96vw; height: 94vh"
  connect='{"url": "/api/chat", "method": "POST", "stream": true}'></deep-chat>
</body>
</html>
"""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.split("?")[0] == "/deepChat.bundle.js":
            with open(BUNDLE, "rb") as f:
                self.send_body(200, "text/javascript", f.read())
        elif self.path.split("?")[0] == "/":
            self.send_body(200, "text/html; charset=utf-8", PAGE.encode())
        else:
            self.send_body(404, "text/plain", b"not found")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        messages = body.get("messages") or []
        text = messages[-1].get("text", "") if messages else ""
        reply = scripted.reply_to(text)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for piece in scripted.chunks(reply):
            self.wfile.write(("data: " + json.dumps({"text": piece}) + "\n\n").encode())
            self.wfile.flush()
        self.close_connection = True


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
