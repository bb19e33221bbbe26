//! Redaction by value, through the built binary: the values of keyless's secret and withheld
//! environment variables and of the workspace's `.env` files never reach the results, however a
//! command prints them (as they are, base64-, hex- or URL-encoded, split by colour codes), while
//! ordinary output, colour codes included, comes out as it was.

use crate::common::Test;

/// A fake secret in keyless's environment: secret by its name.
const ENV_SECRET: &str = "Tk9/fake+env=secret-2024XyZ";
/// A fake value withheld by `Sandbox.HiddenEnv`, though its name says nothing.
const HIDDEN_VALUE: &str = "plain-but-hidden-value-77";
/// A fake secret in the workspace's `.env`.
const DOTENV_SECRET: &str = "dotenv/Fake+Key=77qQ-zz";
/// A fake secret a command writes into `.env.local` and prints in the same command.
const LATER_SECRET: &str = "written-later-by-a-command-9Q";

const CONFIG: &str = r#"{
  "Limits": { "MaxCommandsPerResponse": 100 },
  "Sandbox": { "HiddenEnv": ["MY_PLAIN_VAR"] }
}"#;

/// The ways each command prints the value that `SRC` (a shell command) writes.
const SPELLINGS: &[&str] = &[
    r#"printf 'plain: %s\n' "$(SRC)""#,
    r#"printf '%s' "$(SRC)" | base64 -w0; echo"#,
    r#"printf 'x%s' "$(SRC)" | base64 -w0 | tr -d =; echo"#,
    r#"printf 'xy%s!' "$(SRC)" | base64 -w0 | tr '+/' '-_'; echo"#,
    r#"printf '%s' "$(SRC)" | od -An -v -tx1 | tr -d ' \n'; echo"#,
    r#"printf '%s' "$(SRC)" | od -An -v -tx1 | tr -d ' \n' | tr a-f A-F; echo"#,
    r#"printf 'https://x.test/?q=%s&n=1\n' "$(SRC | sed 's,/,%2F,g; s,+,%2B,g; s,=,%3D,g')""#,
    r#"s="$(SRC)"; printf '\033[1;31m%s\033[0;32m%s\033[0m\n' "$(printf %s "$s" | cut -c1-6)" "$(printf %s "$s" | cut -c7-)""#,
];

/// How each secret is read by the model's commands: from a file the test wrote (a secret the
/// environment withholds reaches a command only that way), or from `.env` itself.
const SOURCES: &[(&str, &str)] = &[
    (ENV_SECRET, "cat leak/env.txt"),
    (HIDDEN_VALUE, "cat leak/hidden.txt"),
    (
        DOTENV_SECRET,
        "sed -n 's/^STRIPE_KEY=//p' .env | tr -d '\\n'",
    ),
];

