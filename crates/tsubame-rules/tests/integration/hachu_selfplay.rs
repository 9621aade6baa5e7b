//! HaChu 0.21 plays Wa shogi (drops off) against itself over XBoard, and every move it makes is
//! checked with our rules ("Testing against HaChu" in `rules/wa-shogi.md`).
//!
//! Each game runs in a fresh HaChu: `xboard`, `protover 2`, `new`, `variant wa-shogi`,
//! `option Promote on entry=0`, `option Allow repeats=1`, `memory 64`, `sd <depth>`, `force`.
//! `new` must come before `variant`: HaChu's `new` sets up chu shogi's 12x12 board, and its moves
//! then come in chu coordinates. Games differ by a seeded number (0 to 4) of random opening moves,
//! legal for us, sent with `usermove` (HaChu must accept them), and by the search depth, 1 to 6
//! plies in turn; HaChu's own search is not deterministic either, so no two runs play the same
//! games. `sd` is used rather than `st`, which HaChu honours only together with `time`/`otim`;
//! at these depths a 200-ply game takes HaChu well under a second. Then every turn is a `go`:
//! HaChu plays the side to move, and the next `go` makes it switch sides. A `ping` after each
//! move tells whether HaChu followed the move with a result line.
//!
//! HaChu writes a move as `move <from><to>` with an optional `+` for promotion, on its own
//! squares: file letter `a`..`k` = our file 11..1, rank 1..11 = our rank k..a. An `=` (an
//! explicit deferral) is read as no promotion; HaChu has not been seen to write one. Wa has no
//! two-step (`,`), pass or drop moves, so those are failures.
//!
//! Each move is classified against the current position:
//! * legal for us: played, and counted as checked;
//! * pseudo-legal for us, but it leaves HaChu's own crane king attacked: the spec's known HaChu
//!   deviation. HaChu accepts moving into check, and it takes the treacherous fox for a second
//!   royal, so a side that has one is never "in check" to it. These games show the same for a
//!   promoted running rabbit (it moves like a fox), including the move on which a rabbit
//!   promotes. As both sides have a fox from the start, this is frequent: it ends about a third
//!   of the games, almost always as a check left unanswered, and in every case seen so far the
//!   mover had a fox or a promoted rabbit after its move. The game ends there; the test prints
//!   every deviation with its position, by kind (ignored a check or moved into check) and by
//!   the mover's fox-like pieces;
//! * anything else (a move our rules do not generate at all, or a wrong promotion) fails the test
//!   with the position, HaChu's text and our moves from that square.
//!
//! A game ends at our checkmate, stalemate or repetition, after `MAX_PLIES` plies, at a known
//! deviation, or when HaChu resigns or claims a result (`resign`, `1-0 {...}`, `0-1 {...}`,
//! `1/2-1/2 {...}`). At our checkmate or stalemate HaChu is asked for one more move, so that it
//! confirms there is none: it must either claim the same winner (it resigns) or play a move that
//! leaves its crane king attacked, as every move there does. Every read from HaChu has a
//! deadline; a HaChu that hangs is killed and the test fails with the position.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tsubame_rules::{
    Color, EndReason, Game, Move, MoveKind, Options, Outcome, Position, Square, Status, wa,
};

use crate::hachu::{
    Engine, ReadError, SIZE, from_hachu, hachu_missing, hachu_name, in_parallel, our_name,
};

const GAMES: usize = 48;
const MAX_PLIES: usize = 200;
/// Search depths, used in turn by the games.
const DEPTHS: [u32; 6] = [1, 2, 3, 4, 5, 6];
/// Most random opening plies played before HaChu takes over.
const MAX_OPENING_PLIES: usize = 4;
const SEED: u64 = 0x5e1f_91a7;
/// A move at depth 6 takes HaChu milliseconds; this only catches a hang.
const HACHU_TIMEOUT: Duration = Duration::from_secs(20);
const WORKERS: usize = 2;

