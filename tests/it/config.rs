//! keyless.json: the example stays loadable and complete, mistakes get KA_CONFIG_INVALID (with
//! line and column) or KA_CONFIG_VALIDATION (naming the key and what is allowed), and flags win
//! over the file, which wins over the defaults.

use std::fs;
use std::process::Command;

use keyless::catalog::Code;
use keyless::config::Config;
use keyless::config::file::{SECTIONS, parse};

use crate::common::Test;

#[test]
fn the_example_loads_as_the_defaults_and_names_every_key() {
    let text = fs::read_to_string("keyless.json.example").unwrap();
    assert_eq!(parse(&text).unwrap(), Config::default());
    for (section, keys) in SECTIONS {
        assert!(text.contains(&format!("\"{section}\"")), "{section}");
        for key in keys {
            assert!(
                text.contains(&format!("\"{key}\"")),
                "{section}.{key} is not documented"
            );
        }
    }
}

fn validation(text: &str) -> String {
    let failure = parse(text).unwrap_err();
    assert_eq!(failure.code, Code::ConfigValidation, "{failure:?}");
    failure.reason
}

#[test]
fn invalid_json_names_line_and_column() {
    let failure = parse("{\n  \"Agent\": {\n    \"Pace\": \"Step\",\n  }\n}").unwrap_err();
    assert_eq!(failure.code, Code::ConfigInvalid);
    assert!(
        failure.reason.contains("line 4, column 3"),
        "{}",
        failure.reason
    );
}

