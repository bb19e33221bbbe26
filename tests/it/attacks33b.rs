//! Issue 33's `--attach` (point 2) and "never silently pick a different model" (point 1),
//! attacked by a second reviewer who had not read the change: a chat site of its own kept
//! outside keyless's code (`tests/attacks33b/site.py`, "Dropbox": a textarea, turns with no
//! role, a copy button per reply, a scripted model) whose upload UI is unlike keyless's local
//! page: a hidden `<input type=file multiple>` made only when a "+" menu's "Upload from
//! computer" item is clicked, a drop zone, an uploader whose input and chips sit in an open
//! shadow root, no file input at all; chips that show the whole name, a truncated name
//! ("very-long-file-n….py") or only an icon and a size with the name in a `title`; an upload
//! that takes 3 s behind a spinner chip that already shows the name (a message sent meanwhile
//! goes without the file); a refusal said inside the chip ("Upload failed") or in a German
//! toast in a polite live region; a cap of 2 that silently drops the 3rd; a page that takes
//! only images; a model picker made of radio inputs in a `<details>` disclosure.
//!
//! The site keeps the bytes of every upload and which message each file went with: the tests'
//! proof of what arrived. keyless runs headless in a tab of the test binary's shared browser,
//! with the chat's parts in `tests/attacks33b/selectors.json` (no attachment or picker keys
//! unless a test adds them) or with `--url` alone. Each test asserts what the issue asks; the
//! cases keyless got wrong when this was written are fixed, and every case runs.
//!
//! Held when this was written: exact bytes (text, binary, CRLF with a BOM, Latin-1, an empty
//! file, odd names, 4 MiB), secrets redacted in UTF-8 text uploaded, inline or bundled, a
//! German toast, an images-only page and a failed chip named by the selectors refused with the
//! site's words, a chip that never comes bounded (30 s) and named, nothing uploaded at a
//! model's asking, the REPL's `/attach`, resume and retry never resending a task without its
//! files, a FIFO, /dev/zero and a 600 MiB file refused up front, loose model names never
//! choosing another model on a dialog of radio rows. Got through at first, fixed since (branch
//! fix33b, by general rules, none of them Dropbox's names): a chip was any element by the
//! composer whose text *contained* the name, at any moment, so a chip that says "Upload
//! failed", a spinner chip of an upload still running, a chip that fails a second late, a stale
//! draft's chip of the same name and a chip "data.txt" standing for "a.txt" let the message go
//! without the file; a link to /etc/shadow was followed and uploaded; text not in UTF-8 went
//! unredacted; and, failing closed, an input made by a "+" menu's item, a truncated chip,
//! native radio pickers, a user turn that shows its file on `--resume`, and `keyless status`
//! not naming the files. Every test here now runs.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::local_keyless::{attached, keyless_at};
use crate::common::python_site::PythonSite;

/// The reply timeout keyless gets: short, so a reply waited for in vain costs 20 s.
const REPLY_TIMEOUT: u64 = 20;

/// The longest a run may take before the test calls it a hang: keyless's own bound on a chip
/// (30 s a file) and the reply timeout, with room for a loaded machine.
const HANG: Duration = Duration::from_secs(120);

/// A reply that ends the task at once.
const DONE: &str = "```agentscript\n@@done\n<<<MSG\nok\nMSG>>>\n@@end\n@@eof\n```";

const TASK: &str = "look at the files I attached";

/// Dropbox serving on this machine with its config and scripted replies.
struct Site(PythonSite);

impl std::ops::Deref for Site {
    type Target = PythonSite;

    fn deref(&self) -> &PythonSite {
        &self.0
    }
}

impl Site {
    fn start(config: Value) -> Site {
        Site::scripted(config, &[DONE])
    }

    fn scripted(config: Value, replies: &[&str]) -> Site {
        Site(PythonSite::start(
            "attacks33b",
            &[
                ("script.json", serde_json::to_string(replies).unwrap()),
                ("config.json", config.to_string()),
            ],
        ))
    }

