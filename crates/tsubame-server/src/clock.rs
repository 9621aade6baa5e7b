//! Game clocks kept by the server: byo-yomi, Fischer increment, days per move
//! (correspondence), or none.
//!
//! Times are whole milliseconds. A clock only changes when a move ends a turn; while a turn
//! runs, what a player has left is worked out from when the turn started, so the same state
//! serves the display, the flag check and the database.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The time control chosen for a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum TimeControl {
    /// No clock.
    Unlimited,
    /// Main time, then `periods` periods of `period_ms` each: a move made within a period
    /// keeps it; every period a move overruns is used up, and overrunning the last loses.
    Byoyomi {
        /// Main time.
        main_ms: u64,
        /// Number of byo-yomi periods.
        periods: u32,
        /// Length of one period.
        period_ms: u64,
    },
    /// Main time and an increment added after each move.
    Fischer {
        /// Main time.
        main_ms: u64,
        /// Added after each move.
        increment_ms: u64,
    },
    /// Correspondence: every move within `days_per_move` days; time not used is not kept.
    Correspondence {
        /// Days for each move, 1 to 14.
        days_per_move: u32,
    },
}

/// A day in milliseconds.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// The most days per move a correspondence game may give.
pub const MAX_DAYS_PER_MOVE: u32 = 14;

/// The longest main time, period or increment accepted (a week), so sums never overflow.
pub const MAX_TIME_MS: u64 = 7 * 24 * 3600 * 1000;
/// The most byo-yomi periods accepted.
pub const MAX_PERIODS: u32 = 1000;

/// What is wrong with a time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// A time above [`MAX_TIME_MS`].
    #[error("clock: times are limited to one week")]
    TooLong,
    /// More periods than [`MAX_PERIODS`].
    #[error("clock: at most {MAX_PERIODS} byo-yomi periods")]
    TooManyPeriods,
    /// Periods of length zero.
    #[error("clock: byo-yomi periods need a length (period_ms > 0)")]
    PeriodWithoutLength,
    /// Byo-yomi with neither main time nor periods.
    #[error("clock: byo-yomi needs main time or periods")]
    NoByoyomiTime,
    /// Fischer without main time.
    #[error("clock: Fischer needs main time (main_ms > 0)")]
    NoFischerTime,
    /// Days per move out of 1 to 14.
    #[error("clock: correspondence gives 1 to {MAX_DAYS_PER_MOVE} days per move")]
    DaysPerMove,
}

impl TimeControl {
    /// Refuses values out of range, with what was wrong.
    pub fn validate(&self) -> Result<(), ClockError> {
        match *self {
            TimeControl::Unlimited => Ok(()),
            TimeControl::Byoyomi {
                main_ms,
                periods,
                period_ms,
            } => {
                if main_ms > MAX_TIME_MS || period_ms > MAX_TIME_MS {
                    return Err(ClockError::TooLong);
                }
                if periods > MAX_PERIODS {
                    return Err(ClockError::TooManyPeriods);
                }
                if periods > 0 && period_ms == 0 {
                    return Err(ClockError::PeriodWithoutLength);
                }
                if main_ms == 0 && (periods == 0 || period_ms == 0) {
                    return Err(ClockError::NoByoyomiTime);
                }
                Ok(())
            }
            TimeControl::Fischer {
                main_ms,
                increment_ms,
            } => {
                if main_ms > MAX_TIME_MS || increment_ms > MAX_TIME_MS {
                    return Err(ClockError::TooLong);
                }
                if main_ms == 0 {
                    return Err(ClockError::NoFischerTime);
                }
                Ok(())
            }
            TimeControl::Correspondence { days_per_move } => {
                if !(1..=MAX_DAYS_PER_MOVE).contains(&days_per_move) {
                    return Err(ClockError::DaysPerMove);
                }
                Ok(())
            }
        }
    }

    /// The time for one move of a correspondence game.
    pub fn per_move_ms(&self) -> Option<u64> {
        match *self {
            TimeControl::Correspondence { days_per_move } => {
                Some(u64::from(days_per_move) * DAY_MS)
            }
            _ => None,
        }
    }

