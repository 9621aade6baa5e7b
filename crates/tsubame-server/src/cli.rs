//! The `tsubame serve` command line.

use crate::accounts::AccountLimits;
use crate::connections::{ConnectionLimits, LOOPBACK_PROXIES};
use crate::engine_work::EngineLimits;
use crate::hub::Settings;
use crate::{Config, serve};
use anyhow::{Context, Result};
use std::io::{IsTerminal, Write};
use std::net::{IpAddr, SocketAddr};

/// Serve the web UI and the play API. Every option can also be given in the environment
/// (`TSUBAME_LISTEN`, `TSUBAME_DATABASE`, ...); the command line wins.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free one).
    #[arg(long, env = "TSUBAME_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Database: `sqlite://FILE` (created if missing) or `postgres://USER@HOST/DB`.
    #[arg(long, env = "TSUBAME_DATABASE", default_value = "sqlite://tsubame.db")]
    pub database: String,
    /// Worker threads of the async runtime (default: one per core).
    #[arg(long, env = "TSUBAME_THREADS")]
    pub threads: Option<usize>,
    /// Between people, the seconds each side has for its first move (no clock runs before it)
    /// before the game is aborted.
    #[arg(long, env = "TSUBAME_FIRST_MOVE_SECONDS", default_value_t = 30.0,
          value_parser = parse_seconds)]
    pub first_move_seconds: f64,
    /// How long a login lasts, in seconds (30 days by default).
    #[arg(long, env = "TSUBAME_SESSION_SECONDS", default_value_t = 2_592_000.0,
          value_parser = parse_session_seconds)]
    pub session_seconds: f64,
    /// Minutes a seek waits for a second player, and a game against the computer for its
    /// player's first move, before it is aborted.
    #[arg(long, env = "TSUBAME_SEEK_EXPIRY_MINUTES", default_value_t = 60.0,
          value_parser = parse_minutes)]
    pub seek_expiry_minutes: f64,
    /// Engine searches (computer opponents and analysis) that run at once (default: one per
    /// core); at least one: a server that searches nothing itself runs with `--engine-workers`.
    #[arg(long, env = "TSUBAME_ENGINE_SLOTS", value_parser = parse_engine_slots)]
    pub engine_slots: Option<usize>,
    /// The computer's moves, finished games' analyses, mate searches and the analysis board's
    /// searches are jobs for `tsubame worker` processes (on this machine or others, with keys
    /// from `tsubame admin worker-key add`) instead of searches in the server's own slots.
    #[arg(long, env = "TSUBAME_ENGINE_WORKERS")]
    pub engine_workers: bool,
    /// Seconds a worker's lease on a job lasts unless the worker renews it: how soon a job
    /// of a worker that died goes to another.
    #[arg(long, env = "TSUBAME_WORKER_LEASE_SECONDS", default_value_t = 6.0,
          value_parser = parse_lease_seconds)]
    pub worker_lease_seconds: f64,
    /// Analysis requests that may wait for an engine slot; more get 429 with Retry-After.
    #[arg(long, env = "TSUBAME_ENGINE_QUEUE", default_value_t = 32)]
    pub engine_queue: usize,
    /// Analysis requests one address may have waiting or running, and as many replays and
    /// imports besides.
    #[arg(long, env = "TSUBAME_ANALYSES_PER_CLIENT", default_value_t = 2)]
    pub analyses_per_client: usize,
    /// Connections one address may hold open at once; more are closed on arrival.
    #[arg(long, env = "TSUBAME_CONNECTIONS_PER_ADDRESS", default_value_t = 64)]
    pub connections_per_address: usize,
    /// Seconds after which a connection on which nothing arrives is closed (game sockets are
    /// pinged every third of it).
    #[arg(long, env = "TSUBAME_IDLE_SECONDS", default_value_t = 90.0, value_parser = parse_seconds)]
    pub idle_seconds: f64,
    /// A request's line and headers must arrive within this many seconds of its first byte,
    /// however steadily they trickle in.
    #[arg(long, env = "TSUBAME_REQUEST_HEAD_SECONDS", default_value_t = 10.0,
          value_parser = parse_seconds)]
    pub request_head_seconds: f64,
    /// A request's body must arrive within this many seconds, and one second more for each
    /// 8 KiB that has arrived.
    #[arg(long, env = "TSUBAME_REQUEST_BODY_SECONDS", default_value_t = 20.0,
          value_parser = parse_seconds)]
    pub request_body_seconds: f64,
    /// A reverse proxy's address (repeat for several; `none` for none). Its connections are
    /// not held to --connections-per-address (cap clients in the proxy instead), and the
    /// client is the last address it adds to `X-Forwarded-For`. Default: 127.0.0.1 and ::1, a
    /// proxy on the same machine.
    #[arg(long = "proxy-address", env = "TSUBAME_PROXY_ADDRESSES", value_delimiter = ',',
          value_parser = parse_proxy_address)]
    pub proxy_addresses: Vec<Option<IpAddr>>,
    /// Games one address may create a minute; more get 429 with Retry-After.
    #[arg(long, env = "TSUBAME_GAMES_PER_MINUTE", default_value_t = 30)]
    pub games_per_minute: u32,
    /// A scheduled arena, made a day before each start (repeatable; in the environment, one
    /// per line), e.g. `name=Tori blitz arena;variant=tori;clock=byoyomi:3+10;every=month:first-sat;at=18:00;minutes=60`
    /// (`every`: `day`, `week:DAY`, `month:first-DAY`; `at`: UTC; optional `options=`,
    /// `rated=no`).
    #[arg(long = "arena", env = "TSUBAME_ARENAS", value_delimiter = '\n')]
    pub arenas: Vec<crate::arena::schedule::Schedule>,
    /// Log lines on standard error: `text` for people, `json` (one object per line) for a log
    /// collector. What is logged is set by `TSUBAME_LOG` (`info` by default; e.g. `warn`, or
    /// `tsubame_server=debug`).
    #[arg(long, env = "TSUBAME_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// Copy a SQLite database while the server runs: a consistent snapshot (SQLite's
