//! Programs that change files: deletes (`rm`, `rmdir`, `shred`, Windows `rd`/`del`,
//! PowerShell `Remove-Item`), moves and copies, permissions, `dd`, `rsync`. Deleting `/`, a
//! home, a drive root, a system folder or everything in one is Denied however the path is
//! spelled (the paths are normalised first); every other change is Risky.

use super::paths::{self, Place};
use super::places;
use super::readers::secrets;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, has_long, long_is, short_flag};

/// The verdict for a file-changing program, or `None` when `name` is not one.
pub(super) fn change(name: &str, args: &[&str], ctx: &Ctx) -> Option<Verdict> {
    let lower = name.to_ascii_lowercase();
    let verdict = match lower.as_str() {
        "rm" | "rmdir" | "del" | "erase" | "rd" | "unlink" | "shred" | "trash" | "srm"
        | "trash-put" | "remove-item" | "ri" | "wipe" => remove(name, args, &ctx.cwd),
        "chmod" | "chown" | "chgrp" | "setfacl" => {
            let recursive = short_flag(args, 'R') || has_long(args, "recursive");
            match targets(args)
                .into_iter()
                .find(|t| recursive && catastrophic(t, &ctx.cwd))
            {
                Some(t) => Verdict::new(
                    Tier::Denied,
                    ReasonKind::Catastrophic,
                    format!("{name} -R on {t}, a system or home folder"),
                ),
                None => Verdict::new(
                    Tier::Risky,
                    ReasonKind::ChangesFiles,
                    format!("{name}: changes file permissions"),
                ),
            }
        }
        "dd" => {
            if args
                .iter()
                .any(|x| x.strip_prefix("of=").is_some_and(places::is_raw_disk))
            {
                Verdict::new(
                    Tier::Denied,
                    ReasonKind::Disk,
                    "dd: writes raw bytes to a disk device",
                )
            } else {
                let mut verdict = Verdict::new(
                    Tier::Risky,
                    ReasonKind::ChangesFiles,
                    "dd: copies raw bytes",
                );
                let inputs: Vec<&str> = args.iter().filter_map(|a| a.strip_prefix("if=")).collect();
                verdict.raise(secrets("dd", &inputs, false, ctx));
                verdict
            }
        }
        "mv" | "move" | "ren" | "rename" | "move-item" => {
            let all = targets(args);
            let sources = all.split_last().map_or(&all[..], |(_, s)| s);
            match sources.iter().find(|t| catastrophic(t, &ctx.cwd)) {
                Some(t) => Verdict::new(
                    Tier::Denied,
                    ReasonKind::Catastrophic,
                    format!("{name}: moves {t}, a system or home folder, away"),
                ),
                None => Verdict::new(
                    Tier::Risky,
                    ReasonKind::ChangesFiles,
                    format!("{name}: moves files"),
                ),
            }
        }
        "rsync" => {
            let deletes = args.iter().any(|a| {
                a.starts_with("--del") || long_is(a, "delete") || long_is(a, "remove-source-files")
            });
            let all = targets(args);
            match all.last().filter(|t| deletes && catastrophic(t, &ctx.cwd)) {
                Some(t) => Verdict::new(
                    Tier::Denied,
                    ReasonKind::Catastrophic,
                    format!("rsync --delete into {t} deletes what the source lacks"),
                ),
                None => {
                    let mut verdict = Verdict::new(
                        Tier::Risky,
                        ReasonKind::Network,
                        "rsync: copies files, possibly over the network",
                    );
                    verdict.raise(secrets("rsync", &all, true, ctx));
                    verdict
                }
            }
        }
        "cp" | "ln" | "mkdir" | "touch" | "truncate" | "install" | "tar" | "zip" | "unzip"
        | "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "7z" | "7za"
        | "patch" | "copy" | "xcopy" | "robocopy" | "md" | "attrib" | "mklink" | "cpio" | "ar"
        | "split" | "csplit" | "mkfifo" | "mknod" | "copy-item" | "new-item" | "set-content"
        | "out-file" | "iconv" | "sqlite3" => {
            let mut verdict = Verdict::new(
                Tier::Risky,
                ReasonKind::ChangesFiles,
                format!("{name}: changes files"),
            );
            if let Some(disk) = targets(args).last().filter(|t| places::is_raw_disk(t))
                && matches!(
                    lower.as_str(),
                    "cp" | "install" | "copy" | "copy-item" | "set-content"
                )
            {
                verdict.raise(Verdict::new(
                    Tier::Denied,
                    ReasonKind::Disk,
                    format!("{name}: writes over the disk device {disk}"),
                ));
            }
            verdict.raise(secrets(name, &targets(args), true, ctx));
            verdict
        }
        _ => return None,
    };
    Some(verdict)
}

/// Arguments that name files: not options, not Windows switches (`/s`, `/q`).
fn targets<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let windows_switch = |a: &str| {
        let b = a.as_bytes();
        b.len() == 2 && b[0] == b'/' && b[1].is_ascii_alphabetic()
    };
    let has_switches = args.iter().any(|a| windows_switch(a));
    args.iter()
        .copied()
        .filter(|a| !a.starts_with('-') && (!has_switches || !windows_switch(a)))
        .collect()
}

fn catastrophic(raw: &str, cwd: &Place) -> bool {
    places::catastrophic(&paths::resolve(raw, cwd))
}

fn remove(name: &str, args: &[&str], cwd: &Place) -> Verdict {
    let lower = |a: &&str| a.to_ascii_lowercase();
    let recursive = short_flag(args, 'r')
        || short_flag(args, 'R')
        || args.iter().map(lower).any(|a| {
            long_is(&a, "recursive") || a == "/s" || a.len() > 2 && "-recurse".starts_with(&a)
        });
    if has_long(args, "no-preserve-root") {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::Catastrophic,
            format!("{name} --no-preserve-root"),
        );
    }
    let windows = matches!(
        name.to_ascii_lowercase().as_str(),
        "rd" | "rmdir" | "del" | "erase" | "remove-item" | "ri"
    );
    if let Some(target) = targets(args).into_iter().find(|t| catastrophic(t, cwd))
        && (recursive || windows || name == "shred")
    {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::Catastrophic,
            format!(
                "{name}: deletes {target}, which is or holds a system folder, a home or a whole drive"
            ),
        );
    }
    if name == "shred" && targets(args).iter().any(|t| places::is_raw_disk(t)) {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::Disk,
            "shred: overwrites a disk device",
        );
    }
    Verdict::new(
        Tier::Risky,
        ReasonKind::ChangesFiles,
        format!("{name}: deletes files"),
    )
}
