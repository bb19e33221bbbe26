//! The agent's own overhead per iteration (issue 6): from the moment the driver sees the model's
//! reply finished to the results message being sent and confirmed, with batches of file commands
//! only (no command run time to subtract). Add the end-of-stream detection latency measured by
//! `cargo bench --bench chat` (about 3 ms). Target: median under 250 ms.
//! Run: `cargo bench --bench turn`.

use std::time::{Duration, Instant};

use keyless::batch::Settings;
use keyless::catalog::Failure;
use keyless::chat::cdp::{CdpDriver, Options};
use keyless::chat::local::{LocalChat, Script};
use keyless::chat::{ChatDriver, Reply};
use keyless::config::Mode;
use keyless::turn;
use keyless::workspace::Workspace;

#[path = "../tests/it/common/quiet_host.rs"]
mod quiet_host;
use quiet_host::Quiet;

const ITERATIONS: usize = 15;

struct Timed {
    inner: CdpDriver,
    finished: Option<Instant>,
    overheads: Vec<f64>,
}

impl ChatDriver for Timed {
    fn send(&mut self, message: &str) -> Result<(), Failure> {
        let result = self.inner.send(message);
        if let Some(finished) = self.finished.take() {
            self.overheads.push(finished.elapsed().as_secs_f64() * 1e3);
        }
        result
    }
    fn wait_reply(&mut self, progress: &mut dyn FnMut(usize)) -> Result<Reply, Failure> {
        let reply = self.inner.wait_reply(progress)?;
        self.finished = Some(reply.finished_at);
        Ok(reply)
    }
    fn new_chat(&mut self) -> Result<(), Failure> {
        self.inner.new_chat()
    }
    fn take_warnings(&mut self) -> Vec<keyless::catalog::Failure> {
        self.inner.take_warnings()
    }
    fn site(&self) -> String {
        self.inner.site()
    }
    fn chat_url(&mut self) -> Option<String> {
        self.inner.chat_url()
    }
    fn reopen(
        &mut self,
        url: &str,
        pending: Option<&str>,
    ) -> Result<keyless::chat::Reopened, Failure> {
        self.inner.reopen(url, pending)
    }
}

fn main() {
    let mut replies: Vec<String> = (0..ITERATIONS)
        .map(|i| format!("```\n@@newfile src/f{i}.rs\n<<<CONTENT\npub fn f{i}() {{}}\nCONTENT>>>\n@@end\n@@editfile src/f{i}.rs\n<<<FIND\nf{i}()\nFIND>>>\n<<<REPLACE\nf{i}(x: u32)\nREPLACE>>>\n@@end\n@@readfile src/f{i}.rs\n@@end\n@@eof\n```"))
        .collect();
    replies.push("@@done\n@@end\n@@eof".to_string());
    let chat = LocalChat::start(Script {
        chunk_chars: 200,
        chunk_delay: Duration::from_millis(5),
        ..Script::replies(replies)
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options = Options::local_page(chat.url(), profile.path().to_path_buf()).unwrap();
    options.reply_timeout = Duration::from_secs(30);
    options.truncation_budget = Duration::from_secs(2);
    let inner = CdpDriver::start(options).unwrap();
    let mut driver = Timed {
        inner,
        finished: None,
        overheads: Vec::new(),
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let settings = Settings {
        mode: Mode::Auto,
        ..Settings::default()
    };
    let stop = turn::run(
        "benchmark".into(),
        &mut driver,
        &ws,
        &mut Quiet,
        &settings,
        &mut |_| {},
    );
    assert!(matches!(stop, turn::Stop::Done { .. }), "{stop:?}");
    let mut o = driver.overheads.clone();
    o.sort_by(f64::total_cmp);
    println!(
        "turn/overhead_per_iteration: median {:.1} ms, max {:.1} ms over {} iterations (read the reply, parse, 3 file commands with backups, render, send and confirm the results)",
        o[o.len() / 2],
        o[o.len() - 1],
        o.len()
    );
    driver.inner.close();
}
