//! Hostile input for the USI, UCI and XBoard front ends: any sequence of lines, made of protocol
//! words and junk, leaves the engine answering `isready` with `readyok` (XBoard: `ping` with
//! `pong`) and never panics.

use proptest::prelude::*;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tsubame_protocol::session::Output;
use tsubame_protocol::usi::UsiFront;
use tsubame_protocol::xboard::Xboard;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().map(|b| b.clone()).unwrap_or_default()).into_owned()
    }
}

const WORDS: [&str; 40] = [
    "usi",
    "uci",
    "isready",
    "setoption",
    "name",
    "value",
    "USI_Variant",
    "UCI_Variant",
    "washogi",
    "torishogi",
    "drops",
    "off",
    "handicap",
    "falcon",
    "position",
    "startpos",
    "sfen",
    "fen",
    "moves",
    "go",
    "depth",
    "1",
    "nodes",
    "50",
    "btime",
    "wtime",
    "byoyomi",
    "-3",
    "stop",
    "ponderhit",
    "3d3c",
    "e4e5",
    "S*4d",
    "S@d4",
    "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR",
    "b",
    "w",
    "-",
    "infinite",
    "\u{0}",
];

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(prop::sample::select(WORDS.to_vec()), 0..8).prop_map(|w| w.join(" ")),
        ".{0,60}",
    ]
}

/// XBoard words, Tenjiku's multi-leg moves among them. Nothing here leaves force mode, so no
/// search starts (the test has no event loop to take its move).
const XBOARD_WORDS: [&str; 30] = [
    "variant",
    "tenjiku",
    "wa-shogi",
    "torishogi",
    "usermove",
    "h9h10,h10h11",
    "h9h10,h10h9",
    "h9h10,",
    ",h10h11",
    "h9h10,h11h12",
    "h9h10,h10q11",
    "@@@@",
    "h2h2",
    "h2h3+",
    "h2h3=",
    "lift",
    "put",
    "h9",
    "h10",
    "p16",
    "setboard",
    "8k7/16/16/16/16/7p8/7p8/7L!8/16/16/16/16/16/16/16/7K8",
    "w",
    "b",
    "undo",
    "remove",
    "sd",
    "2",
    "force",
    "\u{0}",
];

fn xboard_line() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(prop::sample::select(XBOARD_WORDS.to_vec()), 0..6)
            .prop_map(|w| w.join(" ")),
        ".{0,60}",
    ]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: if cfg!(debug_assertions) { 16 } else { 64 },
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn usi_survives_any_lines(lines in prop::collection::vec(line(), 0..12)) {
        let captured = Captured::default();
        let output: Output = Arc::new(Mutex::new(Box::new(captured.clone())));
        let mut usi = UsiFront::usi(output);
        for l in &lines {
            // An infinite search would wait for `stop`; the test sends its own at the end.
            if !usi.command(l) {
                break;
            }
        }
        usi.command("stop");
        usi.command("isready");
        usi.command("stop");
        prop_assert!(captured.text().contains("readyok") || lines.iter().any(|l| l.trim() == "quit"));
    }

    #[test]
    fn uci_survives_any_lines(lines in prop::collection::vec(line(), 0..12)) {
        let captured = Captured::default();
        let output: Output = Arc::new(Mutex::new(Box::new(captured.clone())));
        let mut uci = UsiFront::uci(output);
        for l in &lines {
            if !uci.command(l) {
                break;
            }
        }
        uci.command("stop");
        uci.command("isready");
        uci.command("stop");
        prop_assert!(captured.text().contains("readyok") || lines.iter().any(|l| l.trim() == "quit"));
    }

    #[test]
    fn xboard_survives_any_lines(lines in prop::collection::vec(xboard_line(), 0..12)) {
        let captured = Captured::default();
        let output: Output = Arc::new(Mutex::new(Box::new(captured.clone())));
        let mut xboard = Xboard::new(output);
        xboard.command("force");
        xboard.command("variant tenjiku");
        let mut quit = false;
        for l in &lines {
            // Random text may spell `go` or `new`; keep the engine in force mode so that no
            // search starts.
            let first = l.split_whitespace().next().unwrap_or("");
            if ["go", "new", "playother", "analyze"].contains(&first) {
                continue;
            }
            if !xboard.command(l) {
                quit = true;
                break;
            }
        }
        xboard.command("ping 7");
        prop_assert!(quit || captured.text().contains("pong 7"));
    }
}
