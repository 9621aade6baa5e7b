//! Drives the real `tsubame engine usi|uci|xboard` binary: whole short games per variant with
//! every move checked by the rules library, malformed commands answered with an error while the
//! engine keeps working, stop/ponder behaviour, and over XBoard `lift`, results, and a game
//! against HaChu.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};
use tsubame_rules::{Game, Options, Status, tori, wa};

struct Engine {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        Engine::start_with("usi")
    }

    fn start_with(protocol: &str) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tsubame"));
        command.args(["engine", protocol]);
        Engine::spawn(command)
    }

    fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the engine");
        let input = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            input,
            lines,
        }
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        self.input.write_all(bytes).expect("write to engine");
        self.input.flush().expect("flush");
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("write to engine");
        self.input.flush().expect("flush");
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no {prefix:?} from the engine; got {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// Sends `usi` and gives the engine's lines up to `usiok`: its name and options.
    fn usi(&mut self) -> Vec<String> {
        self.send("usi");
        self.until("usiok")
    }

    /// Sends `quit` and checks that the engine exits, and cleanly.
    fn quit(&mut self) {
        self.send("quit");
        let status = self.child.wait().expect("the engine exits on quit");
        assert!(status.success(), "{status}");
    }

    /// Sends the game so far from the start and `go`, and gives the engine's move, checking
    /// that it reported its search.
    fn best_move(&mut self, moves: &[String], go: &str) -> String {
        if moves.is_empty() {
            self.send("position startpos");
        } else {
            self.send(&format!("position startpos moves {}", moves.join(" ")));
        }
        self.send(go);
        let lines = self.until("bestmove");
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")),
            "{lines:?}"
        );
        lines
            .last()
            .and_then(|line| line.split_whitespace().nth(1))
            .unwrap_or_else(|| panic!("no move in {lines:?}"))
            .to_string()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn play_game<B: tsubame_rules::Bitboard>(
    variant: &str,
    tables: &'static tsubame_rules::Tables<B>,
    options: &[(&str, &str)],
    plies: usize,
) {
    let mut engine = Engine::start();
    let hello = engine.usi();
    assert!(hello.iter().any(|l| l.starts_with("id name Tsubame")));
    assert!(
        hello
            .iter()
            .any(|l| l.contains("option name USI_Variant type combo"))
    );
    engine.send(&format!("setoption name USI_Variant value {variant}"));
    let mut rule_options = Options::defaults(tables.spec);
    for (name, value) in options {
        engine.send(&format!("setoption name {name} value {value}"));
        rule_options.set(name, value).unwrap();
    }
    engine.send("isready");
    engine.until("readyok");
    engine.send("usinewgame");
    let mut game = Game::new(tables, rule_options).unwrap();
    let mut moves: Vec<String> = Vec::new();
    while game.status() == Status::Ongoing && moves.len() < plies {
        let best = engine.best_move(&moves, "go nodes 3000");
        game.play_usi(&best)
            .unwrap_or_else(|e| panic!("{variant}: engine played {best}: {e}"));
        moves.push(best);
    }
    engine.quit();
}

#[test]
fn a_short_tori_game_with_every_move_legal() {
    play_game("torishogi", tori::tables(), &[], 40);
}

#[test]
fn a_tori_handicap_game_with_options() {
    play_game(
        "torishogi",
        tori::tables(),
        &[("handicap", "falcon"), ("drop-mate", "illegal")],
        20,
    );
}

#[test]
fn a_short_wa_game_with_every_move_legal() {
    play_game("washogi", wa::tables(), &[("drops", "off")], 30);
}

#[test]
fn a_short_tenjiku_game_with_every_move_legal() {
    use tsubame_rules::tenjiku::{self, TenjikuGame};
    let mut engine = Engine::start();
    let hello = engine.usi();
    assert!(hello.iter().any(|l| l.contains("var tenjiku")));
    assert!(
        hello
            .iter()
            .any(|l| l.starts_with("option name lion-hawk type combo"))
    );
    assert_eq!(
        hello
            .iter()
            .filter(|l| l.starts_with("option name max-plies "))
            .count(),
        1,
        "an option shared by two games is announced once"
    );
    engine.send("setoption name USI_Variant value tenjiku");
    engine.send("setoption name demon-conflict value adams");
    engine.send("isready");
    engine.until("readyok");
    engine.send("usinewgame");
    let options = Options::parse(tenjiku::spec(), "demon-conflict=adams").unwrap();
    let mut game = TenjikuGame::new(options);
    let mut moves: Vec<String> = Vec::new();
    while game.status() == Status::Ongoing && moves.len() < 16 {
        let best = engine.best_move(&moves, "go nodes 2000");
        game.play_usi(&best)
            .unwrap_or_else(|e| panic!("tenjiku: engine played {best}: {e}"));
        moves.push(best);
    }
    // A malformed position or a repetition is refused with a reason, and the engine goes on.
    engine.send("position sfen 16/16 b - 1");
    engine.send("position startpos moves 9o9o 8b8b");
    engine.send("isready");
    let lines = engine.until("readyok");
    assert!(
        lines.iter().any(|l| l.contains("Tenjiku has 16")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("repeating is illegal")),
        "{lines:?}"
    );
    engine.quit();
}

#[test]
fn malformed_commands_get_an_error_and_the_engine_goes_on() {
    let mut engine = Engine::start();
    let bad = [
        ("bogus", "unknown command"),
        ("position", "position needs"),
        ("position sfen", "position needs"),
        ("position sfen 7/7/7 b - 1", "bad position"),
        ("position startpos moves 9z9y", "bad move"),
        ("position startpos moves 4g4a", "bad move"),
        ("go depth", "needs a number"),
        ("go nodes -5", "is not a number"),
        ("go sideways", "unknown go argument"),
        ("setoption", "setoption needs"),
        ("setoption name USI_Variant value chess", "unknown variant"),
        ("setoption name USI_Hash value lots", "is not a number"),
        ("setoption name USI_Hash value 0", "out of range"),
        ("setoption name owl value maybe", "has no value"),
        ("setoption name colour value red", "unknown option"),
        (
            "setoption name Evaluation value sideways",
            "not classical, nnue or material",
        ),
        (
            "setoption name EvalFile value /nonexistent/tori.nnue",
            "/nonexistent/tori.nnue",
        ),
        (
            "setoption name SearchParams value futility_margin=9999",
            "search parameters: futility_margin=9999 is out of its range 0..=600",
        ),
        (
            "setoption name SearchParams value depth=3",
            "no search parameter is called \"depth\"",
        ),
        ("ponderhit", "without a ponder search"),
    ];
    for (command, expected) in bad {
        engine.send(command);
        engine.send("isready");
        let lines = engine.until("readyok");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error") && l.contains(expected)),
            "{command:?}: {lines:?}"
        );
    }
    // A bad position leaves the previous one in place.
    engine.send("position startpos moves 3d3c");
    engine.send("position sfen nonsense b - 1");
    engine.send("d");
    let lines = engine.until("info string sfen");
    assert!(
        lines
            .last()
            .unwrap()
            .ends_with("rpckcpl/3f3/ssssSss/2s4/SSSSSSS/3F3/LPCKCPR w S 2"),
        "{lines:?}"
    );
    engine.send("go depth 2");
    engine.until("bestmove");
}

