//! Training a network on the CPU: floating-point weights, mini-batch gradient descent with Adam
//! on the squared difference between the predicted expected score and a blend of the search's
//! score and the game's result, several threads per batch, and integer weights written out
//! after each epoch.
//!
//! The first layer is sparse: a position activates a few dozen of about a thousand inputs, so
//! its forward pass and its gradient touch only those rows. That is why this trainer is our
//! own: the general tensor libraries treat the first layer as a dense matrix product, which on
//! two cores costs more than the whole of this.

use crate::data::Record;
use crate::positions::is_held_out;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use tsubame_engine::nnue::{
    HAND_PIECES_PER_BUCKET, HIDDEN, Layout, Network, OUTPUT_BUCKETS, OUTPUT_SCALE, QA, QB,
    RoyalBuckets,
};
use tsubame_rules::Variant;

/// Largest magnitude of a first-layer weight or bias: with [`QA`] it stays well inside 16 bits
/// for any position's sum.
const W1_LIMIT: f32 = 1.98;
/// Largest magnitude of an output weight: times [`QB`] it stays within +-127, which the
/// integer output layer needs.
const W2_LIMIT: f32 = 127.0 / QB as f32;

/// How a training run goes.
#[derive(Clone, Debug)]
pub struct TrainSettings {
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions per gradient step.
    pub batch_size: usize,
    /// Adam's step size in the first epoch.
    pub learning_rate: f32,
    /// Factor the step size is multiplied by after each epoch.
    pub learning_rate_decay: f32,
    /// Weight of the search's score in the target; the game's result has the rest.
    pub score_weight: f32,
    /// Games whose number is a multiple of this are kept aside for validation (0: none).
    pub validation_every: u32,
    /// Threads per batch.
    pub threads: usize,
    /// Seed of the initial weights and of the shuffles.
    pub seed: u64,
    /// The scale that turns a score into an expected result; `None` fits it to the data's
    /// results ([`Prepared::fit_score_scale`]).
    pub score_scale: Option<f32>,
    /// With royal buckets, the step size of each bucket's own first-layer rows as a fraction
    /// of the others' (the shared rows, the biases, the output layer). A bucket's rows see
    /// only the positions with the royal in its part of the board; slower steps keep them
    /// small corrections to the shared rows instead of fitting those few games.
    pub royal_rate: f32,
}

impl Default for TrainSettings {
    fn default() -> Self {
        TrainSettings {
            epochs: 20,
            batch_size: 16_384,
            learning_rate: 0.001,
            learning_rate_decay: 0.9,
            score_weight: 0.7,
            validation_every: 10,
            threads: 2,
            seed: 1,
            score_scale: None,
            royal_rate: 1.0,
        }
    }
}

/// What one epoch did.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Mean loss over the training positions during the epoch.
    pub train_loss: f64,
    /// Mean loss over the kept-aside games after the epoch (`NaN` with none).
    pub validation_loss: f64,
    /// Mean loss over the kept-aside games against their results alone, whatever the score
    /// weight: how well the network foretells who wins games it never saw. Unlike
    /// `validation_loss`, it compares runs of different score weights (at one score scale).
    pub validation_result_loss: f64,
    /// Seconds the epoch took.
    pub seconds: f64,
}

/// A network's weights as floating-point numbers, for training.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    variant: Variant,
    layout: Layout,
    /// How the first layer follows each side's royal.
    royal: RoyalBuckets,
    /// First layer, input-major, the royal buckets one after the other.
    w1: Vec<f32>,
    /// With royal buckets, one shared row per input of the plain layout, added to that
    /// input's row in every bucket and learnt from all of them (empty without buckets):
    /// what a piece on a square is worth wherever the royal stands is learnt from every
    /// position, and a bucket's own row only learns how that royal square changes it.
    /// [`FloatNetwork::quantize`] folds them in.
    shared: Vec<f32>,
    b1: Vec<f32>,
    /// Output weights, bucket by bucket (as in [`Network`]).
    w2: Vec<f32>,
    /// Output bias of each bucket.
    b2: Vec<f32>,
    /// Factor rows, empty when off (see [`Factors`]), added to the rows of the board inputs
    /// they cover. [`FloatNetwork::quantize`] folds them into those rows.
    factors: Vec<f32>,
    /// Which factors `factors` holds.
    factor_set: Factors,
    /// Files of the board, to find a square's rank and file.
    width: usize,
}

/// Shared first-layer rows that are trained beside the board inputs' own and folded into them
/// when the network is written: each covers many board inputs, is added to each of their rows,
/// and learns from all of them. What a kind is worth anywhere is then learnt from every
/// position it appears in, and a square's own row only learns how that square differs, which
/// a big board with few positions per square needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Factors {
    /// One row per kind of piece and whose it is, covering every square.
    pub kind: bool,
    /// One row per kind, owner and rank, and one per kind, owner and file.
    pub lines: bool,
}

