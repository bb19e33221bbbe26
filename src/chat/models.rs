//! The chat's own controls as the person asks for them (`--model`, `--effort`,
//! `--allow-fallback`, `--temporary`), what a site's model picker offers, and which of its rows
//! a person's name means.
//!
//! Names match loosely (letter case, spaces, punctuation, a site's aliases, the words of a name
//! within a longer label: `thinking` is "GPT-5.5 Thinking"), but never to a different model: a
//! name two rows answer to is refused with both named, and a name no row answers to is refused
//! with what the page offers. Pure: the page is driven in `cdp/controls.rs`, and nothing here
//! decides what to do about a model that changed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the person asked of the chat's own controls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    /// The model, as the person named it.
    pub model: Option<String>,
    /// The reasoning effort, as the person named it.
    pub effort: Option<String>,
    /// A reply from another model than the one chosen is a warning, not a stop.
    pub allow_fallback: bool,
    /// The task runs in the site's temporary chat (its history is not kept).
    pub temporary: bool,
}

impl Wanted {
    /// Whether the person asked for a model or an effort (the picker is opened only then).
    pub fn picks(&self) -> bool {
        self.model.is_some() || self.effort.is_some()
    }
}

/// One row of a picker, as the page shows it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Row {
    /// The row's own words (without an "Upgrade" button inside it).
    pub label: String,
    /// `aria-checked` or `aria-selected`.
    pub checked: bool,
    /// The row holds a control of its own (an upgrade offer) or is disabled.
    pub locked: bool,
    /// The label of the group the row is in (effort levels are a group of their own); empty
    /// for rows outside every group.
    pub group: String,
}

/// What the picker offers.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Offered {
    /// The picker's own words (the model it shows chosen).
    pub shown: String,
    /// How the picker was found: `selectors`, or `shape` (by role and state).
    pub how: String,
    pub options: Vec<Row>,
}

impl Offered {
    /// The group the models are in: that of the checked row the picker's words name (the
    /// first row's when none is named).
    fn model_group(&self) -> Option<&str> {
        let shown = flat(&self.shown);
        self.options
            .iter()
            .find(|r| r.checked && !flat(&r.label).is_empty() && shown.contains(&flat(&r.label)))
            .or(self.options.first())
            .map(|r| r.group.as_str())
    }

    /// The rows that are models.
    pub fn models(&self) -> Vec<&Row> {
        let group = self.model_group();
        self.options
            .iter()
            .filter(|r| Some(r.group.as_str()) == group)
            .collect()
    }

    /// The rows that are effort levels (every other group).
    pub fn efforts(&self) -> Vec<&Row> {
        let group = self.model_group();
        self.options
            .iter()
            .filter(|r| Some(r.group.as_str()) != group)
            .collect()
    }

    /// The checked model's label.
    pub fn checked_model(&self) -> Option<&str> {
        checked(&self.models())
    }

    /// The checked effort's label.
    pub fn checked_effort(&self) -> Option<&str> {
        checked(&self.efforts())
    }

    /// What the page offers, in words: the models (locked ones marked) and the efforts.
    pub fn describe(&self) -> String {
        let list = |rows: Vec<&Row>| {
            rows.iter()
                .map(|r| {
                    let mut s = format!("\"{}\"", r.label);
                    if r.locked {
                        s.push_str(" (locked)");
                    }
                    if r.checked {
                        s.push_str(" (chosen)");
                    }
                    s
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = format!("models {}", list(self.models()));
        let efforts = self.efforts();
        if efforts.is_empty() {
            out.push_str("; no effort choice");
        } else {
            out.push_str(&format!("; effort {}", list(efforts)));
        }
        out
    }
}

fn checked<'a>(rows: &[&'a Row]) -> Option<&'a str> {
    rows.iter().find(|r| r.checked).map(|r| r.label.as_str())
}

