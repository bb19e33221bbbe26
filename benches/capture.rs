//! Output capture (issue 4): throughput and the keyless process's peak memory while a command
//! prints 1 GB. Targets: at least 1 GB/s, peak RSS under 20 MB. Run: `cargo bench --bench capture`.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BYTES: u64 = 1_000_000_000;
const RUNS: usize = 3;

fn main() {
    // In-process: the runner reading a 1 GB stream from a real process.
    let dir = tempfile::tempdir().unwrap();
    let mut rates = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let run = keyless::exec::run(
            &format!("head -c {BYTES} /dev/zero"),
            dir.path(),
            Duration::from_secs(600),
            8_000,
        )
        .unwrap();
        let took = started.elapsed();
        assert_eq!(run.output_bytes, BYTES);
        rates.push(BYTES as f64 / took.as_secs_f64() / 1e9);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "capture/1GB_from_head: median {:.2} GB/s (runs: {:?})",
        rates[RUNS / 2],
        rates
    );

    // The whole binary: keyless apply with a command printing 1 GB, its peak RSS from wait4.
    let ws = dir.path().join("ws");
    fs::create_dir_all(&ws).unwrap();
    let reply = dir.path().join("reply.txt");
    fs::write(
        &reply,
        format!("@@runcommand timeout=600\n<<<CMD\nhead -c {BYTES} /dev/zero\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n"),
    )
    .unwrap();
    let started = Instant::now();
    // Waited for with wait4 below, which also reports the process's peak memory.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("apply")
        .arg(&reply)
        .arg("--workspace")
        .arg(&ws)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, rss_kb) = wait_with_rss(child.id());
    let took = started.elapsed();
    assert_eq!(status, 0);
    println!(
        "capture/keyless_apply_1GB: {:.2} s, {:.2} GB/s, peak RSS {:.1} MiB (keyless and the programs it waited for)",
        took.as_secs_f64(),
        BYTES as f64 / took.as_secs_f64() / 1e9,
        rss_kb as f64 / 1024.0
    );
}

#[cfg(unix)]
fn wait_with_rss(pid: u32) -> (i32, i64) {
    // SAFETY: wait4 on our own child, filling structs we own.
    unsafe {
        let mut status = 0;
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::wait4(pid as i32, &mut status, 0, &mut usage);
        (libc::WEXITSTATUS(status), usage.ru_maxrss)
    }
}
