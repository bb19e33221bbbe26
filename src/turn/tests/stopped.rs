//! keyless stopped at every moment of a batch of file commands, then resumed: the command it was
//! in is resolved by looking at the workspace, the rest runs, nothing runs twice, and the whole
//! batch stays one backup. Each moment is the state a kill leaves there, built with the real
//! batch engine, backup and journal: the command started (journalled, nothing recorded), its
//! change recorded in the backup but not made, made but not journalled, and finished.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::batch::{Start, Step};
use crate::config::Pace;
use crate::protocol::Script;
use crate::workspace::backup::{self, Backup, BatchKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    Started,
    Recorded,
    Made,
    Finished,
}

const MOMENTS: [Moment; 4] = [
    Moment::Started,
    Moment::Recorded,
    Moment::Made,
    Moment::Finished,
];

/// The batch: one command of each kind that changes a file.
fn reply() -> String {
    next(
        &(newfile("new/a.txt", "a")
            + "@@updatefile b.txt\n<<<CONTENT\nb, new\nCONTENT>>>\n@@end\n"
            + "@@editfile c.txt\n<<<FIND\nold\nFIND>>>\n<<<REPLACE\nnew\nREPLACE>>>\n@@end\n"
            + "@@deletefile d.txt\n@@end\n"
            + "@@movefile e.txt\n<<<TO\nmoved/f.txt\nTO>>>\n@@end\n"),
    )
}

const COMMANDS: usize = 5;

fn bench() -> Bench {
    let bench = Bench::with(Settings {
        mode: Mode::Auto,
        pace: Pace::Batch,
        ..Settings::default()
    });
    for (path, text) in [
        ("b.txt", "b, old\n"),
        ("c.txt", "an old line\n"),
        ("d.txt", "d\n"),
        ("e.txt", "e\n"),
    ] {
        std::fs::write(bench.ws.root().join(path), text).unwrap();
    }
    bench
}

/// Resumes with a model that answers `@@done`; the results message keyless sent.
fn resumed_results(bench: &mut Bench) -> String {
    let mut chat = ScriptedChat::replying([done("reported")]);
    bench.resume(&mut chat);
    chat.sent.swap_remove(0)
}

/// The command `header` (`#2 updatefile | b.txt`) is reported with its outcome unknown.
fn assert_unknown(results: &str, header: &str) {
    assert!(
        results.contains(&format!("{header} ---\nstatus: error | code: KA_CANCELLED")),
        "{results}"
    );
}

/// Every file outside `.agent/`, with its bytes.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".agent") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Puts the files back as `files` has them (folders made on the way stay, as after a kill).
fn put_back(root: &Path, files_then: &BTreeMap<PathBuf, Vec<u8>>) {
    for (path, _) in files(root) {
        if !files_then.contains_key(&path) {
            std::fs::remove_file(root.join(path)).unwrap();
        }
    }
    for (path, bytes) in files_then {
        std::fs::write(root.join(path), bytes).unwrap();
    }
}

/// Leaves `bench` as keyless stopped at `moment` of command `k` leaves it.
fn stop_at(bench: &Bench, k: usize, moment: Moment) {
    let reply = reply();
    let script = parse(&reply, &bench.settings.limits).script.unwrap();
    save(bench, &interrupted(None, Some(reply.clone())));
    let mut recorder = Recorder::new(&bench.ws);
    recorder.journal_start();
    let mut backup = Backup::new(&bench.ws, BatchKind::Batch, "batch 1");
    let mut host = Approving::default();
    // Commands before k ran and were journalled, as the turn journals them.
    let before = script.part(0..k - 1);
    // As the turn journals them; at the made moment, the command's finish is not journalled.
    let journal = |step: Step, finished: bool| {
        if finished || matches!(step, Step::Starting { .. }) {
            Recorder::new(&bench.ws).journal(&JournalLine::of(1, &step));
        }
    };
    let run = |script: &Script,
               backup: &mut Backup,
               host: &mut Approving,
               journal: &mut dyn FnMut(Step)| {
        let start = Start {
            at: script.blocks()[0].index,
            ..Start::default()
        };
        batch::execute_observed(
            script,
            &bench.ws,
            backup,
            host,
            &bench.settings,
            (1, 1),
            start,
            journal,
        )
    };
    if k > 1 {
        run(&before, &mut backup, &mut host, &mut |s| journal(s, true));
    }
    let files_before = files(bench.ws.root());
    let manifest_before = backup::list(&bench.ws).unwrap();
    let only_k = script.part(k - 1..k);
    let finished = moment == Moment::Finished;
    run(&only_k, &mut backup, &mut host, &mut |s| {
        journal(s, finished)
    });
    match moment {
        Moment::Made | Moment::Finished => {}
        Moment::Recorded => put_back(bench.ws.root(), &files_before),
        Moment::Started => {
            put_back(bench.ws.root(), &files_before);
            // The record as it was before the command, or none.
            let id = backup.mark().unwrap().id;
            let folder = bench.ws.root().join(format!(".agent/backups/b{id:06}"));
            match manifest_before.iter().find(|m| m.id == id) {
                Some(m) => std::fs::write(
                    folder.join("manifest.json"),
                    serde_json::to_vec_pretty(m).unwrap(),
                )
                .unwrap(),
                None => std::fs::remove_dir_all(folder).unwrap(),
            }
        }
    }
}

