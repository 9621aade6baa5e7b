//! Texel tuning of the evaluation for the games with drops and check (Tori, Wa): self-play
//! games give positions labelled with the game's result, and gradient descent (Adam) moves all
//! weights at once to lower the mean squared difference between the result and the evaluation
//! turned into an expected score by a logistic curve. The evaluation is a sum of weights times
//! counts ([`tsubame_engine::eval::terms`]), so each position is read once into its counts and every
//! step is a pass over numbers; thousands of weights (each kind's places around both royals)
//! can be fitted on hundreds of thousands of positions in minutes.
//!
//! ```
//! use tsubame_engine::eval::EvalParams;
//! use tsubame_train::tune::{Sample, generate, fit};
//! use tsubame_rules::{Options, Position, tori, SfenError};
//!
//! let options = Options::defaults(tori::spec());
//! let lines = generate(tori::tables(), &options, &EvalParams::for_variant(tori::spec()),
//!     &tsubame_train::tune::Generation { games: 2, nodes: 300, seed: 7, threads: 1, ..Default::default() },
//!     &mut |_| {});
//! let samples: Vec<Sample<Position<u64>>> = lines.iter()
//!     .map(|line| Sample::parse(tori::tables(), &options, line).unwrap())
//!     .collect();
//! let base = EvalParams::for_variant(tori::spec());
//! let settings = tsubame_train::tune::FitSettings { steps: 20, threads: 2, ..Default::default() };
//! let result = fit(&samples, &base, &settings, &mut |_| {});
//! assert!(result.error_after <= result.error_before);
//! ```

use crate::data::{SelfPlay, is_quiet, replay_quiet_any, self_play};
use crate::games::read_games;
use crate::positions::DataError;
use std::collections::HashMap;
use std::sync::Arc;
use tsubame_engine::eval::{EvalParams, Term, Terms, evaluate, evaluate_tenjiku, terms};
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::tenjiku::{self, TenjikuPosition};
use tsubame_rules::{
    AnyPosition, Bitboard, Color, Options, Position, SfenError, Square, Tables, Variant,
    VariantSpec,
};

/// How the self-play games that give the positions are played (shared with the network's
/// data generator).
pub use crate::data::Generation;

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
    let SelfPlay { plies, winner, .. } =
        self_play(tables, options, params, generation, index as u32, tt);
    plies
        .iter()
        .filter(|ply| is_quiet(ply))
        .map(|ply| {
            let result = match winner {
                None => "0.5",
                Some(color) if color == ply.position.side_to_move() => "1",
                Some(_) => "0",
            };
            format!("{}\t{result}", ply.position.to_sfen())
        })
        .collect()
}

/// A labelled position: the position (a [`Position`] of Tori or Wa, or a [`TenjikuPosition`])
/// and its label, the expected result for the side to move: the game's (1, 0.5 or 0), or a
/// blend with the search's score ([`Labelling`]).
#[derive(Clone, Debug)]
pub struct Sample<P> {
    /// The position.
    pub position: P,
    /// The expected result for the side to move, between 0 and 1.
    pub result: f64,
}

/// Why a line is no sample.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SampleError {
    /// No tab between the position and the result.
    #[error("a sample is <SFEN><tab><result>")]
    Shape,
    /// A result other than 1, 0.5 or 0 (quoted, cut to 40 characters).
    #[error("result {0:?} is not 1, 0.5 or 0")]
    Result(String),
    /// A position the rules refuse.
    #[error("{sfen:?}: {error}")]
    Position {
        /// The SFEN, cut to 200 characters.
        sfen: String,
        /// Why.
        error: SfenError,
    },
}

impl<B: Bitboard> Sample<Position<B>> {
    /// Reads a line written by [`generate`]; the error names what is wrong.
    pub fn parse(
        tables: &'static Tables<B>,
        options: &Options,
        line: &str,
    ) -> Result<Sample<Position<B>>, SampleError> {
        let (sfen, result) = line.split_once('\t').ok_or(SampleError::Shape)?;
        let result = match result.trim() {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            other => return Err(SampleError::Result(other.chars().take(40).collect())),
        };
        let position =
            Position::from_sfen(tables, sfen.trim(), options.rule_set()).map_err(|error| {
                SampleError::Position {
                    sfen: sfen.chars().take(200).collect(),
                    error,
                }
            })?;
        Ok(Sample { position, result })
    }
}

