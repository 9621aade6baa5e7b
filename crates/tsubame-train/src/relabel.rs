//! Searching stored games again: the training positions of a games file ([`crate::games`]),
//! or every searched ply, get the score of a new search, of more nodes or with another
//! evaluation, while the games, their moves and results stay as they were. Two data sets of the same positions labelled at two
//! depths then differ in their labels alone, which is what a match between the networks
//! trained on them measures.
//!
//! Each stored game is replayed and searched ply by ply the way self-play searched it: one
//! thread, a transposition table cleared when the game starts, the positions before it as
//! the repetition history. Searched again at the node count and evaluation it was played
//! with, a game gets back exactly the scores it had. The new file holds the stored games in
//! the same order, so a stopped run resumes after the last whole game it wrote.

use crate::data::{Player, search_request, side_memories};
use crate::games::{
    GameRecord, Ply, header as games_header, is_quiet_move, read_games, stored_score,
};
use crate::positions::{DataError, io_error, is_position_file};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tsubame_engine::eval::EvalParams;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::search;
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::{Bitboard, Game, Tables, Variant};

/// How stored games are searched again.
#[derive(Clone, Copy, Debug)]
pub struct Relabelling {
    /// Search nodes per searched ply.
    pub nodes: u64,
    /// Games searched at once.
    pub threads: usize,
    /// Search every searched ply again; otherwise only the training positions (the searched
    /// plies whose side is not in check and whose move takes nothing, and a scored final
    /// position), the other plies written as not searched. Training reads the same positions
    /// from either file; a Tori game's training positions are a little over half its searched
    /// plies, so this takes about half the time.
    pub all_plies: bool,
}

/// Progress of a relabelling run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelabelProgress {
    /// Games (entries of the file) written to the new file.
    pub games: usize,
    /// Games in the stored file.
    pub total_games: usize,
    /// Plies searched again, written to the new file.
    pub plies: usize,
    /// Plies to search again in the stored file: its searched plies, or its training
    /// positions.
    pub total_plies: usize,
    /// Games found in the new file when the run began.
    pub resumed_games: usize,
    /// Plies searched again found in the new file when the run began.
    pub resumed_plies: usize,
    /// Plies searched again whose score differs from the stored one.
    pub changed: usize,
}

/// The searched plies of a game, the final position's score counted.
fn searched_plies(game: &GameRecord) -> usize {
    game.plies.iter().filter(|ply| ply.score.is_some()).count()
        + usize::from(game.final_score.is_some())
}

/// How many plies searched again in `new` have another score than in `old`, the same game.
fn changed_scores(old: &GameRecord, new: &GameRecord) -> usize {
    old.plies
        .iter()
        .zip(&new.plies)
        .filter(|(a, b)| b.score.is_some() && a.score != b.score)
        .count()
        + usize::from(new.final_score.is_some() && old.final_score != new.final_score)
}

/// Whether `new` is `old` searched again: the same game, start, result and moves, searched
/// only where `old` was.
fn same_game(old: &GameRecord, new: &GameRecord) -> bool {
    old.game == new.game
        && old.winner == new.winner
        && old.start == new.start
        && (old.final_score.is_some() || new.final_score.is_none())
        && old.plies.len() == new.plies.len()
        && old
            .plies
            .iter()
            .zip(&new.plies)
            .all(|(a, b)| a.mv == b.mv && (a.score.is_some() || b.score.is_none()))
}

/// How many plies of `game` a relabelling searches again.
fn plies_to_search<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &tsubame_rules::Options,
    relabelling: &Relabelling,
    game: &GameRecord,
) -> Result<usize, String> {
    if relabelling.all_plies {
        Ok(searched_plies(game))
    } else {
        game.position_count(tables, options)
    }
}

