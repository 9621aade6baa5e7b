//! USI, the shogi engine protocol, with `USI_Variant` naming the game (`torishogi`, `washogi`)
//! and one option per rule option (`drop-mate`, `handicap`, `drops`, ...).
//!
//! Unknown or malformed commands are answered with an `info string error: ...` line and the
//! engine keeps running.

use crate::session::{BestMove, InfoText, Output, Session, Variant, say};
use std::io::BufRead;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tsubame_engine::limits::{Clock, Limits};
use tsubame_engine::search::Score;

fn info_line(report: &InfoText) -> String {
    let info = &report.info;
    let score = match info.score {
        Score::Centipawns(cp) => format!("cp {cp}"),
        Score::Mate(plies) => format!("mate {plies}"),
    };
    let mut line = format!(
        "info depth {} seldepth {} score {score} nodes {} nps {} time {} hashfull {}",
        info.depth,
        info.seldepth,
        info.nodes,
        info.nps(),
        info.time.as_millis(),
        info.hashfull
    );
    if !report.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&report.pv.join(" "));
    }
    line
}

fn bestmove_line(result: &BestMove) -> String {
    match (&result.best, &result.ponder) {
        (None, _) => "bestmove resign".to_string(),
        (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
        (Some(best), None) => format!("bestmove {best}"),
    }
}

/// The USI front end's state between commands.
pub struct Usi {
    session: Session,
    output: Output,
    /// Rule options set by the GUI, reapplied when the variant changes.
    rule_options: Vec<(String, String)>,
    /// The limits of a `go ponder`, used from `ponderhit` on.
    ponder_limits: Option<Limits>,
}

impl Usi {
    /// A front end writing to `output`.
    pub fn new(output: Output) -> Usi {
        Usi {
            session: Session::new(),
            output,
            rule_options: Vec::new(),
            ponder_limits: None,
        }
    }

    fn say(&self, line: &str) {
        say(&self.output, line);
    }

    fn error(&self, message: &str) {
        self.say(&format!("info string error: {message}"));
    }

    /// Reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            if !self.command(&line) {
                break;
            }
        }
        self.session.wait();
    }

    /// Handles one command line; returns `false` on `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, arguments)) = words.split_first() else {
            return true;
        };
        match command {
            "usi" => self.identify(),
            "isready" => self.say("readyok"),
            "setoption" => {
                if let Err(e) = self.set_option(arguments) {
                    self.error(&e);
                }
            }
            "usinewgame" => self.session.new_game(),
            "position" => {
                if let Err(e) = self.position(arguments) {
                    self.error(&e);
                }
            }
            "go" => {
                if let Err(e) = self.go(arguments) {
                    self.error(&e);
                }
            }
            "stop" => self.session.stop(),
            "ponderhit" => self.ponderhit(),
            "gameover" => self.session.stop(),
            "quit" => {
                self.session.stop();
                return false;
            }
            "d" => self.say(&format!("info string sfen {}", self.session.sfen())),
            other => self.error(&format!(
                "unknown command {:?}",
                other.chars().take(40).collect::<String>()
            )),
        }
        true
    }

    fn identify(&self) {
        self.say(&format!("id name Tsubame {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the Tsubame developers");
        let variants: Vec<String> = Variant::ALL
            .iter()
            .map(|v| format!("var {}", v.spec().protocol_name))
            .collect();
        self.say(&format!(
            "option name USI_Variant type combo default {} {}",
            Variant::Tori.spec().protocol_name,
            variants.join(" ")
        ));
        self.say("option name USI_Hash type spin default 64 min 1 max 65536");
        self.say("option name Threads type spin default 1 min 1 max 256");
        self.say("option name USI_Ponder type check default false");
        for variant in Variant::ALL {
            for option in variant.spec().options {
                let default = option.values.first().map_or("", |v| v.name);
                if option.number.is_some() {
                    self.say(&format!(
                        "option name {} type string default {default}",
                        option.name
                    ));
                } else {
                    let values: Vec<String> = option
                        .values
                        .iter()
                        .map(|v| format!("var {}", v.name))
                        .collect();
                    self.say(&format!(
                        "option name {} type combo default {default} {}",
                        option.name,
                        values.join(" ")
                    ));
                }
            }
        }
        self.say("usiok");
    }

    fn set_option(&mut self, arguments: &[&str]) -> Result<(), String> {
        let text = arguments.join(" ");
        let rest = text
            .strip_prefix("name ")
            .ok_or("setoption needs 'name <name> [value <value>]'")?;
        let (name, value) = match rest.split_once(" value ") {
            Some((name, value)) => (name.trim(), value.trim()),
            None => (rest.trim(), ""),
        };
        match name {
            "USI_Variant" | "UCI_Variant" => {
                let variant = Variant::from_name(value)
                    .ok_or_else(|| format!("unknown variant {value:?} (torishogi, washogi)"))?;
                self.session.set_variant(variant)?;
                let spec = variant.spec();
                for (name, value) in self.rule_options.clone() {
                    if spec.option(&name).is_some() {
                        self.session.set_rule_option(&name, &value)?;
                    }
                }
                self.session.set_position(None, &[])
            }
            "USI_Hash" | "Hash" => {
                let mib = value
                    .parse()
                    .map_err(|_| format!("hash size {value:?} is not a number"))?;
                self.session.set_hash(mib)
            }
            "Threads" => {
                let n = value
                    .parse()
                    .map_err(|_| format!("thread count {value:?} is not a number"))?;
                self.session.set_threads(n)
            }
            "USI_Ponder" => Ok(()),
            _ => {
                let owner = Variant::ALL
                    .into_iter()
                    .find(|v| v.spec().option(name).is_some())
                    .ok_or_else(|| format!("unknown option {name:?}"))?;
                // Check the value against its own variant even when another is being played.
                tsubame_rules::Options::defaults(owner.spec())
                    .set(name, value)
                    .map_err(|e| e.to_string())?;
                self.rule_options.retain(|(n, _)| n != name);
                self.rule_options
                    .push((name.to_string(), value.to_string()));
                if owner == self.session.variant() {
                    self.session.set_rule_option(name, value)?;
                    self.session.set_position(None, &[])?;
                }
                Ok(())
            }
        }
    }

    fn position(&mut self, arguments: &[&str]) -> Result<(), String> {
        let moves_at = arguments.iter().position(|&w| w == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&arguments[..i], &arguments[i + 1..]),
            None => (arguments, &[][..]),
        };
        let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        match setup.split_first() {
            Some((&"startpos", [])) => self.session.set_position(None, &moves),
            Some((&"sfen", fields)) if !fields.is_empty() => {
                self.session.set_position(Some(&fields.join(" ")), &moves)
            }
            _ => Err(
                "position needs 'startpos' or 'sfen <sfen>', then optionally 'moves ...'".into(),
            ),
        }
    }

    fn go(&mut self, arguments: &[&str]) -> Result<(), String> {
        if self.session.searching() {
            return Err("a search is already running; send stop first".into());
        }
        let mut limits = Limits::default();
        let mut clock = Clock::default();
        let mut clock_given = false;
        let mut ponder = false;
        let sente = self.session.sente_to_move();
        let mut words = arguments.iter();
        while let Some(&word) = words.next() {
            let mut number = |what: &str| -> Result<u64, String> {
                let text = words
                    .next()
                    .ok_or_else(|| format!("go {what} needs a number"))?;
                text.parse::<u64>()
                    .map_err(|_| format!("go {what} {text:?} is not a number"))
            };
            match word {
                "btime" | "wtime" => {
                    let ms = number(word)?;
                    if (word == "btime") == sente {
                        clock.remaining = Duration::from_millis(ms);
                    }
                    clock_given = true;
                }
                "binc" | "winc" => {
                    let ms = number(word)?;
                    if (word == "binc") == sente {
                        clock.increment = Duration::from_millis(ms);
                    }
                    clock_given = true;
                }
                "byoyomi" => {
                    clock.byoyomi = Duration::from_millis(number(word)?);
                    clock_given = true;
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
                other => return Err(format!("unknown go argument {other:?}")),
            }
        }
        if clock_given {
            limits.clock = Some(clock);
        }
        let wait_for_stop = limits.infinite || ponder;
        if ponder {
            self.ponder_limits = Some(limits);
            limits = Limits {
                infinite: true,
                ..Limits::default()
            };
        }
        let info_output = self.output.clone();
        let done_output = self.output.clone();
        let stop = self.session.stop_handle();
        self.session.go(
            limits,
            move |report| say(&info_output, &info_line(&report)),
            move |result| {
                // USI wants no bestmove for an infinite or ponder search before stop.
                while wait_for_stop && !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                say(&done_output, &bestmove_line(&result));
            },
        );
        Ok(())
    }

    fn ponderhit(&mut self) {
        let Some(limits) = self.ponder_limits.take() else {
            self.error("ponderhit without a ponder search");
            return;
        };
        if let Some(budget) = limits.budget() {
            let stop = self.session.stop_handle();
            std::thread::spawn(move || {
                std::thread::sleep(budget.hard);
                stop.store(true, Ordering::Relaxed);
            });
        } else if !limits.infinite {
            self.session.stop();
        }
    }
}
