//! The world a model command runs in (issue 23), tried as an attacker would, through `keyless
//! apply` in Auto mode (a script the model wrote, which the policy only sees as `sh x.sh`) and in
//! Ask mode through a build script (`cargo build` is Build, which runs without a yes). Each
//! attack would do real harm if it worked, and each test checks that it did not: a victim
//! process outside that must survive untouched, a fake secret in keyless's own environment that
//! must never reach the results (not even reversed, which no redactor can catch), a marker
//! outside that must not appear, a cache file that must keep its bytes, a server outside that
//! must never be reached.

use std::fs;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::sandbox::{GITHUB_TOKEN, World, cargo_crate, config, denied};

fn reversed(text: &str) -> String {
    text.chars().rev().collect()
}

/// Writes `script` into the workspace as `name` and runs `sh name` there.
fn run_script(world: &World, mode: &str, name: &str, script: &str) -> (String, Option<i32>) {
    fs::write(world.ws.join(name), world.spell(script)).unwrap();
    world.apply(mode, &[&format!("sh {name}")])
}

/// A build script's body that prints what it found as `cargo:warning=` lines.
fn build_script(ws: &Path, body: &str) {
    cargo_crate(ws);
    fs::write(
        ws.join("build.rs"),
        format!("#![allow(unused_imports)]\nuse std::io::Read;\nfn say(s: &str) {{ for l in s.lines() {{ println!(\"cargo:warning={{l}}\"); }} }}\nfn main() {{\n{body}\n}}\n"),
    )
    .unwrap();
}

/// A process outside keyless with a secret in its environment: the victim.
struct Victim(std::process::Child);

