//! The world a model command runs in on Linux, built by bubblewrap from an allow-list: what is
//! not granted does not exist for the command.
//!
//! - **Processes**: its own user, PID, IPC, UTS and cgroup namespaces and its own `/proc`: it
//!   sees no process but its own tree, holds no capability (also when keyless is root), cannot
//!   make user namespaces of its own, and everything it started is killed when it ends
//!   (`--die-with-parent` makes the namespace's first process die with bubblewrap's monitor,
//!   and the kernel then kills the rest, however they detached).
//! - **Files**: the root is an empty tmpfs, read-only once built, holding read-only binds of the
//!   system's folders (`/usr`, `/etc` without its secrets, `/opt`, …), a minimal `/dev`, and
//!   private, size-limited `/tmp`, `/var/tmp` and `/dev/shm`. The home folder is a small private
//!   tmpfs holding only the toolchains (read-only) and the build caches (writable through a
//!   copy-on-write layer mounted before bubblewrap runs, `enter.rs`). The workspace is the one
//!   writable tree of the user's; its `.git`, `.agent` and `keyless.json` are read-only binds
//!   over themselves. Every bind is `nosuid,nodev`.
//! - **Network**: a network namespace of its own, or one keyless keeps (`nets.rs`): no socket
//!   of the machine's is reachable.
//!
//! This file only says which arguments build that world ([`args`], a pure function, so the
//! order and the content are tested without running anything); `enter.rs` does what must happen
//! in the child before bubblewrap runs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// System folders bound read-only when they exist (a symbolic link is recreated as one, as on
/// merged-`/usr` systems where `/bin` points to `usr/bin`).
pub const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
];

/// Files and folders of `/etc` that hold the machine's secrets: masked.
pub const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssl/private",
    "/etc/security/opasswd",
    "/etc/credstore",
    "/etc/credstore.encrypted",
    "/etc/NetworkManager/system-connections",
    "/etc/wireguard",
    "/etc/keyless",
];

/// The parts of `/proc` that write to the kernel (or read what only the machine's root should):
/// read-only in the world, whoever runs keyless. A command's uid may be the machine's uid 0 (as
/// root, bubblewrap maps keyless's own id), and a file's owner may write it whatever the
/// capabilities: `/proc/sys` (`kernel.core_pattern`, ASLR, the link protections) must not be
/// writable by owner.
pub const KERNEL_READ_ONLY: &[&str] = &[
    "/proc/sys",
    "/proc/sysrq-trigger",
    "/proc/irq",
    "/proc/bus",
    "/proc/fs",
    "/proc/acpi",
    "/proc/scsi",
    "/proc/asound",
    "/proc/driver",
    "/proc/tty",
    "/proc/pressure",
];

/// The parts of `/proc` covered also where a command runs as an id of no one's (`remap.rs`),
/// which owns none of the rest: the knobs (a second wall), what any user may write (the
/// pressure triggers) and what any user may read (the keys it can see, the symbol table).
pub const KERNEL_ALWAYS: &[&str] = &[
    "/proc/sys",
    "/proc/sysrq-trigger",
    "/proc/pressure",
    "/proc/keys",
    "/proc/key-users",
    "/proc/kallsyms",
];

/// Files of `/proc` that show the machine's keys, memory or timing: read as empty.
pub const KERNEL_HIDDEN: &[&str] = &[
    "/proc/kcore",
    "/proc/keys",
    "/proc/key-users",
    "/proc/kallsyms",
    "/proc/kmsg",
    "/proc/timer_list",
    "/proc/sched_debug",
    "/proc/latency_stats",
    "/proc/config.gz",
    "/proc/vmallocinfo",
    "/proc/slabinfo",
    "/proc/pagetypeinfo",
    "/proc/kpagecount",
    "/proc/kpageflags",
    "/proc/kpagecgroup",
];

/// How a part of `/proc` is covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    ReadOnly,
    Hidden,
}

/// How big the private writable tmpfs folders may grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// `/tmp` (the command's `$TMPDIR`) and `/var/tmp`.
    pub tmp: u64,
    /// The home folder's own files (outside the toolchains and caches bound into it).
    pub home: u64,
    /// `/dev/shm`.
    pub shm: u64,
}

/// A system folder as it is on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Dir,
    Link(PathBuf),
}

