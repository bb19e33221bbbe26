//! The reply as the site's server sent it: the texts a streamed response (or a WebSocket's
//! frames) can be reassembled into, without knowing the site's format. Pure: the CDP driver
//! hands over the bytes it heard (`cdp/wire.rs`), and chooses among the candidates by the
//! protocol's own end and by agreeing with the rendered reply (`cdp/read.rs`).
//!
//! What a stream may be, as sites send them: plain text in pieces; server-sent events
//! (`data:` lines), each a JSON object whose string fields grow (the whole text so far) or
//! append (a delta), or plain text; JSON lines; JSON inside a JSON string (Gemini's `wrb.fr`);
//! WebSocket frames of any of these. Every string field is followed by its path (array indices
//! left out), and each path yields the text its values build, both by appending and by growing.
//! Nothing here decides that a candidate is the reply: a candidate is only a text to prove.

use std::collections::BTreeMap;

/// A candidate longer than this is not a reply anyone reads (bounds the work per stream).
const MAX_CANDIDATE_BYTES: usize = 4 << 20;
/// JSON nested in JSON strings is looked into this deep, no deeper.
const MAX_NESTING: usize = 3;
/// A stream is reassembled from at most this many events (a chat reply streams a few
/// thousand; a busy socket's history is not a reply).
const MAX_EVENTS: usize = 100_000;

/// What was heard of one network exchange of the page: a response body (streamed or not), or
/// the frames a WebSocket received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A response's body, as far as it came.
    Body(Vec<u8>),
    /// A WebSocket's received frames, text ones, in order.
    Frames(Vec<String>),
}

/// The texts `heard` can be reassembled into, longest first, without duplicates.
pub fn candidates(heard: &Heard) -> Vec<String> {
    let mut out = Vec::new();
    match heard {
        Heard::Body(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            // The body as it is: a plain text stream.
            out.push(text.to_string());
            let events = sse_events(&text);
            if !events.is_empty() {
                from_events(&events, &mut out);
            }
            // JSON lines (or one JSON document).
            let lines: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(MAX_EVENTS)
                .map(str::to_string)
                .collect();
            from_json_lines(&lines, &mut out);
        }
        Heard::Frames(frames) => {
            let frames: Vec<String> = frames.iter().take(MAX_EVENTS).cloned().collect();
            from_events(&frames, &mut out);
        }
    }
    out.retain(|c| !c.trim().is_empty() && c.len() <= MAX_CANDIDATE_BYTES);
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out.dedup();
    out
}

/// The data of each server-sent event in `text` (its `data:` lines joined by line breaks, as
/// the EventSource standard joins them); none when `text` has no `data:` line.
fn sse_events(text: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if let Some(d) = data.take() {
                events.push(d);
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match data.as_mut() {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_string()),
            }
        }
        if events.len() >= MAX_EVENTS {
            break;
        }
    }
    if let Some(d) = data {
        events.push(d);
    }
    events
}

/// The longest tag a framing puts before an event's JSON (socket.io's `42`, `430`; the AI
/// SDK's data stream's `0:`, `f:`).
const MAX_TAG: usize = 8;

/// The JSON an event or line holds: the whole of it, or what follows a short tag of letters
/// and digits (and a `:` after it), as framings put one before their JSON (socket.io's
/// `42["stream_token",{…}]`, the AI SDK's `0:"a delta"`). The tag, with its `:`, names the
/// path the event's strings go under, so that one kind of event builds one text.
fn json_in(event: &str) -> Option<(&str, serde_json::Value)> {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(event) {
        return Some(("", value));
    }
    let tag_end = event
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map(|(i, _)| i)?;
    if tag_end == 0 || tag_end > MAX_TAG {
        return None;
    }
    let rest = &event[tag_end..];
    let (tag, json) = match rest.strip_prefix(':') {
        Some(after) => (&event[..=tag_end], after),
        None => (&event[..tag_end], rest),
    };
    if !json.starts_with(['{', '[', '"']) {
        return None;
    }
    serde_json::from_str(json).ok().map(|value| (tag, value))
}

