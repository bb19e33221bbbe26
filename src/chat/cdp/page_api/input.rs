//! Trusted input: what the page receives as a person's (keys, mouse clicks, typed text, a chosen
//! file), sent through the DevTools Protocol rather than by the page script. Editors and send
//! buttons that ignore scripted events take these.

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use futures::{StreamExt, TryStreamExt};

use super::PageApi;
use crate::catalog::Failure;
use crate::chat::cdp::{DriverError, bounded};

/// A key to press: its name and code, Windows' virtual key code, Ctrl held, and the editing
/// command it stands for (Chrome runs it for keys it would not map itself).
pub(in crate::chat::cdp) struct Press<'a> {
    pub key: &'a str,
    pub code: &'a str,
    pub virtual_code: i64,
    pub ctrl: bool,
    pub command: Option<&'a str>,
}

/// The Ctrl modifier bit of `Input.dispatchKeyEvent`.
const CTRL: i64 = 2;
/// The Shift modifier bit of `Input.dispatchKeyEvent`.
const SHIFT: i64 = 8;
/// Windows' virtual key code of Enter.
const ENTER_KEY: i64 = 13;

/// How many typing calls (a line's text, a key's press or release) are in flight at once.
const TYPING_IN_FLIGHT: usize = 8;

impl PageApi<'_> {
    /// Presses and releases a key named like its code (Enter, Backspace).
    pub(in crate::chat::cdp) fn key(&self, key: &str, code: i64) -> Result<(), Failure> {
        self.press(Press {
            key,
            code: key,
            virtual_code: code,
            ctrl: false,
            command: None,
        })
    }

    /// Lines typed as text with a Shift+Enter after each (after the last too with
    /// `break_after_last`), [`TYPING_IN_FLIGHT`] calls sent ahead of the page's handling: it
    /// takes them in order, as keys a person types fast, and the caller checks the composer
    /// after.
    pub(in crate::chat::cdp) fn type_lines(
        &self,
        lines: &[&str],
        break_after_last: bool,
    ) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        let mut steps = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if !line.is_empty() {
                steps.push(Step::Text((*line).to_string()));
            }
            if break_after_last || i + 1 < lines.len() {
                steps.push(Step::Key(true));
                steps.push(Step::Key(false));
            }
        }
        self.tab.block(async move {
            let sent = steps.into_iter().map(|step| {
                let page = page.clone();
                async move {
                    match step {
                        Step::Text(text) => {
                            bounded(page.execute(InsertTextParams::new(text)), "type a line")
                                .await
                                .map(drop)
                        }
                        Step::Key(down) => {
                            bounded(page.execute(shift_enter_event(down)?), "press Shift+Enter")
                                .await
                                .map(drop)
                        }
                    }
                }
            });
            // A window of calls in flight, not the whole group: each waits for the page to
            // handle the ones before it, and a page busy with every key (a React composer
            // holding 30 KB, on a loaded machine) took longer than a call's limit to get
            // through a group of 64 lines sent at once.
            futures::stream::iter(sent)
                .buffered(TYPING_IN_FLIGHT)
                .try_collect::<Vec<()>>()
                .await
                .map(drop)
        })
    }

    /// One key press and release, as trusted input.
    pub(in crate::chat::cdp) fn press(&self, press: Press<'_>) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        let (key, code) = (press.key.to_string(), press.code.to_string());
        let command = press.command.map(str::to_string);
        let (virtual_code, ctrl) = (press.virtual_code, press.ctrl);
        self.tab.block(async move {
            for kind in [
                DispatchKeyEventType::RawKeyDown,
                DispatchKeyEventType::KeyUp,
            ] {
                let mut params = DispatchKeyEventParams::builder()
                    .r#type(kind)
                    .key(key.clone())
                    .code(code.clone())
                    .windows_virtual_key_code(virtual_code);
                if ctrl {
                    params = params.modifiers(CTRL);
                }
                if let Some(command) = &command {
                    params = params.commands(vec![command.clone()]);
                }
                let params = params.build().map_err(|why| DriverError::Command {
                    what: "press a key",
                    why,
                })?;
                bounded(page.execute(params), "press a key").await?;
            }
            Ok::<_, DriverError>(())
        })
    }

    /// Clicks `key` as a person would: real mouse events at its centre, which handlers that
    /// ignore scripted clicks accept. `false` when it is hidden or covered.
    pub(in crate::chat::cdp) fn click_trusted(&self, key: &str) -> Result<bool, Failure> {
        let Some((x, y)) = self.centre(key)? else {
            return Ok(false);
        };
        self.click_at(x, y)?;
        Ok(true)
    }

    /// Real mouse events (move, press, release) at a point of the tab.
    pub(in crate::chat::cdp) fn click_at(&self, x: f64, y: f64) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        self.tab.block(async move {
            for kind in [
                DispatchMouseEventType::MouseMoved,
                DispatchMouseEventType::MousePressed,
                DispatchMouseEventType::MouseReleased,
            ] {
                let params = DispatchMouseEventParams::builder()
                    .r#type(kind)
                    .x(x)
                    .y(y)
                    .button(MouseButton::Left)
                    .click_count(1)
                    .build()
                    .map_err(|why| DriverError::Command { what: "click", why })?;
                bounded(page.execute(params), "click").await?;
            }
            Ok::<_, DriverError>(())
        })
    }

    /// One `Input.insertText` of `text` where the focus is.
    pub(in crate::chat::cdp) fn insert_text(&self, text: &str) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        let text = text.to_string();
        self.tab.block(async move {
            bounded(page.execute(InsertTextParams::new(text)), "insert text").await?;
            Ok::<_, DriverError>(())
        })
    }

    /// Chooses `file` in the file input `css` finds, as a person picking it.
    pub(in crate::chat::cdp) fn choose_file(
        &self,
        css: String,
        file: String,
    ) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        self.tab.block(async move {
            let input = bounded(page.find_element(css), "find the file input").await?;
            let params = SetFileInputFilesParams::builder()
                .file(file)
                .backend_node_id(input.backend_node_id)
                .build()
                .map_err(|why| DriverError::Command {
                    what: "attach the file",
                    why,
                })?;
            bounded(page.execute(params), "attach the file").await?;
            Ok::<_, DriverError>(())
        })
    }

    /// Chooses `files` (paths on this machine) in the file input `attach.js` finds (the
    /// selectors', else one by its shape, in shadow roots and frames too), as a person picking
    /// them in the file dialog; `false` when the page has none. The element is reached by its
    /// object, so an input no CSS path from the document reaches takes them as well.
    pub(in crate::chat::cdp) fn choose_files(&self, files: Vec<String>) -> Result<bool, Failure> {
        // The script is there (put back after a navigation) before its element is asked for.
        let _: bool = self.call("hasFileInput", serde_json::json!([]))?;
        let page = self.tab.page.clone();
        self.tab.block(async move {
            let find = EvaluateParams::builder()
                .expression("window.__keyless.fileInputElement()")
                .return_by_value(false)
                .build()
                .map_err(|why| DriverError::Command {
                    what: "find the file input",
                    why,
                })?;
            let found = bounded(page.execute(find), "find the file input").await?;
            let Some(object) = found.result.result.object_id.clone() else {
                return Ok::<_, DriverError>(false);
            };
            let params = SetFileInputFilesParams::builder()
                .files(files)
                .object_id(object)
                .build()
                .map_err(|why| DriverError::Command {
                    what: "hand the files to the file input",
                    why,
                })?;
            bounded(page.execute(params), "hand the files to the file input").await?;
            Ok(true)
        })
    }
}

/// One step of [`PageApi::type_lines`].
enum Step {
    Text(String),
    /// Shift+Enter's key down (`true`) or up.
    Key(bool),
}

/// Shift+Enter's key down (carrying a carriage return, which Chrome turns into a line break
/// in the focused editor) or key up.
fn shift_enter_event(down: bool) -> Result<DispatchKeyEventParams, DriverError> {
    let kind = if down {
        DispatchKeyEventType::KeyDown
    } else {
        DispatchKeyEventType::KeyUp
    };
    let mut params = DispatchKeyEventParams::builder()
        .r#type(kind)
        .key("Enter")
        .code("Enter")
        .windows_virtual_key_code(ENTER_KEY)
        .modifiers(SHIFT);
    if down {
        params = params.text("\r").unmodified_text("\r");
    }
    params.build().map_err(|why| DriverError::Command {
        what: "press Shift+Enter",
        why,
    })
}
