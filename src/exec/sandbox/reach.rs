//! Where the sandbox's proxy goes: its **allow-list**, and the two checks it makes on every
//! destination.
//!
//! The list is, by default, the package registries and git hosts of the ecosystems keyless
//! knows ([`BUILT_IN`]) and the registries the user's tools are configured with
//! (`registries.rs`); `Sandbox.NetworkAllow` in keyless.json adds entries, and
//! `Sandbox.NetworkAllowOnly` replaces that default (`[]`: no host at all). Every entry keeps
//! where it came from, for `keyless status`.
//!
//! 1. **Before any lookup** ([`AllowList::admit`]): the name a command asked for must be on the
//!    list, or no DNS query is made for it at all (a name is a message: `secret.attacker.example`
//!    tells the attacker's name server the secret). An address written as the host (`10.0.0.5`,
//!    `0x7f.1`, `[::1]`) needs an entry that covers it, or `*`.
//! 2. **After the lookup** ([`AllowList::check`], on each address the name resolved to, which is
//!    the address connected to): an address a command never reaches (this machine, link-local,
//!    a cloud's metadata service, multicast, broadcast, and every IPv6 spelling of one,
//!    `hosts::address`) is refused whatever the list says. An internal address (a private
//!    network, CGNAT, unique-local, documentation, benchmarking, reserved) is refused unless
//!    the entry that admitted the host names it (`registry.corp.example`, `*.corp.example`:
//!    the list names that host, and the network's own DNS says where it lives, as a mirror or a
//!    split-horizon DNS does) or an address entry covers it (`10.0.0.0/8`). So `*` reaches any
//!    public host, never a private one that the list does not name.
//!
//! What this module does not do: carry bytes (`proxy.rs`), or classify addresses
//! (`hosts::address`).

use std::fmt;
use std::net::IpAddr;
use std::path::Path;

use crate::config::SandboxConfig;
use crate::hosts::address::{self, Finding};
use crate::hosts::{BadHost, Host, Pattern};

/// The package registries and git hosts of the ecosystems keyless knows (those whose build
/// caches the world gives a command, `home.rs`), by ecosystem. Each is a host builds download
/// from. Left out on purpose: general storage and upload services (cloud buckets such as
/// `storage.googleapis.com` or `*.s3.amazonaws.com`, paste sites, `api.github.com`), where
/// anyone can put what a command sends; and the toolchains' own download hosts
/// (`static.rust-lang.org`), as the toolchains are read-only in the world anyway.
pub const BUILT_IN: &[(&str, &[&str])] = &[
    (
        "Rust: crates.io",
        &["crates.io", "index.crates.io", "static.crates.io"],
    ),
    (
        "JavaScript: npm, yarn, pnpm, bun; node-gyp's headers",
        &[
            "registry.npmjs.org",
            "registry.yarnpkg.com",
            "repo.yarnpkg.com",
            "nodejs.org",
        ],
    ),
    ("Deno", &["deno.land", "jsr.io", "npm.jsr.io"]),
    ("Python: PyPI", &["pypi.org", "files.pythonhosted.org"]),
    (
        "Go: its module proxy",
        &["proxy.golang.org", "sum.golang.org"],
    ),
    (
        "Java: Maven Central, Gradle",
        &[
            "repo.maven.apache.org",
            "repo1.maven.org",
            "plugins.gradle.org",
            "plugins-artifacts.gradle.org",
            "services.gradle.org",
            "downloads.gradle.org",
        ],
    ),
    (
        ".NET: NuGet",
        &["api.nuget.org", "www.nuget.org", "nuget.org"],
    ),
    ("Ruby: RubyGems", &["rubygems.org", "index.rubygems.org"]),
    (
        "git hosts: GitHub, GitLab, Bitbucket",
        &[
            "github.com",
            "codeload.github.com",
            "objects.githubusercontent.com",
            "release-assets.githubusercontent.com",
            "raw.githubusercontent.com",
            "gitlab.com",
            "bitbucket.org",
        ],
    ),
];

