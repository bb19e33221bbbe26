//! Host names and addresses as the sandbox's proxy reads them, and the entries of its allow-list
//! (pure: text in, value out).
//!
//! A destination a command names ([`Host::parse`]) is either a **name**, normalised the way a
//! resolver compares names (ASCII letter case folded, one trailing dot dropped, a Unicode label
//! in its punycode form), or an **address** in any spelling the system's resolver accepts:
//! glibc's `getaddrinfo` reads `127.1`, `0x7f.1`, `2130706433` and `017700000001` as
//! 127.0.0.1 (`inet_aton`'s forms), so they are addresses here too, never names to look up.
//!
//! An entry of the allow-list ([`Pattern`]) is a name (`registry.npmjs.org`), every name below
//! a suffix (`*.example.com`, which does not hold `example.com` itself), an address or a range
//! (`10.0.0.5`, `10.0.0.0/8`, `fd12::/16`), or `*`, any host. What kind of place an address is
//! (this machine, a cloud's metadata service, a private network …) is `address.rs`.
//!
//! What this module does not do: resolve a name, connect, or decide what the allow-list holds
//! (the sandbox's `reach.rs` does, from the configuration and the tools' settings).

pub(crate) mod address;

use std::fmt;
// `core::net`: the address types alone, no socket (this module is pure).
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The longest name DNS carries (RFC 1035: 255 octets on the wire, 253 characters as text).
const MAX_NAME: usize = 253;
/// The longest label of a name (RFC 1035).
const MAX_LABEL: usize = 63;

/// A destination as a command names it, normalised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// A DNS name: ASCII, lower case, without a trailing dot, Unicode labels in punycode.
    Name(String),
    /// An address, whatever its spelling was.
    Address(IpAddr),
}

/// Why a text is no host.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadHost {
    #[error("it is empty")]
    Empty,
    #[error("{0:?} is not a host name (letters, digits, '-' and '_' in dot-separated labels)")]
    NotAName(String),
    #[error("{0:?} is longer than a host name can be")]
    TooLong(String),
    #[error("{0:?} is not an IPv6 address")]
    NotAnAddress(String),
    #[error("{0:?} is not host:port")]
    NotAnAuthority(String),
}

impl Host {
    /// Reads `text` (the host part of `host:port`, an IPv6 address with or without its
    /// brackets) as a resolver would.
    pub fn parse(text: &str) -> Result<Host, BadHost> {
        if text.is_empty() {
            return Err(BadHost::Empty);
        }
        if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            return ipv6(inner).map(IpAddr::V6).map(Host::Address);
        }
        if text.contains(':') {
            return ipv6(text).map(IpAddr::V6).map(Host::Address);
        }
        let name = normalise(text)?;
        if let Some(v4) = inet_aton(&name) {
            return Ok(Host::Address(IpAddr::V4(v4)));
        }
        check_labels(&name)?;
        Ok(Host::Name(name))
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(name) => f.write_str(name),
            Host::Address(IpAddr::V6(v6)) => write!(f, "[{v6}]"),
            Host::Address(ip) => write!(f, "{ip}"),
        }
    }
}

/// An IPv6 address; a zone (`fe80::1%eth0`) is dropped, as it does not change what the address
/// is.
fn ipv6(text: &str) -> Result<Ipv6Addr, BadHost> {
    let bare = text
        .split_once('%')
        .map_or(text, |(address, _zone)| address);
    bare.parse()
        .map_err(|_| BadHost::NotAnAddress(text.to_string()))
}

/// The name as a resolver compares it: Unicode labels to punycode (UTS 46, as browsers and
/// curl do before they ask), ASCII lower case, one trailing dot dropped.
fn normalise(text: &str) -> Result<String, BadHost> {
    let ascii = if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        idna::domain_to_ascii(text).map_err(|_| BadHost::NotAName(text.to_string()))?
    };
    let name = ascii.strip_suffix('.').unwrap_or(&ascii).to_string();
    if name.is_empty() {
        return Err(BadHost::NotAName(text.to_string()));
    }
    Ok(name)
}

