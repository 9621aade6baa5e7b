//! The USI family's front end: USI, the shogi engine protocol, with `USI_Variant` naming the
//! game (`torishogi`, `washogi`, `tenjiku`), and UCI with `UCI_Variant` in Fairy-Stockfish's
//! conventions for these games (its FEN with `w` for sente and hands in brackets, squares `a1` to
//! `g7` from sente's side, drops `S@c3`, `wtime`/`winc` for sente, mate scores in moves), so the
//! engine drops in wherever Fairy-Stockfish is used. Both take one option per rule option
//! (`drop-mate`, `handicap`, `drops`, ...). Everything in which they differ is their
//! [`Dialect`].
//!
//! Unknown or malformed commands are answered with an `info string error: ...` line and the
//! engine keeps running.

use crate::dialect::{Dialect, UCI, USI};
use crate::front::{
    CommandError, Front, bestmove_line, checkmate_line, info_line, not_a_number, split_moves,
    unknown,
};
use crate::session::{Output, Start};
use std::io::BufRead;
use std::time::Duration;

/// A USI-family front end speaking one dialect.
pub struct UsiFront {
    front: Front,
    dialect: &'static Dialect,
}

impl UsiFront {
    /// A front end speaking `dialect`, writing to `output`.
    pub fn new(dialect: &'static Dialect, output: Output) -> UsiFront {
        UsiFront {
            front: Front::new(output),
            dialect,
        }
    }

    /// A USI front end.
    pub fn usi(output: Output) -> UsiFront {
        UsiFront::new(&USI, output)
    }

    /// A UCI front end.
    pub fn uci(output: Output) -> UsiFront {
        UsiFront::new(&UCI, output)
    }

    /// Reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        let dialect = self.dialect;
        self.front
            .run(input, |front, line| command(front, dialect, line));
    }

    /// Handles one command line; returns `false` on `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        command(&mut self.front, self.dialect, line)
    }
}

fn command(front: &mut Front, dialect: &'static Dialect, line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&name, arguments)) = words.split_first() else {
        return true;
    };
    let result = match front.common_command(name, arguments) {
        Some(result) => result,
        None => match name {
            "quit" => {
                front.session.stop();
                return false;
            }
            hello if hello == dialect.hello => {
                front.identify(dialect);
                Ok(())
            }
            new_game if new_game == dialect.new_game => {
                front.session.new_game();
                Ok(())
            }
            "position" => position(front, dialect, arguments),
            "go" => go(front, dialect, arguments),
            other => Err(unknown(other)),
        },
    };
    if let Err(message) = result {
        front.error("info string ", &message.to_string());
    }
    true
}

fn position(front: &mut Front, dialect: &Dialect, arguments: &[&str]) -> Result<(), CommandError> {
    let (setup, moves) = split_moves(arguments);
    let (width, height) = front.session.board_size();
    let moves = moves
        .iter()
        .map(|m| {
            dialect
                .read_move(m, width, height)
                .ok_or_else(|| CommandError::BadMove(m.chars().take(40).collect()))
        })
        .collect::<Result<Vec<String>, CommandError>>()?;
    let keyword = dialect.position_keyword();
    match setup.split_first() {
        Some((&"startpos", [])) => Ok(front.session.set_position(Start::Initial, &moves)?),
        Some((&word, fields)) if word == keyword && !fields.is_empty() => {
            let text = fields.join(" ");
            let start = match dialect.position {
                crate::dialect::PositionForm::Sfen => Start::Sfen(&text),
                crate::dialect::PositionForm::Fen => Start::Fen(&text),
            };
            Ok(front.session.set_position(start, &moves)?)
        }
        _ => Err(CommandError::PositionSyntax(keyword)),
    }
}

fn go(
    front: &mut Front,
    dialect: &'static Dialect,
    arguments: &[&str],
) -> Result<(), CommandError> {
    let (width, height) = front.session.board_size();
    if dialect.checkmate_command
        && let Some(index) = arguments.iter().position(|word| *word == "mate")
    {
        let time = match arguments.get(index + 1) {
            Some(&"infinite") => None,
            Some(text) => Some(Duration::from_millis(
                text.parse::<u64>()
                    .map_err(|_| not_a_number("go mate", text))?,
            )),
            None => return Err(CommandError::NeedsNumber("go mate".to_string())),
        };
        return front.start_mate(time, move |answer| {
            checkmate_line(answer, &|usi: &str| dialect.write_move(usi, width, height))
        });
    }
    let (limits, ponder) = front.parse_go(arguments, &dialect.clock)?;
    let text = move |usi: &str| dialect.write_move(usi, width, height);
    front.start_search(
        limits,
        ponder,
        move |report| info_line(report, &text, &|plies| dialect.mate_score(plies)),
        move |result| bestmove_line(result, &text, dialect.no_move),
    )
}
