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
// - A selector may cross open shadow roots (`chat-app >>> textarea`): each part is searched in
//   the shadow roots of what the part before found. Every shadow root such a search passes is
//   watched by the same observer, so changes inside it count like any other.
//
// It never reads text or layout: only selectors are matched here.
(function (S) {
  const DEEP = ">>>";
  const deep = (css) => css.includes(DEEP);
  // Shadow roots watched already (the observer is made below; roots found before it are
  // watched once it is).
  const watched = new WeakSet();
  let watch = () => {};
  // What `css` finds under `root` (null: not a selector this browser takes).
  const plain = (root, css) => { try { return Array.from(root.querySelectorAll(css)); } catch (e) { return null; } };
  const under = (root, css) => {
    if (!deep(css)) return plain(root, css);
    const parts = css.split(DEEP).map((p) => p.trim());
    let scopes = [root];
    for (let i = 0; i < parts.length; i++) {
      const found = [];
      for (const scope of scopes) {
        const here = plain(scope, parts[i]);
        if (here === null) return null;
        found.push(...here);
      }
      if (i === parts.length - 1) return found;
      scopes = found.map((el) => el.shadowRoot).filter(Boolean);
      for (const s of scopes) watch(s);
    }
    return [];
  };
  const matches = (el, css) => {
    if (deep(css)) return (under(document, css) || []).includes(el);
    try { return el.matches(css); } catch (e) { return false; }
  };

  // --- What changed, and where. ---
  // Changes anywhere, and changes outside what is hot, since the script came: a search result
  // stays good while `outside` stays the same (and what is hot is the same).
  let changes = 0;
  let outside = 0;
  let hot = [];
  let hotVersion = 0;
  let notify = null;
  const inHot = (node) => hot.some((h) => h.contains(node));
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
    const inside = hot.flatMap((h) => (matches(h, css) ? [h] : []).concat(under(h, css) || []));
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
  // The turns `key`'s selectors find: how many, the last one, and the selector that found them.
  // Looked for again only after the page changed.
  const turns = (key) => {
    sync();
    const alternatives = S[key] || [];
    const t = tracked[key];
    if (t && t.alternatives === alternatives && t.changes === changes) return t;
    // Turns behind a shadow boundary are counted whole again: the walk below stays in the
    // document's own tree.
    if (t && t.alternatives === alternatives && t.last && t.last.isConnected && !deep(t.css) && matches(t.last, t.css)) {
      for (const el of after(t.last)) {
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
    under,
    inPage,
    turns,
    setHot,
    sync,
    // Calls `f` after every change to the page (the driver's wake-up).
    onChange: (f) => { notify = f; },
  };
})
