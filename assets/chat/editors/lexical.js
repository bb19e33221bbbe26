// A Lexical composer (editor: "lexical") with Lexical's rich-text plugin, as ChatGPT reportedly
// mounts one: Lexical owns its DOM, takes typing and pastes through beforeinput and paste events
// and redraws the editable element from its own state.
import {
  $createParagraphNode,
  $getRoot,
  COMMAND_PRIORITY_HIGH,
  KEY_ENTER_COMMAND,
  createEditor,
} from "lexical";
import { HeadingNode, QuoteNode, registerRichText } from "@lexical/rich-text";

export function mount(host, attributes, onEnter) {
  const root = document.createElement("div");
  for (const [name, value] of Object.entries(attributes)) root.setAttribute(name, value);
  root.contentEditable = "true";
  host.appendChild(root);
  const editor = createEditor({
    namespace: "keyless",
    // The rich-text plugin's pasted HTML may hold headings and quotes.
    nodes: [HeadingNode, QuoteNode],
    onError: (error) => console.error(error),
  });
  editor.setRootElement(root);
  registerRichText(editor);
  // Enter sends; Shift+Enter falls through to the plugin, which inserts a line break.
  editor.registerCommand(
    KEY_ENTER_COMMAND,
    (event) => {
      if (event && event.shiftKey) return false;
      if (event) event.preventDefault();
      onEnter();
      return true;
    },
    COMMAND_PRIORITY_HIGH,
  );
  return {
    // A paragraph's own text content has "\n" for each line break and "\t" for each tab; the
    // root's getTextContent() would join paragraphs with "\n\n", so they are joined here instead.
    text: () =>
      editor.getEditorState().read(() =>
        $getRoot()
          .getChildren()
          .map((block) => block.getTextContent())
          .join("\n"),
      ),
    clear() {
      // Synchronous, so that text() right after reads the empty composer.
      editor.update(
        () => {
          $getRoot().clear().append($createParagraphNode());
        },
        { discrete: true },
      );
    },
    focus: () => editor.focus(),
  };
}