/// Resident memory of a running process in KiB, from `/proc` (Linux).
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS line")
}

/// A GUI sends `position` before every move: with a Tenjiku move limit set, each one used to
/// build and leak a new move-generation rulebook (about 23 KB), so a long session grew without
/// bound.
#[test]
fn tenjiku_position_commands_with_a_move_limit_keep_memory_flat() {
    let mut engine = Engine::start();
    engine.send("setoption name USI_Variant value tenjiku");
    engine.send("setoption name max-plies value 300");
    engine.send("isready");
    engine.until("readyok");
    let lines_of_play = [
        "position startpos",
        "position startpos moves 9l9k",
        "position startpos moves 9l9k 8e8f",
        "position startpos moves 9l9k 8e8f 7l7k",
    ];
    let send_positions = |engine: &mut Engine, count: usize| {
        for i in 0..count {
            engine.send(lines_of_play[i % lines_of_play.len()]);
            if i % 100 == 99 {
                engine.send("isready");
                engine.until("readyok");
            }
        }
        engine.send("isready");
        engine.until("readyok");
    };
    // The first few hundred settle the allocator and the shared tables.
    send_positions(&mut engine, 200);
    let before = resident_kib(engine.child.id());
    send_positions(&mut engine, 2000);
    let after = resident_kib(engine.child.id());
    // 2,000 leaked rulebooks would be about 46 MB; allow a little allocator noise.
    assert!(
        after <= before + 4 * 1024,
        "resident memory grew from {before} KiB to {after} KiB over 2,000 position commands"
    );
    engine.send("d");
    let lines = engine.until("info string sfen");
    assert!(lines.iter().any(|l| l.contains(" w - 4")), "{lines:?}");
}

#[test]
fn infinite_and_ponder_searches_wait_for_stop() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("isready");
    let lines = engine.until("readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    engine.send("stop");
    engine.until("bestmove");
    engine.send("go ponder byoyomi 300");
    std::thread::sleep(Duration::from_millis(200));
    engine.send("ponderhit");
    let lines = engine.until("bestmove");
    assert!(lines.last().unwrap().len() > "bestmove ".len());
}

/// A fixed move time is a promise to think that long: the answer may come a few milliseconds
/// early, never a large share of the time (it once came after 140 of 200 ms).
#[test]
fn a_fixed_move_time_is_used() {
    let mut engine = Engine::start();
    engine.send("usi");
    engine.until("usiok");
    engine.send("isready");
    engine.until("readyok");
    for moves in ["", " moves 5e5d", " moves 5e5d 3c3d"] {
        engine.send(&format!("position startpos{moves}"));
        let asked = Instant::now();
        engine.send("go movetime 300");
        engine.until("bestmove");
        let took = asked.elapsed();
        assert!(
            took >= Duration::from_millis(280),
            "answered after {took:?}"
        );
    }
}

