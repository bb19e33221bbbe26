//! The README's run command works on a fresh machine, offline: `keyless demo` runs the whole
//! loop against the built-in chat page in headless Chromium and finishes the task.

use std::process::{Command, Stdio};

#[test]
fn the_readme_run_command_is_the_demo_and_it_works() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    assert!(
        readme.contains("cargo run --release -- demo"),
        "the README's run command changed: update this test with it"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("demo")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Done: greet.sh prints \"Hello, keyless!\" and is committed."),
        "{stdout}"
    );
    assert!(
        stderr.contains("asking the model to resend"),
        "the demo shows a format correction: {stderr}"
    );
    let workspace = stderr
        .lines()
        .find_map(|l| l.strip_prefix("keyless demo: workspace "))
        .expect("the demo names its workspace");
    let script = std::fs::read_to_string(format!("{workspace}/greet.sh")).unwrap();
    assert!(script.contains("echo \"Hello, $name!\""), "{script}");
    let log = Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(workspace)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim(),
        "Add greet.sh, a greeting script"
    );
    let _ = std::fs::remove_dir_all(std::path::Path::new(workspace).parent().unwrap());
}
