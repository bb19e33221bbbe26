//! What the page shows on one look (`page.js`'s `state`), with fields named for what they
//! mean, and the decision that a reply has ended, written in one place: the wait for a reply
//! (`conversation.rs`) only looks, reads and counts time.

use std::time::Duration;

use serde::Deserialize;

use crate::chat::trouble::{self, Clock, Extra, Kind, Notice, Place};

/// How long the reply text must stay unchanged, with no stream on, to count as finished when
/// the page gives no sign of its own (or only a discovery's guess).
pub(super) const SETTLE: Duration = Duration::from_millis(1500);

/// One look at the page.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PageState {
    /// User turns the UserMessage selectors find.
    pub users: usize,
    /// Replies the AssistantMessage selectors find.
    pub assistants: usize,
    /// The StopButton selectors find a visible stop control.
    pub stop_shown: bool,
    /// The reply is marked finished: the Completed selectors match it, or (on a page whose
    /// Completed selectors never matched) discovery sees its done state or its copy control.
    pub done_mark: bool,
    /// The reply's text length so far.
    pub chars: usize,
    /// The site says the chat reached its length limit (texts.ChatExhausted).
    pub exhausted: bool,
    /// The page asks to log in (texts.LoginRequired).
    pub login: bool,
    /// A bot check is shown and no composer.
    pub challenge: bool,
    /// The site refused the message as too long (texts.TooLong).
    pub too_long: bool,
    /// Discovery sees the sent message in a new element the UserMessage selectors miss.
    #[serde(default)]
    pub user_found: bool,
    /// Discovery sees a reply growing after it that the AssistantMessage selectors miss.
    #[serde(default)]
    pub reply_found: bool,
    /// Discovery's sure sign of a stream, for a page whose StopButton selectors never
    /// matched: a busy state on the reply, or a control that says "stop". As a stop control.
    #[serde(default)]
    pub busy_sign: bool,
    /// Discovery's guess of a stream (a control that came with it, the send button saying
    /// something else): it holds a reply open only until the text settles.
    #[serde(default)]
    pub stream_guess: bool,
    /// What the page's notice areas outside every turn say (alerts, dialogs, toasts, banners,
    /// the ErrorBanner selectors' areas).
    #[serde(default)]
    pub notices: Vec<NoticeArea>,
    /// What notice areas inside the newest reply say.
    #[serde(default)]
    pub reply_notices: Vec<NoticeArea>,
    /// The newest reply's text, when it is short enough to be a site's notice in its place.
    #[serde(default)]
    pub reply_text: Option<String>,
    /// The reply's place has an error turn's shape: short, a Retry control and no copy
    /// control.
    #[serde(default)]
    pub reply_retry: bool,
    /// The start of the page's text where no composer shows (a wall in the chat's place).
    #[serde(default)]
    pub wall_text: Option<String>,
    /// A notice of this exchange that says the page is offline (texts.Offline): its words.
    #[serde(default)]
    pub offline: Option<String>,
    /// The reply read through its first copy control in this look, the one that first saw it
    /// marked done with nothing streaming (taken by the read that follows this look), as the
    /// page answered it (`page_api::CopyRead`).
    #[serde(default)]
    pub copied: Option<serde_json::Value>,
}

/// One notice area's text, whether it is in a dialog (which a person acknowledges), and
/// whether it is the page's furniture.
#[derive(Clone, Debug, Default, Deserialize)]
pub(super) struct NoticeArea {
    pub text: String,
    pub dialog: bool,
    /// In the page's navigation or side panels, or made of links: furniture that changed (a
    /// history list), never taken for the site's answer by itself.
    #[serde(default)]
    pub aside: bool,
}

/// Trouble one look shows: what the site said, and the dialog text to acknowledge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Seen {
    pub notice: Notice,
    pub dialog: Option<String>,
}

/// Where a reply stands on one look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReplyEnd {
    /// No reply to the message yet.
    Absent,
    /// A reply is there and still coming.
    Coming,
    /// The reply has ended: read it (and check it for `@@eof`).
    Ended,
}

impl PageState {
    /// A bot check the browser reported, its words (the page's title) as the wall's text.
    pub fn bot_check(words: String) -> PageState {
        PageState {
            challenge: true,
            wall_text: Some(words),
            ..PageState::default()
        }
    }
    /// Whether a stream is on: the selectors' stop control, or discovery's sure sign of one.
    pub fn streams(&self) -> bool {
        self.stop_shown || self.busy_sign
    }

    /// Whether a reply to the last message is there: the selectors count one more than before
    /// the send (`replies_before`), or discovery found it where they do not look.
    pub fn replying(&self, replies_before: usize) -> bool {
        self.assistants > replies_before || self.reply_found
    }

