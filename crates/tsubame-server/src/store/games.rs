//! A game's row: made, changed over the version it was read at, claimed when due, ended.

use super::ratings::seat_rating_from_row;
use super::{GAME_CHANNEL, Store, lock_accounts, notify};
use crate::ratings::SeatRating;
use anyhow::Result;
use sqlx::Row;

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

pub(super) fn side_text(name: Option<String>) -> Option<&'static str> {
    match name.as_deref() {
        Some("sente") => Some("sente"),
        Some("gote") => Some("gote"),
        _ => None,
    }
}

/// Writes a change's state over the version it was made from, and queues its notice for the
/// commit; `false` (nothing written) when the stored game has another version.
pub(super) async fn write_state(
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

pub(super) const GAME_COLUMNS: &str = "id, variant, options, start_sfen, time_control, sente_player, \
     gote_player, engine_level, sente_token_hash, gote_token_hash, invite, public, status, winner, \
     reason, created_at, started_at, finished_at, sente_account, gote_account, sente_name, \
     gote_name, rated, sente_rating, gote_rating, sente_provisional, gote_provisional, \
     sente_rating_change, gote_rating_change, rating_min, rating_max, rematch_id, version, \
     turn_started_at, draw_offer, rematch_offer, engine_waiting, due_at, challenged_account, \
     tournament_id, sente_berserk, gote_berserk";

pub(super) fn game_from_row(row: &sqlx::any::AnyRow) -> Result<GameRow> {
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

impl Store {
    /// Stores a new game; `notice` tells the other instances (PostgreSQL).
    pub async fn insert_game(&self, game: &GameRow, notice: &str) -> Result<()> {
        self.in_transaction(async |tx| self.write_game_row(tx, game, notice).await)
            .await
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
        self.in_transaction(async |tx| {
            lock_accounts(&mut *tx, &[challenger, challenged]).await?;
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
            self.write_game_row(&mut *tx, game, notice).await?;
            Ok(ChallengeStored::Made)
        })
        .await
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
        self.store_change(change, async |_| Ok(())).await
    }

    /// Stores `change` and what `also` writes beside it (columns of the game's row), in one
    /// transaction; `false`, with nothing written, when the game changed meanwhile.
    async fn store_change(
        &self,
        change: &Change,
        also: impl AsyncFnOnce(&mut sqlx::AnyConnection) -> Result<(), sqlx::Error>,
    ) -> Result<bool> {
        let stored = self
            .in_change(change, async |tx| {
                also(tx).await?;
                Ok(Some(()))
            })
            .await;
        self.written(stored).map(|stored| stored.is_some())
    }

    /// Stores `change` over the version it was made from and runs `then` in the same
    /// transaction, committing once `then` gives a value; `Ok(None)`, with nothing written,
    /// when the game changed meanwhile or `then` gives none.
    pub(super) async fn in_change<T>(
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

    /// Records that the open seat was taken and the game started, with both seats' token
    /// hashes (the one who joined gets a token only now), accounts and names.
    pub async fn start_game(
        &self,
        change: &Change,
        seats: &StartedSeats<'_>,
        started_at: i64,
    ) -> Result<bool> {
        self.store_change(change, async |tx| {
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
            .await
            .map(drop)
        })
        .await
    }

    /// Records the rematch a finished game led to; `false` when the game changed meanwhile.
    pub async fn set_rematch(&self, change: &Change, rematch_id: &str) -> Result<bool> {
        self.store_change(change, async |tx| {
            sqlx::query("UPDATE games SET rematch_id = $1 WHERE id = $2")
                .bind(rematch_id)
                .bind(&change.id)
                .execute(&mut *tx)
                .await
                .map(drop)
        })
        .await
    }

    /// Stores that a side (0 sente, 1 gote) berserked; `false` when the game changed
    /// meanwhile.
    pub async fn set_berserk(&self, change: &Change, side: usize) -> Result<bool> {
        let column = if side == 0 {
            "sente_berserk"
        } else {
            "gote_berserk"
        };
        self.store_change(change, async |tx| {
            sqlx::query(&format!("UPDATE games SET {column} = 1 WHERE id = $1"))
                .bind(&change.id)
                .execute(&mut *tx)
                .await
                .map(drop)
        })
        .await
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
}
