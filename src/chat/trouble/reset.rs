//! When a limit resets, read from the site's words: a relative time ("in 3 hours", "dans 20
//! minutes", "3時間後"), an ISO date and time, a month and day, or a clock time ("4:00 PM",
//! "tomorrow at 9am"), in local time unless the text names UTC or an offset. Pure: a clock
//! reading comes in; which kind of trouble the words name is `trouble.rs`'s.

use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;

use super::calendar::{MIDNIGHT, MONTHS, NOON, TOMORROW, WEEKDAYS, WINDOWED};
use super::{Clock, LONGEST_RESET};

/// Seconds in one unit of a relative time, by the unit's word in the languages above.
fn unit_seconds(unit: &str) -> Option<u64> {
    let unit = unit.trim_end_matches('.');
    Some(match unit {
        "s" | "sec" | "secs" | "second" | "seconds" | "sek" | "sekunde" | "sekunden"
        | "seconde" | "secondes" | "segundo" | "segundos" | "secondi" | "秒" | "초" | "секунд"
        | "секунды" | "секунду" | "saniye" | "sn" | "sekund" | "sekundy" | "sekundę"
        | "seconden" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" | "minuten" | "minuto" | "minutos"
        | "minuti" | "minuut" | "分" | "分钟" | "分鐘" | "분" | "минут" | "минуты" | "минуту"
        | "dakika" | "dk" | "minut" | "minuty" | "minutę" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" | "std" | "stunde" | "stunden" | "heure"
        | "heures" | "hora" | "horas" | "ora" | "ore" | "uur" | "時間" | "小时" | "小時"
        | "시간" | "час" | "часа" | "часов" | "saat" | "godzin" | "godziny" | "godzinę" => {
            3600
        }
        "d" | "day" | "days" | "tag" | "tage" | "tagen" | "jour" | "jours" | "día" | "días"
        | "dia" | "dias" | "giorno" | "giorni" | "dag" | "dagen" | "日" | "天" | "일" | "день"
        | "дня" | "дней" | "gün" | "dni" | "dzień" => 86_400,
        _ => return None,
    })
}

/// When the limit resets, as the text says: a relative time ("in 3 hours", "in 1h 30m",
/// "dans 20 minutes", "3時間後"), an ISO date and time, a month and day ("Jan 5", "5 Jan",
/// with a time or not), or a clock time ("4:00 PM", "16:00", "9am", "tomorrow at 9am"),
/// each in local time unless it names UTC or an offset.
pub(super) fn reset(lower: &str, clock: Clock) -> Option<Duration> {
    let found = relative(lower)
        .or_else(|| iso(lower, clock))
        .or_else(|| month_day(lower, clock))
        .or_else(|| clock_time(lower, clock))?;
    (found <= LONGEST_RESET).then_some(found)
}

