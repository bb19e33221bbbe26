//! Inline code read for what it does, whatever language it is in. Code on a command line is
//! at least Risky (the classifier does not run an interpreter in its head); some shapes are
//! Denied in every language, found by the words every language names them with:
//! - a shell wired to a socket: code that opens a socket and runs a process or duplicates its
//!   descriptors (Python's `socket` + `pty.spawn`/`dup2`/`subprocess`, Perl's `socket` +
//!   `exec`, PHP's `fsockopen` + `exec`, Ruby's `TCPSocket` + `exec`, Node's `net` +
//!   `child_process`, gawk's `/inet/tcp` + `|&`, PowerShell's `TCPClient` + `iex`);
//! - code that fetches code and runs it (`exec(urlopen(…))`, `iex (…).DownloadString(…)`);
//! - a delete of `/`, a home or a system folder (`shutil.rmtree('/')`, `rm_rf(Dir.home)`,
//!   `fs.rmSync(os.homedir(), …)`);
//! - a command the code hands to a shell that is Denied as a command line
//!   (`os.system('rm -rf ~')`, `` `shutdown now` ``).
//!
//! Code that fetches from the network marks the line as fetching, so piping its output into a
//! shell is Denied as `curl … | sh` is.

use std::sync::{Mutex, OnceLock};

use aho_corasick::AhoCorasick;

use super::paths;
use super::places;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict};

/// Words that open a network socket.
const SOCKETS: &[&str] = &[
    "socket",
    "sockopen",
    "tcpclient",
    "/inet/tcp",
    "/inet/udp",
    "/inet4/",
    "/inet6/",
    "/dev/tcp/",
    "/dev/udp/",
    "net.connect",
    "createconnection",
    "require('net')",
    "require(\"net\")",
    "node:net",
    "from 'net'",
    "from \"net\"",
    "ztcp",
];

/// Words that run a process, a shell, or code.
const PROCESSES: &[&str] = &[
    "subprocess",
    "dup2",
    "pty.spawn",
    "popen",
    "exec",
    "spawn",
    "system",
    "/bin/sh",
    "/bin/bash",
    "cmd.exe",
    "child_process",
    "passthru",
    "proc_open",
    "iex",
    "invoke-expression",
    "|&",
    "getline",
    "fork",
    "eval",
];

/// Words that fetch over the network.
const FETCHES: &[&str] = &[
    "://",
    "urlopen",
    "urllib",
    "requests.get",
    "http.get",
    "https.get",
    "fetch(",
    "lwp::",
    "getprint",
    "getstore",
    "open-uri",
    "net::http",
    "downloadstring",
    "downloadfile",
    "webclient",
    "invoke-webrequest",
    "invoke-restmethod",
    "httpclient",
];

/// Words that run code they are given (not only start a process).
const EVALS: &[&str] = &[
    "exec(",
    "exec ",
    "eval",
    "iex",
    "invoke-expression",
    "execfile",
    "loadstring",
    "system(",
    "os.system",
    "subprocess",
    "child_process",
    "| sh",
    "|sh",
    "| bash",
    "|bash",
];

/// Calls that delete a tree.
const DELETES: &[&str] = &[
    "rmtree",
    "rm_rf",
    "rm_r",
    "remove_tree",
    "rmsync",
    "rimraf",
    "remove_dir_all",
    "removeall",
    "remove-item",
    "deltree",
    "fs.rm(",
    "rmdir",
    "file::path",
];

/// Ways code names the home folder.
const HOMES: &[&str] = &[
    "expanduser('~')",
    "expanduser(\"~\")",
    "path.home()",
    "homedir()",
    "dir.home",
    "environ['home']",
    "environ[\"home\"]",
    "env['home']",
    "env[\"home\"]",
    "$env{home}",
    "getenv('home')",
    "getenv(\"home\")",
    "$env:userprofile",
    "$home",
];

/// Loops that fork without end, blanks removed (`fork while fork`, `while True: os.fork()`).
const FORK_LOOPS: &[&str] = &[
    "forkwhilefork",
    "while(1)fork",
    "while(1){fork",
    "while(true){fork",
    "while(true)fork",
    "whiletrue:os.fork",
    "while1:os.fork",
    "for(;;)fork",
    "for(;;){fork",
    "loop{fork",
    "loop{process.fork",
];

