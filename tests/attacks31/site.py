"""Parlor: a small chat site for attacking keyless's handling of site trouble (issue 31).

Written for these tests alone (no keyless code): a composer, a send button, user and assistant
bubbles, a copy button per reply, replies streamed as JSON lines over fetch, conversations kept
by id at /talk/<id>, and a scripted model whose replies come from a JSON list.

Run: python3 site.py DIR PORT. DIR holds:
  script.json    the model's replies, one per answered message, in order
  fault.json     the fault to inject (read on every request; rewrite it to lift a fault)
  received.jsonl written here: every message the server received and what became of it
  visits.jsonl   written here: every page (HTML) request, by path
  beacons.jsonl  written here: what the bot check page saw of foreign script

fault.json: {"kind": KIND, "at": N, "words": TEXT, "until": EPOCH or null, "lifted": bool,
             "place": "turn"|"area"|"toast"|"modal"|"spanmodal", "for": SECONDS, "button": LABEL,
             "gate": "signin" (a logged-out chat address redirects there) | "chat" (an email-only
             gate served at the chat's own address)}
KIND: limit, throttle, spend, login, botcheck (the site refuses messages while on), error (a
server error turn with Retry, or the label in `button`, for `for` seconds), stall, drop, slow (once, mid-stream), warn (a
notice beside a reply that comes all the same).
The fault fires when message number `at` (counting answered ones + 1) arrives and stays while
it is not lifted (limits, errors) or fires once (stall, drop, closed tab).
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
THREADS = {}  # id -> list of {"who": "human"|"bot", "text": str}
STATE = {"answered": 0, "fired": False, "since": None, "seq": 0}

REFUSING = {"limit", "throttle", "spend", "login", "botcheck"}


def path(name):
    return os.path.join(DIR, name)


def append(name, obj):
    with LOCK:
        with open(path(name), "a", encoding="utf-8") as out:
            out.write(json.dumps(obj, ensure_ascii=False) + "\n")


def fault():
    try:
        with open(path("fault.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def active(f):
    """Whether the fault `f` applies to the next message."""
    kind = f.get("kind")
    if not kind or f.get("lifted") or kind == "warn":
        return False
    until = f.get("until")
    if until is not None and time.time() >= until:
        return False
    if STATE["since"] is not None and f.get("for") is not None:
        if time.time() - STATE["since"] >= f["for"]:
            return False
    if kind in REFUSING or kind == "error":
        return STATE["fired"] or STATE["answered"] + 1 >= f.get("at", 1)
    return not STATE["fired"] and STATE["answered"] + 1 == f.get("at", 1)


def next_reply():
    with open(path("script.json"), encoding="utf-8") as f:
        replies = json.load(f)
    n = STATE["answered"]
    return replies[n] if n < len(replies) else "Nothing more to say."


APP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.html"), encoding="utf-8").read()

EMAIL_GATE = """<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Parlor</title></head>
<body><main><h1>Willkommen zurück</h1><p>Melde dich mit deiner E-Mail an, um weiterzuschreiben.</p>
<form><input type="email" name="mail" placeholder="du@beispiel.de"><button type="button">Weiter</button></form>
</main></body></html>"""

LOGIN = """<!doctype html><html><head><meta charset="utf-8"><title>Parlor · Sign in</title></head>
<body><main class="gate"><h1>Session expired</h1>
<p>Your session has expired. Please sign in again to keep chatting.</p>
<form method="post" action="/account/signin"><label>Email <input type="email" name="email"></label>
<label>Password <input type="password" name="pw"></label><button>Sign in</button></form></main>
<script>
// Once the person signed in (the test lifts the fault), back to where they were.
setInterval(function () {
  fetch("/api/passed").then(function (r) { return r.json(); }).then(function (j) {
    if (j.passed) location.href = new URLSearchParams(location.search).get("return") || "/";
  });
}, 500);
</script></body></html>"""

CHALLENGE = """<!doctype html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="3600"><meta charset="utf-8"></head>
<body><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">127.0.0.1</h1>
<h2 class="h2" id="challenge-running">Verify you are human by completing the action below.</h2>
<div id="challenge-stage"><label class="ctp-checkbox-label"><input type="checkbox"><span>Verify you are human</span></label></div>
<div id="challenge-body-text" class="core-msg spacer">127.0.0.1 needs to review the security of your connection before proceeding.</div>
</div></div>
<div class="footer" role="contentinfo"><div class="footer-inner"><div class="clearfix diagnostic-wrapper">
<div class="ray-id">Ray ID: <code>8e4f1c2a3b5d6e7f</code></div></div>
<div class="text-center" id="footer-text">Performance &amp; security by Cloudflare</div></div></div>
<script>
(function () {
  // What a bot check looks for: script of someone else's running in the page.
  var own = new Set(Object.getOwnPropertyNames(window));
  var calls = 0;
  ["querySelector", "querySelectorAll"].forEach(function (name) {
    [Document.prototype, Element.prototype].forEach(function (proto) {
      var original = proto[name];
      proto[name] = function () { calls += 1; return original.apply(this, arguments); };
    });
  });
  var mutations = 0;
  new MutationObserver(function (list) { mutations += list.length; })
    .observe(document.documentElement, {subtree: true, childList: true, attributes: true});
  function report() {
    var foreign = Object.getOwnPropertyNames(window).filter(function (k) { return !own.has(k); });
    navigator.sendBeacon("/beacon", JSON.stringify({calls: calls, foreign: foreign, mutations: mutations}));
  }
  setInterval(report, 500);
  // Once the person passed the check (the test lifts the fault), the chat comes back.
  setInterval(function () {
    fetch("/api/passed").then(function (r) { return r.json(); }).then(function (j) {
      if (j.passed) location.reload();
    });
  }, 500);
})();
</script></body></html>"""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_text(self, code, body, ctype="text/html; charset=utf-8", extra=()):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"{}")

    def do_GET(self):
        p = self.path.split("?")[0]
        if p == "/" or p.startswith("/talk/"):
            append("visits.jsonl", {"path": self.path, "t": time.time()})
            f = fault()
            if f.get("kind") == "botcheck" and STATE["fired"] and active(f):
                return self.send_text(403, CHALLENGE, extra=[("cf-mitigated", "challenge")])
            # Logged out: the chat's address sends the browser to the sign-in page, or (gate
            # "chat") shows an email-only gate itself.
            if f.get("kind") == "login" and STATE["fired"] and active(f):
                if f.get("gate") == "chat":
                    return self.send_text(200, EMAIL_GATE)
                self.send_response(302)
                self.send_header("Location", "/account/signin?return=" + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            return self.send_text(200, APP)
        if p == "/account/signin":
            append("visits.jsonl", {"path": self.path, "t": time.time()})
            return self.send_text(200, LOGIN)
        if p.startswith("/api/thread/"):
            tid = p[len("/api/thread/"):]
            with LOCK:
                turns = THREADS.get(tid)
            if turns is None:
                return self.send_text(404, json.dumps({"missing": True}), "application/json")
            return self.send_text(200, json.dumps({"turns": turns}), "application/json")
        if p == "/api/passed":
            return self.send_text(200, json.dumps({"passed": not active(fault())}), "application/json")
        if p == "/favicon.ico":
            return self.send_text(404, "")
        return self.send_text(404, "not here")

    def stream_head(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, obj):
        data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_POST(self):
        p = self.path.split("?")[0]
        if p == "/beacon":
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n)
            try:
                append("beacons.jsonl", json.loads(raw))
            except ValueError:
                pass
            return self.send_text(204, "")
        if p == "/api/say":
            return self.say(self.body(), retry=False)
        if p == "/api/retry":
            return self.say(self.body(), retry=True)
        return self.send_text(404, "not here")

    def say(self, req, retry):
        tid = req.get("thread") or uuid.uuid4().hex[:12]
        text = req.get("text", "")
        with LOCK:
            STATE["seq"] += 1
            seq = STATE["seq"]
            turns = THREADS.setdefault(tid, [])
            if not retry:
                turns.append({"who": "human", "text": text})
            elif turns and turns[-1]["who"] == "bot":
                turns.pop()
            if retry and turns:
                text = turns[-1]["text"]
        f = fault()
        kind = f.get("kind")
        record = {"seq": seq, "thread": tid, "text": text, "retry": retry, "t": time.time()}
        if active(f):
            first = not STATE["fired"]
            STATE["fired"] = True
            if STATE["since"] is None:
                STATE["since"] = time.time()
            if kind in REFUSING or kind == "error":
                with LOCK:
                    # A refused message is not kept (an errored one is: Retry answers it).
                    if kind != "error" and not retry and turns and turns[-1]["who"] == "human":
                        turns.pop()
                record["outcome"] = "refused:" + kind
                append("received.jsonl", record)
                if kind == "login":
                    return self.send_text(401, json.dumps({"thread": tid, "signin": "/account/signin?return=/talk/" + tid}), "application/json")
                if kind == "botcheck":
                    return self.send_text(403, json.dumps({"thread": tid, "challenge": True}), "application/json", extra=[("cf-mitigated", "challenge")])
                if kind == "error":
                    return self.send_text(502, json.dumps({"thread": tid, "error": f.get("words") or "Something went sideways on our end.", "button": f.get("button")}), "application/json")
                return self.send_text(429, json.dumps({"thread": tid, "notice": f.get("words", ""), "place": f.get("place", "turn")}), "application/json")
            reply = next_reply()
            with LOCK:
                STATE["answered"] += 1
                # The model finishes server-side whatever happens to the stream.
                THREADS[tid].append({"who": "bot", "text": reply})
            record["outcome"] = "answered:" + kind
            append("received.jsonl", record)
            return self.faulty_stream(tid, reply, kind, f)
        warn = kind == "warn" and not f.get("lifted") and STATE["answered"] + 1 >= f.get("at", 1)
        reply = next_reply()
        with LOCK:
            STATE["answered"] += 1
            THREADS[tid].append({"who": "bot", "text": reply})
        record["outcome"] = "answered"
        append("received.jsonl", record)
        self.stream_head()
        self.chunk({"thread": tid})
        if warn:
            # A warning before a limit: the reply comes all the same.
            self.chunk({"warn": f.get("words", ""), "place": f.get("place", "area")})
        for at in range(0, len(reply), 80):
            time.sleep(0.02)
            self.chunk({"delta": reply[at:at + 80]})
        self.chunk({"end": True})
        self.end_stream()

    def faulty_stream(self, tid, reply, kind, f):
        STATE["streaming"] = True
        self.stream_head()
        self.chunk({"thread": tid})
        if kind == "drop" and f.get("quiet"):
            self.chunk({"quiet": True})
        half = len(reply) // 2
        for at in range(0, half, 40):
            time.sleep(0.05)
            self.chunk({"delta": reply[at:min(at + 40, half)]})
        append("received.jsonl", {"streaming": tid, "t": time.time()})
        if kind == "drop":
            # The connection dies mid-stream and the site is unreachable for a few seconds. A
            # quiet drop (told to the page as the stream begins): the page shows what came as if
            # it were the whole reply, no words.
            STATE["down_until"] = time.time() + f.get("for", 4)
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        if kind == "stall":
            # No byte more, the connection held open, until lifted (or two minutes).
            deadline = time.time() + 120
            while time.time() < deadline and not fault().get("lifted"):
                time.sleep(0.1)
            self.close_connection = True
            return
        if kind == "slow":
            # A reply streamed slowly (for a tab closed mid-reply).
            rest = reply[half:]
            try:
                for at in range(0, len(rest), 20):
                    time.sleep(0.25)
                    self.chunk({"delta": rest[at:at + 20]})
                self.chunk({"end": True})
                self.end_stream()
            except OSError:
                self.close_connection = True
            return


class Server(ThreadingHTTPServer):
    daemon_threads = True


class Gate(Handler):
    """While the network is "down" after a drop, every connection is cut at once."""

    def handle_one_request(self):
        until = STATE.get("down_until")
        if until and time.time() < until:
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        return super().handle_one_request()


if __name__ == "__main__":
    srv = Server(("127.0.0.1", PORT), Gate)
    with open(path("ready"), "w") as r:
        r.write("ok")
    srv.serve_forever()
