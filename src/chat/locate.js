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
// - What an element shows is read across the shadow roots it holds (`texts`, `text`): a
//   component draws its words in its shadow root, not among its children, and a turn may be
//   made of components inside components (Panel's: the text five shadow roots below the turn).
//
// It reads no layout, and text only where asked to (`texts`).
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
  // Whether `b` is held by `a` or comes after it in the page's order, across shadow and frame
  // boundaries (`compareDocumentPosition` says nothing between two trees): each is lifted to
  // the holders of its trees until both are in one tree.
  const atOrAfter = (a, b) => {
    if (holds(a, b)) return true;
    const lifts = (el) => { const out = []; for (let at = el; at; at = holder(at.getRootNode())) out.push(at); return out; };
    const bs = lifts(b);
    for (const x of lifts(a)) {
      const y = bs.find((n) => n.getRootNode() === x.getRootNode());
      if (!y) continue;
      // One holds the other's tree: their order is the slots', not the page's: not known.
      if (x === y || x.contains(y)) return false;
      return !!(x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING);
    }
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
    // The trees the page's list knows: asked on every look of whatever is beside the composer
    // (the thread among them), this never walks the conversation's elements in script.
    return listedBeneath(el, partsOf(css).pop()).some((x) => matches(x, css));
  };
  // What `css` finds in the page that `el` is or holds, across the boundaries inside `el`: a
  // crossing selector names its parts from the page's document down, so it is matched from
  // what lies beneath `el` upwards; one without a crossing is searched in `el`'s own tree.
  const within = (el, css) => {
    if (!deep(css)) return plain(el, css);
    const found = [el].concat(beneath(el, partsOf(css).pop())).filter((x) => matches(x, css));
    return found;
  };

  // The nearest element from `el` upwards (itself included) that `css` finds in the page,
  // across the boundaries a crossing selector names; without a crossing, in `el`'s own tree.
  const closest = (el, css) => {
    if (!deep(css)) { try { return el.closest(css); } catch (e) { return null; } }
    for (let at = el; at; at = up(at)) if (matches(at, css)) return at;
    return null;
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
  // What an added node brings: a shadow root or a frame (a component added whole, its own
  // root attached before it was put in the page) makes the list of trees out of date,
  // wherever the node went (a turn's components go into the newest turn, which is hot); a
  // custom element without its root yet (not defined yet) may get one when it is upgraded,
  // with no change the observer hears: it is kept to be looked at again.
  const FRAME = /^I?FRAME$/;
  let treesAdded = false;
  // Custom elements added without a root yet, with when they came.
  let hosts = new Map();
  const added = (n) => {
    if (n.nodeType !== 1) return;
    const look = (e) => {
      if (e.shadowRoot || FRAME.test(e.tagName)) treesAdded = true;
      else if (e.tagName.includes("-") && !hosts.has(e)) hosts.set(e, performance.now());
    };
    look(n);
    if (n.firstElementChild) for (const e of n.querySelectorAll("*")) look(e);
  };
  const note = (records) => {
    if (!records.length) return;
    changes++;
    let counted = false;
    for (const r of records) {
      if (!counted && !inHot(r.target)) { outside++; counted = true; }
      if (!treesAdded) for (const n of r.addedNodes) added(n);
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
  loaded = () => { changes++; outside++; treesAdded = true; if (notify) notify(); };
  let walked = false;
  let walkedAt = 0;
  let rootsAt = -1;
  let rootList = [document];
  let farList = [];
  // A shadow root attached to an element already in the page, not a custom element's, leaves
  // no trace the observer hears: after changes outside what is hot the page is walked again,
  // but at most this often (a walk reads every element of the page).
  const REWALK_MS = 1000;
  // Every tree of the page, the document first, each tree after the one that holds it: walked
  // again only when something added brings a tree (a shadow root, a frame, a custom element
  // upgraded since), a frame loaded, or, at most once a second, after the page changed outside
  // what is hot. A tree whose holder left the page leaves the list.
  const roots = () => {
    sync();
    if (!treesAdded && hosts.size) {
      const now = performance.now();
      for (const [h, at] of hosts) {
        if (h.shadowRoot && h.isConnected) { treesAdded = true; break; }
        // Gone, or defined a while ago and still without a root: one that draws in the page.
        if (!h.isConnected || (now - at > REWALK_MS && customElements.get(h.localName))) hosts.delete(h);
      }
    }
    const due = rootsAt !== outside && performance.now() - walkedAt >= REWALK_MS;
    if (walked && !treesAdded && !due) {
      if (rootList.some((r) => r !== document && !(holder(r) || {}).isConnected)) {
        rootList = rootList.filter((r) => r === document || (holder(r) || {}).isConnected);
      }
      return rootList;
    }
    walked = true;
    walkedAt = performance.now();
    treesAdded = false;
    hosts = new Map();
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
  // What `css` finds beneath `el`, in its own tree and in the trees of the page's list inside it.
  const listedBeneath = (el, css) => {
    const out = plain(el, css) || [];
    for (const r of roots()) {
      const h = holder(r);
      if (h && holds(el, h)) out.push(...(plain(r, css) || []));
    }
    return out;
  };
  // What `css` finds beneath `el`, in its own tree and in every tree inside it. The trees are
  // looked for beneath `el` itself, not taken from the list of the page's trees: a component
  // may attach its shadow root after it was put in the page, which no observer hears. A page
  // of one tree is searched as one.
  const beneath = (el, css) => {
    const out = plain(el, css) || [];
    if (roots().length === 1) return out;
    const visit = (host) => {
      const tree = inside(host);
      if (!tree) return;
      watch(tree);
      out.push(...(plain(tree, css) || []));
      for (const h of tree.querySelectorAll("*")) visit(h);
    };
    visit(el);
    for (const h of el.querySelectorAll("*")) visit(h);
    return out;
  };
  // The frames this page may not look into (another origin), by their addresses.
  const farFrames = () => { roots(); return farList.slice(); };

  // --- Text across the trees an element holds. ---
  // What the page draws in a node's place: a shadow root's nodes where its host's children
  // would be (they show only through its slots), and the nodes given to a slot where the slot
  // is (its own children are shown only when none are). A frame's document is a page of its
  // own, not its element's text.
  const drawnKids = (node) => {
    if (node.nodeType === 1) {
      if (node.shadowRoot) return node.shadowRoot.childNodes;
      if (node.tagName === "SLOT") {
        const given = node.assignedNodes();
        if (given.length) return given;
      }
    }
    return node.childNodes;
  };
  // Whether a shadow root may lie beneath `el`: a page of one tree reads its text as it always
  // did.
  const shadowBelow = () => roots().length > 1;
  // The text nodes `el` shows, in the order they are drawn, across the shadow roots beneath it.
  const texts = (el) => {
    const out = [];
    if (!shadowBelow(el)) {
      const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) out.push(walker.currentNode);
      return out;
    }
    const walk = (node) => {
      for (const kid of drawnKids(node)) {
        if (kid.nodeType === 3) out.push(kid);
        else if (kid.nodeType === 1 && !/^(STYLE|SCRIPT|TEMPLATE)$/.test(kid.tagName)) walk(kid);
      }
    };
    walk(el);
    return out;
  };
  // `el`'s `textContent`, read across the shadow roots beneath it.
  const text = (el) => (shadowBelow(el) ? texts(el).map((t) => t.textContent).join("") : el.textContent);
  // The nearest element from `el` upwards that `css` matches, in `el`'s tree and then in the
  // trees holding it, up to (and in) the tree of `top`: a text in a button's shadow root is
  // the button's.
  const closestUp = (el, css, top) => {
    const last = top ? top.getRootNode() : document;
    for (let at = el; at;) {
      const found = at.closest(css);
      if (found) return found;
      const root = at.getRootNode();
      if (root === last) return null;
      at = holder(root);
    }
    return null;
  };

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
    within,
    closest,
    closestUp,
    texts,
    text,
    under,
    roots,
    everywhere,
    beneath,
    farFrames,
    up,
    holds,
    atOrAfter,
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
