//! `tsubame tune`: Texel tuning of the evaluation. `generate` plays self-play games and writes
//! labelled quiet positions; `fit` tunes the weights on such a file or on the games files of
//! `tsubame nnue generate` (labelled by result, by the search's score or a blend) and writes a
//! parameter file that the engine's `EvalFile` option reads (and that can become the built-in
//! weights).

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::params::ParamFile;
use tsubame_engine::search_params::{PARAMS, SearchParams};
use tsubame_protocol::client::TimeControl;
use tsubame_rules::{Bitboard, Options, Position, Tables, Variant, VariantSpec, tenjiku, tori, wa};
use tsubame_train::data::FischerClock;
use tsubame_train::games::is_games_file;
use tsubame_train::spsa::{Run, Tuned};
use tsubame_train::tune::{
    FitSettings, Generation, Labelling, Sample, TunedPosition, fit, games_samples, generate,
    tenjiku_samples,
};

/// What to tune.
#[derive(Args)]
pub struct TuneArgs {
    #[command(subcommand)]
    step: TuneStep,
}

#[derive(Subcommand)]
enum TuneStep {
    /// Play self-play games and write their quiet positions with the games' results.
    Generate(GenerateArgs),
    /// Tune the evaluation weights on positions written by `generate` or on games files
    /// written by `tsubame nnue generate` (Tenjiku: games files only).
    Fit(FitArgs),
    /// Tune the search parameters (the engine's `SearchParams` option) by SPSA: pairs of
    /// self-play games between the values moved up and down; resumable from its state file.
    Spsa(SpsaArgs),
}

/// The game and its rule options, shared by both steps.
#[derive(Args)]
struct GameArgs {
    /// The game: `tori` or `wa`; `tenjiku` for `fit` alone (its piece values and rank tables,
    /// fitted on games files).
    #[arg(long, default_value = "tori")]
    variant: String,
    /// A rule option as NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Start from the weights in this parameter file instead of the built-in ones.
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
}

#[derive(Args)]
struct GenerateArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Search nodes per move.
    #[arg(long, default_value_t = 3000)]
    nodes: u64,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Where to write the positions (one `<SFEN><tab><result>` line each).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Args)]
struct FitArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Positions written by `tsubame tune generate`, or games files written by `tsubame nnue
    /// generate` (their quiet searched positions; Tenjiku: games files only). Several files
    /// may be given.
    #[arg(long = "data", value_name = "FILE", required = true)]
    data: Vec<PathBuf>,
    /// For games files, the share of the search's score in each position's label: 0 labels
    /// by the game's result alone, 1 by the score alone (for games that mostly end undecided
    /// at the ply cap, such as Wa's without drops).
    #[arg(long, default_value_t = 0.0)]
    score_weight: f64,
    /// For games files, how a score becomes an expected result: `1 / (1 + 10^(-scale *
    /// score / 400))`, the fit's own curve.
    #[arg(long, default_value_t = 1.0)]
    score_scale: f64,
    /// Gradient steps over all training positions.
    #[arg(long, default_value_t = 400)]
    steps: usize,
    /// Largest change of a weight in one step (centipawns) at the start; it falls to a tenth
    /// by the last step.
    #[arg(long, default_value_t = 2.0)]
    learning_rate: f64,
    /// Pull of each weight back to its starting value (L2 strength); raise it when the error
    /// on kept-aside positions rises while the training error falls.
    #[arg(long, default_value_t = 1e-9)]
    regularization: f64,
    /// Keep every N-th block of 512 positions (several whole games) aside to measure the fit
    /// on positions it has not seen (0: none).
    #[arg(long, default_value_t = 10)]
    validation_every: usize,
    /// Tune only these fields of the parameters (repeatable: `--only board_value --only
    /// hand_value`); the others keep their values. Default: all.
    #[arg(long, value_name = "FIELD")]
    only: Vec<String>,
    /// Threads for the gradient and the error.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Where to write the tuned parameter file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Args)]
