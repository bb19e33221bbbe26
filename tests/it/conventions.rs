//! What users expect of a command-line tool beside the tool: shell completions and a man page
//! generated from the same definitions (and working in the real shell and `man`), a LICENSE
//! that matches `Cargo.toml`, a CHANGELOG, and a README whose every flag and path exists.

use std::process::{Command, Output};

fn keyless(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(args)
        .output()
        .unwrap()
}

/// The subcommands `keyless --help` lists.
fn subcommands() -> Vec<String> {
    let help = String::from_utf8(keyless(&["--help"]).stdout).unwrap();
    let commands = help.split("Commands:").nth(1).unwrap();
    commands
        .lines()
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn completions_for_every_shell_name_every_subcommand_and_bash_loads_them() {
    let commands = subcommands();
    assert!(commands.len() >= 12, "{commands:?}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = keyless(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell}: no {command}");
        }
        assert!(script.contains("json"), "{shell}: no --json");
    }
    // The real bash loads the script and completes keyless with it.
    let script = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(script.path(), keyless(&["completions", "bash"]).stdout).unwrap();
    let bash = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} && complete -p keyless && COMP_WORDS=(keyless inter); COMP_CWORD=1; _keyless keyless inter keyless; echo \"${{COMPREPLY[@]}}\"",
            script.path().display()
        ))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&bash.stdout);
    assert!(
        bash.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&bash.stderr)
    );
    assert!(said.contains("-F _keyless keyless"), "{said}");
    assert!(said.contains("interactive"), "{said}");
    let out = keyless(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_man_page_renders_and_names_every_subcommand_and_each_has_its_own() {
    let out = keyless(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH keyless 1"), "{page}");
    assert!(
        page.contains(env!("CARGO_PKG_VERSION")),
        "the version: {page}"
    );
    for command in subcommands() {
        assert!(page.contains(&command), "no {command}");
    }
    // `man` itself reads it.
    let file = tempfile::Builder::new().suffix(".1").tempfile().unwrap();
    std::fs::write(file.path(), &page).unwrap();
    let man = Command::new("man")
        .arg("-l")
        .arg(file.path())
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&man.stdout);
    assert!(
        man.status.success(),
        "{}",
        String::from_utf8_lossy(&man.stderr)
    );
    assert!(shown.contains("no API key"), "{shown}");
    let out = keyless(&["man", "run"]);
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH keyless-run 1"), "{page}");
    assert!(page.contains("json"), "{page}");
    assert_eq!(keyless(&["man", "nope"]).status.code(), Some(2));
}

#[test]
fn the_license_file_is_the_one_cargo_toml_names_and_the_changelog_has_this_version() {
    let cargo = std::fs::read_to_string("Cargo.toml").unwrap();
    assert!(
        cargo.contains("license = \"MIT\""),
        "Cargo.toml's license changed"
    );
    let license = std::fs::read_to_string("LICENSE").unwrap();
    assert!(license.starts_with("MIT License\n"), "{license}");
    assert!(license.contains("Permission is hereby granted, free of charge"));
    let changelog = std::fs::read_to_string("CHANGELOG.md").unwrap();
    assert!(changelog.contains("## [Unreleased]"), "{changelog}");
    assert!(
        changelog.contains(&format!("## [{}]", env!("CARGO_PKG_VERSION"))),
        "the current version has its entry"
    );
}

/// The README's `--flags`, each one that keyless has (in some subcommand's help).
#[test]
fn every_flag_and_path_the_readme_names_exists() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let mut help = String::from_utf8(keyless(&["--help"]).stdout).unwrap();
    for command in subcommands() {
        help.push_str(&String::from_utf8(keyless(&[&command, "--help"]).stdout).unwrap());
    }
    // Flags of other programs the README quotes (cargo, the compilers' targets).
    let others = ["--release", "--path", "--target", "--test"];
    let mut flags: Vec<&str> = readme
        .match_indices("--")
        .filter_map(|(at, _)| {
            let before = readme[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-') {
                return None;
            }
            let rest = &readme[at..];
            let end = rest[2..]
                .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
                .map_or(rest.len(), |i| i + 2);
            let flag = rest[..end].trim_end_matches('-');
            (flag.len() > 2).then_some(flag)
        })
        .filter(|flag| !others.contains(flag))
        .collect();
    flags.sort();
    flags.dedup();
    assert!(flags.len() > 10, "{flags:?}");
    for flag in flags {
        assert!(
            help.contains(&format!("{flag} "))
                || help.contains(&format!("{flag}\n"))
                || help.contains(&format!("{flag}="))
                || help.contains(&format!("{flag},")),
            "the README names {flag}, which no keyless command has"
        );
    }
    // Paths in backticks that look like the repository's files.
    for quoted in readme.split('`').skip(1).step_by(2) {
        let path = quoted.trim_end_matches('/');
        let repo_file = (path.starts_with("docs/")
            || path.starts_with("tests/")
            || path.starts_with("examples/")
            || path.starts_with("assets/")
            || path.ends_with(".md")
            || path.ends_with(".json")
            || path.ends_with(".example"))
            && !path.contains(' ')
            && !path.contains('*')
            && !path.contains('~')
            && !path.starts_with('.')
            && !path.starts_with('<');
        if repo_file && !["keyless.json", "AGENTS.md", "CLAUDE.md", "GEMINI.md"].contains(&path) {
            assert!(
                std::path::Path::new(path).exists(),
                "the README names {path}, which is not in the repository"
            );
        }
    }
}