/// The `Level` option holds every search to the play server's computer levels: level 2 keeps
/// to its thousand nodes even when given a long clock, answers at once, and searches its four
/// best moves to choose among; the weakest level does not always play the same move;
/// levels beyond 8 are refused.
#[test]
fn a_level_holds_the_search_to_its_nodes_and_chooses_among_its_best_moves() {
    let mut engine = Engine::start();
    let options = engine.usi();
    assert!(
        options
            .iter()
            .any(|l| l == "option name Level type spin default 0 min 0 max 8")
    );
    engine.send("setoption name Level value 2");
    engine.send("isready");
    engine.until("readyok");
    engine.send("position startpos");
    let asked = Instant::now();
    engine.send("go btime 600000 wtime 600000 byoyomi 10000");
    let lines = engine.until("bestmove");
    let took = asked.elapsed();
    let most_nodes = lines
        .iter()
        .filter_map(|l| {
            l.split(" nodes ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap_or(u64::MAX);
    assert!(most_nodes <= 1000 + 16, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains(" multipv 4 ")),
        "four lines to choose among: {lines:?}"
    );
    assert!(took < Duration::from_millis(300), "answered after {took:?}");
    // The weakest level strays: over twenty searches of one position, more than one move.
    engine.send("setoption name Level value 1");
    let mut chosen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        engine.send("position startpos moves 5e5d 5c5d 4g5f");
        engine.send("go btime 600000 wtime 600000 byoyomi 10000");
        let lines = engine.until("bestmove");
        if let Some(last) = lines.last() {
            chosen.insert(
                last.split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    assert!(chosen.len() > 1, "level 1 always played {chosen:?}");
    engine.send("setoption name Level value 9");
    engine.send("isready");
    let lines = engine.until("readyok");
    assert!(
        lines.iter().any(|l| l.contains("level (0 to 8)")),
        "{lines:?}"
    );
}

/// The nodes of a fixed-depth search from the start position.
fn nodes_to_depth(engine: &mut Engine, depth: u32) -> u64 {
    engine.send("usinewgame");
    engine.send("position startpos");
    engine.send(&format!("go depth {depth}"));
    let lines = engine.until("bestmove");
    lines
        .iter()
        .rev()
        .filter(|l| l.starts_with(&format!("info depth {depth} ")))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            words.find(|w| *w == "nodes")?;
            words.next()?.parse().ok()
        })
        .next()
        .unwrap_or_else(|| panic!("no depth {depth} report: {lines:?}"))
}

/// The `SearchParams` option changes the search's margins: another late-move pruning searches
/// another tree to the same depth, the same one each time, and `<empty>` brings back the
/// defaults, node for node.
#[test]
fn search_params_change_the_search_and_reset() {
    let mut engine = Engine::start();
    let options = engine.usi();
    assert!(
        options
            .iter()
            .any(|l| l == "option name SearchParams type string default <empty>")
    );
    let default = nodes_to_depth(&mut engine, 7);
    engine.send(
        "setoption name SearchParams value late_move_depth=6 late_move_base=1 late_move_scale=0 \
         late_move_improving_base=1 late_move_improving_scale=0",
    );
    let bolder = nodes_to_depth(&mut engine, 7);
    assert_ne!(bolder, default);
    assert_eq!(nodes_to_depth(&mut engine, 7), bolder);
    engine.send("setoption name SearchParams value <empty>");
    assert_eq!(nodes_to_depth(&mut engine, 7), default);
}

/// MultiPV: each depth reports that many lines, numbered, best first, each starting with a
/// different move; the best move is the first line's.
#[test]
fn multipv_reports_the_best_lines_of_each_depth() {
    let mut engine = Engine::start();
    let options = engine.usi();
    assert!(
        options
            .iter()
            .any(|l| l == "option name MultiPV type spin default 1 min 1 max 500")
    );
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos");
    engine.send("go depth 4");
    let lines = engine.until("bestmove");
    let at_four: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 4 "))
        .collect();
    assert_eq!(at_four.len(), 3, "{lines:?}");
    let mut firsts = Vec::new();
    for (index, line) in at_four.iter().enumerate() {
        assert!(line.contains(&format!(" multipv {} ", index + 1)), "{line}");
        let first = line
            .split(" pv ")
            .nth(1)
            .and_then(|pv| pv.split_whitespace().next());
        firsts.push(first.expect("a pv").to_string());
    }
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{at_four:?}");
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    assert_eq!(best, firsts[0]);
    engine.send("setoption name MultiPV value 0");
    engine.send("isready");
    let lines = engine.until("readyok");
    assert!(
        lines.iter().any(|l| l.contains("line count (1 to 500)")),
        "{lines:?}"
    );
}

#[test]
fn a_mated_side_resigns() {
    let mut engine = Engine::start();
    engine.send("position sfen 5sk/5sF/6C/7/7/7/K6 w - 1");
    engine.send("go depth 3");
    let lines = engine.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove resign");
}

/// USI's `go mate`: `checkmate <moves>` with a mate by checks, `checkmate nomate` without one,
/// `checkmate timeout` when the time runs out or `stop` comes first.
#[test]
fn go_mate_answers_checkmate() {
    let mut engine = Engine::start();
    engine.send("usi");
    engine.until("usiok");
    engine.send("position sfen 5sk/5s1/6C/7/7/7/K6 b F 1");
    engine.send("go mate 2000");
    assert_eq!(engine.until("checkmate").last().unwrap(), "checkmate F*1b");
    // The start position has no check at all.
    engine.send("position startpos");
    engine.send("go mate infinite");
    assert_eq!(
        engine.until("checkmate").last().unwrap(),
        "checkmate nomate"
    );
    // A mate of fifteen moves takes longer than 50 ms to find.
    let deep = "k1P1CR1/5L1/sPSsP1S/1SL3s/4p+f1/1C2rf1/1K5 w 2c10s 180";
    engine.send(&format!("position sfen {deep}"));
    engine.send("go mate 50");
    assert_eq!(
        engine.until("checkmate").last().unwrap(),
        "checkmate timeout"
    );
    engine.send("go mate infinite");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("stop");
    assert_eq!(
        engine.until("checkmate").last().unwrap(),
        "checkmate timeout"
    );
    // A mate of three: five moves, each attacker move a check, the last one mating.
    engine.send("position sfen F6/1c+S1f1l/ks1s1ps/P1S4/3S2S/2C1S2/4K1R b CPR4Scpl4s 73");
    engine.send("go mate 5000");
    let answer = engine.until("checkmate").last().unwrap().clone();
    let line: Vec<&str> = answer.split_whitespace().skip(1).collect();
    assert_eq!(line.len(), 5, "{answer}");
    let options = Options::defaults(tori::spec());
    let mut game = Game::from_sfen(
        tori::tables(),
        "F6/1c+S1f1l/ks1s1ps/P1S4/3S2S/2C1S2/4K1R b CPR4Scpl4s 73",
        options,
    )
    .expect("position");
    for usi in &line {
        game.play_usi(usi).expect("a legal move");
    }
    assert!(
        matches!(game.status(), Status::Finished(o) if o.reason == tsubame_rules::EndReason::Checkmate)
    );
    engine.send("go mate soon");
    let lines = engine.until("info string error");
    assert!(lines.last().unwrap().contains("not a number"), "{lines:?}");
}

/// UCI in Fairy-Stockfish's conventions: a whole Tori game from its FEN with its move text.
#[test]
fn a_uci_game_in_fairy_stockfish_conventions() {
    use tsubame_protocol::coords::{chess_to_usi, usi_to_chess};
    let mut engine = Engine::start_with("uci");
    engine.send("uci");
    let hello = engine.until("uciok");
    assert!(
        hello
            .iter()
            .any(|l| l.contains("option name UCI_Variant type combo"))
    );
    engine.send("setoption name UCI_Variant value torishogi");
    engine.send("ucinewgame");
    let fen = "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[-] w 0 1";
    let mut game = Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
    let mut moves: Vec<String> = Vec::new();
    while game.status() == Status::Ongoing && moves.len() < 30 {
        engine.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        engine.send("go wtime 2000 btime 2000 winc 50 binc 50 nodes 2000");
        let lines = engine.until("bestmove");
        let best = lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        let usi = chess_to_usi(&best, 7, 7).unwrap_or_else(|| panic!("not a move: {best}"));
        assert_eq!(usi_to_chess(&usi, 7, 7).as_deref(), Some(best.as_str()));
        game.play_usi(&usi)
            .unwrap_or_else(|e| panic!("engine played {best} ({usi}): {e}"));
        moves.push(best);
    }
    engine.send("position startpos moves e4e5");
    engine.send("d");
    let lines = engine.until("info string sfen");
    assert!(
        lines
            .last()
            .unwrap()
            .ends_with("rpckcpl/3f3/ssssSss/2s4/SSSSSSS/3F3/LPCKCPR w S 2")
    );
    engine.send("position startpos moves 3d3c");
    engine.send("isready");
    let lines = engine.until("readyok");
    assert!(
        lines.iter().any(|l| l.contains("error: bad move")),
        "{lines:?}"
    );
    engine.send("position fen 5sk/5sF/6C/7/7/7/K6[] b - - 0 1");
    engine.send("go depth 2");
    assert_eq!(engine.until("bestmove").last().unwrap(), "bestmove (none)");
}

// ---------------------------------------------------------------------------------------------
// XBoard.

/// An XBoard session after the handshake, `new`, `variant` and the rule options.
fn xboard_engine(variant: &str, options: &[(&str, &str)]) -> Engine {
    let mut engine = Engine::start_with("xboard");
    engine.send("xboard");
    engine.send("protover 2");
    let features = engine.until("feature done=1");
    for expected in [
        "setboard=1",
        "usermove=1",
        "ping=1",
        "highlight=1",
        "myname=\"Tsubame ",
        "variants=\"wa-shogi,torishogi,tenjiku\"",
    ] {
        assert!(
            features.iter().any(|l| l.contains(expected)),
            "{expected}: {features:?}"
        );
    }
    for expected in [
        "feature option=\"drop-mate -combo loses /// illegal\"",
        "feature option=\"max-plies -string off\"",
        "feature option=\"drops -combo on /// off\"",
    ] {
        assert!(features.iter().any(|l| l == expected), "{features:?}");
    }
    engine.send("new");
    engine.send(&format!("variant {variant}"));
    for (name, value) in options {
        engine.send(&format!("option {name}={value}"));
    }
    engine
}

/// Sends `ping` and returns the lines up to its `pong`.
fn ping(engine: &mut Engine, n: usize) -> Vec<String> {
    engine.send(&format!("ping {n}"));
    engine.until(&format!("pong {n}"))
}

/// Sends each XBoard command and checks that the answer before the next `pong` has a line
/// starting as expected.
fn each_refused_with(engine: &mut Engine, bad: &[(&str, &str)]) {
    for (n, (command, expected)) in bad.iter().enumerate() {
        engine.send(command);
        let lines = ping(engine, n);
        assert!(
            lines.iter().any(|l| l.starts_with(expected)),
            "{command:?}: {lines:?}"
        );
    }
}

/// Plays the engine's `move` line (the last of `lines`) in `game`.
fn engine_move<B: tsubame_rules::Bitboard>(game: &mut Game<B>, lines: &[String]) {
    use tsubame_protocol::coords::chess_to_usi;
    let spec = game.position().tables().spec;
    let text = lines
        .last()
        .and_then(|l| l.strip_prefix("move "))
        .unwrap_or_else(|| panic!("no move in {lines:?}"));
    let usi =
        chess_to_usi(text, spec.width, spec.height).unwrap_or_else(|| panic!("not a move: {text}"));
    game.play_usi(&usi)
        .unwrap_or_else(|e| panic!("engine played {text} ({usi}): {e}"));
}

/// Our move for the user, in XBoard's text: a different legal move each time.
fn user_move<B: tsubame_rules::Bitboard>(game: &mut Game<B>, seed: usize) -> String {
    use tsubame_protocol::coords::usi_to_chess;
    let spec = game.position().tables().spec;
    let mut moves: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|m| game.position().to_usi(m))
        .collect();
    moves.sort();
    let usi = moves[(seed * 7919 + 13) % moves.len()].clone();
    game.play_usi(&usi).unwrap();
    usi_to_chess(&usi, spec.width, spec.height).unwrap()
}

/// Whether `lines` hold a result line agreeing with the game's end.
fn has_result(lines: &[String]) -> bool {
    lines
        .iter()
        .any(|l| l.starts_with("1-0 {") || l.starts_with("0-1 {") || l.starts_with("1/2-1/2 {"))
}

/// A game over XBoard: user moves from our legal moves in force mode, `go` for the engine, and
/// user moves the engine answers by itself; every engine move checked by the rules.
fn xboard_game<B: tsubame_rules::Bitboard>(
    variant: &str,
    tables: &'static tsubame_rules::Tables<B>,
    options: &[(&str, &str)],
    plies: usize,
) {
    let mut engine = xboard_engine(variant, options);
    let mut rule_options = Options::defaults(tables.spec);
    for (name, value) in options {
        rule_options.set(name, value).unwrap();
    }
    engine.send("force");
    engine.send("sd 2");
    let mut game = Game::new(tables, rule_options).unwrap();
    let mut step = 0;
    while game.status() == Status::Ongoing && game.moves().len() < plies {
        step += 1;
        let lines = match step % 3 {
            2 => {
                engine.send("go");
                let lines = engine.until("move ");
                engine_move(&mut game, &lines);
                lines
            }
            1 => {
                let text = user_move(&mut game, step);
                engine.send(&format!("usermove {text}"));
                vec![text]
            }
            _ => {
                // Out of force mode since `go`: the engine answers a user move by itself.
                let text = user_move(&mut game, step);
                engine.send(&format!("usermove {text}"));
                if game.status() == Status::Ongoing {
                    let lines = engine.until("move ");
                    engine_move(&mut game, &lines);
                }
                engine.send("force");
                vec![text]
            }
        };
        let pong = ping(&mut engine, step);
        assert!(
            !pong
                .iter()
                .any(|l| l.starts_with("Illegal") || l.starts_with("Error")),
            "{variant} after {lines:?}: {pong:?}"
        );
        if game.status() != Status::Ongoing {
            assert!(has_result(&pong), "{:?}: {pong:?}", game.status());
        }
    }
    assert!(game.moves().len() >= plies.min(10), "{:?}", game.status());
    engine.quit();
}

#[test]
fn an_xboard_tori_game_with_every_move_legal() {
    xboard_game("torishogi", tori::tables(), &[], 40);
}

#[test]
fn an_xboard_wa_game_without_drops() {
    xboard_game("wa-shogi", wa::tables(), &[("drops", "off")], 40);
}

#[test]
fn xboard_setboard_with_a_mate_gives_the_result() {
    let mut engine = xboard_engine("tori", &[]);
    engine.send("force");
    engine.send("setboard 5sk/5sF/6C/7/7/7/K6[] b - - 0 1");
    let lines = ping(&mut engine, 1);
    assert!(lines.iter().any(|l| l == "1-0 {Sente mates}"), "{lines:?}");
    engine.send("go");
    let lines = ping(&mut engine, 2);
    assert!(lines.iter().any(|l| l == "1-0 {Sente mates}"), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    // A board-only setboard leaves sente to move; the engine finds a mate in one.
    let board = "5sk/5s1/5FC/7/7/7/K6";
    let position = tsubame_rules::Position::from_fen(
        tori::tables(),
        &format!("{board} w"),
        Options::defaults(tori::spec()).rule_set(),
    )
    .unwrap();
    let game = Game::from_position(position, Options::defaults(tori::spec()));
    let mates: Vec<tsubame_rules::Move> = game
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut after = game.clone();
            after.play(m).unwrap() != Status::Ongoing
        })
        .collect();
    assert!(!mates.is_empty(), "{board} has a mate in one");
    engine.send(&format!("setboard {board}"));
    engine.send("sd 3");
    engine.send("go");
    let lines = engine.until("move ");
    let mut after = game.clone();
    engine_move(&mut after, &lines);
    assert!(matches!(after.status(), Status::Finished(_)), "{lines:?}");
    let lines = ping(&mut engine, 3);
    assert!(lines.iter().any(|l| l == "1-0 {Sente mates}"), "{lines:?}");
}

