//! Tuning of the search parameters by SPSA (simultaneous perturbation stochastic
//! approximation), the method Stockfish's testing framework uses: each step moves every tuned
//! parameter at once by a random ±c, plays a pair of games (one opening, each side once)
//! between the set moved up and the set moved down, and moves the parameters towards the
//! winner in proportion to the result. Steps shrink as the run goes on, so the values settle.
//!
//! The schedule follows that framework's: for a run of `N` steps, step `k` (from 1) perturbs by
//! `c_k = c_end · (N / k)^γ` and moves by `R_k · c_k · result · δ`, where `R_k = a_k / c_k²`,
//! `a_k = a_end · (A + N)^α / (A + k)^α`, `a_end = r_end · c_end²`, `A = N / 10`, `α = 0.602`
//! and `γ = 0.101`; `c_end` is the perturbation at the end and `r_end` the learning rate there.
//!
//! ```
//! use tsubame_train::spsa::{Schedule, Tuned};
//!
//! let tuned = Tuned::new("futility_margin", 120.0, 0.0, 600.0, 12.0, 0.002);
//! let schedule = Schedule::new(1000);
//! // Early steps perturb more than the last, which perturbs by c_end.
//! assert!(schedule.perturbation(&tuned, 1) > schedule.perturbation(&tuned, 1000));
//! assert!((schedule.perturbation(&tuned, 1000) - 12.0).abs() < 1e-9);
//! // A won pair (+2) with the parameter moved up pushes it up.
//! assert!(schedule.change(&tuned, 1, 1.0, 2.0) > 0.0);
//! ```

use crate::data::{FischerClock, Generation, Player, play_between};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::search_params::{PARAMS, SearchParams, SearchParamsError};
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::{Bitboard, Color, Options, Tables};

const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;

/// One tuned parameter: its current value (kept as a real number; the games use it rounded),
/// its range and its schedule's ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuned {
    /// The parameter's name in [`SearchParams`].
    pub name: String,
    /// The current value.
    pub value: f64,
    /// The least value.
    pub min: f64,
    /// The greatest value.
    pub max: f64,
    /// The perturbation at the last step.
    pub c_end: f64,
    /// The learning rate at the last step.
    pub r_end: f64,
}

impl Tuned {
    /// A parameter to tune from `value`.
    pub fn new(name: &str, value: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> Tuned {
        Tuned {
            name: name.to_string(),
            value,
            min,
            max,
            c_end,
            r_end,
        }
    }

    /// The search parameter `name` from its value in `base`, with its range from
    /// [`PARAMS`], a perturbation of a twentieth of its range (at least 1) and the usual
    /// learning rate 0.002.
    pub fn of(name: &str, base: &SearchParams) -> Result<Tuned, SearchParamsError> {
        let param = PARAMS
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| SearchParamsError::UnknownName(name.to_string()))?;
        let value = base.get(name).unwrap_or(param.min);
        let c_end = (f64::from(param.max - param.min) / 20.0).max(1.0);
        Ok(Tuned::new(
            name,
            f64::from(value),
            f64::from(param.min),
            f64::from(param.max),
            c_end,
            0.002,
        ))
    }
}

/// The step sizes of a run of `steps` steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    steps: u32,
}

impl Schedule {
    /// The schedule of a run of `steps` steps (at least 1).
    pub fn new(steps: u32) -> Schedule {
        Schedule {
            steps: steps.max(1),
        }
    }

    /// `c_k`: how far step `k` (from 1) moves the parameter up and down for its games.
    pub fn perturbation(&self, tuned: &Tuned, k: u32) -> f64 {
        let n = f64::from(self.steps);
        tuned.c_end * (n / f64::from(k.max(1))).powf(GAMMA)
    }

