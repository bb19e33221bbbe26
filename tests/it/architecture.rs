//! The invariants of ARCHITECTURE.md, checked on the source text (as rust-analyzer's tidy tests
//! do), so that a change that breaks one fails here instead of waiting for a reader to notice:
//! which modules may import which crates, which modules do no I/O, and that the top-level
//! modules form no circle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, with its text up to its `#[cfg(test)]` module.
fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                let code = match text.find("#[cfg(test)]") {
                    Some(at) => text[..at].to_string(),
                    None => text,
                };
                out.push((path, code));
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("src"), &mut out);
    out.sort();
    out
}

/// The code of a file without its comments (so a doc comment naming a crate is no import).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The files that mention `needle` in their code.
fn users(needle: &str) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(_, text)| code_only(text).contains(needle))
        .map(|(path, _)| path.display().to_string())
        .collect()
}

#[test]
fn only_chat_imports_chromiumoxide() {
    for file in users("chromiumoxide::") {
        assert!(file.starts_with("src/chat/"), "{file} uses chromiumoxide");
    }
}

#[test]
fn only_git_rs_imports_git2() {
    assert_eq!(users("git2::"), vec!["src/git.rs".to_string()]);
}

#[test]
fn only_the_sandbox_imports_landlock() {
    for file in users("landlock::") {
        assert!(
            file.starts_with("src/exec/sandbox/"),
            "{file} uses landlock"
        );
    }
}

/// `protocol`, `policy`, the redactor, the proxy's host vocabulary and what a person is shown
/// of a string (`visible`) are pure: text in, result out. No files, processes, network,
/// environment, clock or async.
#[test]
fn the_pure_cores_do_no_io() {
    const IO: &[&str] = &[
        "std::fs",
        "std::process",
        "std::net",
        "std::env",
        "std::io::stdin",
        "std::time::Instant",
        "SystemTime",
        "tokio",
        "cap_std",
        "crate::exec",
        "crate::workspace",
        "crate::git",
        "crate::chat",
        "crate::turn",
        "crate::cli",
    ];
    for (path, text) in sources() {
        let file = path.display().to_string();
        let pure = file.starts_with("src/protocol/")
            || file.starts_with("src/policy/")
            || file == "src/glob.rs"
            || file.starts_with("src/hosts/")
            || file.starts_with("src/visible/")
            || file.starts_with("src/redact/");
        if !pure {
            continue;
        }
        let code = code_only(&text);
        for needle in IO {
            assert!(!code.contains(needle), "{file} uses {needle}");
        }
    }
}

/// The top-level module a file belongs to: `src/chat/cdp/mod.rs` → `chat`.
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix("src").unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Which top-level modules each one uses (`crate::name`), outside tests.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let modules: BTreeSet<String> = sources().iter().map(|(p, _)| module_of(p)).collect();
    for (path, text) in sources() {
        let from = module_of(&path);
        let code = code_only(&text);
        let entry = graph.entry(from.clone()).or_default();
        for to in &modules {
            if *to != from
                && (code.contains(&format!("crate::{to}::"))
                    || code.contains(&format!("crate::{to};"))
                    || code.contains(&format!("crate::{to}::{{"))
                    || code.contains(&format!("crate::{{{to}")))
            {
                entry.insert(to.clone());
            }
        }
        // `use crate::{a, b::c}` lists.
        for list in code.split("use crate::{").skip(1) {
            let inside = list.split('}').next().unwrap_or_default();
            for item in inside.split(',') {
                let name = item.trim().split("::").next().unwrap_or_default().trim();
                if modules.contains(name) && name != from {
                    entry.insert(name.to_string());
                }
            }
        }
    }
    graph.remove("main");
    graph.remove("lib");
    graph
}

#[test]
fn the_top_level_modules_form_no_circle() {
    let graph = module_graph();
    // The graph must be read at all: the loop, the engine and the CLI use the layers below.
    assert!(
        graph["turn"].contains("batch") && graph["cli"].contains("turn"),
        "{graph:?}"
    );
    // Depth-first search for a back edge; the path shows the circle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(circle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            panic!(
                "the modules import each other in a circle: {}",
                circle.join(" -> ")
            );
        }
    }
}

