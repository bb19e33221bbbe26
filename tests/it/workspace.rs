//! The workspace boundary and the promises about bytes, run against real folders: symlink
//! escapes, `.git`/`.agent`, line-ending rules that need a real repository, permissions, undo,
//! and a property test that an edit leaves every byte it did not change as it was.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command as Process;

use keyless::batch::{self, Attempt, Confirmation, Outcome, Person, Runner, Settings};
use keyless::catalog::Code;
use keyless::config::{Limits, Mode};
use keyless::protocol::parse;
use keyless::workspace::Workspace;
use keyless::workspace::backup::{self, Backup, BatchKind, UndoReport};
use proptest::prelude::*;

/// Answers nothing and approves everything: the approvals are not under test here.
struct Approve;

impl Person for Approve {
    fn say(&mut self, _: &str) {}
    fn ask(&mut self, _: &str) -> Option<String> {
        None
    }
    fn confirm(&mut self, _: &Confirmation) -> bool {
        true
    }
}

impl Runner for Approve {
    fn contained(&mut self, _: &str, _: std::time::Duration, _: Mode) -> Attempt {
        Outcome::default().into()
    }
    fn unconfined(&mut self, _: &str, _: std::time::Duration) -> Outcome {
        Outcome::default()
    }
    fn commit(&mut self, _: &str) -> Outcome {
        Outcome::default()
    }
}

/// Applies a reply (which must parse) and returns the codes of its results, `None` for ok.
fn apply(ws: &Workspace, reply: &str) -> Vec<Option<Code>> {
    let parsed = parse(reply, &Limits::default());
    let script = parsed
        .script
        .unwrap_or_else(|| panic!("{:?}", parsed.diagnostics));
    let settings = Settings {
        mode: Mode::Auto,
        pace: keyless::config::Pace::Batch,
        failure_mode: keyless::config::FailureMode::Continue,
        limits: Limits {
            max_commands_per_response: 50,
            ..Limits::default()
        },
        ..Settings::default()
    };
    let mut backup = Backup::new(ws, BatchKind::Batch, "test");
    let report = batch::execute(&script, ws, &mut backup, &mut Approve, &settings, (1, 1));
    report
        .results
        .iter()
        .map(|r| r.outcome.error.as_ref().map(|f| f.code))
        .collect()
}

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".agent" {
                continue;
            }
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(root, &path, out);
            } else if meta.is_file() {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn newfile(path: &str, content: &str) -> String {
    format!("@@newfile {path}\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n")
}

const NEXT: &str = "@@next\n@@end\n@@eof\n";

#[test]
fn symlinks_that_lead_outside_are_refused_and_touch_nothing() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), "top secret\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    symlink(outside.path(), dir.path().join("out")).unwrap();
    symlink(
        outside.path().join("secret"),
        dir.path().join("secret-link"),
    )
    .unwrap();
    symlink("/nonexistent/target", dir.path().join("dangling")).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let reply = newfile("out/planted.txt", "x")
        + "@@readfile out/secret\n@@end\n"
        + "@@readfile secret-link\n@@end\n"
        + "@@updatefile secret-link\n<<<CONTENT\npwned\nCONTENT>>>\n@@end\n"
        + "@@editfile out/secret\n<<<FIND\ntop\nFIND>>>\n<<<REPLACE\nno\nREPLACE>>>\n@@end\n"
        + &newfile("dangling", "x")
        + &newfile("dangling/inner.txt", "x")
        + "@@movefile secret-link\n<<<TO\nout/moved\nTO>>>\n@@end\n"
        + "@@mkdir out/sub\n@@end\n"
        + NEXT;
    let codes = apply(&ws, &reply);
    assert_eq!(codes, vec![Some(Code::PathOutside); 9]);
    assert_eq!(
        tree(outside.path()),
        BTreeMap::from([("secret".to_string(), b"top secret\n".to_vec())])
    );
}

