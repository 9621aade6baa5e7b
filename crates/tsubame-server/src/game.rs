//! The rules as the server sees them: one game of any variant, driven by USI move text and SFEN.
//!
//! Each variant runs on its own bitboard width, so a game is an enum over the rules' generic
//! [`Game`]; everything the server, the store and the browser need goes through text (USI moves,
//! SFEN, square names), which is what lets a new variant plug in by adding one arm here.

use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::game::SearchPosition;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::{Score, search};
use tsubame_engine::tt::TranspositionTable;
use tsubame_notation::Notator;
use tsubame_notation::tenjiku::write_tenjiku;
use tsubame_rules::tenjiku::{self, TenjikuGame};
use tsubame_rules::{
    Bitboard, Color, Game, GameError, Move, Options, Position, Square, Variant, tori, wa,
};

/// What playing one move did, for the move list and the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayedMove {
    /// The move as USI text.
    pub usi: String,
    /// The move in Hodges notation.
    pub hodges: String,
    /// Every square whose piece was taken off the board by the move (a capture, a burn).
    pub removed: Vec<String>,
}

/// A game of any variant with its rule options and history.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// A Tori game.
    Tori(Game<u64>),
    /// A Wa game.
    Wa(Game<u128>),
    /// A Tenjiku game.
    Tenjiku(Box<TenjikuGame>),
}

/// `$body` for the games on bitboard tables, `$tenjiku` for Tenjiku.
macro_rules! each {
    ($value:expr, $game:ident => $body:expr, $tenjiku:ident => $other:expr) => {
        match $value {
            AnyGame::Tori($game) => $body,
            AnyGame::Wa($game) => $body,
            AnyGame::Tenjiku($tenjiku) => $other,
        }
    };
}

fn tenjiku_play(game: &mut TenjikuGame, text: &str) -> Result<PlayedMove, String> {
    let position = game.position().clone();
    let mv = position.parse_usi(text).map_err(|e| e.to_string())?;
    let hodges = write_tenjiku(&position, mv);
    let removed = position
        .removals(mv)
        .iter()
        .map(|r| position.geometry().name(r.square).to_string())
        .collect();
    game.play(mv).map_err(|e| e.to_string())?;
    Ok(PlayedMove {
        usi: position.to_usi(mv),
        hodges,
        removed,
    })
}

fn tenjiku_legal_texts(game: &TenjikuGame) -> Vec<String> {
    let position = game.position();
    let mut moves: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|m| position.to_usi(m))
        .collect();
    moves.sort();
    moves
}

fn tenjiku_best_move(game: &TenjikuGame, limits: &Limits) -> Option<EngineReply> {
    let mut walk = game.start().clone();
    let mut keys = Vec::new();
    for &mv in game.moves() {
        keys.push(walk.key());
        walk.make_move(mv);
    }
    let checks = vec![false; keys.len()];
    engine_reply(
        game.position(),
        (&keys, &checks),
        &EvalParams::for_variant(tenjiku::spec()),
        limits,
        |position, mv| position.is_legal(mv),
        |position, mv| position.to_usi(mv),
    )
}

fn start_game<B: Bitboard>(
    tables: &'static tsubame_rules::Tables<B>,
    options: Options,
    start_sfen: Option<&str>,
) -> Result<Game<B>, String> {
    let game = match start_sfen {
        Some(sfen) => Game::from_sfen(tables, sfen, options),
        None => Game::new(tables, options),
    };
    game.map_err(|e| format!("bad start position: {e}"))
}

fn square_name<B: Bitboard>(position: &Position<B>, square: Square) -> String {
    position.tables().geometry.name(square).to_string()
}

/// Squares holding a piece of `color`, by index.
fn occupied_by<B: Bitboard>(position: &Position<B>, color: Color) -> Vec<Square> {
    let count = position.tables().geometry.square_count();
    (0..count)
        .filter_map(|index| u8::try_from(index).ok().map(Square::from_index))
        .filter(|&square| position.piece_at(square).is_some_and(|p| p.color == color))
        .collect()
}

fn play_text<B: Bitboard>(game: &mut Game<B>, text: &str) -> Result<PlayedMove, String> {
    let position = game.position().clone();
    let mv = position.parse_usi(text).map_err(|e| e.to_string())?;
    let hodges = Notator::new(&position).hodges(mv);
    let them = !position.side_to_move();
    let before = occupied_by(&position, them);
    game.play(mv).map_err(|e| match e {
        GameError::Move(reason) => reason.to_string(),
        other => other.to_string(),
    })?;
    let after = game.position();
    let removed = before
        .into_iter()
        .filter(|&square| after.piece_at(square).is_none_or(|p| p.color != them))
        .map(|square| square_name(after, square))
        .collect();
    Ok(PlayedMove {
        usi: position.to_usi(mv),
        hodges,
        removed,
    })
}

fn check_square<B: Bitboard>(position: &Position<B>) -> Option<String> {
    if !position.in_check() {
        return None;
    }
    let index = position.royal_square(position.side_to_move())?;
    let square = Square::from_index(u8::try_from(index).ok()?);
    Some(square_name(position, square))
}

fn legal_texts<B: Bitboard>(game: &Game<B>) -> Vec<String> {
    let position = game.position();
    let mut moves: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|m| position.to_usi(m))
        .collect();
    moves.sort();
    moves
}

