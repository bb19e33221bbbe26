//! The chat's own controls, driven: the temporary chat turned on, plain chat made sure of, the
//! model and effort the person asked for chosen in the site's picker and **read back** before
//! anything is sent, the picker looked at again before each send, and the model each reply
//! says it came from checked against the one chosen.
//!
//! What fails closed: a choice that cannot be read back (`KA_MODEL_NOT_CONFIRMED`), a temporary
//! chat the page does not show (`KA_TEMPORARY_NOT_AVAILABLE`), and a reply from another model
//! or a picker that changed its model (`KA_MODEL_CHANGED`, a warning with `allow_fallback`).
//! Which row a name means is `models.rs`'s (pure); the page is reached through `page_api/`.

use super::CdpDriver;
use super::page_api::PageApi;
use crate::catalog::{Code, Failure};
use crate::chat::models::{self, Confirmed, Offered, Pick, Row, Wanted};

/// The controls' part of the driver: what the person asked for, what was read back, and
/// whether the page has been set since it last loaded a chat.
#[derive(Debug, Default)]
pub(super) struct Controls {
    pub wanted: Wanted,
    pub confirmed: Confirmed,
    /// The page was set and read back since the chat last opened; a navigation clears it.
    pub settled: bool,
}

fn not_confirmed(reason: String) -> Failure {
    Failure::new(Code::ModelNotConfirmed, reason)
}

/// The row `want` names among `rows`, or why there is none (`what`: "model" or "effort").
fn named<'a>(
    want: &str,
    rows: &[&'a Row],
    offered: &Offered,
    aliases: &std::collections::BTreeMap<String, String>,
    what: &str,
) -> Result<&'a Row, Failure> {
    let row = match models::pick(want, rows, aliases) {
        Pick::One(row) => row,
        Pick::None => {
            return Err(not_confirmed(format!(
                "no {what} on the page answers to \"{want}\"; nothing was sent. The page offers {}",
                offered.describe()
            )));
        }
        Pick::Ambiguous(rows) => {
            let names: Vec<String> = rows.iter().map(|r| format!("\"{}\"", r.label)).collect();
            return Err(not_confirmed(match names.as_slice() {
                [one] => format!(
                    "no model on the page is \"{want}\"; {one} is another model with more to its name, and keyless does not take it for \"{want}\": nothing was sent. Name it whole if it is the one"
                ),
                _ => format!(
                    "\"{want}\" could be any of {} on the page; keyless does not choose between them, and nothing was sent: name one of them",
                    names.join(", ")
                ),
            }));
        }
    };
    if row.locked {
        return Err(not_confirmed(format!(
            "the {what} \"{}\" is locked on this account (the page offers it with an upgrade); nothing was sent. The page offers {}",
            row.label,
            offered.describe()
        )));
    }
    Ok(row)
}

impl CdpDriver {
    /// What the page's model picker offers (`keyless doctor --models`); `None`: no picker.
    pub fn models_offered(&self) -> Result<Option<Offered>, Failure> {
        self.api().models_offered()
    }

    /// The model and effort chosen and read back, for the transcript and `--json`.
    pub fn confirmed(&self) -> &Confirmed {
        &self.controls.confirmed
    }

    /// Chooses a model or an effort now (the REPL's `/model` and `/effort`), read back on the
    /// page; the choice holds for the rest of the session. A choice that fails leaves the
    /// one before.
    pub fn choose_now(
        &mut self,
        model: Option<String>,
        effort: Option<String>,
    ) -> Result<&Confirmed, Failure> {
        let mut wanted = self.controls.wanted.clone();
        if model.is_some() {
            wanted.model = model;
        }
        if effort.is_some() {
            wanted.effort = effort;
        }
        let confirmed = choose(&self.api(), &wanted)?;
        self.controls.wanted = wanted;
        self.controls.confirmed = confirmed;
        Ok(&self.controls.confirmed)
    }

    /// Sets the page as the person asked, before the first message of a chat goes: the
    /// temporary chat, plain chat, the model and the effort, each read back.
    pub(super) fn settle_controls(&mut self) -> Result<(), Failure> {
        let page = self.api();
        let wanted = self.controls.wanted.clone();
        if wanted.temporary {
            let toggle = page.temporary_chat()?;
            if !toggle.found || !toggle.now {
                return Err(Failure::new(
                    Code::TemporaryNotAvailable,
                    if toggle.found {
                        "--temporary: the page's temporary-chat control did not turn on; nothing was sent".to_string()
                    } else {
                        "--temporary: this page shows no temporary chat (no TemporaryChat control in selectors.json for this site); nothing was sent, so nothing went into the chat's history. Run without --temporary to use a normal chat".to_string()
                    },
                ));
            }
        }
        let plain = page.plain_chat()?;
        if plain.found && !plain.now {
            return Err(not_confirmed(format!(
                "the page stays in its metered surface: its plain chat (\"{}\") did not take; nothing was sent",
                plain.label
            )));
        }
        if plain.found && !plain.was {
            self.tell(&format!(
                "the page was in a metered surface beside plain chat; keyless switched it to \"{}\"",
                plain.label
            ));
        }
        if wanted.picks() {
            let confirmed = choose(&page, &wanted)?;
            self.controls.confirmed = confirmed;
        }
        self.controls.settled = true;
        Ok(())
    }

