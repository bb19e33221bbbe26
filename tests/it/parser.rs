//! Table tests of the AgentScript v1 parser: every grammar rule and every parse-time code,
//! with the line numbers of the reply as received.

use keyless::catalog::Code;
use keyless::config::Limits;
use keyless::protocol::render::format_error;
use keyless::protocol::{Command, Control, OnError, Script, parse};

/// Parses `reply` and asserts the diagnostics are exactly `expected` (code, line), in any order.
fn check(reply: &str, expected: &[(Code, Option<usize>)]) {
    check_with(reply, &Limits::default(), expected);
}

fn check_with(reply: &str, limits: &Limits, expected: &[(Code, Option<usize>)]) {
    let parsed = parse(reply, limits);
    let mut got: Vec<(Code, Option<usize>)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line))
        .collect();
    let mut want = expected.to_vec();
    got.sort_by_key(|(c, l)| (c.code(), *l));
    want.sort_by_key(|(c, l)| (c.code(), *l));
    assert_eq!(
        got, want,
        "\nreply:\n{reply}\ndiagnostics: {:#?}",
        parsed.diagnostics
    );
    assert_eq!(parsed.script.is_some(), expected.is_empty());
}

/// Parses a reply that must be valid and returns its script.
fn ok(reply: &str) -> Script {
    let parsed = parse(reply, &Limits::default());
    assert!(
        parsed.diagnostics.is_empty(),
        "\nreply:\n{reply}\ndiagnostics: {:#?}",
        parsed.diagnostics
    );
    parsed.script.expect("a valid reply has a script")
}

fn commands(reply: &str) -> Vec<Command> {
    ok(reply)
        .into_blocks()
        .into_iter()
        .map(|b| b.command)
        .collect()
}

const DONE: &str = "@@done\n@@end\n@@eof\n";

// ---------------------------------------------------------------------------------------------
// Valid replies

#[test]
fn the_specification_example_parses() {
    let reply = "@@say\n<<<MSG\nI will add the service now.\nMSG>>>\n@@end\n@@newfile src/Greeter.cs\n<<<CONTENT\nnamespace App;\n\npublic static class Greeter\n{\n    public static string Hello(string name) => $\"Hello, {name}!\";\n}\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\ndotnet build\nCMD>>>\n@@end\n@@done\n<<<MSG\nAdded src/Greeter.cs; build passed.\nMSG>>>\n@@end\n@@eof\n";
    let script = ok(reply);
    let lines: Vec<(usize, usize)> = script.blocks().iter().map(|b| (b.index, b.line)).collect();
    assert_eq!(lines, vec![(1, 1), (2, 6), (3, 16), (4, 21)]);
    assert_eq!(script.control(), Control::Done);
    assert_eq!(
        script.blocks()[1].command,
        Command::NewFile {
            path: "src/Greeter.cs".into(),
            content: "namespace App;\n\npublic static class Greeter\n{\n    public static string Hello(string name) => $\"Hello, {name}!\";\n}".into(),
        }
    );
}

#[test]
fn every_command_parses_with_its_payloads() {
    let reply = "@@newfile a.txt\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n\
                 @@updatefile a.txt\n<<<CONTENT\ny\nCONTENT>>>\n@@end\n\
                 @@editfile a.txt\n<<<FIND\ny\nFIND>>>\n<<<REPLACE\nz\nREPLACE>>>\n@@end\n\
                 @@deletefile b.txt\n@@end\n\
                 @@readfile a.txt\n@@end\n\
                 @@mkdir src/sub/\n@@end\n\
                 @@movefile a.txt\n<<<TO\nc/d.txt\nTO>>>\n@@end\n\
                 @@runcommand on_error=continue timeout=30\n<<<CMD\nls\nCMD>>>\n@@end\n\
                 @@ask\n<<<MSG\nWhich?\nMSG>>>\n@@end\n\
                 @@commit\n<<<MSG\nAdd a\nMSG>>>\n@@end\n\
                 @@next\n@@end\n@@eof\n";
    assert_eq!(
        commands(reply),
        vec![
            Command::NewFile {
                path: "a.txt".into(),
                content: "x".into()
            },
            Command::UpdateFile {
                path: "a.txt".into(),
                content: "y".into()
            },
            Command::EditFile {
                path: "a.txt".into(),
                find: "y".into(),
                replace: "z".into()
            },
            Command::DeleteFile {
                path: "b.txt".into()
            },
            Command::ReadFile {
                path: "a.txt".into()
            },
            Command::Mkdir {
                path: "src/sub".into()
            },
            Command::MoveFile {
                from: "a.txt".into(),
                to: "c/d.txt".into()
            },
            Command::RunCommand {
                cmd: "ls".into(),
                options: keyless::protocol::RunOptions {
                    on_error: Some(OnError::Continue),
                    timeout_seconds: Some(30)
                }
            },
            Command::Ask {
                msg: "Which?".into()
            },
            Command::Commit {
                msg: "Add a".into()
            },
            Command::Next { msg: None },
        ]
    );
}