/// Everything the world is built from; found by [`Spec`]'s caller, turned into arguments by
/// [`args`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub workspace: PathBuf,
    pub home: Option<PathBuf>,
    pub system: Vec<(PathBuf, Entry)>,
    /// Bound read-only (toolchains, `PATH` folders, `Sandbox.ReadablePaths`).
    pub readable: Vec<PathBuf>,
    /// Bound writable besides the workspace: the build caches (the copy-on-write layer when
    /// there is one) and `Sandbox.WritablePaths`.
    pub writable: Vec<PathBuf>,
    /// Read-only binds over themselves inside the workspace.
    pub protected: Vec<PathBuf>,
    /// Masked: (path, whether it is a folder). A folder reads as empty, a file as `/dev/null`.
    pub masked: Vec<(PathBuf, bool)>,
    /// Files bound read-only at a place: (source, destination), e.g. the home folder's
    /// `.gitconfig` without credentials.
    pub files: Vec<(PathBuf, PathBuf)>,
    pub sizes: Sizes,
    /// Whether bubblewrap makes the command's network namespace (else the command already
    /// joined one keyless keeps).
    pub unshare_net: bool,
    /// The parts of `/proc` covered, those that exist on this machine ([`kernel_knobs`]).
    pub kernel: Vec<(PathBuf, Knob)>,
    /// The descriptors bubblewrap loads seccomp programs from.
    pub seccomp_fds: Vec<i32>,
    /// Where bubblewrap finds what it binds when it runs unprivileged (`remap.rs`): (a real
    /// path, its place in the stage). A bind's source under a real path is taken from its
    /// place; the command then looks like uid 0 inside its user namespace.
    pub staged: Vec<(PathBuf, PathBuf)>,
}

impl Spec {
    /// Where bubblewrap takes `path` from: its staged place when it lies in a staged path.
    fn source(&self, path: &Path) -> PathBuf {
        self.staged
            .iter()
            .filter(|(real, _)| path.starts_with(real))
            .max_by_key(|(real, _)| real.components().count())
            .and_then(|(real, place)| {
                path.strip_prefix(real).ok().map(|rest| {
                    if rest.as_os_str().is_empty() {
                        place.clone()
                    } else {
                        place.join(rest)
                    }
                })
            })
            .unwrap_or_else(|| path.to_path_buf())
    }
}

/// What a mount step does, in the order steps at the same depth must come.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Symlink(PathBuf),
    Tmpfs(u64),
    ReadOnly(PathBuf),
    Writable(PathBuf),
    Protect(PathBuf),
    /// A file shown over what is there (a settings file without its secrets): after every bind
    /// at the same place, so it is what the command sees.
    Cover(PathBuf),
    MaskDir,
    MaskFile,
}

