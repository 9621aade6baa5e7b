//! XBoard / WinBoard (CECP, protocol version 2), speaking as HaChu does for Wa and Tenjiku shogi
//! so that the engine can take its place: variant names `wa-shogi`, `torishogi` and `tenjiku`,
//! squares `a1` to `k11` (`p16` in Tenjiku) from sente's side, moves `move h3g4` with `+` for a
//! promotion (a trailing `=`, a declined promotion, is accepted and means no promotion), drops
//! `S@c4`.
//!
//! Tenjiku's moves that capture on their way are XBoard's multi-leg moves: a lion's double move
//! `h2h3,h3i4` (first leg to the square of the first capture, second leg on from there), igui
//! `h2h3,h3h2`. A pass is written as a step out to an empty neighbour and back (`h2i3,i3h2`),
//! which names the passing piece (a fire demon's pass burns, so which piece passes matters);
//! only when every neighbour is occupied is it `h2h2`, and in thinking output, where later
//! positions are not at hand, always. HaChu's null move `@@@@` names no piece and is accepted
//! when exactly one pass is legal. Range jumps and area moves are single legs. `lift` marks a
//! lion's first-leg squares cyan (`C`), and after `put` on such a square, `lift` there shows
//! where the second leg may end. Tenjiku gets no `setup`/`piece` lines: XBoard's piece table
//! has fewer types than Tenjiku's 66, and HaChu sends none for it either.
//!
//! Colours follow HaChu: XBoard's "white" is the first mover, that is sente (upper-case letters
//! in FEN), so `1-0` means sente won. A board-only `setboard` (HaChu's form) leaves sente to move.
//!
//! Malformed moves are answered with `Illegal move (reason): <move>`, other malformed or unknown
//! commands with `Error (reason): <command>`; the engine keeps running.

use crate::coords::{
    chess_square_to_usi_square, usi_square_to_chess_square, usi_to_xboard, xboard_to_usi,
};
use crate::dialect::{USI, rule_options, variant_from_xboard, xboard_variant_name};
use crate::front::{CommandError, Front, not_a_number};
use crate::lines::{LineError, quoted, read_lines};
use crate::session::{BestMove, InfoText, Output, SessionError, Start, say};
use std::io::BufRead;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;
use tsubame_engine::limits::{Clock, Limits};
use tsubame_engine::search::Score;
use tsubame_rules::Variant;
use tsubame_rules::{Color, EndReason, Outcome};

/// XBoard does not know Wa shogi; HaChu describes it with these lines (board, piece letters,
/// moves in Betza notation), and as our Wa letters are HaChu's, the same lines serve.
const WA_SETUP: &str = "setup (P..^S^FV..^LW^OH.F.^R.E....R...D.GOL^M..^H.M.C.^CU.^W/.......^V.^P.^U..^DS.^GXKp..^s^fv..^lw^oh.f.^r.e....r...d.gol^m..^h.m.c.^cu.^w/.......^v.^p.^u..^ds.^gxk) 11x11+0_chu hmlcvkwgudo/1e3s3f1/ppprpppxppp/3p3p3/11/11/11/3P3P3/PPPXPPPRPPP/1F3S3E1/ODUGWKVCLMH w 0 1";
const WA_PIECES: [&str; 30] = [
    "P& fW",
    "O& fR",
    "H& fRbW2",
    "U& fWbF",
    "L& fWbF",
    "M& vWfF",
    "G& vWfF",
    "C& sWfF",
    "+P& WfF",
    "+O& K",
    "+H& vN",
    "+U& BfW",
    "+L& vRfF3bFsW",
    "+M& FfW",
    "+G& sRvW",
    "+C& vRsWfF",
    "D& sbWfF",
    "V& FfW",
    "W& WfF",
    "S& sRvW",
    "R& FfRbW",
    "F& BfW",
    "X& FvWAvD",
    "+D& WfF",
    "+V& FfsW",
    "+W& K",
    "+S& R",
    "+R& FvWAvD",
    "+F& BvRsW",
    "E& vRfF3bFsW",
];

