//! Git: the one module that talks to repositories through git2.
//!
//! `@@commit` stages and commits with git2 (no hooks run: what the model commits is exactly
//! what it staged). Pushing uses the `git` program, so the user's own credential helpers, ssh
//! agent and remote configuration work as they do in their terminal; it never prompts
//! (`GIT_TERMINAL_PROMPT=0`) and is bounded by a timeout.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::catalog::{Code, Failure};

/// How long a push may take.
const PUSH_TIMEOUT: Duration = Duration::from_secs(120);
/// How much of git's own output a result shows.
const GIT_OUTPUT_CHARS: usize = 2_000;

/// The line ending an `eol` attribute names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EolAttribute {
    Lf,
    CrLf,
}

/// The `eol` attribute `.gitattributes` gives `rel` (a workspace-relative path), when the
/// workspace is inside a git repository and an attribute sets it.
pub fn eol_attribute(root: &Path, rel: &Path) -> Option<EolAttribute> {
    let repo = git2::Repository::discover(root).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let in_repo = root.join(rel);
    let rel_to_repo = in_repo.strip_prefix(&workdir).ok()?;
    match repo
        .get_attr(rel_to_repo, "eol", git2::AttrCheckFlags::FILE_THEN_INDEX)
        .ok()??
    {
        "lf" => Some(EolAttribute::Lf),
        "crlf" => Some(EolAttribute::CrLf),
        _ => None,
    }
}

/// Creates a repository at `root` whose first branch is `branch` (for `keyless demo`).
pub fn init_with_branch(root: &Path, branch: &str) -> Result<(), Failure> {
    let mut options = git2::RepositoryInitOptions::new();
    options.initial_head(branch);
    git2::Repository::init_opts(root, &options)
        .map(|_| ())
        .map_err(|e| {
            Failure::new(
                Code::GitInitFailed,
                format!("could not create a repository: {}", e.message()),
            )
        })
}

/// One line about the repository for the environment snapshot: the branch and how many files
/// are changed or untracked; `None` when the workspace is not in a repository.
pub fn status_summary(root: &Path) -> Option<String> {
    let repo = git2::Repository::discover(root).ok()?;
    let branch = repo
        .head()
        .ok()
        .and_then(|h| h.shorthand().map(str::to_string))
        .unwrap_or_else(|| "(no commits yet)".to_string());
    let changed = repo.statuses(None).map(|s| s.len()).unwrap_or(0);
    Some(format!(
        "branch {branch}, {changed} changed or untracked file(s)"
    ))
}

/// Settings in the configuration's `Git` section (they live with the configuration).
pub use crate::config::GitSettings;

