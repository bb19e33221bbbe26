//! Programs that only read, each with the options known to keep it that way. A reader earns
//! ReadOnly only when every option is in its spec; any other option climbs to Risky (it may
//! write a file, run a program or read what it should not: an unknown option is treated like an
//! unknown program). Paths it reads are checked for secret stores.

use std::sync::OnceLock;

use super::lookup::{self, Names};
use super::options::Spec;
use super::paths;
use super::places;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict};

/// A reader's known options: single-letter flags, single letters that take a value, long
/// options, long options that take a value.
const fn spec(
    flags: &'static str,
    valued: &'static str,
    long: &'static [&'static str],
    long_valued: &'static [&'static str],
) -> Spec {
    Spec {
        flags,
        valued,
        long,
        long_valued,
        digits: false,
    }
}

/// `spec`, also accepting a number as an option (`head -5`).
const fn with_digits(spec: Spec) -> Spec {
    Spec {
        digits: true,
        ..spec
    }
}

const HELP: &[&str] = &["help", "version"];
const GREP: Spec = with_digits(spec(
    "EFGPiywxcLloqsbHhnTZzUvraIRV",
    "efmdDABC",
    &[
        "extended-regexp",
        "fixed-strings",
        "basic-regexp",
        "perl-regexp",
        "ignore-case",
        "no-ignore-case",
        "word-regexp",
        "line-regexp",
        "null-data",
        "no-messages",
        "invert-match",
        "version",
        "help",
        "byte-offset",
        "line-number",
        "no-line-number",
        "line-buffered",
        "with-filename",
        "no-filename",
        "only-matching",
        "quiet",
        "silent",
        "text",
        "recursive",
        "dereference-recursive",
        "files-without-match",
        "files-with-matches",
        "count",
        "initial-tab",
        "null",
        "color",
        "colour",
    ],
    &[
        "regexp",
        "file",
        "max-count",
        "after-context",
        "before-context",
        "context",
        "devices",
        "directories",
        "label",
        "binary-files",
        "exclude",
        "exclude-from",
        "exclude-dir",
        "include",
    ],
));
const RG: Spec = with_digits(spec(
    "aABbcCFHhiIlLnNoOpqsSuUvVwxz0.",
    "ABCeEfgjmMrtTdl",
    &[
        "text",
        "byte-offset",
        "count",
        "count-matches",
        "column",
        "no-column",
        "files",
        "files-with-matches",
        "files-without-match",
        "fixed-strings",
        "follow",
        "help",
        "heading",
        "no-heading",
        "hidden",
        "no-hidden",
        "ignore-case",
        "invert-match",
        "json",
        "line-buffered",
        "block-buffered",
        "line-number",
        "no-line-number",
        "line-regexp",
        "mmap",
        "no-mmap",
        "multiline",
        "multiline-dotall",
        "no-config",
        "no-ignore",
        "no-ignore-vcs",
        "no-ignore-parent",
        "no-ignore-dot",
        "no-ignore-global",
        "no-ignore-exclude",
        "no-ignore-files",
        "no-messages",
        "null",
        "null-data",
        "only-matching",
        "pretty",
        "quiet",
        "search-zip",
        "smart-case",
        "case-sensitive",
        "stats",
        "type-list",
        "unrestricted",
        "version",
        "vimgrep",
        "word-regexp",
        "trim",
        "passthru",
        "no-filename",
        "with-filename",
        "glob-case-insensitive",
        "pcre2",
        "no-pcre2-unicode",
        "no-require-git",
        "max-columns-preview",
        "debug",
        "trace",
        "one-file-system",
        "binary",
        "no-unicode",
        "crlf",
        "include-zero",
        "sort-files",
        "auto-hybrid-regex",
        "ignore-file-case-insensitive",
        "color",
        "no-follow",
        "no-text",
        "files-with-matches",
        "no-binary",
        "no-search-zip",
        "no-crlf",
        "no-stats",
    ],
    &[
        "after-context",
        "before-context",
        "context",
        "colors",
        "context-separator",
        "regexp",
        "encoding",
        "file",
        "glob",
        "iglob",
        "ignore-file",
        "max-columns",
        "max-count",
        "max-depth",
        "max-filesize",
        "replace",
        "sort",
        "sortr",
        "type",
        "type-not",
        "type-add",
        "type-clear",
        "threads",
        "engine",
        "path-separator",
        "dfa-size-limit",
        "regex-size-limit",
        "field-match-separator",
        "field-context-separator",
        "hyperlink-format",
        "pre-glob",
    ],
));