    fn lines(&self, name: &str) -> Vec<Value> {
        fs::read_to_string(self.dir.path().join(name))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Every message the site received: its text, the files it went with (id, name), the model.
    fn received(&self) -> Vec<Value> {
        self.lines("received.jsonl")
    }

    /// Every upload the site took, sent with a message or not: (name, bytes).
    fn uploads(&self) -> Vec<(String, Vec<u8>)> {
        self.lines("uploads.jsonl")
            .iter()
            .map(|u| {
                let id = u["id"].as_str().unwrap();
                let bytes = fs::read(self.dir.path().join("uploads").join(id)).unwrap();
                (u["name"].as_str().unwrap().to_string(), bytes)
            })
            .collect()
    }

    /// The bytes of the upload `id`.
    fn upload(&self, id: &str) -> Vec<u8> {
        fs::read(self.dir.path().join("uploads").join(id)).unwrap()
    }

    /// The files the message `n` went with: (name, bytes).
    fn files_of(&self, n: usize) -> Vec<(String, Vec<u8>)> {
        let received = self.received();
        received[n]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    self.upload(f["id"].as_str().unwrap()),
                )
            })
            .collect()
    }

    /// Everything that reached the server: every upload's bytes and every message's text.
    fn everything(&self) -> Vec<u8> {
        let mut all = Vec::new();
        for (_, bytes) in self.uploads() {
            all.extend_from_slice(&bytes);
        }
        for r in self.received() {
            all.extend_from_slice(r["text"].as_str().unwrap().as_bytes());
        }
        all
    }

    /// Waits (bounded) until `name` holds at least `n` lines.
    fn wait_lines(&self, name: &str, n: usize, within: Duration) {
        let started = Instant::now();
        while self.lines(name).len() < n {
            assert!(
                started.elapsed() < within,
                "{name} did not reach {n} lines in {within:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// How keyless finds the chat's parts: the site's selectors (with extra keys in `selectors`
/// and extra site-level keys), or `--url` alone.
enum Parts {
    Selectors { keys: Value, site: Value },
    UrlOnly,
}

/// The site's chat parts, no attachment or picker keys.
fn chat_parts() -> Parts {
    Parts::Selectors {
        keys: json!({}),
        site: json!({}),
    }
}

/// One workspace, browser profile and folder of the person's files beside the workspace.
struct Place {
    dir: tempfile::TempDir,
}

#[derive(Debug)]
struct Out {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    took: Duration,
}

impl Out {
    /// The `--json` events of type `kind`.
    fn events(&self, kind: &str) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == kind)
            .collect()
    }
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        fs::create_dir(&ws).unwrap();
        fs::create_dir(dir.path().join("mine")).unwrap();
        fs::write(
            ws.join("keyless.json"),
            format!("{{ \"Browser\": {{ \"ReplyTimeoutSeconds\": {REPLY_TIMEOUT} }} }}"),
        )
        .unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&ws)
            .status()
            .unwrap();
        assert!(git.success());
        Place { dir }
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// A file of the person's, outside the workspace; its path.
    fn mine(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join("mine").join(name);
        fs::write(&path, bytes).unwrap();
        path
    }

    /// keyless `args` on the site in a tab of the shared browser, not waited for.
    fn spawn(&self, site: &Site, parts: &Parts, args: &[&str]) -> Child {
        self.command(site, parts, args).spawn().unwrap()
    }

    /// keyless `args` on the site in a tab of the shared browser, its output piped, its
    /// current folder the one that holds the person's files.
    fn command(&self, site: &Site, parts: &Parts, args: &[&str]) -> Command {
        let named = matches!(parts, Parts::Selectors { .. });
        let mut cmd = attached(keyless_at(
            &site.url(),
            named.then_some("dropbox"),
            &self.dir.path().join("browser"),
            self.dir.path(),
            args,
        ));
        if let Parts::Selectors { keys, site: extra } = parts {
            let base =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks33b/selectors.json");
            let mut file: Value = serde_json::from_str(&fs::read_to_string(base).unwrap()).unwrap();
            for (k, v) in keys.as_object().unwrap() {
                file["sites"]["dropbox"]["selectors"][k] = v.clone();
            }
            for (k, v) in extra.as_object().unwrap() {
                file["sites"]["dropbox"][k] = v.clone();
            }
            let path = self.dir.path().join("selectors.json");
            fs::write(&path, file.to_string()).unwrap();
            cmd.arg("--selectors").arg(path);
        }
        cmd.arg("--workspace")
            .arg(self.ws())
            .current_dir(self.dir.path().join("mine"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// keyless `args` on the site, waited for within [`HANG`] (killed past it: a hang fails).
    fn keyless(&self, site: &Site, parts: &Parts, args: &[&str]) -> Out {
        let started = Instant::now();
        let mut child = self.spawn(site, parts, args);
        // The pipes are read on threads so a chatty keyless never blocks on them.
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut s).ok();
            s
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut s).ok();
            s
        });
        let code = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            if started.elapsed() > HANG {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "keyless hung past {HANG:?}: {}",
                    err.join().unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Out {
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
            code,
            took: started.elapsed(),
        }
    }

    /// `keyless run --mode auto --pace batch --json TASK --attach FILES… <args>`.
    fn run(&self, site: &Site, parts: &Parts, files: &[&Path], args: &[&str]) -> Out {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let mut all = vec!["run", "--mode", "auto", "--pace", "batch", "--json", TASK];
        if !files.is_empty() {
            all.push("--attach");
            all.extend(files.iter().map(String::as_str));
        }
        all.extend_from_slice(args);
        self.keyless(site, parts, &all)
    }

    /// `keyless status` in the workspace (no browser).
    fn status(&self) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
            .arg("status")
            .arg("--workspace")
            .arg(self.ws())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }
}

/// `needle` occurs in `hay`.
fn holds(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// The run finished, and its one message went with exactly `files` (name, bytes), each
/// announced by an `attachment_sent` event with `how: upload` and its size.
fn assert_arrived_exactly(site: &Site, out: &Out, files: &[(&str, &[u8])]) {
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 1, "{received:#?}");
    let mut got = site.files_of(0);
    got.sort();
    let mut want: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_vec()))
        .collect();
    want.sort();
    let names = |v: &[(String, Vec<u8>)]| -> Vec<(String, usize)> {
        v.iter().map(|(n, b)| (n.clone(), b.len())).collect()
    };
    assert_eq!(names(&got), names(&want), "{out:#?}");
    for ((name, g), (_, w)) in got.iter().zip(&want) {
        assert!(g == w, "{name}: the bytes that arrived differ");
    }
    assert_eq!(
        site.uploads().len(),
        files.len(),
        "an upload that went with no message"
    );
    let events = out.events("attachment_sent");
    assert_eq!(events.len(), files.len(), "{out:#?}");
    for (name, bytes) in files {
        let e = events
            .iter()
            .find(|e| e["name"] == *name)
            .unwrap_or_else(|| panic!("no attachment_sent for {name}: {out:#?}"));
        assert_eq!(e["size"], bytes.len(), "{e}");
        assert_eq!(e["how"], "upload", "{e}");
    }
}

/// The run stopped with exit 4 and `code` before the site received a message, naming `name`.
fn assert_stopped_before_sending(site: &Site, out: &Out, code: &str, words: &[&str]) {
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains(code), "no {code}: {out:#?}");
    for w in words {
        assert!(out.stderr.contains(w), "no {w:?}: {out:#?}");
    }
    assert!(
        site.received().is_empty(),
        "a message went: {:#?}",
        site.received()
    );
}

fn upload_site(upload: &str, chip: &str) -> Value {
    json!({"upload": upload, "chip": chip})
}

/// Bytes no text decoder takes: every byte value, NULs among them.
fn binary() -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    b.extend((0..=255u8).cycle().take(3000));
    b
}

/// Text, binary, CRLF with a BOM and Latin-1 (not UTF-8) arrive byte for byte through a drop
/// zone's hidden input, the chips found by their shape; `--json` and `keyless status` name them.
#[test]
fn text_binary_crlf_bom_and_latin1_arrive_byte_for_byte() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let text: &[u8] = b"def main():\n    print('hi')\n";
    let bin = binary();
    let crlf: &[u8] = b"\xef\xbb\xbfline one\r\nline two\r\n";
    let latin1: &[u8] = b"caf\xe9 cr\xe8me br\xfbl\xe9e\n";
    let files = [
        place.mine("main.py", text),
        place.mine("blob.bin", &bin),
        place.mine("windows.txt", crlf),
        place.mine("latin1.txt", latin1),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = place.run(&site, &chat_parts(), &paths, &[]);
    assert_arrived_exactly(
        &site,
        &out,
        &[
            ("main.py", text),
            ("blob.bin", &bin),
            ("windows.txt", crlf),
            ("latin1.txt", latin1),
        ],
    );
}

