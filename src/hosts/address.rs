//! What kind of place an address is, for the sandbox's proxy: one a command **never** reaches
//! (this machine, link-local, a cloud's metadata service, multicast, broadcast), one that is
//! **internal** (a private network, carrier-grade NAT, IPv6 unique-local or site-local, and the
//! documentation, benchmarking and reserved ranges no public host lives in), or public.
//!
//! An IPv6 address can carry an IPv4 address inside it, and a packet to it ends at that IPv4
//! address (a translator, a tunnel or the kernel's own mapping takes it there), so every
//! embedding is read out and the worst of the address and what it carries decides: IPv4-mapped
//! `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64
//! `64:ff9b::/96` and the local-use `64:ff9b:1::/48` (at every position RFC 6052 allows), 6to4
//! `2002:AABB:CCDD::/48`, Teredo `2001::/32` (its server and its client, whose address is
//! stored inverted), and ISATAP's interface identifier `…:0:5efe:a.b.c.d`.
//!
//! What this module does not do: decide whether an internal address is allowed (an entry of the
//! allow-list that names its host or covers it does, `reach.rs`), or find this machine's own
//! addresses (the proxy hands them in).

use std::fmt;
// `core::net`: the address types alone, no socket (this module is pure).
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of place an address is, when it is not simply public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    // Never reached.
    Loopback,
    Unspecified,
    ThisNetwork,
    ThisMachine,
    LinkLocal,
    /// A cloud's fixed service address; the cloud is named.
    Metadata(&'static str),
    Multicast,
    Broadcast,
    // Internal.
    Private,
    SharedNat,
    UniqueLocal,
    SiteLocal,
    Documentation,
    Benchmarking,
    ProtocolAssignments,
    LocalNat64,
    Teredo,
    Reserved,
}

impl Kind {
    /// Whether no configuration makes it reachable.
    pub fn never(self) -> bool {
        matches!(
            self,
            Kind::Loopback
                | Kind::Unspecified
                | Kind::ThisNetwork
                | Kind::ThisMachine
                | Kind::LinkLocal
                | Kind::Metadata(_)
                | Kind::Multicast
                | Kind::Broadcast
        )
    }

    fn what(self) -> String {
        match self {
            Kind::Loopback => "a loopback address (this machine)".into(),
            Kind::Unspecified => "the unspecified address (this machine)".into(),
            Kind::ThisNetwork => "an address of \"this network\" (0.0.0.0/8)".into(),
            Kind::ThisMachine => "an address of this machine".into(),
            Kind::LinkLocal => "a link-local address (where cloud metadata services live)".into(),
            Kind::Metadata(cloud) => format!("a cloud metadata service ({cloud})"),
            Kind::Multicast => "a multicast address".into(),
            Kind::Broadcast => "the broadcast address".into(),
            Kind::Private => "a private network address".into(),
            Kind::SharedNat => "a carrier-grade NAT address (100.64.0.0/10)".into(),
            Kind::UniqueLocal => "an IPv6 unique local address (fc00::/7)".into(),
            Kind::SiteLocal => "an IPv6 site-local address (fec0::/10)".into(),
            Kind::Documentation => "a documentation address".into(),
            Kind::Benchmarking => "a benchmarking address".into(),
            Kind::ProtocolAssignments => "an IETF protocol assignment address".into(),
            Kind::LocalNat64 => "a local-use NAT64 address (64:ff9b:1::/48)".into(),
            Kind::Teredo => "a Teredo tunnel address (2001::/32)".into(),
            Kind::Reserved => "a reserved address".into(),
        }
    }
}

/// How an IPv6 address carries an IPv4 one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embedding {
    Mapped,
    Compatible,
    Translated,
    Nat64,
    LocalNat64,
    SixToFour,
    TeredoServer,
    TeredoClient,
    Isatap,
}

impl Embedding {
    fn name(self) -> &'static str {
        match self {
            Embedding::Mapped => "IPv4-mapped",
            Embedding::Compatible => "IPv4-compatible",
            Embedding::Translated => "IPv4-translated",
            Embedding::Nat64 => "NAT64",
            Embedding::LocalNat64 => "local-use NAT64",
            Embedding::SixToFour => "6to4",
            Embedding::TeredoServer => "Teredo server",
            Embedding::TeredoClient => "Teredo client",
            Embedding::Isatap => "ISATAP",
        }
    }
}