impl Victim {
    fn start() -> Victim {
        Victim(
            std::process::Command::new("sleep")
                .arg("120")
                .env("VICTIM_SECRET", "victim-secret-Zk81mQ")
                .spawn()
                .unwrap(),
        )
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    fn alive(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }

    /// Its nice value and its open-files limit, as the kernel has them.
    fn settings(&self) -> (String, String) {
        let stat = fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        let nice = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .nth(16)
            .unwrap()
            .to_string();
        let limits = fs::read_to_string(format!("/proc/{}/limits", self.pid())).unwrap();
        let files = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap()
            .to_string();
        (nice, files)
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_command_sees_no_process_but_its_own_and_cannot_touch_one() {
    let world = World::new();
    let mut victim = Victim::start();
    let before = victim.settings();
    let pid = victim.pid();
    let script = format!(
        "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done | rev > dump.txt\nls /proc | grep -c '^[0-9]'\nkill -9 {pid}; renice 19 {pid}; prlimit --pid {pid} --nofile=3:3; echo survived\n"
    );
    let (out, _) = run_script(&world, "auto", "procs.sh", &script);
    assert!(out.contains("survived"), "{out}");
    assert!(victim.alive(), "{out}");
    assert_eq!(victim.settings(), before, "{out}");
    // Everything the command could read of every process it sees, kept whole in the workspace.
    let dump = fs::read_to_string(world.ws.join("dump.txt")).unwrap();
    assert!(dump.contains(&reversed("KEYLESS_SANDBOX=1")), "{dump}");
    for secret in [
        GITHUB_TOKEN,
        "victim-secret-Zk81mQ",
        "AWS_SECRET_ACCESS_KEY",
    ] {
        assert!(!dump.contains(&reversed(secret)), "{secret} leaked: {dump}");
    }
    // The same through a build script in Ask mode.
    build_script(
        &world.ws,
        &format!(
            "    let mut all = String::new();\n    for e in std::fs::read_dir(\"/proc\").unwrap().flatten() {{ let mut s = String::new(); let _ = std::fs::File::open(e.path().join(\"environ\")).and_then(|mut f| f.read_to_string(&mut s)); all.push_str(&s.replace('\\0', \"\\n\")); }}\n    std::fs::write(\"dump-build.txt\", all.chars().rev().collect::<String>()).unwrap();\n    let killed = std::process::Command::new(\"kill\").args([\"-9\", \"{pid}\"]).status().map(|s| s.success()).unwrap_or(false);\n    say(&format!(\"killed={{killed}}\"));"
        ),
    );
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    assert!(out.contains("killed=false"), "{out}");
    assert!(victim.alive(), "{out}");
    let dump = fs::read_to_string(world.ws.join("dump-build.txt")).unwrap();
    for secret in [
        GITHUB_TOKEN,
        "victim-secret-Zk81mQ",
        "AWS_SECRET_ACCESS_KEY",
    ] {
        assert!(!dump.contains(&reversed(secret)), "{secret} leaked: {dump}");
    }
}

/// The host's processes whose command line holds `marker`.
fn host_processes_with(marker: &str) -> Vec<i32> {
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

#[test]
fn nothing_a_command_starts_outlives_it_however_it_detached() {
    let world = World::new();
    fs::remove_dir_all(world.ws.join(".git")).unwrap();
    fs::remove_file(world.ws.join("keyless.json")).unwrap();
    // Four ways to leave a process behind, each waiting, then planting what the next git or
    // keyless run would trust.
    let plant = "sleep 2.7171; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo '{\"Agent\": {\"Mode\": \"Auto\"}}' > keyless.json; echo planted > planted.txt";
    let script = format!(
        "(setsid sh -c '{plant}' &)\nnohup sh -c '{plant}' >/dev/null 2>&1 &\nsh -c 'sh -c \"{}\" &' &\n(trap '' HUP TERM; sh -c '{plant}') &\ndisown 2>/dev/null; echo launched\n",
        plant.replace('"', "\\\"")
    );
    let (out, _) = run_script(&world, "auto", "daemon.sh", &script);
    assert!(out.contains("launched"), "{out}");
    let ended = Instant::now();
    loop {
        let left = host_processes_with("2.7171");
        if left.is_empty() {
            break;
        }
        assert!(
            ended.elapsed() < Duration::from_secs(1),
            "processes {left:?} outlived the command by a second: {out}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_secs(3));
    assert!(!world.ws.join("planted.txt").exists(), "{out}");
    assert!(!world.ws.join(".git").exists(), "{out}");
    assert!(!world.ws.join("keyless.json").exists(), "{out}");
}

#[test]
fn a_command_holds_no_privilege_of_the_machine() {
    let world = World::new();
    let script = "mknod disk b 8 0; mknod mem c 1 1; mount -t tmpfs none /mnt; unshare -U true; unshare -n true; chroot / true; echo x > /proc/sys/kernel/hostname; grep Cap /proc/self/status; ls -l disk mem\n";
    let (out, _) = run_script(&world, "auto", "priv.sh", script);
    assert!(
        !world.ws.join("disk").exists() && !world.ws.join("mem").exists(),
        "{out}"
    );
    for line in [
        "CapPrm:\t0000000000000000",
        "CapEff:\t0000000000000000",
        "CapBnd:\t0000000000000000",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    assert!(denied(&out) >= 1, "{out}");
}

/// The machine's own secrets in `/etc` (the password hashes, the ssh host keys, the TLS private
/// keys' folder) are out of a command's reach whoever runs keyless: masked, or refused by the
/// kernel where the command runs as an id of no one's (there a mask would only cost a bind).
/// Where keyless is root and cannot remap (simulated), each is masked.
#[test]
fn the_machines_own_secrets_in_etc_are_out_of_a_commands_reach() {
    let mut secrets = vec!["/etc/shadow".to_string(), "/etc/gshadow".to_string()];
    if let Ok(entries) = fs::read_dir("/etc/ssh") {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("ssh_host_") && name.ends_with("_key") {
                secrets.push(e.path().display().to_string());
            }
        }
    }
    // The host holds them (Debian's shadow is never empty), so reading one would show.
    assert!(fs::metadata("/etc/shadow").unwrap().len() > 0);
    let script = format!(
        "for f in {}; do if [ -s \"$f\" ] && head -c 64 \"$f\" >/dev/null 2>&1; then echo \"READ $f\"; fi; done\n\
         if [ -n \"$(ls -A /etc/ssl/private 2>/dev/null)\" ]; then echo LISTED; fi\necho looked\n",
        secrets.join(" ")
    );
    let mut world = World::new();
    let mut simulations = vec![None];
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        simulations.push(Some("no-remap"));
    }
    for simulate in simulations {
        if let Some(parts) = simulate {
            world.simulate(parts);
        }
        let (out, _) = run_script(&world, "auto", "etc.sh", &script);
        assert!(out.contains("looked"), "{simulate:?}: {out}");
        assert!(!out.contains("READ "), "{simulate:?}: {out}");
        assert!(!out.contains("LISTED"), "{simulate:?}: {out}");
    }
}

/// One call of each family the seccomp filter refuses (issue 29), made from Python with this
/// machine's numbers: (family, call, arguments, the errno expected).
fn refused_calls() -> Vec<(&'static str, i64, Vec<i64>, i32)> {
    let (eperm, enosys) = (libc::EPERM, libc::ENOSYS);
    let mut calls = vec![
        ("keyrings", libc::SYS_keyctl, vec![0, -3], eperm),
        ("keyrings", libc::SYS_add_key, vec![0, 0, 0, 0, -3], eperm),
        ("keyrings", libc::SYS_request_key, vec![0, 0, 0, 0], eperm),
        ("mounts", libc::SYS_mount, vec![0, 0, 0, 0, 0], eperm),
        ("mounts", libc::SYS_fsopen, vec![0, 0], eperm),
        ("mounts", libc::SYS_open_tree, vec![-100, 0, 1], eperm),
        (
            "namespaces",
            libc::SYS_unshare,
            vec![libc::CLONE_NEWNS as i64],
            eperm,
        ),
        (
            "namespaces",
            libc::SYS_unshare,
            vec![libc::CLONE_NEWUSER as i64],
            eperm,
        ),
        ("namespaces", libc::SYS_setns, vec![0, 0], eperm),
        ("modules", libc::SYS_init_module, vec![0, 0, 0], eperm),
        ("modules", libc::SYS_finit_module, vec![0, 0, 0], eperm),
        ("kexec", libc::SYS_kexec_load, vec![0, 0, 0, 0], eperm),
        ("reboot", libc::SYS_reboot, vec![0, 0, 0, 0], eperm),
        ("bpf", libc::SYS_bpf, vec![0, 0, 0], eperm),
        (
            "perf",
            libc::SYS_perf_event_open,
            vec![0, 0, -1, -1, 0],
            eperm,
        ),
        ("userfaultfd", libc::SYS_userfaultfd, vec![0], eperm),
        ("clocks", libc::SYS_clock_settime, vec![0, 0], eperm),
        ("clocks", libc::SYS_settimeofday, vec![0, 0], eperm),
        ("swap", libc::SYS_swapon, vec![0, 0], eperm),
        ("quotas", libc::SYS_acct, vec![0], eperm),
        ("syslog", libc::SYS_syslog, vec![3, 0, 0], eperm),
        ("handles", libc::SYS_open_by_handle_at, vec![0, 0, 0], eperm),
        (
            "ptrace",
            libc::SYS_ptrace,
            vec![libc::PTRACE_ATTACH as i64, 1],
            eperm,
        ),
        ("ptrace", libc::SYS_ptrace, vec![0x4206, 1, 0, 0], eperm),
        (
            "process memory",
            libc::SYS_process_vm_readv,
            vec![1, 0, 0, 0, 0, 0],
            eperm,
        ),
        ("io_uring", libc::SYS_io_uring_setup, vec![1, 0], enosys),
        ("clone3", libc::SYS_clone3, vec![0, 0], enosys),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.push(("ports", libc::SYS_iopl, vec![3], eperm));
    calls
}

#[test]
fn the_kernels_knobs_keyrings_and_privileged_calls_are_out_of_reach_of_a_command() {
    let world = World::new();
    let calls: Vec<String> = refused_calls()
        .iter()
        .map(|(family, nr, args, errno)| {
            let args: Vec<String> = args.iter().map(i64::to_string).collect();
            format!("({family:?}, {nr}, [{}], {errno})", args.join(", "))
        })
        .collect();
    let python = format!(
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\nfor family, nr, args, want in [{}]:\n    ctypes.set_errno(0)\n    got = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])\n    err = ctypes.get_errno()\n    print('call', family, nr, 'refused' if got == -1 and err == want else 'ALLOWED got=%d errno=%d' % (got, err))\nimport threading\nt = threading.Thread(target=lambda: print('a thread still starts'))\nt.start(); t.join()\nprint('a process still starts', os.system('true') == 0)\n",
        calls.join(", ")
    );
    fs::write(world.ws.join("calls.py"), python).unwrap();
    // Each knob is written with the value it holds: harmless even where the write went through.
    let knobs = "for k in kernel/core_pattern kernel/randomize_va_space fs/protected_symlinks fs/protected_hardlinks kernel/modprobe vm/overcommit_memory; do v=$(cat /proc/sys/$k); if printf '%s\\n' \"$v\" > /proc/sys/$k; then echo \"knob $k WRITTEN\"; else echo \"knob $k refused\"; fi; done\n[ -e /proc/sysrq-trigger ] && { echo h > /proc/sysrq-trigger && echo 'sysrq WRITTEN'; }\nfor f in /proc/kcore /proc/keys /proc/key-users /proc/kallsyms /proc/timer_list; do [ -e $f ] && echo \"$f: $(head -c 64 $f 2>/dev/null | wc -c) bytes\"; done\ncat /proc/self/status | grep -E '^Seccomp:'\n";
    let (out, _) = world.apply_hidden("auto", &["python3 calls.py", knobs]);
    let expected = refused_calls().len();
    for (family, nr, _, _) in refused_calls() {
        assert!(
            out.contains(&format!("call {family} {nr} refused")),
            "{family} ({nr}) was not refused:\n{out}"
        );
    }
    assert_eq!(out.matches("call ").count(), expected, "{out}");
    assert!(out.contains("a thread still starts"), "{out}");
    assert!(out.contains("a process still starts True"), "{out}");
    assert!(!out.contains("WRITTEN"), "{out}");
    assert_eq!(out.matches("knob ").count(), 6, "{out}");
    for file in ["/proc/kcore", "/proc/keys", "/proc/kallsyms"] {
        if Path::new(file).exists() {
            assert!(out.contains(&format!("{file}: 0 bytes")), "{file}: {out}");
        }
    }
    assert!(out.contains("Seccomp:\t2"), "{out}");

    // The issue's vehicle: a build script in Ask mode, which runs without a yes.
    build_script(
        &world.ws,
        "    for knob in [\"kernel/core_pattern\", \"kernel/randomize_va_space\", \"fs/protected_symlinks\"] {\n        let path = format!(\"/proc/sys/{knob}\");\n        let value = std::fs::read(&path).unwrap_or_default();\n        say(&format!(\"build-knob {knob} written={}\", std::fs::write(&path, value).is_ok()));\n    }\n    say(&format!(\"build-keys={:?}\", std::fs::read_to_string(\"/proc/keys\").map(|k| k.len()).unwrap_or(0)));",
    );
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    assert_eq!(out.matches("written=false").count(), 3, "{out}");
    assert!(out.contains("build-keys=0"), "{out}");
}

#[test]
fn every_repository_in_the_workspace_is_read_only_at_any_depth_ignored_or_pointed_to() {
    let world = World::new();
    let ws = &world.ws;
    fs::write(ws.join(".gitignore"), "node_modules/\nbuild/\n").unwrap();
    // Existing repositories where a shallow or filtered walk would not look.
    let repos = [
        "node_modules/dep",
        "build/out/checkout",
        "a/b/c/d/e/f/g/h/deep",
        "target/vendored",
    ];
    for repo in repos {
        fs::create_dir_all(ws.join(repo)).unwrap();
        crate::sandbox::git(&ws.join(repo), &["init", "-q"]);
    }
    // A `.git` file whose folder is elsewhere in the workspace, under another name.
    fs::create_dir_all(ws.join("pointer")).unwrap();
    fs::create_dir_all(ws.join("store")).unwrap();
    crate::sandbox::git(
        &ws.join("pointer"),
        &["init", "-q", "--separate-git-dir", "../store/pointer.git"],
    );
    assert!(ws.join("pointer/.git").is_file());
    let configs: Vec<std::path::PathBuf> = repos
        .iter()
        .map(|r| ws.join(r).join(".git/config"))
        .chain([ws.join("store/pointer.git/config")])
        .collect();
    let before: Vec<String> = configs
        .iter()
        .map(|c| fs::read_to_string(c).unwrap())
        .collect();
    let mut script = String::new();
    for config in &configs {
        script.push_str(&format!(
            "printf '[core]\\n\\tfsmonitor = touch $VICTIM/fsmonitor-ran\\n' >> {0} && echo 'WROTE {0}'\n",
            config.display()
        ));
    }
    script.push_str("mkdir -p store/pointer.git/hooks && echo evil > store/pointer.git/hooks/post-checkout && echo 'WROTE hook'\n");
    let out = world.attack("auto", &[&script]);
    assert!(!out.contains("WROTE"), "{out}");
    // The same through a build script in Ask mode.
    let writes: Vec<String> = configs
        .iter()
        .map(|c| format!("    say(&format!(\"build-wrote={{}}\", std::fs::OpenOptions::new().append(true).open({:?}).is_ok()));", c.display().to_string()))
        .collect();
    build_script(ws, &writes.join("\n"));
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    assert_eq!(
        out.matches("build-wrote=false").count(),
        configs.len(),
        "{out}"
    );
    let after: Vec<String> = configs
        .iter()
        .map(|c| fs::read_to_string(c).unwrap())
        .collect();
    assert_eq!(before, after);
    assert!(!ws.join("store/pointer.git/hooks/post-checkout").exists());
}

/// Secrets of issue 29's fourth point: in tool homes moved by the environment, and in values
/// whose names say nothing.
const TOOL_SECRETS: &[&str] = &[
    "cio-TOKEN-4411x",
    "cio-CFG-5522x",
    "gr-PASS-6633x",
    "rubygems_0123456789abcdef0123456789abcdef0123456789abcd",
    "mvn-PASS-7744x",
    "Zq9Lw2Nv8Kt4Hs6Pd1Fx3Bm7Jc5Gy0Rq",
    "hunter2-pw-8855",
    "Tr0ub4dor-9966",
];

#[test]
fn credentials_in_tool_homes_wherever_they_are_and_secret_values_never_reach_a_command() {
    let mut world = World::new();
    let dir = world._dir.path().to_path_buf();
    // A cargo home outside the home folder (as the official Rust image has it), a Gradle home
    // named by its variable, a Maven repository named in settings.xml, pip's cache where
    // XDG_CACHE_HOME puts it, RubyGems' credentials in the home folder's cache.
    let cargo = dir.join("usr-local-cargo");
    let crate_dir = cargo.join("registry/src/index.crates.io-0000000000000000/victim-1.0.0");
    let gradle = dir.join("gradle-home");
    let xdg = dir.join("xdg-cache");
    let m2 = dir.join("m2-repo");
    for folder in [
        &crate_dir,
        &gradle,
        &xdg.join("pip/http"),
        &m2.join("org"),
        &world.home.join(".gem"),
        &world.home.join(".m2"),
    ] {
        fs::create_dir_all(folder).unwrap();
    }
    fs::write(crate_dir.join("build.rs"), "fn main() {}\n").unwrap();
    fs::write(
        cargo.join("credentials.toml"),
        "[registry]\ntoken = \"cio-TOKEN-4411x\"\n",
    )
    .unwrap();
    fs::write(
        cargo.join("config.toml"),
        "[registry]\ntoken = \"cio-CFG-5522x\"\n[net]\nretry = 7\n",
    )
    .unwrap();
    fs::write(
        gradle.join("gradle.properties"),
        "org.gradle.caching=true\nsigningPassword=gr-PASS-6633x\n",
    )
    .unwrap();
    fs::write(
        world.home.join(".gem/credentials"),
        ":rubygems_api_key: rubygems_0123456789abcdef0123456789abcdef0123456789abcd\n",
    )
    .unwrap();
    fs::write(
        world.home.join(".m2/settings.xml"),
        format!("<settings><localRepository>{}</localRepository><servers><server><id>c</id><password>mvn-PASS-7744x</password></server></servers></settings>\n", m2.display()),
    )
    .unwrap();
    fs::write(xdg.join("pip/http/entry"), "cached wheel\n").unwrap();
    fs::write(m2.join("org/artifact.jar"), "jar\n").unwrap();
    for (name, value) in [
        ("CARGO_HOME", cargo.display().to_string()),
        ("GRADLE_USER_HOME", gradle.display().to_string()),
        ("XDG_CACHE_HOME", xdg.display().to_string()),
        ("BW_SESSION", "Zq9Lw2Nv8Kt4Hs6Pd1Fx3Bm7Jc5Gy0Rq".to_string()),
        (
            "MAIN_DB",
            "postgres://app:hunter2-pw-8855@db.example.com/app".to_string(),
        ),
        (
            "CONN",
            "Server=db;User Id=sa;Password=Tr0ub4dor-9966;".to_string(),
        ),
    ] {
        world.env.push((name.into(), value));
    }
    let script = format!(
        "cat {cargo}/credentials.toml {cargo}/config.toml {gradle}/gradle.properties ~/.gem/credentials ~/.m2/settings.xml 2>&1 | rev\nenv | rev\necho POISON > {crate_dir}/build.rs && echo cache-written\necho POISON > {xdg}/pip/http/entry && echo pip-written\necho POISON > {m2}/org/artifact.jar && echo m2-written\ngrep -c retry {cargo}/config.toml\n",
        cargo = cargo.display(),
        gradle = gradle.display(),
        crate_dir = crate_dir.display(),
        xdg = xdg.display(),
        m2 = m2.display(),
    );
    let out = world.attack("auto", &[&script]);
    for secret in TOOL_SECRETS {
        assert!(
            !out.contains(secret) && !out.contains(&reversed(secret)),
            "{secret} reached the command: {out}"
        );
    }
    // The writes went to keyless's layers, not to the caches a later build trusts.
    assert!(
        out.contains("cache-written") && out.contains("pip-written") && out.contains("m2-written"),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(crate_dir.join("build.rs")).unwrap(),
        "fn main() {}\n"
    );
    assert_eq!(
        fs::read_to_string(xdg.join("pip/http/entry")).unwrap(),
        "cached wheel\n"
    );
    assert_eq!(
        fs::read_to_string(m2.join("org/artifact.jar")).unwrap(),
        "jar\n"
    );
    // A settings file a build needs is there, without its secret.
    assert!(
        out.contains("\n1\n"),
        "config.toml kept its settings: {out}"
    );
}

/// The machine's ids of the processes outside whose command line holds `marker`: (real,
/// effective, saved, file system) uids of each.
fn host_uids_of(marker: &str) -> Vec<Vec<u32>> {
    host_processes_with(marker)
        .into_iter()
        .filter_map(|pid| {
            let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            let line = status.lines().find(|l| l.starts_with("Uid:"))?;
            Some(
                line.split_whitespace()
                    .skip(1)
                    .map(|u| u.parse().unwrap())
                    .collect(),
            )
        })
        .collect()
}

/// Runs `keyless apply` with `world`'s reply in the background while `script` (which waits for
/// `stop-uid` in the workspace) runs, and returns the machine's uids of its processes.
fn uids_while_running(world: &World, simulate: Option<&str>) -> (Vec<Vec<u32>>, String) {
    fs::write(
        world.ws.join("uidcheck.sh"),
        "echo mine > made-by-command.txt\nwhile [ ! -e stop-uid ]; do sleep 0.05; done\nid -u\n",
    )
    .unwrap();
    let mut world_env = world.env.clone();
    if let Some(parts) = simulate {
        world_env.push(("KEYLESS_SANDBOX_SIMULATE".into(), parts.into()));
    }
    let ws = world.ws.clone();
    let home = world.home.clone();
    let runner = std::thread::spawn(move || {
        let reply = ws.parent().unwrap().join("uid.reply");
        fs::write(&reply, "@@runcommand on_error=continue\n<<<CMD\nsh uidcheck.sh\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n").unwrap();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"));
        command
            .arg("apply")
            .arg(&reply)
            .arg("--workspace")
            .arg(&ws)
            .args(["--mode", "auto", "--pace", "batch"])
            .env("HOME", &home);
        for (k, v) in world_env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    });
    let started = Instant::now();
    let mut uids = Vec::new();
    while started.elapsed() < Duration::from_secs(30) {
        uids = host_uids_of("uidcheck.sh");
        if !uids.is_empty() && world.ws.join("made-by-command.txt").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    fs::write(world.ws.join("stop-uid"), "").unwrap();
    let out = runner.join().unwrap();
    (uids, out)
}

#[test]
fn a_command_never_has_the_machines_root_whoever_runs_keyless() {
    let mut world = World::new();
    fs::write(
        world.ws.join("keyless.json"),
        config(crate::sandbox::ACCEPT_ALL),
    )
    .unwrap();
    world.env.clear();
    // SAFETY: geteuid cannot fail.
    let keyless_is_root = unsafe { libc::geteuid() } == 0;
    let (uids, out) = uids_while_running(&world, None);
    assert!(!uids.is_empty(), "the command was never seen: {out}");
    for ids in &uids {
        assert!(
            ids.iter().all(|&id| id != 0),
            "a command ran as the machine's root: {ids:?}\n{out}"
        );
    }
    // Inside, it still looks like root, and what it made is the workspace owner's, as before.
    if keyless_is_root {
        assert!(out.contains("\n0\n"), "{out}");
    }
    let owner = |p: &Path| std::os::unix::fs::MetadataExt::uid(&fs::metadata(p).unwrap());
    assert_eq!(
        owner(&world.ws.join("made-by-command.txt")),
        owner(&world.ws)
    );
    if keyless_is_root {
        // Where the machine cannot (simulated), the guarantee is said to be missing, in words.
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"))
            .args(["status", "--workspace"])
            .arg(&world.ws)
            .env("HOME", &world.home)
            .env("KEYLESS_SANDBOX_SIMULATE", "no-remap")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&status.stdout).into_owned();
        assert!(text.contains("privilege: keyless runs as root"), "{text}");
        fs::remove_file(world.ws.join("stop-uid")).unwrap();
        let (uids, out) = uids_while_running(&world, Some("no-remap"));
        assert!(
            uids.iter().all(|ids| ids.iter().all(|&id| id == 0)),
            "{uids:?} {out}"
        );
    }
}

#[test]
fn the_home_folder_and_keylesss_own_files_do_not_exist_for_a_command() {
    let mut world = World::new();
    let xdg = world._dir.path().join("xdg");
    fs::create_dir_all(xdg.join("keyless/profile/Default")).unwrap();
    fs::write(
        xdg.join("keyless/profile/Default/Cookies"),
        "COOKIE-sid=Kq81Zr0vX",
    )
    .unwrap();
    fs::write(xdg.join("keyless/keyless.json"), "{}").unwrap();
    fs::create_dir_all(world.home.join(".claude")).unwrap();
    fs::write(
        world.home.join(".claude/.credentials.json"),
        "{\"token\": \"AGENT-CRED-71\"}",
    )
    .unwrap();
    fs::write(
        world.home.join(".bash_history"),
        "export PASS=HISTORY-SECRET-55\n",
    )
    .unwrap();
    fs::create_dir_all(world.home.join(".config/chromium/Default")).unwrap();
    fs::write(
        world.home.join(".config/chromium/Default/Cookies"),
        "COOKIE-chromium-44",
    )
    .unwrap();
    world
        .env
        .push(("XDG_CONFIG_HOME".into(), xdg.display().to_string()));
    let script = format!(
        "cat ~/.bash_history ~/.claude/.credentials.json ~/.config/chromium/Default/Cookies\ncat {0}/keyless/profile/Default/Cookies; ls -la {0} ~ /home /tmp\nfind / -xdev -name Cookies 2>/dev/null; grep -r SECRET ~ 2>/dev/null | rev\n",
        xdg.display()
    );
    let (out, _) = run_script(&world, "auto", "home.sh", &script);
    for marker in [
        "Kq81Zr0vX",
        "AGENT-CRED-71",
        "HISTORY-SECRET-55",
        "COOKIE-chromium-44",
        &reversed("HISTORY-SECRET-55"),
    ] {
        assert!(!out.contains(marker), "{marker}: {out}");
    }
    // The toolchains are there: the build in another test runs cargo from them.
    assert!(out.contains("No such file or directory"), "{out}");
}

/// Servers outside the sandbox that count who reached them: a Unix socket at a path (as a
/// terminal multiplexer's or a container daemon's), an abstract Unix socket (as some D-Bus
/// buses), and a TCP port on loopback (as the browser's debugging port).
struct Servers {
    path: std::path::PathBuf,
    abstract_name: String,
    port: u16,
    reached: Arc<AtomicUsize>,
}

impl Servers {
    fn start(dir: &Path) -> Servers {
        use std::os::linux::net::SocketAddrExt;
        let reached = Arc::new(AtomicUsize::new(0));
        let path = dir.join("tmux-0/default");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let unix = UnixListener::bind(&path).unwrap();
        let abstract_name = format!("keyless-test-{}", std::process::id());
        let address = std::os::unix::net::SocketAddr::from_abstract_name(&abstract_name).unwrap();
        let abstract_listener = UnixListener::bind_addr(&address).unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = tcp.local_addr().unwrap().port();
        for listener in [unix, abstract_listener] {
            let reached = Arc::clone(&reached);
            std::thread::spawn(move || {
                for mut stream in listener.incoming().flatten() {
                    reached.fetch_add(1, Ordering::SeqCst);
                    let _ = stream.write_all(b"SERVED-OUTSIDE\n");
                }
            });
        }
        let counted = Arc::clone(&reached);
        std::thread::spawn(move || {
            for mut stream in tcp.incoming().flatten() {
                counted.fetch_add(1, Ordering::SeqCst);
                let mut request = [0u8; 1024];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 37\r\n\r\n{\"webSocketDebuggerUrl\": \"SERVED-OUT\"}");
            }
        });
        Servers {
            path,
            abstract_name,
            port,
            reached,
        }
    }

    fn script(&self) -> String {
        format!(
            "import socket\nfor family, address in [(socket.AF_UNIX, '{}'), (socket.AF_UNIX, '\\0{}'), (socket.AF_INET, ('127.0.0.1', {port})), (socket.AF_INET, ('localhost', {port}))]:\n    try:\n        s = socket.socket(family); s.settimeout(2); s.connect(address); s.sendall(b'GET /json/version HTTP/1.0\\r\\n\\r\\n'); print('got', s.recv(100))\n    except OSError as e:\n        print('refused', address, e)\n",
            self.path.display(),
            self.abstract_name,
            port = self.port
        )
    }
}

#[test]
fn no_socket_or_loopback_service_of_the_machine_is_reachable_in_any_mode() {
    let world = World::new();
    let servers = Servers::start(world._dir.path());
    fs::write(world.ws.join("reach.py"), servers.script()).unwrap();
    let curl = format!(
        "curl -s -m 5 http://127.0.0.1:{0}/json/version; curl -s -m 5 --noproxy '' http://localhost:{0}/json/version; echo curl-done",
        servers.port
    );
    for network in ["false", "true"] {
        fs::write(
            world.ws.join("keyless.json"),
            config(&format!(", \"Sandbox\": {{ \"Network\": {network} }}")),
        )
        .unwrap();
        let (out, _) = world.apply_hidden("auto", &["python3 reach.py", &curl]);
        assert!(out.contains("curl-done"), "{out}");
        assert!(!out.contains("SERVED-OUT"), "network {network}: {out}");
        if network == "true" {
            assert!(out.contains("keyless's proxy refused localhost"), "{out}");
        }
    }
    // Ask mode, through a build script.
    fs::write(world.ws.join("keyless.json"), config("")).unwrap();
    build_script(
        &world.ws,
        &format!(
            "    let r = std::net::TcpStream::connect((\"127.0.0.1\", {})).is_ok();\n    let u = std::os::unix::net::UnixStream::connect(\"{}\").is_ok();\n    say(&format!(\"tcp={{r}} unix={{u}}\"));",
            servers.port,
            servers.path.display()
        ),
    );
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    assert!(out.contains("tcp=false unix=false"), "{out}");
    assert_eq!(servers.reached.load(Ordering::SeqCst), 0, "{out}");
}

#[test]
fn a_build_cache_cannot_be_poisoned_and_a_command_still_writes_to_it() {
    let mut world = World::new();
    // A cargo home of the test's own, with a crate unpacked in its registry, as every machine
    // that built something has.
    let cargo_home = world._dir.path().join("cargo-home");
    let unpacked = cargo_home.join("registry/src/index.crates.io-0000000000000000/victim-1.0.0");
    fs::create_dir_all(&unpacked).unwrap();
    fs::write(unpacked.join("build.rs"), "fn main() {}\n").unwrap();
    fs::create_dir_all(cargo_home.join("bin")).unwrap();
    world
        .env
        .push(("CARGO_HOME".into(), cargo_home.display().to_string()));
    let path = format!(
        "{}:{}",
        Path::new(
            &std::env::var("CARGO_HOME")
                .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap()))
        )
        .join("bin")
        .display(),
        std::env::var("PATH").unwrap()
    );
    world.env.push(("PATH".into(), path));
    build_script(
        &world.ws,
        &format!(
            "    let home = \"{}\";\n    let w = std::fs::write(format!(\"{{home}}/registry/src/index.crates.io-0000000000000000/victim-1.0.0/build.rs\"), \"fn main() {{ /* POISON */ }}\").is_ok();\n    let b = std::fs::write(format!(\"{{home}}/bin/cargo-evil\"), \"evil\").is_ok();\n    let c = std::fs::write(format!(\"{{home}}/config.toml\"), \"[build]\\nrustc-wrapper = \\\"/tmp/evil\\\"\").is_ok();\n    say(&format!(\"wrote={{w}},{{b}},{{c}}\"));",
            cargo_home.display()
        ),
    );
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    assert!(
        out.contains("wrote=true,true,true"),
        "the layer takes writes: {out}"
    );
    assert_eq!(
        fs::read_to_string(unpacked.join("build.rs")).unwrap(),
        "fn main() {}\n",
        "{out}"
    );
    assert!(!cargo_home.join("bin/cargo-evil").exists(), "{out}");
    assert!(!cargo_home.join("config.toml").exists(), "{out}");
    // The next command in this workspace sees what the last one wrote to the cache.
    let (out, _) = world.apply_hidden(
        "auto",
        &[&format!("cat {}/bin/cargo-evil", cargo_home.display())],
    );
    assert!(out.contains("\nevil"), "{out}");
}

#[test]
fn limits_end_a_fork_bomb_a_temporary_folder_filler_and_a_memory_hog() {
    let world = World::new();
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"MaxProcesses\": 64, \"TmpSizeMiB\": 8, \"MaxMemoryMiB\": 96 }"),
    )
    .unwrap();
    // The bomb's first shell waits: it ending at once would end the world (and the bomb)
    // before the bomb reaches its limit on a quiet machine.
    fs::write(world.ws.join("bomb.sh"), "b() { b | b & }; b; sleep 2\n").unwrap();
    fs::write(
        world.ws.join("fill.sh"),
        "head -c 20000000 /dev/zero > $TMPDIR/fill; ls -la $TMPDIR\n",
    )
    .unwrap();
    fs::write(
        world.ws.join("hog.sh"),
        "head -c 400000000 /dev/zero | tail > /dev/null\n",
    )
    .unwrap();
    let reply = "@@runcommand on_error=continue timeout=3\n<<<CMD\nsh bomb.sh\nCMD>>>\n@@end\n@@runcommand on_error=continue\n<<<CMD\nsh fill.sh\nCMD>>>\n@@end\n@@runcommand on_error=continue\n<<<CMD\nsh hog.sh\nCMD>>>\n@@end\n@@runcommand on_error=continue\n<<<CMD\necho still-working\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n";
    let file = world._dir.path().join("limits.reply");
    fs::write(&file, reply).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("apply")
        .arg(&file)
        .arg("--workspace")
        .arg(&world.ws)
        .args(["--mode", "auto", "--pace", "batch"])
        .env("HOME", &world.home)
        .output()
        .unwrap();
    let out =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.contains("limit of 64 processes"), "{out}");
    assert!(out.contains("holds at most 8 MiB"), "{out}");
    assert!(out.contains("memory limit (96 MiB"), "{out}");
    assert!(out.contains("\nstill-working\n"), "{out}");
    assert!(host_processes_with("bomb.sh").is_empty(), "{out}");
}

