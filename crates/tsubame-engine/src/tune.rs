//! Texel tuning of the evaluation for the games with drops and check (Tori, Wa): self-play
//! games give positions labelled with the game's result, and the weights are moved one at a
//! time, step by step up or down, for as long as that lowers the mean squared difference
//! between the result and the evaluation turned into an expected score by a logistic curve.
//!
//! ```
//! use tsubame_engine::eval::EvalParams;
//! use tsubame_engine::tune::{Sample, generate, fit};
//! use tsubame_rules::{Options, tori};
//!
//! let options = Options::defaults(tori::spec());
//! let lines = generate(tori::tables(), &options, &EvalParams::for_variant(tori::spec()),
//!     &tsubame_engine::tune::Generation { games: 2, nodes: 300, seed: 7, threads: 1, ..Default::default() },
//!     &mut |_| {});
//! let samples: Vec<Sample<u64>> = lines.iter()
//!     .map(|line| Sample::parse(tori::tables(), &options, line).unwrap())
//!     .collect();
//! let base = EvalParams::for_variant(tori::spec());
//! let result = fit(&samples, &base, 1, 2, &mut |_| {});
//! assert!(result.error_after <= result.error_before);
//! ```

use crate::eval::{EvalParams, evaluate};
use crate::limits::Limits;
use crate::search::search;
use crate::tt::TranspositionTable;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tsubame_rules::{
    Bitboard, Color, Game, MoveKind, Options, Position, Status, Tables, VariantSpec,
};

/// How the self-play games that give the positions are played.
#[derive(Clone, Debug)]
pub struct Generation {
    /// Number of games.
    pub games: usize,
    /// Search nodes per move.
    pub nodes: u64,
    /// Seed of the random openings.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
    /// Random plies at the start of each game, at least.
    pub random_plies: u32,
    /// Plies after which a game counts as a draw.
    pub max_plies: usize,
}

impl Default for Generation {
    fn default() -> Self {
        Generation {
            games: 1000,
            nodes: 3000,
            seed: 1,
            threads: 1,
            random_plies: 6,
            max_plies: 300,
        }
    }
}

/// Plays `generation.games` self-play games and returns one line per quiet position:
/// `<SFEN>\t<result for the side to move: 1, 0.5 or 0>`. A position is quiet when the side to
/// move is not in check and the search's move takes nothing, so its static evaluation is what
/// the tuning compares with the result. `on_game` is called with each finished game's number.
pub fn generate<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    on_game: &mut (dyn FnMut(usize) + Send),
) -> Vec<String> {
    let threads = generation.threads.clamp(1, 64);
    let on_game = std::sync::Mutex::new(on_game);
    let mut lines = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let on_game = &on_game;
                scope.spawn(move || {
                    let tt = Arc::new(TranspositionTable::new(16));
                    let mut lines = Vec::new();
                    for index in (thread..generation.games).step_by(threads) {
                        lines.extend(play_one(tables, options, params, generation, index, &tt));
                        if let Ok(mut report) = on_game.lock() {
                            report(index);
                        }
                    }
                    lines
                })
            })
            .collect();
        for worker in workers {
            if let Ok(part) = worker.join() {
                lines.extend(part);
            }
        }
    });
    lines
}