/// `keyless status` names the files that went with the task, as `.agent/session.json` keeps them.
#[test]
fn keyless_status_names_the_attached_files() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let files = [
        place.mine("first-attached.py", b"a = 1\n"),
        place.mine("second-attached.png", &binary()),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = place.run(&site, &chat_parts(), &paths, &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let session = fs::read_to_string(place.ws().join(".agent/session.json")).unwrap();
    assert!(session.contains("first-attached.py"), "{session}");
    let status = place.status();
    for name in ["first-attached.py", "second-attached.png"] {
        assert!(
            status.contains(name),
            "keyless status does not name {name}: {status}"
        );
    }
}

/// An empty file and names with spaces, parentheses, accents, CJK and both quotes arrive.
#[test]
fn an_empty_file_and_odd_names_arrive_byte_for_byte() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let names = [
        "empty.txt",
        "my notes (v2).md",
        "résumé ✓ 日本.txt",
        "say \"hi\" it's.txt",
    ];
    let bodies: [&[u8]; 4] = [b"", b"# notes\n", "ü\n".as_bytes(), b"quoted\n"];
    let files: Vec<PathBuf> = names
        .iter()
        .zip(bodies)
        .map(|(n, b)| place.mine(n, b))
        .collect();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = place.run(&site, &chat_parts(), &paths, &[]);
    let want: Vec<(&str, &[u8])> = names.iter().copied().zip(bodies).collect();
    assert_arrived_exactly(&site, &out, &want);
}

/// A GitHub token and an AWS key in an attached text file never reach the server, in the
/// upload or the message; the person's file is untouched; the event says it was redacted.
#[test]
fn a_secret_in_an_attached_text_file_never_reaches_the_server() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let token = "ghp_Z8a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7";
    let aws = "AKIAZ7QWERTYUIOPASDF";
    let body = format!("host = example.org\ntoken = {token}\naws_access_key_id = {aws}\n");
    let file = place.mine("settings.ini", body.as_bytes());
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let all = site.everything();
    assert!(
        !holds(&all, token.as_bytes()),
        "the token reached the server"
    );
    assert!(
        !holds(&all, aws.as_bytes()),
        "the AWS key reached the server"
    );
    let files = site.files_of(0);
    assert_eq!(files.len(), 1, "{out:#?}");
    assert!(holds(&files[0].1, b"host = example.org\n"), "{files:?}");
    assert_eq!(fs::read(&file).unwrap(), body.as_bytes());
    let events = out.events("attachment_sent");
    assert_eq!(events.len(), 1, "{out:#?}");
    assert_eq!(events[0]["redacted"], true, "{out:#?}");
}

/// On a page with no file input the secret stays out of the inline text too, and the rest of
/// the file (backticks and all) goes inline exactly.
#[test]
fn no_file_input_sends_text_inline_redacted_and_unclosable() {
    let site = Site::start(json!({"upload": "none"}));
    let place = Place::new();
    let token = "ghp_Z8a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7";
    let body = format!("```\nfenced ```` inside\n```\ntoken = {token}\nlast line, no break");
    let file = place.mine("readme.md", body.as_bytes());
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    let text = received[0]["text"].as_str().unwrap();
    assert!(!text.contains(token), "the token went inline: {text}");
    assert!(
        text.contains("```\nfenced ```` inside\n```\ntoken = "),
        "{text}"
    );
    assert!(text.contains("last line, no break"), "{text}");
    assert!(
        text.contains("`````"),
        "the fence can be closed by the text: {text}"
    );
    assert!(site.uploads().is_empty());
    let events = out.events("attachment_sent");
    assert_eq!(events.len(), 1, "{out:#?}");
    assert_eq!(events[0]["how"], "inline", "{out:#?}");
}

/// On a page with no file input a binary file cannot go: stopped before sending, coded.
#[test]
fn no_file_input_refuses_a_binary_file_before_sending() {
    let site = Site::start(json!({"upload": "none"}));
    let place = Place::new();
    let file = place.mine("shot.png", &binary());
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_NOT_SUPPORTED", &["shot.png"]);
}

/// A chip that stays but says "Upload failed" (no `AttachmentFailed` selector): refused with
/// the site's words before anything is sent.
#[test]
fn a_chip_that_says_upload_failed_stops_before_sending() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "refuse": "chip"}));
    let place = Place::new();
    let file = place.mine("data.csv", b"a,b\n1,2\n");
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_REFUSED", &["Upload failed"]);
}

/// A refusal in a German toast in a polite live region (sonner's shape), no chip: refused with
/// those words, not waited out as a missing chip.
#[test]
fn a_german_toast_stops_before_sending_with_its_words() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "refuse": "toast_de"}));
    let place = Place::new();
    let file = place.mine("tool.exe", &binary());
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_stopped_before_sending(
        &site,
        &out,
        "KA_ATTACHMENT_REFUSED",
        &["Hochladen fehlgeschlagen"],
    );
}

/// Only the second of two files is refused: nothing is sent, not even the first.
#[test]
fn one_refused_file_of_two_sends_nothing() {
    let site = Site::start(
        json!({"upload": "direct", "chip": "full", "refuse": "toast_de", "refuse_match": ".exe"}),
    );
    let place = Place::new();
    let good = place.mine("good.txt", b"fine\n");
    let bad = place.mine("bad.exe", &binary());
    let out = place.run(&site, &chat_parts(), &[&good, &bad], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_REFUSED", &["bad.exe"]);
}

/// A page that takes only images refuses a text file in an English toast: refused with its words.
#[test]
fn an_images_only_page_refuses_a_text_file_with_its_words() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "images_only": true}));
    let place = Place::new();
    let file = place.mine("code.py", b"print(1)\n");
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_stopped_before_sending(
        &site,
        &out,
        "KA_ATTACHMENT_REFUSED",
        &["Only images are supported"],
    );
}

/// The same page takes a PNG, byte for byte.
#[test]
fn an_images_only_page_takes_a_png() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "images_only": true}));
    let place = Place::new();
    let png = binary();
    let file = place.mine("shot.png", &png);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("shot.png", &png)]);
}

/// The bytes are taken but no chip is ever drawn: bounded, coded, the file named, nothing sent.
#[test]
fn a_chip_that_never_comes_is_bounded_and_named() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "never_chip": true}));
    let place = Place::new();
    let file = place.mine("quiet.txt", b"shh\n");
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_NOT_CONFIRMED", &["quiet.txt"]);
    assert!(out.took < Duration::from_secs(60), "took {:?}", out.took);
}

/// An upload that takes 3 s behind a spinner chip already showing the name: the message must
/// wait for the upload, or the page sends it without the file.
#[test]
fn a_slow_upload_behind_a_named_spinner_chip_is_waited_for() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "delay_ms": 3000}));
    let place = Place::new();
    let body = b"slow but sure\n";
    let file = place.mine("slow.txt", body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("slow.txt", body)]);
}

