//! Differential test of the Tori shogi rules against Fairy-Stockfish, asked through its Python
//! module pyffish 0.0.90 (`tests/oracle/pyffish_oracle.py`; `scripts/install-test-deps` installs
//! it). Runs with `repetition=4`, the rule-set on which Fairy-Stockfish and Tsubame agree.
//!
//! Seeded random games (uniform, shuffling pieces back and forth, check-seeking; some from handicap
//! starts) are played with our rules to their end or a ply cap, then compared:
//! - every move: Fairy-Stockfish accepts the whole move list (so each move is legal there and the
//!   side to move always had a move) and writes the same piece, capture or drop, destination and
//!   promotion in its SAN as the move does on our board;
//! - every third or later occurrence of a position, and the first second occurrence of a game:
//!   Fairy-Stockfish's repetition rule agrees that the game goes on, or how it ended;
//! - every position: the exact legal move set;
//! - the last positions of each game and a few sampled ones (all of them with
//!   `TSUBAME_PYFFISH_FULL=1`): also the position reached by replaying the game there (board,
//!   hands, side to move) and the game status, including who won and why it ended.
//!
//! Each pyffish call rebuilds its piece tables first (about 4 ms) whatever it is asked, so the
//! games are capped at 100 plies and the replayed-position comparison is sampled.
//!
//! Known difference, counted and not failed: when both players checked with every move of the
//! repetition cycle, Fairy-Stockfish calls a draw while our rules let the player who completed the
//! cycle win (the opponent's checks were perpetual).
//!
//! `TSUBAME_PYFFISH_GAMES=N` changes the number of random games (the coverage minimums apply only
//! at the default number or more).

use rand::{Rng, SeedableRng, rngs::StdRng};
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tsubame_rules::{Color, EndReason, Game, Move, MoveKind, Options, Position, Status, tori};

const GAMES: usize = 500;
const MAX_PLIES: usize = 100;
const BASE_SEED: u64 = 0x7021_5eed_0000;
/// Positions at the end of each game compared in full: the ending and the plies leading to it.
const TAIL_CHECKED: usize = 4;
/// Other positions per game compared in full, drawn at random.
const SAMPLED_CHECKED: usize = 3;
const PYFFISH_VERSION: [i64; 3] = [0, 0, 90];
const HANDICAPS: [&str; 4] = [
    "left-quail",
    "falcon",
    "falcon-left-quail",
    "falcon-both-quails",
];

// ---------------------------------------------------------------------------------------------
// JSON, just enough for the oracle's replies (the crate has no JSON dependency).

#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let mut parser = JsonParser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = parser.value()?;
        parser.skip_space();
        if parser.at != parser.bytes.len() {
            return Err(format!("trailing text at byte {}", parser.at));
        }
        Ok(value)
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Num(n) if n.fract() == 0.0 => Some(*n as i64),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Arr(items) => Some(items),
            _ => None,
        }
    }
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl JsonParser<'_> {
    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_space();
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", byte as char, self.at))
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(format!("unexpected text at byte {}", self.at))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_space();
        match self.bytes.get(self.at) {
            None => Err("unexpected end of JSON".to_string()),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.skip_space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("expected ',' or ']' at byte {}", self.at)),
                    }
                }
            }
            Some(b'{') => {
                self.at += 1;
                let mut fields = Vec::new();
                self.skip_space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.skip_space();
                    let key = self.string()?;
                    self.expect(b':')?;
                    fields.push((key, self.value()?));
                    self.skip_space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return Err(format!("expected ',' or '}}' at byte {}", self.at)),
                    }
                }
            }
            Some(_) => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| b"+-.0123456789eE".contains(b))
                {
                    self.at += 1;
                }
                std::str::from_utf8(&self.bytes[start..self.at])
                    .ok()
                    .and_then(|t| t.parse::<f64>().ok())
                    .map(Json::Num)
                    .ok_or_else(|| format!("bad value at byte {start}"))
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        loop {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err("unterminated string".to_string());
            };
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let Some(&escape) = self.bytes.get(self.at) else {
                        return Err("unterminated escape".to_string());
                    };
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex = self
                                .bytes
                                .get(self.at..self.at + 4)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .ok_or("bad \\u escape")?;
                            self.at += 4;
                            // Lone surrogates only occur in text we never compare.
                            char::from_u32(hex).unwrap_or('\u{fffd}')
                        }
                        _ => return Err(format!("bad escape at byte {}", self.at)),
                    };
                    let mut buffer = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
                _ => out.push(byte),
            }
        }
    }
}

fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---------------------------------------------------------------------------------------------
// The oracle process.

struct Oracle {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    /// pyffish calls made, for the run's summary.
    calls: u64,
}

const SETUP_HINT: &str = "the differential test against Fairy-Stockfish needs python3 with \
     pyffish 0.0.90: run scripts/install-test-deps";

