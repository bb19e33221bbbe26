//! The way out for a model command when its network is on: an HTTP proxy keyless runs, reached
//! from inside the command's network namespace at `127.0.0.1:3128` (the listener lives in that
//! namespace, `nets.rs`; keyless accepts on it from outside). Builds reach package registries
//! and git hosts through it (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, npm's and the JVM's
//! settings point there); what they cannot reach is this machine: a destination that is a
//! loopback, link-local, unspecified, multicast or broadcast address, or one of the machine's
//! own addresses, is refused, whatever name it was asked by (the name is resolved here, and the
//! address checked is the address connected to). So the browser's debugging port, a database on
//! localhost or a cloud metadata service stay out of reach in every mode.
//!
//! It speaks `CONNECT host:port` (HTTPS, and any TCP protocol a client tunnels) and plain HTTP
//! requests in absolute form. Programs that ignore proxy settings get no network at all.
//!
//! What this module does not do: decide whether a command has network (`Sandbox::network`).

use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest request head the proxy reads.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to a destination may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// The most destinations refused that are kept for the commands' results.
const MAX_REFUSED: usize = 64;

/// What the proxy refused, for the command's result.
#[derive(Clone, Debug, Default)]
pub struct Refusals(Arc<Mutex<Vec<String>>>);

impl Refusals {
    /// Takes what was refused since the last call.
    pub fn take(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }

    fn add(&self, what: String) {
        if let Ok(mut r) = self.0.lock()
            && r.len() < MAX_REFUSED
            && !r.contains(&what)
        {
            r.push(what);
        }
    }
}

/// Serves `listener` in threads of its own for as long as keyless runs.
pub fn serve(listener: TcpListener, refusals: Refusals) {
    let own = Arc::new(own_addresses());
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let own = Arc::clone(&own);
            let refusals = refusals.clone();
            std::thread::spawn(move || {
                let _ = handle(client, &own, &refusals);
            });
        }
    });
}

/// Why an address is not reachable from a command, or `None` when it is.
pub fn refused(ip: IpAddr, own: &[IpAddr]) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    };
    let kind = match ip {
        IpAddr::V4(v4) => {
            if v4.is_loopback() {
                Some("loopback")
            } else if v4.is_unspecified() || v4.octets()[0] == 0 {
                Some("unspecified")
            } else if v4.is_link_local() {
                Some("link-local (cloud metadata lives here)")
            } else if v4.is_multicast() || v4.is_broadcast() {
                Some("multicast or broadcast")
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            if v6.is_loopback() {
                Some("loopback")
            } else if v6.is_unspecified() {
                Some("unspecified")
            } else if first & 0xffc0 == 0xfe80 {
                Some("link-local")
            } else if v6.is_multicast() {
                Some("multicast")
            } else {
                None
            }
        }
    };
    kind.or_else(|| own.contains(&ip).then_some("an address of this machine"))
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

fn handle(mut client: TcpStream, own: &[IpAddr], refusals: &Refusals) -> io::Result<()> {
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
        let (authority, path) = match after.find('/') {
            Some(at) => (&after[..at], &after[at..]),
            None => (after, "/"),
        };
        let line = format!(
            "{method} {path}{}",
            &first[method.len() + 1 + target.len()..]
        );
        let mut request = line.into_bytes();
        request.extend_from_slice(&head[first.len()..]);
        request.extend_from_slice(&rest);
        let authority = if authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
            && !authority.ends_with(']')
        {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        (authority, Some(request))
    } else {
        return answer(
            &mut client,
            "400 Bad Request",
            "keyless's sandbox proxy takes CONNECT host:port and absolute http:// requests\n",
        );
    };
    let destination = match connect(&authority, own) {
        Ok(stream) => stream,
        Err(Refused::Address(why)) => {
            refusals.add(format!("{authority} ({why})"));
            return answer(
                &mut client,
                "403 Forbidden",
                &format!(
                    "keyless's sandbox refused {authority}: it is {why}; commands cannot reach services on this machine\n"
                ),
            );
        }
        Err(Refused::Failed(e)) => {
            return answer(
                &mut client,
                "502 Bad Gateway",
                &format!("{authority}: {e}\n"),
            );
        }
    };
    client.set_read_timeout(None)?;
    let mut upstream = destination;
    match forwarded {
        None => {
            client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
            if !rest.is_empty() {
                upstream.write_all(&rest)?;
            }
        }
        Some(request) => upstream.write_all(&request)?,
    }
    relay(client, upstream)
}

enum Refused {
    Address(&'static str),
    Failed(io::Error),
}

/// Connects to the first address of `authority` that a command may reach.
fn connect(authority: &str, own: &[IpAddr]) -> Result<TcpStream, Refused> {
    let addresses: Vec<SocketAddr> = authority
        .to_socket_addrs()
        .map_err(Refused::Failed)?
        .collect();
    let mut why = None;
    let mut last = None;
    for address in addresses {
        if let Some(reason) = refused(address.ip(), own) {
            why = Some(reason);
            continue;
        }
        match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    match (last, why) {
        (Some(e), _) => Err(Refused::Failed(e)),
        (None, Some(reason)) => Err(Refused::Address(reason)),
        (None, None) => Err(Refused::Failed(io::Error::other("no address"))),
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

/// Copies both ways until each side has finished.
fn relay(client: TcpStream, upstream: TcpStream) -> io::Result<()> {
    let (mut client_read, mut upstream_write) = (client.try_clone()?, upstream.try_clone()?);
    let forward = std::thread::spawn(move || {
        let _ = io::copy(&mut client_read, &mut upstream_write);
        let _ = upstream_write.shutdown(Shutdown::Write);
    });
    let (mut upstream_read, mut client_write) = (upstream, client);
    let _ = io::copy(&mut upstream_read, &mut client_write);
    let _ = client_write.shutdown(Shutdown::Write);
    let _ = forward.join();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_itself_is_out_of_reach_however_it_is_spelled() {
        let own: Vec<IpAddr> = vec!["192.168.1.20".parse().unwrap()];
        for address in [
            "127.0.0.1",
            "127.1.2.3",
            "0.0.0.0",
            "169.254.169.254",
            "::1",
            "::",
            "::ffff:127.0.0.1",
            "fe80::1",
            "192.168.1.20",
            "::ffff:192.168.1.20",
            "224.0.0.1",
        ] {
            assert!(
                refused(address.parse().unwrap(), &own).is_some(),
                "{address} must be refused"
            );
        }
        for address in [
            "140.82.112.3",
            "10.1.2.3",
            "2606:4700::1111",
            "192.168.1.21",
        ] {
            assert_eq!(refused(address.parse().unwrap(), &own), None, "{address}");
        }
    }
}
