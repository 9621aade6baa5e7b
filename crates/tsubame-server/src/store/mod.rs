//! Persistence: games, their options and clocks, every move with its time, and results, in
//! SQLite or PostgreSQL through the same migrations and queries.

pub use crate::error::WritesRefused;
use anyhow::{Context, Result};
use futures_util::future::BoxFuture;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyPool, Connection};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

mod accounts;
mod analyses;
mod chat;
mod games;
mod lists;
mod moves;
mod ratings;

use moves::{PendingMove, move_writer};

pub(crate) use accounts::lock_accounts;
pub use accounts::{AccountRow, DELETED_NAME, ROLE_ADMIN, ROLE_PLAYER};
pub use analyses::StoredAnalysis;
pub use games::{ChallengeStored, Change, GameRow, GameState, StartedSeats};
pub use moves::MoveRow;
pub use ratings::{RatedEnd, RatingPoint, RatingRow};

/// The schema's migrations (`migrations/`), built into the binary: version, description and
/// SQL, as `sqlx migrate` names them from the file names, so databases it migrated carry the
/// same versions and checksums.
const MIGRATIONS: [(i64, &str, &str); 17] = [
    (1, "games", include_str!("../../migrations/0001_games.sql")),
    (
        2,
        "hashed tokens",
        include_str!("../../migrations/0002_hashed_tokens.sql"),
    ),
    (
        3,
        "accounts",
        include_str!("../../migrations/0003_accounts.sql"),
    ),
    (
        4,
        "ratings",
        include_str!("../../migrations/0004_ratings.sql"),
    ),
    (
        5,
        "chat and rematch",
        include_str!("../../migrations/0005_chat_and_rematch.sql"),
    ),
    (
        6,
        "shared instances",
        include_str!("../../migrations/0006_shared_instances.sql"),
    ),
    (
        7,
        "write probe",
        include_str!("../../migrations/0007_write_probe.sql"),
    ),
    (
        8,
        "puzzles",
        include_str!("../../migrations/0008_puzzles.sql"),
    ),
    (
        9,
        "account tools",
        include_str!("../../migrations/0009_account_tools.sql"),
    ),
    (
        10,
        "challenges",
        include_str!("../../migrations/0010_challenges.sql"),
    ),
    (
        11,
        "tournaments",
        include_str!("../../migrations/0011_tournaments.sql"),
    ),
    (
        12,
        "puzzle handouts",
        include_str!("../../migrations/0012_puzzle_handouts.sql"),
    ),
    (
        13,
        "game analyses",
        include_str!("../../migrations/0013_game_analyses.sql"),
    ),
    (
        14,
        "puzzle deep check",
        include_str!("../../migrations/0014_puzzle_deep_check.sql"),
    ),
    (
        15,
        "learn progress",
        include_str!("../../migrations/0015_learn_progress.sql"),
    ),
    (
        16,
        "engine jobs",
        include_str!("../../migrations/0016_engine_jobs.sql"),
    ),
    (
        17,
        "engine job progress",
        include_str!("../../migrations/0017_engine_job_progress.sql"),
    ),
];

/// [`MIGRATIONS`] as a source for sqlx's migrator.
#[derive(Debug)]
struct BuiltInMigrations;

impl MigrationSource<'static> for BuiltInMigrations {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async {
            Ok(MIGRATIONS
                .iter()
                .map(|&(version, description, sql)| {
                    Migration::new(
                        version,
                        description.into(),
                        MigrationType::Simple,
                        sql.into(),
                        sql.starts_with("-- no-transaction"),
                    )
                })
                .collect())
        })
    }
}

/// The PostgreSQL channel on which each committed change to a game is announced.
pub const GAME_CHANNEL: &str = "tsubame_games";

/// The PostgreSQL channel on which each chat line is announced.
pub const CHAT_CHANNEL: &str = "tsubame_chat";

/// The PostgreSQL channel on which ended sessions are announced
/// ([`SessionEnd`](crate::accounts::SessionEnd)), so that every instance closes their sockets.
pub const SESSION_CHANNEL: &str = "tsubame_sessions";

