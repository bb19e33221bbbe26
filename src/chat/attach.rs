//! The person's attachments (`--attach PATH…`, `/attach` in the REPL): the files read once, up
//! front, and the plan of how each goes with the task's first message: uploaded through the
//! page's file input, gathered into one bundle where the site caps the count, or written inline
//! in the message where the page has no file input.
//!
//! What it does not do: touch the page (`cdp/attach.rs` uploads and confirms each chip), decide
//! which message carries the files (the turn: only a task's first message), or look at anything
//! the model named: no AgentScript command leads here, only the person's own paths.
//!
//! Text is what decodes as UTF-8 with no NUL byte, UTF-16 behind its byte order mark, or
//! single-byte text (Latin-1 / Windows-1252: no NUL and no control byte but tab, line breaks,
//! form feed and escape); it is redacted (the caller's redactor) before it leaves in any form,
//! inline, uploaded or bundled, and an upload goes back in the file's own encoding (every byte
//! outside a secret as it was). Anything else goes byte for byte, because the person named it.
//!
//! A path inside the workspace that is, or passes through, a symbolic link is refused: the
//! model's commands may have made it, and keyless never follows a link in the workspace.
//! Outside the workspace the person's links are theirs, and followed.

use std::path::{Path, PathBuf};

use crate::catalog::{Code, Failure};

/// How many files one message may carry on a site that does not say (`maxAttachments` in
/// `selectors.json`): below every known site's cap (ChatGPT takes 10, others fewer), so a site
/// we know nothing of is not asked for more than the tightest of them took.
pub const DEFAULT_MAX_FILES: usize = 5;

/// The longest text file that goes inline in the message when the page has no file input, in
/// bytes: a real site refuses messages much longer than this (ChatGPT's page keeps a prompt
/// under about 110 kB of JSON), and the task's own words must fit beside it.
pub const INLINE_MAX_BYTES: usize = 60_000;

/// The largest file keyless reads for attaching, in bytes: over every chat site's upload
/// limit known to us (512 MB at ChatGPT), so a bigger one is a mistake, not a task.
pub const READ_MAX_BYTES: u64 = 512 * 1024 * 1024;

/// One file the person attached, read when the task began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// Its file name, as the chip shows it.
    pub name: String,
    /// Where it was read from (absolute), for the record.
    pub source: PathBuf,
    /// Its bytes as read (text not yet redacted).
    pub bytes: Vec<u8>,
}

impl Attachment {
    /// Whether it is text: UTF-8 with no NUL byte, UTF-16 with its byte order mark, or
    /// single-byte text (see [`Encoding`]).
    pub fn is_text(&self) -> bool {
        decode(&self.bytes).is_some()
    }
}

/// How a text file's bytes encode its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 with no NUL byte.
    Utf8,
    /// UTF-16 little-endian behind its byte order mark (FF FE), as Windows' Notepad saves
    /// "Unicode".
    Utf16Le,
    /// UTF-16 big-endian behind its byte order mark (FE FF).
    Utf16Be,
    /// One byte a character (Latin-1, Windows-1252's printable bytes read as Latin-1 so every
    /// byte comes back as it was): no NUL and no control byte but tab, line feed, carriage
    /// return, form feed and escape.
    SingleByte,
}

/// The control bytes single-byte text may hold: tab, line feed, form feed, carriage return,
/// escape (a coloured log).
const TEXT_CONTROLS: [u8; 5] = [b'\t', b'\n', 0x0c, b'\r', 0x1b];

/// The text `bytes` hold and how they encode it, or None when they are not text.
pub fn decode(bytes: &[u8]) -> Option<(String, Encoding)> {
    let utf16 = |rest: &[u8], unit: fn([u8; 2]) -> u16| {
        if !rest.len().is_multiple_of(2) {
            return None;
        }
        let units = rest.chunks_exact(2).map(|c| unit([c[0], c[1]]));
        let text: Result<String, _> = char::decode_utf16(units).collect();
        text.ok().filter(|t| !t.contains('\0'))
    };
    if let Some(rest) = bytes.strip_prefix(&[0xff, 0xfe]) {
        return utf16(rest, u16::from_le_bytes).map(|t| (t, Encoding::Utf16Le));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xfe, 0xff]) {
        return utf16(rest, u16::from_be_bytes).map(|t| (t, Encoding::Utf16Be));
    }
    if bytes.contains(&0) {
        return None;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Some((text.to_string(), Encoding::Utf8));
    }
    let printable = bytes
        .iter()
        .all(|&b| (b >= 0x20 && b != 0x7f) || TEXT_CONTROLS.contains(&b));
    printable.then(|| {
        (
            bytes.iter().map(|&b| char::from(b)).collect(),
            Encoding::SingleByte,
        )
    })
}

