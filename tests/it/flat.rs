//! Flat as the chat grows (issue 32): what keyless does in the page for one exchange (the
//! send, every look while the reply streams, the read) touches the newest turns and the
//! composer, never the conversation before them. Checked in a real Chromium on the local chat
//! page with earlier exchanges on it, by counting in the page what keyless's own calls read
//! and search: the text of an earlier turn, the page's whole text, a search of the whole
//! page. The time this saves is measured by `cargo bench --bench shape` (docs/benchmarks.md).

use std::time::Duration;

use keyless::chat::ChatDriver;
use keyless::chat::cdp::{CdpDriver, Options};
use keyless::chat::local::{LocalChat, Script};

/// Earlier exchanges on the page before the one looked at.
const EARLIER: usize = 3;

/// Counts, in the page, what keyless's calls (`__keyless.call`) read and search: every
/// `textContent`, `innerText`, `innerHTML` or `outerHTML` read of an earlier turn or of
/// something holding one, every search (`querySelector(All)`, `getElementsBy…`) of the whole
/// page or of something holding an earlier turn, and each look (`state`) with how many such
/// searches it made. The earlier turns are those on the page when it runs but the last two.
const COUNT: &str = r#"(() => {
  const f = (window.__flat = { looks: 0, wideLooks: 0, wide: 0, oldText: 0, pageText: 0, depth: 0, where: [] });
  // Where the first few happened, for the failure's message.
  const note = (what) => { if (f.where.length < 8) f.where.push(what + " " + new Error().stack.split("\n").slice(2, 6).join(" <")); };
  // The turns before the last exchange's: until the new exchange's turns show, the last
  // exchange's are the newest, and a look before the send reads them.
  const old = Array.from(document.querySelectorAll("[data-message-author-role]")).slice(0, -2);
  const holdsOld = (n) => n === document || old.some((o) => n.contains(o) || o.contains(n));
  const api = window.__keyless;
  const call = api.call;
  api.call = function (name, args) {
    f.depth++;
    const before = f.wide;
    try {
      return call.call(this, name, args);
    } finally {
      f.depth--;
      if (name === "state") {
        f.looks++;
        if (f.wide > before) f.wideLooks++;
      }
    }
  };
  const search = (proto, names) => {
    for (const name of names) {
      const original = proto[name];
      proto[name] = function (...a) {
        if (f.depth > 0 && holdsOld(this)) { f.wide++; note(name); }
        return original.apply(this, a);
      };
    }
  };
  search(Document.prototype, ["querySelector", "querySelectorAll", "getElementsByTagName", "getElementsByClassName"]);
  search(Element.prototype, ["querySelector", "querySelectorAll", "getElementsByTagName", "getElementsByClassName"]);
  const text = (proto, name) => {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, {
      configurable: true,
      get() {
        if (f.depth > 0) {
          if (this === document.body || this === document.documentElement) { f.pageText++; note(name); }
          if (holdsOld(this)) { f.oldText++; note(name); }
        }
        return d.get.call(this);
      },
      set(v) { d.set.call(this, v); },
    });
  };
  text(Node.prototype, "textContent");
  text(HTMLElement.prototype, "innerText");
  text(Element.prototype, "innerHTML");
  text(Element.prototype, "outerHTML");
  return true;
})()"#;

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Counted {
    /// Looks at the page (`state`) while waiting for the reply.
    looks: u64,
    /// Looks that searched the whole page or something holding an earlier turn.
    wide_looks: u64,
    /// Such searches, in every call (shown in a failure's message).
    #[serde(rename = "wide")]
    _wide: u64,
    /// Reads of an earlier turn's text (or of something holding one).
    old_text: u64,
    /// Reads of the whole page's text.
    page_text: u64,
    /// Where the first few reads and searches happened.
    #[serde(rename = "where")]
    _where: Vec<String>,
}

fn reply(i: usize) -> String {
    format!("```\n@@say\n<<<MSG\nreply {i}\nMSG>>>\n@@end\n@@next\n@@end\n@@eof\n```\n")
}

/// A reply that streams for about four seconds (some 150 pieces of 40 characters, 25 ms
/// apart).
fn streaming_reply() -> String {
    let lines: String = (0..120)
        .map(|i| format!("line {i:02} of a long answer, as a model writes it.\n"))
        .collect();
    format!("```\n@@say\n<<<MSG\n{lines}MSG>>>\n@@end\n@@next\n@@end\n@@eof\n```\n")
}

/// A chat with [`EARLIER`] exchanges on it, then one more whose send, wait and read are
/// counted.
fn counted_exchange(discovered: bool) -> Counted {
    let replies = (0..EARLIER).map(reply).chain([streaming_reply()]);
    let chat = LocalChat::start(Script {
        chunk_chars: 40,
        chunk_delay: Duration::from_millis(25),
        ..Script::replies(replies)
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options: Options =
        crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
    if discovered {
        options.site = keyless::chat::selectors::load(None)
            .unwrap()
            .unknown_site(&chat.url());
    }
    let mut driver = CdpDriver::start(options).unwrap();
    for i in 0..EARLIER {
        driver.send(&format!("message {i}")).unwrap();
        let read = driver.wait_reply(&mut |_| {}).unwrap();
        assert_eq!(read.text, reply(i));
    }
    assert_eq!(
        driver.evaluate_json(COUNT).unwrap(),
        serde_json::json!(true)
    );
    driver.send("the last message").unwrap();
    let read = driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(read.text, streaming_reply());
    let counted = driver.evaluate_json("window.__flat").unwrap();
    driver.close();
    serde_json::from_value(counted).unwrap()
}

/// Every look while a four-second reply streams, the send before it and the read after it, on
/// a page that knows its selectors and on one found by its shape: no earlier turn's text is
/// read, nor the page's whole text (a login wall is looked for only where no composer shows),
/// and only the few looks after the page changed outside its newest turns search more than
/// those turns.
#[test]
fn an_exchange_reads_no_earlier_turn_and_searches_the_page_only_when_it_changed() {
    for discovered in [false, true] {
        let counted = counted_exchange(discovered);
        let what = if discovered { "discovered" } else { "known" };
        assert_eq!(counted.old_text, 0, "{what}: {counted:?}");
        assert_eq!(counted.page_text, 0, "{what}: {counted:?}");
        // The stream changes the page some 150 times; keyless looks at most of them, and at
        // least every quarter second (a machine under load draws fewer changes).
        assert!(counted.looks >= 12, "{what}: {counted:?}");
        // The page changes outside its newest turns a few times an exchange: the send draws
        // the new turns, the stop control shows and goes, the history list is drawn again.
        // Each such change costs the next look one search; every other look searches nothing
        // but the newest turns.
        assert!(counted.wide_looks <= 8, "{what}: {counted:?}");
    }
}
