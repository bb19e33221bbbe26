// Discovery: finds a chat page's parts by the shape every chat shares, for the keys whose
// selectors match nothing (a site keyless has no entry for, or one that changed since).
//
// What survives a redesign: an editable composer near the bottom; Enter sends, or a button
// beside the composer that appears or becomes enabled once there is text; the sent text
// appears in a new element (the user turn), and the answer grows in a new element after it,
// often with a stop control or a busy state while it grows, and a copy control once done.
//
// Discovery never guesses where a wrong guess costs exactness: the turns are found from the
// text keyless sent and the reply's closing @@eof, and a copy control counts only once what it
// copied agrees with the rendered reply. `cssFor` turns what was found into a selector that was
// checked against the page, so the driver can use it for the rest of the session, name it in
// its warning, and keep it (learning). Generated class names are never used.
//
// Open shadow roots and same-origin frames are part of the page here: every finder looks in
// every tree of the page and climbs across their boundaries through `locate.js` (`k.loc`, the
// one walk over them), and `cssFor` writes a part inside such a tree with the `>>>` crossing
// (`chat-app >>> textarea`), which the selectors take.
(function (k) {
  const { visible, loc } = k;
  const SEND_WORDS = ["send", "submit", "senden", "absenden", "envoyer", "enviar", "invia", "verzend", "wyślij", "отправ", "发送", "傳送", "送信", "전송", "gönder", "skicka"];
  const NOT_STOP_WORDS = ["dictat", "voice", "read aloud", "read-aloud", "vorlesen", "microphone", "recording", "audio", "speech", "diktier", "音声", "読み上げ"];
  const STOP_WORDS = ["stop", "arrêter", "arreter", "detener", "parar", "interromp", "ferma", "anhalten", "abbrechen", "остановить", "停止", "中止", "중지", "durdur", "zatrzymaj"];
  const ATTACH_WORDS = ["attach", "upload", "file", "image", "photo", "anhängen", "hochladen", "datei", "joindre", "fichier", "téléverser", "adjuntar", "archivo", "subir", "allega", "carica", "anexar", "arquivo", "прикреп", "загруз", "файл", "附件", "上传", "上傳", "添付", "アップロード", "첨부", "업로드", "emoji", "+"];
  const COPY_WORDS = ["copy", "kopieren", "copier", "copiar", "copia", "kopiuj", "копировать", "复制", "複製", "コピー", "복사", "kopyala", "kopiera", "kopiëren"];
  // Class names made of these words were written by a person; any other class may be generated.
  const CLASS_WORDS = ["message", "msg", "turn", "user", "assistant", "response", "reply", "answer", "query", "prompt", "markdown", "prose", "chat", "conversation", "thread", "bubble", "composer", "editor"];
  // Attributes a selector may use: stable hooks, not words a translation changes.
  const HOOKS = /^(data-[\w-]+|role|contenteditable|type|name|aria-multiline|aria-live)$/;
  const STATE_NAMES = /(state|status|done|busy|streaming|loading|expanded|selected|active|open|hover|focus|length|count|index|time)/i;
  const DONE_VALUES = /^(complete|completed|done|finished)$/i;

  const strip = (s) => (s || "").replace(/\s+/g, "");
  // What holds no words of a turn's: its controls' labels, drawings, code of the page's own.
  const NOT_TEXT = 'button, [role="button"], svg, script, style';
  const words = (s) => (s || "").match(/[\p{L}\p{N}]+/gu) || [];
  const label = (el) => [el.getAttribute("aria-label"), el.getAttribute("title"), el.getAttribute("data-testid"), el.textContent]
    .filter(Boolean).join(" ").toLowerCase();
  const says = (el, words) => { const l = label(el); return words.some((w) => l.includes(w)); };
  const enabled = (el) => !el.disabled && el.getAttribute("aria-disabled") !== "true";
  const buttonsIn = (root) => loc.beneath(root, 'button, [role="button"], input[type="submit"]');
  // A value that reads like a word, not like an id or a hash.
  const stableValue = (v) => v.length > 0 && v.length <= 48 && !/\d{3,}/.test(v) && !/[0-9a-f]{8,}/i.test(v) && !/^[:_]/.test(v);
  const readableClass = (c) => /^[a-z][a-z-]*[a-z]$/i.test(c) && CLASS_WORDS.some((w) => c.toLowerCase().includes(w));
  const q = (css) => loc.under(document, css);
  const attr = (v) => '"' + v.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';

  // The simple selectors that describe `el` by itself, the most lasting first: an id, the
  // attributes a program reads (role, contenteditable, data-* tokens), then words a person
  // reads and a translation changes, then the tag alone.
  const own = (el) => {
    const tag = el.tagName.toLowerCase();
    const tokens = [];
    const present = [];
    const words = [];
    // An id that ends in a number is a counter the page's framework hands out (`c9`, `msg-17`):
    // the next page, or the next turn, gets another.
    if (el.id && stableValue(el.id) && /^[A-Za-z][\w-]*$/.test(el.id) && !/\d$/.test(el.id)) tokens.push(tag + "#" + el.id);
    for (const a of Array.from(el.attributes)) {
      if (!HOOKS.test(a.name) || a.name === "data-keyless") continue;
      const css = tag + "[" + a.name + "=" + attr(a.value) + "]";
      // A state's value changes while the element lives (done, busy, open): only its presence.
      if (stableValue(a.value) && !STATE_NAMES.test(a.name)) (/\s/.test(a.value) ? words : tokens).push(css);
      present.push(tag + "[" + a.name + "]");
    }
    for (const c of Array.from(el.classList)) if (readableClass(c)) present.push(tag + "." + c);
    const aria = el.getAttribute("aria-label");
    if (aria && stableValue(aria)) words.push(tag + "[aria-label=" + attr(aria) + "]");
    return tokens.concat(present, words, [tag]);
  };

  // What a selector for something in `el`'s tree starts with: "" in the page's own document,
  // else a selector for the tree's holder and the crossing (`chat-app >>> `); null when the
  // holder has none.
  const prefixFor = (el) => {
    const root = el.getRootNode();
    if (root === document) return "";
    const holder = loc.holder(root);
    if (!holder) return null;
    const css = cssFor(holder, (found) => found.includes(holder));
    return css === null ? null : css + " >>> ";
  };
  // A selector for `el` that `accept` approves of on this page: its own hooks first, then
  // with its parent's, then with its grandparent's; null when none is good enough. Inside a
  // shadow root or a frame, the selector crosses into it from the holder's own selector.
  const cssFor = (el, accept) => {
    const prefix = prefixFor(el);
    if (prefix === null) return null;
    const tried = new Set();
    const test = (css) => {
      if (tried.has(css)) return false;
      tried.add(css);
      const found = q(prefix + css);
      return !!found && found.length > 0 && accept(found, prefix + css);
    };
    for (const css of own(el)) if (test(css)) return prefix + css;
    let contexts = [""];
    let up = el.parentElement;
    for (let depth = 0; depth < 3 && up && up !== el.ownerDocument.documentElement; depth++, up = up.parentElement) {
      const next = [];
      for (const p of own(up).slice(0, 4)) for (const c of contexts) next.push(p + " > " + c);
      contexts = next.slice(0, 24);
      for (const c of contexts) for (const css of own(el)) if (test(c + css)) return prefix + c + css;
    }
    return null;
  };

  // --- The composer: the visible editable element a person would type in. ---
  const editable = (el) => el.isContentEditable || el.tagName === "TEXTAREA" ||
    (el.tagName === "INPUT" && /^(text|search)?$/.test(el.getAttribute("type") || ""));
  // The composer among candidates, found by selectors or by shape: never an editor inside a
  // reply's code (a code view that is contenteditable with role=textbox, as CodeMirror's are)
  // or hidden from assistive technology; a visible one before a hidden one; the focused one,
  // else the one lowest on the page (chats keep the composer at the bottom; a search box, or a
  // code view a generic selector finds first, sits above it).
  const composerAmong = (found) => {
    const fit = found.filter((el) => !el.closest('[aria-hidden="true"], pre, code, .cm-editor, .monaco-editor'));
    const shown = fit.filter(visible);
    const pool = shown.length ? shown : fit;
    if (pool.length <= 1) return pool[0] || null;
    // The focused element, inside the shadow roots and frames that hold the focus.
    let active = document.activeElement;
    for (let i = 0; i < 32 && active && loc.inside(active) && loc.inside(active).activeElement; i++) active = loc.inside(active).activeElement;
    const focused = pool.find((el) => el === active || loc.holds(el, active));
    if (focused) return focused;
    return pool.reduce((a, b) => (b.getBoundingClientRect().bottom > a.getBoundingClientRect().bottom ? b : a));
  };
  const composer = () => composerAmong(
    loc.everywhere('textarea, input, [contenteditable]:not([contenteditable="false"])')
      .filter((el) => editable(el) && visible(el) && enabled(el) && !el.readOnly)
      // The editing host, not a paragraph inside it.
      .filter((el) => !(el.parentElement && el.parentElement.isContentEditable))
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width >= 120 && r.height >= 14; }));

  // --- The send button: beside the composer, says "send" or submits its form, or appeared
  // (or became enabled) once the composer had text. ---
  let buttonsBefore = null;
  const markButtons = (composerEl) => {
    buttonsBefore = new Map();
    const region = composerEl && (composerEl.closest("form") || composerEl.parentElement);
    for (const b of region ? buttonsIn(region) : []) buttonsBefore.set(b, enabled(b) && visible(b));
  };
  const sendButton = (composerEl) => {
    if (!composerEl) return null;
    let up = loc.up(composerEl);
    for (let depth = 0; depth < 6 && up && up !== document.body; depth++, up = loc.up(up)) {
      const buttons = buttonsIn(up).filter((b) => visible(b) && enabled(b) && !loc.holds(composerEl, b));
      const worded = buttons.filter((b) => says(b, SEND_WORDS) && !says(b, STOP_WORDS));
      if (worded.length) return worded[worded.length - 1];
      const submit = buttons.filter((b) => b.type === "submit");
      if (submit.length) return submit[submit.length - 1];
      if (buttonsBefore) {
        const woke = buttons.filter((b) => buttonsBefore.get(b) !== true);
        if (woke.length === 1) return woke[0];
      }
      // The one button beside the composer, in words of the site's own ("Dispatch", an
      // arrow): the send button, unless it says it attaches, records, stops or opens a menu.
      // Asked for only once Enter sent nothing.
      if (buttons.length === 1) {
        const only = buttons[0];
        const other = says(only, STOP_WORDS) || says(only, NOT_STOP_WORDS) || says(only, ATTACH_WORDS) || only.hasAttribute("aria-haspopup");
        if (!other) return only;
      }
    }
    return null;
  };

  // --- One exchange: the user turn carries the sent text; the reply grows after it. ---
  let ex = null;
  // The thread the last exchange found (the next one's is found only once its turn shows).
  let lastThread = null;
  // What the page added since the exchange began: the top of each added part (a part inside
  // one already noted is not noted again), as a MutationObserver reports them. New elements are
  // looked for among these, never among every element of the page.
  let added = new Set();
  let adding = null;
  const noteAdded = (records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1 || added.has(n)) continue;
        let inside = false;
        for (let at = loc.up(n); at && !inside; at = loc.up(at)) inside = added.has(at);
        if (!inside) added.add(n);
      }
    }
  };
  // Every tree of the page is watched for what is added (a tree found later too).
  let observed = new WeakSet();
  const observeTrees = () => {
    if (!adding) return;
    for (const root of loc.roots()) {
      if (observed.has(root)) continue;
      observed.add(root);
      adding.observe(root, { childList: true, subtree: true });
    }
  };
  // The tops added since the exchange began that are on the page now.
  const addedNow = () => {
    if (adding) noteAdded(adding.takeRecords());
    observeTrees();
    for (const n of added) if (!n.isConnected) added.delete(n);
    return added;
  };
  const beginExchange = (text, composerEl, sendEl) => {
    if (adding) adding.disconnect();
    added = new Set();
    adding = new MutationObserver(noteAdded);
    observed = new WeakSet();
    observeTrees();
    ex = {
      // The message's first words, letters and digits only: a page that draws the message as
      // Markdown drops its marks (a fence, `*`), never its words.
      probe: words(text).slice(0, 14).join(""),
      // The message's last words (see `findUser`).
      tail: words(text).slice(-24),
      composer: composerEl,
      send: sendEl,
      sendLabel: sendEl ? label(sendEl) + "|" + sendEl.innerHTML.length : null,
      regionButtons: new Set(composerEl ? buttonsIn(composerEl.closest("form") || composerEl.parentElement || document.body) : []),
      user: null, userTurn: null, reply: null, thread: null, busySeen: false,
    };
    return true;
  };
  // A reopened chat: all the page shows counts as come since the exchange began, for the
  // exchange's turns to be found in it by their text (no turn's selector known yet).
  const seeShown = () => {
    if (!ex || !document.body) return;
    for (const kid of document.body.children) {
      if (!/^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|LINK)$/.test(kid.tagName)) added.add(kid);
    }
  };
  const isNew = (el) => {
    for (let at = el; at; at = loc.up(at)) if (added.has(at)) return true;
    return false;
  };
  // Whether `el` holds something added since the exchange began.
  const holdsNew = (el) => {
    for (const n of added) if (loc.holds(el, n)) return true;
    return false;
  };
  // The largest part of the page that holds the composer and not the user turn.
  const composerRegion = () => {
    let region = ex.composer && ex.composer.isConnected ? ex.composer : k.first("Composer");
    if (!region) return null;
    for (let up = loc.up(region); up && up !== document.body && !(ex.user && loc.holds(up, ex.user)); up = loc.up(region)) region = up;
    return region;
  };
  // The user turn holds the whole message, not only its opening: a site that renders the
  // message as Markdown splits it into paragraphs and lists, and a paragraph of it is never the
  // turn (nor, after it, the reply). So from the smallest new element that holds the opening,
  // up to the first that also holds the message's last words (in order: Markdown may drop a
  // few marks and words, never the end).
  // A third of them may be missing: a page that draws Markdown drops an HTML line's tags, or
  // the line whole (`<div>html-like</div>` near a task's end), a task list's brackets. Read in
  // the words run together, as the probe is: a heading and the paragraph after it may have no
  // space between them in the text (`hash line` then `unicode` reads `hash lineunicode`).
  const holdsEnd = (el) => {
    const shown = words(loc.text(el)).join("");
    let at = shown.length;
    let missing = 0;
    let first = true;
    const mayMiss = Math.max(2, Math.floor(ex.tail.length / 3));
    for (let i = ex.tail.length - 1; i >= 0; i--) {
      const word = ex.tail[i];
      const j = at - word.length < 0 ? -1 : shown.lastIndexOf(word, at - word.length);
      if (j < 0) { if (++missing > mayMiss) return false; continue; }
      // The last words sit at the element's end (a turn's own labels may follow them).
      if (first && shown.length - (j + word.length) > END_SLACK) return false;
      first = false;
      at = j;
    }
    return true;
  };
  // How much may follow the message's last words in its turn: the turn's own labels (a time,
  // "Edited", a name), letters and digits run together.
  const END_SLACK = 320;
  const findUser = () => {
    if (ex.user && ex.user.isConnected) return ex.user;
    ex.user = null;
    let best = null;
    let bestLength = 0;
    const candidates = [];
    for (const top of addedNow()) if (top.isConnected && top !== document.body) candidates.push(top, ...loc.beneath(top, "*"));
    for (const el of candidates) {
      if (loc.holds(el, ex.composer) || (ex.composer && loc.holds(ex.composer, el))) continue;
      if (/^(SCRIPT|STYLE|TEXTAREA|INPUT)$/.test(el.tagName) || el.isContentEditable) continue;
      const text = words(loc.text(el)).join("");
      if (!text.includes(ex.probe)) continue;
      if (!best || text.length <= bestLength) { best = el; bestLength = text.length; }
    }
    while (best && ex.tail.length && !holdsEnd(best)) {
      const up = loc.up(best);
      if (!up || up === document.body || loc.holds(up, ex.composer)) { best = null; break; }
      best = up;
    }
    ex.user = best;
    return best;
  };
  // Text of an element without its controls (button labels are not the reply).
  // Read across the shadow roots beneath it: a component's words are in its shadow root.
  const ownText = (el) => {
    let n = 0;
    for (const t of loc.texts(el)) {
      const p = t.parentElement;
      if (p && !loc.closestUp(p, NOT_TEXT, el)) n += strip(t.textContent).length;
    }
    return n;
  };
  // Whether two elements are drawn as the same kind of thing: one tag, and a class or an
  // attribute name in common (`message-row user-row` and `message-row bot-row`).
  const sameShape = (a, b) => {
    if (a.tagName !== b.tagName) return false;
    if (Array.from(a.classList).some((c) => b.classList.contains(c))) return true;
    const names = (el) => Array.from(el.attributes).map((x) => x.name).filter((n) => n !== "class" && n !== "style");
    const theirs = names(b);
    return names(a).some((n) => theirs.includes(n));
  };
  // The reply: the first new element after the user turn, at the lowest level that has one,
  // with at least a line of text. A wrong pick cannot be read as a reply: its copy would not
  // agree with it, and nothing else it holds closes with @@eof.
  // What a site speaks in, rather than a turn: an alert, a status line, a dialog, a toast, or
  // anything laid over the page (fixed in place), as no turn of a thread is.
  const NOTICE_SHAPE = '[role="alert"], [role="alertdialog"], [role="dialog"], [role="status"], dialog, [class*="toast" i], [class*="snackbar" i], [data-sonner-toast]';
  const noticeShaped = (el) => el.matches(NOTICE_SHAPE) || getComputedStyle(el).position === "fixed";
  const findReply = () => {
    const user = findUser();
    addedNow();
    if (!user) return null;
    const region = composerRegion();
    let candidate = null;
    // Climbing across shadow roots and frames: turns may sit at the top of a shadow root.
    for (let at = user; at && at.parentNode && at.parentNode.nodeType !== 9 && at !== document.body; at = loc.up(at)) {
      if (region && loc.holds(at, region)) break;
      for (let sib = at.nextElementSibling; sib; sib = sib.nextElementSibling) {
        if (region && (loc.holds(sib, region) || loc.holds(region, sib))) continue;
        if (!isNew(sib) && !sib.querySelector("*:not(br)")) continue;
        // A toast, an alert or a dialog the page put after the message is the site speaking,
        // never the model's reply (a refusal that takes the reply's turn away says so there).
        if (noticeShaped(sib)) continue;
        const fresh = isNew(sib) || holdsNew(sib);
        // A line of text, or any text in an element shaped like the user's turn (its tag and a
        // class or an attribute of its own): a page may draw a reply short (a sanitiser that
        // cuts `<<<` for a tag), and its copy control still holds the whole of it.
        const text = ownText(sib);
        if (!fresh || text < 16 && !(text > 0 && sameShape(at, sib))) continue;
        candidate = { thread: at.parentNode, userTurn: at, turn: sib };
        break;
      }
      if (candidate) break;
    }
    if (candidate) {
      // What the reply's turn looks like when it first shows: a selector must match it then,
      // not only once it is finished (a done mark, a copy button, a length).
      if (ex.reply !== candidate.turn) ex.early = { own: own(candidate.turn), features: features(candidate.turn) };
      ex.thread = candidate.thread;
      lastThread = candidate.thread;
      ex.userTurn = candidate.userTurn;
      ex.reply = candidate.turn;
    }
    return candidate ? candidate.turn : null;
  };

  // --- Streaming and completion, read from the reply and the controls around the composer. ---
  const ACTIVE = /^(streaming|generating|loading|pending|running|thinking|typing|in[-_]?progress)$/i;
  const busy = (turn) => {
    if (!turn) return false;
    for (let el = turn; el && el !== document.body; el = loc.up(el)) {
      if (el.getAttribute("aria-busy") === "true") return true;
    }
    for (const el of [turn, ...turn.querySelectorAll("*")]) {
      for (const a of Array.from(el.attributes)) {
        if (a.name === "aria-busy" && a.value === "true") return true;
        if (/^data-(is-)?(streaming|generating|loading|busy)$/.test(a.name) && a.value === "true") return true;
        if (/^data-[\w-]*(state|status)$/.test(a.name) && ACTIVE.test(a.value)) return true;
      }
    }
    return false;
  };
  // "busy": a sign that says so (a busy state on the reply, a control that says "stop");
  // "guess": a control that came with the stream, or the send button saying something else
  // (one slot for send and stop); null: no sign.
  const streaming = (turn) => {
    if (!ex) return null;
    if (busy(turn)) { ex.busySeen = true; return "busy"; }
    const region = ex.composer && (ex.composer.closest("form") || ex.composer.parentElement);
    if (!region || !region.isConnected) return null;
    let guess = null;
    for (const b of buttonsIn(region)) {
      if (!visible(b)) continue;
      // Not a dictation, voice or read-aloud control's stop (they say "stop" too).
      if (says(b, STOP_WORDS) && !says(b, NOT_STOP_WORDS)) return "busy";
      if (b === ex.send && ex.sendLabel !== null && label(b) + "|" + b.innerHTML.length !== ex.sendLabel && !says(b, SEND_WORDS)) guess = "guess";
      if (!ex.regionButtons.has(b) && b !== ex.send && !says(b, SEND_WORDS)) guess = "guess";
    }
    return guess;
  };
  // A code block's own control: inside the block, or in the smallest wrapper that holds a
  // block of code and little else besides it (the block's toolbar: a language, a button).
  // The turn's own controls (a wrapper that is the turn, or holds it) are not the block's.
  const TOOLBAR_WORDS = 40;
  // A block of code as drawn: a `pre`, or a `code` outside one drawn as a block (Chainlit draws
  // its code blocks with no `pre`: a header of a label and a button, then a `div` holding a
  // `code`); a `code` inside a line of text is drawn inline and holds no line break.
  const blockCode = (c) => c.textContent.includes("\n") || getComputedStyle(c).display !== "inline";
  const codeBlocksIn = (el) => [...el.querySelectorAll("pre")]
    .concat([...el.querySelectorAll("code")].filter((c) => !c.closest("pre") && blockCode(c)));
  const codeOwn = (b, turn) => {
    if (b.closest("pre")) return true;
    for (let el = b.parentElement; el && el !== document.body; el = el.parentElement) {
      if (turn && (el === turn || el.contains(turn))) return false;
      const blocks = codeBlocksIn(el);
      if (!blocks.length) continue;
      if (blocks.length > 1) return false;
      const rest = strip(el.textContent).length - strip(blocks[0].textContent).length;
      if (rest >= 24) return false;
      // The block's own frame is its nearest ancestor that holds a control: a control outside
      // it is another's (a reply that is one block, with the message's own copy button in a
      // wrapper around both: Chainlit).
      let frame = blocks[0].parentElement;
      while (frame && frame !== el && !buttonsIn(frame).length) frame = frame.parentElement;
      return !frame || frame.contains(b);
    }
    return false;
  };
  // A toolbar beside a turn: buttons and at most a label's words ("Copied!", "2 / 3"),
  // holding no turn of the exchange.
  const toolbar = (el) => !!el && buttonsIn(el).length > 0 && ownText(el) <= TOOLBAR_WORDS &&
    !(ex && ex.userTurn && (el === ex.userTurn || el.contains(ex.userTurn)));
  // The controls that may copy `turn`: its own, those of the toolbar after it, and when
  // `before` those of a toolbar right before it (a site that puts a reply's actions above it;
  // never a sign the reply is done, and what such a control copies is proved by the caller).
  const copyControls = (turn, before) => {
    if (!turn) return [];
    const around = [turn];
    // Some sites put a turn's actions in the element after it.
    const next = turn.nextElementSibling;
    if (toolbar(next)) around.push(next);
    const prev = turn.previousElementSibling;
    if (before && toolbar(prev)) around.push(prev);
    const out = [];
    for (const root of around) {
      const buttons = buttonsIn(root);
      for (const b of buttons.concat(drawnControls(root).filter((c) => !buttons.includes(c)))) {
        // A code block's own copy button copies the code only.
        if (codeOwn(b, turn)) continue;
        if (isCopy(b)) out.push(b);
      }
    }
    return out;
  };
  // The controls that open a menu of the reply's actions ("⋯", "More actions"): said to open a
  // menu, or named so, in the turn or a toolbar beside it; never a copy control itself.
  const MORE_WORDS = ["more", "options", "actions", "menu", "mehr", "plus d", "más", "mais", "altro", "ещё", "更多", "その他", "더보기", "\u22ef", "\u2026", "..."];
  const menuTriggers = (turn) => {
    if (!turn) return [];
    const around = [turn];
    for (const el of [turn.nextElementSibling, turn.previousElementSibling]) if (toolbar(el)) around.push(el);
    const out = [];
    for (const root of around) {
      for (const b of buttonsIn(root)) {
        const popup = b.getAttribute("aria-haspopup");
        const opens = (popup && popup !== "false") || says(b, MORE_WORDS);
        if (opens && !isCopy(b) && !codeOwn(b, turn) && !out.includes(b)) out.push(b);
      }
    }
    return out;
  };
  // The rows of an open menu that say copy, wherever the page draws the menu.
  const menuCopyRows = () => loc.under(document, '[role="menuitem"], [role="option"], [role="menu"] button, [role="menu"] [role="button"], [role="listbox"] [role="button"]')
    .filter((row) => isCopy(row) && strip(row.textContent).length <= 40);
  const done = (turn) => {
    if (!turn) return false;
    if (ex && ex.busySeen && !busy(turn)) return true;
    for (const el of [turn, ...turn.querySelectorAll("*")]) {
      for (const a of Array.from(el.attributes)) {
        if (/^data-[\w-]*(state|status)$/.test(a.name) && DONE_VALUES.test(a.value)) return true;
      }
    }
    return copyControls(turn).length > 0;
  };

  // --- Reading: what is the answer, and does a copied text agree with it. ---
  // A reasoning ("thinking") block before the answer is not the answer.
  // A reasoning block: marked as one (`details`, a class or attribute saying so), an element
  // named so (Gemini's <model-thoughts>), or the block right after a toggle that says so
  // ("Show thinking", "Thought process", "Thought for 12s").
  const THOUGHT_TOGGLE = /^(show thinking|hide thinking|thinking|thought process|thoughts|reasoning|thought for\b.*|gedankengang.*|réflexion.*|思考.*)$/i;
  // `el` and its parents are looked at up to the turn `stop` (the page above a turn is not a
  // reply's), each once per reading with `memo`.
  const reasoning = (el, stop, memo) => {
    if (el.closest('details, [data-reasoning], [class*="reasoning"], [class*="thinking"], [class*="thought"]')) return true;
    return reasoningFrom(el, stop, memo || new Map());
  };
  const reasoningFrom = (at, stop, memo) => {
    if (!at || at === document.body) return false;
    if (memo.has(at)) return memo.get(at);
    const found = saysReasoning(at) || (at !== stop && reasoningFrom(loc.up(at), stop, memo));
    memo.set(at, found);
    return found;
  };
  const saysReasoning = (at) => {
    if (/thought|thinking|reasoning/i.test(at.tagName)) return true;
    // A label of its own that says so, however often the page repeats it (Claude draws
    // "Thought process" twice): never a paragraph, list item or code of the answer.
    if (!/^(P|LI|TD|TH|PRE|CODE|BLOCKQUOTE|H[1-6])$/.test(at.tagName) && !at.closest("pre, code")) {
      const said = (at.textContent || "").trim();
      if (said.length <= 40 && THOUGHT_TOGGLE.test(said)) return true;
    }
    // The block right after its toggle (`<button>Show thinking</button><div>…</div>`).
    const toggle = at.previousElementSibling;
    return !!toggle && /^(BUTTON|SUMMARY)$/.test(toggle.tagName) && THOUGHT_TOGGLE.test((toggle.textContent || "").trim());
  };
  // A copy the eye never sees is not the answer: a screen reader's live region drawn a pixel
  // wide (Claude's lags behind the reply, holding half of it), or decoration hidden from
  // assistive technology. `seen` caches the answer per element for one reading.
  const unseen = (el, stop, seen) => {
    for (let at = el; at && at !== stop; at = loc.up(at)) {
      let hidden = seen && seen.get(at);
      if (hidden === undefined) {
        const r = at.getBoundingClientRect();
        hidden = at.getAttribute("aria-hidden") === "true" || (r.width <= 1 && r.height <= 1 && at.getClientRects().length > 0);
        if (seen) seen.set(at, hidden);
      }
      if (hidden) return true;
    }
    return false;
  };
  // The answer's text, a line break between text in different blocks: a code view that draws
  // each line as its own element holds no newline, and its lines' words must not run together
  // (`eta` and `alpha` are two words, not `etaalpha`). `pieces`, when given, hears each text
  // with whether it is the answer's content or a label the page adds (`label`).
  const answerText = (turn, pieces) => {
    let out = "";
    let before = null;
    const blockOf = new Map();
    const block = (el) => {
      for (let at = el; at && at !== turn; at = loc.up(at)) {
        if (!blockOf.has(at)) blockOf.set(at, /^(block|list-item|table-row|table-cell|flex|grid)$/.test(getComputedStyle(at).display));
        if (blockOf.get(at)) return at;
      }
      return turn;
    };
    const seen = new Map();
    const thought = new Map();
    const labels = new Map();
    // Across the shadow roots beneath the turn: a turn made of components keeps its words in
    // theirs.
    for (const node of loc.texts(turn)) {
      const p = node.parentElement;
      if (!p || loc.closestUp(p, NOT_TEXT, turn) || reasoning(p, turn, thought) || unseen(p, turn, seen)) continue;
      const here = block(p);
      const text = (before !== null && here !== before ? "\n" : "") + node.textContent;
      before = here;
      out += text;
      if (pieces) {
        if (!labels.has(here)) labels.set(here, isLabel(p, here, turn));
        pieces.push({ text, label: labels.get(here), code: loc.closestUp(p, "code", turn) });
      }
    }
    return out;
  };
  // What Markdown draws a reply's own words as. Text in these (or in code) is the answer's
  // content; a page adds its labels (a code block's language, "Code snippet") in other blocks.
  const CONTENT = "p, li, h1, h2, h3, h4, h5, h6, td, th, blockquote, dt, dd, summary, figcaption";
  // A label the page draws beside the answer: a short block that is not content. Inside a `pre`
  // that holds a `code`, what is outside the code is the block's header; text in code is
  // always content (however short a line is).
  const LABEL_CHARS = 40;
  const isLabel = (p, here, turn) => {
    const inside = (el) => !!el && el !== turn && loc.holds(turn, el);
    if (inside(p.closest("code"))) return false;
    const pre = p.closest("pre");
    if (inside(pre)) return !!pre.querySelector("code") && strip(loc.text(here)).length <= LABEL_CHARS;
    if (inside(p.closest(CONTENT))) return false;
    // A code view that draws each line as a block of its own (CodeMirror's `.cm-line`) keeps
    // its whitespace: its short lines are code, not labels.
    if (here !== turn && /^(pre|pre-wrap|break-spaces)$/.test(getComputedStyle(here).whiteSpace)) return false;
    return here !== turn && strip(loc.text(here)).length <= LABEL_CHARS;
  };
  // A copied text agrees with the rendered answer when every word the answer shows as its
  // content is in it, in order, and it holds little more (not the whole conversation). Only the
  // page's labels may be missing from it. No other word may: a copy of one code block (its own
  // copy button, or the reply's only block) lacks the reply's lines around it, often a few
  // short ones like `@@eof`, and a tolerance for a few missing words let exactly those through.
  // With nothing missing, matching each shown word at its first place in the copy is exact
  // (it finds the shown words in the copy whenever they are there in order), also where lines
  // repeat their words.
  const agrees = (turn, copied) => {
    const pieces = [];
    answerText(turn, pieces);
    const all = words(pieces.map((x) => x.text).join(""));
    const content = words(pieces.map((x) => (x.label ? " " : x.text)).join(""));
    // An answer drawn as labels alone has nothing to set them apart from: all its words count.
    const shown = content.length ? content : all;
    const text = words(copied);
    // Far longer than the answer drawn: another text (a whole conversation copied) unless it
    // is one closed reply (its one @@eof, last), which a page that draws lossily shows only a
    // part of (lines of HTML dropped, sections hidden).
    const lines = copied.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !/^(`{3,}|~{3,})$/.test(l));
    const closed = lines.filter((l) => l === "@@eof").length === 1 && lines[lines.length - 1] === "@@eof";
    if (!shown.length || (text.length > all.length * 1.5 + 200 && !closed)) return false;
    // Each shown word in the copy's words run together, in order: a page's blocks may have no
    // space between them in its text (a heading and the paragraph after it read
    // "hash lineunicode"), so a shown word may be two of the copy's.
    const run = text.join("");
    let j = 0;
    for (const word of shown) {
      const at = run.indexOf(word, j);
      if (at < 0) return false;
      j = at + word.length;
    }
    return codeHeld(pieces, copied);
  };
  // Code is drawn as written: each code element's characters (white space and invisible
  // format characters aside, which pages add or fold) are in the text whole, in order. Words
  // alone cannot tell a text that lost its `[ ]` or `{}` from the reply. A pipe escaped in the
  // source (`\|`, a code span in a table's cell) is drawn as a bare one.
  const INK = /[\s\p{Cf}]/gu;
  const inkOf = (text) => text.replace(INK, "").replace(/\\\|/g, "|");
  const codeHeld = (pieces, copied) => {
    const flat = inkOf(copied);
    let from = 0;
    let i = 0;
    while (i < pieces.length) {
      const el = pieces[i].code;
      let ink = "";
      for (; i < pieces.length && pieces[i].code === el; i++) if (el) ink += pieces[i].text;
      ink = inkOf(ink);
      if (!el || !ink) continue;
      const at = flat.indexOf(ink, from);
      if (at < 0) return false;
      from = at + ink.length;
    }
    return true;
  };

  // --- Selectors for what was found, checked against the page. ---
  const features = (el) => {
    const out = [];
    for (const d of el.querySelectorAll("*")) for (const f of own(d)) if (!out.includes(f)) out.push(f);
    return out.slice(0, 40);
  };
  // `early` (the reply's shapes and parts when it first showed) limits what a reply's selector
  // may use, and the parts only a user turn has must not be ones a young reply lacks.
  const turnSelector = (thread, mine, other, early) => {
    const nested = (found) => found.some((a) => found.some((b) => a !== b && a.contains(b)));
    // What else the thread holds after the exchange's user turn (a reply's toolbar drawn as
    // a turn's sibling, a scroll anchor): a turn's selector matching one of them would take it
    // for the newest turn.
    const extras = [];
    for (let s = ex.userTurn.nextElementSibling; s; s = s.nextElementSibling) {
      if (s !== mine && s !== other) extras.push(s);
    }
    const accept = (found) => found.includes(mine) && !found.includes(other) && !found.some((f) => f.contains(other) || other.contains(f)) && !nested(found) &&
      !found.some((f) => extras.includes(f));
    // What a turn's selector starts with: its thread's selector and a child combinator, or,
    // for turns at the top of a shadow root, the crossing into it alone.
    let parents;
    if (thread.nodeType === 11) {
      const into = prefixFor(thread.firstElementChild || mine);
      parents = into === null ? [] : [into];
    } else {
      const into = prefixFor(thread);
      parents = into === null ? [] : own(thread).slice(0, 4).map((p) => into + p + " > ");
    }
    const shapes = own(mine).filter((s) => !early || mine !== ex.reply || early.own.includes(s));
    for (const p of parents) for (const s of shapes) {
      const css = p + s;
      const found = q(css);
      if (found && accept(found)) return css;
    }
    // Same shape on both sides: told apart by a part only one of them has.
    const tag = mine.tagName.toLowerCase();
    for (const f of features(mine)) {
      if (other.querySelector(f) || (early && mine === ex.reply && !early.features.includes(f))) continue;
      for (const p of parents) {
        const css = p + tag + ":has(" + f + ")";
        const found = q(css);
        if (found && accept(found)) return css;
      }
    }
    for (const f of features(other)) {
      if (mine.querySelector(f) || (early && other === ex.reply && !early.features.includes(f))) continue;
      for (const p of parents) {
        const css = p + tag + ":not(:has(" + f + "))";
        const found = q(css);
        if (found && accept(found)) return css;
      }
    }
    return null;
  };
  const learnTurns = () => {
    if (!ex || !ex.reply || !ex.userTurn || !ex.thread) return null;
    return {
      UserMessage: turnSelector(ex.thread, ex.userTurn, ex.reply, ex.early),
      AssistantMessage: turnSelector(ex.thread, ex.reply, ex.userTurn, ex.early),
    };
  };

  // --- Cards: what a site puts beside the composer for a paste it turned into a file. A
  // card is a new part of the composer's surroundings (since `markRegion`) that a person can
  // remove: it holds a button. A composer is clean only when its cards are gone too. ---
  const REMOVE_WORDS = ["remove", "delete", "close", "entfernen", "löschen", "supprimer", "retirer", "eliminar", "quitar", "rimuovi", "удалить", "删除", "移除", "削除", "삭제", "×", "✕"];
  let regionBefore = null;
  const surroundings = (composerEl) => composerEl && (composerEl.closest("form") || (composerEl.parentElement && composerEl.parentElement.parentElement));
  const markRegion = (composerEl) => {
    const r = surroundings(composerEl);
    regionBefore = r ? new WeakSet(r.querySelectorAll("*")) : null;
  };
  const unmarkRegion = () => { regionBefore = null; };
  // `conversation`: whether an element is part of the conversation (inside a turn or holding
  // one), as the caller's selectors tell.
  const cards = (composerEl, conversation) => {
    const r = surroundings(composerEl);
    if (!r || !regionBefore) return [];
    return Array.from(r.querySelectorAll("*")).filter((el) =>
      !regionBefore.has(el) && !composerEl.contains(el) && !el.contains(composerEl) &&
      // Never a part of the conversation a page draws again on every keystroke (a code block
      // and its header button, rebuilt by a framework), nor a block of code.
      !(((ex && ex.thread) || lastThread) && ((ex && ex.thread) || lastThread).contains(el)) &&
      !(conversation && conversation(el)) &&
      !codeBlocksIn(el).length && !el.closest("pre, code") &&
      // The top of a new part, not a piece of one.
      (el.parentElement === r || regionBefore.has(el.parentElement)) &&
      !el.matches('button, [role="button"], input') && visible(el) && buttonsIn(el).length > 0);
  };
  const removeCards = (composerEl, conversation) => {
    let removed = 0;
    for (const card of cards(composerEl, conversation)) {
      const buttons = buttonsIn(card);
      const button = buttons.find((b) => says(b, REMOVE_WORDS)) || (buttons.length === 1 ? buttons[0] : null);
      if (button) { button.click(); removed++; }
    }
    return removed;
  };

  // --- New chat: a visible link or button that says so. ---
  const NEW_CHAT_WORDS = ["new chat", "new conversation", "neuer chat", "neue unterhaltung", "nouveau chat", "nouvelle discussion", "nueva conversación", "nuevo chat", "nuova chat", "novo chat", "新对话", "新聊天", "新しいチャット", "새 채팅", "новый чат", "yeni sohbet", "nowy czat"];
  const newChatControl = () => {
    const found = loc.everywhere('a, button, [role="button"]')
      .filter((el) => visible(el) && says(el, NEW_CHAT_WORDS));
    return found[0] || null;
  };

  // A control that says "copy" in words, or only by its icon: the icon's own names (a class,
  // `data-icon`, Material's `fonticon`, an SVG sprite's `href`) inside a control with no words
  // at all. What its click puts on the clipboard proves it (`read.rs`).
  const ICON_COPY = /(^|[^a-z])(copy|clipboard|content_copy|content-copy)([^a-z]|$)/i;
  const ICON_NAMES = ["class", "data-icon", "fonticon", "icon", "name", "href", "xlink:href", "data-lucide"];
  const iconSaysCopy = (el) => {
    if (label(el).trim()) return false;
    for (const part of [el, ...Array.from(el.querySelectorAll("*")).slice(0, 12)]) {
      for (const name of ICON_NAMES) {
        const v = part.getAttribute(name);
        if (v && ICON_COPY.test(typeof v === "string" ? v : "")) return true;
      }
    }
    return false;
  };
  const isCopy = (el) => says(el, COPY_WORDS) || iconSaysCopy(el);
  // A control that says it does something else (retry, regenerate, edit, delete, share, rate):
  // never clicked as a copy control, whatever selector named it (one learned from a reply's
  // copy button may match the Retry button an error bubble shows later, and a click there
  // makes the site answer again).
  const OTHER_ACTIONS = ["retry", "try again", "regenerate", "redo", "reload", "resend", "edit", "delete", "remove", "share", "good response", "bad response", "thumbs", "like", "read aloud",
    "réessayer", "régénérer", "erneut", "neu generieren", "wiederholen", "reintentar", "regenerar", "riprova", "rigenera", "tentar novamente", "opnieuw", "повтор", "重试", "重新生成", "再生成", "再試行", "다시 시도", "재생성"];
  const saysOtherThanCopy = (el) => !says(el, COPY_WORDS) && says(el, OTHER_ACTIONS);
  // A control need not be a button: a page may draw one as an element typed as a button
  // (Panel's `div type="button"`), given a click handler in its markup, or only shown with the
  // pointer a link gets (an icon in a `span` that listens for clicks). Such controls are
  // looked for only around what names copy (a title or label saying so, an icon named so),
  // never among all of a turn's elements: from the mark up to the first element that is drawn
  // as clickable, the outermost of those with the pointer (the pointer is inherited).
  const CLICKABLE = 'button, [role="button"], input[type="submit"], input[type="button"], [type="button"], [onclick]';
  const COPY_MARKS = '[title], [aria-label], [data-testid], [class*="copy" i], [class*="clipboard" i], [data-icon], [fonticon], [icon], [name], [data-lucide], use';
  const marksCopy = (el) => {
    const said = [el.getAttribute("aria-label"), el.getAttribute("title"), el.getAttribute("data-testid")].filter(Boolean).join(" ").toLowerCase();
    if (COPY_WORDS.some((w) => said.includes(w))) return true;
    return ICON_NAMES.some((name) => { const v = el.getAttribute(name); return !!v && ICON_COPY.test(v); });
  };
  const pointer = (el) => el.nodeType === 1 && getComputedStyle(el).cursor === "pointer";
  const drawnControls = (root) => {
    const out = [];
    for (const mark of loc.beneath(root, COPY_MARKS)) {
      if (!marksCopy(mark)) continue;
      for (let at = mark, i = 0; at && at !== root && i < 5; at = loc.up(at), i++) {
        const above = loc.up(at);
        if (at.matches(CLICKABLE) || (pointer(at) && !(above && pointer(above)))) {
          if (!out.includes(at)) out.push(at);
          break;
        }
      }
    }
    return out;
  };
  return {
    own, cssFor, isCopy, codeOwn, newChatControl, markRegion, unmarkRegion, cards, removeCards, composer, composerAmong, markButtons, sendButton, beginExchange, seeShown, findUser, findReply,
    streaming, done, copyControls, menuTriggers, menuCopyRows, reasoning, unseen, answerText, agrees, learnTurns, saysOtherThanCopy, enabled,
    exchange: () => ex,
  };
})