/// `VACUUM INTO`), checked with SQLite's integrity check before it takes its name.
#[derive(Clone, Debug, clap::Args)]
pub struct BackupArgs {
    /// The database to copy: `sqlite://FILE`, as given to `tsubame serve`.
    #[arg(long, env = "TSUBAME_DATABASE", default_value = "sqlite://tsubame.db")]
    pub database: String,
    /// The new file to write; an existing file is never overwritten.
    #[arg(long)]
    pub out: std::path::PathBuf,
}

/// Takes the backup and prints what it holds.
pub fn run_backup(args: &BackupArgs) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let report = runtime.block_on(crate::backup::backup_sqlite(&args.database, &args.out))?;
    println!("{report}");
    Ok(())
}

/// Give or take an account's administrator role, in the server's database (the server may be
/// running: the role counts from the account's next request).
#[derive(Clone, Debug, clap::Args)]
pub struct AdminArgs {
    /// The database, as given to `tsubame serve`.
    #[arg(
        long,
        env = "TSUBAME_DATABASE",
        default_value = "sqlite://tsubame.db",
        global = true
    )]
    pub database: String,
    /// What to do.
    #[command(subcommand)]
    pub action: AdminAction,
}

/// What `tsubame admin` does.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum AdminAction {
    /// Make an account an administrator: it can create tournaments, read reports, close
    /// accounts and mute chat.
    Grant {
        /// The account's user name (any case).
        name: String,
    },
    /// Make an administrator a player again.
    Revoke {
        /// The account's user name (any case).
        name: String,
    },
    /// The keys of `tsubame worker` processes (for a server started with --engine-workers).
    #[command(subcommand)]
    WorkerKey(WorkerKeyAction),
}

