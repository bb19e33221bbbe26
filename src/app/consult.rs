//! One question to the model, for a front door that wants an answer and no work done (the MCP
//! server's `consult`): the question and the files asked for (read through the workspace's
//! resolver, as `@@readfile` reads them) in one message, through the redactor, and the
//! reply's text back.
//!
//! What it does not do: parse the reply, run anything, or keep a session: the chat is a new
//! one, and the workspace is neither claimed nor written.

use super::Choices;
use super::report::Report;
use super::start::StartError;
use crate::catalog::Failure;
use crate::chat::ChatDriver;

/// The most characters of one file sent with a question; past it, whole lines up to it (and
/// the model is told the file goes on).
const MAX_FILE_CHARS: usize = 100_000;

/// Why a question got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ConsultError {
    /// The configuration or the chat's options.
    #[error(transparent)]
    Start(#[from] StartError),
    /// A file asked for cannot be read.
    #[error("{path}: {}: {}", .failure.code, .failure.reason)]
    File { path: String, failure: Failure },
    /// The chat failed (the browser, the page, the wait for the reply).
    #[error("{}: {}", .0.code, .0.reason)]
    Chat(Failure),
}

/// Asks `question` with `files` of the chosen workspace in a new chat; the reply's text.
pub fn consult(
    choices: &Choices,
    question: &str,
    files: &[String],
    report: &mut dyn Report,
) -> Result<String, ConsultError> {
    let config = choices.load_config()?;
    let options = crate::chat::cdp::Options {
        replies: crate::chat::cdp::Replies::Prose,
        ..super::chat::driver_options(choices, &config, report)?
    };
    let root = choices.workspace_or_here();
    let mut message = question.trim_end().to_string();
    if !files.is_empty() {
        let ws = super::start::guarded(choices, &config, &root).map_err(StartError::Workspace)?;
        for path in files {
            let read =
                ws.read_file(path, MAX_FILE_CHARS)
                    .map_err(|failure| ConsultError::File {
                        path: path.clone(),
                        failure,
                    })?;
            let text = read.block.map(|(_, text)| text).unwrap_or_default();
            message.push_str(&format!(
                "\n\n--- {path} ---\n{text}\n--- end of {path} ---"
            ));
            for line in read.lines {
                message.push_str(&format!("\n({line})"));
            }
        }
    }
    message.push('\n');
    let message = match crate::batch::Settings::from_config(&config, &root).redactor {
        Some(redactor) => redactor.redact(&message).text,
        None => message,
    };
    let mut driver = super::chat::open(options, "mcp", report).map_err(ConsultError::Chat)?;
    let reply = driver
        .send(&message)
        .and_then(|()| driver.wait_reply(&mut |_| {}));
    super::chat::close(driver, report);
    reply.map(|r| r.text).map_err(ConsultError::Chat)
}