/// A cap of 2 the site does not say, the 3rd file dropped without a word: the message never
/// goes with two of the three. Either every byte arrives or nothing is sent, coded.
#[test]
fn a_silent_cap_of_two_never_sends_two_of_three() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "cap": 2}));
    let place = Place::new();
    let files = [
        place.mine("a.txt", b"alpha\n"),
        place.mine("b.txt", b"bravo\n"),
        place.mine("c.txt", b"charlie\n"),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = place.run(&site, &chat_parts(), &paths, &[]);
    if out.code == Some(0) {
        let got: Vec<u8> = site.files_of(0).into_iter().flat_map(|(_, b)| b).collect();
        for body in [&b"alpha\n"[..], b"bravo\n", b"charlie\n"] {
            assert!(
                holds(&got, body),
                "a file did not go with the message: {out:#?}"
            );
        }
    } else {
        assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_NOT_CONFIRMED", &["c.txt"]);
    }
}

/// The same cap said in `selectors.json` (`maxAttachments: 2`): the first file goes as it is,
/// the other two in one bundle that keeps every byte (binary among them: a zip stored whole).
#[test]
fn a_cap_of_two_in_the_selectors_bundles_the_rest_keeping_every_byte() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "cap": 2}));
    let place = Place::new();
    let bin = binary();
    let files = [
        place.mine("a.txt", b"alpha\n"),
        place.mine("b.txt", b"bravo\n"),
        place.mine("c.bin", &bin),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let parts = Parts::Selectors {
        keys: json!({}),
        site: json!({"maxAttachments": 2}),
    };
    let out = place.run(&site, &parts, &paths, &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let got = site.files_of(0);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.iter().any(|(n, b)| n == "a.txt" && b == b"alpha\n"),
        "{out:#?}"
    );
    let bundle = &got
        .iter()
        .find(|(n, _)| n.starts_with("keyless-bundle-"))
        .unwrap()
        .1;
    assert!(
        holds(bundle, b"bravo\n") && holds(bundle, &bin),
        "the bundle lost bytes"
    );
    let hows: Vec<Value> = out
        .events("attachment_sent")
        .iter()
        .map(|e| e["how"].clone())
        .collect();
    assert_eq!(hows.len(), 3, "{out:#?}");
    assert_eq!(
        hows.iter().filter(|h| *h == "bundle").count(),
        2,
        "{out:#?}"
    );
}

/// A chip that shows the name cut short ("very-long-file-n….py", no title) is the file's chip.
#[test]
fn a_truncated_chip_confirms_the_file() {
    let site = Site::start(upload_site("direct", "truncated"));
    let place = Place::new();
    let body = b"x = 1\n";
    let file = place.mine("very-long-file-name-for-the-chip.py", body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_arrived_exactly(
        &site,
        &out,
        &[("very-long-file-name-for-the-chip.py", body)],
    );
}

/// A chip that shows an icon and a size, the name only in its `title`.
#[test]
fn an_icon_chip_with_the_name_in_its_title_confirms_the_file() {
    let site = Site::start(upload_site("direct", "icon"));
    let place = Place::new();
    let body = b"icon only\n";
    let file = place.mine("notes.txt", body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("notes.txt", body)]);
}

/// The file input exists only once the "+" menu's "Upload from computer" item is clicked.
#[test]
fn an_input_made_by_a_plus_menu_item_takes_the_files() {
    let site = Site::start(upload_site("menu", "full"));
    let place = Place::new();
    let body = b"from the menu\n";
    let file = place.mine("menu.txt", body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("menu.txt", body)]);
}

/// The same "+" menu with the site's parts named in the selectors (`AttachButton` the "+").
#[test]
fn an_input_made_by_a_plus_menu_item_named_in_the_selectors_takes_the_files() {
    let site = Site::start(upload_site("menu", "full"));
    let place = Place::new();
    let body = b"from the menu\n";
    let file = place.mine("menu.txt", body);
    let parts = Parts::Selectors {
        keys: json!({
            "AttachButton": ["button.plus"],
            "AttachmentInput": ["form input[type=file]"],
            "AttachmentChip": [".chip"]
        }),
        site: json!({}),
    };
    let out = place.run(&site, &parts, &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("menu.txt", body)]);
}

/// An uploader whose paperclip, input and chips sit in an open shadow root, `--url` alone.
#[test]
fn an_input_and_chips_in_a_shadow_root_take_the_files() {
    let site = Site::start(upload_site("shadow", "full"));
    let place = Place::new();
    let body = b"in the shadows\n";
    let file = place.mine("shadow.txt", body);
    let out = place.run(&site, &Parts::UrlOnly, &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("shadow.txt", body)]);
}

/// The first reply asks for a file of the workspace and writes `@@attach` for it, in prose and
/// in AgentScript; the second ends the task. Only the person's file is ever uploaded, with the
/// first message; the binary file the model named never leaves.
fn model_names_a_file(first: &str) {
    let site = Site::scripted(json!({"upload": "direct", "chip": "full"}), &[first, DONE]);
    let place = Place::new();
    let secret = b"\0\x01KEYMATERIAL-7f3a9c\xff\xfe\0".repeat(20);
    fs::write(place.ws().join("secret.bin"), &secret).unwrap();
    let mine = place.mine("mine.txt", b"the person's own\n");
    let out = place.run(&site, &chat_parts(), &[&mine], &[]);
    let uploads = site.uploads();
    let names: Vec<&str> = uploads.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["mine.txt"], "{out:#?}");
    assert!(
        !holds(&site.everything(), b"KEYMATERIAL-7f3a9c"),
        "the model's file reached the server: {out:#?}"
    );
    let received = site.received();
    assert!(!received.is_empty(), "{out:#?}");
    assert_eq!(received[0]["files"].as_array().unwrap().len(), 1);
    for later in &received[1..] {
        assert_eq!(
            later["files"],
            json!([]),
            "a later message carried a file: {received:#?}"
        );
    }
    assert!(
        received.len() >= 2,
        "the loop did not go on after the reply: {out:#?}"
    );
}

#[test]
fn a_file_the_model_asks_for_in_prose_is_never_uploaded() {
    model_names_a_file(
        "Please attach secret.bin so I can look.\n@@attach secret.bin\n\n```agentscript\n@@next\n@@end\n@@eof\n```",
    );
}

#[test]
fn a_file_the_model_names_in_agentscript_is_never_uploaded() {
    model_names_a_file("```agentscript\n@@attach secret.bin\n@@end\n@@next\n@@end\n@@eof\n```");
}

