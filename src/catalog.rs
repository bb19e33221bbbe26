//! The error-code catalog: every failure keyless reports carries one of these stable codes.
//!
//! The table below is the single source of truth. `docs/error-codes.md` is generated from it
//! (`UPDATE_DOCS=1 cargo test --test it catalog`), and a test fails when the catalog, the docs
//! and the user's specification disagree. A code, once published, is never reused for another
//! meaning.
//! Nothing in keyless matches on message text: code that needs to tell failures apart matches on
//! [`Code`].

use std::fmt;

/// The group a code belongs to, as the specification's catalog groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Parsing,
    Limits,
    Workspace,
    PolicyGit,
    ChatBrowser,
    ConfigInternal,
}

impl Category {
    /// Every category, in the order the catalog lists them.
    pub const ALL: [Category; 6] = [
        Category::Parsing,
        Category::Limits,
        Category::Workspace,
        Category::PolicyGit,
        Category::ChatBrowser,
        Category::ConfigInternal,
    ];

    /// The heading the specification uses for this group.
    pub fn title(self) -> &'static str {
        match self {
            Category::Parsing => "Parsing / format",
            Category::Limits => "Limits",
            Category::Workspace => "Workspace execution",
            Category::PolicyGit => "Policy / git",
            Category::ChatBrowser => "Chat / browser",
            Category::ConfigInternal => "Configuration / snapshot / internal",
        }
    }
}

macro_rules! catalog {
    ($( $variant:ident = $code:literal, $category:ident, $meaning:literal; )*) => {
        /// A stable error code. `code()` is the string shown to users and models.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $( $variant, )*
        }

        impl Code {
            /// Every code, in catalog order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable string, e.g. `KA_PARSE_BAD_PATH`.
            pub fn code(self) -> &'static str {
                match self { $( Code::$variant => $code, )* }
            }

            /// The group the code belongs to.
            pub fn category(self) -> Category {
                match self { $( Code::$variant => Category::$category, )* }
            }

            /// One line saying what the code means.
            pub fn meaning(self) -> &'static str {
                match self { $( Code::$variant => $meaning, )* }
            }
        }
    };
}

