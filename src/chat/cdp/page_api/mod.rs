//! The page API: the one door between keyless and the script it puts into the chat page
//! (`page.js`, which holds `discover.js`, `locate.js`, `controls.js` and `attach.js`). Each page function has a typed
//! wrapper here: its arguments go as a JSON array to the page's `call`, which runs the function
//! of that name and answers with JSON (a promise's value once it settles); the answer comes
//! back into a Rust type. No JavaScript is assembled anywhere else in keyless (the architecture test keeps it
//! so). When a navigation took the script away, it is put back and the call made again.

mod answers;
mod input;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub(super) use answers::{
    AttachLook, BeforeSend, Begun, Clicked, CodeBlock, CopyRead, Dirt, Drawn, Found, Glance, Held,
    Judged, LearnedTurns, Matches, ShownTurn, Switched,
};
pub(super) use input::Press;

use super::tab::Tab;
use super::{CdpDriver, DriverError, bounded, short, within};
use crate::catalog::{Code, Failure};
use crate::chat::selectors::Site;

/// The page script's version: `page.js` says the same (its `version`), and a page holding
/// another version's script gets this one.
pub(super) const PAGE_VERSION: u32 = 15;

/// How long a page may be between two documents (no context to evaluate in) before a call
/// into it fails, and how often it is tried meanwhile.
const BETWEEN_DOCUMENTS: std::time::Duration = std::time::Duration::from_secs(3);
const BETWEEN_DOCUMENTS_STEP: std::time::Duration = std::time::Duration::from_millis(100);

/// The failure of a call into a page that shows a bot check the browser reports: the check
/// named as trouble mid-turn is (its words, what to do, the resume command).
fn bot_check(words: &str) -> Failure {
    let notice = crate::chat::trouble::Notice {
        kind: crate::chat::trouble::Kind::BotCheck,
        words: words.to_string(),
        resets_in: None,
    };
    super::site_said::trouble_failure(&notice, super::site_said::clock_now())
}

/// What the page answers when its script is not there.
const ABSENT: &str = "absent";

/// The page, as keyless calls it: the tab it is in and the site's selectors as the session
/// has them (discovery heals them), borrowed for one or more calls.
pub(super) struct PageApi<'d> {
    tab: &'d Tab,
    site: &'d Site,
}

/// The driver's doors to the page for `keyless doctor`, the tests and the benchmarks.
impl CdpDriver {
    /// Evaluates an expression in the page and returns its value as JSON: for the tests and
    /// benchmarks, which read the local chat page's own globals. keyless itself calls the page
    /// only through the typed functions here.
    pub fn evaluate_json(&self, expression: &str) -> Result<serde_json::Value, Failure> {
        self.api().eval_json(expression)
    }

    /// What `keyless doctor` looks at first: the page's title, the start of its text, and
    /// whether a bot-check script or frame is there.
    pub fn glance(&self) -> Result<Glance, Failure> {
        self.api().eval_json(
            "({title: document.title, text: document.body.innerText.slice(0, 5000), challenge: !!document.querySelector('script[src*=\"/challenge-platform/\"], iframe[src*=\"challenges.cloudflare.com\"]')})",
        )
    }

    /// How many elements `css` finds, and whether one is visible (a selector that does not
    /// parse finds none; one that crosses into shadow roots or frames with `>>>` is followed).
    pub fn matches(&self, css: &str) -> Result<Matches, Failure> {
        self.api().call("matchCount", json!([css]))
    }

    /// `keyless doctor` times each reading channel on its own: clicks the reply's copy control
    /// (the selectors' control, one found by its shape, or none).
    pub fn channel_copy(&self) -> Result<Clicked, Failure> {
        self.api().copy(0)
    }

    /// What the copy control put on the page's clipboard (`None` yet).
    pub fn channel_copied(&self) -> Result<Option<String>, Failure> {
        self.api().copied()
    }

