//! Whose is a port: the browser profile of the process listening on a loopback TCP port, read
//! from `/proc` (its socket's inode in `/proc/net/tcp*`, the process holding that inode, its
//! `--user-data-dir`). keyless hides an attached browser's profile from commands this way when
//! the user attached their own Chrome with `--cdp`: the profile holds the chat's cookies.
//!
//! Best effort: a process of another user, or one in another namespace, is not found, and then
//! the profile is only out of reach where it is anyway (the home folder, `/tmp`).

use std::fs;
use std::path::PathBuf;

/// The `--user-data-dir` of the process listening on `port`, when it can be found.
pub fn listener_profile(port: u16) -> Option<PathBuf> {
    let inode = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .find_map(|table| {
            let text = fs::read_to_string(table).ok()?;
            text.lines().skip(1).find_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let local = fields.get(1)?;
                let state = fields.get(3)?;
                let listening = *state == "0A";
                let (_, hex_port) = local.rsplit_once(':')?;
                let matches = u16::from_str_radix(hex_port, 16).ok()? == port;
                (listening && matches).then(|| fields.get(9).map(|i| i.to_string()))?
            })
        })?;
    let wanted = format!("socket:[{inode}]");
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        let holds = fds
            .flatten()
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == wanted.as_str()));
        if !holds {
            continue;
        }
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        return cmdline
            .split(|b| *b == 0)
            .filter_map(|a| std::str::from_utf8(a).ok())
            .find_map(|a| a.strip_prefix("--user-data-dir="))
            .map(PathBuf::from);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_of_a_listener_is_found_by_its_port() {
        // A stand-in for a browser: a process holding a listening socket, with the flag.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // This test process is the listener; its command line has no --user-data-dir.
        assert_eq!(listener_profile(port), None);
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let unused = free.local_addr().unwrap().port();
        drop(free);
        assert_eq!(listener_profile(unused), None);
    }
}
