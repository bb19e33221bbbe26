//! The parsed form of an AgentScript v1 reply.
//!
//! A [`Script`] exists only for a reply that parsed without a single diagnostic: holding one
//! means the reply may execute. Paths inside it have passed the parse-time checks
//! (see [`super::path`]); the executor checks them again against the real file system.

use std::fmt;

/// The kind of a block, named as the model writes it after `@@`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommandKind {
    Say,
    NewFile,
    UpdateFile,
    EditFile,
    DeleteFile,
    ReadFile,
    Mkdir,
    MoveFile,
    RunCommand,
    Ask,
    Commit,
    Done,
    Next,
}

/// A payload section's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    Msg,
    Content,
    Find,
    Replace,
    Cmd,
    To,
}

/// What a command accepts on its header line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgumentShape {
    /// Nothing may follow the command name.
    None,
    /// A workspace-relative path.
    Path,
    /// `key=value` options (runcommand).
    Options,
}

/// Whether a section must appear in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    Required,
    Optional,
}

impl CommandKind {
    /// Every command, in the order the specification's table lists them.
    pub const ALL: [CommandKind; 13] = [
        CommandKind::Say,
        CommandKind::NewFile,
        CommandKind::UpdateFile,
        CommandKind::EditFile,
        CommandKind::DeleteFile,
        CommandKind::ReadFile,
        CommandKind::Mkdir,
        CommandKind::RunCommand,
        CommandKind::Ask,
        CommandKind::Commit,
        CommandKind::MoveFile,
        CommandKind::Next,
        CommandKind::Done,
    ];

    /// The lowercase name written after `@@`.
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Say => "say",
            CommandKind::NewFile => "newfile",
            CommandKind::UpdateFile => "updatefile",
            CommandKind::EditFile => "editfile",
            CommandKind::DeleteFile => "deletefile",
            CommandKind::ReadFile => "readfile",
            CommandKind::Mkdir => "mkdir",
            CommandKind::MoveFile => "movefile",
            CommandKind::RunCommand => "runcommand",
            CommandKind::Ask => "ask",
            CommandKind::Commit => "commit",
            CommandKind::Done => "done",
            CommandKind::Next => "next",
        }
    }

    /// Looks a command up by name, ignoring ASCII case.
    pub fn from_name(name: &str) -> Option<CommandKind> {
        CommandKind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(name))
    }

    /// What the header line takes after the name.
    pub fn argument(self) -> ArgumentShape {
        match self {
            CommandKind::NewFile
            | CommandKind::UpdateFile
            | CommandKind::EditFile
            | CommandKind::DeleteFile
            | CommandKind::ReadFile
            | CommandKind::Mkdir
            | CommandKind::MoveFile => ArgumentShape::Path,
            CommandKind::RunCommand => ArgumentShape::Options,
            CommandKind::Say
            | CommandKind::Ask
            | CommandKind::Commit
            | CommandKind::Done
            | CommandKind::Next => ArgumentShape::None,
        }
    }

    /// The sections this command takes, each exactly once at most.
    pub fn sections(self) -> &'static [(Section, Need)] {
        use Need::*;
        match self {
            CommandKind::Say | CommandKind::Ask | CommandKind::Commit => {
                &[(Section::Msg, Required)]
            }
            CommandKind::Done | CommandKind::Next => &[(Section::Msg, Optional)],
            CommandKind::NewFile | CommandKind::UpdateFile => &[(Section::Content, Required)],
            CommandKind::EditFile => &[(Section::Find, Required), (Section::Replace, Required)],
            CommandKind::MoveFile => &[(Section::To, Required)],
            CommandKind::RunCommand => &[(Section::Cmd, Required)],
            CommandKind::DeleteFile | CommandKind::ReadFile | CommandKind::Mkdir => &[],
        }
    }

    /// Whether the command counts toward the batch limit (everything but say and the
    /// control directives).
    pub fn counts_toward_limit(self) -> bool {
        !matches!(
            self,
            CommandKind::Say | CommandKind::Done | CommandKind::Next
        )
    }
}

impl fmt::Display for CommandKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Section {
    /// Every section name.
    pub const ALL: [Section; 6] = [
        Section::Msg,
        Section::Content,
        Section::Find,
        Section::Replace,
        Section::Cmd,
        Section::To,
    ];