fn relative(lower: &str) -> Option<Duration> {
    // A wait as minutes and seconds on a clock's face ("retry in 1:30"): "in" makes it a wait;
    // "after 14:30" is a time of day, as "at", "am"/"pm" or "uhr" make it.
    static FACE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:\bin|\bwithin)\s+(\d{1,2}):([0-5]\d)\b(\s*(?:am|pm|a\.m|p\.m|uhr|h\b))?")
            .ok()
    });
    if let Some(c) = FACE.as_ref().and_then(|re| re.captures(lower))
        && c.get(3).is_none()
    {
        let minutes: u64 = c.get(1)?.as_str().parse().ok()?;
        let seconds: u64 = c.get(2)?.as_str().parse().ok()?;
        return Some(Duration::from_secs(minutes * 60 + seconds));
    }
    // "in", "after", "within" and their kin before it; or an east-Asian "after" behind it.
    static LEAD: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:\bin|\bafter|\bwithin|\bwait|\bwarte|\bwarten sie|\battendez|\bpatientez|\bespera|\bespere|\baspetta|\baguarde|\bdans|\ben|\bdentro de|\bem|\btra|\bfra|\bover|\bza|\bчерез)\s+((?:\d+\s*[\p{L}.]+(?:\s*(?:,|and|und|et|y|e|и)?\s*)?)+)").ok()
    });
    static PART: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(\d+)\s*([\p{L}.]+)").ok());
    // Turkish puts its "after" behind the time too ("20 saniye sonra").
    static BEHIND: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"((?:\d+\s*\p{L}+\s*)+)\b(?:sonra|içinde|later)\b").ok());
    static TRAIL: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"((?:\d+\s*(?:時間|小时|小時|分钟|分鐘|分|秒|시간|분|초|天|日)\s*)+)(?:後|后|후|以后|之后)").ok()
    });
    let (lead, part, trail) = (LEAD.as_ref()?, PART.as_ref()?, TRAIL.as_ref()?);
    let sum = |span: &str| {
        let mut total = 0u64;
        let mut any = false;
        for c in part.captures_iter(span) {
            let (Some(n), Some(unit)) = (c.get(1), c.get(2)) else {
                continue;
            };
            let Some(seconds) = unit_seconds(unit.as_str()) else {
                break;
            };
            total += n.as_str().parse::<u64>().ok()? * seconds;
            any = true;
        }
        any.then(|| Duration::from_secs(total))
    };
    for c in lead.captures_iter(lower) {
        // "Too many requests in 1 hour" names the limit's window, not its reset.
        let before = c.get(0).map_or("", |m| &lower[..m.start()]);
        if WINDOWED.iter().any(|w| before.trim_end().ends_with(w)) {
            continue;
        }
        if let Some(found) = c.get(1).and_then(|m| sum(m.as_str())) {
            return Some(found);
        }
    }
    if let Some(found) = BEHIND
        .as_ref()
        .and_then(|behind| behind.captures(lower))
        .and_then(|c| sum(c.get(1)?.as_str()))
    {
        return Some(found);
    }
    let c = trail.captures(lower)?;
    sum(c.get(1)?.as_str())
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
pub(super) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil year of a day count from 1970-01-01.
pub(super) fn year_of(days: i64) -> i64 {
    civil_from_days(days).0
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (eras of 400 years).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// From now until a moment given in seconds since the epoch; `None` when it is past.
fn until(clock: Clock, at: i64) -> Option<Duration> {
    u64::try_from(at - clock.unix).ok().map(Duration::from_secs)
}

fn iso(lower: &str, clock: Clock) -> Option<Duration> {
    static ISO: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\b(\d{4})-(\d{2})-(\d{2})[t ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?\s*(z|utc|[+-]\d{2}:?\d{2})?").ok()
    });
    let c = ISO.as_ref()?.captures(lower)?;
    let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<i64>().ok());
    let days = days_from_civil(num(1)?, num(2)?, num(3)?);
    let local = days * 86_400 + num(4)? * 3600 + num(5)? * 60 + num(6).unwrap_or(0);
    let offset = match c.get(7).map(|m| m.as_str()) {
        None => clock.offset,
        Some("z" | "utc") => 0,
        Some(zone) => {
            let digits: String = zone.chars().filter(char::is_ascii_digit).collect();
            let hours: i64 = digits.get(..2)?.parse().ok()?;
            let minutes: i64 = digits.get(2..)?.parse().ok()?;
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            sign * (hours * 3600 + minutes * 60)
        }
    };
    until(clock, local - offset)
}

/// A clock time in a text: seconds after midnight, and the time zone written after it (none:
/// the person's local time).
fn time_of_day(text: &str) -> Option<(i64, Option<Zone>)> {
    time_of_day_and_half(text).map(|(seconds, zone, _)| (seconds, zone))
}

/// The evening named beside an hour said on a twelve-hour clock ("at 11 o'clock tonight").
const EVENING: &[&str] = &[
    "tonight",
    "this evening",
    "in the evening",
    "heute abend",
    "ce soir",
    "esta noche",
    "hoje à noite",
    "stasera",
    "vanavond",
];

