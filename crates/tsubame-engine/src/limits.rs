//! What a search may spend: depth, nodes, time, and how time on the clock becomes a budget.

use crate::clock::Instant;
use crate::search_params::SearchParams;
use std::time::Duration;

/// The clock situation of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Clock {
    /// Main time left.
    pub remaining: Duration,
    /// Byo-yomi period length (zero without byo-yomi).
    pub byoyomi: Duration,
    /// Fischer increment per move (zero without).
    pub increment: Duration,
}

/// Limits of one search. Unset limits do not apply; with none set the search runs until
/// stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Exactly this much time for the move.
    pub move_time: Option<Duration>,
    /// The clock, for a budget worked out by [`Limits::budget`].
    pub clock: Option<Clock>,
    /// Search until stopped, whatever else is set.
    pub infinite: bool,
    /// How many best moves to find and report, each with its line (MultiPV); 0 and 1 both
    /// mean one. More lines cost time: each is searched to the same depth.
    pub lines: u32,
    /// When the time began to count: the arrival of the command that started the search, so
    /// that the work done before the search proper (copying the game, starting its thread) is
    /// paid from the budget and not on top of it. Unset, the search's own start.
    pub started: Option<Instant>,
}

/// How long to think: past `soft` no new iteration starts, at `hard` the search stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Time after which no new iteration is started.
    pub soft: Duration,
    /// Time at which the search stops.
    pub hard: Duration,
}

/// Time kept back for the protocol round trip and process scheduling under a clock.
const MOVE_OVERHEAD: Duration = Duration::from_millis(60);

/// Time kept back from a fixed move time. A fixed time is a promise to think that long: the
/// search checks the clock every 1024 nodes (about a millisecond), and a client sees the answer
/// 1-3 ms after the stop on this machine class (`go movetime 200` answered after 201-203 ms), so
/// this margin is all the time left unused.
const MOVE_TIME_MARGIN: Duration = Duration::from_millis(8);

/// Time kept back from the hard limit of a move under a Fischer clock: the clock is left with
/// at least this much plus half of what remains, so that a loaded machine that delays one
/// answer does not flag (games of 300+ plies at 0.1 s increments drift to the last few
/// hundredths otherwise). The increment is credited only after the move (as in UCI, USI and
/// XBoard clocks), so the move itself must end within the time left on the clock.
const FISCHER_RESERVE: Duration = Duration::from_millis(100);

impl Limits {
    /// The time budget, if these limits set one.
    ///
    /// Byo-yomi: while main time lasts, a slice of it plus most of a period; in byo-yomi, at most
    /// the period less a margin, so that a move is never late even with one-second periods.
    /// Fischer: a slice of the remaining time plus most of the increment.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use tsubame_engine::limits::{Clock, Limits};
    /// let limits = Limits {
    ///     clock: Some(Clock { byoyomi: Duration::from_secs(1), ..Clock::default() }),
    ///     ..Limits::default()
    /// };
    /// let budget = limits.budget().unwrap();
    /// assert!(budget.hard < Duration::from_secs(1));
    /// ```
    pub fn budget(&self) -> Option<Budget> {
        self.budget_with(&SearchParams::DEFAULT)
    }

