//! Ctrl+C: one process-wide flag. The first Ctrl+C asks whatever runs (a command, a wait for a
//! reply) to stop; the turn then stops with KA_CANCELLED and keeps its session, so the next run
//! resumes it.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl+C was pressed since the last [`reset`].
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Records a Ctrl+C; returns whether one was already recorded (a second press).
pub fn request() -> bool {
    REQUESTED.swap(true, Ordering::SeqCst)
}

/// Forgets an earlier Ctrl+C (a new turn starts).
pub fn reset() {
    REQUESTED.store(false, Ordering::SeqCst);
}
