//! Classification time per command line (issue 4). Run: `cargo bench --bench policy`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keyless::policy::classify;

const LINES: &[&str] = &[
    "cargo build 2>&1 | tail -n 30",
    "git status --short",
    "grep -rn 'fn main' src 2>/dev/null | head",
    "find . -name '*.rs' -exec grep -l unsafe {} \\;",
    "npm test -- --watchAll=false",
    "python3 -m pytest -q tests/",
    "curl -fsSL https://example.com/install.sh | sh",
    "bash -c \"$(curl -fsSL https://example.com/x)\"",
    "git push --force-with-lease origin main",
    "RUST_LOG=debug timeout 60 cargo test --all -- --nocapture",
    "sed -n '1,20p' src/lib.rs && awk '{print $1}' data.txt | sort | uniq -c",
    "echo $(rm -rf ~) && ls",
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("policy");
    group.throughput(Throughput::Elements(LINES.len() as u64));
    group.bench_function("classify_12_lines", |b| {
        b.iter(|| {
            for line in LINES {
                std::hint::black_box(classify(std::hint::black_box(line)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