#[test]
fn xboard_lift_agrees_with_the_rules_in_the_wa_start_position() {
    use tsubame_protocol::coords::{chess_to_usi, usi_to_chess};
    let mut engine = xboard_engine("wa-shogi", &[("drops", "off")]);
    engine.send("force");
    let game = Game::new(
        wa::tables(),
        Options::parse(wa::spec(), "drops=off").unwrap(),
    )
    .unwrap();
    let moves: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|m| game.position().to_usi(m))
        .collect();
    let mut lit = 0;
    for (n, square) in ["h3", "b3", "c2", "f1", "a1", "e3", "d9", "f6"]
        .into_iter()
        .enumerate()
    {
        engine.send(&format!("lift {square}"));
        let line = engine.until("highlight ").pop().unwrap();
        let board = line.strip_prefix("highlight ").unwrap();
        let ranks: Vec<&str> = board.split('/').collect();
        assert_eq!(ranks.len(), 11, "{line}");
        let mut shown = Vec::new();
        for (row, text) in ranks.iter().enumerate() {
            let mut file = 0u8;
            let mut digits = String::new();
            for c in text.chars() {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                file += digits.parse::<u8>().unwrap_or(0);
                digits.clear();
                assert_eq!(c, 'Y', "nothing to capture or promote at the start: {line}");
                shown.push(format!("{}{}", (b'a' + file) as char, 11 - row));
                file += 1;
            }
            file += digits.parse::<u8>().unwrap_or(0);
            assert_eq!(file, 11, "{line}");
        }
        shown.sort();
        let from = chess_to_usi(&format!("{square}{square}"), 11, 11).unwrap();
        let mut expected: Vec<String> = moves
            .iter()
            .filter(|m| m.starts_with(&from[..from.len() / 2]))
            .map(|m| {
                let chess = usi_to_chess(m, 11, 11).unwrap();
                chess[square.len()..].to_string()
            })
            .collect();
        expected.sort();
        assert_eq!(shown, expected, "lift {square}");
        lit += shown.len();
        ping(&mut engine, n);
    }
    assert!(lit > 8, "the squares chosen have moves");
    // HaChu's answers for the same position.
    engine.send("lift h3");
    assert_eq!(
        engine.until("highlight").pop().unwrap(),
        "highlight 11/11/11/11/11/11/11/6Y1Y2/11/6YYY2/11"
    );
}

