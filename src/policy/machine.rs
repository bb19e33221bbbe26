//! The machine itself: stopping or restarting it, formatting, partitioning or wiping disks.
//! Denied however it is asked for: `shutdown`, `reboot`, `halt`, `poweroff`, PowerShell's
//! `Stop-Computer` and `Restart-Computer`, `init 0`, `systemctl reboot` and the targets that
//! stop the machine or end every session (`systemctl isolate rescue.target`), `kexec -e`,
//! killing init or every process (`kill -9 1`, `kill -9 -1`); `format`, `mkfs*`, `newfs*`,
//! partition editors, `wipefs`, `blkdiscard`, and the erasing subcommands of `diskutil`,
//! `nvme`, `cryptsetup`, `hdparm`, `zpool` and `zfs`. (Writes to `/proc/sysrq-trigger` and raw
//! disks are judged where paths are.)

use super::vocab::{ReasonKind, Tier, Verdict, first_positional};

/// systemd targets and verbs that stop the machine or every session on it.
const STOPPING_TARGETS: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "soft-reboot",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "sleep",
    "rescue",
    "emergency",
    "ctrl-alt-del",
    "exit",
];

/// Programs that format, partition or wipe disks, whatever their arguments.
const DISK_TOOLS: &[&str] = &[
    "format",
    "diskpart",
    "fdisk",
    "sfdisk",
    "gdisk",
    "sgdisk",
    "cfdisk",
    "parted",
    "gparted",
    "wipefs",
    "blkdiscard",
    "mke2fs",
    "mkswap",
    "mkdosfs",
    "mkntfs",
    "mkexfatfs",
    "format-volume",
    "clear-disk",
    "initialize-disk",
    "remove-partition",
];

/// The processes `kill` signals: its operands after the signal (`-9`, `-KILL`, `-s KILL`,
/// `-n 9`) and `--`.
fn kill_targets<'a>(args: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    let mut i = 0;
    if let Some(first) = args.first() {
        if matches!(*first, "-s" | "-n" | "--signal") {
            i = 2;
        } else if first.starts_with('-') && *first != "--" && *first != "-1"
            || *first == "-1" && args.len() > 1
        {
            i = 1;
        }
    }
    args.iter().skip(i).copied().filter(|a| *a != "--")
}

fn stops(name: &str) -> Verdict {
    Verdict::new(
        Tier::Denied,
        ReasonKind::Machine,
        format!("{name}: stops or restarts the machine"),
    )
}

fn disk(name: &str, what: &str) -> Verdict {
    Verdict::new(Tier::Denied, ReasonKind::Disk, format!("{name}: {what}"))
}

/// The verdict when `name` stops the machine or destroys a disk, or `None`.
pub(super) fn machine(name: &str, args: &[&str]) -> Option<Verdict> {
    let sub = first_positional(args);
    let verdict = match name {
        "shutdown" | "reboot" | "halt" | "poweroff" | "stop-computer" | "restart-computer" => {
            stops(name)
        }
        "init" | "telinit" if matches!(sub, Some("0" | "6" | "1" | "s" | "S")) => stops(name),
        "systemctl" | "loginctl"
            if sub.is_some_and(|s| STOPPING_TARGETS.contains(&s))
                || matches!(sub, Some("start" | "isolate" | "restart"))
                    && args.iter().any(|a| {
                        a.strip_suffix(".target")
                            .is_some_and(|t| STOPPING_TARGETS.contains(&t))
                    }) =>
        {
            stops(name)
        }
        "kexec" if args.iter().any(|a| matches!(*a, "-e" | "--exec")) => stops(name),
        // Init is process 1; -1 is every process the user may signal.
        "kill" if kill_targets(args).any(|pid| matches!(pid, "1" | "-1")) => Verdict::new(
            Tier::Denied,
            ReasonKind::Machine,
            "kill 1 or -1: kills init or every process",
        ),
        "pkill" | "killall" if args.iter().any(|a| matches!(*a, "init" | "systemd")) => {
            Verdict::new(
                Tier::Denied,
                ReasonKind::Machine,
                format!("{name}: kills init"),
            )
        }
        "killall5" => Verdict::new(
            Tier::Denied,
            ReasonKind::Machine,
            "killall5: kills every process",
        ),
        _ if DISK_TOOLS.contains(&name) => disk(name, "formats, partitions or wipes disks"),
        _ if name.starts_with("mkfs") || name.starts_with("newfs") => disk(name, "formats a disk"),
        "badblocks" if args.iter().any(|a| a.starts_with('-') && a.contains('w')) => {
            disk(name, "-w overwrites the disk")
        }
        "diskutil"
            if sub.is_some_and(|s| {
                let s = s.to_ascii_lowercase();
                s.starts_with("erase")
                    || matches!(
                        s.as_str(),
                        "zerodisk" | "randomdisk" | "secureerase" | "partitiondisk" | "reformat"
                    )
            }) =>
        {
            disk(name, "erases or partitions a disk")
        }
        "nvme" if matches!(sub, Some("format" | "sanitize")) => disk(name, "erases a disk"),
        "cryptsetup"
            if sub.is_some_and(|s| {
                matches!(
                    s.to_ascii_lowercase().as_str(),
                    "luksformat" | "erase" | "lukserase"
                )
            }) =>
        {
            disk(name, "erases a disk's keys")
        }
        "hdparm"
            if args.iter().any(|a| {
                a.starts_with("--security-erase")
                    || a.starts_with("--trim-sector")
                    || a.starts_with("--sanitize")
            }) =>
        {
            disk(name, "erases a disk")
        }
        "zpool" if matches!(sub, Some("destroy" | "labelclear")) => disk(name, "destroys a pool"),
        "zfs" if sub == Some("destroy") => disk(name, "destroys a dataset"),
        _ => return None,
    };
    Some(verdict)
}