    /// Both players' clocks at the start.
    pub fn initial(&self) -> ClockState {
        let side = match *self {
            TimeControl::Unlimited => SideClock {
                remaining_ms: 0,
                periods: 0,
            },
            TimeControl::Byoyomi {
                main_ms, periods, ..
            } => SideClock {
                remaining_ms: main_ms,
                periods,
            },
            TimeControl::Fischer { main_ms, .. } => SideClock {
                remaining_ms: main_ms,
                periods: 0,
            },
            TimeControl::Correspondence { days_per_move } => SideClock {
                remaining_ms: u64::from(days_per_move) * DAY_MS,
                periods: 0,
            },
        };
        ClockState {
            sides: [side, side],
        }
    }
}

/// One player's clock between turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SideClock {
    /// Main time left (Fischer: all time left).
    pub remaining_ms: u64,
    /// Byo-yomi periods left.
    pub periods: u32,
}

/// Both players' clocks between turns: index 0 is sente, 1 gote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClockState {
    /// Sente's and gote's clocks.
    pub sides: [SideClock; 2],
}

impl ClockState {
    /// How long the player `side` may still think in the turn that started `elapsed_ms` ago
    /// before the flag falls; `None` without a clock.
    pub fn time_left(&self, control: &TimeControl, side: usize, elapsed_ms: u64) -> Option<u64> {
        let clock = self.sides.get(side)?;
        let total = match *control {
            TimeControl::Unlimited => return None,
            TimeControl::Byoyomi { period_ms, .. } => clock
                .remaining_ms
                .saturating_add(period_ms.saturating_mul(u64::from(clock.periods))),
            TimeControl::Fischer { .. } | TimeControl::Correspondence { .. } => clock.remaining_ms,
        };
        Some(total.saturating_sub(elapsed_ms))
    }

    /// Ends `side`'s turn after `elapsed_ms`. Returns `false`, changing nothing, when the
    /// player ran out of time during it.
    pub fn end_turn(&mut self, control: &TimeControl, side: usize, elapsed_ms: u64) -> bool {
        let Some(clock) = self.sides.get_mut(side) else {
            return false;
        };
        match *control {
            TimeControl::Unlimited => true,
            TimeControl::Fischer { increment_ms, .. } => {
                if elapsed_ms >= clock.remaining_ms {
                    return false;
                }
                clock.remaining_ms = clock.remaining_ms - elapsed_ms + increment_ms;
                true
            }
            TimeControl::Correspondence { days_per_move } => {
                let per_move = u64::from(days_per_move) * DAY_MS;
                if elapsed_ms >= per_move {
                    return false;
                }
                clock.remaining_ms = per_move;
                true
            }
            TimeControl::Byoyomi { period_ms, .. } => {
                if elapsed_ms < clock.remaining_ms {
                    clock.remaining_ms -= elapsed_ms;
                    return true;
                }
                let overrun = elapsed_ms - clock.remaining_ms;
                // A move inside a period keeps it; each whole period overrun is spent.
                let spent = overrun.checked_div(period_ms).unwrap_or(u64::MAX);
                if spent >= u64::from(clock.periods) {
                    return false;
                }
                clock.remaining_ms = 0;
                clock.periods -= spent as u32;
                true
            }
        }
    }

    /// What `side`'s clock shows `elapsed_ms` into its turn: main time left, periods left, and
    /// time left in the current period (zero while main time lasts).
    pub fn display(&self, control: &TimeControl, side: usize, elapsed_ms: u64) -> ClockView {
        let Some(clock) = self.sides.get(side).copied() else {
            return ClockView::default();
        };
        match *control {
            TimeControl::Unlimited => ClockView::default(),
            TimeControl::Fischer { .. } | TimeControl::Correspondence { .. } => ClockView {
                remaining_ms: clock.remaining_ms.saturating_sub(elapsed_ms),
                periods: 0,
                period_ms: 0,
            },
            TimeControl::Byoyomi { period_ms, .. } => {
                if elapsed_ms < clock.remaining_ms {
                    return ClockView {
                        remaining_ms: clock.remaining_ms - elapsed_ms,
                        periods: clock.periods,
                        period_ms: if clock.periods > 0 { period_ms } else { 0 },
                    };
                }
                let overrun = elapsed_ms - clock.remaining_ms;
                let spent = overrun.checked_div(period_ms).unwrap_or(u64::MAX);
                if spent >= u64::from(clock.periods) {
                    return ClockView::default();
                }
                ClockView {
                    remaining_ms: 0,
                    periods: clock.periods - spent as u32,
                    period_ms: period_ms - overrun % period_ms,
                }
            }
        }
    }
}