/// Every label is 1 to 63 letters, digits, `-` or `_`, and the whole fits DNS.
fn check_labels(name: &str) -> Result<(), BadHost> {
    if name.len() > MAX_NAME {
        return Err(BadHost::TooLong(name.to_string()));
    }
    let fits = |label: &str| {
        (1..=MAX_LABEL).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if name.split('.').all(fits) {
        Ok(())
    } else {
        Err(BadHost::NotAName(name.to_string()))
    }
}

/// An IPv4 address in every spelling glibc's `inet_aton` (and so `getaddrinfo`) reads: one to
/// four parts, each decimal, octal (a leading `0`) or hexadecimal (`0x`); the last part fills
/// the bytes the others left (`127.1` is 127.0.0.1, `2130706433` too).
fn inet_aton(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let mut values = Vec::with_capacity(parts.len());
    for part in parts {
        values.push(number(part)?);
    }
    let (last, first) = values.split_last()?;
    if first.iter().any(|v| *v > 0xff) {
        return None;
    }
    let room = 32 - 8 * first.len() as u32;
    if u64::from(*last) >> room != 0 {
        return None;
    }
    let mut value = *last;
    for (i, byte) in first.iter().enumerate() {
        value |= byte << (24 - 8 * i as u32);
    }
    Some(Ipv4Addr::from(value))
}

/// One part of an `inet_aton` address: starts with a digit, then C's `strtoul` base 0, all of
/// it consumed, at most 32 bits.
fn number(part: &str) -> Option<u32> {
    let (digits, radix) = match part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None if part.len() > 1 && part.starts_with('0') => (&part[1..], 8),
        None => (part, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u32::from_str_radix(digits, radix).ok()
}

/// One entry of the proxy's allow-list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `*`: any host (an address is still classified: never this machine or an internal one
    /// that no other entry covers).
    Any,
    /// One name, exactly.
    Name(String),
    /// `*.suffix`: every name that ends with `.suffix`; not the suffix itself.
    Suffix(String),
    /// One address.
    Address(IpAddr),
    /// `address/bits`: every address in the range.
    Range(IpAddr, u8),
}

impl Pattern {
    /// Reads one entry as the configuration writes it; the error says what is allowed.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let text = text.trim();
        if text == "*" {
            return Ok(Pattern::Any);
        }
        if let Some((_scheme, rest)) = text.split_once("://") {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            return Err(format!(
                "{text:?} is a URL; give its host alone, like {host:?}"
            ));
        }
        if let Some((base, bits)) = text.split_once('/') {
            return range(text, base, bits);
        }
        if let Some(suffix) = text.strip_prefix("*.") {
            return match Host::parse(suffix) {
                Ok(Host::Name(name)) => Ok(Pattern::Suffix(name)),
                Ok(Host::Address(_)) => Err(format!(
                    "{text:?} puts a wildcard before an address; a range is written like \"10.0.0.0/8\""
                )),
                Err(e) => Err(format!("{text:?}: {e}")),
            };
        }
        if text.contains('*') {
            return Err(format!(
                "{text:?} has a '*' where none can be: only a leading \"*.\" (\"*.example.com\") or \"*\" alone"
            ));
        }
        if text.matches(':').count() == 1 && !text.starts_with('[') {
            let host = text.split(':').next().unwrap_or_default();
            return Err(format!(
                "{text:?} has a port; give the host alone, like {host:?} (every port of an allowed host is allowed)"
            ));
        }
        match Host::parse(text) {
            Ok(Host::Name(name)) => Ok(Pattern::Name(name)),
            Ok(Host::Address(ip)) => {
                let plain = text.trim_start_matches('[').trim_end_matches(']');
                if plain.parse::<IpAddr>().is_ok() {
                    Ok(Pattern::Address(ip))
                } else {
                    Err(format!(
                        "{text:?} is the address {ip} in an unusual spelling; write it as \"{ip}\""
                    ))
                }
            }
            Err(e) => Err(format!("{text:?}: {e}")),
        }
    }

    /// Whether the entry admits `host`. A name entry admits names only, an address entry
    /// addresses only; `*` admits both.
    pub fn admits(&self, host: &Host) -> bool {
        match (self, host) {
            (Pattern::Any, _) => true,
            (Pattern::Name(name), Host::Name(host)) => name == host,
            (Pattern::Suffix(suffix), Host::Name(host)) => host
                .strip_suffix(suffix.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            (Pattern::Address(_) | Pattern::Range(..), Host::Address(ip)) => self.covers(*ip),
            _ => false,
        }
    }

    /// Whether the entry is an address or a range holding `ip` (an IPv4-mapped IPv6 address
    /// counts as its IPv4 address).
    pub fn covers(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        match self {
            Pattern::Address(address) => address.to_canonical() == ip,
            Pattern::Range(base, bits) => in_range(ip, base.to_canonical(), *bits),
            _ => false,
        }
    }

    /// Whether the entry names hosts (a name or a suffix), rather than addresses or any host.
    pub fn names(&self) -> bool {
        matches!(self, Pattern::Name(_) | Pattern::Suffix(_))
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Any => f.write_str("*"),
            Pattern::Name(name) => f.write_str(name),
            Pattern::Suffix(suffix) => write!(f, "*.{suffix}"),
            Pattern::Address(ip) => write!(f, "{ip}"),
            Pattern::Range(base, bits) => write!(f, "{base}/{bits}"),
        }
    }
}

