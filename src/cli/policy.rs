//! `keyless policy`: explains how a command line is classified and what each mode decides.

use serde::Serialize;

use crate::config::Mode;
use crate::exit::Status;
use crate::policy::{Approval, Lists, Segment, Tier, judge};
use crate::visible::shown;

#[derive(Serialize)]
struct Report<'a> {
    tier: Tier,
    segments: &'a [Segment],
    decision: Decisions,
}

#[derive(Serialize)]
struct Decisions {
    ask: Approval,
    autosafe: Approval,
    auto: Approval,
}

pub fn run(cmdline: &[String], json: bool, shared: &super::args::Shared) -> Status {
    let config = match shared.load_config("policy") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let lists = Lists {
        allow: config.commands.allow_list.clone(),
        deny: config.commands.deny_list.clone(),
    };
    let line = cmdline.join(" ");
    let verdict = judge(&line, &lists);
    let c = &verdict.classification;
    let decision = Decisions {
        ask: verdict.approval(Mode::Ask),
        autosafe: verdict.approval(Mode::AutoSafe),
        auto: verdict.approval(Mode::Auto),
    };
    match super::report::Format::of(json) {
        super::report::Format::Json => {
            let report = Report {
                tier: c.tier,
                segments: &c.segments,
                decision,
            };
            match serde_json::to_string_pretty(&report) {
                Ok(text) => {
                    println!("{text}");
                    Status::Success
                }
                Err(e) => {
                    eprintln!("keyless policy: {e}");
                    Status::Usage
                }
            }
        }
        super::report::Format::Text => {
            println!("{}: {}", c.tier.name(), shown(line.trim()));
            let width = c
                .segments
                .iter()
                .map(|s| s.text.chars().count())
                .max()
                .unwrap_or(0)
                .min(48);
            for s in &c.segments {
                let text: String = s.text.chars().take(48).collect();
                let text = shown(&text);
                println!(
                    "  {:<8}  {text:<width$}  {}",
                    s.tier.name(),
                    shown(&s.reason)
                );
            }
            let name = |a: Approval| match a {
                Approval::Auto => "runs",
                Approval::Confirm => "asks you first",
                Approval::Never => "never runs",
            };
            println!(
                "ask mode: {}; autosafe: {}; auto: {}",
                name(decision.ask),
                name(decision.autosafe),
                name(decision.auto)
            );
            Status::Success
        }
    }
}
