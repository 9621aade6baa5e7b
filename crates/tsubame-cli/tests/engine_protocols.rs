//! Drives the real `tsubame engine usi` binary: a whole short game per variant with every move
//! checked by the rules library, malformed commands answered with an error while the engine keeps
//! working, and stop/ponder behaviour.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;
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
        let mut child = Command::new(env!("CARGO_BIN_EXE_tsubame"))
            .args(["engine", protocol])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start tsubame engine usi");
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
    engine.send("usi");
    let hello = engine.until("usiok");
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
        if moves.is_empty() {
            engine.send("position startpos");
        } else {
            engine.send(&format!("position startpos moves {}", moves.join(" ")));
        }
        engine.send("go nodes 3000");
        let lines = engine.until("bestmove");
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")),
            "{lines:?}"
        );
        let best = lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        game.play_usi(&best)
            .unwrap_or_else(|e| panic!("{variant}: engine played {best}: {e}"));
        moves.push(best);
    }
    engine.send("quit");
    let status = engine.child.wait().expect("engine exits on quit");
    assert!(status.success());
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

#[test]
fn a_mated_side_resigns() {
    let mut engine = Engine::start();
    engine.send("position sfen 5sk/5sF/6C/7/7/7/K6 w - 1");
    engine.send("go depth 3");
    let lines = engine.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove resign");
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
