//! Executor speed (issue 3): editfile on a 50 MB file, and a batch of 100 small newfiles.
//! Everything is real: files on disk, backups, atomic writes with fsync. And the one resolver's
//! cost per file command (issue 29): a path five folders deep walked without following a link,
//! beside what the check it replaced cost (`canonicalize`), and a whole `@@readfile` through it.
//! Run: `cargo bench --bench executor`.

use std::fs;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use keyless::batch::{self, Settings};
use keyless::config::{Limits, Mode, Pace};
use keyless::protocol::parse;
use keyless::workspace::backup::{Backup, BatchKind};
use keyless::workspace::{Reach, Workspace};

#[path = "../tests/it/common/quiet_host.rs"]
mod quiet_host;
use quiet_host::Quiet;

fn big_file() -> Vec<u8> {
    let mut out = Vec::with_capacity(52_000_000);
    let mut n = 0u64;
    while out.len() < 50_000_000 {
        if n == 400_000 {
            out.extend_from_slice(b"MARKER-LINE\r\n");
        }
        out.extend_from_slice(
            format!("line {n:08} some ordinary text to fill the file up\r\n").as_bytes(),
        );
        n += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("executor");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));

    let original = big_file();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    group.bench_function("editfile_50MB_crlf", |b| {
        b.iter_batched(
            || {
                let _ = fs::remove_dir_all(dir.path().join(".agent"));
                fs::write(dir.path().join("big.txt"), &original).unwrap();
            },
            |()| {
                let mut backup = Backup::new(&ws, BatchKind::Batch, "bench");
                ws.edit_file(
                    "big.txt",
                    "MARKER-LINE",
                    "CHANGED-LINE\nsecond",
                    &mut backup,
                )
                .unwrap();
            },
            BatchSize::PerIteration,
        )
    });

    let reply: String = (0..100)
        .map(|i| format!("@@newfile src/mod_{i}.rs\n<<<CONTENT\npub fn f{i}() -> u32 {{\n    {i}\n}}\nCONTENT>>>\n@@end\n"))
        .collect::<String>()
        + "@@next\n@@end\n@@eof\n";
    let settings = Settings {
        pace: Pace::Batch,
        mode: Mode::Auto,
        limits: Limits {
            max_commands_per_response: 100,
            ..Limits::default()
        },
        ..Settings::default()
    };
    let script = parse(&reply, &settings.limits).script.unwrap();
    group.bench_function("batch_100_newfiles", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |dir| {
                let ws = Workspace::open(dir.path()).unwrap();
                let mut backup = Backup::new(&ws, BatchKind::Batch, "bench");
                let report =
                    batch::execute(&script, &ws, &mut backup, &mut Quiet, &settings, (1, 1));
                assert!(report.all_ok());
                dir
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// The resolver on a path five folders deep in a repository, the way every file command opens
/// its path.
fn resolver(c: &mut Criterion) {
    let mut group = c.benchmark_group("resolver");
    group.measurement_time(Duration::from_secs(3));
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(".git/objects")).unwrap();
    fs::create_dir_all(dir.path().join("src/a/b/c/d")).unwrap();
    let text = "fn f() -> u32 { 42 }\n".repeat(200);
    fs::write(dir.path().join("src/a/b/c/d/file.rs"), &text).unwrap();
    let rel = "src/a/b/c/d/file.rs";
    let ws = Workspace::open(dir.path()).unwrap();
    group.bench_function("walk_5_deep", |b| {
        b.iter(|| ws.place(rel, Reach::Model).unwrap())
    });
    // What the resolver before it did for an existing path: one look, then the whole path
    // resolved by the kernel, links followed (and then checked by name).
    let full = ws.root().join(rel);
    group.bench_function("canonicalize_5_deep", |b| {
        b.iter(|| {
            fs::symlink_metadata(&full).unwrap();
            fs::canonicalize(&full).unwrap()
        })
    });
    group.bench_function("readfile_4KB_5_deep", |b| {
        b.iter(|| ws.read_file(rel, 100_000).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench, resolver);
criterion_main!(benches);
