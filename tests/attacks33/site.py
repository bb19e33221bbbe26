"""Pickers: a small chat site for attacking keyless's handling of a chat's own controls (issue 33).

Written for these tests alone (no keyless code): a textarea composer, a send button, user and
assistant turns, a copy button per reply, replies streamed as JSON lines over fetch, a scripted
model, and one of several model pickers shaped like the real sites' (none of them keyless's local
page), chosen by `config.json`:

  picker   "menu"     a pill button (aria-haspopup=menu) opening a role=menu portal of
                      menuitemradio rows in a labelled "Models" group, and an inline effort group
           "submenu"  the same, but the effort levels sit in a submenu behind an "Effort" row
           "rows"     a Claude-like dropdown: each row holds a title, a description line and a
                      badge; a locked row holds an inline "Upgrade" button; a menuitem toggle
                      ("Adaptive thinking") sits in the same menu
           "listbox"  a Gemini-like combobox opening a role=listbox of role=option rows
           "select"   a native <select>
           "none"     no picker at all
  models   [{"label", "slug", "desc", "badge", "locked"}], current: the label checked at load
  efforts  [labels], effort: the level checked at load, effort_label: the group's label
  picker_label: the picker's aria-label; revert_ms: the page takes a choice back after that long
  (a choice the plan does not allow, shown for a moment); reply_tag: "slug" (an attribute
  data-message-model-slug on each reply), "byline" (a visible "Answered by …" line), "none";
  surface: "chat" | "work": Chat/Work radios, the one checked at load (Work is metered apart);
  downgrade: {"after": N, "to": LABEL, "shows": "slug"|"byline"|"picker"}: from the reply to
  message N+1 on, a weaker model answers; "picker" swaps the picker's label after reply N
  instead (a usage cap's quiet fallback); temporary: "toggle" | "refuses" (stays off, with a
  toast) | "hides" (the toggle gives way to a banner once the temporary chat has begun) | null.

Run: python3 site.py DIR PORT. DIR holds config.json and script.json (the replies, in order);
written here: received.jsonl (every message, with the model, effort and temporary state the page
sent it with, and which model answered), visits.jsonl (every page request, by path).
"""

import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR = sys.argv[1]
PORT = int(sys.argv[2])
LOCK = threading.Lock()
STATE = {"answered": 0}


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
    n = STATE["answered"]
    return replies[n] if n < len(replies) else "Nothing more to say."


def slug_of(cfg, label):
    for m in cfg.get("models", []):
        if m["label"] == label:
            return m.get("slug") or label.lower().replace(" ", "-")
    return label.lower().replace(" ", "-")


APP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.html"), encoding="utf-8").read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_text(self, code, body, ctype="text/html; charset=utf-8"):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        p = self.path.split("?")[0]
        if p in ("/", "/upgrade") or p.startswith("/c/"):
            append("visits.jsonl", {"path": self.path, "t": time.time()})
            if p == "/upgrade":
                return self.send_text(200, "<!doctype html><title>Upgrade</title><h1>Upgrade your plan</h1>")
            return self.send_text(200, APP)
        if p == "/api/config":
            return self.send_text(200, json.dumps(config()), "application/json")
        if p == "/favicon.ico":
            return self.send_text(404, "")
        return self.send_text(404, "not here")

    def do_POST(self):
        p = self.path.split("?")[0]
        if p != "/api/say":
            return self.send_text(404, "not here")
        n = int(self.headers.get("Content-Length") or 0)
        req = json.loads(self.rfile.read(n) or b"{}")
        cfg = config()
        tid = req.get("thread") or uuid.uuid4().hex[:12]
        chosen = req.get("model")
        answered_by = chosen
        down = cfg.get("downgrade")
        if down and down.get("shows") != "picker" and STATE["answered"] >= down["after"]:
            answered_by = down["to"]
        reply = next_reply()
        STATE["answered"] += 1
        append("received.jsonl", {
            "thread": tid, "text": req.get("text", ""), "model": chosen,
            "effort": req.get("effort"), "temporary": req.get("temporary"), "surface": req.get("surface"),
            "answered_by": answered_by, "t": time.time(),
        })
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.chunk({"thread": tid, "by": answered_by, "slug": slug_of(cfg, answered_by or "")})
        for at in range(0, len(reply), 80):
            time.sleep(0.02)
            self.chunk({"delta": reply[at:at + 80]})
        swap = None
        if down and down.get("shows") == "picker" and STATE["answered"] >= down["after"]:
            swap = down["to"]
        self.chunk({"end": True, "swap": swap})
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def chunk(self, obj):
        data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    srv = Server(("127.0.0.1", PORT), Handler)
    with open(path("ready"), "w") as r:
        r.write("ok")
    srv.serve_forever()