#[test]
fn git_and_agent_folders_are_off_limits_in_any_case() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    fs::create_dir_all(dir.path().join("sub/.git")).unwrap();
    fs::write(dir.path().join("sub/.git/HEAD"), "ref\n").unwrap();
    fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    symlink(".git", dir.path().join("gitlink")).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    backup::ensure_agent_dir(&ws).unwrap();
    let before = tree(dir.path());
    let reply = "@@editfile .git/config\n<<<FIND\ncore\nFIND>>>\n<<<REPLACE\nx\nREPLACE>>>\n@@end\n"
        .to_string()
        + &newfile(".GIT/hooks/pre-commit", "evil")
        + "@@readfile sub/.git/HEAD\n@@end\n"
        + "@@readfile sub/.Git/HEAD\n@@end\n"
        + &newfile(".Agent/session.json", "{}")
        + "@@readfile .agent/.gitignore\n@@end\n"
        + "@@readfile gitlink/config\n@@end\n"
        + "@@movefile a.txt\n<<<TO\n.git/a.txt\nTO>>>\n@@end\n"
        + "@@deletefile .git/config\n@@end\n"
        + "@@mkdir .agent/x\n@@end\n" + NEXT;
    let codes = apply(&ws, &reply);
    assert_eq!(codes, vec![Some(Code::PathOutside); 10]);
    assert_eq!(tree(dir.path()), before);
}

/// A link inside the workspace is refused like one that leads out: anywhere on the way, the
/// last name included, for reading, writing, deleting and both ends of a move. A command may have
/// made it, and where it leads can change between a check and a use.
#[test]
fn links_inside_the_workspace_are_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    fs::write(dir.path().join("real/a.txt"), "a\n").unwrap();
    symlink("real", dir.path().join("alias")).unwrap();
    symlink("real/a.txt", dir.path().join("a-link.txt")).unwrap();
    fs::write(dir.path().join("b.txt"), "b\n").unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let before = tree(dir.path());
    let reply = newfile("alias/f.txt", "hi")
        + "@@readfile alias/a.txt\n@@end\n"
        + "@@readfile a-link.txt\n@@end\n"
        + "@@updatefile a-link.txt\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n"
        + "@@editfile alias/a.txt\n<<<FIND\na\nFIND>>>\n<<<REPLACE\nz\nREPLACE>>>\n@@end\n"
        + "@@deletefile a-link.txt\n@@end\n"
        + "@@mkdir alias/sub\n@@end\n"
        + "@@movefile a-link.txt\n<<<TO\nmoved.txt\nTO>>>\n@@end\n"
        + "@@movefile b.txt\n<<<TO\nalias/b.txt\nTO>>>\n@@end\n"
        + NEXT;
    assert_eq!(apply(&ws, &reply), vec![Some(Code::PathOutside); 9]);
    assert_eq!(tree(dir.path()), before, "nothing changed");
    assert!(
        fs::symlink_metadata(dir.path().join("a-link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// A backup folder swapped for a link (as with the sandbox off, where a command reaches
/// `.agent/`) fails the backup, and so the change; it never redirects the copy. `.agent` itself
/// a link is refused the same way.
#[test]
fn a_backup_folder_swapped_for_a_link_cannot_redirect_a_backup_write() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    fs::write(dir.path().join("b.txt"), "b\n").unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let mut backup = Backup::new(&ws, BatchKind::Batch, "test");
    ws.update_file("a.txt", "a2", &mut backup).unwrap();
    let files = dir.path().join(".agent/backups/b000001/files");
    fs::rename(&files, dir.path().join("files.old")).unwrap();
    symlink(outside.path(), &files).unwrap();
    let failure = ws.update_file("b.txt", "b2", &mut backup).unwrap_err();
    assert_eq!(failure.code, Code::FileIo, "{failure:?}");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    assert_eq!(
        fs::read(dir.path().join("b.txt")).unwrap(),
        b"b\n",
        "no change without its backup"
    );

    fs::remove_dir_all(dir.path().join(".agent")).unwrap();
    symlink(outside.path(), dir.path().join(".agent")).unwrap();
    let failure = backup::ensure_agent_dir(&ws).unwrap_err();
    assert_eq!(failure.code, Code::FileIo, "{failure:?}");
    let mut again = Backup::new(&ws, BatchKind::Batch, "test");
    assert!(ws.update_file("b.txt", "b3", &mut again).is_err());
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    assert_eq!(fs::read(dir.path().join("b.txt")).unwrap(), b"b\n");
}

#[test]
fn gitattributes_decide_new_file_endings_in_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let status = Process::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(status.success());
    };
    git(&["init", "-q"]);
    fs::write(
        dir.path().join(".gitattributes"),
        "*.cmd eol=crlf\n*.sh eol=lf\n",
    )
    .unwrap();
    fs::write(dir.path().join("sibling.sh"), "crlf\r\nsibling\r\n").unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let reply = newfile("build.cmd", "echo a\necho b") + &newfile("run.sh", "echo a") + NEXT;
    assert_eq!(apply(&ws, &reply), vec![None, None]);
    assert_eq!(
        fs::read(dir.path().join("build.cmd")).unwrap(),
        b"echo a\r\necho b\r\n"
    );
    assert_eq!(fs::read(dir.path().join("run.sh")).unwrap(), b"echo a\n");
}