#[test]
fn status_json_lists_every_guarantee_and_auto_mode_needs_them_or_a_yes() {
    let mut world = World::new();
    world
        .env
        .push(("KEYLESS_SANDBOX_SIMULATE".into(), "no-layers".into()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["status", "--json", "--mode", "auto", "--workspace"])
        .arg(&world.ws)
        .env("HOME", &world.home)
        .env("KEYLESS_SANDBOX_SIMULATE", "no-layers")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let guarantees = report["guarantees"].as_array().unwrap();
    let names: Vec<&str> = guarantees
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, keyless::config::GUARANTEE_NAMES, "{report}");
    let caches = guarantees.iter().find(|g| g["name"] == "caches").unwrap();
    assert_eq!(caches["holds"], false, "{report}");
    assert!(
        caches["missing"].as_str().unwrap().contains("poisoned"),
        "{report}"
    );
    assert!(
        guarantees
            .iter()
            .filter(|g| g["name"] != "caches")
            .all(|g| g["holds"] == true),
        "{report}"
    );

    let (out, code) = world.apply("auto", &["echo hi"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("KA_SANDBOX_UNAVAILABLE") && out.contains("caches"),
        "{out}"
    );
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"AllowMissing\": [\"caches\"] }"),
    )
    .unwrap();
    let (out, code) = world.apply("auto", &["echo hi"]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn real_builds_pass_inside_the_world_with_registry_dependencies_and_the_network_through_the_proxy()
{
    let world = World::new();
    cargo_crate(&world.ws);
    // A registry dependency the machine has: keyless's own build fetched it.
    let toml = fs::read_to_string(world.ws.join("Cargo.toml")).unwrap();
    fs::write(
        world.ws.join("Cargo.toml"),
        toml.replace("[dependencies]\n", "[dependencies]\ncfg-if = \"1\"\n"),
    )
    .unwrap();
    fs::write(
        world.ws.join("package.json"),
        "{ \"name\": \"pkg\", \"version\": \"1.0.0\", \"dependencies\": { \"is-number\": \"7.0.0\" }, \"scripts\": { \"test\": \"node -e \\\"console.log('is-number', require('is-number')(5))\\\"\" } }\n",
    )
    .unwrap();
    fs::create_dir_all(world.ws.join("gomod")).unwrap();
    fs::write(
        world.ws.join("gomod/go.mod"),
        "module example.com/hello\n\ngo 1.19\n",
    )
    .unwrap();
    fs::write(
        world.ws.join("gomod/main.go"),
        "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from go\") }\n",
    )
    .unwrap();
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"Network\": true }, \"Commands\": { \"TimeoutSeconds\": 600 }"),
    )
    .unwrap();
    let (out, code) = world.apply(
        "auto",
        &[
            "cargo build --offline -q && cargo test --offline -q && ./target/debug/app",
            "npm install --no-audit --no-fund -q && npm ci --no-audit --no-fund -q && npm test",
            "python3 -m venv .venv && .venv/bin/pip install -q six==1.16.0 && .venv/bin/python -c 'import six; print(\"six\", six.__version__)'",
            "cd gomod && go build -o hello . && ./hello && go vet ./...",
        ],
    );
    assert!(out.contains("hello from go"), "{out}");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("42"), "{out}");
    assert!(out.contains("is-number true"), "{out}");
    assert!(out.contains("six 1.16.0"), "{out}");
    assert_eq!(denied(&out), 0, "{out}");
}

