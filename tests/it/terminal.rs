//! Confirmations and `@@ask` at a real terminal: `script` (util-linux/bsdutils) gives the binary
//! a pseudo-terminal, and the test types the answers.

use std::fs;
use std::path::Path;

use crate::common::pty::Pty;

/// Runs `keyless apply` on a pseudo-terminal and returns everything the terminal showed. Each
/// answer is typed once the terminal shows its question (the text before it).
fn at_terminal(ws: &Path, reply: &str, answers: &[(&str, &str)]) -> String {
    let file = ws.join("../reply.txt");
    fs::write(&file, reply).unwrap();
    let command = format!(
        "{} apply {} --workspace {} --mode ask",
        env!("CARGO_BIN_EXE_keyless"),
        file.display(),
        ws.display()
    );
    let mut terminal = Pty::start(&command, &[]);
    for (question, answer) in answers {
        terminal.wait_for(question).type_line(answer, "\n");
    }
    terminal.finish()
}

/// The confirmation's question.
const ALLOW: &str = "allow? [y]es / [n]o / [a]lways this session: ";
/// The question after the sandbox refused a command.
const UNSANDBOXED: &str = "run again without the sandbox? [y/N]: ";

fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir(&ws).unwrap();
    (dir, ws)
}

fn run(cmd: &str) -> String {
    format!("@@runcommand\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n")
}

const NEXT: &str = "@@next\n@@end\n@@eof\n";

#[test]
fn yes_runs_the_command_and_the_prompt_explains_it() {
    let (_dir, ws) = workspace();
    let out = at_terminal(&ws, &(run("touch made-by-yes") + NEXT), &[(ALLOW, "y")]);
    assert!(out.contains("run: touch made-by-yes [Risky]"), "{out}");
    assert!(
        out.contains("why keyless asks: touch: changes files (touch made-by-yes)"),
        "{out}"
    );
    assert!(
        out.contains("allow? [y]es / [n]o / [a]lways this session"),
        "{out}"
    );
    assert!(
        (out.contains("status: ok | exit code: 0 | duration: ")
            && out.contains("s | tier: Risky\n")),
        "{out}"
    );
    assert!(ws.join("made-by-yes").exists());
}

#[test]
fn no_declines_and_nothing_runs() {
    let (_dir, ws) = workspace();
    let out = at_terminal(&ws, &(run("touch made-by-no") + NEXT), &[(ALLOW, "n")]);
    assert!(out.contains("code: KA_COMMAND_DECLINED"), "{out}");
    assert!(!ws.join("made-by-no").exists());
}

#[test]
fn always_approves_the_same_line_for_the_rest_of_the_session() {
    let (_dir, ws) = workspace();
    let reply = run("touch twice") + &run("touch twice") + NEXT;
    let out = at_terminal(&ws, &reply, &[(ALLOW, "a")]);
    assert_eq!(out.matches("allow? [y]es").count(), 1, "asked once: {out}");
    assert_eq!(out.matches("s | tier: Risky\n").count(), 2, "{out}");
}

#[test]
fn ask_is_answered_at_the_terminal() {
    let (_dir, ws) = workspace();
    let reply =
        "@@ask\n<<<MSG\nWhich port should the server use?\nMSG>>>\n@@end\n".to_string() + NEXT;
    let out = at_terminal(&ws, &reply, &[("your answer> ", "8080")]);
    assert!(
        out.contains("model asks: Which port should the server use?"),
        "{out}"
    );
    assert!(out.contains("<<<ANSWER\n8080\nANSWER>>>"), "{out}");
}

#[test]
fn a_sandbox_refusal_in_ask_mode_is_offered_once_outside_the_sandbox() {
    let (dir, ws) = workspace();
    // A folder outside the workspace the user lets commands read: it is there in the sandbox,
    // read-only.
    let shared = dir.path().join("shared");
    fs::create_dir_all(&shared).unwrap();
    fs::write(
        ws.join("keyless.json"),
        format!(
            "{{\"Sandbox\": {{\"ReadablePaths\": [\"{}\"]}}}}",
            shared.display()
        ),
    )
    .unwrap();
    let outside = shared.join("outside");
    // `sort -o` is Risky, so the first answer approves running it at all; the sandbox then
    // refuses the write outside the workspace, and the second answer is about leaving it.
    fs::write(ws.join("list.txt"), "b\na\n").unwrap();
    let cmd = format!("sort -o {} list.txt", outside.display());
    let out = at_terminal(
        &ws,
        &(run(&cmd) + NEXT),
        &[(ALLOW, "y"), (UNSANDBOXED, "n")],
    );
    assert!(
        out.contains("run again without the sandbox? [y/N]"),
        "{out}"
    );
    assert!(out.contains("code: KA_SANDBOX_DENIED"), "{out}");
    assert!(!outside.exists());
    let out = at_terminal(
        &ws,
        &(run(&cmd) + NEXT),
        &[(ALLOW, "y"), (UNSANDBOXED, "y")],
    );
    assert!(out.contains("sandbox: off (you allowed it)"), "{out}");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "a\nb\n", "{out}");
}

#[test]
fn control_characters_never_reach_the_terminal_raw() {
    let (_dir, ws) = workspace();
    // An erase-line and a carriage return would let the command hide itself behind a harmless
    // text in the confirmation prompt.
    let cmd = "touch hidden\u{1b}[2K\r echo harmless \u{202e}txt.exe";
    let out = at_terminal(&ws, &(run(cmd) + NEXT), &[(ALLOW, "n")]);
    assert!(!out.contains("\u{1b}[2K"), "{out:?}");
    assert!(!out.contains('\u{202e}'), "{out:?}");
    assert!(
        out.contains("touch hidden\\u{1b}[2K\\u{d} echo harmless \\u{202e}txt.exe"),
        "{out}"
    );
    assert!(!ws.join("hidden").exists());
}

#[test]
fn a_confirmation_shows_invisible_characters_and_says_so_in_words() {
    let (_dir, ws) = workspace();
    // `deploy.sh` and `deploy<ZERO WIDTH SPACE>.sh` look alike; only one is what the person
    // knows.
    fs::write(ws.join("deploy.sh"), "#!/bin/sh\ntouch deployed\n").unwrap();
    let out = at_terminal(
        &ws,
        &(run("./deploy\u{200b}.sh --prod") + NEXT),
        &[(ALLOW, "n")],
    );
    assert!(
        out.contains("run: ./deploy\\u{200b}.sh --prod [Execute]"),
        "{out}"
    );
    assert!(
        out.contains(
            "look closely: this command holds 1 invisible character (U+200B ZERO WIDTH SPACE)"
        ),
        "{out}"
    );
    assert!(!out.contains('\u{200b}'), "{out:?}");
    assert!(out.contains("code: KA_COMMAND_DECLINED"), "{out}");
    assert!(!ws.join("deployed").exists());
}
