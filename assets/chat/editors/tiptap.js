// A TipTap composer (editor: "tiptap") from TipTap's core and StarterKit, as Claude and Grok
// mount theirs: ProseMirror underneath, with StarterKit's Markdown-like input and paste rules
// switched on, since those rules are what a real site's composer does to a prompt.
import { Editor, Extension } from "@tiptap/core";
import StarterKit from "@tiptap/starter-kit";

export function mount(host, attributes, onEnter) {
  // Enter sends; Shift+Enter stays StarterKit's hard break. A higher priority than StarterKit's
  // keymaps (100) so that Enter never splits the paragraph first.
  const send = Extension.create({
    name: "keylessSend",
    priority: 1000,
    addKeyboardShortcuts: () => ({
      Enter: () => {
        onEnter();
        return true;
      },
    }),
  });
  const editor = new Editor({
    element: host,
    extensions: [StarterKit, send],
    editorProps: { attributes },
  });
  return {
    // One "\n" between paragraphs and one per hard break (HardBreak's own renderText), so that
    // Shift+Enter and a new paragraph read the same; TipTap's default separator is "\n\n".
    text: () => editor.getText({ blockSeparator: "\n" }),
    clear: () => editor.commands.clearContent(true),
    focus: () => editor.commands.focus(),
  };
}