// What the run must reach to mean something; runs reach about twice each of these.
const MIN_GAMES: usize = 20;
const MIN_CHECKED_MOVES: usize = 3000;
const MIN_CHECKED_PROMOTIONS: usize = 60;
const MIN_CHECKED_CAPTURES: usize = 400;

fn options() -> Options {
    Options::parse(wa::spec(), "drops=off").expect("drops=off is a Wa option")
}

// ---------------------------------------------------------------------------------------------
// Move text.

/// HaChu's name of our square (HaChu's first mover, upper case, is sente).
fn hachu_square(square: Square) -> String {
    let geometry = wa::tables().geometry;
    let file = SIZE - geometry.file(square) as usize;
    let rank = SIZE - 1 - geometry.rank(square) as usize;
    hachu_name(rank * SIZE + file)
}

/// Reads a HaChu square (`a1` .. `k11`) at the start of `text`; returns it and its length.
fn read_hachu_square(text: &str) -> Option<(Square, usize)> {
    let bytes = text.as_bytes();
    let file = bytes
        .first()
        .filter(|b| (b'a'..b'a' + SIZE as u8).contains(b))?;
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    let rank: usize = text[1..1 + digits].parse().ok()?;
    if !(1..=SIZE).contains(&rank) {
        return None;
    }
    let index = (rank - 1) * SIZE + (file - b'a') as usize;
    Some((from_hachu(index, false), 1 + digits))
}

/// Our move for HaChu's move text (without `move `), or why there is none.
fn read_hachu_move(text: &str) -> Result<Move, String> {
    let (from, used) = read_hachu_square(text).ok_or("no start square")?;
    let (to, more) = read_hachu_square(&text[used..]).ok_or("no destination square")?;
    let promote = match &text[used + more..] {
        "" | "=" => false,
        "+" => true,
        rest => return Err(format!("unexpected {rest:?} after the squares")),
    };
    Ok(Move::normal(from, to, promote))
}

/// Our move as HaChu reads it.
fn hachu_move(mv: Move) -> String {
    let MoveKind::Normal { from, to, promote } = mv.kind() else {
        panic!("drops are off, so every move is a board move");
    };
    format!(
        "{}{}{}",
        hachu_square(from),
        hachu_square(to),
        if promote { "+" } else { "" }
    )
}

// ---------------------------------------------------------------------------------------------
// Games.

/// A HaChu move that our rules refuse only because it leaves the mover's crane king attacked.
#[derive(Clone, Debug)]
struct Deviation {
    game: usize,
    depth: u32,
    /// Plies played before the move.
    ply: usize,
    /// The position before the move.
    sfen: String,
    hachu_text: String,
    usi: String,
    /// Whether the mover was in check before the move (otherwise it moved into check).
    was_in_check: bool,
    /// Which of the pieces HaChu mistakes for royals the mover has after the move.
    stand_ins: &'static str,
}

impl Deviation {
    fn kind(&self) -> &'static str {
        if self.was_in_check {
            "ignored a check"
        } else {
            "moved into check"
        }
    }
}

impl fmt::Display for Deviation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {} (depth {}), ply {}: HaChu `move {}` = {} {} (mover's fox-like pieces after \
             it: {}), position {}",
            self.game,
            self.depth,
            self.ply + 1,
            self.hachu_text,
            self.usi,
            self.kind(),
            self.stand_ins,
            self.sfen
        )
    }
}

/// How a game ended.
#[derive(Clone, Debug)]
enum End {
    /// Our rules ended it: checkmate, stalemate or repetition.
    Rules(Outcome),
    MoveLimit,
    /// HaChu resigned or claimed a result; our status at that point follows.
    Hachu {
        claim: String,
        ours: String,
    },
    Deviation(Deviation),
}