/// bubblewrap's arguments for `spec`, then `--` and the command.
pub fn args(spec: &Spec, program: &str, command_args: &[&str]) -> Vec<OsString> {
    let mut out: Vec<OsString> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--hostname",
        "sandbox",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    if spec.unshare_net {
        out.push("--unshare-net".into());
    }
    if !spec.staged.is_empty() {
        for item in ["--uid", "0", "--gid", "0"] {
            out.push(item.into());
        }
    }
    for fd in &spec.seccomp_fds {
        out.push("--add-seccomp-fd".into());
        out.push(fd.to_string().into());
    }
    let mut steps: Vec<(PathBuf, Step)> = Vec::new();
    for (path, entry) in &spec.system {
        steps.push((
            path.clone(),
            match entry {
                Entry::Dir => Step::ReadOnly(path.clone()),
                Entry::Link(target) => Step::Symlink(target.clone()),
            },
        ));
    }
    for dir in ["/tmp", "/var/tmp"] {
        steps.push((PathBuf::from(dir), Step::Tmpfs(spec.sizes.tmp)));
    }
    steps.push((PathBuf::from("/dev/shm"), Step::Tmpfs(spec.sizes.shm)));
    if let Some(home) = spec.home.as_ref().filter(|h| h.parent().is_some()) {
        steps.push((home.clone(), Step::Tmpfs(spec.sizes.home)));
    }
    for path in &spec.readable {
        steps.push((path.clone(), Step::ReadOnly(spec.source(path))));
    }
    for (source, dest) in &spec.files {
        steps.push((dest.clone(), Step::Cover(spec.source(source))));
    }
    for path in spec.writable.iter().chain([&spec.workspace]) {
        steps.push((path.clone(), Step::Writable(spec.source(path))));
    }
    for path in &spec.protected {
        steps.push((path.clone(), Step::Protect(spec.source(path))));
    }
    for folder in pins(spec) {
        steps.push((folder.clone(), Step::Writable(spec.source(&folder))));
    }
    for (path, dir) in &spec.masked {
        steps.push((
            path.clone(),
            if *dir { Step::MaskDir } else { Step::MaskFile },
        ));
    }
    // A folder's own step comes before anything placed inside it; at the same depth, binds
    // come after the tmpfs they may sit in, and protection and masks last.
    steps.sort_by(|(a, sa), (b, sb)| {
        (a.components().count(), sa, a).cmp(&(b.components().count(), sb, b))
    });
    let mut special_done = false;
    for (dest, step) in steps {
        // /proc and /dev come once the system folders are in place and before anything deeper.
        if !special_done && dest.components().count() > 2 {
            special(&mut out, &spec.kernel);
            special_done = true;
        }
        let dest = OsString::from(dest);
        let push = |out: &mut Vec<OsString>, items: &[&std::ffi::OsStr]| {
            out.extend(items.iter().map(|s| s.to_os_string()));
        };
        match step {
            Step::Symlink(target) => {
                push(&mut out, &["--symlink".as_ref(), target.as_os_str(), &dest])
            }
            Step::Tmpfs(size) => {
                let size = OsString::from(size.to_string());
                push(
                    &mut out,
                    &["--size".as_ref(), &size, "--tmpfs".as_ref(), &dest],
                );
            }
            Step::ReadOnly(source) | Step::Cover(source) => {
                push(&mut out, &["--ro-bind".as_ref(), source.as_os_str(), &dest])
            }
            Step::Writable(source) => {
                push(&mut out, &["--bind".as_ref(), source.as_os_str(), &dest])
            }
            Step::Protect(source) => {
                push(&mut out, &["--ro-bind".as_ref(), source.as_os_str(), &dest])
            }
            Step::MaskDir => push(
                &mut out,
                &[
                    "--size".as_ref(),
                    "4096".as_ref(),
                    "--tmpfs".as_ref(),
                    &dest,
                    "--remount-ro".as_ref(),
                    &dest,
                ],
            ),
            Step::MaskFile => push(
                &mut out,
                &["--ro-bind".as_ref(), "/dev/null".as_ref(), &dest],
            ),
        }
    }
    if !special_done {
        special(&mut out, &spec.kernel);
    }
    for item in ["--remount-ro", "/", "--chdir"] {
        out.push(item.into());
    }
    out.push(spec.workspace.clone().into());
    out.push("--".into());
    out.push(program.into());
    out.extend(command_args.iter().map(OsString::from));
    out
}

/// The folders between a writable root and each protected or hidden path in it, each bound over
/// itself: a mount point cannot be renamed or removed (`EBUSY`), so a command cannot move a
/// protected repository or a hidden folder aside by renaming a folder above it, and put its own
/// in its place (or find the hidden one uncovered under the new name by the next command).
fn pins(spec: &Spec) -> Vec<PathBuf> {
    let roots: Vec<&PathBuf> = spec.writable.iter().chain([&spec.workspace]).collect();
    let mut pins: Vec<PathBuf> = Vec::new();
    let kept = spec
        .protected
        .iter()
        .chain(spec.masked.iter().map(|(path, _)| path));
    for path in kept {
        let Some(root) = roots
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.components().count())
        else {
            continue;
        };
        let mut folder = path.parent();
        while let Some(at) = folder {
            if at == root.as_path() || !at.starts_with(root) {
                break;
            }
            if !pins.iter().any(|p| p == at) {
                pins.push(at.to_path_buf());
            }
            folder = at.parent();
        }
    }
    pins.retain(|p| {
        !spec.protected.contains(p)
            && !spec.masked.iter().any(|(m, _)| p.starts_with(m))
            && !spec.protected.iter().any(|q| p.starts_with(q))
    });
    pins
}

/// `/proc` with the kernel's knobs read-only and its secrets hidden, `/dev` (read-only but for
/// its devices and `/dev/shm`, mounted later), and the empty `/var` and `/run`.
fn special(out: &mut Vec<OsString>, kernel: &[(PathBuf, Knob)]) {
    out.push("--proc".into());
    out.push("/proc".into());
    for (path, knob) in kernel {
        let source = match knob {
            Knob::ReadOnly => path.as_os_str(),
            Knob::Hidden => "/dev/null".as_ref(),
        };
        out.extend([
            "--ro-bind".into(),
            source.to_os_string(),
            path.clone().into(),
        ]);
    }
    for item in [
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--dir",
        "/var",
        "--dir",
        "/run",
    ] {
        out.push(item.into());
    }
}