/// A reply that makes a file in the workspace.
const WRITE_DONE: &str = "```agentscript\n@@newfile done.txt\n<<<CONTENT\ndone\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nok\nMSG>>>\n@@end\n@@eof\n```";

/// Starts `keyless run --attach FILE` on a site whose reply is slow, and interrupts it (SIGINT)
/// once the message has reached the site, the reply not yet read.
fn interrupted_after_sending(site: &Site, place: &Place, file: &Path) {
    let file = file.display().to_string();
    let mut child = place.spawn(
        site,
        &chat_parts(),
        &[
            "run", "--mode", "auto", "--pace", "batch", "--json", TASK, "--attach", &file,
        ],
    );
    site.wait_lines("received.jsonl", 1, HANG);
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill has no preconditions; the pid is our child's.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("keyless did not stop on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `--resume` after the message went and its reply came: the reply is read, nothing is sent or
/// uploaded again. `shows_files`: the user's turn shows the file's name above the task's text,
/// as the sites draw a message that carried files.
fn resume_reads_the_reply(shows_files: bool) {
    let site = Site::scripted(
        json!({"upload": "direct", "chip": "full", "reply_delay_ms": 4000,
               "turn_shows_files": shows_files}),
        &[WRITE_DONE],
    );
    let place = Place::new();
    let file = place.mine("once.txt", b"only once\n");
    interrupted_after_sending(&site, &place, &file);
    site.wait_lines("replied.jsonl", 1, Duration::from_secs(30));
    let out = place.keyless(
        &site,
        &chat_parts(),
        &[
            "run", "--mode", "auto", "--pace", "batch", "--json", "--resume",
        ],
    );
    assert_eq!(
        out.code,
        Some(0),
        "{out:#?}\npages the browser loaded: {:#?}",
        site.lines("visits.jsonl")
    );
    assert!(place.ws().join("done.txt").exists(), "{out:#?}");
    assert_eq!(
        site.received().len(),
        1,
        "sent twice: {:#?}",
        site.received()
    );
    assert_eq!(site.uploads().len(), 1, "uploaded twice");
}

#[test]
fn resume_reads_the_reply_and_sends_nothing_twice() {
    resume_reads_the_reply(false);
}

#[test]
fn resume_reads_the_reply_when_the_turn_shows_its_file_beside_the_text() {
    resume_reads_the_reply(true);
}

/// A new task with `--attach` while a turn is interrupted: refused before anything opens (the
/// interrupted turn's message went already), nothing more sent or uploaded.
#[test]
fn attach_with_an_interrupted_turn_is_refused() {
    let site = Site::scripted(
        json!({"upload": "direct", "chip": "full", "reply_delay_ms": 90000}),
        &[WRITE_DONE],
    );
    let place = Place::new();
    let file = place.mine("once.txt", b"only once\n");
    interrupted_after_sending(&site, &place, &file);
    let other = place.mine("other.txt", b"another\n");
    let out = place.run(&site, &chat_parts(), &[&other], &[]);
    assert_ne!(out.code, Some(0), "{out:#?}");
    assert!(out.stderr.contains("--new-chat"), "{out:#?}");
    assert_eq!(site.received().len(), 1, "sent: {:#?}", site.received());
    assert_eq!(site.uploads().len(), 1, "uploaded again");
}

/// `--resume` when the chat has no reply to the message that carried the files: the message
/// must not go again without them; stopped, coded, the way on named.
#[test]
fn resume_without_a_reply_never_resends_the_task_without_its_files() {
    let site = Site::scripted(
        json!({"upload": "direct", "chip": "full", "reply_delay_ms": 90000}),
        &[WRITE_DONE],
    );
    let place = Place::new();
    let file = place.mine("once.txt", b"only once\n");
    interrupted_after_sending(&site, &place, &file);
    let out = place.keyless(
        &site,
        &chat_parts(),
        &[
            "run", "--mode", "auto", "--pace", "batch", "--json", "--resume",
        ],
    );
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(
        out.stderr.contains("KA_ATTACHMENT_NOT_CONFIRMED"),
        "{out:#?}"
    );
    assert!(out.stderr.contains("--new-chat"), "{out:#?}");
    assert_eq!(
        site.received().len(),
        1,
        "sent again: {:#?}",
        site.received()
    );
    assert_eq!(site.uploads().len(), 1, "uploaded again");
}

/// A run refused before anything opens: not 0, `code` said, nothing uploaded or sent, quick.
fn assert_refused_up_front(site: &Site, out: &Out, code: &str) {
    assert_ne!(out.code, Some(0), "{out:#?}");
    assert!(out.stderr.contains(code), "no {code}: {out:#?}");
    assert!(site.uploads().is_empty(), "something was uploaded");
    assert!(site.received().is_empty(), "a message went");
    assert!(out.took < Duration::from_secs(30), "took {:?}", out.took);
}

/// A harmless-looking name in the workspace that is a link to /etc/shadow (a model can make
/// one with a command): never uploaded.
#[test]
fn a_link_to_etc_shadow_is_never_uploaded() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let link = place.ws().join("notes.txt");
    symlink("/etc/shadow", &link).unwrap();
    let out = place.run(&site, &chat_parts(), &[&link], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
    assert!(out.stderr.contains("notes.txt"), "{out:#?}");
}

/// A FIFO no one writes to: refused, no hang.
#[test]
fn a_fifo_is_refused_without_hanging() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let fifo = place.dir.path().join("mine").join("pipe.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out = place.run(&site, &chat_parts(), &[&fifo], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
    assert!(out.stderr.contains("pipe.txt"), "{out:#?}");
}

/// /dev/zero (endless) and a link to it: refused, no hang, no memory blown.
#[test]
fn dev_zero_is_refused_without_hanging() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let out = place.run(&site, &chat_parts(), &[Path::new("/dev/zero")], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
    let link = place.dir.path().join("mine").join("zeros.bin");
    symlink("/dev/zero", &link).unwrap();
    let out = place.run(&site, &chat_parts(), &[&link], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
}

/// A 600 MiB file (sparse: cheap to make): refused clearly, naming the path and the limit.
#[test]
fn a_huge_file_is_refused_clearly() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let path = place.dir.path().join("mine").join("huge.iso");
    fs::File::create(&path)
        .unwrap()
        .set_len(600 * 1024 * 1024)
        .unwrap();
    let out = place.run(&site, &chat_parts(), &[&path], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
    assert!(out.stderr.contains("huge.iso"), "{out:#?}");
    assert!(
        out.stderr.contains("536870912") || out.stderr.contains("512 MB"),
        "the limit is not said: {out:#?}"
    );
}

/// A model picker: `"dialog"` (a pill opening a dialog of `role=radio` rows, the documented
/// shape), or `"radios"` (native radio inputs in a `<details>` disclosure, open at load or not).
fn picker(layout: &str, models: &[&str], current: &str, open: bool) -> Value {
    json!({
        "upload": "none",
        "picker": layout,
        "picker_open": open,
        "models": models.iter().map(|m| json!({"label": m, "desc": "a model"})).collect::<Vec<_>>(),
        "current": current,
    })
}

const CLAUDES: [&str; 4] = ["Sonnet 4.5", "Sonnet 4", "Opus 4.1", "Haiku 3.5"];

/// `--model NAME` on `config`'s picker, found by its shape: the run finished and its message
/// went with `model`, which `--json` names.
fn chooses(config: Value, name: &str, model: &str) {
    let site = Site::start(config);
    let place = Place::new();
    let out = place.run(&site, &Parts::UrlOnly, &[], &["--model", name]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 1, "{received:#?}");
    assert_eq!(received[0]["model"], model, "{received:#?}");
    let chosen = out.events("model_chosen");
    assert_eq!(chosen.len(), 1, "{out:#?}");
    assert_eq!(chosen[0]["model"], model, "{out:#?}");
}

/// `--model NAME` on the dialog picker: refused before anything was sent, naming `offered`.
fn refuses(models: &[&str], current: &str, name: &str, offered: &[&str]) {
    let site = Site::start(picker("dialog", models, current, false));
    let place = Place::new();
    let out = place.run(&site, &Parts::UrlOnly, &[], &["--model", name]);
    assert_stopped_before_sending(&site, &out, "KA_MODEL_NOT_CONFIRMED", offered);
}

#[test]
fn dialog_sonnet_4_chooses_sonnet_4_never_sonnet_4_5() {
    chooses(
        picker("dialog", &CLAUDES, "Haiku 3.5", false),
        "sonnet 4",
        "Sonnet 4",
    );
}

#[test]
fn dialog_sonnet_4_5_by_its_slug_is_chosen() {
    chooses(
        picker("dialog", &CLAUDES, "Haiku 3.5", false),
        "sonnet-4-5",
        "Sonnet 4.5",
    );
}

#[test]
fn dialog_sonnet_alone_is_refused_naming_both() {
    refuses(&CLAUDES, "Haiku 3.5", "sonnet", &["Sonnet 4.5", "Sonnet 4"]);
}

#[test]
fn dialog_opus_4_never_chooses_opus_4_1() {
    refuses(&CLAUDES, "Haiku 3.5", "opus 4", &["Opus 4.1"]);
}

#[test]
fn dialog_gpt_4_never_chooses_gpt_4o_or_gpt_4_1() {
    refuses(
        &["GPT-4o", "GPT-4.1", "GPT-4.1 mini"],
        "GPT-4o",
        "gpt-4",
        &["GPT-4.1"],
    );
}

/// "Haiku 4" is not offered; "Haiku 3.5", checked at load, must not carry the message.
#[test]
fn dialog_a_name_the_page_does_not_offer_never_keeps_the_checked_one() {
    refuses(&CLAUDES, "Haiku 3.5", "haiku 4", &["Haiku 3.5"]);
}

#[test]
fn dialog_gpt_4_1_is_chosen_over_the_checked_gpt_4_1_mini() {
    chooses(
        picker(
            "dialog",
            &["GPT-4.1 mini", "GPT-4.1", "GPT-4o"],
            "GPT-4.1 mini",
            false,
        ),
        "gpt 4.1",
        "GPT-4.1",
    );
}

#[test]
fn native_radios_in_an_open_disclosure_are_found_and_chosen() {
    chooses(
        picker("radios", &CLAUDES, "Haiku 3.5", true),
        "sonnet 4",
        "Sonnet 4",
    );
}

#[test]
fn native_radios_in_a_closed_disclosure_are_found_and_chosen() {
    chooses(
        picker("radios", &CLAUDES, "Haiku 3.5", false),
        "Sonnet-4.5",
        "Sonnet 4.5",
    );
}

/// A chip that shows the name and a progress bar, then says "Upload failed" a second later,
/// with the site's `AttachmentChip` and `AttachmentFailed` named in the selectors: refused
/// before sending, not sent on the strength of the chip's first look.
#[test]
fn a_chip_that_fails_a_second_late_stops_before_sending() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "fail_after_ms": 1000}));
    let place = Place::new();
    let file = place.mine("late.txt", b"late\n");
    let parts = Parts::Selectors {
        keys: json!({"AttachmentChip": [".chip"], "AttachmentFailed": [".chip.failed"]}),
        site: json!({}),
    };
    let out = place.run(&site, &parts, &[&file], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_REFUSED", &["late.txt"]);
}

