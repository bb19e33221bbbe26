//! The command policy: every `@@runcommand` line gets a risk tier, and each mode a decision.
//!
//! Architecture Invariant: this module is pure. It reads the command line as text and never
//! looks at the file system, the environment or the clock, so `keyless policy` explains exactly
//! what a batch will decide.

mod builders;
pub mod classify;
mod command;
mod compilers;
mod decode;
mod endless;
mod env;
mod files;
mod find;
mod flow;
mod git;
mod git_config;
mod inline;
mod interp;
pub(crate) mod lex;
mod lookup;
mod machine;
mod names;
mod options;
mod outputs;
mod paths;
mod places;
mod privilege;
mod programs;
mod python;
mod readers;
mod risks;
mod text;
mod tools;
mod vocab;
mod wrappers;

pub use classify::classify;
pub use vocab::{Classification, ReasonKind, Segment, Tier};

use crate::config::Mode;

/// What happens to a command line in a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    /// Runs without asking.
    Auto,
    /// Runs only after the user says yes.
    Confirm,
    /// Never runs.
    Never,
}

/// The specification's table: tier × mode → approval. `allow_listed` means every Execute-tier
/// segment matched `Commands.AllowList`.
pub fn decide(tier: Tier, mode: Mode, allow_listed: bool) -> Approval {
    match (tier, mode) {
        (Tier::Denied, _) => Approval::Never,
        (Tier::ReadOnly | Tier::Build, _) => Approval::Auto,
        (_, Mode::Auto) => Approval::Auto,
        (Tier::Execute, Mode::AutoSafe) if allow_listed => Approval::Auto,
        _ => Approval::Confirm,
    }
}

/// `Commands.AllowList` and `Commands.DenyList`: glob patterns (`*` matches anything, spaces
/// included) matched against each segment's text with runs of spaces folded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lists {
    pub allow: Vec<String>,
    pub deny: Vec<String>,
}

/// A classification with the configured lists applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub classification: Classification,
    /// Every Execute-tier segment is on the allow list.
    pub allow_listed: bool,
}

impl Verdict {
    pub fn approval(&self, mode: Mode) -> Approval {
        decide(self.classification.tier, mode, self.allow_listed)
    }
}

/// Classifies a command line and applies the allow and deny lists.
pub fn judge(line: &str, lists: &Lists) -> Verdict {
    let mut classification = classify(line);
    for segment in &mut classification.segments {
        if let Some(pattern) = lists.deny.iter().find(|p| glob(p, &segment.text)) {
            segment.tier = Tier::Denied;
            segment.kind = ReasonKind::DenyList;
            segment.reason = format!("matches Commands.DenyList pattern \"{pattern}\"");
        }
    }
    if lists.deny.iter().any(|p| glob(p, line))
        && classification
            .segments
            .iter()
            .all(|s| s.tier != Tier::Denied)
    {
        classification.segments.push(Segment {
            text: line.trim().to_string(),
            tier: Tier::Denied,
            reason: "the whole line matches Commands.DenyList".to_string(),
            kind: ReasonKind::DenyList,
        });
    }
    classification.tier = classification
        .segments
        .iter()
        .map(|s| s.tier)
        .max()
        .unwrap_or(Tier::Risky);
    let execute: Vec<&Segment> = classification
        .segments
        .iter()
        .filter(|s| s.tier == Tier::Execute)
        .collect();
    let allow_listed = !execute.is_empty()
        && execute
            .iter()
            .all(|s| lists.allow.iter().any(|p| glob(p, &s.text)));
    Verdict {
        classification,
        allow_listed,
    }
}

pub use crate::glob::glob;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_follow_the_table() {
        use Approval::*;
        let table = [
            (Tier::ReadOnly, [Auto, Auto, Auto]),
            (Tier::Build, [Auto, Auto, Auto]),
            (Tier::Execute, [Confirm, Confirm, Auto]),
            (Tier::Risky, [Confirm, Confirm, Auto]),
            (Tier::Denied, [Never, Never, Never]),
        ];
        for (tier, want) in table {
            let got = [Mode::Ask, Mode::AutoSafe, Mode::Auto].map(|m| decide(tier, m, false));
            assert_eq!(got, want, "{tier:?}");
        }
        assert_eq!(decide(Tier::Execute, Mode::AutoSafe, true), Auto);
        assert_eq!(decide(Tier::Risky, Mode::AutoSafe, true), Confirm);
        assert_eq!(decide(Tier::Execute, Mode::Ask, true), Confirm);
    }

    #[test]
    fn glob_patterns() {
        assert!(glob("cargo test*", "cargo test --all"));
        assert!(glob("cargo test*", "cargo   test"));
        assert!(glob("*deploy*", "make deploy prod"));
        assert!(glob("npm run build", "npm run build"));
        assert!(!glob("npm run build", "npm run build && rm -rf x"));
        assert!(!glob("cargo test*", "cargo build"));
        assert!(glob("a*b*c", "a-b-b-c"));
        assert!(!glob("a*b*c", "a-c"));
    }

    #[test]
    fn lists_change_the_verdict() {
        let lists = Lists {
            allow: vec!["cargo test*".to_string()],
            deny: vec!["cargo publish*".to_string(), "make deploy*".to_string()],
        };
        let v = judge("cargo test --all", &lists);
        assert!(v.allow_listed);
        assert_eq!(v.approval(Mode::AutoSafe), Approval::Auto);
        let v = judge("cargo test && cargo run", &lists);
        assert!(!v.allow_listed, "every Execute segment must be allowed");
        let v = judge("cargo build && make deploy prod", &lists);
        assert_eq!(v.classification.tier, Tier::Denied);
        assert_eq!(v.approval(Mode::Auto), Approval::Never);
    }
}