/// What `tsubame admin worker-key` does.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum WorkerKeyAction {
    /// Make a key for a worker and print it (it is shown only this once).
    Add {
        /// The worker's name: letters, digits, `-`, `_` and `.`, 1 to 40 of them.
        name: String,
    },
    /// Revoke a worker's key: its next request is refused, and its leased jobs go to other
    /// workers when their leases run out.
    Revoke {
        /// The worker's name.
        name: String,
    },
    /// List the keys: name, made, last seen, revoked.
    List,
}

/// Gives or takes the role and says what was done; an unknown name is an error.
pub fn run_admin(args: &AdminArgs) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (name, role, done) = match &args.action {
        AdminAction::Grant { name } => (name, crate::store::ROLE_ADMIN, "is an administrator"),
        AdminAction::Revoke { name } => (
            name,
            crate::store::ROLE_PLAYER,
            "is no longer an administrator",
        ),
        AdminAction::WorkerKey(action) => {
            return runtime.block_on(worker_key(&args.database, action));
        }
    };
    runtime.block_on(async {
        let store = crate::store::Store::open(&args.database).await?;
        let account = store
            .account_by_name(name)
            .await?
            .filter(|row| row.deleted_at == 0)
            .with_context(|| format!("no account is called {name:?}"))?;
        store.set_role(&account.name, role).await?;
        println!("{} {done}", account.name);
        Ok(())
    })
}

/// Makes, revokes or lists worker keys.
async fn worker_key(database: &str, action: &WorkerKeyAction) -> Result<()> {
    let store = crate::store::Store::open(database).await?;
    let jobs = crate::workers::jobs::Jobs::new(store);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64);
    match action {
        WorkerKeyAction::Add { name } => {
            let valid = (1..=40).contains(&name.len())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            if !valid {
                anyhow::bail!(
                    "{name:?} is not a worker's name: 1 to 40 letters, digits, `-`, `_` or `.`"
                );
            }
            let key = crate::workers::new_key();
            if !jobs
                .add_key(name, &crate::workers::key_hash(&key), now)
                .await?
            {
                anyhow::bail!(
                    "a worker is called {name:?} already (revoke it, or pick another name)"
                );
            }
            println!("{key}");
            eprintln!(
                "the key of worker {name}: give it to `tsubame worker --key` (or TSUBAME_WORKER_KEY); it is not shown again"
            );
        }
        WorkerKeyAction::Revoke { name } => {
            if !jobs.revoke_key(name, now).await? {
                anyhow::bail!("no worker called {name:?} holds a key");
            }
            println!("the key of worker {name} is revoked");
        }
        WorkerKeyAction::List => {
            let keys = jobs.keys().await?;
            if keys.is_empty() {
                println!("no worker keys");
            }
            for key in keys {
                let when = |ms: i64| {
                    if ms == 0 {
                        "never".to_string()
                    } else {
                        format!("{} s ago", (now - ms).max(0) / 1000)
                    }
                };
                println!(
                    "{}\tmade {}\tlast seen {}{}",
                    key.name,
                    when(key.created_at),
                    when(key.last_seen),
                    if key.revoked_at > 0 {
                        format!("\trevoked {}", when(key.revoked_at))
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    Ok(())
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Plain lines for people.
    Text,
    /// One JSON object per line.
    Json,
}

/// Sends log lines to standard error, filtered by `TSUBAME_LOG`. A second call (a test that
/// starts two servers in one process) keeps the first set-up.
fn start_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TSUBAME_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// An IP address, or `none`.
fn parse_proxy_address(text: &str) -> Result<Option<IpAddr>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| format!("{text:?} is not an IP address (nor `none`)"))
}

/// A positive number of `unit`s, at most `most`.
fn parse_positive(text: &str, unit: &str, most: f64) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of {unit}"))?;
    if !(value.is_finite() && value > 0.0 && value <= most) {
        return Err(format!("{text:?} is not above 0 and at most {most} {unit}"));
    }
    Ok(value)
}

/// A positive number of minutes, at most a week.
fn parse_minutes(text: &str) -> Result<f64, String> {
    parse_positive(text, "minutes", 10_080.0)
}

/// Engine slots: 1 to 1,024. None would leave every computer move waiting for ever; workers are
/// asked for with `--engine-workers` instead.
fn parse_engine_slots(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(slots @ 1..=1024) => Ok(slots),
        Ok(0) => Err(
            "at least one slot: a server that runs no search itself takes --engine-workers".into(),
        ),
        _ => Err(format!("{text:?} is not a number of slots from 1 to 1024")),
    }
}