fn play_one<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    params: &EvalParams,
    generation: &Generation,
    index: usize,
    tt: &Arc<TranspositionTable>,
) -> Vec<String> {
    let mut rng =
        StdRng::seed_from_u64(generation.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let Ok(mut game) = Game::new(tables, options.clone()) else {
        return Vec::new();
    };
    tt.clear();
    let random_plies = generation.random_plies + rng.gen_range(0..=4);
    let mut keys = Vec::new();
    let mut checks = Vec::new();
    let mut quiet: Vec<(String, Color)> = Vec::new();
    let limits = Limits {
        nodes: Some(generation.nodes.max(1)),
        ..Limits::default()
    };
    let mut plies = 0;
    let winner = loop {
        match game.status() {
            Status::Finished(outcome) => break outcome.winner,
            Status::Ongoing if plies >= generation.max_plies => break None,
            Status::Ongoing => {}
        }
        let position = game.position().clone();
        let mv = if plies < random_plies as usize {
            match game.legal_moves().choose(&mut rng) {
                Some(&mv) => mv,
                None => break None,
            }
        } else {
            let outcome = search(
                &position,
                &keys,
                &checks,
                &limits,
                params,
                tt.clone(),
                Arc::new(AtomicBool::new(false)),
                1,
                &mut |_| {},
            );
            let Some(mv) = outcome.best else { break None };
            let captures =
                matches!(mv.kind(), MoveKind::Normal { to, .. } if position.piece_at(to).is_some());
            if !position.in_check() && !captures {
                quiet.push((position.to_sfen(), position.side_to_move()));
            }
            mv
        };
        keys.push(position.key());
        checks.push(position.in_check());
        if game.play(mv).is_err() {
            break None;
        }
        plies += 1;
    };
    quiet
        .into_iter()
        .map(|(sfen, mover)| {
            let result = match winner {
                None => "0.5",
                Some(color) if color == mover => "1",
                Some(_) => "0",
            };
            format!("{sfen}\t{result}")
        })
        .collect()
}

/// A labelled position: the position and the side to move's result (1, 0.5 or 0).
#[derive(Clone, Debug)]
pub struct Sample<B: Bitboard> {
    /// The position.
    pub position: Position<B>,
    /// The game's result for the side to move.
    pub result: f64,
}

impl<B: Bitboard> Sample<B> {
    /// Reads a line written by [`generate`]; the error names what is wrong.
    pub fn parse(
        tables: &'static Tables<B>,
        options: &Options,
        line: &str,
    ) -> Result<Sample<B>, String> {
        let (sfen, result) = line
            .split_once('\t')
            .ok_or("a sample is <SFEN><tab><result>")?;
        let result = match result.trim() {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            other => return Err(format!("result {other:?} is not 1, 0.5 or 0")),
        };
        let position = Position::from_sfen(tables, sfen.trim(), options.rule_set())
            .map_err(|e| format!("{sfen:?}: {e}"))?;
        Ok(Sample { position, result })
    }
}

/// One tunable weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Board(usize),
    Hand(usize),
    Rank(usize, usize),
    File(usize, usize),
    Mobility,
    RoyalShelter,
    RoyalAttack,
    DropThreat,
    Tempo,
    MopUpEdge,
    MopUpTropism,
}

impl Slot {
    fn get(self, params: &EvalParams) -> i32 {
        let value = match self {
            Slot::Board(r) => params.board_value.get(r),
            Slot::Hand(r) => params.hand_value.get(r),
            Slot::Rank(r, i) => params.rank_bonus.get(r).and_then(|t| t.get(i)),
            Slot::File(r, i) => params.file_bonus.get(r).and_then(|t| t.get(i)),
            Slot::Mobility => Some(&params.mobility),
            Slot::RoyalShelter => Some(&params.royal_shelter),
            Slot::RoyalAttack => Some(&params.royal_attack),
            Slot::DropThreat => Some(&params.drop_threat),
            Slot::Tempo => Some(&params.tempo),
            Slot::MopUpEdge => Some(&params.mop_up_edge),
            Slot::MopUpTropism => Some(&params.mop_up_tropism),
        };
        value.copied().unwrap_or(0)
    }

    fn set(self, params: &mut EvalParams, value: i32) {
        let target = match self {
            Slot::Board(r) => params.board_value.get_mut(r),
            Slot::Hand(r) => params.hand_value.get_mut(r),
            Slot::Rank(r, i) => params.rank_bonus.get_mut(r).and_then(|t| t.get_mut(i)),
            Slot::File(r, i) => params.file_bonus.get_mut(r).and_then(|t| t.get_mut(i)),
            Slot::Mobility => Some(&mut params.mobility),
            Slot::RoyalShelter => Some(&mut params.royal_shelter),
            Slot::RoyalAttack => Some(&mut params.royal_attack),
            Slot::DropThreat => Some(&mut params.drop_threat),
            Slot::Tempo => Some(&mut params.tempo),
            Slot::MopUpEdge => Some(&mut params.mop_up_edge),
            Slot::MopUpTropism => Some(&mut params.mop_up_tropism),
        };
        if let Some(target) = target {
            *target = value;
        }
    }

    /// How far one try moves the weight: coarse in the first rounds, then finer.
    fn step(self, round: usize) -> i32 {
        let base = match self {
            Slot::Board(_) | Slot::Hand(_) => 16,
            _ => 4,
        };
        (base >> round.min(4)).max(1)
    }