/// [`time_of_day`], and whether the hour was said on a twelve-hour clock with neither half of
/// the day named (English "at 11 o'clock", "at 9"): the caller takes the one that comes first.
fn time_of_day_and_half(text: &str) -> Option<(i64, Option<Zone>, bool)> {
    static TWELVE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        // Spanish writes "4:30 p. m.".
        Regex::new(r"(?-u:\b)(\d{1,2})(?::(\d{2}))?\s*(a\.?\s?m\.?|p\.?\s?m\.?)").ok()
    });
    static TWENTY_FOUR: LazyLock<Option<Regex>> = LazyLock::new(|| {
        // ASCII word edges: a time may touch CJK text ("05:11以降"), which Unicode's edges
        // take for letters of the same word. French writes "9 h 00".
        Regex::new(r"(?-u:\b)(\d{1,2})(?::|\s?h\s?)(\d{2})(?-u:\b)(?:\s*(?:uhr|h)(?-u:\b))?").ok()
    });
    // An hour alone after "at" in its languages ("demain à 9 h", "um 9 Uhr", "às 9h"): never
    // a bare "3 h", which may be a window ("toutes les 3 h").
    static HOUR: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:\bà|\bum|\bat|\bàs|\ba las|\balle|\bom|\bo)\s+(\d{1,2})\s?(?:h|uhr|uur|heures?|hrs?)(?-u:\b)").ok()
    });
    // An hour with its "o'clock" wherever it stands ("Montag, 10 Uhr", "Friday, 9 o'clock"):
    // "Uhr" and "o'clock" name a time of day, never a span (Dutch "uur" is both: only after
    // "om", above).
    static OCLOCK: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?-u:\b)(\d{1,2})\s?(?:uhr|o['’]clock)(?-u:\b)").ok());
    static EAST: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(\d{1,2})\s*(?:時|点|點|시)(?:\s*(\d{1,2})\s*(?:分|분))?").ok()
    });
    if let Some(c) = TWELVE.as_ref()?.captures(text) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        let minute: i64 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
        if !(1..=12).contains(&hour) || minute > 59 {
            return None;
        }
        let pm = c.get(3)?.as_str().starts_with('p');
        let hour = hour % 12 + if pm { 12 } else { 0 };
        return Some((
            hour * 3600 + minute * 60,
            zone_after(&text[c.get(0)?.end()..]),
            false,
        ));
    }
    if let Some(c) = TWENTY_FOUR.as_ref()?.captures(text) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        let minute: i64 = c.get(2)?.as_str().parse().ok()?;
        if hour > 23 || minute > 59 {
            return None;
        }
        return Some((
            hour * 3600 + minute * 60,
            zone_after(&text[c.get(0)?.end()..]),
            false,
        ));
    }
    // A German or Dutch time with a dot ("um 21.30 Uhr", "ab 17.42 Uhr"): only with its
    // "Uhr" or "h", or after "um"/"om" and not a date's ("um 01.04." is the first of April):
    // a bare "21.30" may be a price, "ab 01.04." a date.
    static DOT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:(?-u:\b)(\d{1,2})\.(\d{2})\s*(?:uhr|h)(?-u:\b)|(?:\bum|\bom)\s+(\d{1,2})\.(\d{2})(?:\.?(?:\s|$)|[^.\d]))").ok()
    });
    if let Some(c) = DOT.as_ref()?.captures(text) {
        let hour: i64 = c.get(1).or(c.get(3))?.as_str().parse().ok()?;
        let minute: i64 = c.get(2).or(c.get(4))?.as_str().parse().ok()?;
        if hour <= 23 && minute <= 59 {
            return Some((
                hour * 3600 + minute * 60,
                zone_after(&text[c.get(0)?.end()..]),
                false,
            ));
        }
    }
    if let Some(c) = HOUR.as_ref()?.captures(text) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        if hour <= 23 {
            return Some((hour * 3600, zone_after(&text[c.get(0)?.end()..]), false));
        }
    }
    // English says "o'clock" on a twelve-hour clock: the evening where the text names it.
    let evening = EVENING.iter().any(|w| text.contains(w));
    let twelve_hour = |hour: i64, english: bool| {
        let half = english && (1..=11).contains(&hour);
        let hour = hour + if half && evening { 12 } else { 0 };
        (hour, half && !evening)
    };
    if let Some(c) = OCLOCK.as_ref()?.captures(text) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        if hour <= 23 {
            let english = !c.get(0)?.as_str().ends_with("uhr");
            let (hour, unsaid) = twelve_hour(hour, english);
            return Some((hour * 3600, zone_after(&text[c.get(0)?.end()..]), unsaid));
        }
    }
    // A bare hour after "at" where the sentence ends there or a day follows ("resets tomorrow
    // at 9", "come back at 9 tomorrow"): never one a noun follows ("at 9 messages").
    static BARE_HOUR: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:\bat|\bum|\bàs|\bà|\ba las|\balle|\bom)\s+(\d{1,2})(?:\s*o'clock)?(?:\s*(?:[.,;!)]|$)|\s+(?:tomorrow|today|tonight|morgen|heute|demain|mañana|amanhã|domani|on|am|le|el)\b)").ok()
    });
    // Only where the text names the day ("capped at 10." is a count, not a time).
    let day_named = TOMORROW.iter().any(|w| text.contains(w))
        || text.contains("today")
        || text.contains("tonight")
        || weekday(text).is_some();
    if let Some(c) = BARE_HOUR.as_ref()?.captures(text).filter(|_| day_named) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        if hour <= 23 {
            let english = c.get(0)?.as_str().starts_with("at");
            let (hour, unsaid) = twelve_hour(hour, english);
            return Some((hour * 3600, zone_after(&text[c.get(0)?.end()..]), unsaid));
        }
    }
    // Midnight and noon by name, where no time is written.
    let named = |words: &[&str]| {
        words
            .iter()
            .find_map(|w| text.find(w).map(|at| at + w.len()))
    };
    if let Some(end) = named(MIDNIGHT) {
        return Some((0, zone_after(&text[end..]), false));
    }
    if let Some(end) = named(NOON) {
        return Some((12 * 3600, zone_after(&text[end..]), false));
    }
    let c = EAST.as_ref()?.captures(text)?;
    let hour: i64 = c.get(1)?.as_str().parse().ok()?;
    let minute: i64 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
    let afternoon = ["下午", "午後", "오후"].iter().any(|w| text.contains(w)) && hour < 12;
    (hour <= 23 && minute <= 59).then_some((
        (hour + if afternoon { 12 } else { 0 }) * 3600 + minute * 60,
        zone_after(&text[c.get(0)?.end()..]),
        false,
    ))
}

