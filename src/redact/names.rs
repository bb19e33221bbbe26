//! Which names mark a value as secret: environment variables and assignment keys.

/// The word before KEY in a secret key's name: `API_KEY`, `APIKEY`, `ssh_keys`.
pub(super) const KEY_KINDS: &str = "API ACCESS SECRET PRIVATE MASTER AUTH SIGNING ENCRYPTION LICENSE CLIENT \
                         SESSION DEPLOY SSH SERVICE";

/// The word before KEY in a key that only orders, finds or verifies.
pub(super) const PLAIN_KEYS: &str = "PUBLIC PUB PRIMARY FOREIGN SORT PARTITION CACHE HOT ROUTING \
                          IDEMPOTENCY SHORTCUT MAX MIN NUM";

/// Whether `word` is one of the space-separated `words`.
pub(super) fn listed(words: &str, word: &str) -> bool {
    words.split_ascii_whitespace().any(|w| w == word)
}

/// Whether an environment variable's name marks its value as secret (case-insensitive; also used
/// for the keys of assignments, so `apiKey` and `client-secret` count too).
pub fn is_secret_env_name(name: &str) -> bool {
    let mut words = words(name);
    while words
        .last()
        .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()))
    {
        words.pop(); // API_KEY_2
    }
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return false;
    };
    let (first, last) = (first.as_str(), last.as_str());
    let previous = words.len().checked_sub(2).map(|i| words[i].as_str());
    let ends = |suffixes: &str| suffixes.split_ascii_whitespace().any(|s| last.ends_with(s));
    // keyless's own settings hold no secrets; a name ending in a place holds a path.
    if first == "KEYLESS" || listed("FILE PATH DIR DIRECTORY", last) {
        return false;
    }
    let contains = |part: &str| words.iter().any(|w| w.contains(part));
    if ["PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL"]
        .into_iter()
        .any(contains)
    {
        return true;
    }
    if last.ends_with("TOKENS") {
        // MAX_TOKENS is a count.
        return !words
            .iter()
            .any(|w| listed("MAX MIN NUM TOTAL COUNT LIMIT", w));
    }
    if ends("TOKEN SECRET SECRETS COOKIE COOKIES SESSIONID SESSID") {
        return true;
    }
    match (previous, last) {
        // Plural keys are mostly collections (`sorted_keys`, `AUTHORIZED_KEYS`).
        (Some(kind), "KEYS") => listed(KEY_KINDS, kind),
        (Some(kind), "KEY") => !listed(PLAIN_KEYS, kind),
        // DB_PASS, MYSQL_PWD, GITHUB_PAT; never PWD or OLDPWD.
        (Some(_), "PASS" | "PWD" | "PAT") => true,
        (Some("SESSION"), "ID") => first != "XDG",
        (Some("DATABASE" | "DB"), "URL" | "URI") => true,
        // One word: APIKEY, ACCESSKEYS… but not KEY, MONKEY or KEYBOARD.
        _ => last
            .strip_suffix('S')
            .unwrap_or(last)
            .strip_suffix("KEY")
            .is_some_and(|kind| {
                KEY_KINDS
                    .split_ascii_whitespace()
                    .any(|k| kind.ends_with(k))
            }),
    }
}

/// The upper-cased words of a name: split at anything but ASCII letters and digits, and where
/// camelCase turns upper (`clientSecret` → `CLIENT`, `SECRET`).
pub(super) fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut after_lower = false;
    for c in name.chars() {
        let boundary = !c.is_ascii_alphanumeric() || (after_lower && c.is_ascii_uppercase());
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_uppercase());
        }
        after_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}