fn best_move<B: Bitboard>(game: &Game<B>, limits: &Limits) -> Option<EngineReply> {
    let mut walk = game.start().clone();
    let mut keys = Vec::new();
    let mut checks = Vec::new();
    for mv in game.moves() {
        keys.push(walk.key());
        checks.push(walk.in_check());
        walk.make_move(mv);
    }
    let position = game.position();
    engine_reply(
        position,
        (&keys, &checks),
        &EvalParams::for_variant(position.tables().spec),
        limits,
        |position, mv| position.is_legal(mv),
        |position, mv| position.to_usi(mv),
    )
}

/// Searches `position` (with the game's earlier positions) and reports the move, the score and
/// the line as text.
fn engine_reply<P: SearchPosition>(
    position: &P,
    (keys, checks): (&[u64], &[bool]),
    params: &EvalParams,
    limits: &Limits,
    allows: impl Fn(&P, Move) -> bool,
    text: impl Fn(&P, Move) -> String,
) -> Option<EngineReply> {
    // A small table per search: many games search side by side and none keeps one alive.
    let tt = Arc::new(TranspositionTable::new(8));
    let mut last_score = None;
    let mut last_pv = Vec::new();
    let outcome = search(
        position,
        keys,
        checks,
        limits,
        params,
        tt,
        Arc::new(AtomicBool::new(false)),
        1,
        &mut |info| {
            last_score = Some(match info.score {
                Score::Centipawns(cp) => format!("cp {cp}"),
                Score::Mate(plies) => format!("mate {plies}"),
            });
            let mut pv_walk = position.clone();
            last_pv.clear();
            for &mv in &info.pv {
                if !allows(&pv_walk, mv) {
                    break;
                }
                last_pv.push(text(&pv_walk, mv));
                pv_walk.make_move(mv);
            }
        },
    );
    let best = outcome.best?;
    Some(EngineReply {
        best: text(position, best),
        score: last_score,
        pv: last_pv,
    })
}

/// The engine's answer for a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineReply {
    /// The move it plays, USI text.
    pub best: String,
    /// Its evaluation for the side to move: `cp 35` (centipawns) or `mate 3` (plies; negative
    /// when the side to move is mated).
    pub score: Option<String>,
    /// The line it expects, USI text.
    pub pv: Vec<String>,
}

impl AnyGame {
    /// A new game: the variant's start for these options, or a SFEN start.
    pub fn new(
        variant: Variant,
        options: &str,
        start_sfen: Option<&str>,
    ) -> Result<AnyGame, String> {
        let options = Options::parse(variant.spec(), options)
            .map_err(|e| format!("bad rule options: {e}"))?;
        Ok(match variant {
            Variant::Tori => AnyGame::Tori(start_game(tori::tables(), options, start_sfen)?),
            Variant::Wa => AnyGame::Wa(start_game(wa::tables(), options, start_sfen)?),
            Variant::Tenjiku => AnyGame::Tenjiku(Box::new(match start_sfen {
                Some(sfen) => TenjikuGame::from_sfen(sfen, options)
                    .map_err(|e| format!("bad start position: {e}"))?,
                None => TenjikuGame::new(options),
            })),
        })
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Tori(_) => Variant::Tori,
            AnyGame::Wa(_) => Variant::Wa,
            AnyGame::Tenjiku(_) => Variant::Tenjiku,
        }
    }

    /// The rule options in their canonical text form (`name=value,...`).
    pub fn options_text(&self) -> String {
        each!(self, g => g.options().to_string(), t => t.options().to_string())
    }

    /// The start position as SFEN.
    pub fn start_sfen(&self) -> String {
        each!(self, g => g.start().to_sfen(), t => t.start().to_sfen())
    }

    /// The current position as SFEN.
    pub fn sfen(&self) -> String {
        each!(self, g => g.position().to_sfen(), t => t.position().to_sfen())
    }

    /// The current position as the play site's FEN (meaningful for Tori).
    pub fn fen(&self) -> String {
        each!(self, g => g.position().to_fen(), _t => String::new())
    }

    /// The start position as the play site's FEN.
    pub fn start_fen(&self) -> String {
        each!(self, g => g.start().to_fen(), _t => String::new())
    }

    /// Plies played.
    pub fn ply_count(&self) -> usize {
        each!(self, g => g.moves().len(), t => t.moves().len())
    }

    /// Whether sente is to move.
    pub fn sente_to_move(&self) -> bool {
        each!(
            self,
            g => g.position().side_to_move() == Color::Sente,
            t => t.position().side_to_move() == Color::Sente
        )
    }

    /// The square of the royal piece in check, if the side to move is in check.
    pub fn check_square(&self) -> Option<String> {
        each!(self, g => check_square(g.position()), _t => None)
    }

    /// Legal moves as USI text, sorted; none once the rules have ended the game.
    pub fn legal_moves(&self) -> Vec<String> {
        each!(self, g => legal_texts(g), t => tenjiku_legal_texts(t))
    }

    /// Plays a move given as USI text. On error nothing changes and the message says why
    /// (the rules' own reason for an illegal move).
    pub fn play(&mut self, text: &str) -> Result<PlayedMove, String> {
        each!(self, g => play_text(g, text), t => tenjiku_play(t, text))
    }

    /// How the rules ended the game (mate, repetition, ...), if they have.
    pub fn outcome(&self) -> Option<tsubame_rules::Outcome> {
        each!(self, g => g.outcome(), t => t.outcome())
    }

    /// Searches the current position; `None` when the side to move has no move.
    pub fn best_move(&self, limits: &Limits) -> Option<EngineReply> {
        each!(self, g => best_move(g, limits), t => tenjiku_best_move(t, limits))
    }
}
