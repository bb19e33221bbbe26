//! The first message of a turn: the AgentScript v1 rules in words a model follows, the
//! effective limits and pace, the environment snapshot, and the task. `keyless prompt` prints it.

use std::path::Path;

use crate::config::{Limits, Pace};
use crate::exec::sandbox::{Containment, Mechanism, Source};
use crate::exec::snapshot::Tool;
use crate::workspace::instructions::{Cut, Instructions};

/// Entries of the workspace listing shown to the model.
const MAX_LISTING: usize = 60;

/// The names at the workspace's root the model is shown, a folder with a `/` after it (a link
/// is shown as a name, never followed), without `.git`, `.agent` and what is hidden from it.
pub fn listing(ws: &crate::workspace::Workspace) -> Vec<String> {
    let mut listing: Vec<String> = ws
        .root_entries()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, meta)| {
            let name = name.to_string_lossy().into_owned();
            let kept = name != ".git" && name != ".agent" && !ws.hides(&name);
            kept.then(|| {
                if meta.is_dir() {
                    format!("{name}/")
                } else {
                    name
                }
            })
        })
        .collect();
    listing.sort();
    listing
}

/// What the model is told about the machine.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub os: String,
    pub shell: String,
    pub listing: Vec<String>,
    pub git_status: Option<String>,
    pub tools: Vec<Tool>,
    /// Output of the user's snapshot scripts: (name, output).
    pub scripts: Vec<(String, String)>,
    /// What contains the model's commands.
    pub sandbox: Option<Containment>,
    /// The project's instructions for coding agents (`AGENTS.md` and kin).
    pub instructions: Vec<Instructions>,
}

/// How long one snapshot script may run.
const SCRIPT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
/// How much of a snapshot script's output the model sees.
const SCRIPT_OUTPUT_CHARS: usize = 2_000;

impl Snapshot {
    /// Looks at the workspace and the configured tools.
    ///
    /// The tools' version probes run contained in `sandbox` when there is one: the workspace
    /// may hold what a model planted.
    pub fn take(
        root: &Path,
        tools: &[String],
        shell: Option<&str>,
        sandbox: Option<&crate::exec::sandbox::Sandbox>,
    ) -> Snapshot {
        let listing = crate::workspace::Workspace::open(root)
            .map(|ws| listing(&ws))
            .unwrap_or_default();
        let git_status = crate::git::status_summary(root);
        Snapshot {
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            shell: shell
                .unwrap_or(if cfg!(windows) { "cmd" } else { "sh" })
                .to_string(),
            listing,
            git_status,
            tools: crate::exec::snapshot::probe(tools, root, sandbox),
            scripts: Vec::new(),
            sandbox: None,
            instructions: Vec::new(),
        }
    }

    /// Runs the user's snapshot scripts (`.sh` with sh; `.bat`/`.cmd` with cmd on Windows) and
    /// adds their output. Problems are returned as warnings: the turn goes on without them.
    ///
    /// A script in the workspace may be one a model wrote: with `sandbox` it runs contained.
    pub fn run_scripts(
        &mut self,
        root: &Path,
        scripts: &[String],
        sandbox: Option<&crate::exec::sandbox::Sandbox>,
    ) -> Vec<crate::catalog::Failure> {
        use crate::catalog::{Code, Failure};
        let mut warnings = Vec::new();
        for script in scripts {
            let path = root.join(script);
            if !path.is_file() {
                warnings.push(Failure::new(
                    Code::SnapshotMissing,
                    format!("the snapshot script {script} does not exist (Snapshot.Scripts)"),
                ));
                continue;
            }
            let line = if cfg!(windows) {
                format!("\"{}\"", path.display())
            } else {
                format!("sh '{}'", path.display())
            };
            let ran = match sandbox {
                Some(sandbox) => {
                    let (program, flag) = crate::exec::shell_program(None);
                    sandbox.own_command(&program, &[flag, &line]).and_then(
                        |(command, contained)| {
                            let run = crate::exec::run_command(
                                command,
                                root,
                                SCRIPT_TIMEOUT,
                                SCRIPT_OUTPUT_CHARS,
                            );
                            if let Ok(run) = &run {
                                contained.finish(run.code != Some(0), &run.output);
                            }
                            run
                        },
                    )
                }
                None => crate::exec::run(&line, root, SCRIPT_TIMEOUT, SCRIPT_OUTPUT_CHARS),
            };
            match ran {
                Ok(run) if run.code == Some(0) && !run.output.trim().is_empty() => {
                    self.scripts
                        .push((script.clone(), run.output.trim_end().to_string()));
                }
                Ok(run) if run.code == Some(0) => warnings.push(Failure::new(
                    Code::SnapshotMissing,
                    format!("the snapshot script {script} printed nothing"),
                )),
                Ok(run) => warnings.push(Failure::new(
                    Code::SnapshotRunFailed,
                    match run.code {
                        Some(code) => format!(
                            "the snapshot script {script} exited with code {code}: {}",
                            run.output.trim()
                        ),
                        None if run.timed_out => format!(
                            "the snapshot script {script} ran longer than {}s",
                            SCRIPT_TIMEOUT.as_secs()
                        ),
                        None => format!("the snapshot script {script} was ended by a signal"),
                    },
                )),
                Err(e) => warnings.push(Failure::new(
                    Code::SnapshotRunFailed,
                    format!("the snapshot script {script} could not start: {e}"),
                )),
            }
        }
        warnings
    }
}

