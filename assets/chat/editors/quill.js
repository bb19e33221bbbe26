// A Quill 2 composer (editor: "quill"), as Gemini mounts one. Quill's ES build imports
// quill-delta, which npm ships only as CommonJS, so the browser loads Quill's own UMD bundle as
// a classic script (it defines `window.Quill`), before mount() can be called.
const SCRIPT = "/modules/quill/dist/quill.js";
// Quill's core stylesheet sets `white-space: pre-wrap` on the editor; without it the browser
// collapses typed spaces into non-breaking ones.
const STYLESHEET = "/modules/quill/dist/quill.core.css";

function load(tag, props) {
  return new Promise((resolve, reject) => {
    const el = Object.assign(document.createElement(tag), props);
    el.onload = resolve;
    el.onerror = () => reject(new Error("could not load " + (props.src || props.href)));
    document.head.appendChild(el);
  });
}

if (!window.Quill) {
  await Promise.all([
    load("script", { src: SCRIPT }),
    load("link", { rel: "stylesheet", href: STYLESHEET }),
  ]);
}

export function mount(host, attributes, onEnter) {
  const container = document.createElement("div");
  host.appendChild(container);
  const quill = new window.Quill(container, {
    modules: {
      keyboard: {
        bindings: {
          // Quill runs these before its own Enter handling; Shift+Enter still starts a line.
          send: {
            key: "Enter",
            shiftKey: false,
            handler: () => {
              onEnter();
              return false;
            },
          },
        },
      },
    },
  });
  // Quill's editable element is the `.ql-editor` it creates inside the container.
  const editable = quill.root;
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") editable.classList.add(...value.split(/\s+/).filter(Boolean));
    else editable.setAttribute(name, value);
  }
  return {
    // Every Quill document ends with a "\n" of its own (its last line's end), never typed.
    text: () => quill.getText().replace(/\n$/, ""),
    clear: () => quill.setText(""),
    focus: () => quill.focus(),
  };
}