/// Why an address is not public: its kind, and the IPv4 address it carries when that decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    pub inside: Option<(Embedding, Ipv4Addr)>,
}

impl Finding {
    /// Whether no configuration makes it reachable.
    pub fn never(&self) -> bool {
        self.kind.never()
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inside {
            Some((how, v4)) => write!(f, "{} ({how} {v4})", self.kind.what(), how = how.name()),
            None => f.write_str(&self.kind.what()),
        }
    }
}

/// What kind of place `ip` is; `None` when it is public. `own` holds this machine's addresses.
pub fn classify(ip: IpAddr, own: &[IpAddr]) -> Option<Finding> {
    // This machine first: its own address may also be private, and private is not enough.
    let v4_of = |v4: Ipv4Addr| {
        own.iter()
            .any(|o| o.to_canonical() == IpAddr::V4(v4))
            .then_some(Kind::ThisMachine)
            .or_else(|| v4_kind(v4))
    };
    match ip {
        IpAddr::V4(v4) => v4_of(v4).map(|kind| Finding { kind, inside: None }),
        IpAddr::V6(v6) => {
            let own_kind = own
                .contains(&IpAddr::V6(v6))
                .then_some(Kind::ThisMachine)
                .or_else(|| v6_kind(v6));
            let mut worst = own_kind.map(|kind| Finding { kind, inside: None });
            for (how, v4) in embedded(v6) {
                let kind = v4_of(v4);
                if let Some(kind) = kind {
                    let found = Finding {
                        kind,
                        inside: Some((how, v4)),
                    };
                    worst = Some(match worst {
                        Some(w) if rank(w.kind) >= rank(kind) => w,
                        _ => found,
                    });
                }
            }
            worst
        }
    }
}

fn rank(kind: Kind) -> u8 {
    if kind.never() { 2 } else { 1 }
}

/// `address/bits` for the tables below.
const fn v4(a: u8, b: u8, c: u8, d: u8, bits: u8) -> (u32, u8) {
    (u32::from_be_bytes([a, b, c, d]), bits)
}

/// The IPv4 ranges that are not public, most specific first.
const V4: &[((u32, u8), Kind)] = &[
    (v4(0, 0, 0, 0, 32), Kind::Unspecified),
    (v4(0, 0, 0, 0, 8), Kind::ThisNetwork),
    (v4(127, 0, 0, 0, 8), Kind::Loopback),
    (
        v4(169, 254, 169, 254, 32),
        Kind::Metadata("AWS, Google Cloud, Azure, Oracle Cloud, OpenStack and others"),
    ),
    (
        v4(169, 254, 170, 2, 32),
        Kind::Metadata("AWS ECS task credentials"),
    ),
    (
        v4(169, 254, 170, 23, 32),
        Kind::Metadata("AWS EKS Pod Identity"),
    ),
    (v4(169, 254, 0, 0, 16), Kind::LinkLocal),
    (v4(100, 100, 100, 200, 32), Kind::Metadata("Alibaba Cloud")),
    (v4(192, 0, 0, 192, 32), Kind::Metadata("Oracle Cloud")),
    (v4(168, 63, 129, 16, 32), Kind::Metadata("Azure WireServer")),
    (v4(224, 0, 0, 0, 4), Kind::Multicast),
    (v4(255, 255, 255, 255, 32), Kind::Broadcast),
    (v4(10, 0, 0, 0, 8), Kind::Private),
    (v4(172, 16, 0, 0, 12), Kind::Private),
    (v4(192, 168, 0, 0, 16), Kind::Private),
    (v4(100, 64, 0, 0, 10), Kind::SharedNat),
    (v4(192, 0, 0, 0, 24), Kind::ProtocolAssignments),
    (v4(192, 0, 2, 0, 24), Kind::Documentation),
    (v4(198, 51, 100, 0, 24), Kind::Documentation),
    (v4(203, 0, 113, 0, 24), Kind::Documentation),
    (v4(198, 18, 0, 0, 15), Kind::Benchmarking),
    // The 6to4 relays' anycast, deprecated (RFC 7526).
    (v4(192, 88, 99, 0, 24), Kind::Reserved),
    (v4(240, 0, 0, 0, 4), Kind::Reserved),
];

