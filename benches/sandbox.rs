//! The sandbox's cost (issue 23): a trivial command (`true` through `sh -c`) run plainly and run
//! contained (the world bubblewrap builds: namespaces, the allow-listed file system, the kept
//! network namespace, the caches' copy-on-write layers, cgroups), in a workspace that is a git
//! repository. Target: containment adds at most 10 ms per command (median). Then a `cargo build`
//! of a small crate with registry dependencies, from a clean target folder, outside and inside
//! (target: at most 1.1 times as long inside). Also the redactor over 1 MB of ordinary build
//! output, which every result passes, plain and coloured, with no known values and with 40
//! (target: well under 50 ms), and over 1 MB of each output made to cost it the most (dumps,
//! base64, lines of one width, tags, a key without its end, and what the views of a glance read
//! back: characters between letters, escapes, entities, fullwidth and Cyrillic letters, spaced
//! letters), which must stay linear.
//! Then `npm ci --prefer-offline` the same way (the network on, through the proxy). And the
//! seccomp filter (issue 29): what loading it costs (target < 1 ms) and what a filtered call
//! costs. Run: `cargo bench --bench sandbox` (`-- true`, `-- build`, `-- npm`, `-- redact` or
//! `-- seccomp` for one part).

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
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |part: &str| filter.is_empty() || filter.iter().any(|f| f == part);
    if wanted("true") {
        per_command();
    }
    if wanted("build") {
        build_bench();
    }
    if wanted("npm") {
        npm_bench();
    }
    if wanted("redact") {
        redact_bench();
    }
    if wanted("seccomp") {
        seccomp_bench();
    }
    if wanted("notice") {
        notice_bench();
    }
}

/// How late the runner notices a command's end, for one that runs past the runner's quick
/// phase (`sleep 0.08`): its time less the 80 ms it sleeps, and less what the same `sh -c true`
/// takes (starting a shell). A runner that polls every 10 ms notices it 5 ms late on average.
fn notice_bench() {
    let dir = tempfile::tempdir().unwrap();
    let timeout = Duration::from_secs(10);
    let run = |line: &str| {
        let started = Instant::now();
        let mut command = Command::new("sh");
        command.args(["-c", line]);
        let run = keyless::exec::run_command(command, dir.path(), timeout, 1000).unwrap();
        assert_eq!(run.code, Some(0));
        started.elapsed()
    };
    let mut shell = Vec::new();
    let mut slept = Vec::new();
    for _ in 0..31 {
        shell.push(run("true"));
        slept.push(run("sleep 0.08"));
    }
    let late = median(slept).as_secs_f64() * 1e3 - 80.0 - median(shell).as_secs_f64() * 1e3;
    println!(
        "exec/notice: a command's end noticed {late:.2} ms late past its quick phase (median of 31; sleep 0.08 less 80 ms less sh -c true)"
    );
}