/// Whether `text` holds one of `words`, in one pass: each list's automaton is built once, the
/// first time it is asked for (the lists are this file's constants, told apart by address).
fn any(text: &str, words: &'static [&'static str]) -> bool {
    type Automata = Mutex<Vec<(usize, Option<AhoCorasick>)>>;
    static AUTOMATA: OnceLock<Automata> = OnceLock::new();
    let key = words.as_ptr() as usize;
    let automata = AUTOMATA.get_or_init(|| Mutex::new(Vec::new()));
    let Ok(mut automata) = automata.lock() else {
        return words.iter().any(|w| text.contains(w));
    };
    let at = match automata.iter().position(|(k, _)| *k == key) {
        Some(at) => at,
        None => {
            automata.push((key, AhoCorasick::new(words).ok()));
            automata.len() - 1
        }
    };
    match &automata[at].1 {
        Some(automaton) => automaton.is_match(text),
        None => words.iter().any(|w| text.contains(w)),
    }
}

/// The verdict for inline code given to `name`: Risky at least, Denied for the shapes above.
pub(super) fn code(name: &str, code: &str, ctx: &mut Ctx) -> Verdict {
    let floor = Verdict::new(
        Tier::Risky,
        ReasonKind::InlineCode,
        format!("{name}: runs inline code"),
    );
    match danger(name, code, ctx) {
        Some(denied) => floor.max(denied),
        None => floor,
    }
}

/// What in inline code is Denied, if anything; marks the line as fetching when the code does.
pub(super) fn danger(name: &str, code: &str, ctx: &mut Ctx) -> Option<Verdict> {
    let lower = code.to_ascii_lowercase();
    let fetches = any(&lower, FETCHES);
    if fetches {
        ctx.facts.network = true;
    }
    if any(&lower, SOCKETS) && any(&lower, PROCESSES) {
        return Some(Verdict::new(
            Tier::Denied,
            ReasonKind::ReverseShell,
            format!("{name}: the code opens a socket and runs a process on it (a remote shell)"),
        ));
    }
    if fetches && lower.contains("://") && any(&lower, EVALS) {
        return Some(Verdict::new(
            Tier::Denied,
            ReasonKind::RemoteCode,
            format!("{name}: the code fetches code from the network and runs it"),
        ));
    }
    let compact: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    if any(&compact, FORK_LOOPS) {
        return Some(Verdict::new(
            Tier::Denied,
            ReasonKind::ForkBomb,
            format!("{name}: the code forks without end (a fork bomb)"),
        ));
    }
    let literals = string_literals(code);
    if any(&lower, DELETES)
        && (any(&lower, HOMES)
            || literals
                .iter()
                .any(|l| places::catastrophic(&paths::resolve(l, &ctx.cwd))))
    {
        return Some(Verdict::new(
            Tier::Denied,
            ReasonKind::Catastrophic,
            format!("{name}: the code deletes /, a home or a system folder"),
        ));
    }
    if any(&lower, PROCESSES) || code.contains('`') {
        return handed_to_a_shell(name, &literals, ctx);
    }
    None
}

/// A Denied command line among the strings code hands to a shell: each string, and all of
/// them in a row (`subprocess.run(['rm', '-rf', '/'])`).
fn handed_to_a_shell(name: &str, literals: &[String], ctx: &mut Ctx) -> Option<Verdict> {
    let joined = literals.join(" ");
    let candidates = literals
        .iter()
        .filter(|l| l.contains(' '))
        .map(String::as_str)
        .chain(std::iter::once(joined.as_str()));
    for line in candidates {
        let mut found = Vec::new();
        (ctx.nest)(line, ctx.depth + 1, &ctx.cwd, &ctx.known, &mut found);
        if let Some(denied) = found.into_iter().find(|s| s.tier == Tier::Denied) {
            let verdict = Verdict::new(
                Tier::Denied,
                denied.kind,
                format!("{name}: the code runs `{}`: {}", denied.text, denied.reason),
            );
            ctx.out.push(denied);
            return Some(verdict);
        }
    }
    None
}

/// The text of every string literal in code: between matching `'`, `"` or `` ` `` (a
/// backslash escapes the next character).
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut literal = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            if escaped {
                literal.push(d);
                escaped = false;
            } else if d == '\\' {
                escaped = true;
            } else if d == c {
                break;
            } else {
                literal.push(d);
            }
        }
        out.push(literal);
    }
    out
}

/// PowerShell's `-EncodedCommand`: base64 of UTF-16LE text.
pub(super) fn decode_encoded_command(text: &str) -> Option<String> {
    let bytes = super::decode::decode_base64(text)?;
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|pair| u16::from_le_bytes([pair[0], *pair.get(1).unwrap_or(&0)]))
        .collect();
    String::from_utf16(&units).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_encoded_commands() {
        assert_eq!(
            string_literals(r#"os.system('rm -rf ~'); x = "a\"b""#),
            vec!["rm -rf ~".to_string(), "a\"b".to_string()]
        );
        // "ls" in UTF-16LE, base64.
        assert_eq!(decode_encoded_command("bABzAA==").as_deref(), Some("ls"));
    }
}
