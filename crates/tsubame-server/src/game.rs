//! The rules as the server sees them: one game of any variant ([`tsubame_rules::AnyGame`]),
//! driven by USI move text and SFEN. Everything the server, the store and the browser need goes
//! through text (USI moves, SFEN, square names); which game it is, is the rules' business.

use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tsubame_engine::limits::Limits;
use tsubame_engine::strength::Level;
use tsubame_notation::record::write_kif_move;
use tsubame_notation::{write_hodges_any, write_short};
use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{AnyGame, AnyGameError, Color, MoveError, OptionError, Options, Variant};
use tsubame_rules::{Bitboard, Move, Position, PositionVisitor, Square};
use utoipa::ToSchema;

/// What playing one move did, for the move list and the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct PlayedMove {
    /// The move as USI text.
    pub usi: String,
    /// The move in Hodges notation.
    pub hodges: String,
    /// Every square whose piece was taken off the board by the move (a capture, a burn).
    pub removed: Vec<String>,
    /// Tori: the move in Japanese, as KIF writes it (`３三燕(34)`, `同　鷹(45)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub japanese: Option<String>,
    /// Tori: the move in the play site's short notation (`S3433`, `S*44`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short: Option<String>,
    /// Whether the move gives check: the move list marks it.
    pub check: bool,
}

/// The Tori-only forms of a move: KIF's Japanese text and the play site's short notation.
struct ToriTexts {
    mv: Move,
    previous_to: Option<Square>,
}

impl<'a> PositionVisitor<'a> for ToriTexts {
    type Output = (Option<String>, Option<String>);

    fn board<B: Bitboard>(self, position: &'a Position<B>) -> Self::Output {
        if position.tables().spec.name != "tori" {
            return (None, None);
        }
        (
            write_kif_move(position, self.mv, self.previous_to),
            Some(write_short(position, self.mv)),
        )
    }

    fn tenjiku(self, _: &'a TenjikuPosition) -> Self::Output {
        (None, None)
    }
}

/// A hosted game of any variant, with its rule options and history, seen as text.
#[derive(Clone, Debug)]
pub struct HostedGame {
    game: AnyGame,
}

pub use tsubame_analysis::{EngineLine, EngineReply, MateReply};