/// A position the evaluation can be fitted on: Tori's and Wa's [`Position`], whose evaluation
/// is a sum of weights times counts throughout ([`terms`]), and Tenjiku's [`TenjikuPosition`],
/// whose piece values and rank tables are tuned with the rest of its evaluation held as it is.
pub trait TunedPosition: Sync {
    /// The game's rules.
    fn spec(&self) -> &'static VariantSpec;
    /// The evaluation under `params`, for the side to move.
    fn evaluate(&self, params: &EvalParams) -> i32;
    /// The weights of `base` worth tuning in this game.
    fn slots(spec: &'static VariantSpec, base: &EvalParams) -> Vec<Term>
    where
        Self: Sized;
    /// The evaluation under `params` as a constant plus counts of the weights numbered by
    /// `index` (by their number; a weight may come more than once), from the side to move's
    /// view.
    fn counts(&self, params: &EvalParams, index: &HashMap<Term, u32>) -> (f64, Vec<(u32, i32)>);
}

impl<B: Bitboard> TunedPosition for Position<B> {
    fn spec(&self) -> &'static VariantSpec {
        self.tables().spec
    }

    fn evaluate(&self, params: &EvalParams) -> i32 {
        evaluate(self, params)
    }

    fn slots(spec: &'static VariantSpec, base: &EvalParams) -> Vec<Term> {
        slots(spec, base)
    }

    fn counts(&self, params: &EvalParams, index: &HashMap<Term, u32>) -> (f64, Vec<(u32, i32)>) {
        let mut collect = Collect {
            side: self.side_to_move().index(),
            index,
            params,
            constant: 0,
            counts: Vec::new(),
        };
        terms(self, params, &mut collect);
        (collect.constant as f64, collect.counts)
    }
}

impl TunedPosition for TenjikuPosition {
    fn spec(&self) -> &'static VariantSpec {
        tenjiku::spec()
    }

    fn evaluate(&self, params: &EvalParams) -> i32 {
        evaluate_tenjiku(self, params)
    }

    /// The values of the non-royal kinds and their rank tables past the first entry (which
    /// the value covers): the weights of [`evaluate_tenjiku`] that count pieces where they
    /// stand. Its other terms (centrality, royal safety, mop-up) are not sums of counts and
    /// stay as they are.
    fn slots(spec: &'static VariantSpec, _base: &EvalParams) -> Vec<Term> {
        let ranks = usize::from(spec.height);
        let mut slots = Vec::new();
        for (r, role) in spec.roles.iter().enumerate() {
            if role.royal {
                continue;
            }
            slots.push(Term::Board(r));
            slots.extend((1..ranks).map(|i| Term::Rank(r, i)));
        }
        slots
    }

    /// Counts each piece's value and rank entry; the constant is the rest of the evaluation
    /// under `params` (so the counts are exact for `params` and the fit moves only the
    /// counted weights).
    fn counts(&self, params: &EvalParams, index: &HashMap<Term, u32>) -> (f64, Vec<(u32, i32)>) {
        let side = self.side_to_move();
        let mut counts = Vec::new();
        let mut counted = 0i64;
        for color in Color::ALL {
            let sign = if color == side { 1 } else { -1 };
            for square in self.occupied_by(color).iter() {
                let Some(piece) = self.piece_at(Square::from_index(square as u8)) else {
                    continue;
                };
                let rank = square / 16;
                let progress = match color {
                    Color::Sente => 15 - rank,
                    Color::Gote => rank,
                };
                let r = piece.role.index();
                for term in [Term::Board(r), Term::Rank(r, progress)] {
                    if let Some(&slot) = index.get(&term) {
                        counts.push((slot, sign));
                        counted += i64::from(sign) * i64::from(term.get(params));
                    }
                }
            }
        }
        (
            f64::from(evaluate_tenjiku(self, params)) - counted as f64,
            counts,
        )
    }
}

/// How the positions of a games file are labelled for a fit: by the game's result, by the
/// search's score at the position, or by a blend of the two.
///
/// ```
/// use tsubame_train::tune::Labelling;
///
/// // The result alone (the default): the score does not count.
/// assert_eq!(Labelling::default().label(1.0, -300), 1.0);
/// // The score alone, on the fit's own curve: 0 is even, 400 ten to one.
/// let scores = Labelling { score_weight: 1.0, score_scale: 1.0 };
/// assert_eq!(scores.label(0.0, 0), 0.5);
/// assert!((scores.label(0.0, 400) - 10.0 / 11.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Labelling {
    /// The share of the search's score in a label: 0 labels by the game's result alone, 1 by
    /// the score alone (for games that mostly end undecided at the ply cap, as Wa's without
    /// drops do, where the result says little of who stood better).
    pub score_weight: f64,
    /// The scaling of a score to an expected result, on the fit's curve `1 / (1 + 10^(-scale
    /// * score / 400))`.
    pub score_scale: f64,
}

impl Labelling {
    /// Labels by the game's result alone.
    pub const RESULTS: Labelling = Labelling {
        score_weight: 0.0,
        score_scale: 1.0,
    };

