//! What a site's server said when it refused the message: the body of its 429 or 5xx answer to
//! the request that carried it, read where the page shows no words of its own. A JSON body's
//! sentences are its words (`{"error": {"message": "You have reached your plan's limit…"}}`),
//! a code in it counts as words too (`usage_limit_reached`), and a field named for the reset or
//! the wait gives the time (`"resets_at": 1767225600`, `"retry_after_ms": 20000`); a plain-text
//! body is its own words; a server's HTML error page says nothing the status does not.

use std::time::Duration;

use super::{Clock, QUOTED_CHARS, reset};

/// The words and the reset a refusal's body gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSaid {
    /// Its words, whitespace folded, cut to [`QUOTED_CHARS`]; empty when it gave only a time.
    pub words: String,
    /// The wait a field of its own names.
    pub resets_in: Option<Duration>,
}

/// The longest plain-text body read as words (a longer one is a page, not a refusal's words).
const PLAIN_CHARS: usize = 600;

/// What the body of a refusal's answer says; `None` when it says nothing keyless can read.
pub fn server_said(body: &[u8], clock: Clock) -> Option<ServerSaid> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() || text.starts_with('<') {
        return None;
    }
    let said = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => {
            let mut found = Found::default();
            walk(&value, "", clock, &mut found);
            // Sentences first; codes stand for words only where there is no sentence.
            let words = if found.sentences.is_empty() {
                found.codes
            } else {
                found.sentences
            };
            ServerSaid {
                words: folded(&words.join(" ")),
                resets_in: found.resets_in,
            }
        }
        Err(_) if text.chars().count() <= PLAIN_CHARS => ServerSaid {
            words: folded(text),
            resets_in: None,
        },
        Err(_) => return None,
    };
    (!said.words.is_empty() || said.resets_in.is_some()).then_some(said)
}

/// The wait a `Retry-After` header names: seconds, or an HTTP date.
pub fn retry_after(value: &str, clock: Clock) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Some(at) = http_date(value) {
        return Some(Duration::from_secs(
            at.saturating_sub(clock.unix).max(0) as u64
        ));
    }
    reset(&format!("resets at {}", value.to_lowercase()), clock)
}

/// An HTTP date as `Retry-After` gives it ("Fri, 04 Dec 2026 18:58:30 GMT"), to the second,
/// as seconds since the Unix epoch.
fn http_date(value: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let parts: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, zone] = parts.as_slice() else {
        return None;
    };
    if !zone.eq_ignore_ascii_case("gmt") && !zone.eq_ignore_ascii_case("utc") {
        return None;
    }
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month))? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time
        .split(':')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let [h, m, sec] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *h > 23 || *m > 59 || *sec > 60 {
        return None;
    }
    Some(super::reset::days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + sec)
}

#[derive(Default)]
struct Found {
    sentences: Vec<String>,
    codes: Vec<String>,
    resets_in: Option<Duration>,
}

/// Collects a JSON value's strings under `key`, in the order written.
fn walk(value: &serde_json::Value, key: &str, clock: Clock, found: &mut Found) {
    use serde_json::Value;
    let timing = timing(key);
    match value {
        Value::Object(fields) => {
            for (name, inner) in fields {
                walk(inner, name, clock, found);
            }
        }
        Value::Array(items) => {
            for inner in items {
                walk(inner, key, clock, found);
            }
        }
        Value::String(text)
            if timing.is_some() && !text.contains(' ') && found.resets_in.is_none() =>
        {
            found.resets_in = match text.trim().parse::<f64>() {
                Ok(number) => timing.and_then(|t| t.wait(number, clock)),
                Err(_) => reset(&format!("resets at {}", text.to_lowercase()), clock),
            };
        }
        // A second time field says nothing more.
        Value::String(text) if timing.is_some() && !text.contains(' ') => {}
        Value::String(text) => {
            let text = text.trim();
            if text.split_whitespace().nth(1).is_some() {
                found.sentences.push(text.to_string());
            } else if is_code(text) {
                found.codes.push(text.replace(['_', '-', '.'], " "));
            }
        }
        Value::Number(number) => {
            if found.resets_in.is_none()
                && let (Some(timing), Some(number)) = (timing, number.as_f64())
            {
                found.resets_in = timing.wait(number, clock);
            }
        }
        _ => {}
    }
}

/// A code a server names its refusal with (`rate_limit_exceeded`, `usage-limit`): lowercase
/// words joined by `_`, `-` or `.`, never an identifier of the request.
fn is_code(text: &str) -> bool {
    text.len() <= 60
        && text.contains(['_', '-', '.'])
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || matches!(c, '_' | '-' | '.'))
}

/// How a field names a time: a moment (`resets_at`), or a wait in seconds or milliseconds
/// (`retry_after`, `retry_after_ms`, `wait_seconds`).
#[derive(Clone, Copy)]
enum Timing {
    Moment,
    Wait { millis: bool },
}

