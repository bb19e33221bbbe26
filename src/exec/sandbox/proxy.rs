//! The way out for a model command when its network is on: an HTTP proxy keyless runs, reached
//! from inside the command's network namespace at `127.0.0.1:3128` (the listener lives in that
//! namespace, `nets.rs`; keyless accepts on it from outside). Builds reach package registries
//! and git hosts through it (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, npm's and the JVM's
//! settings point there), and nothing else: a destination passes the allow-list's two checks
//! (`reach.rs`): its name must be on the list before it is looked up at all (so no DNS query
//! carries what a command would smuggle out in a name), and the address connected to is the
//! address checked, never this machine, link-local, a cloud's metadata service, multicast or
//! broadcast in any spelling, nor an internal address the list does not name. One connection
//! reaches one host, also on a front end shared by many sites: a plain `http://` request must
//! name the same host in its `Host` header and goes up alone (`Connection: close`, nothing the
//! client sends after its body), and a TLS ClientHello through a tunnel must ask for the
//! tunnel's host (`sni.rs`).
//!
//! It speaks `CONNECT host:port` (HTTPS, and any TCP protocol a client tunnels) and plain HTTP
//! requests in absolute form. Programs that ignore proxy settings get no network at all.
//!
//! What this module does not do: decide whether a command has network (`Sandbox::network`), or
//! what the list holds (`reach.rs`).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::reach::{AllowList, Refusal};
use super::sni::{self, Hello};
use crate::hosts::{BadHost, Host};

/// The longest request head the proxy reads.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to a destination may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// The most destinations refused that are kept for the commands' results.
const MAX_REFUSED: usize = 64;
/// The port of a plain `http://` request that names none.
const HTTP_PORT: u16 = 80;

/// A destination the proxy refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// `host:port` as the command asked for it.
    pub destination: String,
    pub why: Refusal,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.destination, self.why)
    }
}

/// What the proxy refused, for the command's result.
#[derive(Clone, Debug, Default)]
pub struct Refusals(Arc<Mutex<Vec<Refused>>>);

impl Refusals {
    /// Takes what was refused since the last call.
    pub fn take(&self) -> Vec<Refused> {
        self.0
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }

    fn add(&self, what: Refused) {
        if let Ok(mut r) = self.0.lock()
            && r.len() < MAX_REFUSED
            && !r.contains(&what)
        {
            r.push(what);
        }
    }
}

/// What every connection of one proxy shares.
struct Shared {
    list: Arc<AllowList>,
    own: Vec<IpAddr>,
    refusals: Refusals,
}

/// Serves `listener` in threads of its own for as long as keyless runs, reaching what `list`
/// allows.
pub fn serve(listener: TcpListener, refusals: Refusals, list: Arc<AllowList>) {
    let shared = Arc::new(Shared {
        list,
        own: own_addresses(),
        refusals,
    });
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let _ = handle(client, &shared);
            });
        }
    });
}