/// Searches the stored games of the games file `input` again and writes them, with the new
/// scores, to the games file `output` in the same order. An `output` that already holds the
/// first games of `input` (a stopped run) is gone on with; a game cut short there by a stop is
/// cut and searched again. `stop` ends the run after the games being searched; `on_game`
/// hears of each written one.
#[allow(clippy::too_many_arguments)]
pub fn relabel<B: Bitboard>(
    tables: &'static Tables<B>,
    variant: Variant,
    params: &EvalParams,
    relabelling: &Relabelling,
    input: &str,
    output: &str,
    stop: &AtomicBool,
    on_game: &mut (dyn FnMut(RelabelProgress) + Send),
) -> Result<RelabelProgress, DataError> {
    let mut bytes = Vec::new();
    File::open(input)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(io_error(input))?;
    if is_position_file(&bytes) {
        return Err(DataError::PositionFile(input.to_string()));
    }
    let stored = read_games(&bytes, input, variant)?;
    drop(bytes);
    let options = stored.options;
    let games = stored.games;

    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(output)
        .map_err(io_error(output))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_error(output))?;
    let total_plies = games.iter().try_fold(0, |total, game| {
        plies_to_search(tables, &options, relabelling, game)
            .map(|plies| total + plies)
            .map_err(|what| DataError::Refused {
                path: input.to_string(),
                what,
            })
    })?;
    let mut progress = RelabelProgress {
        total_games: games.len(),
        total_plies,
        ..RelabelProgress::default()
    };
    if bytes.is_empty() {
        file.write_all(&games_header(&options))
            .map_err(io_error(output))?;
    } else {
        if is_position_file(&bytes) {
            return Err(DataError::PositionFile(output.to_string()));
        }
        let written = read_games(&bytes, output, variant)?;
        if written.options != options {
            return Err(DataError::Options {
                path: output.to_string(),
                found: written.options.to_string(),
                expected: options.to_string(),
            });
        }
        for (index, new) in written.games.iter().enumerate() {
            let Some(old) = games.get(index).filter(|old| same_game(old, new)) else {
                return Err(DataError::Refused {
                    path: output.to_string(),
                    what: format!(
                        "game {} of the file (number {}) is not game {} of {input} searched again: write to a new file",
                        index + 1,
                        new.game,
                        index + 1
                    ),
                });
            };
            progress.plies += searched_plies(new);
            progress.changed += changed_scores(old, new);
        }
        // A game cut short by a stop is cut from the file and searched again.
        file.set_len(written.whole_length as u64)
            .map_err(io_error(output))?;
        progress.games = written.games.len();
        progress.resumed_games = written.games.len();
        progress.resumed_plies = progress.plies;
    }
    file.seek(SeekFrom::End(0)).map_err(io_error(output))?;

    // Games are searched in batches of a few per thread and written in their order, so the
    // file always holds the first games of `input` and a stop loses at most one batch.
    let threads = relabelling.threads.clamp(1, 256);
    let batch = threads * 4;
    let tables_per_thread: Vec<Arc<TranspositionTable>> = (0..threads)
        .map(|_| Arc::new(TranspositionTable::new(16)))
        .collect();
    let mut buffer = Vec::new();
    while progress.games < games.len() && !stop.load(Ordering::Relaxed) {
        let todo = games
            .get(progress.games..(progress.games + batch).min(games.len()))
            .unwrap_or_default();
        let results: Vec<std::sync::Mutex<Option<Result<GameRecord, String>>>> =
            todo.iter().map(|_| std::sync::Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for tt in &tables_per_thread {
                let (next, todo, results, options) = (&next, todo, &results, &options);
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let (Some(game), Some(slot)) = (todo.get(index), results.get(index)) else {
                            break;
                        };
                        let searched = search_again(tables, options, params, relabelling, game, tt);
                        if let Ok(mut slot) = slot.lock() {
                            *slot = Some(searched);
                        }
                    }
                });
            }
        });
        for (old, slot) in todo.iter().zip(results) {
            let new = slot
                .into_inner()
                .ok()
                .flatten()
                .ok_or_else(|| DataError::Refused {
                    path: input.to_string(),
                    what: format!("game {}: its search did not finish", old.game),
                })?
                .map_err(|what| DataError::Refused {
                    path: input.to_string(),
                    what,
                })?;
            buffer.clear();
            new.write(&mut buffer);
            file.write_all(&buffer)
                .and_then(|()| file.flush())
                .map_err(io_error(output))?;
            progress.games += 1;
            progress.plies += searched_plies(&new);
            progress.changed += changed_scores(old, &new);
            on_game(progress);
        }
    }
    Ok(progress)
}