fn v4_kind(ip: Ipv4Addr) -> Option<Kind> {
    let value = u32::from(ip);
    V4.iter()
        .find(|((base, bits), _)| {
            let mask = u32::MAX.checked_shl(32 - u32::from(*bits)).unwrap_or(0);
            value & mask == *base
        })
        .map(|(_, kind)| *kind)
}

/// `address/bits` for the IPv6 table.
const fn v6(segments: [u16; 8], bits: u8) -> (u128, u8) {
    let mut value = 0u128;
    let mut i = 0;
    while i < 8 {
        value = (value << 16) | segments[i] as u128;
        i += 1;
    }
    (value, bits)
}

/// The IPv6 ranges that are not public, most specific first. What lies outside global
/// unicast (`2000::/3`) and outside this table is reserved.
const V6: &[((u128, u8), Kind)] = &[
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), Kind::Unspecified),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), Kind::Loopback),
    (
        v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254], 128),
        Kind::Metadata("AWS, IPv6"),
    ),
    (
        v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x253], 128),
        Kind::Metadata("AWS DNS, IPv6"),
    ),
    (
        v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x123], 128),
        Kind::Metadata("AWS time, IPv6"),
    ),
    (
        v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23], 128),
        Kind::Metadata("AWS EKS Pod Identity, IPv6"),
    ),
    (
        v6([0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254], 128),
        Kind::Metadata("Google Cloud, IPv6"),
    ),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), Kind::LinkLocal),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), Kind::Multicast),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), Kind::UniqueLocal),
    (v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), Kind::SiteLocal),
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), Kind::LocalNat64),
    // Discard-only (RFC 6666).
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), Kind::Reserved),
    (
        v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32),
        Kind::Documentation,
    ),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), Kind::Documentation),
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), Kind::Benchmarking),
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32), Kind::Teredo),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        Kind::ProtocolAssignments,
    ),
];

fn v6_kind(ip: Ipv6Addr) -> Option<Kind> {
    let value = u128::from(ip);
    let listed = V6.iter().find(|((base, bits), _)| {
        let mask = u128::MAX.checked_shl(128 - u32::from(*bits)).unwrap_or(0);
        value & mask == *base
    });
    if let Some((_, kind)) = listed {
        return Some(*kind);
    }
    let segments = ip.segments();
    // IPv4-mapped and IPv4-translated addresses are their IPv4 address (read out below).
    if segments[..5] == [0; 5] && (segments[5] == 0xffff || segments[5] == 0) {
        return (segments[5] == 0).then_some(Kind::Reserved);
    }
    if segments[..4] == [0, 0, 0, 0] && segments[4] == 0xffff && segments[5] == 0 {
        return None;
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return None;
    }
    // Global unicast is 2000::/3; the rest is unassigned or reserved.
    (segments[0] & 0xe000 != 0x2000).then_some(Kind::Reserved)
}

