// Locating a key's elements on a chat page with work that does not grow with the conversation
// (issue 32): a page script that looks every quarter second, while a reply streams, must not
// search a hundred earlier turns each time. `page.js` gets its elements here.
//
// - Turns (`turns`) are counted in the whole page once; from then on only what comes after
//   the last turn known is looked at (a new turn comes after it; the ones before it are
//   history). The whole page is counted again only when that turn leaves the page, stops
//   matching, or the key's selectors change (discovery heals them). A count is therefore of
//   the turns seen: a page that unmounts old turns (a virtual list) does not lower it.
// - Anything else (`inPage`) is searched in the whole page once, and searched again only once
//   the page changed outside what changes all the time: a MutationObserver counts those
//   changes, and what changes all the time (`setHot`: the newest turns while a reply streams,
//   the composer while a message goes in) is searched each time, alone.
//
// The page is more than its document: open shadow roots (at any depth) and the documents of
// same-origin frames are part of it. This file is the one place that walks them:
// - `roots` lists every tree of the page (the document, each open shadow root, each
//   same-origin frame's document), found by one walk and walked again only after the page
//   changed outside what is hot (the same condition as `inPage`'s whole search), or a frame
//   loaded. Every tree found is watched by the same observer, so its changes count like the
//   document's. A frame's document still loading is not entered yet (its scripts have not
//   made its parts work); its load counts as a change. Frames from another origin cannot be
//   looked into: `farFrames` names them.
// - A selector may cross into such a tree with `>>>` (`chat-app >>> textarea`, and
//   `iframe#chat >>> textarea` into a frame's document): each part is searched in what the
//   elements the part before found hold (an open shadow root, or a same-origin frame's
//   document). Without `>>>` a selector finds only what is in the page's own document.
// - Discovery asks for everything of a kind in every tree (`everywhere`), everything beneath
//   an element across the trees inside it (`beneath`), an element's parent across a
//   boundary (`up`), and whether an element holds another across boundaries (`holds`).
//
// It never reads text or layout: only selectors are matched here.
(function (S) {
  const DEEP = ">>>";
  const deep = (css) => css.includes(DEEP);
  const partsOf = (css) => css.split(DEEP).map((p) => p.trim());
  // Trees watched already (the observer is made below; trees found before it are watched
  // once it is).
  const watched = new WeakSet([document]);
  let watch = () => {};
  // Frames whose load is listened for: a frame's new document changes nothing in its parent's
  // tree, so its load counts as a change (`loaded`, set once the observer is made).
  const heard = new WeakSet();
  let loaded = () => {};
  // The document a frame shows, when this page may read it (same origin) and it has been read
  // in (a document still loading has parts its scripts have not made work yet), else null.
  const frameDoc = (el) => {
    if (el.tagName !== "IFRAME" && el.tagName !== "FRAME") return null;
    if (!heard.has(el)) { heard.add(el); el.addEventListener("load", () => loaded()); }
    let doc = null;
    try { doc = el.contentDocument || null; } catch (e) { return null; }
    return doc && doc.readyState !== "loading" ? doc : null;
  };
  // Whether a frame is of another origin (its document withheld from this page).
  const far = (el) => { try { return !el.contentDocument; } catch (e) { return true; } };
  // What `>>>` enters: an element's open shadow root, or the document its frame shows.
  const inside = (el) => el.shadowRoot || frameDoc(el);
  // The element that holds a tree (a shadow root's host, a frame's element); null for the
  // page's own document.
  const holder = (root) => {
    if (root === document) return null;
    if (root.nodeType === 11) return root.host;
    return root.defaultView ? root.defaultView.frameElement : null;
  };
  // The element above `el`: its parent, else the holder of its tree.
  const up = (el) => {
    if (el.parentElement) return el.parentElement;
    const p = el.parentNode;
    return p && (p.nodeType === 11 || p.nodeType === 9) ? holder(p) : null;
  };
  // Whether `a` (an element or a tree) holds `b`, across shadow and frame boundaries.
  const holds = (a, b) => {
    for (let at = b; at; at = holder(at.getRootNode())) if (a === at || a.contains(at)) return true;
    return false;
  };
  // What `css` finds under `root` (null: not a selector this browser takes).
  const plain = (root, css) => { try { return Array.from(root.querySelectorAll(css)); } catch (e) { return null; } };
  const under = (root, css) => {
    if (!deep(css)) return plain(root, css);
    const parts = partsOf(css);
    let scopes = [root];
    for (let i = 0; i < parts.length; i++) {
      const found = [];
      for (const scope of scopes) {
        const here = plain(scope, parts[i]);
        if (here === null) return null;
        found.push(...here);
      }
      if (i === parts.length - 1) return found;
      scopes = found.map(inside).filter(Boolean);
      for (const s of scopes) watch(s);
    }
    return [];
  };
  // Whether `under(document, css)` would find `el`, read from `el` upwards: each part matches
  // the element, then the holder of its tree, and the first part's tree is the document.
  const matches = (el, css) => {
    const parts = deep(css) ? partsOf(css) : [css];
    let at = el;
    for (let i = parts.length - 1; i >= 0; i--) {
      try { if (!at.matches(parts[i])) return false; } catch (e) { return false; }
      const root = at.getRootNode();
      if (i === 0) return root === document;
      at = holder(root);
      if (!at || (at.shadowRoot !== root && frameDoc(at) !== root)) return false;
    }
    return false;
  };

  // Whether `el` is, or holds, an element `css` finds in the page: read from `el` (a crossing
  // selector's last part searched beneath it, each find checked upwards).
  // A selector without a crossing is matched in `el`'s own tree, wherever that is.
  const touches = (el, css) => {
    if (!deep(css)) {
      try { return el.matches(css) || !!el.querySelector(css); } catch (e) { return false; }
    }
    if (matches(el, css)) return true;
    return (plain(el, partsOf(css).pop()) || []).some((x) => matches(x, css));
  };

  // --- What changed, and where. ---
  // Changes anywhere, and changes outside what is hot, since the script came: a search result
  // stays good while `outside` stays the same (and what is hot is the same).
  let changes = 0;
  let outside = 0;
  let hot = [];
  let hotVersion = 0;
  let notify = null;
  const inHot = (node) => hot.some((h) => holds(h, node));
  const note = (records) => {
    if (!records.length) return;
    changes++;
    for (const r of records) {
      if (!inHot(r.target)) { outside++; break; }
    }
    if (notify) notify();
  };
  const observer = new MutationObserver(note);
  const OBSERVED = { childList: true, subtree: true, characterData: true, attributes: true };
  observer.observe(document, OBSERVED);
  watch = (root) => {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, OBSERVED);
  };
  // --- The page's trees. ---
  loaded = () => { changes++; outside++; if (notify) notify(); };
  let rootsAt = -1;
  let rootList = [document];
  let farList = [];
  // Every tree of the page, the document first, each tree after the one that holds it: walked
  // again only after the page changed outside what is hot (or a frame loaded).
  const roots = () => {
    sync();
    if (rootsAt === outside) return rootList;
    const list = [];
    const others = [];
    const visit = (root) => {
      list.push(root);
      if (root !== document) watch(root);
      for (const el of root.querySelectorAll("*")) {
        if (el.shadowRoot) { visit(el.shadowRoot); continue; }
        if (el.tagName !== "IFRAME" && el.tagName !== "FRAME") continue;
        const doc = frameDoc(el);
        if (doc) visit(doc);
        else if (far(el)) others.push(el.src || el.getAttribute("src") || "");
      }
    };
    visit(document);
    rootsAt = outside;
    rootList = list;
    farList = others;
    return list;
  };
  // What `css` finds in every tree of the page, tree by tree.
  const everywhere = (css) => roots().flatMap((r) => plain(r, css) || []);
  // What `css` finds beneath `el`, in its own tree and in every tree inside it.
  const beneath = (el, css) => {
    const out = plain(el, css) || [];
    for (const r of roots()) {
      const h = holder(r);
      if (h && holds(el, h)) out.push(...(plain(r, css) || []));
    }
    return out;
  };
  // The frames this page may not look into (another origin), by their addresses.
  const farFrames = () => { roots(); return farList.slice(); };

  // The changes made since the observer last ran (this same task's, say), counted before any
  // look: a search must never answer from before them.
  const sync = () => note(observer.takeRecords());
  // What changes all the time: the outermost of those given (a discovered user element may sit
  // inside the selectors' turn).
  const setHot = (list) => {
    const given = list.filter((el) => el && el.isConnected);
    const outer = given.filter((el, i) => !given.some((o, j) => j !== i && o !== el && o.contains(el)))
      .filter((el, i, a) => a.indexOf(el) === i);
    if (outer.length === hot.length && outer.every((el, i) => el === hot[i])) return;
    hot = outer;
    hotVersion++;
  };

  // --- Anything but turns. ---
  const found = new Map();
  // What `css` finds outside the newest turns, from the last search while nothing changed
  // there since.
  const outsideHot = (css) => {
    sync();
    const known = found.get(css);
    if (known && known.outside === outside && known.hot === hotVersion) return known.list.filter((el) => el.isConnected);
    const all = under(document, css);
    if (all === null) return null;
    const list = all.filter((el) => !inHot(el));
    found.set(css, { outside, hot: hotVersion, list });
    return list;
  };
  // What `css` finds in the whole page, in the page's order: outside the newest turns as
  // remembered, inside them searched now.
  const inPage = (css) => {
    const out = outsideHot(css);
    if (out === null) return null;
    // A crossing selector is matched from each element upwards: one whose crossings start in
    // the page cannot be searched from inside a hot element.
    const here = (h) => (deep(css)
      ? [h].concat(beneath(h, partsOf(css).pop())).filter((el) => matches(el, css))
      : (matches(h, css) ? [h] : []).concat(under(h, css) || []));
    const inside = hot.flatMap(here);
    if (!inside.length) return out;
    return out.concat(inside).sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  };

  // --- Turns. ---
  const tracked = {};
  // The elements after `el` and all it holds, in the page's order.
  const after = function* (el) {
    const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
    walker.currentNode = el;
    for (;;) {
      if (walker.nextSibling()) break;
      if (!walker.parentNode()) return;
    }
    do yield walker.currentNode; while (walker.nextNode());
  };
  // The same across the page's trees: an element, then the tree it holds (its shadow root, a
  // frame's document), then its own children.
  const kids = (el) => {
    const s = inside(el);
    const own = Array.from(el.children);
    return s ? Array.from(s.children).concat(own) : own;
  };
  const tree = function* (el) {
    yield el;
    for (const k of kids(el)) yield* tree(k);
  };
  const afterDeep = function* (el) {
    for (let at = el; at;) {
      const parent = up(at);
      if (!parent) return;
      const list = kids(parent);
      for (let i = list.indexOf(at) + 1; i < list.length; i++) yield* tree(list[i]);
      at = parent;
    }
  };
  // The turns `key`'s selectors find: how many, the last one, and the selector that found them.
  // Looked for again only after the page changed.
  const turns = (key) => {
    sync();
    const alternatives = S[key] || [];
    const t = tracked[key];
    if (t && t.alternatives === alternatives && t.changes === changes) return t;
    // Turns behind a boundary are counted on from the last one too, the walk crossing into
    // the trees it passes.
    if (t && t.alternatives === alternatives && t.last && t.last.isConnected && matches(t.last, t.css)) {
      for (const el of (deep(t.css) ? afterDeep(t.last) : after(t.last))) {
        if (matches(el, t.css)) { t.count++; t.last = el; }
      }
      t.changes = changes;
      return t;
    }
    for (const css of alternatives) {
      const all = under(document, css);
      if (all && all.length) return (tracked[key] = { alternatives, css, count: all.length, last: all[all.length - 1], changes });
    }
    return (tracked[key] = { alternatives, css: null, count: 0, last: null, changes });
  };

  return {
    matches,
    touches,
    under,
    roots,
    everywhere,
    beneath,
    farFrames,
    up,
    holds,
    holder,
    inside,
    far,
    inPage,
    turns,
    setHot,
    sync,
    // Calls `f` after every change to the page (the driver's wake-up).
    onChange: (f) => { notify = f; },
  };
})
