//! What the USI and UCI front ends share: engine and rule options, starting a search with its
//! reports, waiting for `stop` in infinite and ponder searches, and `ponderhit`.

use crate::dialect::{ClockWords, Dialect, UCI, USI, rule_options};
use crate::lines::read_lines;

/// The dialects whose option names every front end accepts (XBoard's goes through USI's).
const DIALECTS: [&Dialect; 2] = [&USI, &UCI];
use crate::session::{BestMove, InfoText, MateAnswer, Output, Session, SessionError, Start, say};
use std::io::BufRead;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tsubame_engine::eval::{Evaluation, UnknownEvaluation};
use tsubame_engine::limits::{Clock, Limits};
use tsubame_engine::search::Score;
use tsubame_engine::strength::Level;
use tsubame_engine::tsume::MateResult;
use tsubame_rules::OptionError;
use tsubame_rules::Variant;

/// Why a front end refused a command. The front end answers with the message, in its
/// protocol's form, and goes on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The engine session refused it (a position, a move, an option value).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A rule option or value that the option's own game does not have.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// A command word the protocol does not have (quoted, cut to 40 characters).
    #[error("unknown command {0:?}")]
    UnknownCommand(String),
    /// XBoard's answer to a command it does not have.
    #[error("unknown command")]
    Unknown,
    /// A variant name no game has.
    #[error("unknown variant {given:?} ({known})")]
    UnknownVariant {
        /// The name given.
        given: String,
        /// The names known.
        known: String,
    },
    /// A game XBoard names that this engine does not play.
    #[error("unsupported variant")]
    UnsupportedVariant,
    /// An option no game and no engine setting has.
    #[error("unknown option {0:?}")]
    UnknownOption(String),
    /// An evaluation other than `classical`, `nnue` or `material`.
    #[error(transparent)]
    Evaluation(#[from] UnknownEvaluation),
    /// A word that needs a number after it and has none.
    #[error("{0} needs a number")]
    NeedsNumber(String),
    /// A number that is not one (`what` names the field).
    #[error("{what} {text:?} is not a number")]
    NotANumber {
        /// The field.
        what: String,
        /// The text given.
        text: String,
    },
    /// A `go` word no protocol has.
    #[error("unknown go argument {0:?}")]
    GoArgument(String),
    /// `go` while a search runs.
    #[error("a search is already running; send stop first")]
    Busy,
    /// `ponderhit` without a ponder search.
    #[error("ponderhit without a ponder search")]
    NoPonder,
    /// `setoption` without `name`.
    #[error("setoption needs 'name <name> [value <value>]'")]
    SetOptionSyntax,
    /// A move in `position ... moves` that is not move text of the protocol.
    #[error("bad move {0:?}")]
    BadMove(String),
    /// `position` without a start it knows (the keyword for the start: `sfen`, `fen`).
    #[error("position needs 'startpos' or '{0} <{0}>', then optionally 'moves ...'")]
    PositionSyntax(&'static str),
    /// XBoard's `option` without `=`.
    #[error("option needs NAME=VALUE")]
    XboardOptionSyntax,
    /// XBoard's `level` without its three fields.
    #[error("level needs MPS BASE INC")]
    LevelSyntax,
    /// XBoard's base time that is not minutes, or minutes and seconds.
    #[error("base time {0:?} is not minutes[:seconds]")]
    BaseTime(String),
    /// XBoard's base time beyond a million minutes.
    #[error("base time {0:?} is out of range")]
    BaseTimeRange(String),
    /// Seconds that are not a number.
    #[error("{0:?} is not a number of seconds")]
    Seconds(String),
    /// Seconds beyond ten million.
    #[error("{0:?} seconds is out of range")]
    SecondsRange(String),
    /// A square name that is none of the board's.
    #[error("bad square {0:?}")]
    BadSquare(String),
}

/// Shared front-end state.
pub struct Front {
    /// The engine session.
    pub session: Session,
    /// Where lines go.
    pub output: Output,
    /// Rule options set by the GUI, reapplied when the variant changes.
    rule_options: Vec<(String, String)>,
    /// The limits of a ponder search, used from `ponderhit` on.
    ponder_limits: Option<Limits>,
}

impl Front {
    /// A front end writing to `output`.
    pub fn new(output: Output) -> Front {
        Front {
            session: Session::new(),
            output,
            rule_options: Vec::new(),
            ponder_limits: None,
        }
    }

    /// Writes a line.
    pub fn say(&self, line: &str) {
        say(&self.output, line);
    }

    /// Writes an error line in the protocol's comment form.
    pub fn error(&self, prefix: &str, message: &str) {
        self.say(&format!("{prefix}error: {message}"));
    }

    /// Sets an engine or rule option by name.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), CommandError> {
        match name {
            _ if DIALECTS.iter().any(|d| d.variant_option == name) => {
                let variant = Variant::from_name(value).ok_or_else(|| {
                    let known: Vec<&str> = Variant::ALL
                        .iter()
                        .map(|v| v.spec().protocol_name)
                        .collect();
                    CommandError::UnknownVariant {
                        given: value.chars().take(40).collect(),
                        known: known.join(", "),
                    }
                })?;
                self.session.set_variant(variant)?;
                let spec = variant.spec();
                for (name, value) in self.rule_options.clone() {
                    if spec.option(&name).is_some() {
                        self.session.set_rule_option(&name, &value)?;
                    }
                }
                Ok(self.session.set_position(Start::Initial, &[])?)
            }
            _ if DIALECTS.iter().any(|d| d.hash_option == name) => {
                let mib = value
                    .parse()
                    .map_err(|_| not_a_number("hash size", value))?;
                Ok(self.session.set_hash(mib)?)
            }
            "Threads" => {
                let n = value
                    .parse()
                    .map_err(|_| not_a_number("thread count", value))?;
                Ok(self.session.set_threads(n)?)
            }
            _ if DIALECTS.iter().any(|d| d.ponder_option == name) => Ok(()),
            "Evaluation" => {
                let evaluation = value.parse().map_err(CommandError::Evaluation)?;
                self.session.set_evaluation(evaluation);
                Ok(())
            }
            "EvalFile" => Ok(self.session.set_eval_file(value)?),
            "SearchParams" => Ok(self.session.set_search_params(value)?),
            "MultiPV" => {
                let lines: u32 = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=crate::session::MAX_LINES).contains(n))
                    .ok_or_else(|| not_a_number("line count (1 to 500)", value))?;
                self.session.set_lines(lines);
                Ok(())
            }
            "Level" => {
                let level: u8 = value
                    .parse()
                    .ok()
                    .filter(|n| *n <= Level::MAX)
                    .ok_or_else(|| not_a_number("level (0 to 8)", value))?;
                self.session.set_level(level);
                Ok(())
            }
            _ => {
                // The variant being played first: several games share option names.
                let current = self.session.variant();
                let owner = std::iter::once(current)
                    .chain(Variant::ALL)
                    .find(|v| v.spec().option(name).is_some())
                    .ok_or_else(|| CommandError::UnknownOption(name.chars().take(40).collect()))?;
                // Check the value against its own variant even when another is being played.
                tsubame_rules::Options::defaults(owner.spec()).set(name, value)?;
                self.rule_options.retain(|(n, _)| n != name);
                self.rule_options
                    .push((name.to_string(), value.to_string()));
                if owner == self.session.variant() {
                    self.session.set_rule_option(name, value)?;
                    self.session.set_position(Start::Initial, &[])?;
                }
                Ok(())
            }
        }
    }

    /// Reads `go` arguments into limits; returns them and whether the search is a ponder search.
    pub fn parse_go(
        &self,
        arguments: &[&str],
        words_of: &ClockWords,
    ) -> Result<(Limits, bool), CommandError> {
        let sente_time = words_of.sente_time;
        let sente_increment = words_of.sente_increment;
        let mut limits = Limits::default();
        let mut clock = Clock::default();
        let mut clock_given = false;
        let mut ponder = false;
        let first = self.session.sente_to_move();
        let mut words = arguments.iter();
        while let Some(&word) = words.next() {
            let mut number = |what: &str| -> Result<u64, CommandError> {
                let text = words
                    .next()
                    .ok_or_else(|| CommandError::NeedsNumber(format!("go {what}")))?;
                text.parse::<u64>()
                    .map_err(|_| not_a_number(&format!("go {what}"), text))
            };
            if word == sente_time || word == words_of.gote_time {
                let ms = number(word)?;
                if (word == sente_time) == first {
                    clock.remaining = Duration::from_millis(ms);
                }
                clock_given = true;
            } else if word == sente_increment || word == words_of.gote_increment {
                let ms = number(word)?;
                if (word == sente_increment) == first {
                    clock.increment = Duration::from_millis(ms);
                }
                clock_given = true;
            } else {
                match word {
                    "byoyomi" => {
                        clock.byoyomi = Duration::from_millis(number(word)?);
                        clock_given = true;
                    }
                    "movestogo" => {
                        number(word)?;
                    }
                    "movetime" => limits.move_time = Some(Duration::from_millis(number(word)?)),
                    "depth" => limits.depth = Some(number(word)?.min(200) as u32),
                    "nodes" => limits.nodes = Some(number(word)?),
                    "mate" => {
                        number(word)?;
                        limits.infinite = true;
                    }
                    "infinite" => limits.infinite = true,
                    "ponder" => ponder = true,
                    other => {
                        return Err(CommandError::GoArgument(other.chars().take(40).collect()));
                    }
                }
            }
        }
        if clock_given {
            limits.clock = Some(clock);
        }
        Ok((limits, ponder))
    }

    /// Starts a search; `info` and `best` format the reports in the protocol's words.
    pub fn start_search(
        &mut self,
        limits: Limits,
        ponder: bool,
        info: impl Fn(&InfoText) -> String + Send + 'static,
        best: impl Fn(&BestMove) -> String + Send + 'static,
    ) -> Result<(), CommandError> {
        // A search that was stopped may still be winding down after its best move went out;
        // `go` waits for it. One that is still thinking must be stopped first.
        if self.session.searching() && !self.session.stop_handle().load(Ordering::Relaxed) {
            return Err(CommandError::Busy);
        }
        let wait_for_stop = limits.infinite || ponder;
        let limits = if ponder {
            self.ponder_limits = Some(limits);
            Limits {
                infinite: true,
                ..Limits::default()
            }
        } else {
            limits
        };
        let info_output = self.output.clone();
        let done_output = self.output.clone();
        let stop = self.session.stop_handle();
        self.session.go(
            limits,
            move |report| say(&info_output, &info(&report)),
            move |result| {
                // No best move for an infinite or ponder search before it is stopped.
                while wait_for_stop && !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                say(&done_output, &best(&result));
            },
        );
        Ok(())
    }

    /// Starts a mate search (USI's `go mate`); `answer` writes its result in the protocol's
    /// words, after an `info` line with the nodes and time it took.
    pub fn start_mate(
        &mut self,
        time: Option<Duration>,
        answer: impl Fn(&MateAnswer) -> String + Send + 'static,
    ) -> Result<(), CommandError> {
        if self.session.searching() && !self.session.stop_handle().load(Ordering::Relaxed) {
            return Err(CommandError::Busy);
        }
        let output = self.output.clone();
        self.session.go_mate(time, move |result| {
            let millis = result.elapsed.as_millis();
            say(
                &output,
                &format!("info nodes {} time {millis}", result.nodes),
            );
            say(&output, &answer(&result));
        });
        Ok(())
    }

    /// The opponent played the expected move: the ponder search becomes a timed one.
    pub fn ponderhit(&mut self) -> Result<(), CommandError> {
        let limits = self.ponder_limits.take().ok_or(CommandError::NoPonder)?;
        if let Some(budget) = limits.budget_with(&self.session.search_params()) {
            let stop = self.session.stop_handle();
            std::thread::spawn(move || {
                std::thread::sleep(budget.hard);
                stop.store(true, Ordering::Relaxed);
            });
        } else if !limits.infinite {
            self.session.stop();
        }
        Ok(())
    }

    /// The `option` lines for every rule option of every variant, in USI's syntax.
    pub fn rule_option_lines(&self) -> Vec<String> {
        rule_options()
            .into_iter()
            .map(|option| {
                let default = option.values.first().map_or("", |v| v.name);
                if option.number.is_some() {
                    format!("option name {} type string default {default}", option.name)
                } else {
                    let values: Vec<String> = option
                        .values
                        .iter()
                        .map(|v| format!("var {}", v.name))
                        .collect();
                    format!(
                        "option name {} type combo default {default} {}",
                        option.name,
                        values.join(" ")
                    )
                }
            })
            .collect()
    }
}