catalog! {
    ParseUnknownCommand = "KA_PARSE_UNKNOWN_COMMAND", Parsing, "@@ keyword is not a known command";
    ParseStrayText = "KA_PARSE_STRAY_TEXT", Parsing, "non-whitespace text outside blocks (or inside a block, outside a payload)";
    ParseMissingEof = "KA_PARSE_MISSING_EOF", Parsing, "reply does not end with @@eof";
    ParseTextAfterEof = "KA_PARSE_TEXT_AFTER_EOF", Parsing, "non-whitespace text after @@eof";
    ParseUnterminatedBlock = "KA_PARSE_UNTERMINATED_BLOCK", Parsing, "block opened without @@end";
    ParseMissingPayload = "KA_PARSE_MISSING_PAYLOAD", Parsing, "required section (MSG/CONTENT/FIND/REPLACE/CMD/TO) missing or empty";
    ParseUnexpectedPayload = "KA_PARSE_UNEXPECTED_PAYLOAD", Parsing, "section given to a command that does not take one";
    ParseMissingArgument = "KA_PARSE_MISSING_ARGUMENT", Parsing, "path missing on a command that needs one";
    ParseBadMarker = "KA_PARSE_BAD_MARKER", Parsing, "malformed <<< marker or unknown section name";
    ParseBadPath = "KA_PARSE_BAD_PATH", Parsing, "path absolute, contains .. or ., or uses backslashes";
    ReplyEmpty = "KA_REPLY_EMPTY", Parsing, "reply is empty";

    LimitResponseChars = "KA_LIMIT_RESPONSE_CHARS", Limits, "reply exceeds MaxResponseChars";
    LimitFileContentChars = "KA_LIMIT_FILE_CONTENT_CHARS", Limits, "one payload exceeds MaxFileContentChars";
    Timeout = "KA_TIMEOUT", Limits, "process exceeded its timeout";

    PathOutside = "KA_PATH_OUTSIDE", Workspace, "the path escapes the workspace, goes through a symbolic link, or is protected (.git, .agent, keyless's configuration) or hidden";
    FileNotFound = "KA_FILE_NOT_FOUND", Workspace, "target file does not exist";
    FileAlreadyExists = "KA_FILE_ALREADY_EXISTS", Workspace, "newfile target exists";
    FindNotUnique = "KA_FIND_NOT_UNIQUE", Workspace, "editfile FIND matched a number of times other than one";
    FileIo = "KA_FILE_IO", Workspace, "file/backup I/O failure";

    CommandDenied = "KA_COMMAND_DENIED", PolicyGit, "blocked by the command policy";
    CommandDeclined = "KA_COMMAND_DECLINED", PolicyGit, "the user declined a confirmation";
    CommandFailed = "KA_COMMAND_FAILED", PolicyGit, "command ran but exited non-zero";
    DoneCheckFailed = "KA_DONE_CHECK_FAILED", PolicyGit, "the person's done-check (--until) failed after @@done: its output goes back to the model";
    CommandNotFound = "KA_COMMAND_NOT_FOUND", PolicyGit, "the program of a command does not exist on this machine";
    Cancelled = "KA_CANCELLED", PolicyGit, "the command was cancelled by the user (Ctrl+C); partial output is kept";
    ParseBadOption = "KA_PARSE_BAD_OPTION", PolicyGit, "unknown command option or option value";
    ParseConflictingControl = "KA_PARSE_CONFLICTING_CONTROL", PolicyGit, "both @@next and @@done in one reply";
    ParseSayOnly = "KA_PARSE_SAY_ONLY", PolicyGit, "reply contains only @@say and no control directive";
    BranchProtected = "KA_BRANCH_PROTECTED", PolicyGit, "current branch matches a protected pattern";
    NotAGitRepository = "KA_NOT_A_GIT_REPOSITORY", PolicyGit, "workspace is not a git repo";
    GitFailure = "KA_GIT_FAILURE", PolicyGit, "a git command failed";
    GitNotInstalled = "KA_GIT_NOT_INSTALLED", PolicyGit, "git is not installed (workspace not a repo, Git.AutoInit needs it)";
    GitInitFailed = "KA_GIT_INIT_FAILED", PolicyGit, "automatic repository initialization failed";
    SandboxDenied = "KA_SANDBOX_DENIED", PolicyGit, "the sandbox refused what a command tried (a write outside the workspace, a protected path, the network); a change to a protected path was undone";

    BrowserConnectionFailed = "KA_BROWSER_CONNECTION_FAILED", ChatBrowser, "cannot attach to / launch Chrome";
    SelectorNotFound = "KA_SELECTOR_NOT_FOUND", ChatBrowser, "a required selector did not match";
    PageNotLoaded = "KA_PAGE_NOT_LOADED", ChatBrowser, "the chat page did not load (a network error such as a refused connection or an unknown host, or an HTTP error status): the address and the browser's error are named";
    ReplyTimeout = "KA_REPLY_TIMEOUT", ChatBrowser, "no complete reply within the timeout";
    ReplyTruncated = "KA_REPLY_TRUNCATED", ChatBrowser, "reply stream stayed truncated (AgentScript without @@eof) longer than Browser.TruncationBudgetSeconds in one wait";
    ReplyNotExact = "KA_REPLY_NOT_EXACT", ChatBrowser, "the reply could be read only as text rebuilt from the page, which cannot prove its bytes; nothing was executed and the model is asked to resend it in one fenced block; when the resent reply reads no better, the page offers no exact channel and the turn stops";
    SendNotConfirmed = "KA_SEND_NOT_CONFIRMED", ChatBrowser, "the message could not be sent (not confirmed in the DOM, retry failed too)";
    MessageAltered = "KA_MESSAGE_ALTERED", ChatBrowser, "the chat shows a sent message altered (tabs, blank lines, indentation, Markdown): keyless says so once and sends its messages inside a fence from then on; a message the page alters even so, or a message box that keeps no whitespace of its own (runs of spaces and tabs as one), is delivered with a warning";
    AttachmentUploadFailed = "KA_ATTACHMENT_UPLOAD_FAILED", ChatBrowser, "file upload failed (falls back to pasting)";
    NetworkOffline = "KA_NETWORK_OFFLINE", ChatBrowser, "the machine is offline: nothing was uploaded or sent; the chat session stays valid, resend the same request";
    ToolMissing = "KA_TOOL_MISSING", ChatBrowser, "a runcommand tool is listed as Missing in the environment: the process is never started; do not retry it";
    ComposerNotClean = "KA_COMPOSER_NOT_CLEAN", ChatBrowser, "the composer still holds stale text or attachment chips after the reset attempt (run keyless doctor to fix the AttachmentRemove/AttachmentFailed selectors)";
    ChatExhausted = "KA_CHAT_EXHAUSTED", ChatBrowser, "chat hit its length limit";
    RateLimited = "KA_RATE_LIMITED", ChatBrowser, "the chat site throttles: too many requests too quickly (its words are quoted); nothing was sent into the refusing chat; retry in seconds to minutes, or resume with --wait";
    UsageLimit = "KA_USAGE_LIMIT", ChatBrowser, "the chat site says the plan's message or usage limit is reached (its words and the reset time, when it gives one, are quoted); the turn stays resumable: resume after the reset, or with --wait";
    SpendLimit = "KA_SPEND_LIMIT", ChatBrowser, "the chat site says a spend limit is reached or the plan lapsed: no reset, waiting will not help; the turn stays resumable once the account is in order";
    SiteNotice = "KA_SITE_NOTICE", ChatBrowser, "the chat site showed no reply (an empty turn), with words in its notices keyless does not know, or none: they are quoted, nothing more is sent (no format correction into a refusing chat); the turn stays resumable";
    SiteError = "KA_SITE_ERROR", ChatBrowser, "the chat site showed an error in place of the reply (a server error, a Retry button): retried while it lasts, then the turn stops resumable";
    LoginRequired = "KA_LOGIN_REQUIRED", ChatBrowser, "the chat site asks to log in (an expired session), mid-turn or where the chat should open (known by its words or its shape: a password field, a sign-in address): log in in the browser window (or run without --headless), then resume; the wall's address is never saved as the chat's";
    BotCheck = "KA_BOT_CHECK", ChatBrowser, "the chat site shows a bot check: pass it in the browser window (or run without --headless), then resume; no script runs in the page while it shows";
    ReplyStalled = "KA_REPLY_STALLED", ChatBrowser, "the reply's stream made no progress for Browser.StallSeconds: the site stalled, nothing was lost; resume the turn";
    ModelNotConfirmed = "KA_MODEL_NOT_CONFIRMED", ChatBrowser, "the model or effort asked for (--model, --effort) could not be chosen and read back on the page: no picker, a name no option or more than one option answers to, a locked model, a choice the page did not take; nothing was sent, and what the page offers is named";
    ModelChanged = "KA_MODEL_CHANGED", ChatBrowser, "a reply says another model answered than the one chosen, or the page swapped the chosen model (a usage cap's fallback): the turn stops before anything of that reply runs; --allow-fallback makes it a warning";
    TemporaryNotAvailable = "KA_TEMPORARY_NOT_AVAILABLE", ChatBrowser, "--temporary was asked for, but the page shows no temporary chat (or it did not turn on): nothing was sent, so nothing went into the chat history";
    AttachmentUnreadable = "KA_ATTACHMENT_UNREADABLE", ChatBrowser, "a file given with --attach (or /attach) is missing, unreadable, a folder, or has the same name as another one given: refused before the browser opens or anything is sent; the path is named";
    AttachmentNotSupported = "KA_ATTACHMENT_NOT_SUPPORTED", ChatBrowser, "the page has no file input and a file given with --attach cannot go inline in the message (not text, or too long): nothing was sent";
    AttachmentRefused = "KA_ATTACHMENT_REFUSED", ChatBrowser, "the chat site refused a file given with --attach (its words are quoted: a type it does not take, a size over its limit, a failed upload): nothing was sent";
    AttachmentNotConfirmed = "KA_ATTACHMENT_NOT_CONFIRMED", ChatBrowser, "a file given with --attach was handed to the page's file input, but no chip with its name showed in the composer in time: nothing was sent";

    ConfigInvalid = "KA_CONFIG_INVALID", ConfigInternal, "keyless.json/selectors.json is not valid JSON";
    ConfigValidation = "KA_CONFIG_VALIDATION", ConfigInternal, "a configuration value is out of range";
    SnapshotMissing = "KA_SNAPSHOT_MISSING", ConfigInternal, "a snapshot script or its output is missing";
    SnapshotRunFailed = "KA_SNAPSHOT_RUN_FAILED", ConfigInternal, "a snapshot script run failed";
    SessionNotFound = "KA_SESSION_NOT_FOUND", ConfigInternal, "no saved session (expected on first run)";
    SandboxUnavailable = "KA_SANDBOX_UNAVAILABLE", ConfigInternal, "Auto mode needs a sandbox this machine cannot provide (turn it off explicitly with Sandbox.Mode \"off\")";
    Internal = "KA_INTERNAL", ConfigInternal, "unexpected internal failure (bug guard)";
}

