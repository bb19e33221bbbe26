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

/// The words of each kind, lowercase, in the languages the sites ship (English, German,
/// French, Spanish, Portuguese, Italian, Dutch, Russian, Japanese, Chinese, Korean). Looked for
/// in this order: a spend limit's words often mention a limit too, and a usage limit's a
/// "try again".
const SPEND: &[&str] = &[
    "spend limit",
    "spending limit",
    "monthly spend",
    "billing limit",
    "payment failed",
    "payment method",
    "subscription has expired",
    "subscription expired",
    "subscription has ended",
    "plan has expired",
    "plan has lapsed",
    "plan expired",
    "renew your subscription",
    "renew your plan",
    "out of credits",
    "insufficient credits",
    "insufficient balance",
    "credit balance is too low",
    "add more credits",
    "purchase more credits",
    "ausgabenlimit",
    "abonnement ist abgelaufen",
    "guthaben reicht nicht",
    "limite de dépenses",
    "abonnement a expiré",
    "crédits insuffisants",
    "límite de gasto",
    "suscripción ha caducado",
    "suscripción ha expirado",
    "saldo insuficiente",
    "limite de gastos",
    "assinatura expirou",
    "limite di spesa",
    "abbonamento è scaduto",
    "bestedingslimiet",
    "лимит расходов",
    "подписка истекла",
    "недостаточно средств",
    "残高不足",
    "クレジットが不足",
    "サブスクリプションの有効期限が切れ",
    "余额不足",
    "订阅已过期",
    "额度不足",
    "잔액이 부족",
    "구독이 만료",
];

const USAGE: &[&str] = &[
    "usage limit",
    "usage cap",
    "message limit",
    "message cap",
    "messages limit",
    "session limit",
    "weekly limit",
    "daily limit",
    "hourly limit",
    "plan limit",
    "limit reached",
    "limit resets",
    "reached your limit",
    "reached the limit",
    "hit your limit",
    "hit the limit",
    "reached our limit",
    "reached the current usage cap",
    "out of free messages",
    "out of messages",
    "no messages left",
    "used up your",
    "used all of your",
    "limit for gpt",
    "nutzungslimit",
    "nachrichtenlimit",
    "limit erreicht",
    "limit wird zurückgesetzt",
    "limite d'utilisation",
    "limite de messages",
    "limite atteinte",
    "atteint la limite",
    "atteint votre limite",
    "límite de uso",
    "límite de mensajes",
    "alcanzado el límite",
    "alcanzado tu límite",
    "limite de uso",
    "limite de mensagens",
    "atingiu o limite",
    "limite di utilizzo",
    "limite di messaggi",
    "raggiunto il limite",
    "gebruikslimiet",
    "limiet bereikt",
    "лимит сообщений",
    "лимит использования",
    "достигли лимита",
    "исчерпали лимит",
    "上限に達しました",
    "利用上限",
    "使用上限",
    "メッセージの上限",
    "已达到上限",
    "达到上限",
    "使用上限",
    "次数已用完",
    "额度已用完",
    "已达到使用限制",
    "用量上限",
    "사용 한도",
    "한도에 도달",
    "메시지 한도",
];

const RATE: &[&str] = &[
    "too many requests",
    "too many messages in a short",
    "too quickly",
    "too fast",
    "slow down",
    "rate limit",
    "rate-limit",
    "temporarily limited",
    "please wait a few minutes",
    "please wait a moment before",
    "zu viele anfragen",
    "zu schnell",
    "trop de requêtes",
    "trop de demandes",
    "trop rapidement",
    "demasiadas solicitudes",
    "demasiadas peticiones",
    "muitas solicitações",
    "muitas requisições",
    "troppe richieste",
    "te veel verzoeken",
    "слишком много запросов",
    "слишком часто",
    "リクエストが多すぎ",
    "リクエスト数が多",
    "请求过多",
    "请求太频繁",
    "请求过于频繁",
    "操作过于频繁",
    "频率过高",
    "요청이 너무 많",
];

