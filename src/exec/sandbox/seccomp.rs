//! The system calls a contained command may not make, whoever runs keyless: a seccomp filter in
//! the spirit of the container runtimes' default profile, compiled once per keyless process by
//! `seccompiler` (rust-vmm's, Firecracker's; pure Rust, no hand-written BPF) and handed to
//! bubblewrap (`--add-seccomp-fd`), which loads it as the last step before the command runs, so
//! bubblewrap's own setup is not limited by it.
//!
//! What is refused is named by **family** ([`FAMILIES`]), each with the calls that reach it, so
//! `docs/sandbox.md`, the tests (one per family, `tests/it/world.rs`) and the filter cannot
//! disagree:
//! - the calls a sandbox must never see succeed (the kernel's keyrings, mounts, namespaces,
//!   modules, kexec, bpf, performance counters, `userfaultfd`, clocks, swap, quotas, the kernel
//!   log, file handles, raw I/O ports, tracing a process the command did not start) answer
//!   `EPERM`, as a kernel refusing a privilege does;
//! - `clone3` and `io_uring` answer `ENOSYS`, as on a kernel without them, so programs fall back
//!   (glibc to `clone`, whose namespace flags the filter can read; runtimes to ordinary I/O).
//!
//! Calls of another architecture's ABI (the 32-bit `int 0x80` ABI on x86-64) end the process:
//! the filter's numbers are this architecture's. The x32 ABI's numbers (the same call with bit
//! 30 set) are refused beside the native ones.
//!
//! What this module does not do: choose what the command sees (`world.rs`), or run anything.

use std::collections::BTreeMap;

use super::error::SandboxError;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// One family of refused system calls.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// What it is, for people: `docs/sandbox.md` names every family (its test checks).
    #[cfg_attr(not(test), allow(dead_code))]
    pub name: &'static str,
    /// The calls refused outright.
    pub calls: &'static [i64],
    /// How they are refused.
    pub answer: Answer,
}

/// How a refused call is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `EPERM`: the kernel refuses a privilege.
    NotPermitted,
    /// `ENOSYS`: as on a kernel without the call, so programs fall back.
    Absent,
}

/// The namespace flags of `clone`: a new namespace of any kind is refused.
const CLONE_NEW: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    0x80, // CLONE_NEWTIME (not in every libc)
];

/// `ptrace` requests that take hold of a process the caller did not start. A program still
/// traces its own child (`PTRACE_TRACEME`, as debuggers start a program).
const PTRACE_TAKE_HOLD: &[u64] = &[libc::PTRACE_ATTACH as u64, 0x4206 /* PTRACE_SEIZE */];

/// The mode bits a file made or changed by a command may not carry: a set-uid or set-gid
/// program left in the workspace runs with its owner's ids (the machine's root's, through an
/// idmapped mount) for whoever starts it later, outside every sandbox.
const SET_ID_BITS: &[u64] = &[libc::S_ISUID as u64, libc::S_ISGID as u64];

/// The calls that give a file its mode, and which argument holds it.
const MODE_CALLS: &[(i64, u8)] = &[
    (libc::SYS_fchmod, 1),
    (libc::SYS_fchmodat, 2),
    (libc::SYS_fchmodat2, 2),
    (libc::SYS_openat, 3),
    (libc::SYS_mknodat, 2),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_chmod, 1),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_open, 2),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_creat, 1),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_mknod, 1),
];

/// The x32 ABI's bit: the same calls numbered from it (x86-64 only).
#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;

/// The families refused, in the order the documentation lists them.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "the kernel's keyrings",
        calls: &[libc::SYS_add_key, libc::SYS_keyctl, libc::SYS_request_key],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "mounts",
        calls: &[
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_fsopen,
            libc::SYS_fsconfig,
            libc::SYS_fsmount,
            libc::SYS_fspick,
            libc::SYS_move_mount,
            libc::SYS_open_tree,
            libc::SYS_mount_setattr,
        ],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "new namespaces (unshare, setns, clone with a namespace flag)",
        calls: &[libc::SYS_unshare, libc::SYS_setns],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "kernel modules",
        calls: &[
            libc::SYS_init_module,
            libc::SYS_finit_module,
            libc::SYS_delete_module,
        ],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "kexec and reboot",
        calls: &[
            libc::SYS_kexec_load,
            libc::SYS_kexec_file_load,
            libc::SYS_reboot,
        ],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "bpf and performance counters",
        calls: &[libc::SYS_bpf, libc::SYS_perf_event_open],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "userfaultfd",
        calls: &[libc::SYS_userfaultfd],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "clocks",
        calls: &[
            libc::SYS_settimeofday,
            libc::SYS_clock_settime,
            libc::SYS_clock_adjtime,
        ],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "swap",
        calls: &[libc::SYS_swapon, libc::SYS_swapoff],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "accounting and quotas",
        calls: &[libc::SYS_acct, libc::SYS_quotactl, libc::SYS_quotactl_fd],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "the kernel log",
        calls: &[libc::SYS_syslog],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "file handles (open_by_handle_at)",
        calls: &[libc::SYS_open_by_handle_at, libc::SYS_name_to_handle_at],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "another process's memory (ptrace attach, process_vm_readv/writev)",
        calls: &[libc::SYS_process_vm_readv, libc::SYS_process_vm_writev],
        answer: Answer::NotPermitted,
    },
    #[cfg(target_arch = "x86_64")]
    Family {
        name: "raw I/O ports and obsolete calls",
        calls: &[
            libc::SYS_ioperm,
            libc::SYS_iopl,
            libc::SYS_uselib,
            libc::SYS_ustat,
            libc::SYS_sysfs,
            libc::SYS_lookup_dcookie,
            libc::SYS_nfsservctl,
            libc::SYS__sysctl,
        ],
        answer: Answer::NotPermitted,
    },
    Family {
        name: "clone3, openat2 and io_uring (answered as absent: programs fall back)",
        calls: &[
            libc::SYS_clone3,
            libc::SYS_openat2,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ],
        answer: Answer::Absent,
    },
];