impl Code {
    /// Looks a code up by its stable string.
    pub fn from_code(text: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.code() == text)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// Renders the catalog as the Markdown page `docs/error-codes.md`.
pub fn render_markdown() -> String {
    let mut out = String::from(
        "# Error codes\n\n\
         Every failure keyless reports carries one of these stable codes. This page is generated \
         from `src/catalog.rs` by `UPDATE_DOCS=1 cargo test --test it catalog`; a test fails when \
         they disagree. Codes are never reused.\n",
    );
    for category in Category::ALL {
        out.push_str(&format!(
            "\n## {}\n\n| Code | Meaning |\n|---|---|\n",
            category.title()
        ));
        for code in Code::ALL.iter().filter(|c| c.category() == category) {
            out.push_str(&format!("| {} | {} |\n", code.code(), code.meaning()));
        }
    }
    out
}

/// A failure as reported to the model and the user: its stable code and a reason that says what
/// was found and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub code: Code,
    pub reason: String,
    /// What the chat site said, when the failure is its trouble (a limit, an error, a wall).
    pub said: Option<Box<SiteSaid>>,
    /// The typed error beneath, when a room's own error became this failure (its
    /// `source()`); for logs and people, never for decisions: those take the code.
    pub cause: Option<Cause>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_ref().map(|c| c.0.as_ref() as _)
    }
}

/// A room's typed error kept beneath a [`Failure`], shared so failures stay cheap to clone.
#[derive(Clone)]
pub struct Cause(pub std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl std::fmt::Debug for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

/// Two causes are the same when they say the same: failures are compared by what they report.
impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Cause {}

/// What a chat site said when it refused to go on: its own words, and when a limit resets
/// (seconds since the Unix epoch) when it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteSaid {
    pub words: String,
    pub resets_at: Option<u64>,
}

impl Failure {
    pub fn new(code: Code, reason: impl Into<String>) -> Failure {
        Failure {
            code,
            reason: reason.into(),
            said: None,
            cause: None,
        }
    }

    /// A failure that says what `error` says (the rooms' errors say their causes too), with
    /// `error` kept as its source.
    pub fn from_error(
        code: Code,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> Failure {
        Failure {
            code,
            reason: error.to_string(),
            said: None,
            cause: Some(Cause(std::sync::Arc::new(error))),
        }
    }

    /// The failure with what the site said attached.
    pub fn saying(mut self, said: SiteSaid) -> Failure {
        self.said = Some(Box::new(said));
        self
    }
}
