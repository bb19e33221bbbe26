//! The sandbox's cost per command (issue 10): a trivial command (`true` through `sh -c`) run
//! plainly and run contained (mount namespace, read-only protected paths, masked secret stores,
//! Landlock), in a workspace that is a git repository. Target: containment adds at most 5 ms per
//! command (median). Also the redactor over 1 MB of ordinary build output, which every result
//! passes, plain and coloured, with no known values and with 40 (target: well under 50 ms).
//! Run: `cargo bench --bench sandbox`.

use std::process::Command;
use std::time::{Duration, Instant};

use keyless::config::{Mode, SandboxConfig};
use keyless::exec::sandbox::Sandbox;

const RUNS: usize = 101;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .unwrap();
    std::fs::create_dir_all(root.join(".agent")).unwrap();
    std::fs::create_dir_all(root.join("src/deep/er")).unwrap();
    let timeout = Duration::from_secs(10);
    let mut plain = Vec::new();
    let mut contained = Vec::new();
    let mut sandbox = Sandbox::new(root, &SandboxConfig::default());
    println!("{}", sandbox.containment(Mode::Auto).line());
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut command = Command::new("sh");
        command.args(["-c", "true"]);
        let run = keyless::exec::run_command(command, root, timeout, 1000).unwrap();
        assert_eq!(run.code, Some(0));
        plain.push(started.elapsed());

        let started = Instant::now();
        let (command, check) = sandbox.command(Mode::Auto, "sh", &["-c", "true"]).unwrap();
        let run = keyless::exec::run_command(command, root, timeout, 1000).unwrap();
        assert_eq!(run.code, Some(0));
        assert!(check.finish(false, &run.output).is_none());
        contained.push(started.elapsed());
    }
    sandbox.batch_finished();
    redact_bench();
    let (plain, contained) = (median(plain), median(contained));
    println!(
        "sandbox/true: plain {:.2} ms, contained {:.2} ms, containment adds {:.2} ms (median of {RUNS}; target ≤ 5 ms)",
        plain.as_secs_f64() * 1e3,
        contained.as_secs_f64() * 1e3,
        contained.saturating_sub(plain).as_secs_f64() * 1e3
    );
}

fn redact_bench() {
    let line = "   Compiling serde_json v1.0.120 (/home/dev/.cargo/registry/src/index-6f17d22bba15001f/serde_json-1.0.120)\n\
                warning: unused variable: `token` --> src/lexer/token.rs:12:9 key = value; let secret = cfg.get(\"x\");\n";
    let text = line.repeat(1_000_000 / line.len() + 1);
    // The same log as cargo colours it on a terminal.
    let coloured_line = "\x1b[0m\x1b[1m\x1b[32m   Compiling\x1b[0m serde_json v1.0.120 (/home/dev/.cargo/registry/src/index-6f17d22bba15001f/serde_json-1.0.120)\n\
                \x1b[1m\x1b[33mwarning\x1b[0m\x1b[1m: unused variable: `token`\x1b[0m --> src/lexer/token.rs:12:9 key = value; let secret = cfg.get(\"x\");\n";
    let coloured = coloured_line.repeat(1_000_000 / coloured_line.len() + 1);
    // 40 known values, as a developer's environment and `.env` files give them: each with its
    // 15 or so encodings.
    let known: Vec<keyless::redact::KnownValue> = (0..40)
        .map(|i| {
            let value = format!("Zq{i}x8-fake/secret+value-{:08x}", i * 2_654_435_761u64);
            if i % 4 == 0 {
                keyless::redact::KnownValue::file(".env", format!("KEY_{i}"), value)
            } else {
                keyless::redact::KnownValue::env(format!("SERVICE_{i}_TOKEN"), value)
            }
        })
        .collect();
    let with_known = keyless::redact::Redactor::from_known(known, Vec::new());
    for (name, redactor, text) in [
        (
            "1MB_build_output",
            keyless::redact::Redactor::default(),
            &text,
        ),
        (
            "1MB_build_output_40_known_values",
            with_known.clone(),
            &text,
        ),
        (
            "1MB_coloured_build_output_40_known_values",
            with_known,
            &coloured,
        ),
    ] {
        redactor.redact("warm up the rules");
        let mut times = Vec::new();
        for _ in 0..11 {
            let started = Instant::now();
            let out = redactor.redact(text);
            times.push(started.elapsed());
            assert_eq!(out.count, 0, "ordinary build output has no secret");
        }
        println!(
            "redact/{name}: median {:.1} ms (target well under 50 ms)",
            median(times).as_secs_f64() * 1e3
        );
    }
}
