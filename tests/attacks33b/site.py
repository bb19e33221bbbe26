"""Dropbox: a small chat site for attacking keyless's `--attach` (issue 33, point 2) and its model
choice, written for these tests alone (no keyless code, not keyless's local page).

A textarea composer, a send button, user and assistant turns, a copy button per reply, replies
streamed as JSON lines over fetch, a scripted model, conversations kept at /c/ID and drawn again
from the server's history. The upload UI is one of several, chosen by `config.json`:

  upload   "menu"    a "+" button opens a role=menu; its "Upload from computer" item creates a
                     hidden <input type=file multiple> (only then) and clicks it
           "direct"  a drop zone holding a hidden <input type=file multiple> from the start
           "shadow"  an <x-uploader> element whose open shadow root holds the paperclip, the
                     input and the chips
           "none"    no file input at all
  chip     "full"      the name and the size, a remove button
           "truncated" the name cut to "first-16-chars….ext" when longer than 20, no title
           "icon"      an icon and the size; the name only in the chip's title
  delay_ms   the upload takes that long: a spinner chip with the name and a progress bar first,
             the bytes posted only at the end; a message sent meanwhile goes WITHOUT the file
  refuse     "chip" (the chip stays, saying "Upload failed") | "toast_de" (a German toast in a
             polite live region, no chip) | null; refuse_match: refuse only names holding it
  cap        files per message; more are dropped silently (no chip, no word)
  drop_names files of these names are dropped silently (no chip, no word)
  total_cap  files taken across visits (the browser's localStorage); more are dropped silently
  images_only  non-images get an English toast "Only images are supported." and no chip
  never_chip   the bytes are posted, no chip is ever drawn
  fail_after_ms  each file's chip shows its name and a progress bar, then turns into
                 "Upload failed" (class "failed") after that long; nothing is posted
  draft      {"name", "text"}: a draft kept from an earlier visit, its file's chip in the
             composer at load (the file goes with the next message)
  reply_delay_ms  the reply starts streaming after that long (delay_first_only: the first only)
  turn_shows_files  false: a user's turn shows only its text (else the names of its files
                    above it, as the sites draw a message that carried files)
  picker   "radios": a <details> disclosure (open at load when picker_open) of <input type=radio name=model> rows with <label>s
           (models: [{"label", "desc"}], current); "dialog": a pill (aria-haspopup=dialog,
           aria-expanded) opening a dialog with a role=radiogroup of role=radio rows, each
           labelled by its title (aria-labelledby) with a smaller subtitle; or null

Run: python3 site.py DIR PORT. DIR holds config.json and script.json (the replies, in order).
Written there: uploads.jsonl (every upload: id, name, size) with the bytes in uploads/ID,
received.jsonl (every message: thread, text, the ids and names of the files it went with, the
model chosen), replied.jsonl (each reply once it is whole and kept), visits.jsonl (page loads).
"""

import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse

DIR = sys.argv[1]
PORT = int(sys.argv[2])
LOCK = threading.Lock()
STATE = {"answered": 0}
THREADS = {}
UPLOADS = {}


def path(name):
    return os.path.join(DIR, name)


def append(name, obj):
    with LOCK:
        with open(path(name), "a", encoding="utf-8") as out:
            out.write(json.dumps(obj, ensure_ascii=False) + "\n")


def config():
    with open(path("config.json"), encoding="utf-8") as f:
        return json.load(f)


def next_reply():
    with open(path("script.json"), encoding="utf-8") as f:
        replies = json.load(f)
    with LOCK:
        n = STATE["answered"]
        STATE["answered"] += 1
    return replies[n] if n < len(replies) else "Nothing more to say."


APP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.html"), encoding="utf-8").read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, code, data, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def send_text(self, code, body, ctype="text/html; charset=utf-8"):
        self.send_body(code, body.encode("utf-8"), ctype)

    def do_GET(self):
        p = urlparse(self.path).path
        if p == "/" or p.startswith("/c/"):
            append("visits.jsonl", {"path": self.path, "t": time.time()})
            return self.send_text(200, APP)
        if p == "/api/config":
            return self.send_text(200, json.dumps(config()), "application/json")
        if p.startswith("/api/thread/"):
            tid = p[len("/api/thread/"):]
            with LOCK:
                turns = list(THREADS.get(tid, []))
            return self.send_text(200, json.dumps(turns), "application/json")
        return self.send_text(404, "not here")

    def do_POST(self):
        url = urlparse(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        if url.path == "/api/upload":
            name = unquote(parse_qs(url.query).get("name", [""])[0])
            fid = uuid.uuid4().hex[:12]
            os.makedirs(path("uploads"), exist_ok=True)
            with open(path(os.path.join("uploads", fid)), "wb") as out:
                out.write(body)
            with LOCK:
                UPLOADS[fid] = name
            append("uploads.jsonl", {"id": fid, "name": name, "size": len(body), "t": time.time()})
            return self.send_text(200, json.dumps({"id": fid}), "application/json")
        if url.path != "/api/say":
            return self.send_text(404, "not here")
        req = json.loads(body or b"{}")
        cfg = config()
        tid = req.get("thread") or uuid.uuid4().hex[:12]
        files = [{"id": f, "name": UPLOADS.get(f)} for f in req.get("files", [])]
        append("received.jsonl", {
            "thread": tid, "text": req.get("text", ""), "files": files,
            "model": req.get("model"), "t": time.time(),
        })
        with LOCK:
            THREADS.setdefault(tid, []).append({"role": "user", "text": req.get("text", ""),
                                                "files": [f["name"] for f in files]})
        n = STATE["answered"]
        reply = next_reply()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.chunk({"thread": tid})
        if not cfg.get("delay_first_only") or n == 0:
            time.sleep((cfg.get("reply_delay_ms") or 0) / 1000.0)
        for at in range(0, len(reply), 80):
            time.sleep(0.02)
            self.chunk({"delta": reply[at:at + 80]})
        with LOCK:
            THREADS[tid].append({"role": "bot", "text": reply})
        append("replied.jsonl", {"thread": tid, "t": time.time()})
        self.chunk({"end": True})
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def chunk(self, obj):
        data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except OSError:
            pass


class Server(ThreadingHTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    srv = Server(("127.0.0.1", PORT), Handler)
    with open(path("ready"), "w") as r:
        r.write("ok")
    srv.serve_forever()
