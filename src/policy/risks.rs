//! The network and the worst shapes: network programs, the files downloads write, shells
//! wired to sockets (`nc -e`, `ncat --exec`, `socat exec:`), fork bombs.

use std::sync::OnceLock;

use super::lookup::NameSet;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, basename, long_is};

const NETWORK: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "nc",
    "nc.traditional",
    "nc.openbsd",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "http",
    "https",
    "xh",
    "aria2c",
    "lynx",
    "links",
    "w3m",
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "tftp",
    "rsync",
    "ping",
    "dig",
    "nslookup",
    "host",
    "openssl",
    "gh",
    "git-remote-http",
    "busybox-wget",
    "invoke-webrequest",
    "iwr",
    "invoke-restmethod",
    "irm",
    "certutil",
    "bitsadmin",
    "tcpdump",
    "nmap",
    "wget2",
    "curlie",
    "axel",
    "lftp",
    "ncftp",
    "ncftpget",
    "rclone",
    "aws",
    "gsutil",
    "gcloud",
    "az",
    "s3cmd",
    "smbclient",
    "start-bitstransfer",
    "lwp-request",
    "lwp-download",
    "lwp-mirror",
    "ztcp",
    "zsocket",
];

/// libwww-perl's request programs, whose names are HTTP methods in capitals (`GET URL | sh`):
/// matched in their own letters, since `head` is another program.
const LWP_METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT"];

pub(super) fn is_network(program: &str) -> bool {
    // `NETWORK` in lower case, built once: every program on a line is asked about.
    static LOWER: OnceLock<NameSet<String>> = OnceLock::new();
    let lower = LOWER.get_or_init(|| NETWORK.iter().map(|n| n.to_ascii_lowercase()).collect());
    LWP_METHODS.contains(&program)
        || if program.bytes().any(|b| b.is_ascii_uppercase()) {
            lower.contains(&program.to_ascii_lowercase())
        } else {
            lower.contains(program)
        }
}

/// The verdict for a network program; records the files a download writes.
pub(super) fn network(name: &str, args: &[&str], ctx: &mut Ctx) -> Verdict {
    ctx.facts.network = true;
    let lower = name.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "nc" | "ncat" | "netcat" | "nc.traditional" | "nc.openbsd"
    ) && let Some(option) = args.iter().find(|a| {
        matches!(**a, "-e" | "-c")
            || ["exec", "sh-exec", "lua-exec"]
                .iter()
                .any(|o| long_is(a, o))
            || a.starts_with('-') && !a.starts_with("--") && a.contains(['e', 'c'])
    }) {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::ReverseShell,
            format!("{name} {option}: wires a program to a network socket (a remote shell)"),
        );
    }
    if lower == "socat"
        && args.iter().any(|a| {
            let l = a.to_ascii_lowercase();
            l.starts_with("exec:")
                || l.starts_with("system:")
                || l.contains(",exec:")
                || l.contains("exec:/")
        })
    {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::ReverseShell,
            "socat exec:/system: wires a program to a network socket (a remote shell)",
        );
    }
    if matches!(
        lower.as_str(),
        "curl"
            | "wget"
            | "wget2"
            | "fetch"
            | "aria2c"
            | "http"
            | "https"
            | "xh"
            | "curlie"
            | "axel"
            | "lwp-download"
            | "iwr"
            | "invoke-webrequest"
    ) {
        ctx.facts.downloads.extend(download_targets(&lower, args));
    }
    Verdict::new(
        Tier::Risky,
        ReasonKind::Network,
        format!("network access: {name}"),
    )
}