/// The addresses of this machine's own interfaces.
fn own_addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list`, which freeifaddrs releases; each entry is read while the
    // list lives.
    unsafe {
        if libc::getifaddrs(&mut list) != 0 {
            return found;
        }
        let mut at = list;
        while !at.is_null() {
            let address = (*at).ifa_addr;
            if !address.is_null() {
                match i32::from((*address).sa_family) {
                    libc::AF_INET => {
                        let v4 = &*(address.cast::<libc::sockaddr_in>());
                        found.push(IpAddr::from(u32::from_be(v4.sin_addr.s_addr).to_be_bytes()));
                    }
                    libc::AF_INET6 => {
                        let v6 = &*(address.cast::<libc::sockaddr_in6>());
                        found.push(IpAddr::from(v6.sin6_addr.s6_addr));
                    }
                    _ => {}
                }
            }
            at = (*at).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

fn handle(mut client: TcpStream, shared: &Shared) -> io::Result<()> {
    client.set_read_timeout(Some(HEAD_TIMEOUT))?;
    let (head, rest) = read_head(&mut client)?;
    let text = String::from_utf8_lossy(&head).into_owned();
    let first = text.lines().next().unwrap_or_default();
    let mut words = first.split(' ');
    let (method, target) = (
        words.next().unwrap_or_default(),
        words.next().unwrap_or_default(),
    );
    let (authority, forwarded) = if method.eq_ignore_ascii_case("CONNECT") {
        (target.to_string(), None)
    } else if let Some(after) = target.strip_prefix("http://") {
        let (authority, path) = match after.find(['/', '?']) {
            Some(at) => (&after[..at], &after[at..]),
            None => (after, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        let version = &first[method.len() + 1 + target.len()..];
        match plain_request(&format!("{method} {path}{version}"), &text, rest.clone()) {
            Some(request) => (authority.to_string(), Some(request)),
            None => {
                return answer(
                    &mut client,
                    "411 Length Required",
                    "keyless's sandbox proxy forwards a plain http:// request with a body only when it has one Content-Length; use https://\n",
                );
            }
        }
    } else {
        return answer(
            &mut client,
            "400 Bad Request",
            "keyless's sandbox proxy takes CONNECT host:port and absolute http:// requests\n",
        );
    };
    let default_port = forwarded.as_ref().map(|_| HTTP_PORT);
    let destination = match split_authority(&authority, default_port) {
        Some((host, port)) => {
            let checked = match &forwarded {
                Some(_) => same_host_header(&text, host),
                None => Ok(()),
            };
            checked
                .map_err(Failed::Refused)
                .and_then(|()| connect(shared, host, port))
        }
        None => Err(Failed::Refused(Refusal::NotAHost(BadHost::NotAnAuthority(
            authority.clone(),
        )))),
    };
    let destination = match destination {
        Ok(stream) => stream,
        Err(Failed::Refused(why)) => {
            let refused = Refused {
                destination: authority.clone(),
                why,
            };
            let body = format!("keyless's sandbox proxy refused {refused}\n");
            shared.refusals.add(refused);
            return answer(&mut client, "403 Forbidden", &body);
        }
        Err(Failed::Io(e)) => {
            return answer(
                &mut client,
                "502 Bad Gateway",
                &format!("{authority}: {e}\n"),
            );
        }
    };
    client.set_read_timeout(None)?;
    let tunnel_host;
    let (first, up) = match forwarded {
        None => {
            client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
            tunnel_host = split_authority(&authority, None).and_then(|(h, _)| Host::parse(h).ok());
            (rest, Up::Tunnel(tunnel_host.as_ref()))
        }
        Some(request) => (
            request.bytes,
            Up::Request {
                body_left: request.body_left,
            },
        ),
    };
    if let Some(why) = relay(client, destination, first, up)? {
        shared.refusals.add(Refused {
            destination: authority,
            why,
        });
    }
    Ok(())
}

/// `host:port` or `[v6]:port` into its host and port; `default` when no port is given (plain
/// HTTP), else a port is required (CONNECT).
fn split_authority(authority: &str, default: Option<u16>) -> Option<(&str, u16)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, after) = authority.split_at(end + 1);
        match after.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if after.is_empty() => (host, None),
            None => return None,
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(port) => port.parse().ok()?,
        None => default?,
    };
    Some((host, port))
}

/// A plain request as it goes up: its head (`Connection: close`, so that the server answers this
/// request alone), the part of its body already read, and how much body is still to come.
struct Plain {
    bytes: Vec<u8>,
    body_left: u64,
}

/// The request whose first line is now `line` (its path no longer absolute), with `head`'s
/// headers and what came after the head (`rest`): one request, and nothing after it, so that a
/// second request on the same connection cannot ask the same front end for another host. `None`
/// when its body's length is not one `Content-Length` (a chunked body is not forwarded).
fn plain_request(line: &str, head: &str, mut rest: Vec<u8>) -> Option<Plain> {
    let mut out = format!("{line}\r\n");
    let mut length: Option<u64> = None;
    for header in head.lines().skip(1).filter(|l| !l.is_empty()) {
        let name = header.split(':').next().unwrap_or_default().trim();
        let value = header
            .split_once(':')
            .map(|(_, v)| v.trim())
            .unwrap_or_default();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return None;
        }
        if name.eq_ignore_ascii_case("content-length") {
            let this: u64 = value.parse().ok()?;
            if length.is_some_and(|l| l != this) {
                return None;
            }
            length = Some(this);
        }
        let hop = [
            "connection",
            "proxy-connection",
            "keep-alive",
            "proxy-authorization",
        ];
        if !hop.iter().any(|h| name.eq_ignore_ascii_case(h)) {
            out.push_str(header);
            out.push_str("\r\n");
        }
    }
    out.push_str("Connection: close\r\n\r\n");
    let length = length.unwrap_or(0);
    rest.truncate(
        usize::try_from(length)
            .unwrap_or(usize::MAX)
            .min(rest.len()),
    );
    let body_left = length - rest.len() as u64;
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&rest);
    Some(Plain { bytes, body_left })
}

/// A plain HTTP request goes to the host it names: every `Host` header must name the same host
/// (a shared front end, a CDN, would otherwise serve another of its sites to a request sent to
/// an allowed one).
fn same_host_header(head: &str, host: &str) -> Result<(), Refusal> {
    let wanted = Host::parse(host).map_err(Refusal::NotAHost)?;
    for line in head.lines().skip(1) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if !name.trim().eq_ignore_ascii_case("host") {
            continue;
        }
        let value = value.trim();
        let named = split_authority(value, Some(HTTP_PORT)).map(|(h, _)| h);
        if named.and_then(|h| Host::parse(h).ok()) != Some(wanted.clone()) {
            return Err(Refusal::OtherHost(value.to_string()));
        }
    }
    Ok(())
}

enum Failed {
    Refused(Refusal),
    Io(io::Error),
}

/// Connects to `host:port` when the allow-list lets it: the name checked before it is looked
/// up, each address it resolves to checked before it is connected to.
fn connect(shared: &Shared, host: &str, port: u16) -> Result<TcpStream, Failed> {
    let (host, by) = shared.list.admit(host).map_err(Failed::Refused)?;
    let addresses: Vec<IpAddr> = match &host {
        Host::Address(ip) => vec![*ip],
        Host::Name(name) => (name.as_str(), port)
            .to_socket_addrs()
            .map_err(Failed::Io)?
            .map(|a| a.ip())
            .collect(),
    };
    let mut why = None;
    let mut last = None;
    for ip in addresses {
        if let Err(refusal) = shared.list.check(ip, by, &shared.own) {
            why = Some(refusal);
            continue;
        }
        match TcpStream::connect_timeout(&SocketAddr::new(ip, port), CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    match (last, why) {
        (Some(e), _) => Err(Failed::Io(e)),
        (None, Some(refusal)) => Err(Failed::Refused(refusal)),
        (None, None) => Err(Failed::Io(io::Error::other("no address"))),
    }
}

/// Reads up to the end of the request head; returns the head and what came after it.
fn read_head(client: &mut TcpStream) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::other("the client closed before its request"));
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            return Ok((buffer, rest));
        }
        if buffer.len() > MAX_HEAD {
            return Err(io::Error::other("request head too long"));
        }
    }
}

fn answer(client: &mut TcpStream, status: &str, body: &str) -> io::Result<()> {
    let message = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(message.as_bytes())
}

/// What goes up from the client after its request head.
enum Up<'a> {
    /// A tunnel to this host (`None`: an address): everything, once its first bytes are read.
    Tunnel(Option<&'a Host>),
    /// A plain request: only the rest of its body.
    Request { body_left: u64 },
}

/// Copies both ways until each side has finished, `first` (what the client sent with its
/// request) on its way up first. Through a tunnel to a host, nothing of the client's goes up
/// before its first bytes are read: a TLS ClientHello must ask for the tunnel's own host, or the
/// tunnel is closed and the refusal returned. After a plain request, only its body goes up.
fn relay(
    client: TcpStream,
    upstream: TcpStream,
    first: Vec<u8>,
    up: Up<'_>,
) -> io::Result<Option<Refusal>> {
    let (mut upstream_read, mut client_write) = (upstream.try_clone()?, client.try_clone()?);
    // The server's side runs at once: a protocol whose server speaks first needs it.
    let backward = std::thread::spawn(move || {
        let _ = io::copy(&mut upstream_read, &mut client_write);
        let _ = client_write.shutdown(Shutdown::Write);
    });
    let (mut client_read, mut upstream_write) = (client, upstream);
    let first = match up {
        Up::Tunnel(Some(host)) => match client_hello(&mut client_read, first, host) {
            Ok(first) => first,
            Err(why) => {
                let _ = upstream_write.shutdown(Shutdown::Both);
                let _ = client_read.shutdown(Shutdown::Both);
                let _ = backward.join();
                return Ok(Some(why));
            }
        },
        Up::Tunnel(None) | Up::Request { .. } => first,
    };
    if !first.is_empty() {
        upstream_write.write_all(&first)?;
    }
    match up {
        Up::Tunnel(_) => {
            let _ = io::copy(&mut client_read, &mut upstream_write);
            let _ = upstream_write.shutdown(Shutdown::Write);
        }
        // The server closes once it has answered (`Connection: close`); what the client sends
        // after the body is not carried.
        Up::Request { body_left } => {
            let _ = io::copy(&mut (&mut client_read).take(body_left), &mut upstream_write);
        }
    }
    let _ = backward.join();
    Ok(None)
}

/// Reads a tunnel's first bytes (starting with `got`) until they show whether they are a TLS
/// ClientHello and for which server; the bytes read, or why the tunnel is refused.
fn client_hello(client: &mut TcpStream, mut got: Vec<u8>, host: &Host) -> Result<Vec<u8>, Refusal> {
    let mut chunk = [0u8; 4096];
    loop {
        match sni::read(&got) {
            // Only TLS goes through a tunnel to a named host: anything else (a plain HTTP request
            // in any spelling) could name another site behind the same front end.
            Hello::NotTls => return Err(Refusal::PlainHttpInTunnel),
            Hello::NoName => return Ok(got),
            Hello::Name(name) => {
                return match Host::parse(&name) {
                    Ok(named) if named == *host => Ok(got),
                    _ => Err(Refusal::OtherServerName(name)),
                };
            }
            Hello::Malformed => return Err(Refusal::UnreadableHello),
            Hello::Incomplete if got.len() > sni::MAX_HELLO => {
                return Err(Refusal::UnreadableHello);
            }
            Hello::Incomplete => {}
        }
        // Only here is the ClientHello still incomplete: what cannot be read whole does not
        // go up at all.
        match client.read(&mut chunk) {
            Ok(0) if got.is_empty() => return Ok(got),
            Ok(0) => return Err(Refusal::UnreadableHello),
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(Refusal::UnreadableHello),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_authority_is_split_as_written() {
        assert_eq!(
            split_authority("crates.io:443", None),
            Some(("crates.io", 443))
        );
        assert_eq!(split_authority("[::1]:8080", None), Some(("[::1]", 8080)));
        assert_eq!(split_authority("[::1]", Some(80)), Some(("[::1]", 80)));
        assert_eq!(
            split_authority("example.com", Some(80)),
            Some(("example.com", 80))
        );
        assert_eq!(split_authority("example.com", None), None);
        assert_eq!(split_authority("example.com:http", None), None);
        assert_eq!(split_authority("[::1]x:80", None), None);
        assert_eq!(split_authority("::1:80", None), Some(("::1", 80)));
    }

    #[test]
    fn a_plain_request_goes_up_alone_with_its_body_and_nothing_after_it() {
        let head = "POST http://pypi.org/legacy/ HTTP/1.1\r\nHost: pypi.org\r\nConnection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nContent-Length: 5\r\n\r\n";
        let sent = plain_request(
            "POST /legacy/ HTTP/1.1",
            head,
            b"helloGET http://pypi.org/ HTTP/1.1\r\nHost: attacker.example\r\n\r\n".to_vec(),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(sent.bytes).unwrap(),
            "POST /legacy/ HTTP/1.1\r\nHost: pypi.org\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        );
        assert_eq!(sent.body_left, 0);
        let partly = plain_request(
            "POST / HTTP/1.1",
            "POST http://pypi.org/ HTTP/1.1\r\nContent-Length: 10\r\n\r\n",
            b"abc".to_vec(),
        )
        .unwrap();
        assert_eq!(partly.body_left, 7);
        let get = plain_request(
            "GET / HTTP/1.1",
            "GET http://pypi.org/ HTTP/1.1\r\n\r\n",
            b"GET /again HTTP/1.1\r\n\r\n".to_vec(),
        )
        .unwrap();
        assert!(
            String::from_utf8(get.bytes)
                .unwrap()
                .ends_with("Connection: close\r\n\r\n")
        );
        assert!(
            plain_request(
                "POST / HTTP/1.1",
                "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                Vec::new()
            )
            .is_none()
        );
        assert!(
            plain_request(
                "POST / HTTP/1.1",
                "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                Vec::new()
            )
            .is_none()
        );
    }

    #[test]
    fn a_plain_request_must_name_its_own_host() {
        let head = "GET http://pypi.org/simple HTTP/1.1\r\nHost: PyPI.org.\r\nAccept: */*\r\n";
        assert_eq!(same_host_header(head, "pypi.org"), Ok(()));
        assert_eq!(
            same_host_header("GET / HTTP/1.1\r\nHost: pypi.org:80\r\n", "pypi.org"),
            Ok(())
        );
        assert_eq!(same_host_header("GET / HTTP/1.1\r\n", "pypi.org"), Ok(()));
        let fronted = "GET http://pypi.org/ HTTP/1.1\r\nHost: attacker.example\r\n";
        assert_eq!(
            same_host_header(fronted, "pypi.org"),
            Err(Refusal::OtherHost("attacker.example".into()))
        );
        let doubled =
            "GET http://pypi.org/ HTTP/1.1\r\nHost: pypi.org\r\nhost: attacker.example\r\n";
        assert!(same_host_header(doubled, "pypi.org").is_err());
    }
}