/// Every IPv4 address `ip` carries, by how.
pub fn embedded(ip: Ipv6Addr) -> Vec<(Embedding, Ipv4Addr)> {
    let o = ip.octets();
    let s = ip.segments();
    let at = |a: usize, b: usize, c: usize, d: usize| Ipv4Addr::new(o[a], o[b], o[c], o[d]);
    let last = at(12, 13, 14, 15);
    let mut found = Vec::new();
    if s[..5] == [0; 5] && s[5] == 0xffff {
        found.push((Embedding::Mapped, last));
    }
    if s[..6] == [0; 6] && u32::from(last) > 1 {
        found.push((Embedding::Compatible, last));
    }
    if s[..4] == [0; 4] && s[4] == 0xffff && s[5] == 0 {
        found.push((Embedding::Translated, last));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        found.push((Embedding::Nat64, last));
    }
    if s[..3] == [0x64, 0xff9b, 1] {
        // RFC 6052's positions for the prefix lengths a /48 allows (octet 8 is always zero);
        // a position the prefix in use leaves zero reads as 0.x.x.x, which nothing embeds.
        for v4 in [at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), last] {
            if v4.octets()[0] != 0 {
                found.push((Embedding::LocalNat64, v4));
            }
        }
    }
    if s[0] == 0x2002 {
        found.push((Embedding::SixToFour, at(2, 3, 4, 5)));
    }
    if s[..2] == [0x2001, 0] {
        found.push((Embedding::TeredoServer, at(4, 5, 6, 7)));
        found.push((Embedding::TeredoClient, Ipv4Addr::from(!u32::from(last))));
    }
    // ISATAP's interface identifier: 0000:5efe or 0200:5efe (the universal/local and group
    // bits may be set).
    if s[4] & 0xfcff == 0 && s[5] == 0x5efe {
        found.push((Embedding::Isatap, last));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> Option<Finding> {
        classify(text.parse().unwrap(), &["192.168.1.20".parse().unwrap()])
    }

    #[test]
    fn what_a_command_never_reaches_in_every_spelling() {
        for text in [
            // This machine.
            "127.0.0.1",
            "127.1.2.3",
            "0.0.0.0",
            "0.1.2.3",
            "::1",
            "::",
            "192.168.1.20",
            // Link-local and the clouds' metadata services.
            "169.254.169.254",
            "169.254.170.2",
            "169.254.170.23",
            "169.254.0.23",
            "100.100.100.200",
            "192.0.0.192",
            "168.63.129.16",
            "fe80::1",
            "febf::1",
            "fd00:ec2::254",
            "fd00:ec2::23",
            "fd20:ce::254",
            // Multicast and broadcast.
            "224.0.0.1",
            "239.255.255.250",
            "255.255.255.255",
            "ff02::1",
            // Each embedding of a refused IPv4 address.
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:a9fe:a9fe",
            "::ffff:192.168.1.20",
            "::127.0.0.1",
            "::a9fe:a9fe",
            "::ffff:0:127.0.0.1",
            "::ffff:0:a9fe:a9fe",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::6464:64c8",
            "64:ff9b:1:a9fe:a9:fe00::",
            "64:ff9b:1::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "2002:c0a8:114::",
            "2001:0:a9fe:a9fe::1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001:0:4136:e378:8000:63bf:5601:5601",
            "2606:4700::5efe:a9fe:a9fe",
            "2606:4700::200:5efe:7f00:1",
            "fe80::5efe:a9fe:a9fe",
        ] {
            let found = class(text).unwrap_or_else(|| panic!("{text} is public?"));
            assert!(found.never(), "{text}: {found}");
        }
    }

    #[test]
    fn internal_addresses_are_internal_and_the_internet_is_public() {
        for text in [
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.0.1",
            "100.64.0.1",
            "100.127.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.80",
            "198.18.0.1",
            "198.19.255.1",
            "192.88.99.1",
            "240.0.0.1",
            "192.168.1.21",
            "fd12:3456::1",
            "fc00::1",
            "fec0::1",
            "2001:db8::1",
            "3fff::1",
            "2001:2::1",
            "100::1",
            "2001:4::1",
            "::8.8.8.8",
            "4000::1",
            "64:ff9b:1::808:808",
            "::ffff:10.0.0.1",
            "64:ff9b::10.0.0.1",
            "2002:0a00:0001::1",
            "2001:0:808:808::1",
        ] {
            let found = class(text).unwrap_or_else(|| panic!("{text} is public?"));
            assert!(!found.never(), "{text}: {found}");
        }
        for text in [
            "8.8.8.8",
            "140.82.112.3",
            "151.101.0.223",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "2a04:4e42::223",
            "::ffff:140.82.112.3",
            "64:ff9b::140.82.112.3",
            "2002:8c52:7003::1",
        ] {
            assert_eq!(class(text), None, "{text}");
        }
    }

    #[test]
    fn a_finding_names_what_the_address_carries() {
        let found = class("64:ff9b::a9fe:a9fe").unwrap();
        assert_eq!(
            found.to_string(),
            "a cloud metadata service (AWS, Google Cloud, Azure, Oracle Cloud, OpenStack and others) (NAT64 169.254.169.254)"
        );
        let teredo = class("2001:0:4136:e378:8000:63bf:80ff:fffe").unwrap();
        assert_eq!(
            teredo.inside,
            Some((Embedding::TeredoClient, Ipv4Addr::new(127, 0, 0, 1)))
        );
    }
}
