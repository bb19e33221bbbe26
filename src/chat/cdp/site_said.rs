//! The site's trouble said as keyless's failure: its code, the site's words quoted, when a
//! limit resets in the person's local time, and what to do; and the local clock the reset times
//! a site gives are read against.

use crate::catalog::{Failure, SiteSaid};
use crate::chat::trouble::{Clock, Kind, Notice, span};

/// The local clock now, for reading the reset times a site gives in local time.
pub(super) fn clock_now() -> Clock {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    Clock {
        unix,
        offset: local_offset(unix),
    }
}

/// The local time's offset from UTC at `unix`, in seconds (0 when the C library cannot say).
fn local_offset(unix: i64) -> i64 {
    let time: libc::time_t = unix;
    // SAFETY: `tm` is a plain C struct for which all-zero bytes are a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r reads `time` and writes only into `tm`, both valid for the call.
    let converted = unsafe { libc::localtime_r(&time, &mut tm) };
    if converted.is_null() { 0 } else { tm.tm_gmtoff }
}

/// The failure that names a site's trouble: its code, the site's words quoted, when a limit
/// resets, and what to do.
pub(super) fn trouble_failure(notice: &Notice, clock: Clock) -> Failure {
    let resets_at = notice
        .resets_in
        .map(|wait| u64::try_from(clock.unix).unwrap_or(0) + wait.as_secs());
    let when = match notice.resets_in {
        // A server's Retry-After: when to try again, no limit that resets.
        Some(wait) if notice.kind == Kind::ServerError => {
            format!(" It asks to be tried again in {}.", span(wait))
        }
        Some(wait) => format!(
            " It resets in {} (at {}).",
            span(wait),
            at_local(resets_at.unwrap_or(0), clock)
        ),
        None => String::new(),
    };
    let todo = match notice.kind {
        Kind::RateLimit => {
            "Nothing was sent into the refusing chat and nothing was lost: run `keyless run --resume` in a minute, or `keyless run --resume --wait` to wait and go on by itself."
        }
        Kind::UsageLimit if notice.resets_in.is_some() => {
            "Nothing was lost: run `keyless run --resume` after the reset, or `keyless run --resume --wait` to wait for it and go on by itself."
        }
        Kind::UsageLimit => {
            "The site gave no reset time. Nothing was lost: run `keyless run --resume` once the limit has reset."
        }
        Kind::SpendLimit => {
            "Waiting will not help: put the account in order (a spend limit, a lapsed plan), then run `keyless run --resume`; nothing was lost."
        }
        Kind::ServerError => {
            "Nothing was lost: run `keyless run --resume` to send the message again once the site works."
        }
        Kind::LoginWall => {
            "Log in in the browser window (run keyless without --headless to get one; the profile keeps the login), then run `keyless run --resume`; nothing was lost."
        }
        Kind::BotCheck => {
            "Pass the check in the browser window (run keyless without --headless to get one), then run `keyless run --resume`; nothing was lost."
        }
    };
    Failure::new(
        notice.kind.code(),
        format!("the site says: \"{}\".{when} {todo}", notice.words),
    )
    .saying(SiteSaid {
        words: notice.words.clone(),
        resets_at,
    })
}

/// A moment as local wall-clock time, `YYYY-MM-DD HH:MM`.
fn at_local(unix: u64, clock: Clock) -> String {
    let local = i64::try_from(unix).unwrap_or(0) + clock.offset;
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (year, month, day) = crate::chat::trouble::civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} local time",
        secs / 3600,
        (secs % 3600) / 60
    )
}
