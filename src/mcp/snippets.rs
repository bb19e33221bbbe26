//! `keyless mcp --print-config CLIENT`: what each MCP client needs to start keyless as its
//! server, with the flags given to `keyless mcp` carried into its arguments.
//!
//! What it does not do: write any client's configuration (the person pastes it where their
//! client keeps it, or runs the command it shows).

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

/// The snippet for `client`, starting `keyless mcp` with `args` after it.
pub fn snippet(client: Client, args: &[String]) -> String {
    let mut all = vec!["mcp".to_string()];
    all.extend(args.iter().cloned());
    let json_args = serde_json::to_string(&all).unwrap_or_else(|_| "[\"mcp\"]".into());
    let server = format!(
        "{{\n  \"mcpServers\": {{\n    \"keyless\": {{\n      \"command\": \"keyless\",\n      \"args\": {json_args}\n    }}\n  }}\n}}\n"
    );
    match client {
        Client::Claude => format!(
            "# Claude Code: run this once (--scope user: every project)\nclaude mcp add keyless -- keyless {}\n\n# or put this in the project's .mcp.json:\n{server}",
            all.join(" ")
        ),
        Client::Codex => format!(
            "# Codex CLI: add this to ~/.codex/config.toml\n[mcp_servers.keyless]\ncommand = \"keyless\"\nargs = {json_args}\n"
        ),
        Client::Cursor => {
            format!("// Cursor: put this in .cursor/mcp.json (or ~/.cursor/mcp.json)\n{server}")
        }
    }
}
