//! This machine as a [`Runner`]: the model's command lines run with the configured shell in the
//! workspace, each contained by the workspace's [`Sandbox`] (or, when the orchestrator says so,
//! outside it), their output bounded; `@@commit` through git.
//!
//! What this module does not do: decide anything. Whether a line runs, and whether it may leave
//! the sandbox, is the orchestrator's (`command/mod.rs`).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{Attempt, Runner};
use crate::batch::Outcome;
use crate::batch::report::{command_outcome, commit_outcome};
use crate::catalog::{Code, Failure};
use crate::config::Mode;
use crate::exec::Waiting;
use crate::exec::sandbox::{Contained, Sandbox, WorldIdentity};
use crate::git::{self, GitSettings};

/// The workspace's shell, sandbox and git, as the model's commands reach them.
pub struct Machine {
    root: PathBuf,
    max_output_chars: usize,
    git: GitSettings,
    shell: Option<String>,
    sandbox: Sandbox,
    /// A world built ahead for the next command ([`Runner::prepare`]).
    ready: Option<Ready>,
    /// When the repositories were last checked in this batch (`None`: no command of the batch
    /// has run yet).
    checked_at: Option<Instant>,
}

/// A world whose shell waits for its command line, and what it was built as. Its fields drop
/// in order: the world ends before its cgroup and placeholders go.
struct Ready {
    waiting: Waiting,
    contained: Contained,
    identity: WorldIdentity,
    mode: Mode,
}

/// The longest command line handed to a world built ahead: the line goes in one write no
/// longer than the pipe takes at once (`PIPE_BUF`), so its shell reads all of it or nothing;
/// a longer one gets a world of its own (it is rare: a model writes files with `@@newfile`).
const READY_LINE_MOST: usize = crate::exec::WAITING_LINE_MOST;

/// How long after the batch's last look a command looks again whether the person made a
/// repository: a batch's commands run back to back in less, and a person's hand (a
/// confirmation, a `git init` in another terminal) takes longer. The look reads the folders'
/// times only.
const LOOK_AGAIN_AFTER: Duration = Duration::from_secs(1);

impl Machine {
    /// Commands in `root` keep at most `max_output_chars` of their output, run with `shell`
    /// (Commands.Shell, else the platform's) contained by `sandbox`; commits follow `git`.
    pub fn new(
        root: PathBuf,
        max_output_chars: usize,
        git: GitSettings,
        shell: Option<String>,
        sandbox: Sandbox,
    ) -> Machine {
        Machine {
            root,
            max_output_chars,
            git,
            shell,
            sandbox,
            ready: None,
            checked_at: None,
        }
    }

    /// The machine for `root` as the configuration sets it up (git, shell, output limit),
    /// running the model's commands in `sandbox`.
    pub fn from_config(
        root: PathBuf,
        settings: &crate::batch::Settings,
        config: &crate::config::Config,
        sandbox: Sandbox,
    ) -> Machine {
        Machine::new(
            root,
            settings.limits.max_command_output_chars,
            config.git.clone(),
            config.commands.shell.clone(),
            sandbox,
        )
    }

    /// The sandbox the model's commands run in (keyless's own runs in the workspace use it
    /// too: the first message's probes and scripts).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The shell program and its arguments that run `cmd`.
    fn shell_line<'a>(&self, cmd: &'a str) -> (String, [&'a str; 2]) {
        let (program, flag) = crate::exec::shell_program(self.shell.as_deref());
        (program, [flag, cmd])
    }

    /// Runs a prepared command and turns it into a result.
    fn spawn(&self, command: Command, timeout: Duration) -> Outcome {
        match crate::exec::run_command(command, &self.root, timeout, self.max_output_chars) {
            Ok(run) => command_outcome(&run, timeout),
            Err(e) => Outcome::failed(Failure::new(
                Code::CommandFailed,
                format!("the shell could not be started: {e}"),
            )),
        }
    }
}

impl Machine {
    /// Runs `cmd` contained: in the world built ahead where it fits, else in a world of its own.
    fn run_contained(&mut self, cmd: &str, timeout: Duration, mode: Mode) -> Attempt {
        // A world built ahead that does not fit ends first; its placeholders stay until this
        // command's world is done (a placeholder taken away and made again at once, under a
        // world still being torn down, is not always seen by the next one).
        let _ended = match self.in_ready_world(cmd, timeout, mode) {
            Ok(attempt) => return attempt,
            Err(ended) => ended,
        };
        let (program, args) = self.shell_line(cmd);
        let (command, contained) = match self.sandbox.command(mode, &program, &args) {
            Ok(prepared) => prepared,
            Err(e) => {
                return Outcome::failed(Failure::new(
                    Code::SandboxUnavailable,
                    format!("the sandbox could not be set up, so the command was not started: {e}"),
                ))
                .into();
            }
        };
        let outcome = self.spawn(command, timeout);
        let output = outcome
            .block
            .as_ref()
            .map(|(_, t)| t.as_str())
            .unwrap_or_default();
        let refusal = contained.finish(outcome.error.is_some(), output);
        Attempt { outcome, refusal }
    }
}

