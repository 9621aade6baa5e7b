//! What the server sends on a game's socket, one type for every message: the socket's own
//! answers and the game room's announcements alike, as the API document describes them.

use super::GameView;
use crate::chat::{ChatLine, Room};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// A message the server sends on a game's socket (`/api/games/{id}/ws`). `id` repeats the id
/// of the client's message it answers (null when that had none).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SocketMessage {
    /// The greeting, and the answer to `auth`: the seat this socket acts for.
    Hello {
        /// The `auth` message's id.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        /// `sente`, `gote`, or none.
        #[schema(value_type = Option<crate::hub::Side>)]
        seat: Option<&'static str>,
    },
    /// The whole game, with its moves.
    State {
        /// The game.
        game: Box<GameView>,
    },
    /// A move played: the game without its moves, the new one in `last` (the game's room
    /// announces it to every watcher).
    Move {
        /// The game.
        game: Box<GameView>,
    },
    /// The game ended: the whole game with its moves and result, the last move in `last`.
    End {
        /// The game.
        game: Box<GameView>,
    },
    /// The chat room this socket sees and its newest lines.
    ChatHistory {
        /// The room.
        room: Room,
        /// Its lines, oldest first.
        lines: Vec<ChatLine>,
    },
    /// A new chat line in this socket's room.
    Chat {
        /// The line.
        line: ChatLine,
    },
    /// A move, resignation, offer or chat line stored.
    Ack {
        /// The message's id.
        id: Value,
        /// After a game action: the game's ply.
        #[serde(skip_serializing_if = "Option::is_none")]
        ply: Option<usize>,
        /// After a chat line: its id.
        #[serde(skip_serializing_if = "Option::is_none")]
        chat: Option<String>,
    },
    /// A refused message.
    Error {
        /// The message's id; absent for a message that could not be read.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        /// The HTTP status the same request would get.
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        /// What was wrong, in English.
        error: String,
        /// What kind of refusal it is, as in an HTTP error's body.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<&'static str>,
        /// The values the refusal's sentence names.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<std::collections::HashMap<String, String>>)]
        params: Option<serde_json::Map<String, serde_json::Value>>,
    },
    /// The answer to `ping`, with the server's clock.
    Pong {
        /// The ping's id.
        id: Value,
        /// Server time, unix milliseconds.
        server_time_ms: u64,
    },
}

impl SocketMessage {
    /// The message as the socket's text.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