#[test]
fn edits_keep_the_file_mode() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("run.sh");
    fs::write(&script, "#!/bin/sh\necho old\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let reply = "@@editfile run.sh\n<<<FIND\nold\nFIND>>>\n<<<REPLACE\nnew\nREPLACE>>>\n@@end\n@@updatefile run.sh\n<<<CONTENT\n#!/bin/sh\necho newer\nCONTENT>>>\n@@end\n".to_string() + NEXT;
    assert_eq!(apply(&ws, &reply), vec![None, None]);
    assert_eq!(fs::read(&script).unwrap(), b"#!/bin/sh\necho newer\n");
    let mode = fs::metadata(&script).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);
}

#[test]
fn undo_restores_every_kind_of_change_and_a_second_undo_is_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("edit.txt"), "one\r\ntwo\r\n").unwrap();
    fs::write(root.join("update.txt"), "\u{feff}old\n").unwrap();
    fs::write(root.join("delete.txt"), "precious\n").unwrap();
    fs::write(root.join("move.txt"), "moving\n").unwrap();
    let script = root.join("mode.sh");
    fs::write(&script, "x\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o700)).unwrap();
    let ws = Workspace::open(root).unwrap();
    let before = tree(root);
    let reply = "@@editfile edit.txt\n<<<FIND\ntwo\nFIND>>>\n<<<REPLACE\nTWO\nREPLACE>>>\n@@end\n"
        .to_string()
        + "@@updatefile update.txt\n<<<CONTENT\nnew\nCONTENT>>>\n@@end\n"
        + "@@deletefile delete.txt\n@@end\n"
        + "@@movefile move.txt\n<<<TO\nnested/dir/moved.txt\nTO>>>\n@@end\n"
        + &newfile("brand/new.txt", "fresh")
        + "@@mkdir empty/folder\n@@end\n"
        + "@@updatefile mode.sh\n<<<CONTENT\ny\nCONTENT>>>\n@@end\n"
        + NEXT;
    assert_eq!(apply(&ws, &reply), vec![None; 7]);
    let changed = tree(root);
    assert_ne!(changed, before);

    let report = backup::undo(&ws).unwrap();
    let UndoReport::Restored {
        id: 1,
        actions,
        safety_copy: Some(2),
        ..
    } = report
    else {
        panic!("unexpected {report:?}");
    };
    assert_eq!(actions.len(), 11, "{actions:?}");
    assert_eq!(tree(root), before);
    assert_eq!(
        fs::metadata(&script).unwrap().permissions().mode() & 0o7777,
        0o700
    );

    assert_eq!(
        backup::undo(&ws).unwrap(),
        UndoReport::AllUndone { count: 1 }
    );
    assert_eq!(tree(root), before);
    // The state undo replaced is kept, so undoing lost nothing either.
    let copy = root.join(".agent/backups/b000002");
    assert!(copy.join("manifest.json").is_file());
    let kept: Vec<Vec<u8>> = fs::read_dir(copy.join("files"))
        .unwrap()
        .flatten()
        .map(|e| fs::read(e.path()).unwrap())
        .collect();
    assert!(
        kept.contains(&b"fresh\n".to_vec()),
        "the new file's bytes are kept"
    );
}