/// The workspace after the batch ran once.
fn expect_batch_done(bench: &Bench, context: &str) {
    assert_eq!(bench.file("new/a.txt").as_deref(), Some("a\n"), "{context}");
    assert_eq!(
        bench.file("b.txt").as_deref(),
        Some("b, new\n"),
        "{context}"
    );
    assert_eq!(
        bench.file("c.txt").as_deref(),
        Some("an new line\n"),
        "{context}"
    );
    assert_eq!(bench.file("d.txt"), None, "{context}");
    assert_eq!(bench.file("e.txt"), None, "{context}");
    assert_eq!(
        bench.file("moved/f.txt").as_deref(),
        Some("e\n"),
        "{context}"
    );
}

#[test]
fn stopped_at_any_moment_of_a_file_command_the_batch_goes_on_and_nothing_runs_twice() {
    for k in 1..=COMMANDS {
        for moment in MOMENTS {
            let context = format!("stopped at {moment:?} of #{k}");
            let mut bench = bench();
            let original = files(bench.ws.root());
            stop_at(&bench, k, moment);
            let mut chat = ScriptedChat::replying([done("all done")]);
            assert_eq!(bench.resume(&mut chat), stop_done("all done"), "{context}");
            expect_batch_done(&bench, &context);

            // One results message: every command once, in order, each ok.
            let results = &chat.sent[0];
            assert!(
                results.starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1\n--- keyless was stopped while carrying out this batch and has restarted: what had run is reported as it was, and the rest ran now"),
                "{context}: {results}"
            );
            for i in 1..=COMMANDS {
                let head = format!("--- result {i}/{COMMANDS} | #{i} ");
                assert_eq!(results.matches(&head).count(), 1, "{context}: {results}");
            }
            assert_eq!(
                results.matches("status: ok").count(),
                COMMANDS,
                "{context}: {results}"
            );
            assert!(!results.contains("skipped"), "{context}: {results}");
            let checked = results.contains("resumed: it was done before keyless stopped");
            assert_eq!(checked, moment == Moment::Made, "{context}: {results}");

            // The whole batch is one backup: undo puts every file back as it was.
            let manifests = backup::list(&bench.ws).unwrap();
            assert_eq!(manifests.len(), 1, "{context}: {manifests:#?}");
            backup::undo(&bench.ws).unwrap();
            assert_eq!(files(bench.ws.root()), original, "{context}");
        }
    }
}

#[test]
fn a_command_that_was_done_is_journalled_so_a_second_stop_does_not_look_again() {
    let mut bench = bench();
    stop_at(&bench, 2, Moment::Made);
    // The resumed batch ends without a reply (the next one would start a new journal).
    let mut chat = ScriptedChat {
        replies: [Err(Failure::new(Code::ReplyTimeout, "no reply"))].into(),
        ..ScriptedChat::default()
    };
    bench.resume(&mut chat);
    let journal = record::read_journal(&bench.ws, 1);
    let two: Vec<&JournalLine> = journal.iter().filter(|l| l.index == 2).collect();
    assert_eq!(two.len(), 2, "{journal:#?}");
    assert!(
        two[1]
            .result
            .as_deref()
            .is_some_and(|r| r.contains("checked on disk")),
        "{journal:#?}"
    );
}

#[test]
fn a_file_changed_by_hand_after_the_stop_is_unknown_and_nothing_runs() {
    let mut bench = bench();
    stop_at(&bench, 2, Moment::Recorded);
    std::fs::write(bench.ws.root().join("b.txt"), "edited by hand\n").unwrap();
    let mut chat = ScriptedChat::replying([done("reported")]);
    assert_eq!(bench.resume(&mut chat), stop_done("reported"));
    let results = &chat.sent[0];
    assert_unknown(results, "#2 updatefile | b.txt");
    assert!(
        results.contains("skipped: #3 editfile | c.txt"),
        "{results}"
    );
    assert_eq!(bench.file("b.txt").as_deref(), Some("edited by hand\n"));
    assert_eq!(bench.file("c.txt").as_deref(), Some("an old line\n"));
}

