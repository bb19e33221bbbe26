//! The person's attachments (issue 33, point 2) on local pages that upload what is chosen, as
//! real sites do, the server keeping every byte that arrived: a file and an image arrive byte
//! for byte, three ways (selectors right, another site's, none); more files than the page takes
//! go as one bundle; a text file goes inline where the page has no file input; a secret in an
//! attached text file never leaves; a refused upload and a chip that never comes stop before
//! anything is sent, with the site's words and their codes; a missing path is refused before
//! the browser opens; `/attach` in the REPL; a task that must be sent again (a retry, a resume) never goes without the files its first try carried: keyless stops and says how to start it again.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use keyless::catalog::Code;
use keyless::chat::ChatDriver;
use keyless::chat::attach::{self, Attachment, How};
use keyless::chat::cdp::CdpDriver;
use keyless::chat::local::{self, Fault, LocalChat, PageFaults, Script, ScriptedReply};

use crate::common::local_keyless::keyless_on;

const DONE: &str = "```\n@@done\n<<<MSG\nDone.\nMSG>>>\n@@end\n@@eof\n```";

/// Which selectors the driver gets.
#[derive(Clone, Copy, Debug)]
enum Way {
    Right,
    Stale(&'static str),
    None,
}

const WAYS: [Way; 3] = [Way::Right, Way::Stale("chatgpt"), Way::None];

/// A PNG's first bytes and every byte value after them: binary, no line of text in it.
fn image() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..=255u8).cycle().take(3000));
    bytes
}

fn page(modes: &[&str]) -> PageFaults {
    PageFaults {
        modes: modes.iter().map(|m| m.to_string()).collect(),
        ..PageFaults::default()
    }
}

fn start(
    chat: &LocalChat,
    way: Way,
    profile: PathBuf,
    max: Option<usize>,
    wait: Duration,
) -> CdpDriver {
    let mut options = crate::common::shared_browser::local_page(chat.url(), profile);
    let file = keyless::chat::selectors::load(None).unwrap();
    match way {
        Way::Right => {}
        Way::Stale(site) => {
            let (_, other) = file.site(Some(site), None).unwrap();
            options.site.selectors = other.selectors;
            options.site.texts = other.texts;
            options.site.insert = other.insert;
        }
        Way::None => options.site = file.unknown_site(&chat.url()),
    }
    // The page's cap is a fact of the site, given as selectors.json gives it, whichever way
    // its parts are found.
    options.site.max_attachments = max;
    options.attach_wait = wait;
    CdpDriver::start(options).unwrap()
}

fn file(name: &str, bytes: &[u8]) -> Attachment {
    Attachment {
        name: name.to_string(),
        source: PathBuf::from(name),
        bytes: bytes.to_vec(),
    }
}

/// Plans `files` for the page the driver shows and sends `message` with them.
fn send_with(
    d: &mut CdpDriver,
    files: &[Attachment],
    message: &str,
) -> Result<attach::Plan, keyless::catalog::Failure> {
    let takes = d.takes_files()?;
    let plan = attach::plan(files, takes, &|t: &str| t.to_string())?;
    d.attach_next(plan.uploads.clone())?;
    d.send(&format!("{message}{}", plan.inline))?;
    Ok(plan)
}

#[test]
fn a_file_and_an_image_arrive_byte_for_byte_each_by_its_chip_three_ways() {
    let notes = b"line one\r\nline two\ttabbed\n\xc3\xa9t\xc3\xa9\n".to_vec();
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["attach"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            profile.path().into(),
            None,
            Duration::from_secs(10),
        );
        let plan = send_with(
            &mut d,
            &[file("notes.txt", &notes), file("pixel.png", &image())],
            "Look at these",
        )
        .unwrap_or_else(|f| panic!("{way:?}: {}: {}", f.code, f.reason));
        assert!(plan.sent.iter().all(|s| s.how == How::Upload));
        d.wait_reply(&mut |_| {}).unwrap();
        let uploads = chat.uploads();
        assert_eq!(
            uploads,
            vec![
                ("notes.txt".to_string(), notes.clone()),
                ("pixel.png".to_string(), image())
            ],
            "{way:?}"
        );
        // The message went once, with both files, after both chips showed.
        let received = chat.received();
        assert_eq!(received.len(), 1, "{way:?}");
        assert_eq!(
            received[0], "Look at these\n\n[attachment notes.txt]\n\n[attachment pixel.png]",
            "{way:?}"
        );
        // The next message carries none.
        d.send("And now?").unwrap();
        d.wait_reply(&mut |_| {}).unwrap();
        assert_eq!(chat.received()[1], "And now?", "{way:?}");
    }
}

