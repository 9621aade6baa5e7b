//! A Tenjiku game: history, the repetition ban, and how the game ends.

use super::position::{TenjikuPosition, TenjikuUndo};
use super::text::TenjikuSetupError;
use super::{TenjikuRules, spec};
use crate::color::Color;
use crate::game::{EndReason, Outcome, Status};
use crate::moves::Move;
use crate::usi::MoveError;
use crate::variant::Options;
use thiserror::Error;

/// Whether a Tenjiku game goes on; the same as every game's [`Status`].
pub type TenjikuStatus = Status;

/// Why a Tenjiku game could not be set up or a move not played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TenjikuGameError {
    /// The game is already over.
    #[error("the game is over: {0}")]
    Finished(Outcome),
    /// The move is not a move of the position.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The move would recreate an earlier position.
    #[error(
        "{mv} recreates the position after move {ply} with the same side to move; repeating is illegal"
    )]
    Repetition {
        /// The move as text.
        mv: String,
        /// Which earlier position it recreates (0: the start).
        ply: usize,
    },
    /// The start position is not valid.
    #[error(transparent)]
    Setup(#[from] TenjikuSetupError),
}

/// A Tenjiku game in progress or finished.
///
/// ```
/// use tsubame_rules::tenjiku::{self, TenjikuGame};
/// use tsubame_rules::{Options, Status};
/// let mut game = TenjikuGame::new(Options::defaults(tenjiku::spec()));
/// game.play_usi("9l9k").unwrap();
/// game.play_usi("8e8f").unwrap();
/// assert_eq!(game.status(), Status::Ongoing);
/// // Sente's lion passes; gote's lion passing too would bring back the position after 8e8f.
/// game.play_usi("9o9o").unwrap();
/// assert!(game.play_usi("8b8b").is_err());
/// assert_eq!(game.moves().len(), 3);
/// ```
#[derive(Clone, Debug)]
pub struct TenjikuGame {
    options: Options,
    start: TenjikuPosition,
    position: TenjikuPosition,
    moves: Vec<Move>,
    undos: Vec<TenjikuUndo>,
    keys: Vec<u64>,
    outcome: Option<Outcome>,
    decided: Option<Outcome>,
}

impl TenjikuGame {
    /// A game from the start position.
    pub fn new(options: Options) -> TenjikuGame {
        let start = TenjikuPosition::start(&options);
        TenjikuGame::from_position(start, options)
    }

    /// A game from a position given as SFEN.
    pub fn from_sfen(text: &str, options: Options) -> Result<TenjikuGame, TenjikuGameError> {
        let start = TenjikuPosition::from_sfen(text, TenjikuRules::from_options(&options))?;
        Ok(TenjikuGame::from_position(start, options))
    }

    /// A game from a position.
    pub fn from_position(start: TenjikuPosition, options: Options) -> TenjikuGame {
        let mut game = TenjikuGame {
            options,
            keys: vec![start.key()],
            position: start.clone(),
            start,
            moves: Vec::new(),
            undos: Vec::new(),
            outcome: None,
            decided: None,
        };
        game.decided = game.decide();
        game
    }

    /// The options the game is played under.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The start position.
    pub fn start(&self) -> &TenjikuPosition {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &TenjikuPosition {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The pieces each move removed, in the order of [`TenjikuGame::moves`].
    pub fn removals(&self) -> impl Iterator<Item = Vec<super::Removal>> + '_ {
        self.undos.iter().map(|undo| undo.removals().collect())
    }

    /// Whether the game goes on.
    pub fn status(&self) -> Status {
        match self.outcome() {
            Some(outcome) => Status::Finished(outcome),
            None => Status::Ongoing,
        }
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome.or(self.decided)
    }

    /// The moves the side to move may play: the position's moves minus those that recreate an
    /// earlier position.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        self.unrepeated_moves()
    }

    fn unrepeated_moves(&self) -> Vec<Move> {
        let mut position = self.position.clone();
        let mut moves = position.legal_moves();
        moves.retain(|&mv| {
            let undo = position.make_move(mv);
            let fresh = !self.keys.contains(&position.key());
            position.unmake_move(mv, undo);
            fresh
        });
        moves
    }

