//! The words of the USI family of protocols, one table per protocol: what the engine's front
//! ends read and write, and what the client that drives other engines writes and reads. USI and
//! UCI differ only in these words, so one table is the whole difference between them, in both
//! directions. XBoard's names for the games and its FEN, which both sides also need, are here
//! too.

use crate::coords::{chess_to_usi, usi_to_chess};
use tsubame_rules::{OptionSpec, Variant};

/// How a protocol's `position` command gives the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionForm {
    /// `position sfen <SFEN>`.
    Sfen,
    /// `position fen <FEN>`, in Fairy-Stockfish's form (`w` = sente, hands in brackets).
    Fen,
}

/// The words of a `go` command's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockWords {
    /// Sente's main time (`btime` in USI, `wtime` in UCI, where sente is white).
    pub sente_time: &'static str,
    /// Gote's main time.
    pub gote_time: &'static str,
    /// Sente's increment.
    pub sente_increment: &'static str,
    /// Gote's increment.
    pub gote_increment: &'static str,
}

/// Everything in which one protocol of the USI family differs from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// The protocol's name, for messages (`USI`).
    pub name: &'static str,
    /// The first command, which asks for the handshake (`usi`, `uci`).
    pub hello: &'static str,
    /// The handshake's last line (`usiok`, `uciok`).
    pub ok: &'static str,
    /// The command that starts a new game (`usinewgame`, `ucinewgame`).
    pub new_game: &'static str,
    /// The variant option's name (`USI_Variant`, `UCI_Variant`).
    pub variant_option: &'static str,
    /// The hash option's name (`USI_Hash`, `Hash`).
    pub hash_option: &'static str,
    /// The ponder option's name (`USI_Ponder`, `Ponder`).
    pub ponder_option: &'static str,
    /// The clock's words in `go`.
    pub clock: ClockWords,
    /// How `position` gives the start.
    pub position: PositionForm,
    /// Whether moves name squares as in chess (`c3`, `S@c3`) rather than as in USI (`3c`).
    pub chess_squares: bool,
    /// Whether mate scores count moves rather than plies.
    pub mate_in_moves: bool,
    /// What `bestmove` says when there is no move (`resign`, `(none)`).
    pub no_move: &'static str,
    /// Whether `go mate <ms|infinite>` asks for a mate search answered by `checkmate ...`
    /// (USI) rather than a search held to a mate (UCI's `go mate <moves>`).
    pub checkmate_command: bool,
}

/// USI, with `USI_Variant` naming the game.
pub const USI: Dialect = Dialect {
    name: "USI",
    hello: "usi",
    ok: "usiok",
    new_game: "usinewgame",
    variant_option: "USI_Variant",
    hash_option: "USI_Hash",
    ponder_option: "USI_Ponder",
    clock: ClockWords {
        sente_time: "btime",
        gote_time: "wtime",
        sente_increment: "binc",
        gote_increment: "winc",
    },
    position: PositionForm::Sfen,
    chess_squares: false,
    mate_in_moves: false,
    checkmate_command: true,
    no_move: "resign",
};

/// UCI with `UCI_Variant`, in Fairy-Stockfish's conventions for these games.
pub const UCI: Dialect = Dialect {
    name: "UCI",
    hello: "uci",
    ok: "uciok",
    new_game: "ucinewgame",
    variant_option: "UCI_Variant",
    hash_option: "Hash",
    ponder_option: "Ponder",
    clock: ClockWords {
        sente_time: "wtime",
        gote_time: "btime",
        sente_increment: "winc",
        gote_increment: "binc",
    },
    position: PositionForm::Fen,
    chess_squares: true,
    mate_in_moves: true,
    checkmate_command: false,
    no_move: "(none)",
};

/// A protocol that gives positions as FEN, for a game without one (Tenjiku over UCI).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the game has no FEN for {0} engines")]
pub struct NoFenError(pub &'static str);

/// What a `go` command asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoLimits {
    /// Main times, then a byo-yomi period per move, in milliseconds.
    Byoyomi {
        /// Sente's main time left.
        sente_ms: u128,
        /// Gote's main time left.
        gote_ms: u128,
        /// The period.
        period_ms: u128,
    },
    /// Main times with an increment per move, in milliseconds.
    Fischer {
        /// Sente's time left.
        sente_ms: u128,
        /// Gote's time left.
        gote_ms: u128,
        /// Sente's increment.
        sente_increment_ms: u128,
        /// Gote's increment (it may differ from sente's in a match at time odds).
        gote_increment_ms: u128,
    },
    /// A fixed time per move, in milliseconds.
    MoveTime(u128),
    /// A node count.
    Nodes(u64),
    /// A depth.
    Depth(u32),
}