#[test]
fn files_over_the_page_s_cap_go_as_one_bundle_that_keeps_every_byte_three_ways() {
    let files = [
        file("a.txt", b"alpha\n"),
        file("b.txt", b"beta\n"),
        file("c.txt", b"gamma\n"),
        file("d.png", &image()),
        file("e.txt", b"no newline at the end"),
    ];
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["attach-cap"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            profile.path().into(),
            Some(3),
            Duration::from_secs(10),
        );
        let plan = send_with(&mut d, &files, "Five files")
            .unwrap_or_else(|f| panic!("{way:?}: {}: {}", f.code, f.reason));
        let uploads = chat.uploads();
        assert_eq!(uploads.len(), 3, "{way:?}: the page takes three");
        assert_eq!(uploads[0], ("a.txt".to_string(), b"alpha\n".to_vec()));
        assert_eq!(uploads[1], ("b.txt".to_string(), b"beta\n".to_vec()));
        let (name, zip) = &uploads[2];
        assert!(
            name.starts_with("keyless-bundle-") && name.ends_with(".zip"),
            "{name}"
        );
        assert_eq!(plan.sent[2].how, How::Bundle);
        // Python's zipfile reads the bundle back: the three files, every byte, CRCs right.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.zip"), zip).unwrap();
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import zipfile,sys,json\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps({n: list(z.read(n)) for n in z.namelist()}))",
            ])
            .arg(dir.path().join("b.zip"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read: std::collections::BTreeMap<String, Vec<u8>> =
            serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(read["c.txt"], b"gamma\n");
        assert_eq!(read["d.png"], image());
        assert_eq!(read["e.txt"], b"no newline at the end");
        assert_eq!(chat.received_count(), 1, "{way:?}");
    }
}

#[test]
fn a_refused_upload_stops_before_sending_with_the_site_s_words_three_ways() {
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["attach-refuse"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            profile.path().into(),
            None,
            Duration::from_secs(10),
        );
        let failure = send_with(
            &mut d,
            &[file("ok.txt", b"fine\n"), file("tool.exe", b"MZ\x90\0")],
            "Run the tool",
        )
        .unwrap_err();
        assert_eq!(
            failure.code,
            Code::AttachmentRefused,
            "{way:?}: {}",
            failure.reason
        );
        assert!(
            failure.reason.contains(local::REFUSED_TYPE_TEXT),
            "{way:?}: {}",
            failure.reason
        );
        assert!(failure.reason.contains("tool.exe"), "{}", failure.reason);
        assert_eq!(chat.received_count(), 0, "{way:?}: nothing was sent");
    }
}