    /// How far step `k` moves the parameter when it was perturbed in direction `delta` (±1)
    /// and the pair of games gave `result` (the up set's points less the down set's, -2 to 2).
    pub fn change(&self, tuned: &Tuned, k: u32, delta: f64, result: f64) -> f64 {
        let n = f64::from(self.steps);
        let big_a = n / 10.0;
        let a_end = tuned.r_end * tuned.c_end * tuned.c_end;
        let a_k = a_end * (big_a + n).powf(ALPHA) / (big_a + f64::from(k.max(1))).powf(ALPHA);
        let c_k = self.perturbation(tuned, k);
        let r_k = a_k / (c_k * c_k);
        r_k * c_k * result * delta
    }
}

/// A run's state: what it tunes, how far it has got and the games' results so far. It is
/// what the command saves after each step and resumes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The parameters tuned, with their current values.
    pub tuned: Vec<Tuned>,
    /// Steps in the whole run.
    pub steps: u32,
    /// Steps done.
    pub done: u32,
    /// Search nodes a move in the games.
    pub nodes: u64,
    /// A clock for the games in place of the node count (for the time-use parameters,
    /// which a node count never calls on). Absent from the state files of node runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<FischerClock>,
    /// Seed of the openings and the perturbations.
    pub seed: u64,
    /// Games won by the set moved up, drawn, and won by the set moved down.
    pub up_wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games won by the set moved down.
    pub down_wins: u32,
}

impl Run {
    /// A new run of `steps` steps tuning `tuned`.
    pub fn new(tuned: Vec<Tuned>, steps: u32, nodes: u64, seed: u64) -> Run {
        Run {
            tuned,
            steps,
            done: 0,
            nodes,
            clock: None,
            seed,
            up_wins: 0,
            draws: 0,
            down_wins: 0,
        }
    }

    /// What is wrong with a run read back from a file, if anything: every tuned name must be
    /// a search parameter with its range, its value inside it, its schedule's ends positive
    /// numbers, and the run at least one step and one node long.
    pub fn check(&self) -> Result<(), String> {
        if self.steps == 0 || self.nodes == 0 || self.done > self.steps {
            return Err(format!(
                "steps {}, done {}, nodes {}: a run has at least one step and one node, and no \
                 more steps done than it has",
                self.steps, self.done, self.nodes
            ));
        }
        for tuned in &self.tuned {
            let param = PARAMS
                .iter()
                .find(|p| p.name == tuned.name)
                .ok_or_else(|| format!("no search parameter is called {:?}", tuned.name))?;
            let range = f64::from(param.min)..=f64::from(param.max);
            let positive = |x: f64| x.is_finite() && x > 0.0;
            if tuned.min != *range.start()
                || tuned.max != *range.end()
                || !range.contains(&tuned.value)
                || !positive(tuned.c_end)
                || !positive(tuned.r_end)
            {
                return Err(format!(
                    "{}: value {} outside {}..={}, or c_end {} or r_end {} not positive",
                    tuned.name, tuned.value, param.min, param.max, tuned.c_end, tuned.r_end
                ));
            }
        }
        Ok(())
    }

    /// `base` with the tuned parameters at their current values, rounded.
    pub fn params(&self, base: &SearchParams) -> SearchParams {
        self.with_values(base, self.tuned.iter().map(|t| t.value))
    }

    fn with_values(&self, base: &SearchParams, values: impl Iterator<Item = f64>) -> SearchParams {
        let mut params = base.clone();
        for (tuned, value) in self.tuned.iter().zip(values) {
            let value = value.clamp(tuned.min, tuned.max).round() as i32;
            // Names and ranges were checked when the run was made.
            let _ = params.set(&tuned.name, value);
        }
        params
    }

    /// The perturbation directions of step `k`: ±1 per parameter, from the run's seed.
    fn directions(&self, k: u32) -> Vec<f64> {
        let mut rng =
            StdRng::seed_from_u64(self.seed ^ u64::from(k).wrapping_mul(0xD1B5_4A32_D192_ED03));
        self.tuned
            .iter()
            .map(|_| if rng.gen_bool(0.5) { 1.0 } else { -1.0 })
            .collect()
    }