/// What the main loop waits for: a line from the GUI or a finished search.
enum Event {
    Line(String),
    /// A line that is no command: not UTF-8, or too long.
    BadLine(LineError),
    EndOfInput,
    /// A search's result, with the number of the search it belongs to.
    Done(u64, BestMove),
}

/// `level` as given: moves per session (0: all), base time and increment.
#[derive(Clone, Copy, Debug)]
struct Level {
    moves: u32,
    base: Duration,
    increment: Duration,
}

/// The XBoard front end.
pub struct Xboard {
    front: Front,
    /// In force mode the engine plays no moves of its own.
    force: bool,
    post: bool,
    own_time: Option<Duration>,
    level: Option<Level>,
    move_time: Option<Duration>,
    depth: Option<u32>,
    /// Moves the engine has played since `new`, for `level` with a move count.
    engine_moves: u32,
    /// Numbers searches so that a result arriving after `force`, `undo`, `new` ... is dropped.
    generation: u64,
    /// The square of the last `lift` that showed moves (USI text), and of the last `put`: a
    /// `lift` on the `put` square continues a two-leg move from the lifted square.
    last_lift: Option<String>,
    last_put: Option<String>,
    events: Sender<Event>,
    incoming: Receiver<Event>,
}

impl Xboard {
    /// A front end writing to `output`.
    pub fn new(output: Output) -> Xboard {
        let (events, incoming) = channel();
        Xboard {
            front: Front::new(output),
            force: false,
            post: false,
            own_time: None,
            level: None,
            move_time: None,
            depth: None,
            engine_moves: 0,
            generation: 0,
            last_lift: None,
            last_put: None,
            events,
            incoming,
        }
    }

    /// Reads commands until `quit` or the end of input. The input is read on its own thread
    /// so that the engine's moves go out while the GUI is silent.
    pub fn run(&mut self, input: impl BufRead + Send + 'static) {
        let lines = self.events.clone();
        std::thread::spawn(move || {
            read_lines(input, |line| {
                let event = match line {
                    Ok(line) => Event::Line(line.to_string()),
                    Err(error) => Event::BadLine(error),
                };
                lines.send(event).is_ok()
            });
            let _ = lines.send(Event::EndOfInput);
        });
        while let Ok(event) = self.incoming.recv() {
            match event {
                Event::BadLine(error) => self.say(&format!("Error ({error}): the line is ignored")),
                Event::Line(line) => {
                    if !self.command(&line) {
                        break;
                    }
                }
                Event::EndOfInput => break,
                Event::Done(generation, result) => {
                    if generation == self.generation {
                        self.engine_moved(result);
                    }
                }
            }
        }
        self.front.session.wait();
    }

    fn say(&self, line: &str) {
        self.front.say(line);
    }

    /// Drops the running search, if any, without playing its move.
    fn cancel_search(&mut self) {
        self.generation += 1;
        self.front.session.wait();
    }

    fn size(&self) -> (u8, u8) {
        self.front.session.board_size()
    }