/// The PostgreSQL channel on which each change to a tournament is announced (its id).
pub const TOURNAMENT_CHANNEL: &str = "tsubame_tournaments";

/// Whether the database takes writes, as the latest writes and probes found, and how many
/// writes it has refused. Shared by the store's clones and its move writer.
#[derive(Debug, Default)]
struct WriteHealth {
    refusing: AtomicBool,
    failures: AtomicU64,
    /// What the database said when it last refused a write, and when.
    last_refusal: Mutex<Option<(String, Instant)>>,
}

/// How long writes must go without a refusal before the database counts as taking them
/// again: a nearly full disk takes some writes (those that fit in pages already there) and
/// refuses others, and the state (with `/readyz` and the log) must not flap with each.
const QUIET_BEFORE_RECOVERY: Duration = Duration::from_secs(1);

impl WriteHealth {
    /// Takes a write's outcome: a refusal is counted and turned into [`WritesRefused`]; the
    /// first of a run of refusals and the end of the run are logged, once each.
    fn take<T>(&self, result: Result<T, sqlx::Error>, postgres: bool) -> Result<T> {
        match result {
            Ok(value) => {
                if self.refusing.load(Ordering::Acquire) {
                    let quiet = self.last_refusal.lock().map_or(true, |last| {
                        last.as_ref()
                            .is_none_or(|(_, at)| at.elapsed() >= QUIET_BEFORE_RECOVERY)
                    });
                    if quiet && self.refusing.swap(false, Ordering::AcqRel) {
                        tracing::warn!(
                            refused = self.failures.load(Ordering::Relaxed),
                            "the database takes writes again: moves, games and ends are accepted"
                        );
                    }
                }
                Ok(value)
            }
            Err(error) => match refusal_reason(&error, postgres) {
                Some(reason) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut last) = self.last_refusal.lock() {
                        *last = Some((reason.clone(), Instant::now()));
                    }
                    if !self.refusing.swap(true, Ordering::AcqRel) {
                        tracing::error!(
                            %reason,
                            "the database refuses writes: moves, new games and ends are \
                             refused with 503 until it takes them again"
                        );
                    }
                    Err(WritesRefused { reason }.into())
                }
                None => Err(error.into()),
            },
        }
    }

    /// What the database said, while it refuses writes.
    fn refusing(&self) -> Option<String> {
        if !self.refusing.load(Ordering::Acquire) {
            return None;
        }
        let last = self.last_refusal.lock().ok()?;
        Some(
            last.as_ref()
                .map(|(reason, _)| reason.clone())
                .unwrap_or_default(),
        )
    }
}

/// Why `error` means the database cannot take writes now (rather than that this write was
/// wrong): SQLite's full, I/O, read-only, busy, locked, out-of-memory and cannot-open codes;
/// PostgreSQL's insufficient resources (disk full), system, connection and operator classes
/// and read-only transactions; a lost connection or pool.
fn refusal_reason(error: &sqlx::Error, postgres: bool) -> Option<String> {
    match error {
        sqlx::Error::Database(database) => {
            let code = database.code()?;
            let refuses = if postgres {
                ["53", "58", "08", "57"]
                    .iter()
                    .any(|class| code.starts_with(class))
                    || code == "25006"
            } else {
                // Extended result codes carry the primary code in their low byte.
                let primary = code.parse::<i32>().map_or(0, |code| code & 0xff);
                // BUSY, LOCKED, NOMEM, READONLY, IOERR, FULL, CANTOPEN, PROTOCOL.
                [5, 6, 7, 8, 10, 13, 14, 15].contains(&primary)
            };
            refuses.then(|| database.message().to_string())
        }
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => Some(error.to_string()),
        _ => None,
    }
}

/// How often a database that refuses writes is tried again with a probe write, and how
/// often one that takes them is checked, so that `/readyz` follows it without any player's
/// write.
const PROBE_WHILE_REFUSING: Duration = Duration::from_secs(1);

const PROBE_WHILE_TAKING: Duration = Duration::from_secs(5);

