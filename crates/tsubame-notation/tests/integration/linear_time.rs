//! Every reader of user text takes time in proportion to the text's length, also for the
//! shapes that cost a reader most: many tiny games in one file, a game that is all comments,
//! endless header or comment lines, a tag or comment as long as the file. The play server
//! reads these from anyone (`POST /api/import`, up to 2 MiB): a reader that grows
//! quadratically would let one request hold a core for minutes.
//!
//! Each shape is read at four sizes, doubling; the exponent of a least-squares fit of
//! log(time) on log(size) must stay below 1.4 (a linear reader fits about 1, a quadratic one
//! about 2). Each time is the best of five reads, and a fit over the limit is taken again, up to
//! three fits, before the test fails: a burst of load on a busy machine can bend one fit of a
//! few milliseconds' reads, but a reader that really grows faster than linearly fails all three.

use std::time::{Duration, Instant};
use tsubame_notation::record::{
    Record, RecordErrorKind, read_hodges_text, read_kif, read_pgn, read_pgn_games,
    read_pgn_games_at_most, write_kif,
};
use tsubame_rules::{Options, Position, tori};

/// The best of five runs of `read`.
fn best_time(read: &mut dyn FnMut()) -> Duration {
    (0..5)
        .map(|_| {
            let started = Instant::now();
            read();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Fits time against size over four doublings of `make(repeats)`, read by `read`; fails when
/// three fits in a row show more than linear growth.
fn assert_linear(shape: &str, repeats: usize, make: impl Fn(usize) -> String, read: impl Fn(&str)) {
    let texts: Vec<String> = (0..4).map(|step| make(repeats << step)).collect();
    let mut fits = Vec::new();
    for _ in 0..3 {
        let (exponent, slowest) = fit_growth(&texts, &read);
        if exponent < 1.4 {
            return;
        }
        fits.push(format!("size^{exponent:.2} ({slowest:.3} s)"));
    }
    let largest = texts.last().map_or(0, String::len);
    panic!(
        "{shape}: time grows faster than the size, up to {largest} bytes: {}",
        fits.join(", ")
    );
}

/// The exponent of a least-squares fit of log(time) on log(size) over reads of `texts`, and the
/// time of the largest.
fn fit_growth(texts: &[String], read: &impl Fn(&str)) -> (f64, f64) {
    let mut points = Vec::new();
    for text in texts {
        let time = best_time(&mut || read(text));
        points.push(((text.len() as f64).ln(), time.as_secs_f64().max(1e-7).ln()));
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let exponent = points
        .iter()
        .map(|p| (p.0 - mean_x) * (p.1 - mean_y))
        .sum::<f64>()
        / points.iter().map(|p| (p.0 - mean_x).powi(2)).sum::<f64>();
    let slowest = points.last().map_or(0.0, |p| p.1.exp());
    (exponent, slowest)
}

const TORI_GAME_HEAD: &str = "[Variant \"Torishogi\"]\n\n";

#[test]
fn pgn_with_many_games_is_read_in_linear_time() {
    let game = format!("{TORI_GAME_HEAD}*\n\n");
    assert_linear(
        "PGN of many empty games",
        3_000,
        |k| game.repeat(k),
        |text| {
            let _ = read_pgn_games(text, None);
        },
    );
    let moves = format!("{TORI_GAME_HEAD}1. Sxe5 Sxc3 *\n\n");
    assert_linear(
        "PGN of many short games",
        500,
        |k| moves.repeat(k),
        |text| {
            let _ = read_pgn_games(text, None);
        },
    );
}

/// The server's limit is enforced while reading: a file of 2 MiB of empty games is refused
/// at the first game past the limit, in milliseconds.
#[test]
fn pgn_game_limit_stops_reading_early() {
    let text = format!("{TORI_GAME_HEAD}*\n\n").repeat(2 * 1024 * 1024 / 26);
    let started = Instant::now();
    let error = read_pgn_games_at_most(&text, None, 200).expect_err("too many games");
    let took = started.elapsed();
    assert_eq!(error.kind, RecordErrorKind::TooManyGames(200));
    assert_eq!(error.line(), 200 * 4 + 1, "the 201st game's first line");
    assert!(took < Duration::from_millis(500), "refused after {took:?}");
}

#[test]
fn pgn_with_huge_parts_is_read_in_linear_time() {
    assert_linear(
        "PGN game of comments",
        2_000,
        |k| format!("{TORI_GAME_HEAD}{}*\n", "{a comment} ".repeat(k)),
        |text| {
            let _ = read_pgn(text);
        },
    );
    assert_linear(
        "PGN of tag lines",
        2_000,
        |k| format!("{TORI_GAME_HEAD}{}\n*\n", "[Event \"x\"]\n".repeat(k)),
        |text| {
            let _ = read_pgn(text);
        },
    );
    assert_linear(
        "PGN tag as long as the file",
        20_000,
        |k| format!("[Event \"{}\"]\n{TORI_GAME_HEAD}*\n", "e".repeat(k)),
        |text| {
            let _ = read_pgn(text);
        },
    );
    assert_linear(
        "PGN comment never closed",
        20_000,
        |k| format!("{TORI_GAME_HEAD}{{{}", "c ".repeat(k)),
        |text| {
            let _ = read_pgn(text);
        },
    );
    assert_linear(
        "PGN of move numbers alone",
        2_000,
        |k| {
            let numbers: String = (1..=k).map(|n| format!("{n}. ")).collect();
            format!("{TORI_GAME_HEAD}{numbers}*\n")
        },
        |text| {
            let _ = read_pgn(text);
        },
    );
}

fn short_tori_record() -> Record {
    let mut record = Record::new(Options::defaults(tori::spec()));
    for usi in ["3d3c", "5d5e"] {
        record.moves.push(tsubame_notation::record::RecordMove {
            usi: usi.to_string(),
            comment: None,
            think_ms: None,
        });
    }
    record
}

#[test]
fn canonical_records_are_read_in_linear_time() {
    let text = short_tori_record()
        .to_canonical()
        .expect("a canonical record");
    let (head, moves) = text.split_once("\n\n").expect("tags, then moves");
    assert_linear(
        "record of comments",
        2_000,
        |k| format!("{head}\n\n{}{moves}", "{a comment} ".repeat(k)),
        |text| {
            let _ = Record::parse(text);
        },
    );
    assert_linear(
        "record of tag lines",
        2_000,
        |k| format!("{head}\n{}\n{moves}", "[Event \"x\"]\n".repeat(k)),
        |text| {
            let _ = Record::parse(text);
        },
    );
    assert_linear(
        "record with a tag as long as the file",
        20_000,
        |k| format!("{head}\n[Event \"{}\"]\n\n{moves}", "e".repeat(k)),
        |text| {
            let _ = Record::parse(text);
        },
    );
}

#[test]
fn kif_is_read_in_linear_time() {
    let text = write_kif(&short_tori_record()).expect("a KIF record");
    let first_move = text
        .lines()
        .position(|line| line.trim_start().starts_with('1'))
        .expect("a first move line");
    let lines: Vec<&str> = text.lines().collect();
    let (head, moves) = lines.split_at(first_move);
    let with_lines = |extra: &str, k: usize, before_moves: bool| {
        let mut out = String::new();
        let extra_lines = extra.repeat(k);
        out.push_str(&head.join("\n"));
        out.push('\n');
        if before_moves {
            out.push_str(&extra_lines);
        }
        out.push_str(&moves.join("\n"));
        out.push('\n');
        if !before_moves {
            out.push_str(&extra_lines);
        }
        out
    };
    assert_linear(
        "KIF of comment lines",
        2_000,
        |k| with_lines("*コメント\n", k, true),
        |text| {
            let _ = read_kif(text.as_bytes());
        },
    );
    assert_linear(
        "KIF of header lines",
        2_000,
        |k| with_lines("備考：x\n", k, true),
        |text| {
            let _ = read_kif(text.as_bytes());
        },
    );
    assert_linear(
        "KIF with a line as long as the file",
        20_000,
        |k| with_lines(&format!("*{}\n", "長".repeat(k)), 1, false),
        |text| {
            let _ = read_kif(text.as_bytes());
        },
    );
}

#[test]
fn hodges_text_and_sfen_are_read_in_linear_time() {
    assert_linear(
        "Hodges text of comments",
        2_000,
        |k| format!("1. Swx3c {}Swx5e\n", "{a comment} ".repeat(k)),
        |text| {
            let _ = read_hodges_text(text, Options::defaults(tori::spec()));
        },
    );
    assert_linear(
        "Hodges text of move numbers",
        2_000,
        |k| (1..=k).map(|n| format!("{n}. ")).collect(),
        |text| {
            let _ = read_hodges_text(text, Options::defaults(tori::spec()));
        },
    );
    let tables = tori::tables();
    let rules = Options::defaults(tori::spec()).rule_set();
    assert_linear(
        "SFEN with a hand as long as the file",
        20_000,
        |k| {
            format!(
                "rpckcpl/3f3/sssssss/7/SSSSSSS/3F3/LPCKCPR b {} 1",
                "S".repeat(k)
            )
        },
        |text| {
            let _ = Position::from_sfen(tables, text, rules);
        },
    );
    assert_linear(
        "SFEN with a board as long as the file",
        20_000,
        |k| format!("{} b - 1", "1/".repeat(k)),
        |text| {
            let _ = Position::from_sfen(tables, text, rules);
        },
    );
}