/// The compiled programs, one per answer, as bubblewrap reads them (`struct sock_filter`s in
/// the machine's byte order), or why there are none (an architecture seccompiler does not
/// know). Compiled once per keyless process.
pub fn programs() -> Result<&'static [Vec<u8>], SandboxError> {
    static COMPILED: std::sync::OnceLock<Result<Vec<Vec<u8>>, SandboxError>> =
        std::sync::OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let arch = TargetArch::try_from(std::env::consts::ARCH)
                .map_err(|e| SandboxError::library("no seccomp filter for this architecture", e))?;
            [Answer::NotPermitted, Answer::Absent]
                .into_iter()
                .map(|answer| compile(answer, arch).map(|program| bytes(&program)))
                .collect()
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// The filter that answers `answer` for its calls and lets every other call through.
fn compile(answer: Answer, arch: TargetArch) -> Result<BpfProgram, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let everything = Vec::new();
    for family in FAMILIES.iter().filter(|f| f.answer == answer) {
        for &call in family.calls {
            rules.insert(call, everything.clone());
        }
    }
    if answer == Answer::NotPermitted {
        rules.insert(libc::SYS_clone, any_bit(0, CLONE_NEW)?);
        rules.insert(libc::SYS_ptrace, any_value(0, PTRACE_TAKE_HOLD)?);
        for &(call, arg) in MODE_CALLS {
            rules.insert(call, any_bit(arg, SET_ID_BITS)?);
        }
    }
    #[cfg(target_arch = "x86_64")]
    if x32_available() {
        // The x32 ABI numbers the same calls from bit 30 (its own numbers for ptrace and
        // process_vm_*: refused whole there).
        let native: Vec<(i64, Vec<SeccompRule>)> =
            rules.iter().map(|(call, r)| (*call, r.clone())).collect();
        for (call, conditions) in native {
            rules.insert(call | X32, conditions);
        }
        if answer == Answer::NotPermitted {
            for x32_only in [521, 539, 540] {
                rules.insert(x32_only | X32, everything.clone());
            }
        }
    }
    let errno = match answer {
        Answer::NotPermitted => libc::EPERM,
        Answer::Absent => libc::ENOSYS,
    };
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(|e| SandboxError::library("the seccomp filter could not be built", e))?;
    BpfProgram::try_from(filter)
        .map_err(|e| SandboxError::library("the seccomp filter could not compile", e))
}

/// Whether this kernel runs x32 calls at all (most distributions build it without): only then
/// are their numbers worth the filter's length.
#[cfg(target_arch = "x86_64")]
fn x32_available() -> bool {
    // SAFETY: getpid takes no argument and cannot fail; through x32 it is ENOSYS where the ABI
    // is not built in.
    let pid = unsafe { libc::syscall(libc::SYS_getpid | X32) };
    pid > 0
}

/// Rules that match when argument `arg` has any of `bits` set.
fn any_bit(arg: u8, bits: &[u64]) -> Result<Vec<SeccompRule>, SandboxError> {
    bits.iter()
        .map(|&bit| rule(arg, SeccompCmpOp::MaskedEq(bit), bit))
        .collect()
}

/// Rules that match when argument `arg` is one of `values`.
fn any_value(arg: u8, values: &[u64]) -> Result<Vec<SeccompRule>, SandboxError> {
    values
        .iter()
        .map(|&value| rule(arg, SeccompCmpOp::Eq, value))
        .collect()
}

fn rule(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, SandboxError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
        .and_then(|condition| SeccompRule::new(vec![condition]))
        .map_err(|e| SandboxError::library("a seccomp rule could not be built", e))
}

/// A program as the kernel's `struct sock_filter` array: code (u16), jt, jf (u8), k (u32).
fn bytes(program: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for instruction in program {
        out.extend_from_slice(&instruction.code.to_ne_bytes());
        out.push(instruction.jt);
        out.push(instruction.jf);
        out.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_machine_within_the_kernels_limit() {
        let programs = programs().unwrap();
        assert_eq!(programs.len(), 2);
        for program in programs {
            assert_eq!(program.len() % 8, 0);
            // The kernel takes at most 4096 instructions per program.
            assert!(
                program.len() / 8 < 4096,
                "{} instructions",
                program.len() / 8
            );
            assert!(program.len() / 8 > 10);
        }
    }

    #[test]
    fn the_documentation_names_every_family() {
        let docs = include_str!("../../../docs/sandbox.md");
        for family in FAMILIES {
            assert!(
                docs.contains(family.name),
                "docs/sandbox.md: {}",
                family.name
            );
        }
    }

    #[test]
    fn every_call_is_in_one_family_only() {
        let mut seen = std::collections::HashSet::new();
        for family in FAMILIES {
            for call in family.calls {
                assert!(seen.insert(call), "{call} twice ({})", family.name);
            }
        }
        assert!(!seen.contains(&libc::SYS_clone) && !seen.contains(&libc::SYS_ptrace));
    }
}
