//! Self-play games for training: played at a fixed node count from seeded random openings,
//! appended to a games file ([`crate::games`]) that a stopped run resumes, and the training
//! positions read back from any data file.

use crate::games::{
    GameRecord, GamesFile, Ply, game_numbers, header as games_header, is_games_file, is_quiet_move,
    read_games, read_positions, stored_position_count, stored_score,
};
pub use crate::positions::{
    DataError, MAX_SCORE, Record, SHARE_BLOCK, TrainingShare, add_mirror_images,
    keep_training_share,
};
use crate::positions::{io_error, is_position_file, read_position_file};
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tsubame_engine::eval::EvalParams;
use tsubame_engine::limits::{Clock, Limits};
use tsubame_engine::search::{Score, SearchMemory, SearchRequest, search, search_any};
use tsubame_engine::search_params::SearchParams;
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::{
    AnyGame, AnyPosition, Bitboard, Color, Game, Move, MoveKind, Options, Position, Square, Status,
    Tables, Variant,
};

/// Reads the training positions of a data file of `variant`: a games file
/// ([`crate::games`]), whose games are replayed, or a file of labelled positions (the first
/// format, [`crate::positions`]). A last game cut short by a stop is left out.
pub fn read_file(path: &str, variant: Variant) -> Result<Vec<Record>, DataError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(io_error(path))?;
    if is_games_file(&bytes) {
        read_positions(&bytes, path, variant)
    } else {
        read_position_file(&bytes, path, variant)
    }
}

/// How the self-play games are played.
#[derive(Clone, Debug)]
pub struct Generation {
    /// Games to play; for a data file, games in the file when done (games already there
    /// count).
    pub games: usize,
    /// Search nodes per move.
    pub nodes: u64,
    /// Seed of the random openings: game `n` of a seed is always the same game.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
    /// Random plies at the start of each game, at least (up to four more).
    pub random_plies: u32,
    /// Plies after which a game counts as a draw.
    pub max_plies: usize,
    /// A clock for games between two search settings ([`play_between`]) in place of the node
    /// count: each side searches under its own clock, and a side whose search runs past the
    /// time it has left loses. `None` (the default) plays at `nodes`.
    pub clock: Option<FischerClock>,
}

/// A Fischer clock: main time, and an increment credited after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FischerClock {
    /// Main time, in milliseconds.
    pub main_ms: u64,
    /// Time added after each move, in milliseconds.
    pub increment_ms: u64,
}

impl Default for Generation {
    fn default() -> Self {
        Generation {
            games: 1000,
            nodes: 5000,
            seed: 1,
            threads: 1,
            random_plies: 6,
            max_plies: 300,
            clock: None,
        }
    }
}

/// Progress of a generation run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Games in the file.
    pub games: usize,
    /// Positions in the file.
    pub positions: usize,
    /// Games found in the file when the run began.
    pub resumed_games: usize,
    /// Positions found in the file when the run began.
    pub resumed_positions: usize,
}

/// Plays self-play games and appends them to the games file ([`crate::games`]) at `path`,
/// creating it if need be. Games already in the file are not played again, so a stopped run goes on
/// where it was; a game cut short by a stop is cut from the file and played again. `stop`
/// ends the run after the games being played; `on_game` hears of each finished one.
pub fn generate<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    path: &str,
    stop: &AtomicBool,
    on_game: &mut (dyn FnMut(Progress) + Send),
) -> Result<Progress, DataError> {
    generate_with(
        options,
        generation,
        path,
        stop,
        on_game,
        |stored| stored_position_count(tables, stored, path),
        |game, tt| play_game(tables, options, params, generation, game, tt),
    )
}

/// [`generate`] for a game of any kind, Tenjiku's included (which has no network to train,
/// but whose games are mined for puzzles): the same file, openings and searches, played on the
/// rules library's [`AnyGame`].
pub fn generate_any(
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    path: &str,
    stop: &AtomicBool,
    on_game: &mut (dyn FnMut(Progress) + Send),
) -> Result<Progress, DataError> {
    generate_with(
        options,
        generation,
        path,
        stop,
        on_game,
        |stored| {
            stored.games.iter().try_fold(0, |total, game| {
                Ok(total
                    + count_quiet_plies(game, options).map_err(|what| DataError::Refused {
                        path: path.to_string(),
                        what,
                    })?)
            })
        },
        |game, tt| play_any_game(options, params, generation, game, tt),
    )
}