/// A time zone written after a clock time: UTC or GMT (with an offset or not), an offset, or
/// an abbreviation the sites print ("CET", "9:00 PM PT").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zone {
    /// A fixed offset from UTC, in seconds.
    Fixed(i64),
    /// A US zone named without saying standard or daylight time ("PT", "ET"): its standard
    /// offset, an hour more while the US keeps daylight time.
    Us(i64),
    /// A European zone named by its place ("Paris time", "Europe/Berlin"): its standard offset,
    /// an hour more while Europe keeps summer time.
    Eu(i64),
}

impl Zone {
    /// The offset from UTC on a day (days since 1970-01-01).
    fn offset_on(self, day: i64) -> i64 {
        match self {
            Zone::Fixed(offset) => offset,
            Zone::Us(standard) => standard + if us_daylight(day) { 3600 } else { 0 },
            Zone::Eu(standard) => standard + if eu_summer(day) { 3600 } else { 0 },
        }
    }
}

/// Whether the US keeps daylight time on a day: from the second Sunday of March to the first
/// Sunday of November.
fn us_daylight(day: i64) -> bool {
    let year = year_of(day);
    let sunday_on_or_after = |d: i64| d + (7 - (d + 4).rem_euclid(7)) % 7;
    let begins = sunday_on_or_after(days_from_civil(year, 3, 1)) + 7;
    let ends = sunday_on_or_after(days_from_civil(year, 11, 1));
    (begins..ends).contains(&day)
}

