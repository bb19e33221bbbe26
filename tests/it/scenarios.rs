//! Scenario tests: each folder under `tests/fixtures/scenarios/` holds an `input/` tree, a
//! `reply.txt`, and optionally `args.txt` (extra `keyless apply` arguments, one per line). The
//! built binary applies the reply to a copy of `input/`; the resulting tree must equal
//! `expected/` byte for byte (keyless's own `.agent/` aside), standard output must equal
//! `results.txt`, and the exit code `exit.txt`.
//!
//! Fixtures are protected from git's newline conversion (`tests/fixtures/.gitattributes`). Standard error (where `@@say` goes) must equal `stderr.txt`.
//! After an intended change, `UPDATE_SCENARIOS=1 cargo test --test scenarios` rewrites the
//! expectations; review the diff before committing it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = "tests/fixtures/scenarios";

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".agent" || rel.ends_with(".gitkeep") {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    let Ok(entries) = fs::read_dir(from) else {
        return;
    };
    for entry in entries.flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else if entry.file_name() != ".gitkeep" {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn write_tree(files: &BTreeMap<String, Vec<u8>>, to: &Path) {
    let _ = fs::remove_dir_all(to);
    fs::create_dir_all(to).unwrap();
    fs::write(to.join(".gitkeep"), "").unwrap();
    for (rel, bytes) in files {
        let path = to.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

fn show(files: &BTreeMap<String, Vec<u8>>) -> String {
    files
        .iter()
        .map(|(k, v)| format!("{k}: {:?}\n", String::from_utf8_lossy(v)))
        .collect()
}

fn run(scenario: &Path, update: bool) -> Result<(), String> {
    let work = tempfile::tempdir().unwrap();
    let ws = work.path().join("ws");
    copy_tree(&scenario.join("input"), &ws);
    let args: Vec<String> = fs::read_to_string(scenario.join("args.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let out = assert_cmd::Command::cargo_bin("keyless")
        .unwrap()
        .arg("apply")
        .arg(scenario.join("reply.txt"))
        .arg("--workspace")
        .arg(&ws)
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let code = out.status.code().unwrap_or(-1).to_string();
    let got = tree(&ws);
    if update {
        write_tree(&got, &scenario.join("expected"));
        fs::write(scenario.join("results.txt"), &stdout).unwrap();
        fs::write(scenario.join("stderr.txt"), &stderr).unwrap();
        fs::write(scenario.join("exit.txt"), format!("{code}\n")).unwrap();
        return Ok(());
    }
    let mut problems = String::new();
    let want = tree(&scenario.join("expected"));
    if got != want {
        problems += &format!("tree differs.\nwant:\n{}got:\n{}", show(&want), show(&got));
    }
    let want_stdout = fs::read_to_string(scenario.join("results.txt")).unwrap_or_default();
    if stdout != want_stdout {
        problems += &format!("stdout differs.\nwant:\n{want_stdout}\ngot:\n{stdout}");
    }
    let want_stderr = fs::read_to_string(scenario.join("stderr.txt")).unwrap_or_default();
    if stderr != want_stderr {
        problems += &format!("stderr differs.\nwant:\n{want_stderr}\ngot:\n{stderr}");
    }
    let want_code = fs::read_to_string(scenario.join("exit.txt")).unwrap_or_default();
    if want_code.trim() != code {
        problems += &format!("exit code {code}, want {}", want_code.trim());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

#[test]
fn scenarios() {
    let update = std::env::var_os("UPDATE_SCENARIOS").is_some();
    let mut dirs: Vec<PathBuf> = fs::read_dir(ROOT)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "the scenarios are missing");
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            run(d, update)
                .err()
                .map(|e| format!("=== {}\n{e}", d.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} scenario(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