    /// Plays the next `batch` steps at once (one thread each; every step of a batch starts
    /// from the values before it) and applies their results. Returns how many steps ran.
    pub fn advance<B: Bitboard>(
        &mut self,
        tables: &'static Tables<B>,
        options: &Options,
        eval: &EvalParams,
        base: &SearchParams,
        batch: u32,
    ) -> u32 {
        let schedule = Schedule::new(self.steps);
        let steps: Vec<u32> = (self.done + 1..=self.steps)
            .take(batch.max(1) as usize)
            .collect();
        let plans: Vec<(u32, Vec<f64>, SearchParams, SearchParams)> = steps
            .iter()
            .map(|&k| {
                let directions = self.directions(k);
                let shift = |sign: f64| {
                    self.tuned
                        .iter()
                        .zip(&directions)
                        .map(move |(t, d)| t.value + sign * d * schedule.perturbation(t, k))
                };
                let up = self.with_values(base, shift(1.0));
                let down = self.with_values(base, shift(-1.0));
                (k, directions, up, down)
            })
            .collect();
        let generation = Generation {
            nodes: self.nodes,
            seed: self.seed,
            clock: self.clock,
            ..Generation::default()
        };
        let results: Vec<[Option<Option<Color>>; 2]> = std::thread::scope(|scope| {
            let handles: Vec<_> = plans
                .iter()
                .map(|(k, _, up, down)| {
                    let generation = &generation;
                    scope.spawn(move || {
                        let up_tt = Arc::new(TranspositionTable::new(16));
                        let down_tt = Arc::new(TranspositionTable::new(16));
                        let up = Player {
                            search: Some(up),
                            tt: &up_tt,
                        };
                        let down = Player {
                            search: Some(down),
                            tt: &down_tt,
                        };
                        // One opening, each set as sente once.
                        let first =
                            play_between(tables, options, eval, [up, down], generation, *k).winner;
                        let second =
                            play_between(tables, options, eval, [down, up], generation, *k).winner;
                        [Some(first), Some(second)]
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or([None, None]))
                .collect()
        });
        for ((k, directions, _, _), [first, second]) in plans.iter().zip(results) {
            let mut result = 0.0;
            for (winner, up_color) in [(first, Color::Sente), (second, Color::Gote)] {
                match winner {
                    Some(Some(color)) if color == up_color => {
                        result += 1.0;
                        self.up_wins += 1;
                    }
                    Some(Some(_)) => {
                        result -= 1.0;
                        self.down_wins += 1;
                    }
                    Some(None) => self.draws += 1,
                    // A game whose thread failed counts for neither.
                    None => {}
                }
            }
            for (tuned, delta) in self.tuned.iter_mut().zip(directions) {
                let change = schedule.change(tuned, *k, *delta, result);
                tuned.value = (tuned.value + change).clamp(tuned.min, tuned.max);
            }
        }
        self.done += steps.len() as u32;
        steps.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::tori;

    #[test]
    fn the_schedule_shrinks_and_moves_towards_the_winner() {
        let tuned = Tuned::new("futility_margin", 120.0, 0.0, 600.0, 10.0, 0.002);
        let schedule = Schedule::new(100);
        assert!((schedule.perturbation(&tuned, 100) - 10.0).abs() < 1e-9);
        // c_1 = c_end * 100^0.101.
        assert!((schedule.perturbation(&tuned, 1) - 10.0 * 100f64.powf(0.101)).abs() < 1e-9);
        // At the last step the move is r_end * c_end * result * delta over c_end: r_end *
        // c_end * result.
        let last = schedule.change(&tuned, 100, 1.0, 2.0);
        assert!((last - 0.002 * 10.0 * 2.0).abs() < 1e-9, "{last}");
        assert!(schedule.change(&tuned, 1, 1.0, 2.0) > last);
        assert!(schedule.change(&tuned, 1, -1.0, 2.0) < 0.0);
        assert_eq!(schedule.change(&tuned, 1, 1.0, 0.0), 0.0);
    }

    #[test]
    fn a_short_run_plays_its_games_keeps_its_ranges_and_repeats_itself() {
        let options = Options::defaults(tori::spec());
        let eval = EvalParams::for_variant(tori::spec());
        let base = SearchParams::default();
        let tuned = vec![
            Tuned::of("futility_margin", &base).unwrap_or_else(|e| panic!("{e}")),
            Tuned::of("lmr_divisor", &base).unwrap_or_else(|e| panic!("{e}")),
        ];
        let run = || {
            let mut run = Run::new(tuned.clone(), 4, 200, 3);
            while run.done < run.steps {
                assert!(run.advance(tori::tables(), &options, &eval, &base, 2) > 0);
            }
            run
        };
        let first = run();
        assert_eq!(first.done, 4);
        assert_eq!(first.up_wins + first.draws + first.down_wins, 8);
        for tuned in &first.tuned {
            assert!((tuned.min..=tuned.max).contains(&tuned.value), "{tuned:?}");
        }
        // Seeded games at a node count: the same run gives the same values.
        assert_eq!(run(), first);
        let params = first.params(&base);
        assert_eq!(
            params.get("futility_margin"),
            Some(first.tuned[0].value.round() as i32)
        );
        assert_eq!(params.iir_depth, base.iir_depth);
        assert!(Tuned::of("depth", &base).is_err());
    }

    /// Under a clock a side that runs out of time loses: with no time at all, the first side
    /// to search after the random opening flags at once; with time, the game is played out
    /// and a state file keeps the clock.
    #[test]
    fn games_under_a_clock_are_lost_on_time_and_the_run_keeps_its_clock() {
        let options = Options::defaults(tori::spec());
        let eval = EvalParams::for_variant(tori::spec());
        let base = SearchParams::default();
        let tables = [
            Arc::new(TranspositionTable::new(1)),
            Arc::new(TranspositionTable::new(1)),
        ];
        let players = [
            Player {
                search: Some(&base),
                tt: &tables[0],
            },
            Player {
                search: Some(&base),
                tt: &tables[1],
            },
        ];
        let no_time = Generation {
            clock: Some(FischerClock {
                main_ms: 0,
                increment_ms: 0,
            }),
            ..Generation::default()
        };
        for game in 0..4 {
            let played = play_between(tori::tables(), &options, &eval, players, &no_time, game);
            // Only the random opening was played; the side to move next lost.
            let to_move = if played.moves.len() % 2 == 0 {
                Color::Sente
            } else {
                Color::Gote
            };
            assert!(played.plies.is_empty());
            assert_eq!(played.winner, Some(!to_move), "game {game}");
        }
        let tuned = vec![Tuned::of("time_slice_divisor", &base).unwrap_or_else(|e| panic!("{e}"))];
        let mut run = Run::new(tuned, 1, 1, 5);
        run.clock = Some(FischerClock {
            main_ms: 1000,
            increment_ms: 20,
        });
        run.advance(tori::tables(), &options, &eval, &base, 1);
        assert_eq!(run.up_wins + run.draws + run.down_wins, 2);
        let text = serde_json::to_string(&run).unwrap();
        let back: Run = serde_json::from_str(&text).unwrap();
        assert_eq!(back, run);
        assert!(back.check().is_ok());
        // A node run's state file has no clock and reads back without one.
        let nodes = Run::new(Vec::new(), 1, 200, 5);
        let text = serde_json::to_string(&nodes).unwrap();
        assert!(!text.contains("clock"));
        assert_eq!(serde_json::from_str::<Run>(&text).unwrap().clock, None);
    }
}
