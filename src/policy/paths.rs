//! Paths as the shell will see them, normalised before any test: `.` and `..`, `//`, trailing
//! slashes, `~`, `~user`, `$HOME`, `${HOME}`, `$PWD`, Windows drives and `%USERPROFILE%`, and
//! the directory earlier `cd`s on the line moved to. What the places are (catastrophic,
//! protected, secret) is `places`.
//!
//! It never looks at the file system: a glob is judged by what it could match.

use std::borrow::Cow;

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

    pub(super) fn push(&mut self, part: &str) {
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

/// Variables and Windows names that stand for a place, matched in any case (Windows' are
/// case-insensitive): the root they start from and the folders under it.
const PLACE_VARIABLES: &[(&str, Root, &[&str])] = &[
    ("%SystemDrive%", Root::Drive, &[]),
    ("$env:SystemDrive", Root::Drive, &[]),
    ("${env:SystemDrive}", Root::Drive, &[]),
    ("%HOMEDRIVE%%HOMEPATH%", Root::Home, &[]),
    ("%HOMEDRIVE%", Root::Drive, &[]),
    ("$env:HOMEDRIVE", Root::Drive, &[]),
    ("%SystemRoot%", Root::Drive, &["Windows"]),
    ("%windir%", Root::Drive, &["Windows"]),
    ("$env:SystemRoot", Root::Drive, &["Windows"]),
    ("$env:windir", Root::Drive, &["Windows"]),
    ("${env:SystemRoot}", Root::Drive, &["Windows"]),
    ("${env:windir}", Root::Drive, &["Windows"]),
    ("%ProgramFiles(x86)%", Root::Drive, &["Program Files (x86)"]),
    ("%ProgramFiles%", Root::Drive, &["Program Files"]),
    ("%ProgramW6432%", Root::Drive, &["Program Files"]),
    ("$env:ProgramFiles", Root::Drive, &["Program Files"]),
    ("%ProgramData%", Root::Drive, &["ProgramData"]),
    ("$env:ProgramData", Root::Drive, &["ProgramData"]),
    ("%APPDATA%", Root::Home, &["AppData", "Roaming"]),
    ("%LOCALAPPDATA%", Root::Home, &["AppData", "Local"]),
    ("$env:APPDATA", Root::Home, &["AppData", "Roaming"]),
    ("$env:LOCALAPPDATA", Root::Home, &["AppData", "Local"]),
    ("${env:USERPROFILE}", Root::Home, &[]),
    ("$XDG_CONFIG_HOME", Root::Home, &[".config"]),
    ("${XDG_CONFIG_HOME}", Root::Home, &[".config"]),
];

/// Normalises `raw` as seen from `cwd`.
pub fn resolve(raw: &str, cwd: &Place) -> Place {
    let path: Cow<str> = if raw.contains('\\') {
        Cow::Owned(raw.replace('\\', "/"))
    } else {
        Cow::Borrowed(raw)
    };
    let (mut place, rest): (Place, &str) = if let Some((place, rest)) = windows_namespace(&path) {
        (place, rest)
    } else if let Some((place, rest)) = place_variable(&path) {
        (place, rest)
    } else if let Some(rest) = home_prefix(&path) {
        (root(Root::Home), rest)
    } else if let Some(rest) = strip_any(&path, &["$PWD", "${PWD}", "$(pwd)", "`pwd`", "~+"]) {
        (cwd.clone(), rest)
    } else if let Some(rest) = strip_any(&path, &["$GIT_DIR", "${GIT_DIR}", "$GIT_COMMON_DIR"]) {
        // Unset, git finds `.git`; keyless never sets it, and a line that does is judged by
        // the value it gives.
        let mut git = cwd.clone();
        git.push(".git");
        (git, rest)
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
        (cwd.clone(), &*path)
    };
    for part in rest.split('/') {
        place.push(part);
    }
    through_links(place, cwd)
}

/// A variable or Windows name for a place at the start of `path`.
fn place_variable(path: &str) -> Option<(Place, &str)> {
    // Every name starts with `$` or `%`.
    if !path.starts_with(['$', '%']) {
        return None;
    }
    PLACE_VARIABLES.iter().find_map(|(name, root, parts)| {
        let head = path.get(..name.len())?;
        let rest = &path[name.len()..];
        // After `%NAME%` the separator may be gone (bash reads `%SystemRoot%\\System32` as
        // `%SystemRoot%System32`): what follows is still below it.
        let separated = rest.is_empty() || rest.starts_with('/') || name.ends_with('%');
        (head.eq_ignore_ascii_case(name) && separated).then(|| {
            let place = Place {
                root: *root,
                up: 0,
                parts: parts.iter().map(|p| p.to_string()).collect(),
            };
            (place, rest)
        })
    })
}

/// Windows' namespaces: `\\?\C:\`, `\\.\C:\`, `\\?\UNC\host\share`, and an administrative
/// share (`\\host\C$\`) are the drive itself; what bash leaves of them unquoted (`\?C:`)
/// too.
fn windows_namespace(path: &str) -> Option<(Place, &str)> {
    let trimmed = path.trim_start_matches('/');
    let slashes = path.len() - trimmed.len();
    if let Some(rest) = trimmed.strip_prefix(['?', '.']) {
        let rest = rest.trim_start_matches('/');
        if is_drive(rest) && rest[2..].chars().next().is_none_or(|c| c == '/') {
            return Some((root(Root::Drive), &rest[2..]));
        }
        if let Some(unc) = rest.get(..4).filter(|p| p.eq_ignore_ascii_case("UNC/")) {
            return admin_share(&rest[unc.len()..]);
        }
        return None;
    }
    if slashes == 2 {
        return admin_share(trimmed);
    }
    None
}

/// `host/C$/rest`: the drive's root, and the rest.
fn admin_share(path: &str) -> Option<(Place, &str)> {
    let mut parts = path.splitn(3, '/');
    let _host = parts.next()?;
    let share = parts.next()?.as_bytes();
    (share.len() == 2 && share[0].is_ascii_alphabetic() && share[1] == b'$')
        .then(|| (root(Root::Drive), parts.next().unwrap_or("")))
}

/// Whether `place` is a process's own entry (`/proc/<pid>/<entry>`, `/proc/self/<entry>`).
pub(super) fn proc_entry(place: &Place) -> Option<&str> {
    match place.parts.as_slice() {
        [proc, pid, entry, ..]
            if place.root == Root::Slash
                && proc == "proc"
                && (matches!(pid.as_str(), "self" | "thread-self" | "$$")
                    || pid.bytes().all(|b| b.is_ascii_digit())) =>
        {
            Some(entry)
        }
        _ => None,
    }
}

/// Steps through the links every such system has: `/proc/<pid>/root` is `/`, `/proc/<pid>/cwd`
/// the shell's folder, Debian's `/usr/bin/X11` is `/usr/bin`; WSL's `/mnt/c`, Cygwin's
/// `/cygdrive/c` and MSYS's `/c` are the drive.
fn through_links(mut place: Place, cwd: &Place) -> Place {
    loop {
        match proc_entry(&place) {
            Some("root") => {
                place.parts.drain(..3);
            }
            Some("cwd") => {
                let rest: Vec<String> = place.parts.drain(3..).collect();
                place = cwd.clone();
                place.parts.extend(rest);
            }
            _ => break,
        }
    }
    if place.root != Root::Slash {
        return place;
    }
    while place.parts.len() > 3 && place.parts[..3] == ["usr", "bin", "X11"] {
        place.parts.remove(2);
    }
    let letter = |p: &String| p.len() == 1 && p.as_bytes()[0].is_ascii_alphabetic();
    let drive_at = match place.parts.as_slice() {
        [top, drive, ..] if (top == "mnt" || top == "cygdrive") && letter(drive) => Some(2),
        [drive, ..] if letter(drive) => Some(1),
        _ => None,
    };
    if let Some(at) = drive_at {
        place.root = Root::Drive;
        place.parts.drain(..at);
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
    // Every spelling of a home starts with `$`, `%` or `~`.
    if !path.starts_with(['$', '%', '~']) {
        return None;
    }
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
    // `${HOME:?message}`, `${HOME:-/x}`, `${HOME-}`: HOME when it is set, which it is.
    if let Some(braced) = path.strip_prefix("${HOME")
        && braced.starts_with([':', '-', '?', '=', '+'])
        && !braced.starts_with(":+")
        && !braced.starts_with('+')
        && let Some(end) = braced.find('}')
    {
        return Some(&braced[end + 1..]).filter(|r| r.is_empty() || r.starts_with('/'));
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
