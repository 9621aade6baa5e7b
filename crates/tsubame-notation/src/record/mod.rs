//! Game records: one model for every game, read and written in four formats.
//!
//! A [`Record`] holds what a record says about a game (the game and its rule options, the
//! handicap, the players, date, time control, result and why it ended, the start position)
//! and its moves with their comments. Every reader replays the moves through the rules
//! library, so a record that reads is a legal game; an illegal move is an error naming the
//! line, the move number and the move.
//!
//! # The canonical format
//!
//! Tag pairs, one per line, then the moves numbered as in chess, then the result:
//!
//! ```text
//! [Variant "tori"]
//! [Options "drop-mate=loses,repetition=3,owl=off,shrike=off"]
//! [Handicap "none"]
//! [Sente "Hodges"]
//! [Gote "Hare"]
//! [Date "1976.05.01"]
//! [TimeControl "600+30b"]
//! [Result "1-0"]
//! [Reason "resignation"]
//! [SFEN "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1"]
//!
//! {The opening from the Hodges notation examples.}
//! 1. Swx3c Swx5e
//! 2. Fax5e {the falcon takes back} Fax3c
//! 3. Cr-5f Q-1b
//! 1-0
//! ```
//!
//! - `Variant` is the game's short name (`tori`, `wa`, `tenjiku`); it is the only tag that
//!   must be given.
//! - `Options` lists the rule options other than the handicap as `name=value` pairs separated
//!   by commas; options not named keep their defaults. `Handicap` is the value of the game's
//!   `handicap` option (`none`, `falcon`, ...).
//! - `Result` is `1-0` when sente won, `0-1` when gote won, `1/2-1/2` for a game without a
//!   winner and `*` for an unfinished one; `Reason` is one of the rules' end reasons
//!   (`checkmate`, `stalemate`, `repetition`, `perpetual-check`, `drop-mate`, `resignation`,
//!   `time`, `move-limit`). When the moves themselves end the game, the result and reason must
//!   agree with the rules.
//! - `SFEN` is the start position; without it the game starts from the game's start position
//!   for its options.
//! - Other tags (`Event`, `Site`, ...) are kept as they are.
//!
//! Moves are written in USI (`3d3c`, `S*4d`) or Hodges notation (`Swx3c`, `Sw*4d`); Tenjiku
//! moves in its USI forms (`9l9k`, `6f5e6d` for a capture on the way, `6f6f` for a pass) or its
//! Hodges notation ([`crate::tenjiku`]: `Lnx8g-9f`, `FD-8g!7f`), replayed through the Tenjiku
//! rules (`royal-captured` is then a reason too). One move number and up to two moves per
//! line; `N. ...` stands for sente's move when gote moves first (handicap games). `{...}` after a move is its comment; a comment before the first
//! move belongs to the game. The writer keeps the notation the record was read in.
//!
//! # Other formats
//!
//! - [`read_hodges_text`] / [`write_hodges_text`]: numbered Hodges moves alone, as books print
//!   them (`1. Swx3c   Swx5e`).
//! - [`read_kif`] / [`write_kif`]: the Japanese KIF format for Tori shogi (`３三燕(34)`),
//!   UTF-8 or Shift-JIS.
//! - [`read_pgn`] / [`write_pgn`]: the PGN the Tori play site exports, with its `FEN` tag and
//!   Fairy-Stockfish SAN moves (`Fxe3`, `S@c4`, `Sa2=G+`).
//!
//! ```
//! use tsubame_notation::record::{Record, GameResult};
//!
//! let text = "[Variant \"tori\"]\n\n1. Swx3c Swx5e\n2. Fax5e Fax3c\n3. Cr-5f Q-1b\n*\n";
//! let record = Record::parse(text).unwrap();
//! assert_eq!(record.moves.len(), 6);
//! assert_eq!(record.moves[0].usi, "3d3c");
//! assert_eq!(record.result, GameResult::Unfinished);
//! let replay = record.replay().unwrap();
//! assert_eq!(replay.steps[5].hodges, "LQ-1b");
//! assert_eq!(replay.final_sfen, "rpckcp1/6l/ssssfss/7/SSFSSSS/2C4/LP1KCPR b 2S2s 7");
//!
//! // A move that the rules do not allow names its line.
//! let bad = "[Variant \"tori\"]\n\n1. Swx3c Swx5e\n2. Fa-4c Fax3c\n";
//! let error = Record::parse(bad).unwrap_err();
//! assert_eq!(error.line(), 4);
//! ```

mod canonical;
mod error;
mod hodges_text;
mod kif;
mod pgn;
mod replay;
mod san;

pub use canonical::read_records_at_most;