/// Whether Europe keeps summer time on a day: from the last Sunday of March to the last Sunday
/// of October.
fn eu_summer(day: i64) -> bool {
    let year = year_of(day);
    let last_sunday_before = |d: i64| d - (d + 4).rem_euclid(7);
    let begins = last_sunday_before(days_from_civil(year, 3, 31));
    let ends = last_sunday_before(days_from_civil(year, 10, 31));
    (begins..ends).contains(&day)
}

/// Zones named in words after a time, longest first ("Eastern Time", "heure de Paris",
/// "Europe/Berlin"): a place's zone keeps its summer time by its own rule.
const NAMED_ZONES: &[(&str, Zone)] = &[
    ("heure de paris", Zone::Eu(3600)),
    ("europe/amsterdam", Zone::Eu(3600)),
    ("europe/berlin", Zone::Eu(3600)),
    ("europe/madrid", Zone::Eu(3600)),
    ("europe/london", Zone::Eu(0)),
    ("europe/paris", Zone::Eu(3600)),
    ("europe/rome", Zone::Eu(3600)),
    ("america/new_york", Zone::Us(-18_000)),
    ("america/chicago", Zone::Us(-21_600)),
    ("america/denver", Zone::Us(-25_200)),
    ("america/los_angeles", Zone::Us(-28_800)),
    ("asia/tokyo", Zone::Fixed(32_400)),
    ("asia/seoul", Zone::Fixed(32_400)),
    ("asia/shanghai", Zone::Fixed(28_800)),
    ("asia/kolkata", Zone::Fixed(19_800)),
    ("eastern time", Zone::Us(-18_000)),
    ("central time", Zone::Us(-21_600)),
    ("mountain time", Zone::Us(-25_200)),
    ("pacific time", Zone::Us(-28_800)),
    ("paris time", Zone::Eu(3600)),
    ("berlin time", Zone::Eu(3600)),
    ("london time", Zone::Eu(0)),
    ("tokyo time", Zone::Fixed(32_400)),
    ("eastern", Zone::Us(-18_000)),
    ("central", Zone::Us(-21_600)),
    ("mountain", Zone::Us(-25_200)),
    ("pacific", Zone::Us(-28_800)),
];

/// The zone abbreviations the sites print after a time, with their offsets in hours.
const ZONES: &[(&str, Zone)] = &[
    ("utc", Zone::Fixed(0)),
    ("gmt", Zone::Fixed(0)),
    ("z", Zone::Fixed(0)),
    ("wet", Zone::Fixed(0)),
    ("west", Zone::Fixed(3600)),
    ("bst", Zone::Fixed(3600)),
    ("cet", Zone::Fixed(3600)),
    ("mez", Zone::Fixed(3600)),
    ("cest", Zone::Fixed(7200)),
    ("mesz", Zone::Fixed(7200)),
    ("eet", Zone::Fixed(7200)),
    ("eest", Zone::Fixed(10_800)),
    ("msk", Zone::Fixed(10_800)),
    ("ist", Zone::Fixed(19_800)),
    ("sgt", Zone::Fixed(28_800)),
    ("hkt", Zone::Fixed(28_800)),
    ("jst", Zone::Fixed(32_400)),
    ("kst", Zone::Fixed(32_400)),
    ("aest", Zone::Fixed(36_000)),
    ("aedt", Zone::Fixed(39_600)),
    ("nzst", Zone::Fixed(43_200)),
    ("nzdt", Zone::Fixed(46_800)),
    ("brt", Zone::Fixed(-10_800)),
    ("ast", Zone::Fixed(-14_400)),
    ("est", Zone::Fixed(-18_000)),
    ("edt", Zone::Fixed(-14_400)),
    ("et", Zone::Us(-18_000)),
    ("cst", Zone::Fixed(-21_600)),
    ("cdt", Zone::Fixed(-18_000)),
    ("ct", Zone::Us(-21_600)),
    ("mst", Zone::Fixed(-25_200)),
    ("mdt", Zone::Fixed(-21_600)),
    ("mt", Zone::Us(-25_200)),
    ("pst", Zone::Fixed(-28_800)),
    ("pdt", Zone::Fixed(-25_200)),
    ("pt", Zone::Us(-28_800)),
];