/// `text` in `encoding`, as [`decode`] read it (a byte order mark kept). A character single
/// bytes cannot hold (only a redaction's own words can bring one) becomes `?`.
pub fn encode(text: &str, encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf16Le => [0xff, 0xfe]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect(),
        Encoding::Utf16Be => [0xfe, 0xff]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect(),
        Encoding::SingleByte => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect(),
    }
}

/// Whether `path` (absolute, its links unresolved) lies in `workspace` and is, or passes
/// through, a symbolic link there: the link found, or None.
fn link_in_workspace(path: &Path, workspace: &Path) -> Option<PathBuf> {
    let roots: Vec<PathBuf> = [
        std::path::absolute(workspace).ok(),
        std::fs::canonicalize(workspace).ok(),
    ]
    .into_iter()
    .flatten()
    .collect();
    // The path as written, and with the folders above it resolved (a link of the person's
    // outside the workspace that leads into it).
    let mut ways = vec![path.to_path_buf()];
    if let (Some(parent), Some(name)) = (path.parent(), path.file_name())
        && let Ok(real) = std::fs::canonicalize(parent)
    {
        ways.push(real.join(name));
    }
    for way in &ways {
        for root in &roots {
            let Ok(below) = way.strip_prefix(root) else {
                continue;
            };
            let mut at = root.clone();
            for part in below.components() {
                at.push(part);
                if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Some(at);
                }
            }
        }
    }
    None
}

/// Reads the person's `paths` (relative ones from `cwd`): each must be a readable file with a
/// name of its own among them, and none inside `workspace` a symbolic link or reached through
/// one. Refused before anything opens, naming the path and the fix.
pub fn read(
    paths: &[PathBuf],
    cwd: &Path,
    workspace: Option<&Path>,
) -> Result<Vec<Attachment>, Failure> {
    let mut files: Vec<Attachment> = Vec::new();
    for given in paths {
        let path = cwd.join(given);
        let refuse = |why: &str| {
            Failure::new(
                Code::AttachmentUnreadable,
                format!(
                    "cannot attach {}: {why}; give the path of a file you can read (relative to the current folder, or absolute)",
                    given.display()
                ),
            )
        };
        let absolute = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        if let Some(link) = workspace.and_then(|ws| link_in_workspace(&absolute, ws)) {
            return Err(refuse(&format!(
                "{} is a symbolic link inside the workspace, and keyless never follows a link there (a command may have made it); attach the file it leads to by its own path",
                link.display()
            )));
        }
        let meta = std::fs::metadata(&path).map_err(|e| refuse(&reason(&e)))?;
        if meta.is_dir() {
            return Err(refuse(
                "it is a folder (attach its files, or an archive of it)",
            ));
        }
        if !meta.is_file() {
            return Err(refuse("it is not a regular file"));
        }
        if meta.len() > READ_MAX_BYTES {
            return Err(refuse(&format!(
                "it is {} bytes, over the {READ_MAX_BYTES} any chat site takes",
                meta.len()
            )));
        }
        let bytes = std::fs::read(&path).map_err(|e| refuse(&reason(&e)))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| refuse("it has no file name"))?;
        if files.iter().any(|f| f.name == name) {
            return Err(refuse(&format!(
                "another file given is named {name} too, and a chip is told by its name (rename one)"
            )));
        }
        files.push(Attachment {
            name,
            source: absolute,
            bytes,
        });
    }
    Ok(files)
}

/// An I/O error in words a person acts on.
fn reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// How an attachment went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// Through the page's file input, confirmed by its chip.
    Upload,
    /// Written into the message as a fenced block.
    Inline,
    /// Inside the one bundle file uploaded for the files over the site's cap.
    Bundle,
}

