//! The line ending a new file gets: `.editorconfig` (end_of_line) for that path, else
//! `.gitattributes` (eol=…), else the dominant ending of sibling files, else the platform's.

use std::path::Path;

use super::Place;
use super::text::{Eol, count_endings};

/// Sibling files sampled for their line endings.
const MAX_SIBLINGS: usize = 32;
/// Bytes read from each sibling.
const SIBLING_SAMPLE_BYTES: u64 = 64 * 1024;

/// Where a new file's line ending came from, said in results so a surprise can be traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EolSource {
    EditorConfig,
    GitAttributes,
    Siblings,
    Platform,
}

impl EolSource {
    pub fn describe(self) -> &'static str {
        match self {
            EolSource::EditorConfig => ".editorconfig",
            EolSource::GitAttributes => ".gitattributes",
            EolSource::Siblings => "sibling files",
            EolSource::Platform => "platform default",
        }
    }
}

/// Chooses the line ending for a new file at `place` (walked by the resolver).
pub fn new_file_eol(root: &Path, place: &Place) -> (Eol, EolSource) {
    let rel = place.rel();
    let full = root.join(rel);
    if let Ok(props) = ec4rs::properties_of(&full) {
        match props.get::<ec4rs::property::EndOfLine>() {
            Ok(ec4rs::property::EndOfLine::Lf) => return (Eol::Lf, EolSource::EditorConfig),
            Ok(ec4rs::property::EndOfLine::CrLf) => return (Eol::CrLf, EolSource::EditorConfig),
            // Lone-CR files are not supported; fall through to the next rule.
            _ => {}
        }
    }
    if let Some(eol) = crate::git::eol_attribute(root, rel) {
        let eol = match eol {
            crate::git::EolAttribute::Lf => Eol::Lf,
            crate::git::EolAttribute::CrLf => Eol::CrLf,
        };
        return (eol, EolSource::GitAttributes);
    }
    if let Some(eol) = sibling_eol(place) {
        return (eol, EolSource::Siblings);
    }
    (Eol::platform(), EolSource::Platform)
}

/// The dominant ending over a sample of the folder's other text files (read through the
/// folder the resolver walked to, no link followed).
fn sibling_eol(place: &Place) -> Option<Eol> {
    let (mut crlf, mut lf) = (0, 0);
    for sample in place.sample_siblings(MAX_SIBLINGS, SIBLING_SAMPLE_BYTES) {
        if sample.contains(&0) {
            continue;
        }
        let text = String::from_utf8_lossy(&sample);
        let (c, l) = count_endings(&text);
        crlf += c;
        lf += l;
    }
    match (crlf, lf) {
        (0, 0) => None,
        (c, l) if c > l => Some(Eol::CrLf),
        _ => Some(Eol::Lf),
    }
}