    /// Handles one command line; returns `false` on `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&name, arguments)) = words.split_first() else {
            return true;
        };
        let rest = line.trim_start().get(name.len()..).unwrap_or("").trim();
        let result = match name {
            "xboard" | "accepted" | "rejected" | "random" | "computer" | "name" | "rating"
            | "ics" | "hard" | "easy" | "hover" | "nps" | "draw" | "hint" | "bk" | "." | "exit"
            | "otim" => Ok(()),
            "put" => {
                let (width, height) = self.size();
                // Only remembered: XBoard follows `put` on a first-leg square with `lift` there.
                self.last_put = chess_square_to_usi_square(rest, width, height);
                Ok(())
            }
            "protover" => {
                self.features();
                Ok(())
            }
            "new" => {
                self.cancel_search();
                self.force = false;
                self.engine_moves = 0;
                self.own_time = None;
                self.depth = None;
                self.front.session.new_game();
                self.front
                    .session
                    .set_position(Start::Initial, &[])
                    .map_err(CommandError::from)
            }
            "variant" => self.variant(rest),
            "force" | "result" => {
                self.cancel_search();
                self.force = true;
                Ok(())
            }
            "go" => {
                self.force = false;
                self.think()
            }
            "playother" => {
                self.cancel_search();
                self.force = false;
                Ok(())
            }
            "?" => {
                self.front.session.stop();
                Ok(())
            }
            "usermove" => {
                self.user_move(rest);
                return true;
            }
            "setboard" => self.setboard(rest),
            "time" => number(arguments, "time").map(|cs| {
                self.own_time = Some(Duration::from_millis(cs * 10));
            }),
            "level" => self.level(arguments),
            "st" => seconds(arguments.first().copied().unwrap_or("")).map(|t| {
                self.move_time = Some(t);
            }),
            "sd" => number(arguments, "sd").map(|d| self.depth = Some(d.clamp(1, 200) as u32)),
            "memory" => number(arguments, "memory")
                .and_then(|mib| self.front.set_option("Hash", &mib.to_string())),
            "cores" => number(arguments, "cores")
                .and_then(|n| self.front.set_option("Threads", &n.to_string())),
            "ping" => {
                self.say(&format!("pong {rest}"));
                Ok(())
            }
            "undo" => {
                self.cancel_search();
                self.front.session.undo();
                Ok(())
            }
            "remove" => {
                self.cancel_search();
                self.front.session.undo();
                self.front.session.undo();
                Ok(())
            }
            "post" => {
                self.post = true;
                Ok(())
            }
            "nopost" => {
                self.post = false;
                Ok(())
            }
            "option" => match rest.split_once('=') {
                Some((option, value)) => self.front.set_option(option.trim(), value.trim()),
                None => Err(CommandError::XboardOptionSyntax),
            },
            "lift" => self.lift(rest),
            "quit" => {
                self.cancel_search();
                return false;
            }
            _ if arguments.is_empty()
                && (name == NULL_MOVE
                    || xboard_to_usi(name, self.size().0, self.size().1).is_some()) =>
            {
                // Without the usermove feature, XBoard sends moves bare.
                self.user_move(name);
                return true;
            }
            _ => Err(CommandError::Unknown),
        };
        if let Err(reason) = result {
            self.say(&format!("Error ({reason}): {}", quoted(line.trim())));
        }
        true
    }

    fn features(&self) {
        // Wa first: the game XBoard users know this engine for, beside HaChu.
        let variants = [Variant::Wa, Variant::Tori, Variant::Tenjiku].map(xboard_variant_name);
        self.say(&format!(
            "feature setboard=1 usermove=1 ping=1 memory=1 smp=1 sigint=0 sigterm=0 colors=0 \
             highlight=1 myname=\"Tsubame {}\" variants=\"{}\"",
            env!("CARGO_PKG_VERSION"),
            variants.join(",")
        ));
        self.say("feature option=\"EvalFile -file \"");
        for option in rule_options() {
            let default = option.values.first().map_or("", |v| v.name);
            if option.number.is_some() {
                self.say(&format!(
                    "feature option=\"{} -string {default}\"",
                    option.name
                ));
            } else {
                let values: Vec<&str> = option.values.iter().map(|v| v.name).collect();
                self.say(&format!(
                    "feature option=\"{} -combo {}\"",
                    option.name,
                    values.join(" /// ")
                ));
            }
        }
        self.say("feature done=1");
    }

    fn variant(&mut self, name: &str) -> Result<(), CommandError> {
        let variant = variant_from_xboard(name).ok_or(CommandError::UnsupportedVariant)?;
        self.cancel_search();
        self.front
            .set_option(USI.variant_option, variant.protocol_name())?;
        if variant == Variant::Wa {
            self.say(WA_SETUP);
            for piece in WA_PIECES {
                self.say(&format!("piece {piece}"));
            }
        }
        Ok(())
    }

    fn setboard(&mut self, fen: &str) -> Result<(), CommandError> {
        self.cancel_search();
        // HaChu's form is the board alone; sente (XBoard's white) moves first.
        let fen = if fen.split_whitespace().count() == 1 {
            format!("{fen} w")
        } else {
            fen.to_string()
        };
        self.front.session.set_position(Start::Fen(&fen), &[])?;
        self.report_end();
        Ok(())
    }

    fn level(&mut self, arguments: &[&str]) -> Result<(), CommandError> {
        let [moves, base, increment] = arguments else {
            return Err(CommandError::LevelSyntax);
        };
        let moves: u32 = moves
            .parse()
            .map_err(|_| not_a_number("moves per session", moves))?;
        let bad_base = || CommandError::BaseTime(base.chars().take(40).collect());
        let base = match base.split_once(':') {
            Some((minutes, seconds)) => {
                let minutes: u64 = minutes.parse().map_err(|_| bad_base())?;
                let seconds: u64 = seconds.parse().map_err(|_| bad_base())?;
                Duration::from_secs(minutes * 60 + seconds)
            }
            None => {
                let minutes: f64 = base.parse().map_err(|_| bad_base())?;
                if !(0.0..=1e6).contains(&minutes) {
                    return Err(CommandError::BaseTimeRange(base.chars().take(40).collect()));
                }
                Duration::from_secs_f64(minutes * 60.0)
            }
        };
        let increment = seconds(increment)?;
        self.level = Some(Level {
            moves,
            base,
            increment,
        });
        self.move_time = None;
        Ok(())
    }

    fn limits(&self) -> Limits {
        let mut limits = Limits {
            depth: self.depth,
            ..Limits::default()
        };
        if let Some(time) = self.move_time {
            limits.move_time = Some(time);
            return limits;
        }
        let level = self.level;
        let remaining = self.own_time.or(level.map(|l| l.base));
        match (remaining, level) {
            (Some(remaining), Some(level)) if level.moves > 0 => {
                // A session of so many moves: share what is left among the moves still due.
                let due = level.moves - self.engine_moves % level.moves;
                limits.move_time = Some(remaining / due.max(1) * 9 / 10 + level.increment / 2);
            }
            (Some(remaining), _) => {
                limits.clock = Some(Clock {
                    remaining,
                    increment: level.map_or(Duration::ZERO, |l| l.increment),
                    byoyomi: Duration::ZERO,
                });
            }
            (None, _) if self.depth.is_none() => limits.move_time = Some(Duration::from_secs(5)),
            (None, _) => {}
        }
        limits
    }

    /// Starts a search for the side to move, unless the game is over.
    fn think(&mut self) -> Result<(), CommandError> {
        self.cancel_search();
        if self.report_end() {
            return Ok(());
        }
        let generation = self.generation;
        let events = self.events.clone();
        let output = self.front.output.clone();
        let post = self.post;
        let (width, height) = self.size();
        let limits = self.limits();
        self.front.session.go(
            limits,
            move |report| {
                if post {
                    say(&output, &thinking_line(&report, width, height));
                }
            },
            move |result| {
                let _ = events.send(Event::Done(generation, result));
            },
        );
        Ok(())
    }

    fn engine_moved(&mut self, result: BestMove) {
        let Some(best) = result.best else {
            if !self.report_end() {
                self.say("resign");
            }
            return;
        };
        let text = self.xboard_text(&best);
        if let Err(reason) = self.front.session.play(&best) {
            self.say(&format!("Error ({reason}): engine move {best}"));
            return;
        }
        self.engine_moves += 1;
        self.say(&format!("move {text}"));
        self.report_end();
    }

    /// A move of the current position (USI text) as XBoard text; see the module documentation.
    fn xboard_text(&self, usi: &str) -> String {
        let (width, height) = self.size();
        let pass_via = split_pass(usi).and_then(|square| self.front.session.pass_via(square));
        usi_to_xboard(usi, width, height, pass_via.as_deref()).unwrap_or_else(|| usi.to_string())
    }

    /// The USI text of the one legal pass, for HaChu's null move `@@@@`.
    fn null_move(&self) -> Result<String, &'static str> {
        let passes: Vec<String> = self
            .front
            .session
            .legal_moves()
            .into_iter()
            .filter(|m| split_pass(m).is_some())
            .collect();
        match passes.as_slice() {
            [pass] => Ok(pass.clone()),
            [] => Err("no pass is legal here"),
            _ => Err("several pieces may pass; move one out and back"),
        }
    }

    fn user_move(&mut self, text: &str) {
        let (width, height) = self.size();
        let usi = if text == NULL_MOVE {
            match self.null_move() {
                Ok(usi) => usi,
                Err(reason) => {
                    self.say(&format!("Illegal move ({reason}): {}", quoted(text)));
                    return;
                }
            }
        } else {
            let Some(usi) = xboard_to_usi(text, width, height) else {
                self.say(&format!("Illegal move (not a move): {}", quoted(text)));
                return;
            };
            usi
        };
        self.cancel_search();
        if let Some(outcome) = self.front.session.outcome() {
            self.say(&format!(
                "Illegal move (the game is over: {outcome}): {text}"
            ));
            return;
        }
        if let Err(error) = self.front.session.play(&usi) {
            let reason = match error {
                SessionError::Move(reason) => reason.to_string(),
                SessionError::Game(reason) => reason.to_string(),
                other => other.to_string(),
            };
            self.say(&format!("Illegal move ({reason}): {}", quoted(text)));
            return;
        }
        if self.report_end() {
            return;
        }
        if !self.force
            && let Err(reason) = self.think()
        {
            self.say(&format!("Error ({reason}): go"));
        }
    }

    /// Sends the result line if the game is over; returns whether it is.
    fn report_end(&self) -> bool {
        match self.front.session.outcome() {
            Some(outcome) => {
                self.say(&result_line(outcome));
                true
            }
            None => false,
        }
    }

    fn lift(&mut self, square: &str) -> Result<(), CommandError> {
        let (width, height) = self.size();
        let usi = chess_square_to_usi_square(square, width, height)
            .ok_or_else(|| CommandError::BadSquare(square.chars().take(40).collect()))?;
        let mut marks = vec![b' '; usize::from(width) * usize::from(height)];
        // The index in `marks` of a USI square: ranks from the top, files from the left.
        let index_of = |square: &str| -> Option<usize> {
            let chess = usi_square_to_chess_square(square, width, height)?;
            let file = usize::from(chess.as_bytes().first()?.checked_sub(b'a')?);
            let rank: usize = chess.get(1..)?.parse().ok()?;
            let row = usize::from(height).checked_sub(rank)?;
            Some(row * usize::from(width) + file)
        };
        let targets = self.front.session.targets_from(&usi);
        if targets.is_empty() && self.last_put.as_deref() == Some(usi.as_str()) {
            // The piece was put on the square of a first leg's capture and is lifted again:
            // show where the second leg may end (the start square for igui), as HaChu does.
            let start = self.last_lift.clone().unwrap_or_default();
            for target in self.front.session.targets_from(&start) {
                if target.via.as_deref() != Some(usi.as_str()) {
                    continue;
                }
                if let Some(mark) = index_of(&target.to).and_then(|i| marks.get_mut(i)) {
                    *mark = if target.occupied {
                        b'R'
                    } else if target.promotion || *mark == b'M' {
                        b'M'
                    } else {
                        b'Y'
                    };
                }
            }
            self.last_put = None;
        } else {
            if !targets.is_empty() {
                self.last_lift = Some(usi.clone());
            }
            self.last_put = None;
            for target in targets {
                if let Some(via) = &target.via {
                    // A lion's first leg: XBoard waits for a second leg after a cyan square.
                    if let Some(mark) = index_of(via).and_then(|i| marks.get_mut(i)) {
                        *mark = b'C';
                    }
                    continue;
                }
                if target.to == usi {
                    // A pass: XBoard takes it as a step out to an empty square and back.
                    continue;
                }
                let Some(mark) = index_of(&target.to).and_then(|i| marks.get_mut(i)) else {
                    continue;
                };
                // A first-leg square stays cyan; a capture shows as such whether or not the
                // piece may also promote there.
                *mark = if *mark == b'C' {
                    b'C'
                } else if target.capture {
                    b'R'
                } else if target.promotion || *mark == b'M' {
                    b'M'
                } else {
                    b'Y'
                };
            }
        }
        let rows: Vec<String> = marks
            .chunks(usize::from(width))
            .map(|row| {
                let mut text = String::new();
                let mut empty = 0;
                for &mark in row {
                    if mark == b' ' {
                        empty += 1;
                        continue;
                    }
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push(mark as char);
                }
                if empty > 0 {
                    text.push_str(&empty.to_string());
                }
                text
            })
            .collect();
        self.say(&format!("highlight {}", rows.join("/")));
        Ok(())
    }
}

