//! Differential test of Wa shogi's piece moves against HaChu 0.21 (`/usr/games/hachu`, Debian
//! package `hachu`, installed by `scripts/install-test-deps`), following "Testing against HaChu"
//! in `rules/wa-shogi.md`.
//!
//! Seeded random games from the start position with `drops=off` (biased towards promotions and
//! captures so that promoted pieces and thin endgames turn up) give the positions. For each one
//! a fresh HaChu gets the board with `setboard` and is asked `lift` on all 121 squares. HaChu's
//! `lift` answers from its root move list, which does not test the own king's safety, so the
//! answers are compared with our `pseudo_legal_moves()`.
//!
//! `setboard` always leaves HaChu's first mover (upper case) to move. A position with gote to move
//! is therefore turned 180 degrees with the colours swapped; the rules are symmetric, and the
//! answers are turned back.
//!
//! How a `highlight` answer maps to our moves, per destination: `M` when the piece may promote
//! there (we have the move with promotion), whether or not it may also stay unpromoted; otherwise
//! `R` for a capture and `Y` for a move to an empty square. HaChu writes `M` for a forced promotion
//! (sparrow pawn or oxcart onto the last rank) exactly as for an optional one, so `lift` cannot
//! show whether a deferral exists. Which deferrals we omit is therefore checked against the spec
//! directly: only those of sparrow pawns and oxcarts onto the last rank. A square whose piece has
//! no move (or that is empty, or holds a piece of the side not to move) gets no answer at all, so
//! every `lift` is followed by a `ping` to tell where its answer ends.
//!
//! One HaChu quirk is filtered out: a hole in its root move list reads as a1 moving to itself
//! (see `hachu_lifts`).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tsubame_rules::{Color, Move, MoveKind, Options, Position, Square, wa};

use crate::hachu::{
    Engine, ReadError, SIZE, from_hachu, hachu_missing, hachu_name, in_parallel, our_name,
};

const GAMES: usize = 40;
const MAX_PLIES: usize = 300;
const SEED: u64 = 0x3a_5eed_0000;
/// Share of plies whose position is compared (besides the first two of every game).
const SAMPLE_RATE: f64 = 0.05;
/// The same, for positions where the side to move has a promotion.
const PROMOTION_SAMPLE_RATE: f64 = 0.5;
/// How often a random move is a promotion when one is available. Kept low so that unpromoted
/// pieces stay in the zone, where most of their moves may promote.
const PROMOTION_PREFERENCE: f64 = 0.3;
/// How often a random move goes forward, which brings pieces to the zone.
const FORWARD_PREFERENCE: f64 = 0.5;
/// A single HaChu answers 121 lifts in well under a second; this only catches a hang.
const HACHU_TIMEOUT: Duration = Duration::from_secs(20);
/// Differences collected before the comparison stops.
const MAX_DIFFERENCES: usize = 10;
const WORKERS: usize = 2;

// Coverage the comparison must reach to mean something; the seeded run reaches about 1.3 to
// 1.8 times each of these.
const MIN_POSITIONS: usize = 800;
const MIN_GOTE_POSITIONS: usize = 400;
const MIN_POSITIONS_WITH_PROMOTED: usize = 400;
const MIN_PIECES: usize = 10_000;
const MIN_MOVES: usize = 30_000;
const MIN_PROMOTIONS: usize = 800;
const MIN_CAPTURES: usize = 800;
const MIN_PROMOTING_CAPTURES: usize = 120;
const MIN_FORCED_PROMOTIONS: usize = 25;
const MIN_PROMOTED_PIECE_MOVES: usize = 3_000;

fn options() -> Options {
    Options::parse(wa::spec(), "drops=off").expect("drops=off is a Wa option")
}

