// A reply renderer (renderer: "marked") from marked, with highlight.js through marked-highlight.
import { Marked } from "marked";
import { markedHighlight } from "marked-highlight";
import hljs from "highlight.js";

const marked = new Marked(
  markedHighlight({
    langPrefix: "hljs language-",
    highlight(code, lang) {
      const language = hljs.getLanguage(lang) ? lang : "plaintext";
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    },
  }),
);

export function render(raw) {
  return marked.parse(raw);
}

export function renderInto(element, raw) {
  element.innerHTML = render(raw);
}
