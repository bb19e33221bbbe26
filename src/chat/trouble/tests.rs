//! The classifier on the sites' own wordings, in their languages and time formats, and on
//! replies that only talk about limits (which stay replies).

use super::reset::{days_from_civil, year_of};
use super::*;

/// 2026-12-02 10:00:00 UTC, a Wednesday; the person's clock is UTC+1 (11:00 local).
const NOW: Clock = Clock {
    unix: 1_796_205_600,
    offset: 3600,
};

fn area(text: &str) -> Option<Notice> {
    classify(text, Place::Area, &Extra::default(), NOW)
}

fn reply(text: &str) -> Option<Notice> {
    classify(text, Place::Reply, &Extra::default(), NOW)
}

fn kind(notice: Option<Notice>) -> Option<Kind> {
    notice.map(|n| n.kind)
}

fn hours(h: u64, m: u64) -> Option<Duration> {
    Some(Duration::from_secs(h * 3600 + m * 60))
}

#[test]
fn the_clock_is_the_one_the_tests_mean() {
    // 2026-12-02 is day 20789 since 1970-01-01.
    assert_eq!(days_from_civil(2026, 12, 2), 20_789);
    assert_eq!(NOW.unix, 20_789 * 86_400 + 10 * 3600);
    assert_eq!(year_of(20_789), 2026);
    assert_eq!(year_of(days_from_civil(2027, 1, 5)), 2027);
    assert_eq!(year_of(days_from_civil(2024, 2, 29)), 2024);
}

/// A date with no time that is today where the person is ("renews on 3 December" read on 3
/// December) is later today, its last minute waited for, never next year's and never dropped;
/// with a time already past today it is next year's.
#[test]
fn today_s_date_without_a_time_is_later_today() {
    let words = "Your allowance renews on 3 December.";
    // 2026-12-03 00:47 UTC, 01:47 local.
    let early = Clock {
        unix: days_from_civil(2026, 12, 3) * 86_400 + 47 * 60,
        offset: 3600,
    };
    let read = |text: &str| classify(text, Place::Area, &Extra::default(), early).unwrap();
    let notice = read(words);
    assert_eq!(notice.kind, Kind::UsageLimit);
    // Local 23:59 on 3 December is 22 h 12 min away; the same with the year written.
    assert_eq!(notice.resets_in, hours(22, 12));
    let with_year = read("Your allowance renews on 3 December 2026.");
    assert_eq!(with_year.resets_in, hours(22, 12));
    // A time already past today: next year's 3 December at 01:00 local.
    let past = read("Your allowance renews on 3 December at 1:00.");
    assert!(
        past.resets_in
            .is_none_or(|d| d > Duration::from_secs(300 * 86_400)),
        "{past:?}"
    );
    // Said the day before, the day's start is the reset, as before.
    assert_eq!(area(words).unwrap().resets_in, hours(13, 0));
}

