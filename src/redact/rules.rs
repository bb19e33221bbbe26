//! The built-in rules: the kinds of secret a tag names, the token formats in priority order, the
//! pattern of an assignment to a secret name, and the pattern of a tag itself, compiled once per
//! process.

use std::sync::LazyLock;

use regex::Regex;

/// How every tag begins; a quoted value containing it is already redacted.
pub(super) const TAG_OPEN: &str = "[redacted: ";

macro_rules! kinds {
    ($( $variant:ident = $name:literal, )*) => {
        /// One kind of secret, named in the tag `[redacted: <kind>]`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(super) enum Kind { $( $variant, )* }

        impl Kind {
            pub(super) const ALL: &'static [Kind] = &[ $( Kind::$variant, )* ];

            /// The name in the tag: short, kebab-case, and never itself a match for any rule.
            pub(super) fn name(self) -> &'static str {
                match self { $( Kind::$variant => $name, )* }
            }
        }
    };
}

kinds! {
    PrivateKey = "private-key",
    Jwt = "jwt",
    AnthropicKey = "anthropic-key",
    OpenaiKey = "openai-key",
    GithubToken = "github-token",
    GitlabToken = "gitlab-token",
    SlackWebhook = "slack-webhook",
    SlackToken = "slack-token",
    StripeKey = "stripe-key",
    AwsAccessKeyId = "aws-access-key-id",
    GoogleApiKey = "google-api-key",
    NpmToken = "npm-token",
    HuggingfaceToken = "huggingface-token",
    AuthHeader = "auth-header",
    UrlPassword = "url-password",
    RegistryAuth = "registry-auth",
    NetrcPassword = "netrc-password",
    AwsSecretKey = "aws-secret-key",
    SecretValue = "secret-value",
}

/// A built-in rule: a pattern whose match (or one capture group of it) is the secret.
pub(super) struct Rule {
    pub(super) kind: Kind,
    pattern: &'static str,
    /// The capture group holding the secret; 0 is the whole match.
    pub(super) group: usize,
    /// What the pattern cannot say cheaply.
    pub(super) check: fn(&str) -> bool,
}

impl Rule {
    /// A rule whose whole match is the secret.
    const fn new(kind: Kind, pattern: &'static str) -> Rule {
        Rule {
            kind,
            pattern,
            group: 0,
            check: |_| true,
        }
    }
}

