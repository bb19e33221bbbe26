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
    "monthly budget",
    "spending cap",
    "spend cap",
    "raise the spending",
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
    "add credits",
    "buy credits",
    "top up",
    "top it up",
    "top them up",
    "prepaid balance",
    "prepaid credit",
    "credit is used up",
    "credits are used up",
    "credit has run out",
    "credits have run out",
    "ran out of credit",
    "out of credit",
    "no credit left",
    "balance is empty",
    "balance is exhausted",
    "no credits left",
    "guthaben aufladen",
    "guthaben ist aufgebraucht",
    "ajoutez des crédits",
    "solde est épuisé",
    "añade créditos",
    "recarga tu saldo",
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
    "assinatura expirada",
    "plano expirou",
    "plano venceu",
    "renove sua assinatura",
    "renove seu plano",
    "plan ha caducado",
    "plan ha expirado",
    "renueva tu suscripción",
    "renouvelez votre abonnement",
    "abo ist abgelaufen",
    "verlängere dein abo",
    "piano è scaduto",
    "rinnova il tuo abbonamento",
    "abonnement is verlopen",
    "verleng je abonnement",
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
    // A payment that did not go through, and a plan that takes no more messages until it is
    // paid for ("upgrade to keep chatting"). Not a trial that ended, nor a payment due, by
    // themselves: banners say so while the chat still works (a free tier, a grace period).
    "payment required",
    "payment was declined",
    "payment declined",
    "card was declined",
    "upgrade to keep chatting",
    "upgrade to continue chatting",
    "upgrade to keep using",
    "subscribe to keep chatting",
    "subscribe to continue",
    "zahlung fehlgeschlagen",
    "paiement a échoué",
    "pago ha fallado",
    "pago fue rechazado",
    "pagamento falhou",
    "pagamento non riuscito",
    "betaling mislukt",
    "платеж не прошел",
    "платёж не прошёл",
    "お支払いに失敗",
    "支払いに失敗",
    "決済に失敗",
    "プランが停止",
    "支付失败",
    "付款失败",
    "결제에 실패",
    // A payment or card declined, in the same languages.
    "zahlung wurde abgelehnt",
    "karte wurde abgelehnt",
    "paiement a été refusé",
    "carte a été refusée",
    "tarjeta fue rechazada",
    "pagamento foi recusado",
    "cartão foi recusado",
    "pagamento è stato rifiutato",
    "carta è stata rifiutata",
    "betaling is geweigerd",
    "kaart is geweigerd",
    "платеж отклонен",
    "платёж отклонён",
    "карта отклонена",
    "お支払いが拒否",
    "支払いが拒否",
    "決済が拒否",
    "カードが拒否",
    "付款被拒",
    "支付被拒",
    "付款遭拒",
    "결제가 거부",
    "카드가 거부",
];

const USAGE: &[&str] = &[
    "allowance used",
    "message allowance",
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
    "allowance used up",
    "allowance is used up",
    "allowance has been used",
    "daily allowance",
    "weekly allowance",
    "monthly allowance",
    "quota exceeded",
    "exceeded your quota",
    "quota reached",
    "quota is used up",
    "out of quota",
    "used all of your",
    "used all your messages",
    "burned through",
    "tous vos messages",
    "toutes vos requêtes",
    "todos tus mensajes",
    "alle nachrichten verbraucht",
    "alle deine nachrichten",
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
    "已达上限",
    "次数已达",
    "已达到上限",
    "额度已用完",
    "已达到使用限制",
    "用量上限",
    "사용 한도",
    "한도에 도달",
    "메시지 한도",
];

const RATE: &[&str] = &[
    "faster than we can",
    "too many prompts",
    "too many messages",
    "in a short time",
    "trop de messages",
    "patientez",
    "too many requests",
    "too many messages in a short",
    "too quickly",
    "too fast",
    "slow down",
    "before sending another",
    "bevor du die nächste",
    "bevor sie die nächste",
    "avant d'envoyer un autre",
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
    "çok fazla istek",
    "çok fazla mesaj",
    "çok hızlı",
    "zbyt wiele żądań",
    "zbyt wiele zapytań",
    "zbyt wiele wiadomości",
    "zbyt szybko",
];