/// Which row a name means.
#[derive(Debug, PartialEq, Eq)]
pub enum Pick<'a> {
    One(&'a Row),
    /// No row answers to the name.
    None,
    /// More than one row answers to it, and none exactly: keyless never chooses between them.
    Ambiguous(Vec<&'a Row>),
}

/// A name with everything but its letters and digits taken out, in lower case: `GPT-5.5
/// Thinking`, `gpt 5.5 thinking` and the slug `gpt-5-5-thinking` are the same.
pub fn flat(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A name's words, in lower case.
fn words(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether two names are the same model's (a label and a reply's slug).
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (flat(a), flat(b));
    !a.is_empty() && a == b
}

/// Whether `label` names the model `name` names: the same name, or the name's words in the
/// label's once makers' and families' names are left out of both ("Claude Sonnet 4.5" for
/// `sonnet 4.5`, "ChatGPT 5.5 Thinking" for "GPT-5.5 Thinking"), with nothing else around them
/// but, when the name gives no version, a version ("GPT-5.5 Thinking" for `thinking`, "Claude
/// Opus 4.1" for `opus`). Any other word makes another model: "GPT-5 mini" is not `gpt-5`, nor
/// is "GPT-5.5" (its version goes on), nor "Extra high" `high`.
pub fn names(label: &str, name: &str) -> bool {
    named(label, name, false)
}

/// Whether what a reply says of the model that answered it (an attribute's slug, or a line
/// such as "Answered by GPT-5") names `name`: as [`names`], with any words before the name.
pub fn says(said: &str, name: &str) -> bool {
    named(said, name, true)
}

fn named(label: &str, name: &str, any_before: bool) -> bool {
    if same(label, name) {
        return true;
    }
    // Makers' and families' names are left out of both ("ChatGPT 5.5 Thinking" names
    // "GPT-5.5 Thinking").
    let unbranded = |text: &str| -> Vec<String> {
        words(text)
            .into_iter()
            .filter(|w| !BRANDS.contains(&w.as_str()))
            .collect()
    };
    let (have, need) = (unbranded(label), unbranded(name));
    if need.is_empty() {
        return false;
    }
    let versioned = need.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()));
    // Around the name in the label: nothing, or, when the name gives no version, a version
    // (before: "GPT-5.5 Thinking" for `thinking`; after: "Claude Opus 4.1" for `opus`).
    (0..have.len().saturating_sub(need.len() - 1)).any(|at| {
        let end = at + need.len();
        have[at..end] == need[..]
            && (any_before
                || have[..at]
                    .iter()
                    .all(|w| !versioned && w.chars().any(|c| c.is_ascii_digit())))
            && have[end..]
                .iter()
                .all(|w| !versioned && w.chars().all(|c| c.is_ascii_digit()))
    })
}

/// The makers' and families' names a model's label may carry beside the words a person names it
/// by ("GPT-5.5 Thinking", "Claude Sonnet 4.5"); besides them, only a version may stand before
/// the name: any other word makes another choice ("Extra high" is not `high`).
const BRANDS: &[&str] = &[
    "gpt",
    "chatgpt",
    "claude",
    "gemini",
    "grok",
    "deepseek",
    "qwen",
    "kimi",
    "llama",
    "mistral",
    "copilot",
    "meta",
    "perplexity",
    "sonar",
    "openai",
    "anthropic",
    "google",
    "xai",
];

/// The row `want` means among `rows`: a site's alias first (`aliases`: a name → the label it
/// stands for), then the same name (case, spaces and punctuation aside), then the rows whose
/// label the name [`names`]; one such row, or none, or the ambiguous ones.
pub fn pick<'a>(want: &str, rows: &[&'a Row], aliases: &BTreeMap<String, String>) -> Pick<'a> {
    let want = aliases
        .iter()
        .find(|(alias, _)| same(alias, want))
        .map_or(want, |(_, label)| label.as_str());
    let exact: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| same(&r.label, want))
        .collect();
    if let [one] = exact.as_slice() {
        return Pick::One(one);
    }
    let holding: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| names(&r.label, want))
        .collect();
    match holding.as_slice() {
        [one] => Pick::One(one),
        [_, _, ..] => Pick::Ambiguous(holding),
        // None named, but some hold every word of the name (variants of it, "GPT-5 mini" for
        // `gpt-5`): refused with them named, never chosen.
        [] => {
            let need = words(want);
            let near: Vec<&Row> = rows
                .iter()
                .copied()
                .filter(|r| {
                    let have = words(&r.label);
                    !need.is_empty() && need.iter().all(|w| have.contains(w))
                })
                .collect();
            if near.is_empty() {
                Pick::None
            } else {
                Pick::Ambiguous(near)
            }
        }
    }
}