#[test]
fn a_chip_that_never_comes_stops_before_sending() {
    let chat = LocalChat::start(Script {
        page: page(&["attach-silent"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut d = start(
        &chat,
        Way::Right,
        profile.path().into(),
        None,
        Duration::from_secs(3),
    );
    let started = std::time::Instant::now();
    let failure = send_with(&mut d, &[file("notes.txt", b"x\n")], "Read it").unwrap_err();
    assert_eq!(
        failure.code,
        Code::AttachmentNotConfirmed,
        "{}",
        failure.reason
    );
    assert!(failure.reason.contains("notes.txt"), "{}", failure.reason);
    assert!(started.elapsed() < Duration::from_secs(8), "bounded");
    assert_eq!(chat.received_count(), 0);
}

fn keyless(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> (Output, String) {
    let out = keyless_on(chat, ws, profile, args).output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

fn events(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn run_attach_uploads_the_file_and_tells_it_in_json_the_transcript_and_the_session() {
    let chat = LocalChat::start(Script {
        page: page(&["attach"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let png = outside.path().join("shot.png");
    std::fs::write(&png, image()).unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &[
            "run",
            "Look at the screenshot",
            "--json",
            "--attach",
            png.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(chat.uploads(), vec![("shot.png".to_string(), image())]);
    let sent: Vec<serde_json::Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "attachment_sent")
        .collect();
    assert_eq!(sent.len(), 1, "{text}");
    assert_eq!(sent[0]["name"], "shot.png");
    assert_eq!(sent[0]["size"], image().len());
    assert_eq!(sent[0]["how"], "upload");
    let transcript = std::fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap();
    assert!(transcript.contains("\"attachment\""), "{transcript}");
    let session = std::fs::read_to_string(ws.path().join(".agent/session.json")).unwrap();
    assert!(session.contains("\"shot.png\""), "{session}");
    // The task's message names the file; the model's reply could name no file to upload.
    assert!(chat.received()[0].ends_with("[attachment shot.png]"));
}

#[test]
fn a_secret_in_an_attached_text_file_never_leaves_uploaded_or_inline() {
    let secret = "ghp_Zx9Qm2Lk7Wv4Tr8Yp3Nb6Hc1Dj5Fg0Sa2Ke7";
    let body = format!("deploy notes\nGITHUB_TOKEN={secret}\nend\n");
    for modes in [&["attach"][..], &["no-upload"][..]] {
        let chat = LocalChat::start(Script {
            page: page(modes),
            ..Script::replies([DONE])
        })
        .unwrap();
        let ws = tempfile::tempdir().unwrap();
        let profile = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let notes = outside.path().join("notes.env");
        std::fs::write(&notes, &body).unwrap();
        let (out, text) = keyless(
            &chat,
            ws.path(),
            profile.path(),
            &[
                "run",
                "Read my notes",
                "--json",
                "--attach",
                notes.to_str().unwrap(),
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{modes:?}: {text}");
        let mut left = chat.received().join("\n");
        for (_, bytes) in chat.uploads() {
            left.push_str(&String::from_utf8_lossy(&bytes));
        }
        assert!(!left.contains(secret), "{modes:?}: {left}");
        assert!(
            left.contains("deploy notes") && left.contains("[redacted"),
            "{modes:?}: {left}"
        );
        let sent = events(&out)
            .into_iter()
            .find(|e| e["type"] == "attachment_sent")
            .unwrap();
        assert_eq!(sent["redacted"], true);
        // The person's own file is untouched.
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), body);
    }
}

#[test]
fn a_text_file_goes_inline_where_the_page_has_no_file_input_and_a_binary_one_is_refused() {
    let chat = LocalChat::start(Script {
        page: page(&["no-upload"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let notes = outside.path().join("plan.md");
    std::fs::write(&notes, "# Plan\n```sh\nmake\n```\n").unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &[
            "run",
            "Follow the plan",
            "--json",
            "--attach",
            notes.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(chat.uploads().is_empty());
    assert!(
        chat.received()[0]
            .contains("File plan.md (22 bytes):\n````\n# Plan\n```sh\nmake\n```\n````\n"),
        "{:?}",
        chat.received()[0]
    );
    let sent = events(&out)
        .into_iter()
        .find(|e| e["type"] == "attachment_sent")
        .unwrap();
    assert_eq!(sent["how"], "inline");

    let png = outside.path().join("shot.png");
    std::fs::write(&png, image()).unwrap();
    let chat = LocalChat::start(Script {
        page: page(&["no-upload"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Look", "--attach", png.to_str().unwrap()],
    );
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_ATTACHMENT_NOT_SUPPORTED"), "{text}");
    assert!(text.contains("shot.png"), "{text}");
    assert_eq!(chat.received_count(), 0);
    // Nothing is left to resume: the task was never sent.
    let session =
        std::fs::read_to_string(ws.path().join(".agent/session.json")).unwrap_or_default();
    assert!(session.contains("\"pending\": null"), "{session}");
}

#[test]
fn a_missing_path_or_a_folder_is_refused_before_the_browser_opens() {
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    for (path, words) in [
        ("nowhere/missing.txt", "no such file"),
        (".", "it is a folder"),
    ] {
        // No page listens at this address: a run that opened anything would fail otherwise.
        let out = crate::common::local_keyless::keyless_at(
            "http://127.0.0.1:9/",
            Some("local"),
            profile.path(),
            profile.path(),
            &["run", "Read it", "--attach", path],
        )
        .arg("--workspace")
        .arg(ws.path())
        .current_dir(ws.path())
        .output()
        .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(text.contains("KA_ATTACHMENT_UNREADABLE"), "{text}");
        assert!(text.contains(path) && text.contains(words), "{text}");
        assert!(!ws.path().join(".agent").exists(), "nothing was opened");
    }
    // A task written after the files is read as one more file by `--attach`: said so, with the
    // command that means it, before anything opens.
    std::fs::write(ws.path().join("notes.txt"), "notes\n").unwrap();
    let out = crate::common::local_keyless::keyless_at(
        "http://127.0.0.1:9/",
        Some("local"),
        profile.path(),
        profile.path(),
        &["run", "--attach", "notes.txt", "Read my notes"],
    )
    .arg("--workspace")
    .arg(ws.path())
    .current_dir(ws.path())
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("give it before --attach: keyless run \"Read my notes\" --attach notes.txt"),
        "{text}"
    );
    assert!(!ws.path().join(".agent").exists(), "nothing was opened");
}

#[test]
fn slash_attach_in_the_repl_goes_with_the_next_task_only() {
    let chat = LocalChat::start(Script {
        page: page(&["attach"]),
        ..Script::replies([DONE, DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("data.csv"), "a,b\n1,2\n").unwrap();
    let mut child = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["interactive", "--json", "--mode", "auto"],
    )
    .current_dir(outside.path())
    .stdin(std::process::Stdio::piped())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"/attach data.csv\nSum the columns\nAnd again\n")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        chat.uploads(),
        vec![("data.csv".to_string(), b"a,b\n1,2\n".to_vec())]
    );
    let received = chat.received();
    assert_eq!(received.len(), 2, "{stderr}");
    assert!(received[0].ends_with("[attachment data.csv]"));
    assert!(!received[1].contains("[attachment"));
}

#[test]
fn a_task_is_never_sent_again_without_its_files() {
    let chat = LocalChat::start(Script {
        page: page(&["attach"]),
        replies: vec![
            ScriptedReply {
                text: DONE.to_string(),
                fault: Some(Fault::RateLimited),
            },
            ScriptedReply {
                text: DONE.to_string(),
                fault: None,
            },
        ],
        ..Script::default()
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let notes = outside.path().join("notes.txt");
    std::fs::write(&notes, "hello\n").unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Read my notes", "--attach", notes.to_str().unwrap()],
    );
    assert_ne!(
        out.status.code(),
        Some(0),
        "the site's limit stops the turn: {text}"
    );
    assert!(text.contains("KA_RATE_LIMITED"), "{text}");
    let uploaded = chat.uploads().len();
    assert_eq!(uploaded, 1, "{text}");
    // --resume with files is refused: the first message went already.
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &[
            "run",
            "--resume",
            "Read my notes",
            "--attach",
            notes.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("cannot go with it"), "{text}");
    // The task must go again, but its file went to the page with the first try only: keyless
    // stops rather than send the task without it, and says how to start it again.
    let received = chat.received_count();
    let (out, text) = keyless(&chat, ws.path(), profile.path(), &["run", "--resume"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_ATTACHMENT_NOT_CONFIRMED"), "{text}");
    assert!(text.contains("--new-chat"), "{text}");
    assert_eq!(chat.received_count(), received, "nothing sent: {text}");
    assert_eq!(chat.uploads().len(), 1, "no second upload: {text}");
    // Started again with the file, the task goes with it.
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &[
            "run",
            "--new-chat",
            "Read my notes",
            "--attach",
            notes.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(chat.uploads().len(), 2, "{text}");
}
