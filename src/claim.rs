//! Claims on shared places (a browser profile, a workspace's `.agent/`): a file naming the
//! process that holds it, removed when the claim ends. A claim left by a process that died (a
//! crash, SIGKILL) is taken over; one held by a live process is refused.

use std::path::{Path, PathBuf};

/// A held claim; dropping it gives the place up.
#[derive(Debug)]
pub struct Claim {
    path: PathBuf,
}

impl Claim {
    /// Claims `path` for this process. `Err(pid)` names the live process that holds it.
    pub fn take(path: &Path) -> Result<Claim, i32> {
        let me = std::process::id() as i32;
        let claim = Claim {
            path: path.to_path_buf(),
        };
        // The file appears whole or not at all (a link to a written temporary file), so two
        // keyless starting at once never both see the place free.
        let temporary = path.with_extension(format!("{me}.tmp"));
        if std::fs::write(&temporary, format!("{me}\n")).is_err() {
            // A folder we cannot write to is reported by whatever writes there next.
            return Ok(claim);
        }
        let mut result = Ok(());
        for _ in 0..2 {
            result = match std::fs::hard_link(&temporary, path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match holder(path) {
                    Some(pid) if pid != me => Err(pid),
                    // Ours already, or left by a process that died: take it over.
                    Some(_) => Ok(()),
                    None => {
                        let _ = std::fs::remove_file(path);
                        continue;
                    }
                },
                Err(_) => Ok(()),
            };
            break;
        }
        let _ = std::fs::remove_file(&temporary);
        result.map(|()| claim)
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if holder(&self.path) == Some(std::process::id() as i32) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The live process named in the claim file, if any.
pub fn holder(path: &Path) -> Option<i32> {
    let pid: i32 = std::fs::read_to_string(path).ok()?.trim().parse().ok()?;
    crate::exec::process_alive(pid).then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_holder_is_refused_a_dead_one_taken_over_and_the_claim_ends_with_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claim.pid");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        std::fs::write(&path, format!("{}\n", child.id())).unwrap();
        assert_eq!(Claim::take(&path).unwrap_err(), child.id() as i32);
        child.kill().unwrap();
        child.wait().unwrap();
        let claim = Claim::take(&path).unwrap();
        assert_eq!(holder(&path), Some(std::process::id() as i32));
        drop(claim);
        assert!(!path.exists());
    }
}