/// A positive number of seconds, at most a year.
fn parse_session_seconds(text: &str) -> Result<f64, String> {
    parse_positive(text, "seconds", 366.0 * 86_400.0)
}

/// A lease: 1 to 600 seconds.
fn parse_lease_seconds(text: &str) -> Result<f64, String> {
    let seconds = parse_positive(text, "seconds", 600.0)?;
    if seconds < 1.0 {
        return Err(format!("{text:?}: a lease lasts at least 1 second"));
    }
    Ok(seconds)
}

/// A positive number of seconds, at most a day.
fn parse_seconds(text: &str) -> Result<f64, String> {
    parse_positive(text, "seconds", 86_400.0)
}

/// Runs the server until the process is stopped. Prints `listening on http://ADDR` once the
/// port is bound, so scripts can wait for that line.
pub fn run(args: &ServeArgs) -> Result<()> {
    start_logging(args.log_format);
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads.max(1));
    }
    let runtime = runtime.build().context("cannot start the async runtime")?;
    let config = Config {
        listen: args.listen,
        database: args.database.clone(),
        settings: Settings {
            first_move_ms: (args.first_move_seconds * 1000.0).round() as u64,
            seek_expiry_ms: (args.seek_expiry_minutes * 60_000.0).round() as u64,
            engine: EngineLimits {
                slots: args.engine_slots.unwrap_or(EngineLimits::default().slots),
                queue: args.engine_queue,
                per_client: args.analyses_per_client.max(1),
            },
            games_per_minute: args.games_per_minute.max(1),
            accounts: AccountLimits {
                session_ttl_ms: (args.session_seconds * 1000.0).round().max(1.0) as u64,
                ..AccountLimits::default()
            },
            arenas: args.arenas.clone(),
            workers: args.engine_workers.then(|| crate::workers::WorkerSettings {
                lease: std::time::Duration::from_secs_f64(args.worker_lease_seconds),
                ..crate::workers::WorkerSettings::default()
            }),
            connections: ConnectionLimits {
                per_address: args.connections_per_address.max(1),
                idle: std::time::Duration::from_secs_f64(args.idle_seconds),
                head: std::time::Duration::from_secs_f64(args.request_head_seconds),
                body: std::time::Duration::from_secs_f64(args.request_body_seconds),
                proxies: if args.proxy_addresses.is_empty() {
                    LOOPBACK_PROXIES.into()
                } else {
                    args.proxy_addresses.iter().flatten().copied().collect()
                },
            },
        },
    };
    runtime.block_on(serve(config, |addr| {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = out.flush();
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: ServeArgs,
    }

    #[test]
    fn no_engine_slot_is_refused_with_the_option_that_runs_none() {
        let refused = Serve::try_parse_from(["serve", "--engine-slots", "0"])
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(refused.contains("--engine-workers"), "{refused}");
        let slots = |text: &str| {
            Serve::try_parse_from(["serve", "--engine-slots", text])
                .map(|serve| serve.args.engine_slots)
        };
        assert_eq!(slots("3").ok(), Some(Some(3)));
        assert!(slots("1025").is_err());
        assert!(slots("two").is_err());
    }
}