/// Files a download writes, by base name (`*` when it cannot be known).
fn download_targets(name: &str, args: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    let urls: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| a.contains("://") || !a.starts_with('-') && a.contains('.'))
        .collect();
    let url_name = |url: &str| {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        let base = basename(path.trim_end_matches('/'));
        if base.is_empty() || base.contains('$') {
            "*".to_string()
        } else {
            base.to_string()
        }
    };
    let mut wrote_stdout = false;
    // Records an output file's name; `true` when the output is standard output.
    let output = |file: &str, out: &mut Vec<String>| {
        if file == "-" {
            return true;
        }
        out.push(basename(file).to_string());
        false
    };
    while i < args.len() {
        let a = args[i];
        let value = || args.get(i + 1).copied().unwrap_or("*");
        match a {
            // The output file: wget's is -O (its -o is a log), everyone else's -o.
            "-o" | "--output" | "--output-document" | "-OutFile"
                if !(name == "wget" && a == "-o") =>
            {
                wrote_stdout |= output(value(), &mut out);
                i += 1;
            }
            "-O" if name == "wget" => {
                wrote_stdout |= output(value(), &mut out);
                i += 1;
            }
            "-O" | "--remote-name" | "--remote-name-all" => {
                out.extend(urls.iter().map(|u| url_name(u)))
            }
            _ if a.starts_with("--output=") || a.starts_with("--output-document=") => {
                out.push(basename(a.split_once('=').map_or("*", |(_, v)| v)).to_string());
            }
            _ if a.starts_with("-o") && a.len() > 2 && name == "curl" => {
                out.push(basename(&a[2..]).to_string())
            }
            _ if name == "curl"
                && a.starts_with('-')
                && !a.starts_with("--")
                && a.ends_with('o') =>
            {
                out.push(basename(value()).to_string());
                i += 1;
            }
            _ if name == "curl"
                && a.starts_with('-')
                && !a.starts_with("--")
                && a.ends_with('O') =>
            {
                out.extend(urls.iter().map(|u| url_name(u)));
            }
            _ if a.starts_with("-O") && a.len() > 2 && name == "wget" => {
                if &a[2..] == "-" {
                    wrote_stdout = true;
                } else {
                    out.push(basename(&a[2..]).to_string());
                }
            }
            _ if a.starts_with('-')
                && !a.starts_with("--")
                && a.ends_with('O')
                && name == "wget" =>
            {
                // `-qO file` and `-qO -`.
                let v = value();
                if v == "-" {
                    wrote_stdout = true;
                } else {
                    out.push(basename(v).to_string());
                }
                i += 1;
            }
            _ if a.starts_with("-qO") || a.starts_with("-nv") && a.contains('O') => {
                if a.ends_with('-') {
                    wrote_stdout = true
                } else {
                    out.push("*".to_string())
                }
            }
            _ => {}
        }
        i += 1;
    }
    if name == "wget" && out.is_empty() && !wrote_stdout {
        out.extend(urls.iter().map(|u| url_name(u)));
    }
    out
}

/// An argument that names code somewhere else, which a runner fetches before running it: a
/// URL (`https://…/x.ts`, `git+https://…`), a registry reference (`npm:x`, `jsr:@std/x`,
/// `github:o/r`), or a module at a version (`example.com/tool@latest`, `pkg@1.2.3`).
pub(super) fn is_remote(arg: &str) -> bool {
    let lower = arg.to_ascii_lowercase();
    lower.contains("://")
        || ["npm:", "jsr:", "github:", "gh:", "git+", "gitlab:", "pypi:"]
            .iter()
            .any(|p| lower.starts_with(p))
        || arg.rsplit_once('@').is_some_and(|(module, version)| {
            !module.is_empty()
                && !module.ends_with('/')
                && !version.is_empty()
                && !version.contains('/')
        })
}

/// Matches `name(){ name|name& };name` and its spellings.
pub(super) fn is_fork_bomb(source: &str) -> bool {
    // `(){` needs all three; most lines have none.
    if !(source.contains('(') && source.contains(')') && source.contains('{')) {
        return false;
    }
    let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = compact.find("(){") else {
        return false;
    };
    let name = &compact[..open];
    let name = name.rsplit([';', '&', '|']).next().unwrap_or(name);
    !name.is_empty() && compact[open..].contains(&format!("{name}|{name}&"))
}
