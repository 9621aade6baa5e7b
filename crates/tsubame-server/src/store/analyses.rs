//! Finished games' analyses, made once and kept.

use super::Store;
use anyhow::Result;

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

impl Store {
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
}