    /// The site's trouble on this look, if any: a notice area outside the turns; one inside a
    /// reply to the last message; the reply itself once it `ended` (a notice in its place); a
    /// wall in the chat's place. Earlier replies' notices are history and never count.
    pub fn trouble(
        &self,
        replies_before: usize,
        ended: bool,
        extra: &Extra,
        clock: Clock,
    ) -> Option<Seen> {
        let area = |areas: &[NoticeArea]| {
            areas.iter().find_map(|a| {
                trouble::classify(&a.text, Place::Area, extra, clock).map(|notice| Seen {
                    notice,
                    dialog: a.dialog.then(|| a.text.clone()),
                })
            })
        };
        if let Some(seen) = area(&self.notices) {
            return Some(seen);
        }
        let replying = self.replying(replies_before);
        if replying && let Some(seen) = area(&self.reply_notices) {
            return Some(seen);
        }
        if replying
            && ended
            && let Some(notice) = self
                .reply_text
                .as_deref()
                .and_then(|text| trouble::classify(text, Place::Reply, extra, clock))
        {
            return Some(Seen {
                notice,
                dialog: None,
            });
        }
        // An error turn by its shape, in words no list knows: a site error, its words quoted.
        if replying
            && ended
            && self.reply_retry
            && let Some(words) = self
                .reply_text
                .as_deref()
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|t| !t.is_empty() && !t.contains("@@"))
        {
            return Some(Seen {
                notice: Notice {
                    kind: Kind::ServerError,
                    words,
                    resets_in: None,
                },
                dialog: None,
            });
        }
        let wall = self.wall_text.as_deref().unwrap_or_default();
        let walled = |kind| {
            let words = trouble::classify(wall, Place::Area, extra, clock)
                .filter(|n| n.kind == kind)
                .map_or_else(|| wall.chars().take(200).collect(), |n| n.words);
            Some(Seen {
                notice: Notice {
                    kind,
                    words: words.split_whitespace().collect::<Vec<_>>().join(" "),
                    resets_in: None,
                },
                dialog: None,
            })
        };
        if self.challenge {
            return walled(Kind::BotCheck);
        }
        if self.login {
            return walled(Kind::LoginWall);
        }
        if self.wall_text.is_some()
            && let Some(notice) = trouble::classify(wall, Place::Area, extra, clock)
                .filter(|n| matches!(n.kind, Kind::BotCheck | Kind::LoginWall))
        {
            return Some(Seen {
                notice,
                dialog: None,
            });
        }
        None
    }

    /// The decision, top to bottom: no reply is `Absent`; a stream on is `Coming`; a reply
    /// the page marks done (with no guess of a stream holding it open) has `Ended`; so has
    /// one whose text has not changed for [`SETTLE`]; anything else is `Coming`.
    pub fn reply_end(&self, replies_before: usize, unchanged_for: Duration) -> ReplyEnd {
        if !self.replying(replies_before) {
            return ReplyEnd::Absent;
        }
        if self.streams() {
            return ReplyEnd::Coming;
        }
        if self.done_mark && !self.stream_guess {
            return ReplyEnd::Ended;
        }
        if unchanged_for >= SETTLE {
            return ReplyEnd::Ended;
        }
        ReplyEnd::Coming
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRESH: Duration = Duration::ZERO;
    const SETTLED: Duration = SETTLE;

    fn look(change: impl FnOnce(&mut PageState)) -> PageState {
        let mut state = PageState {
            assistants: 1,
            ..PageState::default()
        };
        change(&mut state);
        state
    }

    #[test]
    fn a_reply_ends_by_its_done_mark_or_by_settling_never_while_a_stream_is_on() {
        assert_eq!(
            look(|s| s.assistants = 0).reply_end(0, SETTLED),
            ReplyEnd::Absent
        );
        assert_eq!(look(|_| {}).reply_end(0, FRESH), ReplyEnd::Coming);
        assert_eq!(look(|_| {}).reply_end(0, SETTLED), ReplyEnd::Ended);
        assert_eq!(
            look(|s| s.done_mark = true).reply_end(0, FRESH),
            ReplyEnd::Ended
        );
        for streaming in [
            look(|s| {
                s.stop_shown = true;
                s.done_mark = true;
            }),
            look(|s| {
                s.busy_sign = true;
                s.done_mark = true;
            }),
        ] {
            assert_eq!(streaming.reply_end(0, SETTLED), ReplyEnd::Coming);
        }
        // A guess holds a done mark open, and gives way once the text settles.
        let guessed = look(|s| {
            s.stream_guess = true;
            s.done_mark = true;
        });
        assert_eq!(guessed.reply_end(0, FRESH), ReplyEnd::Coming);
        assert_eq!(guessed.reply_end(0, SETTLED), ReplyEnd::Ended);
        // The reply before the send is not this one; one discovery found is.
        assert_eq!(look(|_| {}).reply_end(1, SETTLED), ReplyEnd::Absent);
        assert_eq!(
            look(|s| s.reply_found = true).reply_end(1, SETTLED),
            ReplyEnd::Ended
        );
    }
}