impl End {
    fn label(&self) -> String {
        match self {
            End::Rules(outcome) => outcome.to_string(),
            End::MoveLimit => format!("{MAX_PLIES} plies"),
            End::Hachu { claim, .. } => format!("HaChu: {claim}"),
            End::Deviation(d) => format!("known deviation: {}", d.kind()),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    games: usize,
    opening_moves: usize,
    /// HaChu moves legal for us and played.
    checked_moves: usize,
    checked_gote_moves: usize,
    checked_promotions: usize,
    checked_captures: usize,
    checked_checks: usize,
    /// Checked moves made while in check.
    checked_evasions: usize,
    checked_promoted_piece_moves: usize,
    /// Checked moves that could have promoted and did not.
    checked_deferrals: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.games += other.games;
        self.opening_moves += other.opening_moves;
        self.checked_moves += other.checked_moves;
        self.checked_gote_moves += other.checked_gote_moves;
        self.checked_promotions += other.checked_promotions;
        self.checked_captures += other.checked_captures;
        self.checked_checks += other.checked_checks;
        self.checked_evasions += other.checked_evasions;
        self.checked_promoted_piece_moves += other.checked_promoted_piece_moves;
        self.checked_deferrals += other.checked_deferrals;
    }
}

struct GameReport {
    index: usize,
    depth: u32,
    plies: usize,
    end: End,
    /// What HaChu did when asked to move at our checkmate or stalemate.
    hachu_at_end: Option<String>,
    elapsed: Duration,
}

/// What HaChu said in answer to `go`.
enum Reply {
    Move(String),
    /// `resign` or a result line.
    Claim(String),
}

fn is_claim(line: &str) -> bool {
    line == "resign"
        || ["1-0", "0-1", "1/2-1/2"]
            .iter()
            .any(|r| line == *r || line.starts_with(&format!("{r} ")))
}

/// A HaChu process playing one game.
struct Session {
    engine: Engine,
    pings: usize,
}

impl Session {
    fn send(&mut self, text: &str, context: impl Fn() -> String) -> Result<(), String> {
        self.engine
            .send(text)
            .map_err(|e| format!("{}: {e}", context()))
    }

    /// The next line that is not debug output or start-up noise. HaChu answering with an error
    /// means a command of ours did not take, so that fails.
    fn next_line(&mut self, awaited: &str, context: impl Fn() -> String) -> Result<String, String> {
        let deadline = Instant::now() + HACHU_TIMEOUT;
        loop {
            let line = match self.engine.next_line(deadline) {
                Ok(line) => line,
                Err(ReadError::Timeout) => {
                    return Err(format!(
                        "{}: HaChu sent no {awaited} within {HACHU_TIMEOUT:?}; killed it",
                        context()
                    ));
                }
                Err(ReadError::Exited) => {
                    return Err(format!(
                        "{}: HaChu exited while {awaited} was due ({})",
                        context(),
                        self.engine.exit_status()
                    ));
                }
            };
            let line = line.trim().to_string();
            if line.starts_with("Illegal move") || line.starts_with("Error") {
                return Err(format!("{}: HaChu answered `{line}`", context()));
            }
            let noise = line.is_empty()
                || ["#", "feature ", "piece ", "setup "]
                    .iter()
                    .any(|p| line.starts_with(p));
            if !noise {
                return Ok(line);
            }
        }
    }

    /// Sends a `ping` and reads up to its `pong`; returns the claims HaChu made on the way.
    fn sync(&mut self, context: impl Fn() -> String) -> Result<Vec<String>, String> {
        self.pings += 1;
        let ping = self.pings;
        self.send(&format!("ping {ping}\n"), &context)?;
        let mut claims = Vec::new();
        loop {
            let line = self.next_line(&format!("`pong {ping}`"), &context)?;
            if line == format!("pong {ping}") {
                return Ok(claims);
            }
            if is_claim(&line) {
                claims.push(line);
            } else if line.starts_with("move ") || line.starts_with("pong ") {
                return Err(format!(
                    "{}: HaChu sent `{line}` where `pong {ping}` was due",
                    context()
                ));
            }
        }
    }

