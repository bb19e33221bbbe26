//! `keyless check` as a user and a script run it: the built binary, on files and stdin.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const VALID: &str = "```\n@@say\n<<<MSG\nHello\nMSG>>>\n@@end\n@@newfile src/a.rs\n<<<CONTENT\nfn main() {}\nCONTENT>>>\n@@end\n@@runcommand on_error=continue\n<<<CMD\ncargo build\nCMD>>>\n@@end\n@@done\n@@end\n@@eof\n```\n";
const BROKEN: &str = "Sure!\n@@createfile a\n@@end\n@@readfile /etc/passwd\n@@end\n";

fn keyless() -> Command {
    Command::cargo_bin("keyless").expect("the keyless binary is built")
}

#[test]
fn valid_reply_from_stdin_exits_zero() {
    keyless()
        .arg("check")
        .write_stdin(VALID)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ok: 4 command(s), control: done"))
        .stdout(predicate::str::contains("#2 newfile src/a.rs (line 7)"));
}

#[test]
fn rejected_reply_lists_each_problem_with_line_and_code() {
    keyless()
        .args(["check", "-"])
        .write_stdin(BROKEN)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("line 1: KA_PARSE_STRAY_TEXT "))
        .stdout(predicate::str::contains(
            "line 2: KA_PARSE_UNKNOWN_COMMAND ",
        ))
        .stdout(predicate::str::contains("line 4: KA_PARSE_BAD_PATH "))
        .stdout(predicate::str::contains("reply: KA_PARSE_MISSING_EOF "))
        .stdout(predicate::str::contains("rejected: 4 problem(s)"));
}

#[test]
fn json_for_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("reply.txt");
    std::fs::write(&file, VALID).unwrap();
    let out = keyless()
        .arg("check")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["control"], "done");
    assert_eq!(json["errors"], serde_json::json!([]));
    assert_eq!(
        json["commands"],
        serde_json::json!([
            {"index": 1, "command": "say", "argument": null, "line": 2},
            {"index": 2, "command": "newfile", "argument": "src/a.rs", "line": 7},
            {"index": 3, "command": "runcommand", "argument": null, "line": 12},
            {"index": 4, "command": "done", "argument": null, "line": 17},
        ])
    );
}

#[test]
fn json_for_a_rejected_reply() {
    let out = keyless()
        .args(["check", "--json"])
        .write_stdin(BROKEN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ok"], false);
    assert_eq!(json["control"], Value::Null);
    let codes: Vec<(&str, Value)> = json["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["code"].as_str().unwrap(), e["line"].clone()))
        .collect();
    assert_eq!(
        codes,
        vec![
            ("KA_PARSE_STRAY_TEXT", Value::from(1)),
            ("KA_PARSE_UNKNOWN_COMMAND", Value::from(2)),
            ("KA_PARSE_BAD_PATH", Value::from(4)),
            ("KA_PARSE_MISSING_EOF", Value::Null),
        ]
    );
    assert_eq!(
        json["commands"],
        serde_json::json!([{"index": 1, "command": "readfile", "argument": "/etc/passwd", "line": 4}])
    );
}

#[test]
fn empty_stdin_is_an_empty_reply() {
    let out = keyless()
        .args(["check", "--json"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["errors"][0]["code"], "KA_REPLY_EMPTY");
}

#[test]
fn missing_file_is_a_usage_error_with_a_clear_message() {
    keyless()
        .args(["check", "/no/such/reply.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read /no/such/reply.txt"));
}

/// `keyless check --json` of a reply it must reject (exit 1), as JSON.
fn rejected_json(reply: impl Into<Vec<u8>>) -> Value {
    let out = keyless()
        .args(["check", "--json"])
        .write_stdin(reply.into())
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn bytes_that_are_not_utf8_are_a_problem_with_their_line() {
    let mut reply = b"@@say\n<<<MSG\nhello\n".to_vec();
    reply.extend_from_slice(&[0xff, 0xfe, b'\n']);
    reply.extend_from_slice(b"MSG>>>\n@@end\n@@next\n@@end\n@@eof\n");
    keyless()
        .arg("check")
        .write_stdin(reply.clone())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("line 4"))
        .stdout(predicate::str::contains("not UTF-8"));
    let json = rejected_json(reply);
    assert_eq!(json["ok"], false);
    assert_eq!(json["errors"][0]["code"], "KA_PARSE_STRAY_TEXT");
    assert_eq!(json["errors"][0]["line"], 4);
}

#[test]
fn an_enormous_reply_lists_a_bounded_number_of_problems() {
    // 50,000 blocks of an unknown command: each is a problem of its own.
    let json = rejected_json("@@frob x\n@@end\n".repeat(50_000));
    let errors = json["errors"].as_array().unwrap();
    assert!(errors.len() <= 201, "{} problems kept", errors.len());
    let last = errors.last().unwrap()["message"].as_str().unwrap();
    assert!(last.contains("more problem(s) are not listed"), "{last}");
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    keyless().arg("frobnicate").assert().code(2);
}

#[test]
fn the_workspace_configuration_sets_the_limits_check_applies() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("keyless.json"),
        "{ // a project that keeps files small\n  \"Limits\": { \"MaxFileContentChars\": 100 }\n}\n",
    )
    .unwrap();
    let reply = format!(
        "@@newfile a.txt\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n@@eof\n",
        "x".repeat(150)
    );
    keyless()
        .arg("check")
        .write_stdin(reply.clone())
        .assert()
        .code(0);
    keyless()
        .args(["check", "--workspace"])
        .arg(ws.path())
        .write_stdin(reply.clone())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("KA_LIMIT_FILE_CONTENT_CHARS"));
    let broken = ws.path().join("broken.json");
    std::fs::write(&broken, "{ \"Limits\": ").unwrap();
    keyless()
        .args(["check", "--config"])
        .arg(&broken)
        .write_stdin(reply)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KA_CONFIG_INVALID"));
}