    /// Before a message goes: the page set (again after a navigation), and a chosen model
    /// still the one the picker shows (a usage cap swaps it without a word).
    pub(super) fn check_controls(&mut self) -> Result<(), Failure> {
        if !self.controls.settled {
            return self.settle_controls();
        }
        let Some(model) = self.controls.confirmed.model.clone() else {
            return Ok(());
        };
        let shown = self.api().model_shown()?.unwrap_or_default();
        if models::names(&shown, &model) {
            return Ok(());
        }
        self.model_changed(format!(
            "the page now shows the model \"{shown}\" instead of \"{model}\", which keyless chose (a usage cap's fallback?)"
        ), "the next message was not sent")
    }

    /// The model the newest reply came from, checked against the one chosen: the reply's own
    /// label, else the picker's words after it.
    pub(super) fn answered_by(&mut self) -> Result<Option<String>, Failure> {
        let said = match self.reader.looked_model() {
            Some(looked) => looked,
            None => self.api().answered_by()?,
        };
        let Some(said) = said else {
            return Ok(None);
        };
        let Some(chosen) = self.controls.confirmed.model.clone() else {
            return Ok(Some(said));
        };
        if models::says(&said, &chosen) {
            return Ok(Some(chosen));
        }
        self.model_changed(format!(
            "the reply says the model \"{said}\" answered, not \"{chosen}\", which keyless chose and confirmed"
        ), "nothing in the reply was run")?;
        Ok(Some(said))
    }

    /// A model other than the chosen one (`reason`): a stop (`stopped` says what did not
    /// happen), or with `allow_fallback` a warning.
    fn model_changed(&mut self, reason: String, stopped: &str) -> Result<(), Failure> {
        if self.controls.wanted.allow_fallback {
            self.warnings.push(Failure::new(
                Code::ModelChanged,
                format!("{reason} (--allow-fallback: going on with it)"),
            ));
            return Ok(());
        }
        Err(Failure::new(
            Code::ModelChanged,
            format!("{reason}; {stopped}. --allow-fallback lets a turn go on with another model"),
        ))
    }

    /// A notice for the person (the CLI prints it).
    fn tell(&self, text: &str) {
        if let Some(notice) = self.tab.reach.notice {
            notice(text);
        }
    }
}

/// Chooses the model and effort `wanted` names in the page's picker and reads them back.
/// How long a page may take to draw its picker after its composer shows: sites draw their
/// controls once their own code has loaded what they offer (hydration, a request for the
/// plan's models).
const PICKER_WAIT: std::time::Duration = std::time::Duration::from_secs(4);
/// How often the page is looked at for a picker not drawn yet.
const PICKER_LOOK: std::time::Duration = std::time::Duration::from_millis(200);

/// The picker the page offers, waited for a while when it is not drawn yet.
fn offered_when_drawn(page: &PageApi) -> Result<Option<Offered>, Failure> {
    let given_up = std::time::Instant::now() + PICKER_WAIT;
    loop {
        let offered = page.models_offered()?;
        if offered.is_some() || std::time::Instant::now() >= given_up {
            return Ok(offered);
        }
        std::thread::sleep(PICKER_LOOK);
    }
}

fn choose(page: &PageApi, wanted: &Wanted) -> Result<Confirmed, Failure> {
    let aliases = &page.site().model_aliases;
    let Some(offered) = offered_when_drawn(page)? else {
        return Err(not_confirmed(
            "the page shows no model picker (no ModelPicker in selectors.json matched, and no control that opens a list of models was found); nothing was sent".to_string(),
        ));
    };
    let mut confirmed = Confirmed::default();
    let mut clicked = false;
    if let Some(want) = &wanted.model {
        let row = named(want, &offered.models(), &offered, aliases, "model")?;
        if !row.checked {
            clicked |= page.choose_model(&row.label, &row.group)?;
        }
        confirmed.model = Some(row.label.clone());
    }
    if let Some(want) = &wanted.effort {
        let rows = offered.efforts();
        if rows.is_empty() {
            return Err(not_confirmed(format!(
                "the page's picker offers no effort to choose \"{want}\" from; nothing was sent. The page offers {}",
                offered.describe()
            )));
        }
        let row = named(want, &rows, &offered, &Default::default(), "effort")?;
        if !row.checked {
            clicked |= page.choose_model(&row.label, &row.group)?;
        }
        confirmed.effort = Some(row.label.clone());
    }
    // Read back: the picker opened again shows the rows chosen checked, and its own words
    // name the model.
    let back = if clicked {
        page.models_offered()?.unwrap_or(Offered {
            shown: String::new(),
            how: offered.how.clone(),
            options: Vec::new(),
        })
    } else {
        offered
    };
    if let Some(model) = &confirmed.model {
        let shows = models::names(&back.shown, model);
        if back.checked_model() != Some(model.as_str()) || !shows {
            return Err(not_confirmed(format!(
                "keyless chose the model \"{model}\", but the page shows \"{}\" (checked: {}); nothing was sent. The page offers {}",
                back.shown,
                back.checked_model().unwrap_or("none"),
                back.describe()
            )));
        }
    }
    if let Some(effort) = &confirmed.effort
        && back.checked_effort() != Some(effort.as_str())
    {
        return Err(not_confirmed(format!(
            "keyless chose the effort \"{effort}\", but the page has \"{}\" checked; nothing was sent",
            back.checked_effort().unwrap_or("none")
        )));
    }
    Ok(confirmed)
}
