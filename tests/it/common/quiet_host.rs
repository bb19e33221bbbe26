//! A host with no one at it, for tests and benchmarks that only touch files: it shows nothing,
//! answers no question, approves nothing and runs nothing. The benchmarks include this file
//! with `#[path = "../tests/it/common/quiet_host.rs"] mod quiet_host;`, so it uses nothing else
//! of the test binary.

use std::time::Duration;

use keyless::batch::{Attempt, Confirmation, Outcome, Person, Runner};

pub struct Quiet;

impl Person for Quiet {
    fn say(&mut self, _: &str) {}
    fn ask(&mut self, _: &str) -> Option<String> {
        None
    }
    fn confirm(&mut self, _: &Confirmation) -> bool {
        false
    }
}

impl Runner for Quiet {
    fn contained(&mut self, _: &str, _: Duration, _: keyless::config::Mode) -> Attempt {
        Outcome::default().into()
    }
    fn unconfined(&mut self, _: &str, _: Duration) -> Outcome {
        Outcome::default()
    }
    fn commit(&mut self, _: &str) -> Outcome {
        Outcome::default()
    }
}