/// The file handling of [`generate`] and [`generate_any`]: `count_stored` counts the training
/// positions of the games found, `play` plays game number `game` and gives it with its count.
fn generate_with(
    options: &Options,
    generation: &Generation,
    path: &str,
    stop: &AtomicBool,
    on_game: &mut (dyn FnMut(Progress) + Send),
    count_stored: impl FnOnce(&GamesFile) -> Result<usize, DataError>,
    play: impl Fn(u32, &Arc<TranspositionTable>) -> (GameRecord, usize) + Sync,
) -> Result<Progress, DataError> {
    let variant = Variant::of(options).ok_or(DataError::UnknownGame)?;
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error(path))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_error(path))?;
    let (done, positions) = if bytes.is_empty() {
        file.write_all(&games_header(options))
            .map_err(io_error(path))?;
        (HashSet::new(), 0)
    } else if is_position_file(&bytes) {
        return Err(DataError::PositionFile(path.to_string()));
    } else {
        let stored = read_games(&bytes, path, variant)?;
        if stored.options != *options {
            return Err(DataError::Options {
                path: path.to_string(),
                found: stored.options.to_string(),
                expected: options.to_string(),
            });
        }
        // A game cut short by a stop is cut from the file and played again.
        file.set_len(stored.whole_length as u64)
            .map_err(io_error(path))?;
        let positions = count_stored(&stored)?;
        (game_numbers(&stored), positions)
    };
    file.seek(SeekFrom::End(0)).map_err(io_error(path))?;
    let resumed_games = done.len();
    let todo: Vec<u32> = (0..generation.games as u32)
        .filter(|g| !done.contains(g))
        .collect();
    let resumed = Progress {
        games: resumed_games,
        positions,
        resumed_games,
        resumed_positions: positions,
    };
    let progress = Mutex::new((resumed, file, on_game));
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<DataError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..generation.threads.clamp(1, 256) {
            scope.spawn(|| {
                let tt = Arc::new(TranspositionTable::new(16));
                let mut buffer = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let Some(&game) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let (record, positions) = play(game, &tt);
                    buffer.clear();
                    record.write(&mut buffer);
                    let Ok(mut guard) = progress.lock() else {
                        break;
                    };
                    let (state, file, on_game) = &mut *guard;
                    if let Err(error) = file.write_all(&buffer).and_then(|()| file.flush()) {
                        if let Ok(mut failure) = failure.lock() {
                            failure.get_or_insert(io_error(path)(error));
                        }
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    state.games += 1;
                    state.positions += positions;
                    on_game(*state);
                }
            });
        }
    });
    if let Some(error) = failure.into_inner().ok().flatten() {
        return Err(error);
    }
    let state = progress.into_inner().map(|(state, ..)| state);
    Ok(state.unwrap_or(resumed))
}

/// What a self-play game gives at each searched ply: the position before the move, the move
/// and the search's score.
pub struct SearchedPly<B: Bitboard> {
    /// The position.
    pub position: Position<B>,
    /// The move the search chose.
    pub best: Move,
    /// Its score for the side to move.
    pub score: Score,
}

/// A self-play game as played: every move from the start, the searched plies among them (the
/// last ones: the random opening is not searched), and the winner.
pub struct SelfPlay<B: Bitboard> {
    /// Every move, from the game's start.
    pub moves: Vec<Move>,
    /// The plies that were searched, in order: the last `plies.len()` of `moves`.
    pub plies: Vec<SearchedPly<B>>,
    /// The winner; none for a draw or a game stopped at the ply cap.
    pub winner: Option<Color>,
}

/// Plays one self-play game: `random_plies` random legal moves (plus up to four), then a
/// search of `nodes` nodes per move. The game's randomness comes from `seed` and `game`
/// alone.
pub fn self_play<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    game: u32,
    tt: &Arc<TranspositionTable>,
) -> SelfPlay<B> {
    let player = Player { search: None, tt };
    play_between(tables, options, params, [player, player], generation, game)
}

/// One side of a game between two search settings: its parameters and its own table.
#[derive(Clone, Copy)]
pub struct Player<'a> {
    /// The search parameters it plays with; `None` plays the game's own
    /// ([`SearchParams::for_variant`]).
    pub search: Option<&'a SearchParams>,
    /// Its transposition table, cleared when the game starts.
    pub tt: &'a Arc<TranspositionTable>,
}

