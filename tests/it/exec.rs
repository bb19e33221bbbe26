//! `@@runcommand` with real processes, through the built binary: output, exit codes, timeouts
//! that end whole process trees, a gigabyte of output in bounded memory, Ctrl+C, missing
//! programs and tools, the policy's Denied and Declined, and git commands that a repository's
//! own configuration must not turn into program launchers.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Applied, Test};

fn reply(commands: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (options, cmd) in commands {
        out.push_str(&format!(
            "@@runcommand {options}\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n"
        ));
    }
    out + "@@next\n@@end\n@@eof\n"
}

#[test]
fn output_exit_code_and_duration_are_reported() {
    let test = Test::new();
    let Applied {
        stdout: out, code, ..
    } = test.apply(&reply(&[("", "echo hello && echo world")]));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("--- result 1/1 | #1 runcommand | echo hello && echo world ---\nstatus: ok | exit code: 0 | duration: "), "{out}");
    assert!(
        out.contains("<<<OUTPUT\nhello\nworld\nOUTPUT>>>\n"),
        "{out}"
    );
}

#[test]
fn stdout_and_stderr_are_interleaved_in_order() {
    let test = Test::new();
    let out = test
        .apply(&reply(&[(
            "",
            "echo one; echo two >&2; echo three; echo four >&2",
        )]))
        .stdout;
    assert!(
        out.contains("<<<OUTPUT\none\ntwo\nthree\nfour\nOUTPUT>>>"),
        "{out}"
    );
}

#[test]
fn a_failed_probe_reports_its_code_and_the_batch_goes_on() {
    let test = Test::new();
    let Applied {
        stdout: out, code, ..
    } = test.apply(&reply(&[
        ("", "ls /definitely/not/here"),
        ("", "echo after"),
    ]));
    assert_eq!(code, Some(3));
    assert!(
        out.contains("status: error | code: KA_COMMAND_FAILED | exit code: 2 | duration: "),
        "{out}"
    );
    assert!(
        out.contains("reason: the command exited with code 2"),
        "{out}"
    );
    assert!(out.contains("<<<OUTPUT\nafter\nOUTPUT>>>"), "{out}");
}

#[test]
fn a_missing_program_is_command_not_found() {
    let test = Test::new();
    let out = test
        .apply_with(
            &reply(&[("", "no-such-program-keyless-test --x")]),
            &["--mode", "auto"],
        )
        .stdout;
    assert!(out.contains("code: KA_COMMAND_NOT_FOUND"), "{out}");
    assert!(out.contains("exit code: 127"), "{out}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_timeout_ends_the_whole_process_tree_and_keeps_partial_output() {
    let test = Test::new();
    let ws = test.ws();
    // A grandchild in the background and a child in the foreground, both sleeping long. They
    // are known by their command lines: the pids a command sees are its own namespace's.
    let cmd = "echo started; sh -c 'sleep 301.17 & wait' & sleep 302.19";
    let started = Instant::now();
    let Applied {
        stdout: out, code, ..
    } = test.apply_with(&reply(&[("timeout=2", cmd)]), &["--mode", "auto"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(code, Some(3));
    assert!(out.contains("code: KA_TIMEOUT"), "{out}");
    assert!(out.contains("longer than its timeout of 2s"), "{out}");
    assert!(
        out.contains("<<<OUTPUT\nstarted\nOUTPUT>>>"),
        "partial output kept: {out}"
    );
    // The tree was killed; give a loaded machine time to finish them off.
    let _ = ws;
    for marker in ["301.17", "302.19"] {
        let waited = Instant::now();
        while !running_with(marker).is_empty() && waited.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            running_with(marker),
            Vec::<i32>::new(),
            "sleep {marker} still runs"
        );
    }
}

/// The host's processes whose command line holds `marker`.
fn running_with(marker: &str) -> Vec<i32> {
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(marker))
                .unwrap_or(false)
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn a_gigabyte_of_output_is_capped_head_and_tail_in_bounded_memory() {
    let test = Test::new();
    let cmd = "printf 'FIRST-LINE\\n'; head -c 1000000000 /dev/zero | tr '\\0' x; printf '\\nLAST-LINE\\n'";
    let started = Instant::now();
    let (out, code, max_rss_kb) =
        output_and_peak_rss(test.command(&reply(&[("timeout=600", cmd)]), &[]));
    let took = started.elapsed();
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("<<<OUTPUT\nFIRST-LINE\nxxxx"),
        "{}",
        &out[..out.len().min(400)]
    );
    assert!(
        out.contains("bytes of output omitted: the command printed 1000000022 bytes"),
        "{}",
        &out[..out.len().min(400)]
    );
    assert!(out.contains("xxxx\nLAST-LINE\nOUTPUT>>>"), "tail kept");
    assert!(
        out.len() < 10_000,
        "the result is capped: {} bytes",
        out.len()
    );
    // The largest resident set among keyless and the programs it ran.
    eprintln!(
        "1 GB of output captured in {took:?}; peak RSS of any child process {max_rss_kb} KiB"
    );
    assert!(max_rss_kb < 64 * 1024, "peak RSS {max_rss_kb} KiB");
}

/// Runs keyless to its end under GNU time: its standard output, exit code, and the largest
/// resident set (KiB) among keyless and the programs it ran. A process the tests start
/// themselves would not do: its peak starts at the peak of the tests' process (the kernel counts
/// the memory a child shares with its parent until it executes a program), while GNU time is a
/// small process of its own.
#[cfg(target_os = "linux")]
fn output_and_peak_rss(command: Command) -> (String, Option<i32>, i64) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut timed = Command::new("/usr/bin/time");
    timed
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(Stdio::null());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => timed.env(key, value),
            None => timed.env_remove(key),
        };
    }
    let out = timed
        .output()
        .expect("GNU time (/usr/bin/time, Debian package `time`) measures keyless's memory");
    let report = fs::read_to_string(report.path()).unwrap();
    let peak = report.lines().last().unwrap_or_default().trim();
    let peak = peak
        .parse()
        .unwrap_or_else(|_| panic!("GNU time reported {report:?}"));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
        peak,
    )
}