const SERVER: &[&str] = &[
    "something went wrong",
    "something has gone wrong",
    "gone wrong",
    "an error occurred",
    "error occurred",
    "an error has occurred",
    "internal server error",
    "server error",
    "failed to generate",
    "error generating",
    "error in message stream",
    "error in body stream",
    "failed to load subscription",
    "network error",
    "at capacity",
    "overloaded",
    "temporarily unavailable",
    "service unavailable",
    "bad gateway",
    "request timed out",
    "request failed",
    "etwas ist schiefgelaufen",
    "fehler ist aufgetreten",
    "une erreur s'est produite",
    "une erreur est survenue",
    "s'est mal passé",
    "algo salió mal",
    "se produjo un error",
    "ocurrió un error",
    "algo deu errado",
    "ocorreu um erro",
    "qualcosa è andato storto",
    "si è verificato un errore",
    "er is iets misgegaan",
    "что-то пошло не так",
    "произошла ошибка",
    "エラーが発生しました",
    "問題が発生しました",
    "出错了",
    "发生错误",
    "服务器繁忙",
    "服务繁忙",
    "网络错误",
    "오류가 발생",
    "문제가 발생",
];

/// An expired session said in a notice area (a wall the page stands in the chat's place for is
/// told by `page.js`'s look for a missing composer, with these words and the site's).
const LOGIN: &[&str] = &[
    "session has expired",
    "session expired",
    "please log in again",
    "please sign in again",
    "log in to continue",
    "sign in to continue",
    "sitzung ist abgelaufen",
    "erneut anmelden",
    "session a expiré",
    "sesión ha caducado",
    "sessão expirou",
    "sessione è scaduta",
    "сеанс истек",
    "セッションの有効期限",
    "会话已过期",
    "请重新登录",
    "세션이 만료",
];

const BOT: &[&str] = &[
    "verify you are human",
    "verify that you are human",
    "are you a robot",
    "not a robot",
    "checking your browser",
    "checking if the site connection is secure",
    "complete the captcha",
    "unusual activity",
    "unusual traffic",
    "bestätigen sie, dass sie ein mensch sind",
    "vérifiez que vous êtes humain",
    "verifica que eres humano",
    "verifique que você é humano",
    "подтвердите, что вы человек",
    "人間であることを確認",
    "验证您是真人",
    "人机验证",
];

/// A reply's place holds a limit only with a sign that it is the site talking to the person:
/// a "try again", an address to "you" about their plan (or a reset time, checked apart).
const ADDRESSED: &[&str] = &[
    "try again",
    "you've",
    "you have",
    "you are out",
    "you're",
    "erneut",
    "versuchen sie",
    "réessayer",
    "réessayez",
    "inténtalo",
    "vuelve a intentarlo",
    "tente novamente",
    "riprova",
    "попробуйте",
    "後でもう一度",
    "お試しください",
    "请稍后",
    "稍后再试",
    "다시 시도",
];

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
    } else if has(LOGIN) || (place == Place::Area && has_extra(&extra.login)) {
        Kind::LoginWall
    } else if has(SERVER) || server_status(&lower) {
        Kind::ServerError
    } else {
        return None;
    };
    // In the reply's place, a limit counts only where the site addresses the person (a reset,
    // "try again", "you've…"): a model may well mention a limit in passing.
    if place == Place::Reply
        && matches!(kind, Kind::RateLimit | Kind::UsageLimit)
        && resets_in.is_none()
        && !has(ADDRESSED)
    {
        return None;
    }
    Some(Notice {
        kind,
        words: folded.chars().take(QUOTED_CHARS).collect(),
        resets_in: resets_in.filter(|_| kind.passes_with_time()),
    })
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
        Regex::new(r"(?:\b(?:error|status|code|http)\W{0,3}5(?:00|02|03|04)\b|^5(?:00|02|03|04)\b)")
            .ok()
    });
    STATUS.as_ref().is_some_and(|re| re.is_match(lower))
}

