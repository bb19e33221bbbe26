//! Reading a finished reply through its channels, each proving itself: a copy control (the
//! selectors' or one found by its shape) whose text agrees with the rendered answer, else the
//! reply's only code block, else Markdown rebuilt from the page (which is never executed).

use std::time::{Duration, Instant};

use super::{COPY_WAIT, CdpDriver};
use crate::catalog::Failure;
use crate::chat::{Channel, Reply};

/// How many copy controls found by their shape are tried on one reply.
const MAX_COPY_CANDIDATES: usize = 3;

impl CdpDriver {
    /// What the copy control put on the page's clipboard, waited for a moment.
    fn copied(&self) -> Result<Option<String>, Failure> {
        let started = Instant::now();
        while started.elapsed() < COPY_WAIT {
            let copied = self.api().copied()?;
            if copied.is_some() {
                return Ok(copied);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(None)
    }

    /// Reads the last reply: the copy button, else the only code block, else the DOM.
    pub(super) fn read(&mut self) -> Result<Reply, Failure> {
        // The copy control of the selectors, else each one found by its shape, each proved by
        // agreeing with the rendered reply.
        for index in 0..MAX_COPY_CANDIDATES {
            let clicked = self.api().copy(index)?;
            if clicked == "no-button" {
                break;
            }
            let Some(text) = self.copied()? else {
                continue;
            };
            // What a copy control gave must agree with the rendered answer (a stale selector
            // may name a code block's copy button, or one of another turn).
            if !self.api().agrees(&text)? {
                continue;
            }
            if clicked == "discovered"
                && let Some(css) = self.api().learn_copy(index)?
            {
                self.heal_copy(css)?;
            }
            return Ok(Reply {
                text,
                channel: Channel::CopyButton,
                finished_at: Instant::now(),
            });
        }
        if let Some(text) = self.api().code_block()? {
            return Ok(Reply {
                text,
                channel: Channel::CodeBlock,
                finished_at: Instant::now(),
            });
        }
        let text = self.api().rebuilt()?;
        Ok(Reply {
            text: text.unwrap_or_default(),
            channel: Channel::Dom,
            finished_at: Instant::now(),
        })
    }
}
