//! The README's run command works on a fresh folder, offline: `keyless apply
//! examples/hello.reply --workspace <new folder>` succeeds and finishes the turn.

use std::process::{Command, Stdio};

#[test]
fn the_readme_run_command_works() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    assert!(
        readme.contains(
            "cargo run --release -- apply examples/hello.reply --workspace \"$(mktemp -d)\""
        ),
        "the README's run command changed: update this test with it"
    );
    let ws = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["apply", "examples/hello.reply", "--workspace"])
        .arg(ws.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("--- @@done honoured: the turn is finished ---"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/greeting.txt")).unwrap(),
        "Hello, world!\nWritten by keyless.\n"
    );
}