#[test]
fn a_journal_without_backup_marks_is_unknown_as_before() {
    let mut bench = bench();
    stop_at(&bench, 3, Moment::Recorded);
    let journal = bench.ws.root().join(".agent/batch.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let unmarked: String = text
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            value.as_object_mut().unwrap().remove("backup");
            format!("{value}\n")
        })
        .collect();
    std::fs::write(&journal, unmarked).unwrap();
    assert_unknown(&resumed_results(&mut bench), "#3 editfile | c.txt");
}

#[test]
fn stopped_after_a_failed_command_nothing_more_runs() {
    let mut bench = bench();
    std::fs::remove_file(bench.ws.root().join("b.txt")).unwrap();
    stop_at(&bench, 2, Moment::Finished);
    let results = resumed_results(&mut bench);
    assert!(
        results.contains("#2 updatefile | b.txt ---\nstatus: error | code: KA_FILE_NOT_FOUND"),
        "{results}"
    );
    assert!(
        results.contains("skipped: #3 editfile | c.txt"),
        "{results}"
    );
    assert_eq!(bench.file("c.txt").as_deref(), Some("an old line\n"));
}

/// Resume decides by the journal's outcome as data, never by its text: a result that reads
/// "status: ok" but is recorded as failed stops the batch, and a journal from before outcomes
/// were kept (none recorded) is not known to have succeeded, so nothing more runs.
#[test]
fn resume_decides_by_the_recorded_outcome_not_by_the_result_text() {
    for recorded in [Some(false), None] {
        let mut bench = bench();
        stop_at(&bench, 2, Moment::Finished);
        let path = bench.ws.root().join(".agent/batch.jsonl");
        let journal = std::fs::read_to_string(&path).unwrap();
        let rewritten: String = journal
            .lines()
            .map(|line| {
                let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
                if value["index"] == 2 && !value["result"].is_null() {
                    assert!(
                        value["result"].as_str().unwrap().starts_with("status: ok"),
                        "{line}"
                    );
                    match recorded {
                        Some(ok) => value["outcome"] = serde_json::json!({ "ok": ok }),
                        None => {
                            value.as_object_mut().unwrap().remove("outcome");
                        }
                    }
                }
                format!("{value}\n")
            })
            .collect();
        std::fs::write(&path, rewritten).unwrap();
        let results = resumed_results(&mut bench);
        assert!(
            results.contains("skipped: #3 editfile | c.txt"),
            "{recorded:?}: {results}"
        );
        assert_eq!(
            bench.file("c.txt").as_deref(),
            Some("an old line\n"),
            "{recorded:?}"
        );
    }
}

#[test]
fn the_commands_that_ran_before_count_towards_the_limit() {
    let mut bench = bench();
    bench.settings.pace = Pace::Balanced;
    stop_at(&bench, 2, Moment::Started);
    let mut chat = ScriptedChat::replying([done("all done")]);
    bench.resume(&mut chat);
    let results = &chat.sent[0];
    // Balanced pace: three commands, of which #1 ran before the stop.
    assert!(
        results.contains("--- result 3/5 | #3 editfile"),
        "{results}"
    );
    assert!(
        results.contains("skipped: #4 deletefile | d.txt"),
        "{results}"
    );
    assert!(
        results.contains("skipped: #5 movefile | e.txt"),
        "{results}"
    );
    assert_eq!(bench.file("d.txt").as_deref(), Some("d\n"));
}

#[test]
fn an_undo_after_the_stop_leaves_the_batch_reported_and_nothing_runs() {
    let mut bench = bench();
    stop_at(&bench, 3, Moment::Made);
    backup::undo(&bench.ws).unwrap();
    let results = resumed_results(&mut bench);
    assert_unknown(&results, "#3 editfile | c.txt");
    assert!(
        results.contains("skipped: #4 deletefile | d.txt"),
        "{results}"
    );
    assert_eq!(
        bench.file("d.txt").as_deref(),
        Some("d\n"),
        "nothing ran after the undo"
    );
}

#[test]
fn a_new_file_or_a_move_changed_by_hand_after_the_stop_is_unknown() {
    // The new file is there, but not with the bytes it was to be written with.
    let mut bench = bench();
    stop_at(&bench, 1, Moment::Recorded);
    std::fs::write(bench.ws.root().join("new/a.txt"), "by hand\n").unwrap();
    assert_unknown(&resumed_results(&mut bench), "#1 newfile | new/a.txt");
    assert_eq!(bench.file("b.txt").as_deref(), Some("b, old\n"));

    // Both the old and the new place of a move hold a file.
    let mut bench = self::bench();
    stop_at(&bench, 5, Moment::Recorded);
    std::fs::create_dir_all(bench.ws.root().join("moved")).unwrap();
    std::fs::write(bench.ws.root().join("moved/f.txt"), "by hand\n").unwrap();
    assert_unknown(
        &resumed_results(&mut bench),
        "#5 movefile | e.txt -> moved/f.txt",
    );
    assert_eq!(bench.file("e.txt").as_deref(), Some("e\n"));
}