#[test]
fn xboard_malformed_input_gets_an_error_and_the_engine_goes_on() {
    let mut engine = xboard_engine("tori", &[]);
    engine.send("force");
    let bad = [
        ("bogus", "Error (unknown command): bogus"),
        ("usermove z9z9", "Illegal move (not a move): z9z9"),
        ("usermove e3e6", "Illegal move ("),
        ("usermove", "Illegal move (not a move)"),
        ("e3e6", "Illegal move ("),
        ("setboard nonsense", "Error (bad position"),
        ("setboard 7/7/7 w", "Error (bad position"),
        ("level 40 x 0", "Error (base time"),
        ("level 40 5", "Error (level needs"),
        ("level 40 5 fast", "Error ("),
        (
            "variant chess",
            "Error (unsupported variant): variant chess",
        ),
        ("option owl=maybe", "Error ("),
        ("option colour=red", "Error (unknown option"),
        ("memory lots", "Error ("),
        ("sd", "Error ("),
        ("lift z1", "Error (bad square"),
    ];
    each_refused_with(&mut engine, &bad);
    // Still playing: a legal move is taken and the engine answers one.
    engine.send("usermove e4e5");
    engine.send("level 40 0:30 0");
    engine.send("time 3000");
    engine.send("otim 3000");
    engine.send("go");
    let lines = engine.until("move ");
    let mut game = Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
    game.play_usi("3d3c").unwrap();
    engine_move(&mut game, &lines);
}

