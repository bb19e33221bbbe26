//! The redactor against the shapes secrets take in repositories and the re-encodings a reader can
//! undo: private keys in every common encoding, passwords in each ecosystem's configuration
//! styles, and a secret hex-dumped, od'ed, folded or encoded twice; with the ordinary code and
//! prose that must come out as it went in.

use proptest::prelude::*;

use super::encode::reference_base64;
use super::tests::{ALNUM, BASE64, URLSAFE, check, check_with, fake};
use super::{KnownValue, Redactor};

/// `n` pseudo-random bytes, the same for the same seed: a key's body.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

fn b64(bytes: &[u8]) -> String {
    reference_base64(bytes, false)
}

/// `text` cut into lines of `width` bytes (ASCII), as `fold -w` and `base64` write it.
fn fold(text: &str, width: usize, indent: &str) -> String {
    text.as_bytes()
        .chunks(width)
        .map(|line| format!("{indent}{}\n", String::from_utf8_lossy(line)))
        .collect()
}

/// A PEM block of `kind` with a body of base64 lines 64 wide.
fn pem(kind: &str, seed: u64) -> String {
    format!(
        "-----BEGIN {kind}-----\n{}-----END {kind}-----",
        fold(&b64(&noise(300, seed)), 64, "")
    )
}

// Dumps as `xxd`, `hexdump -C` and GNU `od` print them (checked against the real programs in
// `tests/it/redact_values.rs`).

fn printable(b: u8) -> char {
    if (0x20..0x7f).contains(&b) {
        char::from(b)
    } else {
        '.'
    }
}

fn xxd(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        let groups: Vec<String> = line
            .chunks(2)
            .map(|g| g.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        let chars: String = line.iter().map(|&b| printable(b)).collect();
        out.push_str(&format!(
            "{:08x}: {:<39}  {chars}\n",
            16 * i,
            groups.join(" ")
        ));
    }
    out
}

fn hexdump_canonical(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        let mut hex = String::new();
        for (j, b) in line.iter().enumerate() {
            hex.push_str(&format!("{}{b:02x}", if j == 8 { "  " } else { " " }));
        }
        let chars: String = line.iter().map(|&b| printable(b)).collect();
        out.push_str(&format!("{:08x} {hex:<49}  |{chars}|\n", 16 * i));
    }
    out + &format!("{:08x}\n", bytes.len())
}

fn od_chars(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("{:07o}", 16 * i));
        for &b in line {
            let cell = match b {
                b'\n' => "\\n".to_string(),
                b'\t' => "\\t".to_string(),
                0 => "\\0".to_string(),
                0x20..=0x7e => char::from(b).to_string(),
                _ => format!("{b:03o}"),
            };
            out.push_str(&format!("{cell:>4}"));
        }
        out.push('\n');
    }
    out + &format!("{:07o}\n", bytes.len())
}

fn od_words(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("{:07o}", 16 * i));
        for pair in line.chunks(2) {
            let word = u16::from(pair[0]) | (u16::from(*pair.get(1).unwrap_or(&0)) << 8);
            out.push_str(&format!(" {word:04x}"));
        }
        out.push('\n');
    }
    out + &format!("{:07o}\n", bytes.len())
}

fn od_bytes(bytes: &[u8], octal: bool) -> String {
    let mut out = String::new();
    for (i, line) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("{:07o}", 16 * i));
        for b in line {
            out.push_str(&if octal {
                format!(" {b:03o}")
            } else {
                format!(" {b:02x}")
            });
        }
        out.push('\n');
    }
    out + &format!("{:07o}\n", bytes.len())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const TOKEN_VALUE: &str = "Zq7x8-fake/secret+value-2b9d";

fn known() -> Redactor {
    Redactor::from_known(vec![KnownValue::env("MY_TOKEN", TOKEN_VALUE)], vec![])
}

