// A reply renderer (renderer: "markdown-it") from markdown-it and highlight.js, as ChatGPT and
// Claude render replies: fenced code with a known language comes out split into <span>s.
import MarkdownIt from "markdown-it";
import hljs from "highlight.js";

const md = new MarkdownIt({
  linkify: true,
  highlight(code, lang) {
    if (!lang || !hljs.getLanguage(lang)) return ""; // markdown-it escapes it itself
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  },
});

export function render(raw) {
  return md.render(raw);
}

export function renderInto(element, raw) {
  element.innerHTML = render(raw);
}