    fn await_reply(&mut self, context: impl Fn() -> String) -> Result<Reply, String> {
        loop {
            let line = self.next_line("move", &context)?;
            if let Some(text) = line.strip_prefix("move ") {
                return Ok(Reply::Move(text.trim().to_string()));
            }
            if is_claim(&line) {
                return Ok(Reply::Claim(line));
            }
            if line.starts_with("pong ") {
                return Err(format!("{}: unexpected `{line}`", context()));
            }
        }
    }
}

/// The pieces of `color` that HaChu counts as royal besides the crane king: the treacherous
/// fox, which the spec names, and the promoted running rabbit, which moves like one. These games
/// show HaChu ignoring checks while a side has either, including right after a running rabbit
/// promotes.
fn fox_like(position: &Position<u128>, color: Color) -> &'static str {
    let has = |code: &str| {
        let role = wa::spec().role_by_sfen(code).expect("a Wa piece");
        position.pieces(color, role) != 0
    };
    match (has("X"), has("+R")) {
        (true, true) => "treacherous fox and promoted running rabbit",
        (true, false) => "treacherous fox",
        (false, true) => "promoted running rabbit",
        (false, false) => "none",
    }
}

/// Moves of ours from `from`, as USI text, for failure messages.
fn moves_from(position: &Position<u128>, moves: &[Move], from: Square) -> String {
    let texts: Vec<String> = moves
        .iter()
        .filter(|m| matches!(m.kind(), MoveKind::Normal { from: f, .. } if f == from))
        .map(|&m| position.to_usi(m))
        .collect();
    if texts.is_empty() {
        "none".to_string()
    } else {
        texts.join(" ")
    }
}

/// What a HaChu move we refused is, when it is not a failure.
fn classify_refused(
    position: &Position<u128>,
    mv: Move,
    hachu_text: &str,
    refusal: &str,
    context: &str,
) -> Result<(bool, &'static str), String> {
    let mover = position.side_to_move();
    let pseudo_legal = position.pseudo_legal_moves();
    if pseudo_legal.contains(&mv) {
        let mut after = position.clone();
        after.make_move(mv);
        if after.is_in_check(mover) {
            return Ok((position.is_in_check(mover), fox_like(&after, mover)));
        }
        return Err(format!(
            "{context}: HaChu played `move {hachu_text}` ({}), pseudo-legal for us and leaving \
             the crane king safe, yet refused: {refusal}",
            position.to_usi(mv)
        ));
    }
    let MoveKind::Normal { from, to, promote } = mv.kind() else {
        unreachable!("HaChu moves are read as board moves");
    };
    let piece = match position.piece_at(from) {
        Some(p) => format!("{:?} {}", p.color, wa::spec().role(p.role).name),
        None => "nothing".to_string(),
    };
    let other_promotion = Move::normal(from, to, !promote);
    let note = if pseudo_legal.contains(&other_promotion) {
        format!(
            "; a wrong promotion: we have {} instead",
            position.to_usi(other_promotion)
        )
    } else {
        String::new()
    };
    Err(format!(
        "{context}: HaChu played `move {hachu_text}` ({} to {}{}, moving {piece}), which our \
         rules do not know: {refusal}{note}. Our legal moves from {}: {}; pseudo-legal: {}",
        our_name(from),
        our_name(to),
        if promote { ", promoting" } else { "" },
        our_name(from),
        moves_from(position, &position.legal_moves(), from),
        moves_from(position, &pseudo_legal, from),
    ))
}

