//! Chat in a game: the players talk in their room, logged-in spectators in theirs, and
//! neither room is shown to the other (spectators must not be able to whisper to a player).
//!
//! Lines are plain text, checked and bounded here; pages show them as text, never as markup.

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
/// included, turned into spaces, Unicode's bidirectional controls left out (they would turn
/// the text around them, and the page's, to read other than it is), and trimmed.
pub fn clean_text(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .filter(|&c| !is_bidi_control(c))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cleaned.trim().to_string()
}

/// A name people choose (a tournament's) as it is stored: as [`clean_text`], with invisible
/// characters left out too (zero-width spaces and joiners, word joiners, byte-order marks,
/// soft hyphens, filler letters) and each run of spaces made one, so that no two names that
/// look the same differ and no name looks empty.
pub fn clean_name(text: &str) -> String {
    clean_text(text)
        .chars()
        .filter(|&c| !is_invisible(c))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Unicode's bidirectional embeddings, overrides, isolates and marks.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that take no room or show nothing.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
    )
}

/// A line as it will be stored: trimmed, control characters (line breaks included) turned into
/// spaces, or why it cannot be said.
pub fn clean_line(text: &str) -> Result<String, LineError> {
    let cleaned = clean_text(text);
    let cleaned = cleaned.as_str();
    if cleaned.is_empty() {
        return Err(LineError::Empty);
    }
    let length = cleaned.chars().count();
    if length > MAX_CHARS {
        return Err(LineError::TooLong { length });
    }
    Ok(cleaned.to_string())
}

/// Why a chat line cannot be said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Nothing but spaces and control characters.
    #[error("a chat line cannot be empty")]
    Empty,
    /// Longer than [`MAX_CHARS`].
    #[error("a chat line has at most {MAX_CHARS} characters (this one has {length})")]
    TooLong {
        /// Its length in characters, cleaned.
        length: usize,
    },
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
        assert_eq!(
            clean_line("gg \u{202E}olleh\u{2066}!\u{2069}").unwrap(),
            "gg olleh!",
            "no bidirectional control turns the line around"
        );
    }

    #[test]
    fn names_keep_nothing_invisible() {
        assert_eq!(
            clean_name(" Evening\u{200B}  Arena\u{202E} "),
            "Evening Arena"
        );
        assert_eq!(clean_name("\u{200B}\u{FEFF}\u{2060}\u{3164}"), "");
        assert_eq!(clean_name("A\u{00AD}rena\u{200D}"), "Arena");
        assert_eq!(clean_name("鳥将棋 アリーナ"), "鳥将棋 アリーナ");
    }
}