/// The same failed chip, drawn failed at once, named by `AttachmentFailed`: refused, quoted.
#[test]
fn a_failed_chip_named_by_the_selectors_stops_before_sending() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "refuse": "chip"}));
    let place = Place::new();
    let file = place.mine("data.csv", b"a,b\n1,2\n");
    let parts = Parts::Selectors {
        keys: json!({"AttachmentChip": [".chip"], "AttachmentFailed": [".chip.failed"]}),
        site: json!({}),
    };
    let out = place.run(&site, &parts, &[&file], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_REFUSED", &["Upload failed"]);
}

/// A draft kept from an earlier visit holds a chip named like the person's file ("report.txt",
/// stale bytes), and the page (cap 1) drops the new one without a word: the message never goes
/// with the stale bytes in the person's file's place.
#[test]
fn a_stale_draft_chip_of_the_same_name_never_stands_for_the_file() {
    let site = Site::start(json!({
        "upload": "direct", "chip": "full", "cap": 1,
        "draft": {"name": "report.txt", "text": "stale draft from last week\n"}
    }));
    let place = Place::new();
    let body = b"the person's report\n";
    let file = place.mine("report.txt", body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    if out.code == Some(0) {
        let got = site.files_of(0);
        assert_eq!(
            got,
            vec![("report.txt".to_string(), body.to_vec())],
            "the message went with other bytes than the person's file: {out:#?}"
        );
    } else {
        assert_eq!(out.code, Some(4), "{out:#?}");
        assert!(site.received().is_empty(), "{:#?}", site.received());
    }
}

/// A text file in Latin-1 (Windows' everyday encoding for a `.env` or `.ini`) holding a token:
/// text to the person, so the token must not reach the server.
#[test]
fn a_secret_in_a_latin1_text_file_never_reaches_the_server() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let token = "ghp_Z8a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7";
    let mut body = b"# caf\xe9 settings\n".to_vec();
    body.extend_from_slice(format!("GITHUB_TOKEN={token}\n").as_bytes());
    let file = place.mine("settings.env", &body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert!(
        !holds(&site.everything(), token.as_bytes()),
        "the token reached the server: {out:#?}"
    );
}

/// The same in UTF-16 with its BOM (Notepad's "Unicode"): the token must not reach the server.
#[test]
fn a_secret_in_a_utf16_text_file_never_reaches_the_server() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let token = "ghp_Z8a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7";
    let text = format!("GITHUB_TOKEN={token}\r\n");
    let mut body = vec![0xff, 0xfe];
    for unit in text.encode_utf16() {
        body.extend_from_slice(&unit.to_le_bytes());
    }
    let file = place.mine("settings.txt", &body);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    let utf16: Vec<u8> = token.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let all = site.everything();
    assert!(
        !holds(&all, &utf16) && !holds(&all, token.as_bytes()),
        "the token reached the server: {out:#?}"
    );
}