fn base64(bytes: &[u8], url: bool) -> String {
    let alphabet: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// What of each spelling of `value` is made of the value alone, as the commands print it.
fn spelled(value: &str) -> Vec<String> {
    let core = |before: &str, after: &str, url: bool| {
        let encoded = base64(format!("{before}{value}{after}").as_bytes(), url);
        let first = (8 * before.len()).div_ceil(6);
        let last = 8 * (before.len() + value.len()) / 6;
        encoded[first..last].to_string()
    };
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    let url = value
        .replace('/', "%2F")
        .replace('+', "%2B")
        .replace('=', "%3D");
    vec![
        value.to_string(),
        core("", "", false),
        core("x", "", false),
        core("xy", "!", true),
        hex.to_ascii_uppercase(),
        hex,
        url,
    ]
}

/// No stretch of `secret` as long as `window` is in `out`.
fn none_of(out: &str, secret: &str, window: usize) {
    for part in secret.as_bytes().windows(window) {
        let part = String::from_utf8_lossy(part);
        assert!(
            !out.contains(&*part),
            "{part:?} of {secret:?} reached the results:\n{out}"
        );
    }
}

#[test]
fn known_values_never_reach_the_results_however_a_command_spells_them() {
    let mut commands = Vec::new();
    for (_, source) in SOURCES {
        for spelling in SPELLINGS {
            commands.push(spelling.replace("SRC", source));
        }
    }
    // `base64` as it wraps its output, the wrap inside the secret.
    commands.push("{ head -c 50 /dev/zero | tr '\\0' a; cat leak/env.txt; } | base64".to_string());
    // A command that writes a secret into a `.env` file and shows it: its own result is
    // redacted with it.
    commands.push(
        "printf 'API_TOKEN=%s\\n' \"$(cat leak/later.txt)\" > .env.local && base64 -w0 leak/later.txt; echo"
            .to_string(),
    );
    commands.push(
        "printf '\\033[32mordinary output stays\\033[0m\\n'; echo 'build ok: 42 passed'".into(),
    );
    let mut reply = String::new();
    for cmd in &commands {
        reply.push_str(&format!(
            "@@runcommand on_error=continue\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n"
        ));
    }
    reply.push_str("@@next\n@@end\n@@eof\n");

    let test = Test::new()
        .config(CONFIG)
        .file(
            ".env",
            format!("# settings\nNODE_ENV=development\nSTRIPE_KEY={DOTENV_SECRET}\n"),
        )
        .file("leak/env.txt", ENV_SECRET)
        .file("leak/hidden.txt", HIDDEN_VALUE)
        .file("leak/later.txt", LATER_SECRET)
        .env("MY_SERVICE_TOKEN", ENV_SECRET)
        .env("MY_PLAIN_VAR", HIDDEN_VALUE)
        .args(["--mode", "auto", "--pace", "batch"]);
    let applied = test.apply(&reply);
    let out = format!("{}\n{}", applied.stdout, applied.stderr);
    assert_eq!(applied.code, Some(0), "{out}");

    for (secret, _) in SOURCES {
        for spelling in spelled(secret) {
            none_of(&out, &spelling, 10);
        }
    }
    // The wrapped line's second half holds the value's bits alone (its first half, 9
    // characters, mixes them with the filler).
    let wrapped = base64(format!("{}{ENV_SECRET}", "a".repeat(50)).as_bytes(), false);
    none_of(&out, &wrapped[76..8 * (50 + ENV_SECRET.len()) / 6], 10);
    assert!(
        out.contains(&wrapped[..67]),
        "the filler's base64 stays: {out}"
    );
    none_of(&out, LATER_SECRET, 10);
    none_of(&out, &base64(LATER_SECRET.as_bytes(), false)[..36], 10);
    for tag in [
        "[redacted: env MY_SERVICE_TOKEN]",
        "[redacted: env MY_SERVICE_TOKEN (base64)]",
        "[redacted: env MY_SERVICE_TOKEN (hex)]",
        "[redacted: env MY_SERVICE_TOKEN (url-encoded)]",
        "\x1b[1;31m[redacted: env MY_SERVICE_TOKEN]\x1b[0m",
        "[redacted: env MY_PLAIN_VAR]",
        "[redacted: env MY_PLAIN_VAR (hex)]",
        "[redacted: file .env STRIPE_KEY]",
        "[redacted: file .env STRIPE_KEY (base64",
        "[redacted: file .env STRIPE_KEY (url-encoded)]",
        "\x1b[1;31m[redacted: file .env STRIPE_KEY]\x1b[0m",
        "[redacted: file .env.local API_TOKEN (base64)]",
    ] {
        assert!(out.contains(tag), "no {tag:?} in:\n{out}");
    }
    // Ordinary output stays byte for byte, its colour codes too.
    assert!(
        out.contains("\x1b[32mordinary output stays\x1b[0m\nbuild ok: 42 passed"),
        "{out}"
    );
    assert!(out.contains("https://x.test/?q="), "{out}");
}
