//! Persistence: games, their options and clocks, every move with its time, and results, in
//! SQLite or PostgreSQL through the same migrations and queries.

use crate::chat::{ChatLine, MAX_LINES_PER_ROOM, Room};
pub use crate::error::WritesRefused;
use crate::ratings::{Rating, SeatRating, after_game};
use anyhow::{Context, Result};
use futures_util::future::BoxFuture;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyPool, Connection, Row};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// The schema's migrations (`migrations/`), built into the binary: version, description and
/// SQL, as `sqlx migrate` names them from the file names, so databases it migrated carry the
/// same versions and checksums.
const MIGRATIONS: [(i64, &str, &str); 17] = [
    (1, "games", include_str!("../migrations/0001_games.sql")),
    (
        2,
        "hashed tokens",
        include_str!("../migrations/0002_hashed_tokens.sql"),
    ),
    (
        3,
        "accounts",
        include_str!("../migrations/0003_accounts.sql"),
    ),
    (4, "ratings", include_str!("../migrations/0004_ratings.sql")),
    (
        5,
        "chat and rematch",
        include_str!("../migrations/0005_chat_and_rematch.sql"),
    ),
    (
        6,
        "shared instances",
        include_str!("../migrations/0006_shared_instances.sql"),
    ),
    (
        7,
        "write probe",
        include_str!("../migrations/0007_write_probe.sql"),
    ),
    (8, "puzzles", include_str!("../migrations/0008_puzzles.sql")),
    (
        9,
        "account tools",
        include_str!("../migrations/0009_account_tools.sql"),
    ),
    (
        10,
        "challenges",
        include_str!("../migrations/0010_challenges.sql"),
    ),
    (
        11,
        "tournaments",
        include_str!("../migrations/0011_tournaments.sql"),
    ),
    (
        12,
        "puzzle handouts",
        include_str!("../migrations/0012_puzzle_handouts.sql"),
    ),
    (
        13,
        "game analyses",
        include_str!("../migrations/0013_game_analyses.sql"),
    ),
    (
        14,
        "puzzle deep check",
        include_str!("../migrations/0014_puzzle_deep_check.sql"),
    ),
    (
        15,
        "learn progress",
        include_str!("../migrations/0015_learn_progress.sql"),
    ),
    (
        16,
        "engine jobs",
        include_str!("../migrations/0016_engine_jobs.sql"),
    ),
    (
        17,
        "engine job progress",
        include_str!("../migrations/0017_engine_job_progress.sql"),
    ),
];

/// A game's analysis as kept: the search's depth and time per position, the positions as
/// JSON, and when it was made (Unix milliseconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAnalysis {
    /// The depth of each search, at most.
    pub depth: i64,
    /// The time of each search, at most.
    pub movetime_ms: i64,
    /// Each position's score and line, as JSON.
    pub positions: String,
    /// When it was made, Unix milliseconds.
    pub made_at: i64,
}

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

/// A game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game's id.
    pub id: String,
    /// Variant short name.
    pub variant: String,
    /// Rule options, `name=value,...`.
    pub options: String,
    /// Start position, SFEN.
    pub start_sfen: String,
    /// The time control as JSON.
    pub time_control: String,
    /// Who sits on sente's seat: `human`, `engine` or `open`.
    pub sente_player: String,
    /// Who sits on gote's seat.
    pub gote_player: String,
    /// Engine strength for an engine seat.
    pub engine_level: i64,
    /// The SHA-256 hash (hex) of sente's secret token; empty while nobody holds the seat.
    pub sente_token_hash: String,
    /// The SHA-256 hash (hex) of gote's secret token; empty while nobody holds the seat.
    pub gote_token_hash: String,
    /// The secret that lets a second player take the open seat.
    pub invite: String,
    /// Whether the game is listed in the lobby while a seat is open.
    pub public: bool,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// `sente`, `gote`, or none.
    pub winner: Option<String>,
    /// Why the game ended.
    pub reason: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// When both seats were filled, unix milliseconds.
    pub started_at: Option<i64>,
    /// When the game ended, unix milliseconds.
    pub finished_at: Option<i64>,
    /// The accounts on sente's and gote's seats (none for a guest, the computer or an open
    /// seat).
    pub accounts: [Option<String>; 2],
    /// The names shown for sente and gote.
    pub names: [String; 2],
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    /// Each seat's rating when the game started, and its change once rated.
    pub seat_ratings: [Option<SeatRating>; 2],
    /// A seek's rating range: the least and most rating of who may join.
    pub rating_range: Option<(i64, i64)>,
    /// The rematch, once both players agreed to one.
    pub rematch_id: Option<String>,
    /// A challenge's account: the only one that may take the open seat.
    pub challenged_account: Option<String>,
    /// The tournament the game was paired in.
    pub tournament_id: Option<String>,
    /// Whether sente and gote berserked (halved their main time, in a tournament).
    pub berserk: [bool; 2],
    /// What changes while the game is played, and its version.
    pub state: GameState,
}

/// The part of a game's row that changes while it is played, written whole with every change
/// (with the moves or the result the change adds), and the version that change made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameState {
    /// How many changes the game has had: a change is stored only over the version it read.
    pub version: i64,
    /// When the running turn started, unix milliseconds: the clocks derive from it.
    pub turn_started_at: i64,
    /// The side that offers a draw.
    pub draw_offer: Option<&'static str>,
    /// After the game, the side that offers a rematch.
    pub rematch_offer: Option<&'static str>,
    /// The computer is to move and its search has not started yet: its clock waits.
    pub engine_waiting: bool,
    /// When an instance must look at the game next (a flag falls, an unstarted game expires,
    /// the computer's move is overdue), unix milliseconds; none when nothing is pending.
    pub due_at: Option<i64>,
}

/// A change to a stored game: the version it was made from, the state it leads to, and the
/// notice other instances get once it is committed (PostgreSQL only).
#[derive(Clone, Debug)]
pub struct Change {
    /// The game.
    pub id: String,
    /// The version the change was made from: when the stored game has another, nothing is
    /// written (another instance changed the game first).
    pub from_version: i64,
    /// The state after the change (its version is `from_version + 1`).
    pub state: GameState,
    /// What other instances are told, on [`GAME_CHANNEL`].
    pub notice: String,
}