/// The format rules, in priority order: when two find the same span, the earlier names it.
/// Each starts with a literal (or has one inside) so that the regex crate skips ordinary text
/// with a fast literal search. Counts are open-ended (`{36,}`) so a match always ends where the
/// token's alphabet ends, never inside it.
#[rustfmt::skip]
const RULES: &[Rule] = &[
    // A PEM block (`RSA`, `EC`, `DSA`, `OPENSSH`, `ENCRYPTED`, PGP's `PRIVATE KEY BLOCK`, the
    // SSH2 form's `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`), whole: its header followed by
    // a line break (also written `\n` in a string) or its data on the same line.
    Rule::new(Kind::PrivateKey, r"-{4,5} ?BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}[ \t]*(?:\r?\n|(?:\\r)?\\n|\z|[ ]?[A-Za-z0-9+/])(?s:.*?)(?:-{4,5} ?END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|\z)"),
    // PuTTY's `.ppk`, from its first line through its MAC.
    Rule::new(Kind::PrivateKey, r"PuTTY-User-Key-File-[0-9]+:[ \t]*[A-Za-z0-9@._-]+[ \t]*\r?\n(?s:.*?)(?:Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]*|\z)"),
    // The base64 of a key's DER without its PEM lines (a key kept in a variable, a keystore),
    // known by its first bytes (RFC 8017, 5915, 5958, 7292): PKCS#1 RSA and DSA
    // (`30 82 LL LL 02 01 00 02 8x`), PKCS#8 (`… 02 01 00 30`), PKCS#12 (`… 02 01 03 30 82`),
    // the shorter lengths of EC (SEC1 `02 01 01 04`) and Ed25519/Ed448/X25519 PKCS#8, encrypted
    // PKCS#8 (PBES1/PBES2 and PKCS#12's PBE), and OpenSSH's `openssh-key-v1`.
    Rule::new(Kind::PrivateKey, r"(?-u:\b)(?:MII[A-Za-z0-9+/]{2}[AQgw]IBA(?:AK[BC]|D|zCC)|MII[A-Za-z0-9+/]{2}[DTjz][A-D][A-Za-z0-9+/]Bg(?:kqhkiG9w0BBQ|oqhkiG9w0BDAE)|MI[E-H][A-Za-z0-9+/]AgE(?:AM|BB)|M[A-Za-z0-9+/][AEIMQUYcgkosw048]CAQ(?:Aw|EE)|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]*={0,2}"),
    // `openssl rsa|ec|pkey -text`: the key's numbers in hex, each under its name.
    Rule::new(Kind::PrivateKey, r"(?m)^[ \t]*(?:RSA |ED25519 |X25519 |ED448 |X448 )?Private-Key:[^\n]*\n(?:[ \t]*[A-Za-z][A-Za-z0-9]*(?: [A-Z][A-Z0-9]*)?:[^\n]*\n|[ \t]+[0-9a-fA-F:]+[ \t]*\r?\n)*"),
    Rule::new(Kind::PrivateKey, r"(?-u:\b)AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    Rule::new(Kind::Jwt, r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    Rule::new(Kind::AnthropicKey, r"(?-u:\b)sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}"),
    // A digit, so that kebab-case words (`sk-learn-…`) are not keys.
    Rule { check: has_digit_and_letter, ..Rule::new(Kind::OpenaiKey, r"(?-u:\b)sk-[A-Za-z0-9_-]{20,}") },
    Rule::new(Kind::GithubToken, r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    Rule::new(Kind::GitlabToken, r"(?-u:\b)(?:gl(?:pat|ptt|rt|cbt|dt|ffct|ft|imt|agent|oas|soat)-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{9,})?|GR1348941[A-Za-z0-9_-]{20,})"),
    Rule::new(Kind::SlackWebhook, r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}"),
    Rule::new(Kind::SlackToken, r"(?-u:\b)(?:xox(?:[abprs]|e(?:\.xox[bp])?)|xapp)-[A-Za-z0-9-]{10,}"),
    Rule::new(Kind::StripeKey, r"(?-u:\b)(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})"),
    Rule::new(Kind::AwsAccessKeyId, r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16,}"),
    Rule::new(Kind::GoogleApiKey, r"(?-u:\b)AIza[A-Za-z0-9_-]{35,}"),
    Rule::new(Kind::NpmToken, r"(?-u:\b)npm_[A-Za-z0-9]{36,}"),
    Rule::new(Kind::HuggingfaceToken, r"(?-u:\b)(?:hf_|api_org_)[A-Za-z0-9]{30,}"),
    // Prose ("basic understanding…") is lower-case words; credentials are not.
    Rule {
        group: 1,
        check: |credential| credential.bytes().any(|b| b.is_ascii_uppercase() || b.is_ascii_digit()),
        ..Rule::new(Kind::AuthHeader, r"(?-u:\b)(?i-u:bearer|basic)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)")
    },
    // `${DB_PASSWORD}` is a template, not a password.
    Rule {
        group: 1,
        check: |password| !password.starts_with('$'),
        ..Rule::new(Kind::UrlPassword, r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'`]*:([^\s/@"'`]+)@"#)
    },
    // `.netrc`: after `login USER` on a line, or opening a line of its own. A lower-case word
    // ("password changed") is prose, not a password.
    Rule {
        group: 1,
        check: |password| {
            password.len() >= 6
                && !password.starts_with(TAG_OPEN.trim_end())
                && !password.bytes().all(|b| b.is_ascii_lowercase())
        },
        ..Rule::new(Kind::NetrcPassword, r"(?m)(?:^[ \t]*|(?-u:\b)(?:login|account)[ \t]+\S+[ \t]+)(?:password|passwd)[ \t]+(\S+)")
    },
];

/// `KEY <sep> VALUE`, where KEY contains a word that may name a secret (the exact decision is
/// [`is_secret_env_name`](super::names::is_secret_env_name)'s) and VALUE is quoted or runs to
/// whitespace. The value is judged in [`assigned_secret`](super::assignment::assigned_secret).
const ASSIGNMENT: &str = r#"(?x)
    (?-u:\b)
    [A-Za-z0-9_.-]*                                     # the key
        (?i-u:pass|pwd|secret|token|key|credential|cookie|sess|database_?ur|db_?ur)
        [A-Za-z0-9_.-]*
    ["']?                                               # the end of a quoted key
    [\ \t]*(?::=|=>|[:=])[\ \t]*                         # the operator
    (?:"[^"\r\n]*" | '[^'\r\n]*' | [^\s"'`:][^\s"'`]*)    # the value
    "#;

/// Something that looks like a tag; [`Redactor::is_own_tag`](super::Redactor::is_own_tag) decides
/// whether it is one.
const TAG: &str = r"\[redacted: [A-Za-z0-9_.() -]+\]";

/// The compiled rules. A pattern that fails to compile is a bug a unit test catches; at run
/// time it is left out rather than bringing keyless down.
pub(super) static COMPILED: LazyLock<Vec<(&'static Rule, Regex)>> = LazyLock::new(|| {
    RULES
        .iter()
        .filter_map(|rule| Some((rule, Regex::new(rule.pattern).ok()?)))
        .collect()
});
pub(super) static ASSIGNMENT_REGEX: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(ASSIGNMENT).ok());
pub(super) static TAG_REGEX: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(TAG).ok());

pub(super) fn has_digit_and_letter(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit()) && text.bytes().any(|b| b.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        assert_eq!(COMPILED.len(), RULES.len());
        assert!(ASSIGNMENT_REGEX.is_some());
        assert!(TAG_REGEX.is_some());
        for kind in Kind::ALL {
            assert!(
                kind.name()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{kind:?}"
            );
        }
    }
}
