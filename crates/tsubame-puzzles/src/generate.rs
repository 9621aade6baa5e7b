//! Mining puzzles from games.
//!
//! Each game is replayed; a position becomes a candidate where the games file's own search
//! scores swing (the side to move sees a gain of [`Settings::swing`] that its opponent did
//! not see a move earlier) or announce a mate. A candidate is kept when
//!
//! - the mate solver finds a mate by checks of at most [`Settings::tsume_moves`] in which every
//!   move of the player is the only one that mates as quickly (a tsume), or else
//! - the engine's two best moves, searched with [`Settings::screen_nodes`] and again with
//!   [`Settings::confirm_nodes`], are far apart: one clearly winning move. The line then follows
//!   the opponent's best reply and the player's next move for as long as that move is again
//!   the only good one.
//!
//! Everything is searched with one thread, fixed node counts and fresh tables, so the same
//! games give the same puzzles.

use crate::{Puzzle, PuzzleError, mate_theme, puzzle_id};
use std::sync::Arc;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::{Score, SearchRequest, search_any};
use tsubame_engine::tsume::{MateLimits, MateResult, is_only_solution, solve};
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::{AnyGame, AnyPosition, EndReason, Move, MoveKind, Options, Status, Variant};

/// How puzzles are looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Nodes of the first look at a candidate (two best moves).
    pub screen_nodes: u64,
    /// Nodes of the confirming look, and of the opponent's replies.
    pub confirm_nodes: u64,
    /// Centipawns between the best and the second best move for a move to be the only one.
    pub gap: i32,
    /// Centipawns the best move must win by.
    pub winning: i32,
    /// Centipawns of a swing in the games' scores that makes a candidate.
    pub swing: i32,
    /// The longest tsume looked for.
    pub tsume_moves: u32,
    /// Nodes the mate solver may spend on a candidate.
    pub tsume_nodes: u64,
    /// The most moves of the player in a tactic's line.
    pub max_player_moves: usize,
    /// Plies at the start of a game that are not looked at.
    pub opening_plies: usize,
    /// The most puzzles taken from one game.
    pub per_game: usize,
    /// The deepest search asked whether it finds a tactic's answer (the rating's measure of
    /// how hard the move is to see); each search runs to its depth whatever the nodes, so a
    /// game with many moves a position (Tenjiku) needs a shallower one.
    pub find_depth: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            screen_nodes: 20_000,
            confirm_nodes: 100_000,
            gap: 250,
            winning: 250,
            swing: 250,
            tsume_moves: 9,
            tsume_nodes: 2_000_000,
            max_player_moves: 3,
            opening_plies: 8,
            per_game: 2,
            find_depth: 8,
        }
    }
}

/// A game to mine: where it starts, its moves, and (where the games file has them) the search
/// score before each move, for the side to move, in centipawns; a mate as
/// [`SourceGame::MATE_SCORE`] or above.
#[derive(Clone, Debug)]
pub struct SourceGame {
    /// Names it in the puzzles' `source`.
    pub name: String,
    /// The start position.
    pub start: AnyPosition,
    /// The moves played.
    pub moves: Vec<Move>,
    /// The search's score before each move, for the side to move; none where there was none.
    pub scores: Vec<Option<i32>>,
}

impl SourceGame {
    /// A stored score at or above this is a mate for the side to move.
    pub const MATE_SCORE: i32 = 3000;
}

/// The game a puzzle belongs to, and its rule options as text.
#[derive(Clone, Debug)]
pub struct Source {
    /// The game.
    pub variant: Variant,
    /// The rule options.
    pub options: Options,
    /// The same options as `name=value` pairs separated by commas.
    pub options_text: String,
}

/// A score as one number: centipawns, mates beyond every centipawn score (sooner is larger).
pub(crate) fn value(score: Score) -> i32 {
    match score {
        Score::Centipawns(cp) => cp,
        Score::Mate(plies) if plies > 0 => 30_000 - plies,
        Score::Mate(plies) => -30_000 - plies,
    }
}

