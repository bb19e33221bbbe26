//! Running command lines: the platform shell, the workspace as working folder, standard input
//! closed, a non-interactive environment, one pipe for stdout and stderr so their order is kept,
//! bounded capture, and a timeout or Ctrl+C that ends the whole process group.
//!
//! Architecture Invariant: the only module that starts processes for the model (git's push
//! aside, which `git.rs` runs the same way through [`run`]).

pub(crate) mod capture;
pub mod sandbox;
pub(crate) mod snapshot;
pub(crate) mod which;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use capture::Capture;

/// Marks every descriptor keyless inherited beyond the standard three close-on-exec, so that
/// nothing its parent left open (a folder, a socket, a pipe) reaches a process keyless starts:
/// a descriptor is a way past every sandbox. Called once, first thing.
pub fn inherit_nothing() {
    #[cfg(target_os = "linux")]
    // SAFETY: close_range marks descriptors; it touches no memory.
    unsafe {
        // CLOSE_RANGE_CLOEXEC (Linux 5.11); older kernels: the sandbox's child marks them too.
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            4 as libc::c_uint,
        );
    }
}

/// How often the runner looks at the clock and the cancel flag while a command runs: every
/// millisecond at first, then every `POLL` once it has run for `QUICK`. Where the kernel has
/// pidfds ([`Exit`]) the command's end wakes the runner at once; elsewhere these intervals are
/// how late a quick command (`git status`, `cat`) is noticed.
const POLL: Duration = Duration::from_millis(10);
const FIRST_POLL: Duration = Duration::from_millis(1);
const QUICK: Duration = Duration::from_millis(50);
/// After SIGTERM, how long the process group gets before SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(500);
/// Read size for the output pipe.
const CHUNK: usize = 64 * 1024;
/// After the command ends, how long to wait for the output pipe to close (a process that left
/// the group may still hold it); what was read by then is the output.
const DRAIN: Duration = Duration::from_secs(2);

/// Environment that keeps tools from waiting for a person or decorating output.
const NON_INTERACTIVE: &[(&str, &str)] = &[
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GCM_INTERACTIVE", "never"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_EDITOR", "true"),
    ("EDITOR", "true"),
    ("VISUAL", "true"),
    ("DEBIAN_FRONTEND", "noninteractive"),
    ("PIP_NO_INPUT", "1"),
    ("NO_COLOR", "1"),
    ("CARGO_TERM_COLOR", "never"),
    ("TERM", "dumb"),
    ("CI", "1"),
    ("HOMEBREW_NO_AUTO_UPDATE", "1"),
    // A repository's own configuration must not make a read-only git command run a program.
    ("GIT_CONFIG_COUNT", "1"),
    ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
    ("GIT_CONFIG_VALUE_0", "false"),
];

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    /// The exit code; `None` when a signal ended the process.
    pub code: Option<i32>,
    pub duration: Duration,
    pub output: String,
    pub output_bytes: u64,
    pub timed_out: bool,
    pub cancelled: bool,
}

/// Runs `line` with the platform shell in `cwd`.
pub fn run(
    line: &str,
    cwd: &Path,
    timeout: Duration,
    max_output_chars: usize,
) -> std::io::Result<Run> {
    run_with_shell(line, None, cwd, timeout, max_output_chars)
}

/// Runs `line` with `shell` (Commands.Shell), or the platform shell: `sh -c` on Unix, `cmd /C`
/// on Windows.
pub fn run_with_shell(
    line: &str,
    shell: Option<&str>,
    cwd: &Path,
    timeout: Duration,
    max_output_chars: usize,
) -> std::io::Result<Run> {
    let (shell, flag) = shell_program(shell);
    let mut command = Command::new(shell);
    command.arg(flag).arg(line);
    run_command(command, cwd, timeout, max_output_chars)
}

/// The program and flag that run a command line: `shell` (Commands.Shell) or the platform's,
/// with `-c`, or `/C` for `cmd`.
pub fn shell_program(shell: Option<&str>) -> (String, &'static str) {
    let default = if cfg!(windows) { "cmd" } else { "sh" };
    let shell = shell.unwrap_or(default);
    let name = shell
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(shell)
        .to_ascii_lowercase();
    let flag = if name == "cmd" || name == "cmd.exe" {
        "/C"
    } else {
        "-c"
    };
    (shell.to_string(), flag)
}

/// Runs a prepared command the same way (used for `git push`).
pub fn run_command(
    command: Command,
    cwd: &Path,
    timeout: Duration,
    max_output_chars: usize,
) -> std::io::Result<Run> {
    Started::spawn(command, cwd, max_output_chars, Stdio::null())?.finish(timeout)
}

/// The line a [`Waiting`] shell reads and runs: the command line, then this mark, which keeps
/// the line's own last line breaks (a shell's `read` drops the one it stops at).
const LINE_END: &str = ".";

