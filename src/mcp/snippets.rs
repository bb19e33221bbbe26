//! `keyless mcp --print-config CLIENT`: what each MCP client needs to start keyless as its
//! server, with the flags given to `keyless mcp` carried into its arguments.
//!
//! What it does not do: write any client's configuration (the person pastes it where their
//! client keeps it, or runs the command it shows).

use crate::app::shell_word;

/// The MCP clients keyless prints a configuration for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// Claude Code (`claude mcp add`, or a project's `.mcp.json`).
    Claude,
    /// OpenAI's Codex CLI (`~/.codex/config.toml`).
    Codex,
    /// Cursor (`.cursor/mcp.json` or `~/.cursor/mcp.json`).
    Cursor,
}

/// What to print for a client: a note for the person (standard error, so that standard output
/// can go straight into the client's file) and the configuration itself.
pub struct Snippet {
    pub note: &'static str,
    pub text: String,
}

/// The snippet for `client`, starting `program mcp` with `args` after it (`program`: the path
/// of this keyless, so the client finds it whatever its own `PATH`).
pub fn snippet(client: Client, program: &str, args: &[String]) -> Snippet {
    let mut all = vec!["mcp".to_string()];
    all.extend(args.iter().cloned());
    let server = serde_json::json!({
        "mcpServers": { "keyless": { "command": program, "args": all } }
    });
    let server = serde_json::to_string_pretty(&server).unwrap_or_default() + "\n";
    // A JSON string is a TOML basic string too: the same quotes and escapes.
    let string = |s: &str| serde_json::to_string(s).unwrap_or_default();
    match client {
        Client::Claude => Snippet {
            note: "# Claude Code: run this once (add --scope user for every project), or put the JSON after it in the project's .mcp.json",
            text: format!(
                "claude mcp add keyless -- {}\n\n{server}",
                std::iter::once(program)
                    .chain(all.iter().map(String::as_str))
                    .map(shell_word)
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        },
        Client::Codex => Snippet {
            note: "# Codex CLI: add this to ~/.codex/config.toml",
            text: format!(
                "[mcp_servers.keyless]\ncommand = {}\nargs = [{}]\n",
                string(program),
                all.iter().map(|a| string(a)).collect::<Vec<_>>().join(", ")
            ),
        },
        Client::Cursor => Snippet {
            note: "// Cursor: put this in .cursor/mcp.json (or ~/.cursor/mcp.json)",
            text: server,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reaches_the_server_as_given() {
        let args = vec!["--url".to_string(), "http://x/?a=1&b='2'".to_string()];
        let claude = snippet(Client::Claude, "/opt/my tools/keyless", &args).text;
        let line = claude.lines().next().unwrap();
        assert_eq!(
            line,
            r"claude mcp add keyless -- '/opt/my tools/keyless' mcp --url 'http://x/?a=1&b='\''2'\'''"
        );
        let codex = snippet(Client::Codex, r"C:\keyless\keyless.exe", &args).text;
        assert_eq!(
            codex,
            "[mcp_servers.keyless]\ncommand = \"C:\\\\keyless\\\\keyless.exe\"\nargs = [\"mcp\", \"--url\", \"http://x/?a=1&b='2'\"]\n"
        );
        let cursor: serde_json::Value =
            serde_json::from_str(&snippet(Client::Cursor, "keyless", &args).text).unwrap();
        assert_eq!(
            cursor["mcpServers"]["keyless"]["args"][2],
            "http://x/?a=1&b='2'"
        );
    }
}