/// Readers and their options.
#[rustfmt::skip]
const READERS: &[(&str, Spec)] = &[
    ("cat", spec("AbeEnstTuv", "", &["show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting", "help", "version"], &[])),
    ("tac", spec("br", "s", &["before", "regex", "help", "version"], &["separator"])),
    ("head", with_digits(spec("qvz", "nc", &["quiet", "silent", "verbose", "zero-terminated", "help", "version"], &["lines", "bytes"]))),
    ("tail", with_digits(spec("fFqvzr", "ncs", &["follow", "retry", "quiet", "silent", "verbose", "zero-terminated", "help", "version"], &["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"]))),
    ("ls", with_digits(spec("aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ", "ITw", &["all", "almost-all", "author", "escape", "directory", "classify", "file-type", "human-readable", "si", "dereference-command-line", "dereference-command-line-symlink-to-dir", "inode", "kibibytes", "dereference", "numeric-uid-gid", "literal", "hide-control-chars", "show-control-chars", "quote-name", "recursive", "reverse", "size", "context", "help", "version", "color", "hyperlink", "group-directories-first", "full-time", "no-group", "zero"], &["hide", "ignore", "indicator-style", "quoting-style", "sort", "time", "time-style", "tabsize", "width", "block-size", "format"]))),
    ("dir", with_digits(spec("aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ", "ITw", &["all", "almost-all", "human-readable", "recursive", "reverse"], &["sort"]))),
    ("tree", spec("adlfxipsughDFqNQvtcUrCnJXA", "LPIHT", &["noreport", "dirsfirst", "du", "prune", "gitignore", "matchdirs", "ignore-case", "si", "help", "version"], &["filelimit", "charset", "sort", "timefmt"])),
    ("pwd", spec("LP", "", HELP, &[])),
    ("wc", spec("cmlLw", "", &["bytes", "chars", "lines", "max-line-length", "words", "help", "version"], &["total", "files0-from"])),
    ("grep", GREP),
    ("egrep", GREP),
    ("fgrep", GREP),
    ("zgrep", GREP),
    ("rg", RG),
    ("ag", spec("aAbcfGgHhiLlmnopQrSstuUvVwz0", "ABCGgm", &["hidden", "literal", "ignore-case", "smart-case", "files-with-matches", "count", "color", "nocolor", "group", "nogroup", "skip-vcs-ignores", "unrestricted", "all-types", "search-zip", "word-regexp", "case-sensitive", "column", "vimgrep", "stats", "help", "version"], &["ignore", "ignore-dir", "depth", "file-search-regex", "max-count", "after", "before", "context"])),
    ("ack", spec("ihHlLcnvwQsx", "ABCm", &["ignore-case", "smart-case", "literal", "count", "nocolor", "color", "noheading", "nogroup", "help", "version"], &["type", "ignore-dir"])),
    ("file", spec("bcEhiklLNnprsvzZ0S", "Fmfe", &["brief", "mime", "mime-type", "mime-encoding", "keep-going", "dereference", "no-dereference", "uncompress", "no-pad", "print0", "raw", "special-files", "extension", "apple", "help", "version"], &["separator", "magic-file", "files-from", "exclude"])),
    ("stat", spec("LtZf", "c", &["dereference", "file-system", "terse", "help", "version"], &["format", "printf", "cached"])),
    ("du", with_digits(spec("0abcDhHklLmPsSx", "dBtX", &["all", "apparent-size", "bytes", "total", "dereference-args", "human-readable", "si", "summarize", "separate-dirs", "one-file-system", "count-links", "dereference", "no-dereference", "inodes", "null", "time", "help", "version"], &["max-depth", "block-size", "threshold", "exclude", "exclude-from", "files0-from", "time-style"]))),
    ("df", spec("ahHiklPTv", "tBx", &["all", "human-readable", "si", "inodes", "local", "portability", "print-type", "total", "sync", "no-sync", "output", "help", "version"], &["type", "exclude-type", "block-size"])),
    ("diff", with_digits(spec("abBcdeEfinNpqrstTuwyZ", "CDFIlSUWxX", &["normal", "brief", "report-identical-files", "context", "unified", "ed", "rcs", "side-by-side", "left-column", "suppress-common-lines", "show-c-function", "expand-tabs", "initial-tab", "suppress-blank-empty", "new-file", "unidirectional-new-file", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "text", "strip-trailing-cr", "recursive", "minimal", "speed-large-files", "color", "no-dereference", "ignore-file-name-case", "no-ignore-file-name-case", "help", "version"], &["show-function-line", "label", "tabsize", "ignore-matching-lines", "exclude", "exclude-from", "starting-file", "from-file", "to-file", "horizon-lines", "palette", "width"]))),
    ("cmp", spec("blsz", "in", &["print-bytes", "verbose", "quiet", "silent", "help", "version"], &["ignore-initial", "bytes"])),
    ("comm", spec("123iz", "", &["check-order", "nocheck-order", "zero-terminated", "total", "help", "version"], &["output-delimiter"])),
    ("cut", spec("nsz", "bcfd", &["complement", "only-delimited", "zero-terminated", "help", "version"], &["bytes", "characters", "fields", "delimiter", "output-delimiter"])),
    ("tr", spec("cCdst", "", &["complement", "delete", "squeeze-repeats", "truncate-set1", "help", "version"], &[])),
    ("nl", spec("p", "bdfhilnsvw", &["no-renumber", "help", "version"], &["body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"])),
    ("od", with_digits(spec("bcdfilosvxw", "AjNSt", &["output-duplicates", "traditional", "help", "version", "width", "strings"], &["address-radix", "skip-bytes", "read-bytes", "format", "endian"]))),
    ("hexdump", spec("bcCdovx", "enfs", &["help", "version"], &[])),
    ("hd", spec("bcCdovx", "enfs", &["help", "version"], &[])),
    ("xxd", with_digits(spec("abCeEipruhvd", "cgloOsnR", &["help", "version"], &[]))),
    ("basename", spec("az", "s", &["multiple", "zero", "help", "version"], &["suffix"])),
    ("dirname", spec("z", "", &["zero", "help", "version"], &[])),
    ("realpath", spec("eELmPqsz", "", &["canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "strip", "no-symlinks", "zero", "help", "version"], &["relative-to", "relative-base"])),
    ("readlink", spec("efmnqsvz", "", &["canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent", "verbose", "zero", "help", "version"], &[])),
    ("date", spec("uRI", "dfr", &["utc", "universal", "rfc-email", "iso-8601", "debug", "help", "version"], &["date", "file", "reference", "rfc-3339"])),
    ("whoami", spec("", "", HELP, &[])),
    ("id", spec("agGnrzuZ", "", &["group", "groups", "name", "real", "user", "zero", "context", "help", "version"], &[])),
    ("uname", spec("asnrvmpio", "", &["all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine", "processor", "hardware-platform", "operating-system", "help", "version"], &[])),
    ("hostname", spec("adfiIsAyv", "", &["all-fqdns", "alias", "domain", "fqdn", "long", "ip-address", "all-ip-addresses", "short", "yp", "nis", "help", "version"], &[])),
    ("seq", with_digits(spec("w", "fst", &["equal-width", "help", "version"], &["format", "separator"]))),
    ("which", spec("asi", "", &["all", "skip-alias", "skip-functions", "skip-dot", "skip-tilde", "show-dot", "show-tilde", "help", "version"], &[])),
    ("whereis", spec("bmsul", "BMSf", &[], &[])),
    ("type", spec("afptP", "", &[], &[])),
    ("column", spec("tnxeJrLRs", "cNdHWEOlo", &["table", "fillrows", "json", "keep-empty-lines", "help", "version"], &["separator", "output-separator", "table-columns", "output-width", "table-name"])),
    ("expand", with_digits(spec("i", "t", &["initial", "help", "version"], &["tabs"]))),
    ("unexpand", with_digits(spec("a", "t", &["all", "first-only", "help", "version"], &["tabs"]))),
    ("fold", with_digits(spec("bs", "w", &["bytes", "spaces", "help", "version"], &["width"]))),
    ("paste", spec("sz", "d", &["serial", "zero-terminated", "help", "version"], &["delimiters"])),
    ("join", spec("ivz", "aejot12", &["ignore-case", "check-order", "nocheck-order", "header", "zero-terminated", "help", "version"], &[])),
    ("rev", spec("0", "", HELP, &[])),
    ("strings", with_digits(spec("afwsd", "nteT", &["all", "print-file-name", "include-all-whitespace", "data", "help", "version"], &["bytes", "radix", "encoding", "output-separator", "target"]))),
    ("md5sum", spec("bctwz", "", &["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", "help", "version"], &[])),
    ("sha1sum", spec("bctwz", "", &["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", "help", "version"], &[])),
    ("sha256sum", spec("bctwz", "", &["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", "help", "version"], &[])),
    ("sha512sum", spec("bctwz", "", &["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", "help", "version"], &[])),
    ("b2sum", spec("bctwz", "l", &["binary", "check", "tag", "text", "ignore-missing", "quiet", "status", "strict", "warn", "zero", "help", "version"], &["length"])),
    ("cksum", spec("z", "al", &["base64", "raw", "tag", "untagged", "check", "help", "version"], &["algorithm", "length"])),
    ("base64", spec("diw", "", &["decode", "ignore-garbage", "help", "version"], &["wrap"])),
    ("ps", spec("AaCcdefFgGHhjlLMmnNOrsSTtuvVwwxXyZ", "oOpqUuGgstk", &["forest", "headers", "no-headers", "help", "version", "cols", "columns", "lines", "width", "deselect"], &["format", "sort", "pid", "ppid", "user", "group", "tty"])),
    ("pgrep", spec("lacfinovxwr", "dgGPstuUF", &["list-name", "list-full", "count", "full", "ignore-case", "newest", "oldest", "inverse", "exact", "lightweight", "help", "version"], &["delimiter", "pgroup", "group", "parent", "session", "terminal", "euid", "uid", "pidfile", "runstates", "older", "ns", "nslist", "signal"])),
    ("free", spec("bkmghltwv", "sc", &["bytes", "kibi", "mebi", "gibi", "tebi", "pebi", "kilo", "mega", "giga", "tera", "peta", "human", "lohi", "total", "wide", "si", "committed", "help", "version"], &["seconds", "count"])),
    ("uptime", spec("psV", "", &["pretty", "since", "help", "version"], &[])),
    ("locale", spec("akmv", "", &["all-locales", "charmaps", "category-name", "keyword-name", "verbose", "help", "version"], &[])),
    ("nproc", spec("", "", &["all", "help", "version"], &["ignore"])),
    ("arch", spec("", "", HELP, &[])),
    ("lscpu", spec("aebcpsJxyV", "", &["all", "online", "offline", "json", "hex", "physical", "help", "version"], &["extended", "parse"])),
    ("groups", spec("", "", HELP, &[])),
    ("lsb_release", spec("vidrcas", "", &["all", "id", "description", "release", "codename", "short", "help", "version"], &[])),
    ("tput", spec("SxV", "T", &[], &[])),
    ("numfmt", spec("dz", "", &["debug", "grouping", "header", "zero-terminated", "help", "version"], &["from", "from-unit", "to", "to-unit", "format", "padding", "field", "delimiter", "suffix", "round", "invalid"])),
    ("fmt", with_digits(spec("cstu", "wgp", &["crown-margin", "tagged-paragraph", "split-only", "uniform-spacing", "help", "version"], &["width", "goal", "prefix"]))),
    ("look", spec("bdf", "t", &[], &[])),
    ("zcat", spec("fqvlLhtVdc", "", &["force", "quiet", "verbose", "help", "version"], &[])),
    ("bzcat", spec("sqvL", "", &["small", "quiet", "verbose", "help", "version"], &[])),
    ("xzcat", spec("qvQT", "", &["quiet", "verbose", "help", "version"], &["threads"])),
    ("man", spec("afkwW", "sS", &["apropos", "whatis", "where", "path", "all", "help", "version"], &["sections"])),
    ("less", with_digits(spec("aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~", "bhjPtTxyz#", &["quit-if-one-screen", "no-init", "RAW-CONTROL-CHARS", "raw-control-chars", "chop-long-lines", "ignore-case", "LINE-NUMBERS", "squeeze-blank-lines", "help", "version", "mouse", "tabs", "quiet", "silent"], &["pattern", "prompt", "tag", "shift"]))),
    ("more", with_digits(spec("dlfpcsu", "n", &["silent", "logical", "no-pause", "print-over", "clean-print", "squeeze", "plain", "help", "version"], &["lines"]))),
    ("pinky", spec("lbhpsfwiq", "", HELP, &[])),
    ("users", spec("", "", HELP, &[])),
    ("who", spec("abdHlmpqrstTuw", "", &["all", "boot", "dead", "heading", "login", "lookup", "process", "count", "runlevel", "short", "time", "mesg", "users", "help", "version"], &[])),
    ("uniq", with_digits(spec("cdDiuz", "fsw", &["count", "repeated", "all-repeated", "ignore-case", "unique", "zero-terminated", "group", "help", "version"], &["skip-fields", "skip-chars", "check-chars"]))),
    ("sort", spec("bdfgiMhnRrVcCmsuz", "kStT", &["ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort", "ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort", "reverse", "version-sort", "check", "merge", "stable", "unique", "zero-terminated", "debug", "help", "version"], &["key", "field-separator", "buffer-size", "temporary-directory", "parallel", "batch-size", "random-source", "sort", "files0-from"])),
];

/// Builtins and tools whose arguments are data, never options that change what they do.
const DATA_ONLY: &[&str] = &[
    "echo", "true", "false", ":", "test", "[", "[[", "sleep", "exit", "wait", "clear", "return",
    "help", "let", "shift", "break", "continue", "times", "getconf", "expr", "tty", "jobs", "dirs",
    "popd", "logname", "printf", "yes",
];

/// Windows `cmd` built-ins and tools that only read.
const WINDOWS: &[&str] = &[
    "dir",
    "where",
    "findstr",
    "ver",
    "cls",
    "tasklist",
    "systeminfo",
    "fc",
    "type",
];

/// Windows `cmd` built-ins and tools, whose names `cmd` finds in any case (`DIR`, `Type`).
pub(super) fn is_windows_builtin(name: &str) -> bool {
    WINDOWS.contains(&name)
}

/// The verdict for a reader, or `None` when `name` is not one.
pub(super) fn reader(name: &str, args: &[&str], ctx: &Ctx) -> Option<Verdict> {
    let reads = || {
        Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            format!("{name}: reads only"),
        )
    };
    if DATA_ONLY.contains(&name) {
        if name == "printf" && args.first().is_some_and(|a| a.starts_with("-v")) {
            return Some(Verdict::new(
                Tier::Risky,
                ReasonKind::Rebinding,
                "printf -v assigns a shell variable",
            ));
        }
        return Some(reads());
    }
    if WINDOWS.contains(&name) && args.iter().all(|a| !a.starts_with('-')) {
        let mut verdict = reads();
        verdict.raise(secrets(name, args, false, ctx));
        return Some(verdict);
    }
    if matches!(name, "cd" | "pushd") {
        return Some(Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            format!("{name}: changes the directory for the commands after it"),
        ));
    }
    static BY_NAME: OnceLock<Names<&'static str, &'static (&str, Spec)>> = OnceLock::new();
    let (_, spec) = *BY_NAME
        .get_or_init(|| lookup::by_name(READERS, |(n, _)| n))
        .get(name)?;
    if name == "ps" && args.iter().any(|a| !a.starts_with('-') && a.contains('e')) {
        return Some(Verdict::new(
            Tier::Risky,
            ReasonKind::Secret,
            "ps e shows every process's environment, which may hold secrets",
        ));
    }
    // ps's BSD options come without a dash (`ps aux`).
    let dashed: Vec<&str>;
    let args = if name == "ps" {
        dashed = args
            .iter()
            .map(|a| if a.starts_with('-') { *a } else { "-a" })
            .collect();
        &dashed[..]
    } else {
        args
    };
    let parsed = spec.parse(args);
    if let Some(option) = parsed.unknown {
        return Some(unknown_option(name, option));
    }
    let max_positionals = match name {
        "hostname" | "pwd" | "whoami" | "arch" | "nproc" | "uptime" | "free" => Some(0),
        "uniq" | "xxd" => Some(1),
        _ => None,
    };
    if let Some(max) = max_positionals
        && parsed.positionals.len() > max
    {
        return Some(Verdict::new(
            Tier::Risky,
            ReasonKind::WritesFile,
            format!(
                "{name}: an extra argument is an output file or a new setting ({})",
                parsed.positionals[max]
            ),
        ));
    }
    if name == "date" && parsed.positionals.iter().any(|p| !p.starts_with('+')) {
        return Some(Verdict::new(
            Tier::Risky,
            ReasonKind::System,
            "date: an argument without + sets the clock",
        ));
    }
    if matches!(name, "less" | "more") && parsed.positionals.iter().any(|p| p.starts_with('+')) {
        return Some(Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!("{name} +…: runs pager commands (they can run programs)"),
        ));
    }
    let recursive = matches!(name, "rg" | "ag" | "ack" | "tree")
        || matches!(name, "grep" | "egrep" | "fgrep" | "zgrep")
            && args.iter().any(|a| {
                *a == "--recursive"
                    || *a == "--dereference-recursive"
                    || a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R'])
            });
    let mut verdict = reads();
    let paths: Vec<&str> = parsed
        .positionals
        .iter()
        .copied()
        .chain(parsed.values.iter().map(|(_, value)| *value))
        .collect();
    verdict.raise(secrets(name, &paths, recursive, ctx));
    Some(verdict)
}

pub(super) fn unknown_option(name: &str, option: &str) -> Verdict {
    Verdict::new(
        Tier::Risky,
        ReasonKind::UnknownOption,
        format!(
            "{name}: {option} is not an option the classifier knows to be safe (it may write files or run programs)"
        ),
    )
}

/// Risky when any of `paths` may be a secret store.
pub(super) fn secrets(name: &str, paths: &[&str], recursive: bool, ctx: &Ctx) -> Verdict {
    for raw in paths {
        let place = paths::resolve(raw, &ctx.cwd);
        if places::secret(&place, recursive) {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::Secret,
                format!("{name}: reads {raw}, which may hold secrets"),
            );
        }
    }
    Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "")
}