/// The parts of `/proc` to cover that exist on this machine (the command's `/proc` is the
/// same kernel's, so it has the same ones; binding one that does not exist would fail).
pub fn kernel_knobs() -> Vec<(PathBuf, Knob)> {
    let present = |path: &&&str| Path::new(path).symlink_metadata().is_ok();
    KERNEL_READ_ONLY
        .iter()
        .filter(present)
        .map(|p| (PathBuf::from(p), Knob::ReadOnly))
        .chain(
            KERNEL_HIDDEN
                .iter()
                .filter(present)
                .map(|p| (PathBuf::from(p), Knob::Hidden)),
        )
        .collect()
}

/// The system folders as they are on this machine.
pub fn system() -> Vec<(PathBuf, Entry)> {
    SYSTEM
        .iter()
        .map(PathBuf::from)
        .filter_map(|path| {
            let meta = path.symlink_metadata().ok()?;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).ok()?;
                Some((path, Entry::Link(target)))
            } else if meta.is_dir() {
                Some((path, Entry::Dir))
            } else {
                None
            }
        })
        .collect()
}

/// The machine's secrets in `/etc` that exist: the listed ones and the ssh host keys.
pub fn system_secrets() -> Vec<(PathBuf, bool)> {
    let mut found: Vec<PathBuf> = SYSTEM_SECRETS.iter().map(PathBuf::from).collect();
    if let Ok(entries) = std::fs::read_dir("/etc/ssh") {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("ssh_host_") && name.ends_with("_key") {
                found.push(entry.path());
            }
        }
    }
    found
        .into_iter()
        .filter_map(|p| {
            let meta = p.symlink_metadata().ok()?;
            Some((p, meta.is_dir()))
        })
        .collect()
}

/// Whether a stranger (a command that runs as an id of no one's, in no group: `remap.rs`) may read
/// `path`: only through the permissions for others (`o+r`, and `o+x` for a folder's names), as
/// neither the owner nor the group is its. What it cannot read needs no mask: the kernel refuses
/// it, and a mask costs the command's world a bind and a read of its mounts.
pub fn stranger_may_read(path: &Path, id: u32) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let Ok(meta) = path.symlink_metadata() else {
        return false;
    };
    let others = if meta.is_dir() { 0o005 } else { 0o004 };
    meta.permissions().mode() & others != 0 || meta.uid() == id || meta.gid() == id
}

/// The most entries of a system folder looked at for what only root may read.
const ROOT_ONLY_ENTRIES: usize = 20_000;

/// The files and folders under `dir` that no one but their owner and group may read (mode
/// without `o+r`): (path, whether it is a folder), outermost only, links not followed.
pub fn root_only(dir: &str) -> Vec<(PathBuf, bool)> {
    use std::os::unix::fs::PermissionsExt;
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(folder) = stack.pop() {
        let Ok(children) = std::fs::read_dir(&folder) else {
            continue;
        };
        for child in children.flatten() {
            seen += 1;
            if seen > ROOT_ONLY_ENTRIES {
                return found;
            }
            let Ok(meta) = child.path().symlink_metadata() else {
                continue;
            };
            if meta.file_type().is_symlink() {
                continue;
            }
            let unreadable = meta.permissions().mode() & 0o004 == 0;
            if unreadable {
                found.push((child.path(), meta.is_dir()));
            } else if meta.is_dir() {
                stack.push(child.path());
            }
        }
    }
    found
}