impl Dialect {
    /// The word before the start position in `position` (`sfen`, `fen`).
    pub fn position_keyword(&self) -> &'static str {
        match self.position {
            PositionForm::Sfen => "sfen",
            PositionForm::Fen => "fen",
        }
    }

    /// A move in this protocol's text, from USI text (unchanged when it cannot be written).
    pub fn write_move(&self, usi: &str, width: u8, height: u8) -> String {
        if self.chess_squares {
            usi_to_chess(usi, width, height).unwrap_or_else(|| usi.to_string())
        } else {
            usi.to_string()
        }
    }

    /// A move in this protocol's text as USI text; `None` for text that is no move.
    pub fn read_move(&self, text: &str, width: u8, height: u8) -> Option<String> {
        if self.chess_squares {
            chess_to_usi(text, width, height)
        } else {
            Some(text.to_string())
        }
    }

    /// A mate score given in plies, as this protocol counts it.
    pub fn mate_score(&self, plies: i32) -> i32 {
        match (self.mate_in_moves, plies > 0) {
            (false, _) => plies,
            (true, true) => (plies + 1) / 2,
            (true, false) => plies / 2,
        }
    }

    /// `position <start> [moves ...]`: the start as SFEN or FEN by this protocol's form, the
    /// moves (USI text) in its move text. A protocol that wants FEN needs `fen`.
    ///
    /// ```
    /// use tsubame_protocol::dialect::{UCI, USI};
    /// let sfen = "3k3/7/7/7/7/7/3K3 b S 1";
    /// let fen = "3k3/7/7/7/7/7/3K3[S] w - - 0 1";
    /// let moves = ["S*4d".to_string()];
    /// assert_eq!(
    ///     USI.position_command(sfen, Some(fen), &moves, 7, 7).unwrap(),
    ///     "position sfen 3k3/7/7/7/7/7/3K3 b S 1 moves S*4d"
    /// );
    /// assert_eq!(
    ///     UCI.position_command(sfen, Some(fen), &moves, 7, 7).unwrap(),
    ///     "position fen 3k3/7/7/7/7/7/3K3[S] w - - 0 1 moves S@d4"
    /// );
    /// assert!(UCI.position_command(sfen, None, &moves, 7, 7).is_err());
    /// ```
    pub fn position_command(
        &self,
        sfen: &str,
        fen: Option<&str>,
        moves: &[String],
        width: u8,
        height: u8,
    ) -> Result<String, NoFenError> {
        let start = match self.position {
            PositionForm::Sfen => sfen,
            PositionForm::Fen => fen.ok_or(NoFenError(self.name))?,
        };
        let mut command = format!("position {} {start}", self.position_keyword());
        if !moves.is_empty() {
            command.push_str(" moves");
            for usi in moves {
                command.push(' ');
                command.push_str(&self.write_move(usi, width, height));
            }
        }
        Ok(command)
    }

    /// The `go` command for these limits.
    ///
    /// ```
    /// use tsubame_protocol::dialect::{GoLimits, UCI, USI};
    /// let byoyomi = GoLimits::Byoyomi { sente_ms: 9000, gote_ms: 8000, period_ms: 1000 };
    /// assert_eq!(USI.go_command(byoyomi), "go btime 9000 wtime 8000 byoyomi 1000");
    /// let fischer = GoLimits::Fischer {
    ///     sente_ms: 9000,
    ///     gote_ms: 8000,
    ///     sente_increment_ms: 100,
    ///     gote_increment_ms: 300,
    /// };
    /// assert_eq!(UCI.go_command(fischer), "go wtime 9000 btime 8000 winc 100 binc 300");
    /// ```
    pub fn go_command(&self, limits: GoLimits) -> String {
        let words = &self.clock;
        match limits {
            GoLimits::Byoyomi {
                sente_ms,
                gote_ms,
                period_ms,
            } => format!(
                "go {} {sente_ms} {} {gote_ms} byoyomi {period_ms}",
                words.sente_time, words.gote_time
            ),
            GoLimits::Fischer {
                sente_ms,
                gote_ms,
                sente_increment_ms,
                gote_increment_ms,
            } => format!(
                "go {} {sente_ms} {} {gote_ms} {} {sente_increment_ms} {} {gote_increment_ms}",
                words.sente_time, words.gote_time, words.sente_increment, words.gote_increment
            ),
            GoLimits::MoveTime(ms) => format!("go movetime {ms}"),
            GoLimits::Nodes(nodes) => format!("go nodes {nodes}"),
            GoLimits::Depth(depth) => format!("go depth {depth}"),
        }
    }
}

