#!/usr/bin/env python3
"""A small chat site ("Parley") with a scripted AgentScript model and injectable faults.

Usage: python3 site.py DIR PORT, with the fault in DIR/args.json: {"fault": KIND, "text": TEXT,
"text2": TEXT, "on": N, "persist": SECONDS, "profile": DIR, "retry_after": S, "store_early": bool,
"sync_history": bool, "tools_inside": bool, "tools_before": bool, "tools_text": TEXT}. Every message received is a line of DIR/received.jsonl.
Written by an outside attacker of issue 31 (a reviewer who had not read keyless's code).
Faults fire on the Nth user message of a conversation that is a RESULTS message (--on 2,
default) or on the first message (--on 1). GET /__ctl?clear=1 turns the fault off.
"""
import hashlib, json, os, re, signal, threading, time, urllib.request, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

import sys

# The site's folder and port (tests/it/common/python_site.rs); its faults in `args.json` there.
DIR, PORT = sys.argv[1], int(sys.argv[2])
_cfg_path = os.path.join(DIR, 'args.json')
_cfg = json.load(open(_cfg_path)) if os.path.exists(_cfg_path) else {}


class A:
    port = PORT
    log = os.path.join(DIR, 'received.jsonl')
    fault = _cfg.get('fault', 'none')
    text = _cfg.get('text', '')
    text2 = _cfg.get('text2', '')
    on = int(_cfg.get('on', 2))
    persist = float(_cfg.get('persist', 0))
    profile = _cfg.get('profile', '')
    retry_after = str(_cfg.get('retry_after', ''))
    store_early = bool(_cfg.get('store_early', False))
    sync_history = bool(_cfg.get('sync_history', False))
    tools_inside = bool(_cfg.get('tools_inside', False))
    tools_before = bool(_cfg.get('tools_before', False))
    tools_text = _cfg.get('tools_text', '')
    bodyfile = _cfg.get('bodyfile', '')

LOCK = threading.Lock()
CONVS = {}          # id -> list of turns {role, text, kind}
STATE = {'fault': A.fault, 'fired': False, 'until': 0.0, 'banner': None, 'wall': None}

REPLY1 = """@@newfile a.txt
<<<CONTENT
alpha
CONTENT>>>
@@end
@@next
@@end
@@eof
"""
REPLY2 = """@@newfile b.txt
<<<CONTENT
beta
CONTENT>>>
@@end
@@done
<<<MSG
Created a.txt and b.txt.
MSG>>>
@@end
@@eof
"""
REPLY3 = """@@done
<<<MSG
Both files exist already.
MSG>>>
@@end
@@eof
"""


def log(ev, **kw):
    kw.update(ev=ev, t=round(time.time(), 2), ts=time.strftime('%H:%M:%S'))
    with open(A.log, 'a') as f:
        f.write(json.dumps(kw) + '\n')


def classify(text):
    if '[KEYLESSAGENT RESULTS]' in text:
        return 'results'
    if 'FORMAT ERROR' in text:
        return 'format_error'
    if 'AgentScript' in text and len(text) > 600:
        return 'task'
    return 'other'


def reply_for(text):
    k = classify(text)
    if k == 'task':
        return REPLY1
    if k == 'results':
        if 'b.txt' in text:
            return REPLY3
        if A.bodyfile:
            body = open(A.bodyfile).read()
            return REPLY2.replace('beta\n', body)
        return REPLY2
    if k == 'format_error':
        return REPLY2
    return REPLY3


def user_index(conv):
    return sum(1 for t in CONVS.get(conv, []) if t['role'] == 'user')


def fault_applies(conv, text):
    """Does the fault fire on this send?"""
    if STATE['fault'] == 'none':
        return False
    if STATE['fired']:
        return time.time() < STATE['until']
    n = user_index(conv) + 1 if conv else 1
    if A.on == 1:
        return n == 1
    return classify(text) == 'results'


def fire():
    if not STATE['fired']:
        STATE['fired'] = True
        STATE['until'] = time.time() + A.persist
        log('fault_fired', fault=STATE['fault'])


