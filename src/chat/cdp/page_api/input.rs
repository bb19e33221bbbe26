//! Trusted input: what the page receives as a person's (keys, mouse clicks, typed text, a chosen
//! file), sent through the DevTools Protocol rather than by the page script. Editors and send
//! buttons that ignore scripted events take these.

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};

use super::PageApi;
use crate::catalog::{Code, Failure};
use crate::chat::cdp::bounded;

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

    /// Shift+Enter as a person types it: a key down that carries its text (a carriage return),
    /// which Chrome turns into a line break in the focused editor, then the key up.
    pub(in crate::chat::cdp) fn shift_enter(&self) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        self.tab.block(async move {
            for (kind, text) in [
                (DispatchKeyEventType::KeyDown, Some("\r")),
                (DispatchKeyEventType::KeyUp, None),
            ] {
                let mut params = DispatchKeyEventParams::builder()
                    .r#type(kind)
                    .key("Enter")
                    .code("Enter")
                    .windows_virtual_key_code(ENTER_KEY)
                    .modifiers(SHIFT);
                if let Some(text) = text {
                    params = params.text(text).unmodified_text(text);
                }
                let params = params
                    .build()
                    .map_err(|e| Failure::new(Code::Internal, e))?;
                bounded(page.execute(params), "press Shift+Enter").await?;
            }
            Ok(())
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
                let params = params
                    .build()
                    .map_err(|e| Failure::new(Code::Internal, e))?;
                bounded(page.execute(params), "press a key").await?;
            }
            Ok(())
        })
    }

    /// Clicks `key` as a person would: real mouse events at its centre, which handlers that
    /// ignore scripted clicks accept. `false` when it is hidden or covered.
    pub(in crate::chat::cdp) fn click_trusted(&self, key: &str) -> Result<bool, Failure> {
        let Some((x, y)) = self.centre(key)? else {
            return Ok(false);
        };
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
                    .map_err(|e| Failure::new(Code::Internal, e))?;
                bounded(page.execute(params), "click").await?;
            }
            Ok(())
        })?;
        Ok(true)
    }

    /// One `Input.insertText` of `text` where the focus is.
    pub(in crate::chat::cdp) fn insert_text(&self, text: &str) -> Result<(), Failure> {
        let page = self.tab.page.clone();
        let text = text.to_string();
        self.tab.block(async move {
            bounded(page.execute(InsertTextParams::new(text)), "insert text").await?;
            Ok(())
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
                .map_err(|e| Failure::new(Code::Internal, e))?;
            bounded(page.execute(params), "attach the file").await?;
            Ok(())
        })
    }
}
