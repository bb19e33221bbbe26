//! Redaction by value, through the built binary: the values of keyless's secret and withheld
//! environment variables and of the workspace's `.env` files never reach the results, however a
//! command prints them (as they are, base64-, hex- or URL-encoded, split by colour codes), while
//! ordinary output, colour codes included, comes out as it was.

use crate::common::Test;

/// A fake secret in keyless's environment: secret by its name.
const ENV_SECRET: &str = "Tk9/fake+env=secret-2024XyZ";
/// A fake value withheld by `Sandbox.HiddenEnv`, though its name says nothing.
const HIDDEN_VALUE: &str = "plain-but-hidden-value-77";
/// A fake secret in the workspace's `.env`.
const DOTENV_SECRET: &str = "dotenv/Fake+Key=77qQ-zz";
/// A fake secret a command writes into `.env.local` and prints in the same command.
const LATER_SECRET: &str = "written-later-by-a-command-9Q";

const CONFIG: &str = r#"{
  "Limits": { "MaxCommandsPerResponse": 100 },
  "Sandbox": { "HiddenEnv": ["MY_PLAIN_VAR"] }
}"#;

/// The ways each command prints the value that `SRC` (a shell command) writes.
const SPELLINGS: &[&str] = &[
    r#"printf 'plain: %s\n' "$(SRC)""#,
    r#"printf '%s' "$(SRC)" | base64 -w0; echo"#,
    r#"printf 'x%s' "$(SRC)" | base64 -w0 | tr -d =; echo"#,
    r#"printf 'xy%s!' "$(SRC)" | base64 -w0 | tr '+/' '-_'; echo"#,
    r#"printf '%s' "$(SRC)" | od -An -v -tx1 | tr -d ' \n'; echo"#,
    r#"printf '%s' "$(SRC)" | od -An -v -tx1 | tr -d ' \n' | tr a-f A-F; echo"#,
    r#"printf 'https://x.test/?q=%s&n=1\n' "$(SRC | sed 's,/,%2F,g; s,+,%2B,g; s,=,%3D,g')""#,
    r#"s="$(SRC)"; printf '\033[1;31m%s\033[0;32m%s\033[0m\n' "$(printf %s "$s" | cut -c1-6)" "$(printf %s "$s" | cut -c7-)""#,
];

/// How each secret is read by the model's commands: from a file the test wrote (a secret the
/// environment withholds reaches a command only that way), or from `.env` itself.
const SOURCES: &[(&str, &str)] = &[
    (ENV_SECRET, "cat leak/env.txt"),
    (HIDDEN_VALUE, "cat leak/hidden.txt"),
    (
        DOTENV_SECRET,
        "sed -n 's/^STRIPE_KEY=//p' .env | tr -d '\\n'",
    ),
];

