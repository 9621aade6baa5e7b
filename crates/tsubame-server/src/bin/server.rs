//! `tsubame-server`: the same server as `tsubame serve`, as a binary of its own crate so the
//! crate's integration tests can start, kill and restart the real process.

use clap::Parser;
use std::process::ExitCode;
use tsubame_server::cli::{ServeArgs, run};

#[derive(Parser)]
#[command(
    name = "tsubame-server",
    about = "Serve the Tsubame web UI and play API"
)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn main() -> ExitCode {
    match run(&Cli::parse().serve) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tsubame-server: {error:#}");
            ExitCode::FAILURE
        }
    }
}