/// The XBoard text of a Tenjiku move, as the engine writes it.
fn tenjiku_xboard_text(
    game: &tsubame_rules::tenjiku::TenjikuGame,
    mv: tsubame_rules::Move,
) -> String {
    use tsubame_protocol::coords::usi_to_xboard;
    use tsubame_protocol::session::pass_via;
    let position = game.position();
    let from = mv.from().unwrap_or(mv.to());
    let via = (mv.to() == from && mv.middle().is_none())
        .then(|| pass_via(position, from))
        .flatten()
        .map(|square| position.geometry().name(square).to_string());
    usi_to_xboard(&position.to_usi(mv), 16, 16, via.as_deref()).unwrap()
}

/// Plays the engine's `move` line (the last of `lines`) in a Tenjiku game.
fn tenjiku_engine_move(game: &mut tsubame_rules::tenjiku::TenjikuGame, lines: &[String]) {
    use tsubame_protocol::coords::xboard_to_usi;
    let text = lines
        .last()
        .and_then(|l| l.strip_prefix("move "))
        .unwrap_or_else(|| panic!("no move in {lines:?}"));
    let usi = xboard_to_usi(text, 16, 16).unwrap_or_else(|| panic!("not a move: {text}"));
    let before = game.position().clone();
    let mv = game
        .play_usi(&usi)
        .unwrap_or_else(|e| panic!("engine played {text} ({usi}): {e}"));
    // The engine's text is the one text of that move.
    let mut replay =
        tsubame_rules::tenjiku::TenjikuGame::from_position(before, game.options().clone());
    assert_eq!(tenjiku_xboard_text(&replay, mv), text);
    replay.play(mv).unwrap();
}

/// A short Tenjiku game over XBoard, as [`xboard_game`] plays the others: user moves from the
/// legal moves (lion double moves and igui included when there are some), engine moves by `go`
/// at depth 2, every engine move checked by the rules.
#[test]
fn an_xboard_tenjiku_game_with_every_move_legal() {
    use tsubame_rules::tenjiku::{self, TenjikuGame};
    let mut engine = xboard_engine("tenjiku", &[]);
    engine.send("force");
    engine.send("sd 2");
    engine.send("post");
    let mut game = TenjikuGame::new(Options::defaults(tenjiku::spec()));
    let mut step = 0;
    let mut thought = false;
    while game.status() == Status::Ongoing && game.moves().len() < 24 {
        step += 1;
        if step % 2 == 0 {
            engine.send("go");
            let lines = engine.until("move ");
            thought |= lines.iter().any(|l| {
                l.split_whitespace().count() >= 5 && l.starts_with(|c: char| c.is_ascii_digit())
            });
            tenjiku_engine_move(&mut game, &lines);
            engine.send("force");
        } else {
            let mut moves = game.legal_moves();
            moves.sort_by_key(|&m| game.position().to_usi(m));
            // A move capturing on its way when there is one, else a different move each time.
            let mv = moves
                .iter()
                .copied()
                .find(|m| m.middle().is_some())
                .unwrap_or(moves[(step * 7919 + 13) % moves.len()]);
            let text = tenjiku_xboard_text(&game, mv);
            game.play(mv).unwrap();
            engine.send(&format!("usermove {text}"));
        }
        let pong = ping(&mut engine, step);
        assert!(
            !pong
                .iter()
                .any(|l| l.starts_with("Illegal") || l.starts_with("Error")),
            "tenjiku at step {step}: {pong:?}"
        );
        if game.status() != Status::Ongoing {
            assert!(has_result(&pong), "{:?}: {pong:?}", game.status());
        }
    }
    assert!(game.moves().len() >= 10, "{:?}", game.status());
    assert!(thought, "post gives thinking lines");
    engine.quit();
}

/// The marks of a `highlight` line by XBoard square (`h10`), on a board `size` squares wide.
fn highlight_marks(line: &str, size: u8) -> Vec<(String, char)> {
    let board = line.strip_prefix("highlight ").unwrap();
    let ranks: Vec<&str> = board.split('/').collect();
    assert_eq!(ranks.len(), usize::from(size), "{line}");
    let mut marks = Vec::new();
    for (row, text) in ranks.iter().enumerate() {
        let mut file = 0u8;
        let mut digits = String::new();
        for c in text.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            file += digits.parse::<u8>().unwrap_or(0);
            digits.clear();
            marks.push((
                format!("{}{}", (b'a' + file) as char, usize::from(size) - row),
                c,
            ));
            file += 1;
        }
        file += digits.parse::<u8>().unwrap_or(0);
        assert_eq!(file, size, "{line}");
    }
    marks
}

