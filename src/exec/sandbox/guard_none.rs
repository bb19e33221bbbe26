//! Where keyless has no sandbox (Windows), nothing is fingerprinted: the guard watches nothing,
//! and the containment line says so (`docs/sandbox.md`).

use std::path::{Path, PathBuf};

/// Watches nothing.
#[derive(Debug)]
pub struct Guard;

impl Guard {
    pub fn none() -> Guard {
        Guard
    }

    pub fn creation(_: &Path) -> Guard {
        Guard
    }

    pub fn fingerprint(_: &Path, _: &[PathBuf]) -> Guard {
        Guard
    }

    pub fn check(self) -> Vec<String> {
        Vec::new()
    }
}