/// [`self_play`] with each side searching by its own parameters and table: `players` are
/// sente's and gote's. The opening depends on `generation.seed` and `game` alone, so two
/// games of the same number with the players swapped start alike.
pub fn play_between<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    params: &EvalParams,
    players: [Player<'_>; 2],
    generation: &Generation,
    game: u32,
) -> SelfPlay<B> {
    let mut moves = Vec::new();
    let mut plies = Vec::new();
    let Ok(record) = Game::new(tables, options.clone()) else {
        return SelfPlay {
            moves,
            plies,
            winner: None,
        };
    };
    for player in players {
        player.tt.clear();
    }
    // Each side's histories, kept from move to move of this game as an engine keeps them.
    let memories = side_memories();
    let node_limits = generation_limits(generation);
    // Each side's time left, under a clock.
    let mut remaining = generation
        .clock
        .map(|clock| [Duration::from_millis(clock.main_ms); 2]);
    let mut flagged = None;
    let winner = play_out(
        record,
        generation,
        game,
        |position, keys, checks| {
            let side = position.side_to_move();
            let player = players[side.index()];
            let memory = Some(&memories[side.index()]);
            let (Some(clock), Some(remaining)) = (generation.clock, remaining.as_mut()) else {
                let request =
                    search_request(position, keys, checks, params, player, &node_limits, memory);
                let outcome = search(request, &mut |_| {});
                return outcome.best.map(|best| (best, outcome.info.score));
            };
            let increment = Duration::from_millis(clock.increment_ms);
            let started = Instant::now();
            let limits = Limits {
                clock: Some(Clock {
                    remaining: remaining[side.index()],
                    byoyomi: Duration::ZERO,
                    increment,
                }),
                started: Some(started),
                ..Limits::default()
            };
            let request = search_request(position, keys, checks, params, player, &limits, memory);
            let outcome = search(request, &mut |_| {});
            let spent = started.elapsed();
            if spent > remaining[side.index()] {
                flagged = Some(side);
                return None;
            }
            remaining[side.index()] = remaining[side.index()] - spent + increment;
            outcome.best.map(|best| (best, outcome.info.score))
        },
        |position, mv, score| {
            moves.push(mv);
            if let Some(score) = score {
                plies.push(SearchedPly {
                    position,
                    best: mv,
                    score,
                });
            }
        },
    );
    SelfPlay {
        moves,
        plies,
        // A side out of time loses whatever the board says.
        winner: match flagged {
            Some(side) => Some(!side),
            None => winner,
        },
    }
}

/// What the self-play loop needs of a game: [`Game`] for one game's own position type,
/// [`AnyGame`] for a game chosen at run time.
trait PlayedGame {
    /// The game's position.
    type Position;
    fn status(&self) -> Status;
    fn position(&self) -> Self::Position;
    fn legal_moves(&self) -> Vec<Move>;
    /// Plays a move; `false` when the rules refuse it.
    fn play(&mut self, mv: Move) -> bool;
    /// The position's repetition key and whether its side to move is in check.
    fn key_and_check(position: &Self::Position) -> (u64, bool);
}

impl<B: Bitboard> PlayedGame for Game<B> {
    type Position = Position<B>;
    fn status(&self) -> Status {
        Game::status(self)
    }
    fn position(&self) -> Position<B> {
        Game::position(self).clone()
    }
    fn legal_moves(&self) -> Vec<Move> {
        Game::legal_moves(self)
    }
    fn play(&mut self, mv: Move) -> bool {
        Game::play(self, mv).is_ok()
    }
    fn key_and_check(position: &Position<B>) -> (u64, bool) {
        (position.key(), position.in_check())
    }
}

impl PlayedGame for AnyGame {
    type Position = AnyPosition;
    fn status(&self) -> Status {
        AnyGame::status(self)
    }
    fn position(&self) -> AnyPosition {
        AnyGame::position(self)
    }
    fn legal_moves(&self) -> Vec<Move> {
        AnyGame::legal_moves(self)
    }
    fn play(&mut self, mv: Move) -> bool {
        AnyGame::play(self, mv).is_ok()
    }
    fn key_and_check(position: &AnyPosition) -> (u64, bool) {
        (position.key(), position.in_check())
    }
}