impl FloatNetwork {
    /// Small random weights, with `buckets` output buckets (1 or [`OUTPUT_BUCKETS`]).
    pub fn random(variant: Variant, buckets: usize, seed: u64) -> Option<FloatNetwork> {
        let layout = Layout::for_variant(variant)?;
        if buckets != 1 && buckets != OUTPUT_BUCKETS {
            return None;
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let w1 = (0..layout.inputs() * HIDDEN)
            .map(|_| rng.gen_range(-0.1..0.1))
            .collect();
        let bound = 1.0 / (2.0 * HIDDEN as f32).sqrt();
        let w2 = (0..2 * HIDDEN * buckets)
            .map(|_| rng.gen_range(-bound..bound))
            .collect();
        Some(FloatNetwork {
            variant,
            layout,
            royal: RoyalBuckets::plain(variant)?,
            w1,
            shared: Vec::new(),
            b1: vec![0.0; HIDDEN],
            w2,
            b2: vec![0.0; buckets],
            factors: Vec::new(),
            factor_set: Factors::default(),
            width: usize::from(variant.spec().width),
        })
    }

    /// This network with royal buckets `royal`, from a network without: its first layer
    /// becomes the shared rows and every bucket's own rows start at zero, so that it starts
    /// out evaluating each view's inputs as the plain network did (a mirrored view reads the
    /// mirrored squares' rows). `None` when the network has royal buckets already, or they
    /// are for another game.
    pub fn with_royal_buckets(mut self, royal: RoyalBuckets) -> Option<FloatNetwork> {
        if royal.variant() != self.variant {
            return None;
        }
        if !self.royal.is_plain() || royal.is_plain() {
            return (self.royal == royal).then_some(self);
        }
        self.shared = std::mem::take(&mut self.w1);
        self.w1 = vec![0.0; royal.buckets() * self.layout.inputs() * HIDDEN];
        self.royal = royal;
        Some(self)
    }

    /// This network with its neurons from `first` on woken: small random first-layer weights
    /// (as [`FloatNetwork::random`] gives), no bias and no output weight, so that it still
    /// evaluates as before but the new neurons learn. It is how a network read widened
    /// ([`Network::from_bytes_widened`]), whose extra neurons are silent, starts training.
    pub fn with_new_neurons_from(mut self, first: usize, seed: u64) -> FloatNetwork {
        let mut rng = StdRng::seed_from_u64(seed);
        for rows in [&mut self.w1, &mut self.shared] {
            for row in rows.chunks_mut(HIDDEN) {
                for w in row.iter_mut().skip(first) {
                    *w = rng.gen_range(-0.1..0.1);
                }
            }
        }
        for b in self.b1.iter_mut().skip(first) {
            *b = 0.0;
        }
        for row in self.w2.chunks_mut(HIDDEN) {
            for w in row.iter_mut().skip(first) {
                *w = 0.0;
            }
        }
        self
    }

    /// How the first layer follows each side's royal.
    pub fn royal_buckets(&self) -> &RoyalBuckets {
        &self.royal
    }

    /// This network training with `factors`, which start at zero so that it evaluates as
    /// before.
    pub fn with_factors(mut self, factors: Factors) -> FloatNetwork {
        self.factor_set = factors;
        self.factors = vec![0.0; self.factor_count() * HIDDEN];
        self
    }

    /// The factors the network trains with.
    pub fn factors(&self) -> Factors {
        self.factor_set
    }

    /// Kinds with their owner: the board inputs are numbered `(owner * roles + kind) *
    /// squares + square`.
    fn owned_kinds(&self) -> usize {
        2 * self.layout.roles
    }

    fn factor_count(&self) -> usize {
        let ranks = self.layout.squares / self.width;
        let mut count = 0;
        if self.factor_set.kind {
            count += self.owned_kinds();
        }
        if self.factor_set.lines {
            count += self.owned_kinds() * (ranks + self.width);
        }
        count
    }

    /// The factor rows of a first-layer input (none for hand inputs, which follow the board
    /// inputs), written to `rows`; returns how many.
    #[inline(always)]
    fn factor_rows(&self, input: usize, rows: &mut [usize; 3]) -> usize {
        let owned_kind = input / self.layout.squares;
        if self.factors.is_empty() || owned_kind >= self.owned_kinds() {
            return 0;
        }
        let square = input % self.layout.squares;
        let ranks = self.layout.squares / self.width;
        let mut count = 0;
        let mut base = 0;
        if self.factor_set.kind {
            rows[count] = owned_kind;
            count += 1;
            base += self.owned_kinds();
        }
        if self.factor_set.lines {
            rows[count] = base + owned_kind * ranks + square / self.width;
            rows[count + 1] =
                base + self.owned_kinds() * ranks + owned_kind * self.width + square % self.width;
            count += 2;
        }
        count
    }

    /// Adds the factor rows of `input` to `out`.
    #[inline(always)]
    fn add_factors(&self, input: usize, out: &mut [f32; HIDDEN]) {
        let mut rows = [0; 3];
        let count = self.factor_rows(input, &mut rows);
        for &row in &rows[..count] {
            for (o, f) in out.iter_mut().zip(&self.factors[row * HIDDEN..][..HIDDEN]) {
                *o += f;
            }
        }
    }

    /// Number of output buckets.
    pub fn buckets(&self) -> usize {
        self.b2.len()
    }

    /// This network with `buckets` output buckets: a network with one output layer gets a copy
    /// of it in every bucket, so it starts out evaluating exactly as before and training
    /// specialises the buckets. `None` for any other change of the number.
    pub fn with_buckets(mut self, buckets: usize) -> Option<FloatNetwork> {
        if buckets == self.buckets() {
            return Some(self);
        }
        if self.buckets() != 1 || buckets != OUTPUT_BUCKETS {
            return None;
        }
        self.w2 = self.w2.repeat(buckets);
        self.b2 = self.b2.repeat(buckets);
        Some(self)
    }

    fn bucket(&self, pieces_in_hand: usize) -> usize {
        (pieces_in_hand / HAND_PIECES_PER_BUCKET).min(self.b2.len() - 1)
    }

    /// The weights of an integer network, to go on training from it.
    pub fn from_network(network: &Network) -> FloatNetwork {
        let qa = QA as f32;
        let weights = network.weights();
        let royal = network.royal_buckets().clone();
        let shared = if royal.is_plain() {
            Vec::new()
        } else {
            vec![0.0; network.layout().inputs() * HIDDEN]
        };
        FloatNetwork {
            variant: network.variant(),
            layout: network.layout(),
            royal,
            shared,
            w1: weights.w1.iter().map(|&w| f32::from(w) / qa).collect(),
            b1: weights.b1.iter().map(|&w| f32::from(w) / qa).collect(),
            w2: weights
                .w2
                .iter()
                .map(|&w| f32::from(w) / QB as f32)
                .collect(),
            b2: weights
                .b2
                .iter()
                .map(|&b| b as f32 / (QA * QB) as f32)
                .collect(),
            factors: Vec::new(),
            factor_set: Factors::default(),
            width: usize::from(network.variant().spec().width),
        }
    }

    /// The integer network: weights rounded to the nearest step.
    pub fn quantize(&self) -> Network {
        let qa = QA as f32;
        let round16 = |w: f32, scale: f32, limit: f32| {
            (w.clamp(-limit, limit) * scale)
                .round()
                .clamp(-32767.0, 32767.0) as i16
        };
        let inputs = self.layout.inputs();
        let w1 = self
            .w1
            .chunks(HIDDEN)
            .enumerate()
            .flat_map(|(row_index, row)| {
                let input = row_index % inputs;
                let mut folded = [0.0; HIDDEN];
                folded.copy_from_slice(row);
                self.add_shared(input, &mut folded);
                self.add_factors(input, &mut folded);
                folded.map(|w| round16(w, qa, W1_LIMIT))
            })
            .collect();
        let b1 = self.b1.iter().map(|&w| round16(w, qa, W1_LIMIT)).collect();
        let w2 = self
            .w2
            .iter()
            .map(|&w| round16(w, QB as f32, W2_LIMIT))
            .collect();
        let b2 = self
            .b2
            .iter()
            .map(|&b| (b * (QA * QB) as f32).round() as i32)
            .collect();
        Network::from_parts_with_royal(self.variant, self.royal.clone(), w1, b1, w2, b2)
            .unwrap_or_else(|| unreachable!("a float network has its layout's sizes"))
    }

    /// Adds the shared row of `input` (an input of the plain layout) to `out`.
    #[inline(always)]
    fn add_shared(&self, input: usize, out: &mut [f32; HIDDEN]) {
        if let Some(row) = self.shared.get(input * HIDDEN..(input + 1) * HIDDEN) {
            for (o, w) in out.iter_mut().zip(row) {
                *o += w;
            }
        }
    }

    /// The evaluation of prepared inputs of a position with `pieces_in_hand` pieces in both
    /// hands, in centipawns for the side to move: each view's inputs of the plain layout
    /// and its royal bucket.
    fn evaluate(
        &self,
        us: &[u16],
        them: &[u16],
        royal_buckets: [u8; 2],
        pieces_in_hand: usize,
    ) -> f32 {
        let bucket = self.bucket(pieces_in_hand);
        let w2 = &self.w2[bucket * 2 * HIDDEN..][..2 * HIDDEN];
        let mut out = self.b2[bucket];
        for ((inputs, weights), royal) in [(us, &w2[..HIDDEN]), (them, &w2[HIDDEN..])]
            .into_iter()
            .zip(royal_buckets)
        {
            let acc = self.accumulate(inputs, usize::from(royal));
            out += acc
                .iter()
                .zip(weights)
                .map(|(&a, &w)| screlu(a) * w)
                .sum::<f32>();
        }
        out * OUTPUT_SCALE as f32
    }

    /// The first layer's sums of one view: inputs of the plain layout in royal bucket
    /// `royal`.
    fn accumulate(&self, inputs: &[u16], royal: usize) -> [f32; HIDDEN] {
        let mut acc = [0.0; HIDDEN];
        acc.copy_from_slice(&self.b1);
        let offset = royal * self.layout.inputs();
        for &input in inputs {
            let input = usize::from(input);
            let row = &self.w1[(offset + input) * HIDDEN..][..HIDDEN];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
            self.add_shared(input, &mut acc);
            self.add_factors(input, &mut acc);
        }
        acc
    }
}

#[inline(always)]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Training positions turned into the network's inputs once.
pub struct Prepared {
    /// Inputs of all positions, back to back: the side to move's view, then the other's.
    inputs: Vec<u16>,
    /// Where each position's inputs start, its side to move's count, and its end.
    spans: Vec<(u32, u16, u16)>,
    /// Search score for the side to move, centipawns.
    scores: Vec<f32>,
    /// Result for the side to move: 1, 0.5, 0.
    results: Vec<f32>,
    /// Game of each position.
    games: Vec<u32>,
    /// Pieces in both hands of each position, which choose the output bucket.
    pieces_in_hand: Vec<u8>,
    /// The royal bucket of each position's two views, the side to move's first.
    royal_buckets: Vec<[u8; 2]>,
}

impl Prepared {
    /// Turns records into inputs, seen as a network with royal buckets `royal` sees them:
    /// each view's inputs of the plain layout (mirrored where the view is) and its bucket.
    pub fn new(records: &[Record], layout: Layout, royal: &RoyalBuckets) -> Prepared {
        let mut prepared = Prepared {
            royal_buckets: Vec::with_capacity(records.len()),
            inputs: Vec::new(),
            spans: Vec::with_capacity(records.len()),
            scores: Vec::with_capacity(records.len()),
            results: Vec::with_capacity(records.len()),
            games: Vec::with_capacity(records.len()),
            pieces_in_hand: Vec::with_capacity(records.len()),
        };
        let mut us = Vec::new();
        let mut them = Vec::new();
        for record in records {
            us.clear();
            them.clear();
            let us_view = record.inputs_in_view(layout, royal, record.side, &mut us);
            let them_view = record.inputs_in_view(layout, royal, !record.side, &mut them);
            prepared
                .royal_buckets
                .push([us_view.bucket as u8, them_view.bucket as u8]);
            let start = prepared.inputs.len() as u32;
            prepared.inputs.extend(us.iter().map(|&i| i as u16));
            prepared.inputs.extend(them.iter().map(|&i| i as u16));
            prepared
                .spans
                .push((start, us.len() as u16, (us.len() + them.len()) as u16));
            prepared.scores.push(f32::from(record.score));
            prepared
                .results
                .push((f32::from(record.result) + 1.0) / 2.0);
            prepared.games.push(record.game);
            let in_hand: usize = record.hands.iter().map(|&n| usize::from(n)).sum();
            prepared.pieces_in_hand.push(in_hand.min(255) as u8);
        }
        prepared
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    fn views(&self, i: usize) -> (&[u16], &[u16]) {
        let (start, split, end) = self.spans[i];
        let all = &self.inputs[start as usize..start as usize + end as usize];
        all.split_at(usize::from(split))
    }

    /// The scale that turns a score into an expected result, `1 / (1 + e^(-score / scale))`,
    /// fitted to these positions' results (least squares over a grid).
    pub fn fit_score_scale(&self) -> f32 {
        let error = |scale: f32| -> f64 {
            self.scores
                .iter()
                .zip(&self.results)
                .map(|(&s, &r)| f64::from(sigmoid(s / scale) - r).powi(2))
                .sum()
        };
        (1..=60)
            .map(|i| i as f32 * 25.0)
            .min_by(|&a, &b| error(a).total_cmp(&error(b)))
            .unwrap_or(300.0)
    }
}

/// Gradient buffers of one thread.
struct Gradients {
    w1: Vec<f32>,
    shared: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: Vec<f32>,
    factors: Vec<f32>,
    loss: f64,
}

impl Gradients {
    fn new(network: &FloatNetwork) -> Gradients {
        Gradients {
            w1: vec![0.0; network.w1.len()],
            shared: vec![0.0; network.shared.len()],
            b1: vec![0.0; HIDDEN],
            w2: vec![0.0; network.w2.len()],
            b2: vec![0.0; network.b2.len()],
            factors: vec![0.0; network.factors.len()],
            loss: 0.0,
        }
    }