/// Where an entry of the list came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// keyless's own list, for an ecosystem.
    BuiltIn(&'static str),
    /// A tool's settings: the tool, and the file or variable.
    Tool { tool: &'static str, place: String },
    /// keyless.json, by its key.
    Config(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::BuiltIn(ecosystem) => write!(f, "built in ({ecosystem})"),
            Source::Tool { tool, place } => write!(f, "{tool}'s settings ({place})"),
            Source::Config(key) => write!(f, "keyless.json {key}"),
        }
    }
}

/// One entry and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowed {
    pub pattern: Pattern,
    pub from: Source,
}

/// The hosts the proxy reaches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    entries: Vec<Allowed>,
}

/// The key that adds to the list.
pub const ADD_KEY: &str = "Sandbox.NetworkAllow";
/// The key that replaces the default list.
pub const ONLY_KEY: &str = "Sandbox.NetworkAllowOnly";

impl AllowList {
    /// The list for `config` on this machine: keyless.json's, and unless it replaces them, the
    /// built-in entries and the registries of the tools configured in `env` and under `home`
    /// (never in a settings file under `writable`, which a command could have written).
    pub fn of(
        config: &SandboxConfig,
        env: &[(String, String)],
        home: Option<&Path>,
        writable: &[std::path::PathBuf],
    ) -> AllowList {
        let tools = if config.network_allow_only.is_none() {
            super::registries::configured(env, home, writable)
        } else {
            Vec::new()
        };
        AllowList::from_parts(config, tools)
    }

    /// The list from `config` and what the tools' settings gave (pure).
    pub fn from_parts(config: &SandboxConfig, tools: Vec<super::registries::Found>) -> AllowList {
        let mut list = AllowList::default();
        match &config.network_allow_only {
            Some(only) => {
                for pattern in only {
                    list.push(pattern.clone(), Source::Config(ONLY_KEY));
                }
            }
            None => {
                for (ecosystem, hosts) in BUILT_IN {
                    for host in *hosts {
                        list.push(
                            Pattern::Name((*host).to_string()),
                            Source::BuiltIn(ecosystem),
                        );
                    }
                }
                for found in tools {
                    list.push(
                        found.pattern,
                        Source::Tool {
                            tool: found.tool,
                            place: found.place,
                        },
                    );
                }
            }
        }
        for pattern in &config.network_allow {
            list.push(pattern.clone(), Source::Config(ADD_KEY));
        }
        list
    }

    fn push(&mut self, pattern: Pattern, from: Source) {
        if !self.entries.iter().any(|e| e.pattern == pattern) {
            self.entries.push(Allowed { pattern, from });
        }
    }

    /// Every entry, in order, with where it came from.
    pub fn entries(&self) -> &[Allowed] {
        &self.entries
    }

    /// Whether `*` is on the list.
    pub fn any(&self) -> bool {
        self.entries.iter().any(|e| e.pattern == Pattern::Any)
    }

    /// The first check, before any lookup: the entry that lets the proxy look up or connect to
    /// `host` (the host part of a request), most specific first (`*` last).
    pub fn admit(&self, host: &str) -> Result<(Host, &Allowed), Refusal> {
        let host = Host::parse(host).map_err(Refusal::NotAHost)?;
        let specific = self
            .entries
            .iter()
            .find(|e| e.pattern != Pattern::Any && e.pattern.admits(&host));
        let by = specific
            .or_else(|| self.entries.iter().find(|e| e.pattern == Pattern::Any))
            .ok_or(match host {
                Host::Name(_) => Refusal::NotListed,
                Host::Address(_) => Refusal::AddressNotListed,
            })?;
        Ok((host, by))
    }

    /// The second check, on an address the host resolved to (or was): refused when a command
    /// never reaches it, or when it is internal and neither the entry `by` names the host nor an
    /// address entry covers it. `own` holds this machine's addresses.
    pub fn check(&self, ip: IpAddr, by: &Allowed, own: &[IpAddr]) -> Result<(), Refusal> {
        match address::classify(ip, own) {
            None => Ok(()),
            Some(found) if found.never() => Err(Refusal::Never(found)),
            Some(_) if by.pattern.names() || self.entries.iter().any(|e| e.pattern.covers(ip)) => {
                Ok(())
            }
            Some(found) => Err(Refusal::Internal(found)),
        }
    }
}

