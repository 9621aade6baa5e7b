//! Games as listed: the unfinished ones at a start, the finished ones, an account's, and their counts.

use super::games::{GAME_COLUMNS, game_from_row};
use super::{GameRow, Store};
use anyhow::Result;

impl Store {
    /// Every unfinished game's id and version: what an instance compares its games with
    /// after it may have missed announcements.
    pub async fn unfinished_versions(&self) -> Result<Vec<(String, i64)>> {
        Ok(
            sqlx::query_as("SELECT id, version FROM games WHERE status <> 'finished'")
                .fetch_all(&self.pool)
                .await?,
        )
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
}