impl Runner for Machine {
    fn contained(&mut self, cmd: &str, timeout: Duration, mode: Mode) -> Attempt {
        // The batch's first command: a repository the person made while the model answered is
        // found (and a world built ahead without it does not fit); a later one after a while
        // (the person was asked, a command ran long): one made meanwhile is found too.
        let due = self.checked_at.map(|at| at.elapsed() >= LOOK_AGAIN_AFTER);
        match due {
            None => self.sandbox.batch_begins(),
            Some(true) => self.sandbox.batch_goes_on(),
            Some(false) => return self.run_contained(cmd, timeout, mode),
        }
        self.checked_at = Some(Instant::now());
        self.run_contained(cmd, timeout, mode)
    }

    fn unconfined(&mut self, cmd: &str, timeout: Duration) -> Outcome {
        let (program, args) = self.shell_line(cmd);
        self.spawn(self.sandbox.unconfined(&program, &args), timeout)
    }

    fn commit(&mut self, message: &str) -> Outcome {
        // A world built ahead holds placeholders (an empty `keyless.json` where there is none):
        // it goes before git stages the workspace.
        self.ready = None;
        // keyless's own git runs outside the sandbox: with a git and a configuration no command
        // could have planted, and nothing hidden staged.
        let trust = git::Trust {
            git: self.sandbox.trusted_program("git"),
            writable: self.sandbox.writable_by_commands(),
            leave_out: self.sandbox.kept_from_commits(),
        };
        commit_outcome(git::commit(&self.root, message, &self.git, &trust))
    }

    fn batch_finished(&mut self) -> Vec<String> {
        // A world built for a command the batch then skipped (a failure stopped it) may hold
        // placeholders: it goes with the batch, and the turn builds one again where it may.
        self.ready = None;
        self.checked_at = None;
        self.sandbox.batch_finished()
    }

    fn rest(&mut self) {
        self.ready = None;
    }

    fn prepare(&mut self, mode: Mode, placeholders: bool) {
        if self.ready.is_some() || (!placeholders && self.sandbox.needs_placeholders()) {
            return;
        }
        let (program, flag) = crate::exec::shell_program(self.shell.as_deref());
        let Ok(Some((command, contained, identity))) =
            self.sandbox.waiting_command(mode, &program, flag)
        else {
            return;
        };
        match Waiting::spawn(command, &self.root, self.max_output_chars) {
            Ok(waiting) => {
                self.ready = Some(Ready {
                    waiting,
                    contained,
                    identity,
                    mode,
                });
            }
            Err(e) => tracing::info!("no world built ahead: {e}"),
        }
    }
}

