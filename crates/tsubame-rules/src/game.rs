//! Games: a position with its history, and how the game ended.

use crate::Color;
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::position::{Position, PositionError, Undo};
use crate::sfen::SfenError;
use crate::tables::Tables;
use crate::usi::MoveError;
use crate::variant::{DropMateRule, Options, RepetitionRule, StalemateRule};
use std::fmt;
use thiserror::Error;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move.
    Stalemate,
    /// A position occurred for the deciding time.
    Repetition,
    /// A repetition in which one side gave check with every move of the cycle.
    PerpetualCheck,
    /// A drop of a restricted kind (Tori's swallow) gave immediate mate.
    DropMate,
    /// A player resigned.
    Resignation,
    /// A player ran out of time.
    Time,
    /// The game reached its move limit.
    MoveLimit,
    /// A side's last royal piece was captured or burned (Tenjiku).
    RoyalCaptured,
}

impl EndReason {
    /// The reason as a lower-case word, as used in records and messages.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Repetition => "repetition",
            EndReason::PerpetualCheck => "perpetual-check",
            EndReason::DropMate => "drop-mate",
            EndReason::Resignation => "resignation",
            EndReason::Time => "time",
            EndReason::MoveLimit => "move-limit",
            EndReason::RoyalCaptured => "royal-captured",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended: who won (none for a drawn or void game) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a game without a winner.
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: EndReason,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(color) => write!(f, "{color} wins by {}", self.reason),
            None => write!(f, "no winner ({})", self.reason),
        }
    }
}

/// Whether a game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The side to move has moves and nothing has ended the game.
    Ongoing,
    /// The game is over.
    Finished(Outcome),
}

/// Why a game could not be started or a move not played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GameError {
    /// The game is already over.
    #[error("the game is over: {0}")]
    Finished(Outcome),
    /// The move is not legal.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The start position is not valid.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The start position text is not valid.
    #[error(transparent)]
    Sfen(#[from] SfenError),
}

#[derive(Clone, Debug)]
struct Played {
    mv: Move,
    undo: Undo,
    gave_check: bool,
}

/// A game in progress or finished: start position, moves, and result.
///
/// ```
/// use tsubame_rules::{tori, Game, Options, Status, EndReason, Color};
/// let mut game = Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
/// game.play_usi("3d3c").unwrap();
/// assert_eq!(game.status(), Status::Ongoing);
/// game.resign(Color::Gote);
/// assert_eq!(game.outcome().map(|o| o.reason), Some(EndReason::Resignation));
/// assert!(game.play_usi("5d5e").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Game<B: Bitboard> {
    options: Options,
    start: Position<B>,
    position: Position<B>,
    history: Vec<Played>,
    /// Key of the position after each number of moves; `keys[0]` is the start.
    keys: Vec<u64>,
    outcome: Option<Outcome>,
}

impl<B: Bitboard> Game<B> {
    /// A new game from the variant's start position for these options.
    pub fn new(tables: &'static Tables<B>, options: Options) -> Result<Game<B>, GameError> {
        let start = Position::start(tables, &options)?;
        Ok(Game::from_position(start, options))
    }

    /// A game from a SFEN start position.
    pub fn from_sfen(
        tables: &'static Tables<B>,
        sfen: &str,
        options: Options,
    ) -> Result<Game<B>, GameError> {
        let start = Position::from_sfen(tables, sfen, options.rule_set())?;
        Ok(Game::from_position(start, options))
    }

    /// A game from a position. The status is worked out at once: a position may already be
    /// mate.
    pub fn from_position(start: Position<B>, options: Options) -> Game<B> {
        let mut game = Game {
            options,
            keys: vec![start.key()],
            position: start.clone(),
            start,
            history: Vec::new(),
            outcome: None,
        };
        game.outcome = game.no_move_outcome();
        game
    }

