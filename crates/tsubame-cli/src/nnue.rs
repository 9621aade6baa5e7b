//! `tsubame nnue`: the network evaluation's data and training. `generate` plays self-play
//! games and appends them to a games file (resumable; Tenjiku's too, for puzzles); `relabel`
//! searches stored games again, deeper, into a new games file (resumable); `convert` turns a
//! file of labelled positions (the first format) into games; `train` fits a network to either
//! kind of file and writes one network file per epoch.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::nnue::{HIDDEN, Layout, Network, OUTPUT_BUCKETS, RoyalBuckets};
use tsubame_rules::{Options, Variant, tori, wa};
use tsubame_train::data::{
    Generation, Progress, Record, TrainingShare, add_mirror_images, generate, generate_any,
    keep_training_share, read_file,
};
use tsubame_train::games::convert_file;
use tsubame_train::relabel::{RelabelProgress, Relabelling, relabel};
use tsubame_train::train::{Factors, FloatNetwork, Prepared, TrainSettings, train};

/// What to do.
#[derive(Args)]
pub struct NnueArgs {
    #[command(subcommand)]
    step: NnueStep,
}

#[derive(Subcommand)]
enum NnueStep {
    /// Play self-play games and append them, with the search's score at every searched ply
    /// and the result, to a games file; a stopped run resumes where it was.
    Generate(GenerateArgs),
    /// Search the training positions of a games file again (more nodes, or another network)
    /// and write the games with the new scores to a new games file; a stopped run resumes.
    Relabel(RelabelArgs),
    /// Convert a file of labelled positions (the first data format, `TSBDATA1`) into a games
    /// file, checking that the games give back exactly its positions.
    Convert(ConvertArgs),
    /// Train a network on data files and write it after every epoch.
    Train(TrainArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// The game. Tenjiku has no network to train, but its games are kept for puzzles.
    #[arg(long, default_value = "tori")]
    variant: Variant,
    /// A rule option as NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Games in the file when done (games already in it count).
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Search nodes per move.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once (one per core).
    #[arg(long, default_value_t = default_threads())]
    threads: usize,
    /// Play with this network instead of the classical evaluation.
    #[arg(long, value_name = "FILE")]
    net: Option<String>,
    /// Plies after which a game ends as a draw. Wa without drops often needs more than the
    /// default to be decided; a file is resumed with the cap it was begun with.
    #[arg(long, default_value_t = Generation::default().max_plies)]
    max_plies: usize,
    /// The games file, created or resumed.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Args)]
struct RelabelArgs {
    /// The game: `tori` or `wa` (the rule options are the games file's).
    #[arg(long, default_value = "tori")]
    variant: Variant,
    /// The games file whose games are searched again.
    #[arg(long, value_name = "FILE")]
    data: String,
    /// Search nodes per searched ply.
    #[arg(long)]
    nodes: u64,
    /// Search with this network instead of the classical evaluation.
    #[arg(long, value_name = "FILE")]
    net: Option<String>,
    /// Games searched at once (one per core).
    #[arg(long, default_value_t = default_threads())]
    threads: usize,
    /// Search every searched ply again, not only the training positions (the quiet ones and
    /// a scored final position); the others are written as not searched without it.
    #[arg(long)]
    all_plies: bool,
    /// The new games file, created or resumed; never the `--data` file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Args)]
struct ConvertArgs {
    /// The game: `tori` or `wa`.
    #[arg(long, default_value = "tori")]
    variant: Variant,
    /// A rule option the games were played with, as NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// The file of labelled positions.
    #[arg(long, value_name = "FILE")]
    data: String,
    /// The games file to write.
    #[arg(long, value_name = "FILE")]
    out: String,
}

#[derive(Args)]
struct TrainArgs {
    /// The game: `tori` or `wa`.
    #[arg(long, default_value = "tori")]
    variant: Variant,
    /// Data files: games written by `tsubame nnue generate`, or labelled positions of the
    /// first format (repeatable).
    #[arg(long = "data", value_name = "FILE", required = true)]
    data: Vec<String>,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Positions per gradient step.
    #[arg(long, default_value_t = 16_384)]
    batch_size: usize,
    /// Adam's step size in the first epoch.
    #[arg(long, default_value_t = 0.001)]
    learning_rate: f32,
    /// Factor the step size is multiplied by after each epoch.
    #[arg(long, default_value_t = 0.9)]
    learning_rate_decay: f32,
    /// Weight of the search's score in the target (the game's result has the rest).
    #[arg(long, default_value_t = 0.7)]
    score_weight: f32,
    /// Keep every game whose number is a multiple of N aside for validation (0: none).
    #[arg(long, default_value_t = 10)]
    validation_every: u32,
    /// Train on a share of the training games: `K/N` keeps K of every N blocks of ten
    /// consecutive game numbers in each file (the validation games all stay, so runs on two
    /// shares are measured on the same games): what the network would be with less data.
    #[arg(long, value_name = "K/N", default_value = "1/1")]
    training_share: TrainingShare,
    /// Also train on the mirror image (left to right) of every training position: twice the
    /// positions, of the same value, since the game's rules are mirror-symmetric (Tori's quails
    /// trade places).
    #[arg(long)]
    mirror: bool,
    /// Train with kind factors: a first-layer row per kind of piece (and whose it is) added
    /// to every square's row of that kind and learnt from all of them, folded into the
    /// squares' rows in the written networks. It lets a big board's rows learn from fewer
    /// positions.
    #[arg(long)]
    kind_factors: bool,
    /// Train with line factors: a row per kind, owner and rank and one per kind, owner and
    /// file, folded in like the kind factors.
    #[arg(long)]
    line_factors: bool,
    /// Royal buckets: a first layer for each place of the side's own royal (Tori's phoenix,
    /// Wa's crane king), by groups of ranks counted from its back rank (`1,1,5`: the back
    /// rank, the next, the five beyond) and by file, the board seen mirrored when the royal
    /// stands left of the centre file (from sente's side), so only the right half and the
    /// centre need buckets. Each input also has a shared row, learnt from every bucket and
    /// folded in when a network is written. With `--init` from a network without them, that
    /// network's first layer becomes the shared rows.
    #[arg(long, value_name = "RANKS,...", value_delimiter = ',')]
    royal_buckets: Option<Vec<u8>>,
    /// With royal buckets, the step size of each bucket's own rows as a fraction of the rest:
    /// a bucket sees only the positions with the royal in its part of the board, and at full
    /// speed its rows fit those games rather than what they teach.
    #[arg(long, default_value_t = 1.0)]
    royal_rate: f32,
    /// The scale, in centipawns, that turns the search's score into an expected result
    /// (`1 / (1 + e^(-score / scale))`); by default fitted to the data's results, which
    /// fails when nearly every game is drawn.
    #[arg(long, value_name = "CP")]
    score_scale: Option<f32>,
    /// Threads.
    #[arg(long, default_value_t = default_threads())]
    threads: usize,
    /// Seed of the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Go on from this network instead of random weights.
    #[arg(long, value_name = "FILE")]
    init: Option<String>,
    /// Output buckets: 1 (one output layer) or 8 (chosen by the number of pieces in both
    /// hands). From `--init` with one output layer, each bucket starts as a copy of it. By
    /// default, as many as `--init` has, or 1.
    #[arg(long, value_name = "N")]
    output_buckets: Option<usize>,
    /// Directory for `epoch-NN.nnue` after each epoch and `best.nnue`, the epoch with the
    /// lowest validation loss.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `tsubame nnue`.
pub fn run(args: &NnueArgs) -> Result<()> {
    match &args.step {
        NnueStep::Generate(a) => run_generate(a),
        NnueStep::Relabel(a) => run_relabel(a),
        NnueStep::Convert(a) => run_convert(a),
        NnueStep::Train(a) => run_train(a),
    }
}

fn run_convert(a: &ConvertArgs) -> Result<()> {
    if a.variant == Variant::Tenjiku {
        bail!("networks cover tori and wa, not tenjiku");
    }
    let mut options = Options::defaults(a.variant.spec());
    for pair in &a.options {
        options.set_pair(pair)?;
    }
    let started = Instant::now();
    let tally = convert_file(&a.data, &a.out, &options)?;
    let (before, after) = (
        std::fs::metadata(&a.data).map_or(0, |m| m.len()),
        std::fs::metadata(&a.out).map_or(0, |m| m.len()),
    );
    println!(
        "{}: {} games, {} positions ({} bytes, {:.1} a position; the first file {:.1}); moves found between {} pairs of positions, {} games cut where they were not; checked: the same positions; {:.1} s",
        a.out,
        tally.games,
        tally.positions,
        after,
        after as f64 / tally.positions.max(1) as f64,
        before as f64 / tally.positions.max(1) as f64,
        tally.connected,
        tally.cut,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn load_network(path: &str, variant: Variant) -> Result<Network> {
    let network = Network::load(path)?;
    if network.variant() != variant {
        bail!(
            "{path} is a network for {}, not {variant}",
            network.variant()
        );
    }
    Ok(network)
}

/// [`load_network`] for a network to train from, which may be narrower than this build's
/// networks (a build with the `wide-network` feature): gives it widened and its file's width.
fn load_network_widened(path: &str, variant: Variant) -> Result<(Network, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {path}"))?;
    let (network, width) = Network::from_bytes_widened(&bytes)
        .with_context(|| format!("{path} is no network this build reads"))?;
    if network.variant() != variant {
        bail!(
            "{path} is a network for {}, not {variant}",
            network.variant()
        );
    }
    Ok((network, width))
}

fn run_generate(a: &GenerateArgs) -> Result<()> {
    let spec = a.variant.spec();
    let mut options = Options::defaults(spec);
    for pair in &a.options {
        options.set_pair(pair)?;
    }
    let mut params = EvalParams::for_variant(spec);
    if let Some(path) = &a.net {
        params.network = Some(Arc::new(load_network(path, a.variant)?));
    }
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let out = a.out.to_string_lossy().into_owned();
    let bar = ProgressBar::new(a.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {msg} ({eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let bar_handle = bar.clone();
    let generation = Generation {
        games: a.games,
        nodes: a.nodes,
        seed: a.seed,
        threads: a.threads,
        max_plies: a.max_plies,
        ..Generation::default()
    };
    let stop = AtomicBool::new(false);
    let mut on_game = move |p: Progress| {
        bar_handle.set_position(p.games as u64);
        let rate = (p.positions - p.resumed_positions) as f64
            / started.elapsed().as_secs_f64().max(1e-3)
            * 3600.0;
        bar_handle.set_message(format!("{} positions, {:.0}/hour", p.positions, rate));
    };
    let progress = match a.variant {
        Variant::Tori => generate(
            tori::tables(),
            &options,
            &params,
            &generation,
            &out,
            &stop,
            &mut on_game,
        ),
        Variant::Wa => generate(
            wa::tables(),
            &options,
            &params,
            &generation,
            &out,
            &stop,
            &mut on_game,
        ),
        Variant::Tenjiku => generate_any(&options, &params, &generation, &out, &stop, &mut on_game),
    }?;
    bar.finish_and_clear();
    let hours = started.elapsed().as_secs_f64() / 3600.0;
    println!(
        "{}: {} games, {} positions ({} games were there before); {:.0} games and {:.0} positions an hour",
        out,
        progress.games,
        progress.positions,
        progress.resumed_games,
        (progress.games - progress.resumed_games) as f64 / hours.max(1e-9),
        (progress.positions - progress.resumed_positions) as f64 / hours.max(1e-9),
    );
    Ok(())
}

fn run_relabel(a: &RelabelArgs) -> Result<()> {
    if a.variant == Variant::Tenjiku {
        bail!("networks cover tori and wa, not tenjiku");
    }
    if a.nodes == 0 {
        bail!("--nodes must be at least 1");
    }
    let out = a.out.to_string_lossy().into_owned();
    let same_file = std::fs::canonicalize(&a.data)
        .ok()
        .is_some_and(|data| std::fs::canonicalize(&a.out).ok() == Some(data));
    if same_file {
        bail!("--out must be a new file, not the --data file {}", a.data);
    }
    let mut params = EvalParams::for_variant(a.variant.spec());
    if let Some(path) = &a.net {
        params.network = Some(Arc::new(load_network(path, a.variant)?));
    }
    let relabelling = Relabelling {
        nodes: a.nodes,
        threads: a.threads,
        all_plies: a.all_plies,
    };
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {msg} ({eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let bar_handle = bar.clone();
    let mut on_game = move |p: RelabelProgress| {
        bar_handle.set_length(p.total_games as u64);
        bar_handle.set_position(p.games as u64);
        let rate =
            (p.plies - p.resumed_plies) as f64 / started.elapsed().as_secs_f64().max(1e-3) * 3600.0;
        bar_handle.set_message(format!(
            "{}/{} plies, {:.0}/hour, {} scores changed",
            p.plies, p.total_plies, rate, p.changed
        ));
    };
    let stop = AtomicBool::new(false);
    let progress = match a.variant {
        Variant::Wa => relabel(
            wa::tables(),
            a.variant,
            &params,
            &relabelling,
            &a.data,
            &out,
            &stop,
            &mut on_game,
        ),
        _ => relabel(
            tori::tables(),
            a.variant,
            &params,
            &relabelling,
            &a.data,
            &out,
            &stop,
            &mut on_game,
        ),
    }?;
    bar.finish_and_clear();
    println!(
        "{}: {} of {} games, {} of {} searched plies at {} nodes ({} games were there before); {} scores changed ({:.1} %); {:.0} s",
        out,
        progress.games,
        progress.total_games,
        progress.plies,
        progress.total_plies,
        a.nodes,
        progress.resumed_games,
        progress.changed,
        100.0 * progress.changed as f64 / progress.plies.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn run_train(a: &TrainArgs) -> Result<()> {
    let layout =
        Layout::for_variant(a.variant).with_context(|| format!("{} has no network", a.variant))?;
    let mut records: Vec<Record> = Vec::new();
    for path in &a.data {
        records.extend(read_file(path, a.variant)?);
    }
    if a.training_share != TrainingShare::ALL {
        let dropped = keep_training_share(&mut records, a.training_share, a.validation_every);
        println!(
            "{dropped} positions of training games outside the share {}/{} left out",
            a.training_share.kept, a.training_share.of
        );
    }
    if records.is_empty() {
        bail!("no positions to train on");
    }
    if a.mirror {
        let added = add_mirror_images(&mut records, a.variant, a.validation_every)?;
        println!("{added} mirror images of training positions added");
    }
    if let Some(buckets) = a.output_buckets
        && buckets != 1
        && buckets != OUTPUT_BUCKETS
    {
        bail!("--output-buckets must be 1 or {OUTPUT_BUCKETS}, not {buckets}");
    }
    let mut network = match &a.init {
        Some(path) => {
            let (init, width) = load_network_widened(path, a.variant)?;
            let mut start = FloatNetwork::from_network(&init);
            if width < HIDDEN {
                println!(
                    "{path} is {width} neurons wide: widened to {HIDDEN}, the new neurons starting with random first-layer weights and no output weight"
                );
                start = start.with_new_neurons_from(width, a.seed);
            }
            let had = start.buckets();
            let buckets = a.output_buckets.unwrap_or(had);
            start.with_buckets(buckets).with_context(|| {
                format!("{path} has {had} output buckets, which cannot become {buckets}")
            })?
        }
        None => FloatNetwork::random(a.variant, a.output_buckets.unwrap_or(1), a.seed)
            .with_context(|| format!("{} has no network", a.variant))?,
    };
    if !(a.royal_rate.is_finite() && a.royal_rate > 0.0 && a.royal_rate <= 10.0) {
        bail!(
            "--royal-rate must be a number above 0 and at most 10, not {}",
            a.royal_rate
        );
    }
    if let Some(groups) = &a.royal_buckets {
        let royal = RoyalBuckets::by_ranks(a.variant, groups)?;
        let had = network.royal_buckets().rank_groups().to_vec();
        network = network.with_royal_buckets(royal).with_context(|| {
            format!("the starting network has royal buckets by ranks {had:?}, not {groups:?}")
        })?;
    }
    network = network.with_factors(Factors {
        kind: a.kind_factors,
        lines: a.line_factors,
    });
    if let Some(scale) = a.score_scale
        && !(scale.is_finite() && (1.0..=100_000.0).contains(&scale))
    {
        bail!("--score-scale must be a number of centipawns from 1 to 100000, not {scale}");
    }
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    let prepared = Prepared::new(&records, layout, network.royal_buckets());
    drop(records);
    let settings = TrainSettings {
        epochs: a.epochs,
        batch_size: a.batch_size,
        learning_rate: a.learning_rate,
        learning_rate_decay: a.learning_rate_decay,
        score_weight: a.score_weight,
        validation_every: a.validation_every,
        threads: a.threads,
        seed: a.seed,
        score_scale: a.score_scale,
        royal_rate: a.royal_rate,
    };
    match a.score_scale {
        Some(scale) => println!("{} positions; score scale {scale:.0}", prepared.len()),
        None => println!(
            "{} positions; score scale {:.0} (fitted to the results)",
            prepared.len(),
            prepared.fit_score_scale()
        ),
    }
    let mut best = f64::INFINITY;
    let mut failure = None;
    train(&mut network, &prepared, &settings, &mut |report, net| {
        let path = a.out.join(format!("epoch-{:02}.nnue", report.epoch));
        let bytes = net.quantize().to_bytes();
        if let Err(e) = std::fs::write(&path, &bytes) {
            failure.get_or_insert(format!("cannot write {}: {e}", path.display()));
        }
        let mut mark = "";
        if report.validation_loss < best || report.validation_loss.is_nan() {
            best = report.validation_loss;
            mark = " (best)";
            let best_path = a.out.join("best.nnue");
            if let Err(e) = std::fs::write(&best_path, &bytes) {
                failure.get_or_insert(format!("cannot write {}: {e}", best_path.display()));
            }
        }
        println!(
            "epoch {:2}: train loss {:.6}, validation loss {:.6}{mark} (against the results alone {:.6}), {:.1} s",
            report.epoch,
            report.train_loss,
            report.validation_loss,
            report.validation_result_loss,
            report.seconds
        );
    });
    if let Some(failure) = failure {
        bail!(failure);
    }
    println!("written to {}", a.out.display());
    Ok(())
}
