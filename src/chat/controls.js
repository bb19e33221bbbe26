// The chat's own controls, as keyless reaches them in the page: the model picker (what it
// offers, which option is checked, choosing one), the model a reply says it came from, the
// plain-chat surface where a site has a metered one beside it, and the temporary-chat toggle.
//
// Each is found by the site's selectors first, else by role and state, never by the words on
// it (a label may be in any language): a picker is a control that opens a menu, listbox or
// radio list (menuitemradio, option, radio) one of whose rows is checked (aria-checked or
// aria-selected) and named on the control itself, or a native `<select>` (its options, in
// optgroups or not, one choice), or a group of native radio buttons (`input[type=radio]` of one
// name, labelled, one checked, in a fieldset or a details disclosure: opened by opening the
// disclosure, read back by which is :checked). A row in the picker that opens a submenu (aria-haspopup) is
// opened too, by a hover, a click or ArrowRight, whichever shows rows: a submenu with a row
// checked that the picker's words do not name is a choice of its own (an effort), any other is
// more of the rows above (older models, or the one chosen among them). A row's name is what a person reads as its title:
// its aria-label or aria-labelledby, else its first line at its largest letters, without what
// aria-describedby names, a smaller badge beside it, a boxed badge or a control in it. A row
// holding a control of its own (an "Upgrade" button), marked aria-disabled, or a disabled
// option is locked. Choosing clicks a row (or sets the select); whether it took is read back
// by keyless, never assumed here. Nothing here decides which row a name means: keyless
// matches names (`models.rs`).
(function (k) {
  const { visible, all } = k;
  const ROWS = '[role="menuitemradio"], [role="option"], [role="radio"]';
  const OPENERS = 'button[aria-haspopup], [role="combobox"], button[aria-expanded]';
  // A row of the picker that opens a submenu of its own.
  const TRIGGERS = '[aria-haspopup]:not([aria-haspopup="false"]), [role="menuitem"][aria-expanded]';
  const POPUPS = '[role="menu"], [role="listbox"], [role="dialog"]';
  const CONTROLS = 'button, a[href], [role="button"]';
  // How long a picker's rows have to show once its opener was clicked (a site draws its menu
  // in a frame or two; one that takes longer is not a picker that opened).
  const OPEN_WAIT_MS = 600;
  // How long each way of opening a submenu (a click, a hover, ArrowRight) is given to show
  // rows: a hover-opened submenu waits a moment on purpose (about 100 ms on Radix's menus), so
  // a way that shows nothing by then is taken not to open it.
  const SUB_WAIT_MS = 250;
  // Submenus opened in one look at the picker, at most: a picker holds one or two (effort,
  // older models); a menu with many is no picker's, and each costs up to three waits.
  const MAX_SUBMENUS = 4;
  const squeeze = (s) => (s || "").replace(/\s+/g, " ").trim();
  const flat = (s) => squeeze(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  const isSelect = (el) => !!el && el.tagName === "SELECT";
  // The containers (a details or a fieldset) of native radio groups taken for a picker.
  const radioPickers = new WeakSet();
  const isRadios = (el) => !!el && radioPickers.has(el);
  const radiosOf = (box) => {
    const rows = Array.from(box.querySelectorAll('input[type="radio"]'));
    const name = rows.length && rows[0].name;
    return rows.filter((r) => r.name === name);
  };
  // Details disclosures keyless opened to read or choose, closed again after.
  const disclosed = new WeakSet();
  const optionLabel = (o) => squeeze(o.label || o.textContent);
  // The elements an aria-labelledby or aria-describedby names.
  const byIds = (ids) =>
    (ids || "")
      .split(/\s+/)
      .map((id) => id && document.getElementById(id))
      .filter(Boolean);
  // Whether `el` (inside a row, the row itself excluded) draws a box of its own: a border or a
  // background, as a badge ("Max", "New") does.
  const boxed = (el) => {
    const st = getComputedStyle(el);
    const border = ["Top", "Right", "Bottom", "Left"].some(
      (side) => parseFloat(st["border" + side + "Width"]) > 0 && st["border" + side + "Style"] !== "none",
    );
    const fill = st.backgroundImage !== "none" || !/^(transparent|rgba\(.*,\s*0\))$/.test(st.backgroundColor);
    return border || fill;
  };
  // The row's text as a person reads it: each text node outside its controls, what
  // aria-describedby names and what is not shown, with where it is drawn and how large.
  const pieces = (row) => {
    const descriptions = byIds(row.getAttribute("aria-describedby"));
    const out = [];
    const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!squeeze(n.nodeValue)) continue;
      const el = n.parentElement;
      if (!el) continue;
      const control = el.closest(CONTROLS);
      if (control && control !== row && row.contains(control)) continue;
      if (descriptions.some((d) => d.contains(el))) continue;
      const st = getComputedStyle(el);
      if (st.visibility === "hidden" || st.display === "none") continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const rect = range.getBoundingClientRect();
      if (!rect.width && !rect.height) continue;
      const boxes = [];
      for (let e = el; e && e !== row; e = e.parentElement) if (boxed(e)) boxes.push(e);
      out.push({ node: n, text: n.nodeValue, rect, size: parseFloat(st.fontSize) || 0, boxes });
    }
    return out;
  };
  // A row's name: its aria-label, or what aria-labelledby names, or its title: of its lines
  // (pieces drawn side by side), the first at the row's largest letters, of which the pieces
  // at that size and not in a box of their own; pieces with a gap between them are words
  // apart, touching ones one word (the page's own spaces kept). A row not laid out reads as its
  // text without its controls.
  const rowLabel = (row) => {
    if (row.tagName === "OPTION") return optionLabel(row);
    if (row.tagName === "INPUT") {
      const own = squeeze(row.getAttribute("aria-label"));
      const label = row.labels && row.labels[0];
      if (own || !label) return own || squeeze(row.value);
      // A label not laid out (a closed disclosure) reads as its own words, without the
      // smaller line a child element adds.
      const words = squeeze(Array.from(label.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join(" "));
      return !label.getClientRects().length && words ? words : rowLabel(label);
    }
    const named = row.getAttribute("aria-label");
    if (named && squeeze(named)) return squeeze(named);
    const labelled = squeeze(byIds(row.getAttribute("aria-labelledby")).map((el) => el.textContent).join(" "));
    if (labelled) return labelled;
    const all = pieces(row);
    if (!all.length) {
      const copy = row.cloneNode(true);
      for (const inner of Array.from(copy.querySelectorAll(CONTROLS))) inner.remove();
      return squeeze(copy.textContent);
    }
    const lines = [];
    for (const p of all) {
      const mid = (p.rect.top + p.rect.bottom) / 2;
      const line = lines.find((l) => mid >= l.top && mid <= l.bottom);
      if (line) line.pieces.push(p);
      else lines.push({ top: p.rect.top, bottom: p.rect.bottom, pieces: [p] });
    }
    const largest = Math.max(...all.map((p) => p.size));
    const title = lines.find((l) => l.pieces.some((p) => p.size === largest));
    // A box around only part of the line is a badge's; one around all of it (a row's inner
    // highlight) is not.
    const large = title.pieces.filter((p) => p.size === largest);
    const plain = large.filter((p) => p.boxes.every((box) => title.pieces.every((q) => box.contains(q.node))));
    const words = plain.length ? plain : large;
    let text = "";
    let last = null;
    for (const p of words) {
      const gap = last ? p.rect.left - last.rect.right : 0;
      text += (last && gap > p.size * 0.15 ? " " : "") + p.text;
      last = p;
    }
    return squeeze(text);
  };
  const checked = (row) =>
    row.tagName === "OPTION" ? row.selected : row.tagName === "INPUT" ? row.checked : row.getAttribute("aria-checked") === "true" || row.getAttribute("aria-selected") === "true";
  const locked = (row) => {
    if (row.tagName === "INPUT") return row.disabled || !!row.closest("fieldset:disabled");
    if (row.tagName === "OPTION") return row.disabled || !!(row.parentElement && row.parentElement.tagName === "OPTGROUP" && row.parentElement.disabled);
    return row.getAttribute("aria-disabled") === "true" || !!row.querySelector(CONTROLS);
  };
  const groupOf = (row) => {
    if (row.tagName === "OPTION" || row.tagName === "INPUT") return "";
    const g = row.parentElement && row.parentElement.closest('[role="group"], [role="radiogroup"]');
    const popup = row.closest(POPUPS);
    return g && (!popup || popup.contains(g)) ? squeeze(g.getAttribute("aria-label") || g.getAttribute("aria-labelledby") || "group") : "";
  };
  const openerLabel = (el) => {
    if (isRadios(el)) {
      const on = radiosOf(el).find((r) => r.checked);
      return on ? rowLabel(on) : "";
    }
    if (isSelect(el)) {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? optionLabel(o) : "";
    }
    return squeeze(el.getAttribute("aria-label") && !squeeze(el.textContent) ? el.getAttribute("aria-label") : el.textContent);
  };
  const inTurns = (el) => !!el.closest('[data-message-author-role], article, user-query, model-response');
  const rowsShowing = () => Array.from(document.querySelectorAll(ROWS)).filter(visible);
  const frame = () => new Promise((r) => setTimeout(r, 16));
  const rowsOf = (opener, before) => {
    if (isSelect(opener)) return Array.from(opener.options);
    const id = opener.getAttribute("aria-controls");
    const owned = id && document.getElementById(id);
    const selected = all("ModelOption").filter(visible);
    const rows = selected.length ? selected : owned ? Array.from(owned.querySelectorAll(ROWS)).filter(visible) : rowsShowing().filter((r) => !before.has(r));
    return rows;
  };
  const described = (rows, groups) =>
    rows.map((r) => ({ label: rowLabel(r), checked: checked(r), locked: locked(r), group: groupOf(r) || (groups && groups.get(r)) || "" }));
  const close = async (opener) => {
    if (isSelect(opener)) return;
    if (isRadios(opener)) {
      if (disclosed.has(opener)) {
        opener.open = false;
        disclosed.delete(opener);
      }
      return;
    }
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await frame();
    if (opener.getAttribute("aria-expanded") === "true") opener.click();
  };
  // Opens `opener` and waits for its rows; the rows, or null when none showed.
  const open = async (opener) => {
    if (isSelect(opener)) return opener.options.length ? Array.from(opener.options) : null;
    if (isRadios(opener)) {
      // A closed disclosure is opened as a person opens it, so its rows are laid out.
      if (opener.tagName === "DETAILS" && !opener.open) {
        opener.open = true;
        disclosed.add(opener);
        await frame();
      }
      const rows = radiosOf(opener);
      return rows.length ? rows : null;
    }
    const before = new Set(rowsShowing());
    if (opener.getAttribute("aria-expanded") !== "true") opener.click();
    const until = performance.now() + OPEN_WAIT_MS;
    for (;;) {
      const rows = rowsOf(opener, before);
      if (rows.length) return rows;
      if (performance.now() > until) return null;
      await frame();
    }
  };
  // The ways a submenu opens, tried in turn until one shows rows: a hover first (it chooses
  // nothing, where a click on a row that only opens on the pointer may close the menu), then a
  // click, then the arrow key into it (keyboard menus; the other arrow where the page reads
  // right to left).
  const SUB_WAYS = [
    (t) => {
      const at = t.getBoundingClientRect();
      const where = { bubbles: true, clientX: at.left + at.width / 2, clientY: at.top + at.height / 2 };
      for (const type of ["pointerover", "pointerenter", "pointermove"]) t.dispatchEvent(new PointerEvent(type, { ...where, pointerType: "mouse" }));
      for (const type of ["mouseover", "mouseenter", "mousemove"]) t.dispatchEvent(new MouseEvent(type, where));
    },
    (t) => t.click(),
    (t) => {
      if (typeof t.focus === "function") t.focus();
      const key = getComputedStyle(t).direction === "rtl" ? "ArrowLeft" : "ArrowRight";
      t.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    },
  ];
  // Opens the submenu `trigger` leads to; its rows (those that showed with it), or null.
  const openSub = async (trigger) => {
    const before = new Set(rowsShowing());
    for (const way of SUB_WAYS) {
      if (!trigger.isConnected || !visible(trigger)) return null;
      way(trigger);
      const until = performance.now() + SUB_WAIT_MS;
      for (;;) {
        await frame();
        const fresh = rowsShowing().filter((r) => !before.has(r));
        if (fresh.length) return fresh;
        if (performance.now() > until) break;
      }
    }
    return null;
  };
  // Whether `rows` are a model picker's for `opener`: one is checked and the opener names it.
  const names = (opener, rows) => {
    const shown = flat(openerLabel(opener));
    return !!shown && rows.some((r) => checked(r) && flat(rowLabel(r)) && shown.includes(flat(rowLabel(r))));
  };
  // Walks the picker's rows: `rows` (the top level), then each submenu a row of the picker
  // leads to, opened in turn (one level deep). `take(rows, groups)` sees each level while it
  // shows (`groups`: the group a row without one of its own is in) and ends the walk by
  // returning true.
  const walk = async (opener, rows, take) => {
    if (take(rows, null) || isSelect(opener) || isRadios(opener)) return;
    const roots = new Set(rows.map((r) => r.closest(POPUPS)).filter(Boolean));
    const triggers = [];
    for (const root of roots) {
      for (const t of Array.from(root.querySelectorAll(TRIGGERS))) {
        if (!t.matches(ROWS) && t !== opener && !t.contains(opener) && visible(t) && !triggers.includes(t)) triggers.push(t);
      }
    }
    for (const t of triggers.slice(0, MAX_SUBMENUS)) {
      const sub = await openSub(t);
      if (!sub) continue;
      // A choice of its own (a row of it checked that the picker's words do not name: an
      // effort), in a group named by the row that led to it; else more of the level above
      // (older models, or the model chosen among them), in that row's group.
      const own = sub.some(checked) && !names(opener, sub);
      const group = own ? rowLabel(t) || "submenu" : groupOf(t);
      const groups = new Map(sub.map((r) => [r, group]));
      if (take(sub, groups)) return;
    }
  };
  // A native select found by its shape: shown, outside the conversation, with a choice in it.
  const aSelect = (el) => visible(el) && !inTurns(el) && !el.multiple && el.options.length > 1 && el.selectedIndex >= 0;
  // Sets a native select to `row` as a person's choice does: through the element's own value
  // setter (a framework's wrapper sees the change) and the events a choice fires.
  const pickOption = (select, row) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value");
    if (setter && setter.set) setter.set.call(select, row.value);
    else select.value = row.value;
    select.dispatchEvent(new Event("input", { bubbles: true }));
    select.dispatchEvent(new Event("change", { bubbles: true }));
  };
  let found = null;
  // The picker's opener: the selectors' one, else each control that opens a popup (outside the
  // conversation) tried until one opens rows one of which it names, else a native select.
  const picker = async () => {
    const chosen = all("ModelPicker").filter(visible);
    if (chosen.length) return { opener: chosen[0], how: "selectors" };
    if (found && found.isConnected && visible(found)) return { opener: found, how: "shape" };
    for (const opener of Array.from(document.querySelectorAll(OPENERS))) {
      if (!visible(opener) || inTurns(opener) || !squeeze(openerLabel(opener))) continue;
      const rows = await open(opener);
      if (!rows) continue;
      // The picker is left open with its rows: the caller opens it next anyway.
      if (names(opener, rows)) {
        found = opener;
        return { opener, how: "shape", rows };
      }
      await close(opener);
    }
    const select = Array.from(document.querySelectorAll("select")).find(aSelect);
    if (select) {
      found = select;
      return { opener: select, how: "shape" };
    }
    const radios = radioGroup();
    if (radios) {
      found = radios;
      return { opener: radios, how: "shape" };
    }
    return null;
  };
  // A group of native radio buttons found by its shape: two or more of one name, each
  // labelled, one checked, in a fieldset or a details disclosure that shows (a closed one
  // shows its summary), outside the conversation. Its container stands for the opener.
  const radioGroup = () => {
    const seen = new Set();
    for (const r of Array.from(document.querySelectorAll('input[type="radio"]'))) {
      const box = r.closest("details") || r.closest("fieldset");
      if (!box || seen.has(box) || inTurns(box) || !visible(box)) continue;
      seen.add(box);
      const rows = radiosOf(box);
      if (rows.length < 2 || !rows.some((x) => x.checked)) continue;
      if (!rows.every((x) => squeeze(x.getAttribute("aria-label")) || (x.labels && x.labels.length))) continue;
      radioPickers.add(box);
      return box;
    }
    return null;
  };
  const api = {
    // What the picker offers: the opener's words, each row (label, checked, locked, group),
    // its submenus' rows too, and how the picker was found; the menu is closed again. Null: no
    // picker on the page.
    offered: async () => {
      const p = await picker();
      if (!p) return null;
      const rows = p.rows || (await open(p.opener));
      const options = [];
      if (rows) {
        // Each level is read while it shows (a submenu may close when the next one opens).
        await walk(p.opener, rows, (level, groups) => {
          options.push(...described(level, groups));
          return false;
        });
      }
      const out = { shown: openerLabel(p.opener), how: p.how, options };
      if (rows) await close(p.opener);
      return out;
    },
    // Clicks the row labelled `label` in `group` (in a submenu, opened first), or sets the
    // select to it; whether a row was chosen. The choice is read back by `offered` afterwards.
    choose: async (label, group) => {
      const p = await picker();
      if (!p) return false;
      const rows = p.rows || (await open(p.opener));
      let row = null;
      if (rows) {
        await walk(p.opener, rows, (level, groups) => {
          row = level.find((r) => rowLabel(r) === label && (groupOf(r) || (groups && groups.get(r)) || "") === group) || null;
          return !!row;
        });
      }
      if (!row) {
        if (rows) await close(p.opener);
        return false;
      }
      if (isSelect(p.opener)) {
        pickOption(p.opener, row);
        return true;
      }
      if (isRadios(p.opener)) {
        // A click on the radio checks it and fires the events a person's choice does.
        row.click();
        await frame();
        await close(p.opener);
        return true;
      }
      row.click();
      await frame();
      if (p.opener.getAttribute("aria-expanded") === "true") await close(p.opener);
      return true;
    },
    // The model the page shows chosen now, by the opener's words, without opening it.
    shown: () => {
      const chosen = all("ModelPicker").filter(visible);
      const opener = chosen[0] || (found && found.isConnected ? found : null);
      return opener ? openerLabel(opener) : null;
    },
    // The model a reply says it came from: the selectors' label in it, else an attribute
    // naming a model on the reply or just inside it (`data-message-model-slug`).
    answeredBy: (reply) => {
      if (!reply) return null;
      const label = all("ReplyModel", reply)[0];
      if (label) return squeeze(label.getAttribute("data-message-model-slug") || label.textContent) || null;
      for (const el of [reply].concat(Array.from(reply.querySelectorAll("*")).slice(0, 50))) {
        for (const a of Array.from(el.attributes)) {
          if (/model/i.test(a.name) && squeeze(a.value)) return squeeze(a.value);
        }
      }
      return null;
    },
    // Makes sure the page is in plain chat, where a site has a metered surface beside it
    // ("Work", "Agent"): the selectors' plain-chat radio only (a radio group found by its shape
    // may be a choice of models, which is not keyless's to change). What was found and whether
    // it is checked now.
    plainChat: async () => {
      const radio = all("PlainChat").filter(visible)[0];
      if (!radio) return { found: false, was: false, now: false };
      const was = checked(radio);
      if (!was) {
        radio.click();
        await frame();
      }
      return { found: true, was, now: checked(radio), label: rowLabel(radio) };
    },
    // Turns the temporary chat on: the selectors' toggle (a switch or a pressed button).
    temporary: async () => {
      const toggle = all("TemporaryChat").filter(visible)[0];
      if (!toggle) return { found: false, on: false };
      const on = (el) => el.getAttribute("aria-pressed") === "true" || el.getAttribute("aria-checked") === "true" || el.checked === true;
      if (!on(toggle)) {
        toggle.click();
        await frame();
      }
      return { found: true, on: on(toggle) };
    },
  };
  return api;
})