    fn name(self, spec: &VariantSpec) -> String {
        let role = |r: usize| spec.roles.get(r).map_or("?", |role| role.name);
        match self {
            Slot::Board(r) => format!("board_value {}", role(r)),
            Slot::Hand(r) => format!("hand_value {}", role(r)),
            Slot::Rank(r, i) => format!("rank_bonus {} {i}", role(r)),
            Slot::File(r, i) => format!("file_bonus {} {i}", role(r)),
            other => format!("{other:?}"),
        }
    }
}

/// The weights worth tuning in `base`: values of non-royal kinds (in hand only where they can
/// be held), their piece-square entries past the first of each table (which the value already
/// covers), and the positional weights; the mop-up weights only where they are in use.
fn slots(spec: &VariantSpec, base: &EvalParams) -> Vec<Slot> {
    let mut slots = Vec::new();
    for (r, role) in spec.roles.iter().enumerate() {
        if role.royal {
            continue;
        }
        slots.push(Slot::Board(r));
        if base.hand_value.get(r).is_some_and(|&v| v != 0) {
            slots.push(Slot::Hand(r));
        }
        let ranks = base.rank_bonus.get(r).map_or(0, Vec::len);
        slots.extend((1..ranks).map(|i| Slot::Rank(r, i)));
        let files = base.file_bonus.get(r).map_or(0, Vec::len);
        slots.extend((1..files).map(|i| Slot::File(r, i)));
    }
    slots.extend([
        Slot::Mobility,
        Slot::RoyalShelter,
        Slot::RoyalAttack,
        Slot::DropThreat,
        Slot::Tempo,
    ]);
    if base.mop_up_edge != 0 || base.mop_up_tropism != 0 {
        slots.extend([Slot::MopUpEdge, Slot::MopUpTropism]);
    }
    slots
}

/// Most steps one weight moves in one round.
const MAX_STEPS: usize = 16;

/// The expected score of an evaluation for the side to move.
fn expected(eval: i32, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * f64::from(eval) / 400.0))
}

/// Mean squared difference between results and expected scores, over `threads` threads.
fn error<B: Bitboard>(samples: &[Sample<B>], params: &EvalParams, k: f64, threads: usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let chunk = samples.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|scope| {
        let parts: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|s| {
                            let d = s.result - expected(evaluate(&s.position, params), k);
                            d * d
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        parts.into_iter().filter_map(|p| p.join().ok()).sum()
    });
    total / samples.len() as f64
}

