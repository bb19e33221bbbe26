"""Murmur: a single-page chat app for a second outside attack on keyless's handling of a chat
site's trouble mid-turn (issue 31).

Written for these tests alone (no keyless code, and unlike keyless's local page): a
contenteditable composer, turns as <article> elements whose speaker is only in a data attribute
of this site's own naming (data-voice="you" / "murmur") and an aria-label, replies streamed as
JSON lines over fetch, a copy button per reply, notices as toasts that vanish, a ribbon above the
composer, a modal <dialog> with "Got it", and an error inside a turn with a "Try again" button.
Conversations live on the server (/c/<id>), so a reload shows them again.

One fault per run, from `config.json`'s "fault" (read on every request, so a test may change it):

  at       the exchange it strikes (1: the first message, 2: the second)
  kind     "refuse"        the message is refused (not given to the model): `status` (an HTTP
                           status, 200 by default) with a JSON body {"error": {"message"}}, the
                           page showing `words` where `where` says: "toast" (gone after
                           `toast_ms`), "ribbon" (above the composer), "dialog" (a modal with
                           "Got it"), "turn" (in the reply's place; `retry`: with a "Try again"
                           button); `lift_after`: the fault lifts itself that many seconds after
                           it first struck; `close_after`: the site closes the tab showing
                           it (through `devtools`) that many seconds after the refusal
           "stall"         the message is taken; half the reply streams, then nothing (the
                           connection stays open); the whole reply is kept on the server
           "drop"          the message is taken; half the reply streams, then the connection is
                           cut; the whole reply is kept on the server
           "cutnotice"     the message is taken; `words` stream in the reply's place, then the
                           connection is cut, the page saying nothing of it; the chat keeps
                           the words as the reply. With `where` "ribbon" or "toast": the
                           message is refused (nothing kept), the stream carries `words` for
                           that area (a toast gone after `toast_ms`, ten minutes by default;
                           shown `show_delay_ms` after it came) and is then cut short of its
                           Content-Length
           "closetab"      the message is taken; half the reply streams, then the site closes the
                           tab showing it (through `devtools`, the browser's DevTools HTTP address)
                           and the stream stops; the whole reply is kept
           "slowhalf"      the message is taken; half the reply streams, the file `midstream`
                           is written, then the rest streams after `pause` seconds (for a test
                           that kills the browser meanwhile)
           "login"         the message is refused with 401 and the page swaps itself for a
                           sign-in form at the same address; every chat page serves that form
           "login_redirect" refused with 401; the page goes to /auth/login?next=<chat>; every
                           chat page redirects there
           "bot403"        refused with 403; the page reloads, and every chat page answers 403
                           with a "Checking your browser" interstitial
           "bot200"        refused with 403; the page swaps itself for a "Checking your browser"
                           interstitial (title unchanged), and every chat page serves it (200)
  The file `lifted` in DIR lifts any fault (the person logged in, the check passed, the plan
  renewed): messages are taken again and the chat pages come back.

Run: python3 site.py DIR PORT. DIR holds config.json and script.json (the replies, in order);
written here: received.jsonl (every message the site got: its text, its chat, whether the model
took it, the time), probes.jsonl (a check page's notes of new globals a debugger's script left in
it), typed.jsonl (what was put into the sign-in form's fields: which, how many characters), ready
once serving.
"""

import json
import os
import socket
import sys
import threading
import time
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR = sys.argv[1]
PORT = int(sys.argv[2])
LOCK = threading.Lock()
# Chats by id: a list of {"voice", "text"}; the count of messages the model took; when the
# fault first struck.
STATE = {"threads": {}, "taken": 0, "struck_at": None}
APP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.html"), encoding="utf-8").read()


def path(name):
    return os.path.join(DIR, name)


def append(name, obj):
    with LOCK:
        with open(path(name), "a", encoding="utf-8") as out:
            out.write(json.dumps(obj, ensure_ascii=False) + "\n")


def config():
    with open(path("config.json"), encoding="utf-8") as f:
        return json.load(f)


def script():
    with open(path("script.json"), encoding="utf-8") as f:
        return json.load(f)


def active_fault():
    """The fault while it holds: not lifted by the file, nor by its own time."""
    fault = config().get("fault")
    if not fault or os.path.exists(path("lifted")):
        return None
    lift = fault.get("lift_after")
    struck = STATE["struck_at"]
    if lift is not None and struck is not None and time.time() - struck > lift:
        return None
    return fault


WALL_KINDS = ("login", "login_redirect", "bot403", "bot200")