fn play_game(index: usize, counts: &mut Counts) -> Result<GameReport, String> {
    let started = Instant::now();
    let depth = DEPTHS[index % DEPTHS.len()];
    let mut rng = StdRng::seed_from_u64(SEED ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut game = Game::new(wa::tables(), options()).map_err(|e| format!("Wa start: {e}"))?;
    let mut moves: Vec<String> = Vec::new();
    let engine = Engine::start().map_err(|e| format!("game {index}: {e}"))?;
    let mut session = Session { engine, pings: 0 };
    let mut local = Counts {
        games: 1,
        ..Counts::default()
    };

    let start = game.position().clone();
    // `memory` comes before any `usermove`: HaChu ignores moves until it knows its memory.
    session.send(
        &format!(
            "xboard\nprotover 2\nnew\nvariant wa-shogi\noption Promote on entry=0\n\
             option Allow repeats=1\nmemory 64\nsd {depth}\nforce\n"
        ),
        || session_context(index, depth, &start, &[]),
    )?;

    let opening = rng.gen_range(0..=MAX_OPENING_PLIES);
    for _ in 0..opening {
        let legal = game.legal_moves();
        let Some(&mv) = legal.choose(&mut rng) else {
            break;
        };
        let position = game.position().clone();
        let text = hachu_move(mv);
        session.send(&format!("usermove {text}\n"), || {
            session_context(index, depth, &position, &moves)
        })?;
        moves.push(position.to_usi(mv));
        game.play(mv)
            .map_err(|e| format!("our own legal move: {e}"))?;
        local.opening_moves += 1;
    }
    {
        let position = game.position().clone();
        let claims = session.sync(|| session_context(index, depth, &position, &moves))?;
        if !claims.is_empty() {
            return Err(format!(
                "{}: HaChu claimed {claims:?} during the opening",
                session_context(index, depth, &position, &moves)
            ));
        }
    }

    let end = loop {
        if let Status::Finished(outcome) = game.status() {
            break End::Rules(outcome);
        }
        if moves.len() >= MAX_PLIES {
            break End::MoveLimit;
        }
        let position = game.position().clone();
        let context = || session_context(index, depth, &position, &moves);
        session.send("go\n", context)?;
        let text = match session.await_reply(context)? {
            Reply::Move(text) => text,
            Reply::Claim(claim) => {
                break End::Hachu {
                    claim,
                    ours: "ongoing".to_string(),
                };
            }
        };
        let mv = read_hachu_move(&text).map_err(|e| {
            format!(
                "{}: cannot read HaChu's `move {text}`: {e}",
                session_context(index, depth, &position, &moves)
            )
        })?;
        let mover = position.side_to_move();
        match game.play(mv) {
            Ok(_) => {
                local.checked_moves += 1;
                local.checked_gote_moves += usize::from(mover == Color::Gote);
                if let MoveKind::Normal { from, to, promote } = mv.kind() {
                    local.checked_promotions += usize::from(promote);
                    local.checked_deferrals +=
                        usize::from(!promote && position.is_legal(Move::normal(from, to, true)));
                    local.checked_captures += usize::from(position.piece_at(to).is_some());
                    local.checked_promoted_piece_moves += usize::from(
                        position
                            .piece_at(from)
                            .is_some_and(|p| wa::spec().role(p.role).promoted_from.is_some()),
                    );
                }
                local.checked_evasions += usize::from(position.is_in_check(mover));
                local.checked_checks += usize::from(game.position().is_in_check(!mover));
                moves.push(position.to_usi(mv));
            }
            Err(refusal) => {
                let context = session_context(index, depth, &position, &moves);
                let (was_in_check, stand_ins) =
                    classify_refused(&position, mv, &text, &refusal.to_string(), &context)?;
                break End::Deviation(Deviation {
                    game: index,
                    depth,
                    ply: moves.len(),
                    sfen: position.to_sfen(),
                    hachu_text: text,
                    usi: position.to_usi(mv),
                    was_in_check,
                    stand_ins,
                });
            }
        }
        let after = game.position().clone();
        let claims = session.sync(|| session_context(index, depth, &after, &moves))?;
        if let Some(claim) = claims.into_iter().next() {
            let ours = match game.status() {
                Status::Finished(outcome) => outcome.to_string(),
                Status::Ongoing => "ongoing".to_string(),
            };
            break End::Hachu { claim, ours };
        }
    };
    // HaChu is asked for a move at our checkmate or stalemate too, which checks that our rules
    // find no move it knows of. When it does not resign, it plays on with a move that leaves its
    // crane king attacked, as every move there does.
    let hachu_at_end = match &end {
        End::Rules(outcome)
            if matches!(outcome.reason, EndReason::Checkmate | EndReason::Stalemate) =>
        {
            let position = game.position().clone();
            let context = || session_context(index, depth, &position, &moves);
            session.send("go\n", context)?;
            Some(match session.await_reply(context)? {
                Reply::Claim(claim) => {
                    let expected = match outcome.winner {
                        Some(Color::Sente) => "1-0",
                        Some(Color::Gote) => "0-1",
                        None => "1/2-1/2",
                    };
                    if claim != "resign" && !claim.starts_with(expected) {
                        return Err(format!(
                            "{}: our rules say {outcome}, HaChu answers `{claim}`",
                            context()
                        ));
                    }
                    format!("HaChu answers `{claim}`")
                }
                Reply::Move(text) => {
                    let mv = read_hachu_move(&text).map_err(|e| {
                        format!("{}: cannot read HaChu's `move {text}`: {e}", context())
                    })?;
                    let (_, stand_ins) = classify_refused(
                        &position,
                        mv,
                        &text,
                        &position.why_illegal(mv),
                        &context(),
                    )?;
                    format!(
                        "HaChu plays on with `move {text}` = {}, leaving its crane king attacked \
                         (its fox-like pieces: {stand_ins})",
                        position.to_usi(mv)
                    )
                }
            })
        }
        _ => None,
    };

    // Give HaChu the chance to exit by itself before it is killed. A failed write means it has
    // gone already, which is fine once the game is over.
    let _ = session.engine.send("quit\n");
    session.engine.close_input();
    session.engine.exit_status();
    counts.add(&local);
    Ok(GameReport {
        index,
        depth,
        plies: moves.len(),
        end,
        hachu_at_end,
        elapsed: started.elapsed(),
    })
}

fn session_context(
    index: usize,
    depth: u32,
    position: &Position<u128>,
    moves: &[String],
) -> String {
    format!(
        "game {index} (depth {depth}), position {} after USI moves [{}]",
        position.to_sfen(),
        moves.join(" ")
    )
}

// ---------------------------------------------------------------------------------------------
// The run, shared by the tests below.

struct Run {
    counts: Counts,
    reports: Vec<GameReport>,
    elapsed: Duration,
}

impl Run {
    fn deviations(&self) -> impl Iterator<Item = &Deviation> {
        self.reports.iter().filter_map(|r| match &r.end {
            End::Deviation(d) => Some(d),
            _ => None,
        })
    }
}

fn run() -> &'static Result<Run, String> {
    static RUN: OnceLock<Result<Run, String>> = OnceLock::new();
    RUN.get_or_init(|| {
        let started = Instant::now();
        if let Some(message) = hachu_missing() {
            return Err(message);
        }
        let run = in_parallel(GAMES, WORKERS, play_game, Counts::add, |_| false)?;
        Ok(Run {
            counts: run.tally,
            reports: run.results.into_iter().map(|(_, report)| report).collect(),
            elapsed: started.elapsed(),
        })
    })
}

