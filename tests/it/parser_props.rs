//! Property tests of the parser: it never panics, and rendering a valid script then parsing it
//! gives the same script back.

use keyless::config::Limits;
use keyless::protocol::render::render_commands;
use keyless::protocol::{Command, OnError, RunOptions, parse};
use proptest::prelude::*;

/// Lines that stress the markers: each is content when it sits inside a payload.
const TRICKY_LINES: &[&str] = &[
    "CONTENT>>>",
    "  CONTENT>>>  ",
    "MSG>>>",
    "FIND>>>",
    "REPLACE>>>",
    "CMD>>>",
    "TO>>>",
    "CONTENT:k1>>>",
    "<<<CONTENT",
    "<<<MSG:x7",
    "@@end",
    "@@eof",
    "@@newfile x",
    "```",
    "~~~",
    "",
    "   ",
    "\t",
    "*emph* _x_",
    "    indented",
    "trailing  ",
];

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(TRICKY_LINES).prop_map(str::to_string),
        "[^\n\r]{0,24}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(line(), 0..6).prop_map(|lines| lines.join("\n"))
}

fn non_blank() -> impl Strategy<Value = String> {
    text().prop_filter("must hold text", |t| !t.trim().is_empty())
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec("[a-zA-Z0-9_]([a-zA-Z0-9_. -]{0,6}[a-zA-Z0-9_])?", 1..4)
        .prop_map(|segments| segments.join("/"))
}

fn command() -> impl Strategy<Value = Command> {
    let options = (
        prop::option::of(prop_oneof![Just(OnError::Continue), Just(OnError::Stop)]),
        prop::option::of(1u32..100_000),
    )
        .prop_map(|(on_error, timeout_seconds)| RunOptions {
            on_error,
            timeout_seconds,
        });
    prop_oneof![
        non_blank().prop_map(|msg| Command::Say { msg }),
        (path(), text()).prop_map(|(path, content)| Command::NewFile { path, content }),
        (path(), text()).prop_map(|(path, content)| Command::UpdateFile { path, content }),
        (path(), non_blank(), text()).prop_map(|(path, find, replace)| Command::EditFile {
            path,
            find,
            replace
        }),
        path().prop_map(|path| Command::DeleteFile { path }),
        path().prop_map(|path| Command::ReadFile { path }),
        path().prop_map(|path| Command::Mkdir { path }),
        (path(), path()).prop_map(|(from, to)| Command::MoveFile { from, to }),
        (non_blank(), options).prop_map(|(cmd, options)| Command::RunCommand { cmd, options }),
        non_blank().prop_map(|msg| Command::Ask { msg }),
        non_blank().prop_map(|msg| Command::Commit { msg }),
    ]
}

fn control() -> impl Strategy<Value = Option<Command>> {
    prop_oneof![
        Just(None),
        prop::option::of(non_blank()).prop_map(|msg| Some(Command::Done { msg })),
        prop::option::of(non_blank()).prop_map(|msg| Some(Command::Next { msg })),
    ]
}

fn script() -> impl Strategy<Value = Vec<Command>> {
    (prop::collection::vec(command(), 0..8), control()).prop_map(|(mut commands, control)| {
        let only_say = commands.iter().all(|c| matches!(c, Command::Say { .. }));
        match control {
            Some(control) => commands.push(control),
            None if only_say => commands.push(Command::Next { msg: None }),
            None => {}
        }
        commands
    })
}

/// Fragments from which hostile, almost-valid replies are built.
const FRAGMENTS: &[&str] = &[
    "@@say",
    "@@newfile a.txt",
    "@@editfile ../x",
    "@@runcommand timeout=0",
    "@@done",
    "@@next",
    "@@end",
    "@@eof",
    "@@",
    "@@ ",
    "<<<MSG",
    "MSG>>>",
    "<<<CONTENT:n",
    "CONTENT:n>>>",
    "<<<",
    ">>>",
    "<<<FIND",
    "FIND>>>",
    "<<<REPLACE",
    "REPLACE>>>",
    "<<<TO",
    "TO>>>",
    "```",
    "````x",
    "~~~",
    "\u{feff}",
    "\r",
    "text",
    "",
    "é",
    "@@movefile a",
    "@@mkdir /",
    "<<<CMD",
    "CMD>>>",
];

proptest! {
    #![proptest_config(crate::common::proptest_config(512))]

    #[test]
    fn arbitrary_text_never_panics(input in "\\PC*") {
        let parsed = parse(&input, &Limits::default());
        prop_assert_eq!(parsed.script.is_some(), parsed.diagnostics.is_empty());
    }

    #[test]
    fn hostile_fragments_never_panic(lines in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40)) {
        let input = lines.join("\n");
        let parsed = parse(&input, &Limits::default());
        prop_assert_eq!(parsed.script.is_some(), parsed.diagnostics.is_empty());
        for d in &parsed.diagnostics {
            if let Some(line) = d.line {
                prop_assert!(line >= 1 && line <= lines.len().max(1));
            }
        }
    }

    #[test]
    fn rendered_scripts_parse_back_to_themselves(commands in script()) {
        let text = render_commands(&commands);
        let parsed = parse(&text, &Limits::default());
        prop_assert!(parsed.diagnostics.is_empty(), "{}\n{:#?}", text, parsed.diagnostics);
        let back: Vec<Command> = parsed.script.unwrap().into_blocks().into_iter().map(|b| b.command).collect();
        prop_assert_eq!(back, commands);
    }
}
