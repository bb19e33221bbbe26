//! After a command: what the sandbox refused it. [`Contained`] is what [`Sandbox::command`]
//! hands back with a prepared command; once the command has run, [`Contained::finish`] puts back
//! what it changed among the protected paths, takes away the world's placeholders and cgroups,
//! and says what happened as a [`Refusal`]: a change undone, an access refused, or a note (a
//! limit reached, a destination the proxy refused). Only the command orchestrator
//! (`batch::command`) reads it, and decides from it whether a person is offered to leave the
//! sandbox.
//!
//! [`Sandbox::command`]: super::Sandbox::command

use std::path::PathBuf;

#[cfg(target_os = "linux")]
use super::assemble;
use super::guard::Guard;
use crate::catalog::{Code, Failure};

/// A command prepared by [`Sandbox::command`](super::Sandbox::command): what to check once it
/// has run.
#[derive(Debug)]
pub struct Contained {
    pub(super) guard: Guard,
    /// Whether anything contained the command, so that what it printed may show a refusal.
    pub(super) active: bool,
    /// Where the command could write (the workspace first, its `$TMPDIR` second).
    pub(super) writable: Vec<PathBuf>,
    #[cfg(target_os = "linux")]
    pub(super) after: Option<assemble::After>,
}

impl Contained {
    /// A command nothing contains: nothing to check after it.
    pub(super) fn plain() -> Contained {
        Contained {
            guard: Guard::none(),
            active: false,
            writable: Vec::new(),
            #[cfg(target_os = "linux")]
            after: None,
        }
    }

    /// After the command: puts back whatever it changed among the protected paths (the
    /// fallback), takes away the placeholders and the cgroups (the world), and says whether the
    /// sandbox refused it something or a limit ended it. `failed` is whether the command
    /// failed; `output` is what it printed.
    pub fn finish(mut self, failed: bool, output: &str) -> Option<Refusal> {
        let (notes, refused) = self.notes(output);
        let tampered = self.guard.check();
        if !tampered.is_empty() {
            return Some(Refusal::Tampered(Failure::new(
                Code::SandboxDenied,
                format!(
                    "the command changed paths the model may not change, and keyless undid it: {}. .git, .agent and keyless.json are read-only to commands: use @@commit for git, and leave keyless's configuration to the user.",
                    tampered.join("; ")
                ),
            )));
        }
        if !self.active {
            return None;
        }
        let Some(line) = denial_line(output).or(refused) else {
            return (!notes.is_empty()).then(|| Refusal::Noted(notes.join("\n")));
        };
        if !failed {
            let mut all = vec![format!(
                "note: the command succeeded, but the sandbox may have refused it something: {}",
                line.trim()
            )];
            all.extend(notes);
            return Some(Refusal::Noted(all.join("\n")));
        }
        let mut reason = format!(
            "the sandbox refused an access ({}). Commands may write only in the workspace (not .git, .agent or keyless.json), in $TMPDIR ({}) and in the build caches; the home folder holds only the toolchains, and secret stores read as empty; the network may be off, or reach only the proxy's allow-list. Do it inside the workspace, or tell the user what you need.",
            line.trim(),
            self.writable
                .get(1)
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
        for note in notes {
            reason.push(' ');
            reason.push_str(&note);
        }
        Some(Refusal::Refused(Failure::new(Code::SandboxDenied, reason)))
    }

    /// What the world's edges did to the command (a limit reached, a destination the proxy
    /// refused), as notes for the model, and the refusal line when the proxy refused something.
    #[cfg(target_os = "linux")]
    fn notes(&mut self, output: &str) -> (Vec<String>, Option<String>) {
        let Some(met) = self.after.take().map(assemble::After::finish) else {
            return (Vec::new(), None);
        };
        let mut notes = Vec::new();
        if let Some(limits) = met.limits {
            if met.seen.out_of_memory {
                notes.push(format!(
                    "note: the kernel ended a process of the command for going over its memory limit ({} MiB, Sandbox.MaxMemoryMiB).",
                    limits.memory_bytes / (1024 * 1024)
                ));
            }
            if met.seen.process_limit {
                notes.push(format!(
                    "note: the command reached its limit of {} processes (Sandbox.MaxProcesses), so a process it started could not start.",
                    limits.processes
                ));
            }
        }
        if output.contains("No space left on device") && met.tmp_bytes > 0 {
            notes.push(format!(
                "note: $TMPDIR (/tmp) is the command's own and holds at most {} MiB (Sandbox.TmpSizeMiB); put large files in the workspace.",
                met.tmp_bytes / (1024 * 1024)
            ));
        }
        let refused = (!met.refused.is_empty()).then(|| {
            let each: Vec<String> = met.refused.iter().map(ToString::to_string).collect();
            format!("keyless's proxy refused {}", each.join("; "))
        });
        (notes, refused)
    }

    #[cfg(not(target_os = "linux"))]
    fn notes(&mut self, _output: &str) -> (Vec<String>, Option<String>) {
        (Vec::new(), None)
    }
}

/// What the sandbox refused a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The command changed a protected path, which keyless undid. Never offered to run again
    /// outside the sandbox.
    Tampered(Failure),
    /// The command failed on a refusal; a person may let it run again outside the sandbox.
    Refused(Failure),
    /// The command succeeded, but its output shows a refusal: a line for the model.
    Noted(String),
}

/// The first output line that reads like a refusal by the operating system (EACCES, EPERM,
/// EROFS), cut to a readable length. Heuristic, so it is only consulted for a command that
/// failed inside an active sandbox.
fn denial_line(output: &str) -> Option<String> {
    const SIGNS: &[&str] = &[
        "permission denied",
        "operation not permitted",
        "read-only file system",
        "errno 13",
        "errno 1]",
        "errno 30",
        "eacces",
        "eperm",
        "erofs",
        // A protected path is a mount point: it cannot be removed or renamed either.
        "device or resource busy",
    ];
    const MAX: usize = 200;
    output
        .lines()
        .find(|l| {
            let lower = l.to_ascii_lowercase();
            SIGNS.iter().any(|s| lower.contains(s))
        })
        .map(|l| {
            let mut line: String = l.chars().take(MAX).collect();
            if line.len() < l.len() {
                line.push('…');
            }
            line
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_found_in_the_output() {
        assert_eq!(
            denial_line("building\nsh: 1: cannot create /home/x/y: Permission denied\n"),
            Some("sh: 1: cannot create /home/x/y: Permission denied".into())
        );
        assert_eq!(
            denial_line("touch: cannot touch 'a': Read-only file system"),
            Some("touch: cannot touch 'a': Read-only file system".into())
        );
        assert_eq!(denial_line("error: test failed\n"), None);
    }
}
