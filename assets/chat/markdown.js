// A small Markdown renderer that behaves like real chat sites do, on purpose: paragraphs are
// reflowed, leading spaces in paragraphs are dropped, `*` and `_` become emphasis and vanish,
// list and heading markers vanish, and fenced code blocks become <pre><code> with one block
// element per line and no newline characters (so textContent of a code block loses its line
// breaks). Reading a reply back exactly therefore needs the copy button or a careful DOM walk.
(function () {
  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  function inline(text) {
    let out = escapeHtml(text);
    out = out.replace(/`([^`]+)`/g, "<code>$1</code>");
    out = out.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
    out = out.replace(/\*([^*\s][^*]*)\*/g, "<em>$1</em>");
    out = out.replace(/(^|[\s(])_([^_\s][^_]*)_(?=$|[\s).,!?])/g, "$1<em>$2</em>");
    return out;
  }
  function render(raw) {
    const lines = raw.split("\n");
    const html = [];
    let para = [];
    let list = null;
    const flushPara = () => {
      if (para.length) {
        html.push("<p>" + para.map((l) => inline(l.trim())).join("\n") + "</p>");
        para = [];
      }
    };
    const flushList = () => {
      if (list) {
        html.push("<ul>" + list.map((i) => "<li>" + inline(i) + "</li>").join("") + "</ul>");
        list = null;
      }
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = line.match(/^\s*(`{3,}|~{3,})\s*([^`\s]*)/);
      if (fence) {
        flushPara();
        flushList();
        const marker = fence[1];
        const body = [];
        let j = i + 1;
        for (; j < lines.length; j++) {
          const t = lines[j].trim();
          if (t.length >= marker.length && t === marker[0].repeat(t.length)) break;
          body.push(lines[j]);
        }
        const lang = fence[2] ? ' class="language-' + escapeHtml(fence[2]) + '"' : "";
        const rows = body.map((b) => '<span class="line">' + escapeHtml(b) + "</span>").join("");
        html.push("<pre><div class=\"code-header\">" + escapeHtml(fence[2] || "code") +
          "</div><code" + lang + ">" + rows + "</code></pre>");
        i = j;
        continue;
      }
      if (line.trim() === "") {
        flushPara();
        flushList();
        continue;
      }
      const heading = line.match(/^\s*(#{1,6})\s+(.*)$/);
      if (heading) {
        flushPara();
        flushList();
        html.push("<h3>" + inline(heading[2]) + "</h3>");
        continue;
      }
      const item = line.match(/^\s*[-*+]\s+(.*)$/);
      if (item) {
        flushPara();
        (list = list || []).push(item[1]);
        continue;
      }
      flushList();
      para.push(line);
    }
    flushPara();
    flushList();
    return html.join("\n");
  }
  window.renderMarkdown = render;
})();