/// `base/bits`, the base's host bits cleared.
fn range(text: &str, base: &str, bits: &str) -> Result<Pattern, String> {
    let bad = || {
        format!(
            "{text:?} is no address range; a range is written like \"10.0.0.0/8\" or \"fd12:3456::/32\""
        )
    };
    let base: IpAddr = base.parse().map_err(|_| bad())?;
    let bits: u8 = bits.parse().map_err(|_| bad())?;
    let width = if base.is_ipv4() { 32 } else { 128 };
    if bits > width {
        return Err(bad());
    }
    let cleared = match base {
        IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from(u32::from(v4) & mask32(bits))),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask128(bits))),
    };
    Ok(Pattern::Range(cleared, bits))
}

fn mask32(bits: u8) -> u32 {
    u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0)
}

fn mask128(bits: u8) -> u128 {
    u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0)
}

/// Whether `ip` lies in `base/bits` (both canonical).
fn in_range(ip: IpAddr, base: IpAddr, bits: u8) -> bool {
    match (ip, base) {
        (IpAddr::V4(ip), IpAddr::V4(base)) => {
            u32::from(ip) & mask32(bits) == u32::from(base) & mask32(bits)
        }
        (IpAddr::V6(ip), IpAddr::V6(base)) => {
            u128::from(ip) & mask128(bits) == u128::from(base) & mask128(bits)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Host {
        Host::parse(text).unwrap()
    }

    fn address(text: &str) -> Host {
        Host::Address(text.parse().unwrap())
    }

    #[test]
    fn every_spelling_of_an_address_the_resolver_accepts_is_an_address() {
        for (text, means) in [
            ("127.0.0.1", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("127.0.1", "127.0.0.1"),
            ("0x7f.1", "127.0.0.1"),
            ("0X7F.0.0.1", "127.0.0.1"),
            ("2130706433", "127.0.0.1"),
            ("017700000001", "127.0.0.1"),
            ("0x7f000001", "127.0.0.1"),
            ("0177.0.0.01", "127.0.0.1"),
            ("127.0.0.1.", "127.0.0.1"),
            ("169.254.43518", "169.254.169.254"),
            ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
            ("2852039166", "169.254.169.254"),
            ("0", "0.0.0.0"),
            ("[::1]", "::1"),
            ("::1", "::1"),
            ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1"),
            ("[::ffff:7f00:1]", "::ffff:127.0.0.1"),
            ("[fe80::1%eth0]", "fe80::1"),
            ("[0:0:0:0:0:0:0:1]", "::1"),
        ] {
            assert_eq!(host(text), address(means), "{text}");
        }
    }

    #[test]
    fn what_the_resolver_would_look_up_as_a_name_is_a_name() {
        for (text, name) in [
            ("Registry.NPMJS.org", "registry.npmjs.org"),
            ("registry.npmjs.org.", "registry.npmjs.org"),
            ("crates.io", "crates.io"),
            ("1.2.3.4.5", "1.2.3.4.5"),
            ("08.1", "08.1"),
            ("0x.1", "0x.1"),
            ("256.1.1.1", "256.1.1.1"),
            ("1.2.65536", "1.2.65536"),
            ("4294967296", "4294967296"),
            ("foo.0x7f", "foo.0x7f"),
            ("_acme.example.com", "_acme.example.com"),
            ("bücher.example", "xn--bcher-kva.example"),
            ("BÜCHER.example", "xn--bcher-kva.example"),
            ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ] {
            assert_eq!(host(text), Host::Name(name.into()), "{text}");
        }
        for bad in [
            "",
            ".",
            "a..b",
            "a b",
            "a/b",
            "[::1",
            "[nope]",
            "evil.com\r\nHost: x",
            &"a".repeat(64),
            &format!("{}.com", "a.".repeat(130)),
        ] {
            assert!(Host::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn names_match_exactly_and_a_suffix_never_holds_its_apex() {
        let npm = Pattern::parse("registry.npmjs.org").unwrap();
        assert!(npm.admits(&host("REGISTRY.npmjs.org.")));
        assert!(!npm.admits(&host("registry.npmjs.org.evil.com")));
        assert!(!npm.admits(&host("xregistry.npmjs.org")));
        assert!(!npm.admits(&host("npmjs.org")));
        let any_below = Pattern::parse("*.example.com").unwrap();
        assert!(any_below.admits(&host("a.example.com")));
        assert!(any_below.admits(&host("a.b.Example.COM.")));
        assert!(!any_below.admits(&host("example.com")));
        assert!(!any_below.admits(&host("badexample.com")));
        assert!(!any_below.admits(&host("example.com.evil.org")));
        assert!(!any_below.admits(&address("93.184.216.34")));
        // A Unicode entry and the punycode a client sends are the same name; a look-alike is
        // not.
        let idn = Pattern::parse("Bücher.example").unwrap();
        assert_eq!(idn, Pattern::Name("xn--bcher-kva.example".into()));
        assert!(idn.admits(&host("xn--bcher-kva.example")));
        let latin = Pattern::parse("pypi.org").unwrap();
        assert!(!latin.admits(&host("руpi.org")));
        // `*` admits every name and every address (which are classified afterwards).
        assert!(Pattern::Any.admits(&host("anything.example")));
        assert!(Pattern::Any.admits(&address("10.0.0.1")));
    }

    #[test]
    fn address_entries_hold_addresses_in_every_spelling_and_names_never() {
        let one = Pattern::parse("10.0.0.5").unwrap();
        assert!(one.admits(&host("10.0.0.5")));
        assert!(one.admits(&host("10.5")));
        assert!(one.admits(&host("[::ffff:10.0.0.5]")));
        assert!(!one.admits(&host("10.0.0.6")));
        let lan = Pattern::parse("10.0.0.0/8").unwrap();
        assert!(lan.admits(&host("10.200.1.1")));
        assert!(!lan.admits(&host("11.0.0.1")));
        assert!(!lan.admits(&host("ten.example")));
        assert_eq!(
            Pattern::parse("192.168.7.9/16").unwrap().to_string(),
            "192.168.0.0/16"
        );
        let ula = Pattern::parse("fd12:3456::/32").unwrap();
        assert!(ula.admits(&host("[fd12:3456:1::5]")));
        assert!(!ula.admits(&host("[fd12:3457::5]")));
        assert_eq!(
            Pattern::parse("[2001:db8::1]").unwrap(),
            Pattern::Address("2001:db8::1".parse().unwrap())
        );
        assert!(
            Pattern::parse("0.0.0.0/0")
                .unwrap()
                .admits(&host("1.2.3.4"))
        );
    }

    #[test]
    fn a_configured_entry_says_what_is_wrong_with_it() {
        for (text, says) in [
            (
                "https://registry.example.com/simple",
                "\"registry.example.com\"",
            ),
            ("registry.example.com:8443", "has a port"),
            ("*example.com", "only a leading"),
            ("a.*.example.com", "only a leading"),
            ("*.10.0.0.1", "a range is written"),
            ("10.0.0.0/33", "no address range"),
            ("10.0.0/8", "no address range"),
            ("127.1", "write it as \"127.0.0.1\""),
            ("2130706433", "write it as \"127.0.0.1\""),
            ("exa mple.com", "not a host name"),
            ("", "empty"),
        ] {
            let error = Pattern::parse(text).unwrap_err();
            assert!(error.contains(says), "{text:?}: {error}");
        }
    }
}
