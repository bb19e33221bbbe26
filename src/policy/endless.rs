//! Programs that never end on their own or stream without end: they run until keyless's
//! timeout kills them, so they are not ReadOnly (a read-only probe runs without asking, and
//! its failure never stops a batch). They are Execute: harmless, but the user decides whether
//! to spend a command's time on them. Known by their shape: `sleep` longer than a command may
//! run (or `infinity`), `yes`, `tail -f`, `watch`, `seq` to infinity, and readers of a device
//! that never runs dry (`/dev/zero`, `/dev/urandom`, `/dev/kmsg`, …) without a limit of their
//! own (`head -c`, `xxd -l`, `od -N`).
//!
//! A command stopped from outside in bounded time is not endless: under `timeout` with a
//! short enough duration, or piped into `head` (which ends the stream when it has read its
//! lines).

use super::paths::{self, Place, Root, component_is};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict};
use crate::config::DEFAULT_TIMEOUT_SECONDS;

/// How long a command may run before keyless stops it (the default `Commands.TimeoutSeconds`):
/// a wait longer than that never ends on its own as far as the batch is concerned.
pub(super) const ENDLESS_SECONDS: f64 = DEFAULT_TIMEOUT_SECONDS as f64;

/// `seq` counting past this prints for longer than a command may run.
const ENDLESS_COUNT: f64 = 1e9;

/// Devices that never run dry, and whether they give lines (so `head -n` ends on them).
const DEVICES: &[(&[&str], bool)] = &[
    (&["dev", "zero"], false),
    (&["dev", "full"], false),
    (&["dev", "urandom"], true),
    (&["dev", "random"], true),
    (&["dev", "kmsg"], true),
    (&["dev", "tty"], true),
    (&["dev", "console"], true),
    (&["proc", "kmsg"], true),
];

fn endless(why: String) -> Verdict {
    Verdict::new(Tier::Execute, ReasonKind::Endless, why)
}

/// A duration as `sleep` and `timeout` read it: seconds, or a number with `s`, `m`, `h` or
/// `d`; `inf`/`infinity` is forever. `None` when it is not one.
pub(super) fn seconds(text: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity") {
        return Some(f64::INFINITY);
    }
    let (number, unit) = match lower.char_indices().last() {
        Some((at, c)) if c.is_ascii_alphabetic() => (&lower[..at], c),
        _ => (lower.as_str(), 's'),
    };
    let scale = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => return None,
    };
    let value: f64 = number.parse().ok()?;
    (value.is_finite() && value >= 0.0).then_some(value * scale)
}

/// The device a path names, with whether it gives lines.
fn device(raw: &str, cwd: &Place) -> Option<bool> {
    let place = paths::resolve(raw, cwd);
    if place.root != Root::Slash {
        return None;
    }
    DEVICES.iter().find_map(|(parts, lines)| {
        (place.parts.len() == parts.len()
            && parts
                .iter()
                .zip(&place.parts)
                .all(|(p, q)| component_is(q, p)))
        .then_some(*lines)
    })
}

/// Whether `name` with `args` stops reading after a fixed amount.
fn limited(name: &str, args: &[&str], lines_device: bool) -> bool {
    let has = |short: &str, long: &str| {
        args.iter()
            .any(|a| a.starts_with(short) || a.starts_with(long))
    };
    match name {
        "head" => has("-c", "--bytes") || lines_device,
        "xxd" => has("-l", "--len"),
        "od" => has("-N", "--read-bytes"),
        "hexdump" | "hd" => has("-n", "--length"),
        "cmp" => has("-n", "--bytes"),
        "dd" => args.iter().any(|a| a.starts_with("count=")),
        _ => false,
    }
}

/// The verdict when `name` with `args` never ends on its own, or `None`.
pub(super) fn check(name: &str, args: &[&str], ctx: &Ctx) -> Option<Verdict> {
    if ctx.bounded {
        return None;
    }
    let operands: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-') || a.len() == 1)
        .collect();
    match name {
        "sleep" => {
            let total = operands
                .iter()
                .map(|a| seconds(a))
                .sum::<Option<f64>>()
                .unwrap_or(f64::INFINITY);
            (total > ENDLESS_SECONDS).then(|| {
                endless(format!(
                    "sleep {}: waits longer than a command may run",
                    operands.join(" ")
                ))
            })
        }
        "yes" => Some(endless("yes: prints without end".to_string())),
        "watch" => Some(endless(
            "watch: runs its command again and again, without end".to_string(),
        )),
        "tail"
            if args.iter().any(|a| {
                *a == "--follow"
                    || a.starts_with("--follow=")
                    || a.starts_with('-') && !a.starts_with("--") && a.contains(['f', 'F'])
            }) =>
        {
            Some(endless("tail -f: follows the file without end".to_string()))
        }
        "seq"
            if operands
                .last()
                .and_then(|last| last.parse::<f64>().ok())
                .is_some_and(|last| last.abs() >= ENDLESS_COUNT) =>
        {
            Some(endless(
                "seq: counts for longer than a command may run".to_string(),
            ))
        }
        _ => {
            let (file, lines) = operands
                .iter()
                .copied()
                .chain(args.iter().filter_map(|a| a.strip_prefix("if=")))
                .find_map(|a| device(a, &ctx.cwd).map(|lines| (a, lines)))?;
            (!limited(name, args, lines))
                .then(|| endless(format!("{name}: reads {file}, which never runs dry")))
        }
    }
}

/// The verdict when a command reads an endless device on its input (`od < /dev/urandom`)
/// without a limit of its own.
pub(super) fn input(name: &str, args: &[&str], source: &str, ctx: &Ctx) -> Option<Verdict> {
    if ctx.bounded {
        return None;
    }
    let lines = device(source, &ctx.cwd)?;
    (!limited(name, args, lines))
        .then(|| endless(format!("{name}: reads {source}, which never runs dry")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(seconds("5"), Some(5.0));
        assert_eq!(seconds("1.5m"), Some(90.0));
        assert_eq!(seconds("2h"), Some(7200.0));
        assert_eq!(seconds("infinity"), Some(f64::INFINITY));
        assert_eq!(seconds("x"), None);
    }
}