/// The user and system time of this process's waited-for children so far.
fn children_cpu() -> Duration {
    // SAFETY: a zeroed rusage for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a live rusage buffer.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// What the seccomp filter costs: loading it (as bubblewrap does, in a child: no_new_privs and
/// one `seccomp` call per program), and a filtered call (`openat`, which the filter reads the
/// mode of) against the same call unfiltered, per call.
fn seccomp_bench() {
    let programs = keyless::exec::sandbox::seccomp_programs().unwrap();
    let calls: u32 = 200_000;
    let opens = || {
        let started = Instant::now();
        for _ in 0..calls {
            // SAFETY: a NUL-terminated path; the descriptor is closed at once.
            unsafe {
                let fd = libc::openat(libc::AT_FDCWD, c"/dev/null".as_ptr(), libc::O_RDONLY);
                libc::close(fd);
            }
        }
        started.elapsed().as_nanos() as u64 / u64::from(calls)
    };
    let mut ends = [0; 2];
    // SAFETY: a two-int buffer.
    unsafe { libc::pipe(ends.as_mut_ptr()) };
    let (pipe_r, pipe_w) = (ends[0], ends[1]);
    // SAFETY: the child only makes system calls and writes its figures to the pipe.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let plain = opens();
        let started = Instant::now();
        for program in programs {
            let filter = libc::sock_fprog {
                len: (program.len() / 8) as u16,
                filter: program.as_ptr() as *mut libc::sock_filter,
            };
            // SAFETY: a live program of the length given.
            unsafe {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                libc::syscall(libc::SYS_seccomp, 1 /* SET_MODE_FILTER */, 0, &filter);
            }
        }
        let load = started.elapsed().as_nanos() as u64;
        let filtered = opens();
        let figures = [plain, load, filtered];
        // SAFETY: writes 24 bytes from a live array, then leaves.
        unsafe {
            libc::write(pipe_w, figures.as_ptr().cast(), 24);
            libc::_exit(0);
        }
    }
    let mut figures = [0u64; 3];
    // SAFETY: reads 24 bytes into a live array; waits for the child.
    unsafe {
        libc::close(pipe_w);
        libc::read(pipe_r, figures.as_mut_ptr().cast(), 24);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    println!(
        "sandbox/seccomp: {} instructions; loaded in {:.3} ms (target < 1 ms); openat+close {} ns unfiltered, {} ns filtered",
        programs.iter().map(|p| p.len() / 8).sum::<usize>(),
        figures[1] as f64 / 1e6,
        figures[0],
        figures[2]
    );
}

fn per_command() {
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
    let mut plain_cpu = Duration::ZERO;
    let mut contained_cpu = Duration::ZERO;
    let mut assembled = Vec::new();
    for _ in 0..RUNS {
        let cpu = children_cpu();
        let started = Instant::now();
        let mut command = Command::new("sh");
        command.args(["-c", "true"]);
        let run = keyless::exec::run_command(command, root, timeout, 1000).unwrap();
        assert_eq!(run.code, Some(0));
        plain.push(started.elapsed());
        let between = children_cpu();
        plain_cpu += between - cpu;

        let started = Instant::now();
        let (command, check) = sandbox.command(Mode::Auto, "sh", &["-c", "true"]).unwrap();
        assembled.push(started.elapsed());
        let run = keyless::exec::run_command(command, root, timeout, 1000).unwrap();
        assert_eq!(run.code, Some(0));
        assert!(check.finish(false, &run.output).is_none());
        contained.push(started.elapsed());
        contained_cpu += children_cpu() - between;
    }
    sandbox.batch_finished();
    let (plain, contained) = (median(plain), median(contained));
    println!(
        "sandbox/true: plain {:.2} ms, contained {:.2} ms, containment adds {:.2} ms (median of {RUNS}; target ≤ 10 ms)",
        plain.as_secs_f64() * 1e3,
        contained.as_secs_f64() * 1e3,
        contained.saturating_sub(plain).as_secs_f64() * 1e3
    );
    println!(
        "sandbox/true assembled: the world's arguments and the child's preparation in keyless {:.2} ms (median of {RUNS}); the rest is the child, bubblewrap and the command",
        median(assembled).as_secs_f64() * 1e3
    );
    // CPU time does not grow with the machine's load as wall time does.
    println!(
        "sandbox/true CPU: plain {:.2} ms, contained {:.2} ms a command (the processes' own user and system time, mean of {RUNS})",
        plain_cpu.as_secs_f64() * 1e3 / RUNS as f64,
        contained_cpu.as_secs_f64() * 1e3 / RUNS as f64,
    );
    // The parts of issue 29, each taken away in turn: what it costs a command.
    let platform = keyless::exec::sandbox::Platform::detect();
    let without = |part: &str| {
        let mut platform = platform.clone();
        if let Ok(world) = &mut platform.world {
            match part {
                "seccomp" => {
                    world.seccomp = Err(keyless::exec::sandbox::error::SandboxError::Simulated)
                }
                _ => world.remap = Err(keyless::exec::sandbox::error::SandboxError::Simulated),
            }
        }
        let mut sandbox = Sandbox::with_platform(root, &SandboxConfig::default(), platform);
        let mut times = Vec::new();
        for _ in 0..RUNS {
            let started = Instant::now();
            let (command, check) = sandbox.command(Mode::Auto, "sh", &["-c", "true"]).unwrap();
            let run = keyless::exec::run_command(command, root, timeout, 1000).unwrap();
            assert_eq!(run.code, Some(0));
            check.finish(false, &run.output);
            times.push(started.elapsed());
        }
        sandbox.batch_finished();
        median(times)
    };
    // A world built ahead (`Runner::prepare`, while the model answers): what is left of a
    // command's containment once its world waits for it.
    {
        use keyless::batch::{Machine, Runner};
        let mut machine = Machine::new(
            root.to_path_buf(),
            1000,
            keyless::git::GitSettings::default(),
            None,
            Sandbox::new(root, &SandboxConfig::default()),
        );
        let mut times = Vec::new();
        for _ in 0..RUNS {
            machine.prepare(Mode::Auto, true);
            // The world is built while the model answers: the command comes later.
            std::thread::sleep(Duration::from_millis(30));
            let started = Instant::now();
            let attempt = machine.contained("true", timeout, Mode::Auto);
            times.push(started.elapsed());
            assert!(attempt.outcome.error.is_none(), "{attempt:?}");
        }
        let ready = median(times);
        println!(
            "sandbox/true in a world built ahead: {:.2} ms, containment adds {:.2} ms (median of {RUNS})",
            ready.as_secs_f64() * 1e3,
            ready.saturating_sub(plain).as_secs_f64() * 1e3
        );
    }
    for part in ["seccomp", "remap"] {
        let less = without(part);
        println!(
            "sandbox/true without {part}: {:.2} ms, so it costs {:.2} ms a command",
            less.as_secs_f64() * 1e3,
            contained.as_secs_f64() * 1e3 - less.as_secs_f64() * 1e3
        );
    }
}

/// Rounds of the build comparison, outside and inside taking turns to go first.
const BUILD_ROUNDS: usize = 5;

/// A crate with three registry dependencies (all in keyless's own lock file, so the registry
/// has them after keyless was built), built offline from a clean target folder.
fn build_bench() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"bench-app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\nmemchr = \"2\"\nsmallvec = \"1\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/main.rs"),
        "fn main() { let mut b = itoa::Buffer::new(); let v: smallvec::SmallVec<[u8; 4]> = smallvec::smallvec![1]; println!(\"{} {} {:?}\", b.format(42), v.len(), memchr::memchr(b'a', b\"xa\")); }\n",
    )
    .unwrap();
    let timeout = Duration::from_secs(600);
    let mut sandbox = Sandbox::new(root, &SandboxConfig::default());
    let line = "rm -rf target && cargo build --offline -q";
    // One build, outside or inside; the contained command's checks end with it.
    let build = |sandbox: &mut Sandbox, inside: bool| {
        let (mut command, contained) = if inside {
            let (command, contained) = sandbox.command(Mode::Auto, "sh", &["-c", line]).unwrap();
            (command, Some(contained))
        } else {
            let mut command = Command::new("sh");
            command.args(["-c", line]);
            (command, None)
        };
        command.env_remove("CARGO_TARGET_DIR");
        let run = keyless::exec::run_command(command, root, timeout, 4000).unwrap();
        assert_eq!(run.code, Some(0), "{}", run.output);
        if let Some(contained) = contained {
            contained.finish(false, &run.output);
        }
    };
    // Once each to warm the file cache and the layer.
    build(&mut sandbox, false);
    build(&mut sandbox, true);
    let (mut plain, mut contained) = (Vec::new(), Vec::new());
    for round in 0..BUILD_ROUNDS {
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for is_inside in order {
            let started = Instant::now();
            build(&mut sandbox, is_inside);
            if is_inside {
                contained.push(started.elapsed());
            } else {
                plain.push(started.elapsed());
            }
        }
    }
    let (plain, contained) = (median(plain), median(contained));
    println!(
        "sandbox/cargo_build: outside {:.2} s, inside {:.2} s, {:.3} times as long (median of {BUILD_ROUNDS}; target ≤ 1.1)",
        plain.as_secs_f64(),
        contained.as_secs_f64(),
        contained.as_secs_f64() / plain.as_secs_f64()
    );
}