/// Undoing again walks back one batch at a time, each step to the state before a batch; a
/// batch run after an undo is undone first, and the undone one is not undone twice.
#[test]
fn undo_again_walks_back_one_batch_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "v0\n").unwrap();
    let ws = Workspace::open(root).unwrap();
    let update =
        |content: &str| format!("@@updatefile a.txt\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n");
    let s0 = tree(root);
    assert_eq!(
        apply(&ws, &(update("v1") + &newfile("b.txt", "b") + NEXT)),
        vec![None; 2]
    );
    let s1 = tree(root);
    assert_eq!(apply(&ws, &(update("v2") + NEXT)), vec![None]);

    let restored = |report: UndoReport| match report {
        UndoReport::Restored { id, .. } => id,
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(restored(backup::undo(&ws).unwrap()), 2);
    assert_eq!(tree(root), s1);
    // Batch 3 is undo's safety copy; batch 4 runs on the state before batch 2.
    assert_eq!(apply(&ws, &(update("v3") + NEXT)), vec![None]);
    assert_eq!(restored(backup::undo(&ws).unwrap()), 4);
    assert_eq!(tree(root), s1);
    assert_eq!(restored(backup::undo(&ws).unwrap()), 1);
    assert_eq!(tree(root), s0);
    assert_eq!(
        backup::undo(&ws).unwrap(),
        UndoReport::AllUndone { count: 3 }
    );
    assert_eq!(tree(root), s0);
}

#[test]
fn undo_with_nothing_to_undo() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(backup::undo(&ws).unwrap(), UndoReport::Nothing);
}

#[test]
fn agent_folder_ignores_itself_for_git() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    apply(&ws, &(newfile("a.txt", "a") + NEXT));
    assert_eq!(
        fs::read(dir.path().join(".agent/.gitignore")).unwrap(),
        b"*\n"
    );
}

/// A line of a generated file: its text and its ending.
fn file_line() -> impl Strategy<Value = (String, &'static str)> {
    (
        "[a-zA-Z0-9 \t{}();=é]{0,20}",
        prop_oneof![Just("\n"), Just("\r\n")],
    )
}

proptest! {
    #![proptest_config(crate::common::proptest_config(64))]

    /// Whatever mix of endings, BOM and final newline a file has, an edit of one line leaves
    /// the bytes before and after that line's text exactly as they were.
    #[test]
    fn edits_leave_untouched_bytes_identical(
        lines in prop::collection::vec(file_line(), 1..20),
        target in any::<prop::sample::Index>(),
        bom in any::<bool>(),
        final_newline in any::<bool>(),
        replace in "[a-z \n]{0,30}",
    ) {
        let target = target.index(lines.len());
        let mut bytes = Vec::new();
        if bom {
            bytes.extend_from_slice(b"\xEF\xBB\xBF");
        }
        let (mut start, mut end) = (0, 0);
        for (i, (text, eol)) in lines.iter().enumerate() {
            let text = if i == target { format!("@@UNIQUE@@{text}") } else { text.clone() };
            if i == target {
                start = bytes.len();
                end = start + text.len();
            }
            bytes.extend_from_slice(text.as_bytes());
            if i + 1 < lines.len() || final_newline {
                bytes.extend_from_slice(eol.as_bytes());
            }
        }
        let find = String::from_utf8(bytes[start..end].to_vec()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), &bytes).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let mut backup = Backup::new(&ws, BatchKind::Batch, "prop");
        ws.edit_file("f.txt", &find, &replace, &mut backup).unwrap();
        let after = fs::read(dir.path().join("f.txt")).unwrap();
        prop_assert_eq!(&after[..start], &bytes[..start]);
        prop_assert_eq!(&after[after.len() - (bytes.len() - end)..], &bytes[end..]);
        // New line breaks take the dominant ending.
        let middle = &after[start..after.len() - (bytes.len() - end)];
        let counted: Vec<_> = lines.iter().take(if final_newline { lines.len() } else { lines.len() - 1 }).collect();
        let crlf_endings = counted.iter().filter(|(_, e)| *e == "\r\n").count();
        let eol: &[u8] = if counted.is_empty() || crlf_endings * 2 <= counted.len() { b"\n" } else { b"\r\n" };
        let mut expected_middle = Vec::new();
        for (i, part) in replace.split('\n').enumerate() {
            if i > 0 {
                expected_middle.extend_from_slice(eol);
            }
            expected_middle.extend_from_slice(part.as_bytes());
        }
        prop_assert_eq!(middle, &expected_middle[..]);
    }
}

