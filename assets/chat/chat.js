// The local chat page's behaviour: a composer that keeps its own text model (like Lexical),
// sending, a streamed reply rendered as Markdown, a copy button, and the faults a test or the
// demo asks for through /api/config.
(function () {
  const composer = document.getElementById("prompt-textarea");
  const thread = document.getElementById("thread");
  const sendButton = document.getElementById("send-button");
  const stopButton = document.getElementById("stop-button");
  const chips = document.getElementById("chips");
  const fileInput = document.getElementById("file-input");
  let model = "";
  // A mounted ProseMirror (config.editor === "prosemirror") replaces the page's own editor.
  let editor = null;
  let config = {
    dropSends: 0,
    staleComposer: null,
    uploadFails: false,
    editor: null,
    userDisplay: null,
    realClicksOnly: false,
    slowUserTurnMs: 0,
    ignorePaste: false,
    modes: [],
  };
  // --- Modes that make the page unlike itself, as real sites are unlike each other and
  // unlike themselves from one month to the next (config.modes). ---
  const mode = (name) => config.modes.includes(name);
  // Generated class names: every load draws new ones, as CSS-in-JS builds do.
  const classNames = new Map();
  const cls = (name) => {
    if (!mode("generated-classes")) return name;
    if (!classNames.has(name)) classNames.set(name, "c" + Math.random().toString(36).slice(2, 9));
    return classNames.get(name);
  };
  // Ids and test ids, which the page may leave out.
  const mark = (el, name, value) => {
    if (mode("no-ids") && (name === "id" || name === "data-testid")) return;
    el.setAttribute(name, value);
  };
  const GERMAN = {
    "Send prompt": "Nachricht senden", "Send": "Senden", "Stop streaming": "Antwort anhalten",
    "Stop": "Stopp", "Copy": "Kopieren", "New chat": "Neuer Chat", "Message": "Nachricht",
    "Remove attachment": "Anhang entfernen", "Remove": "Entfernen",
    "Effort": "Aufwand", "More models": "Weitere Modelle", "Upgrade": "Upgraden", "Temporary chat": "Temporärer Chat", "Work": "Arbeit",
  };
  const say = (english) => (mode("translated") && GERMAN[english]) || english;
  // How long a paste may be before "paste-to-file" turns it into a card (claude.ai: about 4,000).
  const PASTE_LIMIT = 4000;
  let controller = null;
  let attached = []; // files whose upload succeeded, sent with the next message
  // The conversation's id: in the address (/c/ID) once the first message is sent, as real sites
  // do, so that reopening the address shows the conversation again.
  const match = location.pathname.match(/^\/c\/([A-Za-z0-9_-]+)/);
  let conversation = match ? match[1] : null;

  // The selection as the composer's own tree sees it: inside a shadow root the window's is
  // moved out to the host (Chrome's shadow roots answer `getSelection` themselves).
  const selection = () => {
    const root = composer.getRootNode();
    return typeof root.getSelection === "function" ? root.getSelection() : window.getSelection();
  };
  // --- The composer: one <p> per line; the model is the truth. ---
  function renderComposer() {
    // A composer that keeps no whitespace of its own ("collapsing-composer", as a plain
    // contenteditable drawn with `white-space: normal` does): a run of spaces or tabs is one
    // space, and a line ends with no space.
    if (mode("collapsing-composer")) model = model.replace(/[ \t]+/g, " ").replace(/ \n/g, "\n");
    composer.innerHTML = "";
    for (const line of model.split("\n")) {
      const p = document.createElement("p");
      if (line === "") p.appendChild(document.createElement("br"));
      else if (mode("link-badges")) badged(p, line);
      else p.textContent = line;
      composer.appendChild(p);
    }
    const sel = selection();
    const range = document.createRange();
    range.selectNodeContents(composer);
    range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }
  // Links as badges (config.modes "link-badges"), as ChatGPT's composer draws a URL: a widget
  // that cannot be edited inside, an icon only for the eye, the URL in a block of its own (so
  // innerText puts line breaks around it). The model keeps the URL as typed.
  function badged(p, line) {
    let at = 0;
    for (const m of line.matchAll(/https?:\/\/[^\s<>"']+/g)) {
      if (m.index > at) p.appendChild(document.createTextNode(line.slice(at, m.index)));
      const badge = document.createElement("span");
      badge.className = "link-badge";
      badge.setAttribute("contenteditable", "false");
      const icon = document.createElement("span");
      icon.setAttribute("aria-hidden", "true");
      icon.textContent = "\u{1F517} ";
      const url = document.createElement("div");
      url.textContent = m[0];
      badge.append(icon, url);
      p.appendChild(badge);
      at = m.index + m[0].length;
    }
    if (at < line.length) p.appendChild(document.createTextNode(line.slice(at)));
  }
  composer.addEventListener("beforeinput", (e) => {
    e.preventDefault();
    switch (e.inputType) {
      case "insertText":
      case "insertReplacementText":
        model += oneLine(e.data || "");
        break;
      case "insertFromPaste":
      case "insertFromDrop":
        if (!config.ignorePaste) model += oneLine(e.dataTransfer ? e.dataTransfer.getData("text/plain") : "");
        break;
      case "insertParagraph":
        // A composer whose Enter sends ("shift-enter-only") makes no paragraph of it.
        if (mode("shift-enter-only") || mode("any-enter-sends")) { send(); return; }
        model += "\n";
        break;
      case "insertLineBreak":
        // "any-enter-sends": Shift+Enter sends too.
        if (mode("any-enter-sends")) { send(); return; }
        model += "\n";
        break;
      case "deleteContentBackward": {
        // With a selection (select-all, then Backspace) the selection goes; else one character.
        const sel = selection();
        model = sel && !sel.isCollapsed ? "" : model.slice(0, -1);
        break;
      }
      case "deleteContent":
      case "deleteContentForward":
      case "deleteByCut":
      case "deleteWordBackward":
      case "deleteHardLineBackward":
      case "deleteSoftLineBackward":
        model = "";
        break;
      default:
        return;
    }
    renderComposer();
  });
  // A composer that takes a line break only from Shift+Enter or a pasted <br>
  // ("shift-enter-only"): line breaks in typed or pasted text are dropped, as some editors drop
  // them; a pasted paragraph runs into the next.
  // A composer that takes no line break at all ("any-enter-sends"): Enter and Shift+Enter both
  // send, and line breaks in typed or pasted text (a pasted <br> too) are dropped.
  const oneLine = (text) => (mode("shift-enter-only") || mode("any-enter-sends") ? text.replace(/\n/g, "") : text);
  composer.addEventListener("paste", (e) => {
    e.preventDefault();
    if (config.ignorePaste) return; // Some editors take no synthetic paste.
    const html = e.clipboardData.getData("text/html");
    if (mode("shift-enter-only") && html) {
      const held = document.createElement("div");
      held.innerHTML = html;
      for (const br of Array.from(held.querySelectorAll("br"))) br.replaceWith("\n");
      model += held.textContent;
    } else {
      model += oneLine(e.clipboardData.getData("text/plain"));
    }
    renderComposer();
  });
  composer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.shiftKey && mode("any-enter-sends")) {
      e.preventDefault();
      send();
      return;
    }
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      // A page where Enter only breaks the line (config.modes "enter-newline", as Gemini's
      // can): only the send button sends.
      if (mode("enter-newline")) {
        model += "\n";
        renderComposer();
        return;
      }
      send();
    }
  });

  // --- Attachments ---
  function addChip(name, failed, file) {
    const chip = document.createElement("span");
    chip.className = cls("chip") + (failed ? " " + cls("failed") : "");
    mark(chip, "data-testid", failed ? "attachment-failed" : "attachment-chip");
    chip.textContent = name + " ";
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.setAttribute("aria-label", say("Remove attachment"));
    mark(remove, "data-testid", "attachment-remove");
    remove.addEventListener("click", () => {
      attached = attached.filter((f) => f !== file);
      chip.remove();
    });
    chip.appendChild(remove);
    chips.appendChild(chip);
  }
  // A page that uploads what is chosen at once (config.modes "attach", "attach-refuse",
  // "attach-cap", "attach-silent"), as real sites do: each file's bytes go to /api/upload, and
  // its chip (the name and a remove ×) shows once the server took it; a refusal shows as a
  // toast in the composer in the site's words. "attach-silent" ignores what is chosen.
  const ATTACH_CAP = 3;
  const uploads = () => ["attach", "attach-refuse", "attach-cap", "attach-silent"].some(mode);
  function attachToast(text) {
    const box = document.createElement("div");
    box.setAttribute("role", "alert");
    box.className = cls("toast");
    box.textContent = text;
    document.getElementById("composer-form").appendChild(box);
  }
  fileInput.addEventListener("change", async () => {
    const files = Array.from(fileInput.files);
    fileInput.value = "";
    if (!uploads()) {
      for (const file of files) {
        addChip(file.name, config.uploadFails, file);
        if (!config.uploadFails) attached.push(file);
      }
      return;
    }
    if (mode("attach-silent")) return;
    for (const file of files) {
      if (mode("attach-cap") && attached.length >= ATTACH_CAP) {
        attachToast("You can attach at most " + ATTACH_CAP + " files to a message.");
        continue;
      }
      const res = await fetch("/api/upload", { method: "POST", headers: { "x-file-name": encodeURIComponent(file.name) }, body: file });
      if (!res.ok) {
        attachToast(await res.text());
        continue;
      }
      attached.push(file);
      addChip(file.name, false, file);
    }
  });

  // --- The chat's own controls (config.modes): a model picker shaped like ChatGPT's
  // ("picker-menu": a button opening a menu of menuitemradio rows, the effort a group of its
  // own in the same menu) or like Claude's and Gemini's ("picker-listbox": a combobox opening a
  // listbox of options); a locked model with an upgrade prompt ("model-locked"); a reply
  // answered by another model than the one shown ("model-downgrade"); the model swapped after
  // a usage cap ("model-cap"); a separately metered mode beside plain chat ("work-mode"); a
  // temporary chat ("temporary-chat"). Pickers unlike those: the effort behind a row that
  // opens a submenu on the pointer only, and an older model behind one that opens on
  // ArrowRight only, both drawn apart from the menu as Radix draws them ("effort-submenu");
  // listbox options holding a description line first (named by aria-describedby, in the same
  // letters as the title) and the title beside a boxed badge ("rich-rows"); a native select
  // with optgroups, whose values are not its labels ("picker-select"). The choice is kept in
  // localStorage, as sites keep it.
  const listbox = () => mode("picker-listbox") || mode("rich-rows");
  const selectPicker = () => mode("picker-select");
  const hasPicker = () =>
    ["picker-menu", "picker-listbox", "model-locked", "model-downgrade", "model-cap", "effort-submenu", "rich-rows", "picker-select"].some(mode);
  const MODELS = () => (listbox() ? ["Claude Sonnet 4.6", "Claude Opus 4.6", "Claude Haiku 4.5"] : ["Auto", "GPT-5.5 Instant", "GPT-5.5 Thinking", "GPT-5.5 Pro"]);
  const LEGACY = () => (mode("effort-submenu") || selectPicker() ? ["GPT-4o"] : []);
  const DESCRIPTIONS = {
    "Claude Sonnet 4.6": "Smart, efficient model for everyday use",
    "Claude Opus 4.6": "Most capable for complex work",
    "Claude Haiku 4.5": "Fastest for quick answers",
  };
  const EFFORTS = ["Light", "Standard", "Extended", "Heavy"];
  const LOCKED = () => (listbox() ? "Claude Opus 4.6" : "GPT-5.5 Pro");
  const FALLBACK = () => (listbox() ? "Claude Haiku 4.5" : "GPT-5.5 Instant");
  const slug = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  const chosen = () => {
    const kept = JSON.parse(localStorage.getItem("local-model") || "null");
    const known = kept && (MODELS().includes(kept.model) || LEGACY().includes(kept.model));
    return known ? kept : { model: MODELS()[1], effort: listbox() || selectPicker() ? "" : "Standard" };
  };
  const keepChoice = (c) => localStorage.setItem("local-model", JSON.stringify(c));
  let pickerButton = null;
  let popup = null;
  let submenus = [];
  const closePicker = () => {
    if (popup) popup.remove();
    popup = null;
    for (const sub of submenus) sub.remove();
    submenus = [];
    if (pickerButton) pickerButton.setAttribute("aria-expanded", "false");
  };
  const showChoice = () => {
    if (pickerButton) pickerButton.textContent = chosen().model;
  };
  // The upgrade prompt a locked model opens instead of being chosen.
  function upgradePrompt(model) {
    const box = document.createElement("div");
    box.setAttribute("role", "dialog");
    box.className = cls("upgrade");
    const words = document.createElement("p");
    words.textContent = model + " is available on the Pro plan. Upgrade to use it.";
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Not now";
    close.addEventListener("click", () => box.remove());
    box.append(words, close);
    document.body.appendChild(box);
  }
  function row(name, checked, locked, pick) {
    const el = document.createElement(listbox() ? "li" : "div");
    el.setAttribute("role", listbox() ? "option" : "menuitemradio");
    el.setAttribute(listbox() ? "aria-selected" : "aria-checked", checked ? "true" : "false");
    el.className = cls("model-row");
    mark(el, "data-testid", "model-option");
    el.tabIndex = -1;
    const text = document.createElement("span");
    text.textContent = name;
    if (mode("rich-rows")) {
      // The description first, in the title's letters, named by aria-describedby; the title
      // beside a boxed badge on a line of its own.
      const about = document.createElement("div");
      about.id = "about-" + slug(name);
      about.textContent = DESCRIPTIONS[name] || "";
      el.setAttribute("aria-describedby", about.id);
      const head = document.createElement("div");
      head.style.display = "flex";
      head.style.gap = "8px";
      const badge = document.createElement("span");
      badge.textContent = "New";
      badge.style.background = "#e3ecff";
      badge.style.borderRadius = "4px";
      head.append(text, badge);
      el.append(about, head);
    } else {
      el.appendChild(text);
    }
    if (locked) {
      const upgrade = document.createElement("button");
      upgrade.type = "button";
      upgrade.textContent = say("Upgrade");
      el.appendChild(upgrade);
    }
    el.addEventListener("click", (e) => {
      e.stopPropagation();
      closePicker();
      if (locked) { upgradePrompt(name); return; }
      if (config.pickerIgnoresClicks) return;
      pick();
    });
    return el;
  }
  function openPicker() {
    if (popup) { closePicker(); return; }
    const now = chosen();
    popup = document.createElement(listbox() ? "ul" : "div");
    popup.setAttribute("role", listbox() ? "listbox" : "menu");
    popup.id = "model-popup";
    popup.className = cls("model-popup");
    for (const name of MODELS()) {
      const locked = mode("model-locked") && name === LOCKED();
      popup.appendChild(row(name, name === now.model, locked, () => { keepChoice({ ...chosen(), model: name }); showChoice(); }));
    }
    if (mode("effort-submenu") && !listbox()) {
      const pickEffort = (name) => () => keepChoice({ ...chosen(), effort: name });
      const pickModel = (name) => () => { keepChoice({ ...chosen(), model: name }); showChoice(); };
      popup.appendChild(submenu(say("Effort"), "pointer", () => EFFORTS.map((name) => row(name, name === now.effort, false, pickEffort(name)))));
      popup.appendChild(submenu(say("More models"), "keys", () => LEGACY().map((name) => row(name, name === now.model, false, pickModel(name)))));
    } else if (!listbox()) {
      const group = document.createElement("div");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", say("Effort"));
      for (const name of EFFORTS) group.appendChild(row(name, name === now.effort, false, () => keepChoice({ ...chosen(), effort: name })));
      popup.appendChild(group);
    }
    pickerButton.after(popup);
    pickerButton.setAttribute("aria-expanded", "true");
  }
  // A row that opens a submenu of `rows()` beside the menu, in a popup of its own: on the
  // pointer only ("pointer") or on ArrowRight only ("keys"); a click on it does nothing.
  function submenu(label, how, rows) {
    const trigger = document.createElement("div");
    trigger.setAttribute("role", "menuitem");
    trigger.setAttribute("aria-haspopup", "menu");
    trigger.setAttribute("aria-expanded", "false");
    trigger.tabIndex = -1;
    trigger.textContent = label + " \u203a";
    const open = () => {
      if (trigger.getAttribute("aria-expanded") === "true") return;
      const sub = document.createElement("div");
      sub.setAttribute("role", "menu");
      sub.className = cls("model-submenu");
      for (const r of rows()) sub.appendChild(r);
      document.body.appendChild(sub);
      submenus.push(sub);
      trigger.setAttribute("aria-expanded", "true");
    };
    if (how === "pointer") {
      trigger.addEventListener("pointerenter", open);
      trigger.addEventListener("mouseenter", open);
    } else {
      trigger.addEventListener("keydown", (e) => { if (e.key === "ArrowRight") open(); });
    }
    trigger.addEventListener("click", (e) => e.stopPropagation());
    return trigger;
  }
  let workRadios = null;
  let temporaryToggle = null;
  function controls() {
    const header = document.querySelector("header");
    if (selectPicker()) {
      const select = document.createElement("select");
      select.className = cls("model-select");
      mark(select, "data-testid", "model-picker");
      select.setAttribute("aria-label", "Model");
      for (const [label, names] of [["Current", MODELS()], ["Legacy", LEGACY()]]) {
        const group = document.createElement("optgroup");
        group.label = label;
        for (const name of names) {
          const option = document.createElement("option");
          option.value = slug(name);
          option.textContent = name;
          option.disabled = mode("model-locked") && name === LOCKED();
          group.appendChild(option);
        }
        select.appendChild(group);
      }
      select.value = slug(chosen().model);
      select.addEventListener("change", () => keepChoice({ ...chosen(), model: select.selectedOptions[0].textContent }));
      header.appendChild(select);
    } else if (hasPicker()) {
      pickerButton = document.createElement("button");
      pickerButton.type = "button";
      pickerButton.className = cls("model-picker");
      mark(pickerButton, "data-testid", "model-picker");
      pickerButton.setAttribute("aria-haspopup", listbox() ? "listbox" : "menu");
      pickerButton.setAttribute("aria-expanded", "false");
      if (listbox()) {
        pickerButton.setAttribute("role", "combobox");
        pickerButton.setAttribute("aria-controls", "model-popup");
      }
      pickerButton.addEventListener("click", (e) => { e.stopPropagation(); openPicker(); });
      header.appendChild(pickerButton);
      showChoice();
      document.addEventListener("keydown", (e) => { if (e.key === "Escape") closePicker(); });
      document.addEventListener("click", (e) => { if (popup && !popup.contains(e.target)) closePicker(); });
    }
    if (mode("work-mode")) {
      workRadios = document.createElement("div");
      workRadios.setAttribute("role", "radiogroup");
      workRadios.className = cls("surface");
      for (const [name, on] of [["Chat", false], ["Work", true]]) {
        const radio = document.createElement("button");
        radio.type = "button";
        radio.setAttribute("role", "radio");
        radio.setAttribute("aria-checked", String(on));
        mark(radio, "data-testid", "surface-" + name.toLowerCase());
        radio.textContent = say(name);
        radio.addEventListener("click", () => {
          for (const r of workRadios.children) r.setAttribute("aria-checked", String(r === radio));
        });
        workRadios.appendChild(radio);
      }
      header.appendChild(workRadios);
    }
    if (mode("temporary-chat")) {
      temporaryToggle = document.createElement("button");
      temporaryToggle.type = "button";
      temporaryToggle.setAttribute("aria-pressed", "false");
      mark(temporaryToggle, "data-testid", "temporary-chat-toggle");
      temporaryToggle.setAttribute("aria-label", say("Temporary chat"));
      temporaryToggle.textContent = "\u{1F441}";
      temporaryToggle.addEventListener("click", () => {
        const on = temporaryToggle.getAttribute("aria-pressed") !== "true";
        temporaryToggle.setAttribute("aria-pressed", String(on));
      });
      header.appendChild(temporaryToggle);
    }
  }
  // What the message goes with: the model and effort, the surface, whether the chat is kept.
  function sentWith() {
    const c = hasPicker() ? chosen() : { model: "", effort: "" };
    const work = !!workRadios && workRadios.children[1].getAttribute("aria-checked") === "true";
    const temporary = !!temporaryToggle && temporaryToggle.getAttribute("aria-pressed") === "true";
    return { model: c.model, effort: c.effort, work, temporary };
  }
  // Which model answered: the one chosen, another one than the page shows ("model-downgrade"),
  // and after a usage cap the page goes on with its fallback ("model-cap").
  function answered(reply, used) {
    if (!hasPicker()) return;
    let model = used.model;
    if (mode("model-downgrade") && model !== FALLBACK()) model = FALLBACK();
    reply.setAttribute("data-message-model-slug", slug(model));
  }
  function afterReply(used) {
    if (!mode("model-cap") || used.model === FALLBACK()) return;
    const note = document.createElement("div");
    note.className = cls("cap-info");
    note.textContent = "You've reached the usage cap for " + used.model + ". You can continue with " + FALLBACK() + " now.";
    document.querySelector("header").after(note);
    keepChoice({ ...chosen(), model: FALLBACK() });
    showChoice();
  }

  // --- Messages ---
  // The user's text, drawn the way the site under test draws it (config.userDisplay).
  function showUserText(body, text) {
    switch (config.userDisplay) {
      case "paragraphs":
        for (const line of text.split("\n")) {
          const p = document.createElement("p");
          if (line === "") p.appendChild(document.createElement("br"));
          else p.textContent = line;
          body.appendChild(p);
        }
        break;
      case "shortened":
        if (text.length > 300) {
          body.textContent = text.slice(0, 300) + "…";
          const more = document.createElement("button");
          more.textContent = "Show more";
          body.appendChild(more);
        } else body.textContent = text;
        break;
      case "markdown":
        // The message drawn as Markdown, as many front-ends draw the user's turn; with
        // "tight-markdown", no white space between its blocks (a heading's words and the next
        // paragraph's run together in the turn's text, as a sanitiser leaves them).
        body.innerHTML = mode("tight-markdown") ? window.renderMarkdown(text).replace(/>\s+</g, "><") : window.renderMarkdown(text);
        break;
      case "replaced": {
        const chip = document.createElement("span");
        chip.className = cls("chip");
        chip.textContent = "Pasted text.txt";
        body.appendChild(chip);
        break;
      }
      default:
        body.textContent = text;
    }
  }

  // Turns in other containers (config.modes "other-containers"): one section per exchange
  // holding two articles, with no role attribute.
  // Gemini's 2026 markup (config.modes "gemini"): Angular custom elements, the user's turn as
  // a paragraph per line in <user-query>, the reply in <model-response> with a "Show thinking"
  // block before the answer, code blocks as <code-block> holding code[role=text] that keeps its
  // final newline, the copy control in <message-actions>, and a footer marked complete.
  function addGeminiMessage(role, text) {
    if (role === "user") {
      const query = document.createElement("user-query");
      const lines = document.createElement("div");
      lines.className = "query-text";
      for (const line of text.split("\n")) {
        const p = document.createElement("p");
        p.className = "query-text-line";
        p.textContent = line;
        lines.appendChild(p);
      }
      query.appendChild(lines);
      thread.appendChild(query);
      return query;
    }
    const response = document.createElement("model-response");
    const content = document.createElement("message-content");
    content.className = "model-response-text";
    const markdown = document.createElement("div");
    markdown.className = "markdown markdown-main-panel";
    content.appendChild(markdown);
    response.appendChild(content);
    thread.appendChild(response);
    return response;
  }
  // A thinking block before the answer, about 300 characters, behind a "Show thinking" button.
  function geminiThoughts(reply) {
    const thoughts = document.createElement("model-thoughts");
    const toggle = document.createElement("button");
    toggle.textContent = "Show thinking";
    const body = document.createElement("div");
    body.className = "thoughts-content";
    body.textContent = "Considering the request. The user asks for a file and a command. I should reply in AgentScript, in one fenced block, and end with the eof marker. Checking the paths and the order of the commands. The reply has to be exact, byte for byte, so I keep the content as given. Ready to answer now.";
    thoughts.append(toggle, body);
    reply.insertBefore(thoughts, reply.firstChild);
  }
  // Code blocks as Gemini draws them: a decoration with the language, and the code as one text.
  // The code's text is the page's own renderer's lines, or what a real renderer (markdown-it,
  // marked with highlight.js) drew. With "code-copy", the decoration holds the block's own copy
  // control, an icon only (Gemini's "Copy code"), which copies the code alone.
  function geminiCode(body) {
    for (const pre of Array.from(body.querySelectorAll("pre"))) {
      const code = pre.querySelector("code");
      const drawnLines = code ? Array.from(code.querySelectorAll(":scope > .line")) : [];
      const text = drawnLines.length ? drawnLines.map((line) => line.textContent).join("\n") + "\n" : code ? code.textContent : "";
      const block = document.createElement("code-block");
      const decoration = document.createElement("div");
      decoration.className = "code-block-decoration";
      const label = document.createElement("span");
      label.textContent = (pre.querySelector(".code-header") || {}).textContent || "Code snippet";
      decoration.appendChild(label);
      if (mode("code-copy")) decoration.appendChild(codeCopyButton(text));
      const newPre = document.createElement("pre");
      const newCode = document.createElement("code");
      newCode.setAttribute("role", "text");
      if (code && !drawnLines.length) newCode.innerHTML = code.innerHTML;
      else newCode.textContent = text;
      newPre.appendChild(newCode);
      block.append(decoration, newPre);
      pre.replaceWith(block);
    }
  }
  function codeCopyButton(text) {
    const button = document.createElement("button");
    button.setAttribute("aria-label", "Copy code");
    button.innerHTML = "<mat-icon fonticon=\"content_copy\"></mat-icon>";
    button.addEventListener("click", () => navigator.clipboard.writeText(text));
    return button;
  }

  // A virtual list (config.modes "virtual-list", as DeepSeek's): only the last turns are
  // mounted; older ones leave the page, so counting turns says nothing about a new one.
  const MOUNTED = 3;
  function unmountOld() {
    if (!mode("virtual-list")) return;
    while (thread.children.length > MOUNTED) thread.firstElementChild.remove();
  }

  function addMessage(role, text) {
    const added = addTurn(role, text);
    unmountOld();
    return added;
  }

  let turnCounter = 0;
  function addTurn(role, text) {
    if (mode("gemini")) return addGeminiMessage(role, text);
    const other = mode("other-containers");
    const msg = document.createElement(other ? "article" : "div");
    msg.className = cls("msg");
    // Ids a framework hands out from a counter, as NiceGUI's `c9` and `c11`: each turn its own.
    if (mode("counter-ids")) msg.id = "c" + (++turnCounter);
    if (!other) msg.setAttribute("data-message-author-role", role);
    const body = document.createElement("div");
    body.className = role === "user" ? cls("body") : cls("markdown");
    if (role === "user") showUserText(body, text);
    // An avatar from a host this machine cannot reach, as pages load theirs from a CDN: the
    // picture fails while the conversation goes on.
    if (mode("far-images") && role !== "user") {
      const avatar = document.createElement("img");
      avatar.alt = "";
      avatar.src = "http://127.0.0.1:2/avatar.png?" + (++turnCounter);
      msg.appendChild(avatar);
    }
    if (mode("shadow-turns")) shadowTurn(msg, body, role);
    else msg.appendChild(body);
    if (other) {
      let section = thread.lastElementChild;
      if (role === "user" || !section) {
        section = document.createElement("section");
        thread.appendChild(section);
      }
      section.appendChild(msg);
    } else {
      thread.appendChild(msg);
    }
    return msg;
  }
  // A turn made of components inside components ("shadow-turns"), as Panel draws its
  // messages: the turn's own element holds a shadow root, its text sits in a component inside
  // a component inside that (three shadow roots below the turn), each with its styles, and a
  // reply's actions are a component of their own beside it.
  const shadowRoot = (host) => {
    const root = host.attachShadow({ mode: "open" });
    const style = document.createElement("link");
    style.rel = "stylesheet";
    style.href = "/chat.css";
    root.appendChild(style);
    return root;
  };
  function shadowTurn(msg, body, role) {
    let root = shadowRoot(msg);
    for (const name of ["turn", "content"]) {
      const part = document.createElement("div");
      part.className = name;
      root.appendChild(part);
      root = shadowRoot(part);
    }
    if (role === "user") body.style.whiteSpace = "pre-wrap";
    root.appendChild(body);
    msg.shadowBody = body;
  }
  // Where a reply's actions go: after its text, or, in a turn made of components, in a
  // component of their own inside the turn's shadow root.
  function actionsHome(reply) {
    if (!reply.shadowRoot) return reply;
    const part = document.createElement("div");
    part.className = "bar";
    reply.shadowRoot.appendChild(part);
    return shadowRoot(part);
  }
  // The body a reply's text goes into (after a reasoning block, when there is one).
  const replyBody = (reply) =>
    reply.shadowBody || (mode("gemini") ? reply.querySelector("message-content .markdown") : reply.querySelector(":scope > div:last-of-type"));

  // A rich composer that serialises to Markdown (config.modes "markdown-composer"), as TipTap
  // with a Markdown serialiser does: outside fenced code, a tab becomes four spaces and a blank
  // line a line of two spaces. Fenced code goes verbatim.
  function serialised(text) {
    if (!mode("markdown-composer")) return text;
    let fence = null;
    return text.split("\n").map((line) => {
      const opens = line.match(/^(`{3,}|~{3,})/);
      if (fence === null && opens) { fence = opens[1]; return line; }
      if (fence !== null) {
        if (line.startsWith(fence) && line.trim() === line.trim().replace(/[^`~]/g, "") && line.trim().length >= fence.length) fence = null;
        return line;
      }
      return line === "" ? "  " : line.replace(/\t/g, "    ");
    }).join("\n");
  }

  async function send() {
    const text = serialised(editor ? editor.text() : model);
    if (text.trim() === "" || controller || window.__busy) return;
    if (config.dropSends > 0) {
      config.dropSends -= 1; // The click is lost, as when a site ignores a send.
      return;
    }
    // Sends the page took, for tests: the server sees a late one only after its delay.
    window.localChatSends = (window.localChatSends || 0) + 1;
    if (editor) {
      editor.clear();
    } else {
      model = "";
      renderComposer();
    }
    chips.innerHTML = "";
    // A busy site shows the sent message late (config.slowUserTurnMs); the composer is
    // already empty, and a second click now would send the message again.
    if (config.slowUserTurnMs) await new Promise((r) => setTimeout(r, config.slowUserTurnMs));
    if (!conversation) {
      conversation = Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
      history.replaceState(null, "", "/c/" + conversation);
    }
    // Attached files travel with the message, as a real site uploads them.
    let payload = text;
    // A page that alters the message on its way out ("blank-lines-altered"): each blank line
    // goes to the server as two spaces, though the turn drawn shows it blank.
    if (mode("blank-lines-altered")) payload = payload.split("\n").map((l) => (l === "" ? "  " : l)).join("\n");
    // An uploading page sends the files' names with the message (the server has their bytes).
    for (const file of attached) payload += "\n\n[attachment " + file.name + "]" + (uploads() ? "" : "\n" + (await file.text()));
    attached = [];
    addMessage("user", text);
    const used = sentWith();
    const reply = addMessage("assistant", "");
    answered(reply, used);
    const body = replyBody(reply);
    streamStarted(reply);
    controller = new AbortController();
    let raw = "";
    try {
      const headers = { "x-conversation": conversation, "x-sent-with": JSON.stringify(used) };
      const res = mode("websocket")
        ? await overSocket(payload, headers, controller.signal)
        : await fetch("/api/chat", { method: "POST", body: payload, headers, signal: controller.signal });
      showHistory().catch(() => {});
      const notice = res.headers.get("x-notice");
      if (notice) {
        showNotice(notice, await res.text(), body, reply);
      } else if (res.status === 413 || res.status === 429) {
        body.innerHTML = '<p class="error-text">' + (await res.text()) + "</p>";
      } else if (!res.ok) {
        body.innerHTML = '<p class="error-text">Something went wrong. ' + res.status + "</p>";
      } else {
        if (mode("reasoning")) await think(reply, body);
        const live = mode("doubled-thoughts") ? doubledThoughts(reply, body) : null;
        if (mode("gemini")) geminiThoughts(reply);
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        // Server-sent events ("sse", "sse-cumulative"): each event's JSON holds a delta or the
        // whole text so far.
        const events = (res.headers.get("content-type") || "").startsWith("text/event-stream");
        let pending = "";
        const encoded = (res.headers.get("content-type") || "").startsWith("application/x-encoded-lines");
        const take = (text) => {
          if (encoded) {
            pending += text;
            let end;
            while ((end = pending.indexOf("\n")) >= 0) {
              const line = pending.slice(0, end);
              pending = pending.slice(end + 1);
              raw += new TextDecoder().decode(Uint8Array.from(atob(line), (c) => c.charCodeAt(0)));
            }
            return;
          }
          if (!events) { raw += text; return; }
          pending += text;
          let end;
          while ((end = pending.indexOf("\n\n")) >= 0) {
            const event = pending.slice(0, end);
            pending = pending.slice(end + 2);
            const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
            if (!data || data === "[DONE]") continue;
            const json = JSON.parse(data);
            if (json && json.choices) raw += json.choices[0].delta.content || "";
            else if (json && json.message) raw = json.message.content.parts[0];
          }
        };
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          take(decoder.decode(value, { stream: true }));
          draw(body, raw);
          if (live) live.innerHTML = window.renderMarkdown(raw.slice(0, Math.ceil(raw.length / 2)));
        }
        take(decoder.decode());
        draw(body, raw);
      }
    } catch (err) {
      body.innerHTML = '<p class="error-text">Network error: the message could not be delivered.</p>';
    }
    controller = null;
    showHistory();
    streamEnded(reply);
    // "late-actions": the copy control and done mark come 3 s after the text (Panel's icon on a
    // loaded machine).
    if (mode("late-actions")) setTimeout(() => finishReply(reply, raw), 3000);
    else finishReply(reply, raw);
    afterReply(used);
    window.__streamEndedAt = performance.now(); // for keyless's latency benchmark
    // The server notes the moment too (the shape benchmark measures from it).
    fetch("/api/ended", { method: "POST", keepalive: true }).catch(() => {});
  }

  // "websocket": the message goes over the page's one socket, as sites that stream over a
  // WebSocket send theirs (in socket.io's framing, `42["event",{…}]`), and the answer comes
  // back in events (a start with its status and headers, the body's pieces as deltas, an
  // end), made into a Response for the code above.
  let socket = null;
  function openSocket() {
    if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket);
    return new Promise((opened, failed) => {
      const s = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/socket");
      s.onopen = () => { socket = s; opened(s); };
      s.onerror = () => failed(new Error("the socket did not open"));
    });
  }
  async function overSocket(payload, headers, signal) {
    const s = await openSocket();
    return new Promise((answered, failed) => {
      let body;
      const stream = new ReadableStream({ start(c) { body = c; } });
      const encoder = new TextEncoder();
      const broke = () => {
        try { body.error(new Error("the socket closed")); } catch (e) {}
        failed(new Error("the socket closed"));
      };
      s.onmessage = (event) => {
        if (!event.data.startsWith("42")) return;
        const [name, data] = JSON.parse(event.data.slice(2));
        if (name === "start") answered(new Response(stream, { status: data.status, headers: data.headers }));
        else if (name === "delta") body.enqueue(encoder.encode(data.text));
        else if (name === "end") body.close();
      };
      s.onclose = () => { socket = null; broke(); };
      signal.addEventListener("abort", broke);
      s.send("42" + JSON.stringify(["message", { conversation: headers["x-conversation"], sentWith: headers["x-sent-with"], text: payload }]));
    });
  }

  // A site's notice in the reply's stead (x-notice): a toast outside the conversation, a modal
  // dialog a person acknowledges, the browser's alert, or an error in the reply's own place with a Retry button,
  // in elements the selectors do not name.
  function showNotice(place, text, body, reply) {
    // A refusal that takes the reply's turn away and says so only in a toast.
    if (place === "toast-alone") {
      reply.remove();
      place = "toast";
    }
    // The session expired: the site's login address, which comes back to the chat once the
    // person logged in.
    if (place === "login") {
      location.assign("/login?next=" + encodeURIComponent(location.pathname));
      return;
    }
    // A bot check: the same address again, as the check.
    if (place === "challenge") {
      location.reload();
      return;
    }
    // The browser's own alert, which stalls every script of the page until it is answered.
    if (place === "alert") {
      window.alert(text);
      return;
    }
    if (place === "banner") {
      const banner = document.createElement("div");
      banner.className = cls("usage-banner");
      banner.textContent = text;
      document.querySelector("header").after(banner);
      return;
    }
    if (place === "turn") {
      const box = document.createElement("div");
      box.className = cls("reply-failed");
      const words = document.createElement("span");
      words.textContent = text;
      const retry = document.createElement("button");
      retry.type = "button";
      retry.textContent = say("Retry");
      box.append(words, retry);
      body.appendChild(box);
      // An error turn has no copy control (as on the sites): only its Retry.
      reply.__failed = true;
      return;
    }
    const box = document.createElement("div");
    if (place === "dialog") {
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-modal", "true");
      box.className = cls("modal");
      const words = document.createElement("p");
      words.textContent = text;
      const ok = document.createElement("button");
      ok.type = "button";
      ok.textContent = say("Got it");
      ok.addEventListener("click", () => box.remove());
      box.append(words, ok);
    } else {
      box.setAttribute("role", "alert");
      box.className = cls("toast");
      box.textContent = text;
    }
    document.body.appendChild(box);
  }

  // How the page shows a stream: a stop button in the send button's place, one button that
  // changes its label ("shared-slot"), or only a busy state on the reply ("busy-signal").
  function streamStarted(reply) {
    // "busy-composer": the composer and its send button disabled while a reply streams and
    // for 3 s after it ends (an AI SDK page keeps its input disabled until the response's
    // body closes, which may be well after the reply's last words).
    if (mode("busy-composer")) {
      clearTimeout(window.__busyTimer);
      window.__busy = true;
      composer.setAttribute("contenteditable", "false");
      composer.setAttribute("aria-disabled", "true");
      sendButton.disabled = true;
    }
    if (mode("busy-signal")) {
      reply.setAttribute("aria-busy", "true");
      return;
    }
    reply.setAttribute("data-done", "false");
    if (mode("shared-slot")) {
      sendButton.setAttribute("aria-label", say("Stop streaming"));
      sendButton.textContent = say("Stop");
      return;
    }
    stopButton.hidden = false;
    sendButton.hidden = true;
  }
  function streamEnded(reply) {
    if (mode("busy-composer")) {
      window.__busyTimer = setTimeout(() => {
        window.__busy = false;
        composer.setAttribute("contenteditable", "true");
        composer.removeAttribute("aria-disabled");
        sendButton.disabled = false;
      }, 3000);
    }
    if (mode("busy-signal")) {
      reply.removeAttribute("aria-busy");
      return;
    }
    if (mode("shared-slot")) {
      sendButton.setAttribute("aria-label", say("Send prompt"));
      sendButton.textContent = say("Send");
      return;
    }
    stopButton.hidden = true;
    sendButton.hidden = false;
  }
  // Claude's 2026 reply (config.modes "doubled-thoughts"): the "Thought process" label twice
  // at the top (a toggle and a heading), and a screen-reader copy of the body in an aria-live
  // region, visually hidden, that lags behind: it ends holding half the reply.
  function doubledThoughts(reply, body) {
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.textContent = "Thought process";
    const label = document.createElement("div");
    label.className = cls("turn-label");
    label.textContent = "Thought process";
    const live = document.createElement("div");
    live.setAttribute("aria-live", "polite");
    live.className = "sr-only";
    reply.insertBefore(toggle, body);
    reply.insertBefore(label, body);
    reply.insertBefore(live, body);
    return live;
  }
  // A reasoning block before the answer, as models that think first show it.
  async function think(reply, body) {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "Thinking…";
    const thoughts = document.createElement("div");
    details.append(summary, thoughts);
    reply.insertBefore(details, body);
    for (const part of ["The user wants the task done. ", "I will answer in AgentScript, ", "inside one fenced block."]) {
      await new Promise((r) => setTimeout(r, 30));
      thoughts.textContent += part;
    }
    summary.textContent = "Thought for 1 second";
  }

  // "menu-copy": a reply's only copy is a row of a menu behind a "⋯" button, as some sites
  // keep Copy with Share and Report. The menu opens on the pointer going down (a scripted
  // click does not open it, as Radix's menus do not) and is drawn at the end of the body, away
  // from the reply; a row's click does its work and closes it.
  function moreMenu(raw) {
    const more = document.createElement("button");
    more.type = "button";
    more.className = cls("more");
    more.textContent = "\u22ef";
    more.setAttribute("aria-haspopup", "menu");
    more.setAttribute("aria-label", "More actions");
    more.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      const open = document.querySelector("[role=menu].reply-menu");
      if (open) { open.remove(); return; }
      const menu = document.createElement("div");
      menu.className = "reply-menu";
      menu.setAttribute("role", "menu");
      const r = more.getBoundingClientRect();
      menu.style.cssText = "position:fixed;background:#fff;border:1px solid #ccc;padding:4px;z-index:9;left:" + r.left + "px;top:" + (r.bottom + 2) + "px";
      for (const [name, work] of [["Share", () => {}], ["Copy", () => navigator.clipboard.writeText(raw)], ["Report", () => {}]]) {
        const row = document.createElement("div");
        row.setAttribute("role", "menuitem");
        row.tabIndex = -1;
        row.textContent = name;
        row.style.cursor = "pointer";
        row.addEventListener("click", () => { work(); menu.remove(); });
        menu.appendChild(row);
      }
      document.body.appendChild(menu);
    });
    return more;
  }

  // A finished reply gets its copy button and is marked done.
  function finishReply(reply, raw) {
    reply.setAttribute("data-raw-length", String(raw.length));
    if (reply.__failed) {
      if (!mode("busy-signal")) reply.setAttribute("data-done", "true");
      return;
    }
    const actions = document.createElement("span");
    actions.className = cls("actions");
    let copy = document.createElement("button");
    copy.type = "button";
    if (mode("shadow-turns")) {
      // An icon drawn as clickable and nothing else: no button, role, type, label, title,
      // text or test id (Panel's is a `div` that says it is a button).
      copy = document.createElement("span");
      copy.className = "act";
      copy.style.cursor = "pointer";
      copy.innerHTML = '<svg class="icon icon-copy" viewBox="0 0 24 24" width="16" height="16"><use href="#icon-copy"></use></svg>';
    } else if (mode("icon-copy")) {
      // Only an icon, no label, text or test id; marked "copied" for three seconds after a
      // click, as some front-ends do.
      copy.className = cls("action");
      copy.innerHTML = '<svg class="icon icon-copy" viewBox="0 0 24 24" width="16" height="16"><use href="#icon-copy"></use></svg>';
      copy.addEventListener("click", () => {
        copy.setAttribute("data-copied", "true");
        setTimeout(() => copy.removeAttribute("data-copied"), 3000);
      });
    } else {
      copy.textContent = say("Copy");
      mark(copy, "data-testid", "copy-turn-action-button");
      copy.setAttribute("aria-label", say("Copy"));
    }
    copy.addEventListener("click", () => navigator.clipboard.writeText(raw));
    // A page with no copy control ("no-copy"): the reply is read another way.
    if (mode("gemini")) {
      const messageActions = document.createElement("message-actions");
      const copyButton = document.createElement("copy-button");
      const button = document.createElement("button");
      button.setAttribute("data-test-id", "copy-button");
      button.setAttribute("aria-label", "Copy");
      button.innerHTML = "<mat-icon fonticon=\"content_copy\"></mat-icon>";
      button.addEventListener("click", () => navigator.clipboard.writeText(raw));
      copyButton.appendChild(button);
      messageActions.appendChild(copyButton);
      const footer = document.createElement("div");
      footer.className = "response-footer complete";
      reply.append(messageActions, footer);
      if (!mode("busy-signal")) reply.setAttribute("data-done", "true");
      return;
    }
    if (mode("menu-copy")) {
      actions.appendChild(moreMenu(raw));
    } else if (!mode("no-copy") && !mode("lossy") && !mode("server-drawn")) {
      actions.appendChild(copy);
    }
    actionsHome(reply).appendChild(actions);
    if (!mode("busy-signal")) reply.setAttribute("data-done", "true");
  }

  // The history list beside the chat, newest first, as real sites keep one: a link per
  // conversation, named by its number (a real site names it by a summary of it).
  async function showHistory() {
    let nav = document.getElementById("history");
    if (!nav) {
      nav = document.createElement("nav");
      nav.id = "history";
      nav.setAttribute("aria-label", say("Chat history"));
      document.body.prepend(nav);
    }
    const res = await fetch("/api/conversations");
    if (!res.ok) return;
    nav.innerHTML = "";
    for (const c of await res.json()) {
      const a = document.createElement("a");
      a.href = "/c/" + c.id;
      a.textContent = c.title || "Chat";
      nav.appendChild(a);
    }
  }

  // A reopened conversation shows its messages again, replies rendered as they were.
  async function loadConversation() {
    if (!conversation) return;
    const res = await fetch("/api/conversation/" + conversation);
    if (!res.ok) return;
    for (const turn of await res.json()) {
      // A sent file shows as a chip with its name beside the typed text, as on real sites.
      const [typed, ...files] = turn.text.split("\n\n[attachment ");
      const msg = addMessage(turn.role, turn.role === "user" ? typed : turn.text);
      for (const file of turn.role === "user" ? files : []) {
        const chip = document.createElement("span");
        chip.className = cls("chip");
        chip.textContent = file.slice(0, file.indexOf("]"));
        msg.appendChild(chip);
      }
      if (turn.role === "assistant") {
        draw(replyBody(msg), turn.text);
        finishReply(msg, turn.text);
      }
    }
  }
  // Some sites' send buttons answer only a real click (config.realClicksOnly).
  sendButton.addEventListener("click", (e) => {
    if (config.realClicksOnly && !e.isTrusted) return;
    // One slot for send and stop: while a reply streams, the button stops it.
    if (controller) {
      if (mode("shared-slot")) controller.abort();
      return;
    }
    send();
  });
  stopButton.addEventListener("click", () => controller && controller.abort());

  const ready = () => {
    // A page with nothing to type in ("no-composer"): neither selectors nor discovery find one.
    if (!editor && !mode("no-composer")) {
      composer.setAttribute("contenteditable", "true");
      composer.setAttribute("role", "textbox");
    }
    document.body.setAttribute("data-ready", "true");
  };
  // A real editor as the composer (config.editor), from its npm packages: ProseMirror,
  // TipTap, Lexical, Quill or a textarea, each mounted by its module in /editors/.
  async function mountEditor(name) {
    const module = await import(name === "prosemirror" ? "/pm-editor.js" : "/editors/" + name + ".js");
    const host = document.createElement("div");
    composer.replaceWith(host);
    const attributes = { class: cls("composer") + (name === "prosemirror" ? " ProseMirror" : ""), role: "textbox", "aria-label": say("Message") };
    if (!mode("no-ids")) attributes.id = "prompt-textarea";
    editor = module.mount(host, attributes, send);
  }
  // How a reply is drawn: the page's own renderer, or a real one (config.renderer).
  let renderer = null;
  function draw(body, raw) {
    // A page whose server draws the reply ("server-drawn") shows the HTML it got.
    if (mode("server-drawn")) { body.innerHTML = raw; return; }
    // A lossy page ("lossy") draws no line of HTML and a task's `[ ]` as a checkbox.
    if (mode("lossy")) raw = raw.split("\n").filter((l) => !/^\s*<\/?[a-z][^>]*>\s*$/i.test(l)).join("\n");
    if (renderer) renderer.renderInto(body, raw);
    else body.innerHTML = window.renderMarkdown(raw);
    if (mode("lossy")) {
      for (const li of Array.from(body.querySelectorAll("li"))) {
        const task = li.innerHTML.match(/^\[( |x)\] /);
        if (!task) continue;
        li.innerHTML = li.innerHTML.slice(4);
        const box = document.createElement("input");
        box.type = "checkbox";
        box.checked = task[1] === "x";
        li.prepend(box);
      }
    }
    if (mode("gemini")) geminiCode(body);
    else if (mode("code-copy")) {
      // A toolbar per code block holding its own copy control (ChatGPT's and most renderers').
      for (const pre of Array.from(body.querySelectorAll("pre"))) {
        const wrapper = document.createElement("div");
        wrapper.className = "code-block";
        const bar = document.createElement("div");
        bar.className = "code-bar";
        const lines = Array.from(pre.querySelectorAll("code > .line"));
        const code = pre.querySelector("code");
        const text = lines.length ? lines.map((l) => l.textContent).join("\n") + "\n" : code ? code.textContent : pre.textContent;
        bar.appendChild(codeCopyButton(text));
        pre.replaceWith(wrapper);
        wrapper.append(bar, pre);
      }
    }
  }

  // The login address goes back where the person was once they are logged in, as sites do
  // (the page there is the chat's; this one never settles).
  function leaveLogin(c) {
    if (location.pathname !== "/login") return c;
    location.replace(new URLSearchParams(location.search).get("next") || "/");
    return new Promise(() => {});
  }
  // A login wall, as a site shows to a browser profile that is not logged in: the composer
  // appears once the user has logged in (the server says so).
  async function loggedIn(c) {
    if (!c.loginWall && !c.challenge) return leaveLogin(c);
    const title = document.title;
    const wall = document.createElement("div");
    wall.id = "login-wall";
    // While the check shows, every reach for keyless's page script is noted (a real check
    // re-arms when a debugger runs script in the page): told to the server once it is passed.
    const looks = [];
    let unspy = () => {};
    if (c.challenge) {
      document.title = "Just a moment...";
      wall.textContent = "Verify you are human by completing the action below.";
      const shownAt = performance.now();
      let kept = window.__keyless;
      Object.defineProperty(window, "__keyless", {
        configurable: true,
        get() { looks.push(Math.round(performance.now() - shownAt)); return kept; },
        set(value) { kept = value; },
      });
      unspy = () => {
        Object.defineProperty(window, "__keyless", { configurable: true, writable: true, value: kept });
        fetch("/api/check-looks", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(looks) }).catch(() => {});
      };
    } else {
      wall.textContent = "Log in to continue. This chat needs an account.";
    }
    document.body.prepend(wall);
    for (;;) {
      await new Promise((done) => setTimeout(done, 300));
      const now = await (await fetch("/api/config")).json();
      if (!now.loginWall && !now.challenge) {
        unspy();
        if (location.pathname === "/login") return leaveLogin(now);
        wall.remove();
        document.title = title;
        return now;
      }
    }
  }
  // The page's static parts, made unlike themselves as the modes ask.
  async function disguise() {
    // The file input hidden behind a paperclip button, as real sites draw it; or none at all
    // ("no-upload").
    if (uploads()) {
      fileInput.style.display = "none";
      const clip = document.createElement("button");
      clip.type = "button";
      clip.textContent = "📎";
      clip.setAttribute("aria-label", say("Attach files"));
      mark(clip, "data-testid", "attach-button");
      clip.addEventListener("click", () => fileInput.click());
      fileInput.before(clip);
    }
    if (mode("no-upload")) fileInput.remove();
    if (mode("generated-classes")) {
      const css = await (await fetch("/chat.css")).text();
      const style = document.createElement("style");
      style.textContent = css.replace(/\.([A-Za-z][\w-]*)/g, (all, name) => (name === "ProseMirror" || name === "line" ? all : "." + cls(name)));
      document.head.appendChild(style);
      document.querySelector('link[rel="stylesheet"]').remove();
      for (const el of document.querySelectorAll("[class]")) {
        el.className = Array.from(el.classList).map(cls).join(" ");
      }
    }
    if (mode("hover-copy")) {
      const style = document.createElement("style");
      const actions = "." + cls("actions");
      style.textContent = actions + " { display: none; } ." + cls("msg") + ":hover " + actions + " { display: inline; }";
      document.head.appendChild(style);
    }
    if (mode("translated")) {
      document.documentElement.lang = "de";
      for (const el of document.querySelectorAll("[aria-label]")) el.setAttribute("aria-label", say(el.getAttribute("aria-label")));
      for (const el of [sendButton, stopButton, document.getElementById("new-chat")]) el.textContent = say(el.textContent);
      composer.setAttribute("data-placeholder", "Nachricht an das lokale Modell");
    }
    // The site's own words on its buttons (config.modes "own-words"): the send button says
    // "Dispatch" and the stop button "Halt", with no label or test id saying send or stop.
    if (mode("own-words")) {
      for (const [el, word] of [[sendButton, "Dispatch"], [stopButton, "Halt"]]) {
        el.removeAttribute("aria-label");
        el.removeAttribute("data-testid");
        el.textContent = word;
      }
    }
    if (mode("no-ids")) {
      for (const el of document.querySelectorAll("[id], [data-testid]")) {
        el.removeAttribute("id");
        el.removeAttribute("data-testid");
      }
    }
    // An editable code view above the composer (config.modes "code-editor-above"), as a
    // front-end whose code blocks are CodeMirror views with contenteditable and role=textbox:
    // here with none of CodeMirror's class names, so only where it stands tells it apart.
    if (mode("code-editor-above")) {
      const pinned = document.createElement("div");
      pinned.className = cls("pinned");
      const view = document.createElement("div");
      view.setAttribute("contenteditable", "true");
      view.setAttribute("role", "textbox");
      view.setAttribute("aria-multiline", "true");
      view.className = cls("snippet");
      for (const line of ["def greet(name):", "    return f\"hi {name}\"", "", "print(greet(\"you\"))"]) {
        const div = document.createElement("div");
        div.textContent = line || "\u200b";
        view.appendChild(div);
      }
      pinned.appendChild(view);
      thread.prepend(pinned);
    }
    // A page built from web components ("shadow-root"): every part of the chat inside an open
    // shadow root, its styles with it.
    if (mode("shadow-root")) {
      const host = document.createElement("chat-app");
      const root = host.attachShadow({ mode: "open" });
      const style = document.createElement("link");
      style.rel = "stylesheet";
      style.href = "/chat.css";
      root.appendChild(style);
      for (const el of [document.querySelector("header"), thread, composer.closest("form")]) root.appendChild(el);
      document.body.prepend(host);
    }
    // Components inside a component ("nested-shadow"): the chat in the shadow root of
    // `<chat-app>`, the conversation in the shadow root of a `<chat-thread>` inside it and the
    // composer in that of a `<chat-composer>`, each with its styles.
    if (mode("nested-shadow")) {
      const component = (name, parts) => {
        const host = document.createElement(name);
        const root = host.attachShadow({ mode: "open" });
        const style = document.createElement("link");
        style.rel = "stylesheet";
        style.href = "/chat.css";
        root.appendChild(style);
        for (const el of parts) root.appendChild(el);
        return host;
      };
      const app = component("chat-app", [
        document.querySelector("header"),
        component("chat-thread", [thread]),
        component("chat-composer", [composer.closest("form")]),
      ]);
      document.body.prepend(app);
    }
    if (mode("enter-only")) sendButton.remove();
    if (mode("gemini")) sendButton.classList.add("send-button");
    // A long paste becomes a "Pasted Text" card (claude.ai's markup), whatever the editor: the
    // text goes with the message as a file, and the composer stays empty.
    if (mode("paste-to-file")) {
      document.addEventListener("paste", (e) => {
        const text = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
        if (text.length <= PASTE_LIMIT) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        const file = new File([text], "pasted.txt", { type: "text/plain" });
        attached.push(file);
        const card = document.createElement("div");
        card.setAttribute("data-testid", "file-thumbnail");
        card.className = cls("chip");
        card.textContent = "Pasted Text " + text.split("\n").length + " lines ";
        const remove = document.createElement("button");
        remove.type = "button";
        remove.setAttribute("aria-label", say("Remove"));
        remove.textContent = "×";
        remove.addEventListener("click", () => {
          attached = attached.filter((f) => f !== file);
          card.remove();
        });
        card.appendChild(remove);
        chips.appendChild(card);
      }, true);
    }
    if (mode("send-with-text")) {
      sendButton.remove();
      // The button is there only while the composer holds text.
      setInterval(() => {
        const text = editor ? editor.text() : model;
        const actions = stopButton.parentElement;
        if (text.trim() && !sendButton.isConnected) actions.insertBefore(sendButton, stopButton);
        if (!text.trim() && sendButton.isConnected) sendButton.remove();
      }, 20);
    }
  }
  // "rebuilding-thread": the conversation inside the composer's form, and every code block's
  // header (a label and a copy button) drawn again on every keystroke in the composer, as
  // react-markdown does with `components` written inline: new elements with a button near the
  // composer, which are no attachment of the message.
  function rebuildingThread() {
    if (!mode("rebuilding-thread")) return;
    const form = composer.closest("form");
    if (form) form.insertBefore(thread, form.firstChild);
    const redraw = () => {
      for (const pre of Array.from(thread.querySelectorAll("pre"))) {
        const old = pre.previousElementSibling;
        if (old && old.classList.contains("rebuilt-header")) old.remove();
        const header = document.createElement("div");
        header.className = "rebuilt-header";
        const label = document.createElement("span");
        label.textContent = "code";
        const copy = document.createElement("button");
        copy.type = "button";
        copy.textContent = "Copy code";
        copy.addEventListener("click", () => navigator.clipboard.writeText(pre.textContent));
        header.append(label, copy);
        pre.parentElement.insertBefore(header, pre);
      }
    };
    // After every change the person makes, whichever way the composer takes it.
    for (const kind of ["beforeinput", "input", "paste", "keydown"]) {
      composer.addEventListener(kind, () => { redraw(); setTimeout(redraw, 0); }, true);
    }
  }
  // The whole chat inside a frame ("iframe": of the same origin; "far-frame": of another
  // origin, `localhost` for `127.0.0.1`, which no script of the page may look into): the page
  // itself is only the frame, the chat runs in it.
  const framing = (c) => {
    const modes = c.modes || [];
    const far = modes.includes("far-frame");
    if (window !== window.top || !(far || modes.includes("iframe"))) return false;
    const frame = document.createElement("iframe");
    const url = new URL(location.href);
    if (far) url.hostname = "localhost";
    frame.src = url.href;
    frame.title = "Chat";
    frame.style.cssText = "width: 100%; height: 95vh; border: 0";
    document.body.replaceChildren(frame);
    return true;
  };
  fetch("/api/config")
    .then((r) => r.json())
    .then(loggedIn)
    .then(async (c) => {
      if (framing(c)) return;
      config = Object.assign(config, c);
      controls();
      rebuildingThread();
      await disguise();
      if (config.editor) await mountEditor(config.editor);
      if (config.renderer) renderer = await import("/editors/" + config.renderer + ".js");
      await loadConversation().catch(() => {});
      showHistory().catch(() => {});
      if (config.staleComposer && !editor) {
        model = config.staleComposer;
        renderComposer();
        addChip("stale-draft.txt", false);
      }
      ready();
      // A tab nobody watches (the shape benchmark's baseline): the page sends the message in
      // its address itself, `repeat` times, each `pause` ms after the reply before it ended.
      const params = new URLSearchParams(location.search);
      const autosend = params.get("autosend");
      const repeat = Number(params.get("repeat") || 1);
      const pause = Number(params.get("pause") || 0);
      for (let i = 1; autosend && !editor && i <= repeat; i++) {
        if (i > 1) await new Promise((r) => setTimeout(r, pause));
        model = autosend + (repeat > 1 ? " " + i : "");
        renderComposer();
        await send();
      }
    })
    .catch(ready);
})();