    /// The name as written in markers: `<<<NAME` … `NAME>>>`.
    pub fn name(self) -> &'static str {
        match self {
            Section::Msg => "MSG",
            Section::Content => "CONTENT",
            Section::Find => "FIND",
            Section::Replace => "REPLACE",
            Section::Cmd => "CMD",
            Section::To => "TO",
        }
    }

    /// Looks a section up by its exact (uppercase) name.
    pub fn from_name(name: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// What a failed `runcommand` does to the rest of the batch, when the model says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    Continue,
    Stop,
}

/// Options on a `@@runcommand` header line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// `on_error=continue|stop`; `None` follows the configured batch failure mode.
    pub on_error: Option<OnError>,
    /// `timeout=SECONDS`; the executor caps it by the configured maximum.
    pub timeout_seconds: Option<u32>,
}

/// One command of a valid reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Say {
        msg: String,
    },
    NewFile {
        path: String,
        content: String,
    },
    UpdateFile {
        path: String,
        content: String,
    },
    EditFile {
        path: String,
        find: String,
        replace: String,
    },
    DeleteFile {
        path: String,
    },
    ReadFile {
        path: String,
    },
    Mkdir {
        path: String,
    },
    MoveFile {
        from: String,
        to: String,
    },
    RunCommand {
        cmd: String,
        options: RunOptions,
    },
    Ask {
        msg: String,
    },
    Commit {
        msg: String,
    },
    Done {
        msg: Option<String>,
    },
    Next {
        msg: Option<String>,
    },
}

impl Command {
    /// The command's kind.
    pub fn kind(&self) -> CommandKind {
        match self {
            Command::Say { .. } => CommandKind::Say,
            Command::NewFile { .. } => CommandKind::NewFile,
            Command::UpdateFile { .. } => CommandKind::UpdateFile,
            Command::EditFile { .. } => CommandKind::EditFile,
            Command::DeleteFile { .. } => CommandKind::DeleteFile,
            Command::ReadFile { .. } => CommandKind::ReadFile,
            Command::Mkdir { .. } => CommandKind::Mkdir,
            Command::MoveFile { .. } => CommandKind::MoveFile,
            Command::RunCommand { .. } => CommandKind::RunCommand,
            Command::Ask { .. } => CommandKind::Ask,
            Command::Commit { .. } => CommandKind::Commit,
            Command::Done { .. } => CommandKind::Done,
            Command::Next { .. } => CommandKind::Next,
        }
    }

    /// The path on the header line, for commands that take one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Command::NewFile { path, .. }
            | Command::UpdateFile { path, .. }
            | Command::EditFile { path, .. }
            | Command::DeleteFile { path }
            | Command::ReadFile { path }
            | Command::Mkdir { path } => Some(path),
            Command::MoveFile { from, .. } => Some(from),
            _ => None,
        }
    }
}

/// A numbered command: `index` is the #N of the results message, `line` the header's line in
/// the reply as received (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub index: usize,
    pub line: usize,
    pub command: Command,
}

/// The control directive a reply ends its batch with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Next,
    Done,
}

impl Control {
    pub fn name(self) -> &'static str {
        match self {
            Control::Next => "next",
            Control::Done => "done",
        }
    }
}

/// A valid reply: its blocks in order. Only the parser makes one (its field is private and
/// its constructor the protocol's own), so holding a `Script` means "parsed, and valid".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    blocks: Vec<Block>,
}

impl Script {
    /// The parser's way to make a script of blocks it found valid.
    pub(in crate::protocol) fn parsed(blocks: Vec<Block>) -> Script {
        Script { blocks }
    }

    /// The blocks, in the reply's order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The blocks, taken.
    pub fn into_blocks(self) -> Vec<Block> {
        self.blocks
    }

    /// A run of this script's blocks (`range` of their positions): still valid, since each
    /// block is and their order is kept. For tests that stop a batch between two commands.
    #[cfg(test)]
    pub(crate) fn part(&self, range: std::ops::Range<usize>) -> Script {
        Script {
            blocks: self.blocks[range].to_vec(),
        }
    }

    /// The reply's directive: `done` when it holds a `@@done`, else `next` (the default).
    pub fn control(&self) -> Control {
        if self
            .blocks
            .iter()
            .any(|b| b.command.kind() == CommandKind::Done)
        {
            Control::Done
        } else {
            Control::Next
        }
    }
}
