//! A reply given to `keyless check` or `keyless apply`: read from a file or standard input,
//! with bytes that are not UTF-8 kept as a problem, so that such a reply never executes.

/// Reads a reply from FILE, or from standard input for `-` or no file.
pub(super) fn read_reply(file: Option<&std::path::Path>) -> Result<Reply, String> {
    use std::io::Read;
    let bytes = match file {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            buf
        }
    };
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Reply {
            text,
            not_utf8: None,
        },
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Reply {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                not_utf8: Some(crate::protocol::parse::Diagnostic {
                    code: crate::catalog::Code::ParseStrayText,
                    line: Some(line),
                    message: format!(
                        "line {line} holds bytes that are not UTF-8 (the first at byte {at}; shown as U+FFFD): a reply is UTF-8 text. Resend it as text."
                    ),
                }),
            }
        }
    })
}

/// A reply read from a file or standard input.
pub(super) struct Reply {
    /// The text; bytes that are not UTF-8 are U+FFFD here.
    text: String,
    /// The problem that the bytes were not all UTF-8.
    not_utf8: Option<crate::protocol::parse::Diagnostic>,
}

impl Reply {
    /// Parses the reply; bytes that were not UTF-8 are a problem like any other, so such a
    /// reply never executes.
    pub(super) fn parse(&self, limits: &crate::config::Limits) -> crate::protocol::parse::Parsed {
        let mut parsed = crate::protocol::parse(&self.text, limits);
        if let Some(problem) = &self.not_utf8 {
            parsed.diagnostics.insert(0, problem.clone());
            parsed.script = None;
        }
        parsed
    }
}