#[test]
fn command_names_are_case_insensitive() {
    let script = ok("@@NewFile a.txt\n<<<CONTENT\nx\nCONTENT>>>\n@@END\n@@DONE\n@@End\n@@EOF\n");
    assert_eq!(script.blocks().len(), 2);
    assert_eq!(script.control(), Control::Done);
}

#[test]
fn no_directive_means_next() {
    let script = ok("@@readfile a.txt\n@@end\n@@eof");
    assert_eq!(script.control(), Control::Next);
}

#[test]
fn say_with_done_is_valid() {
    let script = ok("@@say\n<<<MSG\nAll set.\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n");
    assert_eq!(script.blocks().len(), 2);
}

#[test]
fn done_and_next_take_an_optional_msg() {
    assert_eq!(
        commands("@@done\n<<<MSG\nFinished.\nMSG>>>\n@@end\n@@eof"),
        vec![Command::Done {
            msg: Some("Finished.".into())
        }]
    );
    assert_eq!(
        commands("@@next\n<<<MSG\nWaiting.\nMSG>>>\n@@end\n@@eof"),
        vec![Command::Next {
            msg: Some("Waiting.".into())
        }]
    );
}

#[test]
fn paths_may_hold_spaces_and_are_trimmed() {
    assert_eq!(
        commands("@@readfile   docs/read me.md   \n@@end\n@@eof"),
        vec![Command::ReadFile {
            path: "docs/read me.md".into()
        }]
    );
}

