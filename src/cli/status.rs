//! `keyless status`: what the workspace's `.agent/` says, without opening a browser: the saved
//! session and where its turn stands (what `--resume` would do), whether a keyless is working
//! here now, and the batch `keyless undo` would put back.

use crate::app::status::Report;
use crate::exit::Status;
use crate::turn::record::{InFlight, MessageKind};
use crate::workspace::Workspace;

use super::args::Shared;

pub fn run(shared: &Shared, json: bool) -> Status {
    let path = shared.workspace.clone().unwrap_or_else(|| ".".into());
    let ws = match Workspace::open(&path) {
        Ok(ws) => ws,
        Err(f) => {
            eprintln!("keyless status: {}", f.reason);
            return Status::Usage;
        }
    };
    // A configuration keyless cannot read is reported as every other command reports it: the
    // settings shown must be the ones a run would use.
    let config = match shared.load_config("status") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let report = crate::app::status::status(&shared.choices(), &config, &ws);
    super::report::Format::of(json).give(
        || {
            println!(
                "{}",
                serde_json::to_string(&report).unwrap_or_else(|_| "{}".into())
            )
        },
        || print!("{}", text(&report)),
    );
    Status::Success
}

/// The proxy's allow-list, its entries grouped by where they came from.
fn allow_list(report: &Report) -> String {
    let mut out = match report.network {
        "proxy" => "network: only through keyless's proxy, which reaches",
        "off" => {
            "network: off in this mode; with it on (ask mode, or Sandbox.Network), keyless's proxy reaches"
        }
        _ => {
            "network: the machine's, unfiltered (see above); where the world has its proxy, it reaches"
        }
    }
    .to_string();
    if report.network_allow.is_empty() {
        out.push_str(" no host: its allow-list is empty (Sandbox.NetworkAllowOnly)\n");
        return out;
    }
    out.push_str(
        " these hosts, never this machine, a cloud metadata service or an internal address the list does not name (Sandbox.NetworkAllow in keyless.json adds, Sandbox.NetworkAllowOnly replaces):\n",
    );
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for entry in &report.network_allow {
        match groups.last_mut() {
            Some((from, hosts)) if *from == entry.from => hosts.push(&entry.host),
            _ => groups.push((&entry.from, vec![&entry.host])),
        }
    }
    for (from, hosts) in groups {
        out.push_str(&format!("  {from}: {}\n", hosts.join(", ")));
    }
    out
}

