//! What places are: catastrophic to delete (`/`, a home, a drive, a system folder, or
//! everything in one), keyless's or git's own (`.agent`, `keyless.json`, `.git`, the global
//! git configuration), holders of secrets, raw disks, sockets. Every test takes a `Place` the
//! path normaliser (`paths`) made, so every spelling of a path gets the same answer.

use super::paths::{Place, Root, component_is, glob_matches, is_glob};

/// Top-level folders whose loss breaks the machine.
const SYSTEM_TOP: &[&str] = &[
    "home",
    "root",
    "etc",
    "usr",
    "bin",
    "sbin",
    "var",
    "boot",
    "lib",
    "lib32",
    "lib64",
    "opt",
    "dev",
    "sys",
    "proc",
    "srv",
    "System",
    "Users",
    "Library",
    "Applications",
    "private",
    "Windows",
    "Program Files",
    "Program Files (x86)",
    "ProgramData",
    "Volumes",
    "snap",
    "nix",
];

/// Folders one level down whose loss breaks the machine (`*` for every folder there).
const SYSTEM_SECOND: &[(&str, &[&str])] = &[
    ("home", &["*"]),
    ("Users", &["*"]),
    ("root", &["*"]),
    ("Volumes", &["*"]),
    (
        "usr",
        &[
            "bin", "sbin", "lib", "lib32", "lib64", "libexec", "share", "include", "local",
        ],
    ),
    ("Windows", &["System32", "SysWOW64", "WinSxS"]),
    ("System", &["Library"]),
    ("var", &["lib"]),
    ("private", &["etc", "var"]),
];

/// Deleting this (recursively) destroys `/`, a home, a drive, a system folder or everything in
/// one of them.
pub fn catastrophic(place: &Place) -> bool {
    let parts = &place.parts;
    if let Some((last, parent)) = parts.split_last()
        && matches_everything(last)
    {
        let parent = Place {
            root: place.root,
            up: place.up,
            parts: parent.to_vec(),
        };
        if catastrophic(&parent) || parent.root == Root::Home {
            return true;
        }
    }
    match place.root {
        Root::Slash | Root::Drive => match parts.as_slice() {
            [] => true,
            [top] => SYSTEM_TOP.iter().any(|s| s.eq_ignore_ascii_case(top)),
            [top, second] => SYSTEM_SECOND.iter().any(|(t, below)| {
                t.eq_ignore_ascii_case(top)
                    && below.iter().any(|b| *b == "*" || component_is(second, b))
            }),
            _ => false,
        },
        Root::Home => parts.is_empty(),
        Root::Workspace | Root::Unknown => false,
    }
}

/// A glob with no literal but dots: `*`, `.*`, `.??*`, `{*,.*}`.
fn matches_everything(part: &str) -> bool {
    is_glob(part)
        && part
            .chars()
            .all(|c| matches!(c, '*' | '?' | '.' | '[' | ']' | '!' | '^' | '{' | '}' | ','))
}

/// What a path names that keyless protects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protected {
    /// `.agent`: keyless's state, not even to read.
    Agent,
    /// `keyless.json`: the user's settings.
    Settings,
    /// Something inside (or) `.git`.
    Git,
    /// git's configuration for every repository: `~/.gitconfig`, `~/.config/git/config`,
    /// `/etc/gitconfig`.
    GlobalGitConfig,
}

pub fn protected(place: &Place) -> Option<Protected> {
    let parts = &place.parts;
    let in_workspace = place.root == Root::Workspace && place.up == 0;
    if in_workspace && parts.first().is_some_and(|p| component_is(p, ".agent")) {
        return Some(Protected::Agent);
    }
    // `*` matches keyless.json too, but "everything" is judged as a delete, not as a write to it.
    if in_workspace
        && parts.len() == 1
        && component_is(&parts[0], "keyless.json")
        && !matches_everything(&parts[0])
    {
        return Some(Protected::Settings);
    }
    if parts.iter().any(|p| component_is(p, ".git")) {
        return Some(Protected::Git);
    }
    let global = match (place.root, parts.as_slice()) {
        (Root::Home, [file]) => component_is(file, ".gitconfig"),
        (Root::Home, [config, git, ..]) => {
            config.eq_ignore_ascii_case(".config") && component_is(git, "git")
        }
        (Root::Slash, [etc, file]) => etc == "etc" && component_is(file, "gitconfig"),
        _ => false,
    };
    global.then_some(Protected::GlobalGitConfig)
}