impl Oracle {
    fn start() -> Oracle {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/oracle/pyffish_oracle.py"
        );
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run python3 ({e}); {SETUP_HINT}"));
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut oracle = Oracle {
            child,
            input,
            output,
            calls: 0,
        };
        let hello = oracle.read_reply();
        if let Some(error) = hello.get("error").and_then(Json::as_str) {
            panic!("the pyffish oracle did not start: {error}");
        }
        let version: Option<Vec<i64>> = hello
            .get("version")
            .and_then(Json::as_array)
            .and_then(|v| v.iter().map(Json::as_i64).collect());
        assert_eq!(
            version.as_deref(),
            Some(&PYFFISH_VERSION[..]),
            "the oracle runs another pyffish than the pinned one; {SETUP_HINT}"
        );
        oracle
    }

    fn read_reply(&mut self) -> Json {
        let mut line = String::new();
        match self.output.read_line(&mut line) {
            Ok(0) => panic!("the pyffish oracle exited (its error output is above); {SETUP_HINT}"),
            Ok(_) => {}
            Err(e) => panic!("cannot read from the pyffish oracle: {e}"),
        }
        Json::parse(line.trim_end())
            .unwrap_or_else(|e| panic!("the pyffish oracle wrote {line:?}, not JSON: {e}"))
    }

    /// Asks questions about the position after `moves` from `fen` (both in Fairy-Stockfish's
    /// notation). `Err` carries pyffish's complaint, such as a move it finds illegal.
    fn ask(&mut self, fen: &str, moves: &[String], questions: &[&str]) -> Result<Json, String> {
        let moves: Vec<String> = moves.iter().map(|m| json_string(m)).collect();
        let questions: Vec<String> = questions.iter().map(|q| json_string(q)).collect();
        let request = format!(
            "{{\"fen\":{},\"moves\":[{}],\"ask\":[{}]}}\n",
            json_string(fen),
            moves.join(","),
            questions.join(",")
        );
        self.input
            .write_all(request.as_bytes())
            .and_then(|()| self.input.flush())
            .unwrap_or_else(|e| panic!("cannot write to the pyffish oracle: {e}; {SETUP_HINT}"));
        self.calls += questions.len() as u64;
        let reply = self.read_reply();
        match reply.get("error").and_then(Json::as_str) {
            Some(error) => Err(error.to_string()),
            None => Ok(reply),
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn field<'a>(reply: &'a Json, key: &str) -> &'a Json {
    reply
        .get(key)
        .unwrap_or_else(|| panic!("the oracle's reply lacks {key:?}: {reply:?}"))
}

fn string_list(reply: &Json, key: &str) -> Vec<String> {
    field(reply, key)
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_else(|| panic!("{key:?} is not a list of strings: {reply:?}"))
}