/// Candidates from a sequence of events (SSE data, JSON lines, frames): the events' text
/// appended when they are not JSON, and each string path's texts when they are (a tagged
/// event's under its tag). Where any event was tagged, the events' raw text appended is a
/// candidate too (a plain stream whose pieces only looked tagged).
fn from_events(events: &[String], out: &mut Vec<String>) {
    let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut plain = String::new();
    let mut plain_count = 0usize;
    let mut tagged = false;
    for event in events {
        match json_in(event) {
            Some((tag, value)) if value.is_object() || value.is_array() => {
                tagged |= !tag.is_empty();
                strings(&value, tag.to_string(), 0, &mut paths);
            }
            // A JSON string is text; `[DONE]`-style markers are not JSON and not text either
            // when they stand alone, but a plain stream's pieces are kept together.
            Some(("", serde_json::Value::String(s))) => {
                plain.push_str(&s);
                plain_count += 1;
            }
            // A tagged string is a piece of its tag's text (`0:"Hel"`, `0:"lo"`).
            Some((tag, serde_json::Value::String(s))) => {
                tagged = true;
                paths.entry(tag.to_string()).or_default().push(s);
            }
            _ => {
                plain.push_str(event);
                plain_count += 1;
            }
        }
    }
    if plain_count > 0 {
        out.push(plain);
    }
    if tagged {
        out.push(events.concat());
    }
    for values in paths.values() {
        out.extend(build(values));
    }
}

/// Candidates from lines that are JSON (JSON lines, or one document, or lines of JSON behind a
/// framing's tag): a line that is not JSON is not a piece of a JSON stream's text (a plain
/// stream is its own candidate already).
fn from_json_lines(lines: &[String], out: &mut Vec<String>) {
    let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines {
        match json_in(line) {
            Some((tag, value)) if value.is_object() || value.is_array() => {
                strings(&value, tag.to_string(), 0, &mut paths);
            }
            Some((tag, serde_json::Value::String(s))) if !tag.is_empty() => {
                paths.entry(tag.to_string()).or_default().push(s);
            }
            _ => {}
        }
    }
    for values in paths.values() {
        out.extend(build(values));
    }
}

/// Every string of `value` under its path (object keys joined by `.`, array indices left out
/// so that a list's items build one text), looking into strings that hold JSON themselves. A
/// string that holds JSON is still a string under its own path too: a reply's delta may be
/// `[ ]` or `{}` (a task list's box, an empty object in code), which is text, not a document.
fn strings(
    value: &serde_json::Value,
    path: String,
    depth: usize,
    paths: &mut BTreeMap<String, Vec<String>>,
) {
    match value {
        serde_json::Value::String(s) => {
            let inner = s.trim_start();
            if depth < MAX_NESTING
                && (inner.starts_with('{') || inner.starts_with('['))
                && let Ok(nested) = serde_json::from_str::<serde_json::Value>(s)
            {
                strings(&nested, format!("{path}>"), depth + 1, paths);
            }
            paths.entry(path).or_default().push(s.clone());
        }
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                strings(v, format!("{path}.{key}"), depth, paths);
            }
        }
        serde_json::Value::Array(items) => {
            for v in items {
                strings(v, format!("{path}[]"), depth, paths);
            }
        }
        _ => {}
    }
}

/// The text one path's values build: the last value where every value extends the one before
/// (the whole text so far, sent again and again), else the values appended (deltas). Two
/// values where the second extends the first may be either: both texts are offered, and the
/// caller's proof finds them both or neither.
fn build(values: &[String]) -> Vec<String> {
    // An empty value adds nothing to a text and says nothing of how it grows (a site's other
    // messages with an empty field on the same path: Chainlit's run steps).
    let values: Vec<&String> = values.iter().filter(|v| !v.is_empty()).collect();
    let grows = values.windows(2).all(|w| w[1].starts_with(w[0].as_str()));
    let last = values.last().map(|v| v.to_string()).unwrap_or_default();
    let mut appended = String::new();
    for v in &values {
        if appended.len() + v.len() > MAX_CANDIDATE_BYTES {
            break;
        }
        appended.push_str(v);
    }
    match (grows, values.len()) {
        (true, 0..=2) => vec![appended, last],
        (true, _) => vec![last],
        (false, _) => vec![appended],
    }
}