/// Sente's lion on h9 (USI 9h) in front of two gote pieces on h10 and h11.
const LION_BOARD: &str = "8k7/16/16/16/16/7p8/7p8/7L!8/16/16/16/16/16/16/16/7K8";

#[test]
fn xboard_tenjiku_lion_double_move_igui_and_lift() {
    let mut engine = xboard_engine("tenjiku", &[]);
    engine.send("force");
    engine.send(&format!("setboard {LION_BOARD} w 0 1"));
    // Lifting the lion: its first legs (the pawn it can take and go on from) in cyan, the
    // pawn it can jump to in red.
    engine.send("lift h9");
    let line = engine.until("highlight ").pop().unwrap();
    let marks = highlight_marks(&line, 16);
    assert!(marks.contains(&("h10".into(), 'C')), "{line}");
    assert!(marks.contains(&("h11".into(), 'R')), "{line}");
    assert_eq!(marks.iter().filter(|(_, c)| *c == 'C').count(), 1, "{line}");
    assert_eq!(marks.len(), 24, "the 24 squares within two steps: {line}");
    // Put down on the first leg's square and lifted again: where the second leg may end.
    engine.send("put h10");
    engine.send("lift h10");
    let line = engine.until("highlight ").pop().unwrap();
    let marks = highlight_marks(&line, 16);
    assert!(
        marks.contains(&("h11".into(), 'R')),
        "second capture: {line}"
    );
    assert!(
        marks.contains(&("h9".into(), 'R')),
        "igui, back to the start: {line}"
    );
    assert_eq!(marks.len(), 8, "every neighbour of h10: {line}");
    // The double move, taking both pawns.
    engine.send("usermove h9h10,h10h11");
    let lines = ping(&mut engine, 1);
    assert!(!lines.iter().any(|l| l.starts_with("Illegal")), "{lines:?}");
    engine.send("undo");
    // Igui: the pawn on h10 is taken, the lion stays; then gote's engine reply is legal.
    engine.send("usermove h9h10,h10h9");
    let lines = ping(&mut engine, 2);
    assert!(!lines.iter().any(|l| l.starts_with("Illegal")), "{lines:?}");
    let mut game = tsubame_rules::tenjiku::TenjikuGame::from_sfen(
        &format!("{LION_BOARD} b - 1"),
        Options::defaults(tsubame_rules::tenjiku::spec()),
    )
    .unwrap();
    game.play_usi("9h9g9h").unwrap();
    engine.send("sd 2");
    engine.send("go");
    let lines = engine.until("move ");
    tenjiku_engine_move(&mut game, &lines);
    engine.send("force");
    // HaChu's null move is the lion's pass when it alone may pass.
    engine.send(&format!("setboard {LION_BOARD} w 0 1"));
    engine.send("usermove @@@@");
    let lines = ping(&mut engine, 3);
    assert!(!lines.iter().any(|l| l.starts_with("Illegal")), "{lines:?}");
    // A double move that takes the last royal ends the game.
    engine.send("setboard 16/16/16/16/16/7k8/7p8/7L!8/16/16/16/16/16/16/16/7K8 w");
    engine.send("usermove h9h10,h10h11");
    let lines = ping(&mut engine, 4);
    assert!(lines.iter().any(|l| l.starts_with("1-0 {")), "{lines:?}");
}

#[test]
fn xboard_tenjiku_malformed_moves_are_refused_and_the_engine_goes_on() {
    let mut engine = xboard_engine("tenjiku", &[]);
    engine.send("force");
    engine.send(&format!("setboard {LION_BOARD} w 0 1"));
    let bad = [
        (
            "usermove h9h10,h11h12",
            "Illegal move (not a move): h9h10,h11h12",
        ),
        (
            "usermove h9h10,h10q11",
            "Illegal move (not a move): h9h10,h10q11",
        ),
        ("usermove h9h10,h10h17", "Illegal move (not a move)"),
        ("usermove h9h10,h10h11,h11h12", "Illegal move (not a move)"),
        ("usermove h9h10,", "Illegal move (not a move)"),
        ("usermove ,h10h11", "Illegal move (not a move)"),
        ("usermove h9h10,h10h11=+", "Illegal move (not a move)"),
        ("usermove h9h10,h10h13", "Illegal move ("),
        ("usermove h9h12", "Illegal move ("),
        ("usermove a1a2", "Illegal move ("),
        ("usermove h10h9", "Illegal move ("),
        ("h9h10,h10h12", "Illegal move ("),
        ("setboard 16/16 w", "Error (bad position"),
        (
            "setboard 16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/7K8 x",
            "Error (bad position",
        ),
        ("lift q1", "Error (bad square"),
    ];
    each_refused_with(&mut engine, &bad);
    // In the start position several pieces may pass, so the null move names none.
    engine.send("new");
    engine.send("variant tenjiku");
    engine.send("force");
    engine.send("usermove @@@@");
    let lines = ping(&mut engine, 100);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Illegal move (several pieces may pass")),
        "{lines:?}"
    );
    // Still playing: the lion's double move is taken after all that.
    engine.send(&format!("setboard {LION_BOARD} w 0 1"));
    engine.send("usermove h9h10,h10h11");
    let lines = ping(&mut engine, 101);
    assert!(!lines.iter().any(|l| l.starts_with("Illegal")), "{lines:?}");
}