/// Plays `record` out the way every self-play game goes: `generation.random_plies` and up to
/// four more random plies chosen by a generator seeded from `generation.seed` and `game` alone,
/// then the moves `choose` searches (given the position and the keys and checks of the
/// positions before it), until the game ends, `choose` finds no move or
/// `generation.max_plies` are played. Each ply goes to `played` with the position it was
/// played from and, for a searched one, its score. Gives the winner, if any.
fn play_out<G: PlayedGame>(
    mut record: G,
    generation: &Generation,
    game: u32,
    mut choose: impl FnMut(&G::Position, &[u64], &[bool]) -> Option<(Move, Score)>,
    mut played: impl FnMut(G::Position, Move, Option<Score>),
) -> Option<Color> {
    let mut rng = StdRng::seed_from_u64(
        generation.seed ^ u64::from(game).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    let random_plies = generation.random_plies as usize + rng.gen_range(0..=4);
    let (mut keys, mut checks) = (Vec::new(), Vec::new());
    let mut ply = 0;
    loop {
        match record.status() {
            Status::Finished(outcome) => return outcome.winner,
            Status::Ongoing if ply >= generation.max_plies => return None,
            Status::Ongoing => {}
        }
        let position = record.position();
        let (mv, score) = if ply < random_plies {
            match record.legal_moves().choose(&mut rng) {
                Some(&mv) => (mv, None),
                None => return None,
            }
        } else {
            match choose(&position, &keys, &checks) {
                Some((mv, score)) => (mv, Some(score)),
                None => return None,
            }
        };
        let (key, check) = G::key_and_check(&position);
        keys.push(key);
        checks.push(check);
        if !record.play(mv) {
            return None;
        }
        played(position, mv, score);
        ply += 1;
    }
}

/// A self-play search's limit: the generation's node count (at least one).
fn generation_limits(generation: &Generation) -> Limits {
    Limits {
        nodes: Some(generation.nodes.max(1)),
        ..Limits::default()
    }
}

/// Empty histories for each side of a game (sente's, gote's), kept from move to move of that
/// side as an engine process keeps its own.
pub(crate) fn side_memories() -> [Arc<SearchMemory>; 2] {
    std::array::from_fn(|_| Arc::new(SearchMemory::default()))
}

/// The search of one self-play move: `player`'s parameters and table, one thread, under
/// `limits`, with the histories of the game's earlier searches in `memory` (as an engine
/// keeps them from move to move) where given.
pub(crate) fn search_request<'a, P>(
    position: &'a P,
    keys: &'a [u64],
    checks: &'a [bool],
    params: &'a EvalParams,
    player: Player<'a>,
    limits: &'a Limits,
    memory: Option<&Arc<SearchMemory>>,
) -> SearchRequest<'a, P> {
    SearchRequest {
        position,
        history_keys: keys,
        history_checks: checks,
        limits,
        eval: params,
        search: player.search,
        tt: player.tt.clone(),
        stop: Arc::new(AtomicBool::new(false)),
        threads: 1,
        memory: memory.cloned(),
    }
}

/// Whether a searched ply is quiet enough to learn a static evaluation from: the side to move
/// is not in check and the chosen move takes nothing.
pub fn is_quiet<B: Bitboard>(ply: &SearchedPly<B>) -> bool {
    is_quiet_move(&ply.position, ply.best)
}

/// Plays one game and gives it as stored, with how many training positions it holds.
fn play_game<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    game: u32,
    tt: &Arc<TranspositionTable>,
) -> (GameRecord, usize) {
    let played = self_play(tables, options, params, generation, game, tt);
    let positions = played.plies.iter().filter(|ply| is_quiet(ply)).count();
    let first_searched = played.moves.len() - played.plies.len();
    let plies = played
        .moves
        .iter()
        .enumerate()
        .map(|(index, &mv)| Ply {
            mv,
            score: index
                .checked_sub(first_searched)
                .and_then(|searched| played.plies.get(searched))
                .map(|ply| stored_score(ply.score)),
        })
        .collect();
    let record = GameRecord {
        game,
        winner: played.winner,
        start: None,
        plies,
        final_score: None,
    };
    (record, positions)
}

