//! Parser throughput on a realistic 60,000-character reply (issue 2's target: at least
//! 500 MB/s on one core, i.e. about 120 µs per reply). Run: `cargo bench --bench parse`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keyless::config::Limits;
use keyless::protocol::parse;

/// Builds a reply of about `target` characters: files with code, edits, commands and messages,
/// wrapped in a fence, as a model would send it.
fn reply(target: usize) -> String {
    let mut out = String::from(
        "````agentscript\n@@say\n<<<MSG\nI will add the module and its tests.\nMSG>>>\n@@end\n",
    );
    let mut n = 0;
    while out.len() < target - 4_400 {
        n += 1;
        out.push_str(&format!("@@newfile src/module_{n}.rs\n<<<CONTENT\n"));
        for i in 0..40 {
            out.push_str(&format!(
                "    pub fn function_{i}(value: u32) -> u32 {{ value.wrapping_mul({i}) + 7 }} // *note* _{i}_\n"
            ));
        }
        out.push_str("CONTENT>>>\n@@end\n");
        out.push_str(&format!(
            "@@editfile src/lib.rs\n<<<FIND\nmod module_{n};\nFIND>>>\n<<<REPLACE\nmod module_{n};\npub use module_{n}::*;\nREPLACE>>>\n@@end\n"
        ));
    }
    out.push_str("@@runcommand timeout=300\n<<<CMD\ncargo test 2>&1 | tail -n 40\nCMD>>>\n@@end\n@@done\n<<<MSG\nAdded the modules.\nMSG>>>\n@@end\n@@eof\n````\n");
    out
}

fn bench(c: &mut Criterion) {
    let limits = Limits::default();
    let text = reply(60_000);
    let parsed = parse(&text, &limits);
    assert!(
        parsed.is_ok(),
        "the benchmark reply must be valid: {:?}",
        parsed.diagnostics
    );
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function(format!("reply_{}_chars", text.len()), |b| {
        b.iter(|| parse(std::hint::black_box(&text), &limits))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