fn finished_run() -> &'static Run {
    match run() {
        Ok(run) => run,
        Err(message) => panic!("{message}"),
    }
}

#[test]
fn every_move_hachu_plays_against_itself_is_legal_or_a_known_deviation() {
    let run = finished_run();
    println!(
        "{} HaChu self-play games in {:?}: {:?}",
        run.reports.len(),
        run.elapsed,
        run.counts
    );
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    for report in &run.reports {
        *ends.entry(report.end.label()).or_default() += 1;
        let detail = match (&report.end, &report.hachu_at_end) {
            (End::Hachu { ours, .. }, _) => format!(" (our status: {ours})"),
            (_, Some(answer)) => format!("; {answer}"),
            _ => String::new(),
        };
        println!(
            "game {:2} depth {}: {:3} plies in {:6.2?}, {}{detail}",
            report.index,
            report.depth,
            report.plies,
            report.elapsed,
            report.end.label()
        );
    }
    println!("endings: {ends:?}");
    let deviations: Vec<&Deviation> = run.deviations().collect();
    let mut by_kind: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for d in &deviations {
        *by_kind.entry((d.kind(), d.stand_ins)).or_default() += 1;
    }
    println!(
        "{} known HaChu deviations (a move leaving its own crane king attacked; \
         (kind, mover's fox-like pieces after the move) => count): {by_kind:?}",
        deviations.len()
    );
    for d in deviations {
        println!("  {d}");
    }
}