struct SpsaArgs {
    #[command(flatten)]
    game: GameArgs,
    /// A search parameter to tune (repeatable; default: every one).
    #[arg(long = "tune", value_name = "NAME")]
    tune: Vec<String>,
    /// The search parameters to start from and to keep for those not tuned, as `name=value`
    /// pairs over the set the engine plays the game with.
    #[arg(long, value_name = "PAIRS", default_value = "")]
    search_params: String,
    /// Steps; each plays one opening twice, each set as sente once.
    #[arg(long, default_value_t = 2000)]
    steps: u32,
    /// Search nodes per move.
    #[arg(long, default_value_t = 3000)]
    nodes: u64,
    /// Play the games under a Fischer clock (`2+0.02`: seconds, plus seconds a move) in place
    /// of `--nodes`, for the time-use parameters (`time_*`), which a node count never calls
    /// on. Steps played at once then share the machine's cores, so keep `--threads` at or
    /// below the cores left free.
    #[arg(long, value_name = "CONTROL")]
    time: Option<String>,
    /// Seed of the openings and the perturbations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Steps played at once (one thread each).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// The learning rate at the last step (`r_end`; Stockfish's framework uses 0.002).
    #[arg(long, default_value_t = 0.002)]
    learning_rate: f64,
    /// The run's state (JSON), written after every batch of steps; an existing file is
    /// resumed with the settings it holds.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
}

/// Runs `tsubame tune`.
pub fn run(args: &TuneArgs) -> Result<()> {
    let game = match &args.step {
        TuneStep::Generate(a) => &a.game,
        TuneStep::Fit(a) => &a.game,
        TuneStep::Spsa(a) => &a.game,
    };
    match game.variant.as_str() {
        "tori" => run_for(tori::tables(), "torishogi", args),
        "wa" => run_for(wa::tables(), "washogi", args),
        "tenjiku" => run_tenjiku(args),
        other => bail!("tuning covers tori, wa and tenjiku, not {other:?}"),
    }
}

/// `tsubame tune fit --variant tenjiku`: its positions come from games files, since its
/// self-play is `tsubame nnue generate --variant tenjiku`'s (resumable and kept).
fn run_tenjiku(args: &TuneArgs) -> Result<()> {
    let TuneStep::Fit(a) = &args.step else {
        bail!(
            "for Tenjiku only `fit` runs: play its games with `tsubame nnue generate --variant \
             tenjiku` and fit on the games file"
        );
    };
    if !a.game.options.is_empty() {
        bail!("for Tenjiku the rule options come from the games files; drop --option");
    }
    let spec = tenjiku::spec();
    let protocol_name = Variant::Tenjiku.protocol_name();
    let base = start_params(spec, protocol_name, &a.game)?;
    let mut samples = Vec::new();
    for path in &a.data {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        if !is_games_file(&bytes) {
            bail!(
                "{} is no games file (Tenjiku is fitted on the games files of `tsubame nnue \
                 generate --variant tenjiku`)",
                path.display()
            );
        }
        samples.extend(tenjiku_samples(
            &bytes,
            &path.display().to_string(),
            labelling(a)?,
        )?);
    }
    run_fit(protocol_name, &base, &samples, a)
}

