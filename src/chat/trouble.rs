//! Trouble a chat site reports instead of a reply: a notice in the page's error or alert areas,
//! a dialog or toast, or an assistant turn that is a notice rather than an answer. It says which
//! kind of trouble the site's words name (a throttle, a plan's usage limit, a spend limit or a
//! lapsed plan, a server error, a login wall, a bot check), in the languages the sites ship,
//! and when a limit resets when the site says so, in the time formats sites use.
//!
//! Pure: text and a clock reading in, a verdict out; no page, no clock of its own. It does not
//! decide what keyless does about the trouble (the turn loop does), and it does not look for
//! the words on the page (`page.js` hands over what its notice areas and the reply's place
//! hold). `selectors.json`'s `texts` are additions to the words here, never the only source.

use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;

use crate::catalog::Code;
pub use answer::{retry_after, server_said};
pub(crate) use reset::civil_from_days;
use reset::reset;
use words::{
    ADDRESSED, BOT, COMPOUND_NOUNS, GOES_ON, LIMIT_NOUNS, LIMIT_STATES, LOGIN, RATE, SERVER, SPEND,
    USAGE,
};

/// The longest text taken as a notice in the reply's own place: a site's notice is a sentence
/// or two, a model's answer is longer (and keyless's model answers in AgentScript).
const REPLY_NOTICE_CHARS: usize = 600;
/// The longest text of a notice area read as one notice (a dialog's text with its buttons); a
/// longer one is a wrapper of the page, not a notice.
const AREA_NOTICE_CHARS: usize = 1_500;
/// How much of the site's words a failure quotes.
const QUOTED_CHARS: usize = 300;
/// A reset further away than this is not believed (a misread number): a plan's limits reset
/// within a month, and the limit is then taken as having no known reset.
const LONGEST_RESET: Duration = Duration::from_secs(45 * 24 * 3600);

/// The kinds of trouble, each with its own code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A throttle: too many requests too quickly; retry in seconds to minutes.
    RateLimit,
    /// The plan's message or usage cap; it resets (at a time the site may give).
    UsageLimit,
    /// A spend limit reached, or the plan lapsed or unpaid: waiting will not help.
    SpendLimit,
    /// The site failed to answer (an error in the reply's place, a 5xx); retryable.
    ServerError,
    /// The site asks to log in (an expired session).
    LoginWall,
    /// A bot check (a challenge page, a captcha).
    BotCheck,
}

impl Kind {
    /// The catalog code of this kind of trouble.
    pub fn code(self) -> Code {
        match self {
            Kind::RateLimit => Code::RateLimited,
            Kind::UsageLimit => Code::UsageLimit,
            Kind::SpendLimit => Code::SpendLimit,
            Kind::ServerError => Code::SiteError,
            Kind::LoginWall => Code::LoginRequired,
            Kind::BotCheck => Code::BotCheck,
        }
    }

    /// Whether waiting can make the trouble go (a spend limit never goes by itself; a wall
    /// needs the person).
    pub fn passes_with_time(self) -> bool {
        matches!(self, Kind::RateLimit | Kind::UsageLimit | Kind::ServerError)
    }
}

/// Where the words were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// An error or alert area, a dialog, a toast, a banner: the site talking, never the model.
    Area,
    /// The reply's own place: the model's turn, which may hold a notice instead of an answer.
    Reply,
}

/// What the site said, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub kind: Kind,
    /// The site's own words, whitespace folded, cut to [`QUOTED_CHARS`].
    pub words: String,
    /// How long until the limit resets, when the site says.
    pub resets_in: Option<Duration>,
}

/// The clock a notice is read against: seconds since the Unix epoch, and the local time's
/// offset from UTC in seconds (a site gives a reset in the person's local time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub unix: i64,
    pub offset: i64,
}

/// Extra words for kinds, from `selectors.json`'s `texts` (lowercased by [`classify`]).
#[derive(Clone, Debug, Default)]
pub struct Extra {
    pub rate_limit: Vec<String>,
    pub login: Vec<String>,
}

