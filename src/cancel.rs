//! Ctrl+C: one process-wide flag. The first Ctrl+C asks whatever runs (a command, a wait for a
//! reply) to stop; the turn then stops with KA_CANCELLED and keeps its session, so the next run
//! resumes it. A task that runs for someone else (an MCP client's call) has a flag of its own
//! besides, set for the thread it runs on: the client's cancellation stops that task alone.
//!
//! And what must end with keyless when it leaves at once (a second Ctrl+C, the terminal
//! closed) without unwinding: the browser it launched runs in a process group of its own, which
//! no signal of the terminal reaches, so keyless ends that group itself on the way out.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The flag of the task this thread runs for another party, when it does.
    static TASK: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// The process group of the browser keyless launched (0: none).
static BROWSER_GROUP: AtomicI32 = AtomicI32::new(0);

/// Whether Ctrl+C was pressed since the last [`reset`], or this thread's task was cancelled.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
        || TASK.with(|task| {
            task.borrow()
                .as_ref()
                .is_some_and(|f| f.load(Ordering::SeqCst))
        })
}

/// Makes `flag` this thread's task flag: once it is set, [`requested`] says so on this thread
/// (and only here).
pub fn for_this_thread(flag: Arc<AtomicBool>) {
    TASK.with(|task| *task.borrow_mut() = Some(flag));
}

/// Records a Ctrl+C; returns whether one was already recorded (a second press).
pub fn request() -> bool {
    REQUESTED.swap(true, Ordering::SeqCst)
}

/// Forgets an earlier Ctrl+C (a new turn starts).
pub fn reset() {
    REQUESTED.store(false, Ordering::SeqCst);
}

/// Notes the process group of the browser keyless launched, to end it if keyless leaves at
/// once ([`end_groups`]).
pub fn end_with_keyless(group: i32) {
    BROWSER_GROUP.store(group, Ordering::SeqCst);
}

/// Forgets a group that has ended (the browser was closed or killed).
pub fn forget(group: i32) {
    let _ = BROWSER_GROUP.compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst);
}

/// Ends the noted process group (SIGTERM: the browser saves its profile and quits). Safe in a
/// signal handler: one atomic load and one system call.
pub fn end_groups() {
    #[cfg(unix)]
    {
        let group = BROWSER_GROUP.swap(0, Ordering::SeqCst);
        if group > 0 {
            // SAFETY: killpg has no memory preconditions and is async-signal-safe; the group is
            // the browser's own (it was started as its leader), never keyless's.
            unsafe {
                libc::killpg(group, libc::SIGTERM);
            }
        }
    }
}