fn start_params(
    spec: &'static VariantSpec,
    protocol_name: &str,
    game: &GameArgs,
) -> Result<EvalParams> {
    let built_in = EvalParams::for_variant(spec);
    let Some(path) = &game.params else {
        return Ok(built_in);
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read parameter file {}", path.display()))?;
    let file = ParamFile::parse(&text)
        .map_err(anyhow::Error::msg)
        .with_context(|| path.display().to_string())?;
    if file.variant != protocol_name {
        bail!(
            "{} is for {}, not {protocol_name}",
            path.display(),
            file.variant
        );
    }
    file.apply(&built_in)
        .map_err(anyhow::Error::msg)
        .with_context(|| path.display().to_string())
}

fn run_for<B: Bitboard>(
    tables: &'static Tables<B>,
    protocol_name: &str,
    args: &TuneArgs,
) -> Result<()> {
    match &args.step {
        TuneStep::Generate(a) => {
            let mut options = Options::defaults(tables.spec);
            for pair in &a.game.options {
                options.set_pair(pair)?;
            }
            let params = start_params(tables.spec, protocol_name, &a.game)?;
            if a.games == 0 {
                bail!("--games must be at least 1");
            }
            let bar = progress(a.games as u64, "games");
            let bar_handle = bar.clone();
            let lines = generate(
                tables,
                &options,
                &params,
                &Generation {
                    games: a.games,
                    nodes: a.nodes,
                    seed: a.seed,
                    threads: a.threads,
                    ..Generation::default()
                },
                &mut move |_| bar_handle.inc(1),
            );
            bar.finish_and_clear();
            let mut out = std::fs::File::create(&a.out)
                .with_context(|| format!("cannot create {}", a.out.display()))?;
            for line in &lines {
                writeln!(out, "{line}")?;
            }
            println!(
                "{} positions from {} games written to {}",
                lines.len(),
                a.games,
                a.out.display()
            );
        }
        TuneStep::Spsa(a) => run_spsa(tables, protocol_name, a)?,
        TuneStep::Fit(a) => {
            let mut options = Options::defaults(tables.spec);
            for pair in &a.game.options {
                options.set_pair(pair)?;
            }
            let base = start_params(tables.spec, protocol_name, &a.game)?;
            let labelling = labelling(a)?;
            let variant = Variant::from_spec(tables.spec)
                .with_context(|| format!("{protocol_name} is no game of games files"))?;
            let mut samples: Vec<Sample<_>> = Vec::new();
            for path in &a.data {
                let bytes = std::fs::read(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                if is_games_file(&bytes) {
                    let name = path.display().to_string();
                    let (file_options, read) =
                        games_samples(&bytes, &name, variant, labelling, |rules, position| {
                            Position::from_sfen(tables, &position.to_sfen(), rules.rule_set()).ok()
                        })?;
                    if file_options != options {
                        let rules = |o: &Options| match o.to_string() {
                            text if text.is_empty() => "the default rules".to_string(),
                            text => text,
                        };
                        bail!(
                            "{name} was played under {}, not under {} (give the file's rule \
                             options with --option)",
                            rules(&file_options),
                            rules(&options)
                        );
                    }
                    samples.extend(read);
                    continue;
                }
                if labelling != Labelling::RESULTS {
                    bail!(
                        "{}: the positions of `tsubame tune generate` carry results, not \
                         scores; --score-weight is for games files",
                        path.display()
                    );
                }
                let text = String::from_utf8(bytes).with_context(|| {
                    format!("{} is neither a games file nor text", path.display())
                })?;
                for (number, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    let sample = Sample::parse(tables, &options, line).map_err(|e| {
                        anyhow::anyhow!("{} line {}: {e}", path.display(), number + 1)
                    })?;
                    samples.push(sample);
                }
            }
            run_fit(protocol_name, &base, &samples, a)?;
        }
    }
    Ok(())
}

/// How `a` labels the positions of games files; a weight outside 0..=1 or a scale that is not
/// a positive number is refused.
fn labelling(a: &FitArgs) -> Result<Labelling> {
    if !(0.0..=1.0).contains(&a.score_weight) {
        bail!("--score-weight {} is not between 0 and 1", a.score_weight);
    }
    if !(a.score_scale > 0.0 && a.score_scale.is_finite()) {
        bail!("--score-scale {} is not a positive number", a.score_scale);
    }
    Ok(Labelling {
        score_weight: a.score_weight,
        score_scale: a.score_scale,
    })
}

/// Fits `base` on `samples` as `a` says and writes the parameter file.
fn run_fit<P: TunedPosition>(
    protocol_name: &str,
    base: &EvalParams,
    samples: &[Sample<P>],
    a: &FitArgs,
) -> Result<()> {
    if samples.is_empty() {
        bail!("no positions to tune on");
    }
    println!("{} positions", samples.len());
    let fields = ParamFile::complete(protocol_name, base).params;
    if let Some(unknown) = a
        .only
        .iter()
        .find(|name| !fields.contains_key(name.as_str()))
    {
        bail!(
            "--only {unknown}: not an evaluation parameter (one of: {})",
            fields.keys().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let settings = FitSettings {
        steps: a.steps,
        threads: a.threads,
        learning_rate: a.learning_rate,
        regularization: a.regularization,
        validation_every: a.validation_every,
        only: a.only.clone(),
    };
    let result = fit(samples, base, &settings, &mut |round| {
        println!("step {}: error {:.6}", round.step, round.error);
    });
    let file = ParamFile::complete(protocol_name, &result.params);
    std::fs::write(&a.out, file.to_json())
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    println!(
        "scale {:.3}; {} weights changed; error {:.6} -> {:.6}; on kept-aside positions \
         {:.6} -> {:.6}; written to {}",
        result.scale,
        result.changed,
        result.error_before,
        result.error_after,
        result.validation_before,
        result.validation_after,
        a.out.display()
    );
    Ok(())
}

fn run_spsa<B: Bitboard>(
    tables: &'static Tables<B>,
    protocol_name: &str,
    a: &SpsaArgs,
) -> Result<()> {
    let mut options = Options::defaults(tables.spec);
    for pair in &a.game.options {
        options.set_pair(pair)?;
    }
    // The evaluation the engine plays with (the game's built-in network) unless a file says
    // otherwise.
    let eval = match &a.game.params {
        Some(_) => start_params(tables.spec, protocol_name, &a.game)?,
        None => EvalParams::engine_default(&options),
    };
    // The game's own set (Tori's tuned one), with the pairs given over it.
    let own =
        Variant::from_spec(tables.spec).map_or(&SearchParams::DEFAULT, SearchParams::for_variant);
    let base = own
        .with_pairs(&a.search_params)
        .context("--search-params")?;
    let mut run = if a.state.exists() {
        let text = std::fs::read_to_string(&a.state)
            .with_context(|| format!("cannot read {}", a.state.display()))?;
        let run: Run = serde_json::from_str(&text)
            .with_context(|| format!("{} is no SPSA state", a.state.display()))?;
        run.check()
            .map_err(anyhow::Error::msg)
            .with_context(|| a.state.display().to_string())?;
        println!(
            "resuming {} at step {} of {}",
            a.state.display(),
            run.done,
            run.steps
        );
        run
    } else {
        let names: Vec<&str> = if a.tune.is_empty() {
            PARAMS.iter().map(|p| p.name).collect()
        } else {
            a.tune.iter().map(String::as_str).collect()
        };
        let tuned = names
            .iter()
            .map(|name| {
                Tuned::of(name, &base).map(|tuned| Tuned {
                    r_end: a.learning_rate,
                    ..tuned
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .context("--tune")?;
        if !(a.learning_rate > 0.0 && a.learning_rate.is_finite()) {
            bail!("--learning-rate must be a positive number");
        }
        if a.steps == 0 || a.nodes == 0 {
            bail!("--steps and --nodes must be at least 1");
        }
        let mut run = Run::new(tuned, a.steps, a.nodes, a.seed);
        run.clock = a.time.as_deref().map(fischer_clock).transpose()?;
        run
    };
    let bar = progress(u64::from(run.steps), "steps");
    bar.set_position(u64::from(run.done));
    while run.done < run.steps {
        run.advance(
            tables,
            &options,
            &eval,
            &base,
            a.threads.clamp(1, 256) as u32,
        );
        let text = serde_json::to_string_pretty(&run)?;
        // Written aside and renamed, so a run stopped mid-write keeps its last state.
        let aside = a.state.with_extension("json.new");
        std::fs::write(&aside, text)
            .and_then(|()| std::fs::rename(&aside, &a.state))
            .with_context(|| format!("cannot write {}", a.state.display()))?;
        bar.set_position(u64::from(run.done));
        bar.set_message(format!(
            "up {}-{}-{} down",
            run.up_wins, run.draws, run.down_wins
        ));
    }
    bar.finish_and_clear();
    let tuned = run.params(&base);
    println!(
        "{} steps, {} games: the set moved up won {}, drew {}, lost {}",
        run.steps,
        2 * run.steps,
        run.up_wins,
        run.draws,
        run.down_wins
    );
    for t in &run.tuned {
        let start = base.get(&t.name).unwrap_or_default();
        println!("{:<28} {:>6} -> {:>8.2}", t.name, start, t.value);
    }
    println!("setoption name SearchParams value {tuned}");
    Ok(())
}

/// The Fischer clock of `--time`: the match runner's time-control syntax, Fischer only.
fn fischer_clock(text: &str) -> Result<FischerClock> {
    match text.parse::<TimeControl>().context("--time")? {
        TimeControl::Fischer { main, increment } => Ok(FischerClock {
            main_ms: main.as_millis().try_into().unwrap_or(u64::MAX),
            increment_ms: increment.as_millis().try_into().unwrap_or(u64::MAX),
        }),
        _ => bail!("--time {text:?}: give a Fischer clock such as 2+0.02"),
    }
}

fn progress(length: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(length);
    bar.set_style(
        ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {what} {{msg}}"))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