/// keyless's configuration, at the root or in a folder below (a nested workspace's), under a
/// link's name too, is neither read nor changed by file commands: it holds the mode and the
/// allow and deny lists, and a model must not set its own safety switches.
#[test]
fn keyless_json_is_neither_read_nor_changed_by_file_commands() {
    let dir = tempfile::tempdir().unwrap();
    let config = "{ \"Agent\": { \"Mode\": \"Ask\" } }\n";
    fs::write(dir.path().join("keyless.json"), config).unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/keyless.json"), config).unwrap();
    symlink("keyless.json", dir.path().join("settings.json")).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let before = tree(dir.path());
    let reply = "@@readfile keyless.json\n@@end\n\
        @@updatefile keyless.json\n<<<CONTENT\n{ \"Agent\": { \"Mode\": \"Auto\" } }\nCONTENT>>>\n@@end\n\
        @@editfile keyless.json\n<<<FIND\nAsk\nFIND>>>\n<<<REPLACE\nAuto\nREPLACE>>>\n@@end\n\
        @@updatefile settings.json\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n\
        @@deletefile keyless.json\n@@end\n\
        @@movefile keyless.json\n<<<TO\nold.json\nTO>>>\n@@end\n\
        @@newfile draft.json\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n\
        @@movefile draft.json\n<<<TO\nkeyless.json\nTO>>>\n@@end\n\
        @@readfile sub/keyless.json\n@@end\n\
        @@updatefile sub/KEYLESS.JSON\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n@@eof\n";
    let outside = Some(Code::PathOutside);
    assert_eq!(
        apply(&ws, reply),
        vec![
            outside, outside, outside, outside, outside, outside, None, outside, outside, outside
        ]
    );
    let mut after = tree(dir.path());
    assert!(after.remove("draft.json").is_some());
    assert_eq!(after, before, "keyless.json is as it was");
}

/// A FIFO waits for a writer for ever once opened; a device can be read for ever. File commands
/// refuse both before opening them (a hang here fails the test by its own timeout below).
#[test]
fn fifos_and_devices_are_refused_before_they_are_opened() {
    let dir = tempfile::tempdir().unwrap();
    let status = Process::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let ws = Workspace::open(dir.path()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let root = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let ws = Workspace::open(&root).unwrap();
        let codes = apply(
            &ws,
            &("@@readfile pipe\n@@end\n@@editfile pipe\n<<<FIND\na\nFIND>>>\n<<<REPLACE\nb\nREPLACE>>>\n@@end\n@@updatefile pipe\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@deletefile pipe\n@@end\n@@movefile pipe\n<<<TO\nmoved\nTO>>>\n@@end\n".to_string() + NEXT),
        );
        let _ = tx.send(codes);
    });
    let codes = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("a file command opened the FIFO and hung");
    assert_eq!(codes, vec![Some(Code::FileIo); 5]);
    assert!(dir.path().join("pipe").exists());
    drop(ws);
}

/// A sparse file of 64 GB: `@@readfile` reads only what its result can show, in bounded memory.
#[test]
fn a_huge_sparse_file_is_read_only_as_far_as_the_result_shows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    let file = fs::File::create(&path).unwrap();
    use std::io::Write;
    (&file).write_all(b"first line\nsecond line\n").unwrap();
    file.set_len(64 << 30).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let reply = "@@readfile huge.log\n@@end\n".to_string() + NEXT;
    let parsed = parse(&reply, &Limits::default());
    let settings = Settings {
        mode: Mode::Auto,
        ..Settings::default()
    };
    let mut backup = Backup::new(&ws, BatchKind::Batch, "test");
    let report = batch::execute(
        &parsed.script.unwrap(),
        &ws,
        &mut backup,
        &mut Approve,
        &settings,
        (1, 1),
    );
    let outcome = &report.results[0].outcome;
    assert_eq!(outcome.error, None);
    let (_, text) = outcome.block.as_ref().unwrap();
    assert!(text.starts_with("first line\nsecond line"), "{text:?}");
    assert!(
        outcome.lines[0].starts_with("partial: the first"),
        "{:?}",
        outcome.lines
    );
    assert!(outcome.details.contains(&format!("bytes: {}", 64u64 << 30)));
    // Editing it whole is refused with a reason, not attempted.
    let codes = apply(
        &ws,
        &("@@editfile huge.log\n<<<FIND\nfirst\nFIND>>>\n<<<REPLACE\n1st\nREPLACE>>>\n@@end\n"
            .to_string()
            + NEXT),
    );
    assert_eq!(codes, vec![Some(Code::FileIo)]);
}