/// Folders in a home that hold credentials.
const SECRET_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker",
    ".azure",
    ".gcloud",
    ".password-store",
];
/// File names that hold credentials wherever they are.
const SECRET_FILES: &[&str] = &[
    ".env",
    ".netrc",
    "_netrc",
    ".pypirc",
    ".git-credentials",
    ".npmrc",
    ".yarnrc",
    ".pgpass",
    "credentials.json",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    ".bash_history",
    ".zsh_history",
    ".htpasswd",
    ".vault-token",
    ".terraformrc",
    ".s3cfg",
    ".boto",
    ".my.cnf",
    "secrets.yml",
    "secrets.yaml",
    "secrets.json",
    "secrets.toml",
    "master.key",
    "credentials.yml",
];
/// Endings of files that hold keys or secrets: private keys, key stores, Terraform's state.
const SECRET_ENDINGS: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".tfstate",
    ".kdbx",
];

/// Whether reading `place` may read a secret store. `recursive` readers also count a folder
/// that contains one (a home, `/`).
pub fn secret(place: &Place, recursive: bool) -> bool {
    let parts = &place.parts;
    let name_is_secret = |p: &str| {
        let glob = is_glob(p);
        SECRET_FILES
            .iter()
            .any(|s| p.eq_ignore_ascii_case(s) || glob && glob_matches(p, s))
            || ["id_rsa", "id_ed25519", "id_ecdsa", ".env."]
                .iter()
                .any(|s| starts_with_ignoring_case(p, s))
            || ends_with_ignoring_case(p, ".env")
            || SECRET_ENDINGS
                .iter()
                .any(|e| p.len() > e.len() && ends_with_ignoring_case(p, e))
            || glob && glob_matches(p, "x.env")
    };
    if parts.iter().any(|p| {
        let glob = is_glob(p);
        SECRET_DIRS
            .iter()
            .any(|s| p.eq_ignore_ascii_case(s) || glob && glob_matches(p, s))
            || p.eq_ignore_ascii_case(".config")
    }) && (place.root == Root::Home || parts.iter().any(|p| SECRET_DIRS.contains(&p.as_str())))
    {
        // `~/.config` holds gh, gcloud and other tokens.
        return true;
    }
    if parts.iter().any(|p| name_is_secret(p)) {
        return true;
    }
    // A repository's `.git/config` holds its remotes' URLs, tokens in them included; a
    // recursive read of `.git` reads it.
    if let Some(git) = parts.iter().position(|p| component_is(p, ".git")) {
        let below = &parts[git + 1..];
        if recursive
            || below
                .last()
                .is_some_and(|last| component_is(last, "config"))
        {
            return true;
        }
    }
    if place.root == Root::Slash {
        match parts.as_slice() {
            [proc, .., last] if proc == "proc" && component_is(last, "environ") => return true,
            [etc, file]
                if etc == "etc" && matches!(file.as_str(), "shadow" | "gshadow" | "sudoers") =>
            {
                return true;
            }
            _ => {}
        }
    }
    if place.root == Root::Home
        && parts.first().is_some_and(|p| {
            is_glob(p)
                && SECRET_DIRS
                    .iter()
                    .chain(SECRET_FILES)
                    .any(|s| glob_matches(p, s))
        })
    {
        return true;
    }
    recursive
        && match place.root {
            Root::Home => parts.is_empty(),
            Root::Slash => {
                parts.is_empty()
                    || matches!(parts.as_slice(), [p] if p == "home" || p == "root" || p == "Users")
            }
            _ => false,
        }
}