fn base64(bytes: &[u8], url: bool) -> String {
    let alphabet: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// What of each spelling of `value` is made of the value alone, as the commands print it.
fn spelled(value: &str) -> Vec<String> {
    let core = |before: &str, after: &str, url: bool| {
        let encoded = base64(format!("{before}{value}{after}").as_bytes(), url);
        let first = (8 * before.len()).div_ceil(6);
        let last = 8 * (before.len() + value.len()) / 6;
        encoded[first..last].to_string()
    };
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    let url = value
        .replace('/', "%2F")
        .replace('+', "%2B")
        .replace('=', "%3D");
    vec![
        value.to_string(),
        core("", "", false),
        core("x", "", false),
        core("xy", "!", true),
        hex.to_ascii_uppercase(),
        hex,
        url,
    ]
}

/// No stretch of `secret` as long as `window` is in `out`.
fn none_of(out: &str, secret: &str, window: usize) {
    for part in secret.as_bytes().windows(window) {
        let part = String::from_utf8_lossy(part);
        assert!(
            !out.contains(&*part),
            "{part:?} of {secret:?} reached the results:\n{out}"
        );
    }
}

#[test]
fn known_values_never_reach_the_results_however_a_command_spells_them() {
    let mut commands = Vec::new();
    for (_, source) in SOURCES {
        for spelling in SPELLINGS {
            commands.push(spelling.replace("SRC", source));
        }
    }
    // `base64` as it wraps its output, the wrap inside the secret.
    commands.push("{ head -c 50 /dev/zero | tr '\\0' a; cat leak/env.txt; } | base64".to_string());
    // A command that writes a secret into a `.env` file and shows it: its own result is
    // redacted with it.
    commands.push(
        "printf 'API_TOKEN=%s\\n' \"$(cat leak/later.txt)\" > .env.local && base64 -w0 leak/later.txt; echo"
            .to_string(),
    );
    commands.push(
        "printf '\\033[32mordinary output stays\\033[0m\\n'; echo 'build ok: 42 passed'".into(),
    );
    let mut reply = String::new();
    for cmd in &commands {
        reply.push_str(&format!(
            "@@runcommand on_error=continue\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n"
        ));
    }
    reply.push_str("@@next\n@@end\n@@eof\n");

    let test = Test::new()
        .config(CONFIG)
        .file(
            ".env",
            format!("# settings\nNODE_ENV=development\nSTRIPE_KEY={DOTENV_SECRET}\n"),
        )
        .file("leak/env.txt", ENV_SECRET)
        .file("leak/hidden.txt", HIDDEN_VALUE)
        .file("leak/later.txt", LATER_SECRET)
        .env("MY_SERVICE_TOKEN", ENV_SECRET)
        .env("MY_PLAIN_VAR", HIDDEN_VALUE)
        .args(["--mode", "auto", "--pace", "batch"]);
    let applied = test.apply(&reply);
    let out = format!("{}\n{}", applied.stdout, applied.stderr);
    assert_eq!(applied.code, Some(0), "{out}");

    for (secret, _) in SOURCES {
        for spelling in spelled(secret) {
            none_of(&out, &spelling, 10);
        }
    }
    // The wrapped line's second half holds the value's bits alone (its first half, 9
    // characters, mixes them with the filler).
    let wrapped = base64(format!("{}{ENV_SECRET}", "a".repeat(50)).as_bytes(), false);
    none_of(&out, &wrapped[76..8 * (50 + ENV_SECRET.len()) / 6], 10);
    assert!(
        out.contains(&wrapped[..67]),
        "the filler's base64 stays: {out}"
    );
    none_of(&out, LATER_SECRET, 10);
    none_of(&out, &base64(LATER_SECRET.as_bytes(), false)[..36], 10);
    for tag in [
        "[redacted: env MY_SERVICE_TOKEN]",
        "[redacted: env MY_SERVICE_TOKEN (base64)]",
        "[redacted: env MY_SERVICE_TOKEN (hex)]",
        "[redacted: env MY_SERVICE_TOKEN (url-encoded)]",
        "\x1b[1;31m[redacted: env MY_SERVICE_TOKEN]\x1b[0m",
        "[redacted: env MY_PLAIN_VAR]",
        "[redacted: env MY_PLAIN_VAR (hex)]",
        "[redacted: file .env STRIPE_KEY]",
        "[redacted: file .env STRIPE_KEY (base64",
        "[redacted: file .env STRIPE_KEY (url-encoded)]",
        "\x1b[1;31m[redacted: file .env STRIPE_KEY]\x1b[0m",
        "[redacted: file .env.local API_TOKEN (base64)]",
    ] {
        assert!(out.contains(tag), "no {tag:?} in:\n{out}");
    }
    // Ordinary output stays byte for byte, its colour codes too.
    assert!(
        out.contains("\x1b[32mordinary output stays\x1b[0m\nbuild ok: 42 passed"),
        "{out}"
    );
    assert!(out.contains("https://x.test/?q="), "{out}");
}

/// Runs `cmd` with `sh -c` in `dir`, as the model's command would run, and returns its output.
fn output_in(dir: &std::path::Path, cmd: &str) -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", cmd])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{cmd}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lines of `real` that differ from `decoy` (the same command over a decoy of the same
/// length): the lines that show the secret's bytes. None of them, nor a run of short ones, may
/// reach the results.
fn nothing_shown(out: &str, cmd: &str, real: &str, decoy: &str) {
    let (real, decoy): (Vec<&str>, Vec<&str>) = (real.lines().collect(), decoy.lines().collect());
    assert_eq!(real.len(), decoy.len(), "{cmd}");
    let shows: Vec<bool> = real.iter().zip(&decoy).map(|(r, d)| r != d).collect();
    assert!(
        shows.iter().any(|&s| s),
        "{cmd} shows nothing of the secret"
    );
    let content = |line: &str| line.chars().filter(|c| !c.is_whitespace()).count();
    for start in 0..real.len() {
        for len in 1..=6 {
            let Some(window) = real.get(start..start + len) else {
                break;
            };
            if !shows[start..start + len].iter().all(|&s| s)
                || window.iter().map(|l| content(l)).sum::<usize>() < 6
            {
                continue;
            }
            let shown = window.join("\n");
            assert!(
                !out.contains(&shown),
                "`{cmd}` printed {shown:?}, which reached the results:\n{out}"
            );
        }
    }
}

/// A value with every byte changed, of the same length: what a dump of it shows differs from
/// the secret's dump wherever the secret shows.
fn decoy(secret: &str) -> String {
    secret.bytes().map(|b| char::from(b ^ 1)).collect()
}

#[test]
fn a_known_value_never_reaches_the_results_dumped_odded_or_folded() {
    // Each prints the value the test wrote into `leak/env.txt` and `.env`, after a few bytes
    // so that it starts inside a dump's line.
    const DUMPS: &[&str] = &[
        "xxd",
        "xxd -g1",
        "xxd -p",
        "xxd -i",
        "hexdump -C",
        "hexdump",
        "od -c",
        "od -An -c",
        "od -tx1",
        "od -b",
        "od -x",
        "od",
        "od -An -tx1 -w8",
        "fold -w 7",
        "fold -w 1",
        "base64 | base64",
        "xxd | base64 -w0",
        "base64 -w0 | xxd",
        "xxd -p | base64",
    ];
    const SOURCES: &[&str] = &[
        "cat leak/env.txt",
        "sed -n 's/^STRIPE_KEY=//p' .env | tr -d '\\n'",
    ];
    let env_file = format!("# settings\nNODE_ENV=development\nSTRIPE_KEY={DOTENV_SECRET}\n");
    let test = Test::new()
        .config(CONFIG)
        .file(".env", env_file.clone())
        .file("leak/env.txt", ENV_SECRET)
        .env("MY_SERVICE_TOKEN", ENV_SECRET)
        .args(["--mode", "auto", "--pace", "batch"]);
    // The same files with decoys, for the lines that show nothing of the secrets.
    let decoys = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(decoys.path().join("leak")).unwrap();
    std::fs::write(decoys.path().join("leak/env.txt"), decoy(ENV_SECRET)).unwrap();
    std::fs::write(
        decoys.path().join(".env"),
        env_file.replace(DOTENV_SECRET, &decoy(DOTENV_SECRET)),
    )
    .unwrap();
    let mut commands = Vec::new();
    for source in SOURCES {
        for dump in DUMPS {
            commands.push(format!("{{ printf 'id: '; {source}; }} | {dump}"));
        }
    }
    let ordinary = "printf 'fn main() { println!(\"hello\"); }\\n' | xxd";
    commands.push(ordinary.to_string());
    let mut reply = String::new();
    for cmd in &commands {
        reply.push_str(&format!(
            "@@runcommand on_error=continue\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n"
        ));
    }
    reply.push_str("@@next\n@@end\n@@eof\n");
    let applied = test.apply(&reply);
    let out = format!("{}\n{}", applied.stdout, applied.stderr);
    assert_eq!(applied.code, Some(0), "{out}");
    for cmd in &commands[..commands.len() - 1] {
        let real = output_in(test.ws(), cmd);
        let fake = output_in(decoys.path(), cmd);
        nothing_shown(&out, cmd, &real, &fake);
    }
    for secret in [ENV_SECRET, DOTENV_SECRET] {
        none_of(&out, secret, 8);
    }
    let tags = out.matches("[redacted: ").count();
    assert!(tags >= 2 * DUMPS.len(), "{tags} tags:\n{out}");
    // An ordinary dump stays byte for byte.
    let real = output_in(test.ws(), ordinary);
    assert!(out.contains(real.trim_end()), "{out}");
}

/// Runs `cmd` in `dir` and fails the test when it fails; for the tools that make the keys.
fn make(dir: &std::path::Path, cmd: &str) {
    output_in(dir, cmd);
}

#[test]
fn keys_and_passwords_in_their_files_never_reach_the_results() {
    let test = Test::new()
        .config(CONFIG)
        .args(["--mode", "auto", "--pace", "batch"]);
    let ws = test.ws();
    // Real keys, made now, in the shapes repositories hold them.
    std::fs::create_dir_all(ws.join("keys")).unwrap();
    for cmd in [
        "openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:2048 -out keys/rsa.pem",
        "openssl pkey -in keys/rsa.pem -traditional -out keys/rsa1.pem",
        "openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out keys/ec.pem",
        "openssl pkcs8 -topk8 -in keys/rsa.pem -passout pass:x -out keys/enc.pem",
        "ssh-keygen -q -t ed25519 -N '' -C test -f keys/id_ed25519",
        "openssl pkey -in keys/ec.pem -outform DER | base64 -w0 > keys/ec.der.b64",
    ] {
        make(ws, cmd);
    }
    let read = |path: &str| std::fs::read_to_string(ws.join(path)).unwrap();
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: {}\n",
        output_in(ws, "base64 -w0 keys/rsa1.pem")
    );
    std::fs::write(ws.join("kubeconfig"), kubeconfig).unwrap();
    let docker_auth = output_in(ws, "printf 'deploy:Dock3r-p4ss-9911' | base64 -w0");
    let files = [
        (
            "settings.xml",
            "<settings><servers><server><id>central</id><username>deploy</username><password>Mvn-p4ss-7781</password></server></servers></settings>\n".to_string(),
        ),
        (
            "web.config",
            "<configuration><appSettings><add key=\"SmtpPassword\" value=\"Smtp-p4ss-1180\"/><add key=\"PageSize\" value=\"20\"/></appSettings>\n<connectionStrings><add name=\"Main\" connectionString=\"Server=db;Database=app;User Id=sa;Password=Sql-p4ss-2231;\"/></connectionStrings></configuration>\n".to_string(),
        ),
        ("wp-config.php", "<?php\ndefine( 'DB_PASSWORD', 'Wp-db-p4ss-5512' );\ndefine( 'DB_HOST', 'localhost' );\n".to_string()),
        ("config.json", format!("{{\"auths\": {{\"ghcr.io\": {{\"auth\": \"{docker_auth}\"}}}}}}\n")),
        (".npmrc", format!("registry=https://registry.example/\n_auth={docker_auth}\n")),
        (".pypirc", "[pypi]\nusername = __token__\npassword = Pypi-p4ss-3344\n".to_string()),
        ("gradle.properties", "org.gradle.jvmargs=-Xmx2g\nsigning.password=Gradle-p4ss-6677\n".to_string()),
    ];
    for (path, text) in &files {
        std::fs::write(ws.join(path), text).unwrap();
    }
    let commands = [
        "cat keys/rsa.pem keys/rsa1.pem keys/ec.pem keys/enc.pem keys/id_ed25519",
        "cat kubeconfig",
        "base64 keys/ec.pem",
        "base64 -w 64 keys/rsa1.pem | sed 's/^/    /'",
        "xxd keys/id_ed25519",
        "od -c keys/ec.pem",
        "cat keys/ec.der.b64; echo",
        "openssl pkey -in keys/rsa.pem -outform DER | base64 -w0; echo",
        "openssl pkey -in keys/ec.pem -text -noout",
        "cat settings.xml web.config wp-config.php config.json .npmrc .pypirc gradle.properties",
        "base64 -w0 wp-config.php; echo",
    ];
    let mut reply = String::new();
    for cmd in &commands {
        reply.push_str(&format!(
            "@@runcommand on_error=continue\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n"
        ));
    }
    reply.push_str("@@next\n@@end\n@@eof\n");
    let applied = test.apply(&reply);
    let out = format!("{}\n{}", applied.stdout, applied.stderr);
    assert_eq!(applied.code, Some(0), "{out}");

    // No line of a key's body, as it is, base64-encoded, dumped or in openssl's numbers.
    for key in [
        "keys/rsa.pem",
        "keys/rsa1.pem",
        "keys/ec.pem",
        "keys/enc.pem",
        "keys/id_ed25519",
    ] {
        for line in read(key).lines().filter(|l| !l.starts_with("-----")) {
            assert!(
                !out.contains(line),
                "{key}: {line:?} reached the results:\n{out}"
            );
        }
    }
    for cmd in [
        "base64 keys/ec.pem",
        "base64 -w 64 keys/rsa1.pem",
        "xxd keys/id_ed25519",
        "od -c keys/ec.pem",
        "openssl pkey -in keys/rsa.pem -outform DER | base64 -w0",
        "base64 -w0 keys/rsa1.pem",
    ] {
        for line in output_in(ws, cmd).lines() {
            for part in line.as_bytes().chunks(24).filter(|p| p.len() >= 12) {
                let part = String::from_utf8_lossy(part);
                if part.starts_with("00000000") || part.trim().len() < 12 {
                    continue;
                }
                assert!(
                    !out.contains(&*part),
                    "`{cmd}`: {part:?} reached the results:\n{out}"
                );
            }
        }
    }
    none_of(&out, &read("keys/ec.der.b64"), 16);
    let numbers = output_in(ws, "openssl pkey -in keys/ec.pem -text -noout");
    for line in numbers.lines().filter(|l| l.starts_with("    ")) {
        assert!(
            !out.contains(line.trim()),
            "{line:?} reached the results:\n{out}"
        );
    }
    for password in [
        "Mvn-p4ss-7781",
        "Smtp-p4ss-1180",
        "Sql-p4ss-2231",
        "Wp-db-p4ss-5512",
        "Pypi-p4ss-3344",
        "Gradle-p4ss-6677",
        docker_auth.as_str(),
    ] {
        assert!(
            !out.contains(password),
            "{password} reached the results:\n{out}"
        );
    }
    // The characters of the encoded file made of the password's bits alone.
    let (php, password) = (read("wp-config.php"), "Wp-db-p4ss-5512");
    let at = php.find(password).unwrap();
    let encoded = output_in(ws, "base64 -w0 wp-config.php");
    none_of(
        &out,
        &encoded[(8 * at).div_ceil(6)..8 * (at + password.len()) / 6],
        8,
    );
    assert!(out.contains("[redacted: private-key]"), "{out}");
    assert!(out.contains("[redacted: registry-auth]"), "{out}");
    // What is no secret stays.
    for kept in [
        "<username>deploy</username>",
        "<add key=\"PageSize\" value=\"20\"/>",
        "define( 'DB_HOST', 'localhost' );",
        "registry=https://registry.example/",
        "username = __token__",
        "org.gradle.jvmargs=-Xmx2g",
        "client-key-data: ",
    ] {
        assert!(out.contains(kept), "{kept:?} was lost:\n{out}");
    }
}
