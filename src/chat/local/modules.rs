//! The npm packages a test serves to the local page (`Script::modules`): installed with
//! `npm ci` from the committed lock file when missing.

use std::path::Path;

/// The ProseMirror packages for [`Script::modules`]: `folder`'s `node_modules`, installed with
/// `npm ci` from its lock file when missing (the tests and benchmarks use
/// `tests/prosemirror/`).
pub fn prosemirror_modules(folder: &Path) -> Result<std::path::PathBuf, String> {
    npm_modules(folder, "prosemirror-view/dist/index.js")
}

/// Every editor's and renderer's packages for [`Script::modules`] (`tests/editors/`), installed
/// with `npm ci` from its lock file when missing.
pub fn editor_modules(folder: &Path) -> Result<std::path::PathBuf, String> {
    npm_modules(folder, "@codemirror/view/package.json")
}

/// `folder`'s `node_modules`, installed with `npm ci` when `probe` is missing from it.
fn npm_modules(folder: &Path, probe: &str) -> Result<std::path::PathBuf, String> {
    let modules = folder.join("node_modules");
    if modules.join(probe).is_file() {
        return Ok(modules);
    }
    let status = std::process::Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(folder)
        .status()
        .map_err(|e| {
            format!("cannot run npm to install the test's editor packages ({e}); on Debian: apt-get install npm")
        })?;
    if status.success() {
        Ok(modules)
    } else {
        Err(format!("npm ci failed in {} ({status})", folder.display()))
    }
}