/// A token in a text file that goes inside a zip bundle (mixed with a binary file, over a cap
/// of 2): redacted in the bundle too.
#[test]
fn a_secret_in_a_text_file_inside_a_zip_bundle_never_reaches_the_server() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "cap": 2}));
    let place = Place::new();
    let token = "ghp_Z8a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7";
    let files = [
        place.mine("a.txt", b"alpha\n"),
        place.mine("b.txt", format!("token = {token}\n").as_bytes()),
        place.mine("c.bin", &binary()),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let parts = Parts::Selectors {
        keys: json!({}),
        site: json!({"maxAttachments": 2}),
    };
    let out = place.run(&site, &parts, &paths, &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    assert!(
        !holds(&site.everything(), token.as_bytes()),
        "the token reached the server in the bundle"
    );
    assert!(holds(&site.everything(), b"token = "), "b.txt did not go");
}

/// Two files of one name from different folders, and a folder: refused before anything opens.
#[test]
fn two_files_of_one_name_and_a_folder_are_refused_up_front() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let one = place.mine("same.txt", b"one\n");
    let other_dir = place.dir.path().join("other");
    fs::create_dir(&other_dir).unwrap();
    let two = other_dir.join("same.txt");
    fs::write(&two, b"two\n").unwrap();
    let out = place.run(&site, &chat_parts(), &[&one, &two], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
    assert!(out.stderr.contains("same.txt"), "{out:#?}");
    let out = place.run(&site, &chat_parts(), &[&other_dir], &[]);
    assert_refused_up_front(&site, &out, "KA_ATTACHMENT_UNREADABLE");
}

/// A task written after `--attach`'s files is a path to keyless: told so before anything
/// opens (a usage error, exit 2), the way to mean it shown, nothing sent.
#[test]
fn a_task_after_the_attached_files_is_told_before_anything_opens() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let file = place.mine("a.txt", b"a\n").display().to_string();
    let out = place.keyless(
        &site,
        &chat_parts(),
        &[
            "run",
            "--mode",
            "auto",
            "--pace",
            "batch",
            "--json",
            "--attach",
            &file,
            "fix the failing test",
        ],
    );
    assert_eq!(out.code, Some(2), "{out:#?}");
    assert!(out.stderr.contains("fix the failing test"), "{out:#?}");
    assert!(out.stderr.contains("before --attach"), "{out:#?}");
    assert!(site.uploads().is_empty() && site.received().is_empty());
}

/// An OpenSSH private key attached by mistake: the key's body never reaches the server.
#[test]
fn a_private_key_attached_by_mistake_never_reaches_the_server() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let body_line = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW";
    let key = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{body_line}\nQyNTUxOQAAACDxV2p0K9mXh3JwqLr7c1T8n4Yb6Zs0aE5uFvGkWdQzRgAAAJgAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
    );
    let file = place.mine("id_ed25519", key.as_bytes());
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert!(
        !holds(&site.everything(), body_line.as_bytes()),
        "the private key reached the server: {out:#?}"
    );
}

/// A 4 MiB binary file arrives byte for byte.
#[test]
fn a_four_mib_binary_file_arrives_byte_for_byte() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let mut big = Vec::with_capacity(4 << 20);
    let mut x: u32 = 0x1234_5678;
    while big.len() < 4 << 20 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        big.extend_from_slice(&x.to_le_bytes());
    }
    let file = place.mine("noise.bin", &big);
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_arrived_exactly(&site, &out, &[("noise.bin", &big)]);
}

/// The REPL: `/attach FILE` goes with the next task's first message, exactly, and the task
/// after it carries nothing; no upload follows the first.
#[test]
fn repl_attach_goes_with_the_next_task_only() {
    let site = Site::scripted(upload_site("direct", "full"), &[DONE, DONE]);
    let place = Place::new();
    let body = b"for the REPL\n";
    let file = place.mine("repl.txt", body).display().to_string();
    let mut child = place
        .command(
            &site,
            &chat_parts(),
            &["interactive", "--mode", "auto", "--pace", "batch", "--json"],
        )
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    use std::io::Write;
    writeln!(stdin, "/attach {file}").unwrap();
    writeln!(stdin, "first task with the file").unwrap();
    stdin.flush().unwrap();
    site.wait_lines("replied.jsonl", 1, HANG);
    writeln!(stdin, "second task without it").unwrap();
    stdin.flush().unwrap();
    site.wait_lines("replied.jsonl", 2, HANG);
    drop(stdin);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the REPL did not end on end of input");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}\n{err}");
    assert_eq!(
        site.files_of(0),
        vec![("repl.txt".to_string(), body.to_vec())],
        "{err}"
    );
    assert_eq!(received[1]["files"], json!([]), "{received:#?}");
    assert_eq!(site.uploads().len(), 1, "{err}");
    assert!(out.contains("attachment_sent"), "{out}");
}

/// "data.txt" is taken and "a.txt" dropped without a word: the chip "data.txt" holds the
/// letters "a.txt" but is not a.txt's chip, so the message must not go without it.
#[test]
fn a_chip_whose_name_merely_contains_the_files_name_does_not_confirm_it() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "drop_names": ["a.txt"]}));
    let place = Place::new();
    let data = place.mine("data.txt", b"data\n");
    let a = place.mine("a.txt", b"a\n");
    let out = place.run(&site, &chat_parts(), &[&data, &a], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_NOT_CONFIRMED", &["a.txt"]);
}