/// Plays one game of any kind as [`play_between`] does (both sides with the default search
/// parameters and one table), on [`AnyGame`], and gives it as stored with how many training
/// positions it holds.
fn play_any_game(
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    game: u32,
    tt: &Arc<TranspositionTable>,
) -> (GameRecord, usize) {
    let mut stored = GameRecord {
        game,
        winner: None,
        start: None,
        plies: Vec::new(),
        final_score: None,
    };
    let Ok(record) = AnyGame::new(options.clone()) else {
        return (stored, 0);
    };
    tt.clear();
    let player = Player { search: None, tt };
    // Each side's histories from move to move, as in `play_between`.
    let memories = side_memories();
    let limits = generation_limits(generation);
    let mut quiet = 0;
    stored.winner = play_out(
        record,
        generation,
        game,
        |position, keys, checks| {
            let memory = &memories[position.side_to_move().index()];
            let request = search_request(
                position,
                keys,
                checks,
                params,
                player,
                &limits,
                Some(memory),
            );
            let outcome = search_any(request, &mut |_| {});
            outcome.best.map(|best| (best, outcome.info.score))
        },
        |position, mv, score| {
            if score.is_some() && is_quiet_any(&position, mv) {
                quiet += 1;
            }
            stored.plies.push(Ply {
                mv,
                score: score.map(stored_score),
            });
        },
    );
    (stored, quiet)
}

/// [`is_quiet_move`] on a position of any game; a capture on the way (a Tenjiku lion's) takes
/// too.
fn is_quiet_any(position: &AnyPosition, mv: Move) -> bool {
    let takes = |square: Square| position.piece_at(square).is_some();
    let captures = matches!(mv.kind(), MoveKind::Normal { to, .. } if takes(to))
        || mv.middle().is_some_and(takes);
    !captures && !position.in_check()
}

/// The training positions of a stored game of any kind, counted by replaying it on
/// [`AnyGame`]: its searched quiet plies and a scored final position. `Err` names the first
/// ply the rules refuse.
fn count_quiet_plies(game: &GameRecord, options: &Options) -> Result<usize, String> {
    let mut count = usize::from(game.final_score.is_some());
    replay_quiet_any(game, options, |_, _| count += 1)?;
    Ok(count.min(usize::from(u16::MAX)))
}