    /// The label of a position whose game ended `result` for its side to move and whose
    /// search scored it `score` (centipawns, for the side to move).
    pub fn label(&self, result: f64, score: i16) -> f64 {
        if self.score_weight == 0.0 {
            return result;
        }
        self.score_weight * expected(f64::from(score), self.score_scale)
            + (1.0 - self.score_weight) * result
    }
}

impl Default for Labelling {
    fn default() -> Labelling {
        Labelling::RESULTS
    }
}

/// The labelled positions of a games file of `variant` (as `tsubame nnue generate` writes it;
/// `path` names it in errors), with the rule options the games were played under: each game's
/// searched plies whose side to move is not in check and whose move takes nothing, labelled
/// as `labelling` says from the game's result for the side to move (a draw, or a game stopped
/// at the ply cap, 0.5) and the search's score. `take` turns a position into the fit's kind
/// of position; one it refuses is an error naming the game.
pub fn games_samples<P>(
    bytes: &[u8],
    path: &str,
    variant: Variant,
    labelling: Labelling,
    mut take: impl FnMut(&Options, AnyPosition) -> Option<P>,
) -> Result<(Options, Vec<Sample<P>>), DataError> {
    let file = read_games(bytes, path, variant)?;
    let mut samples = Vec::new();
    for game in &file.games {
        let mut refused = false;
        replay_quiet_any(game, &file.options, |position, score| {
            let side = position.side_to_move();
            let result = match game.winner {
                None => 0.5,
                Some(winner) if winner == side => 1.0,
                Some(_) => 0.0,
            };
            match take(&file.options, position) {
                Some(position) => samples.push(Sample {
                    position,
                    result: labelling.label(result, score),
                }),
                None => refused = true,
            }
        })
        .map_err(|what| DataError::Refused {
            path: path.to_string(),
            what,
        })?;
        if refused {
            return Err(DataError::Refused {
                path: path.to_string(),
                what: format!("game {}: a position is not of this fit's game", game.game),
            });
        }
    }
    Ok((file.options, samples))
}

/// The labelled positions of a games file of Tenjiku (as `tsubame nnue generate --variant
/// tenjiku` writes it), as [`games_samples`] reads them.
pub fn tenjiku_samples(
    bytes: &[u8],
    path: &str,
    labelling: Labelling,
) -> Result<Vec<Sample<TenjikuPosition>>, DataError> {
    games_samples(
        bytes,
        path,
        Variant::Tenjiku,
        labelling,
        |_, position| match position {
            AnyPosition::Tenjiku(position) => Some(*position),
            _ => None,
        },
    )
    .map(|(_, samples)| samples)
}

/// The weights worth tuning in `base`: values of non-royal kinds (in hand only where they can
/// be held), their piece-square entries past the first of each table (which the value already
/// covers), their places relative to each royal, the royal-danger table and the positional
/// weights; the mop-up weights only where they are in use.
fn slots(spec: &VariantSpec, base: &EvalParams) -> Vec<Term> {
    let mut slots = Vec::new();
    for (r, role) in spec.roles.iter().enumerate() {
        if role.royal {
            continue;
        }
        slots.push(Term::Board(r));
        if base.hand_value.get(r).is_some_and(|&v| v != 0) {
            slots.push(Term::Hand(r));
        }
        let ranks = base.rank_bonus.get(r).map_or(0, Vec::len);
        slots.extend((1..ranks).map(|i| Term::Rank(r, i)));
        let files = base.file_bonus.get(r).map_or(0, Vec::len);
        slots.extend((1..files).map(|i| Term::File(r, i)));
        let places = base.near_enemy_royal.get(r).map_or(0, Vec::len);
        slots.extend((0..places).map(|i| Term::NearEnemyRoyal(r, i)));
        let places = base.near_own_royal.get(r).map_or(0, Vec::len);
        slots.extend((0..places).map(|i| Term::NearOwnRoyal(r, i)));
    }
    slots.extend((0..base.royal_danger.len()).map(Term::RoyalDanger));
    for (r, role) in spec.roles.iter().enumerate() {
        if !role.royal {
            if r < base.hanging.len() {
                slots.push(Term::Hanging(r));
            }
            if r < base.attacked.len() {
                slots.push(Term::Attacked(r));
            }
        }
    }
    slots.extend((0..base.weak_zone.len()).map(Term::WeakZone));
    slots.extend([
        Term::Mobility,
        Term::RoyalShelter,
        Term::RoyalAttack,
        Term::DropThreat,
        Term::Tempo,
    ]);
    if base.mop_up_edge != 0 || base.mop_up_tropism != 0 {
        slots.extend([Term::MopUpEdge, Term::MopUpTropism]);
    }
    slots
}