/// What became of a challenge to store ([`Store::insert_challenge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengeStored {
    /// Stored.
    Made,
    /// A challenge between the two players waits already: nothing stored.
    PairWaiting,
    /// The challenger has as many challenges waiting as allowed: nothing stored.
    TooMany,
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

fn side_text(name: Option<String>) -> Option<&'static str> {
    match name.as_deref() {
        Some("sente") => Some("sente"),
        Some("gote") => Some("gote"),
        _ => None,
    }
}

/// Writes a change's state over the version it was made from, and queues its notice for the
/// commit; `false` (nothing written) when the stored game has another version.
async fn write_state(
    connection: &mut sqlx::AnyConnection,
    change: &Change,
    postgres: bool,
) -> Result<bool, sqlx::Error> {
    let state = &change.state;
    let written = sqlx::query(
        "UPDATE games SET version = $1, turn_started_at = $2, draw_offer = $3, \
         rematch_offer = $4, engine_waiting = $5, due_at = $6 WHERE id = $7 AND version = $8",
    )
    .bind(state.version)
    .bind(state.turn_started_at)
    .bind(state.draw_offer)
    .bind(state.rematch_offer)
    .bind(i64::from(state.engine_waiting))
    .bind(state.due_at)
    .bind(&change.id)
    .bind(change.from_version)
    .execute(&mut *connection)
    .await?;
    if written.rows_affected() != 1 {
        return Ok(false);
    }
    if postgres {
        notify(connection, GAME_CHANNEL, &change.notice).await?;
    }
    Ok(true)
}

/// Takes the write locks of these accounts' rows until the transaction ends, always in the
/// same order (so two transactions never wait on each other in a circle). A count read
/// afterwards in the transaction cannot change under it: on PostgreSQL another transaction
/// locking one of the rows waits for this one to commit, and each later statement sees what
/// committed before (read committed); on SQLite the write this takes holds the database's one
/// write lock. What makes a limit hold under any concurrency, on every instance: the lock and
/// the count in the transaction that writes, not a read before it.
pub(crate) async fn lock_accounts(
    connection: &mut sqlx::AnyConnection,
    accounts: &[&str],
) -> Result<(), sqlx::Error> {
    let mut accounts = accounts.to_vec();
    accounts.sort_unstable();
    accounts.dedup();
    for account in accounts {
        sqlx::query("UPDATE accounts SET created_at = created_at WHERE id = $1")
            .bind(account)
            .execute(&mut *connection)
            .await?;
    }
    Ok(())
}

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

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// The account's id (never shown: names are).
    pub id: String,
    /// The user name as chosen.
    pub name: String,
    /// The Argon2id hash of the password, as a PHC string.
    pub password_hash: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// `player`, or `admin` for an administrator.
    pub role: String,
    /// When an administrator closed the account, unix milliseconds; 0 while it is open.
    pub closed_at: i64,
    /// When its owner deleted it, unix milliseconds; 0 while it exists.
    pub deleted_at: i64,
    /// Until when its chat is muted, unix milliseconds; 0 for never muted.
    pub muted_until: i64,
}

impl AccountRow {
    /// A new player's account: no role beyond playing, open, not muted.
    pub fn player(id: String, name: String, password_hash: String, created_at: i64) -> AccountRow {
        AccountRow {
            id,
            name,
            password_hash,
            created_at,
            role: ROLE_PLAYER.to_string(),
            closed_at: 0,
            deleted_at: 0,
            muted_until: 0,
        }
    }

    /// Whether the account is an administrator's.
    pub fn is_admin(&self) -> bool {
        self.role == ROLE_ADMIN
    }
}

/// The role of every account to begin with.
pub const ROLE_PLAYER: &str = "player";

/// The role of an administrator, given with `tsubame admin grant`.
pub const ROLE_ADMIN: &str = "admin";

/// The name games and chat show for an account its owner deleted: no user name can be it.
pub const DELETED_NAME: &str = "[deleted]";

/// The columns [`account_from_row`] reads, from the `accounts` table.
const ACCOUNT_COLUMNS: &str = "accounts.id AS id, accounts.name AS name, \
     accounts.password_hash AS password_hash, accounts.created_at AS created_at, \
     accounts.role AS role, accounts.closed_at AS closed_at, \
     accounts.deleted_at AS deleted_at, accounts.muted_until AS muted_until";

