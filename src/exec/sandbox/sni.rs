//! The server name a TLS client asks for (SNI), read from the first bytes it sends through a
//! `CONNECT` tunnel (pure: bytes in, answer out). A front end shared by many sites (a CDN)
//! routes a TLS connection by that name, so a tunnel opened to an allowed host could otherwise
//! be handed to another site on the same front end: the proxy checks that the name is the host
//! the tunnel was opened to (`proxy.rs`).
//!
//! Read: TLS records of type handshake (22), reassembled until the first handshake message is
//! whole, which must be a ClientHello (1); its `server_name` extension (0), `host_name` entry.
//!
//! What this module does not do: look inside anything encrypted (an Encrypted ClientHello's
//! inner name stays unknown; its outer name is what is read), or decide (`proxy.rs`).

/// The longest ClientHello waited for: far above what clients send (a post-quantum key share
/// makes one about 1.8 KiB), small enough that a client cannot make the proxy hold much.
pub const MAX_HELLO: usize = 64 * 1024;

/// TLS record type of a handshake.
const HANDSHAKE: u8 = 22;
/// Handshake message type of a ClientHello.
const CLIENT_HELLO: u8 = 1;
/// Extension type of `server_name`.
const SERVER_NAME: u16 = 0;
/// `server_name` entry type of a host name.
const HOST_NAME: u8 = 0;

/// What the first bytes of a tunnel say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hello {
    /// Not TLS (another protocol through the tunnel).
    NotTls,
    /// TLS, but the ClientHello is not whole yet: read more.
    Incomplete,
    /// A ClientHello without a server name.
    NoName,
    /// A ClientHello asking for this name (as sent).
    Name(String),
    /// TLS that does not read as a ClientHello.
    Malformed,
}

/// Reads what `bytes` (everything the client sent so far) says.
pub fn read(bytes: &[u8]) -> Hello {
    match bytes.first() {
        None => return Hello::Incomplete,
        Some(&HANDSHAKE) => {}
        Some(_) => return Hello::NotTls,
    }
    // Reassemble the handshake records' payloads.
    let mut message = Vec::new();
    let mut at = 0;
    loop {
        let Some(header) = bytes.get(at..at + 5) else {
            return Hello::Incomplete;
        };
        if header[0] != HANDSHAKE {
            return Hello::Malformed;
        }
        let length = usize::from(u16::from_be_bytes([header[3], header[4]]));
        let Some(payload) = bytes.get(at + 5..at + 5 + length) else {
            return Hello::Incomplete;
        };
        message.extend_from_slice(payload);
        at += 5 + length;
        if message.len() >= 4 {
            if message[0] != CLIENT_HELLO {
                return Hello::Malformed;
            }
            let wanted = 4
                + (usize::from(message[1]) << 16
                    | usize::from(message[2]) << 8
                    | usize::from(message[3]));
            if message.len() >= wanted {
                return client_hello(&message[4..wanted]);
            }
        }
    }
}

/// The server name of a ClientHello's body.
fn client_hello(body: &[u8]) -> Hello {
    server_name(&mut Reader(body)).unwrap_or(Hello::Malformed)
}

/// `None` where the body ends before what it says it holds.
fn server_name(r: &mut Reader<'_>) -> Option<Hello> {
    r.skip(2 + 32)?; // version, random
    let session = r.u8()?;
    r.skip(usize::from(session))?;
    let suites = r.u16()?;
    r.skip(usize::from(suites))?;
    let compression = r.u8()?;
    r.skip(usize::from(compression))?;
    if r.0.is_empty() {
        return Some(Hello::NoName);
    }
    let extensions = r.u16()?;
    let mut list = Reader(r.take(usize::from(extensions))?);
    while !list.0.is_empty() {
        let kind = list.u16()?;
        let length = list.u16()?;
        let data = list.take(usize::from(length))?;
        if kind != SERVER_NAME {
            continue;
        }
        let mut names = Reader(data);
        let total = names.u16()?;
        let mut entries = Reader(names.take(usize::from(total))?);
        while !entries.0.is_empty() {
            let kind = entries.u8()?;
            let length = entries.u16()?;
            let name = entries.take(usize::from(length))?;
            if kind == HOST_NAME {
                return Some(Hello::Name(String::from_utf8_lossy(name).into_owned()));
            }
        }
    }
    Some(Hello::NoName)
}

/// A cursor over bytes that answers `None` past their end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }

    fn skip(&mut self, n: usize) -> Option<()> {
        self.take(n).map(|_| ())
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A ClientHello for `name` (none: no `server_name`), with another extension before it, in
    /// records of at most `record` bytes.
    pub(crate) fn hello(name: Option<&str>, record: usize) -> Vec<u8> {
        let mut body = vec![3, 3];
        body.extend([7u8; 32]);
        body.push(0); // no session id
        body.extend([0, 2, 0x13, 0x01]); // one cipher suite
        body.extend([1, 0]); // null compression
        let mut extensions = vec![0, 10, 0, 4, 0, 2, 0, 29]; // supported_groups: x25519
        if let Some(name) = name {
            let n = name.len() as u16;
            extensions.extend([0, 0]);
            extensions.extend((n + 5).to_be_bytes());
            extensions.extend((n + 3).to_be_bytes());
            extensions.push(0);
            extensions.extend(n.to_be_bytes());
            extensions.extend(name.as_bytes());
        }
        body.extend((extensions.len() as u16).to_be_bytes());
        body.extend(extensions);
        let mut message = vec![CLIENT_HELLO];
        message.extend(&(body.len() as u32).to_be_bytes()[1..]);
        message.extend(body);
        let mut out = Vec::new();
        for chunk in message.chunks(record) {
            out.extend([HANDSHAKE, 3, 1]);
            out.extend((chunk.len() as u16).to_be_bytes());
            out.extend(chunk);
        }
        out
    }

    #[test]
    fn the_server_name_is_read_also_across_records_and_in_pieces() {
        let whole = hello(Some("pypi.org"), 16384);
        assert_eq!(read(&whole), Hello::Name("pypi.org".into()));
        let split = hello(Some("attacker.example"), 20);
        assert_eq!(read(&split), Hello::Name("attacker.example".into()));
        for cut in [0, 1, 4, 5, 30, split.len() - 1] {
            assert_eq!(read(&split[..cut]), Hello::Incomplete, "cut at {cut}");
        }
        assert_eq!(read(&hello(None, 16384)), Hello::NoName);
    }

    #[test]
    fn what_is_not_a_client_hello_says_so() {
        assert_eq!(read(b"SSH-2.0-OpenSSH_9.6\r\n"), Hello::NotTls);
        assert_eq!(read(b"GET / HTTP/1.1\r\n"), Hello::NotTls);
        // A server hello, a handshake followed by another record type, lengths that lie.
        assert_eq!(read(&[22, 3, 3, 0, 4, 2, 0, 0, 0]), Hello::Malformed);
        assert_eq!(
            read(&[22, 3, 3, 0, 4, 1, 0, 0, 9, 23, 3, 3, 0, 1, 0]),
            Hello::Malformed
        );
        let mut lying = hello(Some("pypi.org"), 16384);
        let at = lying.len() - "pypi.org".len() - 2;
        lying[at] = 0xff;
        assert_eq!(read(&lying), Hello::Malformed);
    }
}
