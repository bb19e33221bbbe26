// Injected by keyless into the chat page. It finds elements by the site's selector
// alternatives, reads the composer the way its editor holds text, reports the page's state, and
// reads a reply exactly. It never touches the user's clipboard: the page's clipboard calls are
// captured inside the page. `D` is discover.js: it finds the parts no selector matches. `L` is
// locate.js: where the selectors' elements are, without searching the whole conversation. `C` is
// controls.js: the chat's own controls (the model picker, plain chat, the temporary chat). `A` is
// attach.js: the person's attachments (the file input, the chips by name, the site's refusal).
//
// Nothing here that runs on every look, read or send reads the whole page's text or layout, or
// walks every earlier turn: turns are counted from the last one known, other elements searched
// again only once the page changed outside its newest turns, and the page's whole text is read
// only where no composer shows (a login wall, a bot check).
(function (S, T, D, L, C, A) {
  if (window.__keyless && window.__keyless.version === 15) return "present";
  // Whether an element is drawn (it has a box). Asked without laying the page out
  // (`checkVisibility` brings the styles up to date, not the layout): laying out a long
  // conversation at every look costs the renderer more the longer the chat grows.
  const visible = (el) => !!el && !el.hidden && (el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0);
  const loc = L(S);
  const TURNS = ["UserMessage", "AssistantMessage"];
  // What the first of `key`'s selectors that finds anything finds, in the page (as `loc`
  // keeps it) or under `root`.
  const all = (key, root) => {
    for (const css of S[key] || []) {
      const found = root ? loc.within(root, css) : TURNS.includes(key) ? loc.under(document, css) : loc.inPage(css);
      if (found && found.length) return found;
    }
    return [];
  };
  // An element found for a key stays the answer while it is on the page and its selector still
  // matches it (for the composer: while it shows): no search each time it is asked for.
  const kept = {};
  const keep = (key, el, css) => { if (el) kept[key] = { el, css, alternatives: S[key] }; return el; };
  const still = (key) => {
    const k = kept[key];
    if (!k || k.alternatives !== S[key] || !k.el.isConnected || !loc.matches(k.el, k.css)) return null;
    return key === "Composer" && !visible(k.el) ? null : k.el;
  };
  // The composer is chosen among what its selectors find as discovery chooses among what it
  // finds (`composerAmong` in discover.js).
  const first = (key, root) => {
    if (root) return all(key, root)[0] || null;
    if (TURNS.includes(key)) return all(key)[0] || null;
    const held = still(key);
    if (held) return held;
    for (const css of S[key] || []) {
      const found = loc.inPage(css);
      if (!found || !found.length) continue;
      const el = key === "Composer" ? d.composerAmong(found) : found[0];
      if (el) return keep(key, el, css);
    }
    return null;
  };
  const last = (key) => {
    if (TURNS.includes(key)) return loc.turns(key).last;
    const a = all(key);
    return a.length ? a[a.length - 1] : null;
  };
  const count = (key) => loc.turns(key).count;
  const d = D({ visible, first, loc });
  const c = C({ visible, all: (key, root) => Array.from(all(key, root)) });
  const a = A({ visible, all: (key, root) => Array.from(all(key, root)), first, loc, d });
  // Keys whose selectors matched at least once on this page: their discovered stand-ins rest.
  const seen = {};
  // Selector counts when the current exchange began, to tell whether the selectors see it.
  let exchange = null;
  // The reply's turn: by the selectors once they see a new one, else as discovered.
  const replyTurn = () => {
    if (exchange && count("AssistantMessage") <= exchange.assistants) {
      const found = d.exchange();
      return found && found.reply && found.reply.isConnected ? found.reply : null;
    }
    return last("AssistantMessage");
  };
  // What changes all the time: the newest turns while a reply streams, and the composer while
  // a message goes in. Searched alone, each time, so that their changes leave what was found
  // in the rest of the page standing.
  const newest = (reply) => {
    const found = d.exchange();
    loc.setHot([last("UserMessage"), reply, found && found.user, found && found.reply, still("Composer")]);
  };
  const codeBlocks = (a) => {
    let blocks = all("CodeBlock", a);
    if (!blocks.length) blocks = loc.beneath(a, "pre").map((p) => p.querySelector("code") || p);
    const thought = new Map();
    return blocks.filter((b) => !d.reasoning(b, a, thought) && !d.unseen(b, a));
  };
  // A paragraph's text as its editor holds it: an icon hidden from assistive technology
  // inside a widget (ChatGPT's link badge) is drawing, not text.
  const paragraphText = (p) => {
    if (!p.querySelector('[aria-hidden="true"]')) return p.textContent;
    let out = "";
    const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      if (!walker.currentNode.parentElement.closest('[aria-hidden="true"]')) out += walker.currentNode.textContent;
    }
    return out;
  };
  const composerText = (el) => {
    if (!el) return null;
    if (typeof el.value === "string") return el.value;
    const paragraphs = el.querySelectorAll(":scope > p");
    if (paragraphs.length) return Array.from(paragraphs).map(paragraphText).join("\n");
    return el.innerText.replace(/\n$/, "");
  };
  // The editor behind a composer, by the marks the libraries themselves put on it: what the
  // fastest exact insertion is differs per editor.
  const editorOf = (el) => {
    if (!el) return "";
    if (/^(TEXTAREA|INPUT)$/.test(el.tagName)) return "textarea";
    const near = (css) => !!(el.closest(css) || el.querySelector(css));
    if (near("[data-lexical-editor]")) return "lexical";
    if (near(".ql-editor")) return "quill";
    if (near(".ProseMirror")) return "prosemirror";
    return "";
  };
  // Where a site talks to the person rather than the model (issue 31): alerts, dialogs, live
  // regions, toasts, banners, error areas, whatever the site's class names. Searched through
  // `loc.inPage`, so again only after the page changed outside its newest turns.
  // A native `<dialog>` opened (with showModal or `open`) is a dialog by its element alone: its
  // role is implicit, no attribute says it.
  const DIALOG_CSS = '[role="dialog"], [role="alertdialog"], dialog[open]';
  const NOTICE_CSS = DIALOG_CSS + ', [role="alert"], [role="status"], [aria-live="assertive"], [aria-live="polite"], [class*="toast" i], [class*="snackbar" i], [class*="banner" i], [class*="error" i], [class*="notice" i], [data-sonner-toast]';
  // Where a page keeps its furniture (history, menus, side panels), not what it says.
  const ASIDE_CSS = 'nav, aside, [role="navigation"], [role="complementary"], [role="menu"], [role="listbox"]';
  // The longest text read as one notice: a longer element wraps the page, not a notice.
  const NOTICE_CHARS = 1500;
  // What the notice areas say, outside every turn (`page`) and inside the newest reply
  // (`reply`): never inside a user turn (keyless's own messages quote anything) nor an earlier
  // reply (history), never an element that holds the composer or a turn.
  // The notice elements showing as the exchange began, with their text then: a notice counts
  // for this exchange only if it appeared, or its words changed, after the message went (a
  // toast that stays on the page after its limit passed is the last exchange's, whatever it
  // says; the same words shown again in a new element are this one's).
  // An element hidden then is noted as hidden: shown now, it is this exchange's.
  let noticesAtSend = new WeakMap();
  const HIDDEN = "\u0000hidden";
  const THREAD = "\u0000thread";
  const noticesSeen = () => {
    noticesAtSend = new WeakMap();
    const composer = first("Composer");
    const near = nearComposer(composer);
    for (const e of (loc.inPage(NOTICE_CSS) || []).concat(all("ErrorBanner"))) {
      noticesAtSend.set(e, visible(e) ? e.textContent : HIDDEN);
    }
    // What holds a turn is the thread for the whole exchange (its text, the conversation's,
    // is never read), even while the new turns are not found yet.
    for (const e of near) noticesAtSend.set(e, holdsTurn(e) ? THREAD : visible(e) ? e.textContent : HIDDEN);
  };
  // Whether an element beside the composer holds a turn: the thread, never a notice, and its
  // text is the whole conversation's (never read on a look).
  // Part of the conversation: inside a turn or holding one (a code block's header a framework
  // draws again as the person types is never an attachment of the message).
  const ofConversation = (e) => holdsTurn(e) ||
    ["UserMessage", "AssistantMessage"].some((k) => { const css = loc.turns(k).css; return !!css && !!loc.closest(e, css); });
  const holdsTurn = (e) => {
    const userCss = loc.turns("UserMessage").css;
    const replyCss = loc.turns("AssistantMessage").css;
    if ((userCss && loc.touches(e, userCss)) || (replyCss && loc.touches(e, replyCss))) return true;
    // A page no selectors know: the turns discovery found in this exchange.
    const found = exchange && d.exchange();
    return !!found && [found.user, found.userTurn, found.reply].some((t) => t && t.isConnected && loc.holds(e, t));
  };
  // How far up from the composer a notice with no role of its own is looked for: the
  // composer's row, its dock, the page around it (a ribbon above the composer, a line below).
  const NEAR_LEVELS = 4;
  // The elements beside the composer and beside its ancestors, up to NEAR_LEVELS: where a site
  // puts a banner with no role or class that says so. Those holding the composer, a turn or a
  // control are no notices (the caller also leaves out whatever holds a turn).
  const nearComposer = (composer) => {
    const out = [];
    let node = composer;
    for (let i = 0; node && node.parentElement && i < NEAR_LEVELS; i++) {
      const parent = node.parentElement;
      for (const sib of parent.children) {
        if (sib === node || /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|BUTTON|svg)$/.test(sib.tagName) || sib.matches(CONTROLS)) continue;
        out.push(sib);
      }
      node = parent;
    }
    return out;
  };
  // A notice's words as a person reads them: its buttons' labels left out ("OK", "Retry"), and
  // parts in separate blocks kept apart: by a dash after a word (a dialog's title and its
  // message: "Hold on — Limit reached."), else by a space (after a sentence's end, an icon).
  const BLOCKS = "p, div, h1, h2, h3, h4, h5, h6, li, section, header, footer, article, dialog, td, th, label";
  const CONTROLS = 'button, [role="button"]';
  // The box a text is drawn in: its nearest element (up to `root`) that is a block as drawn,
  // by its tag or its style (a title that is a `<span>` made a block or a flex item is a
  // line of its own to the reader).
  const blockOf = (el, root) => {
    for (let x = el; x; x = x.parentElement) {
      if (x.matches(BLOCKS)) return x;
      const view = x.ownerDocument.defaultView;
      if (view && !/^(inline|contents)$/.test(view.getComputedStyle(x).display)) return x;
      if (x === root) return x;
    }
    return root;
  };
  // Whether text in `el` is what a person reads on a whole page standing in the chat's place
  // (a wall): drawn (no script, nothing hidden, transparent or kept from screen readers), and
  // in a form only its sentences and headings, not its fields' labels, choices and links.
  const FORM_WORDS = "p, h1, h2, h3, h4, h5, h6, li, [role=alert], [role=status]";
  const drawnWords = (el) => {
    if (el.closest("script, style, noscript, template, label, legend, select, textarea, [aria-hidden='true']")) return false;
    const shown = el.checkVisibility ? el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : visible(el);
    if (!shown) return false;
    const form = el.closest("form");
    if (!form) return true;
    const words = el.closest(FORM_WORDS);
    return !!words && form.contains(words);
  };
  // `drawn`: only text the page draws as a person reads a whole page (`drawnWords`), its first
  // `drawn` characters.
  const shownWords = (e, drawn) => {
    const parts = [];
    let length = 0;
    let lastBlock = null;
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const parent = node.parentElement;
      const control = parent.closest(CONTROLS);
      if (control && e.contains(control) && control !== e) continue;
      if (drawn && !drawnWords(parent)) continue;
      const raw = node.textContent;
      if (!raw.trim()) continue;
      const block = blockOf(parent, e);
      const before = parts.length ? parts[parts.length - 1] : "";
      let apart = "";
      // A dash only after a word (a title's last): never after a sentence's end or an icon.
      if (block !== lastBlock && parts.length) apart = /[\p{L}\p{N}]\s*$/u.test(before) ? " — " : " ";
      else if (/^\s/.test(raw) || /\s$/.test(before)) apart = " ";
      parts.push(apart + raw);
      lastBlock = block;
      length += apart.length + raw.length;
      if (drawn && length > drawn) break;
    }
    return parts.join("").replace(/\s+/g, " ").trim();
  };
  // A control's label as a person or a screen reader gets it.
  const controlLabel = (b) => (b.getAttribute("aria-label") || b.textContent || b.getAttribute("title") || "").replace(/\s+/g, " ").trim();
  // "Retry" in the sites' languages, and "Regenerate", which some sites put in its place.
  // The Retry controls of a reply turn `a` (its text `text`) in an error's shape: short, a
  // Retry control and no copy control (a site's error turn, in whatever words; a real reply
  // has its copy control, and on some sites a Retry beside it). None when it is a reply.
  const retryControls = (a, text) => {
    // A selector's copy control counts unless it says it does something else (a learned
    // selector that matches the Retry button too).
    const copy = a && first("CopyButton", a);
    if (!a || text.length > 600 || (copy && !d.saysOtherThanCopy(copy)) || d.copyControls(a).length) return [];
    return loc.beneath(a, 'button, [role="button"]').filter((b) => RETRY.test(controlLabel(b)));
  };
  const RETRY = /^(re-?try( now)?|try( it)? (again|once more)( now)?|one more try|send again|resend|ask again|regenerate|regenerate response|réessayer|régénérer|erneut versuchen|wiederholen|nochmal versuchen|neu generieren|reintentar|volver a intentar|regenerar|tentar novamente|tentar de novo|riprova|rigenera|повторить|сгенерировать заново|再試行|再生成|重试|重試|重新生成|다시 시도|다시 생성)$/i;
  // The connection to the site lost or cut, said in a notice in the sites' languages: what the
  // site kept is then found by opening the chat again (the words of selectors.json's `Offline`
  // add to these).
  const CUT = /(connection (was )?(lost|interrupted|dropped|cut|reset)|lost (the |your )?connection|network connection (was )?lost|you('| a)re offline|you are offline|no internet connection|check your (internet|network) connection|stream (was )?interrupted|verbindung (ist )?(unterbrochen|verloren|getrennt)|keine internetverbindung|connexion (perdue|interrompue)|vous êtes hors ligne|conexión (perdida|interrumpida)|sin conexión|conexão (perdida|interrompida)|sem conexão|connessione (persa|interrotta)|sei offline|接続が(切れ|失われ|中断)|オフラインです|连接(已)?(断开|中断|丢失)|网络连接(已)?断开|網路連線(已)?中斷|연결이 (끊|중단)|오프라인 상태)/i;
  // The composer, or what holds it (a component's host), disabled or read-only: the page is
  // still busy (an AI SDK page keeps its input disabled until the reply's response closes).
  const composerBusy = (el) => {
    if (!el) return false;
    if (el.getAttribute("contenteditable") === "false" || el.readOnly === true || el.closest("fieldset[disabled]")) return true;
    for (let at = el, i = 0; at && i < 4; at = loc.up(at), i++) {
      if (at.disabled === true || at.getAttribute("aria-disabled") === "true" || (at !== el.ownerDocument.body && at.hasAttribute("disabled"))) return true;
    }
    return false;
  };
  const noticesNow = (a, composer, extra) => {
    const userCss = loc.turns("UserMessage").css;
    const replyCss = loc.turns("AssistantMessage").css;
    // On a page no selectors know, the user turn discovery found.
    const lastUser = last("UserMessage") || (exchange && d.findUser());
    const page = [];
    const reply = [];
    const taken = new Set();
    const near = nearComposer(composer);
    const found = (loc.inPage(NOTICE_CSS) || []).concat(extra, near);
    const nearSet = new Set(near);
    for (const e of found) {
      if (taken.has(e) || !e.isConnected) continue;
      taken.add(e);
      // What holds the composer or a turn is no notice; told from the page's structure
      // before any text is read (such an element's text is the conversation's).
      if ((composer && e.contains(composer)) || (a && e.contains(a)) || (lastUser && e.contains(lastUser))) continue;
      if (nearSet.has(e) && (noticesAtSend.get(e) === THREAD || holdsTurn(e))) continue;
      // An element beside the composer counts only when it appeared or changed since the
      // send (one the page held then and holds still is the page's furniture).
      if (noticesAtSend.get(e) === e.textContent) continue;
      if (userCss && loc.closest(e, userCss)) continue;
      const owner = replyCss && loc.closest(e, replyCss);
      const inReply = !!(a && (owner === a || a.contains(e)));
      if (owner && !inReply) continue;
      if (!visible(e)) continue;
      if (e.textContent.length > NOTICE_CHARS) continue;
      const text = shownWords(e);
      if (!text) continue;
      const dialog = !!e.closest(DIALOG_CSS);
      // The page's furniture rather than something said: inside its navigation or side
      // panels, or made of links (a history list that gained this chat's name).
      const links = [...e.querySelectorAll("a")].map((l) => l.textContent).join("").length;
      const aside = !!e.closest(ASIDE_CSS) || links * 2 >= e.textContent.length;
      (inReply ? reply : page).push({ text: text.trim(), dialog, aside });
    }
    return { page, reply };
  };
  // The clipboard of `view` (the page's, or a frame's) captured: what a copy control writes
  // goes to `__keylessClip` of the page, never to the person's clipboard. Whether it could be.
  const captureClipboard = (view) => {
    if (!view) return false;
    const capture = (t) => { window.__keylessClip = String(t); return Promise.resolve(); };
    const fake = {
      writeText: capture,
      write: async (items) => {
        for (const item of items) {
          if (item.types.includes("text/plain")) capture(await (await item.getType("text/plain")).text());
        }
      },
      readText: async () => "",
      read: async () => [],
    };
    try { Object.defineProperty(view.navigator, "clipboard", { value: fake, configurable: true }); return true; } catch (e) { return false; }
  };
  const phrases = (key, text) => {
    const lower = text.toLowerCase();
    return (T[key] || []).some((p) => lower.includes(p.toLowerCase()));
  };
  // A sign-in page by its shape, in any words (a site's own texts may not know them): a
  // visible password, email or user-name field, or an address whose host or path names a sign-in. Asked only where
  // no composer shows; a chat loading shows neither.
  const LOGIN_FIELDS = 'input[type="password"], input[autocomplete~="current-password"], input[type="email"], input[autocomplete~="username"], input[autocomplete~="email"]';
  const LOGIN_PATH = /\/(log-?in|sign-?in|sign_in|auth|oauth2?|sso|authorize)\//i;
  const LOGIN_HOST = /^(login|accounts?|auth|sso|signin|id)\./i;
  const loginShaped = () =>
    LOGIN_PATH.test(location.pathname + "/") ||
    LOGIN_HOST.test(location.hostname) ||
    [...document.querySelectorAll(LOGIN_FIELDS)].some(visible);
  // Code with one block element per line (and no newline characters) is read line by line.
  const wordsOf = (t) => (t || "").match(/[\p{L}\p{N}]+/gu) || [];
  // A message's content when it is one fenced block (the fence keyless wraps a message in).
  const unfence = (text) => {
    const m = (text || "").match(/^(`{3,}|~{3,})[^\n`~]*\n([\s\S]*?)\n?(`{3,}|~{3,})[ \t]*\n?$/);
    return m && m[3][0] === m[1][0] && m[3].length >= m[1].length ? m[2] : text;
  };
  const codeText = (code) => {
    const kids = Array.from(code.children);
    if (kids.length && kids.every((k) => getComputedStyle(k).display === "block")) {
      return kids.map((k) => k.textContent).join("\n");
    }
    return code.textContent.replace(/\n$/, "");
  };
  // The blocks a body draws: its shadow root's, when it is a component; one wrapper alone
  // (a component's top element) is gone through.
  const drawnBlocks = (body) => {
    let kids = Array.from((body.shadowRoot || body).children).filter((k) => !/^(STYLE|SCRIPT|LINK|TEMPLATE)$/.test(k.tagName));
    while (kids.length === 1 && /^(DIV|SECTION|ARTICLE)$/.test(kids[0].tagName) && (kids[0].shadowRoot || kids[0].children.length)) {
      kids = Array.from((kids[0].shadowRoot || kids[0]).children).filter((k) => !/^(STYLE|SCRIPT|LINK|TEMPLATE)$/.test(k.tagName));
    }
    return kids;
  };
  const rebuild = (body, turn) => {
    const blocks = [];
    const thought = new Map();
    for (const node of drawnBlocks(body)) {
      const tag = node.tagName;
      if (d.reasoning(node, turn, thought) || d.unseen(node, body) || /^(BUTTON|svg)$/.test(tag)) continue;
      if (tag === "PRE") {
        const code = node.querySelector("code") || node;
        const lang = ((code.className || "").match(/language-(\S+)/) || [])[1] || "";
        blocks.push("```" + lang + "\n" + codeText(code) + "\n```");
      } else if (tag === "UL" || tag === "OL") {
        blocks.push(Array.from(node.children).map((li) => "- " + li.textContent).join("\n"));
      } else if (/^H[1-6]$/.test(tag)) {
        blocks.push("#".repeat(Number(tag[1])) + " " + node.textContent);
      } else {
        blocks.push(loc.text(node));
      }
    }
    return blocks.join("\n\n");
  };
  // Where a real mouse click on `el` lands, scrolled into view: null when it is hidden or
  // something else is drawn over its centre (the click would go there).
  const pointOf = (el) => {
    if (!el || !visible(el)) return null;
    el.scrollIntoView({ block: "center", inline: "center" });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    // Asked of the element's own tree (a shadow root answers with what is in it, the page
    // with its host), then the point moved out of each frame it is in, to the tab's place.
    const hit = el.getRootNode().elementFromPoint(x, y);
    if (!(hit && (hit === el || el.contains(hit)))) return null;
    let [px, py] = [x, y];
    for (let doc = el.ownerDocument; doc !== document;) {
      const frame = doc.defaultView && doc.defaultView.frameElement;
      if (!frame) return null;
      const f = frame.getBoundingClientRect();
      px += f.left + frame.clientLeft;
      py += f.top + frame.clientTop;
      doc = frame.ownerDocument;
    }
    return [px, py];
  };
  const api = {
    version: 15,
    // The one door keyless calls through (Rust: `page_api/`): the function of this api named
    // `name`, with `args` (an array); its answer as JSON text, a promise's once it settles.
    call: (name, args) => {
      const f = api[name];
      if (typeof f !== "function" || name === "call") throw new Error("keyless: no page function " + name);
      const json = (v) => JSON.stringify(v === undefined ? null : v);
      const out = f(...args);
      return out && typeof out.then === "function" ? out.then(json) : json(out);
    },
    // The chat's own controls (controls.js): what the model picker offers, choosing a row,
    // the model shown chosen, the model the newest reply says it came from, plain chat, the
    // temporary chat.
    modelsOffered: () => c.offered(),
    chooseModel: (label, group) => c.choose(label, group),
    modelShown: () => c.shown(),
    // The model the newest reply says it came from, else the picker's words: one call.
    answeredBy: () => c.answeredBy(replyTurn()) || c.shown(),
    plainChat: () => c.plainChat(),
    temporaryChat: () => c.temporary(),
    // The person's attachments (attach.js): whether a file input is there, the notices before
    // the files go (and the attach button clicked where the input comes only with it), the
    // input element itself for the DevTools Protocol (not through `call`: an element is no
    // JSON), the events of a person's choice, and what the composer shows of the files.
    hasFileInput: () => a.has(),
    attachBegin: () => a.begin(),
    fileInputElement: () => a.element(),
    attachNudge: () => a.nudge(),
    attachLook: (names) => a.look(names),
    // Turn counts and whether a send button is there, as a send begins.
    // The turns, the send button, and what the page says as the message is about to go (a
    // limit's banner standing since the last reply, or since the page opened): nothing is sent
    // into a chat that refuses messages.
    beforeSend: () => {
      const [users, assistants] = api.turns();
      const composer = first("Composer");
      const notices = noticesNow(replyTurn(), composer, all("ErrorBanner")).page;
      // A composer the selectors no longer find (they name it editable) beside a send button
      // that is disabled is the same page busy.
      const send = last("SendButton");
      const busy = composer ? composerBusy(composer) : !!send && !d.enabled(send);
      return { users, assistants, button: !!send, notices, busy };
    },
    // Whether the composer is clean and how the page stands as a send begins, in one call (a
    // call waits for any frame the page is drawing, and a frame costs more the longer the chat).
    // With `text`, an insertion of it begins in the same call where the composer is clean.
    dirtyBefore: (text) => {
      const dirt = api.dirty();
      const before = api.beforeSend();
      const clean = !dirt[0] && dirt[1] === 0 && dirt[2] === 0;
      return { dirt, before, begun: typeof text === "string" && clean ? api.begin(text) : null };
    },
    // The exchange begins (`text` null: the message the page keeps) and the composer takes the
    // focus, for Enter to send.
    beginAndFocus: (text) => api.beginExchange(text) && api.focusComposer(),
    // The exchange begins and the send button gets a scripted click in the same call; the new
    // turn is looked for once the click's own work is done (a framework finishes it in
    // microtasks), so a page that draws it at once needs no frame waited for.
    clickSend: async (text, users) => {
      if (!(api.beginExchange(text) && api.click("SendButton"))) return [false, null];
      await new Promise((resolve) => queueMicrotask(resolve));
      return [true, api.sentShown(users)];
    },
    // A selector found by discovery goes first for `key`, for the rest of the page's life.
    heal: (key, css) => {
      S[key] = [css].concat((S[key] || []).filter((c) => c !== css));
      return true;
    },
    discoverComposer: () => {
      const el = d.composer();
      if (!el) return null;
      return d.cssFor(el, (found) => found[0] === el);
    },
    markButtons: () => { d.markButtons(first("Composer")); return true; },
    // Opens a new chat with the page's own control (by the selectors, else by its shape).
    newChat: () => {
      const control = last("NewChat") || d.newChatControl();
      if (!control) return false;
      control.click();
      return true;
    },
    // Cards (a paste the site turned into a file) count from `begin` to `unmarkRegion`.
    unmarkRegion: () => { d.unmarkRegion(); return true; },
    cards: () => d.cards(first("Composer"), ofConversation).length,
    removeCards: () => d.removeCards(first("Composer"), ofConversation),
    // The send button by its shape; a button no selector can describe is marked for this page.
    discoverSend: () => {
      const b = d.sendButton(first("Composer"));
      if (!b) return null;
      const css = d.cssFor(b, (found) => found[found.length - 1] === b);
      if (css) return { css, kept: true };
      b.setAttribute("data-keyless", "send");
      return { css: '[data-keyless="send"]', kept: false };
    },
    // A message sent inside a fence (a page that alters messages, see `sentExact`) is looked
    // for by its content: the page draws the fence as a code block.
    beginExchange: (text) => {
      if (text === null || text === undefined) text = api.expected;
      const inner = unfence(text);
      exchange = { users: count("UserMessage"), assistants: count("AssistantMessage"), text: inner, raw: text };
      noticesSeen();
      return d.beginExchange(inner, first("Composer"), last("SendButton"));
    },
    // Whether the user turn of this exchange shows the message exactly, byte for byte but for
    // trailing white space: as its only code block (a fenced message), or as its text. "exact",
    // or what differs, for keyless to say; null when there is no turn to look at.
    sentExact: () => {
      if (!exchange || exchange.text === undefined) return null;
      const el = d.findUser() || last("UserMessage");
      if (!el) return null;
      const trim = (t) => t.replace(/\s+$/, "");
      const want = trim(exchange.text);
      const blocks = loc.beneath(el, "pre");
      if (blocks.length === 1 && trim(codeText(blocks[0].querySelector("code") || blocks[0])) === want) return "exact";
      const raw = trim(exchange.raw || exchange.text);
      if ([want, raw].some((w) => trim(el.innerText) === w || trim(loc.text(el)) === w)) return "exact";
      // A page that draws each line as a paragraph (Claude) keeps every line as it was and only
      // the blank lines go: that is drawing, not altering. Lines compared one by one, blank
      // ones aside, the spaces and tabs in them kept.
      const lines = (list) => list.map((l) => l.replace(/\s+$/, "")).filter((l) => l !== "");
      const leaves = Array.from(el.querySelectorAll("*")).filter((e) => {
        const block = /^(block|list-item|table-row|flex)$/.test(getComputedStyle(e).display);
        return block && !Array.from(e.children).some((c) => /^(block|list-item|table-row|flex)$/.test(getComputedStyle(c).display));
      });
      const shownLines = leaves.length ? leaves.flatMap((e) => e.textContent.split("\n")) : el.textContent.split("\n");
      const a = lines(shownLines);
      for (const w of [want, raw]) {
        const b = lines(w.split("\n"));
        if (a.length === b.length && a.every((l, i) => l === b[i])) return "exact";
      }
      // The turn as drawn; a turn not drawn yet (a page that shows it once its styles have
      // loaded: hidden, it has no rendered text) is judged by its text.
      const textNow = loc.text(el);
      const drawn = wordsOf(el.innerText).length * 2 >= wordsOf(textNow).length ? el.innerText : textNow;
      const shown = blocks.length === 1 ? codeText(blocks[0].querySelector("code") || blocks[0]) : drawn;
      // Most of the message's words, or it is something else in its place.
      const count = (list) => list.reduce((m, w) => m.set(w, (m.get(w) || 0) + 1), new Map());
      const have = count(wordsOf(drawn));
      const need = wordsOf(want);
      const kept = need.filter((w) => { const n = have.get(w) || 0; if (n > 0) { have.set(w, n - 1); return true; } return false; }).length;
      if (need.length && kept < need.length * 0.9) return "unlike";
      const differs = [];
      if (want.includes("\t") && !shown.includes("\t")) differs.push("tabs");
      if (/\n\n/.test(want) && !/\n\n/.test(shown)) differs.push("blank lines");
      if (/^ {2,}\S/m.test(want) && !/^ {2,}\S/m.test(shown)) differs.push("indentation");
      if (!differs.length) differs.push("Markdown or line breaks");
      return differs.join(", ");
    },
    // Selectors for the turns discovery found in this exchange (null where none fits).
    learnTurns: () => d.learnTurns(),
    // A selector for the copy control that proved itself (`index` of the candidates).
    // Made before the click (`copy`): a control marks itself for a moment after one
    // (`data-copied="true"` for three seconds), and a selector learned from that state would
    // match nothing on the next run.
    learnCopy: (index) => (api.copySelectors && api.copySelectors[index]) || null,
    agrees: (text) => { const a = replyTurn(); return !!a && d.agrees(a, text); },
    exists: (key) => !!first(key),
    // The frames from another origin on the page, which no script of the page may look into.
    farFrames: () => loc.farFrames(),
    // The first alternative of `key` that matches, for CDP calls that need one selector.
    which: (key) => {
      for (const css of S[key] || []) {
        const found = loc.under(document, css);
        if (found && found.length) return css;
      }
      return null;
    },
    count: (key) => all(key).length,
    // How many elements `css` finds in the page (crossings followed), and whether one shows.
    matchCount: (css) => {
      const found = loc.under(document, css) || [];
      return { count: found.length, visible: found.some(visible) };
    },
    turns: () => [count("UserMessage"), count("AssistantMessage")],
    composer: () => composerText(first("Composer")),
    // The message being inserted, kept in the page so that checking the composer against it
    // costs no copy of the text: `holds(n)` says whether the composer holds exactly its first
    // `n` UTF-16 units (all of it without `n`), and how long the composer's text is.
    expect: (text) => { api.expected = text; return true; },
    // An insertion begins: the message kept, the composer's surroundings marked (for cards),
    // and what keyless must know first: the attachment chips there already and the editor.
    begin: (text) => {
      api.expected = text;
      const el = first("Composer");
      d.markRegion(el);
      return { chips: all("AttachmentChip").length, editor: editorOf(el) };
    },
    // One insertion by a page strategy (`setValue`, `pasteHtml`, `pastePlain`) of the message's
    // UTF-16 units from..to, judged in the same task (no rendering frame waited for): whether
    // the composer holds exactly the first `to`, or the site made a card or chip of it. An
    // editor that applies it later is judged again until its text stops changing for `settle`
    // ms (at most `limit` ms). With `last`, a composer that holds the whole message ends the
    // insertion (the region is unmarked).
    //
    // With `users` (the user turns before the send), a composer that holds the whole message
    // exactly is sent from in the same call, as `clickSend` does, once the framework has
    // drawn what the insertion changed (microtasks) and only if the send button is there and
    // enabled: `sent` says so, and what the page shows of the new turn. Otherwise the caller
    // clicks in a call of its own, as before.
    put: async (how, from, to, settle, limit, whole, users) => {
      const judged = await api.putOnly(how, from, to, settle, limit, whole);
      if (users === null || users === undefined || !whole || !judged.exact) return judged;
      for (let i = 0; i < 3; i++) await new Promise((resolve) => queueMicrotask(resolve));
      const button = last("SendButton");
      if (!button || !d.enabled(button)) return judged;
      // The framework drew what the insertion changed and left the message whole.
      if (!api.holds(to).exact) return judged;
      judged.sent = await api.clickSend(null, users);
      return judged;
    },
    putOnly: (how, from, to, settle, limit, last) => {
      const chips = all("AttachmentChip").length;
      if (!api[how](api.expected.slice(from, to))) return { applied: false };
      const judge = () => {
        const el = first("Composer");
        if (d.cards(el, ofConversation).length || all("AttachmentChip").length > chips) return { applied: true, carded: true };
        const held = api.holds(to);
        if (held.exact && last) d.unmarkRegion();
        return { applied: true, exact: held.exact, length: held.length };
      };
      const now = judge();
      if (now.exact || now.carded) return now;
      return new Promise((resolve) => {
        const started = performance.now();
        let length = now.length;
        let since = started;
        const again = () => {
          const judged = judge();
          const t = performance.now();
          if (judged.length !== length) { length = judged.length; since = t; }
          if (judged.exact || judged.carded || t - since > settle || t - started > limit) {
            resolve(judged);
          } else {
            setTimeout(again, 10);
          }
        };
        setTimeout(again, 10);
      });
    },
    // Whether the composer is clean: [it holds text, attachment chips, cards].
    dirty: () => {
      const el = first("Composer");
      const text = composerText(el);
      return [!!text, all("AttachmentChip").length, d.cards(el, ofConversation).length];
    },
    holds: (n) => {
      const text = composerText(first("Composer"));
      if (text === null || api.expected === undefined) return { exact: false, length: -1 };
      const want = n === undefined ? api.expected : api.expected.slice(0, n);
      // Editors draw runs of spaces with no-break spaces; the sent turn is checked exactly.
      const fold = (t) => t.replace(/[\u00a0\u2007\u202f]/g, " ");
      return { exact: text === want || fold(text) === fold(want), length: text.length };
    },
    focusComposer: () => {
      const el = first("Composer");
      if (!el) return false;
      el.focus();
      // The composer's own document and window: a frame's, when the chat is inside one.
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      range.collapse(false);
      const sel = el.ownerDocument.defaultView.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      return true;
    },
    selectComposer: () => {
      const el = first("Composer");
      if (!el) return false;
      el.focus();
      if (typeof el.select === "function") { el.select(); return true; }
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      const sel = el.ownerDocument.defaultView.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      return true;
    },
    // A paste of one paragraph per line, as HTML that ProseMirror takes exactly: whitespace kept
    // (pre-wrap) and `data-pm-slice` so that it does not collapse it. Only editors that handle
    // the (untrusted) paste event themselves take it; the caller checks the composer after.
    pasteHtml: (text) => {
      const el = first("Composer");
      if (!el) return false;
      api.focusComposer();
      const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      const html = text.split("\n").map((line, i) =>
        "<p" + (i === 0 ? ' data-pm-slice="1 1 []"' : "") + ' style="white-space:pre-wrap">' + esc(line) + "</p>").join("");
      const data = new DataTransfer();
      data.setData("text/html", html);
      data.setData("text/plain", text);
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      return true;
    },
    // A paste of the lines with a <br> between them (whitespace kept by pre-wrap), for editors
    // that take a line break only as one: Enter sends there, and a paragraph or a plain line
    // break in a paste is dropped.
    pasteBr: (text) => {
      const el = first("Composer");
      if (!el) return false;
      api.focusComposer();
      const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      const html = '<span style="white-space:pre-wrap">' + text.split("\n").map(esc).join("<br>") + "</span>";
      const data = new DataTransfer();
      data.setData("text/html", html);
      data.setData("text/plain", text);
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      return true;
    },
    // A paste of the plain text alone, for editors whose HTML paste loses whitespace (Quill
    // keeps it only inside <pre>) and that take text/plain exactly.
    pastePlain: (text) => {
      const el = first("Composer");
      if (!el) return false;
      api.focusComposer();
      const data = new DataTransfer();
      data.setData("text/plain", text);
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      return true;
    },
    // A text field's value set as a person's typing would leave it (the native setter, so
    // frameworks that track the value see the change, then an input event): false on an
    // element that is no text field.
    setValue: (text) => {
      const el = first("Composer");
      if (!el || !/^(TEXTAREA|INPUT)$/.test(el.tagName)) return false;
      el.focus();
      const view = el.ownerDocument.defaultView;
      const proto = el.tagName === "TEXTAREA" ? view.HTMLTextAreaElement.prototype : view.HTMLInputElement.prototype;
      Object.getOwnPropertyDescriptor(proto, "value").set.call(el, text);
      el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertReplacementText", data: text }));
      return true;
    },
    // Removes the attachment chips after the first `keep` (the newest are last).
    removeChips: (keep) => {
      let n = 0;
      for (const b of all("AttachmentRemove").slice(keep || 0)) { b.click(); n++; }
      return n;
    },
    click: (key) => {
      const el = last(key);
      if (!el) return false;
      el.click();
      return true;
    },
    // Where a real mouse click on `key` lands, scrolled into view: null when the element is
    // hidden or something else is drawn over its centre (the click would go there).
    centre: (key) => pointOf(last(key)),
    // Reading channel 4, the last: a copy row in a menu behind the reply's "more" control.
    // Where a real click on trigger `index` lands (menus open on the pointer, which a scripted
    // click does not move); null when there is none.
    menuTrigger: (index) => pointOf(d.menuTriggers(replyTurn())[index || 0]),
    // Clicks the open menu's copy row with the clipboard captured ("discovered": the caller
    // proves what it copied), or says there is none ("no-button").
    menuCopy: () => {
      window.__keylessClip = null;
      const row = d.menuCopyRows().find((r) => visible(r));
      if (!row) return "no-button";
      if (!captureClipboard(window)) return "no-clipboard";
      const view = row.ownerDocument.defaultView;
      if (view && view !== window && !captureClipboard(view)) return "no-clipboard";
      row.click();
      return "discovered";
    },
    // The page's structure for a report when the site seems to have changed: elements with
    // their ids, classes and the attributes selectors use, which selector alternative matched
    // each key, and text only as a length (never the conversation itself).
    sketch: () => {
      const lines = ["origin: " + location.origin, "title: " + document.title.length + " characters"];
      for (const key of Object.keys(S)) lines.push("selector " + key + ": " + (api.which(key) || "none matched"));
      lines.push("");
      const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "LINK", "META", "PATH"]);
      const control = (el) => /^(BUTTON|INPUT|TEXTAREA|SELECT)$/.test(el.tagName) || el.getAttribute("role") === "button";
      const attrs = ["data-testid", "data-message-author-role", "role", "contenteditable", "type", "name", "placeholder", "disabled", "hidden", "aria-hidden", "data-state"];
      let count = 0;
      const walk = (el, depth) => {
        if (skip.has(el.tagName) || depth > 60) return;
        if (++count > 5000) return;
        let line = "  ".repeat(depth) + el.tagName.toLowerCase();
        if (el.id) line += "#" + el.id;
        line += Array.from(el.classList).slice(0, 8).map((c) => "." + c).join("");
        for (const a of attrs) {
          if (el.hasAttribute(a)) line += " [" + a + "=" + el.getAttribute(a).slice(0, 40) + "]";
        }
        // Labels of controls are the site's words ("Send prompt"); other labels can be titles.
        if (control(el) && el.hasAttribute("aria-label")) line += " [aria-label=" + el.getAttribute("aria-label").slice(0, 40) + "]";
        let text = 0;
        for (const n of el.childNodes) if (n.nodeType === Node.TEXT_NODE) text += n.textContent.trim().length;
        if (text) line += " (" + text + " characters)";
        lines.push(line);
        if (el.tagName === "svg") return;
        for (const child of el.children) walk(child, depth + 1);
        if (el.shadowRoot) {
          lines.push("  ".repeat(depth + 1) + "#shadow-root (open)");
          for (const child of el.shadowRoot.children) walk(child, depth + 2);
        }
        if (/^I?FRAME$/.test(el.tagName)) {
          const doc = loc.inside(el);
          if (doc && doc.body) walk(doc.body, depth + 1);
          else if (loc.far(el)) lines.push("  ".repeat(depth + 1) + "(a frame from another origin, which keyless cannot look into)");
          else lines.push("  ".repeat(depth + 1) + "(a frame still loading)");
        }
      };
      walk(document.body, 0);
      if (count > 5000) lines.push("… cut at 5000 elements");
      return lines.join("\n") + "\n";
    },
    // Whether the message sent in this exchange shows as a new user turn: null while none
    // does; "same" when it reads as the message (line breaks and spaces aside), decided here so
    // that a long message need not cross back; else the turn's text, for keyless to judge.
    sentShown: (usersBefore) => {
      const bare = (t) => t.replace(/[ \t\n\r]+/g, "");
      const sent = exchange && exchange.text !== undefined
        ? (exchange.bare = exchange.bare || bare(exchange.text)) : null;
      if (count("UserMessage") > usersBefore) {
        // The selectors' new turn reads as the message: no search needed.
        const el = last("UserMessage");
        if (el && sent !== null && bare(loc.text(el)) === sent) return "same";
      } else if (!(exchange && d.findUser())) {
        return null;
      }
      const text = api.lastUserText();
      if (text === null) return null;
      if (sent !== null && bare(text) === sent) return "same";
      return { text };
    },
    // The site's history list: links to other conversations of this site, in the page's order
    // (newest first on the sites seen), from the parts of the page that navigate.
    historyLinks: () => {
      const here = location.href.split("#")[0];
      const seen = new Set();
      const out = [];
      const lists = document.querySelectorAll('nav, aside, [role="navigation"], [class*="sidebar" i], [class*="history" i], [id*="history" i], [id*="sidebar" i]');
      for (const list of lists) {
        for (const a of list.querySelectorAll("a[href]")) {
          let url;
          try { url = new URL(a.getAttribute("href"), location.href); } catch (e) { continue; }
          const href = url.href.split("#")[0];
          if (url.origin !== location.origin || url.pathname === "/" || href === here || seen.has(href)) continue;
          seen.add(href);
          out.push(href);
        }
      }
      return out.slice(0, 12);
    },
    // Whether the page shows a message: its first and its last words, in order, letters and
    // digits only (a page that draws the message as Markdown keeps those).
    showsMessage: (message) => {
      const bare = (t) => wordsOf(t).join("");
      const all = wordsOf(unfence(message));
      // The page's text in every tree of it (shadow roots and frames hold text of their own).
      const text = loc.roots().map((root) => {
        const top = root.nodeType === 9 ? [root.body] : Array.from(root.children);
        return top.filter(Boolean).map((el) => el.innerText || "").join("\n");
      }).join("\n");
      const page = bare(text);
      return page.includes(all.slice(0, 12).join("")) && page.includes(all.slice(-12).join(""));
    },
    lastUserText: () => {
      // In an exchange, the element that carries the sent text is the surest answer.
      const user = (exchange && d.findUser()) || last("UserMessage");
      if (!user) return null;
      // A fenced message drawn as its code block (and maybe a label): the block's text.
      const blocks = loc.beneath(user, "pre");
      if (blocks.length === 1) {
        const code = codeText(blocks[0].querySelector("code") || blocks[0]);
        const around = loc.text(user).replace(/\s+/g, "").length - blocks[0].textContent.replace(/\s+/g, "").length;
        const label = blocks[0].textContent.replace(/\s+/g, "").length - code.replace(/\s+/g, "").length;
        if (around + label < 40) return code;
      }
      return loc.text(user);
    },
    // A dialog that says `text` is acknowledged, as a person clicks its "Got it": the button
    // that closes it (by its words in the sites' languages, or a close label), else the first.
    acknowledge: (text) => {
      const want = (text || "").replace(/\s+/g, " ").trim();
      const dialogs = loc.inPage(DIALOG_CSS) || [];
      for (const dlg of dialogs) {
        if (!visible(dlg) || !(shownWords(dlg).includes(want.slice(0, 80)) || dlg.textContent.replace(/\s+/g, " ").includes(want.slice(0, 80)))) continue;
        const buttons = Array.from(dlg.querySelectorAll("button, [role=button]")).filter(visible);
        const ack = /^(got it|ok|okay|close|dismiss|understood|continue|verstanden|schließen|compris|fermer|entendido|cerrar|entendi|fechar|capito|chiudi|понятно|закрыть|閉じる|了解|知道了|关闭|확인|닫기)$/i;
        const button = buttons.find((b) => ack.test((b.textContent || "").trim()) || ack.test((b.getAttribute("aria-label") || "").trim())) || buttons[0];
        if (button) { button.click(); return true; }
      }
      return false;
    },
    // A reopened chat in which no turn shows by the selectors: the exchange of `text` looked
    // for by its words in all the page shows. Whether its user turn is there.
    reopenExchange: (text) => {
      api.beginExchange(text);
      // No message went: every notice the reopened page shows counts (a limit's banner up
      // since it loaded is said before anything is sent into it).
      noticesAtSend = new WeakMap();
      d.seeShown();
      return !!d.findUser();
    },
    // The site's error in the reply's place, in an error's shape (short, no copy control):
    // its Retry control is clicked, as a person asks the site to answer again. Whether it was.
    // Not when it says the connection was cut: the model may have answered, and the site may
    // keep that reply (the chat is opened again to read it, never asked for twice).
    retry: () => {
      const a = replyTurn();
      const button = retryControls(a, a ? loc.text(a) : "").find(visible);
      if (!button) return false;
      const words = d.answerText(a);
      if (phrases("Offline", words) || CUT.test(words)) return false;
      button.click();
      return true;
    },
    // Whether a reply follows the last user message (a reopened chat that was answered).
    replyFollows: () => {
      if (exchange && count("UserMessage") <= exchange.users && d.findUser()) return !!d.findReply();
      const u = last("UserMessage");
      const a = last("AssistantMessage");
      return !!(u && a && (u.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING));
    },
    state: () => {
      const users = count("UserMessage");
      const assistants = count("AssistantMessage");
      // The exchange as discovery sees it, while the selectors do not.
      let userFound = false;
      let replyFound = false;
      if (exchange && users <= exchange.users) userFound = !!d.findUser();
      if (exchange && assistants <= exchange.assistants) replyFound = !!d.findReply();
      const a = replyTurn();
      newest(a);
      const stop = first("StopButton");
      if (visible(stop)) seen.StopButton = true;
      const text = a ? loc.text(a) : "";
      const pageBanners = all("ErrorBanner");
      const banners = pageBanners.map((e) => e.textContent).join("\n");
      // Banners of earlier replies are history: only the last reply's and the page's own count.
      const replyCss = loc.turns("AssistantMessage").css;
      const fresh = pageBanners
        .filter((e) => {
          const owner = replyCss && loc.closest(e, replyCss);
          return !owner || owner === a || (a && a.contains(owner));
        })
        .map((e) => e.textContent)
        .join("\n");
      let done = !!a && (S.Completed || []).some((css) => loc.touches(a, css));
      if (done) seen.Completed = true;
      if (!done && !seen.Completed && a) done = d.done(a);
      // A login wall or a bot check is looked for only where no composer shows (the page is
      // loading, or it stands in the chat's place): only then is the page's own text read.
      const composer = first("Composer");
      const walled = !composer;
      // As a person reads it: the form's button labels ("Continue") left out.
      const wall = walled && document.body ? shownWords(document.body, 5000).slice(0, 5000) : "";
      const notices = noticesNow(a, composer, pageBanners);
      const sign = !seen.StopButton && a ? d.streaming(a) : null;
      const out = {
        notices: notices.page,
        replyNotices: notices.reply,
        // The reply's own text when it is short enough to be a site's notice in its place: its
        // words without the turn's controls ("Copy", "Retry") and hidden labels, which would
        // run into the notice's last word ("resets Jan 5Copy").
        replyText: a && text.length <= 600 ? d.answerText(a) : null,
        // The reply's place holds an error's shape (`retryControls`).
        replyRetry: retryControls(a, text).length > 0,
        wallText: walled ? wall.slice(0, 1500) : null,
        users,
        assistants,
        userFound,
        replyFound,
        stopShown: visible(stop),
        busySign: sign === "busy",
        streamGuess: sign === "guess",
        doneMark: done,
        chars: replyFound ? d.answerText(a).length : text.length,
        exhausted: phrases("ChatExhausted", text + "\n" + banners),
        // A refusal shows as a banner or as a short reply of its own, never inside a long one
        // (a model may well write "too many requests" in an answer).
        tooLong: phrases("TooLong", fresh + "\n" + (text.length < 400 ? text : "")),
        // The site says it is offline, in a notice of this exchange (one left from an earlier
        // exchange is history): its words.
        offline: notices.page.concat(notices.reply).map((n) => n.text).find((t) => phrases("Offline", t) || CUT.test(t)) || null,
        login: walled && (phrases("LoginRequired", wall) || loginShaped()),
        // A bot check (Cloudflare's): a person has to pass it in the window.
        // Only where there is no composer: a normal page can carry the platform's script, or
        // a stale "Just a moment…" title (seen on chatgpt.com, 2026).
        challenge: walled && (document.title.includes("Just a moment") ||
          !!document.querySelector('script[src*="/challenge-platform/"], iframe[src*="challenges.cloudflare.com"]') ||
          wall.toLowerCase().includes("verify you are human")),
      };
      // The look that first sees this exchange's reply marked done, with nothing streaming,
      // reads it through its first copy control in the same call (keyless then ends the reply
      // on this look and reads it with no call of its own, none waiting behind the page's
      // next frame); once a reply, and never where keyless would not end it. A reply whose
      // copy control is not drawn yet (Panel draws its icon a moment after the text) is left to
      // the read's own call, a moment later, as before.
      if (exchange && a && done && !out.stopShown && sign === null && exchange.copiedFor !== a &&
          (assistants > exchange.assistants || replyFound) && !walled) {
        const read = api.copyRead(0);
        if (read.clicked === "clicked" || read.clicked === "discovered") {
          exchange.copiedFor = a;
          out.copied = read;
        }
      }
      return out;
    },
    // Reading channel 1: the site's copy button, with the clipboard captured in the page.
    copy: (index) => {
      window.__keylessClip = null;
      const capturing = captureClipboard;
      if (!capturing(window)) return "no-clipboard";
      const a = replyTurn();
      // The selectors' control in the reply, else the page's last one when the reply is the
      // newest turn (a toolbar drawn beside the turn): never one before the reply starts, which
      // is an earlier reply's (drawn late, while this reply has none yet).
      const lastCopy = a && a === last("AssistantMessage") && last("CopyButton");
      const named = (a && first("CopyButton", a)) || (lastCopy && loc.atOrAfter(a, lastCopy) ? lastCopy : null);
      // Never a control that says it does something else (an error's Retry a learned
      // selector also matches).
      const known = named && !d.saysOtherThanCopy(named) ? named : null;
      // The selectors' copy control first, then those found by their shape (the caller
      // proves what they copy).
      const candidates = (known ? [known] : []).concat(d.copyControls(a, true).filter((b) => b !== known));
      const button = candidates[index || 0];
      if (!button) return "no-button";
      // A control in a frame writes to its frame's clipboard: captured there too.
      const view = button.ownerDocument.defaultView;
      if (view && view !== window && !capturing(view)) return "no-clipboard";
      if (button !== known) {
        // Never a code block's own copy button, which copies the code alone.
        const accept = (found) => found.includes(button) && found.every((f) => d.isCopy(f) && !d.codeOwn(f, a));
        api.copySelectors = api.copySelectors || {};
        // Made before the button's first click, and kept for it: a click may leave a state on
        // it for a while (`data-copied="true"`), which no selector may be made of.
        api.copySelectorOf = api.copySelectorOf || new WeakMap();
        if (!api.copySelectorOf.has(button)) api.copySelectorOf.set(button, d.cssFor(button, accept));
        api.copySelectors[index || 0] = api.copySelectorOf.get(button);
      }
      button.click();
      return button === known ? "clicked" : "discovered";
    },
    copied: () => window.__keylessClip,
    // The copy control clicked, and when the page's clipboard call ran in the click itself,
    // what it copied and whether that agrees with the drawn reply: one round trip where three
    // were (each waits for any frame the page is drawing, and a frame costs more the longer
    // the chat). `text` null: the copy comes later, and the caller waits for it.
    copyRead: (index) => {
      const clicked = api.copy(index);
      if (clicked !== "clicked" && clicked !== "discovered") return { clicked, text: null, agrees: false };
      const text = typeof window.__keylessClip === "string" ? window.__keylessClip : null;
      const agrees = text !== null && api.agrees(text);
      // The model the reply says answered it, looked at in the same call once it is read.
      return { clicked, text, agrees, looked: agrees, model: agrees ? api.answeredBy() : null };
    },
    // Reading channel 2: the reply's only code block. Null when it cannot be exact: not one
    // block; a code editor's view, which draws only the lines on screen; or a block that is not
    // the whole reply (prose outside it is missing). Where the site's selectors name its code
    // blocks its text is the reply (`vouched`); a block found by its shape on a page no
    // selectors know proves no bytes by itself (a page may draw it lossily: tabs as spaces,
    // trailing spaces cut, blank lines merged), only through its own copy control, which is
    // clicked here with the clipboard captured (`clicked`: the caller reads what it copied).
    codeBlock: () => {
      const a = replyTurn();
      const blocks = a ? codeBlocks(a) : [];
      if (blocks.length !== 1 || blocks[0].closest(".cm-editor, .monaco-editor")) return null;
      const text = codeText(blocks[0]);
      if (!d.agrees(a, text)) return null;
      if (all("CodeBlock", a).length) return { text, vouched: true, clicked: false };
      const own = loc.beneath(a, 'button, [role="button"]').find((b) => visible(b) && d.isCopy(b) && d.codeOwn(b, a));
      if (!own || !captureClipboard(window) || !captureClipboard(own.ownerDocument.defaultView)) return null;
      window.__keylessClip = null;
      own.click();
      return { text, vouched: false, clicked: true };
    },
    // Reading channel 3: Markdown rebuilt from the DOM, code blocks kept line by line.
    rebuilt: () => {
      const a = replyTurn();
      if (!a) return null;
      const body = loc.beneath(a, ".markdown, .standard-markdown, [class*=markdown]")[0] || a;
      return rebuild(body, a);
    },
    // keyless is woken on every change to the page (one call per task's changes).
    observe: () => {
      if (api.observing || typeof window.__keylessNotify !== "function") return false;
      api.observing = true;
      let queued = false;
      loc.onChange(() => {
        if (queued) return;
        queued = true;
        Promise.resolve().then(() => { queued = false; window.__keylessNotify("m"); });
      });
      return true;
    },
  };
  window.__keyless = api;
  return "installed";
})
