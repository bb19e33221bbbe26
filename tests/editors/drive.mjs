// Drives harness.html in headless Chromium over the DevTools Protocol, as keyless does:
// first the in-page suite (paste events, execCommand insertText, renderers), then the real
// Input.insertText, whole and in chunks with the caret put at the end before each, per editor.
//
//   node --experimental-websocket drive.mjs http://127.0.0.1:8765/index.html [editor,editor]
//
// Waits on the page saying it is done (its title), never on a fixed sleep; every wait is bounded.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const url = process.argv[2] + (process.argv[3] ? "?only=" + process.argv[3] : "");
const PORT = 9400 + Math.floor(Math.random() * 500);
// The in-page suite mounts 80 editors; on a busy 2-core machine that takes minutes.
const SUITE_TIMEOUT_MS = 15 * 60 * 1000;
const STEP_TIMEOUT_MS = 60 * 1000;

const profile = mkdtempSync(join(tmpdir(), "keyless-editors-"));
const chromium = spawn("chromium", [
  "--headless=new", "--no-sandbox", "--disable-gpu", `--remote-debugging-port=${PORT}`,
  `--user-data-dir=${profile}`, "about:blank",
], { stdio: "ignore" });
// The profile goes once Chromium has exited: it writes there until then.
const exited = new Promise((resolve) => chromium.once("exit", resolve));
async function stop() {
  chromium.kill();
  await exited;
  rmSync(profile, { recursive: true, force: true });
}

async function until(what, check, timeout) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const targets = await until("Chromium's DevTools endpoint", async () => {
  const list = await (await fetch(`http://127.0.0.1:${PORT}/json/list`)).json();
  return list.find((t) => t.type === "page");
}, STEP_TIMEOUT_MS);
const socket = new WebSocket(targets.webSocketDebuggerUrl);
await new Promise((resolve, reject) => {
  socket.onopen = resolve;
  socket.onerror = reject;
});
let nextId = 1;
const pending = new Map();
socket.onmessage = (message) => {
  const { id, result, error } = JSON.parse(message.data);
  if (!pending.has(id)) return;
  const { resolve, reject } = pending.get(id);
  pending.delete(id);
  if (error) reject(new Error(error.message));
  else resolve(result);
};
function send(method, params = {}) {
  const id = nextId++;
  socket.send(JSON.stringify({ id, method, params }));
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
async function evaluate(expression) {
  const { result, exceptionDetails } = await send("Runtime.evaluate", {
    expression, awaitPromise: true, returnByValue: true,
  });
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description || exceptionDetails.text);
  return result.value;
}
async function open(address, title, timeout) {
  await send("Page.navigate", { url: address });
  await until(`the page's title "${title}"`, async () => (await evaluate("document.title")) === title, timeout);
}

try {
  await open(url, "done", SUITE_TIMEOUT_MS);
  console.log(await evaluate('document.getElementById("results").textContent'));

  await open(url + (url.includes("?") ? "&" : "?") + "cdp", "ready", STEP_TIMEOUT_MS);
  const editors = await evaluate("harness.editors");
  const cases = await evaluate("harness.cases");
  for (const name of editors) {
    for (const chunked of [false, true]) {
      for (const [label, text] of Object.entries(cases)) {
        await evaluate(`harness.mount(${JSON.stringify(name)})`);
        const pieces = chunked ? await evaluate(`harness.chunks(harness.cases[${JSON.stringify(label)}])`) : [text];
        const start = Date.now();
        for (const piece of pieces) {
          await evaluate("harness.caretAtEnd()");
          await send("Input.insertText", { text: piece });
        }
        const verdict = await evaluate(`harness.verdict(${JSON.stringify(label)})`);
        const way = chunked ? "cdp-insertText-chunked" : "cdp-insertText";
        console.log(`${name} ${way} ${label}: ${verdict} [${Date.now() - start} ms]`);
      }
    }
  }
} finally {
  socket.close();
  await stop();
}