    fn clear(&mut self) {
        self.w1.fill(0.0);
        self.shared.fill(0.0);
        self.b1.fill(0.0);
        self.w2.fill(0.0);
        self.b2.fill(0.0);
        self.factors.fill(0.0);
        self.loss = 0.0;
    }

    fn absorb(&mut self, other: &Gradients) {
        for (a, b) in self.w1.iter_mut().zip(&other.w1) {
            *a += b;
        }
        for (a, b) in self.shared.iter_mut().zip(&other.shared) {
            *a += b;
        }
        for (a, b) in self.b1.iter_mut().zip(&other.b1) {
            *a += b;
        }
        for (a, b) in self.w2.iter_mut().zip(&other.w2) {
            *a += b;
        }
        for (a, b) in self.b2.iter_mut().zip(&other.b2) {
            *a += b;
        }
        for (a, b) in self.factors.iter_mut().zip(&other.factors) {
            *a += b;
        }
        self.loss += other.loss;
    }
}

/// Adam's moment estimates for one weight vector.
struct Moments {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Moments {
    fn new(n: usize) -> Moments {
        Moments {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

fn adam(weights: &mut [f32], gradients: &[f32], moments: &mut Moments, step: f32, limit: f32) {
    for (((w, &g), m), v) in weights
        .iter_mut()
        .zip(gradients)
        .zip(moments.m.iter_mut())
        .zip(moments.v.iter_mut())
    {
        *m = BETA1 * *m + (1.0 - BETA1) * g;
        *v = BETA2 * *v + (1.0 - BETA2) * g * g;
        *w = (*w - step * *m / (v.sqrt() + EPSILON)).clamp(-limit, limit);
    }
}

/// Trains `network` on `data` (positions of whole games; see [`TrainSettings`]) and calls
/// `on_epoch` after each epoch with its report and the weights reached.
pub fn train(
    network: &mut FloatNetwork,
    data: &Prepared,
    settings: &TrainSettings,
    on_epoch: &mut dyn FnMut(&EpochReport, &FloatNetwork),
) {
    let scale = settings
        .score_scale
        .unwrap_or_else(|| data.fit_score_scale());
    let (mut train_set, validation): (Vec<usize>, Vec<usize>) =
        (0..data.len()).partition(|&i| !is_held_out(data.games[i], settings.validation_every));
    let threads = settings.threads.clamp(1, 64);
    let mut parts: Vec<Gradients> = (0..threads).map(|_| Gradients::new(network)).collect();
    let mut moments = [
        Moments::new(network.w1.len()),
        Moments::new(HIDDEN),
        Moments::new(network.w2.len()),
        Moments::new(network.b2.len()),
        Moments::new(network.factors.len()),
        Moments::new(network.shared.len()),
    ];
    let mut rng = StdRng::seed_from_u64(settings.seed ^ 0x5eed);
    let mut step_count = 0i32;
    let mut learning_rate = settings.learning_rate;
    let batch_size = settings.batch_size.max(1);
    for epoch in 1..=settings.epochs {
        let started = Instant::now();
        train_set.shuffle(&mut rng);
        let mut loss_sum = 0.0;
        for batch in train_set.chunks(batch_size) {
            let chunk = batch.len().div_ceil(threads);
            let net = &*network;
            std::thread::scope(|scope| {
                for (part, gradients) in batch.chunks(chunk).zip(parts.iter_mut()) {
                    scope.spawn(move || {
                        gradients.clear();
                        for &i in part {
                            backward(net, data, i, scale, settings.score_weight, gradients);
                        }
                    });
                }
            });
            let (first, rest) = parts.split_at_mut(1);
            let total = &mut first[0];
            for other in rest
                .iter()
                .take(batch.len().div_ceil(chunk).saturating_sub(1))
            {
                total.absorb(other);
            }
            loss_sum += total.loss;
            let n = batch.len() as f32;
            for g in total
                .w1
                .iter_mut()
                .chain(&mut total.shared)
                .chain(&mut total.b1)
                .chain(&mut total.w2)
                .chain(&mut total.b2)
                .chain(&mut total.factors)
            {
                *g /= n;
            }
            step_count += 1;
            let correction = (1.0 - BETA2.powi(step_count)).sqrt() / (1.0 - BETA1.powi(step_count));
            let step = learning_rate * correction;
            let [m1, mb1, m2, mb2, mf, ms] = &mut moments;
            let w1_step = if network.royal.is_plain() {
                step
            } else {
                step * settings.royal_rate
            };
            adam(&mut network.w1, &total.w1, m1, w1_step, W1_LIMIT);
            adam(&mut network.b1, &total.b1, mb1, step, W1_LIMIT);
            adam(&mut network.w2, &total.w2, m2, step, W2_LIMIT);
            adam(&mut network.b2, &total.b2, mb2, step, f32::MAX);
            adam(&mut network.factors, &total.factors, mf, step, W1_LIMIT);
            adam(&mut network.shared, &total.shared, ms, step, W1_LIMIT);
        }
        let report = EpochReport {
            epoch,
            train_loss: loss_sum / train_set.len().max(1) as f64,
            validation_loss: loss(
                network,
                data,
                &validation,
                scale,
                settings.score_weight,
                threads,
            ),
            validation_result_loss: loss(network, data, &validation, scale, 0.0, threads),
            seconds: started.elapsed().as_secs_f64(),
        };
        on_epoch(&report, network);
        learning_rate *= settings.learning_rate_decay;
    }
}

fn target(data: &Prepared, i: usize, scale: f32, score_weight: f32) -> f32 {
    score_weight * sigmoid(data.scores[i] / scale) + (1.0 - score_weight) * data.results[i]
}

/// Mean loss of `network` over the positions `indices`.
pub fn loss(
    network: &FloatNetwork,
    data: &Prepared,
    indices: &[usize],
    scale: f32,
    score_weight: f32,
    threads: usize,
) -> f64 {
    if indices.is_empty() {
        return f64::NAN;
    }
    let chunk = indices.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|scope| {
        let parts: Vec<_> = indices
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|&i| {
                            let (us, them) = data.views(i);
                            let in_hand = usize::from(data.pieces_in_hand[i]);
                            let royal = data.royal_buckets[i];
                            let p = sigmoid(network.evaluate(us, them, royal, in_hand) / scale);
                            f64::from(p - target(data, i, scale, score_weight)).powi(2)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        parts.into_iter().filter_map(|p| p.join().ok()).sum()
    });
    total / indices.len() as f64
}

/// Adds one position's gradient (and loss) to `gradients`.
fn backward(
    network: &FloatNetwork,
    data: &Prepared,
    i: usize,
    scale: f32,
    score_weight: f32,
    gradients: &mut Gradients,
) {
    let (us, them) = data.views(i);
    let bucket = network.bucket(usize::from(data.pieces_in_hand[i]));
    let w2 = &network.w2[bucket * 2 * HIDDEN..][..2 * HIDDEN];
    let royal = data.royal_buckets[i].map(usize::from);
    let acc = [
        network.accumulate(us, royal[0]),
        network.accumulate(them, royal[1]),
    ];
    let mut out = network.b2[bucket];
    for (side, acc) in acc.iter().enumerate() {
        let weights = &w2[side * HIDDEN..][..HIDDEN];
        out += acc
            .iter()
            .zip(weights)
            .map(|(&a, &w)| screlu(a) * w)
            .sum::<f32>();
    }
    let p = sigmoid(out * OUTPUT_SCALE as f32 / scale);
    let error = p - target(data, i, scale, score_weight);
    gradients.loss += f64::from(error * error);
    let d_out = 2.0 * error * p * (1.0 - p) * OUTPUT_SCALE as f32 / scale;
    gradients.b2[bucket] += d_out;
    for (side, (acc, inputs)) in acc.iter().zip([us, them]).enumerate() {
        let weights = &w2[side * HIDDEN..][..HIDDEN];
        let grad_w2 = &mut gradients.w2[(bucket * 2 + side) * HIDDEN..][..HIDDEN];
        let mut d_acc = [0.0f32; HIDDEN];
        for h in 0..HIDDEN {
            let a = acc[h];
            grad_w2[h] += d_out * screlu(a);
            d_acc[h] = if a > 0.0 && a < 1.0 {
                d_out * weights[h] * 2.0 * a
            } else {
                0.0
            };
        }
        for (g, d) in gradients.b1.iter_mut().zip(&d_acc) {
            *g += d;
        }
        let offset = royal[side] * network.layout.inputs();
        for &input in inputs {
            let input = usize::from(input);
            let row = &mut gradients.w1[(offset + input) * HIDDEN..][..HIDDEN];
            for (g, d) in row.iter_mut().zip(&d_acc) {
                *g += d;
            }
            if let Some(row) = gradients
                .shared
                .get_mut(input * HIDDEN..(input + 1) * HIDDEN)
            {
                for (g, d) in row.iter_mut().zip(&d_acc) {
                    *g += d;
                }
            }
            let mut rows = [0; 3];
            let count = network.factor_rows(input, &mut rows);
            for &factor in &rows[..count] {
                let row = &mut gradients.factors[factor * HIDDEN..][..HIDDEN];
                for (g, d) in row.iter_mut().zip(&d_acc) {
                    *g += d;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Generation, generate, read_file};
    use tsubame_engine::eval::EvalParams;

    #[test]
    fn training_from_a_network_with_buckets_starts_from_a_copy_of_its_layer_in_each() {
        let built_in = Network::built_in(&Variant::Tori.default_options())
            .expect("Tori has a built-in network");
        assert_eq!(built_in.buckets(), 1);
        let rules = Options::defaults(tori::spec()).rule_set();
        let position =
            Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b 3S2Cp 1", rules).unwrap();
        let copied = FloatNetwork::from_network(&built_in)
            .with_buckets(OUTPUT_BUCKETS)
            .unwrap()
            .quantize();
        assert_eq!(copied.buckets(), OUTPUT_BUCKETS);
        assert_eq!(copied.evaluate(&position), built_in.evaluate(&position));
        // The weights come back exactly: the copy's first layer is the built-in one's.
        assert_eq!(copied.weights().w1, built_in.weights().w1);
        assert!(
            FloatNetwork::from_network(&copied)
                .with_buckets(1)
                .is_none()
        );
    }
    use std::sync::atomic::AtomicBool;
    use tsubame_rules::{Color, Options, Position, tori};

    /// A plain network given royal buckets keeps its first layer as the shared rows, so it
    /// evaluates exactly as before wherever neither side's view is mirrored; a mirrored view
    /// reads the mirror squares' rows.
    #[test]
    fn royal_buckets_start_from_the_plain_network_as_shared_rows() {
        let built_in = Network::built_in(&Variant::Tori.default_options())
            .expect("Tori has a built-in network");
        let royal = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 1, 4]).unwrap();
        let bucketed = FloatNetwork::from_network(&built_in)
            .with_royal_buckets(royal.clone())
            .unwrap()
            .quantize();
        assert_eq!(bucketed.royal_buckets(), &royal);
        assert_eq!(
            bucketed.weights().w1.len(),
            16 * built_in.weights().w1.len()
        );
        let rules = Options::defaults(tori::spec()).rule_set();
        // Phoenixes on the centre file or to sente's right (gote's left): no view mirrored.
        for sfen in [
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1",
            "3k3/7/7/7/7/7/3K3 b 3S2Cp 1",
            "1k5/7/2s4/7/3S3/7/6K w FSp 1",
        ] {
            let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
            for color in [Color::Sente, Color::Gote] {
                assert!(!bucketed.view(&position, color).mirrored, "{sfen}");
            }
            assert_eq!(
                bucketed.evaluate(&position),
                built_in.evaluate(&position),
                "{sfen}"
            );
        }
        // Buckets of another game are refused.
        let wa = RoyalBuckets::by_ranks(Variant::Wa, &[1, 1, 9]).unwrap();
        assert!(
            FloatNetwork::from_network(&built_in)
                .with_royal_buckets(wa)
                .is_none()
        );
    }

    /// Neurons woken from a network's silent ones (as a narrower file read widened has) get
    /// first-layer weights to learn from but no output weight yet: the network evaluates as
    /// before.
    #[test]
    fn woken_neurons_learn_but_leave_the_evaluation_alone() {
        let built_in = Network::built_in(&Variant::Tori.default_options())
            .expect("Tori has a built-in network");
        let first = HIDDEN / 2;
        let silenced = |values: &[i16]| -> Vec<i16> {
            values
                .chunks(HIDDEN)
                .flat_map(|row| {
                    row.iter()
                        .enumerate()
                        .map(|(h, &w)| if h < first { w } else { 0 })
                })
                .collect()
        };
        let weights = built_in.weights();
        let narrow = Network::from_parts(
            Variant::Tori,
            silenced(weights.w1),
            silenced(weights.b1),
            silenced(weights.w2),
            weights.b2.to_vec(),
        )
        .unwrap();
        let woken = FloatNetwork::from_network(&narrow)
            .with_new_neurons_from(first, 3)
            .quantize();
        let awake = |network: &Network| {
            network
                .weights()
                .w1
                .chunks(HIDDEN)
                .filter(|row| row[first..].iter().any(|&w| w != 0))
                .count()
        };
        assert_eq!(awake(&narrow), 0);
        assert_eq!(awake(&woken), weights.w1.len() / HIDDEN);
        assert_eq!(woken.weights().w2, narrow.weights().w2);
        let rules = Options::defaults(tori::spec()).rule_set();
        for sfen in [
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1",
            "3k3/7/7/7/7/7/3K3 b 3S2Cp 1",
            "1k5/7/2s4/7/3S3/7/6K w FSp 1",
        ] {
            let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
            assert_eq!(
                woken.evaluate(&position),
                narrow.evaluate(&position),
                "{sfen}"
            );
        }
    }

    #[test]
    fn a_short_training_run_lowers_the_loss_and_quantizes_faithfully() {
        let path = std::env::temp_dir()
            .join(format!("tsubame-train-{}", std::process::id()))
            .to_string_lossy()
            .into_owned();
        let _ = std::fs::remove_file(&path);
        let options = Options::defaults(tori::spec());
        // One thread: the records' order, and so the whole run, is the same every time.
        let generation = Generation {
            games: 200,
            nodes: 300,
            seed: 2,
            threads: 1,
            ..Generation::default()
        };
        let params = EvalParams::for_variant(tori::spec());
        generate(
            tori::tables(),
            &options,
            &params,
            &generation,
            &path,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        let records = read_file(&path, Variant::Tori).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(records.len() > 1_000, "{}", records.len());
        let layout = Layout::for_variant(Variant::Tori).unwrap();
        // Factors and shared rows are folded into the integer network's rows, which the
        // comparison of float and integer evaluations below checks.
        let all_factors = Factors {
            kind: true,
            lines: true,
        };
        let plain = RoyalBuckets::plain(Variant::Tori).unwrap();
        let by_rank = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 5]).unwrap();
        for (buckets, factors, royal) in [
            (1, Factors::default(), &plain),
            (OUTPUT_BUCKETS, Factors::default(), &plain),
            (1, all_factors, &plain),
            (OUTPUT_BUCKETS, all_factors, &by_rank),
        ] {
            let data = Prepared::new(&records, layout, royal);
            let mut network = FloatNetwork::random(Variant::Tori, buckets, 1)
                .unwrap()
                .with_royal_buckets(royal.clone())
                .unwrap()
                .with_factors(factors);
            assert_eq!(network.factors(), factors);
            assert_eq!(network.royal_buckets(), royal);
            let settings = TrainSettings {
                epochs: 6,
                batch_size: 256,
                learning_rate: 0.002,
                ..TrainSettings::default()
            };
            let held_out: Vec<usize> = (0..data.len())
                .filter(|&i| data.games[i].is_multiple_of(settings.validation_every))
                .collect();
            let untrained_loss = loss(
                &network,
                &data,
                &held_out,
                data.fit_score_scale(),
                settings.score_weight,
                1,
            );
            let mut reports = Vec::new();
            let scale = data.fit_score_scale();
            train(&mut network, &data, &settings, &mut |report, net| {
                // The result-only loss is the loss with no weight on the search's scores.
                let result_loss = loss(net, &data, &held_out, scale, 0.0, 1);
                assert!(
                    (report.validation_result_loss - result_loss).abs() < 1e-9,
                    "{report:?}: {result_loss}"
                );
                assert_ne!(report.validation_result_loss, report.validation_loss);
                reports.push(report.clone())
            });
            assert_eq!(reports.len(), 6);
            let (first, last) = (&reports[0], &reports[5]);
            assert!(
                last.train_loss < first.train_loss * 0.9,
                "{buckets} {factors:?}: {reports:?}"
            );
            // What it learnt holds on games it never saw. A few thousand positions overfit
            // within a few epochs, so the best epoch is the measure, as `best.nnue` is.
            let best_validation = reports
                .iter()
                .map(|r| r.validation_loss)
                .fold(f64::INFINITY, f64::min);
            assert!(
                best_validation < untrained_loss * 0.9,
                "{buckets} {factors:?}: untrained {untrained_loss}, {reports:?}"
            );

            // The integer network computes what its weights do in floating point, to within
            // the truncations of integer arithmetic; rounding the weights moves evaluations
            // little.
            let quantized = network.quantize();
            assert_eq!(quantized.buckets(), buckets);
            assert_eq!(quantized.royal_buckets(), royal);
            let rounded = FloatNetwork::from_network(&quantized);
            let rules = options.rule_set();
            let mut largest_gap = 0.0f32;
            let mut rounding = Vec::new();
            for record in records.iter().step_by(37) {
                let (mut us, mut them) = (Vec::new(), Vec::new());
                let us_view = record.inputs_in_view(layout, royal, record.side, &mut us);
                let them_view = record.inputs_in_view(layout, royal, !record.side, &mut them);
                let views = [us_view.bucket as u8, them_view.bucket as u8];
                let us: Vec<u16> = us.iter().map(|&i| i as u16).collect();
                let them: Vec<u16> = them.iter().map(|&i| i as u16).collect();
                let in_hand = record.hands.iter().map(|&n| usize::from(n)).sum();
                let float = rounded.evaluate(&us, &them, views, in_hand);
                let sfen = record_sfen(record);
                let position = Position::from_sfen(tori::tables(), &sfen, rules).unwrap();
                let integer = quantized.evaluate(&position) as f32;
                largest_gap = largest_gap.max((float - integer).abs());
                rounding.push((float - network.evaluate(&us, &them, views, in_hand)).abs());
            }
            assert!(largest_gap <= 2.0, "{buckets} {factors:?}: {largest_gap}");
            // Output weights in steps of 1/64 move this small, young network's evaluations
            // by about 27 cp on average; a trained one has larger weights and smaller relative
            // steps.
            let mean_rounding = rounding.iter().sum::<f32>() / rounding.len() as f32;
            assert!(
                mean_rounding < 35.0,
                "{buckets} {factors:?}: {mean_rounding}"
            );
        }
    }

    /// The SFEN of a Tori record (board codes are 1 + color * kinds + kind).
    fn record_sfen(record: &Record) -> String {
        let spec = tori::spec();
        let roles = spec.roles.len();
        let mut board = String::new();
        for rank in 0..7 {
            let mut empty = 0;
            // SFEN writes a rank from the highest file down; square indices count files up.
            for file in (0..7).rev() {
                let code = record.board[rank * 7 + file];
                if code == 0 {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    board.push_str(&empty.to_string());
                    empty = 0;
                }
                let code = usize::from(code) - 1;
                let text = spec.roles[code % roles].sfen;
                board.push_str(&if code / roles == 0 {
                    text.to_string()
                } else {
                    text.to_lowercase()
                });
            }
            if empty > 0 {
                board.push_str(&empty.to_string());
            }
            if rank < 6 {
                board.push('/');
            }
        }
        let mut hand = String::new();
        for (i, &count) in record.hands.iter().enumerate() {
            if count > 0 {
                let text = spec.roles[i % roles].sfen;
                let text = if i < roles {
                    text.to_string()
                } else {
                    text.to_lowercase()
                };
                if count > 1 {
                    hand.push_str(&count.to_string());
                }
                hand.push_str(&text);
            }
        }
        if hand.is_empty() {
            hand.push('-');
        }
        let side = if record.side == tsubame_rules::Color::Sente {
            'b'
        } else {
            'w'
        };
        format!("{board} {side} {hand} {}", record.ply)
    }
}