impl Machine {
    /// Runs `cmd` in the world built ahead, if there is one and it is still the world the
    /// command would get now: the same mode, and every place it binds, protects or masks the
    /// same file or folder as when it was built. Anything else ends that world, and the
    /// command gets one of its own: `Err` with what the ended world held, to keep until then.
    fn in_ready_world(
        &mut self,
        cmd: &str,
        timeout: Duration,
        mode: Mode,
    ) -> Result<Attempt, Option<Box<Contained>>> {
        // Taken in any case: two worlds of one workspace never run at once.
        let Some(mut ready) = self.ready.take() else {
            return Err(None);
        };
        if cmd.len() > READY_LINE_MOST
            || ready.mode != mode
            || !ready.waiting.waits()
            || self.sandbox.identity(mode).as_ref() != Some(&ready.identity)
        {
            tracing::info!("the world built ahead no longer fits; building the command's own");
            drop(ready.waiting);
            return Err(Some(Box::new(ready.contained)));
        }
        let Ready {
            waiting, contained, ..
        } = ready;
        let started = match waiting.go(cmd) {
            Ok(started) => started,
            Err(_) => return Err(Some(Box::new(contained))),
        };
        let outcome = match started.finish(timeout) {
            Ok(run) => command_outcome(&run, timeout),
            Err(e) => Outcome::failed(Failure::new(
                Code::CommandFailed,
                format!("the shell could not be waited for: {e}"),
            )),
        };
        let output = outcome
            .block
            .as_ref()
            .map(|(_, t)| t.as_str())
            .unwrap_or_default();
        let refusal = contained.finish(outcome.error.is_some(), output);
        Ok(Attempt { outcome, refusal })
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::config::SandboxConfig;

    const TIMEOUT: Duration = Duration::from_secs(20);

    fn machine(root: &Path, config: &SandboxConfig) -> Machine {
        Machine::new(
            root.to_path_buf(),
            8000,
            GitSettings::default(),
            None,
            Sandbox::new(root, config),
        )
    }

    /// Runs git in `ws`, which must succeed; its standard output.
    fn git_in(ws: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(ws)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Makes `ws` a repository on a branch no policy protects, with an author.
    fn repository(ws: &Path) {
        git_in(ws, &["init", "-q", "-b", "work"]);
        git_in(ws, &["config", "user.email", "t@example.com"]);
        git_in(ws, &["config", "user.name", "T"]);
    }

    fn output(attempt: &Attempt) -> String {
        attempt
            .outcome
            .block
            .as_ref()
            .map(|(_, text)| text.clone())
            .unwrap_or_default()
    }

    /// The processes whose command line names `what` (a workspace's path).
    fn processes_naming(what: &str) -> Vec<String> {
        let mut found = Vec::new();
        for entry in fs::read_dir("/proc").unwrap().flatten() {
            if let Ok(line) = fs::read(entry.path().join("cmdline"))
                && String::from_utf8_lossy(&line).contains(what)
            {
                found.push(String::from_utf8_lossy(&line).replace('\0', " "));
            }
        }
        found
    }

    /// Waits until the world built ahead for `ws` is up: its shell, started by the bubblewrap
    /// that names `ws`, waits for its line.
    fn world_up(ws: &Path) {
        let name = ws.display().to_string();
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < until {
            let mut parent = std::collections::HashMap::new();
            let mut line = std::collections::HashMap::new();
            for entry in fs::read_dir("/proc").unwrap().flatten() {
                let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                    continue;
                };
                let status = fs::read_to_string(entry.path().join("status")).unwrap_or_default();
                let ppid = status
                    .lines()
                    .find_map(|l| l.strip_prefix("PPid:"))
                    .and_then(|p| p.trim().parse::<u32>().ok())
                    .unwrap_or(0);
                parent.insert(pid, ppid);
                let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
                line.insert(pid, String::from_utf8_lossy(&cmdline).into_owned());
            }
            let up = line.iter().any(|(pid, l)| {
                if !l.contains("while IFS= read -r KEYLESS_WAIT_LINE") {
                    return false;
                }
                let mut at = *pid;
                for _ in 0..8 {
                    at = parent.get(&at).copied().unwrap_or(0);
                    if line.get(&at).is_some_and(|l| l.contains(&name)) {
                        return true;
                    }
                }
                false
            });
            if up {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the world built ahead never came up");
    }

    /// A command line handed to a world built ahead runs as it does in a world of its own,
    /// byte for byte (quotes, backslashes, a dollar sign, leading spaces, its last line breaks),
    /// with nothing on its standard input.
    #[test]
    fn a_world_built_ahead_runs_the_line_as_a_world_of_its_own() {
        let ws = tempfile::tempdir().unwrap();
        let line = "printf '[%s]' 'a\\b' \"q\\\"uote\" '$HOME' '  lead'\ncat\nprintf '<%s>' \"$(printf 'x\\n\\n')\"\n\n";
        let mut fresh = machine(ws.path(), &SandboxConfig::default());
        let alone = fresh.contained(line, TIMEOUT, Mode::Auto);
        assert!(fresh.ready.is_none());
        let mut ahead = machine(ws.path(), &SandboxConfig::default());
        ahead.prepare(Mode::Auto, true);
        assert!(ahead.ready.is_some(), "no world was built ahead");
        let served = ahead.contained(line, TIMEOUT, Mode::Auto);
        assert!(ahead.ready.is_none(), "the world built ahead was not used");
        assert_eq!(output(&alone), "[a\\b][q\"uote][$HOME][  lead]<x>");
        assert_eq!(output(&served), output(&alone));
        assert_eq!(served.outcome.error, None, "{served:?}");
        // The next world is built again when asked.
        ahead.prepare(Mode::Auto, true);
        let again = ahead.contained("echo again", TIMEOUT, Mode::Auto);
        assert_eq!(output(&again), "again");
    }

    /// The person makes the workspace a repository while a world waits (it was built with a
    /// read-only placeholder where `.git` was missing, which their `.git` replaced): the world
    /// no longer is what a command would get, so the command gets a world of its own, where the
    /// new `.git` is read-only.
    #[test]
    fn a_world_built_ahead_is_not_used_once_a_protected_name_is_another() {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        assert!(machine.ready.is_some(), "no world was built ahead");
        assert!(ws.path().join(".git").is_dir(), "no placeholder");
        world_up(&ws.path().canonicalize().unwrap());
        fs::remove_dir(ws.path().join(".git")).unwrap();
        git_in(ws.path(), &["init", "-q"]);
        let attempt = machine.contained(
            "echo 'echo planted' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
            TIMEOUT,
            Mode::Auto,
        );
        assert!(
            !ws.path().join(".git/hooks/pre-commit").exists(),
            "a hook was planted: {attempt:?}"
        );
    }

    /// A place the configuration hides that appears while a world waits (a credentials file a
    /// tool writes) is hidden from the command all the same.
    #[test]
    fn a_hidden_place_that_appears_while_a_world_waits_stays_hidden() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("token.txt");
        let config = SandboxConfig {
            readable_paths: vec![outside.path().to_path_buf()],
            hidden_paths: vec![secret.clone()],
            ..SandboxConfig::default()
        };
        let mut machine = machine(ws.path(), &config);
        machine.prepare(Mode::Auto, true);
        assert!(machine.ready.is_some(), "no world was built ahead");
        world_up(&ws.path().canonicalize().unwrap());
        fs::write(&secret, "TOPSECRET-4471\n").unwrap();
        let attempt = machine.contained(
            &format!("cat {}; ls {}", secret.display(), outside.path().display()),
            TIMEOUT,
            Mode::Auto,
        );
        assert!(
            !output(&attempt).contains("TOPSECRET-4471"),
            "the secret reached the command: {attempt:?}"
        );
    }

    /// A world built ahead and never used ends with keyless's machine: no process of it is
    /// left, and the placeholder it held where `.git` was missing is gone.
    #[test]
    fn a_world_built_ahead_and_never_used_leaves_nothing() {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        assert!(machine.ready.is_some(), "no world was built ahead");
        let name = ws.path().display().to_string();
        assert!(
            !processes_naming(&name).is_empty(),
            "the world is not running"
        );
        drop(machine);
        assert!(!ws.path().join(".git").exists(), "the placeholder stayed");
        assert_eq!(processes_naming(&name), Vec::<String>::new());
    }

    /// A `@@commit` while a world waits stages none of its placeholders: the world goes
    /// first, and the empty `keyless.json` it held with it; so does one left when a turn ends.
    #[test]
    fn a_commit_or_the_turn_s_end_takes_the_world_built_ahead_and_its_placeholders_away() {
        let ws = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| git_in(ws.path(), args);
        repository(ws.path());
        fs::write(ws.path().join("a.txt"), "a\n").unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        assert!(ws.path().join("keyless.json").exists(), "no placeholder");
        let outcome = machine.commit("Add a");
        assert_eq!(outcome.error, None, "{outcome:?}");
        assert_eq!(git(&["ls-files"]), "a.txt\n");
        assert!(!ws.path().join("keyless.json").exists());
        machine.prepare(Mode::Auto, true);
        assert!(ws.path().join("keyless.json").exists(), "no placeholder");
        machine.rest();
        assert!(!ws.path().join("keyless.json").exists());
        // Nor one built for a command its batch then skipped.
        machine.prepare(Mode::Auto, true);
        assert!(ws.path().join("keyless.json").exists(), "no placeholder");
        machine.batch_finished();
        assert!(!ws.path().join("keyless.json").exists());
        assert!(machine.ready.is_none());
    }

    /// A machine in `ws` whose first batch ran one command and ended, the walk at its end
    /// settled (no folder changed within a tick of it); with a world built ahead while the
    /// model answers when `ahead`. What the person does next happens between batches.
    fn after_a_batch(ws: &Path, ahead: bool) -> Machine {
        after_a_command(ws, ahead, true)
    }

    /// A machine in `ws` that ran one command, its batch ended when `ended` (else the batch
    /// goes on), with a world built ahead for the next command when `ahead`.
    fn after_a_command(ws: &Path, ahead: bool, ended: bool) -> Machine {
        let mut machine = machine(ws, &SandboxConfig::default());
        let first = machine.contained("true", TIMEOUT, Mode::Auto);
        assert_eq!(first.outcome.error, None, "{first:?}");
        if ended {
            std::thread::sleep(Duration::from_millis(100));
            machine.batch_finished();
        }
        if ahead {
            machine.prepare(Mode::Auto, true);
            assert!(machine.ready.is_some(), "no world was built ahead");
            world_up(&ws.canonicalize().unwrap());
        }
        machine
    }

    /// A repository the person makes inside the workspace while the model answers (`git init
    /// sub`, a clone) is theirs: the next batch's command cannot plant a hook in it, in a world
    /// built ahead (which no longer fits) as in a world of its own.
    fn a_repository_made_between_batches_is_protected(ahead: bool) {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = after_a_batch(ws.path(), ahead);
        git_in(ws.path(), &["init", "-q", "sub"]);
        let attempt = machine.contained(
            "echo 'echo planted' > sub/.git/hooks/pre-commit; chmod +x sub/.git/hooks/pre-commit",
            TIMEOUT,
            Mode::Auto,
        );
        assert!(
            !ws.path().join("sub/.git/hooks/pre-commit").exists(),
            "a hook was planted in the person's new repository: {attempt:?}"
        );
        // The person's repository is theirs: not moved away as one a command made.
        assert!(machine.batch_finished().is_empty());
        assert!(ws.path().join("sub/.git/HEAD").exists());
    }

    #[test]
    fn a_repository_made_while_a_world_waits_is_protected() {
        a_repository_made_between_batches_is_protected(true);
    }

    #[test]
    fn a_repository_made_between_batches_is_protected_in_a_world_of_its_own() {
        a_repository_made_between_batches_is_protected(false);
    }

    /// A batch that paused (the person was asked to confirm a command, a command ran long):
    /// a repository the person made meanwhile is protected from the batch's next command, in a
    /// world built ahead (which no longer fits) as in a world of its own.
    fn a_repository_made_while_a_batch_paused_is_protected(ahead: bool) {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = after_a_command(ws.path(), ahead, false);
        std::thread::sleep(LOOK_AGAIN_AFTER + Duration::from_millis(100));
        git_in(ws.path(), &["init", "-q", "sub"]);
        let attempt = machine.contained(
            "echo 'echo planted' > sub/.git/hooks/pre-commit; chmod +x sub/.git/hooks/pre-commit",
            TIMEOUT,
            Mode::Auto,
        );
        assert!(
            !ws.path().join("sub/.git/hooks/pre-commit").exists(),
            "a hook was planted in the repository the person made while the batch paused: {attempt:?}"
        );
        assert!(machine.batch_finished().is_empty());
        assert!(ws.path().join("sub/.git/HEAD").exists());
    }

    #[test]
    fn a_repository_made_while_a_batch_paused_is_protected_in_a_world_built_ahead() {
        a_repository_made_while_a_batch_paused_is_protected(true);
    }

    #[test]
    fn a_repository_made_while_a_batch_paused_is_protected_in_a_world_of_its_own() {
        a_repository_made_while_a_batch_paused_is_protected(false);
    }

    /// A repository a command made that would run a program when git is used there is moved
    /// away when the batch ends, also when the batch found the repositories again since (it
    /// paused after that command): a look within the batch does not make it the person's.
    #[test]
    fn a_command_s_repository_found_within_the_batch_is_still_moved_away() {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        let made = machine.contained(
            "git init -q made && git config -f made/.git/config core.fsmonitor 'echo planted'",
            TIMEOUT,
            Mode::Auto,
        );
        assert_eq!(made.outcome.error, None, "{made:?}");
        std::thread::sleep(LOOK_AGAIN_AFTER + Duration::from_millis(100));
        let next = machine.contained("true", TIMEOUT, Mode::Auto);
        assert_eq!(next.outcome.error, None, "{next:?}");
        let notes = machine.batch_finished();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("core.fsmonitor"), "{notes:?}");
        assert!(!ws.path().join("made/.git/config").exists(), "{notes:?}");
    }

    // An outside attack (a helper who had not read the change): the person's repository made
    // between batches in a folder whose modification time is then set back exactly (`touch
    // -d`, as `tar x`, `rsync -a` and `cp -a` restore folder times).

    /// The modification time of `dir` as `touch -d` reads it back: `@SECONDS.NANOSECONDS`.
    fn exact_mtime(dir: &Path) -> String {
        use std::os::unix::fs::MetadataExt;
        let m = fs::symlink_metadata(dir).unwrap();
        format!("@{}.{:09}", m.mtime(), m.mtime_nsec())
    }

    fn touch_back(dir: &Path, when: &str) {
        let ok = std::process::Command::new("touch")
            .args(["-d", when, &dir.display().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// The person makes a repository in `parent` (relative to the workspace) between batches,
    /// then sets the folder's time back to exactly what it was (`touch -d @…`, as `tar x`,
    /// `rsync -a`, `cp -a` or `touch -r` do to a folder): the folder's time alone says nothing
    /// changed.
    fn a_repository_made_in_a_folder_whose_time_was_set_back(ahead: bool, parent: &str) {
        let ws = tempfile::tempdir().unwrap();
        let parent_dir = ws.path().join(parent);
        fs::create_dir_all(&parent_dir).unwrap();
        // No placeholder needed: a world made or took none away in the root after the walk.
        git_in(ws.path(), &["init", "-q"]);
        fs::create_dir_all(ws.path().join(".agent")).unwrap();
        fs::write(ws.path().join("keyless.json"), "{}\n").unwrap();
        // Settled long before the walk.
        touch_back(&parent_dir, "2020-01-01 00:00:00");
        touch_back(ws.path(), "2020-01-01 00:00:00");
        let mut machine = after_a_batch(ws.path(), ahead);
        let root_time = exact_mtime(ws.path());
        let parent_time = exact_mtime(&parent_dir);
        git_in(&parent_dir, &["init", "-q", "sub"]);
        touch_back(&parent_dir, &parent_time);
        touch_back(ws.path(), &root_time);
        let hook = parent_dir.join("sub/.git/hooks/pre-commit");
        let attempt = machine.contained(
            &format!(
                "echo 'echo planted' > {parent}/sub/.git/hooks/pre-commit; chmod +x {parent}/sub/.git/hooks/pre-commit; git config -f {parent}/sub/.git/config core.fsmonitor 'echo planted'"
            ),
            TIMEOUT,
            Mode::Auto,
        );
        let config = fs::read_to_string(parent_dir.join("sub/.git/config")).unwrap();
        assert!(
            !hook.exists() && !config.contains("fsmonitor"),
            "a hook or core.fsmonitor was planted in the person's repository: {attempt:?}"
        );
    }

    #[test]
    fn a_repository_made_where_the_folder_s_time_was_set_back_is_protected() {
        a_repository_made_in_a_folder_whose_time_was_set_back(false, ".");
    }

    #[test]
    fn a_repository_made_where_the_folder_s_time_was_set_back_is_protected_in_a_world_built_ahead()
    {
        a_repository_made_in_a_folder_whose_time_was_set_back(true, ".");
    }

    #[test]
    fn a_repository_made_deep_where_the_times_were_set_back_is_protected() {
        a_repository_made_in_a_folder_whose_time_was_set_back(false, "vendor/deep/er");
    }

    #[test]
    fn a_repository_made_deep_where_the_times_were_set_back_is_protected_in_a_world_built_ahead() {
        a_repository_made_in_a_folder_whose_time_was_set_back(true, "node_modules/pkg");
    }

    /// Control: the same with no time set back, a repository moved in from outside with `mv`
    /// into a deep new folder tree, a `.git` file pointing into the workspace, and a folder
    /// holding a repository renamed.
    fn person_change_between_batches(ahead: bool, change: &dyn Fn(&Path), hook: &str) {
        let ws = tempfile::tempdir().unwrap();
        fs::create_dir_all(ws.path().join("old/inner")).unwrap();
        git_in(ws.path(), &["init", "-q", "old/inner/repo"]);
        let mut machine = after_a_batch(ws.path(), ahead);
        change(ws.path());
        let attempt = machine.contained(
            &format!(
                "mkdir -p {hook}; rmdir {hook}; echo 'echo planted' > {hook}; chmod +x {hook}"
            ),
            TIMEOUT,
            Mode::Auto,
        );
        assert!(
            !ws.path().join(hook).exists(),
            "a hook was planted at {hook}: {attempt:?}"
        );
    }

    #[test]
    fn a_repository_moved_in_from_outside_into_a_new_deep_tree_is_protected() {
        for ahead in [false, true] {
            let outside = tempfile::tempdir().unwrap();
            let out = outside.path().to_path_buf();
            git_in(&out, &["init", "-q", "other"]);
            person_change_between_batches(
                ahead,
                &|ws: &Path| {
                    fs::create_dir_all(ws.join("x/y/z")).unwrap();
                    fs::rename(out.join("other"), ws.join("x/y/z/other")).unwrap();
                },
                "x/y/z/other/.git/hooks/post-checkout",
            );
        }
    }

    #[test]
    fn a_git_file_pointing_to_a_folder_in_the_workspace_is_protected() {
        for ahead in [false, true] {
            person_change_between_batches(
                ahead,
                &|ws: &Path| {
                    fs::create_dir_all(ws.join("store")).unwrap();
                    git_in(ws, &["init", "-q", "--separate-git-dir", "store/gd", "wt"]);
                },
                "store/gd/hooks/pre-commit",
            );
        }
    }

    #[test]
    fn a_folder_holding_a_repository_renamed_is_protected() {
        for ahead in [false, true] {
            person_change_between_batches(
                ahead,
                &|ws: &Path| {
                    fs::rename(ws.join("old"), ws.join("new")).unwrap();
                },
                "new/inner/repo/.git/hooks/pre-commit",
            );
        }
    }

    #[test]
    fn a_git_file_pointing_to_a_git_folder_moved_in_is_protected() {
        // A `.git` file that pointed outside; the person moves a git folder into the workspace
        // under a name the walk would take for a plain folder only if it were not bare-shaped.
        for ahead in [false, true] {
            let outside = tempfile::tempdir().unwrap();
            let out = outside.path().to_path_buf();
            git_in(&out, &["init", "-q", "--separate-git-dir", "gitdata", "wt"]);
            person_change_between_batches(
                ahead,
                &|ws: &Path| {
                    fs::rename(out.join("gitdata"), ws.join("gitdata")).unwrap();
                    fs::rename(out.join("wt"), ws.join("wt")).unwrap();
                    fs::write(ws.join("wt/.git"), "gitdir: ../gitdata\n").unwrap();
                },
                "gitdata/hooks/pre-commit",
            );
        }
    }

    /// A line too long to hand over in one write runs in a world of its own, whole (the one
    /// built ahead ends first).
    #[test]
    fn a_long_line_gets_a_world_of_its_own() {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        let long = format!("echo {}", "y".repeat(READY_LINE_MOST));
        let attempt = machine.contained(&long, TIMEOUT, Mode::Auto);
        assert_eq!(output(&attempt), "y".repeat(READY_LINE_MOST));
        assert!(machine.ready.is_none());
        let short = machine.contained("echo short", TIMEOUT, Mode::Auto);
        assert_eq!(output(&short), "short");
    }

    // ---- attack32: what a world built ahead must not give a command more than its own ----

    /// The inode of `path`.
    fn inode(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(path).unwrap().ino()
    }

    /// The person replaces the empty `keyless.json` placeholder with their own while a world
    /// waits (`rm keyless.json`, then writes it): on ext4 the freed inode number is handed out
    /// again at once, so device, inode and kind are all the same and the identity holds. But
    /// the world's read-only mount went with the old file (Linux detaches it): the command
    /// rewrites the person's new `keyless.json` (here: turns the sandbox off for the next run).
    #[test]
    fn a_protected_file_replaced_by_one_with_the_same_inode_number_stays_read_only() {
        let ws = tempfile::tempdir_in("/var/tmp").unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        assert!(machine.ready.is_some(), "no world was built ahead");
        world_up(&ws.path().canonicalize().unwrap());
        let config = ws.path().join("keyless.json");
        let before = inode(&config);
        // The freed number comes back at once on a quiet file system; tests running beside
        // this one may take it first, so a few tries.
        fs::remove_file(&config).unwrap();
        fs::write(&config, "{\"Mode\": \"ask\"}\n").unwrap();
        for _ in 0..50 {
            if inode(&config) == before {
                break;
            }
            fs::remove_file(&config).unwrap();
            fs::write(&config, "{\"Mode\": \"ask\"}\n").unwrap();
        }
        let after = inode(&config);
        eprintln!("placeholder inode {before}, the person's {after}");
        let attempt = machine.contained(
            "printf '{\"Sandbox\": {\"Mode\": \"off\"}}\\n' > keyless.json",
            TIMEOUT,
            Mode::Auto,
        );
        assert_eq!(
            fs::read_to_string(&config).unwrap(),
            "{\"Mode\": \"ask\"}\n",
            "the person's keyless.json was rewritten (inodes {before} -> {after}): {attempt:?}"
        );
    }

    /// The same with the `.git` placeholder: the person removes it and makes their repository
    /// (`mkdir .git` gets the freed inode number back); a hook must not be plantable.
    #[test]
    fn a_git_folder_made_again_with_the_same_inode_number_stays_read_only() {
        let ws = tempfile::tempdir_in("/var/tmp").unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        assert!(machine.ready.is_some(), "no world was built ahead");
        world_up(&ws.path().canonicalize().unwrap());
        let git = ws.path().join(".git");
        let before = inode(&git);
        fs::remove_dir(&git).unwrap();
        fs::create_dir(&git).unwrap();
        for _ in 0..50 {
            if inode(&git) == before {
                break;
            }
            fs::remove_dir(&git).unwrap();
            fs::create_dir(&git).unwrap();
        }
        let after = inode(&git);
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(ws.path())
            .status()
            .unwrap();
        assert!(init.success());
        let attempt = machine.contained(
            "echo 'echo planted' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
            TIMEOUT,
            Mode::Auto,
        );
        assert!(
            !git.join("hooks/pre-commit").exists(),
            "a hook was planted (inodes {before} -> {after}): {attempt:?}"
        );
    }

    /// The person's `git clean -fdx` (or an `rm`) takes the world's placeholders away while the
    /// model answers. The next command must still run, with `keyless.json` kept from it, as it
    /// is in a world of its own with no world built ahead.
    #[test]
    fn a_placeholder_removed_while_a_world_waits_does_not_break_the_next_command() {
        let ws = tempfile::tempdir().unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        machine.prepare(Mode::Auto, true);
        assert!(machine.ready.is_some(), "no world was built ahead");
        world_up(&ws.path().canonicalize().unwrap());
        fs::remove_file(ws.path().join("keyless.json")).unwrap();
        fs::remove_dir(ws.path().join(".agent")).unwrap();
        fs::remove_dir(ws.path().join(".git")).unwrap();
        let attempt = machine.contained("echo ran; echo '{}' > keyless.json", TIMEOUT, Mode::Auto);
        assert_eq!(
            output(&attempt).lines().next(),
            Some("ran"),
            "the command did not run: {attempt:?}"
        );
        assert!(
            fs::read(ws.path().join("keyless.json")).map_or(true, |b| b.is_empty()),
            "keyless.json was written: {attempt:?}"
        );
    }

    /// A line with a NUL byte cannot be a program's argument: in a world of its own the shell
    /// is never started. The waiting shell's `read` drops the NUL and runs the rest, a line
    /// other than the one the policy looked at (`r\0m` runs `rm`).
    #[test]
    fn a_line_with_a_nul_runs_in_a_world_built_ahead_no_more_than_in_its_own() {
        let ws = tempfile::tempdir().unwrap();
        fs::write(ws.path().join("precious.txt"), "keep\n").unwrap();
        let line = "r\0m precious.txt; echo ran";
        let mut fresh = machine(ws.path(), &SandboxConfig::default());
        let alone = fresh.contained(line, TIMEOUT, Mode::Auto);
        assert!(alone.outcome.error.is_some(), "{alone:?}");
        assert!(ws.path().join("precious.txt").exists());
        let mut ahead = machine(ws.path(), &SandboxConfig::default());
        ahead.prepare(Mode::Auto, true);
        assert!(ahead.ready.is_some(), "no world was built ahead");
        let served = ahead.contained(line, TIMEOUT, Mode::Auto);
        assert!(
            ws.path().join("precious.txt").exists(),
            "the world built ahead ran `rm precious.txt`: {served:?}"
        );
        assert_ne!(output(&served), "ran");
    }

    /// The waiting shell reads the line into the variables `c` and `l`. Where the person's
    /// environment has either (exported), the command sees keyless's values instead of theirs:
    /// its own line, and the end mark.
    #[test]
    fn the_waiting_shell_leaves_the_command_s_environment_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let mut command = std::process::Command::new("sh");
        command
            .args(["-c", crate::exec::WAITING_SCRIPT, "sh", "-c"])
            .env("c", "person-c")
            .env("l", "person-l");
        let waiting = Waiting::spawn(command, dir.path(), 8000).unwrap();
        let line = "printf '%s|%s' \"$c\" \"$l\"";
        let run = waiting.go(line).unwrap().finish(TIMEOUT).unwrap();
        assert_eq!(run.output, "person-c|person-l");
    }

    /// Every character a line may hold (but NUL) reaches the command as it was: CR, a last
    /// backslash, a line of only breaks, dash's own marker bytes (0x81–0x88) inside UTF-8, a
    /// line one byte short of the most, `-n` and `-e`.
    #[test]
    fn the_waiting_shell_hands_over_every_line_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let mut lines: Vec<String> = vec![
            String::new(),
            "\n".into(),
            "\n\n\n".into(),
            "\\".into(),
            "a\\\n".into(),
            "x\r".into(),
            "\r\n".into(),
            "-n".into(),
            "-e".into(),
            ".".into(),
            "abc\n.".into(),
            "\"'$`".into(),
            " \t ".into(),
        ];
        lines.push((1u32..0x800).filter_map(char::from_u32).collect());
        lines.push("\u{FFFF}\u{10000}\u{10FFFF}€Ё".into());
        lines.push("z".repeat(crate::exec::WAITING_LINE_MOST));
        for line in lines {
            let mut command = std::process::Command::new("sh");
            command.args(["-c", crate::exec::WAITING_SCRIPT, "printf", "%s"]);
            let waiting = Waiting::spawn(command, dir.path(), 1 << 20).unwrap();
            let run = waiting.go(&line).unwrap().finish(TIMEOUT).unwrap();
            assert_eq!(run.output_bytes, line.len() as u64, "{line:?}");
        }
    }

    #[test]
    fn the_person_s_own_commit_while_a_world_waits_is_left_as_they_made_it() {
        let ws = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| git_in(ws.path(), args);
        repository(ws.path());
        fs::write(ws.path().join("a.txt"), "a\n").unwrap();
        let mut machine = machine(ws.path(), &SandboxConfig::default());
        // While the model answers (the turn's call): no world that would need a placeholder.
        machine.prepare(Mode::Auto, false);
        assert!(
            machine.ready.is_none(),
            "a world with placeholders was built ahead"
        );
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "the person's own"]);
        machine.rest();
        assert_eq!(
            git(&["ls-files"]),
            "a.txt\n",
            "the placeholder was committed"
        );
        assert_eq!(git(&["status", "--porcelain"]), "");
    }
}