/// Whether `path` is visible in a world whose binds are `roots`.
pub fn visible(path: &Path, roots: &[&Path]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        Spec {
            workspace: "/home/u/proj".into(),
            home: Some("/home/u".into()),
            system: vec![
                ("/usr".into(), Entry::Dir),
                ("/bin".into(), Entry::Link("usr/bin".into())),
                ("/etc".into(), Entry::Dir),
            ],
            readable: vec!["/home/u/.rustup".into()],
            writable: vec!["/home/u/.cargo".into()],
            protected: vec![
                "/home/u/proj/.git".into(),
                "/home/u/proj/keyless.json".into(),
                "/home/u/proj/vendor/lib/.git".into(),
            ],
            masked: vec![
                ("/etc/shadow".into(), false),
                ("/home/u/.cargo/credentials.toml".into(), false),
            ],
            files: vec![("/run/k/gitconfig".into(), "/home/u/.gitconfig".into())],
            sizes: Sizes {
                tmp: 1024,
                home: 512,
                shm: 256,
            },
            unshare_net: false,
            kernel: vec![
                ("/proc/sys".into(), Knob::ReadOnly),
                ("/proc/keys".into(), Knob::Hidden),
            ],
            seccomp_fds: vec![1022, 1021],
            staged: Vec::new(),
        }
    }

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_stranger_reads_only_through_the_permissions_for_others() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("file", false, 0o644, true),
            ("secret", false, 0o640, false),
            ("names", true, 0o711, true),
            ("closed", true, 0o750, false),
        ];
        for (name, folder, mode, readable) in cases {
            let path = dir.path().join(name);
            if folder {
                std::fs::create_dir(&path).unwrap();
            } else {
                std::fs::write(&path, "x").unwrap();
            }
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            assert_eq!(stranger_may_read(&path, 4_000_000_000), readable, "{name}");
        }
        // Its own file is its own, whatever the mode.
        let own = dir.path().join("secret");
        // SAFETY: getuid cannot fail.
        let me = unsafe { libc::getuid() };
        assert!(stranger_may_read(&own, me));
    }

    #[test]
    fn the_world_is_built_from_the_outside_in() {
        let out = text(&args(&spec(), "sh", &["-c", "make test"]));
        let at = |needle: &str| {
            out.find(needle)
                .unwrap_or_else(|| panic!("{needle} missing in {out}"))
        };
        // Namespaces, no privilege, nothing outlives the command.
        for flag in [
            "--unshare-user",
            "--unshare-pid",
            "--disable-userns",
            "--die-with-parent",
            "--cap-drop ALL",
        ] {
            at(flag);
        }
        assert!(!out.contains("--unshare-net"), "the kept namespace: {out}");
        // The home folder is a tmpfs before what is bound into it.
        assert!(at("--size 512 --tmpfs /home/u") < at("--ro-bind /home/u/.rustup /home/u/.rustup"));
        assert!(at("--tmpfs /home/u ") < at("--bind /home/u/.cargo /home/u/.cargo"));
        assert!(
            at("--bind /home/u/proj /home/u/proj")
                < at("--ro-bind /home/u/proj/.git /home/u/proj/.git")
        );
        assert!(
            at("--bind /home/u/.cargo") < at("--ro-bind /dev/null /home/u/.cargo/credentials.toml")
        );
        assert!(at("--ro-bind /etc /etc") < at("--ro-bind /dev/null /etc/shadow"));
        at("--symlink usr/bin /bin");
        at("--size 1024 --tmpfs /tmp");
        at("--size 256 --tmpfs /dev/shm");
        assert!(at("--dev /dev --remount-ro /dev") < at("--tmpfs /dev/shm"));
        // The kernel's knobs, once /proc is there; the filters loaded last, by bubblewrap.
        assert!(at("--proc /proc") < at("--ro-bind /proc/sys /proc/sys"));
        assert!(at("--ro-bind /proc/sys /proc/sys") < at("--dev /dev"));
        at("--ro-bind /dev/null /proc/keys");
        at("--add-seccomp-fd 1022 --add-seccomp-fd 1021");
        at("--ro-bind /run/k/gitconfig /home/u/.gitconfig");
        // The folders above a nested repository are pinned by binds of their own, before it.
        assert!(
            at("--bind /home/u/proj/vendor /home/u/proj/vendor")
                < at("--bind /home/u/proj/vendor/lib /home/u/proj/vendor/lib")
        );
        assert!(
            at("--bind /home/u/proj/vendor/lib /home/u/proj/vendor/lib")
                < at("--ro-bind /home/u/proj/vendor/lib/.git /home/u/proj/vendor/lib/.git")
        );
        assert!(
            out.ends_with("--remount-ro / --chdir /home/u/proj -- sh -c make test"),
            "{out}"
        );
    }

    #[test]
    fn an_unprivileged_bubblewrap_binds_from_the_stage_and_shows_uid_0_inside() {
        let mut spec = spec();
        spec.staged = vec![
            ("/home/u/proj".into(), "/tmp/stage/0".into()),
            ("/home/u/.rustup".into(), "/tmp/stage/1".into()),
            ("/run/k/gitconfig".into(), "/tmp/stage/2".into()),
        ];
        let out = text(&args(&spec, "true", &[]));
        for needle in [
            "--uid 0 --gid 0",
            "--bind /tmp/stage/0 /home/u/proj",
            "--ro-bind /tmp/stage/0/.git /home/u/proj/.git",
            "--ro-bind /tmp/stage/1 /home/u/.rustup",
            "--ro-bind /tmp/stage/2 /home/u/.gitconfig",
            // What is not staged is bound from where it is.
            "--bind /home/u/.cargo /home/u/.cargo",
            "--ro-bind /etc /etc",
        ] {
            assert!(out.contains(needle), "{needle}: {out}");
        }
    }

    #[test]
    fn a_world_without_a_kept_network_makes_its_own() {
        let mut spec = spec();
        spec.unshare_net = true;
        assert!(text(&args(&spec, "true", &[])).contains("--unshare-net"));
    }
}