/// `npm ci --prefer-offline` of a package with a few dependencies, outside and inside (the
/// caches' layer over `~/.npm`, the network on through the sandbox's proxy: a registry mirror
/// may leave no `resolved` address in the lock file, so npm asks for the package documents
/// again), each from an empty `node_modules`. The lock file and the cache are made once,
/// outside.
fn npm_bench() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("package.json"),
        "{ \"name\": \"bench-pkg\", \"version\": \"1.0.0\", \"dependencies\": { \"is-number\": \"7.0.0\", \"kleur\": \"4.1.5\", \"ms\": \"2.1.3\" } }\n",
    )
    .unwrap();
    let setup = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "-q"])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(setup.success(), "npm install (with the network) failed");
    let timeout = Duration::from_secs(600);
    let mut sandbox = Sandbox::new(
        root,
        &SandboxConfig {
            network: Some(true),
            ..SandboxConfig::default()
        },
    );
    let line = "rm -rf node_modules && npm ci --prefer-offline --no-audit --no-fund -q";
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..BUILD_ROUNDS + 1 {
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for inside in order {
            let started = Instant::now();
            let (command, contained) = if inside {
                let (command, contained) =
                    sandbox.command(Mode::Auto, "sh", &["-c", line]).unwrap();
                (command, Some(contained))
            } else {
                let mut command = Command::new("sh");
                command.args(["-c", line]);
                (command, None)
            };
            let run = keyless::exec::run_command(command, root, timeout, 4000).unwrap();
            assert_eq!(run.code, Some(0), "{}", run.output);
            if let Some(contained) = contained {
                contained.finish(false, &run.output);
            }
            // The first round warms the caches and is not counted.
            if round > 0 {
                times[usize::from(inside)].push(started.elapsed());
            }
        }
    }
    let [plain, contained] = times;
    let (plain, contained) = (median(plain), median(contained));
    println!(
        "sandbox/npm_ci: outside {:.0} ms, inside {:.0} ms, {:.3} times as long (median of {BUILD_ROUNDS})",
        plain.as_secs_f64() * 1e3,
        contained.as_secs_f64() * 1e3,
        contained.as_secs_f64() / plain.as_secs_f64()
    );
}