/// `text` starts with the ASCII `prefix`, letters in any case.
fn starts_with_ignoring_case(text: &str, prefix: &str) -> bool {
    text.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// `text` ends with the ASCII `suffix`, letters in any case.
fn ends_with_ignoring_case(text: &str, suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text.as_bytes()[text.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Device paths of whole disks and partitions.
pub fn is_raw_disk(path: &str) -> bool {
    [
        "/dev/sd",
        "/dev/nvme",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/dm-",
        "/dev/mapper/",
        "/dev/rdisk",
        "\\\\.\\PhysicalDrive",
    ]
    .iter()
    .any(|p| path.starts_with(p))
}

/// `/proc/sysrq-trigger`: a letter written to it reboots, powers off or crashes the machine.
pub fn is_sysrq(place: &Place) -> bool {
    place.root == Root::Slash
        && matches!(place.parts.as_slice(), [proc, t] if proc == "proc" && t == "sysrq-trigger")
}

/// `/dev/tcp/…` and `/dev/udp/…`: bash opens a socket.
pub fn is_socket(place: &Place) -> bool {
    place.root == Root::Slash
        && matches!(place.parts.as_slice(), [dev, kind, ..] if dev == "dev" && (kind == "tcp" || kind == "udp"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::paths::resolve;

    fn at(raw: &str) -> Place {
        resolve(raw, &Place::workspace())
    }

    #[test]
    fn every_spelling_of_root_and_home_is_catastrophic() {
        for raw in [
            "/",
            "//",
            "/.",
            "/..",
            "/./",
            "~",
            "~/",
            "~/.",
            "$HOME",
            "${HOME}",
            "~root",
            "~/..",
            "/*",
            "/.*",
            "~/*",
            "~/.*",
            "/home/user",
            "/home/user/",
            "C:",
            "C:\\",
            "c:/",
            "%USERPROFILE%",
            "/usr/",
            "/etc/..",
            "/tmp/../etc",
            "%SystemDrive%",
            "%SYSTEMDRIVE%\\",
            "$env:SystemDrive/",
            "%SystemRoot%",
            "%windir%\\System32",
            "\\\\?\\C:\\",
            "\\\\.\\c:",
            "\\?C:",
            "\\\\localhost\\C$\\",
            "\\\\?\\UNC\\server\\d$",
            "/mnt/c",
            "/cygdrive/d/Windows",
            "/proc/self/root",
            "/proc/1/root/etc",
            "/usr/bin",
            "C:/Windows/System32",
            "/Volumes/Macintosh HD",
        ] {
            assert!(catastrophic(&at(raw)), "{raw}");
        }
        for raw in [
            "build",
            "./target",
            "~/projects/x",
            "/tmp/x",
            "..",
            "/home/user/x",
            "/usr/local/lib/x",
            "%TEMP%/x",
            "./C:x",
        ] {
            assert!(!catastrophic(&at(raw)), "{raw}");
        }
    }

    #[test]
    fn protected_places_in_every_spelling() {
        for raw in [
            ".git/config",
            "./.git/config",
            ".GIT/config",
            "sub/../.git",
            ".git//hooks",
            ".gi?/config",
            ".g*/hooks",
            "$PWD/.git",
            "${PWD}/.git/x",
            ".git/",
            "vendor/x/.git/hooks",
        ] {
            assert_eq!(protected(&at(raw)), Some(Protected::Git), "{raw}");
        }
        assert_eq!(protected(&at("./keyless.json")), Some(Protected::Settings));
        for raw in [
            "~/.gitconfig",
            "$HOME/.config/git/config",
            "/etc/gitconfig",
            "$XDG_CONFIG_HOME/git/config",
        ] {
            assert_eq!(
                protected(&at(raw)),
                Some(Protected::GlobalGitConfig),
                "{raw}"
            );
        }
        assert_eq!(protected(&at("$GIT_DIR/hooks/x")), Some(Protected::Git));
        assert_eq!(protected(&at(".agent/x")), Some(Protected::Agent));
        assert_eq!(protected(&at("src/git.rs")), None);
    }

    #[test]
    fn secret_stores() {
        for raw in [
            "~/.ssh/id_rsa",
            "~/.aws/credentials",
            "$HOME/.netrc",
            "~/.config/gh/hosts.yml",
            ".env",
            "sub/.env.local",
            "config/secrets.yml",
            "config/master.key",
            "certs/server.PEM",
            "infra/terraform.tfstate",
            "~/.vault-token",
            "prod.env",
            "/proc/self/environ",
            "/proc/1/environ",
            "~/.s*",
            "~/.*",
            "*.env",
            "/root/.ssh/id_ed25519",
            "~/.docker/config.json",
            "~/.kube/config",
            "~/.git-credentials",
            ".git/config",
            "sub/.git/config",
            ".git/*",
            ".git/modules/x/config",
        ] {
            assert!(secret(&at(raw), false), "{raw}");
        }
        assert!(secret(&at(".git"), true));
        assert!(!secret(&at(".git/HEAD"), false));
        assert!(secret(&at("~"), true));
        assert!(!secret(&at("~"), false));
        assert!(!secret(&at("src/env.rs"), true));
        assert!(!secret(&at("src/keys.rs"), false));
        assert!(!secret(&at("docs/monkey"), false));
    }
}