/// What is recorded of one attachment (transcript, `--json`, session).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sent {
    pub name: String,
    /// Its size as read, in bytes.
    pub size: u64,
    pub how: How,
    /// Text whose secrets were replaced before it left.
    #[serde(default)]
    pub redacted: bool,
}

/// A file to hand to the page's file input: its name and the bytes that go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What the page takes: whether it has a file input, and how many files one message may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageTakes {
    pub file_input: bool,
    pub max_files: usize,
}

/// How the files go with the message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The files for the file input, in order (a bundle last).
    pub uploads: Vec<Upload>,
    /// Text to append to the message (the inline files), empty when none.
    pub inline: String,
    /// Each file as it goes, in the order given.
    pub sent: Vec<Sent>,
}

/// Plans how `files` go on a page that `takes` them so; `redact` replaces the secrets of a
/// text. With a file input every file is uploaded, the ones over the cap in one bundle (the
/// first `max_files - 1` go as they are); without one, text files up to
/// [`INLINE_MAX_BYTES`] go inline and anything else is refused
/// (`KA_ATTACHMENT_NOT_SUPPORTED`).
pub fn plan(
    files: &[Attachment],
    takes: PageTakes,
    redact: &dyn Fn(&str) -> String,
) -> Result<Plan, Failure> {
    // Each file's bytes as they leave: text redacted (in its own encoding), the rest as read;
    // and the redacted text, for a file that goes inline.
    let mut texts: Vec<Option<String>> = Vec::new();
    let leaving: Vec<(Vec<u8>, bool)> = files
        .iter()
        .map(|f| match decode(&f.bytes) {
            Some((text, encoding)) => {
                let clean = redact(&text);
                let changed = clean != text;
                let bytes = if changed {
                    encode(&clean, encoding)
                } else {
                    f.bytes.clone()
                };
                texts.push(Some(clean));
                (bytes, changed)
            }
            None => {
                texts.push(None);
                (f.bytes.clone(), false)
            }
        })
        .collect();
    let mut plan = Plan::default();
    if !takes.file_input {
        let cannot: Vec<&str> = files
            .iter()
            .zip(&leaving)
            .zip(&texts)
            .filter(|((_, (bytes, _)), text)| text.is_none() || bytes.len() > INLINE_MAX_BYTES)
            .map(|((f, _), _)| f.name.as_str())
            .collect();
        if !cannot.is_empty() {
            return Err(Failure::new(
                Code::AttachmentNotSupported,
                format!(
                    "the page has no file input, and {} cannot go inline in the message (only text files up to {INLINE_MAX_BYTES} bytes do); nothing was sent",
                    cannot.join(", ")
                ),
            ));
        }
        // Inline, each file is its text (UTF-8 in the message, whatever its encoding).
        let blocks: Vec<(&str, &[u8])> = files
            .iter()
            .zip(&texts)
            .map(|(f, text)| {
                (
                    f.name.as_str(),
                    text.as_deref().unwrap_or_default().as_bytes(),
                )
            })
            .collect();
        plan.inline = format!("\n\n{}", text_bundle(&blocks));
        plan.sent = sent(files, &leaving, |_| How::Inline);
        return Ok(plan);
    }
    let max = takes.max_files.max(1);
    let alone = if files.len() > max {
        max - 1
    } else {
        files.len()
    };
    for (f, (bytes, _)) in files.iter().zip(&leaving).take(alone) {
        plan.uploads.push(Upload {
            name: f.name.clone(),
            bytes: bytes.clone(),
        });
    }
    if files.len() > alone {
        let rest: Vec<(&str, &[u8])> = files[alone..]
            .iter()
            .zip(&leaving[alone..])
            .map(|(f, (bytes, _))| (f.name.as_str(), bytes.as_slice()))
            .collect();
        plan.uploads.push(bundle(&rest));
    }
    plan.sent = sent(files, &leaving, |i| {
        if i < alone { How::Upload } else { How::Bundle }
    });
    Ok(plan)
}