/// Settings of the repository's own configuration that would make a "read-only" git command
/// run a program. The user's global configuration is theirs and trusted; the repository's is
/// not (it comes with whatever folder keyless was pointed at).
pub fn read_only_hazards(root: &Path) -> Vec<String> {
    let Ok(repo) = git2::Repository::discover(root) else {
        return Vec::new();
    };
    let Ok(config) = repo.config() else {
        return Vec::new();
    };
    let Ok(local) = config.open_level(git2::ConfigLevel::Local) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if let Ok(entries) = local.entries(None) {
        let mut entries = entries;
        while let Some(Ok(entry)) = entries.next() {
            let Some(name) = entry.name() else { continue };
            let name = name.to_ascii_lowercase();
            let hazard = matches!(
                name.as_str(),
                "diff.external"
                    | "core.pager"
                    | "core.sshcommand"
                    | "gpg.program"
                    | "core.askpass"
                    | "log.showsignature"
            ) || name.starts_with("pager.")
                || name.starts_with("filter.")
                    && (name.ends_with(".clean")
                        || name.ends_with(".smudge")
                        || name.ends_with(".process"))
                || name.starts_with("diff.")
                    && (name.ends_with(".textconv") || name.ends_with(".command"))
                || name.starts_with("gpg.") && name.ends_with(".program")
                || name.starts_with("include") && name.ends_with("path");
            if hazard {
                found.push(name);
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// What `@@commit` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// Status fields for the result line.
    pub details: Vec<String>,
    /// Lines after it.
    pub lines: Vec<String>,
    /// A failed push (the commit is kept).
    pub push_failure: Option<Failure>,
}

fn git_failure(what: &str, e: git2::Error) -> Failure {
    Failure::new(Code::GitFailure, format!("{what}: {}", e.message()))
}

/// What keyless's own git, outside the sandbox, may trust: given by the sandbox, which knows
/// what a command could have written.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    /// The git program to run: one no command could have planted (`None`: there is none).
    pub git: Option<std::path::PathBuf>,
    /// The places a command could write (the workspace, `Sandbox.WritablePaths`, the caches): a
    /// git configuration file there is not trusted for a push.
    pub writable: Vec<std::path::PathBuf>,
    /// Paths `@@commit` never stages (hidden ones, keyless's own files), kept as HEAD has them.
    pub leave_out: Vec<std::path::PathBuf>,
}

/// Stages everything as `git add -A` would (but what `trust` leaves out), commits with
/// `message`, then pushes `-u origin <branch>` when an `origin` exists and pushing is on, with
/// a git and a configuration no command could have changed.
pub fn commit(
    root: &Path,
    message: &str,
    settings: &GitSettings,
    trust: &Trust,
) -> Result<Committed, Failure> {
    let mut lines = Vec::new();
    let repo = match git2::Repository::discover(root) {
        Ok(repo) => repo,
        Err(_) if settings.auto_init => {
            init(root, trust)?;
            lines.push("initialised a new git repository (Git.AutoInit)".to_string());
            git2::Repository::open(root).map_err(|e| git_failure("open the new repository", e))?
        }
        Err(_) => {
            return Err(Failure::new(
                Code::NotAGitRepository,
                "the workspace is not a git repository, and Git.AutoInit is off. Ask the user to run `git init`, or finish without committing.",
            ));
        }
    };
    let branch = current_branch(&repo)?;
    if let Some(pattern) = settings
        .protected_branches
        .iter()
        .find(|p| crate::glob::glob(p, &branch))
    {
        return Err(Failure::new(
            Code::BranchProtected,
            format!(
                "the current branch {branch} is protected (Git.ProtectedBranches has \"{pattern}\"); nothing was committed. Create a branch first: @@runcommand with `git switch -c keyless/<short-topic>`, then @@commit again."
            ),
        ));
    }
    let mut index = repo.index().map_err(|e| git_failure("read the index", e))?;
    index
        .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .map_err(|e| git_failure("stage files", e))?;
    index
        .update_all(["*"].iter(), None)
        .map_err(|e| git_failure("stage removed files", e))?;
    index
        .write()
        .map_err(|e| git_failure("write the index", e))?;
    let left_out = leave_out(&repo, root, &trust.leave_out)?;
    if left_out > 0 {
        lines.push(format!(
            "left out {left_out} path(s) keyless keeps from the model (hidden paths, keyless's own files)"
        ));
    }
    let mut index = repo.index().map_err(|e| git_failure("read the index", e))?;
    let tree_id = index
        .write_tree()
        .map_err(|e| git_failure("write the tree", e))?;
    let parent = match repo.head() {
        Ok(head) => Some(
            head.peel_to_commit()
                .map_err(|e| git_failure("read HEAD", e))?,
        ),
        Err(_) => None,
    };
    if parent.as_ref().is_some_and(|p| p.tree_id() == tree_id) {
        return Ok(Committed {
            details: vec!["nothing to commit".to_string()],
            lines: vec![format!(
                "the working tree matches HEAD on {branch}; no commit was made"
            )],
            push_failure: None,
        });
    }
    let tree = repo
        .find_tree(tree_id)
        .map_err(|e| git_failure("read the tree", e))?;
    let signature = match repo.signature() {
        Ok(sig) => sig,
        Err(_) => {
            lines.push(
                "git user.name/user.email are not set; committed as keyless <keyless@localhost>"
                    .to_string(),
            );
            git2::Signature::now("keyless", "keyless@localhost")
                .map_err(|e| git_failure("make a signature", e))?
        }
    };
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let id = repo
        .commit(
            Some("HEAD"),
            &signature,
            &signature,
            message,
            &tree,
            &parents,
        )
        .map_err(|e| git_failure("commit", e))?;
    let short = id.to_string()[..8].to_string();
    let changed = match &parent {
        Some(p) => repo
            .diff_tree_to_tree(
                Some(
                    &p.tree()
                        .map_err(|e| git_failure("read the parent tree", e))?,
                ),
                Some(&tree),
                None,
            )
            .map(|d| d.deltas().len())
            .unwrap_or(0),
        None => tree.len(),
    };
    lines.insert(
        0,
        format!("committed {short} on {branch}: {changed} file(s) changed"),
    );
    let mut details = vec![format!("commit: {short}"), format!("branch: {branch}")];

    let mut push_failure = None;
    if settings.push && repo.find_remote("origin").is_ok() {
        match push(root, &branch, &repo, trust) {
            Ok(note) => {
                details.push("pushed: origin".to_string());
                lines.push(note);
            }
            Err(failure) => push_failure = Some(failure),
        }
    } else if settings.push {
        lines.push("not pushed: the repository has no remote named origin".to_string());
    }
    Ok(Committed {
        details,
        lines,
        push_failure,
    })
}

fn current_branch(repo: &git2::Repository) -> Result<String, Failure> {
    match repo.head() {
        Ok(head) if head.is_branch() => Ok(head.shorthand().unwrap_or("HEAD").to_string()),
        Ok(_) => Err(Failure::new(
            Code::GitFailure,
            "HEAD is detached (not on a branch); nothing was committed. Switch to a branch first: `git switch -c keyless/<topic>`.",
        )),
        // An unborn branch: HEAD names it but it has no commit yet.
        Err(_) => {
            let head = repo
                .find_reference("HEAD")
                .map_err(|e| git_failure("read HEAD", e))?;
            let target = head.symbolic_target().unwrap_or("refs/heads/main");
            Ok(target.trim_start_matches("refs/heads/").to_string())
        }
    }
}

/// The git keyless runs itself: the one `trust` names, found where no command could have
/// planted it.
fn trusted_git(trust: &Trust) -> Result<std::path::PathBuf, Failure> {
    trust.git.clone().ok_or_else(|| {
        Failure::new(
            Code::GitNotInstalled,
            "no git program is installed outside the folders the model's commands can write (it is needed to initialise repositories and to push; a git in the workspace, a cache or Sandbox.WritablePaths is never run by keyless itself)",
        )
    })
}

fn init(root: &Path, trust: &Trust) -> Result<(), Failure> {
    let git = trusted_git(trust)?;
    let mut command = Command::new(git);
    command.arg("init");
    let run =
        crate::exec::run_command(command, root, PUSH_TIMEOUT, GIT_OUTPUT_CHARS).map_err(|e| {
            Failure::new(
                Code::GitInitFailed,
                format!("git init could not start: {e}"),
            )
        })?;
    if run.code != Some(0) {
        return Err(Failure::new(
            Code::GitInitFailed,
            format!("git init failed: {}", run.output.trim()),
        ));
    }
    Ok(())
}

/// Keeps `paths` (inside `root`) out of the index: as HEAD has them (tracked), or not at all.
fn leave_out(
    repo: &git2::Repository,
    root: &Path,
    paths: &[std::path::PathBuf],
) -> Result<usize, Failure> {
    let rel: Vec<String> = paths
        .iter()
        .filter_map(|p| p.strip_prefix(root).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .filter_map(|p| p.to_str().map(String::from))
        .collect();
    if rel.is_empty() {
        return Ok(0);
    }
    let mut index = repo.index().map_err(|e| git_failure("read the index", e))?;
    let staged: Vec<String> = index
        .iter()
        .filter_map(|e| String::from_utf8(e.path).ok())
        .filter(|p| {
            rel.iter()
                .any(|r| p == r || p.starts_with(&format!("{r}/")))
        })
        .collect();
    if staged.is_empty() {
        return Ok(0);
    }
    match repo.head().and_then(|h| h.peel_to_commit()) {
        Ok(head) => repo
            .reset_default(Some(head.as_object()), staged.iter())
            .map_err(|e| git_failure("leave hidden paths out", e))?,
        Err(_) => {
            for path in &staged {
                index
                    .remove_path(Path::new(path))
                    .map_err(|e| git_failure("leave hidden paths out", e))?;
            }
            index
                .write()
                .map_err(|e| git_failure("write the index", e))?;
        }
    }
    Ok(staged.len())
}

/// The first git configuration file `git` reads for a push in `root` that a command could have
/// written (one an `include.path` names in the working tree, say): its `receivepack`,
/// `sshCommand` or credential helper would run outside every sandbox. The repository's own git
/// folder is protected from commands, so what lies in it is trusted.
fn untrusted_config(
    root: &Path,
    git: &Path,
    repo: &git2::Repository,
    writable: &[std::path::PathBuf],
) -> Result<Option<std::path::PathBuf>, Failure> {
    let mut command = Command::new(git);
    command.args(["config", "--list", "--show-origin", "--includes", "-z"]);
    let run = crate::exec::run_command(command, root, PUSH_TIMEOUT, 1_000_000)
        .map_err(|e| Failure::new(Code::GitFailure, format!("git config could not start: {e}")))?;
    if run.code != Some(0) {
        return Err(Failure::new(
            Code::GitFailure,
            format!("git config --list failed: {}", run.output.trim()),
        ));
    }
    let git_dir = repo
        .path()
        .canonicalize()
        .unwrap_or_else(|_| repo.path().to_path_buf());
    let writable: Vec<std::path::PathBuf> = writable
        .iter()
        .map(|w| w.canonicalize().unwrap_or_else(|_| w.clone()))
        .collect();
    for origin in run
        .output
        .split('\0')
        .filter_map(|r| r.strip_prefix("file:"))
    {
        let path = normal(&root.join(origin));
        let path = path.canonicalize().unwrap_or(path);
        let trusted = path.starts_with(&git_dir) || !writable.iter().any(|w| path.starts_with(w));
        if !trusted {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// `path` with `.` and `..` taken out.
fn normal(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn push(
    root: &Path,
    branch: &str,
    repo: &git2::Repository,
    trust: &Trust,
) -> Result<String, Failure> {
    let git = trusted_git(trust)?;
    if let Some(file) = untrusted_config(root, &git, repo, &trust.writable)? {
        return Err(Failure::new(
            Code::GitFailure,
            format!(
                "not pushed: the repository's git configuration reads {}, which the model's commands could have written (its settings would run programs outside the sandbox); the commit is kept: check that file, then push it yourself",
                file.display()
            ),
        ));
    }
    let mut command = Command::new(git);
    // keyless's own push runs outside the sandbox, so it runs no hook: a pre-push hook is a
    // program someone put in the repository, and keyless did not choose to run it.
    command.args([
        "-c",
        "core.hooksPath=/dev/null",
        "push",
        "--no-verify",
        "-u",
        "origin",
        branch,
    ]);
    let run = crate::exec::run_command(command, root, PUSH_TIMEOUT, GIT_OUTPUT_CHARS)
        .map_err(|e| Failure::new(Code::GitFailure, format!("git push could not start: {e}")))?;
    if run.timed_out {
        return Err(Failure::new(
            Code::GitFailure,
            format!(
                "git push -u origin {branch} took longer than {}s and was stopped",
                PUSH_TIMEOUT.as_secs()
            ),
        ));
    }
    if run.code != Some(0) {
        return Err(Failure::new(
            Code::GitFailure,
            format!("git push -u origin {branch} failed: {}", run.output.trim()),
        ));
    }
    Ok(format!("pushed {branch} to origin"))
}
