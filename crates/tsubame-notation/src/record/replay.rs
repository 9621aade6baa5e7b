//! Moves as written, checked against the rules one by one.

use super::{MoveNotation, MoveTextError, Record, RecordError, RecordErrorKind, san};
use crate::Notator;
use tsubame_rules::tenjiku::{TenjikuGame, TenjikuPosition};
use tsubame_rules::{
    AnyPosition, Bitboard, Color, Game, Move, MoveError, Options, Outcome, Position,
    PositionVisitor, SetupError,
};

/// One move of a replayed record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The move in USI text.
    pub usi: String,
    /// The move in Hodges notation.
    pub hodges: String,
    /// Whether the move gives check.
    pub gives_check: bool,
}

/// A record's game as the rules see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The start position as SFEN.
    pub start_sfen: String,
    /// Every move.
    pub steps: Vec<Step>,
    /// The position after the last move, as SFEN.
    pub final_sfen: String,
    /// How the moves end the game under the rules (resignation and time are not seen here).
    pub outcome: Option<Outcome>,
}

/// A move as found in a record's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WrittenMove {
    pub text: String,
    pub line: usize,
    pub column: usize,
    pub comment: Option<String>,
}

/// Which notation a format's moves are read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reader {
    /// USI or Hodges, move by move.
    UsiOrHodges,
    /// Fairy-Stockfish SAN.
    San,
}

/// The moves of a record, read.
pub(crate) struct Resolved {
    pub usi: Vec<String>,
    pub notation: MoveNotation,
    pub replay: Replay,
}

/// Move number and side of the `index`th move (from 0), as in `12.` or `12...`.
pub(crate) fn number_label(index: usize, sente_first: bool) -> String {
    let offset = usize::from(!sente_first);
    let number = (index + offset) / 2 + 1;
    if (index + offset).is_multiple_of(2) {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

/// The start position of a game at `options`: the SFEN given, or the options' start position.
pub(crate) fn start_of(
    options: &Options,
    start_sfen: Option<&str>,
) -> Result<AnyPosition, SetupError> {
    match start_sfen {
        Some(sfen) => AnyPosition::from_sfen(options, sfen),
        None => AnyPosition::start(options),
    }
}

fn read_move<B: Bitboard>(
    position: &Position<B>,
    text: &str,
    reader: Reader,
) -> Result<(Move, bool), MoveTextError> {
    match reader {
        Reader::San => Ok((san::parse_san(position, text)?, false)),
        Reader::UsiOrHodges => match position.parse_usi(text) {
            Ok(mv) => Ok((mv, true)),
            Err(error @ MoveError::Illegal { .. }) => Err(error.into()),
            Err(MoveError::Syntax { .. }) => Ok((crate::parse_hodges(position, text)?, false)),
        },
    }
}

struct Resolve<'a> {
    options: &'a Options,
    moves: &'a [WrittenMove],
    reader: Reader,
}

impl<'a> PositionVisitor<'a> for Resolve<'_> {
    type Output = Result<Resolved, RecordError>;

    fn tenjiku(self, start: &'a TenjikuPosition) -> Self::Output {
        resolve_tenjiku(self, start.clone())
    }

    fn board<B: Bitboard>(self, start: &'a Position<B>) -> Self::Output {
        let start = start.clone();
        let sente_first = start.side_to_move() == tsubame_rules::Color::Sente;
        let mut game = Game::from_position(start.clone(), self.options.clone());
        let mut usi = Vec::with_capacity(self.moves.len());
        let mut steps = Vec::with_capacity(self.moves.len());
        let mut all_usi = true;
        for (index, written) in self.moves.iter().enumerate() {
            let here = |kind| RecordError::at(written.line, written.column, kind);
            if let Some(outcome) = game.outcome() {
                return Err(here(RecordErrorKind::AfterEnd {
                    written: written.text.clone(),
                    ended_by: ended_by(self.moves, index, sente_first),
                    outcome: outcome.to_string(),
                }));
            }
            let position = game.position().clone();
            let (mv, was_usi) =
                read_move(&position, &written.text, self.reader).map_err(|reason| {
                    here(RecordErrorKind::IllegalMove {
                        number: number_label(index, sente_first),
                        written: written.text.clone(),
                        reason: Box::new(reason),
                    })
                })?;
            all_usi &= was_usi;
            let hodges = Notator::new(&position).hodges(mv);
            game.play(mv).map_err(|e| {
                here(RecordErrorKind::IllegalMove {
                    number: number_label(index, sente_first),
                    written: written.text.clone(),
                    reason: Box::new(e.into()),
                })
            })?;
            let text = position.to_usi(mv);
            usi.push(text.clone());
            steps.push(Step {
                usi: text,
                hodges,
                gives_check: game.position().in_check(),
            });
        }
        Ok(Resolved {
            usi,
            notation: if all_usi && !self.moves.is_empty() {
                MoveNotation::Usi
            } else {
                MoveNotation::Hodges
            },
            replay: Replay {
                start_sfen: start.to_sfen(),
                steps,
                final_sfen: game.position().to_sfen(),
                outcome: game.outcome(),
            },
        })
    }
}