/// The zone at the start of `rest` (what follows a time): "UTC", "UTC+2", "GMT-08:00", "+01:00",
/// "(CET)", "PT". None where no zone is written.
fn zone_after(rest: &str) -> Option<Zone> {
    static ZONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^\s*\(?\s*([a-z]{1,5})?(?:\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?)?(?-u:\b)").ok()
    });
    let named = rest.trim_start().trim_start_matches('(').trim_start();
    if let Some((_, zone)) = NAMED_ZONES.iter().find(|(name, _)| named.starts_with(name)) {
        return Some(*zone);
    }
    let c = ZONE.as_ref()?.captures(rest)?;
    let offset = c.get(2).zip(c.get(3)).and_then(|(sign, hours)| {
        let hours: i64 = hours.as_str().parse().ok()?;
        let minutes: i64 = c.get(4).map_or(Some(0), |m| m.as_str().parse().ok())?;
        let sign = if sign.as_str() == "-" { -1 } else { 1 };
        (hours <= 14 && minutes < 60).then_some(sign * (hours * 3600 + minutes * 60))
    });
    // Abbreviations that are words too (French "et", "est"; German "ist") count only where no
    // word follows them: "16:00 et demain" is no zone, "4:00 PM EST." is.
    let then = rest[c.get(0)?.end()..].trim_start();
    // ("5pm ET tomorrow": a day after the zone is no word of a sentence.)
    let word_follows = then.chars().next().is_some_and(char::is_alphanumeric)
        && !TOMORROW
            .iter()
            .chain(&["today"])
            .any(|w| then.starts_with(w));
    match c.get(1).map(|m| m.as_str()) {
        Some("et" | "est" | "ist") if word_follows => None,
        // "UTC+2", "GMT-8": the offset from UTC written out.
        Some("utc" | "gmt") => Some(Zone::Fixed(offset.unwrap_or(0))),
        Some(name) => ZONES.iter().find(|(n, _)| *n == name).map(|(_, z)| *z),
        // "+01:00" right after the time.
        None => offset.map(Zone::Fixed),
    }
}

/// How long after a clock time the site still shows it as the reset: a minute rounded down,
/// and the page not yet redrawn.
const JUST_PAST: i64 = 5 * 60;

fn clock_time(lower: &str, clock: Clock) -> Option<Duration> {
    let (mut seconds, zone, half_unsaid) = time_of_day_and_half(lower)?;
    let today = (clock.unix + clock.offset).div_euclid(86_400);
    let offset = zone.map_or(clock.offset, |z| z.offset_on(today));
    let local_now = clock.unix + offset;
    let midnight = local_now.div_euclid(86_400) * 86_400;
    // An hour on a twelve-hour clock with no half of the day said, and no day named ("try
    // again at 11 o'clock", said at 22:25): this evening's when the morning's has gone by
    // today, the morning's otherwise.
    let day_named = weekday(lower).is_some() || TOMORROW.iter().any(|w| lower.contains(w));
    if half_unsaid && !day_named && midnight + seconds + JUST_PAST <= local_now {
        seconds += 12 * 3600;
    }
    let mut at = midnight + seconds;
    // The day of the week where the time is said (the notice's zone, when it names one).
    let zone_today = local_now.div_euclid(86_400);
    let weekday_ahead = weekday(lower).map(|day| (day - (zone_today + 3)).rem_euclid(7));
    if let Some(ahead) = weekday_ahead.filter(|ahead| *ahead > 0) {
        // A day of the week named ("resets Monday at 6:59 PM"): the next such day.
        at += ahead * 86_400;
    } else if weekday_ahead.is_none() && TOMORROW.iter().any(|w| lower.contains(w)) {
        at += 86_400;
    } else if at <= local_now && local_now - at < JUST_PAST {
        // The minute shown has just begun or gone: the site rounds its reset down to the
        // minute it falls in (a reset at 5:08:24 shows "5:08"), so it is due within a minute,
        // not tomorrow.
        at = local_now + 60;
    } else if at <= local_now {
        // A time already past today is tomorrow's, or the next week's where today's day of
        // the week is named.
        at += if weekday_ahead.is_some() { 7 } else { 1 } * 86_400;
    }
    until(clock, at - offset)
}