    /// The rule options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The start position.
    pub fn start(&self) -> &Position<B> {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position<B> {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.history.iter().map(|p| p.mv)
    }

    /// Whether the game goes on.
    pub fn status(&self) -> Status {
        match self.outcome {
            Some(outcome) => Status::Finished(outcome),
            None => Status::Ongoing,
        }
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Legal moves of the side to move; none once the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome.is_some() {
            Vec::new()
        } else {
            self.position.legal_moves()
        }
    }

    /// Plays a move after checking it. On error nothing changes.
    pub fn play(&mut self, mv: Move) -> Result<Status, GameError> {
        if let Some(outcome) = self.outcome {
            return Err(GameError::Finished(outcome));
        }
        if !self.position.is_legal(mv) {
            return Err(MoveError::Illegal {
                text: self.position.to_usi(mv),
                reason: self.position.why_illegal(mv),
            }
            .into());
        }
        let restricted_drop = match mv.kind() {
            MoveKind::Drop { role, .. } => {
                self.position.tables().spec.roles[role.index()]
                    .drop
                    .mate_restricted
            }
            _ => false,
        };
        let undo = self.position.make_move(mv);
        let gave_check = self.position.in_check();
        self.history.push(Played {
            mv,
            undo,
            gave_check,
        });
        self.keys.push(self.position.key());
        self.outcome = self.outcome_after_move(restricted_drop && gave_check);
        Ok(self.status())
    }

    /// Plays a move given as USI text.
    pub fn play_usi(&mut self, text: &str) -> Result<Move, GameError> {
        if let Some(outcome) = self.outcome {
            return Err(GameError::Finished(outcome));
        }
        let mv = self.position.parse_usi(text)?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Takes back the last move (also reopening a game it ended). Returns the move, or `None`
    /// at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let played = self.history.pop()?;
        self.keys.pop();
        self.position.unmake_move(played.mv, played.undo);
        self.outcome = None;
        Some(played.mv)
    }

    /// `color` resigns; ignored once the game is over.
    pub fn resign(&mut self, color: Color) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome {
                winner: Some(!color),
                reason: EndReason::Resignation,
            });
        }
    }

    /// `color` ran out of time; ignored once the game is over.
    pub fn lose_on_time(&mut self, color: Color) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome {
                winner: Some(!color),
                reason: EndReason::Time,
            });
        }
    }

    fn no_move_outcome(&self) -> Option<Outcome> {
        if self.position.has_legal_move() {
            return None;
        }
        let loser = self.position.side_to_move();
        if self.position.in_check() {
            return Some(Outcome {
                winner: Some(!loser),
                reason: EndReason::Checkmate,
            });
        }
        match self.position.tables().spec.stalemate {
            StalemateRule::Loss => Some(Outcome {
                winner: Some(!loser),
                reason: EndReason::Stalemate,
            }),
        }
    }

    fn outcome_after_move(&self, restricted_drop_check: bool) -> Option<Outcome> {
        let mover = !self.position.side_to_move();
        let no_move = self.no_move_outcome();
        if restricted_drop_check
            && self.options.rule_set().drop_mate == DropMateRule::Loses
            && matches!(
                no_move,
                Some(Outcome {
                    reason: EndReason::Checkmate,
                    ..
                })
            )
        {
            return Some(Outcome {
                winner: Some(!mover),
                reason: EndReason::DropMate,
            });
        }
        if no_move.is_some() {
            return no_move;
        }
        if let Some(outcome) = self.repetition_outcome() {
            return Some(outcome);
        }
        let limit = self.options.rule_set().max_plies;
        if limit > 0 && self.history.len() >= limit as usize {
            return Some(Outcome {
                winner: None,
                reason: EndReason::MoveLimit,
            });
        }
        None
    }

    /// Applies the repetition rule to the position just reached.
    fn repetition_outcome(&self) -> Option<Outcome> {
        let needed = self.options.rule_set().repetition_count.max(2) as usize;
        let now = self.keys.len() - 1;
        let key = self.keys[now];
        let mut seen = 1;
        let mut first = now;
        let mut index = now;
        while index >= 2 && seen < needed {
            index -= 2;
            if self.keys[index] == key {
                seen += 1;
                first = index;
            }
        }
        if seen < needed {
            return None;
        }
        let mover = !self.position.side_to_move();
        // Moves of the cycle: the ones that led to positions first+1 ..= now.
        let cycle = &self.history[first..now];
        let mover_moves = cycle.iter().rev().step_by(2);
        let opponent_moves = cycle.iter().rev().skip(1).step_by(2);
        let opponent_always_checked = opponent_moves.clone().all(|p| p.gave_check);
        let mover_always_checked = mover_moves.clone().all(|p| p.gave_check);
        Some(if opponent_always_checked {
            Outcome {
                winner: Some(mover),
                reason: EndReason::PerpetualCheck,
            }
        } else if mover_always_checked {
            Outcome {
                winner: Some(!mover),
                reason: EndReason::PerpetualCheck,
            }
        } else {
            match self.position.tables().spec.repetition {
                // Where repeating is illegal, the repeating move loses like any illegal move.
                RepetitionRule::MoverLoses | RepetitionRule::Illegal => Outcome {
                    winner: Some(!mover),
                    reason: EndReason::Repetition,
                },
                RepetitionRule::NoContest => Outcome {
                    winner: None,
                    reason: EndReason::Repetition,
                },
            }
        })
    }
}