/// What a build script does to reach the browser: the debugging port directly and through the
/// sandbox's proxy, the profile's cookies, keyless's environment. It prints what it got, as an
/// attacker would before sending it on.
const BROWSER_ATTACK: &str = r#"use std::io::{Read, Write};
fn say(s: &str) { for l in s.lines() { println!("cargo:warning={l}"); } }
fn get(mut s: std::net::TcpStream, request: &str) -> String {
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(3)));
    let _ = s.write_all(request.as_bytes());
    let mut got = String::new();
    let _ = s.read_to_string(&mut got);
    got
}
fn main() {
    let port: u16 = PORT;
    match std::net::TcpStream::connect(("127.0.0.1", port)) {
        Ok(s) => say(&format!("direct: {}", get(s, "GET /json/version HTTP/1.0\r\n\r\n"))),
        Err(e) => say(&format!("direct refused: {e}")),
    }
    match std::net::TcpStream::connect(("127.0.0.1", 3128)) {
        Ok(s) => say(&format!("proxy: {}", get(s, &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nGET /json/version HTTP/1.0\r\n\r\n")))),
        Err(e) => say(&format!("no proxy: {e}")),
    }
    let cookies = std::fs::read_to_string("COOKIES").unwrap_or_else(|e| format!("cookies: {e}"));
    say(&cookies.chars().rev().collect::<String>());
    let mut all = String::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let mut s = String::new();
        let _ = std::fs::File::open(e.path().join("environ")).and_then(|mut f| f.read_to_string(&mut s));
        all.push_str(&s);
    }
    say(&all.replace('\0', "\n").chars().rev().collect::<String>());
}
"#;

/// The debugging port of the test binary's shared browser.
fn shared_browser_port() -> u16 {
    let url = crate::common::shared_browser::cdp_url();
    let authority = url.split("://").nth(1).unwrap().split('/').next().unwrap();
    authority.rsplit_once(':').unwrap().1.parse().unwrap()
}

/// `keyless run` on the local chat page, attached to the shared browser, with keyless's own
/// configuration folder (where its browser profile and cookies live) inside the workspace,
/// where a command could otherwise read it. The model writes a crate whose build script attacks
/// the browser and runs `cargo build` (Build: no yes needed in Ask mode), or runs a script of
/// its own in Auto mode.
fn browser_attack(mode: &str, run: &str) -> (String, Vec<String>) {
    use keyless::chat::local::{LocalChat, Script};
    let ws = tempfile::tempdir().unwrap();
    let config = ws.path().join(".keyless-home");
    let cookies = config.join("keyless/profile/Default/Cookies");
    fs::create_dir_all(cookies.parent().unwrap()).unwrap();
    fs::write(&cookies, "sessionid=COOKIE-chat-5Rk2").unwrap();
    let attack = BROWSER_ATTACK
        .replace("PORT", &shared_browser_port().to_string())
        .replace("COOKIES", &cookies.display().to_string());
    let file = |name: &str, content: &str| {
        format!("@@newfile {name}\n<<<CONTENT:k\n{content}\nCONTENT:k>>>\n@@end\n")
    };
    let first = format!(
        "{}{}{}{}@@runcommand on_error=continue\n<<<CMD\n{run}\nCMD>>>\n@@end\n@@eof\n",
        file(
            "Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]"
        ),
        file("src/main.rs", "fn main() {}"),
        file("build.rs", attack.trim_end()),
        file(
            "attack.sh",
            "cargo build --offline 2>&1 | sed -n 's/^warning: app@0.1.0: //p'"
        ),
    );
    let done = "@@done\n<<<MSG\nBuilt.\nMSG>>>\n@@end\n@@eof\n";
    let chat = LocalChat::start(Script::replies([first.as_str(), done])).unwrap();
    let out = crate::common::local_keyless::keyless_on(
        &chat,
        ws.path(),
        &config,
        &["run", "--mode", mode, "--pace", "batch", "Build it"],
    )
    .env("GITHUB_TOKEN", GITHUB_TOKEN)
    .env_remove("CARGO_TARGET_DIR")
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    (text, chat.received())
}

fn assert_browser_untouched(text: &str, received: &[String]) {
    let results = received.get(1).cloned().unwrap_or_default();
    assert!(results.contains("direct refused"), "{results}\n{text}");
    for leaked in [
        "webSocketDebuggerUrl",
        "Browser\"",
        &reversed("COOKIE-chat-5Rk2"),
        &reversed(GITHUB_TOKEN),
    ] {
        assert!(
            !results.contains(leaked),
            "{leaked} reached the chat: {results}"
        );
        assert!(!text.contains(leaked), "{leaked}: {text}");
    }
}

#[test]
fn a_build_script_in_ask_mode_reaches_neither_the_browser_nor_its_cookies_through_keyless_run() {
    let (text, received) = browser_attack("ask", "cargo build --offline");
    assert_browser_untouched(&text, &received);
    let results = &received[1];
    // Ask mode has network, through the proxy, which refuses this machine.
    assert!(results.contains("403 Forbidden"), "{results}");
    assert!(
        results.contains("keyless's proxy refused 127.0.0.1"),
        "{results}"
    );
}

#[test]
fn a_script_in_auto_mode_reaches_neither_the_browser_nor_its_cookies_through_keyless_run() {
    let (text, received) = browser_attack("auto", "sh attack.sh");
    assert_browser_untouched(&text, &received);
    assert!(received[1].contains("no proxy"), "{}", received[1]);
}

#[test]
fn keyless_s_own_runs_in_a_workspace_a_model_wrote_are_contained_too() {
    let world = World::new();
    // A toolchain file that makes `cargo --version` (the snapshot's probe) run a program the
    // model wrote, and a snapshot script the model rewrote: both try to write outside and to
    // plant a hook.
    let evil = world.ws.join("evil/bin");
    fs::create_dir_all(&evil).unwrap();
    let payload = world.spell(
        "#!/bin/sh\necho pwned > $VICTIM/marker\nmkdir -p $WS/.git/hooks && echo evil > $WS/.git/hooks/pre-push\necho 'cargo 9.9.9 (planted)'\n",
    );
    for tool in ["cargo", "rustc"] {
        fs::write(evil.join(tool), &payload).unwrap();
        let mut perms = fs::metadata(evil.join(tool)).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        fs::set_permissions(evil.join(tool), perms).unwrap();
    }
    fs::write(
        world.ws.join("rust-toolchain.toml"),
        format!(
            "[toolchain]\npath = \"{}\"\n",
            world.ws.join("evil").display()
        ),
    )
    .unwrap();
    fs::write(world.ws.join("snap.sh"), &payload).unwrap();
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Snapshot\": { \"Tools\": [\"cargo\", \"git\"], \"Scripts\": [\"snap.sh\"] }"),
    )
    .unwrap();
    let before = world.fingerprint();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", "a task", "--workspace"])
        .arg(&world.ws)
        .env("HOME", &world.home)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("cargo 9.9.9 (planted)"),
        "the probe ran, contained: {text}"
    );
    assert_eq!(world.fingerprint(), before, "{text}");
    assert!(!world.victim.join("marker").exists(), "{text}");
    assert!(!world.ws.join(".git/hooks/pre-push").exists(), "{text}");
}