/// The longest command line a [`Waiting`] shell is handed: with [`LINE_END`], what a pipe
/// takes in one write (`PIPE_BUF` is 4096 bytes on Linux).
pub const WAITING_LINE_MOST: usize = 4096 - LINE_END.len();

/// The script of a shell that waits for its command line: it reads the line from its standard
/// input to the end, then becomes `$0 $1 LINE` (the shell and its flag, as a command runs
/// directly) with standard input closed. Nothing read (keyless gone): it ends, running nothing.
/// Its two variables ([`WAITING_NAMES`]) are kept out of the world's environment, so the
/// command's environment is what it would be without the waiting shell.
pub const WAITING_SCRIPT: &str = "KEYLESS_WAIT_TEXT=; while IFS= read -r KEYLESS_WAIT_LINE; do KEYLESS_WAIT_TEXT=\"$KEYLESS_WAIT_TEXT$KEYLESS_WAIT_LINE\n\"; done; KEYLESS_WAIT_TEXT=\"$KEYLESS_WAIT_TEXT$KEYLESS_WAIT_LINE\"; [ -n \"$KEYLESS_WAIT_TEXT\" ] || exit 125; exec \"$0\" \"$1\" \"${KEYLESS_WAIT_TEXT%?}\" </dev/null";

/// The waiting shell's variables: never in the environment a world is given.
pub const WAITING_NAMES: &[&str] = &["KEYLESS_WAIT_TEXT", "KEYLESS_WAIT_LINE"];

/// A process started for a command not yet given: a world built ahead, whose waiting shell
/// ([`WAITING_SCRIPT`]) is handed the command line by [`Waiting::go`]. Dropped unused, it is
/// ended with its whole group.
pub struct Waiting {
    started: Option<Started>,
    line: Option<std::process::ChildStdin>,
}

impl Waiting {
    /// Starts `command` (whose program is the waiting shell) in `cwd`.
    pub fn spawn(
        command: Command,
        cwd: &Path,
        max_output_chars: usize,
    ) -> std::io::Result<Waiting> {
        let mut started = Started::spawn(command, cwd, max_output_chars, Stdio::piped())?;
        let line = started.child.stdin.take();
        Ok(Waiting {
            started: Some(started),
            line,
        })
    }

    /// Whether it still waits (it ends early only when something went wrong in it).
    pub fn waits(&mut self) -> bool {
        match &mut self.started {
            Some(started) => matches!(started.child.try_wait(), Ok(None)) && self.line.is_some(),
            None => false,
        }
    }

    /// Hands the shell its command line (at most [`WAITING_LINE_MOST`] bytes); the command's
    /// time starts now. The line goes in one write the pipe takes whole or not at all: the
    /// shell never runs a part of it.
    pub fn go(mut self, line: &str) -> std::io::Result<Started> {
        use std::io::Write;
        if line.len() > WAITING_LINE_MOST {
            return Err(std::io::Error::other(
                "the command line is too long to hand over",
            ));
        }
        // A shell's `read` drops a NUL where starting a program with it fails: such a line
        // goes to a world of its own, which refuses it as before.
        if line.contains('\0') {
            return Err(std::io::Error::other("the command line holds a NUL"));
        }
        let mut pipe = self
            .line
            .take()
            .ok_or_else(|| std::io::Error::other("no pipe"))?;
        let mut started = self
            .started
            .take()
            .ok_or_else(|| std::io::Error::other("gone"))?;
        let whole = format!("{line}{LINE_END}");
        match pipe.write(whole.as_bytes()) {
            Ok(n) if n == whole.len() => {}
            other => {
                // Ended before its input closes: it reads nothing it could run.
                kill_group(started.pid, Duration::ZERO);
                let _ = started.child.wait();
                drop(pipe);
                return Err(other
                    .err()
                    .unwrap_or_else(|| std::io::Error::other("short write")));
            }
        }
        drop(pipe);
        started.started = Instant::now();
        Ok(started)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.line = None;
        if let Some(mut started) = self.started.take() {
            kill_group(started.pid, Duration::ZERO);
            let _ = started.child.wait();
        }
    }
}

/// A command started, its output read as it comes.
pub struct Started {
    child: std::process::Child,
    pid: u32,
    capture: Arc<Mutex<Capture>>,
    done: mpsc::Receiver<()>,
    started: Instant,
    max_output_chars: usize,
}

