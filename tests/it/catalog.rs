//! The error catalog, `docs/error-codes.md` and the user's specification must agree, and every
//! code must be produced by a test (except those listed as not yet built, each with its issue).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use keyless::catalog::{Code, render_markdown};

const DOCS: &str = "docs/error-codes.md";
const SPEC: &str = "docs/spec/agentscript-v1.md";

/// Codes no test produces yet, with the part of keyless that will produce them. This list may
/// only shrink: when a part lands, its codes come off and its tests must produce them.
const NOT_YET_PRODUCED: &[(&str, &str)] = &[];

fn spec_codes() -> BTreeSet<String> {
    let spec = fs::read_to_string(SPEC).expect("the vendored specification is readable");
    let catalog = &spec[spec
        .find("## Error-code catalog")
        .expect("spec has a catalog")..];
    catalog
        .lines()
        .filter_map(|line| line.strip_prefix("| KA_"))
        .map(|rest| format!("KA_{}", rest.split_whitespace().next().unwrap_or_default()))
        .collect()
}

#[test]
fn catalog_matches_the_specification() {
    let ours: BTreeSet<String> = Code::ALL.iter().map(|c| c.code().to_string()).collect();
    assert_eq!(ours.len(), Code::ALL.len(), "a code string is used twice");
    assert_eq!(ours, spec_codes());
}

#[test]
fn docs_are_generated_from_the_catalog() {
    let rendered = render_markdown();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        fs::write(DOCS, &rendered).expect("write docs");
    }
    let docs = fs::read_to_string(DOCS).unwrap_or_default();
    assert!(
        docs == rendered,
        "{DOCS} is out of date: run `UPDATE_DOCS=1 cargo test --test catalog`"
    );
}

#[test]
fn codes_round_trip_through_their_strings() {
    for &code in Code::ALL {
        assert_eq!(Code::from_code(code.code()), Some(code));
        assert!(!code.meaning().is_empty());
    }
    assert_eq!(Code::from_code("KA_NOPE"), None);
}

/// Every code not listed above must be named in some test, as `Code::Variant` or as its string.
#[test]
fn every_code_is_produced_by_a_test() {
    let mut tests = String::new();
    for dir in ["tests", "src"] {
        collect(Path::new(dir), &mut tests);
    }
    let pending: BTreeSet<&str> = NOT_YET_PRODUCED.iter().map(|(c, _)| *c).collect();
    let mut missing = Vec::new();
    let mut stale = Vec::new();
    for &code in Code::ALL {
        let variant = format!("Code::{code:?}");
        let named = tests.contains(&variant)
            || tests.contains(&format!("\"{}\"", code.code()))
            || tests.contains(&format!("code: {}", code.code()))
            || tests.contains(&format!("{}: ", code.code()));
        match (named, pending.contains(code.code())) {
            (false, false) => missing.push(code.code()),
            (true, true) => stale.push(code.code()),
            _ => {}
        }
    }
    assert!(missing.is_empty(), "no test produces: {missing:?}");
    assert!(
        stale.is_empty(),
        "tests now produce {stale:?}: take them off NOT_YET_PRODUCED"
    );
}

/// Gathers test code: files under tests/ (but this one), scenario `results.txt` files, and
/// `#[cfg(test)]` parts of src/.
fn collect(dir: &Path, out: &mut String) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.ends_with("results.txt") {
            // Scenario expectations: the exact results message, codes included.
            out.push_str(&fs::read_to_string(&path).unwrap_or_default());
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("catalog.rs") {
            let text = fs::read_to_string(&path).unwrap_or_default();
            if path.starts_with("tests") {
                out.push_str(&text);
            } else if let Some(at) = text.find("#[cfg(test)]") {
                out.push_str(&text[at..]);
            }
        }
    }
}