/// Seconds in one unit of a relative time, by the unit's word in the languages above.
fn unit_seconds(unit: &str) -> Option<u64> {
    let unit = unit.trim_end_matches('.');
    Some(match unit {
        "s" | "sec" | "secs" | "second" | "seconds" | "sek" | "sekunde" | "sekunden"
        | "seconde" | "secondes" | "segundo" | "segundos" | "secondi" | "秒" | "초" | "секунд"
        | "секунды" | "секунду" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" | "minuten" | "minuto" | "minutos"
        | "minuti" | "minuut" | "分" | "分钟" | "分鐘" | "분" | "минут" | "минуты" | "минуту" => {
            60
        }
        "h" | "hr" | "hrs" | "hour" | "hours" | "std" | "stunde" | "stunden" | "heure"
        | "heures" | "hora" | "horas" | "ora" | "ore" | "uur" | "時間" | "小时" | "小時"
        | "시간" | "час" | "часа" | "часов" => 3600,
        "d" | "day" | "days" | "tag" | "tage" | "tagen" | "jour" | "jours" | "día" | "días"
        | "dia" | "dias" | "giorno" | "giorni" | "dag" | "dagen" | "日" | "天" | "일" | "день"
        | "дня" | "дней" => 86_400,
        _ => return None,
    })
}

/// When the limit resets, as the text says: a relative time ("in 3 hours", "in 1h 30m",
/// "dans 20 minutes", "3時間後"), an ISO date and time, a month and day ("Jan 5", "5 Jan",
/// with a time or not), or a clock time ("4:00 PM", "16:00", "9am", "tomorrow at 9am"),
/// each in local time unless it names UTC or an offset.
fn reset(lower: &str, clock: Clock) -> Option<Duration> {
    let found = relative(lower)
        .or_else(|| iso(lower, clock))
        .or_else(|| month_day(lower, clock))
        .or_else(|| clock_time(lower, clock))?;
    (found <= LONGEST_RESET).then_some(found)
}

/// Words after which "in 3 hours" is a limit's window ("40 messages in 3 hours"), not a reset.
const WINDOWED: &[&str] = &[
    "requests",
    "messages",
    "prompts",
    "queries",
    "anfragen",
    "nachrichten",
    "requêtes",
    "messages",
    "solicitudes",
    "mensajes",
];

fn relative(lower: &str) -> Option<Duration> {
    // "in", "after", "within" and their kin before it; or an east-Asian "after" behind it.
    static LEAD: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?:\bin|\bafter|\bwithin|\bdans|\ben|\bdentro de|\bem|\btra|\bfra|\bover|\bчерез)\s+((?:\d+\s*[\p{L}.]+(?:\s*(?:,|and|und|et|y|e|и)?\s*)?)+)").ok()
    });
    static PART: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(\d+)\s*([\p{L}.]+)").ok());
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
    let c = trail.captures(lower)?;
    sum(c.get(1)?.as_str())
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil year of a day count from 1970-01-01.
fn year_of(days: i64) -> i64 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
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