fn timing(key: &str) -> Option<Timing> {
    let key = key.to_lowercase();
    let millis = key.ends_with("ms") || key.contains("milli");
    if key.contains("retry") || key.contains("wait") || key.contains("seconds") {
        Some(Timing::Wait { millis })
    } else if key.contains("reset") || key.contains("until") || key.contains("expires") {
        Some(Timing::Moment)
    } else {
        None
    }
}

impl Timing {
    /// The wait a number in this field names: a moment read as seconds or milliseconds since
    /// the epoch by its size, or (small) as a wait in seconds.
    fn wait(self, number: f64, clock: Clock) -> Option<Duration> {
        if !number.is_finite() || number < 0.0 {
            return None;
        }
        let seconds = match self {
            Timing::Wait { millis: true } => number / 1000.0,
            Timing::Wait { millis: false } => number,
            Timing::Moment if number >= 1e12 => number / 1000.0 - clock.unix as f64,
            Timing::Moment if number >= 1e9 => number - clock.unix as f64,
            Timing::Moment => number,
        };
        (seconds >= 0.0 && seconds <= super::LONGEST_RESET.as_secs_f64())
            .then(|| Duration::from_secs(seconds.ceil() as u64))
    }
}

/// Whitespace folded as a notice's words are, cut to what a failure quotes.
fn folded(text: &str) -> String {
    super::fold(text).chars().take(QUOTED_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Clock = Clock {
        unix: 1_796_342_400,
        offset: 0,
    };

    #[test]
    fn a_json_refusal_is_read_for_its_sentences_and_its_reset_field() {
        let body = br#"{"error":{"type":"usage_limit_reached","message":"You have reached your plan's message limit.","resets_at":1796346000}}"#;
        let said = server_said(body, NOW).unwrap();
        assert_eq!(said.words, "You have reached your plan's message limit.");
        assert_eq!(said.resets_in, Some(Duration::from_secs(3600)));
        // A code alone stands for words; a wait in milliseconds is a wait.
        let said = server_said(
            br#"{"code":"rate_limit_exceeded","retry_after_ms":20000}"#,
            NOW,
        )
        .unwrap();
        assert_eq!(said.words, "rate limit exceeded");
        assert_eq!(said.resets_in, Some(Duration::from_secs(20)));
        // A moment written as a date, in milliseconds, or as a small number of seconds.
        let said = server_said(
            br#"{"detail":"Quota exceeded","reset":"2026-12-04T02:00:00Z"}"#,
            NOW,
        )
        .unwrap();
        assert!(said.resets_in.is_some(), "{said:?}");
        let said = server_said(br#"{"detail":"Slow down","resetAt":1796342430000}"#, NOW).unwrap();
        assert_eq!(said.resets_in, Some(Duration::from_secs(30)));
    }

    #[test]
    fn plain_text_is_its_own_words_and_an_html_page_or_an_id_says_nothing() {
        let said = server_said(b"  Too many requests,\n please wait.\n", NOW).unwrap();
        assert_eq!(said.words, "Too many requests, please wait.");
        assert_eq!(said.resets_in, None);
        assert_eq!(
            server_said(b"<html><h1>502 Bad Gateway</h1></html>", NOW),
            None
        );
        assert_eq!(server_said(b"", NOW), None);
        assert_eq!(
            server_said(br#"{"id":"req_8f3a9c","trace":"A1B2-C3"}"#, NOW),
            None
        );
        assert_eq!(server_said(&[b'x'; 700], NOW), None);
    }

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        assert_eq!(retry_after(" 4 ", NOW), Some(Duration::from_secs(4)));
        // NOW is 2026-12-04T00:00:00Z.
        let date = retry_after("Fri, 04 Dec 2026 01:00:00 GMT", NOW);
        assert_eq!(date, Some(Duration::from_secs(3600)), "{date:?}");
        assert_eq!(retry_after("soon", NOW), None);
    }
}

#[cfg(test)]
mod http_dates {
    use super::*;

    /// A `Retry-After` date is waited to its second, not rounded to its minute.
    #[test]
    fn a_retry_after_date_counts_its_seconds() {
        // 2026-12-02 10:00:00 UTC.
        let clock = Clock {
            unix: 1_796_205_600,
            offset: 3600,
        };
        assert_eq!(
            retry_after("Wed, 02 Dec 2026 10:00:30 GMT", clock),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after("Wed, 02 Dec 2026 10:04:54 GMT", clock),
            Some(Duration::from_secs(294))
        );
        // Gone by: at once.
        assert_eq!(
            retry_after("Wed, 02 Dec 2026 09:59:00 GMT", clock),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("45", clock), Some(Duration::from_secs(45)));
    }
}