/// The one reply among `proved` (distinct texts, each closed and agreeing with the drawn
/// reply), or none when they leave a choice. One pattern is resolved: a stream that sent its
/// first piece apart (Chainlit: the first piece in the message's start, the rest as tokens,
/// then the whole text again at its end) builds the whole text `T`, `T` with its first piece
/// doubled (`p + T`, `T` starting with `p`), and perhaps the tokens without that piece (`T`
/// less `p`, `p` holding no word). Where exactly one text is such a whole and every other is
/// its doubling or its tokens, the whole is the reply; anything else proves nothing.
pub fn one_reply(proved: Vec<String>) -> Option<String> {
    if proved.len() < 2 {
        return proved.into_iter().next();
    }
    // `long` is `short` with `p` before it: `p`.
    let before = |long: &str, short: &str| {
        (long.len() > short.len() && long.ends_with(short))
            .then(|| long[..long.len() - short.len()].to_string())
    };
    let doubling_of = |d: &str, t: &str| before(d, t).is_some_and(|p| t.starts_with(&p));
    let wholes: Vec<&String> = proved
        .iter()
        .filter(|t| proved.iter().any(|d| doubling_of(d, t)))
        .collect();
    let [whole] = wholes.as_slice() else {
        return None;
    };
    let accounted = proved.iter().all(|other| {
        other == *whole
            || doubling_of(other, whole)
            || before(whole, other)
                .is_some_and(|p| !p.chars().any(char::is_alphanumeric) && !other.starts_with(&p))
    });
    accounted.then(|| whole.to_string())
}

/// How the message keyless meant to send went to the site's server, by the request bodies the
/// page sent after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outbound {
    /// A body holds the message byte for byte.
    Exact,
    /// A body holds the message's words in order, but other bytes: what differs, in words.
    Altered(String),
    /// No body holds it (not sent yet, sent in a form keyless cannot read, or as a file).
    Unknown,
}

/// How `meant` went out in `bodies`: each body as text and each string in it (JSON, JSON in
/// JSON strings) is looked at.
pub fn outbound(meant: &str, bodies: &[Vec<u8>]) -> Outbound {
    let want = words(meant);
    if want.is_empty() {
        return Outbound::Unknown;
    }
    let mut altered = None;
    for body in bodies {
        let text = String::from_utf8_lossy(body);
        let mut texts = vec![text.to_string()];
        // JSON, also behind a framing's tag (a socket.io frame: `42["message",{…}]`).
        if let Some((_, value)) = json_in(&text) {
            let mut paths = BTreeMap::new();
            strings(&value, String::new(), 0, &mut paths);
            texts.extend(paths.into_values().flatten());
        }
        for t in texts {
            if t.contains(meant) {
                return Outbound::Exact;
            }
            if altered.is_none() && format!(" {} ", words(&t)).contains(&format!(" {want} ")) {
                altered = Some(difference(meant, &t));
            }
        }
    }
    altered.map_or(Outbound::Unknown, Outbound::Altered)
}

