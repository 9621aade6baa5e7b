//! Time controls and the match's own clocks. The match, not the engine, decides when an engine
//! has run out of time: it measures from sending `go` to reading `bestmove`.

use crate::dialect::{Dialect, GoLimits};
use std::str::FromStr;
use std::time::Duration;
use tsubame_rules::Color;

/// How much thinking each engine gets per game or per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Main time, then a byo-yomi period for every move once the main time is used up
    /// (`10+1b`).
    Byoyomi {
        /// Main time per game.
        main: Duration,
        /// Time per move after the main time.
        period: Duration,
    },
    /// Main time plus an increment after each move (`10+0.1`; `10` alone is sudden death).
    Fischer {
        /// Main time per game.
        main: Duration,
        /// Time added after each move.
        increment: Duration,
    },
    /// A fixed time per move in milliseconds (`movetime=200`).
    MoveTime(Duration),
    /// A node budget per move, without a clock (`nodes=5000`).
    Nodes(u64),
    /// A depth per move, without a clock (`depth=4`).
    Depth(u32),
}

/// Why a time control is refused: text that is none, or one XBoard cannot express.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// A time that is not a number of seconds.
    #[error("time control {whole:?}: {text:?} is not a number of seconds")]
    Seconds {
        /// The whole control as written.
        whole: String,
        /// The part that is wrong.
        text: String,
    },
    /// A time beyond a million seconds.
    #[error("time control {whole:?}: {text:?} is out of range")]
    Range {
        /// The whole control as written.
        whole: String,
        /// The part that is wrong.
        text: String,
    },
    /// A move time, node count or depth that is not a positive whole number.
    #[error("time control {whole:?}: {text:?} is not a positive number")]
    NotPositive {
        /// The whole control as written.
        whole: String,
        /// The part that is wrong.
        text: String,
    },
    /// A depth beyond 200.
    #[error("time control {0:?}: depth at most 200")]
    Depth(String),
    /// A control that gives no time at all.
    #[error(
        "time control {0:?} gives no time (use e.g. 10+1b, 10+0.1, movetime=200, nodes=5000 or depth=4)"
    )]
    NoTime(String),
    /// Byo-yomi for an XBoard engine.
    #[error("XBoard has no byo-yomi; give XBoard engines a Fischer control such as 10+0.1")]
    XboardByoyomi,
    /// A node limit for an XBoard engine.
    #[error("XBoard has no node limit; give XBoard engines a clock, movetime= or depth=")]
    XboardNodes,
}

/// Text cut to 40 characters, for errors.
fn shown(text: &str) -> String {
    text.chars().take(40).collect()
}

fn seconds(text: &str, whole: &str) -> Result<Duration, TimeControlError> {
    let value: f64 = text.trim().parse().map_err(|_| TimeControlError::Seconds {
        whole: shown(whole),
        text: shown(text),
    })?;
    if !(value.is_finite() && (0.0..=1e6).contains(&value)) {
        return Err(TimeControlError::Range {
            whole: shown(whole),
            text: shown(text),
        });
    }
    Ok(Duration::from_secs_f64(value))
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let text = text.trim();
        let number = |value: &str| -> Result<u64, TimeControlError> {
            value.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                TimeControlError::NotPositive {
                    whole: shown(text),
                    text: shown(value),
                }
            })
        };
        if let Some(ms) = text.strip_prefix("movetime=") {
            return Ok(TimeControl::MoveTime(Duration::from_millis(number(ms)?)));
        }
        if let Some(nodes) = text.strip_prefix("nodes=") {
            return Ok(TimeControl::Nodes(number(nodes)?));
        }
        if let Some(depth) = text.strip_prefix("depth=") {
            let depth = number(depth)?;
            if depth > 200 {
                return Err(TimeControlError::Depth(shown(text)));
            }
            return Ok(TimeControl::Depth(depth as u32));
        }
        let control = match text.split_once('+') {
            Some((main, period)) if period.ends_with('b') => TimeControl::Byoyomi {
                main: seconds(main, text)?,
                period: seconds(&period[..period.len() - 1], text)?,
            },
            Some((main, increment)) => TimeControl::Fischer {
                main: seconds(main, text)?,
                increment: seconds(increment, text)?,
            },
            None => TimeControl::Fischer {
                main: seconds(text, text)?,
                increment: Duration::ZERO,
            },
        };
        match control {
            TimeControl::Byoyomi { main, period } if main + period > Duration::ZERO => Ok(control),
            TimeControl::Fischer { main, .. } if main > Duration::ZERO => Ok(control),
            _ => Err(TimeControlError::NoTime(shown(text))),
        }
    }
}