/// `out` holds no stretch of `secret` as long as `window`, neither as it is nor in hex.
fn none_of(out: &str, secret: &str, window: usize) {
    let spaced = |h: &str| -> String {
        h.as_bytes()
            .chunks(2)
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    for part in secret.as_bytes().windows(window) {
        let plain = String::from_utf8_lossy(part);
        let h = hex(part);
        for shape in [plain.to_string(), h.clone(), spaced(&h)] {
            assert!(
                !out.contains(&shape),
                "{shape:?} of {secret:?} is in:\n{out}"
            );
        }
    }
}

/// Redacts `text` with `redactor`: at least one tag, nothing of `secret`, a second pass changes
/// nothing, and the lines `kept` stay.
fn masks(redactor: &Redactor, text: &str, secret: &str, kept: &[&str]) -> String {
    let out = redactor.redact(text);
    assert!(out.count > 0, "nothing found in:\n{text}");
    none_of(&out.text, secret, 8);
    for line in kept {
        assert!(out.text.contains(line), "{line:?} lost:\n{}", out.text);
    }
    let again = redactor.redact(&out.text);
    assert_eq!(again.count, 0, "second pass of:\n{}", out.text);
    out.text
}

#[test]
fn pem_private_keys_of_every_kind_are_redacted_whole() {
    for (i, kind) in [
        "PRIVATE KEY",
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "DSA PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ]
    .iter()
    .enumerate()
    {
        let key = pem(kind, i as u64);
        check(
            &format!("before\n{key}\nafter\n"),
            "before\n[redacted: private-key]\nafter\n",
        );
        // On one line, as a variable or a CI setting flattens it, and in a JSON string.
        let one_line = key.replace('\n', " ");
        check(
            &format!("KEY_PEM is {one_line} ok"),
            "KEY_PEM is [redacted: private-key] ok",
        );
        let json = key.replace('\n', "\\n");
        check(
            &format!(r#"{{"key": "{json}\n", "id": 1}}"#),
            r#"{"key": "[redacted: private-key]\n", "id": 1}"#,
        );
    }
    let ssh2 = format!(
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"k\"\n{}---- END SSH2 ENCRYPTED PRIVATE KEY ----",
        fold(&b64(&noise(200, 9)), 70, "")
    );
    check(&format!("{ssh2}\n"), "[redacted: private-key]\n");
    // Code that names the header is no key.
    for code in [
        r#"if line.starts_with("-----BEGIN PRIVATE KEY-----") {"#,
        "const HEADER: &str = \"-----BEGIN RSA PRIVATE KEY-----\";",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    ] {
        check(code, code);
    }
}

#[test]
fn a_pem_key_encoded_once_is_redacted_as_kubernetes_and_kubeconfig_hold_it() {
    let key = pem("RSA PRIVATE KEY", 1) + "\n";
    let encoded = b64(key.as_bytes());
    assert!(encoded.starts_with("LS0tLS1CRUdJTi"));
    let certificate = b64(format!("{}\n", pem("CERTIFICATE", 2)).as_bytes());
    let kubeconfig = format!(
        "users:\n- name: admin\n  user:\n    client-certificate-data: {certificate}\n    client-key-data: {encoded}\n"
    );
    check(
        &kubeconfig,
        &format!(
            "users:\n- name: admin\n  user:\n    client-certificate-data: {certificate}\n    client-key-data: [redacted: private-key]Cg==\n"
        ),
    );
    // A Secret's data, and the same base64 wrapped at 76 (`base64`) and indented in YAML.
    let secret = format!("kind: Secret\ndata:\n  tls.key: {encoded}\n");
    check(
        &secret,
        "kind: Secret\ndata:\n  tls.key: [redacted: private-key]Cg==\n",
    );
    let wrapped = fold(&encoded, 76, "");
    let out = masks(
        &Redactor::default(),
        &format!("$ base64 key.pem\n{wrapped}$ ls\n"),
        &encoded[..200],
        &["$ base64 key.pem\n", "$ ls\n"],
    );
    assert!(out.contains("[redacted: private-key]"), "{out}");
    let indented = fold(&encoded, 64, "    ");
    let out = masks(
        &Redactor::default(),
        &format!("tls.key: |\n{indented}other: 1\n"),
        &encoded[..200],
        &["tls.key: |\n", "other: 1\n"],
    );
    assert!(out.contains("[redacted: private-key]"), "{out}");
}

#[test]
fn the_base64_of_a_keys_der_is_redacted_by_its_first_bytes() {
    // Each kind's first bytes (RFC 8017, 5915, 5958, 7292, OpenSSH's PROTOCOL.key).
    let kinds: &[(&str, &[u8])] = &[
        (
            "pkcs1 rsa 2048",
            &[
                0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00,
            ],
        ),
        (
            "pkcs1 rsa 1024",
            &[
                0x30, 0x82, 0x02, 0x5d, 0x02, 0x01, 0x00, 0x02, 0x81, 0x81, 0x00,
            ],
        ),
        (
            "pkcs8 rsa",
            &[
                0x30, 0x82, 0x04, 0xbd, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a,
            ],
        ),
        (
            "pkcs8 ec p-256",
            &[0x30, 0x81, 0x87, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07],
        ),
        ("sec1 ec p-256", &[0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20]),
        (
            "sec1 ec p-384",
            &[0x30, 0x81, 0xa4, 0x02, 0x01, 0x01, 0x04, 0x30],
        ),
        (
            "pkcs8 ed25519",
            &[
                0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
            ],
        ),
        (
            "pkcs12",
            &[
                0x30, 0x82, 0x09, 0xcf, 0x02, 0x01, 0x03, 0x30, 0x82, 0x09, 0x85,
            ],
        ),
        (
            "encrypted pkcs8",
            &[
                0x30, 0x82, 0x05, 0x2d, 0x30, 0x57, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d,
                0x01, 0x05, 0x0d, 0x30,
            ],
        ),
        ("openssh", b"openssh-key-v1\0\0\0\0\x04none"),
    ];
    for (i, (kind, head)) in kinds.iter().enumerate() {
        let mut der = head.to_vec();
        der.extend(noise(120, 40 + i as u64));
        let encoded = b64(&der);
        check(
            &format!("SIGNING_KEY_BODY {encoded} end"),
            "SIGNING_KEY_BODY [redacted: private-key] end",
        );
        let _ = kind;
    }
    // Public keys and certificates are no private keys.
    let public: &[&[u8]] = &[
        &[
            0x30, 0x82, 0x03, 0x77, 0x30, 0x82, 0x02, 0x5f, 0xa0, 0x03, 0x02, 0x01, 0x02,
        ],
        &[
            0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7,
        ],
        &[0x30, 0x82, 0x01, 0x0a, 0x02, 0x82, 0x01, 0x01, 0x00],
    ];
    for (i, head) in public.iter().enumerate() {
        let mut der = head.to_vec();
        der.extend(noise(120, 80 + i as u64));
        let text = format!("cert {} end", b64(&der));
        check(&text, &text);
    }
}

#[test]
fn putty_jwk_and_openssl_text_keys() {
    let ppk = format!(
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@host\nPublic-Lines: 2\n{}Private-Lines: 1\n{}Private-MAC: {}\n",
        fold(&b64(&noise(51, 3)), 64, ""),
        b64(&noise(48, 4)),
        hex(&noise(32, 5))
    );
    check(
        &format!("$ cat id.ppk\n{ppk}$ ls\n"),
        "$ cat id.ppk\n[redacted: private-key]\n$ ls\n",
    );

    let d = fake("", 43, URLSAFE);
    let (p, q) = (fake("p", 42, URLSAFE), fake("q", 42, URLSAFE));
    let jwk = format!(
        r#"{{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZpt","e":"AQAB","d":"{d}","p":"{p}","q":"{q}","kid":"2011-04-29"}}"#
    );
    check(
        &jwk,
        r#"{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZpt","e":"AQAB","d":"[redacted: private-key]","p":"[redacted: private-key]","q":"[redacted: private-key]","kid":"2011-04-29"}"#,
    );
    // Members in another order, pretty-printed; a symmetric key's `k`.
    let ec = format!("{{\n  \"crv\": \"P-256\",\n  \"d\": \"{d}\",\n  \"kty\": \"EC\"\n}}");
    check(
        &ec,
        "{\n  \"crv\": \"P-256\",\n  \"d\": \"[redacted: private-key]\",\n  \"kty\": \"EC\"\n}",
    );
    let oct = format!(r#"{{"kty":"oct","k":"{d}"}}"#);
    check(&oct, r#"{"kty":"oct","k":"[redacted: private-key]"}"#);
    // `"d"` in JSON that is no key stays.
    for json in [
        r#"{"d": "2024-01-01", "p": "page"}"#,
        r#"{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZpt","e":"AQAB"}"#,
    ] {
        check(json, json);
    }

    let text = format!(
        "Private-Key: (2048 bit, 2 primes)\nmodulus:\n    00:c3:a5:{}\npublicExponent: 65537 (0x10001)\nprivateExponent:\n    {}\nprime1:\n    {}\nwriting RSA key\n",
        "de:ad:be:ef", "4a:bc:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f", "00:ff:ee:dd"
    );
    check(&text, "[redacted: private-key]writing RSA key\n");
    let age = format!(
        "AGE-SECRET-KEY-1{}",
        fake("", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
    );
    check(
        &format!("# key: {age}\n"),
        "# key: [redacted: private-key]\n",
    );
}

#[test]
fn passwords_in_xml_and_its_kin() {
    let cases = [
        (
            "<password>x</password>",
            "<password>[redacted: secret-value]</password>",
        ),
        (
            "  <Password> hunter2 </Password>",
            "  <Password> [redacted: secret-value] </Password>",
        ),
        (
            "<secret>s3cr3t-v4lue</secret>",
            "<secret>[redacted: secret-value]</secret>",
        ),
        (
            "<db.password>pw12</db.password>",
            "<db.password>[redacted: secret-value]</db.password>",
        ),
        (
            "<sec:apiKey>abcd1234</sec:apiKey>",
            "<sec:apiKey>[redacted: secret-value]</sec:apiKey>",
        ),
        // Maven's settings.xml, its encrypted form too.
        (
            "<server>\n  <id>central</id>\n  <username>deploy</username>\n  <password>{COQLCE6DU6GtcS5P=}</password>\n</server>",
            "<server>\n  <id>central</id>\n  <username>deploy</username>\n  <password>[redacted: secret-value]</password>\n</server>",
        ),
        (
            r#"<connectionString>Server=db;Database=app;User Id=sa;Password=p4ss w0rd;</connectionString>"#,
            r#"<connectionString>Server=db;Database=app;User Id=sa;Password=[redacted: secret-value];</connectionString>"#,
        ),
        (
            r#"<add name="Main" connectionString="Data Source=.;Initial Catalog=x;Pwd=abc" />"#,
            r#"<add name="Main" connectionString="Data Source=.;Initial Catalog=x;Pwd=[redacted: secret-value]" />"#,
        ),
        (
            r#"<user name="me" password="pw1" />"#,
            r#"<user name="me" password="[redacted: secret-value]" />"#,
        ),
        (
            r#"<add key="DbPassword" value="s3cret"/>"#,
            r#"<add key="DbPassword" value="[redacted: secret-value]"/>"#,
        ),
        (
            r#"<property name="password" value="tiger"/>"#,
            r#"<property name="password" value="[redacted: secret-value]"/>"#,
        ),
        (
            r#"<entry key="api.token">t0ken-value</entry>"#,
            r#"<entry key="api.token">[redacted: secret-value]</entry>"#,
        ),
        (
            "<key>password</key>\n\t<string>hunter2</string>",
            "<key>password</key>\n\t<string>[redacted: secret-value]</string>",
        ),
    ];
    for (input, expected) in cases {
        check(input, expected);
    }
    // Empty, templated, a field of a form, a label: no password.
    for text in [
        "<password></password>",
        "<password/>",
        "<password>${env.DB_PASSWORD}</password>",
        "<password>@db.password@</password>",
        r#"<input type="password" name="password" value="" autocomplete="current-password">"#,
        r#"<input type="password" name="password" value="{{ form.password }}">"#,
        r#"<label for="password">Password</label>"#,
        r#"<add key="PageSize" value="20"/>"#,
        "<key>name</key><string>keyless</string>",
        "<b>the password</b> is needed",
    ] {
        check(text, text);
    }
}

#[test]
fn passwords_in_the_other_configuration_styles() {
    let npm = fake("npm_", 36, ALNUM);
    let auth = b64(b"deploy:s3cret-pass");
    let cases = [
        (
            "define('DB_PASSWORD', 'pw1');",
            "define('DB_PASSWORD', '[redacted: secret-value]');",
        ),
        (
            r#"define("AUTH_KEY", "k#9 Lp!x");"#,
            r#"define("AUTH_KEY", "[redacted: secret-value]");"#,
        ),
        (
            r#"os.environ.setdefault("API_TOKEN", "tok-9")"#,
            r#"os.environ.setdefault("API_TOKEN", "[redacted: secret-value]")"#,
        ),
        (
            "Server=tcp:db;User ID=app;Pwd=abc;",
            "Server=tcp:db;User ID=app;Pwd=[redacted: secret-value];",
        ),
        (
            "jdbc:sqlserver://h;user=u;password=pw;",
            "jdbc:sqlserver://h;user=u;password=[redacted: secret-value];",
        ),
        (
            &format!(r#"{{"auths": {{"ghcr.io": {{"auth": "{auth}"}}}}}}"#),
            r#"{"auths": {"ghcr.io": {"auth": "[redacted: registry-auth]"}}}"#,
        ),
        (
            &format!("_auth={auth}\nemail=me@x.io\n"),
            "_auth=[redacted: registry-auth]\nemail=me@x.io\n",
        ),
        (
            &format!("//registry.npmjs.org/:_auth=\"{auth}\"\n"),
            "//registry.npmjs.org/:_auth=\"[redacted: registry-auth]\"\n",
        ),
        (
            &format!("//registry.npmjs.org/:_authToken={npm}\n"),
            "//registry.npmjs.org/:_authToken=[redacted: npm-token]\n",
        ),
        (
            "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJDk\n",
            "[pypi]\nusername = __token__\npassword = [redacted: secret-value]\n",
        ),
        (
            "signing.password=s1gn1ngPass\n",
            "signing.password=[redacted: secret-value]\n",
        ),
        (
            "ossrhPassword=hunter2hunter2\n",
            "ossrhPassword=[redacted: secret-value]\n",
        ),
        (
            "[distutils]\n[testpypi]\npassword: pypi-AgENdGVzdC5weXBpLm9yZw\n",
            "[distutils]\n[testpypi]\npassword: [redacted: secret-value]\n",
        ),
        (
            "//npm.pkg.example.com/:_authToken=abcd1234efgh5678\n",
            "//npm.pkg.example.com/:_authToken=[redacted: secret-value]\n",
        ),
        // Lines of one width are no folded value: the next line stays.
        (
            "password = Pypi-p4ss-3344\norg.gradle.jvmargs=-Xmx2g\n",
            "password = [redacted: secret-value]\norg.gradle.jvmargs=-Xmx2g\n",
        ),
        (
            "machine api.example.com login me password Tr1cky-pass\n",
            "machine api.example.com login me password [redacted: netrc-password]\n",
        ),
        (
            "CREATE USER app IDENTIFIED BY 'pw';",
            "CREATE USER app IDENTIFIED BY '[redacted: secret-value]';",
        ),
        (
            "ALTER ROLE app WITH LOGIN PASSWORD 'pw2';",
            "ALTER ROLE app WITH LOGIN PASSWORD '[redacted: secret-value]';",
        ),
        (
            "amqp://guest:gu3st@mq:5672/",
            "amqp://guest:[redacted: url-password]@mq:5672/",
        ),
    ];
    for (input, expected) in cases {
        check(input, expected);
    }
    for text in [
        "password = input()",
        "password = getpass.getpass()",
        "let password = prompt(\"Password: \");",
        "The password is required to log in.",
        "error: password authentication failed for user \"app\"",
        "t('password', 'Password')",
        "config.get(\"password\", \"\")",
        "Password=${DB_PASSWORD};",
        r#"{"auth": "none"}"#,
        "_auth=",
        "TimeoutSeconds=30;Pooling=true;",
    ] {
        check(text, text);
    }
}

#[test]
fn a_known_value_is_found_in_dumps_and_folded_lines() {
    let redactor = known();
    let value = TOKEN_VALUE.as_bytes();
    let tag = "[redacted: env MY_TOKEN]";
    // The value at byte 0 and to the end of the dump: the redaction runs from its first digits
    // to the end of its last line.
    let dumps = [
        (xxd(value), "00000000: ".to_string() + tag + "\n"),
        (
            hexdump_canonical(value),
            format!("00000000  {tag}\n0000001c\n"),
        ),
        (od_chars(value), format!("0000000   {tag}\n0000034\n")),
        (od_bytes(value, false), format!("0000000 {tag}\n0000034\n")),
        (od_bytes(value, true), format!("0000000 {tag}\n0000034\n")),
        (od_words(value), format!("0000000 {tag}\n0000034\n")),
    ];
    for (dump, expected) in dumps {
        check_with(&redactor, &dump, &expected);
    }
    // Lists of bytes: `xxd -i`, colons, spaced upper-case hex.
    let list: Vec<String> = value.iter().map(|b| format!("0x{b:02x}")).collect();
    let xxd_i = format!("unsigned char k[] = {{\n  {}\n}};\n", list.join(", "));
    check_with(
        &redactor,
        &xxd_i,
        &format!("unsigned char k[] = {{\n  {tag}\n}};\n"),
    );
    let spaced: Vec<String> = value.iter().map(|b| format!("{b:02X}")).collect();
    check_with(&redactor, &spaced.join(" "), tag);
    check_with(&redactor, &spaced.join(":"), tag);
    // Folded at any width, and one character a line.
    for width in [1, 5, 10, 20] {
        let folded = fold(TOKEN_VALUE, width, "");
        check_with(
            &redactor,
            &format!("$ fold\n{folded}$ ls\n"),
            &format!("$ fold\n{tag}\n$ ls\n"),
        );
    }
    // `xxd -p`, wrapped at 60.
    let plain = fold(&hex(value), 60, "");
    let out = masks(&redactor, &plain, TOKEN_VALUE, &[]);
    assert!(out.contains("(hex)"), "{out}");
}

#[test]
fn a_known_value_of_several_lines_and_one_on_an_indented_line_are_found() {
    let redactor = Redactor::from_known(
        vec![
            KnownValue::file(".env", "CERT_KEY", "first-line-secret\nsecond-line-secret"),
            KnownValue::env("MY_TOKEN", TOKEN_VALUE),
        ],
        vec![],
    );
    check_with(
        &redactor,
        "key:\nfirst-line-secret\nsecond-line-secret\nend\n",
        "key:\n[redacted: file .env CERT_KEY]\nend\n",
    );
    check_with(
        &redactor,
        &format!("env:\n    token: {TOKEN_VALUE}\n  other: 1\n"),
        "env:\n    token: [redacted: env MY_TOKEN]\n  other: 1\n",
    );
}

#[test]
fn a_known_value_encoded_twice_is_found() {
    let redactor = known();
    let value = TOKEN_VALUE.as_bytes();
    let cases = [
        // base64 of base64, of hex, of an `xxd` dump, of `od -c`; hex of base64.
        b64(b64(value).as_bytes()),
        b64(hex(value).as_bytes()),
        b64(xxd(value).as_bytes()),
        b64(od_chars(value).as_bytes()),
        hex(b64(value).as_bytes()),
        // An `xxd` dump of base64, wrapped base64 of a dump.
        xxd(b64(value).as_bytes()),
        // Folded, then encoded: the break is inside the decoded data.
        b64(fold(TOKEN_VALUE, 10, "").as_bytes()),
        fold(&b64(xxd(value).as_bytes()), 76, ""),
    ];
    for text in cases {
        masks(
            &redactor,
            &format!("$ cmd\n{text}\n$ ls\n"),
            TOKEN_VALUE,
            &["$ cmd\n", "$ ls\n"],
        );
        let out = redactor.redact(&text).text;
        assert!(
            !out.contains(&b64(value)[..12]) && !out.contains(&hex(&value[..8])),
            "{out}"
        );
    }
}

#[test]
fn shapes_are_found_in_dumps_and_encodings() {
    let redactor = Redactor::default();
    let key = pem("RSA PRIVATE KEY", 7);
    let out = masks(
        &redactor,
        &format!("$ xxd id_rsa\n{}$ ls\n", xxd(key.as_bytes())),
        &key[40..200],
        &["$ xxd id_rsa\n", "$ ls\n"],
    );
    assert!(out.contains("[redacted: private-key]"), "{out}");
    // A token folded by `fold -w 20`, and one od'ed.
    let token = fake("ghp_", 36, ALNUM);
    let out = masks(
        &redactor,
        &format!("$ fold -w 20 t\n{}$ ls\n", fold(&token, 20, "")),
        &token,
        &["$ ls\n"],
    );
    assert!(out.contains("[redacted: github-token]"), "{out}");
    let out = masks(
        &redactor,
        &od_chars(format!("token {token}\n").as_bytes()),
        &token,
        &[],
    );
    assert!(out.contains("[redacted: github-token]"), "{out}");
    // A `.npmrc` and a `.env`, base64-encoded.
    let npmrc = format!(
        "registry=https://r.example/\n//r.example/:_authToken={}\n",
        fake("npm_", 36, ALNUM)
    );
    let out = masks(
        &redactor,
        &format!("NPMRC_B64={}\n", b64(npmrc.as_bytes())),
        &npmrc[30..],
        &[],
    );
    assert!(out.contains("[redacted: npm-token]"), "{out}");
    let env = format!("DB_PASSWORD={}\n", fake("", 20, BASE64));
    let out = masks(&redactor, &b64(env.as_bytes()), &env[12..], &[]);
    assert!(out.contains("[redacted: secret-value]"), "{out}");
}

#[test]
fn ordinary_dumps_and_encoded_data_stay() {
    let redactor = known();
    let texts = [
        xxd(b"fn main() { println!(\"hello, world\"); }\n"),
        hexdump_canonical(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0"),
        od_chars(b"line one\nline two\n"),
        b64(b"{\"name\":\"keyless\",\"version\":\"0.1.0\"}"),
        fold(&hex(&noise(90, 11)), 60, ""),
        "commit 4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Dev <dev@example.com>\n".into(),
        "00:1a:2b:3c:4d:5e is the MAC\n".into(),
    ];
    for text in texts {
        check_with(&redactor, &text, &text);
    }
}

/// What a reader reads in `text`: the text, its dumps read back, its lines joined.
fn readings(text: &str) -> Vec<String> {
    let mut out = vec![text.to_string()];
    out.extend(super::dump::decoded(text).map(|v| v.text().to_string()));
    out.extend(super::fold::joined(text).map(|v| v.text().to_string()));
    out
}

proptest! {
    /// Whatever the value (8 to 40 characters with no hex digit, so that offsets cannot spell
    /// it), its `xxd`, `hexdump -C`, `od -c`, `od -tx1` and folded forms, after other bytes,
    /// leave nothing of it that a reader could read back.
    #[test]
    fn any_known_value_is_masked_in_any_dump(
        value in "[g-zG-Z!#%&*+,.;<>?@^_~-]{8,40}",
        before in "[a-z \n]{0,20}",
        width in 1usize..30,
    ) {
        let redactor = Redactor::from_known(vec![KnownValue::env("K_TOKEN", value.as_str())], vec![]);
        let data = format!("{before}{value}\n");
        for text in [
            xxd(data.as_bytes()),
            hexdump_canonical(data.as_bytes()),
            od_chars(data.as_bytes()),
            od_bytes(data.as_bytes(), false),
            fold(&data, width, ""),
        ] {
            let out = redactor.redact(&text);
            prop_assert!(out.count > 0, "{}", text);
            for reading in readings(&out.text) {
                for part in value.as_bytes().windows(8) {
                    let part = std::str::from_utf8(part).unwrap_or_default();
                    prop_assert!(!reading.contains(part), "{:?} in {:?}", part, reading);
                }
            }
            prop_assert_eq!(redactor.redact(&out.text).count, 0);
        }
    }
}
