// The person's attachments, as keyless reaches them in the page: the file input to hand them
// to, and what the composer shows of them afterwards (a chip per file, by its name; the site's
// refusal in its own words).
//
// The file input is the selectors' (AttachmentInput), else the one by its shape: an
// input[type=file] in the composer's area (the nearest ancestor that holds one, across shadow
// roots and same-origin frames), else the page's only one. A hidden input is fine: keyless hands
// it the files through the DevTools Protocol, as the browser's file dialog would. A site that
// makes its input only when its attach button is clicked (AttachButton, else a button in the
// composer's area shaped like one: a menu button, a "+" or a paperclip) gets that button
// clicked first, and where the click opens a menu instead, the menu item whose click makes a
// file input (found by what it does, not by its words).
//
// A chip confirms a file only when it is new since the files began to go (a draft's chip of
// the same name never counts), names the file whole (its text, title or label is the name, or
// the name shortened with an ellipsis whose two ends agree with it: never a longer name that
// merely holds it), is settled (nothing busy on or in it: aria-busy, a progress bar, a
// spinner) and not failed (no alert, error or failure state on or in it). Nothing here decides
// whether an upload went: keyless waits for the chips, and reads the site's words when it
// refuses one.
(function (k) {
  const { visible, all, first, loc, d } = k;
  // How far above the composer its area may reach (a form's wrappers, not the whole page).
  const AREA_LEVELS = 8;
  const FILE = 'input[type="file"]';
  // Where sites say a file was refused: alerts, assertive live regions, toasts.
  const NOTICES = '[role="alert"], [aria-live="assertive"], [data-sonner-toast], [class*="toast"]';
  // How long a click is given to make a file input or a menu appear (tries of 20 ms).
  const TRIES = 30;
  const WAIT_MS = 20;
  // The shortest visible start of a name shortened with an ellipsis that still tells it.
  const SHORT_START = 3;
  const ELLIPSIS = /\u2026|\.\.\./;
  // Class words, data-state values and labels of a chip still at work, and of one that failed.
  const BUSY_WORD = /(^|[-_\s])(busy|spinner|spinning|loading|uploading|pending|in-progress)($|[-_\s])/i;
  const FAILED_WORD = /(^|[-_\s])(err|error|errored|fail|failed|failure|invalid|rejected)($|[-_\s])/i;
  const BUSY_INSIDE = '[aria-busy="true"], [role="progressbar"], progress';
  const FAILED_INSIDE = '[role="alert"], [aria-invalid="true"]';
  const squeeze = (s) => (s || "").replace(/\s+/g, " ").trim();
  const sleep = () => new Promise((r) => setTimeout(r, WAIT_MS));
  const composer = () => first("Composer") || d.composer();
  // The composer's ancestors, nearest first, across shadow and frame boundaries.
  const above = () => {
    const out = [];
    for (let at = composer(), n = 0; at && n < AREA_LEVELS; n++) {
      at = loc.up(at);
      if (at) out.push(at);
    }
    return out;
  };
  // An input of any kind first among those that take any file (a site's image-only input is
  // a second choice).
  const best = (inputs) => inputs.find((i) => !i.getAttribute("accept")) || inputs[0] || null;
  const byShape = () => {
    for (const el of above()) {
      const found = loc.beneath(el, FILE);
      if (found.length) return best(found);
    }
    const anywhere = loc.everywhere(FILE);
    return anywhere.length === 1 ? anywhere[0] : null;
  };
  const input = () => best(all("AttachmentInput").filter((el) => el.matches(FILE))) || byShape();
  // The composer's area: its form, else its third ancestor (where sites draw chips).
  const area = () => {
    const ups = above();
    return ups.find((el) => el.tagName === "FORM") || ups[2] || ups[ups.length - 1] || document.body;
  };
  // A button in the composer's area shaped like an attach button: one that opens a menu, or
  // one drawn as a "+" or a paperclip.
  const ICON = /^(\+|\uff0b|\u2795|\ud83d\udcce|\ud83d\udd87)$/u;
  const shapedButtons = () => {
    const editor = composer();
    return loc.beneath(area(), 'button, [role="button"]').filter((b) => {
      if (!visible(b) || (editor && (loc.holds(b, editor) || loc.holds(editor, b)))) return false;
      const pop = (b.getAttribute("aria-haspopup") || "").toLowerCase();
      return pop === "menu" || pop === "true" || ICON.test(squeeze(b.textContent));
    });
  };
  const buttons = () => {
    const named = all("AttachButton").filter(visible);
    return named.length ? named : shapedButtons();
  };
  // Whether a button shaped like an attach button makes a file input (itself, or an item of
  // the menu it opens): each is tried, and what it opened closed again.
  const probe = async () => {
    for (const button of shapedButtons()) {
      const made = await opens(button);
      escape();
      if (made) return true;
    }
    return false;
  };
  const noticeTexts = () => loc.everywhere(NOTICES).filter(visible).map((el) => squeeze(el.innerText || el.textContent)).filter(Boolean);
  const escape = () => document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  const waitFor = async (found) => {
    for (let i = 0; i < TRIES && !found(); i++) await sleep();
    return found();
  };
  // Clicks `button`; where no file input comes but a menu does, its items are tried one by one
  // (those that speak of files first) until one makes a file input. Whether one is there.
  const opens = async (button) => {
    const menusBefore = new Set(loc.everywhere('[role="menu"]'));
    button.click();
    const menu = () => loc.everywhere('[role="menu"]').filter((m) => visible(m) && !menusBefore.has(m))[0];
    await waitFor(() => input() || menu());
    if (input()) return true;
    const opened = menu();
    if (!opened) return false;
    const speaks = /file|upload|computer|device|attach/i;
    // Plain items only: a menuitemradio or menuitemcheckbox is a choice (a model, a tool),
    // never clicked to look for an input.
    const items = loc.beneath(opened, '[role="menuitem"]').filter(visible);
    items.sort((a, b) => Number(speaks.test(squeeze(b.textContent))) - Number(speaks.test(squeeze(a.textContent))));
    for (let n = 0; n < items.length && !input(); n++) {
      if (n > 0) {
        // The menu shuts once an item is clicked: opened again for the next.
        if (!menu()) button.click();
        await waitFor(menu);
        const again = menu();
        if (!again) break;
        const same = loc.beneath(again, '[role="menuitem"]').filter(visible).find((el) => squeeze(el.textContent) === squeeze(items[n].textContent));
        if (!same) continue;
        same.click();
      } else {
        items[n].click();
      }
      await waitFor(input);
    }
    return !!input();
  };
  let before = new Set();
  // The elements there when the files began to go: none of them is a new file's chip.
  let old = new WeakSet();
  // Whether `el` shows `name` whole: its own text, its text, title or label is the name, or
  // the name shortened with an ellipsis whose visible ends agree with it.
  const names = (el, name) => {
    const own = squeeze(Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join(""));
    const said = [own, squeeze(el.textContent), squeeze(el.getAttribute("title")), squeeze(el.getAttribute("aria-label"))];
    return said.some((s) => {
      if (!s) return false;
      if (s === name) return true;
      const cut = s.match(ELLIPSIS);
      if (!cut) return false;
      const start = s.slice(0, cut.index);
      const end = s.slice(cut.index + cut[0].length);
      return start.length >= SHORT_START && start.length + end.length < name.length && name.startsWith(start) && name.endsWith(end);
    });
  };
  // The chip a naming element belongs to: its highest ancestor drawn since the files began to
  // go, below the composer's area and not holding the editor.
  const chipOf = (el, here, editor) => {
    let chip = el;
    for (let at = loc.up(el); at && at !== here && !old.has(at) && !(editor && loc.holds(at, editor)); at = loc.up(at)) chip = at;
    return chip;
  };
  const marked = (el, word) => word.test(typeof el.className === "string" ? el.className : el.getAttribute("class") || "") || word.test(el.getAttribute("data-state") || "") || word.test(el.getAttribute("data-status") || "");
  // Whether `chip` is still at work, or failed: on the chip, inside it, or on the element
  // that names the file and those between.
  const busy = (chip) =>
    chip.getAttribute("aria-busy") === "true" || marked(chip, BUSY_WORD) ||
    loc.beneath(chip, "*").some((el) => (el.matches(BUSY_INSIDE) && !(el.tagName === "PROGRESS" && el.hasAttribute("value") && el.value >= el.max)) || marked(el, BUSY_WORD));
  const failedChip = (chip, selectorFailed) =>
    chip.matches(FAILED_INSIDE) || marked(chip, FAILED_WORD) || selectorFailed.some((f) => f === chip || loc.holds(f, chip) || loc.holds(chip, f)) ||
    loc.beneath(chip, "*").some((el) => el.matches(FAILED_INSIDE) || marked(el, FAILED_WORD));
  return {
    // Whether the page takes files now: a file input, the selectors' button that makes one
    // (not clicked here), or a button by its shape whose click (or its menu item's) made one.
    has: async () => !!input() || all("AttachButton").some(visible) || (await probe()),
    // Before the files go: the notices already showing and the composer's elements are
    // remembered (only new ones count), and a site that makes its input on demand gets its
    // button (and its menu's item) clicked. Whether a file input is there.
    begin: async () => {
      before = new Set(noticeTexts());
      old = new WeakSet([...loc.beneath(area(), "*"), ...all("AttachmentChip"), ...all("AttachmentFailed")]);
      if (input()) return true;
      for (const button of buttons()) {
        if (await opens(button)) break;
        escape();
      }
      // A menu left open with the input is closed again.
      if (input()) escape();
      return !!input();
    },
    // The element for the DevTools Protocol to hand the files to.
    element: () => input(),
    // The files were handed over and the page did not react: the events a person's choice
    // fires, from the input itself (frameworks listen for them).
    nudge: () => {
      const el = input();
      if (!el) return false;
      el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      el.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
      return true;
    },
    // What the composer shows of `names`: those with a settled chip (the selectors' chips,
    // else any new element of the composer's area outside the editor that names the file),
    // the site's words on a failed chip, and notices new since `begin`.
    look: (wanted) => {
      const editor = composer();
      const here = area();
      const chips = all("AttachmentChip").filter(visible);
      const selectorFailed = all("AttachmentFailed").filter((el) => visible(el) && !old.has(el));
      const shaped = loc.beneath(here, "*").filter((el) => visible(el) && el !== editor && !(editor && loc.holds(editor, el)) && !loc.holds(el, editor || here) && el.tagName !== "INPUT");
      const showing = [];
      const refused = selectorFailed.map((el) => squeeze(el.innerText || el.textContent)).filter(Boolean);
      for (const name of wanted) {
        // The selectors' chips: a new one that names the file, itself or by an element inside.
        const bySelector = chips.filter((c) => !old.has(c) && (names(c, name) || loc.beneath(c, "*").some((el) => !old.has(el) && names(el, name))));
        const byShape = shaped.filter((el) => !old.has(el) && names(el, name)).map((el) => chipOf(el, here, editor));
        const found = bySelector.length ? bySelector : byShape;
        let settled = false;
        for (const chip of found) {
          if (failedChip(chip, selectorFailed)) {
            const words = squeeze(chip.innerText || chip.textContent) || name;
            if (!refused.includes(words)) refused.push(words);
          } else if (!busy(chip)) {
            settled = true;
          }
        }
        if (settled) showing.push(name);
      }
      const notices = noticeTexts().filter((t) => !before.has(t));
      return { showing, refused, notices };
    },
  };
})