/// HaChu's `setboard` field for `position`: the side to move becomes HaChu's upper-case first
/// mover, which for gote needs the board turned.
fn hachu_board(position: &Position<u128>) -> String {
    let turned = position.side_to_move() == Color::Gote;
    let mut out = String::new();
    for rank in (0..SIZE).rev() {
        let mut empty = 0;
        for file in 0..SIZE {
            match position.piece_at(from_hachu(rank * SIZE + file, turned)) {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    let code = wa::spec().role(piece.role).sfen;
                    if piece.color == position.side_to_move() {
                        out.push_str(code);
                    } else {
                        out.push_str(&code.to_ascii_lowercase());
                    }
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HaChu.

/// One `highlight` answer: a marker letter per HaChu square, 0 where none.
type Highlight = [u8; SIZE * SIZE];

/// Reads `highlight <ranks 11 down to 1>`.
fn parse_highlight(text: &str) -> Result<Highlight, String> {
    let mut cells = [0u8; SIZE * SIZE];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != SIZE {
        return Err(format!("{} ranks instead of {SIZE}", ranks.len()));
    }
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank = SIZE - 1 - row;
        let mut file = 0;
        let mut bytes = rank_text.bytes().peekable();
        while let Some(b) = bytes.next() {
            if b.is_ascii_digit() {
                let mut run = (b - b'0') as usize;
                while let Some(&d) = bytes.peek().filter(|d| d.is_ascii_digit()) {
                    run = run * 10 + (d - b'0') as usize;
                    bytes.next();
                }
                file += run;
            } else if b.is_ascii_alphabetic() {
                if file >= SIZE {
                    return Err(format!("rank {} is longer than {SIZE} squares", rank + 1));
                }
                cells[rank * SIZE + file] = b;
                file += 1;
            } else {
                return Err(format!("unexpected character {:?}", b as char));
            }
        }
        if file != SIZE {
            return Err(format!("rank {} has {file} squares", rank + 1));
        }
    }
    Ok(cells)
}

/// HaChu's answers for one position.
struct Lifts {
    /// Per HaChu square, the answer to its `lift`, `None` where HaChu sent none.
    answers: Vec<Option<Highlight>>,
    /// Whether the answer for a1 showed a1 moving to itself, a marker that was dropped.
    list_hole: bool,
}

/// Asks a fresh HaChu to `lift` every square of `board` (HaChu's `setboard` field, first mover to
/// move). `what` names the position in messages.
fn hachu_lifts(board: &str, what: &str) -> Result<Lifts, String> {
    if let Some(message) = hachu_missing() {
        return Err(message);
    }
    let mut engine = Engine::start().map_err(|e| format!("{what}: {e}"))?;

    // `memory` must follow `setboard`: HaChu gives every set-up position the same hash key, and
    // an entry made before would show a stale move in the answers.
    let mut script = format!(
        "xboard\nprotover 2\nvariant wa-shogi\noption Promote on entry=0\n\
         option Allow repeats=1\nsetboard {board}\nmemory 64\n"
    );
    for index in 0..SIZE * SIZE {
        // A square without moves gets no answer, so each lift is closed by a ping.
        script.push_str(&format!("lift {}\nping {index}\n", hachu_name(index)));
    }
    script.push_str("quit\n");
    engine.send(&script).map_err(|e| format!("{what}: {e}"))?;
    engine.close_input();

    let deadline = Instant::now() + HACHU_TIMEOUT;
    let mut answers = Vec::with_capacity(SIZE * SIZE);
    let mut pending: Option<Highlight> = None;
    let mut list_hole = false;
    while answers.len() < SIZE * SIZE {
        let asked = format!("`lift {}`", hachu_name(answers.len()));
        let line = match engine.next_line(deadline) {
            Ok(line) => line,
            Err(ReadError::Timeout) => {
                return Err(format!(
                    "{what}: HaChu gave no answer to {asked} within {HACHU_TIMEOUT:?}; killed it"
                ));
            }
            Err(ReadError::Exited) => {
                return Err(format!(
                    "{what}: HaChu exited before answering {asked} ({})",
                    engine.exit_status()
                ));
            }
        };
        if let Some(text) = line.strip_prefix("highlight ") {
            let cells = parse_highlight(text.trim())
                .map_err(|e| format!("{what}: malformed answer to {asked}: {e}: {line}"))?;
            if pending.replace(cells).is_some() {
                return Err(format!("{what}: two answers to {asked}"));
            }
        } else if let Some(number) = line.strip_prefix("pong ") {
            let expected = answers.len().to_string();
            if number.trim() != expected {
                return Err(format!(
                    "{what}: HaChu sent `{line}` where `pong {expected}` was due"
                ));
            }
            let mut answer = pending.take();
            // HaChu's root search moves a late best move to the front of its list and leaves a
            // hole, the move word 0, which `lift` reads as a1 moving to itself (in about half of
            // the positions). No piece moves to its own square, so the marker carries nothing.
            if let Some(mut cells) = answer.filter(|cells| answers.is_empty() && cells[0] != 0) {
                cells[0] = 0;
                list_hole = true;
                answer = cells.iter().any(|&m| m != 0).then_some(cells);
            }
            answers.push(answer);
        }
        // Everything else is debug output, features, piece definitions or the "unknown
        // command" HaChu also prints after a lift.
    }

    // HaChu has `quit` already; give it a moment to exit by itself before it is killed.
    engine.exit_status();
    Ok(Lifts { answers, list_hole })
}

// ---------------------------------------------------------------------------------------------
// Comparison.

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    positions: usize,
    gote_positions: usize,
    positions_with_promoted: usize,
    /// Pieces of the side to move that have at least one move.
    pieces: usize,
    /// Squares lifted that have no moves: empty, the opponent's, or blocked.
    silent_squares: usize,
    /// Destinations, one per piece and square.
    moves: usize,
    /// Destinations where the piece may promote.
    promotions: usize,
    /// Destinations holding an enemy piece.
    captures: usize,
    promoting_captures: usize,
    forced_promotions: usize,
    /// Destinations of already promoted pieces.
    promoted_piece_moves: usize,
    /// Positions where HaChu's `lift a1` showed a1 moving to itself.
    list_holes: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.positions += other.positions;
        self.gote_positions += other.gote_positions;
        self.positions_with_promoted += other.positions_with_promoted;
        self.pieces += other.pieces;
        self.silent_squares += other.silent_squares;
        self.moves += other.moves;
        self.promotions += other.promotions;
        self.captures += other.captures;
        self.promoting_captures += other.promoting_captures;
        self.forced_promotions += other.forced_promotions;
        self.promoted_piece_moves += other.promoted_piece_moves;
        self.list_holes += other.list_holes;
    }
}

/// Our moves as HaChu would highlight them: per from-square, each destination's marker.
fn expected_highlights(
    position: &Position<u128>,
    counts: &mut Counts,
) -> Result<BTreeMap<Square, BTreeMap<Square, u8>>, String> {
    let sfen = position.to_sfen();
    let spec = wa::spec();
    let mut by_square: BTreeMap<(Square, Square), (bool, bool)> = BTreeMap::new();
    for mv in position.pseudo_legal_moves() {
        let MoveKind::Normal { from, to, promote } = mv.kind() else {
            return Err(format!(
                "{sfen}: {} is not a board move, with drops off",
                position.to_usi(mv)
            ));
        };
        let entry = by_square.entry((from, to)).or_default();
        if promote {
            entry.0 = true;
        } else {
            entry.1 = true;
        }
    }
    let geometry = wa::tables().geometry;
    let mut out: BTreeMap<Square, BTreeMap<Square, u8>> = BTreeMap::new();
    for (&(from, to), &(promoting, plain)) in &by_square {
        let piece = position.piece_at(from).expect("a move starts on a piece");
        let role = spec.role(piece.role);
        let last_rank = geometry.depth_from_far_side(to, piece.color == Color::Sente) == 1;
        let stuck_on_last_rank = last_rank && matches!(role.sfen, "P" | "O");
        if promoting && !plain {
            if !stuck_on_last_rank {
                return Err(format!(
                    "{sfen}: {} from {} to {} may only promote; the spec forces promotion only \
                     for a sparrow pawn or an oxcart on the last rank",
                    role.name,
                    our_name(from),
                    our_name(to)
                ));
            }
            counts.forced_promotions += 1;
        } else if stuck_on_last_rank {
            return Err(format!(
                "{sfen}: {} from {} to {} may stay unpromoted on the last rank",
                role.name,
                our_name(from),
                our_name(to)
            ));
        }
        let capture = position.piece_at(to).is_some();
        counts.moves += 1;
        counts.captures += usize::from(capture);
        counts.promotions += usize::from(promoting);
        counts.promoting_captures += usize::from(promoting && capture);
        counts.promoted_piece_moves += usize::from(role.promoted_from.is_some());
        let marker = match (promoting, capture) {
            (true, _) => b'M',
            (false, true) => b'R',
            (false, false) => b'Y',
        };
        out.entry(from).or_default().insert(to, marker);
    }
    Ok(out)
}

fn describe(destinations: &BTreeMap<Square, u8>) -> String {
    if destinations.is_empty() {
        return "none".to_string();
    }
    destinations
        .iter()
        .map(|(&to, &m)| format!("{}={}", our_name(to), m as char))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compares one position; returns the differences found (empty when HaChu agrees).
fn compare_position(sfen: &str, counts: &mut Counts) -> Result<Vec<String>, String> {
    let position = Position::from_sfen(wa::tables(), sfen, options().rule_set())
        .map_err(|e| format!("{sfen}: our own SFEN does not read back: {e}"))?;
    let turned = position.side_to_move() == Color::Gote;
    let board = hachu_board(&position);
    let what = if turned {
        format!("position {sfen} (HaChu setboard {board}, turned 180 degrees: gote to move)")
    } else {
        format!("position {sfen} (HaChu setboard {board})")
    };
    let mut local = Counts::default();
    let expected = expected_highlights(&position, &mut local)?;
    let lifts = hachu_lifts(&board, &what)?;
    local.list_holes = usize::from(lifts.list_hole);

    let mut differences = Vec::new();
    for (index, answer) in lifts.answers.iter().enumerate() {
        let from = from_hachu(index, turned);
        let ours = expected.get(&from).cloned().unwrap_or_default();
        let theirs: BTreeMap<Square, u8> = answer
            .iter()
            .flat_map(|cells| {
                cells
                    .iter()
                    .enumerate()
                    .filter(|&(_, &m)| m != 0)
                    .map(|(to, &m)| (from_hachu(to, turned), m))
            })
            .collect();
        if answer.is_some() && theirs.is_empty() {
            differences.push(format!(
                "{what}: HaChu answered `lift {}` with an empty board",
                hachu_name(index)
            ));
        }
        if ours != theirs {
            let piece = match position.piece_at(from) {
                Some(p) => format!("{:?} {}", p.color, wa::spec().role(p.role).name),
                None => "empty square".to_string(),
            };
            let mut at: Vec<Square> = ours.keys().chain(theirs.keys()).copied().collect();
            at.sort();
            at.dedup();
            let marker = |m: Option<&u8>| m.map_or('-', |&m| m as char);
            let differing: Vec<String> = at
                .into_iter()
                .filter(|to| ours.get(to) != theirs.get(to))
                .map(|to| {
                    format!(
                        "{} ours {} HaChu {}",
                        our_name(to),
                        marker(ours.get(&to)),
                        marker(theirs.get(&to))
                    )
                })
                .collect();
            differences.push(format!(
                "{what}: {piece} on {} (HaChu {}): differs at {}; all ours: {}; all HaChu's: {} \
                 (M = may promote, R = capture, Y = move to an empty square, - = no move)",
                our_name(from),
                hachu_name(index),
                differing.join(", "),
                describe(&ours),
                describe(&theirs),
            ));
        }
        if ours.is_empty() {
            local.silent_squares += 1;
        } else {
            local.pieces += 1;
        }
    }
    local.positions = 1;
    local.gote_positions = usize::from(turned);
    local.positions_with_promoted = usize::from((0..SIZE * SIZE).any(|i| {
        position
            .piece_at(Square::from_index(i as u8))
            .is_some_and(|p| wa::spec().role(p.role).promoted_from.is_some())
    }));
    counts.add(&local);
    Ok(differences)
}

// ---------------------------------------------------------------------------------------------
// Positions.

fn is_promotion(mv: Move) -> bool {
    matches!(mv.kind(), MoveKind::Normal { promote: true, .. })
}

fn is_capture(position: &Position<u128>, mv: Move) -> bool {
    matches!(mv.kind(), MoveKind::Normal { to, .. } if position.piece_at(to).is_some())
}

fn is_forward(position: &Position<u128>, mv: Move) -> bool {
    let geometry = wa::tables().geometry;
    match mv.kind() {
        MoveKind::Normal { from, to, .. } => match position.side_to_move() {
            Color::Sente => geometry.rank(to) < geometry.rank(from),
            Color::Gote => geometry.rank(to) > geometry.rank(from),
        },
        _ => false,
    }
}

/// Positions of seeded random games, as SFEN, without repeats.
fn sample_positions() -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for game in 0..GAMES {
        // Games differ in how eagerly they capture, from slow manoeuvring to quick endgames.
        let capture_preference = 0.1 + 0.5 * game as f64 / GAMES as f64;
        let mut position = wa::start(&options()).expect("Wa start position");
        for ply in 0..MAX_PLIES {
            let moves = position.legal_moves();
            let promotions: Vec<Move> =
                moves.iter().copied().filter(|&m| is_promotion(m)).collect();
            // Positions where the side to move may promote are rare and worth more; those with a
            // forced promotion (no deferral beside it) rarer still.
            let forced = promotions.iter().any(|&p| {
                let MoveKind::Normal { from, to, .. } = p.kind() else {
                    return false;
                };
                !moves.contains(&Move::normal(from, to, false))
            });
            let rate = if forced {
                1.0
            } else if promotions.is_empty() {
                SAMPLE_RATE
            } else {
                PROMOTION_SAMPLE_RATE
            };
            if (ply < 2 || rng.gen_bool(rate)) && seen.insert(position.to_sfen()) {
                out.push(position.to_sfen());
            }
            if moves.is_empty() {
                break;
            }
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| is_capture(&position, m))
                .collect();
            let forward: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| is_forward(&position, m))
                .collect();
            let mv = if !promotions.is_empty() && rng.gen_bool(PROMOTION_PREFERENCE) {
                *promotions.choose(&mut rng).expect("non-empty")
            } else if !captures.is_empty() && rng.gen_bool(capture_preference) {
                *captures.choose(&mut rng).expect("non-empty")
            } else if !forward.is_empty() && rng.gen_bool(FORWARD_PREFERENCE) {
                *forward.choose(&mut rng).expect("non-empty")
            } else {
                *moves.choose(&mut rng).expect("non-empty")
            };
            position.make_move(mv);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The run, shared by the tests below.

struct Run {
    counts: Counts,
    elapsed: Duration,
}

fn run() -> &'static Result<Run, String> {
    static RUN: OnceLock<Result<Run, String>> = OnceLock::new();
    RUN.get_or_init(|| {
        let started = Instant::now();
        if let Some(message) = hachu_missing() {
            return Err(message);
        }
        let positions = sample_positions();
        let run = in_parallel(
            positions.len(),
            WORKERS,
            |i, counts| compare_position(&positions[i], counts),
            Counts::add,
            |found| found.iter().map(|(_, d)| d.len()).sum::<usize>() >= MAX_DIFFERENCES,
        )?;
        let differences: Vec<String> = run.results.into_iter().flat_map(|(_, d)| d).collect();
        if !differences.is_empty() {
            let stopped = if differences.len() >= MAX_DIFFERENCES {
                "; the comparison stopped there"
            } else {
                ""
            };
            return Err(format!(
                "HaChu and our pseudo-legal moves differ for {} piece(s) or square(s){stopped}:\n{}",
                differences.len(),
                differences.join("\n")
            ));
        }
        Ok(Run {
            counts: run.tally,
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
fn every_piece_moves_as_hachu_says_in_random_game_positions() {
    let run = finished_run();
    println!("compared with HaChu in {:?}: {:?}", run.elapsed, run.counts);
}

#[test]
fn the_hachu_comparison_covers_enough() {
    let c = finished_run().counts;
    let checks = [
        ("positions", c.positions, MIN_POSITIONS),
        (
            "positions with gote to move",
            c.gote_positions,
            MIN_GOTE_POSITIONS,
        ),
        (
            "positions with a promoted piece on the board",
            c.positions_with_promoted,
            MIN_POSITIONS_WITH_PROMOTED,
        ),
        ("pieces", c.pieces, MIN_PIECES),
        ("moves (destinations)", c.moves, MIN_MOVES),
        (
            "destinations that may promote",
            c.promotions,
            MIN_PROMOTIONS,
        ),
        ("captures", c.captures, MIN_CAPTURES),
        (
            "captures that may promote",
            c.promoting_captures,
            MIN_PROMOTING_CAPTURES,
        ),
        (
            "forced promotions",
            c.forced_promotions,
            MIN_FORCED_PROMOTIONS,
        ),
        (
            "moves of promoted pieces",
            c.promoted_piece_moves,
            MIN_PROMOTED_PIECE_MOVES,
        ),
    ];
    for (what, got, min) in checks {
        assert!(
            got >= min,
            "only {got} {what} compared with HaChu, expected at least {min}: {c:?}"
        );
    }
    assert_eq!(
        c.pieces + c.silent_squares,
        c.positions * SIZE * SIZE,
        "every square of every position is lifted"
    );
}

/// The spec's hand count of the start position: 51 moves, by group.
#[test]
fn hachu_gives_the_start_position_51_moves_as_the_spec_counts_them() {
    let position = wa::start(&options()).expect("Wa start position");
    let board = hachu_board(&position);
    assert_eq!(
        board,
        "hmlcvkwgudo/1e3s3f1/ppprpppxppp/3p3p3/11/11/11/3P3P3/PPPXPPPRPPP/1F3S3E1/ODUGWKVCLMH",
        "the start board is HaChu's own"
    );
    let mut counts = Counts::default();
    let differences =
        compare_position(&position.to_sfen(), &mut counts).unwrap_or_else(|e| panic!("{e}"));
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    let lifts = hachu_lifts(&board, "the start position").unwrap_or_else(|e| panic!("{e}"));

    let group = |square: Square| -> &'static str {
        let Some(piece) = position.piece_at(square) else {
            panic!(
                "start position: a move from {}, which is empty",
                our_name(square)
            );
        };
        match wa::spec().role(piece.role).sfen {
            "P" => "sparrow pawns",
            "X" => "treacherous fox",
            "R" => "running rabbit",
            "S" => "swallow's wings",
            "E" => "cloud eagle",
            "F" => "flying falcon",
            _ if wa::tables().geometry.rank(square) == 10 => "back rank",
            other => panic!("{other} on {} is in no group of the spec", our_name(square)),
        }
    };
    let spec_counts: BTreeMap<&str, usize> = [
        ("sparrow pawns", 11),
        ("treacherous fox", 8),
        ("running rabbit", 5),
        ("swallow's wings", 6),
        ("cloud eagle", 2),
        ("flying falcon", 0),
        ("back rank", 19),
    ]
    .into_iter()
    .collect();

    let mut hachu_counts: BTreeMap<&str, usize> = spec_counts.keys().map(|&k| (k, 0)).collect();
    for (index, answer) in lifts.answers.iter().enumerate() {
        let Some(cells) = answer else { continue };
        let from = from_hachu(index, false);
        for (to, &marker) in cells.iter().enumerate().filter(|&(_, &m)| m != 0) {
            assert_eq!(
                marker,
                b'Y',
                "start position: HaChu marks {} from {} with {}, but nothing can capture or \
                 promote yet",
                our_name(from_hachu(to, false)),
                our_name(from),
                marker as char
            );
            *hachu_counts.entry(group(from)).or_default() += 1;
        }
    }
    assert_eq!(hachu_counts, spec_counts, "HaChu's start moves by group");
    assert_eq!(hachu_counts.values().sum::<usize>(), 51);

    let mut our_counts: BTreeMap<&str, usize> = spec_counts.keys().map(|&k| (k, 0)).collect();
    for mv in position.legal_moves() {
        let MoveKind::Normal { from, .. } = mv.kind() else {
            panic!(
                "start position: {} is not a board move",
                position.to_usi(mv)
            );
        };
        *our_counts.entry(group(from)).or_default() += 1;
    }
    assert_eq!(our_counts, spec_counts, "our start moves by group");
}