#[cfg(unix)]
#[test]
fn ctrl_c_cancels_the_running_command_and_keeps_its_partial_output() {
    let test = Test::new();
    let ws = test.ws();
    let text = reply(&[
        ("", "echo before-sleep; touch started; sleep 300"),
        ("", "echo never"),
    ]);
    let child = test
        .command(&text, &["--mode", "auto"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the command has printed and is sleeping (not at a fixed time: a loaded machine
    // may take longer to get there).
    let waited = Instant::now();
    while !ws.join("started").exists() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: sends SIGINT to the child we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{out}");
    assert!(out.contains("code: KA_CANCELLED"), "{out}");
    assert!(out.contains("<<<OUTPUT\nbefore-sleep\nOUTPUT>>>"), "{out}");
    assert!(
        out.contains("--- skipped 1 commands: cancelled by the user (Ctrl+C) ---"),
        "{out}"
    );
}

#[test]
fn a_tool_missing_from_the_snapshot_is_never_started() {
    let test = Test::new();
    // cargo lives outside /usr/bin and /bin, so with this PATH the snapshot lists it Missing.
    let out = test
        .command(&reply(&[("", "cargo build")]), &[])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.contains("code: KA_TOOL_MISSING"), "{out}");
    assert!(out.contains("cargo is listed as Missing"), "{out}");
}

#[test]
fn denied_never_runs_in_any_mode() {
    let test = Test::new();
    let ws = test.ws();
    for mode in ["ask", "autosafe", "auto"] {
        let out = test
            .apply_with(
                &reply(&[("", "touch canary && git push --force")]),
                &["--mode", mode],
            )
            .stdout;
        assert!(
            out.contains("code: KA_COMMAND_DENIED | tier: Denied"),
            "{mode}: {out}"
        );
        assert!(
            !ws.join("canary").exists(),
            "{mode}: nothing of the line ran"
        );
    }
}

#[test]
fn risky_without_a_terminal_is_declined_in_ask_and_autosafe() {
    let test = Test::new();
    let ws = test.ws();
    for mode in ["ask", "autosafe"] {
        let out = test
            .apply_with(&reply(&[("", "touch made-by-risky")]), &["--mode", mode])
            .stdout;
        assert!(
            out.contains("code: KA_COMMAND_DECLINED | tier: Risky"),
            "{mode}: {out}"
        );
        assert!(!ws.join("made-by-risky").exists());
    }
    let out = test
        .apply_with(&reply(&[("", "touch made-by-risky")]), &["--mode", "auto"])
        .stdout;
    assert!(
        (out.contains("status: ok | exit code: 0 | duration: ")
            && out.contains("s | tier: Risky\n")),
        "{out}"
    );
    assert!(ws.join("made-by-risky").exists());
}

#[test]
fn execute_tier_asks_in_ask_mode() {
    let test = Test::new();
    let ws = test.ws();
    fs::write(ws.join("run.sh"), "echo ran > ran.txt\n").unwrap();
    let out = test
        .apply_with(&reply(&[("", "sh run.sh")]), &["--mode", "ask"])
        .stdout;
    assert!(
        out.contains("code: KA_COMMAND_DECLINED | tier: Execute"),
        "{out}"
    );
    let out = test
        .apply_with(&reply(&[("", "sh run.sh")]), &["--mode", "auto"])
        .stdout;
    assert!(
        (out.contains("status: ok | exit code: 0 | duration: ")
            && out.contains("s | tier: Execute\n")),
        "{out}"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn read_only_git_cannot_be_turned_into_a_program_launcher() {
    let test = Test::new();
    let ws = test.ws();
    git(ws, &["init", "-q"]);
    fs::write(ws.join("a.txt"), "a\n").unwrap();
    // core.fsmonitor names a program git status would run.
    git(
        ws,
        &["config", "core.fsmonitor", "touch fsmonitor-ran; false"],
    );
    let out = test
        .apply_with(&reply(&[("", "git status --short")]), &["--mode", "ask"])
        .stdout;
    assert!(
        (out.contains("status: ok | exit code: 0 | duration: ")
            && out.contains("s | tier: ReadOnly\n")),
        "{out}"
    );
    assert!(!ws.join("fsmonitor-ran").exists(), "core.fsmonitor ran");

    // diff.external would run on git diff: the line is no longer read-only, so it asks.
    git(ws, &["add", "a.txt"]);
    git(
        ws,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "a",
        ],
    );
    fs::write(ws.join("a.txt"), "b\n").unwrap();
    git(ws, &["config", "diff.external", "touch external-ran"]);
    let out = test
        .apply_with(&reply(&[("", "git diff")]), &["--mode", "ask"])
        .stdout;
    assert!(
        out.contains("code: KA_COMMAND_DECLINED | tier: Risky"),
        "{out}"
    );
    assert!(
        out.contains("the repository's own git configuration sets"),
        "{out}"
    );
    assert!(!ws.join("external-ran").exists(), "diff.external ran");
}