/// Why the rules refused to start a game or play a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// An unknown rule option or value.
    #[error("bad rule options: {0}")]
    Options(#[from] OptionError),
    /// A start position the rules refuse.
    #[error("bad start position: {0}")]
    Start(AnyGameError),
    /// Text that is no move of the position.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// A move the game refuses (after its end, a repetition where that is illegal).
    #[error(transparent)]
    Refused(#[from] AnyGameError),
}

impl HostedGame {
    /// A new game: the variant's start for these options, or a SFEN start.
    pub fn new(
        variant: Variant,
        options: &str,
        start_sfen: Option<&str>,
    ) -> Result<HostedGame, RulesError> {
        let options = Options::parse(variant.spec(), options)?;
        let game = match start_sfen {
            Some(sfen) => AnyGame::from_sfen(sfen, options),
            None => AnyGame::new(options),
        };
        let game = game.map_err(RulesError::Start)?;
        Ok(HostedGame { game })
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.game.variant()
    }

    /// The rule options.
    pub fn options(&self) -> &Options {
        self.game.options()
    }

    /// The rule options in their canonical text form (`name=value,...`).
    pub fn options_text(&self) -> String {
        self.game.options().to_string()
    }

    /// The start position as SFEN.
    pub fn start_sfen(&self) -> String {
        self.game.start().to_sfen()
    }

    /// The moves played, USI text.
    pub fn moves_usi(&self) -> Vec<String> {
        let mut walk = self.game.start();
        self.game
            .moves()
            .into_iter()
            .map(|mv| {
                let usi = walk.to_usi(mv);
                walk.play_unchecked(mv);
                usi
            })
            .collect()
    }

    /// The current position as SFEN.
    pub fn sfen(&self) -> String {
        self.game.position().to_sfen()
    }

    /// The current position as the play site's FEN (empty for Tenjiku, which has none).
    pub fn fen(&self) -> String {
        self.game.position().to_fen().unwrap_or_default()
    }

    /// The start position as the play site's FEN (empty for Tenjiku).
    pub fn start_fen(&self) -> String {
        self.game.start().to_fen().unwrap_or_default()
    }

    /// Plies played.
    pub fn ply_count(&self) -> usize {
        self.game.moves().len()
    }

    /// Whether sente is to move.
    pub fn sente_to_move(&self) -> bool {
        self.game.position().side_to_move() == Color::Sente
    }

    /// The square of the royal piece in check, if the side to move is in check.
    pub fn check_square(&self) -> Option<String> {
        let position = self.game.position();
        let square = position.check_square()?;
        Some(position.geometry().name(square).to_string())
    }

    /// Legal moves as USI text, sorted; none once the rules have ended the game.
    pub fn legal_moves(&self) -> Vec<String> {
        let position = self.game.position();
        let mut moves: Vec<String> = self
            .game
            .legal_moves()
            .into_iter()
            .map(|m| position.to_usi(m))
            .collect();
        moves.sort();
        moves
    }

    /// Plays a move given as USI text. On error nothing changes and the message says why
    /// (the rules' own reason for an illegal move).
    pub fn play(&mut self, text: &str) -> Result<PlayedMove, RulesError> {
        let position = self.game.position();
        let mv = position.parse_usi(text)?;
        let hodges = write_hodges_any(&position, mv);
        let previous_to = self.game.moves().last().map(|m| m.to());
        let (japanese, short) = position.visit(ToriTexts { mv, previous_to });
        let removed = position
            .removed_squares(mv)
            .into_iter()
            .map(|square| position.geometry().name(square).to_string())
            .collect();
        self.game.play(mv)?;
        Ok(PlayedMove {
            usi: position.to_usi(mv),
            hodges,
            removed,
            japanese,
            short,
            check: self.check_square().is_some(),
        })
    }

    /// Plays a move given as USI text by the rules alone, without the texts [`Self::play`]
    /// writes for it: what replaying a position to search needs, at a fraction of the work.
    pub fn play_silently(&mut self, text: &str) -> Result<(), RulesError> {
        let mv = self.game.position().parse_usi(text)?;
        self.game.play(mv)?;
        Ok(())
    }

    /// How the rules ended the game (mate, repetition, ...), if they have.
    pub fn outcome(&self) -> Option<tsubame_rules::Outcome> {
        self.game.outcome()
    }

    /// Looks for a mate by checks for the side to move within `max_moves` and `time`, in a
    /// table of `table_mib`; setting `stop` ends the search (an `unknown` answer).
    pub fn mate(
        &self,
        max_moves: u32,
        time: std::time::Duration,
        table_mib: usize,
        stop: Arc<AtomicBool>,
    ) -> MateReply {
        tsubame_analysis::mate(&self.game.position(), max_moves, time, table_mib, stop)
    }

    /// The position searched as a game's analysis keeps it (see
    /// [`tsubame_analysis::analysed_position`]).
    pub fn analysed_position(&self, limits: &Limits) -> tsubame_analysis::AnalysedPosition {
        tsubame_analysis::analysed_position(&self.game, limits, Arc::new(AtomicBool::new(false)))
    }

    /// Searches the current position; `None` when the side to move has no move. Setting
    /// `stop` ends the search early (with the best move found so far). With a `level`, the
    /// search is held to it and `best` is the move the level chooses.
    pub fn best_move(
        &self,
        limits: &Limits,
        level: Option<Level>,
        stop: Arc<AtomicBool>,
    ) -> Option<EngineReply> {
        let level = level.map(|level| (level, rand::random()));
        tsubame_analysis::analyse(&self.game, limits, level, stop, &mut |_| {})
    }
}