fn sent(
    files: &[Attachment],
    leaving: &[(Vec<u8>, bool)],
    how: impl Fn(usize) -> How,
) -> Vec<Sent> {
    files
        .iter()
        .zip(leaving)
        .enumerate()
        .map(|(i, (f, (_, redacted)))| Sent {
            name: f.name.clone(),
            size: f.bytes.len() as u64,
            how: how(i),
            redacted: *redacted,
        })
        .collect()
}

/// One file for many: a text bundle (`keyless-bundle-HASH.txt`, the files as fenced blocks,
/// see [`text_bundle`]) when every file is text, else a zip archive of the files as they are
/// (`keyless-bundle-HASH.zip`, stored, not compressed). Both keep every byte; the name hashes
/// the contents, so a bundle is told from another by its chip.
pub fn bundle(files: &[(&str, &[u8])]) -> Upload {
    let all_text = files
        .iter()
        .all(|(_, b)| !b.contains(&0) && std::str::from_utf8(b).is_ok());
    let (bytes, ext) = if all_text {
        (text_bundle(files).into_bytes(), "txt")
    } else {
        (zip_stored(files), "zip")
    };
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(&bytes);
    let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    Upload {
        name: format!("keyless-bundle-{short}.{ext}"),
        bytes,
    }
}

/// Text files as one text: each a heading line `File NAME (N bytes):` and the text in a fence
/// of backticks longer than any run of backticks in it, so the text cannot close it early; a
/// text that does not end with a line break gets one before the closing fence (the size says
/// how long it was).
pub fn text_bundle(files: &[(&str, &[u8])]) -> String {
    let mut out = String::new();
    for (i, (name, bytes)) in files.iter().enumerate() {
        let text = String::from_utf8_lossy(bytes);
        let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("File {name} ({} bytes):\n{fence}\n", bytes.len()));
        out.push_str(&text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&fence);
        out.push('\n');
    }
    out
}