fn text(report: &Report) -> String {
    let mut out = format!("workspace: {}\n", report.workspace);
    out.push_str(&report.sandbox);
    out.push('\n');
    out.push_str(&allow_list(report));
    if let Some(pid) = report.running_pid {
        out.push_str(&format!("now: a keyless (process {pid}) is working here\n"));
    }
    match &report.session {
        None => out.push_str("session: none; the next `keyless run \"task\"` starts a new chat\n"),
        Some(s) => {
            out.push_str(&format!(
                "chat: {} on {} (turn {}, batch {})\n",
                s.chat_url.as_deref().unwrap_or("(no address yet)"),
                s.site,
                s.turn,
                s.batch
            ));
            if let Some(task) = &s.task {
                out.push_str(&format!("task: {task}\n"));
            }
            if let Some(until) = &s.until {
                out.push_str(&format!(
                    "done-check: {until} (run after @@done; --resume keeps it)\n"
                ));
            }
            if !s.attachments.is_empty() {
                let files: Vec<String> = s
                    .attachments
                    .iter()
                    .map(|a| {
                        format!(
                            "{} ({} bytes, {}{})",
                            crate::visible::shown(&a.name),
                            a.size,
                            how(a.how),
                            if a.redacted { ", redacted" } else { "" }
                        )
                    })
                    .collect();
                out.push_str(&format!("attached to the task: {}\n", files.join(", ")));
            }
            if let Some(model) = &s.model {
                match &s.effort {
                    Some(effort) => out.push_str(&format!(
                        "model: {model} ({effort} effort) answered the last reply\n"
                    )),
                    None => out.push_str(&format!("model: {model} answered the last reply\n")),
                }
            }
            if let Some(trouble) = &s.trouble {
                out.push_str(&format!(
                    "last trouble: {} \"{}\"",
                    trouble.code, trouble.words
                ));
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                match trouble.resets_at {
                    Some(at) if at > now => out.push_str(&format!(
                        "; resets in {}\n",
                        crate::chat::trouble::span(std::time::Duration::from_secs(at - now))
                    )),
                    Some(_) => out.push_str("; its reset time has passed\n"),
                    None => out.push('\n'),
                }
            }
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let limit_ahead = s.trouble.as_ref().is_some_and(|t| t.limit_ahead(now));
            let what = match &s.in_flight {
                InFlight::Sending { kind, .. } => kind.name(),
                _ => MessageKind::Message.name(),
            };
            let state = match report.state {
                _ if report.running_pid.is_some() && report.state == "waiting" => {
                    format!("in progress: the {what} awaits its reply")
                }
                _ if report.running_pid.is_some() && report.state == "executing" => {
                    format!("in progress: batch {} is being carried out", s.batch)
                }
                "executing" => {
                    let done: Vec<String> =
                        report.finished.iter().map(|i| format!("#{i}")).collect();
                    let running = report
                        .running
                        .map(|i| match report.running_command {
                            Some(name @ ("runcommand" | "commit")) => {
                                format!("; #{i} {name} was running (its outcome is unknown)")
                            }
                            Some(name) => format!(
                                "; #{i} {name} was running (resuming checks on disk whether it was done)"
                            ),
                            None => format!("; #{i} was running (its outcome is unknown)"),
                        })
                        .unwrap_or_default();
                    format!(
                        "interrupted while batch {} was carried out (finished: {}{running}). `keyless run --resume` tells the model what ran, goes on with the rest when what ran is known, and runs nothing twice",
                        s.batch,
                        if done.is_empty() {
                            "none".to_string()
                        } else {
                            done.join(", ")
                        }
                    )
                }
                // A limit not yet reset holds the message back: a resume sends nothing before it.
                "waiting" if limit_ahead => format!(
                    "interrupted while the {what} awaited its reply, the site's limit in force. `keyless run --resume` reads the reply if the chat has it, and sends nothing before the reset: `--resume --wait` waits for it and goes on, `--resume --now` goes on at once if the limit is lifted (a plan changed)"
                ),
                "waiting" => format!(
                    "interrupted while the {what} awaited its reply. `keyless run --resume` reads the reply if the chat has it, or sends the {what} again"
                ),
                _ => "finished. The next `keyless run \"task\"` goes on in this chat (--new-chat starts another)".to_string(),
            };
            out.push_str(&format!("turn: {state}\n"));
        }
    }
    if let Some((id, changes)) = report.undo {
        out.push_str(&format!(
            "undo: `keyless undo` puts back batch {id} ({changes} change(s))\n"
        ));
    }
    let (batches, bytes) = report.backups;
    if batches > 0 {
        out.push_str(&format!(
            "backups: {batches} batch(es), {:.1} MB in .agent/backups (all kept; delete old b… folders to free space)\n",
            bytes as f64 / 1_000_000.0
        ));
    }
    // The resume named with the flags of the run that stopped (its page, browser, workspace).
    match report.session.as_ref().and_then(|s| s.resume.as_deref()) {
        Some(resume) => out.replace("keyless run --resume", resume),
        None => out,
    }
}

/// How an attached file went, in words.
fn how(how: crate::chat::attach::How) -> &'static str {
    match how {
        crate::chat::attach::How::Upload => "uploaded",
        crate::chat::attach::How::Inline => "inline",
        crate::chat::attach::How::Bundle => "in a bundle",
    }
}
