//! UCI with `UCI_Variant`, in Fairy-Stockfish's conventions for these games, so the engine drops
//! in wherever Fairy-Stockfish is used: its FEN (`w` = sente, hands in brackets), squares `a1` to
//! `g7` from sente's side, drops `S@c3`, promotions with `+`, `wtime`/`winc` for sente, mate
//! scores in moves.
//!
//! Unknown or malformed commands are answered with an `info string error: ...` line and the
//! engine keeps running.

use crate::coords::{chess_to_usi, usi_to_chess};
use crate::front::{ClockWords, Dialect, Front, bestmove_line, info_line, split_moves, unknown};
use crate::session::{Output, Start};
use std::io::BufRead;

const DIALECT: Dialect = Dialect {
    ok: "uciok",
    variant_option: "UCI_Variant",
    hash_option: "Hash",
    ponder_option: "Ponder",
};
const CLOCK: ClockWords = ClockWords {
    first_time: "wtime",
    second_time: "btime",
    first_increment: "winc",
    second_increment: "binc",
};

/// UCI counts mates in moves, not plies.
fn mate_in_moves(plies: i32) -> i32 {
    if plies > 0 {
        (plies + 1) / 2
    } else {
        plies / 2
    }
}

/// The UCI front end.
pub struct Uci {
    front: Front,
}

impl Uci {
    /// A front end writing to `output`.
    pub fn new(output: Output) -> Uci {
        Uci {
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
            "uci" => {
                front.identify(&DIALECT);
                Ok(())
            }
            "ucinewgame" => {
                front.session.new_game();
                Ok(())
            }
            "position" => position(front, arguments),
            "go" => go(front, arguments),
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
    let (width, height) = front.session.board_size();
    let moves = moves
        .iter()
        .map(|m| chess_to_usi(m, width, height).ok_or_else(|| format!("bad move {m:?}")))
        .collect::<Result<Vec<String>, String>>()?;
    match setup.split_first() {
        Some((&"startpos", [])) => front.session.set_position(Start::Initial, &moves),
        Some((&"fen", fields)) if !fields.is_empty() => front
            .session
            .set_position(Start::Fen(&fields.join(" ")), &moves),
        _ => Err("position needs 'startpos' or 'fen <fen>', then optionally 'moves ...'".into()),
    }
}

fn go(front: &mut Front, arguments: &[&str]) -> Result<(), String> {
    let (limits, ponder) = front.parse_go(arguments, &CLOCK)?;
    let (width, height) = front.session.board_size();
    let chess =
        move |usi: &str| usi_to_chess(usi, width, height).unwrap_or_else(|| usi.to_string());
    front.start_search(
        limits,
        ponder,
        move |report| info_line(report, &chess, mate_in_moves),
        move |result| bestmove_line(result, &chess, "(none)"),
    )
}