/// A clock time in a text: seconds after local midnight, and whether it names UTC.
fn time_of_day(text: &str) -> Option<(i64, bool)> {
    static TWELVE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?:\s*(utc|gmt))?").ok()
    });
    static TWENTY_FOUR: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\b(\d{1,2})[:h](\d{2})\b(?:\s*(?:uhr|h))?(?:\s*(utc|gmt))?").ok()
    });
    static EAST: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(\d{1,2})\s*(?:時|点|點|시)(?:\s*(\d{1,2})\s*(?:分|분))?").ok()
    });
    let utc = |m: Option<regex::Match>| m.is_some();
    if let Some(c) = TWELVE.as_ref()?.captures(text) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        let minute: i64 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
        if !(1..=12).contains(&hour) || minute > 59 {
            return None;
        }
        let pm = c.get(3)?.as_str().starts_with('p');
        let hour = hour % 12 + if pm { 12 } else { 0 };
        return Some((hour * 3600 + minute * 60, utc(c.get(4))));
    }
    if let Some(c) = TWENTY_FOUR.as_ref()?.captures(text) {
        let hour: i64 = c.get(1)?.as_str().parse().ok()?;
        let minute: i64 = c.get(2)?.as_str().parse().ok()?;
        if hour > 23 || minute > 59 {
            return None;
        }
        return Some((hour * 3600 + minute * 60, utc(c.get(3))));
    }
    let c = EAST.as_ref()?.captures(text)?;
    let hour: i64 = c.get(1)?.as_str().parse().ok()?;
    let minute: i64 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
    let afternoon = ["下午", "午後", "오후"].iter().any(|w| text.contains(w)) && hour < 12;
    (hour <= 23 && minute <= 59).then_some((
        (hour + if afternoon { 12 } else { 0 }) * 3600 + minute * 60,
        false,
    ))
}

/// The words for "tomorrow".
const TOMORROW: &[&str] = &[
    "tomorrow",
    "morgen",
    "demain",
    "mañana",
    "amanhã",
    "domani",
    "завтра",
    "明日",
    "明天",
    "내일",
];

fn clock_time(lower: &str, clock: Clock) -> Option<Duration> {
    let (seconds, utc) = time_of_day(lower)?;
    let offset = if utc { 0 } else { clock.offset };
    let local_now = clock.unix + offset;
    let midnight = local_now.div_euclid(86_400) * 86_400;
    let mut at = midnight + seconds;
    if TOMORROW.iter().any(|w| lower.contains(w)) {
        at += 86_400;
    } else if at <= local_now {
        // A time already past today is tomorrow's.
        at += 86_400;
    }
    until(clock, at - offset)
}

/// Month names and their numbers (English and the sites' other languages, short and long).
const MONTHS: &[(&str, i64)] = &[
    ("january", 1),
    ("jan", 1),
    ("januar", 1),
    ("janvier", 1),
    ("enero", 1),
    ("february", 2),
    ("feb", 2),
    ("februar", 2),
    ("février", 2),
    ("febrero", 2),
    ("march", 3),
    ("mar", 3),
    ("märz", 3),
    ("mars", 3),
    ("marzo", 3),
    ("april", 4),
    ("apr", 4),
    ("avril", 4),
    ("abril", 4),
    ("may", 5),
    ("mai", 5),
    ("mayo", 5),
    ("june", 6),
    ("jun", 6),
    ("juni", 6),
    ("juin", 6),
    ("junio", 6),
    ("july", 7),
    ("jul", 7),
    ("juli", 7),
    ("juillet", 7),
    ("julio", 7),
    ("august", 8),
    ("aug", 8),
    ("août", 8),
    ("agosto", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("septembre", 9),
    ("septiembre", 9),
    ("october", 10),
    ("oct", 10),
    ("oktober", 10),
    ("octobre", 10),
    ("octubre", 10),
    ("november", 11),
    ("nov", 11),
    ("novembre", 11),
    ("noviembre", 11),
    ("december", 12),
    ("dec", 12),
    ("dezember", 12),
    ("décembre", 12),
    ("diciembre", 12),
];

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
    let seconds = time_of_day(lower).map_or(0, |(s, _)| s);
    let at = |year: i64| days_from_civil(year, month, day) * 86_400 + seconds - clock.offset;
    let mut moment = at(year.unwrap_or(this_year));
    if year.is_none() && moment <= clock.unix {
        // A date already past this year is next year's ("Jan 5", said in December).
        moment = at(this_year + 1);
    }
    until(clock, moment)
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

#[cfg(test)]
mod tests;
