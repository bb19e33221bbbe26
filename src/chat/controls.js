// The chat's own controls, as keyless reaches them in the page: the model picker (what it
// offers, which option is checked, choosing one), the model a reply says it came from, the
// plain-chat surface where a site has a metered one beside it, and the temporary-chat toggle.
//
// Each is found by the site's selectors first, else by role and state, never by the words on
// it (a label may be in any language): a picker is a control that opens a menu, listbox or
// radio list (menuitemradio, option, radio) one of whose rows is checked (aria-checked or
// aria-selected) and named on the control itself. A row holding a control of its own (an
// "Upgrade" button) or marked aria-disabled is locked. Choosing clicks a row; whether it took
// is read back by keyless, never assumed here. Nothing here decides which row a name means:
// keyless matches names (`models.rs`).
(function (k) {
  const { visible, all } = k;
  const ROWS = '[role="menuitemradio"], [role="option"], [role="radio"]';
  const OPENERS = 'button[aria-haspopup], [role="combobox"], button[aria-expanded]';
  // How long a picker's rows have to show once its opener was clicked (a site draws its menu
  // in a frame or two; one that takes longer is not a picker that opened).
  const OPEN_WAIT_MS = 600;
  const squeeze = (s) => (s || "").replace(/\s+/g, " ").trim();
  const flat = (s) => squeeze(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  // A row's own words: its label, or its text without the controls inside it.
  const rowLabel = (row) => {
    const named = row.getAttribute("aria-label");
    if (named) return squeeze(named);
    const copy = row.cloneNode(true);
    for (const inner of Array.from(copy.querySelectorAll('button, a[href], [role="button"]'))) inner.remove();
    return squeeze(copy.textContent);
  };
  const checked = (row) => row.getAttribute("aria-checked") === "true" || row.getAttribute("aria-selected") === "true";
  const locked = (row) => row.getAttribute("aria-disabled") === "true" || !!row.querySelector('button, a[href], [role="button"]');
  const groupOf = (row) => {
    const g = row.parentElement && row.parentElement.closest('[role="group"], [role="radiogroup"]');
    const popup = row.closest('[role="menu"], [role="listbox"], [role="dialog"]');
    return g && (!popup || popup.contains(g)) ? squeeze(g.getAttribute("aria-label") || g.getAttribute("aria-labelledby") || "group") : "";
  };
  const openerLabel = (el) => squeeze(el.getAttribute("aria-label") && !squeeze(el.textContent) ? el.getAttribute("aria-label") : el.textContent);
  const inTurns = (el) => !!el.closest('[data-message-author-role], article, user-query, model-response');
  const rowsShowing = () => Array.from(document.querySelectorAll(ROWS)).filter(visible);
  const frame = () => new Promise((r) => setTimeout(r, 16));
  const rowsOf = (opener, before) => {
    const id = opener.getAttribute("aria-controls");
    const owned = id && document.getElementById(id);
    const selected = all("ModelOption").filter(visible);
    const rows = selected.length ? selected : owned ? Array.from(owned.querySelectorAll(ROWS)).filter(visible) : rowsShowing().filter((r) => !before.has(r));
    return rows;
  };
  const described = (rows) => rows.map((r) => ({ label: rowLabel(r), checked: checked(r), locked: locked(r), group: groupOf(r) }));
  const close = async (opener) => {
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await frame();
    if (opener.getAttribute("aria-expanded") === "true") opener.click();
  };
  // Opens `opener` and waits for its rows; the rows, or null when none showed.
  const open = async (opener) => {
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
  // Whether `rows` are a model picker's for `opener`: one is checked and the opener names it.
  const names = (opener, rows) => {
    const shown = flat(openerLabel(opener));
    return !!shown && rows.some((r) => checked(r) && flat(rowLabel(r)) && shown.includes(flat(rowLabel(r))));
  };
  let found = null;
  // The picker's opener: the selectors' one, else each control that opens a popup (outside the
  // conversation) tried until one opens rows one of which it names.
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
    return null;
  };
  const api = {
    // What the picker offers: the opener's words, each row (label, checked, locked, group) and
    // how the picker was found; the menu is closed again. Null: no picker on the page.
    offered: async () => {
      const p = await picker();
      if (!p) return null;
      const rows = p.rows || (await open(p.opener));
      const out = { shown: openerLabel(p.opener), how: p.how, options: rows ? described(rows) : [] };
      if (rows) await close(p.opener);
      return out;
    },
    // Clicks the row labelled `label` in `group`; whether a row was clicked. The choice is read
    // back by `offered` afterwards.
    choose: async (label, group) => {
      const p = await picker();
      if (!p) return false;
      const rows = p.rows || (await open(p.opener));
      const row = (rows || []).find((r) => rowLabel(r) === label && groupOf(r) === group);
      if (!row) {
        if (rows) await close(p.opener);
        return false;
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