/// A zip archive (PKZIP 2.0, method 0: stored) of `files` by their names, every byte kept.
fn zip_stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    /// Local file header, central directory header, end of central directory signatures.
    const LOCAL: u32 = 0x0403_4b50;
    const CENTRAL: u32 = 0x0201_4b50;
    const END: u32 = 0x0605_4b50;
    /// Version 2.0 needed to extract; bit 11 of the flags: the name is UTF-8.
    const VERSION: u16 = 20;
    const UTF8_NAME: u16 = 1 << 11;
    let mut out = Vec::new();
    let mut central = Vec::new();
    let put16 = |v: &mut Vec<u8>, n: u16| v.extend_from_slice(&n.to_le_bytes());
    let put32 = |v: &mut Vec<u8>, n: u32| v.extend_from_slice(&n.to_le_bytes());
    for (name, bytes) in files {
        let offset = out.len() as u32;
        let crc = crc32(bytes);
        let size = bytes.len() as u32;
        put32(&mut out, LOCAL);
        for n in [VERSION, UTF8_NAME, 0, 0, 0] {
            put16(&mut out, n);
        }
        for n in [crc, size, size] {
            put32(&mut out, n);
        }
        put16(&mut out, name.len() as u16);
        put16(&mut out, 0);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(bytes);
        put32(&mut central, CENTRAL);
        for n in [VERSION, VERSION, UTF8_NAME, 0, 0, 0] {
            put16(&mut central, n);
        }
        for n in [crc, size, size] {
            put32(&mut central, n);
        }
        put16(&mut central, name.len() as u16);
        for n in [0u16, 0, 0, 0] {
            put16(&mut central, n);
        }
        put32(&mut central, 0);
        put32(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let at = out.len() as u32;
    let length = central.len() as u32;
    out.extend_from_slice(&central);
    put32(&mut out, END);
    put16(&mut out, 0);
    put16(&mut out, 0);
    put16(&mut out, files.len() as u16);
    put16(&mut out, files.len() as u16);
    put32(&mut out, length);
    put32(&mut out, at);
    put16(&mut out, 0);
    out
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zip records it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> Attachment {
        Attachment {
            name: name.into(),
            source: PathBuf::from(name),
            bytes: bytes.to_vec(),
        }
    }

    fn same(text: &str) -> String {
        text.to_string()
    }

    const INPUT: PageTakes = PageTakes {
        file_input: true,
        max_files: 3,
    };

    #[test]
    fn with_a_file_input_each_file_is_uploaded_as_it_is() {
        let files = [
            file("a.txt", b"hello\n"),
            file("b.png", &[0x89, b'P', 0, 1]),
        ];
        let plan = plan(&files, INPUT, &same).unwrap();
        assert_eq!(plan.uploads.len(), 2);
        assert_eq!(plan.uploads[1].bytes, vec![0x89, b'P', 0, 1]);
        assert!(plan.inline.is_empty());
        assert!(plan.sent.iter().all(|s| s.how == How::Upload));
        assert_eq!(plan.sent[1].size, 4);
    }

    #[test]
    fn files_over_the_cap_go_as_one_bundle_the_cap_counting_it() {
        let files: Vec<Attachment> = (0..5)
            .map(|i| file(&format!("f{i}.txt"), format!("text {i}\n").as_bytes()))
            .collect();
        let plan = plan(&files, INPUT, &same).unwrap();
        assert_eq!(plan.uploads.len(), 3);
        assert_eq!(plan.uploads[0].name, "f0.txt");
        assert!(plan.uploads[2].name.starts_with("keyless-bundle-"));
        assert!(plan.uploads[2].name.ends_with(".txt"));
        let bundle = String::from_utf8(plan.uploads[2].bytes.clone()).unwrap();
        assert!(bundle.contains("File f2.txt (7 bytes):\n```\ntext 2\n```\n"));
        assert!(bundle.contains("File f4.txt"));
        assert!(!bundle.contains("f1.txt"));
        let hows: Vec<How> = plan.sent.iter().map(|s| s.how).collect();
        assert_eq!(
            hows,
            [
                How::Upload,
                How::Upload,
                How::Bundle,
                How::Bundle,
                How::Bundle
            ]
        );
    }

    #[test]
    fn a_bundle_with_a_binary_file_is_a_zip_that_keeps_every_byte() {
        let binary: Vec<u8> = (0..=255u8).collect();
        let up = bundle(&[("a.bin", &binary), ("b.txt", b"hi")]);
        assert!(up.name.ends_with(".zip"));
        assert_eq!(&up.bytes[..4], b"PK\x03\x04");
        let at = up
            .bytes
            .windows(binary.len())
            .position(|w| w == binary.as_slice());
        assert!(at.is_some(), "the bytes are stored as they are");
        // The CRC of a known text (zip's own check value).
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn without_a_file_input_text_goes_inline_and_anything_else_is_refused() {
        let none = PageTakes {
            file_input: false,
            max_files: 3,
        };
        let plan = plan(&[file("notes.md", b"has ``` inside")], none, &same).unwrap();
        assert!(plan.uploads.is_empty());
        assert_eq!(
            plan.inline,
            "\n\nFile notes.md (14 bytes):\n````\nhas ``` inside\n````\n"
        );
        assert_eq!(plan.sent[0].how, How::Inline);
        let err = super::plan(&[file("x.png", &[0, 1, 2])], none, &same).unwrap_err();
        assert_eq!(err.code, Code::AttachmentNotSupported);
        assert!(err.reason.contains("x.png"));
        let big = vec![b'a'; INLINE_MAX_BYTES + 1];
        let err = super::plan(&[file("big.txt", &big)], none, &same).unwrap_err();
        assert_eq!(err.code, Code::AttachmentNotSupported);
    }

    #[test]
    fn text_is_redacted_before_it_leaves_in_any_form_binary_is_not() {
        let hide = |t: &str| t.replace("SECRET", "[redacted]");
        let files = [file("a.env", b"K=SECRET\n"), file("b.bin", b"SECRET\0")];
        let plan = plan(&files, INPUT, &hide).unwrap();
        assert_eq!(plan.uploads[0].bytes, b"K=[redacted]\n");
        assert_eq!(plan.uploads[1].bytes, b"SECRET\0");
        assert!(plan.sent[0].redacted && !plan.sent[1].redacted);
    }

    #[test]
    fn reading_refuses_a_missing_path_a_folder_and_a_name_given_twice() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), "y").unwrap();
        let ok = read(&[PathBuf::from("a.txt")], dir.path(), None).unwrap();
        assert_eq!(ok[0].name, "a.txt");
        assert_eq!(ok[0].bytes, b"x");
        for (paths, words) in [
            (vec!["missing.txt"], "missing.txt: no such file"),
            (vec!["sub"], "sub: it is a folder"),
            (vec!["a.txt", "sub/a.txt"], "named a.txt too"),
        ] {
            let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
            let err = read(&paths, dir.path(), None).unwrap_err();
            assert_eq!(err.code, Code::AttachmentUnreadable);
            assert!(err.reason.contains(words), "{}", err.reason);
        }
    }

    #[test]
    fn latin1_and_utf16_text_is_redacted_and_goes_back_in_its_own_encoding() {
        let hide = |t: &str| t.replace("SECRET", "[redacted]");
        let latin1 = b"# caf\xe9 \x93quoted\x94\r\nK=SECRET\n".to_vec();
        let mut utf16 = vec![0xff, 0xfe];
        utf16.extend("K=SECRET\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        let mut utf16be = vec![0xfe, 0xff];
        utf16be.extend("K=SECRET \u{e9}".encode_utf16().flat_map(u16::to_be_bytes));
        let files = [
            file("a.env", &latin1),
            file("b.txt", &utf16),
            file("c.txt", &utf16be),
        ];
        let plan = plan(&files, INPUT, &hide).unwrap();
        assert_eq!(
            plan.uploads[0].bytes,
            b"# caf\xe9 \x93quoted\x94\r\nK=[redacted]\n"
        );
        let mut want = vec![0xff, 0xfe];
        want.extend("K=[redacted]\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(plan.uploads[1].bytes, want);
        assert_eq!(
            decode(&plan.uploads[2].bytes),
            Some(("K=[redacted] \u{e9}".to_string(), Encoding::Utf16Be))
        );
        assert!(plan.sent.iter().all(|s| s.redacted));
        // Text with nothing to hide goes as it was, byte for byte.
        let plain = super::plan(&[file("d.txt", b"caf\xe9\n")], INPUT, &hide).unwrap();
        assert_eq!(plain.uploads[0].bytes, b"caf\xe9\n");
        // Inline, the text is the message's (UTF-8), redacted.
        let none = PageTakes {
            file_input: false,
            max_files: 3,
        };
        let inline = super::plan(&[file("a.env", &latin1)], none, &hide).unwrap();
        assert!(inline.inline.contains("caf\u{e9}"), "{}", inline.inline);
        assert!(inline.inline.contains("K=[redacted]") && !inline.inline.contains("SECRET"));
    }

    #[test]
    fn binary_stays_binary_whatever_it_starts_with() {
        assert_eq!(
            decode(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]),
            None
        );
        assert_eq!(decode(b"a\0b"), None);
        // A byte order mark before an odd length or a lone surrogate is not UTF-16 text.
        assert_eq!(decode(&[0xff, 0xfe, b'a']), None);
        assert_eq!(decode(&[0xff, 0xfe, 0x00, 0xd8]), None);
        assert_eq!(encode("\u{1F600}", Encoding::SingleByte), b"?");
    }

    #[test]
    fn a_link_inside_the_workspace_is_refused_one_outside_is_the_persons() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let mine = dir.path().join("mine");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("real.txt"), "mine").unwrap();
        std::os::unix::fs::symlink(mine.join("real.txt"), ws.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(&mine, ws.join("through")).unwrap();
        std::os::unix::fs::symlink(mine.join("real.txt"), mine.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(&ws, dir.path().join("ws-alias")).unwrap();
        std::fs::write(ws.join("sub/plain.txt"), "ok").unwrap();
        for given in [
            ws.join("notes.txt"),
            ws.join("through/real.txt"),
            PathBuf::from("ws-alias/notes.txt"),
        ] {
            let err = read(std::slice::from_ref(&given), dir.path(), Some(&ws)).unwrap_err();
            assert_eq!(err.code, Code::AttachmentUnreadable, "{given:?}");
            assert!(err.reason.contains("symbolic link"), "{}", err.reason);
        }
        let ok = read(
            &[mine.join("link.txt"), ws.join("sub/plain.txt")],
            dir.path(),
            Some(&ws),
        )
        .unwrap();
        assert_eq!(ok[0].bytes, b"mine");
        assert_eq!(ok[1].bytes, b"ok");
    }
}