    /// The reply rebuilt from its DOM.
    pub fn channel_dom(&self) -> Result<Option<String>, Failure> {
        self.api().rebuilt()
    }

    /// Clicks the first element the selectors of `key` find (a scripted click), as the
    /// benchmarks click a send button.
    pub fn click_selector(&self, key: &str) -> Result<bool, Failure> {
        self.api().click(key)
    }
}

impl<'d> PageApi<'d> {
    pub(super) fn new(tab: &'d Tab, site: &'d Site) -> PageApi<'d> {
        PageApi { tab, site }
    }

    /// The site's entry the calls use.
    pub(super) fn site(&self) -> &'d Site {
        self.site
    }

    /// The tab the page is in.
    pub(super) fn tab(&self) -> &'d Tab {
        self.tab
    }

    /// Evaluates `expression` in the chat page and returns its value.
    fn eval<T: DeserializeOwned>(&self, expression: &str) -> Result<T, Failure> {
        // A page between two documents (a reload, a navigation) has no place to evaluate for a
        // moment; that is not a broken browser: the call is made again, a while. Each try first
        // asks whether the browser reports a check, so a reload into a check is named as one.
        let gone_by = std::time::Instant::now() + BETWEEN_DOCUMENTS;
        loop {
            // No script runs in a bot check's page (such checks re-arm while a debugger runs
            // script): a check the browser reports ends the call before it is made.
            if let Some(words) = self.tab.check_shown() {
                return Err(bot_check(&words));
            }
            let page = self.tab.page.clone();
            let owned = expression.to_string();
            let answered = self.tab.block(async move {
                let evaluated = async {
                    page.evaluate(owned.as_str())
                        .await
                        .map_err(|e| DriverError::call("evaluate in the page", e))
                };
                // A page between documents is answered here; any other error goes through
                // the tab's own reading (a closed tab is said so).
                match within(evaluated, "evaluate in the page").await {
                    Err(e) if e.between_documents() => Ok(Err(e)),
                    other => other.map(Ok),
                }
            })?;
            match answered {
                Err(e) if e.between_documents() => {
                    // The next document the site answered with a check: named, never entered.
                    if let Some(words) = self.tab.check_shown() {
                        return Err(bot_check(&words));
                    }
                    // Another document (an error page, a sign-in page) is one like any: the
                    // call goes into it once it is there.
                    if std::time::Instant::now() >= gone_by {
                        return Err(e.into());
                    }
                    std::thread::sleep(BETWEEN_DOCUMENTS_STEP);
                }
                Err(e) => return Err(e.into()),
                Ok(result) => {
                    return result.into_value::<T>().map_err(|source| {
                        DriverError::Answer {
                            what: format!("`{}`", short(expression)),
                            source,
                        }
                        .into()
                    });
                }
            }
        }
    }

    /// Evaluates an expression whose value is a JSON-able object, through JSON.
    fn eval_json<T: DeserializeOwned>(&self, expression: &str) -> Result<T, Failure> {
        let json: String = self.eval(&format!("JSON.stringify({expression})"))?;
        serde_json::from_str(&json).map_err(|source| {
            DriverError::Answer {
                what: "the page's state".to_string(),
                source,
            }
            .into()
        })
    }

    /// The HTTP status of the document the page shows (0 when it has none) and its address.
    pub(super) fn shown_status(&self) -> Result<(u16, String), Failure> {
        self.eval_json(
            "[(performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0, location.href]",
        )
    }

    /// The page's address now.
    pub(super) fn location(&self) -> Result<String, Failure> {
        self.eval::<String>("location.href")
    }

    /// Whether another tab (one the page script is not in) shows `message`: see
    /// [`tab_shows`].
    pub(super) fn tab_holds(
        &self,
        tab: &chromiumoxide::Page,
        message: &str,
    ) -> Result<bool, Failure> {
        let probe = tab_shows(message);
        self.tab.block(async {
            let value = bounded(tab.evaluate(probe.as_str()), "look into a tab").await?;
            Ok::<_, DriverError>(value.into_value::<bool>().unwrap_or(false))
        })
    }

    /// Puts the page script into the page (again after a navigation), with the site's
    /// selectors and texts.
    pub(super) fn install(&self) -> Result<(), Failure> {
        let selectors = serde_json::to_string(&self.site.selectors).unwrap_or_else(|_| "{}".into());
        let texts = serde_json::to_string(&self.site.texts).unwrap_or_else(|_| "{}".into());
        let script = format!(
            "({})({selectors}, {texts}, {}, {}, {}, {})",
            super::PAGE_JS,
            super::DISCOVER_JS,
            super::LOCATE_JS,
            super::CONTROLS_JS,
            super::ATTACH_JS
        );
        self.eval::<String>(&script).map(|_| ())
    }

    /// Calls page function `name` with `args` (a JSON array); `None` when the script is not in
    /// the page (a navigation replaced the document).
    fn call_present<T: DeserializeOwned>(
        &self,
        name: &str,
        args: &Value,
    ) -> Result<Option<T>, Failure> {
        // The answer is JSON text; `absent`, which no JSON text is, says the script is not
        // there (a bare null would come back as no value at all).
        let expression = format!(
            "window.__keyless && window.__keyless.version === {PAGE_VERSION} ? window.__keyless.call({}, {args}) : {ABSENT:?}",
            json!(name)
        );
        let answer: String = self.eval(&expression)?;
        if answer == ABSENT {
            return Ok(None);
        }
        serde_json::from_str(&answer).map(Some).map_err(|source| {
            DriverError::Answer {
                what: format!("the page's {name}"),
                source,
            }
            .into()
        })
    }

    /// Calls page function `name`, putting the script back first when it is not there.
    fn call<T: DeserializeOwned>(&self, name: &str, args: Value) -> Result<T, Failure> {
        if let Some(answer) = self.call_present(name, &args)? {
            return Ok(answer);
        }
        self.install()?;
        self.call_present(name, &args)?.ok_or_else(|| {
            Failure::new(
                Code::Internal,
                format!("the page script is missing right after it was put into the page ({name})"),
            )
        })
    }

    // --- State and reading ---

    pub fn state(&self) -> Result<super::PageState, Failure> {
        self.call("state", json!([]))
    }

    /// Starts the page's MutationObserver, which wakes keyless on every change.
    pub fn observe(&self) -> Result<bool, Failure> {
        self.call("observe", json!([]))
    }

    pub fn exists(&self, key: &str) -> Result<bool, Failure> {
        self.call("exists", json!([key]))
    }

    /// The addresses of the frames from another origin on the page, which no script of the
    /// page may look into (discovery says so when it finds no composer).
    pub fn far_frames(&self) -> Result<Vec<String>, Failure> {
        self.call("farFrames", json!([]))
    }

    pub fn count(&self, key: &str) -> Result<usize, Failure> {
        self.call("count", json!([key]))
    }

    /// The first selector of `key` that finds something.
    pub fn which(&self, key: &str) -> Result<Option<String>, Failure> {
        self.call("which", json!([key]))
    }

    /// Clicks the first element `key`'s selectors find (a scripted click).
    pub fn click(&self, key: &str) -> Result<bool, Failure> {
        self.call("click", json!([key]))
    }

    /// The centre of `key`'s element in the viewport, for a real mouse click.
    pub fn centre(&self, key: &str) -> Result<Option<(f64, f64)>, Failure> {
        self.call("centre", json!([key]))
    }

    /// Clicks copy control `index` of the reply (0: the selectors' one, else found by shape).
    pub fn copy(&self, index: usize) -> Result<Clicked, Failure> {
        self.call("copy", json!([index]))
    }

    /// Where a real click on the reply's menu trigger `index` lands ("⋯", "More actions").
    pub fn menu_trigger(&self, index: usize) -> Result<Option<(f64, f64)>, Failure> {
        self.call("menuTrigger", json!([index]))
    }

    /// Clicks the open menu's copy row, the clipboard captured.
    pub fn menu_copy(&self) -> Result<Clicked, Failure> {
        self.call("menuCopy", json!([]))
    }

    /// Clicks copy control `index` (as `copy`) and, where the page's clipboard call ran in the
    /// click, takes what it copied and its agreement with the drawn reply in the same call.
    pub(in crate::chat::cdp) fn copy_read(&self, index: usize) -> Result<CopyRead, Failure> {
        self.call("copyRead", json!([index]))
    }

    /// What the page's clipboard calls captured last.
    pub fn copied(&self) -> Result<Option<String>, Failure> {
        self.call("copied", json!([]))
    }

    /// Whether `text` agrees with the rendered answer.
    pub fn agrees(&self, text: &str) -> Result<bool, Failure> {
        self.call("agrees", json!([text]))
    }

    /// A selector for copy control `index`, once what it copied proved right.
    pub fn learn_copy(&self, index: usize) -> Result<Option<String>, Failure> {
        self.call("learnCopy", json!([index]))
    }

    /// Reading channel 2: the reply's only code block, when it is the whole reply (a block
    /// found by its shape comes with its own copy control clicked, for the caller to prove).
    pub fn code_block(&self) -> Result<Option<CodeBlock>, Failure> {
        self.call("codeBlock", json!([]))
    }

    /// Reading channel 3: Markdown rebuilt from the reply's DOM.
    pub fn rebuilt(&self) -> Result<Option<String>, Failure> {
        self.call("rebuilt", json!([]))
    }

    /// A text sketch of the page's structure, for a failure's report.
    pub fn sketch(&self) -> Result<String, Failure> {
        self.call("sketch", json!([]))
    }

    // --- The composer ---

    /// The composer's text as its editor holds it (`None`: no composer).
    pub fn composer(&self) -> Result<Option<String>, Failure> {
        self.call("composer", json!([]))
    }

    pub fn dirt(&self) -> Result<Dirt, Failure> {
        let (text, chips, cards): (bool, usize, usize) = self.call("dirty", json!([]))?;
        Ok(Dirt { text, chips, cards })
    }

    /// Removes the attachment chips but the first `keep`; how many are left.
    pub fn remove_chips(&self, keep: usize) -> Result<usize, Failure> {
        self.call("removeChips", json!([keep]))
    }

    pub fn remove_cards(&self) -> Result<usize, Failure> {
        self.call("removeCards", json!([]))
    }

    pub fn cards(&self) -> Result<usize, Failure> {
        self.call("cards", json!([]))
    }

    pub fn unmark_region(&self) -> Result<bool, Failure> {
        self.call("unmarkRegion", json!([]))
    }

    pub fn focus_composer(&self) -> Result<bool, Failure> {
        self.call("focusComposer", json!([]))
    }

    pub fn select_composer(&self) -> Result<bool, Failure> {
        self.call("selectComposer", json!([]))
    }

    /// Keeps `text` in the page as the message being inserted.
    pub fn expect(&self, text: &str) -> Result<bool, Failure> {
        self.call("expect", json!([text]))
    }

    /// An insertion of `text` begins.
    pub fn begin(&self, text: &str) -> Result<Begun, Failure> {
        self.call("begin", json!([text]))
    }

    /// One insertion by a page strategy of the message's UTF-16 units `from..to`, judged in the
    /// page (again until the editor settles for `settle_ms`, at most `limit_ms`). With
    /// `send_after` (the user turns before the send) and `last`, a composer that holds the
    /// whole message exactly is sent from in the same call where its send button is enabled
    /// (`Judged::sent`).
    pub fn put(
        &self,
        how: &str,
        (from, to): (usize, usize),
        (settle_ms, limit_ms): (u128, u128),
        last: bool,
        send_after: Option<usize>,
    ) -> Result<Judged, Failure> {
        self.call(
            "put",
            json!([
                how,
                from,
                to,
                settle_ms as u64,
                limit_ms as u64,
                last,
                send_after
            ]),
        )
    }

    /// Whether the composer holds exactly the message's first `units` (all of it: `None`).
    pub fn holds(&self, units: Option<usize>) -> Result<Held, Failure> {
        match units {
            Some(n) => self.call("holds", json!([n])),
            None => self.call("holds", json!([])),
        }
    }

    // --- Sending ---

    pub fn before_send(&self) -> Result<BeforeSend, Failure> {
        self.call("beforeSend", json!([]))
    }

    /// The composer's dirt and [`PageApi::before_send`], in one call; with `text`, the
    /// insertion of it begun in the same call ([`PageApi::begin`]) where the composer is clean.
    pub fn dirt_and_before_send(
        &self,
        text: Option<&str>,
    ) -> Result<(Dirt, BeforeSend, Option<Begun>), Failure> {
        #[derive(serde::Deserialize)]
        struct Both {
            dirt: (bool, usize, usize),
            before: BeforeSend,
            begun: Option<Begun>,
        }
        let both: Both = self.call("dirtyBefore", json!([text]))?;
        let (text, chips, cards) = both.dirt;
        Ok((Dirt { text, chips, cards }, both.before, both.begun))
    }

    /// Marks the buttons there before a send (Enter then looks for a new one).
    pub fn mark_buttons(&self) -> Result<bool, Failure> {
        self.call("markButtons", json!([]))
    }

    /// The exchange begins for `text` (the message kept in the page: `None`).
    pub fn begin_exchange(&self, text: Option<&str>) -> Result<bool, Failure> {
        self.call("beginExchange", json!([text]))
    }

    /// The site's error in the reply's place: its Retry control clicked. Whether there was one.
    pub fn retry(&self) -> Result<bool, Failure> {
        self.call("retry", json!([]))
    }

    /// A reopened chat where no turn shows by the selectors: the exchange of `text` is looked
    /// for by its words in all the page shows; whether its user turn is there.
    pub fn reopen_exchange(&self, text: &str) -> Result<bool, Failure> {
        self.call("reopenExchange", json!([text]))
    }

    /// The exchange begins and the composer takes the focus, for Enter to send.
    pub fn begin_and_focus(&self, text: Option<&str>) -> Result<bool, Failure> {
        self.call("beginAndFocus", json!([text]))
    }

    /// The exchange begins and the send button gets a scripted click in the same call; the
    /// new user turn is looked for once the click's own work is done. `(false, _)`: no button.
    pub fn click_send(
        &self,
        text: Option<&str>,
        users: usize,
    ) -> Result<(bool, Option<ShownTurn>), Failure> {
        self.call("clickSend", json!([text, users]))
    }

    /// How a new user turn (after `users_before`) shows the message: `Some(None)` while there is
    /// none, `None` when the page was replaced (its script is gone with the old document).
    pub fn sent_shown(&self, users_before: usize) -> Result<Option<Option<ShownTurn>>, Failure> {
        self.call_present("sentShown", &json!([users_before]))
    }

    /// Whether the user turn shows the message exactly: `exact`, or what differs.
    pub fn sent_exact(&self) -> Result<Option<Drawn>, Failure> {
        let drawn: Option<String> = self.call("sentExact", json!([]))?;
        Ok(drawn.map(|word| match word.as_str() {
            "exact" => Drawn::Exact,
            "unlike" => Drawn::Unlike,
            _ => Drawn::Altered(word),
        }))
    }

    pub fn last_user_text(&self) -> Result<Option<String>, Failure> {
        self.call("lastUserText", json!([]))
    }

    /// Acknowledges the dialog that says `text` (its "Got it"); whether one was clicked.
    pub fn acknowledge(&self, text: &str) -> Result<bool, Failure> {
        self.call("acknowledge", json!([text]))
    }

    /// Whether a reply follows the last user turn.
    pub fn reply_follows(&self) -> Result<bool, Failure> {
        self.call("replyFollows", json!([]))
    }

    /// Opens a new chat with the page's own control.
    pub fn new_chat(&self) -> Result<bool, Failure> {
        self.call("newChat", json!([]))
    }

    /// Whether the page shows `message` as a user turn; false when the script is not there.
    pub fn shows_message(&self, message: &str) -> Result<bool, Failure> {
        Ok(self
            .call_present("showsMessage", &json!([message]))?
            .unwrap_or(false))
    }

    /// The addresses of the site's history list.
    pub fn history_links(&self) -> Result<Vec<String>, Failure> {
        self.call("historyLinks", json!([]))
    }

    // --- The chat's own controls (`controls.js`) ---

    /// What the model picker offers (it is opened and closed again); `None`: no picker.
    pub fn models_offered(&self) -> Result<Option<crate::chat::models::Offered>, Failure> {
        self.call("modelsOffered", json!([]))
    }

    /// Clicks the picker's row `label` in `group`; whether there was one.
    pub fn choose_model(&self, label: &str, group: &str) -> Result<bool, Failure> {
        self.call("chooseModel", json!([label, group]))
    }

    /// The picker's own words now (the model it shows chosen), without opening it.
    pub fn model_shown(&self) -> Result<Option<String>, Failure> {
        self.call("modelShown", json!([]))
    }

    /// The model the newest reply says it came from, else the picker's words, in one call.
    pub fn answered_by(&self) -> Result<Option<String>, Failure> {
        self.call("answeredBy", json!([]))
    }

    /// Makes sure the page is in plain chat (by the selectors' radio).
    pub fn plain_chat(&self) -> Result<Switched, Failure> {
        self.call("plainChat", json!([]))
    }

    /// Turns the temporary chat on (by the selectors' toggle).
    pub fn temporary_chat(&self) -> Result<Switched, Failure> {
        self.call("temporaryChat", json!([]))
    }

    // --- The person's attachments (`attach.js`) ---

    /// Whether the page takes files now: a file input, or the button that makes one.
    pub fn has_file_input(&self) -> Result<bool, Failure> {
        self.call("hasFileInput", json!([]))
    }

    /// Remembers the notices showing before the files go, and clicks the attach button where
    /// the input comes only with it; whether a file input is there.
    pub fn attach_begin(&self) -> Result<bool, Failure> {
        self.call("attachBegin", json!([]))
    }

    /// Fires the input and change events of a person's choice from the file input.
    pub fn attach_nudge(&self) -> Result<bool, Failure> {
        self.call("attachNudge", json!([]))
    }

    /// What the composer shows of the files `names`.
    pub fn attach_look(&self, names: &[String]) -> Result<AttachLook, Failure> {
        self.call("attachLook", json!([names]))
    }

    // --- Discovery ---

    /// Puts `css` first among `key`'s selectors for the page's life.
    pub fn heal(&self, key: &str, css: &str) -> Result<bool, Failure> {
        self.call("heal", json!([key, css]))
    }

    pub fn discover_composer(&self) -> Result<Option<String>, Failure> {
        self.call("discoverComposer", json!([]))
    }

    pub fn discover_send(&self) -> Result<Option<Found>, Failure> {
        self.call("discoverSend", json!([]))
    }

    pub fn learn_turns(&self) -> Result<Option<LearnedTurns>, Failure> {
        self.call("learnTurns", json!([]))
    }
}

/// An expression for a tab the page script is not in (one keyless did not open): whether the
/// page's text holds `message`, by the first and last twelve of its words run together (the
/// page's own line breaks and Markdown aside).
fn tab_shows(message: &str) -> String {
    let message = serde_json::to_string(message).unwrap_or_default();
    format!(
        "(() => {{ const w = (t) => (t || '').match(/[\\p{{L}}\\p{{N}}]+/gu) || []; const all = w({message}); const page = w(document.body ? document.body.innerText : '').join(''); return page.includes(all.slice(0, 12).join('')) && page.includes(all.slice(-12).join('')); }})()"
    )
}