/// The day of the week `lower` names (0 Monday to 6 Sunday), where it names one.
fn weekday(lower: &str) -> Option<i64> {
    WEEKDAYS.iter().find_map(|(name, day)| {
        let latin = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() && (c as u32) < 0x3000);
        lower.match_indices(name).find_map(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + name.len()..].chars().next();
            let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            // A short form with its dot ends at the dot.
            let after_ok = name.ends_with('.') || edge(after);
            (!latin || (edge(before) && after_ok)).then_some(*day)
        })
    })
}

/// Seconds from a day's start to its last minute.
const LAST_MINUTE: i64 = 86_400 - 60;

fn month_day(lower: &str, clock: Clock) -> Option<Duration> {
    static MONTH_FIRST: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\b(\p{L}{3,10})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4}))?").ok()
    });
    static DAY_FIRST: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\b(\d{1,2})\.?\s+(?:de\s+)?(\p{L}{3,10})\.?(?:\s+(\d{4}))?").ok()
    });
    static EAST: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]").ok());
    let month_of = |name: &str| MONTHS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m);
    let mut found = None;
    if let Some(re) = MONTH_FIRST.as_ref() {
        for c in re.captures_iter(lower) {
            if let (Some(month), Some(day)) = (
                c.get(1).and_then(|m| month_of(m.as_str())),
                c.get(2).and_then(|d| d.as_str().parse::<i64>().ok()),
            ) {
                found = Some((month, day, c.get(3).and_then(|y| y.as_str().parse().ok())));
                break;
            }
        }
    }
    if found.is_none()
        && let Some(re) = DAY_FIRST.as_ref()
    {
        for c in re.captures_iter(lower) {
            if let (Some(day), Some(month)) = (
                c.get(1).and_then(|d| d.as_str().parse::<i64>().ok()),
                c.get(2).and_then(|m| month_of(m.as_str())),
            ) {
                found = Some((month, day, c.get(3).and_then(|y| y.as_str().parse().ok())));
                break;
            }
        }
    }
    if found.is_none()
        && let Some(c) = EAST.as_ref().and_then(|re| re.captures(lower))
    {
        let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<i64>().ok());
        found = Some((num(1)?, num(2)?, None));
    }
    let (month, day, year) = found?;
    if !(1..=31).contains(&day) {
        return None;
    }
    let local_now = clock.unix + clock.offset;
    let this_year = year_of(local_now.div_euclid(86_400));
    let given = time_of_day(lower);
    let seconds = given.map_or(0, |(s, _)| s);
    let zone = given.and_then(|(_, z)| z);
    let at = |year: i64| {
        let on = days_from_civil(year, month, day);
        on * 86_400 + seconds - zone.map_or(clock.offset, |z| z.offset_on(on))
    };
    let said_year = year.unwrap_or(this_year);
    let today = days_from_civil(said_year, month, day) == local_now.div_euclid(86_400);
    let mut moment = at(said_year);
    if today && given.is_none() {
        // Today's date with no time ("renews on 3 December", said on 3 December): later
        // today, at a time the site keeps to itself; its last minute is the safe wait.
        moment += LAST_MINUTE;
    } else if year.is_none() && moment <= clock.unix {
        // A date already past this year is next year's ("Jan 5", said in December).
        moment = at(this_year + 1);
    }
    until(clock, moment)
}
