//! The chat driver against the local chat page in a real headless Chromium: sending exactly,
//! reading replies byte for byte, never taking a reply before it is finished, and every
//! chat/browser fault producing its code.

use std::path::PathBuf;
use std::time::Duration;

use keyless::catalog::Code;
use keyless::chat::cdp::{CdpDriver, Options};
use keyless::chat::local::{Fault, LocalChat, PageFaults, Script, ScriptedReply};
use keyless::chat::{Channel, ChatDriver, selectors};

struct Setup {
    chat: LocalChat,
    driver: CdpDriver,
    _profile: tempfile::TempDir,
}

fn options(url: String, profile: PathBuf) -> Options {
    let (site_name, site) = selectors::load(None)
        .unwrap()
        .site(Some("local"), None)
        .unwrap();
    Options {
        site_name,
        site,
        url,
        cdp_url: None,
        executable: None,
        headless: true,
        profile,
        reply_timeout: Duration::from_secs(20),
        truncation_budget: Duration::from_secs(1),
    }
}

fn start(script: Script) -> Setup {
    let chat = LocalChat::start(script).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let driver = CdpDriver::start(options(chat.url(), profile.path().to_path_buf())).unwrap();
    Setup {
        chat,
        driver,
        _profile: profile,
    }
}

/// A reply full of what Markdown rendering destroys.
const HOSTILE: &str = "````agentscript\n@@say\n<<<MSG\n*emphasis* and _under_ and **bold** <b>html</b> & stuff\n  two leading spaces\n\ttab\ttab  \ntrailing spaces   \n\n\ntwo blank lines above\nMSG>>>\n@@end\n@@newfile src/a.md\n<<<CONTENT:x7\n# Heading\n- item\n```rust\nfn main() {}\n```\n@@end\nCONTENT>>>\nCONTENT:x7>>>\n@@end\n@@done\n@@end\n@@eof\n````\n";

#[test]
fn a_hostile_reply_is_read_byte_for_byte_through_the_copy_button() {
    let mut s = start(Script::replies([HOSTILE]));
    s.driver.send("Please do the task.").unwrap();
    let reply = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(reply.text, HOSTILE);
    assert_eq!(reply.channel, Channel::CopyButton);
    assert_eq!(s.chat.received(), vec!["Please do the task."]);
    s.driver.close();
}
