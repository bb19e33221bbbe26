//! Facts about risky targets the classifier checks: raw disks, files that hold secrets,
//! environment variables that change what runs, fork bombs.

/// Device paths of whole disks and partitions.
pub(super) fn is_raw_disk(path: &str) -> bool {
    [
        "/dev/sd",
        "/dev/nvme",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/dm-",
        "/dev/mapper/",
    ]
    .iter()
    .any(|p| path.starts_with(p))
}

/// Paths whose contents a chat page should not see.
pub(super) fn is_secret_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.contains(".ssh/")
        || path.ends_with(".ssh")
        || path.contains(".aws/")
        || path.contains(".gnupg")
        || path.contains("/proc/") && path.ends_with("/environ")
        || path == "/etc/shadow"
        || name == ".env"
        || name.starts_with(".env.")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name.starts_with("id_ecdsa")
        || matches!(
            name,
            ".netrc" | ".pypirc" | ".git-credentials" | ".npmrc" | "credentials.json"
        )
}

/// Environment variables that change which programs run or what they load.
pub(super) fn dangerous_variable(name: &str) -> Option<&'static str> {
    match name {
        "PATH" => Some("changes which programs run"),
        "IFS" | "BASH_ENV" | "ENV" | "PROMPT_COMMAND" | "SHELLOPTS" | "BASHOPTS" | "PS4" => {
            Some("changes how the shell reads and runs commands")
        }
        "NODE_OPTIONS"
        | "PYTHONPATH"
        | "PYTHONSTARTUP"
        | "PYTHONHOME"
        | "PERL5OPT"
        | "PERL5LIB"
        | "RUBYOPT"
        | "RUBYLIB"
        | "JAVA_TOOL_OPTIONS"
        | "_JAVA_OPTIONS"
        | "RUSTC_WRAPPER"
        | "RUSTC"
        | "CARGO_BUILD_RUSTC_WRAPPER" => Some("makes an interpreter or compiler load other code"),
        "EDITOR" | "VISUAL" | "PAGER" | "GIT_PAGER" | "MANPAGER" => {
            Some("chooses a program to run")
        }
        _ if name.starts_with("LD_") || name.starts_with("DYLD_") => {
            Some("makes programs load other libraries")
        }
        _ if name.starts_with("GIT_") => Some("changes how git runs (it can name programs to run)"),
        _ => None,
    }
}

/// Matches `name(){ name|name& };name` and its spellings.
pub(super) fn is_fork_bomb(source: &str) -> bool {
    let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = compact.find("(){") else {
        return false;
    };
    let name = &compact[..open];
    let name = name.rsplit([';', '&', '|']).next().unwrap_or(name);
    !name.is_empty() && compact[open..].contains(&format!("{name}|{name}&"))
}
