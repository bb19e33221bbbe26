//! Parse-time path checks: the shape of a path, before any file system is consulted.
//!
//! A path the model writes must be relative to the workspace root and use `/`. This check is
//! pure; the executor checks again where the path really resolves (symlinks, `.git`, `.agent`).

/// Why a path is refused, written for the model.
pub type PathProblem = String;

/// Whether a trailing `/` is accepted (it names a folder, so only `mkdir` takes one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrailingSlash {
    Allowed,
    Refused,
}

/// Checks a trimmed, non-empty path and returns it without a trailing `/`.
pub fn check_path(path: &str, trailing: TrailingSlash) -> Result<&str, PathProblem> {
    if let Some(c) = path.chars().find(|c| c.is_control()) {
        return Err(format!(
            "path \"{}\" contains the control character U+{:04X}; paths hold printable characters only",
            path.escape_debug(),
            c as u32
        ));
    }
    if path.contains('\\') {
        return Err(format!(
            "path \"{path}\" uses a backslash; separate folders with / (for example src/main.rs)"
        ));
    }
    if path.starts_with('/') {
        return Err(format!(
            "path \"{path}\" is absolute; write it relative to the workspace root (for example src/main.rs)"
        ));
    }
    let bytes = path.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(format!(
            "path \"{path}\" starts with a drive letter; write it relative to the workspace root"
        ));
    }
    let body = match path.strip_suffix('/') {
        Some(stripped) if trailing == TrailingSlash::Allowed && !stripped.is_empty() => stripped,
        Some(_) => {
            return Err(format!(
                "path \"{path}\" ends with /; name a file (only @@mkdir takes a folder path)"
            ));
        }
        None => path,
    };
    for segment in body.split('/') {
        match segment {
            "" => {
                return Err(format!(
                    "path \"{path}\" has an empty segment (//); write each folder once"
                ));
            }
            "." | ".." => {
                return Err(format!(
                    "path \"{path}\" contains a \"{segment}\" segment; paths are resolved from the workspace root and may not step out of it"
                ));
            }
            "~" => {
                return Err(format!(
                    "path \"{path}\" contains \"~\"; the home folder is not expanded, write a workspace-relative path"
                ));
            }
            _ => {}
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_relative_paths() {
        for ok in [
            "a",
            "src/main.rs",
            "my docs/read me.md",
            "a/.hidden",
            "x..y/z",
            ".github/ci.yml",
        ] {
            assert_eq!(check_path(ok, TrailingSlash::Refused), Ok(ok), "{ok}");
        }
        assert_eq!(check_path("src/", TrailingSlash::Allowed), Ok("src"));
    }

    #[test]
    fn refuses_escaping_and_ambiguous_paths() {
        for bad in [
            "/etc/passwd",
            "C:/x",
            "c:x",
            "a\\b",
            "\\\\server\\share",
            "//server/share",
            "../a",
            "a/../b",
            "./a",
            "a/.",
            "a//b",
            "~/x",
            "a\tb",
            "a\u{7f}",
            "src/",
        ] {
            assert!(check_path(bad, TrailingSlash::Refused).is_err(), "{bad}");
        }
        assert!(check_path("/", TrailingSlash::Allowed).is_err());
    }
}
