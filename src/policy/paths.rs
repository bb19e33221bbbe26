//! Paths as the shell will see them, normalised before any test: `.` and `..`, `//`, trailing
//! slashes, `~`, `~user`, `$HOME`, `${HOME}`, `$PWD`, Windows drives and `%USERPROFILE%`, and
//! the directory earlier `cd`s on the line moved to. On top of that: which places are
//! catastrophic to delete, which are keyless's or git's own, which hold secrets.
//!
//! It never looks at the file system: a glob is judged by what it could match.

/// Where a path starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// The workspace (relative paths, when no `cd` moved elsewhere).
    Workspace,
    /// `/`.
    Slash,
    /// A home folder (`~`, `$HOME`, `~user`, `%USERPROFILE%`).
    Home,
    /// A Windows drive (`C:`).
    Drive,
    /// Computed at run time (`$DIR/x`, `$(pwd)/x`).
    Unknown,
}

/// A normalised path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub root: Root,
    /// How many `..` climbed above the workspace.
    pub up: usize,
    pub parts: Vec<String>,
}

impl Place {
    pub fn workspace() -> Place {
        Place {
            root: Root::Workspace,
            up: 0,
            parts: Vec::new(),
        }
    }

    /// Outside the workspace: absolute, in a home, above the workspace or unknown.
    pub fn outside(&self) -> bool {
        self.root != Root::Workspace || self.up > 0
    }

    fn push(&mut self, part: &str) {
        match part {
            "" | "." => {}
            ".." => {
                if self.parts.pop().is_none() {
                    match self.root {
                        Root::Workspace => self.up += 1,
                        // `~/..` holds every home.
                        Root::Home => {
                            self.root = Root::Slash;
                            self.parts = vec!["home".to_string()];
                        }
                        _ => {}
                    }
                }
            }
            _ => self.parts.push(part.to_string()),
        }
    }
}

/// Normalises `raw` as seen from `cwd`.
pub fn resolve(raw: &str, cwd: &Place) -> Place {
    let path = raw.replace('\\', "/");
    let (mut place, rest): (Place, &str) = if let Some(rest) = home_prefix(&path) {
        (root(Root::Home), rest)
    } else if let Some(rest) = strip_any(&path, &["$PWD", "${PWD}", "$(pwd)", "`pwd`"]) {
        (cwd.clone(), rest)
    } else if let Some(rest) = path.strip_prefix('/') {
        (root(Root::Slash), rest)
    } else if is_drive(&path) {
        (root(Root::Drive), path[2..].trim_start_matches('/'))
    } else if path.starts_with(['$', '%', '`']) {
        (
            root(Root::Unknown),
            path.split_once('/').map_or("", |(_, r)| r),
        )
    } else {
        (cwd.clone(), path.as_str())
    };
    for part in rest.split('/') {
        place.push(part);
    }
    place
}

fn root(root: Root) -> Place {
    Place {
        root,
        up: 0,
        parts: Vec::new(),
    }
}

fn strip_any<'a>(path: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| {
        path.strip_prefix(p)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// The rest of a path that starts in a home folder.
fn home_prefix(path: &str) -> Option<&str> {
    if let Some(rest) = strip_any(
        path,
        &[
            "$HOME",
            "${HOME}",
            "%USERPROFILE%",
            "%HOMEPATH%",
            "$env:USERPROFILE",
            "$env:HOME",
            "${HOME:-}",
        ],
    ) {
        return Some(rest);
    }
    // `~` and `~user`.
    let rest = path.strip_prefix('~')?;
    let end = rest.find('/').unwrap_or(rest.len());
    let user = &rest[..end];
    user.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .then_some(&rest[end..])
}

fn is_drive(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && !path.contains("://")
}

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
    "snap",
    "nix",
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
            [top, _] => ["home", "Users", "root"]
                .iter()
                .any(|s| s.eq_ignore_ascii_case(top)),
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

pub fn is_glob(part: &str) -> bool {
    part.contains(['*', '?', '['])
}

/// A shell glob over one path component, case-insensitive; a leading dot must be matched by a
/// literal dot, as the shell does.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let n: Vec<char> = name.to_lowercase().chars().collect();
    if n.first() == Some(&'.') && p.first() != Some(&'.') {
        return false;
    }
    glob_at(&p, &n)
}

fn glob_at(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len()).any(|i| glob_at(&p[1..], &n[i..])),
        Some('?') => !n.is_empty() && glob_at(&p[1..], &n[1..]),
        Some('[') => {
            let Some(close) = p.iter().skip(2).position(|c| *c == ']').map(|i| i + 2) else {
                return n.first() == Some(&'[') && glob_at(&p[1..], &n[1..]);
            };
            let Some(c) = n.first() else { return false };
            let class = &p[1..close];
            let (negate, class) = match class.first() {
                Some('!' | '^') => (true, &class[1..]),
                _ => (false, class),
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == '-' {
                    hit |= class[i] <= *c && *c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == *c;
                    i += 1;
                }
            }
            hit != negate && glob_at(&p[close + 1..], &n[1..])
        }
        Some(c) => n.first() == Some(c) && glob_at(&p[1..], &n[1..]),
    }
}

/// A component that is, or as a glob could be, `name` (case-insensitive: macOS and Windows).
pub fn component_is(part: &str, name: &str) -> bool {
    part.eq_ignore_ascii_case(name) || is_glob(part) && glob_matches(part, name)
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
    None
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
];

/// Whether reading `place` may read a secret store. `recursive` readers also count a folder
/// that contains one (a home, `/`).
pub fn secret(place: &Place, recursive: bool) -> bool {
    let parts = &place.parts;
    let name_is_secret = |p: &str| {
        SECRET_FILES.iter().any(|s| component_is(p, s))
            || ["id_rsa", "id_ed25519", "id_ecdsa", ".env."]
                .iter()
                .any(|s| p.to_ascii_lowercase().starts_with(s))
            || p.to_ascii_lowercase().ends_with(".env")
            || is_glob(p) && glob_matches(p, "x.env")
    };
    if parts.iter().any(|p| {
        SECRET_DIRS.iter().any(|s| component_is(p, s)) || p.eq_ignore_ascii_case(".config")
    }) && (place.root == Root::Home || parts.iter().any(|p| SECRET_DIRS.contains(&p.as_str())))
    {
        // `~/.config` holds gh, gcloud and other tokens.
        return true;
    }
    if parts.iter().any(|p| name_is_secret(p)) {
        return true;
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

/// `/dev/tcp/…` and `/dev/udp/…`: bash opens a socket.
pub fn is_socket(place: &Place) -> bool {
    place.root == Root::Slash
        && matches!(place.parts.as_slice(), [dev, kind, ..] if dev == "dev" && (kind == "tcp" || kind == "udp"))
}

/// The pieces of an argument that may be paths: the whole, what follows `=`, and what follows
/// a one-letter option (`-o.git/x`).
pub fn candidates(arg: &str) -> impl Iterator<Item = &str> {
    let after_eq = arg.split_once('=').map(|(_, v)| v);
    let after_short = (arg.starts_with('-') && !arg.starts_with("--"))
        .then(|| arg.get(2..))
        .flatten()
        .filter(|rest| !rest.is_empty());
    std::iter::once(arg).chain(after_eq).chain(after_short)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            assert!(secret(&at(raw), false), "{raw}");
        }
        assert!(secret(&at("~"), true));
        assert!(!secret(&at("~"), false));
        assert!(!secret(&at("src/env.rs"), true));
    }
}