/// Seconds as written in a control: whole seconds bare, else up to milliseconds.
fn seconds_text(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{:.3}", duration.as_secs_f64())
            .trim_end_matches('0')
            .to_string()
    }
}

/// The control as it is written on the command line (`10+1b`, `10+0.1`, `movetime=200`,
/// `nodes=5000`, `depth=4`); it reads back as the same control.
impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            TimeControl::Byoyomi { main, period } => {
                write!(f, "{}+{}b", seconds_text(main), seconds_text(period))
            }
            TimeControl::Fischer { main, increment } => {
                write!(f, "{}+{}", seconds_text(main), seconds_text(increment))
            }
            TimeControl::MoveTime(time) => write!(f, "movetime={}", time.as_millis()),
            TimeControl::Nodes(nodes) => write!(f, "nodes={nodes}"),
            TimeControl::Depth(depth) => write!(f, "depth={depth}"),
        }
    }
}

/// Both players' clocks in one game, each with its own control (the same for both but in a
/// match at time odds).
#[derive(Clone, Debug)]
pub struct Clock {
    /// The controls, indexed by colour.
    controls: [TimeControl; 2],
    margin: Duration,
    /// Main time left, indexed by colour.
    remaining: [Duration; 2],
}

fn millis(duration: Duration) -> u128 {
    duration.as_millis()
}

fn main_time(control: TimeControl) -> Duration {
    match control {
        TimeControl::Byoyomi { main, .. } | TimeControl::Fischer { main, .. } => main,
        _ => Duration::ZERO,
    }
}

impl Clock {
    /// Full clocks for a new game; `margin` is how far past its time an engine may answer
    /// without losing, to absorb pipe and scheduling delays.
    pub fn new(control: TimeControl, margin: Duration) -> Clock {
        Clock::with_controls([control, control], margin)
    }

    /// Full clocks for a new game in which sente and gote (in that order) have controls of
    /// their own.
    pub fn with_controls(controls: [TimeControl; 2], margin: Duration) -> Clock {
        Clock {
            controls,
            margin,
            remaining: controls.map(main_time),
        }
    }

    fn control(&self, color: Color) -> TimeControl {
        self.controls[color as usize]
    }

    /// The `go` command for `color` to move, in a USI-family protocol's words (UCI's `w` is
    /// sente): the mover's own kind of limit, with both clocks where it has one.
    pub fn go_command(&self, dialect: &Dialect, color: Color) -> String {
        let sente_ms = millis(self.remaining[Color::Sente as usize]);
        let gote_ms = millis(self.remaining[Color::Gote as usize]);
        let increment = |color: Color| match self.control(color) {
            TimeControl::Fischer { increment, .. } => millis(increment),
            _ => 0,
        };
        dialect.go_command(match self.control(color) {
            TimeControl::Byoyomi { period, .. } => GoLimits::Byoyomi {
                sente_ms,
                gote_ms,
                period_ms: millis(period),
            },
            TimeControl::Fischer { .. } => GoLimits::Fischer {
                sente_ms,
                gote_ms,
                sente_increment_ms: increment(Color::Sente),
                gote_increment_ms: increment(Color::Gote),
            },
            TimeControl::MoveTime(time) => GoLimits::MoveTime(millis(time)),
            TimeControl::Nodes(nodes) => GoLimits::Nodes(nodes),
            TimeControl::Depth(depth) => GoLimits::Depth(depth),
        })
    }