impl Started {
    fn spawn(
        mut command: Command,
        cwd: &Path,
        max_output_chars: usize,
        stdin: Stdio,
    ) -> std::io::Result<Started> {
        let (mut reader, writer) = std::io::pipe()?;
        command
            .current_dir(cwd)
            .stdin(stdin)
            .stdout(writer.try_clone()?)
            .stderr(writer)
            .envs(NON_INTERACTIVE.iter().copied());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let started = Instant::now();
        let child = command.spawn()?;
        // The command's own copies of the pipe's write end live in the child; ours are gone
        // with `command`, so the reader sees end-of-file once every process holding it has
        // exited.
        drop(command);
        let pid = child.id();
        let capture = Arc::new(Mutex::new(Capture::new(max_output_chars)));
        let (done_tx, done) = mpsc::channel();
        let shared = Arc::clone(&capture);
        std::thread::spawn(move || {
            let mut buf = vec![0u8; CHUNK];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut c) = shared.lock() {
                            c.push(&buf[..n]);
                        }
                    }
                }
            }
            let _ = done_tx.send(());
        });
        Ok(Started {
            child,
            pid,
            capture,
            done,
            started,
            max_output_chars,
        })
    }

    /// Waits for the command's end, at most `timeout` from its start (or until Ctrl+C), and
    /// ends what it left running in its group.
    pub fn finish(mut self, timeout: Duration) -> std::io::Result<Run> {
        let (pid, started) = (self.pid, self.started);
        let mut timed_out = false;
        let mut cancelled = false;
        let exit = Exit::watch(pid);
        let status = loop {
            if let Some(status) = self.child.try_wait()? {
                break status;
            }
            if started.elapsed() >= timeout {
                timed_out = true;
            } else if crate::cancel::requested() {
                cancelled = true;
            }
            if timed_out || cancelled {
                kill_group(pid, TERM_GRACE);
                break self.child.wait()?;
            }
            exit.wait(if started.elapsed() < QUICK {
                FIRST_POLL
            } else {
                POLL
            });
        };
        let duration = started.elapsed();
        // Whatever the command left running in its group (background jobs, grandchildren
        // holding the output pipe) ends with it.
        kill_group(pid, Duration::ZERO);
        let _ = self.done.recv_timeout(DRAIN);
        let (output, output_bytes) = match self.capture.lock() {
            Ok(c) => (c.render(self.max_output_chars), c.total()),
            Err(_) => (String::new(), 0),
        };
        Ok(Run {
            code: status.code(),
            duration,
            output,
            output_bytes,
            timed_out,
            cancelled,
        })
    }
}

/// Waiting for a child's end: on Linux a pidfd, which wakes the runner the moment the child
/// ends (a command noticed up to a poll's interval late costs every quick command that
/// interval); elsewhere, or where the kernel has no pidfds, a sleep.
struct Exit {
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Exit {
    #[cfg(target_os = "linux")]
    fn watch(pid: u32) -> Exit {
        use std::os::fd::FromRawFd;
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return Exit { pidfd: None };
        };
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let pidfd = i32::try_from(fd)
            .ok()
            .filter(|&fd| fd >= 0)
            // SAFETY: the descriptor was just made and is owned here alone.
            .map(|fd| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) });
        Exit { pidfd }
    }

    #[cfg(not(target_os = "linux"))]
    fn watch(_pid: u32) -> Exit {
        Exit {}
    }

    /// Returns once the child ended or `most` passed (the runner then looks at the clock and
    /// the cancel flag).
    fn wait(&self, most: Duration) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.pidfd {
            use std::os::fd::AsRawFd;
            let mut poll = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = libc::c_int::try_from(most.as_millis()).unwrap_or(libc::c_int::MAX);
            // SAFETY: one valid pollfd, for at most `ms` milliseconds.
            if unsafe { libc::poll(&mut poll, 1, ms) } >= 0 {
                return;
            }
        }
        std::thread::sleep(most);
    }
}

/// Whether a process runs (a zombie, dead but not yet reaped, does not).
pub fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        // The state follows the command name's closing parenthesis.
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next())
                .is_some_and(|state| !matches!(state, 'Z' | 'X' | 'x')),
            Err(_) => false,
        }
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        // SAFETY: kill with signal 0 only checks that the process exists.
        unsafe { libc::kill(pid, 0) == 0 }
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Ends a process group: SIGTERM, a grace period, then SIGKILL.
#[cfg(unix)]
fn kill_group(pid: u32, grace: Duration) {
    let Ok(pgid) = i32::try_from(pid) else { return };
    // SAFETY: killpg only sends a signal to the group the child leads; no memory is involved.
    unsafe {
        if !grace.is_zero() {
            libc::killpg(pgid, libc::SIGTERM);
            let until = Instant::now() + grace;
            while Instant::now() < until {
                if libc::killpg(pgid, 0) != 0 {
                    return;
                }
                std::thread::sleep(POLL);
            }
        }
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Ends the process tree at once (Windows has no process groups to signal): `taskkill /T /F`.
#[cfg(not(unix))]
fn kill_group(pid: u32, _grace: Duration) {
    let _ = Command::new("taskkill")
        .args(["/T", "/F", "/PID", &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