/// What a search saw: its two best moves and their values.
pub(crate) struct Look {
    pub(crate) best: Move,
    pub(crate) best_value: i32,
    pub(crate) second: Option<Move>,
    pub(crate) second_value: Option<i32>,
}

/// The two best moves of `position` with `nodes` (or to `depth`), one thread, a fresh table.
pub(crate) fn look(
    position: &AnyPosition,
    params: &EvalParams,
    nodes: Option<u64>,
    depth: Option<u32>,
    lines: u32,
) -> Option<Look> {
    let limits = Limits {
        nodes,
        depth,
        lines,
        ..Limits::default()
    };
    let outcome = search_any(
        SearchRequest::new(
            position,
            &limits,
            params,
            Arc::new(TranspositionTable::new(8)),
        ),
        &mut |_| {},
    );
    let best = outcome.best?;
    let best_value = outcome
        .lines
        .first()
        .map_or(value(outcome.info.score), |line| value(line.score));
    let second_value = outcome.lines.get(1).map(|line| value(line.score));
    let second = outcome
        .lines
        .get(1)
        .and_then(|line| line.pv.first().copied());
    Some(Look {
        best,
        best_value,
        second,
        second_value,
    })
}

/// Whether the game is over after the line played on `start`.
fn ends_in_mate(start: &AnyPosition, options: &Options, line: &[Move]) -> bool {
    let mut game = AnyGame::from_position(start.clone(), options.clone());
    for &mv in line {
        if game.play(mv).is_err() {
            return false;
        }
    }
    matches!(game.status(), Status::Finished(outcome)
        if outcome.winner == Some(start.side_to_move())
            && outcome.reason == tsubame_rules::EndReason::Checkmate)
}

fn pieces_on_board(position: &AnyPosition) -> usize {
    let geometry = position.geometry();
    (0..geometry.square_count())
        .filter(|&index| {
            u8::try_from(index)
                .ok()
                .and_then(|i| position.piece_at(tsubame_rules::Square::from_index(i)))
                .is_some()
        })
        .count()
}

/// The themes a line shows beyond mate: material won, promotion, a drop first, few pieces.
fn line_themes(
    start: &AnyPosition,
    line: &[Move],
    params: &EvalParams,
    start_pieces: usize,
) -> Vec<&'static str> {
    let mut themes = Vec::new();
    let mut walk = start.clone();
    let mut balance = 0;
    let mut promotes = false;
    for (index, &mv) in line.iter().enumerate() {
        let player = index % 2 == 0;
        if let MoveKind::Normal { to, .. } = mv.kind()
            && let Some(piece) = walk.piece_at(to)
        {
            let gain = params.value(piece.role);
            balance += if player { gain } else { -gain };
        }
        if player && mv.is_promotion() {
            promotes = true;
        }
        walk.play_unchecked(mv);
    }
    // A swallow is 100; anything less than three of them is not a material puzzle.
    if balance >= 300 {
        themes.push("material");
    }
    if promotes {
        themes.push("promotion");
    }
    if line
        .first()
        .is_some_and(|mv| matches!(mv.kind(), MoveKind::Drop { .. }))
    {
        themes.push("drop");
    }
    if pieces_on_board(start) * 5 <= start_pieces * 2 {
        themes.push("endgame");
    }
    themes
}

/// The order themes are written in.
fn sorted_themes(mut themes: Vec<String>) -> Vec<String> {
    let rank = |theme: &String| {
        crate::THEMES
            .iter()
            .position(|(name, _)| name == theme)
            .unwrap_or(usize::MAX)
    };
    themes.sort_by_key(rank);
    themes.dedup();
    themes
}

