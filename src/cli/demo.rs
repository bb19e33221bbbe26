//! `keyless demo`: the whole loop, offline. A throwaway git workspace, the built-in local chat
//! page with a scripted model, and headless Chromium: the model writes a script, runs it, sends
//! one malformed reply (and corrects it), fixes a typo, commits, and says @@done.

use std::path::PathBuf;
use std::time::Duration;

use crate::batch::{self, Settings};
use crate::chat::cdp::{CdpDriver, Options};
use crate::chat::local::{LocalChat, Script};
use crate::config::{Mode, Pace};
use crate::exit::Status;
use crate::git::{self, GitSettings};
use crate::turn::{self, Stop, prompt};
use crate::workspace::Workspace;

use super::args::Shared;
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
    let ws = Workspace::open(&root).map_err(|f| f.reason)?;
    crate::app::logging::init(&root, &mut super::report::Human);
    let options = Options {
        executable: browser,
        reply_timeout: Duration::from_secs(60),
        truncation_budget: Duration::from_secs(5),
        ..Options::local_page(chat.url(), folder.join("browser-profile")).map_err(|f| f.reason)?
    };
    super::progress::note(&format!(
        "keyless demo: starting headless Chromium on the local chat page {}",
        chat.url()
    ));
    let mut driver = match CdpDriver::start(options) {
        Ok(driver) => driver,
        Err(f) => {
            // Nothing happened in it: the folder goes.
            let _ = std::fs::remove_dir_all(&folder);
            return Err(format!("{}: {}", f.code, f.reason));
        }
    };

    let settings = Settings {
        mode: Mode::Auto,
        pace: Pace::Balanced,
        ..Settings::default()
    };
    let snapshot =
        prompt::Snapshot::take(&root, &["git".to_string(), "sh".to_string()], None, None);
    let task =
        crate::app::conversation::Conversation::new_chat().next_task(TASK, &settings, || {
            prompt::first_message(TASK, &settings.limits, settings.pace, &snapshot)
        });
    let mut sandbox = crate::exec::sandbox::Sandbox::new(&root, &Default::default());
    sandbox.quarantine_into(ws.agent(crate::workspace::agent::Agent::Quarantine));
    let mut host = batch::Joined {
        person: Terminal::here(),
        runner: batch::Machine::new(
            root.clone(),
            settings.limits.max_command_output_chars,
            GitSettings {
                push: false,
                ..GitSettings::default()
            },
            None,
            sandbox,
        ),
    };
    let mut report = super::report::Human;
    let stop = turn::run(task, &mut driver, &ws, &mut host, &settings, &mut |event| {
        crate::app::report::Report::event(&mut report, event)
    });
    driver.close();
    match stop {
        Stop::Done { message } => {
            println!(
                "Done: {}",
                crate::visible::shown(message.unwrap_or_default().trim())
            );
            println!("The model's work is in {}:", root.display());
            for entry in std::fs::read_dir(&root)
                .map_err(|e| e.to_string())?
                .flatten()
            {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name != ".git" && name != ".agent" {
                    println!("  {}", crate::visible::shown(&name));
                }
            }
            Ok(Status::Success)
        }
        other => Ok(super::stop::report_stop(other, "demo")),
    }
}