/// Why the proxy refused a destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A name not on the allow-list: it was not looked up.
    NotListed,
    /// An address given as the host that no entry covers.
    AddressNotListed,
    /// An address no configuration opens.
    Never(Finding),
    /// An internal address that no entry names or covers.
    Internal(Finding),
    /// The request's host is no host.
    NotAHost(BadHost),
    /// A plain HTTP request whose `Host` header names another host than the request.
    OtherHost(String),
    /// A tunnel whose TLS ClientHello asks for another server than the tunnel's host.
    OtherServerName(String),
    /// A tunnel whose first bytes are TLS but no ClientHello that can be read.
    UnreadableHello,
    /// A tunnel to a named host whose first bytes are no TLS: a plain HTTP request in it (in any
    /// spelling) could name any site behind the same front end.
    PlainHttpInTunnel,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotListed => write!(
                f,
                "not on the allow-list, so not even looked up; {ADD_KEY} in keyless.json adds a host"
            ),
            Refusal::AddressNotListed => write!(
                f,
                "an address no entry of the allow-list covers; {ADD_KEY} in keyless.json adds an address or a range"
            ),
            Refusal::Never(found) => {
                write!(f, "{found}, which commands never reach")
            }
            Refusal::Internal(found) => write!(
                f,
                "{found}, reachable only when {ADD_KEY} in keyless.json names the host or covers the address"
            ),
            Refusal::NotAHost(why) => write!(f, "no host: {why}"),
            Refusal::OtherHost(named) => write!(
                f,
                "its Host header names another host ({named:?}); a plain http:// request goes only to the host it names"
            ),
            Refusal::OtherServerName(named) => write!(
                f,
                "its TLS server name is another host ({named:?}); a tunnel goes only to the host it was opened to"
            ),
            Refusal::UnreadableHello => write!(
                f,
                "its TLS ClientHello cannot be read, so the server it asks for is unknown"
            ),
            Refusal::PlainHttpInTunnel => write!(
                f,
                "a tunnel to a host carries TLS only (HTTPS, git over HTTPS): what else it carried, a plain HTTP request above all, could name another site behind the same address; a plain http:// request goes through the proxy as itself"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::sandbox::registries::Found;

    fn config(allow: &[&str], only: Option<&[&str]>) -> SandboxConfig {
        let parse = |list: &[&str]| -> Vec<Pattern> {
            list.iter().map(|t| Pattern::parse(t).unwrap()).collect()
        };
        SandboxConfig {
            network_allow: parse(allow),
            network_allow_only: only.map(parse),
            ..SandboxConfig::default()
        }
    }

    fn reach(list: &AllowList, host: &str, ip: &str) -> Result<(), Refusal> {
        let own: Vec<IpAddr> = vec!["192.168.1.20".parse().unwrap()];
        let (_, by) = list.admit(host)?;
        list.check(ip.parse().unwrap(), by, &own)
    }

    #[test]
    fn the_default_list_is_the_registries_and_git_hosts_and_the_tools_own() {
        let tools = vec![Found {
            pattern: Pattern::parse("npm.corp.example").unwrap(),
            tool: "npm",
            place: "/home/u/.npmrc".into(),
        }];
        let list = AllowList::from_parts(&config(&["*.lan.example"], None), tools);
        let shown: Vec<String> = list
            .entries()
            .iter()
            .map(|e| format!("{} <- {}", e.pattern, e.from))
            .collect();
        for line in [
            "crates.io <- built in (Rust: crates.io)",
            "registry.npmjs.org <- built in (JavaScript: npm, yarn, pnpm, bun; node-gyp's headers)",
            "pypi.org <- built in (Python: PyPI)",
            "github.com <- built in (git hosts: GitHub, GitLab, Bitbucket)",
            "npm.corp.example <- npm's settings (/home/u/.npmrc)",
            "*.lan.example <- keyless.json Sandbox.NetworkAllow",
        ] {
            assert!(shown.contains(&line.to_string()), "{line}: {shown:#?}");
        }
        assert!(!list.any());
        assert_eq!(reach(&list, "registry.npmjs.org", "104.16.1.34"), Ok(()));
        assert_eq!(reach(&list, "NPM.corp.example.", "104.16.1.35"), Ok(()));
        assert_eq!(
            reach(&list, "evil.example", "1.2.3.4"),
            Err(Refusal::NotListed)
        );
        assert_eq!(
            reach(&list, "lan.example", "1.2.3.4"),
            Err(Refusal::NotListed)
        );
        // A name on the list lives where the network's DNS says, a mirror on an internal
        // address included (this machine's test mirrors answer 203.0.113.80)…
        assert_eq!(reach(&list, "pypi.org", "203.0.113.80"), Ok(()));
        assert_eq!(reach(&list, "git.lan.example", "10.0.0.7"), Ok(()));
        // … but never on this machine or a metadata service.
        assert!(matches!(
            reach(&list, "pypi.org", "127.0.0.1"),
            Err(Refusal::Never(_))
        ));
        assert!(matches!(
            reach(&list, "pypi.org", "::ffff:169.254.169.254"),
            Err(Refusal::Never(_))
        ));
        assert!(matches!(
            reach(&list, "pypi.org", "192.168.1.20"),
            Err(Refusal::Never(_))
        ));
        // An address as the host needs an entry that covers it.
        assert_eq!(
            reach(&list, "140.82.112.3", "140.82.112.3"),
            Err(Refusal::AddressNotListed)
        );
        assert_eq!(
            reach(&list, "0x7f.1", "127.0.0.1"),
            Err(Refusal::AddressNotListed)
        );
    }

    #[test]
    fn only_replaces_the_default_and_any_host_never_means_an_internal_one() {
        let list = AllowList::from_parts(&config(&["10.0.0.0/8"], Some(&["*"])), Vec::new());
        assert_eq!(
            list.entries()
                .iter()
                .map(|e| e.pattern.to_string())
                .collect::<Vec<_>>(),
            ["*", "10.0.0.0/8"]
        );
        assert!(list.any());
        assert_eq!(reach(&list, "anything.example", "93.184.216.34"), Ok(()));
        assert_eq!(reach(&list, "93.184.216.34", "93.184.216.34"), Ok(()));
        // `*` reaches no internal address on its own; the range covers its own.
        assert_eq!(reach(&list, "intranet.example", "10.9.9.9"), Ok(()));
        assert_eq!(reach(&list, "10.9.9.9", "10.9.9.9"), Ok(()));
        assert!(matches!(
            reach(&list, "intranet.example", "192.168.5.5"),
            Err(Refusal::Internal(_))
        ));
        assert!(matches!(
            reach(&list, "rebind.example", "fd00::1"),
            Err(Refusal::Internal(_))
        ));
        assert!(matches!(
            reach(&list, "2130706433", "127.0.0.1"),
            Err(Refusal::Never(_))
        ));
        assert!(matches!(
            reach(&list, "[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe"),
            Err(Refusal::Never(_))
        ));
        // An empty replacement reaches nothing.
        let none = AllowList::from_parts(&config(&[], Some(&[])), Vec::new());
        assert!(none.entries().is_empty());
        assert_eq!(
            reach(&none, "crates.io", "1.2.3.4"),
            Err(Refusal::NotListed)
        );
    }

    #[test]
    fn a_refusal_says_why_and_which_key_allows_it() {
        assert!(
            Refusal::NotListed
                .to_string()
                .contains("not even looked up")
        );
        assert!(
            Refusal::NotListed
                .to_string()
                .contains("Sandbox.NetworkAllow in keyless.json")
        );
        let list = AllowList::from_parts(&config(&["*"], None), Vec::new());
        let never = reach(&list, "x.example", "100.100.100.200").unwrap_err();
        assert_eq!(
            never.to_string(),
            "a cloud metadata service (Alibaba Cloud), which commands never reach"
        );
        let internal = reach(&list, "x.example", "172.20.0.1").unwrap_err();
        assert!(
            internal
                .to_string()
                .contains("a private network address, reachable only when Sandbox.NetworkAllow"),
            "{internal}"
        );
    }
}