/// The expected score of an evaluation for the side to move.
fn expected(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Runs `work` on `threads` parts of `items` at once and sums what the parts return.
fn in_parts<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&[T]) -> R + Sync,
    mut sum: impl FnMut(R),
) {
    if items.is_empty() {
        return;
    }
    let chunk = items.len().div_ceil(threads.max(1));
    std::thread::scope(|scope| {
        let work = &work;
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        for part in parts {
            if let Ok(result) = part.join() {
                sum(result);
            }
        }
    });
}

/// Mean squared difference between results and expected scores, over `threads` threads.
fn error<P: TunedPosition>(
    samples: &[&Sample<P>],
    params: &EvalParams,
    k: f64,
    threads: usize,
) -> f64 {
    let mut total = 0.0;
    in_parts(
        samples,
        threads,
        |part| {
            part.iter()
                .map(|s| {
                    let d = s.result - expected(f64::from(s.position.evaluate(params)), k);
                    d * d
                })
                .sum::<f64>()
        },
        |part| total += part,
    );
    total / samples.len().max(1) as f64
}

/// The scaling of evaluations to expected scores that fits `params` best (searched between
/// 0.001 and 4 by narrowing a bracket).
fn fit_scale<P: TunedPosition>(samples: &[&Sample<P>], params: &EvalParams, threads: usize) -> f64 {
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

/// Positions kept aside or trained on together: several whole games.
pub const VALIDATION_BLOCK: usize = 512;

/// How a tuning run goes.
#[derive(Clone, Debug)]
pub struct FitSettings {
    /// Gradient steps over all training positions.
    pub steps: usize,
    /// Threads for the gradient and the error.
    pub threads: usize,
    /// Largest change of a weight in one step, in centipawns, at the start; it falls to a
    /// tenth of this by the last step.
    pub learning_rate: f64,
    /// Strength of the pull of each weight back to its starting value (L2), which keeps the
    /// weights of rarely seen features where they were.
    pub regularization: f64,
    /// The [`EvalParams`] fields to tune (`board_value`, `near_enemy_royal`, ...); empty: all.
    pub only: Vec<String>,
    /// Every how many blocks of [`VALIDATION_BLOCK`] positions one is kept aside to measure
    /// the error on positions the fit has not seen (0: none).
    pub validation_every: usize,
}

impl Default for FitSettings {
    fn default() -> Self {
        FitSettings {
            steps: 400,
            threads: 1,
            learning_rate: 2.0,
            // Of 0, 1e-10, 5e-10, 1e-9, 2e-9, 4e-9, 1e-8, 3e-8 and 1e-7, the lowest error on
            // kept-aside games of 327,137 Tori positions.
            regularization: 1e-9,
            validation_every: 10,
            only: Vec::new(),
        }
    }
}

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The tuned weights.
    pub params: EvalParams,
    /// The scaling of evaluations to expected scores.
    pub scale: f64,
    /// Mean squared error on the training positions with the starting weights.
    pub error_before: f64,
    /// Mean squared error on the training positions with the tuned weights.
    pub error_after: f64,
    /// Mean squared error on the kept-aside positions with the starting weights.
    pub validation_before: f64,
    /// Mean squared error on the kept-aside positions with the tuned weights.
    pub validation_after: f64,
    /// Number of weights the run moved.
    pub changed: usize,
}

/// Progress of a tuning run, reported every tenth of the steps and after the last.
#[derive(Clone, Debug)]
pub struct Round {
    /// Steps done.
    pub step: usize,
    /// Mean squared error on the training positions before this step (with unrounded
    /// weights).
    pub error: f64,
}

/// A position as the weights it counts: the evaluation is `constant` plus the sum of
/// `count * weight[slot]`, from the side to move's view.
struct Features {
    constant: f64,
    counts: Vec<(u32, f32)>,
    result: f64,
}

/// Collects terms from the evaluation, from the side to move's view.
struct Collect<'a> {
    side: usize,
    index: &'a HashMap<Term, u32>,
    params: &'a EvalParams,
    constant: i64,
    counts: Vec<(u32, i32)>,
}

impl Terms for Collect<'_> {
    fn add(&mut self, color: usize, term: Term, count: i32) {
        let count = if color == self.side { count } else { -count };
        match self.index.get(&term) {
            Some(&slot) => self.counts.push((slot, count)),
            None => self.constant += i64::from(count) * i64::from(term.get(self.params)),
        }
    }
}