/// A tsume from `position`, when the solver finds one with a single answer at every step.
fn tsume_at(position: &AnyPosition, settings: &Settings) -> Option<(Vec<Move>, u64)> {
    let limits = MateLimits {
        max_moves: settings.tsume_moves,
        time: None,
        nodes: Some(settings.tsume_nodes),
        stop: None,
        table_mib: 32,
    };
    let (report, only) = match position {
        AnyPosition::Tori(p) => {
            let report = solve(p, &limits, &mut |_| {});
            let only = match &report.result {
                MateResult::Mate(line) => is_only_solution(p, line, &limits),
                _ => Ok(false),
            };
            (report, only)
        }
        AnyPosition::Wa(p) => {
            let report = solve(p, &limits, &mut |_| {});
            let only = match &report.result {
                MateResult::Mate(line) => is_only_solution(p, line, &limits),
                _ => Ok(false),
            };
            (report, only)
        }
        AnyPosition::Tenjiku(p) => {
            let report = solve(p.as_ref(), &limits, &mut |_| {});
            let only = match &report.result {
                MateResult::Mate(line) => is_only_solution(p.as_ref(), line, &limits),
                _ => Ok(false),
            };
            (report, only)
        }
    };
    match (report.result, only) {
        (MateResult::Mate(line), Ok(true)) => Some((line, report.nodes)),
        _ => None,
    }
}

/// The shallowest depth from which a search keeps choosing `answer` up to `deepest` (one more
/// when it never settles on it): how hard the move is to see.
fn depth_to_find(position: &AnyPosition, params: &EvalParams, answer: Move, deepest: u32) -> u32 {
    let mut found = deepest + 1;
    for depth in (1..=deepest).rev() {
        match look(position, params, None, Some(depth), 1) {
            Some(seen) if seen.best == answer => found = depth,
            _ => break,
        }
    }
    found
}

/// A tactic's rating: how deep a search must look to keep choosing its answer
/// ([`depth_to_find`]), how many moves the player makes, and whether the player was losing
/// before (a defence is harder to see).
fn rating_of_tactic(depth: u32, line_plies: usize, defence: bool) -> u32 {
    600 + 110 * depth
        + 150 * (line_plies.div_ceil(2).max(1) as u32 - 1)
        + if defence { 100 } else { 0 }
}

/// A tactic's rating measured again by this engine (the same measure as mining's, with
/// searches of up to `find_depth`): `None` for a tsume, whose rating is the mate solver's and
/// does not change with the search. The way a puzzle file follows a change to the search.
pub fn rate_tactic(puzzle: &Puzzle, find_depth: u32) -> Result<Option<u32>, PuzzleError> {
    if puzzle.has_theme("tsume") {
        return Ok(None);
    }
    let position = puzzle.position()?;
    let params = puzzle.engine_params()?;
    let first = puzzle.moves.first().ok_or_else(|| PuzzleError::Setup {
        id: puzzle.id.clone(),
        what: "no moves".to_string(),
    })?;
    let answer = position.parse_usi(first).map_err(|e| PuzzleError::Move {
        id: puzzle.id.clone(),
        index: 1,
        what: e.to_string(),
    })?;
    let depth = depth_to_find(&position, &params, answer, find_depth);
    let rating = rating_of_tactic(depth, puzzle.moves.len(), puzzle.has_theme("defence"));
    Ok(Some(rating.clamp(600, 2600)))
}

/// A tactic from `position`: one clearly winning move, followed while the player's move stays
/// the only good one.
fn tactic_at(
    position: &AnyPosition,
    params: &EvalParams,
    settings: &Settings,
) -> Option<Vec<Move>> {
    let only_move = |seen: &Look, gap: i32, winning: i32| {
        seen.best_value >= winning && seen.second_value.is_none_or(|s| seen.best_value - s >= gap)
    };
    let first = look(position, params, Some(settings.screen_nodes), None, 2)?;
    if first.second_value.is_none() || !only_move(&first, settings.gap, settings.winning) {
        return None;
    }
    let confirmed = look(position, params, Some(settings.confirm_nodes), None, 2)?;
    if confirmed.best != first.best
        || !only_move(&confirmed, settings.gap * 4 / 5, settings.winning * 4 / 5)
    {
        return None;
    }
    let mut line = vec![confirmed.best];
    let mut walk = position.clone();
    walk.play_unchecked(confirmed.best);
    while line.len().div_ceil(2) < settings.max_player_moves {
        let Some(reply) = look(&walk, params, Some(settings.confirm_nodes), None, 1) else {
            break;
        };
        let mut after = walk.clone();
        after.play_unchecked(reply.best);
        let Some(next) = look(&after, params, Some(settings.screen_nodes), None, 2) else {
            break;
        };
        if next.second_value.is_none() || !only_move(&next, settings.gap, settings.winning) {
            break;
        }
        line.push(reply.best);
        line.push(next.best);
        after.play_unchecked(next.best);
        walk = after;
    }
    Some(line)
}

