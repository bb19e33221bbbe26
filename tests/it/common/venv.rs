//! A Python virtual environment with pinned packages from PyPI, made once per machine and
//! folder name under the test binary's temporary folder: the real chat front-ends
//! (`tests/frontends/`) and the MCP client (`tests/mcp/`) install into one each.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The virtual environment `name` under `CARGO_TARGET_TMPDIR`, with the packages of
/// `requirements` (a path from the crate's root) installed; made again only when the
/// requirements changed since it was made.
pub fn pinned(name: &str, requirements: &str) -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(requirements);
    let stamp = venv.join("installed-requirements.txt");
    let wanted = fs::read_to_string(&file).unwrap();
    if fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .unwrap();
        assert!(made.success(), "python3 -m venv failed");
        let installed = Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "--disable-pip-version-check", "-r"])
            .arg(&file)
            .status()
            .unwrap();
        assert!(installed.success(), "pip install -r {requirements} failed");
        fs::write(&stamp, wanted).unwrap();
    }
    venv
}