/// Replays a stored game of any kind on [`AnyGame`], calling `on_quiet` with each searched
/// quiet ply's position (before the move) and stored score. `Err` names the start or the first
/// ply the rules refuse.
pub(crate) fn replay_quiet_any(
    game: &GameRecord,
    options: &Options,
    mut on_quiet: impl FnMut(AnyPosition, i16),
) -> Result<(), String> {
    let mut record = match &game.start {
        None => AnyGame::new(options.clone()),
        Some(sfen) => AnyGame::from_sfen(sfen, options.clone()),
    }
    .map_err(|e| format!("game {}: the start is refused: {e}", game.game))?;
    for (index, ply) in game.plies.iter().enumerate() {
        if let Some(score) = ply.score {
            let position = record.position();
            if is_quiet_any(&position, ply.mv) {
                on_quiet(position, score);
            }
        }
        record
            .play(ply.mv)
            .map_err(|e| format!("game {}: ply {}: {e}", game.game, index + 1))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::first_format_header;
    use tsubame_engine::nnue::Layout;
    use tsubame_rules::{tenjiku, tori};

    fn temp_path(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("tsubame-data-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        dir.to_string_lossy().into_owned()
    }

    fn run(path: &str, games: usize) -> Progress {
        let options = Options::defaults(tori::spec());
        let params = EvalParams::for_variant(tori::spec());
        let generation = Generation {
            games,
            nodes: 300,
            seed: 5,
            threads: 2,
            ..Generation::default()
        };
        generate(
            tori::tables(),
            &options,
            &params,
            &generation,
            path,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap()
    }

    #[test]
    fn tenjiku_games_are_kept_though_tenjiku_has_no_network() {
        let path = temp_path("tenjiku.games");
        let options = Options::defaults(tenjiku::spec());
        let params = EvalParams::for_variant(tenjiku::spec());
        let generation = Generation {
            games: 2,
            nodes: 400,
            seed: 3,
            threads: 1,
            max_plies: 14,
            ..Generation::default()
        };
        let play = |games| {
            generate_any(
                &options,
                &params,
                &Generation {
                    games,
                    ..generation
                },
                &path,
                &AtomicBool::new(false),
                &mut |_| {},
            )
            .unwrap()
        };
        let first = play(1);
        assert_eq!(first.games, 1);
        let bytes = std::fs::read(&path).unwrap();
        let file = read_games(&bytes, &path, Variant::Tenjiku).unwrap();
        let game = &file.games[0];
        assert_eq!(game.plies.len(), 14, "played to the cap");
        assert!(
            game.plies.iter().any(|p| p.score.is_some()),
            "searched plies kept"
        );
        assert!(first.positions > 0);
        // Resuming counts what is there without a network's layout, and plays the rest.
        let second = play(2);
        assert_eq!(
            (second.resumed_games, second.resumed_positions, second.games),
            (1, first.positions, 2)
        );
        let _ = std::fs::remove_file(&path);
    }

    fn by_game(mut records: Vec<Record>) -> Vec<Record> {
        records.sort_by_key(|r| (r.game, r.ply));
        records
    }

    #[test]
    fn a_mirrored_record_is_the_record_of_the_mirrored_position() {
        let rules = Options::defaults(tori::spec()).rule_set();
        let record_of = |sfen: &str, game: u32| {
            let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
            Record::of(&position, Layout::of(&position), game, -45, 1)
        };
        let layout = Layout::for_variant(Variant::Tori).unwrap();
        let mirror = tori::spec().mirror_roles().unwrap();
        let original = record_of("l3k2/1s5/7/3F3/7/2L4/3K3 w 2Sr 12", 3);
        let image = original.mirrored(layout, 7, &mirror);
        assert_eq!(image, record_of("2k3r/5s1/7/3F3/7/4R2/3K3 w 2Sl 12", 3));
        assert_eq!(image.mirrored(layout, 7, &mirror), original);

        // Only the games training uses get images: game 10 is kept aside for validation.
        let mut records = vec![
            original.clone(),
            Record {
                game: 10,
                ..original
            },
        ];
        assert_eq!(
            add_mirror_images(&mut records, Variant::Tori, 10).unwrap(),
            1
        );
        assert_eq!(records.len(), 3);
        assert_eq!(records[2], image);
    }

    #[test]
    fn a_training_share_keeps_whole_blocks_and_every_held_out_game() {
        let record_of_game = |game| Record {
            game,
            game_records: 1,
            ply: 0,
            side: Color::Sente,
            result: 0,
            score: 0,
            board: vec![0; 49],
            hands: vec![0; 22],
        };
        let mut records: Vec<Record> = (0..40).map(record_of_game).collect();
        let half: TrainingShare = "1/2".parse().unwrap();
        assert_eq!(keep_training_share(&mut records, half, 10), 18);
        let kept: Vec<u32> = records.iter().map(|r| r.game).collect();
        let expected: Vec<u32> = (0..10).chain([10]).chain(20..30).chain([30]).collect();
        assert_eq!(kept, expected);
        // Held out: 0, 10, 20 and 30 whatever the share; trained on: blocks 0 and 2.
        assert_eq!(kept.iter().filter(|&&g| !g.is_multiple_of(10)).count(), 18);

        let mut all: Vec<Record> = (0..40).map(record_of_game).collect();
        assert_eq!(keep_training_share(&mut all, TrainingShare::ALL, 10), 0);
        let mut none_held: Vec<Record> = (0..40).map(record_of_game).collect();
        assert_eq!(keep_training_share(&mut none_held, half, 0), 20);

        for bad in ["", "1", "0/2", "3/2", "a/2", "1/b", "1/0"] {
            assert!(bad.parse::<TrainingShare>().is_err(), "{bad}");
        }
        assert_eq!(
            "2/3".parse::<TrainingShare>(),
            Ok(TrainingShare { kept: 2, of: 3 })
        );
    }

    #[test]
    fn records_hold_the_position_and_its_inputs() {
        let options = Options::defaults(tori::spec());
        let rules = options.rule_set();
        let position =
            Position::from_sfen(tori::tables(), "3k3/1s5/7/3F3/7/7/3K3 w 2Sc 12", rules).unwrap();
        let layout = Layout::of(&position);
        let record = Record::of(&position, layout, 7, -45, 1);
        let mut bytes = Vec::new();
        record.write(&mut bytes);
        assert_eq!(bytes.len(), Record::size(layout));
        assert_eq!(Record::size(layout), 83);
        let read = Record::read(&bytes, layout).unwrap();
        assert_eq!(read, record);
        assert_eq!(
            (read.side, read.score, read.result, read.ply),
            (Color::Gote, -45, 1, 12)
        );
        let plain = tsubame_engine::nnue::RoyalBuckets::plain(Variant::Tori).unwrap();
        for perspective in [Color::Sente, Color::Gote] {
            let (mut from_record, mut from_position) = (Vec::new(), Vec::new());
            read.inputs_in_view(layout, &plain, perspective, &mut from_record);
            layout.inputs_of(&position, perspective, &mut from_position);
            from_record.sort_unstable();
            from_position.sort_unstable();
            assert_eq!(from_record, from_position);
        }
        // A side or result byte no record has is refused.
        let mut bad = bytes.clone();
        bad[8] = 2;
        assert_eq!(Record::read(&bad, layout), None);
        assert_eq!(Record::read(&bytes[1..], layout), None);
    }

    #[test]
    fn a_stopped_run_resumes_to_the_same_games_and_damage_at_the_end_is_cut() {
        let whole = temp_path("whole");
        let progress = run(&whole, 6);
        assert_eq!(progress.games, 6);
        let expected = by_game(read_file(&whole, Variant::Tori).unwrap());
        assert_eq!(expected.len(), progress.positions);
        assert!(expected.len() > 6 * 10, "{}", expected.len());
        assert!(expected.iter().all(|r| r.score.abs() <= MAX_SCORE));
        // Every position is one whose side is not in check.
        let rules = Options::defaults(tori::spec()).rule_set();
        for record in &expected {
            let position = crate::games::tests::position_of(record, rules);
            assert!(!position.in_check());
        }

        // Three games, then on to six: the same games.
        let resumed = temp_path("resumed");
        run(&resumed, 3);
        let progress = run(&resumed, 6);
        assert_eq!((progress.resumed_games, progress.games), (3, 6));
        assert_eq!(
            by_game(read_file(&resumed, Variant::Tori).unwrap()),
            expected
        );

        // A stop in the middle of writing the last game: it is left out, then played again.
        let length = std::fs::metadata(&resumed).unwrap().len();
        let file = OpenOptions::new().write(true).open(&resumed).unwrap();
        file.set_len(length - 7).unwrap();
        drop(file);
        let cut = read_file(&resumed, Variant::Tori).unwrap();
        let games: HashSet<u32> = cut.iter().map(|r| r.game).collect();
        assert_eq!(games.len(), 5, "the cut game is left out whole");
        let progress = run(&resumed, 6);
        assert_eq!((progress.resumed_games, progress.games), (5, 6));
        assert_eq!(progress.resumed_positions + cut.len(), 2 * cut.len());
        assert_eq!(
            by_game(read_file(&resumed, Variant::Tori).unwrap()),
            expected
        );

        // Another game's file, and no data file at all, are refused by name.
        let wa = read_file(&resumed, Variant::Wa).unwrap_err();
        assert!(matches!(wa, DataError::Variant { .. }), "{wa}");
        let text = temp_path("text");
        std::fs::write(&text, "3k3/7/7/7/7/7/3K3 b - 1\t1\n").unwrap();
        assert!(matches!(
            read_file(&text, Variant::Tori),
            Err(DataError::Magic(_))
        ));
        // Games are not appended to a file of labelled positions, nor under other options.
        let positions = temp_path("positions");
        let layout = Layout::for_variant(Variant::Tori).unwrap();
        let first_game: Vec<Record> = expected.iter().filter(|r| r.game == 0).cloned().collect();
        let mut bytes = first_format_header(Variant::Tori, layout);
        for record in &first_game {
            record.write(&mut bytes);
        }
        std::fs::write(&positions, &bytes).unwrap();
        assert_eq!(read_file(&positions, Variant::Tori).unwrap(), first_game);
        let generation = Generation {
            games: 1,
            nodes: 100,
            ..Generation::default()
        };
        let params = EvalParams::for_variant(tori::spec());
        let refused = generate(
            tori::tables(),
            &Options::defaults(tori::spec()),
            &params,
            &generation,
            &positions,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(matches!(refused, DataError::PositionFile(_)), "{refused}");
        let other_options = generate(
            tori::tables(),
            &Options::parse(tori::spec(), "shrike=on").unwrap(),
            &params,
            &generation,
            &resumed,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            matches!(other_options, DataError::Options { .. }),
            "{other_options}"
        );
        for path in [whole, resumed, text, positions] {
            let _ = std::fs::remove_file(path);
        }
    }
}