#[test]
fn blank_lines_between_blocks_and_indented_markers_are_fine() {
    let reply =
        "\n\n  @@say  \n  <<<MSG\n  hello\n  MSG>>>  \n  @@end\n\n\n@@done\n@@end\n\n@@eof\n\n";
    assert_eq!(
        commands(reply)[0],
        Command::Say {
            msg: "  hello".into()
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Payload content

#[test]
fn payload_keeps_every_character_of_its_lines() {
    let content = "\tindented with a tab\n  two spaces\ntrailing   \n\n\nafter two blank lines\n*emphasis* _under_ <html> `tick`";
    let reply = format!("@@newfile a.md\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n{DONE}");
    assert_eq!(
        commands(&reply)[0],
        Command::NewFile {
            path: "a.md".into(),
            content: content.into()
        }
    );
}

#[test]
fn empty_content_and_a_final_blank_line() {
    assert_eq!(
        commands(&format!(
            "@@newfile e\n<<<CONTENT\nCONTENT>>>\n@@end\n{DONE}"
        ))[0],
        Command::NewFile {
            path: "e".into(),
            content: "".into()
        }
    );
    assert_eq!(
        commands(&format!(
            "@@newfile e\n<<<CONTENT\nx\n\nCONTENT>>>\n@@end\n{DONE}"
        ))[0],
        Command::NewFile {
            path: "e".into(),
            content: "x\n".into()
        }
    );
}

#[test]
fn marker_text_mid_line_is_content() {
    let content = "say CONTENT>>> here\n<<<CONTENT is a marker\nx @@end y\nMSG>>>\nFIND>>>";
    let reply = format!("@@newfile m.txt\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n{DONE}");
    assert_eq!(
        commands(&reply)[0],
        Command::NewFile {
            path: "m.txt".into(),
            content: content.into()
        }
    );
}

#[test]
fn end_and_eof_lines_inside_a_payload_are_content() {
    let content = "@@end\n@@eof\n@@newfile x\n<<<CONTENT";
    let reply = format!("@@newfile doc.md\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n{DONE}");
    assert_eq!(
        commands(&reply)[0],
        Command::NewFile {
            path: "doc.md".into(),
            content: content.into()
        }
    );
}

#[test]
fn nonce_sections_carry_their_own_end_marker_as_content() {
    let content = "first\nCONTENT>>>\n  CONTENT>>>  \nCONTENT:other>>>\nlast";
    let reply = format!("@@newfile n.txt\n<<<CONTENT:x7\n{content}\nCONTENT:x7>>>\n@@end\n{DONE}");
    assert_eq!(
        commands(&reply)[0],
        Command::NewFile {
            path: "n.txt".into(),
            content: content.into()
        }
    );
}

#[test]
fn nonces_may_use_letters_digits_dash_and_underscore() {
    let reply = format!("@@say\n<<<MSG:a-B_9\nhi\nMSG:a-B_9>>>\n@@end\n{DONE}");
    assert_eq!(commands(&reply)[0], Command::Say { msg: "hi".into() });
}

#[test]
fn find_and_replace_keep_their_exact_text() {
    let reply = format!(
        "@@editfile a.rs\n<<<FIND\n    let x = 1;\nFIND>>>\n<<<REPLACE\n    let x = 2;\n\nREPLACE>>>\n@@end\n{DONE}"
    );
    assert_eq!(
        commands(&reply)[0],
        Command::EditFile {
            path: "a.rs".into(),
            find: "    let x = 1;".into(),
            replace: "    let x = 2;\n".into()
        }
    );
}

#[test]
fn movefile_destination_is_trimmed() {
    assert_eq!(
        commands("@@movefile old.txt\n<<<TO\n  new/place.txt  \nTO>>>\n@@end\n@@eof"),
        vec![Command::MoveFile {
            from: "old.txt".into(),
            to: "new/place.txt".into()
        }]
    );
}

// ---------------------------------------------------------------------------------------------
// Fences, BOM, CRLF: line numbers never shift

#[test]
fn a_surrounding_fence_is_stripped_and_lines_keep_their_numbers() {
    for fence in ["```", "````agentscript", "~~~", "~~~~ text"] {
        let close = &fence[..fence
            .find(|c: char| c != '`' && c != '~')
            .unwrap_or(fence.len())];
        let reply = format!("{fence}\n@@readfile a\n@@end\n@@bogus\n@@end\n@@eof\n{close}\n");
        check(&reply, &[(Code::ParseUnknownCommand, Some(4))]);
    }
}

#[test]
fn fence_closer_may_be_longer_and_text_around_fence_may_be_blank() {
    ok("\n\n```\n@@readfile a\n@@end\n@@eof\n`````\n\n");
}

/// A page's copy of a code block may end in a zero-width space on a line of its own (an
/// outside attack's Chainlit page): a line after @@eof that shows nothing is nothing; one that
/// shows a character is text after @@eof.
#[test]
fn only_invisible_lines_may_follow_eof() {
    ok("@@readfile a\n@@end\n@@eof\n\u{200b}\n");
    ok("@@readfile a\n@@end\n@@eof\n\u{feff}\u{2060} \n\n");
    check(
        "@@readfile a\n@@end\n@@eof\n\u{200b}x\n",
        &[(Code::ParseTextAfterEof, Some(4))],
    );
}

#[test]
fn fence_closer_of_the_other_kind_is_stray() {
    // Opener and closer differ: neither is stripped, and both are reported.
    check(
        "```\n@@readfile a\n@@end\n@@eof\n~~~\n",
        &[
            (Code::ParseStrayText, Some(1)),
            (Code::ParseTextAfterEof, Some(5)),
        ],
    );
    check(
        "````\n@@readfile a\n@@end\n@@eof\n```\n",
        &[
            (Code::ParseStrayText, Some(1)),
            (Code::ParseTextAfterEof, Some(5)),
        ],
    );
}

#[test]
fn a_fence_after_prose_is_reported_line_by_line() {
    check(
        "Here you go:\n```\n@@readfile a\n@@end\n@@eof\n```\n",
        &[
            (Code::ParseStrayText, Some(1)),
            (Code::ParseStrayText, Some(2)),
            (Code::ParseTextAfterEof, Some(6)),
        ],
    );
    check(
        "Sure.\n\n```agentscript\n@@readfile a\n@@end\n@@eof\n```\nHope this helps!\n",
        &[
            (Code::ParseStrayText, Some(1)),
            (Code::ParseStrayText, Some(3)),
            (Code::ParseTextAfterEof, Some(7)),
        ],
    );
}

#[test]
fn fence_with_only_an_opener_or_only_a_closer_is_tolerated() {
    ok("```agentscript\n@@readfile a\n@@end\n@@eof\n");
    ok("@@readfile a\n@@end\n@@eof\n```\n");
}

#[test]
fn bom_and_crlf_do_not_shift_lines_or_leak_into_content() {
    let reply = "\u{feff}```\r\n@@newfile a.txt\r\n<<<CONTENT\r\nline one\r\nline two\r\nCONTENT>>>\r\n@@end\r\n@@oops\r\n@@end\r\n@@eof\r\n```\r\n";
    check(reply, &[(Code::ParseUnknownCommand, Some(8))]);
    let fixed = reply.replace("@@oops", "@@done");
    assert_eq!(
        commands(&fixed)[0],
        Command::NewFile {
            path: "a.txt".into(),
            content: "line one\nline two".into()
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Every parse-time code

#[test]
fn empty_reply() {
    for reply in ["", "   \n\t\n", "\u{feff}", "\r\n\r\n"] {
        check(reply, &[(Code::ReplyEmpty, None)]);
    }
}

#[test]
fn unknown_command() {
    check(
        "@@createfile a.txt\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseUnknownCommand, Some(1))],
    );
    check(
        "@@\n@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseUnknownCommand, Some(1))],
    );
    let parsed = parse("@@createfile a\n@@end\n@@eof", &Limits::default());
    assert!(
        parsed.diagnostics[0]
            .message
            .contains("Did you mean @@newfile?")
    );
}

#[test]
fn stray_text_outside_blocks_is_one_problem_per_run() {
    check(
        "Sure! Here you go:\nI will do it.\n\n@@readfile a\n@@end\nThanks\n@@eof",
        &[
            (Code::ParseStrayText, Some(1)),
            (Code::ParseStrayText, Some(6)),
        ],
    );
    let parsed = parse("a\nb\nc\n@@done\n@@end\n@@eof", &Limits::default());
    assert!(parsed.diagnostics[0].message.contains("(3 lines)"));
}

#[test]
fn stray_text_inside_a_block_outside_a_section() {
    check(
        "@@newfile a\nhello\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@eof",
        &[(Code::ParseStrayText, Some(2))],
    );
}

#[test]
fn stray_argument_on_a_command_without_one() {
    check(
        "@@done Task complete\n@@end\n@@eof",
        &[(Code::ParseStrayText, Some(1))],
    );
    check(
        "@@say hello\n<<<MSG\nx\nMSG>>>\n@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseStrayText, Some(1))],
    );
}

#[test]
fn end_without_a_block_and_text_after_end() {
    check(
        "@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseStrayText, Some(1))],
    );
    check(
        "@@done\n@@end now\n@@eof",
        &[(Code::ParseStrayText, Some(2))],
    );
}

#[test]
fn section_outside_a_block_is_stray() {
    check(
        "<<<MSG\nhi\nMSG>>>\n@@done\n@@end\n@@eof",
        &[(Code::ParseStrayText, Some(1))],
    );
}

#[test]
fn missing_eof_looks_truncated() {
    let parsed = parse("@@readfile a\n@@end\n", &Limits::default());
    assert!(parsed.truncated);
    check("@@readfile a\n@@end\n", &[(Code::ParseMissingEof, None)]);
}

#[test]
fn text_after_eof() {
    check(
        "@@done\n@@end\n@@eof\nBye!\n",
        &[(Code::ParseTextAfterEof, Some(4))],
    );
    check(
        "@@done\n@@end\n@@eof now\n",
        &[(Code::ParseTextAfterEof, Some(3))],
    );
    check(
        "```\n@@done\n@@end\n@@eof\nmore\n```",
        &[(Code::ParseTextAfterEof, Some(5))],
    );
}

#[test]
fn unterminated_block_before_the_next_header_resynchronises() {
    check(
        "@@readfile a\n@@readfile b\n@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseUnterminatedBlock, Some(1))],
    );
    check(
        "@@done\n<<<MSG\nx\nMSG>>>\n@@eof",
        &[(Code::ParseUnterminatedBlock, Some(1))],
    );
}

#[test]
fn reply_cut_inside_a_section_is_truncated() {
    let reply = "@@newfile a\n<<<CONTENT\nline\nmore";
    check(
        reply,
        &[
            (Code::ParseUnterminatedBlock, Some(1)),
            (Code::ParseMissingEof, None),
        ],
    );
    assert!(parse(reply, &Limits::default()).truncated);
}

#[test]
fn unclosed_section_that_swallows_end_and_eof_names_the_line() {
    let reply = "@@say\n<<<MSG\nhello\n@@end\n@@eof";
    check(reply, &[(Code::ParseUnterminatedBlock, Some(1))]);
    let parsed = parse(reply, &Limits::default());
    assert!(!parsed.truncated);
    assert!(parsed.diagnostics[0].message.contains("Line 4"));
}

#[test]
fn missing_payload() {
    check(
        "@@newfile a\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@editfile a\n<<<FIND\nx\nFIND>>>\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@runcommand\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@say\n@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@movefile a\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
}

#[test]
fn empty_find_cmd_msg_and_to_are_missing_payloads() {
    check(
        "@@editfile a\n<<<FIND\nFIND>>>\n<<<REPLACE\nx\nREPLACE>>>\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@runcommand\n<<<CMD\n   \nCMD>>>\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@commit\n<<<MSG\n\nMSG>>>\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
    check(
        "@@movefile a\n<<<TO\n\nTO>>>\n@@end\n@@eof",
        &[(Code::ParseMissingPayload, Some(1))],
    );
}

#[test]
fn empty_replace_is_allowed_to_delete_text() {
    assert_eq!(
        commands("@@editfile a\n<<<FIND\nx\nFIND>>>\n<<<REPLACE\nREPLACE>>>\n@@end\n@@eof")[0],
        Command::EditFile {
            path: "a".into(),
            find: "x".into(),
            replace: "".into()
        }
    );
}

#[test]
fn unexpected_payload() {
    check(
        "@@deletefile a\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@eof",
        &[(Code::ParseUnexpectedPayload, Some(2))],
    );
    check(
        "@@newfile a\n<<<CONTENT\nx\nCONTENT>>>\n<<<CONTENT\ny\nCONTENT>>>\n@@end\n@@eof",
        &[(Code::ParseUnexpectedPayload, Some(5))],
    );
    check(
        "@@say\n<<<CMD\nls\nCMD>>>\n@@end\n@@done\n@@end\n@@eof",
        &[
            (Code::ParseUnexpectedPayload, Some(2)),
            (Code::ParseMissingPayload, Some(1)),
        ],
    );
}

#[test]
fn missing_argument() {
    for command in [
        "newfile",
        "updatefile",
        "editfile",
        "deletefile",
        "readfile",
        "mkdir",
        "movefile",
    ] {
        let reply = format!("@@{command}\n@@end\n@@eof");
        let parsed = parse(&reply, &Limits::default());
        assert_eq!(
            parsed.diagnostics[0].code,
            Code::ParseMissingArgument,
            "{command}"
        );
        assert_eq!(parsed.diagnostics[0].line, Some(1), "{command}");
    }
}

#[test]
fn bad_marker() {
    check(
        "@@newfile a\n<<<content\nx\ncontent>>>\n@@end\n@@eof",
        &[(Code::ParseBadMarker, Some(2))],
    );
    check(
        "@@newfile a\n<<<BODY\nx\nBODY>>>\n@@end\n@@eof",
        &[(Code::ParseBadMarker, Some(2))],
    );
    check(
        "@@newfile a\n<<<CONTENT:bad nonce!\nx\nCONTENT:bad nonce!>>>\n@@end\n@@eof",
        &[(Code::ParseBadMarker, Some(2))],
    );
    check(
        "@@newfile a\n<<<CONTENT:\nx\nCONTENT:>>>\n@@end\n@@eof",
        &[(Code::ParseBadMarker, Some(2))],
    );
    let long = "n".repeat(33);
    check(
        &format!("@@newfile a\n<<<CONTENT:{long}\nx\nCONTENT:{long}>>>\n@@end\n@@eof"),
        &[(Code::ParseBadMarker, Some(2))],
    );
}

#[test]
fn bad_marker_without_end_does_not_swallow_the_reply() {
    check(
        "@@newfile a\n<<<\n@@end\n@@eof",
        &[(Code::ParseBadMarker, Some(2))],
    );
}

#[test]
fn bad_path() {
    for path in [
        "/etc/passwd",
        "../up.txt",
        "a/../b",
        "./a",
        "a\\b.txt",
        "C:/x",
        "a//b",
        "~/x",
    ] {
        let reply = format!("@@readfile {path}\n@@end\n@@eof");
        check(&reply, &[(Code::ParseBadPath, Some(1))]);
    }
    check(
        "@@movefile a\n<<<TO\n../b\nTO>>>\n@@end\n@@eof",
        &[(Code::ParseBadPath, Some(1))],
    );
    check(
        "@@movefile a\n<<<TO\nb\nc\nTO>>>\n@@end\n@@eof",
        &[(Code::ParseBadPath, Some(1))],
    );
    check(
        "@@newfile dir/\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@eof",
        &[(Code::ParseBadPath, Some(1))],
    );
}

#[test]
fn bad_path_is_reported_even_in_an_unclosed_block() {
    check(
        "@@newfile ../x\n<<<CONTENT\nhi\n",
        &[
            (Code::ParseBadPath, Some(1)),
            (Code::ParseUnterminatedBlock, Some(1)),
            (Code::ParseMissingEof, None),
        ],
    );
}

#[test]
fn bad_option() {
    for header in [
        "@@runcommand on_error=maybe",
        "@@runcommand timeout=0",
        "@@runcommand timeout=ten",
        "@@runcommand retries=3",
        "@@runcommand now",
        "@@runcommand timeout=5 timeout=6",
    ] {
        let reply = format!("{header}\n<<<CMD\nls\nCMD>>>\n@@end\n@@eof");
        check(&reply, &[(Code::ParseBadOption, Some(1))]);
    }
}

#[test]
fn conflicting_control() {
    check(
        "@@readfile a\n@@end\n@@next\n@@end\n@@done\n@@end\n@@eof",
        &[(Code::ParseConflictingControl, Some(5))],
    );
}

#[test]
fn say_only() {
    check(
        "@@say\n<<<MSG\nHi\nMSG>>>\n@@end\n@@eof",
        &[(Code::ParseSayOnly, None)],
    );
    check("@@eof", &[(Code::ParseSayOnly, None)]);
    ok("@@say\n<<<MSG\nHi\nMSG>>>\n@@end\n@@next\n@@end\n@@eof");
}

#[test]
fn limit_response_chars() {
    let limits = Limits {
        max_response_chars: 50,
        ..Limits::default()
    };
    let reply = format!("@@say\n<<<MSG\n{}\nMSG>>>\n@@end\n{DONE}", "é".repeat(30));
    check_with(&reply, &limits, &[(Code::LimitResponseChars, None)]);
    let short = format!("@@done\n@@end\n@@eof{}", " ".repeat(30));
    check_with(&short, &limits, &[]);
}

#[test]
fn limit_file_content_chars_counts_characters() {
    let limits = Limits {
        max_file_content_chars: 10,
        ..Limits::default()
    };
    let exact = format!(
        "@@newfile a\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n{DONE}",
        "ü".repeat(10)
    );
    check_with(&exact, &limits, &[]);
    let over = format!(
        "@@newfile a\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n{DONE}",
        "ü".repeat(11)
    );
    check_with(&over, &limits, &[(Code::LimitFileContentChars, Some(2))]);
}

// ---------------------------------------------------------------------------------------------
// Several problems at once, and the format-error message

#[test]
fn several_problems_are_reported_in_one_pass() {
    let reply = "```\nHere is my plan.\n@@createfile a.txt\n<<<CONTENT\nx\nCONTENT>>>\n@@end\n@@newfile /abs\n<<<CONTENT\ny\nCONTENT>>>\n@@end\n@@runcommand fast=yes\n<<<CMD\nls\nCMD>>>\n@@end\n@@editfile b\n<<<FIND\nq\n";
    check(
        reply,
        &[
            (Code::ParseStrayText, Some(2)),
            (Code::ParseUnknownCommand, Some(3)),
            (Code::ParseBadPath, Some(8)),
            (Code::ParseBadOption, Some(13)),
            (Code::ParseUnterminatedBlock, Some(18)),
            (Code::ParseMissingEof, None),
        ],
    );
}

#[test]
fn format_error_message_matches_the_specification() {
    let parsed = parse(
        "@@readfile a\n@@end\n@@readfile b\n@@end\n@@readfile c\n@@end\n@@readfile d\n@@end\n@@readfile e\n@@end\n@@readfile f\n@@end\n\n@@createfile x\n@@end\n",
        &Limits::default(),
    );
    let message = format_error(&parsed.diagnostics, parsed.truncated);
    let expected = "[KEYLESSAGENT FORMAT ERROR]\n\
        Your last response was rejected. Nothing was executed.\n\
        Problems:\n\
        - line 14: Unknown command \"@@createfile\". Did you mean @@newfile? Known commands: say, newfile, updatefile, editfile, deletefile, readfile, mkdir, runcommand, ask, commit, movefile, next, done.\n\
        - Missing \"@@eof\" at the end (the response looks truncated).\n\
        Your response looks truncated. Resend it in SMALLER pieces (fewer commands per response).\n\
        Resend your COMPLETE response using only AgentScript v1. Do not apologize or explain. Do not add text outside blocks.\n";
    assert_eq!(message, expected);
}

#[test]
fn format_error_without_truncation_has_no_truncation_advice() {
    let parsed = parse("@@readfile /a\n@@end\n@@eof", &Limits::default());
    let message = format_error(&parsed.diagnostics, parsed.truncated);
    assert!(!message.contains("truncated"), "{message}");
    assert!(
        message.contains("- line 1: path \"/a\" is absolute"),
        "{message}"
    );
}

#[test]
fn format_error_lists_at_most_twenty_problems() {
    let reply: String = (0..30)
        .map(|i| format!("@@bad{i}\n@@end\n"))
        .collect::<String>()
        + "@@eof";
    let parsed = parse(&reply, &Limits::default());
    assert_eq!(parsed.diagnostics.len(), 30);
    let message = format_error(&parsed.diagnostics, parsed.truncated);
    assert!(message.contains("- … and 10 more problems.\n"), "{message}");
    assert_eq!(message.matches("Unknown command").count(), 20);
}

#[test]
fn headers_are_recorded_for_blocks_with_problems() {
    let parsed = parse(
        "@@newfile a\n@@end\n@@readfile b\n@@end\n@@eof",
        &Limits::default(),
    );
    let got: Vec<(usize, &str, Option<&str>, usize)> = parsed
        .headers
        .iter()
        .map(|h| (h.index, h.kind.name(), h.argument.as_deref(), h.line))
        .collect();
    assert_eq!(
        got,
        vec![(1, "newfile", Some("a"), 1), (2, "readfile", Some("b"), 3)]
    );
}
