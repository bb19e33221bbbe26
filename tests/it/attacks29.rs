//! Issue 29's claims, attacked by a reviewer who had not read the fix: only the issue's words,
//! the documentation and the product's behaviour. Every attack runs the real thing (the built
//! `keyless apply` or `keyless undo`, real `bwrap`, real git, real files, a real listener) in a
//! temporary folder, as root and, where the claim says so, as an ordinary user (uid 65534 through
//! `setpriv`). Each test asserts that the harm did NOT happen, and each would fail where the
//! protection is missing: eleven attacks got through the first version of the fix (named so in
//! their doc comments) and failed here until each was contained; the others were seen to succeed
//! with the sandbox off.
//!
//! What these tests do not do: they never touch anything outside their temporary folder (a
//! kernel knob is only opened, never written; no key is added to a keyring keyless's tests share:
//! the key lives in a fresh session keyring of keyless's own process).

use std::fs;
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::sandbox::{World, cargo_crate, git};

/// An ordinary user of this machine (`nobody`), to run keyless as one.
const NOBODY: u32 = 65534;

/// The descriptor number a parent process leaves open for keyless in the descriptor attacks.
const INHERITED_FD: i32 = 7;

fn reversed(text: &str) -> String {
    text.chars().rev().collect()
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// One attack's place: a temporary folder (traversable, so an ordinary user can be given it)
/// holding a fake home with a shell history and a key, a victim folder outside the workspace,
/// and a workspace that is a git repository with a keyless.json that lets one reply carry
/// every attack in Auto mode.
struct Attack {
    dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
    victim: PathBuf,
    env: Vec<(String, String)>,
    args: Vec<String>,
    /// Runs keyless as uid 65534 (everything in the folder is given to it first).
    nobody: bool,
    /// A folder keyless inherits an open descriptor of, as [`INHERITED_FD`].
    inherited_dir: Option<PathBuf>,
}

impl Attack {
    fn new() -> Attack {
        let dir = tempfile::tempdir().unwrap();
        chmod(dir.path(), 0o755);
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        let victim = dir.path().join("victim");
        fs::create_dir_all(home.join(".ssh")).unwrap();
        fs::write(home.join(".ssh/id_ed25519"), "SSH-KEY-a29-Lq7\n").unwrap();
        fs::write(home.join(".bash_history"), "HISTORY-a29-Vz3\n").unwrap();
        fs::create_dir_all(victim.join("keep")).unwrap();
        fs::write(victim.join("keep/precious.txt"), "PRECIOUS-a29-Kd5\n").unwrap();
        fs::create_dir_all(&ws).unwrap();
        git(&ws, &["init", "-q"]);
        let attack = Attack {
            dir,
            home,
            ws,
            victim,
            env: Vec::new(),
            args: Vec::new(),
            nobody: false,
            inherited_dir: None,
        };
        attack.config("");
        attack
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The workspace's keyless.json, with `sandbox` added to its `Sandbox` section.
    fn config(&self, sandbox: &str) {
        fs::write(self.ws.join("keyless.json"), config_text(sandbox)).unwrap();
    }

    fn file(&self, rel: &str, content: &str) {
        let path = self.ws.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn env(mut self, key: &str, value: &str) -> Attack {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The `keyless` command with this attack's environment, as root or as an ordinary user.
    fn keyless(&self, args: &[&str]) -> Command {
        let bin = env!("CARGO_BIN_EXE_keyless");
        let mut command;
        if self.nobody {
            let status = Command::new("chown")
                .args(["-R", &format!("{NOBODY}:{NOBODY}")])
                .arg(self.root())
                .status()
                .unwrap();
            assert!(status.success());
            command = Command::new("setpriv");
            command
                .args([
                    format!("--reuid={NOBODY}"),
                    format!("--regid={NOBODY}"),
                    "--clear-groups".into(),
                    "env".into(),
                    "-i".into(),
                    "PATH=/usr/local/bin:/usr/bin:/bin".into(),
                    format!("HOME={}", self.home.display()),
                ])
                .args(self.env.iter().map(|(k, v)| format!("{k}={v}")))
                .arg(bin)
                .current_dir("/");
        } else {
            let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
            command = Command::new(bin);
            command
                .env("HOME", &self.home)
                .env(
                    "CARGO_HOME",
                    std::env::var_os("CARGO_HOME")
                        .unwrap_or_else(|| real_home.join(".cargo").into()),
                )
                .env(
                    "RUSTUP_HOME",
                    std::env::var_os("RUSTUP_HOME")
                        .unwrap_or_else(|| real_home.join(".rustup").into()),
                )
                .env_remove("CARGO_TARGET_DIR");
            for (k, v) in &self.env {
                command.env(k, v);
            }
        }
        command.args(args).stdin(Stdio::null());
        if let Some(dir) = &self.inherited_dir {
            let handle = fs::File::open(dir).unwrap();
            let raw = std::os::fd::IntoRawFd::into_raw_fd(handle);
            // SAFETY: dup2 and fcntl are async-signal-safe; the child gets the folder's handle
            // at INHERITED_FD without close-on-exec, as a parent that forgot to close it would
            // leave it.
            unsafe {
                command.pre_exec(move || {
                    if raw == INHERITED_FD {
                        libc::fcntl(raw, libc::F_SETFD, 0);
                    } else {
                        libc::dup2(raw, INHERITED_FD);
                    }
                    Ok(())
                });
            }
        }
        command
    }

    /// `keyless apply` of `reply` in `mode`; stdout and stderr together.
    fn apply(&self, mode: &str, reply: &str) -> String {
        let file = self.root().join("reply.txt");
        fs::write(&file, reply).unwrap();
        let file = file.display().to_string();
        let ws = self.ws.display().to_string();
        let mut args = vec![
            "apply",
            &file,
            "--workspace",
            &ws,
            "--mode",
            mode,
            "--pace",
            "batch",
        ];
        args.extend(self.args.iter().map(String::as_str));
        let out = self.keyless(&args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    /// Writes each script into the workspace and runs `sh NAME` for each, in Auto mode (the
    /// policy sees only `sh NAME`, as it would for a script the model wrote).
    fn scripts(&self, scripts: &[(&str, &str)]) -> String {
        let mut reply = String::new();
        for (name, body) in scripts {
            let body = body
                .replace("$VICTIM", &self.victim.display().to_string())
                .replace("$WS", &self.ws.display().to_string());
            fs::write(self.ws.join(name), body).unwrap();
            reply.push_str(&run(&format!("sh {name}")));
        }
        reply.push_str(NEXT);
        self.apply("auto", &reply)
    }

    fn undo(&self) -> String {
        let ws = self.ws.display().to_string();
        let out = self
            .keyless(&["undo", "--workspace", &ws])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    /// What a command wrote into `dump.txt` (reversed, so no redactor hid it), put right again.
    fn dump(&self, name: &str) -> String {
        reversed(&fs::read_to_string(self.ws.join(name)).unwrap_or_default())
    }
}

/// A keyless.json that lets one reply carry every attack, carries each out whatever the one
/// before did, and runs Auto mode wherever a guarantee is missing (the guarantees under attack
/// are the ones that hold here).
fn config_text(sandbox: &str) -> String {
    format!(
        "{{ \"Limits\": {{ \"MaxCommandsPerResponse\": 100 }}, \"Commands\": {{ \"BatchFailureMode\": \"Continue\" }}, \"Sandbox\": {{ \"AllowMissing\": [\"*\"]{sandbox} }} }}\n"
    )
}

/// `text` as a Python bytes literal (its UTF-8, every byte but letters and digits escaped).
fn python_bytes(text: &str) -> String {
    let mut out = String::from("b'");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() {
            out.push(byte as char);
        } else {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('\'');
    out
}

fn run(command: &str) -> String {
    format!("@@runcommand on_error=continue\n<<<CMD\n{command}\nCMD>>>\n@@end\n")
}

const NEXT: &str = "@@next\n@@end\n@@eof\n";

/// Files under `dir` (not in `.git`) that run with their owner's or group's rights and whose
/// owner or group is the machine's root: each as its path and mode.
fn set_id_root_files(dir: &Path) -> Vec<(PathBuf, u32)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let mode = meta.mode();
            let suid_root = mode & libc::S_ISUID != 0 && meta.uid() == 0;
            let sgid_root = mode & libc::S_ISGID != 0 && meta.gid() == 0;
            if (suid_root || sgid_root) && !meta.is_dir() {
                found.push((path.clone(), mode));
            }
            if meta.is_dir() && entry.file_name() != ".git" {
                folders.push(path);
            }
        }
    }
    found
}

/// What an ordinary user gets from running each of `files` (the proof of the harm).
fn run_as_nobody(files: &[(PathBuf, u32)]) -> String {
    let mut said = String::new();
    for (file, mode) in files {
        // Every folder above it up to the temporary folder's parent opens to other users, as a
        // home or project folder usually does.
        let top = std::env::temp_dir();
        for dir in file.ancestors().skip(1).take_while(|d| *d != top) {
            let mode = fs::metadata(dir).unwrap().mode();
            fs::set_permissions(dir, fs::Permissions::from_mode(mode | 0o055)).unwrap();
        }
        let out = Command::new("setpriv")
            .args([
                format!("--reuid={NOBODY}"),
                format!("--regid={NOBODY}"),
                "--clear-groups".into(),
            ])
            .arg(file)
            .output();
        said.push_str(&format!(
            "{} (mode {mode:o}) run by uid {NOBODY}: {:?}\n",
            file.display(),
            out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        ));
    }
    said
}

/// Claim 1, as root (got through the first version; contained since): the command's uid is not the machine's 0, but what it
/// creates in the workspace is the workspace owner's, root's, with whatever mode it asks for.
/// A copy of `id` made set-uid (`chmod 4755`, `install -m 4755`, `open(O_CREAT, 04755)`,
/// a set-gid copy) is a root program any user who can reach the workspace runs as root: the
/// `nosuid` of the world's binds ends at the world's edge. The same through a build script in
/// Ask mode, which needs no yes.
#[test]
fn a_command_leaves_no_set_uid_root_program_in_the_workspace() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        // As an ordinary user the files are that user's own: no machine privilege to gain.
        return;
    }
    let attack = Attack::new();
    let out = attack.scripts(&[(
        "suid.sh",
        "cp /usr/bin/id rootid && chmod 4755 rootid\ninstall -m 4755 /usr/bin/id rootid-installed\n/usr/bin/python3 -c \"import os, shutil; fd = os.open('rootid-made', os.O_CREAT | os.O_WRONLY, 0o4755); os.write(fd, open('/usr/bin/id', 'rb').read()); os.close(fd)\"\ncp /usr/bin/id groupid && chmod 2755 groupid\nls -ln rootid rootid-installed rootid-made groupid\n",
    )]);
    let found = set_id_root_files(&attack.ws);
    assert!(
        found.is_empty(),
        "set-uid/set-gid root programs left in the workspace:\n{}\n{out}",
        run_as_nobody(&found)
    );

    // The issue's vehicle: `cargo build` in Ask mode runs build.rs without a yes.
    let world = World::new();
    cargo_crate(&world.ws);
    fs::write(
        world.ws.join("build.rs"),
        "use std::os::unix::fs::PermissionsExt;\nfn main() {\n    let _ = std::fs::copy(\"/usr/bin/id\", \"rootid-build\");\n    let _ = std::fs::set_permissions(\"rootid-build\", std::fs::Permissions::from_mode(0o4755));\n}\n",
    )
    .unwrap();
    let (out, _) = world.apply("ask", &["cargo build --offline -q"]);
    assert!(out.contains("tier: Build"), "{out}");
    let found = set_id_root_files(&world.ws);
    assert!(
        found.is_empty(),
        "a build script left set-uid root programs:\n{}\n{out}",
        run_as_nobody(&found)
    );
}

/// The script of the descriptor attack: what lies behind an inherited descriptor is listed,
/// read (reversed into the workspace, so no redactor hides it) and written to.
const THROUGH_THE_DESCRIPTOR: &str = "ls -l /proc/self/fd/\nls /proc/self/fd/7/ /proc/self/fd/7/keep\ncat /proc/self/fd/7/keep/precious.txt | rev > dump.txt\necho pwned > /proc/self/fd/7/marker && echo WROTE-OUTSIDE\n";

/// Claim 2's world (got through the first version, as root and as an ordinary user; contained since): keyless hands the command
/// every descriptor its own parent left open (a shell's `exec 7< dir`, an editor, a build tool),
/// and a folder's descriptor is a door out of the world: `/proc/self/fd/7/...` reaches the
/// folder outside, past every bind, mask and tmpfs. Only 0, 1 and 2 may reach a command.
#[test]
fn a_descriptor_keyless_inherited_is_no_way_out_of_the_world() {
    // As root: the command's own uid reaches what anyone may (a shared folder).
    let mut attack = Attack::new();
    chmod(&attack.victim, 0o777);
    attack.inherited_dir = Some(attack.victim.clone());
    let out = attack.scripts(&[("fd.sh", THROUGH_THE_DESCRIPTOR)]);
    assert!(
        !attack.victim.join("marker").exists(),
        "a command wrote outside through the descriptor:\n{out}"
    );
    assert!(
        !attack.dump("dump.txt").contains("PRECIOUS-a29-Kd5"),
        "a command read outside through the descriptor:\n{out}"
    );

    // As an ordinary user: everything of the user's own.
    let mut attack = Attack::new();
    attack.nobody = true;
    chmod(&attack.victim, 0o700);
    chmod(&attack.victim.join("keep/precious.txt"), 0o600);
    attack.inherited_dir = Some(attack.victim.clone());
    let out = attack.scripts(&[("fd.sh", THROUGH_THE_DESCRIPTOR)]);
    assert!(out.contains("[KEYLESSAGENT RESULTS]"), "{out}");
    assert!(
        !attack.victim.join("marker").exists(),
        "as uid {NOBODY}, a command wrote outside through the descriptor:\n{out}"
    );
    assert!(
        !attack.dump("dump.txt").contains("PRECIOUS-a29-Kd5"),
        "as uid {NOBODY}, a command read the user's private file through the descriptor:\n{out}"
    );
}

/// Claims 2 and 5 (got through the first version; contained since): a protected path is a read-only bind over itself, but the
/// folder above it is the command's: `mv vendor vendor-moved` carries the bind away, and the
/// command makes a new `vendor/lib` repository with a `core.fsmonitor` that the person's next
/// `git status` there runs, and a new `--config` file with the sandbox off that keyless's next
/// run with the same `--config` reads. The nested repository's config and the `--config` file
/// at their paths must keep their bytes.
#[test]
fn renaming_the_folder_above_a_protected_path_does_not_replace_it() {
    let mut attack = Attack::new();
    fs::create_dir_all(attack.ws.join("vendor/lib")).unwrap();
    git(&attack.ws.join("vendor/lib"), &["init", "-q"]);
    attack.file("conf/settings.json", &config_text(""));
    let settings = attack.ws.join("conf/settings.json");
    attack.args = vec!["--config".into(), settings.display().to_string()];
    let repo_config = attack.ws.join("vendor/lib/.git/config");
    let (repo_before, settings_before) = (fs::read(&repo_config).ok(), fs::read(&settings).ok());
    let out = attack.scripts(&[
        (
            "repo.sh",
            "mv vendor vendor-moved && mkdir -p vendor/lib && cd vendor/lib && git init -q && git config core.fsmonitor 'echo pwned > /tmp/pwned; false' && echo PLANTED-REPO\n",
        ),
        (
            "conf.sh",
            "mv conf conf-moved && mkdir conf && echo '{ \"Sandbox\": { \"Mode\": \"off\" } }' > conf/settings.json && echo PLANTED-CONFIG\n",
        ),
    ]);
    assert_eq!(
        fs::read(&repo_config).ok(),
        repo_before,
        "vendor/lib/.git/config was replaced:\n{out}"
    );
    assert_eq!(
        fs::read(&settings).ok(),
        settings_before,
        "the --config file was replaced:\n{out}"
    );
}

/// Claim 2 (got through the first version; contained since): "any config file keyless reads, wherever it is, whatever its name
/// via --config": a `--config` file that lies in a `Sandbox.WritablePaths` folder is written
/// (and moved away) by a command like any file there; keyless's next run with it has the
/// sandbox off.
#[test]
fn a_config_file_in_a_writable_path_is_read_only_to_commands() {
    let mut attack = Attack::new();
    let shared = attack.root().join("shared");
    fs::create_dir_all(&shared).unwrap();
    let settings = shared.join("team-settings.json");
    fs::write(
        &settings,
        config_text(&format!(", \"WritablePaths\": [\"{}\"]", shared.display())),
    )
    .unwrap();
    let before = fs::read(&settings).unwrap();
    attack.args = vec!["--config".into(), settings.display().to_string()];
    let out = attack.scripts(&[(
        "settings.sh",
        &format!(
            "echo '{{ \"Sandbox\": {{ \"Mode\": \"off\" }} }}' > {0} && echo WROTE-SETTINGS\necho made > {1}/made.txt && echo WROTE-SHARED\n",
            settings.display(),
            shared.display()
        ),
    )]);
    assert!(
        out.contains("WROTE-SHARED"),
        "the writable path is writable: {out}"
    );
    assert_eq!(fs::read(&settings).ok(), Some(before), "{out}");
}

/// Claim 2 and the `protected` guarantee (got through the first version; contained since): keyless's file commands refuse a nested
/// workspace's `keyless.json` ("keyless's own configuration"), but a command rewrites it: the
/// person's next keyless run in that folder has the sandbox off.
#[test]
fn a_nested_workspaces_keyless_json_is_read_only_to_commands() {
    let attack = Attack::new();
    attack.file("tools/keyless.json", "{}\n");
    let out = attack.scripts(&[(
        "nested.sh",
        "echo '{ \"Sandbox\": { \"Mode\": \"off\" } }' > tools/keyless.json && echo WROTE-NESTED\n",
    )]);
    assert_eq!(
        fs::read_to_string(attack.ws.join("tools/keyless.json")).unwrap(),
        "{}\n",
        "{out}"
    );
    // The file commands refuse it (kept here so both hands are seen to agree).
    let out = attack.apply(
        "auto",
        &format!("@@updatefile tools/keyless.json\n<<<CONTENT\n{{}}\nCONTENT>>>\n@@end\n{NEXT}"),
    );
    assert!(out.contains("code: KA_PATH_OUTSIDE"), "{out}");
}

/// Claim 2 (got through the first version; contained since): a hidden path (`Sandbox.HiddenPaths`) in the workspace is hidden by
/// its name, so renaming the folder above it un-hides it: the next command reads it, and so
/// does keyless's own `@@readfile`, into the chat.
#[test]
fn a_hidden_path_stays_hidden_after_the_folder_above_it_is_renamed() {
    let attack = Attack::new();
    attack.file("data/private/notes.txt", "HIDDEN-a29-Np4\n");
    attack.config(&format!(
        ", \"HiddenPaths\": [\"{}\"]",
        attack.ws.join("data/private").display()
    ));
    fs::write(
        attack.ws.join("move.sh"),
        "mv data data-moved && echo MOVED\n",
    )
    .unwrap();
    fs::write(
        attack.ws.join("read.sh"),
        "rev data-moved/private/notes.txt > dump.txt; rev data/private/notes.txt >> dump.txt\n",
    )
    .unwrap();
    let reply = format!(
        "{}{}@@readfile data-moved/private/notes.txt\n@@end\n{NEXT}",
        run("sh move.sh"),
        run("sh read.sh")
    );
    let out = attack.apply("auto", &reply);
    assert!(
        !attack.dump("dump.txt").contains("HIDDEN-a29-Np4"),
        "a command read the hidden file:\n{out}"
    );
    assert!(
        !out.contains("HIDDEN-a29-Np4"),
        "@@readfile posted the hidden file:\n{out}"
    );
}

/// Claim 5 (got through the first version; contained since): a bare repository in the workspace (`git init --bare origin.git`, a
/// local remote) is a repository keyless's file commands refuse ("a git repository's own
/// folder"), but a command writes its hooks and config: the person's next `git push` to it runs
/// the hook.
#[test]
fn a_bare_repository_in_the_workspace_is_read_only_to_commands() {
    let attack = Attack::new();
    git(&attack.ws, &["init", "-q", "--bare", "origin.git"]);
    let config = attack.ws.join("origin.git/config");
    let before = fs::read(&config).unwrap();
    let out = attack.scripts(&[(
        "bare.sh",
        "printf '#!/bin/sh\\necho pwned\\n' > origin.git/hooks/post-receive && chmod +x origin.git/hooks/post-receive && echo HOOK\ngit -C origin.git config core.sshCommand 'sh -c pwned' && echo CONFIG\n",
    )]);
    assert!(
        !attack.ws.join("origin.git/hooks/post-receive").exists(),
        "{out}"
    );
    assert_eq!(fs::read(&config).unwrap(), before, "{out}");
}

/// Claim 5 (held): repositories the walk could miss: one whose `.git` is a link to its store
/// elsewhere in the workspace, and the last of 1,500 repositories in one folder.
#[test]
fn repositories_behind_a_link_or_among_many_are_read_only_to_commands() {
    let attack = Attack::new();
    let ws = &attack.ws;
    fs::create_dir_all(ws.join("linked")).unwrap();
    git(&ws.join("linked"), &["init", "-q"]);
    fs::create_dir_all(ws.join("data")).unwrap();
    fs::rename(ws.join("linked/.git"), ws.join("data/gitstore")).unwrap();
    std::os::unix::fs::symlink("../data/gitstore", ws.join("linked/.git")).unwrap();
    for i in 1..=1500 {
        let git_dir = ws.join(format!("many/r{i}/.git"));
        fs::create_dir_all(git_dir.join("objects")).unwrap();
        fs::create_dir_all(git_dir.join("refs")).unwrap();
        fs::write(git_dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }
    let out = attack.scripts(&[(
        "repos.sh",
        "echo evil > data/gitstore/hooks/pre-commit\necho evil > linked/.git/hooks/post-checkout\necho evil > many/r1500/.git/config\necho evil > many/r1/.git/config\n",
    )]);
    for path in [
        "data/gitstore/hooks/pre-commit",
        "data/gitstore/hooks/post-checkout",
        "many/r1500/.git/config",
        "many/r1/.git/config",
    ] {
        assert!(!ws.join(path).exists(), "{path}: {out}");
    }
}

/// The home guarantee (got through the first version; contained since): a folder that holds the home folder named as a toolchain
/// or cache (`GOPATH=$HOME`, Go's old layout; a `PATH` folder above the home) shows the whole
/// home: the shell history, and with the folder above, the ssh key too.
#[test]
fn a_toolchain_or_cache_path_that_holds_the_home_shows_no_history_or_keys() {
    let read = "cat ~/.bash_history ~/.ssh/id_ed25519 | rev > dump.txt; ls -a ~\n";
    let attack = Attack::new();
    let home = attack.home.display().to_string();
    let attack = attack.env("GOPATH", &home);
    let out = attack.scripts(&[("home.sh", read)]);
    let dump = attack.dump("dump.txt");
    assert!(
        !dump.contains("HISTORY-a29-Vz3") && !dump.contains("SSH-KEY-a29-Lq7"),
        "GOPATH=$HOME showed the home: {dump}\n{out}"
    );

    let attack = Attack::new();
    let path = format!(
        "{}:{}",
        attack.home.join("..").display(),
        std::env::var("PATH").unwrap()
    );
    let attack = attack.env("PATH", &path);
    let out = attack.scripts(&[("home.sh", read)]);
    let dump = attack.dump("dump.txt");
    assert!(
        !dump.contains("HISTORY-a29-Vz3") && !dump.contains("SSH-KEY-a29-Lq7"),
        "a PATH folder above the home showed it: {dump}\n{out}"
    );
}

/// Claim 4 (got through the first version; contained since): publishing credentials in the tools' settings that the world shows,
/// in the forms their own documentation gives: Maven's `settings.xml` with a GitLab
/// `Private-Token` header (`<httpHeaders><property><name>…</name><value>TOKEN</value>`),
/// Composer's `config.json` in `COMPOSER_HOME` (`github-oauth`, `gitlab-token`, `bearer`, keyed
/// by host), a cargo registry index URL carrying its token as the user part
/// (`https://TOKEN@host/`), and yarn's `npmAuthIdent` in a `~/.yarnrc.yml` given through
/// `Sandbox.ReadablePaths`.
#[test]
fn publishing_credentials_in_the_tools_settings_never_reach_a_command() {
    let attack = Attack::new();
    let home = attack.home.clone();
    let cargo_home = attack.root().join("cargo-elsewhere");
    fs::create_dir_all(home.join(".m2")).unwrap();
    fs::write(
        home.join(".m2/settings.xml"),
        "<settings><servers><server><id>gitlab-maven</id><configuration><httpHeaders><property><name>Private-Token</name><value>glpat-MAVENa29hdr7Kq2Lm9</value></property></httpHeaders></configuration></server></servers></settings>\n",
    )
    .unwrap();
    fs::create_dir_all(home.join(".config/composer")).unwrap();
    fs::write(
        home.join(".config/composer/config.json"),
        "{ \"config\": { \"github-oauth\": { \"github.com\": \"ghp_COMPOSERa29gh4Rt7Yu1Io3Pa5Sd7Fg9Hj2K\" }, \"gitlab-token\": { \"gitlab.com\": \"COMPOSER-a29-gitlab-Qw8\" }, \"bearer\": { \"repo.example.org\": \"COMPOSER-a29-bearer-Zx6\" } } }\n",
    )
    .unwrap();
    fs::create_dir_all(cargo_home.join("registry")).unwrap();
    fs::write(
        cargo_home.join("config.toml"),
        "[registries.corp]\nindex = \"sparse+https://CARGO-a29-urltoken-Mn5@cargo.corp.example/index/\"\n",
    )
    .unwrap();
    fs::write(
        home.join(".yarnrc.yml"),
        "npmAuthIdent: \"alice:YARN-a29-ident-Bv2\"\n",
    )
    .unwrap();
    attack.config(", \"ReadablePaths\": [\"~/.yarnrc.yml\"]");
    let attack = attack
        .env(
            "COMPOSER_HOME",
            &home.join(".config/composer").display().to_string(),
        )
        .env("CARGO_HOME", &cargo_home.display().to_string());
    let out = attack.scripts(&[(
        "creds.sh",
        "cat ~/.m2/settings.xml $COMPOSER_HOME/config.json $CARGO_HOME/config.toml ~/.yarnrc.yml | rev > dump.txt\n",
    )]);
    let dump = attack.dump("dump.txt");
    assert!(
        dump.contains("gitlab-maven"),
        "the files were read: {dump}\n{out}"
    );
    for secret in [
        "glpat-MAVENa29hdr7Kq2Lm9",
        "ghp_COMPOSERa29gh4Rt7Yu1Io3Pa5Sd7Fg9Hj2K",
        "COMPOSER-a29-gitlab-Qw8",
        "COMPOSER-a29-bearer-Zx6",
        "CARGO-a29-urltoken-Mn5",
        "YARN-a29-ident-Bv2",
    ] {
        assert!(
            !dump.contains(secret),
            "{secret} reached a command: {dump}\n{out}"
        );
    }
}

/// Claim 4 (got through the first version; contained since): secrets under names that do not say so, each in the form its tool
/// documents: GitLab CI's `DOCKER_AUTH_CONFIG` (a Docker `auth`), yarn's
/// `YARN_NPM_AUTH_IDENT`, Bundler's `BUNDLE_<HOST>` (`user:password`), a package index URL with
/// its token as the user part (Gemfury's `https://TOKEN:@…`, a Go proxy's `https://TOKEN@…`),
/// an LDAP bind password (`…_PW`), and a webhook URL whose path is its secret.
#[test]
fn secrets_under_innocent_names_never_reach_a_command() {
    let secrets = [
        (
            "DOCKER_AUTH_CONFIG",
            "{\"auths\":{\"registry.example.com\":{\"auth\":\"ZG9ja2VyOmEyOS1kb2NrZXItcHc=\"}}}",
            "ZG9ja2VyOmEyOS1kb2NrZXItcHc=",
        ),
        (
            "YARN_NPM_AUTH_IDENT",
            "alice:a29-yarn-ident-Hy6",
            "a29-yarn-ident-Hy6",
        ),
        (
            "BUNDLE_GEMS__CONTRIBSYS__COM",
            "cafe1234:a29-bundle-Pq3",
            "a29-bundle-Pq3",
        ),
        (
            "PIP_INDEX_URL",
            "https://a29PipTok9xYzAbC:@pypi.fury.io/me/",
            "a29PipTok9xYzAbC",
        ),
        (
            "GOPROXY",
            "https://a29GoTok8dEfGhIj@goproxy.corp.example,direct",
            "a29GoTok8dEfGhIj",
        ),
        ("LDAP_BIND_PW", "a29-ldap-Wd5", "a29-ldap-Wd5"),
        (
            "ALERT_WEBHOOK",
            "https://hooks.example.com/services/T0001/B0002/a29HookSecretKlMnOpQr",
            "a29HookSecretKlMnOpQr",
        ),
    ];
    let mut attack = Attack::new();
    for (name, value, _) in secrets {
        attack = attack.env(name, value);
    }
    let out = attack.scripts(&[("env.sh", "env | rev > dump.txt\n")]);
    let dump = attack.dump("dump.txt");
    assert!(
        dump.contains("HOME="),
        "the environment was read: {dump}\n{out}"
    );
    let leaked: Vec<&str> = secrets
        .iter()
        .filter(|(_, _, secret)| dump.contains(secret))
        .map(|(name, _, _)| *name)
        .collect();
    assert!(
        leaked.is_empty(),
        "reached a command: {leaked:?}\n{dump}\n{out}"
    );
}

/// Claim 3 (got through the first version; contained since): "one host per connection" stops a plain `http://` request naming
/// another `Host` (a CDN routes by it), but the same request through `CONNECT allowed:80` is
/// carried to the allowed host's front end as it is ("another protocol passes").
#[test]
fn a_plain_request_through_a_tunnel_names_only_the_tunnels_host() {
    let attack = Attack::new();
    attack.config(", \"Network\": true");
    let script = "import socket\ndef talk(first, then=None):\n    s = socket.create_connection(('127.0.0.1', 3128), timeout=10)\n    s.sendall(first)\n    got = b''\n    if then is not None:\n        got = s.recv(200)\n        s.sendall(then)\n        got = b''\n    try:\n        while True:\n            b = s.recv(4096)\n            if not b: break\n            got += b\n    except Exception:\n        pass\n    return got.decode('latin1')\nprint('absolute:', talk(b'GET http://registry.npmjs.org/ HTTP/1.1\\r\\nHost: evil.example\\r\\n\\r\\n')[:60])\nanswer = talk(b'CONNECT registry.npmjs.org:80 HTTP/1.1\\r\\n\\r\\n', b'GET / HTTP/1.1\\r\\nHost: evil.example\\r\\nConnection: close\\r\\n\\r\\n')\nprint('TUNNELLED-ANSWER' if answer.startswith('HTTP/1.') else 'tunnel closed', answer[:60])\n";
    fs::write(attack.ws.join("tunnel.py"), script).unwrap();
    let out = attack.apply("auto", &format!("{}{NEXT}", run("python3 tunnel.py")));
    assert!(out.contains("absolute: HTTP/1.1 403"), "{out}");
    assert!(
        !out.contains("TUNNELLED-ANSWER"),
        "a request for another host was carried through a tunnel:\n{out}"
    );
}

/// Claim 3 (held): URL spellings that put this machine behind an allowed name (user info,
/// fragments, backslashes, ports before an `@`), this machine's addresses in other spellings,
/// and names an IDN mapping would change, against a listener on every address of this machine
/// that must never be reached; and a direct connection, which would reach it with the sandbox
/// off.
#[test]
fn no_spelling_through_the_proxy_reaches_this_machine() {
    let listener = TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let reached = Arc::new(AtomicUsize::new(0));
    let counter = reached.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\n\r\nLISTENER-a29\n");
        }
    });
    let attack = Attack::new();
    attack.config(", \"Network\": true");
    let requests = [
        format!("GET http://registry.npmjs.org@127.0.0.1:{port}/ HTTP/1.1\r\n\r\n"),
        format!("GET http://127.0.0.1:{port}#@registry.npmjs.org/ HTTP/1.1\r\n\r\n"),
        format!("GET http://127.0.0.1:{port}\\@registry.npmjs.org/ HTTP/1.1\r\n\r\n"),
        format!("GET http://registry.npmjs.org:80@127.0.0.1:{port}/ HTTP/1.1\r\n\r\n"),
        format!("CONNECT registry.npmjs.org@127.0.0.1:{port} HTTP/1.1\r\n\r\n"),
        format!("CONNECT 127.0.0.1:{port}@registry.npmjs.org:443 HTTP/1.1\r\n\r\n"),
        format!("CONNECT 0:{port} HTTP/1.1\r\n\r\n"),
        format!("CONNECT [::ffff:7f00:1]:{port} HTTP/1.1\r\n\r\n"),
        format!("CONNECT 0x7f000001:{port} HTTP/1.1\r\n\r\n"),
        format!("CONNECT localhost.:{port} HTTP/1.1\r\n\r\n"),
        format!("GET /x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
        format!("CONNECT regis\u{ad}try.npmjs.org:{port} HTTP/1.1\r\n\r\n"),
    ];
    let list: Vec<String> = requests.iter().map(|r| python_bytes(r)).collect();
    let script = format!(
        "import socket\nfor r in [{}]:\n    try:\n        s = socket.create_connection(('127.0.0.1', 3128), timeout=5)\n        s.sendall(r)\n        s.settimeout(5)\n        print(repr(s.recv(200)[:90]))\n    except Exception as e:\n        print('no proxy:', e)\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3).recv(100)\n    print('DIRECT REACHED')\nexcept Exception as e:\n    print('direct refused:', e)\n",
        list.join(", ")
    );
    fs::write(attack.ws.join("spell.py"), script).unwrap();
    let out = attack.apply("auto", &format!("{}{NEXT}", run("python3 spell.py")));
    assert!(out.contains("direct refused"), "{out}");
    assert_eq!(
        reached.load(Ordering::SeqCst),
        0,
        "the listener on this machine was reached:\n{out}"
    );
    assert!(!out.contains("LISTENER-a29"), "{out}");
}

/// Claim 8 (held): caches that only the tools' own settings place (`.npmrc`'s `cache=`, Maven's
/// `<localRepository>`, pip's `cache-dir`), outside the home folder, are written through a
/// copy-on-write layer: the real files keep their bytes. With the sandbox off, they are
/// poisoned.
#[test]
fn caches_placed_by_the_tools_settings_keep_their_bytes() {
    let attack = Attack::new();
    let caches: Vec<PathBuf> = ["npm-cache", "m2-repository/org/x", "pip-cache"]
        .iter()
        .map(|c| attack.root().join(c))
        .collect();
    for cache in &caches {
        fs::create_dir_all(cache).unwrap();
        fs::write(cache.join("file.txt"), "original\n").unwrap();
    }
    fs::write(
        attack.home.join(".npmrc"),
        format!("cache={}\n", caches[0].display()),
    )
    .unwrap();
    fs::create_dir_all(attack.home.join(".m2")).unwrap();
    fs::write(
        attack.home.join(".m2/settings.xml"),
        format!(
            "<settings><localRepository>{}</localRepository></settings>\n",
            attack.root().join("m2-repository").display()
        ),
    )
    .unwrap();
    fs::create_dir_all(attack.home.join(".config/pip")).unwrap();
    fs::write(
        attack.home.join(".config/pip/pip.conf"),
        format!("[global]\ncache-dir = {}\n", caches[2].display()),
    )
    .unwrap();
    let poison: String = caches
        .iter()
        .map(|c| format!("echo POISON > {}/file.txt && echo WROTE\n", c.display()))
        .collect();
    let out = attack.scripts(&[("caches.sh", &poison)]);
    assert_eq!(
        out.matches("WROTE").count(),
        3,
        "the caches are there, writable: {out}"
    );
    for cache in &caches {
        assert_eq!(
            fs::read_to_string(cache.join("file.txt")).unwrap(),
            "original\n",
            "{}: {out}",
            cache.display()
        );
    }
}

/// A C program that makes one refused call per child, each through a spelling a filter written
/// for one ABI or one flag word could miss: the i386 ABI (`int $0x80`), the x32 numbers, `clone`
/// with `CLONE_NEWUSER` (and with bits above the 32 the kernel reads), `unshare` with high bits.
const OTHER_SPELLINGS: &str = r#"#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
static long i386call(long nr, long a, long b) {
    long ret;
    __asm__ volatile ("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b) : "memory");
    return ret;
}
static void try(const char *label, int which) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        long r = -1;
        errno = 0;
        switch (which) {
        case 0: r = i386call(310, CLONE_NEWUSER, 0); break;
        case 1: r = i386call(288, 0, -3); break;
        case 2: r = syscall(0x40000000 | SYS_unshare, CLONE_NEWUSER); break;
        case 3: r = syscall(0x40000000 | SYS_keyctl, 0, -3); break;
        case 4: r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0); if (r == 0) _exit(0); break;
        case 5: r = syscall(SYS_clone, 0x100000000UL | CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0); if (r == 0) _exit(0); break;
        case 6: r = syscall(SYS_unshare, CLONE_NEWUSER | CLONE_FILES); break;
        }
        printf("%s: %s (%ld, errno %d)\n", label, r >= 0 ? "ALLOWED" : "refused", r, errno);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    if (WIFSIGNALED(st)) printf("%s: killed (signal %d)\n", label, WTERMSIG(st));
}
int main(void) {
    const char *labels[] = {"i386-unshare", "i386-keyctl", "x32-unshare", "x32-keyctl", "clone-newuser", "clone-newuser-high-bits", "unshare-newuser-files"};
    for (int i = 0; i < 7; i++) try(labels[i], i);
    return 0;
}
"#;

/// Claim 1 (held): the seccomp filter through other ABIs and flag spellings. With the sandbox
/// off, the i386 calls return and the clones make a user namespace.
#[cfg(target_arch = "x86_64")]
#[test]
fn refused_calls_stay_refused_through_other_abis_and_flag_spellings() {
    let attack = Attack::new();
    fs::write(attack.ws.join("spell.c"), OTHER_SPELLINGS).unwrap();
    let status = Command::new("cc")
        .arg("-o")
        .arg(attack.ws.join("spell"))
        .arg(attack.ws.join("spell.c"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = attack.apply("auto", &format!("{}{NEXT}", run("./spell")));
    for label in [
        "i386-unshare",
        "i386-keyctl",
        "x32-unshare",
        "x32-keyctl",
        "clone-newuser",
        "clone-newuser-high-bits",
        "unshare-newuser-files",
    ] {
        assert!(
            out.contains(&format!("{label}: refused")) || out.contains(&format!("{label}: killed")),
            "{label}:\n{out}"
        );
    }
    assert!(!out.contains("ALLOWED"), "{out}");
}

/// Claim 1 (held): no file of `/proc` outside the command's own processes opens for writing
/// (opened only, never written), as root; with the sandbox off, `/proc/sys` does.
#[test]
fn no_proc_file_outside_the_commands_own_processes_opens_for_writing() {
    let attack = Attack::new();
    let script = "import os\nfor top, dirs, files in os.walk('/proc'):\n    rel = top[len('/proc'):].split('/')\n    if len(rel) > 1 and (rel[1].isdigit() or rel[1] in ('self', 'thread-self')):\n        dirs[:] = []\n        continue\n    if top.count('/') > 4:\n        dirs[:] = []\n    for f in files:\n        path = os.path.join(top, f)\n        try:\n            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)\n            os.close(fd)\n            print('WRITABLE', path)\n        except OSError:\n            pass\nprint('walked /proc')\n";
    fs::write(attack.ws.join("proc.py"), script).unwrap();
    let out = attack.apply(
        "auto",
        &format!("{}{NEXT}", run("/usr/bin/python3 proc.py")),
    );
    assert!(out.contains("walked /proc"), "{out}");
    assert!(!out.contains("WRITABLE"), "{out}");
}

/// Claim 1 (held): a key in the session keyring keyless runs in (a fresh one of its own here,
/// so no other test's keyring is touched) is out of a command's reach; with the sandbox off, the
/// command finds and reads it.
#[cfg(target_arch = "x86_64")]
#[test]
fn a_key_in_keyless_s_session_keyring_never_reaches_a_command() {
    let attack = Attack::new();
    let find = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\nKEYCTL_SEARCH, KEYCTL_READ, SESSION = 10, 11, -3\nkey = libc.syscall(250, KEYCTL_SEARCH, SESSION, b'user', b'a29-key', 0)\nbuf = ctypes.create_string_buffer(256)\nn = libc.syscall(250, KEYCTL_READ, ctypes.c_long(key), buf, 256)\nopen('dump.txt', 'w').write(buf.raw[:max(n, 0)].decode('latin1')[::-1])\nprint('key', key, 'read', n, 'errno', ctypes.get_errno())\n";
    fs::write(attack.ws.join("key.py"), find).unwrap();
    let reply = attack.root().join("reply.txt");
    fs::write(&reply, format!("{}{NEXT}", run("/usr/bin/python3 key.py"))).unwrap();
    // A fresh session keyring for this keyless only, a key in it, then keyless.
    let wrapper = "import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\nassert libc.syscall(250, 1, None) > 0\nassert libc.syscall(248, b'user', b'a29-key', b'KEYRING-a29-Tq9', 15, -3) > 0\nos.execv(sys.argv[1], sys.argv[1:])\n";
    let command = attack.keyless(&[]);
    let args: Vec<std::ffi::OsString> = vec![
        command.get_program().into(),
        "apply".into(),
        reply.into_os_string(),
        "--workspace".into(),
        attack.ws.clone().into_os_string(),
        "--mode".into(),
        "auto".into(),
        "--pace".into(),
        "batch".into(),
    ];
    let out = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(wrapper)
        .args(args)
        .envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .env_remove("CARGO_TARGET_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let out =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.contains("key "), "{out}");
    assert!(
        !attack.dump("dump.txt").contains("KEYRING-a29-Tq9"),
        "a command read keyless's key:\n{out}"
    );
}

/// Claim 2 (held): `keyless undo` puts a file back only where no link a command made lies on
/// the way: a folder swapped for a link into `.git/hooks` (the backup is a hook the model wrote
/// before) and one swapped for a link to a folder outside.
#[test]
fn undo_never_writes_or_deletes_through_a_link_a_command_swapped_in() {
    let attack = Attack::new();
    attack.file("sub/post-checkout", "#!/bin/sh\necho pwned\n");
    fs::write(attack.victim.join("new.txt"), "outside\n").unwrap();
    fs::write(
        attack.ws.join("swap.sh"),
        format!(
            "mv sub sub.old && ln -s .git/hooks sub && rm -rf x && ln -s {} x\n",
            attack.victim.display()
        ),
    )
    .unwrap();
    let reply = format!(
        "@@updatefile sub/post-checkout\n<<<CONTENT\nharmless\nCONTENT>>>\n@@end\n@@newfile x/new.txt\n<<<CONTENT\nnew\nCONTENT>>>\n@@end\n{}{NEXT}",
        run("sh swap.sh")
    );
    let out = attack.apply("auto", &reply);
    assert!(
        fs::symlink_metadata(attack.ws.join("sub"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the swap happened: {out}"
    );
    let undone = attack.undo();
    assert!(
        !attack.ws.join(".git/hooks/post-checkout").exists(),
        "undo wrote a hook through the link:\n{undone}"
    );
    assert_eq!(
        fs::read_to_string(attack.victim.join("new.txt")).unwrap(),
        "outside\n",
        "undo deleted outside through the link:\n{undone}"
    );
}