/// The CPU time this thread has used: on a machine shared with other builds, wall time
/// measures the neighbours too.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// `n` pseudo-random bytes: data no rule should find anything in.
fn noise(n: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// Outputs of about `size` bytes (a multiple of 1 MB) made to cost the redactor the most: every view it reads through has
/// work in them (dumps to read back, runs to decode, blocks of one width to join, tags to read).
fn hostile(size: usize) -> Vec<(&'static str, String)> {
    const SIZE: usize = 1_000_000;
    let repeat = |text: String| text.repeat(size / SIZE);
    let data = noise(SIZE);
    let xxd: String = data[..SIZE / 4]
        .chunks(16)
        .enumerate()
        .map(|(i, line)| {
            let hex: Vec<String> = line
                .chunks(2)
                .map(|g| g.iter().map(|b| format!("{b:02x}")).collect())
                .collect();
            let chars: String = line
                .iter()
                .map(|&b| {
                    if (0x20..0x7f).contains(&b) {
                        char::from(b)
                    } else {
                        '.'
                    }
                })
                .collect();
            format!("{:08x}: {:<39}  {chars}\n", 16 * i, hex.join(" "))
        })
        .collect();
    let od: String = data[..SIZE / 4]
        .chunks(16)
        .enumerate()
        .map(|(i, line)| {
            let cells: String = line.iter().map(|b| format!(" {b:03o}")).collect();
            format!("{:07o}{cells}\n", 16 * i)
        })
        .collect();
    let encoded = base64(&data[..SIZE * 3 / 4]);
    let wrapped: String = encoded
        .as_bytes()
        .chunks(76)
        .map(|line| format!("{}\n", String::from_utf8_lossy(line)))
        .collect();
    let same_width: String = encoded
        .as_bytes()
        .chunks(40)
        .map(|line| {
            format!(
                "{}\n",
                String::from_utf8_lossy(line).replace(['+', '/'], "x")
            )
        })
        .collect();
    let tags = "<a href=\"x\" password=\"\" key=\"name\">text</a>".repeat(SIZE / 45);
    let unended = format!("-----BEGIN PRIVATE KEY-----\n{wrapped}");
    let assignments = "password = input()\ntoken: Token\n".repeat(SIZE / 31);
    let jwks = r#"{"kty":"RSA","n":"abc","e":"AQAB"},"#.repeat(SIZE / 36);
    // What the views of what a person reads at a glance work hardest on: a character taken out
    // after every letter, escapes and entities to read back, letters to fold, runs to join, and
    // runs that fail one letter short.
    let letters: String = data[..SIZE / 8]
        .iter()
        .map(|&b| char::from(b'a' + b % 26))
        .collect();
    // Each letter written by `per`, a line break after every `line` letters.
    let each = |per: &dyn Fn(char) -> String, line: usize| -> String {
        let mut out = String::with_capacity(SIZE + 64);
        for (i, c) in letters.chars().cycle().enumerate() {
            if out.len() >= SIZE {
                break;
            }
            out.push_str(&per(c));
            if i % line == line - 1 {
                out.push('\n');
            }
        }
        out
    };
    let zero_width = each(&|c| format!("{c}\u{200b}"), 40);
    let overstrike = each(&|c| format!("{c}\u{8}{c}"), 40);
    let json_escapes = each(&|c| format!("\\u{:04x}", u32::from(c)), 20);
    let entities = each(&|c| format!("&#{};", u32::from(c)), 20);
    let fullwidth = each(
        &|c| char::from_u32(u32::from(c) + 0xfee0).map_or(String::new(), String::from),
        40,
    );
    let spaced = each(&|c| format!("{c} "), 40);
    let one_short = "a a a a a a a,".repeat(SIZE / 14);
    let cyrillic = "\u{41f}\u{440}\u{43e}\u{432}\u{435}\u{440}\u{43a}\u{430} \u{441}\u{431}\u{43e}\u{440}\u{43a}\u{438} \u{437}\u{430}\u{432}\u{435}\u{440}\u{448}\u{435}\u{43d}\u{430}: ok\n"
        .repeat(SIZE / 53);
    vec![
        ("xxd_dump", xxd),
        ("od_dump", od),
        ("wrapped_base64", wrapped),
        ("one_base64_line", encoded),
        ("lines_of_one_width", same_width),
        ("xml_tags", tags),
        ("pem_without_end", unended),
        ("assignments_in_code", assignments),
        ("jwk_objects", jwks),
        ("zero_width_between_letters", zero_width),
        ("overstruck_letters", overstrike),
        ("json_escapes", json_escapes),
        ("html_entities", entities),
        ("fullwidth_letters", fullwidth),
        ("spaced_letters", spaced),
        ("runs_one_letter_short", one_short),
        ("cyrillic_prose", cyrillic),
    ]
    .into_iter()
    .map(|(name, text)| (name, repeat(text)))
    .collect()
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
    // `REDACT_ONLY=name` runs the cases whose name holds it (for a profiler).
    let only = std::env::var("REDACT_ONLY").unwrap_or_default();
    let measure = |name: &str, redactor: &keyless::redact::Redactor, text: &str, ordinary: bool| {
        if !name.contains(&only) {
            return;
        }
        redactor.redact("warm up the rules");
        let (mut times, mut cpu) = (Vec::new(), Vec::new());
        for _ in 0..11 {
            let (started, cpu_started) = (Instant::now(), thread_cpu());
            let out = redactor.redact(text);
            times.push(started.elapsed());
            cpu.push(thread_cpu() - cpu_started);
            if ordinary {
                assert_eq!(out.count, 0, "ordinary build output has no secret");
            }
        }
        let (median, cpu) = (median(times), median(cpu));
        println!(
            "redact/{name}: median {:.1} ms wall, {:.1} ms CPU, {:.0} MB/s by CPU ({} bytes; target well under 50 ms a MB)",
            median.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3,
            text.len() as f64 / cpu.as_secs_f64() / 1e6,
            text.len()
        );
    };
    let plain = keyless::redact::Redactor::default();
    measure("1MB_build_output", &plain, &text, true);
    measure("1MB_build_output_40_known_values", &with_known, &text, true);
    measure(
        "1MB_coloured_build_output_40_known_values",
        &with_known,
        &coloured,
        true,
    );
    // Each hostile output at 1 MB and at 4 MB: the time a MB must stay the same (linear).
    for mb in [1, 4] {
        for (name, text) in hostile(mb * 1_000_000) {
            let name = format!("hostile_{mb}MB_{name}_40_known_values");
            measure(&name, &with_known, &text, false);
        }
    }
}
