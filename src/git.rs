//! Git: the one module that talks to repositories (through git2).

use std::path::Path;

use crate::workspace::text::Eol;

/// The `eol` attribute `.gitattributes` gives `rel` (a workspace-relative path), when the
/// workspace is inside a git repository and an attribute sets it.
pub fn eol_attribute(root: &Path, rel: &Path) -> Option<Eol> {
    let repo = git2::Repository::discover(root).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let in_repo = root.join(rel);
    let rel_to_repo = in_repo.strip_prefix(&workdir).ok()?;
    match repo
        .get_attr(rel_to_repo, "eol", git2::AttrCheckFlags::FILE_THEN_INDEX)
        .ok()??
    {
        "lf" => Some(Eol::Lf),
        "crlf" => Some(Eol::CrLf),
        _ => None,
    }
}
