//! Reading the workspace's `.env`-style files for the redactor: their secret values become known
//! values, masked wherever they appear in what keyless sends.
//!
//! Which files and which values is [`crate::redact::dotenv`]'s (pure) decision; this only reads,
//! through the workspace's one resolver ([`Reach::Redactor`]: a hidden `.env` is read too, its
//! values may be in git's history). What it does not do: look in subfolders, follow a link (a
//! `.env` a command made a link to `~/.ssh` or another file is not read), or read anything but
//! regular files (a `.env` folder is a Python virtual environment).

use crate::redact::KnownValue;
use crate::redact::dotenv::{is_dotenv_file, secret_values};

use super::{Reach, Workspace};

/// A `.env`-style file is read up to this size: real ones hold a few kilobytes, and a large file
/// that happens to be named `*.env` is data, which would be read again before every command's
/// result.
const MAX_DOTENV_BYTES: u64 = 256 * 1024;

impl Workspace {
    /// The secrets of the `.env`-style files at the workspace root, in file-name order, each
    /// tagged with its file and key. A file that cannot be read is skipped.
    pub fn dotenv_secrets(&self) -> Vec<KnownValue> {
        let Ok(entries) = self.root_entries() else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .into_iter()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| is_dotenv_file(name))
            .collect();
        names.sort_unstable();
        let mut known = Vec::new();
        for name in names {
            let Some(text) = self.read_dotenv(&name) else {
                continue;
            };
            known.extend(
                secret_values(&text)
                    .into_iter()
                    .map(|secret| KnownValue::file(&name, secret.key, secret.value)),
            );
        }
        known
    }

    /// The text of the root file `name` when it is a regular file (never through a link), up
    /// to [`MAX_DOTENV_BYTES`].
    fn read_dotenv(&self, name: &str) -> Option<String> {
        let place = self.place(name, Reach::Redactor).ok()?;
        let (bytes, _) = place.read(Some(MAX_DOTENV_BYTES)).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Origin;

    #[test]
    fn the_root_dotenv_files_give_their_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".env"), "API_KEY=from-dot-env-1\nDEBUG=true\n").unwrap();
        std::fs::write(
            root.join(".env.local"),
            "export SESSION_SECRET='from-local-2'\n",
        )
        .unwrap();
        std::fs::write(root.join(".env.example"), "API_KEY=placeholder-value\n").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/.env"), "API_KEY=in-a-subfolder\n").unwrap();
        // A virtual environment named `.env.venv` is a folder, not a file.
        std::fs::create_dir(root.join(".env.venv")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x"), "API_KEY=outside-the-ws\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path().join("x"), root.join("linked.env")).unwrap();
        let ws = Workspace::open(root).unwrap();
        let found: Vec<(Origin, String)> = ws
            .dotenv_secrets()
            .into_iter()
            .map(|k| (k.origin, k.value))
            .collect();
        let file = |file: &str, key: &str| Origin::File {
            file: file.into(),
            key: key.into(),
        };
        assert_eq!(
            found,
            [
                (file(".env", "API_KEY"), "from-dot-env-1".to_string()),
                (
                    file(".env.local", "SESSION_SECRET"),
                    "from-local-2".to_string()
                ),
            ]
        );
    }
}