/// Both seats of a game that has just started, as [`Store::start_game`] stores them.
#[derive(Clone, Copy, Debug)]
pub struct StartedSeats<'a> {
    /// `human` or `engine` for sente and gote.
    pub players: [&'a str; 2],
    /// The seats' token hashes.
    pub token_hashes: [&'a str; 2],
    /// The seats' accounts, if any.
    pub accounts: [Option<&'a str>; 2],
    /// The names shown.
    pub names: [&'a str; 2],
    /// The seats' ratings as the game starts.
    pub ratings: [Option<SeatRating>; 2],
}

/// A move as stored, with both clocks after it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveRow {
    /// 1 for the first move.
    pub ply: i64,
    /// USI text.
    pub usi: String,
    /// Unix milliseconds.
    pub played_at: i64,
    /// How long the mover thought.
    pub think_ms: i64,
    /// Sente's main time after the move.
    pub sente_ms: i64,
    /// Sente's byo-yomi periods after the move.
    pub sente_periods: i64,
    /// Gote's main time after the move.
    pub gote_ms: i64,
    /// Gote's byo-yomi periods after the move.
    pub gote_periods: i64,
}

/// The columns of a [`MoveRow`], for `SELECT` (qualified: they may be joined with `games`).
const MOVE_COLUMNS: &str = "moves.ply AS ply, moves.usi AS usi, moves.played_at AS played_at, \
     moves.think_ms AS think_ms, moves.sente_ms AS sente_ms, moves.sente_periods AS sente_periods, \
     moves.gote_ms AS gote_ms, moves.gote_periods AS gote_periods";

fn move_from_row(row: &sqlx::any::AnyRow) -> Result<MoveRow> {
    Ok(MoveRow {
        ply: row.try_get("ply")?,
        usi: row.try_get("usi")?,
        played_at: row.try_get("played_at")?,
        think_ms: row.try_get("think_ms")?,
        sente_ms: row.try_get("sente_ms")?,
        sente_periods: row.try_get("sente_periods")?,
        gote_ms: row.try_get("gote_ms")?,
        gote_periods: row.try_get("gote_periods")?,
    })
}

/// A move waiting for the group commit, and who to tell when it is stored.
struct PendingMove {
    change: Change,
    row: MoveRow,
    done: oneshot::Sender<Result<bool, sqlx::Error>>,
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

impl std::fmt::Debug for PendingMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PendingMove({} {})", self.change.id, self.row.ply)
    }
}

/// Stores a move with its game's new state; `false` (nothing written) when the game has
/// changed since the move was checked.
async fn store_move(
    connection: &mut sqlx::AnyConnection,
    pending: &PendingMove,
    postgres: bool,
) -> Result<bool, sqlx::Error> {
    if !write_state(connection, &pending.change, postgres).await? {
        return Ok(false);
    }
    insert_move_row(connection, &pending.change.id, &pending.row).await?;
    Ok(true)
}

async fn insert_move_row(
    executor: impl sqlx::Executor<'_, Database = sqlx::Any>,
    game_id: &str,
    mv: &MoveRow,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO moves (game_id, ply, usi, played_at, think_ms, sente_ms, sente_periods, \
         gote_ms, gote_periods) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(game_id)
    .bind(mv.ply)
    .bind(&mv.usi)
    .bind(mv.played_at)
    .bind(mv.think_ms)
    .bind(mv.sente_ms)
    .bind(mv.sente_periods)
    .bind(mv.gote_ms)
    .bind(mv.gote_periods)
    .execute(executor)
    .await?;
    Ok(())
}

/// Stores moves as they come, all those waiting in one transaction: one disk flush serves
/// many games, and each move is still acknowledged only once its transaction is committed.
async fn move_writer(
    pool: AnyPool,
    postgres: bool,
    mut queue: mpsc::UnboundedReceiver<PendingMove>,
) {
    while let Some(first) = queue.recv().await {
        let mut batch = vec![first];
        while batch.len() < 512 {
            match queue.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let together = async {
            let mut tx = pool.begin().await?;
            let mut stored = Vec::with_capacity(batch.len());
            for pending in &batch {
                stored.push(store_move(&mut tx, pending, postgres).await?);
            }
            tx.commit().await?;
            Ok::<_, sqlx::Error>(stored)
        }
        .await;
        if let Ok(stored) = together {
            for (pending, stored) in batch.into_iter().zip(stored) {
                let _ = pending.done.send(Ok(stored));
            }
            continue;
        }
        // One bad row must not sink the others: store them one by one.
        for pending in batch {
            let result = async {
                let mut tx = pool.begin().await?;
                let stored = store_move(&mut tx, &pending, postgres).await?;
                tx.commit().await?;
                Ok(stored)
            }
            .await;
            let _ = pending.done.send(result);
        }
    }
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

const GAME_COLUMNS: &str = "id, variant, options, start_sfen, time_control, sente_player, \
     gote_player, engine_level, sente_token_hash, gote_token_hash, invite, public, status, winner, \
     reason, created_at, started_at, finished_at, sente_account, gote_account, sente_name, \
     gote_name, rated, sente_rating, gote_rating, sente_provisional, gote_provisional, \
     sente_rating_change, gote_rating_change, rating_min, rating_max, rematch_id, version, \
     turn_started_at, draw_offer, rematch_offer, engine_waiting, due_at, challenged_account, \
     tournament_id, sente_berserk, gote_berserk";

fn game_from_row(row: &sqlx::any::AnyRow) -> Result<GameRow> {
    Ok(GameRow {
        id: row.try_get("id")?,
        variant: row.try_get("variant")?,
        options: row.try_get("options")?,
        start_sfen: row.try_get("start_sfen")?,
        time_control: row.try_get("time_control")?,
        sente_player: row.try_get("sente_player")?,
        gote_player: row.try_get("gote_player")?,
        engine_level: row.try_get("engine_level")?,
        sente_token_hash: row.try_get("sente_token_hash")?,
        gote_token_hash: row.try_get("gote_token_hash")?,
        invite: row.try_get("invite")?,
        public: row.try_get::<i64, _>("public")? != 0,
        status: row.try_get("status")?,
        winner: row.try_get("winner")?,
        reason: row.try_get("reason")?,
        created_at: row.try_get("created_at")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        accounts: [row.try_get("sente_account")?, row.try_get("gote_account")?],
        names: [row.try_get("sente_name")?, row.try_get("gote_name")?],
        rated: row.try_get::<i64, _>("rated")? != 0,
        seat_ratings: [
            seat_rating_from_row(row, "sente")?,
            seat_rating_from_row(row, "gote")?,
        ],
        rating_range: match (row.try_get("rating_min")?, row.try_get("rating_max")?) {
            (Some(min), Some(max)) => Some((min, max)),
            _ => None,
        },
        rematch_id: row.try_get("rematch_id")?,
        challenged_account: row.try_get("challenged_account")?,
        tournament_id: row.try_get("tournament_id")?,
        berserk: [
            row.try_get::<i64, _>("sente_berserk")? != 0,
            row.try_get::<i64, _>("gote_berserk")? != 0,
        ],
        state: GameState {
            version: row.try_get("version")?,
            // Games stored before turns were: the turn started when the game was last changed.
            turn_started_at: row
                .try_get::<Option<i64>, _>("turn_started_at")?
                .unwrap_or(0),
            draw_offer: side_text(row.try_get("draw_offer")?),
            rematch_offer: side_text(row.try_get("rematch_offer")?),
            engine_waiting: row.try_get::<i64, _>("engine_waiting")? != 0,
            due_at: row.try_get("due_at")?,
        },
    })
}

fn seat_rating_from_row(row: &sqlx::any::AnyRow, side: &str) -> Result<Option<SeatRating>> {
    let rating: Option<i64> = row.try_get(format!("{side}_rating").as_str())?;
    let provisional: i64 = row.try_get(format!("{side}_provisional").as_str())?;
    let change: Option<i64> = row.try_get(format!("{side}_rating_change").as_str())?;
    Ok(rating.map(|rating| SeatRating {
        rating,
        provisional: provisional != 0,
        change,
    }))
}

/// One rating as a player page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// `tori`, `wa`, `wa-nodrops` or `tenjiku`.
    pub game: String,
    /// `blitz`, `rapid`, `classical` or `correspondence`.
    pub speed: String,
    /// The rating.
    pub rating: Rating,
    /// Rated games played in this category.
    pub games: i64,
}

/// A point of a player's rating history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingPoint {
    /// The category's game.
    pub game: String,
    /// The category's speed.
    pub speed: String,
    /// The game whose result made it.
    pub game_id: String,
    /// The rating after it, whole points.
    pub rating: i64,
    /// When, unix milliseconds.
    pub at: i64,
}

/// A rated game's end: who played and in which category.
#[derive(Clone, Copy, Debug)]
pub struct RatedEnd<'a> {
    /// Sente's and gote's accounts.
    pub accounts: [&'a str; 2],
    /// The rating game (`tori`, ...).
    pub game: &'a str,
    /// The speed.
    pub speed: &'a str,
}

fn account_from_row(row: &sqlx::any::AnyRow) -> Result<AccountRow> {
    Ok(AccountRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        password_hash: row.try_get("password_hash")?,
        created_at: row.try_get("created_at")?,
        role: row.try_get("role")?,
        closed_at: row.try_get("closed_at")?,
        deleted_at: row.try_get("deleted_at")?,
        muted_until: row.try_get("muted_until")?,
    })
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

    /// Stores a new game; `notice` tells the other instances (PostgreSQL).
    pub async fn insert_game(&self, game: &GameRow, notice: &str) -> Result<()> {
        let written = self.insert_game_row(game, notice).await;
        self.written(written)
    }

    async fn insert_game_row(&self, game: &GameRow, notice: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        self.write_game_row(&mut tx, game, notice).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores a challenge's new game if its limits allow, checked with both players' rows
    /// locked in the same transaction (so they hold however many challenges are sent at
    /// once, on any instance): no other challenge waiting between the two, and fewer than
    /// `max_waiting` of the challenger's own waiting.
    pub async fn insert_challenge(
        &self,
        game: &GameRow,
        notice: &str,
        challenger: &str,
        max_waiting: i64,
    ) -> Result<ChallengeStored> {
        let challenged = game.challenged_account.as_deref().unwrap_or_default();
        let stored = async {
            let mut tx = self.pool.begin().await?;
            lock_accounts(&mut tx, &[challenger, challenged]).await?;
            let (between,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM games WHERE status = 'waiting' AND \
                 ((challenged_account = $1 AND (sente_account = $2 OR gote_account = $2)) \
                 OR (challenged_account = $2 AND (sente_account = $1 OR gote_account = $1)))",
            )
            .bind(challenged)
            .bind(challenger)
            .fetch_one(&mut *tx)
            .await?;
            if between > 0 {
                return Ok(ChallengeStored::PairWaiting);
            }
            let (waiting,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM games WHERE status = 'waiting' \
                 AND challenged_account IS NOT NULL \
                 AND (sente_account = $1 OR gote_account = $1)",
            )
            .bind(challenger)
            .fetch_one(&mut *tx)
            .await?;
            if waiting >= max_waiting {
                return Ok(ChallengeStored::TooMany);
            }
            self.write_game_row(&mut tx, game, notice).await?;
            tx.commit().await?;
            Ok(ChallengeStored::Made)
        }
        .await;
        self.written(stored)
    }

    /// Inserts a new game's row on `connection` (in its caller's transaction) and, on
    /// PostgreSQL, announces it to the other instances once that commits.
    pub(crate) async fn write_game_row(
        &self,
        connection: &mut sqlx::AnyConnection,
        game: &GameRow,
        notice: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO games (id, variant, options, start_sfen, time_control, sente_player, \
             gote_player, engine_level, sente_token_hash, gote_token_hash, invite, public, status, \
             winner, reason, created_at, started_at, finished_at, sente_account, gote_account, \
             sente_name, gote_name, rated, sente_rating, gote_rating, sente_provisional, \
             gote_provisional, rating_min, rating_max, tokens_hashed, version, turn_started_at, \
             engine_waiting, due_at, challenged_account, tournament_id) VALUES ($1, $2, $3, $4, $5, \
             $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, \
             $24, $25, $26, $27, $28, $29, 1, $30, $31, $32, $33, $34, $35)",
        )
        .bind(&game.id)
        .bind(&game.variant)
        .bind(&game.options)
        .bind(&game.start_sfen)
        .bind(&game.time_control)
        .bind(&game.sente_player)
        .bind(&game.gote_player)
        .bind(game.engine_level)
        .bind(&game.sente_token_hash)
        .bind(&game.gote_token_hash)
        .bind(&game.invite)
        .bind(i64::from(game.public))
        .bind(&game.status)
        .bind(&game.winner)
        .bind(&game.reason)
        .bind(game.created_at)
        .bind(game.started_at)
        .bind(game.finished_at)
        .bind(&game.accounts[0])
        .bind(&game.accounts[1])
        .bind(&game.names[0])
        .bind(&game.names[1])
        .bind(i64::from(game.rated))
        .bind(game.seat_ratings[0].map(|r| r.rating))
        .bind(game.seat_ratings[1].map(|r| r.rating))
        .bind(game.seat_ratings[0].map_or(0, |r| i64::from(r.provisional)))
        .bind(game.seat_ratings[1].map_or(0, |r| i64::from(r.provisional)))
        .bind(game.rating_range.map(|(min, _)| min))
        .bind(game.rating_range.map(|(_, max)| max))
        .bind(game.state.version)
        .bind(game.state.turn_started_at)
        .bind(i64::from(game.state.engine_waiting))
        .bind(game.state.due_at)
        .bind(&game.challenged_account)
        .bind(&game.tournament_id)
        .execute(&mut *connection)
        .await?;
        if self.postgres {
            notify(connection, GAME_CHANNEL, notice).await?;
        }
        Ok(())
    }

    /// Stores a change that adds nothing but its state (an offer, the computer's search
    /// starting); `false` when the game changed meanwhile.
    pub async fn change_state(&self, change: &Change) -> Result<bool> {
        let written = self.in_change(change, async |_| Ok(Some(()))).await;
        self.written(written).map(|stored| stored.is_some())
    }

    /// Stores `change` over the version it was made from and runs `then` in the same
    /// transaction, committing once `then` gives a value; `Ok(None)`, with nothing written,
    /// when the game changed meanwhile or `then` gives none.
    async fn in_change<T>(
        &self,
        change: &Change,
        then: impl AsyncFnOnce(&mut sqlx::AnyConnection) -> Result<Option<T>, sqlx::Error>,
    ) -> Result<Option<T>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        if !write_state(&mut tx, change, self.postgres).await? {
            tx.rollback().await?;
            return Ok(None);
        }
        match then(&mut tx).await? {
            Some(value) => {
                tx.commit().await?;
                Ok(Some(value))
            }
            None => {
                tx.rollback().await?;
                Ok(None)
            }
        }
    }

    /// Claims up to `limit` unfinished games that are due at `now` and that no instance has
    /// claimed, for this instance until `until`; their ids. Rows another transaction holds
    /// (a move being stored) are skipped, not waited for: their due time is being rewritten.
    pub async fn claim_due(&self, now: i64, until: i64, limit: i64) -> Result<Vec<String>> {
        // SQLite has one writer at a time, and no row locks to skip.
        let skip_locked = if self.postgres {
            " FOR UPDATE SKIP LOCKED"
        } else {
            ""
        };
        let claim = format!(
            "UPDATE games SET claimed_until = $1 WHERE id IN (SELECT id FROM games \
             WHERE due_at <= $2 AND claimed_until <= $2 AND status <> 'finished' \
             ORDER BY due_at LIMIT $3{skip_locked}) RETURNING id"
        );
        let rows: Result<Vec<(String,)>, _> = sqlx::query_as(&claim)
            .bind(until)
            .bind(now)
            .bind(limit)
            .fetch_all(&self.pool)
            .await;
        Ok(self.written(rows)?.into_iter().map(|(id,)| id).collect())
    }

    /// Every unfinished game's id and version: what an instance compares its games with
    /// after it may have missed announcements.
    pub async fn unfinished_versions(&self) -> Result<Vec<(String, i64)>> {
        Ok(
            sqlx::query_as("SELECT id, version FROM games WHERE status <> 'finished'")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// A game's row and its moves after ply `after`, read together: the moves are exactly
    /// those of the row's version.
    pub async fn game_since(
        &self,
        id: &str,
        after: i64,
    ) -> Result<Option<(GameRow, Vec<MoveRow>)>> {
        let mut tx = self.pool.begin().await?;
        if self.postgres {
            // Both reads see one snapshot (SQLite's read transaction does so already).
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                .execute(&mut *tx)
                .await?;
        }
        let row = sqlx::query(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row.as_ref().map(game_from_row).transpose()? else {
            tx.rollback().await?;
            return Ok(None);
        };
        let moves = sqlx::query(&format!(
            "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 AND ply > $2 ORDER BY ply"
        ))
        .bind(id)
        .bind(after)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some((
            row,
            moves.iter().map(move_from_row).collect::<Result<_>>()?,
        )))
    }

    /// Records that the open seat was taken and the game started, with both seats' token
    /// hashes (the one who joined gets a token only now), accounts and names.
    pub async fn start_game(
        &self,
        change: &Change,
        seats: &StartedSeats<'_>,
        started_at: i64,
    ) -> Result<bool> {
        let started = self.in_change(change, async |tx| {
            sqlx::query(
                "UPDATE games SET sente_player = $1, gote_player = $2, sente_token_hash = $3, \
             gote_token_hash = $4, status = 'playing', started_at = $5, sente_account = $6, \
             gote_account = $7, sente_name = $8, gote_name = $9, sente_rating = $10, \
             gote_rating = $11, sente_provisional = $12, gote_provisional = $13 WHERE id = $14",
            )
            .bind(seats.players[0])
            .bind(seats.players[1])
            .bind(seats.token_hashes[0])
            .bind(seats.token_hashes[1])
            .bind(started_at)
            .bind(seats.accounts[0])
            .bind(seats.accounts[1])
            .bind(seats.names[0])
            .bind(seats.names[1])
            .bind(seats.ratings[0].map(|r| r.rating))
            .bind(seats.ratings[1].map(|r| r.rating))
            .bind(seats.ratings[0].map_or(0, |r| i64::from(r.provisional)))
            .bind(seats.ratings[1].map_or(0, |r| i64::from(r.provisional)))
            .bind(&change.id)
            .execute(&mut *tx)
            .await?;
            Ok(Some(()))
        });
        self.written(started.await).map(|stored| stored.is_some())
    }

    /// Stores one move with its game's new state; it counts as played once this returns
    /// `true`. `false`: the game changed since the move was checked, and nothing was stored.
    pub async fn insert_move(&self, change: Change, mv: &MoveRow) -> Result<bool> {
        let (done, stored) = oneshot::channel();
        self.moves
            .send(PendingMove {
                change,
                row: mv.clone(),
                done,
            })
            .map_err(|_| anyhow::anyhow!("the move writer has stopped"))?;
        let stored = stored
            .await
            .map_err(|_| anyhow::anyhow!("the move writer has stopped"))?;
        self.written(stored)
    }

    /// Stores the result of a rated game and both players' new ratings in one transaction;
    /// returns the rating changes (whole points), or `None` when the game was already over or
    /// has changed meanwhile (a game is never rated twice).
    pub async fn finish_rated_game(
        &self,
        change: &Change,
        winner: Option<usize>,
        reason: &str,
        finished_at: i64,
        rated: RatedEnd<'_>,
    ) -> Result<Option<[i64; 2]>> {
        let id = change.id.as_str();
        let ended = self.in_change(change, async |tx| {
            // Two games of one player ending at once must not both start from the same
            // rating: the accounts' rows are locked, as every limit locks them (in one order,
            // and in a mode a foreign key's check does not wait for).
            lock_accounts(tx, &rated.accounts).await?;
            let winner_name = winner.map(|side| if side == 0 { "sente" } else { "gote" });
            let ended = sqlx::query(
                "UPDATE games SET status = 'finished', winner = $1, reason = $2, finished_at = $3 \
             WHERE id = $4 AND status <> 'finished'",
            )
            .bind(winner_name)
            .bind(reason)
            .bind(finished_at)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            if ended.rows_affected() == 0 {
                return Ok(None);
            }
            let mut before = [Rating::default(); 2];
            let mut played = [0i64; 2];
            for (side, account) in rated.accounts.iter().enumerate() {
                let row: Option<(i64, i64, i64, i64)> = sqlx::query_as(
                    "SELECT rating_milli, deviation_milli, volatility_nano, games FROM ratings \
                 WHERE account_id = $1 AND game = $2 AND speed = $3",
                )
                .bind(*account)
                .bind(rated.game)
                .bind(rated.speed)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some((rating, deviation, volatility, games)) = row {
                    before[side] = Rating::from_stored(rating, deviation, volatility);
                    played[side] = games;
                }
            }
            let after = after_game(before[0], before[1], winner);
            let mut changes = [0i64; 2];
            for side in 0..2 {
                let (rating, deviation, volatility) = after[side].to_stored();
                sqlx::query(
                    "INSERT INTO ratings (account_id, game, speed, rating_milli, deviation_milli, \
                 volatility_nano, games, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (account_id, game, speed) DO UPDATE SET \
                 rating_milli = excluded.rating_milli, deviation_milli = excluded.deviation_milli, \
                 volatility_nano = excluded.volatility_nano, games = excluded.games, \
                 updated_at = excluded.updated_at",
                )
                .bind(rated.accounts[side])
                .bind(rated.game)
                .bind(rated.speed)
                .bind(rating)
                .bind(deviation)
                .bind(volatility)
                .bind(played[side] + 1)
                .bind(finished_at)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO rating_history (account_id, game_id, game, speed, rating_milli, \
                 deviation_milli, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(rated.accounts[side])
                .bind(id)
                .bind(rated.game)
                .bind(rated.speed)
                .bind(rating)
                .bind(deviation)
                .bind(finished_at)
                .execute(&mut *tx)
                .await?;
                changes[side] =
                    after[side].rating.round() as i64 - before[side].rating.round() as i64;
            }
            sqlx::query(
                "UPDATE games SET sente_rating_change = $1, gote_rating_change = $2 WHERE id = $3",
            )
            .bind(changes[0])
            .bind(changes[1])
            .bind(id)
            .execute(&mut *tx)
            .await?;
            Ok(Some(changes))
        });
        self.written(ended.await)
    }

    /// An account's rating in one category, if it has played a rated game in it.
    pub async fn rating(
        &self,
        account_id: &str,
        game: &str,
        speed: &str,
    ) -> Result<Option<Rating>> {
        let row: Option<(i64, i64, i64)> = sqlx::query_as(
            "SELECT rating_milli, deviation_milli, volatility_nano FROM ratings \
             WHERE account_id = $1 AND game = $2 AND speed = $3",
        )
        .bind(account_id)
        .bind(game)
        .bind(speed)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(r, d, v)| Rating::from_stored(r, d, v)))
    }

    /// All of an account's ratings.
    pub async fn ratings_of(&self, account_id: &str) -> Result<Vec<RatingRow>> {
        let rows: Vec<(String, String, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT game, speed, rating_milli, deviation_milli, volatility_nano, games \
             FROM ratings WHERE account_id = $1",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(game, speed, r, d, v, games)| RatingRow {
                game,
                speed,
                rating: Rating::from_stored(r, d, v),
                games,
            })
            .collect())
    }

    /// An account's rating history, oldest first (the newest `limit` points).
    pub async fn rating_history(&self, account_id: &str, limit: i64) -> Result<Vec<RatingPoint>> {
        let rows: Vec<(String, String, String, i64, i64)> = sqlx::query_as(
            "SELECT game, speed, game_id, rating_milli, at FROM rating_history \
             WHERE account_id = $1 ORDER BY at DESC LIMIT $2",
        )
        .bind(account_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut points: Vec<RatingPoint> = rows
            .into_iter()
            .map(|(game, speed, game_id, rating, at)| RatingPoint {
                game,
                speed,
                game_id,
                rating: (rating as f64 / 1000.0).round() as i64,
                at,
            })
            .collect();
        points.reverse();
        Ok(points)
    }

    /// Stores a chat line, unless its room already holds [`MAX_LINES_PER_ROOM`] lines;
    /// `false` then.
    /// `notice` tells the other instances (PostgreSQL).
    pub async fn insert_chat(
        &self,
        game_id: &str,
        line: &ChatLine,
        account_id: Option<&str>,
        notice: &str,
    ) -> Result<bool> {
        let written = self.store_chat(game_id, line, account_id, notice).await;
        self.written(written)
    }

    async fn store_chat(
        &self,
        game_id: &str,
        line: &ChatLine,
        account_id: Option<&str>,
        notice: &str,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let (count,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM chat WHERE game_id = $1 AND room = $2")
                .bind(game_id)
                .bind(line.room.name())
                .fetch_one(&mut *tx)
                .await?;
        if count >= MAX_LINES_PER_ROOM {
            tx.rollback().await?;
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO chat (id, game_id, room, author, account_id, body, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&line.id)
        .bind(game_id)
        .bind(line.room.name())
        .bind(&line.author)
        .bind(account_id)
        .bind(&line.text)
        .bind(line.at as i64)
        .execute(&mut *tx)
        .await?;
        if self.postgres {
            notify(&mut tx, CHAT_CHANNEL, notice).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The newest `limit` lines of a game's room, oldest first.
    pub async fn chat_lines(&self, game_id: &str, room: Room, limit: i64) -> Result<Vec<ChatLine>> {
        let rows: Vec<(String, String, String, String, i64)> = sqlx::query_as(
            "SELECT id, room, author, body, at FROM chat WHERE game_id = $1 AND room = $2 \
             ORDER BY at DESC, id DESC LIMIT $3",
        )
        .bind(game_id)
        .bind(room.name())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut lines: Vec<ChatLine> = rows
            .into_iter()
            .map(|(id, room, author, text, at)| ChatLine {
                id,
                room: Room::from_name(&room),
                author,
                text,
                at: at.max(0) as u64,
            })
            .collect();
        lines.reverse();
        Ok(lines)
    }

    /// Records the rematch a finished game led to; `false` when the game changed meanwhile.
    pub async fn set_rematch(&self, change: &Change, rematch_id: &str) -> Result<bool> {
        let written = self
            .in_change(change, async |tx| {
                sqlx::query("UPDATE games SET rematch_id = $1 WHERE id = $2")
                    .bind(rematch_id)
                    .bind(&change.id)
                    .execute(&mut *tx)
                    .await?;
                Ok(Some(()))
            })
            .await;
        self.written(written).map(|stored| stored.is_some())
    }

    /// Stores that a side (0 sente, 1 gote) berserked; `false` when the game changed
    /// meanwhile.
    pub async fn set_berserk(&self, change: &Change, side: usize) -> Result<bool> {
        let column = if side == 0 {
            "sente_berserk"
        } else {
            "gote_berserk"
        };
        let written = self
            .in_change(change, async |tx| {
                sqlx::query(&format!("UPDATE games SET {column} = 1 WHERE id = $1"))
                    .bind(&change.id)
                    .execute(&mut *tx)
                    .await?;
                Ok(Some(()))
            })
            .await;
        self.written(written).map(|stored| stored.is_some())
    }

    /// Stores the result; `false` when the game changed meanwhile (or was already over).
    pub async fn finish_game(
        &self,
        change: &Change,
        winner: Option<&str>,
        reason: &str,
        finished_at: i64,
    ) -> Result<bool> {
        let ended = self.in_change(change, async |tx| {
            let ended = sqlx::query(
                "UPDATE games SET status = 'finished', winner = $1, reason = $2, finished_at = $3 \
             WHERE id = $4 AND status <> 'finished'",
            )
            .bind(winner)
            .bind(reason)
            .bind(finished_at)
            .bind(&change.id)
            .execute(&mut *tx)
            .await?;
            // An end is stored once: a game already over is left as it is.
            Ok((ended.rows_affected() > 0).then_some(()))
        });
        self.written(ended.await).map(|stored| stored.is_some())
    }

    /// One game, if stored.
    pub async fn game(&self, id: &str) -> Result<Option<GameRow>> {
        let row = sqlx::query(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(game_from_row).transpose()
    }

    /// A finished game's stored analysis: its depth, time per position, positions (JSON) and
    /// when it was made.
    pub async fn game_analysis(&self, game_id: &str) -> Result<Option<StoredAnalysis>> {
        let row: Option<(i64, i64, String, i64)> = sqlx::query_as(
            "SELECT depth, movetime_ms, positions, made_at FROM game_analyses WHERE game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(
            row.map(|(depth, movetime_ms, positions, made_at)| StoredAnalysis {
                depth,
                movetime_ms,
                positions,
                made_at,
            }),
        )
    }

    /// Keeps a game's analysis, in place of one kept before (made at the same time by another
    /// instance, or one that no longer reads).
    pub async fn insert_game_analysis(
        &self,
        game_id: &str,
        analysis: &StoredAnalysis,
    ) -> Result<()> {
        let done = sqlx::query(
            "INSERT INTO game_analyses (game_id, depth, movetime_ms, positions, made_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game_id) DO UPDATE SET \
             depth = $2, movetime_ms = $3, positions = $4, made_at = $5",
        )
        .bind(game_id)
        .bind(analysis.depth)
        .bind(analysis.movetime_ms)
        .bind(&analysis.positions)
        .bind(analysis.made_at)
        .execute(&self.pool)
        .await;
        self.written(done).map(|_| ())
    }

    /// Games not finished, oldest first: what a restart resumes.
    pub async fn unfinished_games(&self) -> Result<Vec<GameRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status <> 'finished' ORDER BY created_at"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(game_from_row).collect()
    }

    /// The newest finished games.
    pub async fn finished_games(&self, limit: i64) -> Result<Vec<GameRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status = 'finished' \
             ORDER BY finished_at DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(game_from_row).collect()
    }

    /// Stores a new account; `false` when the name (without regard to case) is taken.
    pub async fn insert_account(&self, account: &AccountRow) -> Result<bool> {
        let inserted = sqlx::query(
            "INSERT INTO accounts (id, name, name_key, password_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&account.id)
        .bind(&account.name)
        .bind(name_key(&account.name))
        .bind(&account.password_hash)
        .bind(account.created_at)
        .execute(&self.pool)
        .await;
        match inserted {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(false),
            inserted => self.written(inserted).map(|_| true),
        }
    }

    /// The account of a name, without regard to case.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<AccountRow>> {
        let row = sqlx::query(&format!(
            "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1"
        ))
        .bind(name_key(name))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(account_from_row).transpose()
    }

    /// Stores a login session by the hash of its value.
    pub async fn insert_session(
        &self,
        token_hash: &str,
        account_id: &str,
        created_at: i64,
        expires_at: i64,
    ) -> Result<()> {
        let inserted = sqlx::query(
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(account_id)
        .bind(created_at)
        .bind(expires_at)
        .execute(&self.pool)
        .await;
        self.written(inserted).map(|_| ())
    }

    /// The account a session (by the hash of its value) belongs to and when the session
    /// expires, unless it expired by `now`.
    pub async fn session_account(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<(AccountRow, i64)>> {
        let row = sqlx::query(&format!(
            "SELECT {ACCOUNT_COLUMNS}, sessions.expires_at AS session_expires_at \
             FROM sessions JOIN accounts ON accounts.id = sessions.account_id \
             WHERE sessions.token_hash = $1 AND sessions.expires_at > $2 \
             AND accounts.closed_at = 0 AND accounts.deleted_at = 0"
        ))
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let expires: i64 = row.try_get("session_expires_at")?;
        Ok(Some((account_from_row(&row)?, expires)))
    }

    /// Announces `notice` on [`SESSION_CHANNEL`] in a transaction, on PostgreSQL: the other
    /// instances hear of ended sessions once the change commits.
    pub(crate) async fn announce_session_end(
        &self,
        connection: &mut sqlx::AnyConnection,
        notice: &str,
    ) -> Result<(), sqlx::Error> {
        if self.postgres {
            notify(connection, SESSION_CHANNEL, notice).await?;
        }
        Ok(())
    }

    /// Ends a session, announcing `notice` when there was one; whether there was.
    pub async fn delete_session(&self, token_hash: &str, notice: &str) -> Result<bool> {
        let deleted = async {
            let mut tx = self.pool.begin().await?;
            let deleted = sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                .bind(token_hash)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                > 0;
            if deleted {
                self.announce_session_end(&mut tx, notice).await?;
            }
            tx.commit().await.map(|_| deleted)
        }
        .await;
        self.written(deleted)
    }

    /// Ends every session of an account, announcing `notice`; returns how many ended.
    pub async fn delete_sessions_of(&self, account_id: &str, notice: &str) -> Result<u64> {
        let done = async {
            let mut tx = self.pool.begin().await?;
            let ended = sqlx::query("DELETE FROM sessions WHERE account_id = $1")
                .bind(account_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            self.announce_session_end(&mut tx, notice).await?;
            tx.commit().await.map(|_| ended)
        }
        .await;
        self.written(done)
    }

    /// Sets an account's password hash and ends its other sessions (all but `keep`), together,
    /// announcing `notice`.
    pub async fn change_password(
        &self,
        account_id: &str,
        password_hash: &str,
        keep: &str,
        notice: &str,
    ) -> Result<()> {
        let changed = async {
            let mut tx = self.pool.begin().await?;
            sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2")
                .bind(password_hash)
                .bind(account_id)
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND token_hash <> $2")
                .bind(account_id)
                .bind(keep)
                .execute(&mut *tx)
                .await?;
            self.announce_session_end(&mut tx, notice).await?;
            tx.commit().await
        }
        .await;
        self.written(changed)
    }

    /// How many games an account sits in that are not over (seeks waiting and games in play).
    pub async fn account_unfinished_game_count(&self, account_id: &str) -> Result<i64> {
        let (count,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM games WHERE (sente_account = $1 OR gote_account = $1) \
             AND status <> 'finished'",
        )
        .bind(account_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(count)
    }

    /// Deletes an account at `now`, all in one: no password, no session, and its name in its
    /// games and chat lines replaced by [`DELETED_NAME`]. The row stays so that the name
    /// stays taken and the games' ratings keep their history.
    pub async fn delete_account(&self, account_id: &str, now: i64, notice: &str) -> Result<()> {
        let deleted = async {
            let mut tx = self.pool.begin().await?;
            sqlx::query("UPDATE accounts SET deleted_at = $1, password_hash = '' WHERE id = $2")
                .bind(now)
                .bind(account_id)
                .execute(&mut *tx)
                .await?;
            for statement in [
                "DELETE FROM sessions WHERE account_id = $1",
                "DELETE FROM learn_progress WHERE account_id = $1",
            ] {
                sqlx::query(statement)
                    .bind(account_id)
                    .execute(&mut *tx)
                    .await?;
            }
            for statement in [
                "UPDATE games SET sente_name = $2 WHERE sente_account = $1",
                "UPDATE games SET gote_name = $2 WHERE gote_account = $1",
                "UPDATE chat SET author = $2 WHERE account_id = $1",
                "UPDATE tournament_players SET username = $2, active = 0 WHERE account_id = $1",
            ] {
                sqlx::query(statement)
                    .bind(account_id)
                    .bind(DELETED_NAME)
                    .execute(&mut *tx)
                    .await?;
            }
            self.announce_session_end(&mut tx, notice).await?;
            tx.commit().await
        }
        .await;
        self.written(deleted)
    }

    /// Gives an account (by name) a role; `false` when there is no such account.
    pub async fn set_role(&self, name: &str, role: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE accounts SET role = $1 WHERE name_key = $2")
            .bind(role)
            .bind(name_key(name))
            .execute(&self.pool)
            .await;
        Ok(self.written(done)?.rows_affected() > 0)
    }

    /// An account's finished games (aborted ones left out), oldest first, at most `limit`,
    /// each with its moves in USI.
    pub async fn account_finished_games(
        &self,
        account_id: &str,
        limit: i64,
    ) -> Result<Vec<(GameRow, Vec<(String, u64)>)>> {
        let rows = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE (sente_account = $1 OR gote_account = $1) \
             AND status = 'finished' AND reason <> 'aborted' ORDER BY created_at LIMIT $2"
        ))
        .bind(account_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut games = Vec::with_capacity(rows.len());
        for row in &rows {
            let game = game_from_row(row)?;
            let moves = self
                .moves(&game.id)
                .await?
                .into_iter()
                .map(|m| (m.usi, m.think_ms.max(0) as u64))
                .collect();
            games.push((game, moves));
        }
        Ok(games)
    }

    /// Forgets the sessions expired by `now`; returns how many.
    pub async fn delete_expired_sessions(&self, now: i64) -> Result<u64> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await;
        Ok(self.written(done)?.rows_affected())
    }

    /// The ids of an account's games, newest first, optionally of one status.
    pub async fn account_game_ids(
        &self,
        account_id: &str,
        status: Option<&str>,
        limit: i64,
    ) -> Result<Vec<String>> {
        let ids: Vec<(String,)> = sqlx::query_as(
            "SELECT id FROM games WHERE (sente_account = $1 OR gote_account = $1) \
             AND ($2 = '' OR status = $2) ORDER BY created_at DESC LIMIT $3",
        )
        .bind(account_id)
        .bind(status.unwrap_or(""))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.into_iter().map(|(id,)| id).collect())
    }

    /// How many games an account has played to the end (aborted ones not counted).
    pub async fn account_finished_game_count(&self, account_id: &str) -> Result<i64> {
        let (count,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM games WHERE (sente_account = $1 OR gote_account = $1) \
             AND status = 'finished' AND reason <> 'aborted'",
        )
        .bind(account_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(count)
    }

    /// A game's moves in order.
    pub async fn moves(&self, game_id: &str) -> Result<Vec<MoveRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 ORDER BY ply"
        ))
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(move_from_row).collect()
    }

    /// The moves of every unfinished game, in order, by game id: what a restart needs, in one
    /// query instead of one per game.
    pub async fn unfinished_games_moves(&self) -> Result<HashMap<String, Vec<MoveRow>>> {
        let rows = sqlx::query(&format!(
            "SELECT moves.game_id AS game_id, {MOVE_COLUMNS} FROM moves \
             JOIN games ON games.id = moves.game_id \
             WHERE games.status <> 'finished' ORDER BY moves.game_id, moves.ply"
        ))
        .fetch_all(&self.pool)
        .await?;
        let mut by_game: HashMap<String, Vec<MoveRow>> = HashMap::new();
        for row in &rows {
            let game_id: String = row.try_get("game_id")?;
            by_game
                .entry(game_id)
                .or_default()
                .push(move_from_row(row)?);
        }
        Ok(by_game)
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