/// The lowest layers use nothing of keyless but each other: the error catalog, the exit
/// statuses, the Ctrl+C flag and the configuration's vocabulary.
#[test]
fn the_ground_floor_imports_nothing_above_it() {
    let graph = module_graph();
    let ground: BTreeSet<&str> = [
        "catalog", "exit", "cancel", "config", "redact", "glob", "hosts", "visible",
    ]
    .into();
    for module in &ground {
        for used in graph.get(*module).into_iter().flatten() {
            assert!(
                ground.contains(used.as_str()),
                "{module} (ground floor) uses {used}"
            );
        }
    }
}

/// No decision is made on a message keyless wrote: the outcome of a command, a failure's
/// reason and a discovery's finding are data (the journal's `outcome`, a `Failure`'s code,
/// `take_findings`), and their texts are only ever rendered. The texts keyless renders, and the
/// ways a decision would read them, are listed here; a new decision on one fails.
#[test]
fn no_decision_is_made_on_a_rendered_message() {
    let rendered = [
        "\"status:",
        "\"status: ok",
        "\"status: error",
        "\"code: KA_",
        "\"by its shape",
        "\"[KEYLESSAGENT",
    ];
    let readers = [
        ".starts_with(",
        ".contains(",
        ".ends_with(",
        ".find(",
        ".strip_prefix(",
    ];
    let mut found = Vec::new();
    // Test modules in their own folder (`src/turn/tests/`) check what is rendered: that is no
    // decision.
    let in_code = sources()
        .into_iter()
        .filter(|(path, _)| !path.components().any(|c| c.as_os_str() == "tests"));
    for (path, text) in in_code {
        let code = code_only(&text);
        for (n, line) in code.lines().enumerate() {
            let compact: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
            for reader in readers {
                for phrase in rendered {
                    if compact.contains(&format!("{reader}{phrase}")) {
                        found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                }
            }
            // A failure's reason is for people; its code is for decisions.
            for reader in readers {
                if compact.contains(&format!(".reason{reader}")) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "decisions on rendered text:\n{}",
        found.join("\n")
    );
}

/// The page API is the one door to the chat page: outside `src/chat/cdp/page_api/` no code
/// evaluates JavaScript or names the page script, every page function it calls is one
/// `page.js` defines, and the two agree on the script's version.
#[test]
fn the_page_is_called_only_through_the_page_api() {
    const DOOR: &str = "src/chat/cdp/page_api/mod.rs";
    let mut found = Vec::new();
    for (path, text) in sources() {
        if path.starts_with("src/chat/cdp/page_api") {
            continue;
        }
        for (n, line) in code_only(&text).lines().enumerate() {
            for needle in [
                ".evaluate(",
                ".eval(",
                ".eval::<",
                "eval_json(",
                "evaluate_json(",
                "window.__keyless",
                "document.",
            ] {
                if line.contains(needle) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "JavaScript outside the page API:\n{}",
        found.join("\n")
    );

    let door = fs::read_to_string(DOOR).unwrap();
    let page = fs::read_to_string("src/chat/page.js").unwrap();
    let mut called = BTreeSet::new();
    for opener in ["self.call(\"", "self.call_present(\""] {
        for piece in door.split(opener).skip(1) {
            called.insert(piece.split('"').next().unwrap().to_string());
        }
    }
    assert!(called.len() > 30, "{called:?}");
    for name in &called {
        assert!(
            page.contains(&format!("\n    {name}: ("))
                || page.contains(&format!("\n    {name}: async (")),
            "page_api/ calls {name}, which page.js does not define"
        );
    }
    let version = door
        .split("pub(super) const PAGE_VERSION: u32 = ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap();
    assert!(
        page.contains(&format!("version: {version},")),
        "page.js is not version {version}"
    );
    assert!(
        page.contains(&format!("window.__keyless.version === {version})")),
        "page.js's own check is not version {version}"
    );
}

/// One owner of `.agent/`: outside `src/workspace/`, no code builds a path into it; it asks
/// `workspace::agent::Agent` for a place by what it is. The sandbox, a floor below, may name the
/// folder itself among the places it keeps read-only, and nothing in it: where it moves a name a
/// command made is given to it from above.
#[test]
fn only_the_workspace_builds_paths_into_the_agent_folder() {
    let mut found = Vec::new();
    for (path, text) in sources() {
        if path.starts_with("src/workspace") || path.components().any(|c| c.as_os_str() == "tests")
        {
            continue;
        }
        // The sandbox may name the folder itself among the places it protects, never a path
        // into it (a moved-aside name goes where the workspace says: `quarantine_into`).
        let names_the_folder = path.starts_with("src/exec/sandbox");
        for (n, line) in code_only(&text).lines().enumerate() {
            if names_the_folder
                && (line.contains("join(\".agent\")") || line.contains("\".agent\","))
            {
                continue;
            }
            for needle in [
                "join(\".agent",
                "Path::new(\".agent",
                "join(AGENT_DIR",
                "Path::new(AGENT_DIR",
                "\"keyless.pid\"",
                "\"session.json\"",
                "\"history.txt\"",
                "\"batch.jsonl\"",
                "\"transcript.jsonl\"",
            ] {
                if line.contains(needle) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths into .agent/ built outside src/workspace/:\n{}",
        found.join("\n")
    );
}

/// Only the resolver touches the workspace's directory handle (`src/workspace/resolve.rs`, the
/// place it walked to in `place.rs`, the question `reach.rs` asks of an open folder, their
/// system calls in `nofollow.rs`, the handle opened in
/// `mod.rs`): no other code names a `cap_std` directory or file, so every path keyless opens in
/// the workspace is walked without following a link, and refused when protected or hidden.
#[test]
fn only_the_resolver_opens_workspace_files() {
    const RESOLVER: &[&str] = &[
        "src/workspace/mod.rs",
        "src/workspace/resolve.rs",
        "src/workspace/reach.rs",
        "src/workspace/place.rs",
        "src/workspace/nofollow.rs",
    ];
    let mut found = Vec::new();
    for (path, text) in sources() {
        let file = path.display().to_string();
        if RESOLVER.contains(&file.as_str()) {
            continue;
        }
        let code = code_only(&text);
        for needle in [
            "cap_std::fs::Dir",
            "cap_std::fs::File",
            "cap_std::fs::OpenOptions",
            "cap_std::ambient_authority",
            "fs::{Dir",
            ".dir()",
            "self.dir.",
        ] {
            if code.contains(needle) {
                found.push(format!("{file} uses {needle}"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A `Script` means "parsed, and valid": its field is private and only `protocol` makes one.
#[test]
fn only_the_parser_makes_a_script() {
    let ast = fs::read_to_string("src/protocol/ast.rs").unwrap();
    let definition = ast.split("pub struct Script {").nth(1).unwrap();
    let fields = definition.split('}').next().unwrap();
    assert!(
        !fields.contains("pub "),
        "Script has a public field: {fields}"
    );
    for (path, text) in sources() {
        if path.starts_with("src/protocol") {
            continue;
        }
        assert!(
            !code_only(&text).contains("Script::parsed("),
            "{} makes a Script",
            path.display()
        );
    }
}

/// The chat driver is parts that own their state: `CdpDriver` holds at most six fields, each
/// a part defined in a file of its own (or the warnings not yet taken).
#[test]
fn the_driver_is_a_few_parts_each_in_its_own_file() {
    let driver = fs::read_to_string("src/chat/cdp/mod.rs").unwrap();
    let body = driver
        .split("pub struct CdpDriver {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .unwrap();
    let fields: Vec<(&str, &str)> = body
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("//") && !line.is_empty())
        .filter_map(|line| line.split_once(": "))
        .collect();
    assert!(
        !fields.is_empty() && fields.len() <= 6,
        "CdpDriver has {} fields: {fields:?}",
        fields.len()
    );
    let homes = [
        ("Tab,", "src/chat/cdp/tab.rs"),
        ("Composer,", "src/chat/cdp/composer.rs"),
        ("Reader,", "src/chat/cdp/read.rs"),
        ("Discovery,", "src/chat/cdp/discovery.rs"),
        ("Controls,", "src/chat/cdp/controls.rs"),
        ("Vec<Failure>,", "src/chat/cdp/mod.rs"),
    ];
    for (name, kind) in &fields {
        let (part, home) = homes
            .iter()
            .find(|(part, _)| part == kind)
            .unwrap_or_else(|| panic!("CdpDriver's field {name} is not one of its parts: {kind}"));
        let part = part.trim_end_matches(',');
        if part == "Vec<Failure>" {
            continue;
        }
        let text = fs::read_to_string(home).unwrap();
        assert!(
            text.contains(&format!("pub(super) struct {part} {{")),
            "{part} is not defined in {home}"
        );
    }
}

/// One place leaves the sandbox: the command orchestrator (`src/batch/command/`) is the only
/// code outside the sandbox itself that reads what the sandbox refused a command (`Refusal`)
/// or names running one `unconfined` (a method call or `Sandbox::unconfined(…)` alike), so that
/// approval and the offer to leave the sandbox stay side by side and no other floor decides
/// either.
#[test]
fn only_the_orchestrator_leaves_the_sandbox() {
    const ORCHESTRATOR: &str = "src/batch/command";
    /// Whether `code` names `word` as a whole identifier (`Refusal`, not `Refusals`).
    fn names(code: &str, word: &str) -> bool {
        code.match_indices(word).any(|(at, _)| {
            let ident = |c: char| c.is_alphanumeric() || c == '_';
            !code[..at].ends_with(ident) && !code[at + word.len()..].starts_with(ident)
        })
    }
    let mut found = Vec::new();
    let mut orchestrator_uses = BTreeSet::new();
    for (path, text) in sources() {
        if path.starts_with("src/exec/sandbox")
            || path.components().any(|c| c.as_os_str() == "tests")
        {
            continue;
        }
        for (n, line) in code_only(&text).lines().enumerate() {
            let hits: Vec<&str> = [
                ("Refusal", names(line, "Refusal")),
                ("unconfined", names(line, "unconfined")),
            ]
            .into_iter()
            .filter_map(|(needle, hit)| hit.then_some(needle))
            .collect();
            if path.starts_with(ORCHESTRATOR) {
                orchestrator_uses.extend(hits);
            } else if !hits.is_empty() {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the sandbox's refusals read, or a command run unconfined, outside {ORCHESTRATOR}/:\n{}",
        found.join("\n")
    );
    // The test must see the orchestrator doing both, or a rename would make it vacuous.
    assert_eq!(
        orchestrator_uses,
        BTreeSet::from(["Refusal", "unconfined"]),
        "{ORCHESTRATOR}/ no longer reads the refusals and leaves the sandbox"
    );
}

/// Narrow visibility: a module is `pub` only when something outside the library (the test
/// binary, the benchmarks, `main`) uses it; every other module is `pub(crate)` or private.
#[test]
fn a_module_is_public_only_when_something_outside_the_library_uses_it() {
    let mut outside = String::new();
    for dir in ["tests", "benches"] {
        let mut stack = vec![PathBuf::from(dir)];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    outside.push_str(&fs::read_to_string(&path).unwrap());
                }
            }
        }
    }
    outside.push_str(&fs::read_to_string("src/main.rs").unwrap());
    let mut unused = Vec::new();
    for (path, text) in sources() {
        let parent = path
            .with_extension("")
            .strip_prefix("src")
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .filter(|c| c != "mod" && c != "lib")
            .collect::<Vec<_>>()
            .join("::");
        for line in code_only(&text).lines() {
            let Some(name) = line
                .strip_prefix("pub mod ")
                .and_then(|rest| rest.strip_suffix(';'))
            else {
                continue;
            };
            let parent = if parent.is_empty() {
                "keyless".to_string()
            } else {
                format!("keyless::{parent}")
            };
            let direct = regex::Regex::new(&format!(r"{parent}::{name}\b")).unwrap();
            let grouped = regex::Regex::new(&format!(r"{parent}::\{{[^}}]*\b{name}\b")).unwrap();
            if !direct.is_match(&outside) && !grouped.is_match(&outside) {
                unused.push(format!("{parent}::{name} ({})", path.display()));
            }
        }
    }
    assert!(
        unused.is_empty(),
        "public modules nothing outside the library uses (make them pub(crate)):\n{}",
        unused.join("\n")
    );
}

/// The error types named as `Result`s' errors in `code`: the second argument of every
/// `Result<…, …>` (generics balanced, spaces ignored).
fn result_errors(code: &str) -> Vec<String> {
    let compact: String = code.split_whitespace().collect();
    let mut out = Vec::new();
    for (at, _) in compact.match_indices("Result<") {
        let (mut depth, mut comma, mut end) = (0usize, None, None);
        for (i, c) in compact[at + "Result".len()..].char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                ',' if depth == 1 => comma = comma.or(Some(i)),
                _ => {}
            }
        }
        if let (Some(comma), Some(end)) = (comma, end) {
            let inner = &compact[at + "Result".len()..];
            out.push(inner[comma + 1..end].to_string());
        }
    }
    out
}

/// The sandbox and the chat driver keep their errors typed (ARCHITECTURE.md): each room has one
/// error enum that keeps its cause as its `source()` (`exec/sandbox/error.rs`,
/// `chat/cdp/error.rs`); no `Result` there has text for its error, no error is flattened into
/// text on its way out, and the browser's own words are read in one place only, where its error
/// becomes the room's.
#[test]
fn the_sandbox_and_the_driver_keep_their_errors_typed() {
    let rooms = [
        ("src/exec/sandbox", "SandboxError"),
        ("src/chat/cdp", "DriverError"),
    ];
    let mut found = Vec::new();
    for (room, error) in rooms {
        let home = format!("{room}/error.rs");
        let defined = fs::read_to_string(&home).unwrap_or_default();
        assert!(
            defined.contains(&format!("pub enum {error} {{"))
                && defined.contains(&format!("impl std::error::Error for {error} {{"))
                && defined.contains("fn source(&self)"),
            "{home} defines no {error} enum with its source"
        );
        for (path, text) in sources().into_iter().filter(|(p, _)| p.starts_with(room)) {
            let code = code_only(&text);
            for wrong in result_errors(&code).into_iter().filter(|e| {
                ["String", "&str", "&'staticstr", "Box<dynstd::error::Error>"].contains(&e.as_str())
            }) {
                found.push(format!(
                    "{}: a Result whose error is {wrong}",
                    path.display()
                ));
            }
            let compact: String = code.split_whitespace().collect();
            for flattened in [
                "map_err(|e|e.to_string())",
                "map_err(|e|format!(",
                "io::Error::other(format!(",
            ] {
                if compact.contains(flattened) {
                    found.push(format!(
                        "{}: an error flattened ({flattened})",
                        path.display()
                    ));
                }
            }
            if compact.contains(".message.") && path != Path::new(&home) {
                found.push(format!(
                    "{}: the browser's words read outside {home}",
                    path.display()
                ));
            }
        }
    }
    assert!(found.is_empty(), "untyped errors:\n{}", found.join("\n"));
}

#[test]
fn result_errors_are_found_through_generics_and_lines() {
    let code = "fn a() -> Result<Vec<(u8, String)>,\n  String> {}\nfn b() -> io::Result<()> {}\nlet c: Result<&'static Kept, SandboxError>;";
    assert_eq!(result_errors(code), ["String", "SandboxError"]);
}
