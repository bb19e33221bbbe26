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
  };
  let controller = null;
  let attached = []; // files whose upload succeeded, sent with the next message
  // The conversation's id: in the address (/c/ID) once the first message is sent, as real sites
  // do, so that reopening the address shows the conversation again.
  const match = location.pathname.match(/^\/c\/([A-Za-z0-9_-]+)/);
  let conversation = match ? match[1] : null;

  // --- The composer: one <p> per line; the model is the truth. ---
  function renderComposer() {
    composer.innerHTML = "";
    for (const line of model.split("\n")) {
      const p = document.createElement("p");
      if (line === "") p.appendChild(document.createElement("br"));
      else p.textContent = line;
      composer.appendChild(p);
    }
    const sel = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(composer);
    range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }
  composer.addEventListener("beforeinput", (e) => {
    e.preventDefault();
    switch (e.inputType) {
      case "insertText":
      case "insertReplacementText":
        model += e.data || "";
        break;
      case "insertFromPaste":
      case "insertFromDrop":
        if (!config.ignorePaste) model += e.dataTransfer ? e.dataTransfer.getData("text/plain") : "";
        break;
      case "insertParagraph":
      case "insertLineBreak":
        model += "\n";
        break;
      case "deleteContentBackward": {
        // With a selection (select-all, then Backspace) the selection goes; else one character.
        const sel = window.getSelection();
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
  composer.addEventListener("paste", (e) => {
    e.preventDefault();
    if (config.ignorePaste) return; // Some editors take no synthetic paste.
    model += e.clipboardData.getData("text/plain");
    renderComposer();
  });
  composer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      send();
    }
  });

  // --- Attachments ---
  function addChip(name, failed, file) {
    const chip = document.createElement("span");
    chip.className = "chip" + (failed ? " failed" : "");
    chip.setAttribute("data-testid", failed ? "attachment-failed" : "attachment-chip");
    chip.textContent = name + " ";
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.setAttribute("aria-label", "Remove attachment");
    remove.setAttribute("data-testid", "attachment-remove");
    remove.addEventListener("click", () => {
      attached = attached.filter((f) => f !== file);
      chip.remove();
    });
    chip.appendChild(remove);
    chips.appendChild(chip);
  }
  fileInput.addEventListener("change", () => {
    for (const file of fileInput.files) {
      addChip(file.name, config.uploadFails, file);
      if (!config.uploadFails) attached.push(file);
    }
    fileInput.value = "";
  });

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
      case "replaced": {
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.textContent = "Pasted text.txt";
        body.appendChild(chip);
        break;
      }
      default:
        body.textContent = text;
    }
  }

  function addMessage(role, text) {
    const msg = document.createElement("div");
    msg.className = "msg";
    msg.setAttribute("data-message-author-role", role);
    const body = document.createElement("div");
    body.className = role === "user" ? "body" : "markdown";
    if (role === "user") showUserText(body, text);
    msg.appendChild(body);
    thread.appendChild(msg);
    return msg;
  }

  async function send() {
    const text = editor ? editor.text() : model;
    if (text.trim() === "" || controller) return;
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
    for (const file of attached) payload += "\n\n[attachment " + file.name + "]\n" + (await file.text());
    attached = [];
    addMessage("user", text);
    const reply = addMessage("assistant", "");
    reply.setAttribute("data-done", "false");
    const body = reply.querySelector(".markdown");
    stopButton.hidden = false;
    sendButton.hidden = true;
    controller = new AbortController();
    let raw = "";
    try {
      const res = await fetch("/api/chat", {
        method: "POST",
        body: payload,
        headers: { "x-conversation": conversation },
        signal: controller.signal,
      });
      if (res.status === 413 || res.status === 429) {
        body.innerHTML = '<p class="error-text">' + (await res.text()) + "</p>";
      } else if (!res.ok) {
        body.innerHTML = '<p class="error-text">Something went wrong. ' + res.status + "</p>";
      } else {
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          raw += decoder.decode(value, { stream: true });
          body.innerHTML = window.renderMarkdown(raw);
        }
        raw += decoder.decode();
        body.innerHTML = window.renderMarkdown(raw);
      }
    } catch (err) {
      body.innerHTML = '<p class="error-text">Network error: the message could not be delivered.</p>';
    }
    controller = null;
    finishReply(reply, raw);
    window.__streamEndedAt = performance.now(); // for keyless's latency benchmark
    stopButton.hidden = true;
    sendButton.hidden = false;
  }

  // A finished reply gets its copy button and is marked done.
  function finishReply(reply, raw) {
    reply.setAttribute("data-raw-length", String(raw.length));
    const actions = document.createElement("div");
    actions.className = "actions";
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = "Copy";
    copy.setAttribute("data-testid", "copy-turn-action-button");
    copy.setAttribute("aria-label", "Copy");
    copy.addEventListener("click", () => navigator.clipboard.writeText(raw));
    actions.appendChild(copy);
    reply.appendChild(actions);
    reply.setAttribute("data-done", "true");
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
        chip.className = "chip";
        chip.textContent = file.slice(0, file.indexOf("]"));
        msg.appendChild(chip);
      }
      if (turn.role === "assistant") {
        msg.querySelector(".markdown").innerHTML = window.renderMarkdown(turn.text);
        finishReply(msg, turn.text);
      }
    }
  }
  // Some sites' send buttons answer only a real click (config.realClicksOnly).
  sendButton.addEventListener("click", (e) => {
    if (config.realClicksOnly && !e.isTrusted) return;
    send();
  });
  stopButton.addEventListener("click", () => controller && controller.abort());

  const ready = () => {
    if (!editor) {
      composer.setAttribute("contenteditable", "true");
      composer.setAttribute("role", "textbox");
    }
    document.body.setAttribute("data-ready", "true");
  };
  async function mountProseMirror() {
    const pm = await import("/pm-editor.js");
    const host = document.createElement("div");
    composer.replaceWith(host);
    editor = pm.mount(host, {
      id: "prompt-textarea",
      class: "composer ProseMirror",
      role: "textbox",
      "aria-label": "Message",
    }, send);
  }
  // A login wall, as a site shows to a browser profile that is not logged in: the composer
  // appears once the user has logged in (the server says so).
  async function loggedIn(c) {
    if (!c.loginWall && !c.challenge) return c;
    const title = document.title;
    const wall = document.createElement("div");
    wall.id = "login-wall";
    if (c.challenge) {
      document.title = "Just a moment...";
      wall.textContent = "Verify you are human by completing the action below.";
    } else {
      wall.textContent = "Log in to continue. This chat needs an account.";
    }
    document.body.prepend(wall);
    for (;;) {
      await new Promise((done) => setTimeout(done, 300));
      const now = await (await fetch("/api/config")).json();
      if (!now.loginWall && !now.challenge) {
        wall.remove();
        document.title = title;
        return now;
      }
    }
  }
  fetch("/api/config")
    .then((r) => r.json())
    .then(loggedIn)
    .then(async (c) => {
      config = Object.assign(config, c);
      if (config.editor === "prosemirror") await mountProseMirror();
      await loadConversation().catch(() => {});
      if (config.staleComposer && !editor) {
        model = config.staleComposer;
        renderComposer();
        addChip("stale-draft.txt", false);
      }
      ready();
    })
    .catch(ready);
})();