/// A tsume's difficulty: its length, and the solver's work (in powers of two).
fn tsume_rating(moves: usize, nodes: u64) -> u32 {
    600 + 130 * moves as u32 + 40 * (64 - (nodes + 1).leading_zeros()).saturating_sub(4)
}

/// Makes the puzzles of one game's rules: the themes a line shows added to those it was found
/// with, and the puzzle named by its position.
struct PuzzleMaker<'a> {
    source: &'a Source,
    params: EvalParams,
    /// Pieces on the board at the game's start, against which an endgame is told.
    start_pieces: usize,
}

impl<'a> PuzzleMaker<'a> {
    fn new(source: &'a Source) -> PuzzleMaker<'a> {
        PuzzleMaker {
            source,
            params: EvalParams::engine_default(&source.options),
            start_pieces: AnyPosition::start(&source.options)
                .map(|p| pieces_on_board(&p))
                .unwrap_or(usize::MAX),
        }
    }

    /// The puzzle of `line` from `position`, with `themes` and those of the line itself (what
    /// it takes and promotes, short or long), from `origin` (game and ply).
    fn puzzle(
        &self,
        position: &AnyPosition,
        line: &[Move],
        mut themes: Vec<String>,
        rating: u32,
        origin: String,
    ) -> Puzzle {
        themes.extend(
            line_themes(position, line, &self.params, self.start_pieces)
                .into_iter()
                .map(String::from),
        );
        let player_moves = line.len().div_ceil(2);
        if player_moves == 1 {
            themes.push("short".into());
        } else if player_moves >= 3 {
            themes.push("long".into());
        }
        let sfen = position.to_sfen();
        let source = self.source;
        Puzzle {
            id: puzzle_id(source.variant.name(), &source.options_text, &sfen),
            variant: source.variant.name().to_string(),
            options: source.options_text.clone(),
            moves: position.line_to_usi(line),
            sfen,
            themes: sorted_themes(themes),
            rating: rating.clamp(600, 2600),
            source: origin,
        }
    }
}

/// Mines one game.
pub fn mine(game: &SourceGame, source: &Source, settings: &Settings) -> Vec<Puzzle> {
    let maker = PuzzleMaker::new(source);
    let params = &maker.params;
    let mut puzzles = Vec::new();
    let mut position = game.start.clone();
    let mut last_taken: Option<usize> = None;
    let mut taken = 0;
    for (ply, &mv) in game.moves.iter().enumerate() {
        let score = game.scores.get(ply).copied().flatten();
        let before = ply
            .checked_sub(1)
            .and_then(|p| game.scores.get(p).copied().flatten());
        let two_before = ply
            .checked_sub(2)
            .and_then(|p| game.scores.get(p).copied().flatten());
        let far_enough = last_taken.is_none_or(|taken| ply >= taken + 6);
        let candidate = ply >= settings.opening_plies
            && far_enough
            && taken < settings.per_game
            && score.is_some_and(|s| {
                s >= SourceGame::MATE_SCORE
                    || (s >= settings.swing
                        // A game given from this position on has nothing before it.
                        && (ply == 0 || before.is_some_and(|b| b >= -settings.swing / 2)))
            });
        if candidate && position.legal_moves().len() >= 2 {
            let found = match tsume_at(&position, settings) {
                Some((line, nodes)) => {
                    let moves = line.len().div_ceil(2);
                    let mut themes: Vec<String> = vec!["mate".into(), "tsume".into()];
                    themes.push(mate_theme(moves));
                    Some((line, themes, tsume_rating(moves, nodes)))
                }
                None => tactic_at(&position, params, settings).map(|line| {
                    let mut themes: Vec<String> = Vec::new();
                    if ends_in_mate(&position, &source.options, &line) {
                        themes.push("mate".into());
                        themes.push(mate_theme(line.len().div_ceil(2)));
                    } else {
                        themes.push("advantage".into());
                    }
                    let defence = two_before.is_some_and(|s| s <= -200);
                    if defence {
                        themes.push("defence".into());
                    }
                    let depth = line.first().map_or(settings.find_depth + 1, |&answer| {
                        depth_to_find(&position, params, answer, settings.find_depth)
                    });
                    let rating = rating_of_tactic(depth, line.len(), defence);
                    (line, themes, rating)
                }),
            };
            if let Some((line, themes, rating)) = found {
                // A tsume's last move is the only one that mates where it is played: a mate
                // in one of its own, rated as if it had been found there.
                let derived = (themes.iter().any(|t| t == "tsume") && line.len() >= 3)
                    .then(|| {
                        let mut last = position.clone();
                        for &mv in &line[..line.len() - 1] {
                            last.play_unchecked(mv);
                        }
                        last
                    })
                    .and_then(|last| {
                        let (finish, nodes) = tsume_at(&last, settings)?;
                        let themes = vec!["mate".into(), "tsume".into(), mate_theme(1)];
                        Some(maker.puzzle(
                            &last,
                            &finish,
                            themes,
                            tsume_rating(1, nodes),
                            format!("{} ply {}", game.name, ply + line.len()),
                        ))
                    });
                puzzles.push(maker.puzzle(
                    &position,
                    &line,
                    themes,
                    rating,
                    format!("{} ply {}", game.name, ply + 1),
                ));
                puzzles.extend(derived);
                last_taken = Some(ply);
                taken += 1;
            }
        }
        if !position.is_legal(mv) {
            break;
        }
        position.play_unchecked(mv);
    }
    puzzles
}

/// The longest tsume at the end of a game that ends in checkmate: from the mating move back,
/// the positions where the winner is to move are tried with the mate solver, a move further
/// back each time, until one holds no tsume (or [`Settings::tsume_moves`] is reached); the
/// longest line found is kept, the furthest back of equal ones. Long tsume are rare where the games' scores swing (a search sees
/// few long mates by checks), and a game's own mating attack is where they are. `None` when the
/// game does not end in mate or its mating move is no tsume of its own (another move mates
/// too).
pub fn hunt_tsume(game: &SourceGame, source: &Source, settings: &Settings) -> Option<Puzzle> {
    let mut played = AnyGame::from_position(game.start.clone(), source.options.clone());
    let mut positions = vec![played.position()];
    for &mv in &game.moves {
        played.play(mv).ok()?;
        positions.push(played.position());
    }
    // The rules say how it ended: Tenjiku's mate is the rules' own, not a lack of moves.
    let mover = positions
        .get(positions.len().checked_sub(2)?)?
        .side_to_move();
    match played.outcome() {
        Some(outcome)
            if outcome.reason == EndReason::Checkmate && outcome.winner == Some(mover) => {}
        _ => return None,
    }
    let mut longest: Option<(usize, Vec<Move>, u64)> = None;
    for moves in 1..=settings.tsume_moves as usize {
        let Some(ply) = game.moves.len().checked_sub(2 * moves - 1) else {
            break;
        };
        if ply < settings.opening_plies {
            break;
        }
        let Some((line, nodes)) = tsume_at(&positions[ply], settings) else {
            break;
        };
        if longest
            .as_ref()
            .is_none_or(|(_, best, _)| line.len() >= best.len())
        {
            longest = Some((ply, line, nodes));
        }
    }
    let (ply, line, nodes) = longest?;
    let moves = line.len().div_ceil(2);
    Some(PuzzleMaker::new(source).puzzle(
        &positions[ply],
        &line,
        vec!["mate".into(), "tsume".into(), mate_theme(moves)],
        tsume_rating(moves, nodes),
        format!("{} ply {}", game.name, ply + 1),
    ))
}
