//! `keyless doctor`'s report for people: the site's health, the table of selector keys, the
//! channels and strategies tried, and the problems with what to do about them.

use super::Report;

pub(super) fn print_text(report: &Report) {
    let unchecked = report.selectors.iter().any(|s| s.state == "unchecked");
    println!(
        "{} ({}): {}",
        report.site,
        report.url,
        if report.healthy {
            "healthy"
        } else if report.problems.is_empty() && unchecked {
            "no problem found so far; the turn parts are unchecked (keyless doctor --canary exchanges a message to check them)"
        } else {
            "problems found"
        }
    );
    if let Some(models) = &report.models {
        match &models.offered {
            None => println!(
                "  model picker: none found (no ModelPicker matched, and no control opens a list of models)"
            ),
            Some(offered) => {
                println!(
                    "  model picker: \"{}\" (found by {})",
                    offered.shown, offered.how
                );
                for row in &offered.options {
                    println!(
                        "    {} {}{}{}",
                        if row.checked { "*" } else { "-" },
                        row.label,
                        if row.group.is_empty() {
                            String::new()
                        } else {
                            format!("  [{}]", row.group)
                        },
                        if row.locked { "  (locked)" } else { "" }
                    );
                }
            }
        }
    }
    for s in &report.selectors {
        match &s.matched {
            Some(css) => println!(
                "  {:<16} {} element(s){}  via {css}",
                s.key,
                s.count,
                if s.visible { "" } else { ", hidden" }
            ),
            None => println!(
                "  {:<16} {}",
                s.key,
                match (s.state, s.required) {
                    ("unchecked", _) => "unchecked (no turn on the page yet)",
                    (_, true) => "NOT FOUND (required)",
                    _ => "not found",
                }
            ),
        }
    }
    for i in report.inserts.iter().flatten() {
        println!(
            "  insert via {:<16} {} ({} ms){}",
            i.strategy,
            if i.exact { "exact" } else { "NOT exact" },
            i.ms,
            i.problem
                .as_deref()
                .map(|p| format!(": {p}"))
                .unwrap_or_default()
        );
    }
    if let Some(channels) = &report.canary {
        for c in channels {
            println!(
                "  canary via {:<12} {} ({} ms){}",
                c.channel,
                match c.state {
                    "not exact" => "NOT exact",
                    state => state,
                },
                c.ms,
                if c.channel == "dom" {
                    "; never executed: a reply only read this way is asked again, fenced"
                } else {
                    ""
                }
            );
        }
    }
    println!("  {}", report.sandbox);
    for d in &report.discovered {
        println!("discovered: {d}");
    }
    if let Some(learned) = &report.learned {
        println!(
            "learned: the entry for {} is kept in {} (used before discovery next time); to contribute it to selectors.json:",
            learned.site, learned.path
        );
        let entry = serde_json::to_string_pretty(&learned.entry).unwrap_or_default();
        println!("\"{}\": {entry}", learned.site);
        println!("difference from the built-in entry (+ new, = already there):");
        for line in &learned.difference {
            println!("  {line}");
        }
    }
    for p in &report.problems {
        println!("problem: {p}");
    }
    if let Some(sketch) = &report.sketch {
        println!(
            "A sketch of the page (its structure, without text) is in {sketch}; attach it to a report if the site changed."
        );
    }
}