    /// Plays a move.
    pub fn play(&mut self, mv: Move) -> Result<Status, TenjikuGameError> {
        if let Some(outcome) = self.outcome() {
            return Err(TenjikuGameError::Finished(outcome));
        }
        if !self.position.is_legal(mv) {
            return Err(TenjikuGameError::Move(MoveError::Illegal {
                text: self.position.to_usi(mv),
                reason: "it is not a move of this position".to_string(),
            }));
        }
        let mut after = self.position.clone();
        after.make_move(mv);
        if let Some(ply) = self.keys.iter().position(|&k| k == after.key()) {
            return Err(TenjikuGameError::Repetition {
                mv: self.position.to_usi(mv),
                ply,
            });
        }
        let undo = self.position.make_move(mv);
        self.moves.push(mv);
        self.undos.push(undo);
        self.keys.push(self.position.key());
        self.decided = self.decide();
        Ok(self.status())
    }

    /// Plays a move written as USI-style text.
    pub fn play_usi(&mut self, text: &str) -> Result<Move, TenjikuGameError> {
        if let Some(outcome) = self.outcome() {
            return Err(TenjikuGameError::Finished(outcome));
        }
        let mv = self.position.parse_usi(text.trim())?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Takes back the last move (and any resignation or flag).
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        if let Some(undo) = self.undos.pop() {
            self.position.unmake_move(mv, undo);
        }
        self.keys.pop();
        self.outcome = None;
        self.decided = self.decide();
        Some(mv)
    }

    /// `color` resigns.
    pub fn resign(&mut self, color: Color) {
        if self.outcome().is_none() {
            self.outcome = Some(Outcome {
                winner: Some(!color),
                reason: EndReason::Resignation,
            });
        }
    }

    /// `color` ran out of time.
    pub fn lose_on_time(&mut self, color: Color) {
        if self.outcome().is_none() {
            self.outcome = Some(Outcome {
                winner: Some(!color),
                reason: EndReason::Time,
            });
        }
    }

    /// Whether every move of the side to move leaves the opponent a move that removes its last
    /// royal (or it has no move at all).
    pub fn is_mated(&self) -> bool {
        let us = self.position.side_to_move();
        let mut position = self.position.clone();
        for mv in self.unrepeated_moves() {
            let undo = position.make_move(mv);
            let mut safe = position.royal_count(us) > 0;
            if safe && position.royal_count(!us) > 0 {
                let replies = position.legal_moves();
                for reply in replies {
                    let reply_undo = position.make_move(reply);
                    let lost = position.royal_count(us) == 0;
                    position.unmake_move(reply, reply_undo);
                    if lost {
                        safe = false;
                        break;
                    }
                }
            }
            position.unmake_move(mv, undo);
            if safe {
                return false;
            }
        }
        true
    }

    fn decide(&self) -> Option<Outcome> {
        let position = &self.position;
        for color in Color::ALL {
            if position.royal_count(color) == 0 {
                return Some(Outcome {
                    winner: Some(!color),
                    reason: EndReason::RoyalCaptured,
                });
            }
        }
        let rules = TenjikuRules::from_options(&self.options);
        if rules.max_plies != 0 && self.moves.len() as u64 >= u64::from(rules.max_plies) {
            return Some(Outcome {
                winner: None,
                reason: EndReason::MoveLimit,
            });
        }
        let mover = position.side_to_move();
        if self.unrepeated_moves().is_empty() {
            return Some(Outcome {
                winner: Some(!mover),
                reason: EndReason::Stalemate,
            });
        }
        if rules.mate_ends_game && self.is_mated() {
            return Some(Outcome {
                winner: Some(!mover),
                reason: EndReason::Checkmate,
            });
        }
        None
    }
}

impl Default for TenjikuGame {
    fn default() -> Self {
        TenjikuGame::new(Options::defaults(spec()))
    }
}
