//! Moves: stored in batches by the move writer (one flush serves many games), read back, and a
//! game read with the moves since a ply.

use super::games::{GAME_COLUMNS, game_from_row, write_state};
use super::{Change, GameRow, Store};
use anyhow::Result;
use sqlx::{AnyPool, Row};
use std::collections::HashMap;
use tokio::sync::{mpsc, oneshot};

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
pub(super) const MOVE_COLUMNS: &str = "moves.ply AS ply, moves.usi AS usi, moves.played_at AS played_at, \
     moves.think_ms AS think_ms, moves.sente_ms AS sente_ms, moves.sente_periods AS sente_periods, \
     moves.gote_ms AS gote_ms, moves.gote_periods AS gote_periods";

pub(super) fn move_from_row(row: &sqlx::any::AnyRow) -> Result<MoveRow> {
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
pub(super) struct PendingMove {
    change: Change,
    row: MoveRow,
    done: oneshot::Sender<Result<bool, sqlx::Error>>,
}

impl std::fmt::Debug for PendingMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PendingMove({} {})", self.change.id, self.row.ply)
    }
}

/// Stores a move with its game's new state; `false` (nothing written) when the game has
/// changed since the move was checked.
pub(super) async fn store_move(
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

pub(super) async fn insert_move_row(
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
pub(super) async fn move_writer(
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

impl Store {
    /// A game's row and its moves after ply `after`, read together: the moves are exactly
    /// those of the row's version.
    pub async fn game_since(
        &self,
        id: &str,
        after: i64,
    ) -> Result<Option<(GameRow, Vec<MoveRow>)>> {
        let mut tx = self.read_snapshot().await?;
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
