//! USI, the shogi engine protocol, with `USI_Variant` naming the game (`torishogi`, `washogi`)
//! and one option per rule option (`drop-mate`, `handicap`, `drops`, ...).
//!
//! Unknown or malformed commands are answered with an `info string error: ...` line and the
//! engine keeps running.

use crate::front::{ClockWords, Dialect, Front, bestmove_line, info_line, split_moves, unknown};
use crate::session::{Output, Start};
use std::io::BufRead;

const DIALECT: Dialect = Dialect {
    ok: "usiok",
    variant_option: "USI_Variant",
    hash_option: "USI_Hash",
    ponder_option: "USI_Ponder",
};
const CLOCK: ClockWords = ClockWords {
    first_time: "btime",
    second_time: "wtime",
    first_increment: "binc",
    second_increment: "winc",
};

fn same(text: &str) -> String {
    text.to_string()
}

/// The USI front end.
pub struct Usi {
    front: Front,
}

impl Usi {
    /// A front end writing to `output`.
    pub fn new(output: Output) -> Usi {
        Usi {
            front: Front::new(output),
        }
    }

    /// Reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        self.front.run(input, command);
    }

    /// Handles one command line; returns `false` on `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        command(&mut self.front, line)
    }
}

fn command(front: &mut Front, line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&name, arguments)) = words.split_first() else {
        return true;
    };
    let result = match front.common_command(name, arguments) {
        Some(result) => result,
        None => match name {
            "usi" => {
                front.identify(&DIALECT);
                Ok(())
            }
            "usinewgame" => {
                front.session.new_game();
                Ok(())
            }
            "position" => position(front, arguments),
            "go" => front
                .parse_go(arguments, &CLOCK)
                .and_then(|(limits, ponder)| {
                    front.start_search(
                        limits,
                        ponder,
                        |report| info_line(report, &same, |plies| plies),
                        |result| bestmove_line(result, &same, "resign"),
                    )
                }),
            "quit" => {
                front.session.stop();
                return false;
            }
            other => Err(unknown(other)),
        },
    };
    if let Err(message) = result {
        front.error("info string ", &message);
    }
    true
}

fn position(front: &mut Front, arguments: &[&str]) -> Result<(), String> {
    let (setup, moves) = split_moves(arguments);
    let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    match setup.split_first() {
        Some((&"startpos", [])) => front.session.set_position(Start::Initial, &moves),
        Some((&"sfen", fields)) if !fields.is_empty() => front
            .session
            .set_position(Start::Sfen(&fields.join(" ")), &moves),
        _ => Err("position needs 'startpos' or 'sfen <sfen>', then optionally 'moves ...'".into()),
    }
}
