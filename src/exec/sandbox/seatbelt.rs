//! macOS: the sandbox as a Seatbelt profile run through `/usr/bin/sandbox-exec -p PROFILE`.
//!
//! Untested: no Mac has run it (see `docs/sandbox.md`). The profile is built by a pure function
//! that compiles and is unit-tested on every platform; only launching it is macOS-only.
//!
//! Shape: everything is allowed (as a user's shell is) except writing outside the writable
//! folders, writing the protected paths (also where they do not exist yet: the rules are by
//! path, not by file), reading the secret stores, the network when it is off, and signals to
//! processes outside the sandbox. Each rule is written as one `require-all`/`require-not`
//! expression, so nothing depends on the order in which Seatbelt weighs rules.

use std::path::{Path, PathBuf};

/// What the profile allows.
pub struct Profile<'a> {
    pub root: &'a Path,
    pub writable: &'a [PathBuf],
    pub hidden: &'a [PathBuf],
    pub network: bool,
}

/// The Seatbelt profile (SBPL) for `profile`. Paths should be canonical (`/private/tmp`, not
/// `/tmp`): Seatbelt matches the resolved path.
pub fn render(profile: &Profile<'_>) -> String {
    let mut out = String::from("(version 1)\n(allow default)\n");
    let writable: Vec<String> = profile
        .writable
        .iter()
        .map(|p| format!("(subpath {})", quote(p)))
        .chain(
            ["/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"]
                .iter()
                .map(|d| format!("(literal {})", quote(Path::new(d)))),
        )
        .collect();
    let root = profile.root;
    let protected = [
        format!("(subpath {})", quote(&root.join(".git"))),
        format!("(subpath {})", quote(&root.join(".agent"))),
        format!("(literal {})", quote(&root.join("keyless.json"))),
        // Any nested repository, existing or not.
        format!(
            "(regex #\"^{}/(.*/)?\\.git(/|$)\")",
            regex_escape(&root.to_string_lossy())
        ),
    ];
    out.push_str(&format!(
        "(deny file-write* (require-not (require-any {})))\n",
        writable.join(" ")
    ));
    out.push_str(&format!(
        "(deny file-write* (require-any {}))\n",
        protected.join(" ")
    ));
    if !profile.hidden.is_empty() {
        let hidden: Vec<String> = profile
            .hidden
            .iter()
            .map(|p| format!("(subpath {})", quote(p)))
            .collect();
        out.push_str(&format!(
            "(deny file-read* (require-any {}))\n",
            hidden.join(" ")
        ));
    }
    if !profile.network {
        out.push_str("(deny network-outbound (remote ip))\n(deny network-bind (local ip))\n");
    }
    out.push_str("(deny signal (require-not (target same-sandbox)))\n");
    out
}

/// The command that runs `program args…` under the profile.
#[cfg(target_os = "macos")]
pub fn command(profile: &Profile<'_>, program: &str, args: &[&str]) -> std::process::Command {
    // Only the system's copy: a `sandbox-exec` earlier on PATH could be anything.
    let mut command = std::process::Command::new("/usr/bin/sandbox-exec");
    command
        .arg("-p")
        .arg(render(profile))
        .arg(program)
        .args(args);
    command
}

fn quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#\"".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_denies_writes_outside_and_into_protected_paths() {
        let root = PathBuf::from("/Users/me/my \"proj\"");
        let tmp = PathBuf::from("/private/var/folders/x/T/keyless-batch-1");
        let hidden = [PathBuf::from("/Users/me/.ssh")];
        let text = render(&Profile {
            root: &root,
            writable: &[root.clone(), tmp],
            hidden: &hidden,
            network: false,
        });
        assert!(text.starts_with("(version 1)\n(allow default)\n"));
        assert!(text.contains(
            "(deny file-write* (require-not (require-any (subpath \"/Users/me/my \\\"proj\\\"\") (subpath \"/private/var/folders/x/T/keyless-batch-1\")"
        ), "{text}");
        assert!(
            text.contains("(subpath \"/Users/me/my \\\"proj\\\"/.git\")"),
            "{text}"
        );
        assert!(
            text.contains("(literal \"/Users/me/my \\\"proj\\\"/keyless.json\")"),
            "{text}"
        );
        assert!(
            text.contains("(deny file-read* (require-any (subpath \"/Users/me/.ssh\")))"),
            "{text}"
        );
        assert!(
            text.contains("(deny network-outbound (remote ip))"),
            "{text}"
        );
        let open = render(&Profile {
            root: &root,
            writable: &[],
            hidden: &[],
            network: true,
        });
        assert!(!open.contains("network"), "{open}");
        assert!(!open.contains("file-read*"), "{open}");
    }
}