fn features<P: TunedPosition>(
    sample: &Sample<P>,
    params: &EvalParams,
    index: &HashMap<Term, u32>,
) -> Features {
    let (constant, mut counts) = sample.position.counts(params, index);
    counts.sort_unstable_by_key(|&(slot, _)| slot);
    let mut merged: Vec<(u32, f32)> = Vec::with_capacity(counts.len());
    for (slot, count) in counts {
        match merged.last_mut() {
            Some(last) if last.0 == slot => last.1 += count as f32,
            _ => merged.push((slot, count as f32)),
        }
    }
    merged.retain(|&(_, count)| count != 0.0);
    Features {
        constant,
        counts: merged,
        result: sample.result,
    }
}

/// Mean squared error of unrounded `weights` over `features`, and its gradient.
fn gradient(features: &[Features], weights: &[f64], k: f64, threads: usize) -> (f64, Vec<f64>) {
    let slope = k * std::f64::consts::LN_10 / 400.0;
    let mut error = 0.0;
    let mut grad = vec![0.0; weights.len()];
    in_parts(
        features,
        threads,
        |part| {
            let mut error = 0.0;
            let mut grad = vec![0.0; weights.len()];
            for f in part {
                let eval = f.constant
                    + f.counts
                        .iter()
                        .map(|&(slot, count)| f64::from(count) * weights[slot as usize])
                        .sum::<f64>();
                let p = expected(eval, k);
                let d = p - f.result;
                error += d * d;
                let g = 2.0 * d * p * (1.0 - p) * slope;
                for &(slot, count) in &f.counts {
                    grad[slot as usize] += g * f64::from(count);
                }
            }
            (error, grad)
        },
        |(part_error, part_grad)| {
            error += part_error;
            for (total, part) in grad.iter_mut().zip(part_grad) {
                *total += part;
            }
        },
    );
    let n = features.len().max(1) as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    (error / n, grad)
}