/// The model and effort keyless chose and read back on the page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Confirmed {
    pub model: Option<String>,
    pub effort: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(labels: &[&str]) -> Vec<Row> {
        labels
            .iter()
            .map(|l| Row {
                label: l.to_string(),
                checked: false,
                locked: false,
                group: String::new(),
            })
            .collect()
    }

    fn check(want: &str, labels: &[&str], expected: Option<&str>) {
        let all = rows(labels);
        let refs: Vec<&Row> = all.iter().collect();
        let got = match pick(want, &refs, &BTreeMap::new()) {
            Pick::One(r) => Some(r.label.as_str()),
            _ => None,
        };
        assert_eq!(got, expected, "{want} among {labels:?}");
    }

    const GPT: &[&str] = &["Auto", "GPT-5.5 Instant", "GPT-5.5 Thinking", "GPT-5.5 Pro"];

    #[test]
    fn names_match_loosely_by_case_spaces_punctuation_and_words() {
        check("gpt-5.5 thinking", GPT, Some("GPT-5.5 Thinking"));
        check("GPT 5.5 THINKING", GPT, Some("GPT-5.5 Thinking"));
        check("gpt-5-5-thinking", GPT, Some("GPT-5.5 Thinking"));
        check("thinking", GPT, Some("GPT-5.5 Thinking"));
        check("pro", GPT, Some("GPT-5.5 Pro"));
        check("auto", GPT, Some("Auto"));
        check("思考", &["极速", "思考"], Some("思考"));
    }

    #[test]
    fn a_name_never_becomes_another_model() {
        check("gpt-6", GPT, None);
        check("thinking mini", GPT, None);
        check("", GPT, None);
        // A variant or a longer version is another model (found by an outside attack: `gpt-5`
        // chose "GPT-5 mini" and "GPT-5.5 Thinking").
        check("gpt-5.5", GPT, None);
        let all = rows(GPT);
        let refs: Vec<&Row> = all.iter().collect();
        match pick("gpt-5.5", &refs, &BTreeMap::new()) {
            Pick::Ambiguous(near) => assert_eq!(near.len(), 3, "named, never chosen"),
            other => panic!("{other:?}"),
        }
        check("gpt-5", &["GPT-5 mini", "GPT-4o"], None);
        check("gpt-5", &["GPT-5.5 Thinking", "GPT-4o"], None);
        check("gpt-5", &["GPT-5.5", "GPT-4o"], None);
        check("gpt-5", &["GPT-5", "GPT-5 mini"], Some("GPT-5"));
        // A brand before the name, and a version after a name that gives none, are the same.
        check(
            "sonnet 4.5",
            &["Claude Sonnet 4.5", "Claude Opus 4.1"],
            Some("Claude Sonnet 4.5"),
        );
        check(
            "opus",
            &["Claude Sonnet 4.5", "Claude Opus 4.1"],
            Some("Claude Opus 4.1"),
        );
        let all = rows(&["Claude Opus 4", "Claude Opus 4.1"]);
        let refs: Vec<&Row> = all.iter().collect();
        match pick("opus", &refs, &BTreeMap::new()) {
            Pick::Ambiguous(found) => assert_eq!(found.len(), 2),
            other => panic!("{other:?}"),
        }
        // A reply's model as the page says it: a slug of the same model, or a line naming it.
        assert!(says("gpt-5-5-thinking", "GPT-5.5 Thinking"));
        assert!(says("Answered by GPT-5", "GPT-5"));
        assert!(!says("gpt-5-mini", "GPT-5"));
        assert!(!says("Answered by GPT-5 mini", "GPT-5"));
        assert!(
            !names("Answered by GPT-5", "GPT-5"),
            "a picker's row is no byline"
        );
        // A word before the name that is no brand makes another choice.
        check("high", &["Low", "Extra high"], None);
        check("high", &["Low", "High", "Extra high"], Some("High"));
        check("research", &["GPT-5", "Deep research"], None);
        // A picker's label with the brand run into the name.
        assert!(names("ChatGPT 5.5 Thinking", "GPT-5.5 Thinking"));
        assert!(!names("ChatGPT 5 mini", "GPT-5"));
    }

    #[test]
    fn a_sites_alias_names_its_label() {
        let all = rows(&["Fast", "Thinking", "Pro"]);
        let refs: Vec<&Row> = all.iter().collect();
        let aliases = BTreeMap::from([("gemini-3-pro".to_string(), "Pro".to_string())]);
        assert_eq!(pick("Gemini 3 Pro", &refs, &aliases), Pick::One(&all[2]));
    }

    #[test]
    fn efforts_are_the_groups_beside_the_models() {
        let mut all = rows(&["GPT-5.5 Instant", "GPT-5.5 Thinking", "Light", "Heavy"]);
        all[1].checked = true;
        all[2].group = "Effort".into();
        all[3].group = "Effort".into();
        all[3].checked = true;
        let offered = Offered {
            shown: "GPT-5.5 Thinking".into(),
            how: "shape".into(),
            options: all,
        };
        assert_eq!(offered.checked_model(), Some("GPT-5.5 Thinking"));
        assert_eq!(offered.checked_effort(), Some("Heavy"));
        assert_eq!(offered.models().len(), 2);
        assert!(
            offered.describe().contains("effort \"Light\""),
            "{}",
            offered.describe()
        );
    }
}