/// HaChu's text for a null move (a pass), which names no piece.
const NULL_MOVE: &str = "@@@@";

/// The square of a pass (`6f6f`, the piece's square twice), if `usi` is one.
fn split_pass(usi: &str) -> Option<&str> {
    let half = usi.len() / 2;
    let (from, to) = (usi.get(..half)?, usi.get(half..)?);
    (from == to && !from.is_empty() && !from.contains('*')).then_some(from)
}

fn number(arguments: &[&str], what: &str) -> Result<u64, CommandError> {
    let text = arguments
        .first()
        .ok_or_else(|| CommandError::NeedsNumber(what.to_string()))?;
    text.parse().map_err(|_| not_a_number(what, text))
}

/// Seconds, possibly with a fraction (`st 2`, an increment of `0.5`).
fn seconds(text: &str) -> Result<Duration, CommandError> {
    let shown = || text.chars().take(40).collect::<String>();
    let value: f64 = text.parse().map_err(|_| CommandError::Seconds(shown()))?;
    if !(0.0..=1e7).contains(&value) {
        return Err(CommandError::SecondsRange(shown()));
    }
    Ok(Duration::from_secs_f64(value))
}

/// `ply score time nodes pv`: score in centipawns, mates as 100000 + moves, time in centiseconds.
fn thinking_line(report: &InfoText, width: u8, height: u8) -> String {
    let info = &report.info;
    let score = match info.score {
        Score::Centipawns(cp) => cp,
        Score::Mate(plies) if plies > 0 => 100_000 + (plies + 1) / 2,
        Score::Mate(plies) => -100_000 + plies / 2,
    };
    let pv: Vec<String> = report
        .pv
        .iter()
        .map(|m| usi_to_xboard(m, width, height, None).unwrap_or(m.clone()))
        .collect();
    format!(
        "{} {score} {} {} {}",
        info.depth,
        info.time.as_millis() / 10,
        info.nodes,
        pv.join(" ")
    )
}

/// XBoard's result line; white is sente.
fn result_line(outcome: Outcome) -> String {
    let side = |color: Color| match color {
        Color::Sente => "Sente",
        Color::Gote => "Gote",
    };
    match outcome.winner {
        Some(winner) => {
            let score = if winner == Color::Sente { "1-0" } else { "0-1" };
            let comment = match outcome.reason {
                EndReason::Checkmate => format!("{} mates", side(winner)),
                EndReason::Stalemate => format!("{} is stalemated", side(!winner)),
                reason => format!("{} wins by {reason}", side(winner)),
            };
            format!("{score} {{{comment}}}")
        }
        None => format!("1/2-1/2 {{Draw by {}}}", outcome.reason),
    }
}
