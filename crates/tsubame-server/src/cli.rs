//! The `tsubame serve` command line.

use crate::{Config, serve};
use anyhow::{Context, Result};
use std::io::Write;
use std::net::SocketAddr;

/// Serve the web UI and the play API.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Database: `sqlite://FILE` (created if missing) or `postgres://USER@HOST/DB`.
    #[arg(long, default_value = "sqlite://tsubame.db")]
    pub database: String,
    /// Worker threads of the async runtime (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Runs the server until the process is stopped. Prints `listening on http://ADDR` once the
/// port is bound, so scripts can wait for that line.
pub fn run(args: &ServeArgs) -> Result<()> {
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads.max(1));
    }
    let runtime = runtime.build().context("cannot start the async runtime")?;
    let config = Config {
        listen: args.listen,
        database: args.database.clone(),
    };
    runtime.block_on(serve(config, |addr| {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = out.flush();
    }))
}