/// `[bool, value]` from `is_immediate_game_end` / `is_optional_game_end`; the value means
/// nothing when the bool is false.
fn game_end(reply: &Json, key: &str) -> Option<i64> {
    let pair = field(reply, key).as_array();
    match pair {
        Some([ended, value]) => match (ended.as_bool(), value.as_i64()) {
            (Some(true), Some(v)) => Some(v),
            (Some(false), _) => None,
            _ => panic!("{key:?} is not [bool, int]: {reply:?}"),
        },
        _ => panic!("{key:?} is not [bool, int]: {reply:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Notation: Fairy-Stockfish names files a..g from sente's left (our 7..1) and ranks 1..7 from
// sente's side (our g..a); drops are `S@d4` for both colours.

fn fsf_square(ours: &str) -> String {
    let b = ours.as_bytes();
    assert!(b.len() == 2, "not a Tori square: {ours:?}");
    let file = (b'a' + (b'7' - b[0])) as char;
    let rank = (b'1' + (b'g' - b[1])) as char;
    format!("{file}{rank}")
}

fn our_square(fsf: &str) -> String {
    let b = fsf.as_bytes();
    if b.len() != 2 || !(b'a'..=b'g').contains(&b[0]) || !(b'1'..=b'7').contains(&b[1]) {
        return format!("?{fsf}");
    }
    let file = (b'7' - (b[0] - b'a')) as char;
    let rank = (b'g' - (b[1] - b'1')) as char;
    format!("{file}{rank}")
}

fn usi_to_fsf(usi: &str) -> String {
    match usi.split_once('*') {
        Some((piece, square)) => format!("{piece}@{}", fsf_square(square)),
        None => format!(
            "{}{}{}",
            fsf_square(&usi[0..2]),
            fsf_square(&usi[2..4]),
            &usi[4..]
        ),
    }
}

fn fsf_to_usi(fsf: &str) -> String {
    match fsf.split_once('@') {
        Some((piece, square)) => format!("{piece}*{}", our_square(square)),
        None if fsf.len() >= 4 && fsf.is_ascii() => format!(
            "{}{}{}",
            our_square(&fsf[0..2]),
            our_square(&fsf[2..4]),
            &fsf[4..]
        ),
        None => format!("?{fsf}"),
    }
}

/// A move in both notations, for messages.
fn both(usi: &str) -> String {
    format!("{usi} (FSF {})", usi_to_fsf(usi))
}

/// Board, hands and side to move of a FEN, the parts both programs must agree on (hands may be
/// written in any order; move counters are not compared).
#[derive(Debug, PartialEq)]
struct FenView {
    /// Rank by rank from our rank a, file 7 to 1 within a rank.
    board: Vec<Option<String>>,
    hand: Vec<char>,
    side: String,
}

fn fen_view(fen: &str) -> Result<FenView, String> {
    let mut fields = fen.split_whitespace();
    let placement = fields.next().ok_or("empty FEN")?;
    let side = fields.next().ok_or("no side to move")?.to_string();
    let (board_text, hand_text) = match placement.split_once('[') {
        Some((board, rest)) => (board, rest.strip_suffix(']').ok_or("unclosed hand")?),
        None => (placement, ""),
    };
    let mut board = Vec::with_capacity(49);
    let ranks: Vec<&str> = board_text.split('/').collect();
    if ranks.len() != 7 {
        return Err(format!("{} ranks", ranks.len()));
    }
    for rank in ranks {
        let start = board.len();
        let mut chars = rank.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(digit) = c.to_digit(10) {
                let mut empty = digit;
                while let Some(next) = chars.peek().and_then(|d| d.to_digit(10)) {
                    empty = empty * 10 + next;
                    chars.next();
                }
                board.extend((0..empty).map(|_| None));
            } else if c == '+' {
                let piece = chars.next().ok_or("'+' at the end of a rank")?;
                board.push(Some(format!("+{piece}")));
            } else {
                board.push(Some(c.to_string()));
            }
        }
        if board.len() - start != 7 {
            return Err(format!("rank {rank:?} is not 7 squares"));
        }
    }
    let mut hand: Vec<char> = hand_text.chars().filter(|&c| c != '-').collect();
    hand.sort_unstable();
    Ok(FenView { board, hand, side })
}

fn same_position(ours: &str, theirs: &str) -> bool {
    matches!((fen_view(ours), fen_view(theirs)), (Ok(a), Ok(b)) if a == b)
}

/// What differs between two FENs, square by square, in our square names.
fn fen_difference(ours: &str, theirs: &str) -> String {
    match (fen_view(ours), fen_view(theirs)) {
        (Ok(a), Ok(b)) => {
            let mut parts = Vec::new();
            for (index, (x, y)) in a.board.iter().zip(&b.board).enumerate() {
                if x != y {
                    let name = format!("{}{}", 7 - index % 7, (b'a' + (index / 7) as u8) as char);
                    parts.push(format!(
                        "{name}: ours {}, FSF {}",
                        x.as_deref().unwrap_or("empty"),
                        y.as_deref().unwrap_or("empty")
                    ));
                }
            }
            if a.hand != b.hand {
                parts.push(format!("hands: ours {:?}, FSF {:?}", a.hand, b.hand));
            }
            if a.side != b.side {
                parts.push(format!("side to move: ours {}, FSF {}", a.side, b.side));
            }
            parts.join("; ")
        }
        (a, b) => format!("unreadable FEN: ours {a:?}, FSF {b:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Games played with our rules.

#[derive(Clone, Copy, Debug)]
struct Policy {
    name: &'static str,
    /// Chance that a player moves back the piece it moved last time, when that is legal.
    back: f64,
    /// Chance that a player picks a checking move, when there is one (first the move back, if it
    /// checks, then any).
    check: f64,
}

const UNIFORM: Policy = Policy {
    name: "uniform",
    back: 0.0,
    check: 0.0,
};
/// Produces repetitions.
const SHUFFLE: Policy = Policy {
    name: "shuffle",
    back: 0.7,
    check: 0.3,
};
/// Produces mates, drop mates and perpetual checks.
const CHECKS: Policy = Policy {
    name: "checks",
    back: 0.7,
    check: 0.95,
};

/// A finished or capped game and everything the comparison needs.
struct Record {
    /// The game's seed, or 0 for a scripted game.
    seed: u64,
    label: String,
    /// The start position as a FEN, given to Fairy-Stockfish as it is.
    start_fen: String,
    /// `positions[k]` is the position after `k` moves.
    positions: Vec<Position<u64>>,
    moves: Vec<Move>,
    usi: Vec<String>,
    fsf: Vec<String>,
    /// The game's status after the last move.
    status: Status,
}

impl Record {
    fn new(seed: u64, label: String, game: &Game<u64>) -> Record {
        Record {
            seed,
            label,
            start_fen: game.position().to_fen(),
            positions: vec![game.position().clone()],
            moves: Vec::new(),
            usi: Vec::new(),
            fsf: Vec::new(),
            status: game.status(),
        }
    }

    fn play(&mut self, game: &mut Game<u64>, mv: Move) {
        let usi = game.position().to_usi(mv);
        game.play(mv)
            .unwrap_or_else(|e| panic!("{}: {usi} rejected: {e}", self.label));
        self.fsf.push(usi_to_fsf(&usi));
        self.usi.push(usi);
        self.moves.push(mv);
        self.positions.push(game.position().clone());
        self.status = game.status();
    }

    fn plies(&self) -> usize {
        self.moves.len()
    }

    /// How often position `k` has occurred up to and including ply `k`.
    fn occurrences(&self) -> Vec<usize> {
        let mut seen: HashMap<u64, usize> = HashMap::new();
        self.positions
            .iter()
            .map(|p| {
                let count = seen.entry(p.key()).or_default();
                *count += 1;
                *count
            })
            .collect()
    }

    /// Move `k` as played, in both notations.
    fn played(&self, k: usize) -> String {
        format!("{} (FSF {})", self.usi[k], self.fsf[k])
    }

    /// A failure message with everything needed to replay the position.
    fn context(&self, ply: usize) -> String {
        let seed = if self.seed == 0 {
            "scripted".to_string()
        } else {
            format!("seed {:#x}", self.seed)
        };
        format!(
            "game {seed} ({}), ply {ply}, position {}\n  start {}\n  moves (USI) {}\n  moves \
             (FSF) {}",
            self.label,
            self.positions[ply].to_fen(),
            self.start_fen,
            self.usi[..ply].join(" "),
            self.fsf[..ply].join(" ")
        )
    }
}

fn play_random(seed: u64) -> Record {
    let mut rng = StdRng::seed_from_u64(seed);
    let handicap = if rng.gen_bool(0.2) {
        HANDICAPS[rng.gen_range(0..HANDICAPS.len())]
    } else {
        "none"
    };
    let policy = match rng.gen_range(0..10) {
        0..=2 => UNIFORM,
        3..=5 => SHUFFLE,
        _ => CHECKS,
    };
    let options = Options::parse(tori::spec(), &format!("repetition=4,handicap={handicap}"))
        .expect("valid options");
    let mut game = Game::new(tori::tables(), options).expect("start position");
    let mut record = Record::new(
        seed,
        format!("handicap={handicap}, {} play", policy.name),
        &game,
    );
    while record.status == Status::Ongoing && record.plies() < MAX_PLIES {
        let legal = game.legal_moves();
        let back = match record
            .plies()
            .checked_sub(2)
            .map(|i| record.moves[i].kind())
        {
            Some(MoveKind::Normal {
                from,
                to,
                promote: false,
            }) => Some(Move::normal(to, from, false)).filter(|m| legal.contains(m)),
            _ => None,
        };
        let gives_check = |m: &Move| game.position().gives_check(*m);
        // A checking move back and forth is what makes perpetual checks.
        let mut chosen = back.filter(|m| gives_check(m) && rng.gen_bool(policy.check));
        if chosen.is_none() && rng.gen_bool(policy.check) {
            let checks: Vec<Move> = legal.iter().copied().filter(gives_check).collect();
            if !checks.is_empty() {
                chosen = Some(checks[rng.gen_range(0..checks.len())]);
            }
        }
        if chosen.is_none() && rng.gen_bool(policy.back) {
            chosen = back;
        }
        let mv = chosen.unwrap_or_else(|| legal[rng.gen_range(0..legal.len())]);
        record.play(&mut game, mv);
    }
    record
}

fn play_script(label: &str, fen: &str, moves: &[&str]) -> Record {
    let options = Options::parse(tori::spec(), "repetition=4").expect("valid options");
    let start = Position::from_fen(tori::tables(), fen, options.rule_set())
        .unwrap_or_else(|e| panic!("{label}: {fen}: {e}"));
    let mut game = Game::from_position(start, options);
    let mut record = Record::new(0, label.to_string(), &game);
    for usi in moves {
        let mv = game
            .position()
            .parse_usi(usi)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        record.play(&mut game, mv);
    }
    record
}

// ---------------------------------------------------------------------------------------------
// The comparison.

#[derive(Debug, Default)]
struct Tally {
    games: usize,
    plies: usize,
    full_checks: usize,
    legal_checks: usize,
    repetition_checks: usize,
    oracle_calls: u64,
    checkmate: usize,
    stalemate: usize,
    drop_mate: usize,
    repetition: usize,
    /// The player who completed the cycle checked with every move of it, and lost.
    perpetual_by_mover: usize,
    /// The other player checked with every move of the cycle, and lost.
    perpetual_by_opponent: usize,
    /// Both checked throughout: Fairy-Stockfish's draw, our win for the player completing it.
    both_checked: usize,
    capped: usize,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.plies += other.plies;
        self.full_checks += other.full_checks;
        self.legal_checks += other.legal_checks;
        self.repetition_checks += other.repetition_checks;
        self.oracle_calls += other.oracle_calls;
        self.checkmate += other.checkmate;
        self.stalemate += other.stalemate;
        self.drop_mate += other.drop_mate;
        self.repetition += other.repetition;
        self.perpetual_by_mover += other.perpetual_by_mover;
        self.perpetual_by_opponent += other.perpetual_by_opponent;
        self.both_checked += other.both_checked;
        self.capped += other.capped;
    }
}

/// The winner Fairy-Stockfish means by `value`, a result from the side to move's point of view.
fn fsf_winner(value: i64, side_to_move: Color) -> Option<Color> {
    match value {
        v if v > 0 => Some(side_to_move),
        v if v < 0 => Some(!side_to_move),
        _ => None,
    }
}

fn winner_name(winner: Option<Color>) -> String {
    winner.map_or("a draw".to_string(), |c| format!("{c} wins"))
}

struct Checker<'a> {
    oracle: &'a mut Oracle,
    record: &'a Record,
    tally: &'a mut Tally,
}

impl Checker<'_> {
    fn ask(&mut self, ply: usize, questions: &[&str]) -> Result<Json, String> {
        let r = self.record;
        self.oracle.ask(&r.start_fen, &r.fsf[..ply], questions)
    }

    /// Checks a record: SAN and legality of every move, repetitions, and the full comparison at
    /// the positions in `full`.
    fn run(&mut self, full: &BTreeSet<usize>) -> Result<(), String> {
        let r = self.record;
        let n = r.plies();
        self.tally.games += 1;
        self.tally.plies += n;
        if n > 0 {
            match self.ask(n, &["san"]) {
                Ok(reply) => self.compare_san(&string_list(&reply, "san"))?,
                Err(error) => return Err(self.first_rejected_move(&error)),
            }
        }
        let occurrences = r.occurrences();
        let first_second = occurrences.iter().position(|&c| c == 2);
        for (ply, &seen) in occurrences.iter().enumerate() {
            if full.contains(&ply) || ply == n {
                self.full_check(ply, seen >= 2)?;
                continue;
            }
            self.legal_check(ply)?;
            if seen >= 3 || Some(ply) == first_second {
                self.repetition_check(ply)?;
            }
        }
        Ok(())
    }

    /// The legal move sets agree. Asked from the position's own FEN, not by replaying the game,
    /// so that each call costs the same at every ply (Tori's legal moves do not depend on the
    /// history; the replayed positions are compared in full elsewhere).
    fn legal_check(&mut self, ply: usize) -> Result<(), String> {
        let r = self.record;
        self.tally.legal_checks += 1;
        let reply = self
            .oracle
            .ask(&r.positions[ply].to_fen(), &[], &["legal"])
            .map_err(|e| format!("{}\n  pyffish failed: {e}", r.context(ply)))?;
        let difference = self.legal_difference(ply, &string_list(&reply, "legal"));
        if difference.is_empty() {
            Ok(())
        } else {
            Err(format!("{}\n  {difference}", r.context(ply)))
        }
    }

    fn compare_san(&mut self, sans: &[String]) -> Result<(), String> {
        let r = self.record;
        if sans.len() != r.plies() {
            return Err(format!(
                "{}\n  FSF gave {} SAN moves for {} moves",
                r.context(r.plies()),
                sans.len(),
                r.plies()
            ));
        }
        for (ply, san) in sans.iter().enumerate() {
            let (expected, from) = our_san(&r.positions[ply], r.moves[ply]);
            if strip_disambiguation(san, from.as_deref()) != expected {
                return Err(format!(
                    "{}\n  move {}: FSF writes it {san:?}, our board makes it {expected:?} \
                     (piece, capture, destination, promotion)",
                    r.context(ply),
                    r.played(ply)
                ));
            }
        }
        Ok(())
    }

    /// Finds the first move Fairy-Stockfish rejects and describes both legal move sets there.
    fn first_rejected_move(&mut self, error: &str) -> String {
        let r = self.record;
        // Every move before `good` is accepted, some move before `bad` is not.
        let (mut good, mut bad) = (0, r.plies());
        while bad - good > 1 {
            let middle = (good + bad) / 2;
            if self.ask(middle, &["san"]).is_ok() {
                good = middle;
            } else {
                bad = middle;
            }
        }
        let ply = good;
        let detail = match self.ask(ply, &["legal", "fen"]) {
            Ok(reply) => {
                let fsf_fen = field(&reply, "fen").as_str().unwrap_or_default();
                let legal = self.legal_difference(ply, &string_list(&reply, "legal"));
                if same_position(&r.positions[ply].to_fen(), fsf_fen) {
                    legal
                } else {
                    // The move is only the symptom: the positions parted earlier.
                    let parted = self.first_position_difference(ply, fsf_fen);
                    format!("{legal}\n  and earlier: {parted}")
                }
            }
            Err(e) => format!("FSF cannot list its moves here either: {e}"),
        };
        format!(
            "{}\n  FSF rejects our move {} ({error})\n  {detail}",
            r.context(ply),
            r.played(ply)
        )
    }

    /// Our legal moves against Fairy-Stockfish's, as a message; empty when they agree.
    fn legal_difference(&self, ply: usize, fsf_moves: &[String]) -> String {
        let position = &self.record.positions[ply];
        let our_moves = position.legal_moves();
        let ours: BTreeSet<String> = our_moves.iter().map(|&m| position.to_usi(m)).collect();
        let theirs: BTreeSet<String> = fsf_moves.iter().map(|m| fsf_to_usi(m)).collect();
        // Equal lengths too: a move listed twice would hide behind the sets.
        if ours == theirs && ours.len() == our_moves.len() && theirs.len() == fsf_moves.len() {
            return String::new();
        }
        let only_ours: Vec<String> = ours.difference(&theirs).map(|m| both(m)).collect();
        let only_theirs: Vec<String> = theirs.difference(&ours).map(|m| both(m)).collect();
        format!(
            "legal moves differ ({} ours, {} FSF): only ours [{}]; only FSF [{}]",
            our_moves.len(),
            fsf_moves.len(),
            only_ours.join(", "),
            only_theirs.join(", ")
        )
    }

    /// Legal move set, position and game status at `ply`.
    fn full_check(&mut self, ply: usize, repeated: bool) -> Result<(), String> {
        let r = self.record;
        let n = r.plies();
        self.tally.full_checks += 1;
        let mut questions = vec!["legal", "fen"];
        if repeated || ply == n {
            questions.push("optional");
        }
        if ply == n {
            questions.push("immediate");
        }
        let reply = self
            .ask(ply, &questions)
            .map_err(|e| format!("{}\n  pyffish failed: {e}", r.context(ply)))?;
        let fsf_legal = string_list(&reply, "legal");
        let difference = self.legal_difference(ply, &fsf_legal);
        if !difference.is_empty() {
            return Err(format!("{}\n  {difference}", r.context(ply)));
        }
        let fsf_fen = field(&reply, "fen")
            .as_str()
            .unwrap_or_default()
            .to_string();
        let our_fen = r.positions[ply].to_fen();
        if !same_position(&our_fen, &fsf_fen) {
            return Err(self.first_position_difference(ply, &fsf_fen));
        }

        let ours = if ply < n { Status::Ongoing } else { r.status };
        let optional = if questions.contains(&"optional") {
            game_end(&reply, "optional")
        } else {
            None
        };
        let immediate = if ply == n {
            game_end(&reply, "immediate")
        } else {
            None
        };
        let side = r.positions[ply].side_to_move();
        let describe = |what: &str| format!("{}\n  {what}", r.context(ply));
        match ours {
            Status::Ongoing => {
                if let Some(value) = optional.or(immediate) {
                    return Err(describe(&format!(
                        "our game goes on, FSF ends it (optional {optional:?}, immediate \
                         {immediate:?}: {})",
                        winner_name(fsf_winner(value, side))
                    )));
                }
                if ply == n {
                    self.tally.capped += 1;
                }
            }
            Status::Finished(outcome) => match outcome.reason {
                EndReason::Checkmate | EndReason::Stalemate | EndReason::DropMate => {
                    // Only asked now: game_result is meant for positions without a legal move.
                    let reply = self
                        .ask(ply, &["result", "check"])
                        .map_err(|e| describe(&format!("pyffish failed: {e}")))?;
                    let value = field(&reply, "result").as_i64().unwrap_or_default();
                    let in_check = field(&reply, "check").as_bool().unwrap_or_default();
                    let theirs = fsf_winner(value, side);
                    if theirs != outcome.winner {
                        return Err(describe(&format!(
                            "we end the game by {outcome}; FSF game_result {value}: {}",
                            winner_name(theirs)
                        )));
                    }
                    if in_check != (outcome.reason != EndReason::Stalemate) {
                        return Err(describe(&format!(
                            "we end the game by {outcome}; FSF says the side to move is {}in \
                             check",
                            if in_check { "" } else { "not " }
                        )));
                    }
                    if let Some(value) = immediate
                        && fsf_winner(value, side) != outcome.winner
                    {
                        return Err(describe(&format!(
                            "we end the game by {outcome}; FSF is_immediate_game_end {value}"
                        )));
                    }
                    match outcome.reason {
                        EndReason::Checkmate => self.tally.checkmate += 1,
                        EndReason::Stalemate => self.tally.stalemate += 1,
                        _ => self.tally.drop_mate += 1,
                    }
                }
                EndReason::Repetition | EndReason::PerpetualCheck => {
                    let Some(value) = optional else {
                        return Err(describe(&format!(
                            "we end the game by {outcome}; FSF's is_optional_game_end says the \
                             game goes on"
                        )));
                    };
                    let theirs = fsf_winner(value, side);
                    let (mover_checked, opponent_checked) = self.cycle_checks(ply);
                    if mover_checked && opponent_checked {
                        if theirs.is_some() {
                            return Err(describe(&format!(
                                "both players checked throughout the cycle; FSF was expected \
                                 to call it a draw but says {value}"
                            )));
                        }
                        self.tally.both_checked += 1;
                    } else {
                        if theirs != outcome.winner {
                            return Err(describe(&format!(
                                "we end the game by {outcome}; FSF is_optional_game_end {value}: \
                                 {}",
                                winner_name(theirs)
                            )));
                        }
                        if opponent_checked {
                            self.tally.perpetual_by_opponent += 1;
                        } else if mover_checked {
                            self.tally.perpetual_by_mover += 1;
                        } else {
                            self.tally.repetition += 1;
                        }
                    }
                }
                // Endings that random play with these options cannot produce.
                _ => return Err(describe(&format!("unexpected ending: {outcome}"))),
            },
        }
        Ok(())
    }

    /// At a position that occurred before but did not end our game: Fairy-Stockfish must let
    /// the game go on too.
    fn repetition_check(&mut self, ply: usize) -> Result<(), String> {
        let r = self.record;
        self.tally.repetition_checks += 1;
        let reply = self
            .ask(ply, &["optional"])
            .map_err(|e| format!("{}\n  pyffish failed: {e}", r.context(ply)))?;
        match game_end(&reply, "optional") {
            None => Ok(()),
            Some(value) => Err(format!(
                "{}\n  the position occurs for the {} time and our game goes on; FSF's \
                 is_optional_game_end ends it ({value})",
                r.context(ply),
                ordinal(r.occurrences()[ply])
            )),
        }
    }

    /// Whether the player who made the last move, and whether the other player, checked with
    /// every move of the cycle ending at `ply` (from the earliest of the four occurrences).
    fn cycle_checks(&self, ply: usize) -> (bool, bool) {
        let r = self.record;
        let key = r.positions[ply].key();
        let first = (0..=ply)
            .rev()
            .step_by(2)
            .filter(|&k| r.positions[k].key() == key)
            .nth(3)
            .unwrap_or(0);
        let checked = |k: usize| r.positions[k].in_check();
        let mover = (first + 1..=ply)
            .filter(|k| (ply - k).is_multiple_of(2))
            .all(checked);
        let opponent = (first + 1..=ply)
            .filter(|k| (ply - k) % 2 == 1)
            .all(checked);
        (mover, opponent)
    }

    /// The positions differ at `ply`: finds the first ply where they do, for the message.
    fn first_position_difference(&mut self, ply: usize, fsf_fen: &str) -> String {
        let r = self.record;
        // Fairy-Stockfish's FEN at ply `k` when it differs from ours. The move list is known to
        // be accepted, so a failed request cannot happen here.
        let differing_fen = |checker: &mut Self, k: usize| -> Option<String> {
            let fen = checker
                .ask(k, &["fen"])
                .ok()
                .and_then(|reply| reply.get("fen").and_then(Json::as_str).map(str::to_string))?;
            (!same_position(&r.positions[k].to_fen(), &fen)).then_some(fen)
        };
        let (mut good, mut bad, mut bad_fen) = (None, ply, fsf_fen.to_string());
        if let Some(fen) = differing_fen(self, 0) {
            bad = 0;
            bad_fen = fen;
        } else {
            good = Some(0);
        }
        while let Some(g) = good {
            if bad - g <= 1 {
                break;
            }
            let middle = (g + bad) / 2;
            match differing_fen(self, middle) {
                Some(fen) => {
                    bad = middle;
                    bad_fen = fen;
                }
                None => good = Some(middle),
            }
        }
        let cause = match bad {
            0 => "the start positions already differ".to_string(),
            k => format!("after the move {}", r.played(k - 1)),
        };
        format!(
            "{}\n  the positions differ ({cause}): {}\n  ours {}\n  FSF  {bad_fen}",
            r.context(bad),
            fen_difference(&r.positions[bad].to_fen(), &bad_fen),
            r.positions[bad].to_fen()
        )
    }
}

fn ordinal(n: usize) -> String {
    match n {
        2 => "second".to_string(),
        3 => "third".to_string(),
        4 => "fourth".to_string(),
        n => format!("{n}th"),
    }
}

/// The move as Fairy-Stockfish's SAN (Hodges, numeric squares) writes it, from our board:
/// piece, `-`/`x`/`*`, file and rank numbers, `+` when it promotes; and the start square in
/// those numbers, which the SAN adds when two pieces could make the move.
fn our_san(position: &Position<u64>, mv: Move) -> (String, Option<String>) {
    let hodges = |usi_square: &str| {
        let b = usi_square.as_bytes();
        format!("{}{}", b[0] as char, b[1] - b'a' + 1)
    };
    let usi = position.to_usi(mv);
    match mv.kind() {
        MoveKind::Normal { from, to, promote } => {
            let piece = position
                .piece_at(from)
                .map_or("?", |p| tori::spec().role(p.role).sfen);
            let action = if position.piece_at(to).is_some() {
                'x'
            } else {
                '-'
            };
            let promotion = if promote { "+" } else { "" };
            (
                format!("{piece}{action}{}{promotion}", hodges(&usi[2..4])),
                Some(hodges(&usi[0..2])),
            )
        }
        MoveKind::Drop { role, .. } | MoveKind::Exchange { role, .. } => {
            let square = usi.split_once('*').map_or("", |(_, s)| s);
            (
                format!("{}*{}", tori::spec().role(role).sfen, hodges(square)),
                None,
            )
        }
    }
}

/// Drops the start square Fairy-Stockfish adds to tell two pieces apart (`C37-46`) when it is
/// the square our move starts from; anything else is left for the comparison to reject.
fn strip_disambiguation(san: &str, from: Option<&str>) -> String {
    let piece_len = if san.starts_with('+') { 2 } else { 1 };
    match (san.get(..piece_len), san.get(piece_len..)) {
        (Some(piece), Some(rest)) if from.is_some_and(|f| rest.starts_with(f)) => {
            let after = &rest[2..];
            if after.starts_with(['-', 'x']) {
                return format!("{piece}{after}");
            }
            san.to_string()
        }
        _ => san.to_string(),
    }
}

/// Which positions of a game get the full comparison.
fn full_plies(record: &Record, rng: &mut StdRng, everything: bool) -> BTreeSet<usize> {
    let n = record.plies();
    if everything {
        return (0..=n).collect();
    }
    let tail_start = (n + 1).saturating_sub(TAIL_CHECKED);
    let mut plies: BTreeSet<usize> = (tail_start..=n).collect();
    for _ in 0..SAMPLED_CHECKED.min(tail_start) {
        plies.insert(rng.gen_range(0..tail_start));
    }
    plies
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Scripted positions for the endings random play rarely reaches, every ply compared in full.
#[test]
fn scripted_endings_agree_with_fairy_stockfish() {
    let scripts: [(&str, &str, &[&str]); 6] = [
        (
            "gote to move and stalemated at the start",
            "k6/2C4/SS5/7/7/7/3K3[] b - - 0 1",
            &[],
        ),
        (
            "a swallow drop that stalemates without check",
            "k6/2C4/1S5/7/7/7/3K3[S] w - - 0 1",
            &["S*7c"],
        ),
        (
            "a swallow drop that mates (the dropper loses)",
            "2sks2/2s1s2/3S3/7/7/7/3K3[S] w - - 0 1",
            &["S*4b"],
        ),
        (
            "a crane drop that mates",
            "2sks2/2s1s2/3S3/7/7/7/3K3[C] w - - 0 1",
            &["C*4b"],
        ),
        (
            "a swallow drop check that is not mate",
            "2sks2/2s1s2/7/7/7/7/3K3[S] w - - 0 1",
            &["S*4b", "4a4b", "4g4f"],
        ),
        (
            "falcons shuffling to a fourth occurrence",
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w - - 0 1",
            &[
                "4f5f", "4b5b", "5f4f", "5b4b", "4f5f", "4b5b", "5f4f", "5b4b", "4f5f", "4b5b",
                "5f4f", "5b4b",
            ],
        ),
    ];
    let mut oracle = Oracle::start();
    let mut tally = Tally::default();
    for (label, fen, moves) in scripts {
        let record = play_script(label, fen, moves);
        let full = (0..=record.plies()).collect();
        Checker {
            oracle: &mut oracle,
            record: &record,
            tally: &mut tally,
        }
        .run(&full)
        .unwrap_or_else(|message| panic!("{message}"));
    }
    assert_eq!(
        (
            tally.stalemate,
            tally.drop_mate,
            tally.checkmate,
            tally.repetition,
            tally.capped
        ),
        (2, 1, 1, 1, 1),
        "scripted endings compared: {tally:?}"
    );
}

/// Tells the other workers to stop when this one panics (say, the oracle died), instead of
/// letting them play their remaining games first.
struct StopOnPanic(Arc<AtomicBool>);

impl Drop for StopOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn random_games_agree_with_fairy_stockfish() {
    let games = std::env::var("TSUBAME_PYFFISH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(GAMES);
    let everything = env_flag("TSUBAME_PYFFISH_FULL");
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(games.max(1));
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let failures = Arc::new(Mutex::new(Vec::<(u64, String)>::new()));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (next, stop, failures) = (next.clone(), stop.clone(), failures.clone());
            std::thread::spawn(move || {
                let _stop_all = StopOnPanic(stop.clone());
                let mut oracle = Oracle::start();
                let mut tally = Tally::default();
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    let seed = BASE_SEED + index as u64;
                    let record = play_random(seed);
                    // Separate from the game's own stream so the sample does not change games.
                    let mut sampler = StdRng::seed_from_u64(!seed);
                    let full = full_plies(&record, &mut sampler, everything);
                    let result = Checker {
                        oracle: &mut oracle,
                        record: &record,
                        tally: &mut tally,
                    }
                    .run(&full);
                    if let Err(message) = result {
                        failures.lock().unwrap().push((seed, message));
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                tally.oracle_calls = oracle.calls;
                tally
            })
        })
        .collect();
    let mut tally = Tally::default();
    for handle in handles {
        match handle.join() {
            Ok(part) => tally.add(&part),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    let mut failures = failures.lock().unwrap();
    failures.sort();
    if let Some((_, message)) = failures.first() {
        panic!(
            "our Tori rules and Fairy-Stockfish disagree ({} game(s) failed; the first):\n{message}",
            failures.len()
        );
    }
    println!(
        "{} games, {} plies, {} positions compared in full, {} more legal move sets compared, {} \
         repetition checks, {} pyffish calls, {} workers, {:.1} s",
        tally.games,
        tally.plies,
        tally.full_checks,
        tally.legal_checks,
        tally.repetition_checks,
        tally.oracle_calls,
        workers,
        started.elapsed().as_secs_f64()
    );
    println!(
        "endings compared: {} checkmate, {} stalemate, {} drop mate, {} repetition, {} perpetual \
         check by the player completing the cycle, {} perpetual check by the other player, {} \
         capped at {MAX_PLIES} plies; {} cycles with checks by both players (FSF draws, not \
         compared)",
        tally.checkmate,
        tally.stalemate,
        tally.drop_mate,
        tally.repetition,
        tally.perpetual_by_mover,
        tally.perpetual_by_opponent,
        tally.capped,
        tally.both_checked
    );
    assert_eq!(tally.games, games, "every game was compared");
    assert_eq!(
        tally.full_checks + tally.legal_checks,
        tally.plies + tally.games,
        "every position's legal moves were compared"
    );
    if games >= GAMES {
        // Coverage: the comparison is only worth something if these endings keep occurring.
        // The games are seeded, so these counts only change when the rules or the game policies
        // do; the scripted test covers each ending deliberately as well.
        let minimums = [
            ("checkmate", tally.checkmate, 30),
            ("drop mate", tally.drop_mate, 5),
            ("repetition", tally.repetition, 40),
            (
                "perpetual check by the player completing the cycle",
                tally.perpetual_by_mover,
                4,
            ),
            (
                "perpetual check by the other player",
                tally.perpetual_by_opponent,
                2,
            ),
            ("capped", tally.capped, 40),
        ];
        for (what, count, minimum) in minimums {
            assert!(
                count >= minimum,
                "only {count} {what} endings compared, expected at least {minimum}: {tally:?}"
            );
        }
    }
}