    /// [`Limits::budget`] with the time-use factors of `params` (`time_slice_divisor`,
    /// `time_increment_percent`, `time_hard_tenths`); the clock's own bounds hold whatever
    /// they are.
    pub fn budget_with(&self, params: &SearchParams) -> Option<Budget> {
        if self.infinite {
            return None;
        }
        if let Some(time) = self.move_time {
            let hard = time
                .saturating_sub(MOVE_TIME_MARGIN)
                .max(Duration::from_millis(5));
            return Some(Budget { soft: hard, hard });
        }
        let clock = self.clock?;
        let margin = MOVE_OVERHEAD
            .max(clock.byoyomi / 8)
            .min(Duration::from_millis(250));
        if clock.remaining.is_zero() && !clock.byoyomi.is_zero() {
            let period = clock.byoyomi + clock.increment;
            let hard = period.saturating_sub(margin).max(Duration::from_millis(5));
            return Some(Budget {
                soft: hard * 6 / 10,
                hard,
            });
        }
        let divisor = params.time_slice_divisor.max(1) as u32;
        let percent = params.time_increment_percent.clamp(0, 100) as u32;
        let slice = clock.remaining / divisor + (clock.byoyomi + clock.increment) * percent / 100;
        let ceiling = if clock.byoyomi.is_zero() {
            (clock.remaining / 2 + clock.increment)
                .min(clock.remaining)
                .saturating_sub(margin.max(FISCHER_RESERVE))
        } else {
            (clock.remaining + clock.byoyomi + clock.increment).saturating_sub(margin)
        };
        let hard = (slice * params.time_hard_tenths.max(1) as u32 / 10)
            .min(clock.remaining / 4 + clock.byoyomi + clock.increment)
            .min(ceiling);
        let hard = hard.max(Duration::from_millis(5));
        Some(Budget {
            soft: slice.min(hard),
            hard,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search_params::PARAMS;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn byoyomi_alone_never_reaches_the_period() {
        for period in [1000, 3000, 10_000, 30_000] {
            let limits = Limits {
                clock: Some(Clock {
                    remaining: ms(0),
                    byoyomi: ms(period),
                    increment: ms(0),
                }),
                ..Limits::default()
            };
            let budget = limits.budget().unwrap();
            assert!(budget.hard <= ms(period) - ms(60), "{period}: {budget:?}");
            assert!(budget.soft <= budget.hard);
            assert!(budget.hard >= ms(period / 2));
        }
    }

    #[test]
    fn main_time_is_spread_and_never_overspent() {
        let limits = Limits {
            clock: Some(Clock {
                remaining: ms(60_000),
                byoyomi: ms(0),
                increment: ms(0),
            }),
            ..Limits::default()
        };
        let budget = limits.budget().unwrap();
        assert_eq!(budget.soft, ms(2000));
        assert!(budget.hard <= ms(15_000));
        let fischer = Limits {
            clock: Some(Clock {
                remaining: ms(100),
                byoyomi: ms(0),
                increment: ms(100),
            }),
            ..Limits::default()
        };
        assert!(fischer.budget().unwrap().hard < ms(200));
    }

    #[test]
    fn a_fischer_clock_keeps_a_reserve_at_every_level() {
        for remaining in [0, 20, 50, 100, 200, 500, 1000, 5000] {
            let limits = Limits {
                clock: Some(Clock {
                    remaining: ms(remaining),
                    byoyomi: ms(0),
                    increment: ms(100),
                }),
                ..Limits::default()
            };
            let budget = limits.budget().unwrap();
            // What is left after the longest think, before the increment comes back.
            let left_after = (ms(remaining) + ms(100)).saturating_sub(budget.hard);
            assert!(
                left_after >= ms(100) + ms(remaining) / 2 || budget.hard == ms(5),
                "{remaining}: {budget:?}"
            );
        }
    }

    #[test]
    fn a_fischer_move_ends_within_the_time_on_the_clock_whatever_the_increment() {
        // With an increment larger than the time left (60+1 late in a game), the increment
        // comes only after the move: counting it in overstepped the clock.
        // Whatever the time-use parameters: the clock's bounds are not theirs to move.
        for params in time_use_extremes() {
            for increment in [0, 100, 1000, 5000] {
                for remaining in [0, 50, 150, 500, 940, 1500, 3000, 10_000, 60_000] {
                    let limits = Limits {
                        clock: Some(Clock {
                            remaining: ms(remaining),
                            byoyomi: ms(0),
                            increment: ms(increment),
                        }),
                        ..Limits::default()
                    };
                    let budget = limits.budget_with(&params).unwrap();
                    assert!(
                        budget.hard + FISCHER_RESERVE <= ms(remaining) || budget.hard == ms(5),
                        "{remaining}+{increment} with {params}: {budget:?}"
                    );
                    assert!(budget.soft <= budget.hard);
                }
            }
        }
    }

    /// The default set, and the time-use parameters all at their least and all at their
    /// greatest values.
    fn time_use_extremes() -> Vec<SearchParams> {
        let time_use = || PARAMS.iter().filter(|p| p.name.starts_with("time_"));
        let mut least = SearchParams::DEFAULT;
        let mut greatest = SearchParams::DEFAULT;
        for param in time_use() {
            *(param.field)(&mut least) = param.min;
            *(param.field)(&mut greatest) = param.max;
        }
        assert!(time_use().count() >= 3);
        vec![SearchParams::DEFAULT, least, greatest]
    }

    #[test]
    fn the_time_use_parameters_set_the_share_of_the_clock() {
        let limits = Limits {
            clock: Some(Clock {
                remaining: ms(60_000),
                byoyomi: ms(0),
                increment: ms(1000),
            }),
            ..Limits::default()
        };
        let default = limits.budget().unwrap();
        assert_eq!(default, limits.budget_with(&SearchParams::DEFAULT).unwrap());
        assert_eq!(default.soft, ms(2000 + 800));
        let spread: SearchParams = "time_slice_divisor=60 time_increment_percent=50"
            .parse()
            .unwrap();
        assert_eq!(limits.budget_with(&spread).unwrap().soft, ms(1000 + 500));
        let longer: SearchParams = "time_hard_tenths=20".parse().unwrap();
        assert_eq!(limits.budget_with(&longer).unwrap().hard, ms(5600));
        assert_eq!(default.hard, ms(11_200));
    }

    #[test]
    fn fixed_time_and_infinite() {
        let fixed = Limits {
            move_time: Some(ms(500)),
            ..Limits::default()
        };
        assert_eq!(
            fixed.budget(),
            Some(Budget {
                soft: ms(492),
                hard: ms(492)
            })
        );
        let infinite = Limits {
            infinite: true,
            move_time: Some(ms(500)),
            ..Limits::default()
        };
        assert_eq!(infinite.budget(), None);
        assert_eq!(Limits::default().budget(), None);
    }
}