impl Front {
    /// Reads lines until `handle` returns `false` or the input ends, then waits for the search.
    /// A line that is not UTF-8 or is too long is answered with an error, and reading goes on.
    pub fn run(&mut self, input: impl BufRead, mut handle: impl FnMut(&mut Front, &str) -> bool) {
        read_lines(input, |line| match line {
            Ok(line) => handle(self, line),
            Err(error) => {
                self.error("info string ", &error.to_string());
                true
            }
        });
        self.session.wait();
    }

    /// The handshake: names, options, the closing line.
    pub fn identify(&self, dialect: &Dialect) {
        self.say(&format!("id name Tsubame {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the Tsubame developers");
        let variants: Vec<String> = Variant::ALL
            .iter()
            .map(|v| format!("var {}", v.spec().protocol_name))
            .collect();
        self.say(&format!(
            "option name {} type combo default {} {}",
            dialect.variant_option,
            Variant::Tori.spec().protocol_name,
            variants.join(" ")
        ));
        self.say(&format!(
            "option name {} type spin default 64 min 1 max 65536",
            dialect.hash_option
        ));
        self.say("option name Threads type spin default 1 min 1 max 256");
        self.say(&format!(
            "option name Evaluation type combo default {} var classical var nnue var material",
            Evaluation::default().name()
        ));
        self.say("option name EvalFile type string default <empty>");
        self.say("option name SearchParams type string default <empty>");
        self.say(&format!(
            "option name Level type spin default 0 min 0 max {}",
            Level::MAX
        ));
        self.say("option name MultiPV type spin default 1 min 1 max 500");
        self.say(&format!(
            "option name {} type check default false",
            dialect.ponder_option
        ));
        for line in self.rule_option_lines() {
            self.say(&line);
        }
        self.say(dialect.ok);
    }

    /// Commands every protocol shares; `None` when `command` is not one of them.
    pub fn common_command(
        &mut self,
        command: &str,
        arguments: &[&str],
    ) -> Option<Result<(), CommandError>> {
        Some(match command {
            "isready" => {
                self.say("readyok");
                Ok(())
            }
            "setoption" => option_name_value(arguments)
                .and_then(|(name, value)| self.set_option(&name, &value)),
            "stop" | "gameover" => {
                self.session.stop();
                Ok(())
            }
            "ponderhit" => self.ponderhit(),
            "d" => {
                self.say(&format!("info string sfen {}", self.session.sfen()));
                Ok(())
            }
            _ => return None,
        })
    }
}

/// An `info` line; `mv` writes a USI move in the protocol's text and `mate` turns mate plies
/// into the protocol's count.
pub fn info_line(
    report: &InfoText,
    mv: &dyn Fn(&str) -> String,
    mate: &dyn Fn(i32) -> i32,
) -> String {
    let info = &report.info;
    let score = match info.score {
        Score::Centipawns(cp) => format!("cp {cp}"),
        Score::Mate(plies) => format!("mate {}", mate(plies)),
    };
    let mut line = format!("info depth {} seldepth {}", info.depth, info.seldepth);
    if let Some(index) = report.multipv {
        line.push_str(&format!(" multipv {index}"));
    }
    line.push_str(&format!(
        " score {score} nodes {} nps {} time {} hashfull {}",
        info.nodes,
        info.nps(),
        info.time.as_millis(),
        info.hashfull
    ));
    if !report.pv.is_empty() {
        let pv: Vec<String> = report.pv.iter().map(|m| mv(m)).collect();
        line.push_str(" pv ");
        line.push_str(&pv.join(" "));
    }
    line
}

/// A `bestmove` line; `none` is the protocol's word for having no move.
pub fn bestmove_line(result: &BestMove, mv: &dyn Fn(&str) -> String, none: &str) -> String {
    match (&result.best, &result.ponder) {
        (None, _) => format!("bestmove {none}"),
        (Some(best), Some(ponder)) => format!("bestmove {} ponder {}", mv(best), mv(ponder)),
        (Some(best), None) => format!("bestmove {}", mv(best)),
    }
}

/// USI's answer to `go mate`: `checkmate <moves>`, `checkmate nomate`, or `checkmate timeout`
/// when the time ran out or the search was stopped first.
pub fn checkmate_line(answer: &MateAnswer, mv: &dyn Fn(&str) -> String) -> String {
    match answer.result {
        MateResult::Mate(_) => {
            let moves: Vec<String> = answer.line.iter().map(|m| mv(m)).collect();
            format!("checkmate {}", moves.join(" "))
        }
        MateResult::NoMate(_) => "checkmate nomate".to_string(),
        MateResult::Unknown(_) => "checkmate timeout".to_string(),
    }
}

/// An unknown command's error.
pub fn unknown(command: &str) -> CommandError {
    CommandError::UnknownCommand(command.chars().take(40).collect())
}

/// A number field that is not one, its text cut to 40 characters.
pub fn not_a_number(what: &str, text: &str) -> CommandError {
    CommandError::NotANumber {
        what: what.to_string(),
        text: text.chars().take(40).collect(),
    }
}

/// Splits a `position` command's arguments at `moves`.
pub fn split_moves<'a, 'b>(arguments: &'a [&'b str]) -> (&'a [&'b str], &'a [&'b str]) {
    match arguments.iter().position(|&w| w == "moves") {
        Some(i) => (&arguments[..i], &arguments[i + 1..]),
        None => (arguments, &[]),
    }
}

/// Splits `name <name> [value <value>]`.
pub fn option_name_value(arguments: &[&str]) -> Result<(String, String), CommandError> {
    let text = arguments.join(" ");
    let rest = text
        .strip_prefix("name ")
        .ok_or(CommandError::SetOptionSyntax)?;
    Ok(match rest.split_once(" value ") {
        Some((name, value)) => (name.trim().to_string(), value.trim().to_string()),
        None => (rest.trim().to_string(), String::new()),
    })
}