/// One stored game searched again: its moves replayed, each searched ply or training position
/// (and a scored final position) searched at `relabelling.nodes` with `tt` cleared first. `Err` names the first ply
/// the rules refuse.
fn search_again<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &tsubame_rules::Options,
    params: &EvalParams,
    relabelling: &Relabelling,
    stored: &GameRecord,
    tt: &Arc<TranspositionTable>,
) -> Result<GameRecord, String> {
    let mut game = match &stored.start {
        None => Game::new(tables, options.clone()),
        Some(sfen) => Game::from_sfen(tables, sfen, options.clone()),
    }
    .map_err(|e| format!("game {}: the start is refused: {e}", stored.game))?;
    tt.clear();
    let player = Player { search: None, tt };
    let limits = Limits {
        nodes: Some(relabelling.nodes.max(1)),
        ..Limits::default()
    };
    let (mut keys, mut checks) = (Vec::new(), Vec::new());
    // Each side's histories from move to move, as the game was played (`play_between`).
    let memories = side_memories();
    let score_of = |position: &tsubame_rules::Position<B>, keys: &[u64], checks: &[bool]| {
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
        stored_score(search(request, &mut |_| {}).info.score)
    };
    let mut plies = Vec::with_capacity(stored.plies.len());
    for (index, ply) in stored.plies.iter().enumerate() {
        let position = game.position();
        if !position.is_legal(ply.mv) {
            return Err(format!(
                "game {}: ply {} is no legal move",
                stored.game,
                index + 1
            ));
        }
        let searched_again =
            ply.score.is_some() && (relabelling.all_plies || is_quiet_move(position, ply.mv));
        let score = searched_again.then(|| score_of(position, &keys, &checks));
        keys.push(position.key());
        checks.push(position.in_check());
        plies.push(Ply { mv: ply.mv, score });
        game.play(ply.mv)
            .map_err(|e| format!("game {}: ply {}: {e}", stored.game, index + 1))?;
    }
    let final_score = stored
        .final_score
        .map(|_| score_of(game.position(), &keys, &checks));
    Ok(GameRecord {
        game: stored.game,
        winner: stored.winner,
        start: stored.start.clone(),
        plies,
        final_score,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Generation, Record, generate, read_file};
    use tsubame_rules::{Options, tori};

    fn temp_path(name: &str) -> String {
        let path =
            std::env::temp_dir().join(format!("tsubame-relabel-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path.to_string_lossy().into_owned()
    }

    /// Six Tori games searched at 300 nodes a move by the classical evaluation.
    fn played(path: &str) {
        let generation = Generation {
            games: 6,
            nodes: 300,
            seed: 9,
            threads: 2,
            ..Generation::default()
        };
        generate(
            tori::tables(),
            &Options::defaults(tori::spec()),
            &EvalParams::for_variant(tori::spec()),
            &generation,
            path,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
    }

    fn run(
        input: &str,
        output: &str,
        nodes: u64,
        threads: usize,
        stop_after: Option<usize>,
    ) -> RelabelProgress {
        run_with(input, output, nodes, threads, false, stop_after)
    }

    fn run_with(
        input: &str,
        output: &str,
        nodes: u64,
        threads: usize,
        all_plies: bool,
        stop_after: Option<usize>,
    ) -> RelabelProgress {
        let stop = AtomicBool::new(false);
        let stop_ref = &stop;
        relabel(
            tori::tables(),
            Variant::Tori,
            &EvalParams::for_variant(tori::spec()),
            &Relabelling {
                nodes,
                threads,
                all_plies,
            },
            input,
            output,
            stop_ref,
            &mut |progress| {
                if stop_after.is_some_and(|n| progress.games >= n) {
                    stop_ref.store(true, Ordering::Relaxed);
                }
            },
        )
        .unwrap()
    }

    fn games_of(path: &str) -> Vec<GameRecord> {
        read_games(&std::fs::read(path).unwrap(), path, Variant::Tori)
            .unwrap()
            .games
    }

    #[test]
    fn searched_again_as_played_the_games_come_back_byte_for_byte() {
        let input = temp_path("same-input");
        played(&input);
        let output = temp_path("same-output");
        let progress = run_with(&input, &output, 300, 2, true, None);
        assert_eq!(progress.games, 6);
        assert_eq!(progress.total_games, 6);
        assert_eq!(progress.plies, progress.total_plies);
        assert!(progress.plies > 6 * 10, "{progress:?}");
        assert_eq!(progress.changed, 0);
        assert_eq!(
            std::fs::read(&output).unwrap(),
            std::fs::read(&input).unwrap()
        );

        // Only the training positions searched again: the same training positions, every
        // other ply written as not searched. Their scores mostly come back too; those that do
        // not differ through the table, which the skipped plies' searches no longer fill.
        let training = temp_path("same-training");
        let progress = run(&input, &training, 300, 1, None);
        let positions = read_file(&input, Variant::Tori).unwrap();
        assert_eq!(progress.plies, positions.len());
        let again = read_file(&training, Variant::Tori).unwrap();
        assert_eq!(again.len(), positions.len());
        let differing = positions
            .iter()
            .zip(&again)
            .filter(|(a, b)| a.score != b.score)
            .count();
        assert_eq!(differing, progress.changed);
        assert!(
            differing * 5 < positions.len(),
            "{differing} of {}",
            positions.len()
        );
        let unscored = |records: &[Record]| {
            records
                .iter()
                .map(|r| Record {
                    score: 0,
                    ..r.clone()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(unscored(&again), unscored(&positions));
        let searched = |games: &[GameRecord]| {
            games
                .iter()
                .flat_map(|game| &game.plies)
                .filter(|ply| ply.score.is_some())
                .count()
        };
        assert_eq!(searched(&games_of(&training)), positions.len());
        assert!(searched(&games_of(&input)) > positions.len());
        for path in [input, output, training] {
            let _ = std::fs::remove_file(path);
        }
    }

    #[test]
    fn a_deeper_search_changes_scores_only_and_a_stopped_run_resumes_to_the_same_file() {
        let input = temp_path("deeper-input");
        played(&input);
        // A game of another start and a scored final position, as a converted file has: the
        // second half of game 0, played on from its middle.
        let mut games = games_of(&input);
        let first = games[0].clone();
        let half = first.plies.len() / 2;
        let mut game = Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
        for ply in &first.plies[..half] {
            game.play(ply.mv).unwrap();
        }
        games.push(GameRecord {
            game: 99,
            winner: first.winner,
            start: Some(game.position().to_sfen()),
            plies: first.plies[half..first.plies.len() - 1].to_vec(),
            final_score: Some(0),
        });
        let mut bytes = games_header(&Options::defaults(tori::spec()));
        for game in &games {
            game.write(&mut bytes);
        }
        std::fs::write(&input, &bytes).unwrap();

        let whole = temp_path("deeper-whole");
        let progress = run(&input, &whole, 1200, 1, None);
        assert_eq!((progress.games, progress.total_games), (7, 7));
        let deeper = games_of(&whole);
        assert_eq!(deeper.len(), games.len());
        assert!(games.iter().zip(&deeper).all(|(a, b)| same_game(a, b)));
        let changed: usize = games
            .iter()
            .zip(&deeper)
            .map(|(a, b)| changed_scores(a, b))
            .sum();
        assert_eq!(changed, progress.changed);
        // Most scores move with four times the nodes, but not all: a mate found stays one.
        assert!(changed * 2 > progress.total_plies, "{progress:?}");
        assert!(changed < progress.total_plies, "{progress:?}");
        assert!(deeper[6].final_score.is_some_and(|score| score != 0));
        // Training reads the same positions from both files, with the new scores.
        let (old, new) = (
            read_file(&input, Variant::Tori).unwrap(),
            read_file(&whole, Variant::Tori).unwrap(),
        );
        assert_eq!(old.len(), new.len());
        assert!(old.iter().zip(&new).all(|(a, b)| a.board == b.board
            && a.hands == b.hands
            && a.ply == b.ply
            && a.result == b.result));
        assert!(old.iter().zip(&new).any(|(a, b)| a.score != b.score));

        // Stopped after the first batch of four, then a stop in the middle of writing a game:
        // the cut game is searched again and the file ends as the whole run's.
        let resumed = temp_path("deeper-resumed");
        let progress = run(&input, &resumed, 1200, 1, Some(1));
        assert_eq!(progress.games, 4);
        let length = std::fs::metadata(&resumed).unwrap().len();
        OpenOptions::new()
            .write(true)
            .open(&resumed)
            .unwrap()
            .set_len(length - 5)
            .unwrap();
        let progress = run(&input, &resumed, 1200, 2, None);
        assert_eq!((progress.resumed_games, progress.games), (3, 7));
        assert!(progress.resumed_plies > 0 && progress.resumed_plies < progress.plies);
        assert_eq!(progress.plies, progress.total_plies);
        assert_eq!(
            std::fs::read(&resumed).unwrap(),
            std::fs::read(&whole).unwrap()
        );

        // A file of other games is not gone on with.
        let other = temp_path("deeper-other");
        let mut bytes = games_header(&Options::defaults(tori::spec()));
        games[1].write(&mut bytes);
        std::fs::write(&other, &bytes).unwrap();
        let refused = relabel(
            tori::tables(),
            Variant::Tori,
            &EvalParams::for_variant(tori::spec()),
            &Relabelling {
                nodes: 1200,
                threads: 1,
                all_plies: false,
            },
            &input,
            &other,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(refused.to_string().contains("is not game 1"), "{refused}");
        for path in [input, whole, resumed, other] {
            let _ = std::fs::remove_file(path);
        }
    }
}