def wall_up():
    """The wall a refused message raised, while it stands."""
    fault = active_fault()
    if fault and fault["kind"] in WALL_KINDS and STATE["struck_at"] is not None:
        return fault["kind"]
    return None


SIGN_IN = """<!doctype html><html><head><meta charset="utf-8"><title>Murmur</title></head>
<body><main class="gate"><h1>Welcome back</h1><p>Your session has expired. Sign in to pick up where you left off.</p>
<form><label>Email <input type="email" name="email"></label><label>Password <input type="password" name="pw"></label>
<button type="submit">Continue</button></form></main></body></html>"""

# A check notes every new global a debugger's script leaves in its page (sent to /api/probe).
PROBE = """<script>(function(){var seen=new Set(Object.getOwnPropertyNames(window));navigator.sendBeacon('/api/probe',JSON.stringify({shown:Date.now()/1000}));setInterval(function(){var fresh=Object.getOwnPropertyNames(window).filter(function(n){return !seen.has(n)});if(fresh.length){fresh.forEach(function(n){seen.add(n)});navigator.sendBeacon('/api/probe',JSON.stringify({names:fresh,t:Date.now()/1000}));}},50);})();</script>"""

CHECKING_403 = """<!doctype html><html><head><meta charset="utf-8"><title>One moment, please...</title></head>
<body><div class="interstitial"><h2>Checking your browser before accessing murmur.test</h2>
<p>This process is automatic. Your browser will redirect shortly.</p></div>PROBE</body></html>""".replace("PROBE", PROBE)

CHECKING_200 = """<!doctype html><html><head><meta charset="utf-8"><title>Murmur</title></head>
<body><div class="interstitial"><h2>Checking your browser...</h2>
<p>This may take a few seconds. Please keep this tab open.</p></div>PROBE</body></html>""".replace("PROBE", PROBE)


