//! `tsubame play` for real: the binary runs in a tmux window, keys are sent to it and the
//! screen is read back with `capture-pane`. Skipped, with a message, where tmux is missing,
//! except under `CI=true`, where a missing tmux fails.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_tsubame");

/// A tmux client of the server named `socket`. Each screen has a server of its own: with one
/// shared server, a test killing the last session stops the server while another test's
/// `new-session` is connecting to it ("server exited unexpectedly").
fn tmux(socket: &str) -> Command {
    let mut command = Command::new("tmux");
    command.args(["-L", socket]);
    command
}

fn tmux_available() -> bool {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "tmux is not installed (apt-get install tmux): the terminal UI cannot be tested"
        );
        eprintln!(
            "skipped: tmux is not installed (apt-get install tmux), so the terminal UI is not tested"
        );
    }
    found
}

/// A tmux session running `tsubame play`, killed when dropped.
struct Screen {
    name: String,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

impl Screen {
    fn start(args: &str, width: u16, height: u16) -> Screen {
        let name = format!(
            "tsubame-test-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let command = format!("{BINARY} play {args}; sleep 30");
        let status = tmux(&name)
            .args(["new-session", "-d", "-s", &name, "-x", &width.to_string()])
            .args(["-y", &height.to_string(), &command])
            .env("TERM", "xterm-256color")
            .status()
            .unwrap_or_else(|e| panic!("cannot start tmux: {e}"));
        assert!(status.success(), "tmux new-session failed");
        Screen { name }
    }

    fn text(&self) -> String {
        let output = tmux(&self.name)
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .unwrap_or_else(|e| panic!("cannot run tmux capture-pane: {e}"));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen shows `wanted`, and returns the screen.
    fn wait_for(&self, wanted: &str, seconds: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let text = self.text();
            if text.contains(wanted) {
                return text;
            }
            if Instant::now() > deadline {
                panic!("the screen never showed {wanted:?}; it shows:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let status = tmux(&self.name)
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .unwrap_or_else(|e| panic!("cannot run tmux send-keys: {e}"));
        assert!(status.success());
    }

    /// Types a line literally and presses Enter.
    fn line(&self, text: &str) {
        let status = tmux(&self.name)
            .args(["send-keys", "-l", "-t", &self.name, text])
            .status()
            .unwrap_or_else(|e| panic!("cannot run tmux send-keys: {e}"));
        assert!(status.success());
        self.keys(&["Enter"]);
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = tmux(&self.name).arg("kill-server").status();
    }
}

/// The board rows of the screen, from the line of file numbers on.
fn board_rows(screen: &str, ranks: usize) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let header = lines
        .iter()
        .position(|l| {
            l.contains("  7  6  5  4  3  2  1") || l.contains(" 11 10  9") || l.contains(" 16   15")
        })
        .unwrap_or_else(|| panic!("no file numbers on the screen:\n{screen}"));
    lines
        .iter()
        .skip(header + 1)
        .take(ranks)
        .map(|l| l.split('│').nth(1).unwrap_or("").trim_end().to_string())
        .collect()
}

#[test]
fn tori_two_players_in_80x24() {
    if !tmux_available() {
        return;
    }
    let screen = Screen::start("--variant tori --two-player", 80, 24);
    let start = screen.wait_for("sente to move", 10);
    assert!(start.contains("v鵬"), "gote's phoenix in kanji:\n{start}");
    assert!(start.contains("gote hand: -"), "{start}");
    screen.line("Swx3c");
    screen.wait_for("sente played Swx3c", 10);
    screen.line("5d5e");
    screen.wait_for("gote played Swx5e", 10);
    screen.line("Fax5e");
    screen.wait_for("sente played Fax5e", 10);
    screen.keys(&["Tab"]);
    let text = screen.wait_for("gote hand: s", 10);
    let rows = board_rows(&text, 7);
    assert_eq!(
        rows,
        [
            "  r  p  c  k  c  p  l  a",
            "  ·  ·  ·  f  ·  ·  ·  b",
            "  s  s  s  s  S  s  s  c",
            "  ·  ·  ·  ·  ·  ·  ·  d",
            "  S  S  F  S  S  S  S  e",
            "  ·  ·  ·  ·  ·  ·  ·  f",
            "  L  P  C  K  C  P  R  g",
        ],
        "{text}"
    );
    assert!(
        text.contains("sente hand: 2S") || text.contains("sente hand: S2"),
        "{text}"
    );
    assert!(text.contains("1. Swx3c   Swx5e"), "{text}");
    assert!(text.contains("2. Fax5e"), "{text}");
    // An illegal move is refused and says why; the board stays.
    screen.line("Fa-1a");
    let refused = screen.wait_for("no legal move Fa-1a", 10);
    assert_eq!(board_rows(&refused, 7), rows);
    // Take the falcon move back with Ctrl-U.
    screen.keys(&["C-u"]);
    let undone = screen.wait_for("took back 1 move", 10);
    assert_eq!(
        board_rows(&undone, 7)[4],
        "  S  S  s  S  S  S  S  e",
        "{undone}"
    );
}

#[test]
fn wa_in_80x24_with_the_cursor() {
    if !tmux_available() {
        return;
    }
    let screen = Screen::start("--variant wa --two-player", 80, 24);
    screen.wait_for("sente to move", 10);
    screen.keys(&["Tab"]);
    // The cursor starts on 6k, the crane king; up two ranks is the sparrow pawn on 6i.
    screen.keys(&["Up", "Up", "Enter"]);
    screen.wait_for("6i selected", 10);
    screen.keys(&["Up", "Enter"]);
    let text = screen.wait_for("sente played", 10);
    let rows = board_rows(&text, 11);
    assert_eq!(rows[7], "  ·  ·  ·  P  ·  P  ·  P  ·  ·  ·  h", "{text}");
    assert_eq!(rows[8], "  P  P  P  X  P  ·  P  R  P  P  P  i", "{text}");
    assert_eq!(rows[0], "  h  m  l  c  v  k  w  g  u  d  o  a", "{text}");
}

#[test]
fn against_the_engine_it_answers() {
    if !tmux_available() {
        return;
    }
    let screen = Screen::start("--variant tori --level 1", 80, 24);
    screen.wait_for("sente to move", 10);
    screen.line("Swx3c");
    let text = screen.wait_for("gote played", 20);
    assert!(text.contains("1. Swx3c"), "{text}");
    assert!(text.contains("gote (engine)"), "{text}");
    assert!(text.contains("sente to move"), "{text}");
}

#[test]
fn a_small_terminal_is_told_what_it_needs() {
    if !tmux_available() {
        return;
    }
    let screen = Screen::start("--variant wa --two-player", 40, 12);
    let text = screen.wait_for("needs a terminal", 10);
    assert!(
        text.contains("Wa shogi needs a terminal of at least"),
        "{text}"
    );
}

#[test]
fn tenjiku_in_120x40_and_too_small_in_80x24() {
    if !tmux_available() {
        return;
    }
    let small = Screen::start("--variant tenjiku --two-player", 80, 24);
    let text = small.wait_for("needs a terminal", 10);
    assert!(
        text.contains("Tenjiku shogi needs a terminal of at least 111x25; this one is 80x24."),
        "{text}"
    );
    drop(small);

    let screen = Screen::start("--variant tenjiku --two-player", 120, 40);
    let start = screen.wait_for("sente to move", 10);
    assert!(start.contains("v獅子"), "gote's lion in kanji:\n{start}");
    screen.line("9l9k");
    screen.wait_for("sente played P-9k", 10);
    screen.line("P-8f");
    screen.wait_for("gote played P-8f", 10);
    // The lion on 9o passes, chosen with the cursor: it starts on 8p, the lion is one file
    // left and one rank up; Enter twice on it drops the selection, so the pass is typed.
    screen.keys(&["Left", "Up", "Enter"]);
    screen.wait_for("9o selected", 10);
    screen.keys(&["Enter"]);
    screen.keys(&["Tab"]);
    screen.line("Ln-9o");
    let text = screen.wait_for("sente played Ln-9o", 10);
    let rows = board_rows(&text, 16);
    assert_eq!(
        rows[5],
        "   ·    ·    ·    ·   d'    ·    ·    ·    p    ·    ·   d'    ·    ·    ·    ·   f",
        "{text}"
    );
    assert_eq!(
        rows[10],
        "   ·    ·    ·    ·   D'    ·    ·    P    ·    ·    ·   D'    ·    ·    ·    ·   k",
        "{text}"
    );
    assert_eq!(
        rows[4],
        "   p    p    p    p    p    p    p    p    ·    p    p    p    p    p    p    p   e",
        "{text}"
    );
    assert_eq!(
        rows[14],
        "   A    ·   C!   C!    ·    T    O   L!    Q    X    T    ·   C!   C!    ·    A   o",
        "{text}"
    );
    assert!(text.contains("  1. P-9k    P-8f"), "{text}");
}