/// Where each game of a file of several starts (0-based line indices): at the first line that
/// counts, and at each tag line (`[`) after a game's moves. `skipped` tells the lines that do
/// not count (trimmed: blank lines, escapes). Past `limit` games the file is refused at the
/// first line of the next; a file without a game is refused too.
pub(crate) fn game_starts(
    lines: &[&str],
    limit: usize,
    skipped: impl Fn(&str) -> bool,
) -> Result<Vec<usize>, RecordError> {
    let mut starts = Vec::new();
    let mut in_moves = false;
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if skipped(trimmed) {
            continue;
        }
        let is_tag = trimmed.starts_with('[');
        if starts.is_empty() || (is_tag && in_moves) {
            if starts.len() == limit {
                return Err(RecordError::at(
                    index + 1,
                    0,
                    RecordErrorKind::TooManyGames(limit),
                ));
            }
            starts.push(index);
            in_moves = false;
        }
        if !is_tag {
            in_moves = true;
        }
    }
    if starts.is_empty() {
        return Err(RecordError::at(
            1,
            0,
            RecordErrorKind::Unexpected("no game in the file".into()),
        ));
    }
    Ok(starts)
}
pub use error::{Location, MoveTextError, RecordError, RecordErrorKind, SanError};
pub use hodges_text::{read_hodges_text, write_hodges_text};
pub use kif::{read_kif, read_kif_with, write_kif, write_kif_move};
pub use pgn::{
    play_site_options, read_pgn, read_pgn_games, read_pgn_games_at_most, read_pgn_with, write_pgn,
};
pub use replay::{Replay, Step};
pub use san::write_san;

use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{Bitboard, Color, EndReason, Options, Outcome, PositionVisitor, VariantSpec};

/// How a game ended, as a record's `Result` tag says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GameResult {
    /// Sente won (`1-0`).
    SenteWins,
    /// Gote won (`0-1`).
    GoteWins,
    /// The game ended without a winner (`1/2-1/2`).
    NoWinner,
    /// The game is unfinished or its result unknown (`*`).
    #[default]
    Unfinished,
}

impl GameResult {
    /// The result as written in the canonical format and PGN.
    pub fn token(self) -> &'static str {
        match self {
            GameResult::SenteWins => "1-0",
            GameResult::GoteWins => "0-1",
            GameResult::NoWinner => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// Reads a result token.
    pub fn from_token(text: &str) -> Option<GameResult> {
        Some(match text {
            "1-0" => GameResult::SenteWins,
            "0-1" => GameResult::GoteWins,
            "1/2-1/2" => GameResult::NoWinner,
            "*" => GameResult::Unfinished,
            _ => return None,
        })
    }

    /// The result of a finished game.
    pub fn from_outcome(outcome: Outcome) -> GameResult {
        match outcome.winner {
            Some(Color::Sente) => GameResult::SenteWins,
            Some(Color::Gote) => GameResult::GoteWins,
            None => GameResult::NoWinner,
        }
    }
}

/// Reads one of the rules' end reasons by its name (`checkmate`, `resignation`, ...).
pub fn end_reason_from_name(name: &str) -> Option<EndReason> {
    [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::Repetition,
        EndReason::PerpetualCheck,
        EndReason::DropMate,
        EndReason::Resignation,
        EndReason::Time,
        EndReason::MoveLimit,
        EndReason::RoyalCaptured,
    ]
    .into_iter()
    .find(|r| r.name() == name)
}

/// How a record writes its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MoveNotation {
    /// USI move text: `3d3c`, `S*4d`, `3b3a+`.
    Usi,
    /// Hodges notation: `Swx3c`, `Sw*4d`, `Swx3a+`.
    #[default]
    Hodges,
}

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// The move in USI text, whatever notation the record used.
    pub usi: String,
    /// The comment written after the move.
    pub comment: Option<String>,
    /// How long its player thought over it, in milliseconds, where the record says (KIF's
    /// 消費時間 column).
    pub think_ms: Option<u64>,
}

/// A game record: what is known about a game, and its moves.
///
/// See the [module documentation](self) for the canonical text form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The rule options, handicap included.
    pub options: Options,
    /// The start position as SFEN, when it is not the start position of the options.
    pub start_sfen: Option<String>,
    /// Sente's player.
    pub sente: Option<String>,
    /// Gote's player.
    pub gote: Option<String>,
    /// The date, as written (`2024.05.01`).
    pub date: Option<String>,
    /// The time control, as written (`600+30b`).
    pub time_control: Option<String>,
    /// The result.
    pub result: GameResult,
    /// Why the game ended.
    pub reason: Option<EndReason>,
    /// Other tags, in the order read.
    pub extra_tags: Vec<(String, String)>,
    /// The comment before the first move.
    pub comment: Option<String>,
    /// The moves.
    pub moves: Vec<RecordMove>,
    /// The notation the moves are written in.
    pub notation: MoveNotation,
}

impl Record {
    /// An empty record of a game at these options, from its start position.
    pub fn new(options: Options) -> Record {
        Record {
            options,
            start_sfen: None,
            sente: None,
            gote: None,
            date: None,
            time_control: None,
            result: GameResult::Unfinished,
            reason: None,
            extra_tags: Vec::new(),
            comment: None,
            moves: Vec::new(),
            notation: MoveNotation::Hodges,
        }
    }