/// Rows named by their title, with a line below naming the model behind them ("Deep" is Opus
/// 4.1 underneath): `--model opus` names no row's title, so it is refused, not matched on the
/// description.
#[test]
fn dialog_a_name_found_only_in_a_rows_description_is_refused() {
    let site = Site::start(json!({
        "upload": "none", "picker": "dialog", "current": "Fast",
        "models": [{"label": "Fast", "desc": "Sonnet 4.5 for quick answers"},
                   {"label": "Deep", "desc": "Opus 4.1 for hard problems"}]
    }));
    let place = Place::new();
    let out = place.run(&site, &Parts::UrlOnly, &[], &["--model", "opus"]);
    assert_stopped_before_sending(&site, &out, "KA_MODEL_NOT_CONFIRMED", &["Fast", "Deep"]);
}

/// No file input: a text of exactly 60,000 bytes goes inline, one byte more is refused before
/// anything is sent.
#[test]
fn no_file_input_takes_60000_bytes_inline_and_refuses_60001() {
    let site = Site::start(json!({"upload": "none"}));
    let place = Place::new();
    let line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-=\n";
    let text: String = line.repeat(60_000 / line.len() + 1)[..60_000].to_string();
    let over = place.mine("over.txt", format!("{text}x").as_bytes());
    let out = place.run(&site, &chat_parts(), &[&over], &[]);
    assert_stopped_before_sending(&site, &out, "KA_ATTACHMENT_NOT_SUPPORTED", &["over.txt"]);
    let fits = place.mine("fits.txt", text.as_bytes());
    let out = place.run(&site, &chat_parts(), &[&fits], &["--new-chat"]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert!(received[0]["text"].as_str().unwrap().contains(&text));
}

/// Text files over the cap go as one text bundle that keeps every byte: CRLF, a BOM, no final
/// line break.
#[test]
fn a_text_bundle_keeps_crlf_a_bom_and_a_missing_final_break() {
    let site = Site::start(json!({"upload": "direct", "chip": "full", "cap": 2}));
    let place = Place::new();
    let crlf: &[u8] = b"\xef\xbb\xbfone\r\ntwo\r\n";
    let open_end: &[u8] = b"no break at the end";
    let files = [
        place.mine("a.txt", b"alpha\n"),
        place.mine("crlf.txt", crlf),
        place.mine("open.txt", open_end),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let parts = Parts::Selectors {
        keys: json!({}),
        site: json!({"maxAttachments": 2}),
    };
    let out = place.run(&site, &parts, &paths, &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let got = site.files_of(0);
    let bundle = &got
        .iter()
        .find(|(n, _)| n.starts_with("keyless-bundle-"))
        .unwrap_or_else(|| panic!("no bundle: {got:?}"))
        .1;
    assert!(holds(bundle, crlf), "the CRLF and BOM were not kept");
    assert!(
        holds(bundle, open_end),
        "{}",
        String::from_utf8_lossy(bundle)
    );
    assert!(
        holds(bundle, b"(19 bytes)"),
        "the size that tells the missing break is not said: {}",
        String::from_utf8_lossy(bundle)
    );
}

/// `.agent/transcript.jsonl` has an `attachment` entry for each file that went.
#[test]
fn the_transcript_records_each_attached_file() {
    let site = Site::start(upload_site("direct", "full"));
    let place = Place::new();
    let files = [
        place.mine("one.py", b"1\n"),
        place.mine("two.png", &binary()),
    ];
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = place.run(&site, &chat_parts(), &paths, &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let transcript = fs::read_to_string(place.ws().join(".agent/transcript.jsonl")).unwrap();
    let entries: Vec<Value> = transcript
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "attachment")
        .collect();
    assert_eq!(entries.len(), 2, "{transcript}");
    assert!(
        entries.iter().any(|e| e.to_string().contains("one.py")),
        "{transcript}"
    );
    assert!(
        entries.iter().any(|e| e.to_string().contains("two.png")),
        "{transcript}"
    );
}

/// No file input, the file inline: a resume that finds no reply sends the message again, and
/// the file with it (it is part of the message), still redacted; nothing went without it.
#[test]
fn resume_resends_an_inline_file_with_the_message() {
    let site = Site::scripted(
        json!({"upload": "none", "reply_delay_ms": 90000, "delay_first_only": true}),
        &[WRITE_DONE, WRITE_DONE],
    );
    let place = Place::new();
    let token = "ghp_Z8a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7";
    let file = place.mine(
        "inline.txt",
        format!("keep me\ntoken = {token}\n").as_bytes(),
    );
    interrupted_after_sending(&site, &place, &file);
    let out = place.keyless(
        &site,
        &chat_parts(),
        &[
            "run", "--mode", "auto", "--pace", "batch", "--json", "--resume",
        ],
    );
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    for r in &received {
        let text = r["text"].as_str().unwrap();
        assert!(
            text.contains("keep me\ntoken = "),
            "sent without the file: {text}"
        );
        assert!(!text.contains(token), "the token went: {text}");
    }
    assert!(place.ws().join("done.txt").exists(), "{out:#?}");
}

/// A second `keyless run` in the same chat attaches a file of the same name as the first run's;
/// the page, past its quota, drops it without a word. The earlier user turn still shows the
/// name ("📄 notes.txt") on the page: it is not the new file's chip, so nothing is sent.
#[test]
fn an_earlier_turns_file_name_never_confirms_a_new_upload() {
    let site = Site::scripted(
        json!({"upload": "direct", "chip": "full", "total_cap": 1}),
        &[DONE, DONE],
    );
    let place = Place::new();
    let file = place.mine("notes.txt", b"first\n");
    let out = place.run(&site, &chat_parts(), &[&file], &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    fs::write(&file, b"second\n").unwrap();
    let out = place.keyless(
        &site,
        &chat_parts(),
        &[
            "run",
            "--mode",
            "auto",
            "--pace",
            "batch",
            "--json",
            "a second task",
            "--attach",
            &file.display().to_string(),
        ],
    );
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(
        out.stderr.contains("KA_ATTACHMENT_NOT_CONFIRMED"),
        "{out:#?}"
    );
    assert_eq!(site.received().len(), 1, "{:#?}", site.received());
    let visits = site.lines("visits.jsonl");
    assert!(
        visits
            .iter()
            .any(|v| v["path"].as_str().unwrap().starts_with("/c/")),
        "the second run did not go on in the chat that shows the earlier file: {visits:#?}"
    );
}
