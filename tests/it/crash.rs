//! Killing keyless in the middle of rewriting a large file leaves the file whole: exactly the
//! old version or exactly the new one, never a mix. The process is killed with SIGKILL (no
//! cleanup runs) at moments spread over the time an uninterrupted run takes.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Kills per loop, spread from the start to the end of an uninterrupted run.
const KILLS: u32 = 8;

/// A 20 MB text file with one unique line in the middle.
fn big_file() -> Vec<u8> {
    let mut out = Vec::with_capacity(21_000_000);
    let mut n = 0u64;
    while out.len() < 20_000_000 {
        if n == 150_000 {
            out.extend_from_slice(b"MARKER-LINE\n");
        }
        out.extend_from_slice(
            format!("line {n:08} some ordinary text to fill the file up\n").as_bytes(),
        );
        n += 1;
    }
    out
}

fn apply(ws: &Path, reply: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("apply")
        .arg(reply)
        .arg("--workspace")
        .arg(ws)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Runs keyless to the end; a failure shows what it printed.
fn apply_to_the_end(ws: &Path, reply: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("apply")
        .arg(reply)
        .arg("--workspace")
        .arg(ws)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keyless apply failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Each run backs the 20 MB file up; dropping the backups between runs keeps the test's disk
/// use near two copies of the file (CI machines can be short of disk).
fn drop_backups(ws: &Path) {
    let backups = ws.join(".agent").join("backups");
    if backups.exists() {
        fs::remove_dir_all(backups).unwrap();
    }
}

fn kill_loop(reply_text: &str, old: &[u8], new: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let reply = dir.path().join("reply.txt");
    fs::write(&reply, reply_text).unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir(&ws).unwrap();
    let target = ws.join("big.txt");

    fs::write(&target, old).unwrap();
    let started = Instant::now();
    apply_to_the_end(&ws, &reply);
    let full = started.elapsed();
    assert_eq!(
        fs::read(&target).unwrap(),
        new,
        "an uninterrupted run writes the new version"
    );

    let (mut saw_old, mut saw_new) = (0, 0);
    for k in 0..KILLS {
        drop_backups(&ws);
        fs::write(&target, old).unwrap();
        let mut child = apply(&ws, &reply);
        std::thread::sleep(full.mul_f64(f64::from(k) / f64::from(KILLS)));
        let _ = child.kill();
        child.wait().unwrap();
        let now = fs::read(&target).unwrap();
        if now == old {
            saw_old += 1;
        } else if now == new {
            saw_new += 1;
        } else {
            panic!(
                "kill {k} after {:?} left a damaged file of {} bytes",
                full.mul_f64(f64::from(k) / f64::from(KILLS)),
                now.len()
            );
        }
    }
    assert!(
        saw_old > 0,
        "no kill landed before the write finished: the test proved nothing"
    );
    // A later run clears the temporary files the killed ones left behind.
    drop_backups(&ws);
    fs::write(&target, old).unwrap();
    apply_to_the_end(&ws, &reply);
    let litter: Vec<_> = fs::read_dir(&ws)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(litter.is_empty(), "stale temporary files left: {litter:?}");
    eprintln!("uninterrupted run {full:?}; after {KILLS} kills: {saw_old} old, {saw_new} new");
}

/// One test, two loops in turn: timing a run while another loop loads the machine would spread
/// the kills wrongly.
#[test]
fn a_killed_rewrite_leaves_the_old_or_the_new_file() {
    editfile_of_a_large_file();
    updatefile_of_a_large_file();
}

/// The temporary file of a write cut short (named as keyless names them, by a process that is
/// gone) is removed by the next keyless that takes the workspace, even when that one never
/// writes the same file. The loops above show that kills do leave such files.
#[test]
fn a_half_written_file_is_removed_when_the_next_keyless_starts() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir(&ws).unwrap();
    fs::write(ws.join("a.txt"), "old\n").unwrap();
    let edit = dir.path().join("edit.txt");
    fs::write(
        &edit,
        "@@updatefile a.txt\n<<<CONTENT\nnew\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n",
    )
    .unwrap();
    apply_to_the_end(&ws, &edit);
    // What a keyless killed while writing a.txt and its session would have left.
    let dead = "2147483000";
    let stale = [
        ws.join(format!(".a.txt.keyless-{dead}-0.tmp")),
        ws.join(format!(".agent/.session.json.keyless-{dead}-3.tmp")),
    ];
    for path in &stale {
        fs::write(path, "half").unwrap();
    }
    // A live process's temporary file is not touched.
    let live = ws.join(format!(".a.txt.keyless-{}-0.tmp", std::process::id()));
    fs::write(&live, "in progress").unwrap();
    let other = dir.path().join("other.txt");
    fs::write(
        &other,
        "@@newfile note.txt\n<<<CONTENT\nhi\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n",
    )
    .unwrap();
    apply_to_the_end(&ws, &other);
    for path in &stale {
        assert!(!path.exists(), "{} was left", path.display());
    }
    assert!(live.exists());
}

fn editfile_of_a_large_file() {
    let old = big_file();
    let text = String::from_utf8(old.clone()).unwrap();
    let new = text
        .replacen("MARKER-LINE\n", "CHANGED-LINE\nand one more\n", 1)
        .into_bytes();
    let reply = "@@editfile big.txt\n<<<FIND\nMARKER-LINE\nFIND>>>\n<<<REPLACE\nCHANGED-LINE\nand one more\nREPLACE>>>\n@@end\n@@next\n@@end\n@@eof\n";
    kill_loop(reply, &old, &new);
}

fn updatefile_of_a_large_file() {
    let old = big_file();
    let reply =
        "@@updatefile big.txt\n<<<CONTENT\nsmall now\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n";
    kill_loop(reply, &old, b"small now\n");
}
