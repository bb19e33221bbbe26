//! `keyless demo`: the whole loop, offline. A throwaway git workspace, the built-in local chat
//! page with a scripted model, and headless Chromium: the model writes a script, runs it, sends
//! one malformed reply (and corrects it), fixes a typo, commits, and says @@done.

use std::path::PathBuf;
use std::time::Duration;

use crate::app::Choices;
use crate::app::report::Report;
use crate::app::task::{self, Begin};
use crate::chat::local::{LocalChat, Script};
use crate::exit::Status;
use crate::git;
use crate::turn::{Event, Stop};

use super::args::Shared;
use super::report::Human;
use super::terminal::Terminal;

/// The shared options given that the demo does not use.
fn ignored_options(shared: &Shared) -> Vec<&'static str> {
    [
        ("--workspace", shared.workspace.is_some()),
        ("--config", shared.config.is_some()),
        ("--mode", shared.mode.is_some()),
        ("--pace", shared.pace.is_some()),
        ("--site", shared.site.is_some()),
        ("--url", shared.url.is_some()),
        ("--selectors", shared.selectors.is_some()),
        ("--cdp", shared.cdp.is_some()),
        ("--profile", shared.profile.is_some()),
        ("--new-chat", shared.new_chat),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect()
}

/// The scripted model's replies, in order.
const REPLIES: [&str; 4] = [
    include_str!("../../assets/demo/01.reply"),
    include_str!("../../assets/demo/02.reply"),
    include_str!("../../assets/demo/03.reply"),
    include_str!("../../assets/demo/04.reply"),
];

const TASK: &str = "Write greet.sh, a shell script that greets the name given on its command line, run it, make sure the greeting is spelled right, and commit it.";

pub fn run(shared: &Shared) -> Status {
    let ignored = ignored_options(shared);
    if !ignored.is_empty() {
        eprintln!(
            "keyless demo: {} {} no effect here: the demo uses its own throwaway workspace, the local chat page in headless Chromium, and runs every command (only --browser applies)",
            ignored.join(", "),
            if ignored.len() == 1 { "has" } else { "have" }
        );
    }
    match demo(shared.browser.clone()) {
        Ok(status) => status,
        Err(message) => {
            eprintln!("keyless demo: {message}");
            Status::Chat
        }
    }
}

/// The demo's stage: a new folder in the temporary folder (kept, so the user can look at what
/// the model did) holding a git workspace on branch `demo` and the browser's profile, and the
/// local chat page with the scripted model. `keyless demo` and `keyless interactive --local`.
pub(super) struct Stage {
    pub folder: PathBuf,
    pub root: PathBuf,
    pub chat: LocalChat,
}

impl Stage {
    pub(super) fn new(command: &str) -> Result<Stage, String> {
        let folder = tempfile::Builder::new()
            .prefix("keyless-demo-")
            .tempdir()
            .map_err(|e| format!("cannot create a folder for the demo: {e}"))?
            .keep();
        let root = folder.join("workspace");
        std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
        git::init_with_branch(&root, "demo").map_err(|f| f.reason)?;
        eprintln!("keyless {command}: workspace {}", root.display());
        super::progress::note(&format!(
            "keyless {command}: a new folder in the temporary folder, kept so you can look at what the model did; delete {} when done",
            folder.display()
        ));
        let script = Script {
            chunk_chars: 40,
            chunk_delay: Duration::from_millis(8),
            ..Script::replies(REPLIES)
        };
        let chat = LocalChat::start(script)
            .map_err(|e| format!("cannot start the local chat page: {e}"))?;
        Ok(Stage { folder, root, chat })
    }

    /// The browser profile's folder, beside the workspace.
    pub(super) fn profile(&self) -> PathBuf {
        self.folder.join("browser-profile")
    }
}

fn demo(browser: Option<PathBuf>) -> Result<Status, String> {
    let Stage { folder, root, chat } = Stage::new("demo")?;
    // The demo's settings, as a person would write them, beside the workspace (not in it): its
    // scripted model answers at once, pushes nowhere, and needs only git and sh. Its commands
    // are the demo's own, so --mode auto takes whatever this machine can contain.
    let config = folder.join("keyless.json");
    let settings = serde_json::json!({
        "Browser": { "ReplyTimeoutSeconds": 60, "TruncationBudgetSeconds": 5 },
        "Git": { "Push": false },
        "Snapshot": { "Tools": ["git", "sh"] },
        "Sandbox": { "AllowMissing": crate::config::GUARANTEE_NAMES },
    });
    std::fs::write(&config, settings.to_string())
        .map_err(|e| format!("cannot write the demo's settings {}: {e}", config.display()))?;
    let choices = Choices {
        workspace: Some(root.clone()),
        config: Some(config),
        mode: Some(crate::config::Mode::Auto),
        pace: Some(crate::config::Pace::Balanced),
        site: Some("local".to_string()),
        url: Some(chat.url()),
        browser,
        headless: true,
        profile: Some(folder.join("browser-profile")),
        new_chat: true,
        ..Choices::default()
    };
    super::progress::note(&format!(
        "keyless demo: starting headless Chromium on the local chat page {}",
        chat.url()
    ));
    let begin = Begin {
        command: "demo",
        task: TASK,
        check: &|_| Ok(()),
        notice: None,
        until: None,
        attachments: Vec::new(),
    };
    let done = match task::run(&choices, begin, Terminal::here(), &mut Demo { root: &root }) {
        Ok(done) => done,
        Err(task::Refused::Start(e)) => return Err(e.to_string()),
        Err(task::Refused::Check(status)) => return Ok(status),
    };
    if let Stop::Chat(failure) = &done.stop
        && done.summary.is_none()
    {
        // The chat never opened: nothing happened in the folder, which goes.
        let _ = std::fs::remove_dir_all(&folder);
        return Err(format!("{}: {}", failure.code, failure.reason));
    }
    Ok(done.status)
}

/// What a person sees of the demo: what `run` shows, and at the end what the model made.
struct Demo<'a> {
    root: &'a std::path::Path,
}

impl Report for Demo<'_> {
    fn note(&mut self, line: &str) {
        Human.note(line);
    }

    fn warn(&mut self, line: &str) {
        Human.warn(line);
    }

    fn event(&mut self, event: Event) {
        Human.event(event);
    }

    fn finished(&mut self, stop: &Stop, command: &str) -> Status {
        let Stop::Done { message } = stop else {
            return super::stop::report_stop_to(stop, command, super::stop::Out::Stdout);
        };
        println!(
            "Done: {}",
            crate::visible::shown(message.as_deref().unwrap_or_default().trim())
        );
        println!("The model's work is in {}:", self.root.display());
        for entry in std::fs::read_dir(self.root).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name != ".git" && name != ".agent" {
                println!("  {}", crate::visible::shown(&name));
            }
        }
        Status::Success
    }
}
