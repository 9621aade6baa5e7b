//! The other side of the protocols: driving an engine over USI, UCI or XBoard, as a match
//! runner or a GUI does. Starting the process and the handshake, a new game, the commands of a
//! turn and reading the answer; the clocks the driver keeps and how each protocol is told about
//! them. USI and UCI are written from the same [`Dialect`] tables the engine's own front ends
//! read, so the two directions cannot drift apart.

mod clock;
mod process;

pub use clock::{Clock, TimeControl, TimeControlError};
pub use process::{Engine, Failure, HANDSHAKE_TIMEOUT, Reply, XboardState};

use crate::coords::{usi_to_xboard, xboard_to_usi};
use crate::dialect::{Dialect, NoFenError, UCI, USI, xboard_fen, xboard_variant_name};
use std::fmt;
use std::str::FromStr;
use tsubame_rules::{Color, Variant};

/// The hash table size XBoard engines are given (`memory`), the same as the USI default.
const XBOARD_MEMORY_MIB: u32 = 64;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// USI with `USI_Variant`.
    Usi,
    /// UCI with `UCI_Variant`, in Fairy-Stockfish's conventions.
    Uci,
    /// XBoard (CECP v2) as HaChu speaks it: the engine keeps the game and is told each move.
    Xboard,
}

impl Protocol {
    /// Every protocol, by name.
    pub const ALL: [Protocol; 3] = [Protocol::Usi, Protocol::Uci, Protocol::Xboard];

    /// The protocol's name on the command line (`usi`).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Usi => "usi",
            Protocol::Uci => "uci",
            Protocol::Xboard => "xboard",
        }
    }

    /// The words of a USI-family protocol; `None` for XBoard.
    pub fn dialect(self) -> Option<&'static Dialect> {
        match self {
            Protocol::Usi => Some(&USI),
            Protocol::Uci => Some(&UCI),
            Protocol::Xboard => None,
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Protocol {
    type Err = UnknownProtocol;

    fn from_str(name: &str) -> Result<Protocol, UnknownProtocol> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| UnknownProtocol(name.chars().take(40).collect()))
    }
}

/// Why the client could not drive an engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// An empty command line.
    #[error("the engine command is empty")]
    EmptyCommand,
    /// The program would not start.
    #[error("cannot start {command:?}: {reason}")]
    Spawn {
        /// The command line.
        command: String,
        /// What the system said.
        reason: String,
    },
    /// The program started without pipes.
    #[error("the engine's pipes could not be opened")]
    Pipes,
    /// The engine exited during the handshake (before the named answer).
    #[error("the engine exited before {0}")]
    ExitedBefore(&'static str),
    /// The engine did not give the named answer in time.
    #[error("no {what} within {seconds}s")]
    NoAnswer {
        /// The answer waited for.
        what: &'static str,
        /// How long.
        seconds: u64,
    },
    /// The engine did not answer the new-game handshake.
    #[error("not ready for a new game: {0:?}")]
    NotReady(Failure),
    /// A start position for an XBoard engine without `setboard`.
    #[error("the XBoard engine cannot set up positions (no setboard)")]
    NoSetboard,
    /// A turn for an XBoard engine whose handshake never finished.
    #[error("the XBoard engine did not finish its handshake")]
    NoHandshake,
    /// A time control the protocol cannot express.
    #[error(transparent)]
    TimeControl(#[from] TimeControlError),
    /// A position the protocol cannot express.
    #[error(transparent)]
    NoFen(#[from] NoFenError),
}

/// A protocol name none of [`Protocol::ALL`] has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {0:?} (usi, uci, xboard)")]
pub struct UnknownProtocol(pub String);

/// How to start one engine.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Its protocol.
    pub protocol: Protocol,
    /// Options for this engine only (`setoption` in USI and UCI, `option NAME=VALUE` in
    /// XBoard), sent after the rule options.
    pub options: Vec<(String, String)>,
}

/// The game an engine is asked to move in.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a> {
    /// The start position as SFEN.
    pub start_sfen: &'a str,
    /// The start position as Fairy-Stockfish's FEN, where the game has one (UCI needs it).
    pub start_fen: Option<&'a str>,
    /// Every move from the start, USI text.
    pub moves: &'a [String],
    /// The side to move.
    pub color: Color,
    /// Files and ranks.
    pub board: (u8, u8),
}

