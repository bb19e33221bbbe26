//! `keyless completions SHELL` and `keyless man`: shell completions and the man page, generated
//! from the clap definitions themselves, so neither can disagree with the program.

use std::io::Write;

use clap::CommandFactory;

use crate::exit::Status;

use super::args::Args;

/// Prints the completion script for `shell` on standard output.
pub fn completions(shell: clap_complete::Shell) -> Status {
    let mut command = Args::command();
    clap_complete::generate(shell, &mut command, "keyless", &mut std::io::stdout());
    Status::Success
}

/// Prints the man page (roff) on standard output: `keyless man > keyless.1`, or
/// `keyless man | man -l -`. With `subcommand`, that subcommand's own page.
pub fn man(subcommand: Option<&str>) -> Status {
    let command = Args::command();
    let page = match subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => sub.clone().name(format!("keyless-{name}")),
            None => {
                eprintln!(
                    "keyless man: there is no subcommand {name}; `keyless --help` lists them"
                );
                return Status::Usage;
            }
        },
    };
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        eprintln!("keyless man: cannot render the man page: {e}");
        return Status::Usage;
    }
    let _ = std::io::stdout().write_all(&out);
    Status::Success
}