/// Classifies what a notice area or the reply's place holds; `None` when it is no trouble (an
/// answer, a notice keyless has no kind for, or the model talking about limits).
pub fn classify(text: &str, place: Place, extra: &Extra, clock: Clock) -> Option<Notice> {
    let folded = fold(text);
    if folded.is_empty() {
        return None;
    }
    let chars = folded.chars().count();
    let lower = folded.to_lowercase();
    match place {
        Place::Area if chars > AREA_NOTICE_CHARS => return None,
        // The model's answer: keyless's model answers in AgentScript, and a long text or a
        // code fence is an answer, whatever it discusses.
        Place::Reply
            if chars > REPLY_NOTICE_CHARS || lower.contains("@@") || lower.contains("```") =>
        {
            return None;
        }
        _ => {}
    }
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let has_extra = |words: &[String]| {
        words
            .iter()
            .any(|w| !w.is_empty() && lower.contains(&w.to_lowercase()))
    };
    // A count of messages still left is a warning ahead of a limit, not the limit ("Heads up:
    // 3 messages left. Your limit resets at 4:30 PM"): the site still takes messages.
    if warns_ahead(&lower) {
        return None;
    }
    let resets_in = reset(&lower, clock);
    let kind = if has(BOT) {
        Kind::BotCheck
    } else if has(SPEND) {
        Kind::SpendLimit
    } else if has(USAGE) {
        Kind::UsageLimit
    } else if has(RATE) || has_extra(&extra.rate_limit) || throttle_status(&lower) {
        // A throttle that names a reset hours away is a plan's limit in all but name.
        match resets_in {
            Some(wait) if wait >= Duration::from_secs(3600) => Kind::UsageLimit,
            _ => Kind::RateLimit,
        }
    } else if limit_reached(&lower) {
        // A limit said in words no list holds ("today's quota", "your allowance renews"): a
        // limit's noun and what happened to it, in one notice.
        Kind::UsageLimit
    } else if has(LOGIN) || (place == Place::Area && has_extra(&extra.login)) {
        Kind::LoginWall
    } else if has(SERVER) || server_status(&lower) {
        Kind::ServerError
    } else {
        return None;
    };
    // A model's cap reached while the chat goes on with another model, with no time to wait
    // for, is a fallback, which the model check names (`KA_MODEL_CHANGED`), not a refusal to
    // wait out; with a reset, the limit is named (and the reply's model checked all the same).
    if kind == Kind::UsageLimit && has(GOES_ON) && resets_in.is_none() {
        return None;
    }
    // In the reply's place, a limit counts only where the site addresses the person (a reset,
    // "try again", "you've…"): a model may well mention a limit in passing.
    // A time the site named counts though it is past (a notice kept in the chat, read again
    // after its reset: "Your allowance renews at 2026-12-04T16:05:00Z").
    if place == Place::Reply
        && matches!(kind, Kind::RateLimit | Kind::UsageLimit)
        && resets_in.is_none()
        && !has(ADDRESSED)
        && reset(
            &lower,
            Clock {
                unix: clock.unix - NAMED_TIME_PAST,
                ..clock
            },
        )
        .is_none()
    {
        return None;
    }
    Some(Notice {
        kind,
        words: folded.chars().take(QUOTED_CHARS).collect(),
        resets_in: resets_in.filter(|_| kind.passes_with_time()),
    })
}

/// Whether a limit's noun and what happened to it are both said ("You've hit today's quota",
/// "Your allowance renews on 3 December", "您已达到当前套餐的消息上限").
fn limit_reached(lower: &str) -> bool {
    static WORD: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\p{L}+").ok());
    let Some(word) = WORD.as_ref() else {
        return false;
    };
    let latin =
        |w: &str| w.is_ascii() || w.chars().all(|c| c.is_alphabetic() && (c as u32) < 0x2E80);
    let words: Vec<&str> = word.find_iter(lower).map(|m| m.as_str()).collect();
    let noun = LIMIT_NOUNS.iter().any(|n| {
        if latin(n) {
            // German joins the noun to what it limits ("Nachrichtenkontingent").
            words.contains(n)
                || (COMPOUND_NOUNS.contains(n) && words.iter().any(|w| w.ends_with(n)))
        } else {
            lower.contains(n)
        }
    });
    let state = LIMIT_STATES.iter().any(|s| {
        if latin(s) {
            // A state of several words, or a stem ("renouvel…"), at a word's start.
            let at_start = |i: usize| {
                i == 0
                    || !lower[..i]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_alphanumeric)
            };
            lower.match_indices(s).any(|(i, _)| at_start(i))
        } else {
            lower.contains(s)
        }
    });
    noun && state
}

/// How far back a time named in a notice is still taken as the site naming a reset.
const NAMED_TIME_PAST: i64 = 2 * 86_400;

/// Whether the words count messages still left ("3 messages left", "2 prompts remaining",
/// "noch 3 Nachrichten"), more than none: a warning before a limit, not the limit.
fn warns_ahead(lower: &str) -> bool {
    static LEFT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\b([1-9]\d*)\s+(?:more\s+)?(?:messages?|prompts?|requests?|queries|replies|uses|nachrichten|mensajes|mensagens|messaggi)\s+(?:left|remaining|übrig|restants?|restantes?|rimanenti)\b|\bnoch\s+[1-9]\d*\s+nachrichten\b").ok()
    });
    LEFT.as_ref().is_some_and(|re| re.is_match(lower))
}

/// Whitespace folded to single spaces, ends trimmed.
fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "429" said as a status ("error 429", "429 too many"), not a number in passing.
fn throttle_status(lower: &str) -> bool {
    static STATUS: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?:\b(?:error|status|code|http)\W{0,3}429\b|^429\b)").ok());
    STATUS.as_ref().is_some_and(|re| re.is_match(lower))
}

/// A 5xx said as a status ("Something went wrong. 500", "error 503").
fn server_status(lower: &str) -> bool {
    static STATUS: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:\b(?:error|erro|erreur|fehler|errore|fout|status|code|http)\W{0,3}5(?:00|02|03|04)\b|^5(?:00|02|03|04)\b|\(\s*(?:http\s*)?5(?:00|02|03|04)\s*\))")
            .ok()
    });
    STATUS.as_ref().is_some_and(|re| re.is_match(lower))
}

/// A wait in words ("2h 05m", "45s").
pub(crate) fn span(wait: Duration) -> String {
    let s = wait.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

mod answer;
mod calendar;
mod reset;
mod words;

#[cfg(test)]
mod tests;