/// A text's words (letters and digits), joined by one space: two texts with the same words in
/// the same order differ only in what lies between them.
fn words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where `sent` first differs from `meant` (both start at the message's first word), in words
/// a person reads.
fn difference(meant: &str, sent: &str) -> String {
    let first = meant
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or_default();
    let sent = sent.find(first).map_or(sent, |at| &sent[at..]);
    let meant = meant.find(first).map_or(meant, |at| &meant[at..]);
    let same = meant
        .chars()
        .zip(sent.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let line = meant.chars().take(same).filter(|c| *c == '\n').count() + 1;
    let show = |s: &str| format!("{:?}", s.chars().skip(same).take(12).collect::<String>());
    format!(
        "the request that carried it to the site's server differs from line {line}: {} where keyless sent {}",
        show(sent),
        show(meant)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str =
        "```\n@@done\n<<<MSG\n  two  spaces\n\nand \"quotes\"\nMSG>>>\n@@end\n@@eof\n```";

    fn pieces(text: &str, size: usize) -> Vec<String> {
        text.chars()
            .collect::<Vec<_>>()
            .chunks(size)
            .map(|c| c.iter().collect())
            .collect()
    }

    fn has(heard: &Heard) -> bool {
        candidates(heard).iter().any(|c| c == REPLY)
    }

    /// socket.io's frames (`42["event",{…}]`, Chainlit's `stream_token`s) and the AI SDK's
    /// data stream (`0:"a delta"` lines beside `f:{…}` and `e:{…}`) are JSON behind a tag.
    #[test]
    fn json_behind_a_framing_s_tag_is_reassembled() {
        let mut frames = vec![
            "0{\"sid\":\"x1\",\"pingInterval\":25000}".to_string(),
            "40".to_string(),
        ];
        for p in pieces(REPLY, 5) {
            frames.push(format!(
                "42[\"stream_token\",{{\"id\":\"m1\",\"token\":{},\"isSequence\":false}}]",
                serde_json::to_string(&p).unwrap()
            ));
        }
        frames.push("42[\"task_end\"]".to_string());
        assert!(has(&Heard::Frames(frames)));
        let mut body = String::from("f:{\"messageId\":\"msg-1\"}\n");
        for p in pieces(REPLY, 6) {
            body.push_str(&format!("0:{}\n", serde_json::to_string(&p).unwrap()));
        }
        body.push_str("e:{\"finishReason\":\"stop\"}\nd:{\"finishReason\":\"stop\"}\n");
        assert!(has(&Heard::Body(body.clone().into_bytes())));
        // The same lines as server-sent events.
        let events: String = body.lines().map(|l| format!("data: {l}\n\n")).collect();
        assert!(has(&Heard::Body(events.into_bytes())));
        // A plain stream whose pieces only look tagged stays whole.
        let plain = ["note:", "[x] done\n", "ok"].map(str::to_string).to_vec();
        assert!(candidates(&Heard::Frames(plain)).contains(&"note:[x] done\nok".to_string()));
    }

    #[test]
    fn a_message_in_a_socket_io_frame_went_exactly() {
        let meant = "Fix it\n\n\tand the tab\n";
        let frame = format!(
            "42[\"client_message\",{{\"message\":{{\"output\":{}}}}}]",
            serde_json::to_string(meant).unwrap()
        );
        assert_eq!(outbound(meant, &[frame.into_bytes()]), Outbound::Exact);
    }

    #[test]
    fn a_plain_text_stream_is_its_own_candidate() {
        assert!(has(&Heard::Body(REPLY.as_bytes().to_vec())));
    }

    #[test]
    fn sse_with_json_deltas_is_appended() {
        let mut body = String::new();
        for p in pieces(REPLY, 7) {
            let event = serde_json::json!({"id": "x", "choices": [{"delta": {"content": p}}]});
            body.push_str(&format!("data: {event}\n\n"));
        }
        body.push_str("data: [DONE]\n\n");
        assert!(has(&Heard::Body(body.into_bytes())));
    }

    #[test]
    fn sse_with_the_whole_text_so_far_is_grown() {
        let mut body = String::from("event: start\ndata: {\"status\":\"started\"}\n\n");
        let mut so_far = String::new();
        for p in pieces(REPLY, 9) {
            so_far.push_str(&p);
            let event = serde_json::json!({"message": {"content": {"parts": [so_far]}}});
            body.push_str(&format!("data: {event}\r\n\r\n"));
        }
        assert!(has(&Heard::Body(body.into_bytes())));
    }

    #[test]
    fn json_inside_json_strings_is_looked_into() {
        let mut body = String::new();
        let mut so_far = String::new();
        for p in pieces(REPLY, 11) {
            so_far.push_str(&p);
            let inner = serde_json::json!([null, [so_far]]).to_string();
            body.push_str(&serde_json::json!([["wrb.fr", null, inner]]).to_string());
            body.push('\n');
        }
        assert!(has(&Heard::Body(body.into_bytes())));
    }

    /// Deltas that are JSON themselves (a task list's `[ ]`, an empty `{}` or `[1, 2]` in
    /// code) are pieces of the text like any other.
    #[test]
    fn deltas_that_look_like_json_are_text() {
        let reply = "```\n@@newfile a.txt\n<<<C\n- [ ] task\nx = [ ]\ny = {}\nz = [1, 2]\n[]\nC>>>\n@@end\n@@done\n@@end\n@@eof\n```\n";
        let deltas = [
            "```\n@@newfile a.txt\n<<<C\n- ",
            "[ ]",
            " task\nx =",
            " [ ]",
            "\ny = ",
            "{}",
            "\nz = ",
            "[1, 2]",
            "\n",
            "[]\n",
            "C>>>\n@@end\n@@done\n@@end\n@@eof\n```\n",
        ];
        assert_eq!(deltas.concat(), reply);
        let sse: String = deltas
            .iter()
            .map(|d| {
                let event = serde_json::json!({"choices": [{"delta": {"content": d}}]});
                format!("data: {event}\n\n")
            })
            .collect();
        let frames: Vec<String> = deltas
            .iter()
            .map(|d| serde_json::json!({"type": "delta", "text": d}).to_string())
            .collect();
        for heard in [Heard::Body(sse.into_bytes()), Heard::Frames(frames)] {
            let found = candidates(&heard);
            assert!(found.iter().any(|c| c == reply), "{found:#?}");
            // No other closed reply: none with those pieces left out.
            assert!(
                !found
                    .iter()
                    .any(|c| crate::protocol::is_closed(c) && c != reply),
                "{found:#?}"
            );
        }
    }

    /// Chainlit's socket: the first piece in `stream_start`'s output, the rest as tokens, the
    /// whole text again in `new_message`'s output, and other messages on the same path with
    /// an empty output. The whole text is a candidate, and the one reply chosen.
    #[test]
    fn a_stream_that_starts_with_a_piece_and_ends_with_the_whole_is_the_whole() {
        let (first, rest) = REPLY.split_at(6);
        let mut frames = vec![
            r#"42["new_message",{"id":"run","output":"","type":"run"}]"#.to_string(),
            format!(
                "42{}",
                serde_json::json!(["stream_start", {"id": "m", "output": first}])
            ),
        ];
        for p in pieces(rest, 7) {
            frames.push(format!(
                "42{}",
                serde_json::json!(["stream_token", {"id": "m", "token": p}])
            ));
        }
        frames.push(format!(
            "42{}",
            serde_json::json!(["new_message", {"id": "m", "output": REPLY, "streaming": false}])
        ));
        frames.push(r#"42["update_message",{"id":"run","output":""}]"#.to_string());
        let found = candidates(&Heard::Frames(frames));
        assert!(found.iter().any(|c| c == REPLY), "{found:#?}");
        let closed: Vec<String> = found
            .into_iter()
            .filter(|c| crate::protocol::is_closed(c) && c.matches("@@eof").count() == 1)
            .collect();
        assert_eq!(
            one_reply(closed.clone()),
            Some(REPLY.to_string()),
            "{closed:#?}"
        );
    }

    #[test]
    fn two_replies_that_differ_otherwise_prove_neither() {
        let a = "@@done\n@@end\n@@eof\n".to_string();
        let b = "@@next\n@@end\n@@eof\n".to_string();
        assert_eq!(one_reply(vec![a.clone(), b]), None);
        assert_eq!(one_reply(vec![a.clone()]), Some(a.clone()));
        // A first piece the reply itself begins with twice ("@" of "@@"): two texts are each
        // the other's doubling, and nothing is chosen.
        let first_at = vec![format!("@{a}"), a.clone(), a[1..].to_string()];
        assert_eq!(one_reply(first_at), None);
        // A text with a word-less piece before it and nothing else: no choice either.
        assert_eq!(one_reply(vec![format!("```\n{a}"), a]), None);
    }

    #[test]
    fn websocket_frames_of_json_deltas_are_appended() {
        let frames = pieces(REPLY, 5)
            .into_iter()
            .map(|p| serde_json::json!({"type": "delta", "text": p}).to_string())
            .collect();
        assert!(has(&Heard::Frames(frames)));
    }

    #[test]
    fn sse_plain_text_data_lines_are_joined_as_the_standard_says() {
        let body = "data: first\ndata: second\n\n";
        assert!(
            candidates(&Heard::Body(body.as_bytes().to_vec()))
                .contains(&"first\nsecond".to_string())
        );
    }

    #[test]
    fn a_message_carried_in_json_is_exact() {
        let meant = "Task:\n\n  indented\tand \"quoted\"\n";
        let body = serde_json::json!({"messages": [{"role": "user", "content": meant}]});
        assert_eq!(
            outbound(meant, &[b"ping".to_vec(), body.to_string().into_bytes()]),
            Outbound::Exact
        );
    }

    #[test]
    fn blank_lines_turned_into_spaces_are_an_alteration() {
        let meant = "Task:\n\nfirst\n\nsecond\n";
        let sent = "Task:\n  \nfirst\n  \nsecond\n";
        let body = serde_json::json!({"prompt": sent}).to_string().into_bytes();
        match outbound(meant, &[body]) {
            Outbound::Altered(what) => assert!(what.contains("line 2"), "{what}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_body_without_the_message_says_nothing() {
        assert_eq!(
            outbound("Task: write it", &[b"{\"event\":\"typing\"}".to_vec()]),
            Outbound::Unknown
        );
    }

    #[test]
    fn a_stream_of_other_text_offers_no_reply() {
        let body = serde_json::json!({"title": "Conversation 1"}).to_string();
        assert!(!has(&Heard::Body(body.into_bytes())));
    }
}