/// Announces `payload` on a PostgreSQL channel when the transaction commits.
pub(crate) async fn notify(
    connection: &mut sqlx::AnyConnection,
    channel: &str,
    payload: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(channel)
        .bind(payload)
        .execute(connection)
        .await?;
    Ok(())
}

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    /// PostgreSQL rather than SQLite: rows can be locked, changes announced.
    postgres: bool,
    /// Whether the database takes writes.
    health: Arc<WriteHealth>,
    moves: mpsc::UnboundedSender<PendingMove>,
    /// Where the database is, for the listening connection.
    url: String,
}

/// The SHA-256 hash of a seat token, lowercase hex: the only form of it the database holds.
pub fn token_hash(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Replaces the plain tokens of games stored before tokens were hashed by their hashes, so
/// those players' tokens keep working and the plain text leaves the database.
async fn hash_plain_tokens(pool: &AnyPool) -> Result<()> {
    let mut tx = pool.begin().await?;
    let plain: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT id, sente_token_hash, gote_token_hash FROM games WHERE tokens_hashed = 0",
    )
    .fetch_all(&mut *tx)
    .await?;
    for (id, sente_token, gote_token) in plain {
        sqlx::query(
            "UPDATE games SET sente_token_hash = $1, gote_token_hash = $2, tokens_hashed = 1 \
             WHERE id = $3",
        )
        .bind(token_hash(&sente_token))
        .bind(token_hash(&gote_token))
        .bind(&id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The key a name is unique under: its lowercase form.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

impl Store {
    /// Opens (creating a SQLite file if needed) and migrates the database at `url`:
    /// `sqlite://path` or `postgres://...`.
    pub async fn open(url: &str) -> Result<Store> {
        install_default_drivers();
        let sqlite = url.starts_with("sqlite:");
        let url = if sqlite && !url.contains('?') {
            format!("{url}?mode=rwc")
        } else {
            url.to_string()
        };
        // SQLite takes one writer at a time: one connection queues writes instead of
        // failing them as busy.
        let mut options = AnyPoolOptions::new().max_connections(if sqlite { 1 } else { 16 });
        if sqlite {
            // Every connection, the first and any that replaces one, flushes each commit.
            options = options.after_connect(|connection, _| {
                Box::pin(async move {
                    sqlx::query("PRAGMA synchronous=FULL")
                        .execute(&mut *connection)
                        .await?;
                    Ok(())
                })
            });
            // After a failed write (a full disk) SQLite may have rolled the transaction
            // back by itself; the driver's rollback then fails and it goes on counting an
            // open transaction, so that every later "transaction" is a savepoint inside one
            // that is never committed: writes seem to succeed and none reaches the disk. A
            // connection that still counts a transaction once it is given back is closed,
            // and the next write opens a fresh one.
            options = options.after_release(|connection, _| {
                Box::pin(async move {
                    // Runs the rollback a dropped transaction queued, before counting.
                    connection.ping().await?;
                    Ok(!connection.is_in_transaction())
                })
            });
        }
        let pool = options
            .connect(&url)
            .await
            .with_context(|| format!("cannot open database {url}"))?;
        if sqlite {
            sqlx::query("PRAGMA journal_mode=WAL")
                .execute(&pool)
                .await?;
        }
        Migrator::new(BuiltInMigrations)
            .await
            .context("cannot read the built-in migrations")?
            .run(&pool)
            .await
            .context("cannot migrate the database")?;
        hash_plain_tokens(&pool)
            .await
            .context("cannot hash the seat tokens stored before hashing")?;
        let (moves, queue) = mpsc::unbounded_channel();
        tokio::spawn(move_writer(pool.clone(), !sqlite, queue));
        let store = Store {
            pool,
            moves,
            postgres: !sqlite,
            health: Arc::default(),
            url: url.clone(),
        };
        tokio::spawn(store.clone().probe_writes());
        Ok(store)
    }

    /// Takes a write's outcome: see [`WriteHealth::take`].
    pub(crate) fn written<T>(&self, result: Result<T, sqlx::Error>) -> Result<T> {
        self.health.take(result, self.postgres)
    }

    /// Runs `work` in one transaction, committed once `work` succeeds (rolled back when it
    /// fails or the request goes away), its outcome taken by the write health
    /// ([`Store::written`]): every write of more than one statement goes through here, or
    /// through the game's and the tournament's own versions of it that commit only a change
    /// made over the version it read (`in_change`, `change_tournament`). A `work` that returns
    /// early after reading (a limit reached) commits nothing but its row locks.
    pub(crate) async fn in_transaction<T>(
        &self,
        work: impl AsyncFnOnce(&mut sqlx::AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T> {
        let done = async {
            let mut tx = self.pool.begin().await?;
            let value = work(&mut tx).await?;
            tx.commit().await?;
            Ok(value)
        }
        .await;
        self.written(done)
    }

    /// The connection pool, for the queries of other modules (puzzles).
    pub(crate) fn pool(&self) -> &sqlx::AnyPool {
        &self.pool
    }

    /// What the database said, while it refuses writes; none while it takes them.
    pub fn writes_refused(&self) -> Option<String> {
        self.health.refusing()
    }

    /// How many writes the database has refused since the server started.
    pub fn write_failures(&self) -> u64 {
        self.health.failures.load(Ordering::Relaxed)
    }

    /// Rewrites the probe row now and then (every second while writes fail), so that the
    /// write state, and with it `/readyz`, follows the database even when nobody plays:
    /// it turns to refusing when the disk fills and back when space returns.
    async fn probe_writes(self) {
        loop {
            let pause = if self.health.refusing.load(Ordering::Acquire) {
                PROBE_WHILE_REFUSING
            } else {
                PROBE_WHILE_TAKING
            };
            tokio::time::sleep(pause).await;
            if self.pool.is_closed() {
                return;
            }
            let _ = self.probe_write().await;
        }
    }

    /// One probe write: whether the database takes writes now.
    pub async fn probe_write(&self) -> Result<()> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis() as i64);
        let written = sqlx::query(
            "INSERT INTO write_probe (id, written_at) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET written_at = excluded.written_at",
        )
        .bind(now)
        .execute(&self.pool)
        .await;
        self.written(written).map(|_| ())
    }

    /// A transaction whose reads all see one snapshot of the database, for an answer made of
    /// several reads that one change writes together (SQLite's read transaction does so
    /// already; PostgreSQL's default level gives each statement a snapshot of its own).
    pub(crate) async fn read_snapshot(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Any>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        if self.postgres {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                .execute(&mut *tx)
                .await?;
        }
        Ok(tx)
    }

    /// Whether this is PostgreSQL, which several instances may share: changes are then
    /// announced to the other instances, and due games are claimed by one of them.
    pub fn shared(&self) -> bool {
        self.postgres
    }

    /// A connection listening for the changes and chat lines other instances announce
    /// ([`GAME_CHANNEL`], [`CHAT_CHANNEL`]); none for SQLite, which only one instance uses.
    pub async fn listener(&self) -> Result<Option<sqlx::postgres::PgListener>> {
        if !self.postgres {
            return Ok(None);
        }
        let mut listener = sqlx::postgres::PgListener::connect(&self.url)
            .await
            .context("cannot listen for other instances' changes")?;
        listener
            .listen_all([
                GAME_CHANNEL,
                CHAT_CHANNEL,
                SESSION_CHANNEL,
                TOURNAMENT_CHANNEL,
            ])
            .await
            .context("cannot listen for other instances' changes")?;
        Ok(Some(listener))
    }

    /// Whether the database answers a query within two seconds.
    pub async fn ping(&self) -> Result<()> {
        let query = sqlx::query("SELECT 1").fetch_one(&self.pool);
        tokio::time::timeout(Duration::from_secs(2), query)
            .await
            .context("the database did not answer within 2 s")??;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;

    #[test]
    fn every_migration_file_is_built_in_under_its_own_name() {
        let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations");
        let mut files: Vec<String> = std::fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let built_in: Vec<String> = MIGRATIONS
            .iter()
            .map(|(version, description, _)| {
                format!("{version:04}_{}.sql", description.replace(' ', "_"))
            })
            .collect();
        assert_eq!(files, built_in);
        for (name, (_, _, sql)) in files.iter().zip(MIGRATIONS) {
            let on_disk = std::fs::read_to_string(format!("{directory}/{name}")).unwrap();
            assert_eq!(on_disk, sql, "{name}");
        }
    }
}