    /// The game.
    pub fn variant(&self) -> &'static VariantSpec {
        self.options.variant()
    }

    /// Reads a record in the canonical format and replays it; see the
    /// [module documentation](self).
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        canonical::read(text)
    }

    /// Reads a record in the canonical format like [`Record::parse`], replaying it under
    /// `rules` (when given) instead of its `Options` tag; its handicap stays the record's.
    pub fn parse_with(text: &str, rules: Option<&Options>) -> Result<Record, RecordError> {
        canonical::read_with(text, rules)
    }

    /// The value of another tag ([`Record::extra_tags`]) by its name.
    pub fn extra_tag(&self, name: &str) -> Option<&str> {
        self.extra_tags
            .iter()
            .find(|(tag, _)| tag == name)
            .map(|(_, value)| value.as_str())
    }

    /// Writes the record in the canonical format, its moves in [`Record::notation`].
    pub fn to_canonical(&self) -> Result<String, RecordError> {
        canonical::write(self)
    }

    /// Replays the moves through the rules: each move's Hodges text and position, and how the
    /// game ended under the rules.
    pub fn replay(&self) -> Result<Replay, RecordError> {
        replay::replay(self)
    }

    /// Sets the result and reason from a finished game's outcome.
    pub fn set_outcome(&mut self, outcome: Option<Outcome>) {
        match outcome {
            Some(outcome) => {
                self.result = GameResult::from_outcome(outcome);
                self.reason = Some(outcome.reason);
            }
            None => {
                self.result = GameResult::Unfinished;
                self.reason = None;
            }
        }
    }
}

struct ReadMove<'a> {
    text: &'a str,
}

impl<'a> PositionVisitor<'a> for ReadMove<'_> {
    type Output = Result<String, MoveTextError>;

    fn board<B: Bitboard>(self, position: &'a tsubame_rules::Position<B>) -> Self::Output {
        let text = self.text.trim();
        match position.parse_usi(text) {
            Ok(mv) => Ok(position.to_usi(mv)),
            Err(error @ tsubame_rules::MoveError::Illegal { .. }) => Err(error.into()),
            Err(tsubame_rules::MoveError::Syntax { .. }) => {
                Ok(position.to_usi(crate::parse_hodges(position, text)?))
            }
        }
    }

    fn tenjiku(self, position: &'a TenjikuPosition) -> Self::Output {
        replay::read_tenjiku_move(position, self.text.trim()).map(|(mv, _)| position.to_usi(mv))
    }
}

/// Reads one move typed in USI or Hodges notation in the position `sfen` of a game at
/// `options`, and gives it back as USI text; the error says why the text is no legal move.
///
/// ```
/// use tsubame_notation::record::move_to_usi;
/// use tsubame_rules::{tori, Options};
///
/// let options = Options::defaults(tori::spec());
/// let start = tori::spec().start_sfen;
/// assert_eq!(move_to_usi(&options, start, "Swx3c").unwrap(), "3d3c");
/// assert_eq!(move_to_usi(&options, start, "3d3c").unwrap(), "3d3c");
/// assert!(move_to_usi(&options, start, "Fa-1a").is_err());
/// ```
pub fn move_to_usi(options: &Options, sfen: &str, text: &str) -> Result<String, MoveTextError> {
    replay::start_of(options, Some(sfen))?.visit(ReadMove { text })
}

/// A line of USI moves from the position `sfen` in Hodges notation, as far as the moves are
/// legal one after the other.
///
/// ```
/// use tsubame_notation::record::hodges_line;
/// use tsubame_rules::{tori, Options};
///
/// let options = Options::defaults(tori::spec());
/// let line = hodges_line(&options, tori::spec().start_sfen, &["3d3c".to_string(), "5d5e".to_string()]);
/// assert_eq!(line, ["Swx3c", "Swx5e"]);
/// ```
pub fn hodges_line(options: &Options, sfen: &str, moves: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut record = Record::new(options.clone());
    record.start_sfen = Some(sfen.to_string());
    for usi in moves {
        record.moves.push(RecordMove {
            usi: usi.clone(),
            comment: None,
            think_ms: None,
        });
        match record.replay() {
            Ok(replay) => {
                if let Some(step) = replay.steps.last() {
                    out.push(step.hodges.clone());
                }
            }
            Err(_) => break,
        }
    }
    out
}

/// The options a record is replayed under: `rules` when a reader is given them (keeping the
/// handicap the file sets), else the file's own.
pub(crate) fn with_rules(
    from_file: Options,
    rules: Option<&Options>,
    line: usize,
) -> Result<Options, RecordError> {
    let Some(rules) = rules else {
        return Ok(from_file);
    };
    if rules.variant().name != from_file.variant().name {
        return Err(RecordError::at(
            line,
            0,
            RecordErrorKind::BadOption(format!(
                "the rule options given are {}'s, the record is {}",
                rules.variant().title,
                from_file.variant().title
            )),
        ));
    }
    let mut options = rules.clone();
    if let Some(handicap) = from_file.get("handicap") {
        options
            .set("handicap", &handicap)
            .map_err(|e| RecordError::at(line, 0, RecordErrorKind::BadOption(e.to_string())))?;
    }
    Ok(options)
}
