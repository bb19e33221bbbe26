// A reply renderer (renderer: "codemirror") that draws each fenced code block in a read-only
// CodeMirror 6 view, as newer ChatGPT does, and the rest of the Markdown with markdown-it. A
// view is only as tall as MAX_HEIGHT and scrolls, so CodeMirror puts only the lines near the
// visible ones in the DOM: the page holds part of the code, the view's state all of it.
import MarkdownIt from "markdown-it";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { javascript } from "@codemirror/lang-javascript";

const MAX_HEIGHT = "200px";
const LANGUAGES = { js: javascript, javascript, jsx: () => javascript({ jsx: true }), ts: () => javascript({ typescript: true }), typescript: () => javascript({ typescript: true }) };

const md = new MarkdownIt({ linkify: true });
// A fence becomes an empty placeholder; renderInto mounts a view in it. The code goes through
// `env` rather than the HTML so that not one byte of it is escaped or reflowed.
md.renderer.rules.fence = (tokens, idx, _options, env) => {
  const token = tokens[idx];
  env.blocks.push({ code: token.content, lang: token.info.trim().split(/\s+/)[0] });
  return `<div class="cm-code-block" data-block="${env.blocks.length - 1}"></div>\n`;
};

const theme = EditorView.theme({
  "&": { maxHeight: MAX_HEIGHT },
  ".cm-scroller": { overflow: "auto" },
});

// Sets `element`'s content to the rendered reply and returns the mounted views, one per fence.
export function renderInto(element, raw) {
  const env = { blocks: [] };
  element.innerHTML = md.render(raw, env);
  return env.blocks.map(({ code, lang }, i) => {
    const language = LANGUAGES[lang];
    return new EditorView({
      parent: element.querySelector(`[data-block="${i}"]`),
      state: EditorState.create({
        // markdown-it ends a fence's content with the newline before the closing fence.
        doc: code.endsWith("\n") ? code.slice(0, -1) : code,
        extensions: [
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          theme,
          syntaxHighlighting(defaultHighlightStyle),
          language ? language() : [],
        ],
      }),
    });
  });
}