    /// The XBoard commands that set this control up at the start of a game, or why XBoard
    /// cannot express it.
    pub fn xboard_setup(control: TimeControl) -> Result<Vec<String>, TimeControlError> {
        Ok(match control {
            TimeControl::Fischer { main, increment } => {
                let seconds = main.as_secs();
                vec![format!(
                    "level 0 {}:{:02} {}",
                    seconds / 60,
                    seconds % 60,
                    increment.as_secs_f64()
                )]
            }
            TimeControl::MoveTime(time) => vec![format!("st {}", time.as_secs_f64())],
            TimeControl::Depth(depth) => vec![format!("sd {depth}")],
            TimeControl::Byoyomi { .. } => return Err(TimeControlError::XboardByoyomi),
            TimeControl::Nodes(_) => return Err(TimeControlError::XboardNodes),
        })
    }

    /// XBoard's `time` and `otim` lines (centiseconds) for `color` about to move. With a
    /// fixed time per move both clocks show ten moves' worth, as some engines read `st` only
    /// together with a clock.
    pub fn xboard_clock_lines(&self, color: Color) -> Vec<String> {
        let centis = |duration: Duration| duration.as_millis() / 10;
        match self.control(color) {
            TimeControl::Fischer { .. } => vec![
                format!("time {}", centis(self.remaining[color as usize])),
                format!("otim {}", centis(self.remaining[!color as usize])),
            ],
            TimeControl::MoveTime(time) => {
                vec![
                    format!("time {}", centis(time * 10)),
                    format!("otim {}", centis(time * 10)),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// How long `color` may take for this move before losing on time, margin included;
    /// `None` without a clock.
    pub fn allowed(&self, color: Color) -> Option<Duration> {
        let left = self.remaining[color as usize];
        match self.control(color) {
            TimeControl::Byoyomi { period, .. } => Some(left + period + self.margin),
            TimeControl::Fischer { .. } => Some(left + self.margin),
            TimeControl::MoveTime(time) => Some(time + self.margin),
            TimeControl::Nodes(_) | TimeControl::Depth(_) => None,
        }
    }

    /// Charges `color` for a move that took `elapsed`; `false` when that was too long.
    pub fn charge(&mut self, color: Color, elapsed: Duration) -> bool {
        if self.allowed(color).is_some_and(|allowed| elapsed > allowed) {
            return false;
        }
        let control = self.control(color);
        let left = &mut self.remaining[color as usize];
        match control {
            TimeControl::Byoyomi { .. } => *left = left.saturating_sub(elapsed),
            TimeControl::Fischer { increment, .. } => {
                *left = left.saturating_sub(elapsed) + increment
            }
            _ => {}
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_form_as_it_reads() {
        for text in [
            "10+1b",
            "10+0.1",
            "0+2b",
            "60+1",
            "2.5+0.05",
            "300+0",
            "movetime=200",
            "nodes=5000",
            "depth=4",
        ] {
            let control: TimeControl = text.parse().unwrap();
            assert_eq!(control.to_string(), text);
        }
        // A bare main time is sudden death, written with its zero increment.
        assert_eq!("10".parse::<TimeControl>().unwrap().to_string(), "10+0");
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            "10+1b".parse(),
            Ok(TimeControl::Byoyomi {
                main: Duration::from_secs(10),
                period: Duration::from_secs(1)
            })
        );
        assert_eq!(
            "10+0.1".parse(),
            Ok(TimeControl::Fischer {
                main: Duration::from_secs(10),
                increment: Duration::from_millis(100)
            })
        );
        assert_eq!(
            "0+2b".parse(),
            Ok(TimeControl::Byoyomi {
                main: Duration::ZERO,
                period: Duration::from_secs(2)
            })
        );
        assert_eq!(
            "movetime=200".parse(),
            Ok(TimeControl::MoveTime(Duration::from_millis(200)))
        );
        assert_eq!("nodes=5000".parse(), Ok(TimeControl::Nodes(5000)));
        assert_eq!("depth=4".parse(), Ok(TimeControl::Depth(4)));
        for bad in [
            "", "0", "0+0b", "x+1", "nodes=0", "depth=-1", "10+1c", "nan+1", "-5+1",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn byoyomi_clock() {
        let control = "1+0.5b".parse().unwrap();
        let mut clock = Clock::new(control, Duration::from_millis(50));
        assert_eq!(
            clock.go_command(&crate::dialect::USI, Color::Sente),
            "go btime 1000 wtime 1000 byoyomi 500"
        );
        assert!(clock.charge(Color::Sente, Duration::from_millis(1200)));
        // The main time is gone; only the period (and the margin) remain.
        assert_eq!(
            clock.allowed(Color::Sente),
            Some(Duration::from_millis(550))
        );
        assert!(clock.charge(Color::Sente, Duration::from_millis(540)));
        assert!(!clock.charge(Color::Sente, Duration::from_millis(560)));
        assert_eq!(
            clock.go_command(&crate::dialect::UCI, Color::Sente),
            "go wtime 0 btime 1000 byoyomi 500"
        );
    }

    #[test]
    fn fischer_clock() {
        let control = "1+0.1".parse().unwrap();
        let mut clock = Clock::new(control, Duration::ZERO);
        assert!(clock.charge(Color::Gote, Duration::from_millis(300)));
        assert_eq!(
            clock.go_command(&crate::dialect::USI, Color::Sente),
            "go btime 1000 wtime 800 binc 100 winc 100"
        );
        assert_eq!(
            clock.go_command(&crate::dialect::UCI, Color::Gote),
            "go wtime 1000 btime 800 winc 100 binc 100"
        );
        assert!(!clock.charge(Color::Gote, Duration::from_millis(801)));
    }

    #[test]
    fn each_side_keeps_its_own_control_at_time_odds() {
        let ours: TimeControl = "10+0.1".parse().unwrap();
        let theirs: TimeControl = "30+0.3".parse().unwrap();
        let mut clock = Clock::with_controls([ours, theirs], Duration::ZERO);
        assert_eq!(
            clock.go_command(&crate::dialect::USI, Color::Sente),
            "go btime 10000 wtime 30000 binc 100 winc 300"
        );
        assert!(clock.charge(Color::Sente, Duration::from_millis(2_000)));
        assert!(clock.charge(Color::Gote, Duration::from_millis(2_000)));
        assert_eq!(
            clock.allowed(Color::Sente),
            Some(Duration::from_millis(8_100))
        );
        assert_eq!(
            clock.allowed(Color::Gote),
            Some(Duration::from_millis(28_300))
        );
        assert!(!clock.charge(Color::Sente, Duration::from_millis(8_101)));
        // Controls of other kinds: each side is asked in its own terms.
        let clock = Clock::with_controls(
            ["1+0.5b".parse().unwrap(), "nodes=800".parse().unwrap()],
            Duration::ZERO,
        );
        assert_eq!(
            clock.go_command(&crate::dialect::USI, Color::Sente),
            "go btime 1000 wtime 0 byoyomi 500"
        );
        assert_eq!(
            clock.go_command(&crate::dialect::USI, Color::Gote),
            "go nodes 800"
        );
        assert_eq!(clock.allowed(Color::Gote), None);
    }

    #[test]
    fn xboard_commands() {
        let fischer: TimeControl = "75+0.1".parse().unwrap();
        assert_eq!(Clock::xboard_setup(fischer).unwrap(), ["level 0 1:15 0.1"]);
        let mut clock = Clock::new(fischer, Duration::ZERO);
        assert!(clock.charge(Color::Sente, Duration::from_millis(2_000)));
        assert_eq!(
            clock.xboard_clock_lines(Color::Gote),
            ["time 7500", "otim 7310"]
        );
        assert_eq!(
            Clock::xboard_setup("depth=3".parse().unwrap()).unwrap(),
            ["sd 3"]
        );
        assert_eq!(
            Clock::xboard_setup("movetime=250".parse().unwrap()).unwrap(),
            ["st 0.25"]
        );
        for unsupported in ["10+1b", "nodes=100"] {
            let error = Clock::xboard_setup(unsupported.parse().unwrap()).unwrap_err();
            assert!(error.to_string().starts_with("XBoard has no"), "{error}");
        }
    }
}
