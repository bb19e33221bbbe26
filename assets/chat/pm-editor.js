// The local chat page's ProseMirror composer (editor: "prosemirror"), mounted from the real
// ProseMirror packages the page's import map points to, as Claude and Grok mount theirs. The
// document is the truth: the message is its paragraphs' text, one line each.
import { EditorState } from "prosemirror-state";
import { EditorView } from "prosemirror-view";
import { schema } from "prosemirror-schema-basic";
import { keymap } from "prosemirror-keymap";
import { baseKeymap } from "prosemirror-commands";

// Enter sends and Shift+Enter starts a new paragraph, as in chat sites' composers; the rest is
// ProseMirror's base keymap (Backspace deletes the selection, and so on).
export function mount(host, attributes, onEnter) {
  const chat = keymap({
    Enter: () => {
      onEnter();
      return true;
    },
    "Shift-Enter": baseKeymap.Enter,
  });
  const view = new EditorView(host, {
    state: EditorState.create({ schema, plugins: [chat, keymap(baseKeymap)] }),
    attributes,
  });
  return {
    text() {
      const lines = [];
      view.state.doc.forEach((block) => lines.push(block.textBetween(0, block.content.size, "\n", "\n")));
      return lines.join("\n");
    },
    clear() {
      const { state } = view;
      view.dispatch(state.tr.delete(0, state.doc.content.size));
    },
    focus() {
      view.focus();
    },
  };
}
