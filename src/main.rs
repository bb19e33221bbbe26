use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = keyless::cli::Args::parse();
    let status = keyless::cli::run(args);
    ExitCode::from(status.code())
}