impl Engine {
    /// Gets the engine ready for a new game of `variant` from `start_sfen` under `control`:
    /// `usinewgame`/`ucinewgame`, or for XBoard `new`, the variant, memory, no pondering, the
    /// time control, `force` and the position when it is not the variant's start.
    pub fn new_game(
        &mut self,
        variant: Variant,
        control: TimeControl,
        start_sfen: &str,
    ) -> Result<(), ClientError> {
        let failed = ClientError::NotReady;
        match self.protocol.dialect() {
            Some(dialect) => self.send(dialect.new_game).map_err(failed)?,
            None => {
                let mut lines = vec![
                    "new".to_string(),
                    format!("variant {}", xboard_variant_name(variant)),
                    format!("memory {XBOARD_MEMORY_MIB}"),
                    "easy".to_string(),
                ];
                lines.extend(Clock::xboard_setup(control)?);
                lines.push("force".into());
                if start_sfen != variant.spec().start_sfen {
                    if !self.xboard.as_ref().is_some_and(|x| x.setboard) {
                        return Err(ClientError::NoSetboard);
                    }
                    lines.push(format!("setboard {}", xboard_fen(start_sfen)));
                }
                for line in &lines {
                    self.send(line).map_err(failed)?;
                }
                if let Some(state) = &mut self.xboard {
                    state.known_moves = 0;
                }
            }
        }
        self.ready().map_err(failed)
    }

    /// The lines that ask the engine for a move: USI and UCI get the whole game and `go`; an
    /// XBoard engine is stopped (`force`), told the moves it has not seen, its clock, and `go`.
    pub fn turn_commands(
        &mut self,
        turn: Turn<'_>,
        clock: &Clock,
    ) -> Result<Vec<String>, ClientError> {
        let (width, height) = turn.board;
        if let Some(dialect) = self.protocol.dialect() {
            let position = dialect.position_command(
                turn.start_sfen,
                turn.start_fen,
                turn.moves,
                width,
                height,
            )?;
            return Ok(vec![position, clock.go_command(dialect, turn.color)]);
        }
        let Some(state) = &mut self.xboard else {
            return Err(ClientError::NoHandshake);
        };
        let mut lines = vec!["force".to_string()];
        for usi in turn.moves.iter().skip(state.known_moves) {
            let text = usi_to_xboard(usi, width, height, None).unwrap_or_else(|| usi.clone());
            if state.usermove {
                lines.push(format!("usermove {text}"));
            } else {
                lines.push(text);
            }
        }
        state.known_moves = turn.moves.len();
        lines.extend(clock.xboard_clock_lines(turn.color));
        lines.push("go".into());
        Ok(lines)
    }

    /// The engine's move text as USI text, the ways its protocol may write it: USI as it is,
    /// UCI's chess squares, XBoard's squares with two legs for a move that captures on its way
    /// (and `=` for a declined promotion). A pass may come as a step out to an empty square and
    /// back, as XBoard writes it, so that reading follows as a second choice. Empty when the
    /// text is no move.
    pub fn move_readings(&self, text: &str, (width, height): (u8, u8)) -> Vec<String> {
        let usi = match self.protocol.dialect() {
            Some(dialect) => dialect.read_move(text, width, height),
            None => xboard_to_usi(text, width, height),
        };
        let Some(usi) = usi else {
            return Vec::new();
        };
        let pass = out_and_back_pass(&usi);
        std::iter::once(usi).chain(pass).collect()
    }
}

/// The plain pass (`6f6f`) for USI text that steps out to a square and back (`6f6e6f`), the
/// form in which XBoard writes a pass; `None` for any other text.
pub fn out_and_back_pass(usi: &str) -> Option<String> {
    let square = |text: &str| -> Option<usize> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0 && text.len() > digits).then_some(digits + 1)
    };
    let first = square(usi)?;
    let second = first + square(usi.get(first..)?)?;
    let third = second + square(usi.get(second..)?)?;
    let (from, back) = (usi.get(..first)?, usi.get(second..third)?);
    (from == back).then(|| format!("{from}{from}{}", usi.get(third..).unwrap_or("")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_out_and_back_step_is_read_as_a_pass() {
        assert_eq!(out_and_back_pass("6f6e6f").as_deref(), Some("6f6f"));
        assert_eq!(out_and_back_pass("12f11e12f").as_deref(), Some("12f12f"));
        assert_eq!(out_and_back_pass("6f5e6d"), None);
        assert_eq!(out_and_back_pass("6f6e"), None);
        assert_eq!(out_and_back_pass("S*4d"), None);
        assert_eq!(out_and_back_pass(""), None);
    }

    #[test]
    fn protocol_names_read_back() {
        for protocol in Protocol::ALL {
            assert_eq!(protocol.name().parse(), Ok(protocol));
            assert_eq!(protocol.to_string().to_uppercase().parse(), Ok(protocol));
        }
        assert!("cecp".parse::<Protocol>().is_err());
    }
}