PAGE = r"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Parley</title>
<style>
body{margin:0;font-family:Georgia,serif;background:#f3efe6;color:#222}
.hd_9x{position:fixed;top:0;left:0;right:0;height:38px;background:#2b3a42;color:#fff;padding:8px 14px}
.tl_3q{padding:60px 8% 190px 8%}
.tu_k1{margin:14px 0 4px auto;max-width:70%;background:#d9e6ea;padding:10px;border-radius:12px;white-space:pre-wrap;font-size:13px}
.ta_z7{margin:4px 0 18px 0;max-width:90%;background:#fff;padding:12px;border-left:4px solid #8a6;white-space:pre-wrap;font-family:monospace;font-size:13px}
.ta_z7.nt_e{border-left-color:#c33;background:#fde;font-family:Georgia,serif}
.tb_r0{font-size:11px;color:#888;margin-top:-14px;margin-bottom:16px}
.cp_8m{position:fixed;bottom:0;left:0;right:0;background:#e8e0cc;padding:14px 8%}
.cp_8m textarea{width:80%;height:70px;font-size:14px}
.bn_w2{background:#ffcf66;padding:8px;margin-bottom:8px;border-radius:6px}
.ts_p5{position:fixed;top:50px;right:20px;background:#333;color:#fff;padding:10px 16px;border-radius:8px;z-index:20;max-width:340px}
.ov_d3{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:50;display:flex;align-items:center;justify-content:center}
.ov_d3 .bx{background:#fff;padding:24px;border-radius:10px;max-width:420px}
.ty_0o::after{content:'…';animation:bl 1s infinite}
</style></head><body>
<div class="hd_9x">Parley <small>beta</small></div>
<main class="tl_3q" id="thr"></main>
<div id="toasts"></div>
<footer class="cp_8m">
  <div id="banners"></div>
  <textarea id="ipt" placeholder="Write to Parley…" aria-label="Write to Parley"></textarea>
  <button id="go" type="button" aria-label="Submit message" title="Submit">&#10148;</button>
  <button id="halt" type="button" aria-label="Stop response" style="display:none">&#9632;</button>
</footer>
<script>
let conv = (location.pathname.match(/^\/c\/([\w-]+)/)||[])[1] || null;
let busy = false, ctrl = null;
const thr = document.getElementById('thr'), ipt = document.getElementById('ipt');
function mkUser(text){const d=document.createElement('div');d.className='tu_k1';d.textContent=text;thr.appendChild(d);return d;}
function mkBot(){const w=document.createElement('section');w.className='ta_z7';const b=document.createElement('div');b.className='bd_4c';w.appendChild(b);thr.appendChild(w);return w;}
function addTools(w, raw){const t=document.createElement('div');t.className='tb_r0';const c=document.createElement('button');c.textContent='⧉';c.setAttribute('aria-label','Copy reply');c.title='Copy';
  c.onclick=async()=>{try{await navigator.clipboard.writeText(raw);}catch(e){const x=document.createElement('textarea');x.value=raw;document.body.appendChild(x);x.select();document.execCommand('copy');x.remove();}c.textContent='✓';setTimeout(()=>c.textContent='⧉',900);};
  t.appendChild(c);if(window.__TT){const sp=document.createElement('span');sp.textContent=' '+window.__TT;t.appendChild(sp);}if(window.__TI)w.appendChild(t);else if(window.__TB)w.before(t);else w.after(t);}
function noticeTurn(w, text, cls){w.className='ta_z7'+(cls?(' '+cls):'');w.firstChild.textContent=text;if(cls==='nt_e')w.setAttribute('role','alert');}
function toast(text, ms){const d=document.createElement('div');d.className='ts_p5';d.setAttribute('role','status');d.textContent=text;document.getElementById('toasts').appendChild(d);setTimeout(()=>d.remove(), ms||6000);}
function banner(text,id){let d=document.getElementById('bn-'+(id||'x'));if(!d){d=document.createElement('div');d.className='bn_w2';d.id='bn-'+(id||'x');document.getElementById('banners').appendChild(d);}d.textContent=text;}
function unbanner(id){const d=document.getElementById('bn-'+(id||'x'));if(d)d.remove();}
function modal(text){const o=document.createElement('div');o.className='ov_d3';o.innerHTML='<div class="bx" role="dialog" aria-modal="true"><p></p><button type="button">OK</button></div>';o.querySelector('p').textContent=text;o.querySelector('button').onclick=()=>o.remove();document.body.appendChild(o);}
function setBusy(b){busy=b;document.getElementById('go').style.display=b?'none':'';document.getElementById('halt').style.display=b?'':'none';}
function retryBox(w, text){noticeTurn(w, text, 'nt_e');const r=document.createElement('button');r.textContent='Try again';r.onclick=()=>regen(w);w.appendChild(r);}
async function stream(resp, w){
  const rd=resp.body.getReader();const dec=new TextDecoder();let buf='',raw='';
  while(true){const {value,done}=await rd.read();if(done)break;buf+=dec.decode(value,{stream:true});
    let i;while((i=buf.indexOf('\n'))>=0){const line=buf.slice(0,i);buf=buf.slice(i+1);if(!line.trim())continue;const e=JSON.parse(line);
      if(e.t==='conv'&&!conv){conv=e.id;history.pushState({},'', '/c/'+conv);}
      else if(e.t==='d'){raw+=e.s;w.firstChild.textContent=raw;w.classList.remove('ty_0o');}
      else if(e.t==='notice_turn'){noticeTurn(w,e.text,e.cls);raw=null;}
      else if(e.t==='replace_error'){retryBox(w,e.text);raw=null;}
      else if(e.t==='toast'){toast(e.text,e.ms);}
      else if(e.t==='banner'){banner(e.text,e.id);}
      else if(e.t==='unbanner'){unbanner(e.id);}
      else if(e.t==='modal'){modal(e.text);}
      else if(e.t==='navigate'){location.href=e.url;}
    }}
  return raw;
}
async function send(){
  if(busy)return;const text=ipt.value;if(!text.trim())return;
  const u=mkUser(text);ipt.value='';setBusy(true);const w=mkBot();w.classList.add('ty_0o');
  try{ctrl=new AbortController();
    const resp=await fetch('/api/send',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({conv,text}),signal:ctrl.signal});
    if(!resp.ok){let j={};try{j=await resp.json();}catch(e){}
      w.remove();
      if(j.ui==='modal'){modal(j.error);u.remove();ipt.value=text;}
      else if(j.ui==='inline'){const f=document.createElement('div');f.className='tb_r0';f.textContent=j.error;u.after(f);}
      else if(j.ui==='silent'){}
      else if(j.ui==='banner'){banner(j.error,'lim');u.remove();ipt.value=text;}
      else {if(j.error)toast(j.error,j.ms);u.remove();ipt.value=text;}
      return;}
    const raw=await stream(resp,w);if(raw)addTools(w,raw);
  }catch(e){}finally{setBusy(false);}
}
async function regen(w){setBusy(true);w.className='ta_z7';w.removeAttribute('role');w.innerHTML='<div class="bd_4c"></div>';
  try{const resp=await fetch('/api/regen',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({conv})});const raw=await stream(resp,w);if(raw)addTools(w,raw);}finally{setBusy(false);}}
document.getElementById('go').onclick=send;
document.getElementById('halt').onclick=()=>{if(ctrl)ctrl.abort();};
ipt.addEventListener('keydown',e=>{if(e.key==='Enter'&&!e.shiftKey&&!e.isComposing){e.preventDefault();send();}});
(async()=>{const s=window.__S||await (await fetch('/api/state'+(conv?('?conv='+conv):''))).json();
  if(s.banner)banner(s.banner,'lim');
  if(conv){for(const t of s.turns){if(t.role==='user')mkUser(t.text);else{const w=mkBot();if(t.kind==='reply'){w.firstChild.textContent=t.text;addTools(w,t.text);}else if(t.kind==='error')retryBox(w,t.text);else noticeTurn(w,t.text,t.cls);}}}
})();
</script></body></html>"""

CHALLENGE = r"""<!doctype html><html><head><title>Just a moment...</title><meta charset="utf-8">
<style>body{font-family:system-ui;background:#fafafa;text-align:center;padding-top:120px}</style></head><body>
<h1>parley.chat</h1><h2>Verify you are human by completing the action below.</h2>
<div style="border:1px solid #ccc;display:inline-block;padding:18px"><label><input type="checkbox" id="cb"> Verify you are human</label></div>
<p>parley.chat needs to review the security of your connection before proceeding.</p>
<p style="font-size:11px">Ray ID: 8f2a9c1d3e4b5a60 &middot; Performance &amp; security by Cloudshield</p>
<script>
(function(){const q=document.querySelector.bind(document), qa=document.querySelectorAll.bind(document);
 function tell(w){try{navigator.sendBeacon('/__probe',w);}catch(e){}}
 document.querySelector=function(s){tell('querySelector '+s);return q(s);};
 document.querySelectorAll=function(s){tell('querySelectorAll '+s);return qa(s);};
 const ret=new URLSearchParams(location.search).get('ret')||'/';
 setInterval(async()=>{const s=await (await fetch('/api/wall')).json(); if(!s.wall) location.href=ret;},1500);
})();
</script></body></html>"""

LOGIN = r"""<!doctype html><html><head><title>Sign in – Parley</title><meta charset="utf-8"></head><body style="font-family:sans-serif;padding:80px">
<h2>Your session has expired</h2><p>Please sign in again to continue.</p>
<form onsubmit="return false"><input type="email" placeholder="Email"><br><input type="password" placeholder="Password"><br><button>Sign in</button></form>
<script>const ret=new URLSearchParams(location.search).get('next')||'/';
setInterval(async()=>{const s=await (await fetch('/api/wall')).json(); if(!s.wall) location.href=ret;},1500);</script>
</body></html>"""


class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'

    def log_message(self, *a):
        pass

    def _send(self, code, body, ctype='text/html; charset=utf-8', headers=None):
        b = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(b)))
        self.send_header('Cache-Control', 'no-store')
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(b)

    def ev(self, **e):
        self.wfile.write((json.dumps(e) + '\n').encode())
        self.wfile.flush()

    def do_GET(self):
        u = urlparse(self.path)
        q = parse_qs(u.query)
        if u.path == '/' or u.path.startswith('/c/'):
            if STATE['wall'] == 'bot':
                log('page_get_during_wall', path=u.path)
            if STATE['wall'] == 'login_same' and u.path.startswith('/c/'):
                log('login_same_served', path=u.path)
                return self._send(200, LOGIN.replace("get('next')||'/'", "get('next')||location.pathname"))
            page = PAGE
            if A.tools_inside:
                page = page.replace('<script>', '<script>window.__TI=1;', 1)
            if A.tools_before:
                page = page.replace('<script>', '<script>window.__TB=1;', 1)
            if A.tools_text:
                page = page.replace('<script>', '<script>window.__TT=' + json.dumps(A.tools_text) + ';', 1)
            if A.sync_history and u.path.startswith('/c/'):
                with LOCK:
                    turns = CONVS.get(u.path[3:], [])
                page = PAGE.replace('<script>', '<script>window.__S=' + json.dumps({'turns': turns, 'banner': None}).replace('</', '<\\/') + ';', 1)
            return self._send(200, page)
        if u.path.startswith('/cdn-cgi/challenge'):
            log('challenge_served')
            return self._send(403, CHALLENGE)
        if u.path.startswith('/account/login'):
            log('login_served')
            return self._send(200, LOGIN)
        if u.path == '/api/state':
            conv = (q.get('conv') or [None])[0]
            with LOCK:
                turns = CONVS.get(conv, [])
                b = STATE['banner'] if (STATE['banner'] and (STATE['until'] == 0 or time.time() < STATE['until'] or A.persist == 0)) else None
                if STATE['fault'] == 'none':
                    b = None
            return self._send(200, json.dumps({'turns': turns, 'banner': b}), 'application/json')
        if u.path == '/api/wall':
            return self._send(200, json.dumps({'wall': STATE['wall']}), 'application/json')
        if u.path == '/__ctl':
            if 'clear' in q:
                STATE['fault'] = 'none'; STATE['wall'] = None; STATE['banner'] = None
                log('ctl_clear')
            return self._send(200, json.dumps({k: v for k, v in STATE.items()}), 'application/json')
        if u.path == '/favicon.ico':
            return self._send(404, '')
        return self._send(404, 'not found')

    def do_POST(self):
        u = urlparse(self.path)
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n) if n else b''
        if u.path == '/__probe':
            log('PROBE_IN_WALL', what=body.decode(errors='replace'))
            return self._send(204, '')
        try:
            j = json.loads(body or b'{}')
        except Exception:
            j = {}
        if u.path == '/api/send':
            return self.handle_send(j.get('conv'), j.get('text', ''))
        if u.path == '/api/regen':
            return self.handle_regen(j.get('conv'))
        return self._send(404, '')

    # ---- streaming helpers
    def begin_stream(self):
        self.send_response(200)
        self.send_header('Content-Type', 'application/x-ndjson')
        self.send_header('Cache-Control', 'no-store')
        self.end_headers()

    def stream_text(self, text, start=0, stop=None, delay=0.04, size=10):
        stop = len(text) if stop is None else stop
        for i in range(start, stop, size):
            self.ev(t='d', s=text[i:min(i + size, stop)])
            time.sleep(delay)

    def handle_regen(self, conv):
        with LOCK:
            turns = CONVS.get(conv, [])
            last_user = next((t for t in reversed(turns) if t['role'] == 'user'), None)
            if turns and turns[-1]['role'] == 'assistant' and turns[-1]['kind'] != 'reply':
                turns.pop()
        log('regen', conv=conv)
        text = reply_for(last_user['text'] if last_user else '')
        self.begin_stream()
        self.stream_text(text)
        with LOCK:
            CONVS[conv].append({'role': 'assistant', 'text': text, 'kind': 'reply'})

    def handle_send(self, conv, text):
        kind = classify(text)
        sha = hashlib.sha1(text.encode()).hexdigest()[:10]
        with LOCK:
            applies = fault_applies(conv, text)
            f = STATE['fault'] if applies else 'none'
            # pre-acceptance refusals: the message never reaches the model
            if f in ('toast429', 'modal429', 'silent429', 'json429', 'json402', 'banner_refuse', 'inline500', 'http503'):
                fire()
                log('send', conv=conv, kind=kind, sha=sha, refused=True, fault=f, n=len(text))
                if f == 'silent429':
                    return self._send(429, '', 'text/plain', {'Retry-After': A.retry_after or '20'})
                if f == 'json429':
                    # The words only in the answer's JSON body, the page showing none of them.
                    return self._send(429, json.dumps({'ui': 'silent', 'error': {'code': 'quota_exhausted', 'message': A.text, 'request_id': 'req_81f2'}}), 'application/json')
                if f == 'json402':
                    # Payment Required, its words in the JSON body only, the page showing none.
                    return self._send(402, json.dumps({'ui': 'silent', 'error': {'message': A.text}}), 'application/json')
                if f == 'inline500':
                    return self._send(500, json.dumps({'error': A.text or 'Internal server error', 'ui': 'inline'}), 'application/json')
                if f == 'http503':
                    return self._send(503, json.dumps({'error': A.text, 'ui': 'toast', 'ms': 8000}), 'application/json',
                                      {'Retry-After': A.retry_after} if A.retry_after else None)
                ui = {'toast429': 'toast', 'modal429': 'modal', 'banner_refuse': 'banner'}[f]
                if f == 'banner_refuse' and not STATE['banner']:
                    STATE['banner'] = A.text
                return self._send(429, json.dumps({'error': A.text, 'ui': ui, 'ms': 9000}), 'application/json')
            if STATE['banner'] and STATE['fault'] != 'none' and STATE['fault'] in ('banner_after1', 'preload_banner') and (time.time() < STATE['until'] or A.persist == 0):
                log('send', conv=conv, kind=kind, sha=sha, refused=True, fault='banner_after1', n=len(text))
                return self._send(429, json.dumps({'error': A.text, 'ui': 'toast'}), 'application/json')
            new = False
            if not conv:
                conv = uuid.uuid4().hex[:12]; CONVS[conv] = []; new = True
            dup = any(t['role'] == 'user' and t['text'] == text for t in CONVS.get(conv, []))
            CONVS.setdefault(conv, []).append({'role': 'user', 'text': text, 'kind': 'msg'})
            log('send', conv=conv, kind=kind, sha=sha, refused=False, fault=f, dup=dup, n=len(text))
            if f != 'none':
                fire()
        reply = reply_for(text)
        self.begin_stream()
        if new:
            self.ev(t='conv', id=conv)
        def store(t, k='reply', cls=None):
            with LOCK:
                CONVS[conv].append({'role': 'assistant', 'text': t, 'kind': k, 'cls': cls})
        try:
            if f == 'none':
                self.stream_text(reply)
                store(reply)
                if STATE['fault'] == 'banner_after1' and kind == 'task':
                    STATE['banner'] = A.text
                    fire()
                    time.sleep(0.3)
                    self.ev(t='banner', text=A.text, id='lim')
                return
            if f == 'turn_notice':          # the assistant turn is a notice (red box)
                time.sleep(0.8)
                self.ev(t='notice_turn', text=A.text, cls='nt_e')
                store(A.text, 'notice', 'nt_e')
            elif f == 'turn_plain':         # the assistant turn is a notice styled like a reply
                time.sleep(0.8)
                self.ev(t='notice_turn', text=A.text, cls='')
                store(A.text, 'notice', '')
            elif f == 'stream_error':       # a few words, then replaced by an error with a retry
                self.stream_text(reply, 0, 30)
                time.sleep(0.5)
                if A.text2:
                    self.ev(t='toast', text=A.text2, ms=10000)
                self.ev(t='replace_error', text=A.text)
                store(A.text, 'error')
            elif f == 'net_heal':
                if A.store_early:
                    store(reply)
                self.stream_text(reply, 0, 40)
                self.ev(t='banner', text=A.text or 'Network connection lost. Reconnecting…', id='net')
                time.sleep(5)
                self.ev(t='unbanner', id='net')
                self.stream_text(reply, 40)
                if not A.store_early:
                    store(reply)
            elif f == 'benign':
                self.stream_text(reply, 0, 30)
                self.ev(t='toast', text=A.text or 'Memory updated', ms=8000)
                if A.text2:
                    self.ev(t='banner', text=A.text2, id='tip')
                self.stream_text(reply, 30, delay=0.15)
                store(reply)
            elif f == 'stall':
                self.stream_text(reply, 0, 50)
                store(reply)               # the server finished it; only the stream is stuck
                while True:
                    time.sleep(1)
                    self.wfile.write(b'')
            elif f == 'slow_then_close':    # slow stream; the tab gets closed from outside
                store(reply)
                threading.Thread(target=close_tab, daemon=True).start()
                self.stream_text(reply, delay=1.0, size=4)
            elif f == 'slow_then_kill':
                store(reply)
                threading.Thread(target=kill_browser, daemon=True).start()
                self.stream_text(reply, delay=1.0, size=4)
            elif f == 'login_same':         # the sign-in page served at the chat's own address
                STATE['wall'] = 'login_same'
                store(reply)
                self.stream_text(reply, 0, 20)
                self.ev(t='navigate', url='/c/' + conv)
                if A.persist:
                    threading.Thread(target=lambda: (time.sleep(A.persist), STATE.update(wall=None), log('wall_lifted')), daemon=True).start()
            elif f in ('botwall', 'loginwall'):
                STATE['wall'] = 'bot' if f == 'botwall' else 'login'
                store(reply)               # the model answered behind the wall
                self.stream_text(reply, 0, 20)
                url = ('/cdn-cgi/challenge-platform/h/b?ret=/c/' + conv) if f == 'botwall' else ('/account/login?next=/c/' + conv)
                self.ev(t='navigate', url=url)
                if f == 'botwall' and A.persist:
                    threading.Thread(target=lambda: (time.sleep(A.persist), STATE.update(wall=None), log('wall_lifted')), daemon=True).start()
            else:
                self.stream_text(reply)
                store(reply)
        except (BrokenPipeError, ConnectionResetError):
            log('client_gone', conv=conv)


def devtools_port():
    p = os.path.join(A.profile, 'DevToolsActivePort')
    for _ in range(50):
        if os.path.exists(p):
            return int(open(p).read().split()[0])
        time.sleep(0.1)
    return None


def close_tab():
    time.sleep(2)
    port = devtools_port()
    if not port:
        log('close_tab_failed', why='no DevToolsActivePort'); return
    tabs = json.load(urllib.request.urlopen('http://127.0.0.1:%d/json/list' % port))
    for t in tabs:
        if t.get('type') == 'page' and ('127.0.0.1:%d' % A.port) in t.get('url', ''):
            urllib.request.urlopen('http://127.0.0.1:%d/json/close/%s' % (port, t['id'])).read()
            log('tab_closed', url=t['url'])


def kill_browser():
    time.sleep(2)
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            cmd = open('/proc/%s/cmdline' % pid, 'rb').read().split(b'\0')
        except Exception:
            continue
        if cmd and b'chromium' in cmd[0] and any(A.profile.encode() in c for c in cmd) and not any(c.startswith(b'--type=') for c in cmd):
            os.kill(int(pid), signal.SIGKILL)
            log('browser_killed', pid=int(pid))


if __name__ == '__main__':
    log('server_start', fault=A.fault, text=A.text, on=A.on, persist=A.persist)
    if A.fault == 'preload_banner':     # the page shows a limit's banner before anything is sent
        STATE['banner'] = A.text
        fire()
    server = ThreadingHTTPServer(('127.0.0.1', A.port), H)
    open(os.path.join(DIR, 'ready'), 'w').write('ready')
    server.serve_forever()