/// Tunes `base` on `samples` by gradient descent (Adam) on the mean squared difference between
/// results and expected scores, with a pull of every weight back to its start. Every
/// `settings.validation_every`-th position is kept aside to show whether the fit carries over
/// to positions it has not seen.
pub fn fit<P: TunedPosition>(
    samples: &[Sample<P>],
    base: &EvalParams,
    settings: &FitSettings,
    report: &mut dyn FnMut(&Round),
) -> Fit {
    let threads = settings.threads.max(1);
    // In blocks, because the positions of one game follow each other and share its result:
    // kept-aside positions from the games trained on would flatter the fit.
    let kept_aside = |i: usize| {
        settings.validation_every > 0
            && (i / VALIDATION_BLOCK + 1).is_multiple_of(settings.validation_every)
    };
    let mut training: Vec<&Sample<P>> = Vec::with_capacity(samples.len());
    let mut validation: Vec<&Sample<P>> = Vec::new();
    for (i, sample) in samples.iter().enumerate() {
        if kept_aside(i) {
            validation.push(sample);
        } else {
            training.push(sample);
        }
    }
    let Some(spec) = training.first().map(|s| s.position.spec()) else {
        return Fit {
            params: base.clone(),
            scale: 1.0,
            error_before: 0.0,
            error_after: 0.0,
            validation_before: 0.0,
            validation_after: 0.0,
            changed: 0,
        };
    };
    // Tables the base leaves empty are off in the evaluation; fitting needs their terms.
    let base = &base.with_every_table(spec);
    let scale = fit_scale(&training, base, threads);
    let error_before = error(&training, base, scale, threads);
    let validation_before = error(&validation, base, scale, threads);
    let slots: Vec<Term> = P::slots(spec, base)
        .into_iter()
        .filter(|term| {
            settings.only.is_empty() || settings.only.iter().any(|name| term.field() == name)
        })
        .collect();
    let index: HashMap<Term, u32> = slots
        .iter()
        .enumerate()
        .map(|(i, &term)| (term, i as u32))
        .collect();
    let mut all_features = Vec::with_capacity(training.len());
    in_parts(
        &training,
        threads,
        |part| {
            part.iter()
                .map(|s| features(s, base, &index))
                .collect::<Vec<_>>()
        },
        |part| all_features.extend(part),
    );
    let start: Vec<f64> = slots.iter().map(|s| f64::from(s.get(base))).collect();
    let mut weights = start.clone();
    let (mut first_moment, mut second_moment) = (vec![0.0; slots.len()], vec![0.0; slots.len()]);
    let (beta1, beta2) = (0.9f64, 0.999f64);
    let every = (settings.steps / 10).max(1);
    for step in 0..settings.steps {
        let (loss, mut grad) = gradient(&all_features, &weights, scale, threads);
        if step % every == 0 {
            report(&Round { step, error: loss });
        }
        for (g, (w, w0)) in grad.iter_mut().zip(weights.iter().zip(&start)) {
            *g += 2.0 * settings.regularization * (w - w0);
        }
        let t = (step + 1) as i32;
        let progress = step as f64 / settings.steps.max(1) as f64;
        let rate = settings.learning_rate * (1.0 - 0.9 * progress);
        for i in 0..weights.len() {
            first_moment[i] = beta1 * first_moment[i] + (1.0 - beta1) * grad[i];
            second_moment[i] = beta2 * second_moment[i] + (1.0 - beta2) * grad[i] * grad[i];
            let m = first_moment[i] / (1.0 - beta1.powi(t));
            let v = second_moment[i] / (1.0 - beta2.powi(t));
            weights[i] -= rate * m / (v.sqrt() + 1e-12);
        }
    }
    let mut params = base.clone();
    let mut changed = 0;
    for (slot, &weight) in slots.iter().zip(&weights) {
        let value = weight.round() as i32;
        if value != slot.get(base) {
            changed += 1;
        }
        slot.set(&mut params, value);
    }
    let error_after = error(&training, &params, scale, threads);
    report(&Round {
        step: settings.steps,
        error: error_after,
    });
    Fit {
        validation_after: error(&validation, &params, scale, threads),
        params: params.without_zero_tables(),
        scale,
        error_before,
        error_after,
        validation_before,
        changed,
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
            let error =
                Sample::<Position<u64>>::parse(tori::tables(), &options(), line).unwrap_err();
            assert!(error.to_string().contains(expected), "{line}: {error}");
        }
    }

    #[test]
    fn every_slot_reads_back_what_is_set() {
        let mut params = EvalParams::for_variant(tori::spec()).with_every_table(tori::spec());
        let all = slots(tori::spec(), &params);
        // Each non-royal kind has 2 * 169 places around the royals alone.
        assert!(all.len() > 3000, "{}", all.len());
        for (i, slot) in all.iter().enumerate() {
            slot.set(&mut params, 1000 + i as i32);
        }
        for (i, slot) in all.iter().enumerate() {
            assert_eq!(slot.get(&params), 1000 + i as i32, "{slot:?}");
        }
        // The phoenix is the royal: its value is no weight to tune.
        assert!(!all.contains(&Term::Board(tori::PHOENIX.index())));
    }

    fn samples(sfens: &[&str], result: f64) -> Vec<Sample<Position<u64>>> {
        let rules = options().rule_set();
        sfens
            .iter()
            .map(|sfen| Sample {
                position: Position::from_sfen(tori::tables(), sfen, rules).unwrap(),
                result,
            })
            .collect()
    }

    #[test]
    fn the_counts_of_a_position_add_up_to_its_evaluation() {
        let base = EvalParams::for_variant(tori::spec()).with_every_table(tori::spec());
        let all = slots(tori::spec(), &base);
        // Weights that differ per slot, so a count given to the wrong weight shows.
        let mut params = base.clone();
        for (i, slot) in all.iter().enumerate() {
            slot.set(&mut params, (i as i32 * 37) % 201 - 100);
        }
        let index = all
            .iter()
            .enumerate()
            .map(|(i, &term)| (term, i as u32))
            .collect();
        let positions = samples(
            &[
                "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b - 1",
                "rpckcpl/3f3/ssss1ss/4s2/SS1SSSS/2S1F2/LPCKCPR w - 1",
                "4k2/6s/5F1/2F4/7/7/3K3 b S 1",
                "1k4l/7/1c5/C6/7/7/3K3 b C 1",
                "r1ckc1l/3f3/s1ss1ss/1s5/1S1SsSS/2SF3/LPCK1PR w 2Sp 1",
            ],
            1.0,
        );
        for sample in &positions {
            let f = features(sample, &params, &index);
            let weights: Vec<f64> = all.iter().map(|s| f64::from(s.get(&params))).collect();
            let sum = f.constant
                + f.counts
                    .iter()
                    .map(|&(slot, count)| f64::from(count) * weights[slot as usize])
                    .sum::<f64>();
            assert_eq!(
                sum,
                f64::from(evaluate(&sample.position, &params)),
                "{}",
                sample.position.to_sfen()
            );
        }
    }

    #[test]
    fn when_the_side_to_move_always_wins_tuning_raises_the_tempo() {
        let positions = samples(
            &[
                "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b - 1",
                "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR w - 1",
                "rpckcpl/3f3/ssss1ss/4s2/SS1SSSS/2S1F2/LPCKCPR b - 1",
                "rpckcpl/3f3/ssss1ss/4s2/SS1SSSS/2S1F2/LPCKCPR w - 1",
            ],
            1.0,
        );
        let base = EvalParams::for_variant(tori::spec());
        let mut reports = 0;
        let settings = FitSettings {
            steps: 30,
            validation_every: 0,
            ..FitSettings::default()
        };
        let result = fit(&positions, &base, &settings, &mut |_| reports += 1);
        assert_eq!(reports, 11);
        assert!(result.error_after < result.error_before);
        assert!(result.params.tempo > base.tempo, "{}", result.params.tempo);
        assert_eq!(result.params.value(tori::PHOENIX), 0);
    }

    #[test]
    fn only_the_named_fields_are_tuned() {
        let positions = samples(
            &[
                "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b - 1",
                "rpckcpl/3f3/ssss1ss/4s2/SS1SSSS/2S1F2/LPCKCPR w - 1",
            ],
            1.0,
        );
        let base = EvalParams::for_variant(tori::spec());
        let settings = FitSettings {
            steps: 30,
            validation_every: 0,
            only: vec!["tempo".into()],
            ..FitSettings::default()
        };
        let result = fit(&positions, &base, &settings, &mut |_| {});
        assert_eq!(result.changed, 1);
        assert_ne!(result.params.tempo, base.tempo);
        let mut reset = result.params.clone();
        reset.tempo = base.tempo;
        assert_eq!(reset, base);
    }

    #[test]
    fn kept_aside_positions_are_not_trained_on() {
        // Training positions say sente to move wins, the kept-aside ones that it loses: the
        // fit lowers the training error and raises the validation error.
        let won = samples(&["rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b - 1"], 1.0);
        let lost = samples(&["rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b - 1"], 0.0);
        let mut positions = Vec::new();
        for block in 0..8 {
            let kind = if (block + 1) % 4 == 0 { &lost } else { &won };
            positions.extend(std::iter::repeat_n(kind[0].clone(), VALIDATION_BLOCK));
        }
        let base = EvalParams::for_variant(tori::spec());
        let settings = FitSettings {
            steps: 30,
            validation_every: 4,
            ..FitSettings::default()
        };
        let result = fit(&positions, &base, &settings, &mut |_| {});
        assert!(result.error_after < result.error_before);
        assert!(result.validation_after > result.validation_before);
    }

    /// The bytes of a games file that `generation` writes under `options` and `params`
    /// (`name` keeps the file apart from other tests').
    fn generated_games(
        name: &str,
        options: &Options,
        params: &EvalParams,
        generation: &Generation,
    ) -> Vec<u8> {
        let path = std::env::temp_dir().join(format!("tsubame-tune-{}-{name}", std::process::id()));
        let path = path.to_string_lossy().into_owned();
        let _ = std::fs::remove_file(&path);
        crate::data::generate_any(
            options,
            params,
            generation,
            &path,
            &std::sync::atomic::AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        bytes
    }

    /// A games file of two short Tori self-play games, as bytes.
    fn tori_games(name: &str) -> Vec<u8> {
        let generation = Generation {
            games: 2,
            nodes: 200,
            seed: 3,
            threads: 2,
            max_plies: 80,
            ..Generation::default()
        };
        generated_games(
            name,
            &Options::defaults(tori::spec()),
            &EvalParams::for_variant(tori::spec()),
            &generation,
        )
    }

    #[test]
    fn games_file_labels_blend_the_result_and_the_search_score() {
        let bytes = tori_games("labels");
        let take = |rules: &Options, position: AnyPosition| {
            Position::from_sfen(tori::tables(), &position.to_sfen(), rules.rule_set()).ok()
        };
        // What each quiet searched position should carry, read the long way round.
        let file = read_games(&bytes, "tori.games", Variant::Tori).unwrap();
        let mut expected_pairs = Vec::new();
        for game in &file.games {
            replay_quiet_any(game, &file.options, |position, score| {
                let result = match game.winner {
                    None => 0.5,
                    Some(winner) if winner == position.side_to_move() => 1.0,
                    Some(_) => 0.0,
                };
                expected_pairs.push((position.to_sfen(), result, score));
            })
            .unwrap();
        }
        assert!(expected_pairs.len() > 20, "{}", expected_pairs.len());
        assert!(expected_pairs.iter().any(|&(_, _, score)| score > 50));
        assert!(expected_pairs.iter().any(|&(_, _, score)| score < -50));

        let by_results = games_samples(
            &bytes,
            "tori.games",
            Variant::Tori,
            Labelling::RESULTS,
            take,
        )
        .unwrap()
        .1;
        let blend = Labelling {
            score_weight: 0.25,
            score_scale: 1.5,
        };
        let (options, blended) =
            games_samples(&bytes, "tori.games", Variant::Tori, blend, take).unwrap();
        assert_eq!(options, Options::defaults(tori::spec()));
        assert_eq!(by_results.len(), expected_pairs.len());
        assert_eq!(blended.len(), expected_pairs.len());
        for ((sample, blended), (sfen, result, score)) in
            by_results.iter().zip(&blended).zip(&expected_pairs)
        {
            assert_eq!(&sample.position.to_sfen(), sfen);
            assert_eq!(sample.result, *result);
            let from_score = 1.0 / (1.0 + 10f64.powf(-1.5 * f64::from(*score) / 400.0));
            let label = 0.25 * from_score + 0.75 * result;
            assert!(
                (blended.result - label).abs() < 1e-12,
                "{sfen}: {}",
                blended.result
            );
        }

        // A file of another game is refused by name, not misread.
        let wrong = games_samples(
            &bytes,
            "tori.games",
            Variant::Wa,
            Labelling::RESULTS,
            |_, _| Some(()),
        );
        assert!(wrong.is_err());
        // A position the fit cannot take is an error naming the game.
        let refused = games_samples(
            &bytes,
            "tori.games",
            Variant::Tori,
            Labelling::RESULTS,
            |_, _| None::<()>,
        )
        .unwrap_err();
        // Games are stored in the order they finished: the first one stored is the one named.
        let first = format!("game {}:", file.games[0].game);
        assert!(refused.to_string().contains(&first), "{refused}");
    }

    /// Tenjiku samples from a generated games file, with the mop-up terms off so that the
    /// evaluation is linear in the pieces' values and rank entries.
    fn tenjiku_fixture(name: &str) -> (Vec<Sample<TenjikuPosition>>, EvalParams) {
        let params = EvalParams {
            mop_up_margin: 0,
            ..EvalParams::for_variant(tenjiku::spec())
        };
        let generation = Generation {
            games: 2,
            nodes: 150,
            seed: 4,
            threads: 2,
            max_plies: 90,
            ..Generation::default()
        };
        let bytes = generated_games(
            name,
            &Options::defaults(tenjiku::spec()),
            &params,
            &generation,
        );
        (
            tenjiku_samples(&bytes, "tenjiku.games", Labelling::RESULTS).unwrap(),
            params,
        )
    }

    #[test]
    fn tenjiku_counts_add_up_to_the_evaluation_under_other_weights() {
        let (samples, base) = tenjiku_fixture("counts");
        assert!(samples.len() > 60, "{}", samples.len());
        let spec = tenjiku::spec();
        let base = base.with_every_table(spec);
        let slots = TenjikuPosition::slots(spec, &base);
        assert!(
            slots
                .iter()
                .all(|term| !matches!(term, Term::Board(r) if spec.roles[*r].royal))
        );
        let index: HashMap<Term, u32> = slots
            .iter()
            .enumerate()
            .map(|(i, &term)| (term, i as u32))
            .collect();
        // Other weights: every slot moved by its own amount.
        let mut moved = base.clone();
        for (i, slot) in slots.iter().enumerate() {
            slot.set(&mut moved, slot.get(&base) + (i as i32 % 23) - 11);
        }
        for sample in &samples {
            let (constant, counts) = sample.position.counts(&base, &index);
            let linear = constant
                + counts
                    .iter()
                    .map(|&(slot, count)| {
                        f64::from(count) * f64::from(slots[slot as usize].get(&moved))
                    })
                    .sum::<f64>();
            assert_eq!(
                linear,
                f64::from(evaluate_tenjiku(&sample.position, &moved))
            );
        }
    }

    #[test]
    fn tenjiku_fit_learns_what_decides_the_results() {
        // Labelled so that the side with more pawns wins: the fit raises the pawn's value.
        let (mut samples, base) = tenjiku_fixture("fit");
        let spec = tenjiku::spec();
        let pawn = spec.role_by_sfen("P").unwrap();
        let mut unequal = 0;
        for sample in &mut samples {
            let side = sample.position.side_to_move();
            let pawns = |color| {
                let position = &sample.position;
                position
                    .pieces(color)
                    .filter(|&square| position.piece_at(square).is_some_and(|p| p.role == pawn))
                    .count()
            };
            let (ours, theirs) = (pawns(side), pawns(!side));
            sample.result = match ours.cmp(&theirs) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            };
            unequal += usize::from(ours != theirs);
        }
        assert!(unequal > 10, "{unequal} positions with unequal pawns");
        let settings = FitSettings {
            steps: 60,
            learning_rate: 5.0,
            validation_every: 0,
            only: vec!["board_value".into()],
            ..FitSettings::default()
        };
        let result = fit(&samples, &base, &settings, &mut |_| {});
        assert!(result.error_after < result.error_before);
        assert!(
            result.params.board_value[pawn.index()] > base.board_value[pawn.index()],
            "pawn {} -> {}",
            base.board_value[pawn.index()],
            result.params.board_value[pawn.index()]
        );
    }
}
