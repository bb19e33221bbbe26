// Playwright-based drivers of a chat page, written the way other tools drive chat sites, for
// `cargo bench --bench peers` (issue 32). The bench starts the browser and the local chat page;
// this script attaches to that browser over CDP, opens one tab per peer on the same page, and
// then does what the bench asks, one JSON line in, one JSON line out:
//
//   {"peer": NAME, "text": PROMPT, "reply": SCRIPTED_REPLY}
//   → {"deliver_ms": …, "delivered_exact": bool, "read_ms": …, "read_exact": bool, "note": …}
//
// A round is one exchange: the prompt delivered (put into the composer, sent, and confirmed by
// the new user turn holding exactly the prompt), then the reply's end noticed and the reply read.
// `deliver_ms` is the whole delivery as the peer's own clock sees it; `read_ms` is measured on
// the page's clock, from the moment the page ended the reply (`window.__streamEndedAt`) to the
// moment the peer held the text, less half of the round trip it took to ask the page.
//
// The peers (what each follows is named; the code is this file's own):
// - "fill": `locator.fill()` into the composer, a click on the send button, a wait for the new
//   user turn, its `innerText` compared with the prompt (the common Playwright script: e.g.
//   llm_burst's ChatGPT injector `box.fill(text)` then a key press; scripts that
//   `page.fill("#prompt-textarea", …)` then click send and `wait_for_selector`). The reply: a
//   wait for the stop button to be hidden, then the `innerText` of the last reply's code block
//   (the same scripts take `inner_text()` of the last `.markdown`; on this page that also holds
//   the block's "code" label, so the peer looks into the block, as readers of code do). A
//   drawn fence has no fence lines, so what it is held to is the script inside the fence,
//   which is all an agent needs of it, less the block's last line break (innerText never gives
//   it; an agent would add it back).
// - "paste": the prompt written to the browser's clipboard, the composer clicked, Control+V, a
//   click on send, the same confirmation (tools that paste through the clipboard: a
//   puppeteer-real-browser journey copies the prompt to the clipboard and pastes it). The
//   reply: the stop button hidden, then the reply's copy button clicked and the clipboard read
//   (CodeWebChat, chatgpt-relay, AIstudioProxyAPI read the real clipboard after the site's copy
//   action), held to the scripted reply as the model sent it.

import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { chromium } from "playwright-core";

const [wsUrl, chatUrl] = process.argv.slice(2);
if (!wsUrl || !chatUrl) {
  console.error("usage: node peers.mjs WS_URL CHAT_URL");
  process.exit(2);
}

// The local page's parts, by the selectors a script for it would use.
const COMPOSER = "#prompt-textarea";
const SEND = "#send-button";
const STOP = "#stop-button";
const USER_TURN = '[data-message-author-role="user"]';
const REPLY = '[data-message-author-role="assistant"]';
const COPY = '[data-testid="copy-turn-action-button"]';
// Long enough for a 60,000-character turn on a loaded machine; a peer that takes longer fails.
const TIMEOUT_MS = 60_000;

const browser = await chromium.connectOverCDP(wsUrl);
const context = browser.contexts()[0];
const origin = new URL(chatUrl).origin;
await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });

const pages = {};
for (const name of ["fill", "paste"]) {
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT_MS);
  await page.goto(chatUrl);
  await page.locator("body[data-ready=true]").waitFor();
  await page.locator(`${COMPOSER}[contenteditable=true]`).waitFor();
  pages[name] = page;
}

/// The new user turn after `before` turns, its text compared with `text`.
async function confirmed(page, before, text) {
  const turn = page.locator(USER_TURN).nth(before);
  await turn.waitFor();
  return (await turn.innerText()) === text;
}

async function deliverByFill(page, text) {
  const before = await page.locator(USER_TURN).count();
  const started = performance.now();
  await page.locator(COMPOSER).fill(text);
  await page.locator(SEND).click();
  const exact = await confirmed(page, before, text);
  return { ms: performance.now() - started, exact };
}

async function deliverByPaste(page, text) {
  const before = await page.locator(USER_TURN).count();
  const started = performance.now();
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.locator(COMPOSER).click();
  await page.keyboard.press("Control+V");
  await page.locator(SEND).click();
  const exact = await confirmed(page, before, text);
  return { ms: performance.now() - started, exact };
}

/// The script inside the reply's first code fence (what innerText of a drawn fence gives).
function fenced(reply) {
  const lines = reply.split("\n");
  const open = lines.findIndex((l) => l.startsWith("```"));
  const close = lines.findIndex((l, i) => i > open && l.startsWith("```"));
  if (open < 0 || close < 0) return reply;
  return lines.slice(open + 1, close).join("\n") + "\n";
}

async function readByInnerText(page, reply) {
  await page.locator(STOP).waitFor({ state: "hidden" });
  const text = await page.locator(REPLY).last().locator("pre code").first().innerText();
  // innerText never gives a block's last line break: the one difference let through.
  return { held: performance.now(), text, exact: text + "\n" === fenced(reply) };
}

async function readByCopy(page, reply) {
  await page.locator(STOP).waitFor({ state: "hidden" });
  await page.locator(REPLY).last().locator(COPY).click();
  const text = await page.evaluate(() => navigator.clipboard.readText());
  return { held: performance.now(), text, exact: text === reply };
}

/// How long after the page ended the reply the peer held it, on the page's clock.
async function sinceEnd(page, held) {
  const asked = performance.now();
  const since = await page.evaluate(() => performance.now() - window.__streamEndedAt);
  const roundTrip = performance.now() - asked;
  return since - (asked - held) - roundTrip / 2;
}

/// Where a text read differs from the one wanted, for the bench's report.
function unlike(got, want) {
  let at = 0;
  while (at < got.length && got[at] === want[at]) at++;
  const around = (t) => JSON.stringify(t.slice(Math.max(0, at - 20), at + 20));
  return `read ${got.length} chars against ${want.length}, first unlike at ${at}: ${around(got)} against ${around(want)}`;
}

const PEERS = {
  fill: { deliver: deliverByFill, read: readByInnerText },
  paste: { deliver: deliverByPaste, read: readByCopy },
};

const lines = createInterface({ input: process.stdin });
process.stdout.write(JSON.stringify({ ready: true, peers: Object.keys(PEERS) }) + "\n");
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const ask = JSON.parse(line);
    const peer = PEERS[ask.peer];
    const page = pages[ask.peer];
    await page.bringToFront();
    const delivered = await peer.deliver(page, ask.text);
    const read = await peer.read(page, ask.reply);
    const readMs = await sinceEnd(page, read.held);
    answer = {
      deliver_ms: delivered.ms,
      delivered_exact: delivered.exact,
      read_ms: readMs,
      read_exact: read.exact,
      note: read.exact ? "" : unlike(read.text, ask.peer === "fill" ? fenced(ask.reply) : ask.reply),
    };
  } catch (e) {
    answer = { error: String(e && e.stack ? e.stack : e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
// Only the connection ends: the browser is the bench's, which closes it.
process.exit(0);
