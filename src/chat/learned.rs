//! Learned selectors: what discovery found on a page and proved in an exchange, kept per site in
//! the user's config folder (`learned-selectors.json`, in selectors.json's schema, so that an
//! entry can be contributed back as it is) and put before the built-in alternatives next time.

use std::path::{Path, PathBuf};

use super::selectors::{self, File, Site};
use crate::catalog::{Code, Failure};

/// The file's name in keyless's config folder.
pub const FILE_NAME: &str = "learned-selectors.json";

/// Where the learned selectors live in `config_folder` (keyless's own, e.g.
/// `~/.config/keyless`).
pub fn path(config_folder: &Path) -> PathBuf {
    config_folder.join(FILE_NAME)
}

/// The learned selectors; none when the file does not exist yet.
pub fn load(path: &Path) -> Result<File, Failure> {
    match std::fs::read_to_string(path) {
        Ok(text) => selectors::parse_learned(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File {
            version: 1,
            sites: Default::default(),
        }),
        Err(e) => Err(Failure::new(
            Code::ConfigInvalid,
            format!("cannot read {}: {e}", path.display()),
        )),
    }
}

/// The entry to keep for a site: the selectors discovery proved (`found`, by key), with the
/// page's URL and host, the insertion strategy that worked, and the date.
pub fn entry(
    base: &Site,
    found: &std::collections::BTreeMap<String, String>,
    strategy: Option<&str>,
    today: &str,
) -> Site {
    let mut learned = Site::unknown(&base.url);
    if !base.discovered {
        learned.matches.clone_from(&base.matches);
    }
    learned.discovered = false;
    learned.verified = today.to_string();
    learned.notes = Some("learned by keyless doctor --learn".into());
    learned.insert = strategy.into_iter().map(str::to_string).collect();
    for (key, css) in found {
        learned.selectors.insert(key.clone(), vec![css.clone()]);
    }
    learned
}

/// Keeps `entry` as `name`'s learned selectors (replacing what was learned before for it),
/// written whole to a temporary file and renamed, so a crash leaves the old file or the new.
pub fn save(path: &Path, name: &str, entry: &Site) -> Result<(), Failure> {
    let failed = |e: std::io::Error| {
        Failure::new(
            Code::ConfigInvalid,
            format!("cannot write {}: {e}", path.display()),
        )
    };
    let mut file = load(path)?;
    file.sites.insert(name.to_string(), entry.clone());
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| Failure::new(Code::Internal, e.to_string()))?;
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(failed)?;
    let mut temp = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
    std::io::Write::write_all(&mut temp, format!("{text}\n").as_bytes()).map_err(failed)?;
    temp.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// Keeps what discovery proved on `site_name`'s page (`found`, and `strategy`, the insertion
/// that worked where it is not the one the site tries first) in the file at `path`, merged with
/// what was learned on the site before. The entry kept, or `None` when there is nothing to
/// keep.
pub fn keep(
    path: &Path,
    site_name: &str,
    base: &Site,
    found: &std::collections::BTreeMap<String, String>,
    strategy: Option<&str>,
) -> Result<Option<Site>, Failure> {
    let strategy = strategy.filter(|s| base.insert.first().map(String::as_str) != Some(*s));
    if found.is_empty() && strategy.is_none() {
        return Ok(None);
    }
    let mut entry = entry(base, found, strategy, &today());
    if let Some(before) = load(path)
        .ok()
        .and_then(|file| file.sites.get(site_name).cloned())
    {
        for (key, alternatives) in before.selectors {
            entry.selectors.entry(key).or_insert(alternatives);
        }
        if entry.insert.is_empty() {
            entry.insert = before.insert;
        }
    }
    save(path, site_name, &entry)?;
    Ok(Some(entry))
}

/// How `learned` differs from the built-in entry, a line per key: `+` for a selector the
/// built-in entry lacks, `=` for one it has.
pub fn difference(builtin: Option<&Site>, learned: &Site) -> Vec<String> {
    let mut lines = Vec::new();
    for (key, alternatives) in &learned.selectors {
        let known = builtin
            .and_then(|site| site.selectors.get(key))
            .cloned()
            .unwrap_or_default();
        for css in alternatives {
            let sign = if known.contains(css) { "=" } else { "+" };
            lines.push(format!("{sign} {key}: {css}"));
        }
    }
    lines
}

/// Today's date (UTC) as `YYYY-MM-DD`, for an entry's `verified`.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = crate::chat::trouble::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::trouble::civil_from_days;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_423), (2025, 12, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn a_learned_entry_goes_first_and_its_difference_is_shown() {
        let mut base = Site::unknown("https://chat.example.com/");
        base.discovered = false;
        base.selectors
            .insert("Composer".into(), vec!["#old".into(), "textarea".into()]);
        let found = [("Composer".to_string(), "textarea".to_string())].into();
        let learned = entry(&base, &found, Some("insertText"), "2026-12-01");
        assert_eq!(
            difference(Some(&base), &learned),
            vec!["= Composer: textarea"]
        );
        base.learn_from(&learned);
        assert_eq!(base.selectors["Composer"], vec!["textarea", "#old"]);
        assert_eq!(base.insert, vec!["insertText"]);
        assert_eq!(
            selectors::host("https://u:p@chat.example.com:8443/c/1?x"),
            "chat.example.com:8443"
        );
    }
}