/// HaChu, the reference XBoard engine for Wa shogi, and ours play a short game (drops off) over
/// XBoard, both kept in force mode and told the other's moves; every move is checked by our
/// rules. HaChu is set to these rules as in `rules/wa-shogi.md` ("Testing against HaChu"). Its
/// known deviation (it may leave its crane king attacked while it has a treacherous fox) ends
/// the game early rather than failing the test.
#[test]
fn hachu_and_tsubame_play_wa_over_xboard() {
    use tsubame_protocol::coords::{chess_to_usi, usi_to_chess};
    const HACHU: &str = "/usr/games/hachu";
    if !std::path::Path::new(HACHU).exists() {
        eprintln!("HaChu is not installed at {HACHU}; skipped");
        return;
    }
    let mut hachu = Engine::spawn(Command::new(HACHU));
    for line in [
        "xboard",
        "protover 2",
        "new",
        "variant wa-shogi",
        "option Promote on entry=0",
        "option Allow repeats=1",
        "memory 16",
        "sd 4",
        "force",
    ] {
        hachu.send(line);
    }
    let mut ours = xboard_engine("wa-shogi", &[("drops", "off")]);
    ours.send("force");
    ours.send("sd 2");
    let mut game = Game::new(
        wa::tables(),
        Options::parse(wa::spec(), "drops=off").unwrap(),
    )
    .unwrap();
    let mut ours_played = 0;
    for ply in 0..40 {
        if game.status() != Status::Ongoing {
            break;
        }
        // HaChu plays sente: XBoard's white, its upper-case pieces.
        let hachu_moves = ply % 2 == 0;
        let (mover, other) = if hachu_moves {
            (&mut hachu, &mut ours)
        } else {
            (&mut ours, &mut hachu)
        };
        mover.send("go");
        let text = loop {
            let line = mover
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no move at ply {ply} (HaChu: {hachu_moves})"));
            if let Some(text) = line.strip_prefix("move ") {
                break Some(text.to_string());
            }
            if line.starts_with("resign") || has_result(std::slice::from_ref(&line)) {
                break None;
            }
        };
        mover.send("force");
        let Some(text) = text else {
            assert!(hachu_moves, "ours gave up in {}", game.position().to_sfen());
            break;
        };
        let usi = chess_to_usi(&text, 11, 11).unwrap_or_else(|| panic!("not a move: {text}"));
        if let Err(e) = game.play_usi(&usi) {
            assert!(hachu_moves, "ours played {text} ({usi}): {e}");
            eprintln!("HaChu's {text} ({usi}) at ply {ply} is refused ({e}); the game ends there");
            break;
        }
        if !hachu_moves {
            ours_played += 1;
        }
        assert_eq!(usi_to_chess(&usi, 11, 11).as_deref(), Some(text.as_str()));
        other.send(&format!("usermove {text}"));
        let pong = ping(other, ply);
        assert!(
            !pong
                .iter()
                .any(|l| l.starts_with("Illegal") || l.starts_with("Error")),
            "{text} at ply {ply}: {pong:?}"
        );
    }
    assert!(
        ours_played >= 3,
        "the game was too short: {:?}",
        game.status()
    );
}

/// A GUI may send a path in another encoding, or a runaway line: the engine answers each with an
/// error that quotes at most 200 characters, and goes on. Over USI, UCI and XBoard alike.
#[test]
fn lines_that_are_not_utf8_or_too_long_get_an_error_and_the_engine_goes_on() {
    let long = format!("setoption name EvalFile value {}\n", "x".repeat(100_000));
    for protocol in ["usi", "uci", "xboard"] {
        let mut engine = Engine::start_with(protocol);
        let answer = |engine: &mut Engine| -> Vec<String> {
            if protocol == "xboard" {
                ping(engine, 7)
            } else {
                engine.send("isready");
                engine.until("readyok")
            }
        };
        if protocol == "xboard" {
            engine.send("xboard");
            engine.send("protover 2");
            engine.until("feature done=1");
        }
        // "setoption name EvalFile value C:\将棋\a.json" in Shift-JIS.
        engine.send_bytes(b"setoption name EvalFile value C:\\\x8f\xab\x8a\xfb\\a.json\n");
        let lines = answer(&mut engine);
        assert!(
            lines.iter().any(|l| l.contains("not UTF-8")),
            "{protocol}: {lines:?}"
        );
        engine.send_bytes(long.as_bytes());
        let lines = answer(&mut engine);
        let error = lines
            .iter()
            .find(|l| l.contains("longer than"))
            .unwrap_or_else(|| panic!("{protocol}: {lines:?}"));
        assert!(
            error.chars().count() < 400,
            "{protocol}: {} characters",
            error.len()
        );
        // Still a working engine.
        if protocol == "xboard" {
            engine.send("new");
            engine.send("variant torishogi");
            engine.send("sd 2");
            engine.send("go");
            engine.until("move ");
        } else {
            engine.send("position startpos");
            engine.send("go depth 2");
            engine.until("bestmove");
        }
    }
}

/// A hash table larger than the memory free is refused with an error instead of ending the
/// engine (on a machine with more than 64 GiB free the largest size is allowed, and the test
/// has nothing to check).
#[test]
fn a_hash_larger_than_memory_is_refused_and_the_engine_goes_on() {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let available_mib = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kib| kib / 1024);
    let Some(available_mib) = available_mib.filter(|&mib| mib < 65_536) else {
        eprintln!("skipped: no MemAvailable below 64 GiB on this machine");
        return;
    };
    let mut engine = Engine::start();
    engine.send("setoption name USI_Hash value 65536");
    engine.send("isready");
    let lines = engine.until("readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("memory available")),
        "{available_mib} MiB free: {lines:?}"
    );
    engine.send("setoption name USI_Hash value 16");
    engine.send("position startpos");
    engine.send("go depth 3");
    engine.until("bestmove");
}