const SERVER: &[&str] = &[
    "er ging iets mis",
    "er is een fout opgetreden",
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
    // The server failing or overloaded, in the sites' other languages.
    "erro interno",
    "erro no servidor",
    "erro do servidor",
    "sobrecarregado",
    "error interno",
    "error del servidor",
    "sobrecargado",
    "erreur interne",
    "erreur du serveur",
    "erreur serveur",
    "surchargé",
    "interner serverfehler",
    "serverfehler",
    "überlastet",
    "errore interno",
    "errore del server",
    "sovraccarico",
    "interne serverfout",
    "serverfout",
    "overbelast",
    "внутренняя ошибка сервера",
    "ошибка сервера",
    "перегружен",
    "サーバーエラー",
    "混雑して",
    "过载",
    "服务器错误",
    "伺服器錯誤",
    "서버 오류",
    "과부하",
    "sunucu hatası",
    "błąd serwera",
    "przeciążon",
];

/// An expired session said in a notice area (a wall the page stands in the chat's place for is
/// told by `page.js`'s look for a missing composer, with these words and the site's).
const LOGIN: &[&str] = &[
    "signed out",
    "sign in again",
    "log in again",
    "logged out",
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
    "security check",
    "complete the check",
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
    "your allowance",
    "your plan",
    "your quota",
    "your limit",
    "your usage",
    "back in ",
    "patientez",
    "retry in",
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
    // Asked to wait, in the sites' languages.
    "wait ",
    "warte",
    "warten sie",
    "attendez",
    "attends",
    "espera ",
    "espere ",
    "aspetta",
    "aguarde",
    "подождите",
    // A time to come back, and the site's polite forms of "you" (a model writing AgentScript
    // does not address the person so).
    "come back",
    "sie haben",
    "vous avez",
    "has alcanzado",
    "hai raggiunto",
    "você",
    "您",
    "再试",
    "后再",
    "お待ちください",
    "잠시 후",
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

/// The nouns a site names a plan's allowance with, in the sites' languages: Latin-script words
/// stand alone (`cap` is no part of "capacity"), east-Asian ones are matched inside the text.
const LIMIT_NOUNS: &[&str] = &[
    "quota",
    "quotas",
    "allowance",
    "cap",
    "limit",
    "limits",
    "kontingent",
    "obergrenze",
    "limite",
    "limites",
    "forfait",
    "límite",
    "límites",
    "cuota",
    "cota",
    "上限",
    "额度",
    "配额",
    "限额",
    "額度",
    "利用枠",
    "制限",
    "クォータ",
    "한도",
    "할당량",
];

/// The limit nouns German puts at the end of a compound ("Nachrichtenkontingent",
/// "Tageslimit"): a word ending in one counts as it.
const COMPOUND_NOUNS: &[&str] = &["kontingent", "obergrenze", "limit"];

/// What happened to the allowance, or what it will do: reached, used up, renewing.
const LIMIT_STATES: &[&str] = &[
    "hit",
    "reached",
    "exceeded",
    "used up",
    "used all",
    "run out",
    "ran out",
    "out of",
    "renews",
    "resets",
    "refreshes",
    "replenishes",
    "come back",
    "erreicht",
    "überschritten",
    "aufgebraucht",
    "verbraucht",
    "zurückgesetzt",
    "erneuert",
    "atteint",
    "dépassé",
    "épuisé",
    "renouvel",
    "réinitialis",
    "alcanzado",
    "superado",
    "agotado",
    "renueva",
    "restablece",
    "raggiunto",
    "superato",
    "esaurito",
    "rinnova",
    "ripristin",
    "atingiu",
    "atingido",
    "excedeu",
    "esgotad",
    "renova",
    "redefin",
    "达到",
    "達到",
    "用完",
    "用尽",
    "耗尽",
    "超出",
    "重置",
    "に達し",
    "超え",
    "使い切",
    "リセット",
    "도달",
    "초과",
    "소진",
    "초기화",
];

/// What a site says when a model's cap is reached but the chat goes on with another model: a
/// fallback, not a refusal (what answers then is checked against the model chosen, as
/// `KA_MODEL_CHANGED`), so no limit is named for it.
const GOES_ON: &[&str] = &[
    "continue with",
    "can continue",
    "can keep",
    "switched to",
    "switching to",
    "now using",
    "instead",
    "weiter mit",
    "continuer avec",
    "continuar con",
    "continuare con",
    "continuar com",
    "继续使用",
    "引き続き",
    "계속 사용",
];

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
mod reset;

#[cfg(test)]
mod tests;