#[test]
fn the_self_play_run_covers_enough() {
    let run = finished_run();
    let c = run.counts;
    assert_eq!(c.games, run.reports.len());
    let checks = [
        ("games", c.games, MIN_GAMES),
        ("HaChu moves checked", c.checked_moves, MIN_CHECKED_MOVES),
        (
            "HaChu promotions checked",
            c.checked_promotions,
            MIN_CHECKED_PROMOTIONS,
        ),
        (
            "HaChu captures checked",
            c.checked_captures,
            MIN_CHECKED_CAPTURES,
        ),
    ];
    for (what, got, min) in checks {
        assert!(
            got >= min,
            "only {got} {what}, expected at least {min}: {c:?}"
        );
    }
}

/// The spec's examples of the square translation, and HaChu's text for our moves read back.
#[test]
fn hachu_move_text_translates_as_the_spec_says() {
    let geometry = wa::tables().geometry;
    let square = |name: &str| geometry.parse_square(name).expect("a Wa square");
    assert_eq!(hachu_square(square("6k")), "f1");
    assert_eq!(hachu_square(square("11a")), "a11");
    assert_eq!(
        read_hachu_move("h3g4"),
        Ok(Move::normal(square("4i"), square("5h"), false))
    );
    assert_eq!(
        read_hachu_move("k10k11+"),
        Ok(Move::normal(square("1b"), square("1a"), true))
    );
    assert_eq!(
        read_hachu_move("k10k11="),
        Ok(Move::normal(square("1b"), square("1a"), false))
    );
    for bad in [
        "h3g4,g4g5",
        "@@@@",
        "P@e5",
        "l1l2",
        "a12a11",
        "a0a1",
        "h3",
        "h3g4*",
    ] {
        assert!(read_hachu_move(bad).is_err(), "{bad} should not read");
    }
    let position = wa::start(&options()).expect("Wa start position");
    for mv in position.legal_moves() {
        assert_eq!(read_hachu_move(&hachu_move(mv)), Ok(mv));
    }
}

/// Refused HaChu moves from earlier runs: the known deviation, also where only a promoted
/// running rabbit (made by the move itself) can explain it, and a move no rule allows.
#[test]
fn refused_hachu_moves_are_classified() {
    let classify = |sfen: &str, text: &str| {
        let position = Position::from_sfen(wa::tables(), sfen, options().rule_set())
            .expect("a valid Wa position");
        let mv = read_hachu_move(text).expect("HaChu move text");
        assert!(!position.is_legal(mv), "{text} is legal in {sfen}");
        classify_refused(&position, mv, text, &position.why_illegal(mv), sfen)
    };
    // Gote's crane king on 6a is checked by the flying falcon on 9d; HaChu moves its blind dog.
    assert_eq!(
        classify(
            "hmlcvkwgudo/1e4s2f1/pp2ppp1ppp/2Fp3p3/7x3/11/3P7/2P3PP3/PP1XPP2PPP/5S3E1/\
             ODUGWKVCLMH w - 16",
            "j11i10"
        ),
        Ok((true, "treacherous fox"))
    );
    // Sente, without a fox and in check from gote's promoted running rabbit (8i jumps to 6k),
    // promotes its own running rabbit.
    assert_eq!(
        classify(
            "hmlcvkwgudo/5s5/pep1pp3pp/1p1p3fp2/7p3/6R4/11/2DP1FPP3/PPP+r1P2PPP/2U2S3E1/\
             O2GWKVCLMH b - 25",
            "g6g11+"
        ),
        Ok((true, "promoted running rabbit"))
    );
    let start = wa::start(&options()).expect("Wa start position").to_sfen();
    let failure = classify(&start, "e3e5").expect_err("a sparrow pawn moving two squares");
    assert!(
        failure.contains("Our legal moves from 7i: 7i7h;"),
        "{failure}"
    );
    let failure = classify(&start, "e3e4+").expect_err("a promotion outside the zone");
    assert!(
        failure.contains("a wrong promotion: we have 7i7h"),
        "{failure}"
    );
}
