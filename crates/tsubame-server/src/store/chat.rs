//! Chat lines, each room kept to its newest lines.

use super::{CHAT_CHANNEL, Store, notify};
use crate::chat::{ChatLine, MAX_LINES_PER_ROOM, Room};
use anyhow::Result;

impl Store {
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
        self.in_transaction(async |tx| {
            let (count,): (i64,) =
                sqlx::query_as("SELECT COUNT(*) FROM chat WHERE game_id = $1 AND room = $2")
                    .bind(game_id)
                    .bind(line.room.name())
                    .fetch_one(&mut *tx)
                    .await?;
            if count >= MAX_LINES_PER_ROOM {
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
                notify(&mut *tx, CHAT_CHANNEL, notice).await?;
            }
            Ok(true)
        })
        .await
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
}