/// Reads and replays moves; `start_line` is named when the start position is bad.
pub(crate) fn resolve(
    options: &Options,
    start_sfen: Option<&str>,
    moves: &[WrittenMove],
    reader: Reader,
    start_line: usize,
) -> Result<Resolved, RecordError> {
    let work = Resolve {
        options,
        moves,
        reader,
    };
    let start = start_of(options, start_sfen)
        .map_err(|e| RecordError::at(start_line, 0, RecordErrorKind::BadPosition(e.to_string())))?;
    start.visit(work)
}

/// Reads a Tenjiku move written in USI (`9l9k`, `6f5e6d`) or Hodges notation (`Lnx8g-9f`);
/// whether it was USI.
pub(crate) fn read_tenjiku_move(
    position: &TenjikuPosition,
    text: &str,
) -> Result<(Move, bool), MoveTextError> {
    match position.parse_usi(text) {
        Ok(mv) => Ok((mv, true)),
        Err(usi_error) => match crate::tenjiku::parse_tenjiku(position, text) {
            Ok(mv) => Ok((mv, false)),
            // Tenjiku USI always starts with a file number, Hodges with a piece.
            Err(_) if text.starts_with(|c: char| c.is_ascii_digit()) => Err(usi_error.into()),
            Err(hodges_error) => Err(hodges_error.into()),
        },
    }
}

/// Whether the side that just moved could take the opponent's last royal if it moved again:
/// Tenjiku's nearest thing to check.
pub(crate) fn tenjiku_threatens_royal(position: &TenjikuPosition) -> bool {
    let victim: Color = position.side_to_move();
    if position.royal_count(victim) == 0 || position.royal_count(!victim) == 0 {
        return false;
    }
    let mut attacker = position.clone();
    attacker.make_null_move();
    let mut captures = Vec::new();
    attacker.generate_captures(&mut captures);
    captures.into_iter().any(|mv| {
        let undo = attacker.make_move(mv);
        let taken = attacker.royal_count(victim) == 0;
        attacker.unmake_move(mv, undo);
        taken
    })
}

/// The move before the `index`th, numbered as written (`37... Sx4c`): the one that ended the
/// game when the `index`th comes after the end; the start position when there is none.
fn ended_by(moves: &[WrittenMove], index: usize, sente_first: bool) -> String {
    match index
        .checked_sub(1)
        .and_then(|last| moves.get(last).map(|m| (last, m)))
    {
        Some((last, written)) => format!("{} {}", number_label(last, sente_first), written.text),
        None => "the start position".to_string(),
    }
}

fn resolve_tenjiku(work: Resolve<'_>, start: TenjikuPosition) -> Result<Resolved, RecordError> {
    if work.reader == Reader::San {
        return Err(RecordError::at(
            0,
            0,
            RecordErrorKind::Unsupported("SAN moves are read for Tori shogi only".into()),
        ));
    }
    let sente_first = start.side_to_move() == Color::Sente;
    let mut game = TenjikuGame::from_position(start.clone(), work.options.clone());
    let mut usi = Vec::with_capacity(work.moves.len());
    let mut steps = Vec::with_capacity(work.moves.len());
    let mut all_usi = true;
    for (index, written) in work.moves.iter().enumerate() {
        let here = |kind| RecordError::at(written.line, written.column, kind);
        let illegal = |reason: MoveTextError| {
            here(RecordErrorKind::IllegalMove {
                number: number_label(index, sente_first),
                written: written.text.clone(),
                reason: Box::new(reason),
            })
        };
        if let Some(outcome) = game.outcome() {
            return Err(here(RecordErrorKind::AfterEnd {
                written: written.text.clone(),
                ended_by: ended_by(work.moves, index, sente_first),
                outcome: outcome.to_string(),
            }));
        }
        let position = game.position().clone();
        let (mv, was_usi) = read_tenjiku_move(&position, written.text.trim()).map_err(illegal)?;
        all_usi &= was_usi;
        let hodges = crate::tenjiku::write_tenjiku(&position, mv);
        game.play(mv).map_err(|e| illegal(e.into()))?;
        let text = position.to_usi(mv);
        usi.push(text.clone());
        steps.push(Step {
            usi: text,
            hodges,
            gives_check: tenjiku_threatens_royal(game.position()),
        });
    }
    Ok(Resolved {
        usi,
        notation: if all_usi && !work.moves.is_empty() {
            MoveNotation::Usi
        } else {
            MoveNotation::Hodges
        },
        replay: Replay {
            start_sfen: start.to_sfen(),
            steps,
            final_sfen: game.position().to_sfen(),
            outcome: game.outcome(),
        },
    })
}

/// The start position of the record's options, as SFEN.
pub(crate) fn default_start(record: &Record) -> Result<String, RecordError> {
    Ok(Record::new(record.options.clone()).replay()?.start_sfen)
}

pub(crate) fn replay(record: &Record) -> Result<Replay, RecordError> {
    let moves: Vec<WrittenMove> = record
        .moves
        .iter()
        .map(|m| WrittenMove {
            text: m.usi.clone(),
            line: 0,
            column: 0,
            comment: None,
        })
        .collect();
    resolve(
        &record.options,
        record.start_sfen.as_deref(),
        &moves,
        Reader::UsiOrHodges,
        0,
    )
    .map(|r| r.replay)
}