def close_tab(devtools):
    """Closes every tab of the browser at `devtools` that shows this site (as a person's Ctrl+W)."""
    try:
        with urllib.request.urlopen(devtools + "/json/list", timeout=5) as r:
            tabs = json.load(r)
        for tab in tabs:
            if tab.get("type") == "page" and tab.get("url", "").startswith(f"http://127.0.0.1:{PORT}/"):
                urllib.request.urlopen(devtools + "/json/close/" + tab["id"], timeout=5).read()
                append("events.jsonl", {"closed": tab["url"]})
    except Exception as e:  # noqa: BLE001 - a test reads the events file
        append("events.jsonl", {"close_failed": str(e)})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def send_body(self, status, body, kind="text/html; charset=utf-8", extra=()):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        p = self.path.split("?")[0]
        if p == "/" or p.startswith("/c/"):
            wall = wall_up()
            if wall == "login":
                return self.send_body(200, SIGN_IN)
            if wall == "login_redirect":
                self.send_response(302)
                self.send_header("Location", "/auth/login?next=" + urllib.request.quote(p))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if wall == "bot403":
                return self.send_body(403, CHECKING_403)
            if wall == "bot200":
                return self.send_body(200, CHECKING_200)
            return self.send_body(200, APP)
        if p == "/auth/login":
            if wall_up() is None:
                nxt = urllib.request.unquote(self.path.split("next=", 1)[1]) if "next=" in self.path else "/"
                self.send_response(302)
                self.send_header("Location", nxt)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            return self.send_body(200, SIGN_IN)
        if p.startswith("/api/thread/"):
            tid = p.rsplit("/", 1)[1]
            with LOCK:
                turns = list(STATE["threads"].get(tid, []))
            return self.send_body(200, json.dumps({"turns": turns}), "application/json")
        return self.send_body(404, "not here")

    def do_POST(self):
        if self.path == "/api/typed":
            length = int(self.headers.get("Content-Length", "0"))
            append("typed.jsonl", json.loads(self.rfile.read(length) or b"{}"))
            return self.send_body(204, "")
        if self.path == "/api/probe":
            length = int(self.headers.get("Content-Length", "0"))
            append("probes.jsonl", json.loads(self.rfile.read(length) or b"{}"))
            return self.send_body(204, "")
        if self.path != "/api/converse":
            return self.send_body(404, "not here")
        length = int(self.headers.get("Content-Length", "0"))
        ask = json.loads(self.rfile.read(length) or b"{}")
        tid = ask.get("thread") or uuid.uuid4().hex[:12]
        text = ask.get("text", "")
        fault = active_fault()
        exchange = STATE["taken"] + 1
        strikes = bool(fault) and (fault.get("at", 1) <= exchange)
        kind = fault["kind"] if strikes else None
        refused = kind in ("refuse",) + WALL_KINDS or (
            kind == "cutnotice" and fault.get("where", "turn") != "turn")
        if strikes and STATE["struck_at"] is None:
            STATE["struck_at"] = time.time()
        append("received.jsonl", {
            "text": text, "thread": tid, "taken": not refused, "fault": kind, "t": time.time(),
        })
        if kind == "cutnotice" and refused:
            return self.cut_notice(fault, tid)
        if refused:
            return self.refuse(fault, tid)
        with LOCK:
            replies = script()
            reply = replies[min(STATE["taken"], len(replies) - 1)]
            STATE["taken"] += 1
            turns = STATE["threads"].setdefault(tid, [])
            turns.append({"voice": "you", "text": text})
            # The whole reply is kept on the server whatever happens to the stream; a notice
            # in its place is what the chat keeps instead.
            kept = fault.get("words", "") if kind == "cutnotice" else reply
            turns.append({"voice": "murmur", "text": kept})
        self.stream(tid, reply, kind, fault)

    def refuse(self, fault, tid):
        kind = fault["kind"]
        if fault.get("close_after") is not None:
            threading.Timer(fault["close_after"], close_tab, [fault["devtools"]]).start()
        words = fault.get("words", "")
        body = {"error": {"message": words, "where": fault.get("where", "ribbon"),
                          "retry": bool(fault.get("retry")), "title": fault.get("title"),
                          "toast_ms": fault.get("toast_ms", 4000)}}
        status = fault.get("status", 200)
        if kind == "login":
            body = {"error": {"message": "unauthorized", "wall": "login"}}
            status = 401
        elif kind == "login_redirect":
            body = {"error": {"message": "unauthorized", "redirect": "/auth/login?next=/c/" + tid}}
            status = 401
        elif kind == "bot403":
            body = {"error": {"message": "forbidden", "wall": "reload"}}
            status = 403
        elif kind == "bot200":
            body = {"error": {"message": "forbidden", "wall": "check"}}
            status = 403
        self.send_body(status, json.dumps(body), "application/json", [("X-Thread", tid)])

    def cut_notice(self, fault, tid):
        """The site's words for a notice area outside the turns, then the stream cut short of
        the length it announced (the browser tells of a cut)."""
        line = json.dumps({"t": "notice", "message": fault.get("words", ""),
                           "where": fault["where"],
                           "toast_ms": fault.get("toast_ms", 600000),
                           "delay_ms": fault.get("show_delay_ms", 0)}) + "\n"
        body = line.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("X-Thread", tid)
        self.send_header("X-Cut-Quiet", "1")
        self.send_header("Content-Length", str(len(body) + 4096))
        self.end_headers()
        try:
            self.wfile.write(body)
            self.wfile.flush()
            time.sleep(0.3)
            append("events.jsonl", {"dropped": time.time()})
            self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def stream(self, tid, reply, kind, fault):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("X-Thread", tid)
        self.send_header("Cache-Control", "no-store")
        if kind == "cutnotice":
            self.send_header("X-Cut-Quiet", "1")
        self.end_headers()
        if kind == "cutnotice":
            # The site's words in the reply's place, then the stream cut.
            reply = fault.get("words", "")
        pieces = [reply[i:i + 24] for i in range(0, len(reply), 24)]
        half = len(pieces) // 2
        if kind == "cutnotice":
            half = len(pieces)
            kind = "drop"
        try:
            for i, piece in enumerate(pieces):
                if i == half and kind == "stall":
                    append("events.jsonl", {"stalled": time.time()})
                    deadline = time.time() + 600
                    while time.time() < deadline and not os.path.exists(path("lifted")):
                        time.sleep(0.2)
                    return
                if i == half and kind == "drop":
                    append("events.jsonl", {"dropped": time.time()})
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if i == half and kind == "closetab":
                    self.wfile.flush()
                    close_tab(fault["devtools"])
                    return
                if i == half and kind == "slowhalf":
                    self.wfile.flush()
                    with open(path("midstream"), "w") as m:
                        m.write(str(time.time()))
                    time.sleep(fault.get("pause", 5))
                self.wfile.write((json.dumps({"t": "piece", "d": piece}) + "\n").encode("utf-8"))
                self.wfile.flush()
                time.sleep(0.03)
            if kind == "drop" and half == len(pieces):
                append("events.jsonl", {"dropped": time.time()})
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b'{"t": "end"}\n')
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    server.daemon_threads = True
    with open(path("ready"), "w") as r:
        r.write("ready")
    server.serve_forever()


main()