/// A clock as a player sees it at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct ClockView {
    /// Main time left.
    pub remaining_ms: u64,
    /// Byo-yomi periods left (the current one included).
    pub periods: u32,
    /// Time left in the current byo-yomi period (the full period while main time lasts).
    pub period_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    const BYO: TimeControl = TimeControl::Byoyomi {
        main_ms: 1000,
        periods: 2,
        period_ms: 500,
    };

    #[test]
    fn byoyomi_uses_main_time_then_periods() {
        let mut state = BYO.initial();
        assert!(state.end_turn(&BYO, 0, 400));
        assert_eq!(state.sides[0].remaining_ms, 600);
        // 600 main + 300 into the first period: the period is kept.
        assert!(state.end_turn(&BYO, 0, 900));
        assert_eq!(
            state.sides[0],
            SideClock {
                remaining_ms: 0,
                periods: 2
            }
        );
        // Overrunning one whole period spends it.
        assert!(state.end_turn(&BYO, 0, 700));
        assert_eq!(state.sides[0].periods, 1);
        assert_eq!(state.time_left(&BYO, 0, 100), Some(400));
        assert!(!state.end_turn(&BYO, 0, 500));
        assert_eq!(state.sides[0].periods, 1, "a lost turn changes nothing");
    }

    #[test]
    fn byoyomi_display_counts_down_the_period() {
        let state = BYO.initial();
        let view = state.display(&BYO, 1, 1200);
        assert_eq!(
            view,
            ClockView {
                remaining_ms: 0,
                periods: 2,
                period_ms: 300
            }
        );
        let view = state.display(&BYO, 1, 1700);
        assert_eq!(
            view,
            ClockView {
                remaining_ms: 0,
                periods: 1,
                period_ms: 300
            }
        );
        assert_eq!(state.display(&BYO, 1, 2000), ClockView::default());
    }

    #[test]
    fn correspondence_gives_the_same_days_for_every_move() {
        let control = TimeControl::Correspondence { days_per_move: 2 };
        assert_eq!(control.validate(), Ok(()));
        let mut state = control.initial();
        assert_eq!(state.time_left(&control, 0, 0), Some(2 * DAY_MS));
        assert!(state.end_turn(&control, 0, DAY_MS + 5));
        // Time not used is not kept: the next move has two days again.
        assert_eq!(state.time_left(&control, 0, 0), Some(2 * DAY_MS));
        assert_eq!(state.display(&control, 0, DAY_MS).remaining_ms, DAY_MS);
        assert!(!state.end_turn(&control, 1, 2 * DAY_MS));
        for days in [0, MAX_DAYS_PER_MOVE + 1] {
            let bad = TimeControl::Correspondence {
                days_per_move: days,
            };
            assert_eq!(bad.validate(), Err(ClockError::DaysPerMove));
        }
    }

    #[test]
    fn fischer_adds_the_increment() {
        let control = TimeControl::Fischer {
            main_ms: 1000,
            increment_ms: 200,
        };
        let mut state = control.initial();
        assert!(state.end_turn(&control, 1, 300));
        assert_eq!(state.sides[1].remaining_ms, 900);
        assert_eq!(state.time_left(&control, 1, 0), Some(900));
        assert!(!state.end_turn(&control, 1, 900));
    }

    #[test]
    fn bad_controls_are_refused() {
        let bad = TimeControl::Byoyomi {
            main_ms: 0,
            periods: 0,
            period_ms: 0,
        };
        assert!(bad.validate().is_err());
        assert!(BYO.validate().is_ok());
        assert!(TimeControl::Unlimited.validate().is_ok());
    }
}
