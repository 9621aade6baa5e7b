//! Chat in a game: the players talk in their room, logged-in spectators in theirs, and
//! neither room is shown to the other (spectators must not be able to whisper to a player).
//!
//! Lines are plain text, checked and bounded here; pages show them as text, never as markup.

use crate::error::ApiError;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The longest line, in characters.
pub const MAX_CHARS: usize = 300;

/// The most lines one room of one game keeps: a flood cannot grow the database without bound.
pub const MAX_LINES_PER_ROOM: i64 = 1000;

/// The lines a client gets when it connects (the newest).
pub const HISTORY_LINES: i64 = 200;

/// Where a line is said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Room {
    /// The two players.
    Players,
    /// Everybody else (logged in).
    Spectators,
}

impl Room {
    /// The name stored and sent.
    pub fn name(self) -> &'static str {
        match self {
            Room::Players => "players",
            Room::Spectators => "spectators",
        }
    }

    /// The room of a stored name.
    pub fn from_name(name: &str) -> Room {
        if name == "players" {
            Room::Players
        } else {
            Room::Spectators
        }
    }
}

/// One line of chat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChatLine {
    /// Unique id.
    pub id: String,
    /// Which room.
    pub room: Room,
    /// The name shown: a user name, a guest's name.
    pub author: String,
    /// What was said.
    pub text: String,
    /// Unix milliseconds.
    pub at: u64,
}

/// Text people write (a chat line, a report) as it is stored: control characters, line breaks
/// included, turned into spaces, and trimmed.
pub fn clean_text(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cleaned.trim().to_string()
}

/// A line as it will be stored: trimmed, control characters (line breaks included) turned into
/// spaces, or why it cannot be said.
pub fn clean_line(text: &str) -> Result<String, ApiError> {
    let cleaned = clean_text(text);
    let cleaned = cleaned.as_str();
    if cleaned.is_empty() {
        return Err(ApiError::bad_request("a chat line cannot be empty"));
    }
    let length = cleaned.chars().count();
    if length > MAX_CHARS {
        return Err(ApiError::bad_request(format!(
            "a chat line has at most {MAX_CHARS} characters (this one has {length})"
        )));
    }
    Ok(cleaned.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole body a client may send (64 KiB) is checked in time proportional to it:
    /// doubling the text at most about doubles the time (fit over four sizes).
    #[test]
    fn lines_are_checked_in_linear_time() {
        let mut points = Vec::new();
        for step in 0..4 {
            let text = "\u{7}駒 ".repeat(2_000 << step);
            let time = (0..3)
                .map(|_| {
                    let started = std::time::Instant::now();
                    let _ = clean_line(&text);
                    started.elapsed()
                })
                .min()
                .unwrap_or_default();
            points.push(((text.len() as f64).ln(), time.as_secs_f64().max(1e-7).ln()));
        }
        let mean_x = points.iter().map(|p| p.0).sum::<f64>() / 4.0;
        let mean_y = points.iter().map(|p| p.1).sum::<f64>() / 4.0;
        let exponent = points
            .iter()
            .map(|p| (p.0 - mean_x) * (p.1 - mean_y))
            .sum::<f64>()
            / points.iter().map(|p| (p.0 - mean_x).powi(2)).sum::<f64>();
        assert!(exponent < 1.4, "time grows as size^{exponent:.2}");
    }

    #[test]
    fn lines_are_trimmed_bounded_and_on_one_line() {
        assert_eq!(clean_line("  good game \n").unwrap(), "good game");
        assert_eq!(clean_line("a\nb\u{7}c").unwrap(), "a b c");
        assert_eq!(
            clean_line("<b>hi</b>").unwrap(),
            "<b>hi</b>",
            "kept as text"
        );
        assert!(clean_line(" \t\n").is_err());
        assert!(clean_line(&"x".repeat(MAX_CHARS + 1)).is_err());
        assert!(clean_line(&"駒".repeat(MAX_CHARS)).is_ok());
    }
}