/// A build script that tries a wall of each kind at once, printing what it got.
const EVERY_WALL: &str = r#"use std::io::Read;
fn say(s: &str) { for l in s.lines() { println!("cargo:warning={l}"); } }
fn main() {
    say(&format!("victim-write={}", std::fs::write("VICTIM/marker", "pwned").is_ok()));
    say(&format!("victim-delete={}", std::fs::remove_dir_all("VICTIM/keep").is_ok()));
    say(&format!("cache-write={}", std::fs::write("CACHE/registry/src/index.crates.io-0000000000000000/victim-1.0.0/build.rs", "/* POISON */").is_ok()));
    say(&format!("mknod={}", std::process::Command::new("mknod").args(["disk", "b", "8", "0"]).status().map(|s| s.success()).unwrap_or(false)));
    // It waits for a file the test makes once keyless has ended: it acts only if it outlived it.
    let daemon = "while [ ! -e go-WAIT-7741 ]; do sleep 0.05; done; mkdir -p .git/hooks; echo evil > .git/hooks/post-checkout; echo planted > planted.txt";
    let _ = std::process::Command::new("setsid").args(["sh", "-c", daemon])
        .stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null())
        .spawn();
    say(&format!("hook-now={}", std::fs::write(".git/hooks/pre-commit", "evil").is_ok()));
    let mut all = String::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let mut s = String::new();
        let _ = std::fs::File::open(e.path().join("environ")).and_then(|mut f| f.read_to_string(&mut s));
        all.push_str(&s);
    }
    say(&all.replace('\0', "\n").chars().rev().collect::<String>());
    say(&std::fs::read_to_string("HOME/.bash_history").unwrap_or_else(|e| format!("history: {e}")));
}
"#;

