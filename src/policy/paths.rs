//! Paths as the shell will see them, normalised before any test: `.` and `..`, `//`, trailing
//! slashes, `~`, `~user`, `$HOME`, `${HOME}`, `$PWD`, Windows drives and `%USERPROFILE%`, and
//! the directory earlier `cd`s on the line moved to. What the places are (catastrophic,
//! protected, secret) is `places`.
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
