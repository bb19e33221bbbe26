// A plain <textarea> composer (editor: "textarea"), as smaller chat sites use. The browser does
// all the editing, so the value is exactly what was inserted; a synthetic (untrusted) paste event
// inserts nothing here, as on those sites, since only a real paste has a default action.
export function mount(host, attributes, onEnter) {
  const area = document.createElement("textarea");
  for (const [name, value] of Object.entries(attributes)) area.setAttribute(name, value);
  area.rows = 3;
  area.addEventListener("keydown", (e) => {
    // Enter sends; Shift+Enter is the browser's own newline. Not while an IME composes.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      onEnter();
    }
  });
  host.appendChild(area);
  return {
    text: () => area.value,
    clear() {
      area.value = "";
      area.dispatchEvent(new Event("input", { bubbles: true }));
    },
    focus: () => area.focus(),
  };
}