#[test]
fn output_into_a_closed_pipe_ends_quietly_never_with_a_panic() {
    use std::io::Write;
    use std::process::{Command as Process, Stdio};
    // `keyless prompt` prints about 2,400 characters; its reader is gone before it starts.
    for args in [&["prompt", "a task"][..], &["check", "-"][..]] {
        let mut child = Process::new(env!("CARGO_BIN_EXE_keyless"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(VALID.as_bytes());
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `keyless undo` as a user runs it twice, with `keyless status` between: each undo walks back
/// one batch, says what the next one would put back, and status agrees with it (an undo's own
/// safety copy is never what undo puts back).
#[test]
fn undo_walks_back_batch_by_batch_and_status_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().to_str().unwrap();
    std::fs::write(dir.path().join("a.txt"), "v0\n").unwrap();
    for content in ["v1", "v2"] {
        keyless()
            .args(["apply", "-", "--workspace", ws])
            .write_stdin(format!(
                "@@updatefile a.txt\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n"
            ))
            .assert()
            .code(0);
    }
    let status = || {
        let out = keyless()
            .args(["status", "--json", "--workspace", ws])
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let undo_target = || status()["undo"].clone();
    assert_eq!(undo_target(), serde_json::json!([2, 1]));
    let backups = status()["backups"].clone();
    assert_eq!(backups[0], 2, "{backups}");
    assert!(backups[1].as_u64().unwrap() > 0, "{backups}");
    // What the backups take is shown; all are kept.
    keyless()
        .args(["status", "--workspace", ws])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("backups: 2 batch(es), 0.0 MB"));
    keyless()
        .args(["undo", "--workspace", ws])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Undid batch 2"))
        .stdout(predicate::str::contains(
            "`keyless undo` again puts back batch 1",
        ));
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"v1\n");
    assert_eq!(undo_target(), serde_json::json!([1, 1]));
    keyless()
        .args(["undo", "--workspace", ws])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Undid batch 1"))
        .stdout(predicate::str::contains("again").not());
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"v0\n");
    assert_eq!(undo_target(), Value::Null);
    keyless()
        .args(["undo", "--workspace", ws])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "Nothing to undo: all 2 batch(es) saved in this workspace are undone.",
        ));
}

/// The demo accepts the shared options (the command-line contract) but uses only --browser:
/// the others are named as having no effect rather than silently ignored. A missing browser
/// ends it at once, after the note.
#[test]
fn the_demo_names_the_options_it_does_not_use() {
    keyless()
        .args([
            "demo",
            "--mode",
            "ask",
            "--workspace",
            ".",
            "--browser",
            "/no/such/browser",
        ])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "keyless demo: --workspace, --mode have no effect here",
        ))
        .stderr(predicate::str::contains(
            "the browser /no/such/browser does not exist",
        ));
    keyless()
        .args(["demo", "--headless", "--browser", "/no/such/browser"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("no effect").not());
}

#[test]
fn a_selectors_file_given_where_no_browser_opens_is_refused() {
    let ws = tempfile::tempdir().unwrap();
    for args in [
        &["apply", "-"][..],
        &["prompt", "a task"][..],
        &["status"][..],
        &["undo"][..],
    ] {
        keyless()
            .args(args)
            .args(["--selectors", "my-selectors.json", "--workspace"])
            .arg(ws.path())
            .write_stdin("@@next\n@@end\n@@eof\n")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "--selectors my-selectors.json is not used",
            ));
    }
    // The policy's command line comes last, so its options come first.
    keyless()
        .args(["policy", "--selectors", "my-selectors.json", "ls"])
        .assert()
        .code(2);
}

/// `keyless undo` lists the files it put back with every character a terminal would not show
/// written out, and says so.
#[test]
fn undo_shows_invisible_characters_in_the_names_it_lists() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().to_str().unwrap();
    keyless()
        .args(["apply", "-", "--workspace", ws])
        .write_stdin(
            "@@newfile deploy\u{200b}.sh\n<<<CONTENT\necho hi\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n",
        )
        .assert()
        .code(0);
    assert!(dir.path().join("deploy\u{200b}.sh").exists());
    let out = keyless()
        .args(["undo", "--workspace", ws])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("removed deploy\\u{200b}.sh"), "{stdout}");
    assert!(
        stdout.contains("a name above holds characters a terminal does not show"),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{200b}'), "{stdout:?}");
    assert!(!dir.path().join("deploy\u{200b}.sh").exists());
}