#[test]
fn each_kind_is_named_in_the_sites_words_and_languages() {
    let cases: &[(&str, Kind)] = &[
        (
            "Too many requests. You're making requests too quickly. We've temporarily limited access to your conversations. Got it",
            Kind::RateLimit,
        ),
        (
            "Too many requests in 1 hour. Try again later.",
            Kind::RateLimit,
        ),
        ("Error 429: slow down", Kind::RateLimit),
        (
            "Zu viele Anfragen. Bitte versuche es später erneut.",
            Kind::RateLimit,
        ),
        ("Trop de requêtes. Réessayez plus tard.", Kind::RateLimit),
        (
            "Demasiadas solicitudes. Inténtalo de nuevo más tarde.",
            Kind::RateLimit,
        ),
        ("请求过于频繁，请稍后再试", Kind::RateLimit),
        (
            "リクエストが多すぎます。しばらくしてからお試しください。",
            Kind::RateLimit,
        ),
        (
            "You've hit your session limit · resets 4pm",
            Kind::UsageLimit,
        ),
        ("Weekly limit reached · resets Jan 5", Kind::UsageLimit),
        (
            "You've reached the current usage cap for GPT-4. You can continue with the default model now, or try again after 7:06 PM",
            Kind::UsageLimit,
        ),
        ("You are out of free messages until 3 PM", Kind::UsageLimit),
        (
            "You've hit the Free plan limit for GPT-5.",
            Kind::UsageLimit,
        ),
        (
            "Du hast dein Nutzungslimit erreicht. Es wird um 16:00 zurückgesetzt.",
            Kind::UsageLimit,
        ),
        (
            "Vous avez atteint la limite de messages. Réessayez dans 3 heures.",
            Kind::UsageLimit,
        ),
        (
            "Has alcanzado el límite de mensajes. Vuelve a intentarlo mañana a las 9:00.",
            Kind::UsageLimit,
        ),
        ("您已达到使用上限，请在 3小时后 再试", Kind::UsageLimit),
        (
            "メッセージの上限に達しました。午後4時にリセットされます。",
            Kind::UsageLimit,
        ),
        (
            "사용 한도에 도달했습니다. 3시간 후 다시 시도하세요.",
            Kind::UsageLimit,
        ),
        (
            "Вы достигли лимита сообщений. Попробуйте через 2 часа.",
            Kind::UsageLimit,
        ),
        (
            "You've hit your org's monthly spend limit",
            Kind::SpendLimit,
        ),
        (
            "Your subscription has expired. Renew your subscription to keep chatting.",
            Kind::SpendLimit,
        ),
        ("Insufficient balance. Please top up.", Kind::SpendLimit),
        ("余额不足", Kind::SpendLimit),
        (
            "Your free trial has ended. Upgrade to keep chatting.",
            Kind::SpendLimit,
        ),
        (
            "Payment required: your subscription is past due.",
            Kind::SpendLimit,
        ),
        (
            "お支払いに失敗したため、プランが停止されています。",
            Kind::SpendLimit,
        ),
        // A payment declined, by a bank or a card.
        (
            "お支払いが拒否されました。カード情報を更新してください。",
            Kind::SpendLimit,
        ),
        (
            "Ihre Zahlung wurde abgelehnt. Bitte aktualisieren Sie Ihre Zahlungsmethode.",
            Kind::SpendLimit,
        ),
        (
            "Votre carte a été refusée. Mettez à jour votre moyen de paiement.",
            Kind::SpendLimit,
        ),
        ("您的付款被拒绝，请更新付款方式。", Kind::SpendLimit),
        (
            "결제가 거부되었습니다. 결제 수단을 업데이트하세요.",
            Kind::SpendLimit,
        ),
        ("Ваш платёж отклонён банком.", Kind::SpendLimit),
        (
            "Ödemeniz reddedildi. Ödeme yönteminizi güncelleyin.",
            Kind::SpendLimit,
        ),
        (
            "Płatność została odrzucona. Zaktualizuj metodę płatności.",
            Kind::SpendLimit,
        ),
        ("您的付款遭到拒絕，請更新付款方式。", Kind::SpendLimit),
        ("카드 결제가 실패했습니다.", Kind::SpendLimit),
        // Throttles and limits in the wordings a second attack found missing.
        (
            "Du sendest zu viele Nachrichten. Versuche es in 2 Minuten erneut.",
            Kind::RateLimit,
        ),
        (
            "Du hast zu viele Nachrichten gesendet. Bitte warte 30 Sekunden.",
            Kind::RateLimit,
        ),
        (
            "Je berichtenlimiet is bereikt. Probeer het over 2 uur opnieuw.",
            Kind::UsageLimit,
        ),
        (
            "Something went wrong. If this issue persists please contact us through our help center.",
            Kind::ServerError,
        ),
        ("Something went wrong. 500", Kind::ServerError),
        (
            "There was an error generating a response. Regenerate",
            Kind::ServerError,
        ),
        ("Failed to load subscription", Kind::ServerError),
        (
            "Claude is currently at capacity. Please try again later.",
            Kind::ServerError,
        ),
        (
            "Etwas ist schiefgelaufen. Erneut versuchen",
            Kind::ServerError,
        ),
        ("Une erreur s'est produite. Réessayer", Kind::ServerError),
        ("服务器繁忙，请稍后再试。", Kind::ServerError),
        (
            "Your session has expired. Please log in again.",
            Kind::LoginWall,
        ),
        (
            "Verify you are human by completing the action below.",
            Kind::BotCheck,
        ),
        (
            "Checking your browser before accessing the site.",
            Kind::BotCheck,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(kind(area(text)), Some(*want), "{text}");
    }
}

#[test]
fn a_notice_in_the_reply_s_place_is_trouble_and_its_words_are_kept() {
    let n = reply("You've hit your limit · resets 4:00 PM").unwrap();
    assert_eq!(n.kind, Kind::UsageLimit);
    assert_eq!(n.words, "You've hit your limit · resets 4:00 PM");
    // 11:00 local now: five hours.
    assert_eq!(n.resets_in, hours(5, 0));
    assert_eq!(
        kind(reply("Something went wrong while generating the response.")),
        Some(Kind::ServerError)
    );
    assert_eq!(
        kind(reply("Too many requests. Please try again in 20 seconds.")),
        Some(Kind::RateLimit)
    );
    let long_words = format!("{}   You've hit\n\nyour limit.", "x".repeat(10));
    assert_eq!(
        reply(&long_words).unwrap().words,
        "xxxxxxxxxx You've hit your limit."
    );
}

#[test]
fn a_reply_that_discusses_limits_is_a_reply() {
    for text in [
        // AgentScript that mentions limits.
        "```\n@@say\n<<<MSG\nThe API returns 429 Too Many Requests when you hit the rate limit; I added backoff.\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n```",
        // Prose, short, with no address to the person.
        "Rate limits protect the service: the limit resets each hour for every client.",
        // A long answer about usage caps.
        &"The usage limit of the free plan is documented. Something went wrong earlier in the code: the handler retried too quickly. ".repeat(8),
        // A fenced block that quotes a site's notice.
        "```text\nYou've hit your limit · resets 4pm\n```",
        "",
        "   ",
    ] {
        assert_eq!(reply(text), None, "{text}");
    }
    // Nothing to do with trouble, in an area either.
    assert_eq!(area("Copied to clipboard"), None);
    assert_eq!(area("New chat"), None);
    // A wrapper of the page is no notice.
    assert_eq!(area(&"too many requests ".repeat(200)), None);
}

#[test]
fn reset_times_are_read_in_every_format_sites_use() {
    let cases: &[(&str, Option<Duration>)] = &[
        // Clock times, local (11:00 now).
        ("Usage limit reached. Resets at 4:00 PM", hours(5, 0)),
        ("Usage limit reached. Resets at 4 p.m.", hours(5, 0)),
        ("Usage limit reached. Resets at 16:00", hours(5, 0)),
        (
            "Nutzungslimit erreicht, zurückgesetzt um 16:30 Uhr",
            hours(5, 30),
        ),
        ("Limite atteinte jusqu'à 16h00", hours(5, 0)),
        // Earlier than now: tomorrow.
        ("Usage limit reached. Resets at 9am", hours(22, 0)),
        // The minute that has just gone (a reset rounded down to it): a minute from now.
        ("Usage limit reached. Resets at 11:00", hours(0, 1)),
        ("Usage limit reached. Resets at 10:57 AM", hours(0, 1)),
        ("Usage limit reached. Resets at 10:50", hours(23, 50)),
        // A time that touches CJK text.
        (
            "メッセージの上限に達しました。16:00以降にもう一度お試しください。",
            hours(5, 0),
        ),
        ("Usage limit reached. Resets tomorrow at 9am", hours(22, 0)),
        (
            "You've hit your limit, resets tomorrow at 1 PM",
            hours(26, 0),
        ),
        // A day of the week (today is a Wednesday): the next such day, or next week's for
        // today's name at a time gone by.
        (
            "You've used all your messages for this week. Your limit resets Monday at 6:59 PM.",
            hours(5 * 24 + 7, 59),
        ),
        ("Usage limit reached. Resets Wednesday at 3 PM", hours(4, 0)),
        (
            "Usage limit reached. Resets Wednesday at 9am",
            hours(7 * 24 - 2, 0),
        ),
        (
            "Nutzungslimit erreicht. Zurückgesetzt am Montag um 10:00 Uhr.",
            hours(5 * 24 - 1, 0),
        ),
        (
            "Límite de uso alcanzado. Se restablece el viernes a las 9:00.",
            hours(2 * 24 - 2, 0),
        ),
        (
            "使用上限に達しました。金曜日の9:00にリセットされます。",
            hours(46, 0),
        ),
        // Short forms (today is a Wednesday, 11:00 local).
        (
            "Weekly limit reached. Resets Tue 3:15 PM.",
            hours(6 * 24 + 4, 15),
        ),
        (
            "Usage limit reached. Resets Mon, 10:00 AM.",
            hours(5 * 24 - 1, 0),
        ),
        (
            "Nutzungslimit erreicht. Zurückgesetzt Di., 15:15 Uhr.",
            hours(6 * 24 + 4, 15),
        ),
        (
            "Limite atteinte. Réinitialisée lun. à 9 h 30.",
            hours(5 * 24 - 2, 30),
        ),
        // German times with a dot.
        (
            "Nutzungslimit erreicht. Wieder verfügbar um 21.30 Uhr.",
            hours(10, 30),
        ),
        (
            "Limit erreicht – Nachrichten wieder ab 17.42 Uhr",
            hours(6, 42),
        ),
        // An hour on a twelve-hour clock: the evening's where named, or where the morning's
        // went by today (now 11:00); a day named keeps the morning's.
        (
            "You've reached your usage limit. It resets at 11 o'clock tonight.",
            hours(12, 0),
        ),
        ("Usage limit reached. Try again at 9 o'clock.", hours(10, 0)),
        ("Usage limit reached. Back at 9 tonight.", hours(10, 0)),
        // An hour with its "o'clock" (Uhr, uur after "om") wherever it stands.
        (
            "Nutzungslimit erreicht. Wieder verfügbar Montag, 10 Uhr.",
            hours(5 * 24 - 1, 0),
        ),
        (
            "Usage limit reached. Back Friday, 9 o'clock.",
            hours(2 * 24 - 2, 0),
        ),
        (
            "Gebruikslimiet bereikt. Weer beschikbaar om 14 uur.",
            hours(3, 0),
        ),
        // A bare hour after "at" where a day follows or the sentence ends.
        ("Usage limit reached. Resets tomorrow at 9", hours(22, 0)),
        (
            "Usage limit reached. Come back at 9 tomorrow.",
            hours(22, 0),
        ),
        // Named UTC.
        ("Usage limit reached until 12:00 UTC", hours(2, 0)),
        // Relative.
        ("You've hit your limit. Try again in 3 hours.", hours(3, 0)),
        ("Usage limit reached, try again in 45 minutes", hours(0, 45)),
        ("Usage limit reached, resets in 1h 30m", hours(1, 30)),
        (
            "Usage limit reached, resets in 2 hours and 15 minutes",
            hours(2, 15),
        ),
        (
            "Too many requests, try again in 20s",
            Some(Duration::from_secs(20)),
        ),
        (
            "Vous avez atteint la limite de messages. Réessayez dans 3 heures.",
            hours(3, 0),
        ),
        (
            "Nutzungslimit erreicht. Versuchen Sie es in 20 Minuten erneut.",
            hours(0, 20),
        ),
        ("您已达到使用上限，请在 3小时后 再试", hours(3, 0)),
        // ISO.
        (
            "Usage limit reached. Resets 2026-12-02T15:00:00Z",
            hours(5, 0),
        ),
        ("Usage limit reached. Resets 2026-12-02 15:00", hours(4, 0)),
        (
            "Usage limit reached. Resets 2026-12-02T17:00:00+02:00",
            hours(5, 0),
        ),
        // A day of a month, next occurrence.
        ("Weekly limit reached · resets Dec 3", hours(13, 0)),
        (
            "Weekly limit reached · resets Dec 3 at 3:00 PM",
            hours(28, 0),
        ),
        ("Weekly limit reached · resets 3 Dec", hours(13, 0)),
        // Other languages' short forms of a month (found by an outside attack, issue 31).
        ("Limite atteinte. Réessayez le 3 déc.", hours(13, 0)),
        ("Limit erreicht. Wieder verfügbar am 3. Dez.", hours(13, 0)),
        (
            "Has alcanzado el límite de uso. Vuelve el 3 de dic.",
            hours(13, 0),
        ),
        // A short form that is an English word is no month.
        ("Usage limit reached: you ran out 3 times today.", None),
        // No time given, or one past the longest believable.
        ("You've hit your limit. Try again later.", None),
        // Next year's: 2027-01-05 00:00 local is 33 days and 13 hours away.
        (
            "Weekly limit reached · resets Jan 5",
            hours(33 * 24 + 13, 0),
        ),
        ("Usage limit reached, resets in 400 days", None),
    ];
    for (text, want) in cases {
        let got = area(text).unwrap_or_else(|| panic!("no notice in {text}"));
        assert_eq!(got.resets_in, *want, "{text}");
    }
    // A window is not a reset.
    assert_eq!(
        area("Too many requests in 1 hour. Try again later.")
            .unwrap()
            .resets_in,
        None
    );
    // A spend limit has no reset however it is worded.
    assert_eq!(
        area("You've hit your monthly spend limit until Jan 1")
            .unwrap()
            .resets_in,
        None
    );
}

#[test]
fn each_kind_has_its_own_code() {
    assert_eq!(Kind::RateLimit.code(), Code::RateLimited);
    assert_eq!(Kind::UsageLimit.code(), Code::UsageLimit);
    assert_eq!(Kind::SpendLimit.code(), Code::SpendLimit);
    assert_eq!(Kind::ServerError.code(), Code::SiteError);
    assert_eq!(Kind::LoginWall.code(), Code::LoginRequired);
    assert_eq!(Kind::BotCheck.code(), Code::BotCheck);
    assert!(!Kind::SpendLimit.passes_with_time());
}

#[test]
fn the_sites_own_texts_add_words() {
    let extra = Extra {
        rate_limit: vec!["Doucement, une pause s’impose".into()],
        login: vec!["Bitte melde dich an".into()],
    };
    let n = classify("Doucement, une pause s’impose.", Place::Area, &extra, NOW).unwrap();
    assert_eq!(n.kind, Kind::RateLimit);
    assert_eq!(area("Doucement, une pause s’impose."), None);
    let n = classify("Bitte melde dich an", Place::Area, &extra, NOW).unwrap();
    assert_eq!(n.kind, Kind::LoginWall);
}

#[test]
fn a_limit_said_in_words_no_list_holds_is_a_usage_limit() {
    let cases: &[(&str, Place, Option<Duration>)] = &[
        (
            "You've hit today's quota. Come back tomorrow at 9am to keep going.",
            Place::Reply,
            hours(22, 0),
        ),
        (
            "Monthly allowance used You have sent all the messages your plan includes this month. Your allowance renews on 3 December.",
            Place::Area,
            hours(13, 0),
        ),
        (
            "您已达到当前套餐的消息上限，请于 16:45 后再试。",
            Place::Reply,
            hours(5, 45),
        ),
        ("今月の利用枠に達しました。", Place::Area, None),
        ("이번 달 할당량을 모두 소진했습니다.", Place::Area, None),
        ("Ihr Kontingent ist aufgebraucht.", Place::Area, None),
        (
            "Vous avez épuisé votre quota de messages.",
            Place::Area,
            None,
        ),
        ("Has agotado tu cuota de mensajes.", Place::Area, None),
        ("Hai esaurito la quota di messaggi.", Place::Area, None),
        ("Você atingiu a cota de mensagens.", Place::Area, None),
    ];
    for (text, place, want) in cases {
        let n = classify(text, *place, &Extra::default(), NOW)
            .unwrap_or_else(|| panic!("no notice in {text}"));
        assert_eq!(n.kind, Kind::UsageLimit, "{text}");
        assert_eq!(n.resets_in, *want, "{text}");
    }
    // A noun alone, a state alone, or a word that only holds the noun, is no limit.
    for text in [
        "The quota field is optional.",
        "We reached the end of the list.",
        "Running at full capacity, everything reached",
        // A model's cap reached while the chat goes on with another: a fallback, told by the
        // model check, not a refusal.
        "You've reached the usage cap for GPT-5.5 Thinking. You can continue with GPT-5.5 Instant now.",
        "Du hast das Limit für Opus erreicht. Weiter mit Sonnet.",
    ] {
        assert_eq!(area(text), None, "{text}");
    }
    // A model's prose about quotas, with no address to the person, stays a reply.
    assert_eq!(
        reply("The script exits when the quota is exceeded; I added a check."),
        None
    );
}

/// Wordings an outside attack's site used, which keyless did not know: each named with its
/// kind (and its reset, where it gives one).
#[test]
fn an_outside_site_s_wordings_are_named() {
    let limit = |text: &str| area(text).map(|n| (n.kind, n.resets_in));
    assert_eq!(
        limit("Whoa, slow down! Wait 20 seconds before sending another message."),
        Some((Kind::RateLimit, Some(Duration::from_secs(20))))
    );
    for (words, seconds) in [
        (
            "Çok fazla istek. Lütfen 20 saniye sonra tekrar deneyin.",
            20,
        ),
        ("Zbyt wiele żądań. Spróbuj ponownie za 30 sekund.", 30),
        (
            "Te veel verzoeken. Probeer het over 45 seconden opnieuw.",
            45,
        ),
        (
            "Çok fazla mesaj gönderdiniz. 2 dakika sonra tekrar deneyin.",
            120,
        ),
    ] {
        assert_eq!(
            limit(words),
            Some((Kind::RateLimit, Some(Duration::from_secs(seconds)))),
            "{words}"
        );
    }
    assert_eq!(
        limit("Langsam! Bitte warte 30 Sekunden, bevor du die nächste Nachricht sendest."),
        Some((Kind::RateLimit, Some(Duration::from_secs(30))))
    );
    assert_eq!(
        limit(
            "Vous avez utilisé tous vos messages pour le moment. Vous pourrez reprendre la conversation demain à 9 h 00."
        ),
        Some((Kind::UsageLimit, hours(22, 0)))
    );
    assert_eq!(
        limit(
            "Du hast dein Nachrichtenkontingent aufgebraucht. Ab 16:00 Uhr kannst du wieder schreiben."
        ),
        Some((Kind::UsageLimit, hours(5, 0)))
    );
    assert_eq!(
        limit("Your team's prepaid balance is empty. Add credits in Billing to keep using Parley."),
        Some((Kind::SpendLimit, None))
    );
    assert_eq!(
        limit(
            "Easy there! You've burned through this window's messages. Come back in 2 hours and Parley will be ready."
        ),
        Some((Kind::UsageLimit, hours(2, 0)))
    );
    // In the reply's place too, where a limit counts only when it addresses the person.
    assert_eq!(
        reply("Whoa, slow down! Wait 20 seconds before sending another message.").map(|n| n.kind),
        Some(Kind::RateLimit)
    );
    // A model's short text about waiting is no notice.
    assert_eq!(reply("I will wait for the build to finish."), None);
}

/// The wordings a second outside attack used, each named as a person reads it.
#[test]
fn a_second_outside_site_s_wordings_are_named() {
    let limit = |text: &str| area(text).map(|n| (n.kind, n.resets_in));
    for spend in [
        "Your team’s prepaid credit is used up. An owner must top it up before Orca can answer again.",
        "You’ve used up your prepaid credit. Top it up to keep chatting.",
    ] {
        assert_eq!(limit(spend), Some((Kind::SpendLimit, None)), "{spend}");
    }
    // Spanish writes the afternoon "p. m.": 16:30 local, five and a half hours on.
    assert_eq!(
        limit(
            "Has alcanzado el límite de mensajes de tu plan. Podrás volver a escribir a las 4:30 p. m."
        ),
        Some((Kind::UsageLimit, hours(5, 30)))
    );
    // Midnight by name, in UTC: fourteen hours after 10:00 UTC.
    assert_eq!(
        limit("Daily allowance used up (40/40). It refills at midnight UTC."),
        Some((Kind::UsageLimit, hours(14, 0)))
    );
    // Midnight in local time: thirteen hours after 11:00 local.
    assert_eq!(
        limit("Your quota is used up. It resets at midnight."),
        Some((Kind::UsageLimit, hours(13, 0)))
    );
}

/// A third outside site's wordings (issue 31): reset times with a time zone written after them
/// are read in that zone, not the person's (the clock here is 10:00 UTC, 11:00 local, on
/// Wednesday 2 December, when the US keeps standard time); server errors in Portuguese and
/// Spanish, and a status in brackets, are site errors.
#[test]
fn a_third_outside_site_s_wordings_are_named() {
    let limit = |text: &str| area(text).map(|n| (n.kind, n.resets_in));
    let resets = |text: &str| area(text).and_then(|n| n.resets_in);
    // 14:30 CET is 13:30 UTC: three and a half hours on.
    assert_eq!(
        limit("Hai raggiunto il limite di messaggi. Riprova alle 14:30 CET."),
        Some((Kind::UsageLimit, hours(3, 30)))
    );
    // 9:00 PM PT in December is 05:00 UTC the next day: nineteen hours on.
    assert_eq!(
        limit("Usage limit reached. Your limit resets at 9:00 PM PT."),
        Some((Kind::UsageLimit, hours(19, 0)))
    );
    for (text, want) in [
        ("Usage limit reached. Resets at 9:00 PM PST.", hours(19, 0)),
        (
            "Usage limit reached. Resets at 4 PM EST, try again then.",
            hours(11, 0),
        ),
        ("Usage limit reached. Resets at 12:00 UTC+1", hours(1, 0)),
        ("Usage limit reached. Resets at 12:00 GMT-5", hours(7, 0)),
        ("Usage limit reached. Resets at 12:00 (JST)", hours(17, 0)),
        ("Usage limit reached. Resets at 13:00 +02:00", hours(1, 0)),
        (
            "Usage limit reached. Resets Dec 4, 10:00 AM UTC.",
            hours(48, 0),
        ),
        (
            "Usage limit reached. Resets Dec 4, 10:00 AM ET.",
            hours(53, 0),
        ),
        // No zone: the person's local time (16:00 local is 15:00 UTC).
        ("Usage limit reached. Resets at 16:00.", hours(5, 0)),
        // "et" after a time, with a word after it, is French's "and", no zone.
        (
            "Limite atteinte. Réessayez à 16:00 et merci de votre patience.",
            hours(5, 0),
        ),
    ] {
        assert_eq!(resets(text), want, "{text}");
    }
    // Zones by name (a fourth outside attack), in December: Paris is UTC+1, the US's East -5.
    for (text, want) in [
        (
            "Limite atteinte. Réessayez à 15h30 heure de Paris.",
            hours(4, 30),
        ),
        (
            "Usage limit reached. Resets at 15:30 Paris time.",
            hours(4, 30),
        ),
        (
            "Usage limit reached. Resets at 15:30 (Europe/Paris).",
            hours(4, 30),
        ),
        (
            "Usage limit reached. Resets at 5:00 PM Eastern Time.",
            hours(12, 0),
        ),
        (
            "Usage limit reached. Resets at 9:00 AM Pacific.",
            hours(7, 0),
        ),
        (
            "Usage limit reached. Resets at 5pm ET tomorrow.",
            hours(36, 0),
        ),
    ] {
        assert_eq!(resets(text), want, "{text}");
    }
    // The US's daylight time: 9:00 PM PT on 1 July is 04:00 UTC on 2 July.
    let summer = Clock {
        unix: days_from_civil(2026, 7, 1) * 86_400 + 10 * 3600,
        offset: 0,
    };
    let notice = classify(
        "Usage limit reached. Your limit resets at 9:00 PM PT.",
        Place::Area,
        &Extra::default(),
        summer,
    );
    assert_eq!(notice.and_then(|n| n.resets_in), hours(18, 0));
    for error in [
        "Erro interno do servidor (500). Tente novamente.",
        "El modelo está sobrecargado en este momento. Inténtalo de nuevo en unos segundos.",
        "Le service est surchargé, réessayez plus tard.",
        "Der Dienst ist gerade überlastet.",
        "Something broke (502). Try again.",
    ] {
        assert_eq!(kind(area(error)), Some(Kind::ServerError), "{error}");
    }
}

/// A fifth outside attack's wordings: a plan lapsed in Portuguese, a daily cap in Chinese with
/// a clock time, a French reset "tomorrow at 9 h" with no minutes.
#[test]
fn a_fifth_outside_site_s_wordings_are_named() {
    assert_eq!(
        kind(reply(
            "Seu plano expirou. Renove sua assinatura para continuar usando o Quill."
        )),
        Some(Kind::SpendLimit)
    );
    let cap = area("消息次数已达上限，请于 16:30 后再试。").unwrap();
    assert_eq!(cap.kind, Kind::UsageLimit);
    // 16:30 local is 15:30 UTC: 5 h 30 min after 10:00 UTC.
    assert_eq!(cap.resets_in, hours(5, 30));
    let french =
        area("Vous avez atteint votre limite de messages. Réessayez demain à 9 h.").unwrap();
    assert_eq!(french.kind, Kind::UsageLimit);
    // Tomorrow 09:00 local is 08:00 UTC: 22 h after 10:00 UTC.
    assert_eq!(french.resets_in, hours(22, 0));
}

/// A sixth outside attack's wordings (issue 31): a throttle in a dialog's own words, one that
/// gives its wait as minutes and seconds, one in French; a daily allowance used; a workspace's
/// budget spent; a Dutch error in the reply's place; a sign-out; a security check; a warning
/// that counts the messages still left (no limit: the site still takes messages); a limit's
/// notice kept in the chat, read again after the time it named.
#[test]
fn a_sixth_outside_site_s_wordings_are_named() {
    let dialog = area("Whoa, easy there You are sending messages faster than we can keep up. Wait 25 seconds, then send again.").unwrap();
    assert_eq!(dialog.kind, Kind::RateLimit);
    assert_eq!(dialog.resets_in, Some(Duration::from_secs(25)));
    let face = area("Hold on — too many prompts in a short time. Retry in 1:30.").unwrap();
    assert_eq!(face.kind, Kind::RateLimit);
    assert_eq!(face.resets_in, Some(Duration::from_secs(90)));
    let french = area("Vous avez envoyé trop de messages. Patientez 30 secondes.").unwrap();
    assert_eq!(french.kind, Kind::RateLimit);
    assert_eq!(french.resets_in, Some(Duration::from_secs(30)));
    let daily = area("Daily message allowance used. Back in 5 hours.").unwrap();
    assert_eq!(daily.kind, Kind::UsageLimit);
    assert_eq!(daily.resets_in, hours(5, 0));
    assert_eq!(
        kind(area(
            "Your workspace has used its monthly budget. An admin must raise the spending cap to continue."
        )),
        Some(Kind::SpendLimit)
    );
    assert_eq!(
        kind(reply(
            "Er ging iets mis aan onze kant. Probeer het later opnieuw."
        )),
        Some(Kind::ServerError)
    );
    assert_eq!(
        kind(area(
            "You've been signed out. Sign in again to keep chatting."
        )),
        Some(Kind::LoginWall)
    );
    assert_eq!(
        kind(area("Please complete the security check to continue.")),
        Some(Kind::BotCheck)
    );
    for warning in [
        "Heads up: 3 messages left. Your limit resets at 4:30 PM.",
        "You have 2 prompts remaining until 5 PM.",
    ] {
        assert_eq!(area(warning), None, "{warning}");
    }
    // 2026-12-02T09:00Z is an hour before NOW: the notice still names the limit.
    assert_eq!(
        kind(reply(
            "Usage cap hit. Your allowance renews at 2026-12-02T09:00:00Z."
        )),
        Some(Kind::UsageLimit)
    );
    // "at 1:30" and "after 14:30" are times of day, not waits.
    assert_ne!(
        area("Too many requests. Try again at 1:30 pm.").and_then(|n| n.resets_in),
        Some(Duration::from_secs(90))
    );
    assert_ne!(
        area("Limit reached. Come back after 14:30.").and_then(|n| n.resets_in),
        Some(Duration::from_secs(14 * 60 + 30))
    );
}

/// A number after "at" that a noun follows, or a price with a dot, is no time of day.
#[test]
fn a_count_or_a_price_is_no_reset_time() {
    for text in [
        "Usage limit reached at 9 messages per day.",
        "Nutzungslimit erreicht. Upgrade für 21.30 EUR im Monat.",
        "You've hit your limit: Monday's 40 messages are used up.",
        "Usage limit reached. Your usage is capped at 10.",
        "Nutzungslimit erreicht. Wieder verfügbar ab 01.04. für alle.",
        "Nutzungslimit erreicht, um 01.04.2027 geht es weiter.",
    ] {
        let notice = area(text);
        assert_eq!(kind(notice.clone()), Some(Kind::UsageLimit), "{text}");
        assert_eq!(notice.and_then(|n| n.resets_in), None, "{text}");
    }
}

/// A day of the week is the day where the time is said: a notice in UTC read in Tokyo on
/// Monday morning (still Sunday in UTC) resets that Monday, not a week later.
#[test]
fn a_weekday_is_counted_in_the_notice_s_own_zone() {
    let tokyo_monday_8am = Clock {
        unix: NOW.unix + 4 * 86_400 + 13 * 3600,
        offset: 9 * 3600,
    };
    let notice = classify(
        "Usage limit reached. Resets Monday at 10:00 AM UTC.",
        Place::Area,
        &Extra::default(),
        tokyo_monday_8am,
    );
    assert_eq!(notice.and_then(|n| n.resets_in), hours(11, 0));
}