/// Every rule option of every game once (games share some names, such as `max-plies`), in the
/// games' order: what each protocol lists as engine options.
pub fn rule_options() -> Vec<&'static OptionSpec> {
    let mut options: Vec<&'static OptionSpec> = Vec::new();
    for variant in Variant::ALL {
        for option in variant.spec().options {
            if !options.iter().any(|known| known.name == option.name) {
                options.push(option);
            }
        }
    }
    options
}

/// The name XBoard and HaChu give a game (`wa-shogi` for Wa; the protocol name otherwise).
pub fn xboard_variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Wa => "wa-shogi",
        other => other.protocol_name(),
    }
}

/// The game XBoard calls `name` (its own names, and ours), in any case.
pub fn variant_from_xboard(name: &str) -> Option<Variant> {
    Variant::ALL
        .into_iter()
        .find(|&v| xboard_variant_name(v).eq_ignore_ascii_case(name.trim()))
        .or_else(|| Variant::from_name(name))
}

/// XBoard's FEN of a position given as SFEN: the same board text (both list ranks from the far
/// side and files from sente's left), `w` for sente to move (XBoard's first mover is white),
/// pieces in hand in brackets after the board.
///
/// ```
/// use tsubame_protocol::dialect::xboard_fen;
/// assert_eq!(xboard_fen("3k3/7/7/7/7/7/3K3 b - 1"), "3k3/7/7/7/7/7/3K3 w 0 1");
/// assert_eq!(xboard_fen("3k3/7/7/7/7/7/3K3 w Sp 9"), "3k3/7/7/7/7/7/3K3[Sp] b 0 1");
/// ```
pub fn xboard_fen(sfen: &str) -> String {
    let mut fields = sfen.split_whitespace();
    let board = fields.next().unwrap_or("");
    let side = if fields.next() == Some("w") { "b" } else { "w" };
    let hand = fields.next().filter(|hand| *hand != "-").unwrap_or("");
    if hand.is_empty() {
        format!("{board} {side} 0 1")
    } else {
        format!("{board}[{hand}] {side} 0 1")
    }
}

/// Why XBoard FEN text is no position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum XboardFenError {
    /// No board text.
    #[error("empty FEN")]
    Empty,
    /// The side to move is neither `w` nor `b`.
    #[error("side to move {0:?} is not w (sente) or b (gote)")]
    Side(String),
}

/// A Tenjiku SFEN from XBoard's FEN: the board text is the same; XBoard's first mover, white
/// (`w`, the default), is sente. Fields after the side (castling, counters) mean nothing in
/// Tenjiku and are ignored.
///
/// ```
/// use tsubame_protocol::dialect::xboard_fen_to_sfen;
/// assert_eq!(xboard_fen_to_sfen("16/16 b").unwrap(), "16/16 w - 1");
/// assert!(xboard_fen_to_sfen("16/16 x").is_err());
/// ```
pub fn xboard_fen_to_sfen(fen: &str) -> Result<String, XboardFenError> {
    let mut fields = fen.split_whitespace();
    let board = fields.next().ok_or(XboardFenError::Empty)?;
    // XBoard may write an empty holdings field after the board.
    let board = board.strip_suffix("[]").unwrap_or(board);
    let side = match fields.next() {
        None | Some("w") => "b",
        Some("b") => "w",
        Some(other) => return Err(XboardFenError::Side(other.chars().take(8).collect())),
    };
    Ok(format!("{board} {side} - 1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_written_and_read_back_in_each_dialect() {
        for dialect in [USI, UCI] {
            for usi in ["3d3c", "S*4d", "3b3a+"] {
                let text = dialect.write_move(usi, 7, 7);
                assert_eq!(
                    dialect.read_move(&text, 7, 7).as_deref(),
                    Some(usi),
                    "{text}"
                );
            }
        }
        assert_eq!(UCI.write_move("3d3c", 7, 7), "e4e5");
    }

    #[test]
    fn mates_count_plies_in_usi_and_moves_in_uci() {
        assert_eq!(USI.mate_score(3), 3);
        assert_eq!(UCI.mate_score(3), 2);
        assert_eq!(UCI.mate_score(-4), -2);
    }

    #[test]
    fn xboard_names_read_back() {
        for variant in Variant::ALL {
            assert_eq!(
                variant_from_xboard(xboard_variant_name(variant)),
                Some(variant)
            );
        }
        assert_eq!(variant_from_xboard("WA-SHOGI"), Some(Variant::Wa));
        assert_eq!(variant_from_xboard("chess"), None);
        let names: Vec<&str> = rule_options().iter().map(|o| o.name).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names.len(), unique.len());
        assert!(names.contains(&"max-plies"));
    }
}