#[test]
fn validation_names_the_key_and_what_is_allowed() {
    assert!(
        validation(r#"{"Commands": {"TimeOutSeconds": 5}}"#)
            .contains("Commands.TimeOutSeconds is not a known key. Did you mean TimeoutSeconds?")
    );
    assert!(validation(r#"{"Comands": {}}"#).contains("Comands is not a known key"));
    assert!(
        validation(r#"{"Limits": {"MaxFormatRetries": 99}}"#)
            .contains("Limits.MaxFormatRetries is 99; it must be a whole number from 0 to 20")
    );
    assert!(
        validation(r#"{"Limits": {"MaxCommandsPerResponse": "5"}}"#)
            .contains("whole number from 1 to 100")
    );
    assert!(
        validation(r#"{"Agent": {"Mode": "yolo"}}"#)
            .contains("Agent.Mode is \"yolo\"; it must be one of Ask, AutoSafe, Auto")
    );
    assert!(
        validation(r#"{"Git": {"Push": "yes"}}"#)
            .contains("Git.Push is \"yes\"; it must be true or false")
    );
    assert!(validation(r#"{"Commands": {"AllowList": "cargo test"}}"#).contains("must be a list"));
    assert!(
        validation(r#"{"Commands": {"TimeoutSeconds": 600, "MaxTimeoutSeconds": 60}}"#)
            .contains("below Commands.TimeoutSeconds")
    );
    assert!(validation(r#"["not", "an", "object"]"#).contains("must be a JSON object"));
}

#[test]
fn values_and_case_insensitive_choices_are_read() {
    let config = parse(r#"{"Agent": {"Pace": "step", "Mode": "AUTOSAFE"}, "Commands": {"AllowList": ["cargo test*"], "BatchFailureMode": "Continue"}, "Git": {"ProtectedBranches": []}}"#).unwrap();
    assert_eq!(config.agent.pace, keyless::config::Pace::Step);
    assert_eq!(config.agent.mode, keyless::config::Mode::AutoSafe);
    assert_eq!(config.commands.allow_list, vec!["cargo test*"]);
    assert_eq!(
        config.commands.failure_mode,
        keyless::config::FailureMode::Continue
    );
    assert!(config.git.protected_branches.is_empty());
}

fn run(cmd: &str) -> String {
    format!("@@runcommand\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n")
}

#[test]
fn a_broken_file_stops_keyless_with_its_code_and_position() {
    let test = Test::new().config("{ \"Agent\": { \"Mode\": } }");
    test.apply(&run("ls"))
        .code(2)
        .stderr_has("KA_CONFIG_INVALID")
        .stderr_has("keyless.json: not valid JSON at line 1, column 22");
    test.apply_with(&run("ls"), &["--config", "/no/such/keyless.json"])
        .code(2)
        .stderr_has("does not exist");
}

#[test]
fn flags_win_over_the_file_which_wins_over_the_defaults() {
    let test = Test::new().config(r#"{ "Agent": { "Mode": "Auto" } }"#);
    let out = test.apply(&run("touch by-config")).stdout;
    assert!(
        (out.contains("status: ok | exit code: 0 | duration: ")
            && out.contains("s | tier: Risky\n")),
        "file says Auto: {out}"
    );
    let out = test
        .apply_with(&run("touch by-flag"), &["--mode", "ask"])
        .stdout;
    assert!(
        out.contains("code: KA_COMMAND_DECLINED"),
        "flag says Ask: {out}"
    );
}

#[test]
fn allow_and_deny_lists_apply_to_apply_and_policy() {
    let test = Test::new()
        .config(r#"{ "Agent": { "Mode": "AutoSafe" }, "Commands": { "AllowList": ["sh run.sh*"], "DenyList": ["cargo publish*"] } }"#)
        .file("run.sh", "echo ran\n");
    let out = test.apply(&run("sh run.sh")).stdout;
    assert!(
        (out.contains("status: ok | exit code: 0 | duration: ")
            && out.contains("s | tier: Execute\n")),
        "allow-listed: {out}"
    );
    let out = test.apply(&run("sh other.sh")).stdout;
    assert!(
        out.contains("code: KA_COMMAND_DECLINED"),
        "not allow-listed: {out}"
    );
    let out = test
        .apply_with(&run("cargo publish --dry-run"), &["--mode", "auto"])
        .stdout;
    assert!(
        out.contains("code: KA_COMMAND_DENIED"),
        "deny-listed: {out}"
    );
    let policy = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["policy", "--json", "--workspace"])
        .arg(test.ws())
        .arg("cargo publish")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&policy.stdout).unwrap();
    assert_eq!(json["tier"], "Denied", "{json}");
    assert!(
        json["segments"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("Commands.DenyList")
    );
}

#[test]
fn commands_section_sets_timeout_and_failure_mode() {
    let test = Test::new().config(
        r#"{ "Commands": { "TimeoutSeconds": 1, "MaxTimeoutSeconds": 1, "BatchFailureMode": "Continue" } }"#,
    );
    let reply = "@@runcommand timeout=100\n<<<CMD\nsleep 5\nCMD>>>\n@@end\n@@runcommand\n<<<CMD\necho still-ran\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n";
    let out = test.apply(reply).stdout;
    assert!(out.contains("code: KA_TIMEOUT"), "{out}");
    assert!(
        out.contains("timeout of 1s"),
        "timeout= is capped by MaxTimeoutSeconds: {out}"
    );
    assert!(out.contains("still-ran"), "Continue: {out}");
}

#[test]
fn git_section_reaches_commit() {
    let test = Test::new().config(
        r#"{ "Agent": { "Mode": "Auto" }, "Git": { "AutoInit": true, "ProtectedBranches": [] } }"#,
    );
    let reply = "@@commit\n<<<MSG\nfirst\nMSG>>>\n@@end\n@@next\n@@end\n@@eof\n";
    test.apply(reply)
        .code(0)
        .stdout_has("initialised a new git repository");
    assert!(test.ws().join(".git").is_dir());
}

#[test]
fn a_byte_order_mark_is_accepted_and_a_key_given_twice_is_refused_with_its_line() {
    let config = parse("\u{feff}{ \"Agent\": { \"Pace\": \"Step\" } }").unwrap();
    assert_eq!(config.agent.pace, keyless::config::Pace::Step);
    let failure =
        parse("{\n  \"Agent\": {\n    \"Mode\": \"Ask\",\n    \"Mode\": \"Auto\"\n  }\n}")
            .unwrap_err();
    assert_eq!(failure.code, Code::ConfigInvalid);
    assert!(
        failure.reason.contains("\"Mode\" appears twice"),
        "{}",
        failure.reason
    );
    assert!(failure.reason.contains("line 4"), "{}", failure.reason);
    let failure = parse("{ \"Agent\": {}, // a section twice\n \"Agent\": {} }").unwrap_err();
    assert!(failure.reason.contains("line 2"), "{}", failure.reason);
    // The same key in different objects, or in an array's objects, is fine.
    parse("{ \"Agent\": { \"Mode\": \"Ask\" }, \"Sandbox\": { \"Mode\": \"on\" } }").unwrap();
}

#[test]
fn a_keyless_json_that_is_not_a_regular_file_is_named_not_skipped() {
    let test = Test::new();
    let config = test.ws().join("keyless.json");
    fs::create_dir_all(&config).unwrap();
    test.apply(&run("ls"))
        .code(2)
        .stderr_has("keyless.json is not a regular file (it is a folder)");
    fs::remove_dir(&config).unwrap();
    let status = Command::new("mkfifo").arg(&config).status().unwrap();
    assert!(status.success());
    // A FIFO is never opened (that would wait for a writer for ever).
    test.apply(&run("ls"))
        .code(2)
        .stderr_has("a FIFO, a device or a socket");
}

#[test]
fn an_empty_keyless_json_reads_as_none_and_sandbox_keys_are_checked() {
    // The sandbox's placeholder (docs/sandbox.md) is an empty keyless.json.
    let test = Test::new().file("keyless.json", "");
    test.apply(&run("ls")).code(0);
    let reason = validation("{\"Sandbox\": {\"AllowMissing\": [\"cache\"]}}");
    assert!(
        reason.contains("\"cache\", which is no guarantee"),
        "{reason}"
    );
    assert!(reason.contains("caches"), "{reason}");
    let reason = validation("{\"Sandbox\": {\"MaxProcesses\": 2}}");
    assert!(reason.contains("from 16 to"), "{reason}");
    let config = parse("{\"Sandbox\": {\"AllowMissing\": [\"*\"], \"TmpSizeMiB\": 64, \"MaxMemoryMiB\": 1024, \"ReadablePaths\": [\"/data\"]}}").unwrap();
    assert_eq!(config.sandbox.allow_missing, ["*"]);
    assert_eq!(config.sandbox.tmp_mib, 64);
    assert_eq!(config.sandbox.max_memory_mib, Some(1024));
    assert_eq!(
        config.sandbox.readable_paths,
        [std::path::PathBuf::from("/data")]
    );
}

#[test]
fn the_proxys_allow_list_entries_are_checked_and_name_what_is_wrong() {
    use keyless::hosts::Pattern;
    for (entry, says) in [
        (
            "https://registry.example.com/simple",
            "give its host alone, like \"registry.example.com\"",
        ),
        ("registry.example.com:8443", "has a port"),
        ("a.*.example.com", "only a leading"),
        ("2130706433", "write it as \"127.0.0.1\""),
        ("127.0.0.1", "commands never reach it"),
        ("169.254.169.254", "a cloud metadata service"),
        ("[::ffff:169.254.169.254]", "commands never reach it"),
        ("10.0.0.0/40", "no address range"),
    ] {
        let reason = validation(&format!(
            "{{\"Sandbox\": {{\"NetworkAllow\": [\"{entry}\"]}}}}"
        ));
        assert!(reason.starts_with("Sandbox.NetworkAllow"), "{reason}");
        assert!(reason.contains(says), "{entry}: {reason}");
    }
    let reason = validation("{\"Sandbox\": {\"NetworkAllowOnly\": \"crates.io\"}}");
    assert!(reason.contains("must be a list"), "{reason}");
    let config = parse(
        "{\"Sandbox\": {\"NetworkAllow\": [\"Registry.Corp.Example.\", \"*.lan.example\", \"10.0.0.0/8\", \"*\"], \"NetworkAllowOnly\": []}}",
    )
    .unwrap();
    assert_eq!(
        config.sandbox.network_allow,
        [
            Pattern::Name("registry.corp.example".into()),
            Pattern::Suffix("lan.example".into()),
            Pattern::Range("10.0.0.0".parse().unwrap(), 8),
            Pattern::Any,
        ]
    );
    assert_eq!(config.sandbox.network_allow_only, Some(Vec::new()));
    assert_eq!(Config::default().sandbox.network_allow_only, None);
}

#[test]
fn models_per_site_are_read_and_a_wrong_shape_is_named() {
    let config = parse(
        r#"{"Browser": {"Models": {"chatgpt": {"Model": "thinking", "Effort": "heavy"}, "claude": {"Model": "opus"}}}}"#,
    )
    .unwrap();
    let chatgpt = &config.browser.models["chatgpt"];
    assert_eq!(chatgpt.model.as_deref(), Some("thinking"));
    assert_eq!(chatgpt.effort.as_deref(), Some("heavy"));
    assert_eq!(config.browser.models["claude"].effort, None);
    let reason = validation(r#"{"Browser": {"Models": {"chatgpt": {"Modle": "x"}}}}"#);
    assert!(reason.contains("Browser.Models.chatgpt.Modle"), "{reason}");
    let reason = validation(r#"{"Browser": {"Models": {"chatgpt": "thinking"}}}"#);
    assert!(reason.contains("must be an object"), "{reason}");
}