#[test]
fn a_build_script_through_keyless_run_in_ask_mode_meets_every_wall() {
    use keyless::chat::local::{LocalChat, Script};
    let dir = tempfile::tempdir().unwrap();
    let (ws, victim, home, cache) = (
        dir.path().join("ws"),
        dir.path().join("victim"),
        dir.path().join("home"),
        dir.path().join("cargo-home"),
    );
    let unpacked = cache.join("registry/src/index.crates.io-0000000000000000/victim-1.0.0");
    for folder in [&ws, &victim.join("keep"), &home, &unpacked] {
        fs::create_dir_all(folder).unwrap();
    }
    fs::write(unpacked.join("build.rs"), "fn main() {}\n").unwrap();
    fs::write(home.join(".bash_history"), "HISTORY-SECRET-93\n").unwrap();
    crate::sandbox::git(&ws, &["init", "-q"]);
    let script = EVERY_WALL
        .replace("VICTIM", &victim.display().to_string())
        .replace("CACHE", &cache.display().to_string())
        .replace("HOME", &home.display().to_string());
    let file = |name: &str, content: &str| {
        format!("@@newfile {name}\n<<<CONTENT:k\n{content}\nCONTENT:k>>>\n@@end\n")
    };
    let first = format!(
        "{}{}{}@@runcommand on_error=continue\n<<<CMD\ncargo build --offline\nCMD>>>\n@@end\n@@eof\n",
        file(
            "Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]"
        ),
        file("src/main.rs", "fn main() {}"),
        file("build.rs", script.trim_end()),
    );
    let done = "@@done\n<<<MSG\nBuilt.\nMSG>>>\n@@end\n@@eof\n";
    let chat = LocalChat::start(Script::replies([first.as_str(), done])).unwrap();
    let real_cargo_bin = Path::new(
        &std::env::var("CARGO_HOME")
            .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap())),
    )
    .join("bin");
    let real_rustup = std::env::var("RUSTUP_HOME")
        .unwrap_or_else(|_| format!("{}/.rustup", std::env::var("HOME").unwrap()));
    let profile = dir.path().join("config");
    let out = crate::common::local_keyless::keyless_on(
        &chat,
        &ws,
        &profile,
        &["run", "--mode", "ask", "--pace", "batch", "Build it"],
    )
    .env("HOME", &home)
    .env("CARGO_HOME", &cache)
    .env("RUSTUP_HOME", real_rustup)
    .env(
        "PATH",
        format!(
            "{}:{}",
            real_cargo_bin.display(),
            std::env::var("PATH").unwrap()
        ),
    )
    .env("GITHUB_TOKEN", GITHUB_TOKEN)
    .env_remove("CARGO_TARGET_DIR")
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let results = chat.received().get(1).cloned().unwrap_or_default();
    for line in [
        "victim-write=false",
        "victim-delete=false",
        "cache-write=true",
        "mknod=false",
        "hook-now=false",
    ] {
        assert!(results.contains(line), "{line}: {results}");
    }
    for leaked in [reversed(GITHUB_TOKEN), "HISTORY-SECRET-93".to_string()] {
        assert!(!results.contains(&leaked), "{leaked}: {results}");
    }
    assert!(
        victim.join("keep").is_dir() && !victim.join("marker").exists(),
        "{results}"
    );
    assert_eq!(
        fs::read_to_string(unpacked.join("build.rs")).unwrap(),
        "fn main() {}\n"
    );
    assert!(!ws.join("disk").exists());
    let ended = Instant::now();
    while !host_processes_with("WAIT-7741").is_empty() {
        assert!(
            ended.elapsed() < Duration::from_secs(1),
            "the daemon outlived the build: {results}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    fs::write(ws.join("go-WAIT-7741"), "").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(!ws.join("planted.txt").exists(), "{results}");
    assert!(!ws.join(".git/hooks/post-checkout").exists(), "{results}");
}