/// A next task in a chat that has the rules already.
///
/// The turn's number makes the message unique in its chat: a resumed turn recognises its
/// message on the page by its text, and the same task given twice must not be taken for the
/// earlier one (whose reply would then be carried out again).
pub fn follow_up(task: &str, turn: u64) -> String {
    format!("Next task (turn {turn}; reply in AgentScript v1 only):\n{task}\n")
}

/// The message for the next task in a chat that had `chat_rules`: the task, after a note when
/// the pace differs from the one those rules stated (the user changed it since).
pub fn next_task(task: &str, turn: u64, chat_rules: &str, pace: Pace, limits: &Limits) -> String {
    let stated = chat_rules
        .split_once("(pace ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(name, _)| name);
    match stated {
        Some(name) if name != pace.name() => pace_changed(pace, limits) + &follow_up(task, turn),
        _ => follow_up(task, turn),
    }
}

/// What a chat is told when the user changed the pace since its rules were sent.
fn pace_changed(pace: Pace, limits: &Limits) -> String {
    let mut out = format!(
        "The user changed the pace to {}: from now on at most {} command(s) per reply besides @@say; further ones are skipped and you must resend them.\n",
        pace.name(),
        pace.limit(limits)
    );
    if pace == Pace::Step {
        out.push_str("Send one command, then @@next, and check its result before the next one.\n");
    }
    out
}

/// The rules, limits, snapshot and task, as one message.
pub fn first_message(task: &str, limits: &Limits, pace: Pace, snapshot: &Snapshot) -> String {
    let limit = pace.limit(limits);
    let mut out = String::new();
    out.push_str(&format!(
        "You are a coding agent working in a folder on the user's machine through keyless. You act only by replying in AgentScript v1, which keyless executes and answers with a results message. Reply with one fenced code block (use a longer fence, e.g. ````, when file content holds ``` lines) containing only AgentScript:

@@command [argument]
<<<SECTION
content lines
SECTION>>>
@@end
... more blocks ...
@@eof

Commands (names are lowercase; paths are relative to the workspace root, use /, never .., never inside .git or .agent):
- @@say + MSG: tell the user something (the only way to talk).
- @@newfile PATH + CONTENT: create a file (fails if it exists).
- @@updatefile PATH + CONTENT: replace a whole file.
- @@editfile PATH + FIND + REPLACE: replace the one exact occurrence of FIND (copy FIND from the file; it must match exactly once).
- @@deletefile PATH, @@readfile PATH, @@mkdir PATH: no sections.
- @@movefile PATH + TO: move a file (never overwrites).
- @@runcommand [timeout=SECONDS] [on_error=continue] + CMD: run one command line in the workspace ({shell}); no interactive programs.
- @@ask + MSG: ask the user a question.
- @@commit + MSG: stage everything and commit (then push when there is an origin).
- @@next (optional MSG): run this batch and send me the results. @@done (optional MSG): the task is finished.

Rules:
- Markers count only as whole lines. If a file must contain a line equal to its end marker, open the section with a nonce, e.g. <<<CONTENT:x7 ... CONTENT:x7>>>.
- Each CONTENT line is written as is; files end with a newline.
- At most {limit} command(s) per reply besides @@say (pace {pace}); further ones are skipped and you must resend them.
- A reply holds at most {response} characters and a section at most {content}; split bigger work over several replies.
- Command output is cut to {output} characters (head and tail).
- Nothing outside blocks: no prose before or after the block. End with @@eof.
- Finish with @@done only after you have seen that the work succeeded.
",
        shell = snapshot.shell,
        limit = limit,
        pace = pace.name(),
        response = limits.max_response_chars,
        content = limits.max_file_content_chars,
        output = limits.max_command_output_chars,
    ));
    if pace == Pace::Step {
        out.push_str("- Step pace: send one command, then @@next, and check its result before the next one.\n");
    }
    out.push_str("\nEnvironment:\n");
    out.push_str(&format!(
        "- OS: {}; shell: {}\n",
        snapshot.os, snapshot.shell
    ));
    let shown: Vec<&str> = snapshot
        .listing
        .iter()
        .take(MAX_LISTING)
        .map(String::as_str)
        .collect();
    let more = snapshot.listing.len().saturating_sub(MAX_LISTING);
    out.push_str(&format!(
        "- Workspace: {}{}\n",
        if shown.is_empty() {
            "(empty)".to_string()
        } else {
            shown.join(", ")
        },
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ));
    out.push_str(&format!(
        "- Git: {}\n",
        snapshot.git_status.as_deref().unwrap_or("not a repository")
    ));
    if !snapshot.tools.is_empty() {
        let tools: Vec<String> = snapshot
            .tools
            .iter()
            .map(|t| format!("{} ({})", t.name, t.version.as_deref().unwrap_or("Missing")))
            .collect();
        out.push_str(&format!("- Tools: {}\n", tools.join("; ")));
    }
    if let Some(sandbox) = &snapshot.sandbox {
        out.push_str(&format!("- {}\n", sandbox.line()));
        out.push_str(&sandbox_rule(sandbox));
    }
    for (name, output) in &snapshot.scripts {
        out.push_str(&format!("- {name}:\n{output}\n"));
    }
    out.push_str(&project_instructions(&snapshot.instructions));
    out.push_str("\nTask:\n");
    out.push_str(task.trim());
    out.push('\n');
    out
}

/// The project's instructions, each file under its path; cut or left-out files say how to read
/// them. Empty without any.
fn project_instructions(files: &[Instructions]) -> String {
    if files.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\nProject instructions (the workspace's own files for coding agents, as written: follow them unless they contradict the rules above; a file deeper in the tree takes precedence for the files under it):\n",
    );
    for file in files {
        out.push_str(&format!("--- {} ---\n", file.path));
        if !file.text.is_empty() {
            out.push_str(&file.text);
            out.push('\n');
        }
        match file.cut {
            None => {}
            Some(Cut::Partly { bytes }) => out.push_str(&format!(
                "[cut here: the instructions keyless sends are limited; {} has {bytes} bytes: read the rest with @@readfile {}]\n",
                file.path, file.path
            )),
            Some(Cut::Left { bytes }) => out.push_str(&format!(
                "[not shown: the instructions keyless sends are limited; read this file ({bytes} bytes) with @@readfile {}]\n",
                file.path
            )),
        }
    }
    out
}

/// What the model's commands may reach, in the words the model acts on.
fn sandbox_rule(sandbox: &Containment) -> String {
    match sandbox.mechanism {
        Mechanism::None => {
            return "- Your commands are not sandboxed on this machine; still, never write outside the workspace.\n".to_string();
        }
        Mechanism::World => {
            return format!(
                "- Your commands run in a sandbox of their own: the system's folders read-only; the workspace writable, but .git, .agent and keyless.json read-only (commit with @@commit); an empty home folder but for the toolchains; build caches writable but private to this workspace; $TMPDIR is /tmp, the command's own, gone when it ends; no other process is visible, and nothing a command starts outlives it; the network is {}. A refused access fails with KA_SANDBOX_DENIED: do the work another way instead of retrying.\n",
                network_words(sandbox)
            );
        }
        Mechanism::Landlock(_) | Mechanism::Seatbelt => {}
    }
    format!(
        "- Your commands run in a sandbox: they may write only inside the workspace, in $TMPDIR and in the build caches; .git, .agent and keyless.json are read-only (commit with @@commit); secret stores such as ~/.ssh read as empty and secret environment variables are not set; the network is {}. A refused access fails with KA_SANDBOX_DENIED: do the work another way instead of retrying.\n",
        if sandbox.network { "on" } else { "off" }
    )
}

/// Where the network of the world's commands goes, in the words the model acts on: through the
/// proxy, the hosts it reaches.
fn network_words(sandbox: &Containment) -> String {
    if !sandbox.network {
        return "off".to_string();
    }
    if !sandbox.proxied() {
        return "on".to_string();
    }
    const NEVER: &str =
        "nothing on this machine, no cloud metadata service and no internal address is reachable";
    if sandbox.allow.any() {
        return format!(
            "on only through a proxy (HTTPS_PROXY is set) to public hosts over HTTP(S); {NEVER}"
        );
    }
    // The hosts of the user's own tool settings (a company's mirror) are counted, not named: the
    // tools find them themselves, and the chat site need not learn the user's internal names.
    let (tools, named): (Vec<_>, Vec<_>) = sandbox
        .allow
        .entries()
        .iter()
        .partition(|e| matches!(e.from, Source::Tool { .. }));
    if named.is_empty() && tools.is_empty() {
        return "on, but its proxy reaches no host (its allow-list is empty)".to_string();
    }
    let mut hosts: Vec<String> = named.iter().map(|e| e.pattern.to_string()).collect();
    if !tools.is_empty() {
        hosts.push(format!(
            "and {} registr{} your tools' settings name",
            tools.len(),
            if tools.len() == 1 { "y" } else { "ies" }
        ));
    }
    format!(
        "on only through a proxy (HTTPS_PROXY is set) that reaches only these hosts (package registries and git hosts) over HTTP(S): {}; any other host is refused without being looked up, and {NEVER}",
        hosts.join(", ")
    )
}

/// The first message of a new chat that continues a turn: the rules and task, what was done so
/// far (the last `keep` commands), and the message that was due when the old chat filled up.
/// What comes before the message a continuation carries.
const DUE_HEADER: &str = "\nThe last message keyless sent, which you have not answered yet:\n";

pub(super) fn continuation(rules: &str, done: &[String], due: &str, keep: usize) -> String {
    // A message that carries the rules already (a continuation that went into a chat gone
    // again) is not wrapped again: only its own due message is kept, or none for the first
    // message, so a chat gone time after time never nests the rules and the task.
    let mut due = due;
    if !rules.is_empty() && due.starts_with(rules) {
        due = due.find(DUE_HEADER).map_or(rules, |at| {
            due[at + DUE_HEADER.len()..]
                .strip_suffix('\n')
                .unwrap_or(&due[at + DUE_HEADER.len()..])
        });
    }
    let mut out = rules.to_string();
    out.push_str("\nThis task continues from a chat that reached its length limit. Already done, oldest first:\n");
    let skip = done.len().saturating_sub(keep);
    if skip > 0 {
        out.push_str(&format!("- ({skip} earlier commands)\n"));
    }
    for line in &done[skip..] {
        out.push_str(&format!("- {line}\n"));
    }
    if done.is_empty() {
        out.push_str("- nothing yet\n");
    }
    if due != rules {
        out.push_str(DUE_HEADER);
        out.push_str(due);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_task_says_so_when_the_pace_changed_since_the_rules() {
        let limits = Limits::default();
        let snapshot = Snapshot::take(Path::new("."), &[], Some("sh"), None);
        let rules = first_message("first", &limits, Pace::Balanced, &snapshot);
        assert_eq!(
            next_task("second", 2, &rules, Pace::Balanced, &limits),
            follow_up("second", 2)
        );
        let changed = next_task("second", 2, &rules, Pace::Step, &limits);
        assert!(
            changed.starts_with(
                "The user changed the pace to Step: from now on at most 1 command(s) per reply"
            ),
            "{changed}"
        );
        assert!(changed.contains("then @@next"), "{changed}");
        assert!(changed.ends_with(&follow_up("second", 2)), "{changed}");
        // Rules that state no pace (not keyless's own): nothing to compare, no note.
        assert_eq!(
            next_task("second", 2, "THE RULES", Pace::Step, &limits),
            follow_up("second", 2)
        );
    }

    /// A chat gone again and again (a limit before the first message ever went, resumed three
    /// times: a fourth outside attack) never nests the rules and the task: each continuation
    /// carries them once, with the message that was due.
    #[test]
    fn a_continuation_of_a_continuation_carries_the_rules_once() {
        let rules = "THE RULES\nTask: write a.txt";
        let done = vec!["newfile a.txt: ok".to_string()];
        let once = continuation(rules, &done, rules, 20);
        let twice = continuation(rules, &done, &once, 20);
        assert_eq!(twice, once);
        assert_eq!(twice.matches("THE RULES").count(), 1, "{twice}");
        let results = "[KEYLESSAGENT RESULTS] turn=1 batch=1\n...";
        let first = continuation(rules, &done, results, 20);
        let again = continuation(rules, &done, &first, 20);
        assert_eq!(again, first);
        assert_eq!(again.matches("THE RULES").count(), 1, "{again}");
        assert!(again.ends_with(&format!("{results}\n")), "{again}");
    }
}