/// The scaling of evaluations to expected scores that fits `params` best (searched between
/// 0.001 and 4 by narrowing a bracket).
fn fit_scale<B: Bitboard>(samples: &[Sample<B>], params: &EvalParams, threads: usize) -> f64 {
    let (mut low, mut high) = (0.001f64, 4.0f64);
    for _ in 0..30 {
        let a = low + (high - low) / 3.0;
        let b = high - (high - low) / 3.0;
        if error(samples, params, a, threads) < error(samples, params, b, threads) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The tuned weights.
    pub params: EvalParams,
    /// The scaling of evaluations to expected scores.
    pub scale: f64,
    /// Mean squared error with the starting weights.
    pub error_before: f64,
    /// Mean squared error with the tuned weights.
    pub error_after: f64,
}

/// Progress of a tuning run, after each round over all weights.
#[derive(Clone, Debug)]
pub struct Round {
    /// Round number from 1.
    pub round: usize,
    /// The error after it.
    pub error: f64,
    /// Weights changed in it, with their new values.
    pub changed: Vec<(String, i32)>,
}

/// Tunes `base` on `samples` for at most `rounds` rounds over every weight (fewer when a
/// round at the finest step changes nothing).
pub fn fit<B: Bitboard>(
    samples: &[Sample<B>],
    base: &EvalParams,
    rounds: usize,
    threads: usize,
    report: &mut dyn FnMut(&Round),
) -> Fit {
    let Some(spec) = samples.first().map(|s| s.position.tables().spec) else {
        return Fit {
            params: base.clone(),
            scale: 1.0,
            error_before: 0.0,
            error_after: 0.0,
        };
    };
    let scale = fit_scale(samples, base, threads);
    let error_before = error(samples, base, scale, threads);
    let mut params = base.clone();
    let mut best = error_before;
    let slots = slots(spec, base);
    for round in 0..rounds {
        let mut changed = Vec::new();
        for &slot in &slots {
            let start = slot.get(&params);
            let step = slot.step(round);
            // Up first, then down; a direction that helps is followed while it keeps helping
            // (at most `MAX_STEPS` steps a round), so weights far from their best get there in
            // few rounds.
            for direction in [step, -step] {
                let mut value = start;
                for _ in 0..MAX_STEPS {
                    slot.set(&mut params, value + direction);
                    let tried = error(samples, &params, scale, threads);
                    if tried >= best {
                        slot.set(&mut params, value);
                        break;
                    }
                    best = tried;
                    value += direction;
                }
                if value != start {
                    changed.push((slot.name(spec), value));
                    break;
                }
            }
        }
        let settled = changed.is_empty() && slots.iter().all(|s| s.step(round) == 1);
        report(&Round {
            round: round + 1,
            error: best,
            changed,
        });
        if settled {
            break;
        }
    }
    Fit {
        params,
        scale,
        error_before,
        error_after: best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::tori;

    fn options() -> Options {
        Options::defaults(tori::spec())
    }

    #[test]
    fn generated_positions_are_quiet_and_labelled() {
        let params = EvalParams::for_variant(tori::spec());
        let generation = Generation {
            games: 3,
            nodes: 200,
            seed: 3,
            threads: 2,
            ..Generation::default()
        };
        let mut finished = Vec::new();
        let lines = generate(
            tori::tables(),
            &options(),
            &params,
            &generation,
            &mut |game| finished.push(game),
        );
        finished.sort_unstable();
        assert_eq!(finished, [0, 1, 2]);
        assert!(lines.len() > 20, "{}", lines.len());
        for line in &lines {
            let sample = Sample::parse(tori::tables(), &options(), line).unwrap();
            assert!(!sample.position.in_check(), "{line}");
            assert!([0.0, 0.5, 1.0].contains(&sample.result), "{line}");
        }
    }

    #[test]
    fn bad_sample_lines_are_named() {
        for (line, expected) in [
            ("3k3/7/7/7/7/7/3K3 b - 1", "<SFEN><tab><result>"),
            ("3k3/7/7/7/7/7/3K3 b - 1\twon", "\"won\" is not 1, 0.5 or 0"),
            ("3k3/7/7/7/7/7/3Q3 b - 1\t1", "3Q3"),
        ] {
            let error = Sample::<u64>::parse(tori::tables(), &options(), line).unwrap_err();
            assert!(error.contains(expected), "{line}: {error}");
        }
    }

    #[test]
    fn every_slot_reads_back_what_is_set() {
        let mut params = EvalParams::for_variant(tori::spec());
        let all = slots(tori::spec(), &params);
        assert!(all.len() > 50, "{}", all.len());
        for (i, slot) in all.iter().enumerate() {
            slot.set(&mut params, 1000 + i as i32);
        }
        for (i, slot) in all.iter().enumerate() {
            assert_eq!(slot.get(&params), 1000 + i as i32, "{slot:?}");
        }
        // The phoenix is the royal: its value is no weight to tune.
        assert!(!all.contains(&Slot::Board(tori::PHOENIX.index())));
    }

    #[test]
    fn when_the_side_to_move_always_wins_tuning_raises_the_tempo() {
        let rules = options().rule_set();
        let samples: Vec<Sample<u64>> = [
            "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b - 1",
            "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR w - 1",
            "rpckcpl/3f3/ssss1ss/4s2/SS1SSSS/2S1F2/LPCKCPR b - 1",
            "rpckcpl/3f3/ssss1ss/4s2/SS1SSSS/2S1F2/LPCKCPR w - 1",
        ]
        .iter()
        .map(|sfen| Sample {
            position: Position::from_sfen(tori::tables(), sfen, rules).unwrap(),
            result: 1.0,
        })
        .collect();
        let base = EvalParams::for_variant(tori::spec());
        let mut rounds = 0;
        let result = fit(&samples, &base, 3, 1, &mut |_| rounds += 1);
        assert_eq!(rounds, 3);
        assert!(result.error_after < result.error_before);
        assert!(result.params.tempo > base.tempo, "{}", result.params.tempo);
        assert_eq!(result.params.value(tori::PHOENIX), 0);
    }
}
