"""chatscope's chat UI kit for React (npm `@chatscope/chat-ui-kit-react`), bundled by esbuild
from tests/chatscope/app.jsx, served with the scripted model (scripted.py). Its composer is a
contenteditable where Enter sends and Shift+Enter breaks the line; the page posts
`{"message": text}` to /api/chat and shows the answer as its plain text body arrives, chunk by
chunk. Usage: chatscope_server.py PORT."""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(__file__))
import scripted  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DIST = os.path.join(HERE, "..", "chatscope", "dist")

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>chatscope</title>
<link rel="stylesheet" href="/app.css"></head>
<body style="margin: 0"><div id="root"></div><script src="/app.js"></script></body>
</html>
"""

FILES = {"/app.js": "text/javascript", "/app.css": "text/css"}


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
        path = self.path.split("?")[0]
        if path in FILES:
            with open(os.path.join(DIST, path[1:]), "rb") as f:
                self.send_body(200, FILES[path], f.read())
        elif path == "/":
            self.send_body(200, "text/html; charset=utf-8", PAGE.encode())
        else:
            self.send_body(404, "text/plain", b"not found")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        reply = scripted.reply_to(body.get("message", ""))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for piece in scripted.chunks(reply):
            self.wfile.write(piece.encode())
            self.wfile.flush()
        self.close_connection = True


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
