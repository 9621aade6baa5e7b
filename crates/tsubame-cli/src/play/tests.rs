//! The game state machine driven by keys, without a terminal.

use super::app::{App, Config, TimeControl};
use crate::games::{options_for, session_for};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::{Duration, Instant};
use tsubame_notation::record::Record;
use tsubame_rules::Variant;

fn two_player(variant: Variant, time: Option<TimeControl>) -> App {
    let options = options_for(variant, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let session = session_for(&options).unwrap_or_else(|e| panic!("{e}"));
    let record = Record::new(options.clone());
    let config = Config {
        options,
        level: 1,
        human: [true, true],
        time,
        save_path: std::env::temp_dir().join("tsubame-play-unit.tsr"),
    };
    App::new(config, session, record).unwrap_or_else(|e| panic!("{e}"))
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn control(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_line(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    app.handle_key(key(KeyCode::Enter));
}

#[test]
fn typed_moves_in_both_notations_are_played() {
    let mut app = two_player(Variant::Tori, None);
    type_line(&mut app, "Swx3c");
    type_line(&mut app, "5d5e");
    type_line(&mut app, "Fax5e");
    assert_eq!(
        app.sfen(),
        "rpckcpl/3f3/ssssSss/7/SSFSSSS/7/LPCKCPR w 2Ss 4"
    );
    let written: Vec<&str> = app.replay.steps.iter().map(|s| s.hodges.as_str()).collect();
    assert_eq!(written, ["Swx3c", "Swx5e", "Fax5e"]);
    assert_eq!(app.message, "sente played Fax5e");
}

#[test]
fn an_illegal_move_is_refused_with_the_reason() {
    let mut app = two_player(Variant::Tori, None);
    type_line(&mut app, "Fa-1a");
    assert!(
        app.message.starts_with("no legal move Fa-1a"),
        "{}",
        app.message
    );
    type_line(&mut app, "3d3b");
    assert!(app.message.contains("illegal"), "{}", app.message);
    assert!(app.replay.steps.is_empty());
}

#[test]
fn the_cursor_selects_a_piece_and_plays_it() {
    let mut app = two_player(Variant::Tori, None);
    // The cursor starts on 4g, the phoenix; the swallow on 3d is one file right, three up.
    assert_eq!(app.cursor_square(), "4g");
    app.handle_key(key(KeyCode::Right));
    for _ in 0..3 {
        app.handle_key(key(KeyCode::Up));
    }
    assert_eq!(app.cursor_square(), "3d");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.selected.as_deref(), Some("3d"));
    let targets: Vec<&str> = app.targets.iter().map(|t| t.to.as_str()).collect();
    assert_eq!(targets, ["3c"]);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.record.moves.len(), 1);
    assert_eq!(app.record.moves[0].usi, "3d3c");
}

#[test]
fn undo_resign_and_the_record() {
    let mut app = two_player(Variant::Tori, None);
    type_line(&mut app, "Swx3c");
    type_line(&mut app, "Swx5e");
    app.handle_key(control('u'));
    assert_eq!(app.record.moves.len(), 1);
    app.handle_key(control('r'));
    let outcome = app
        .ended
        .unwrap_or_else(|| panic!("resigning ends the game"));
    assert_eq!(outcome.to_string(), "sente wins by resignation");
    let text = app.record.to_canonical().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("[Result \"1-0\"]\n[Reason \"resignation\"]"),
        "{text}"
    );
    assert!(text.contains("\n1. Swx3c\n1-0\n"), "{text}");
}

#[test]
fn tab_switches_letters_and_wa_plays_too() {
    let mut app = two_player(Variant::Wa, None);
    assert!(!app.latin);
    app.handle_key(key(KeyCode::Tab));
    assert!(app.latin);
    assert_eq!(app.board_size(), (11, 11));
    type_line(&mut app, "6i6h");
    assert_eq!(app.record.moves.len(), 1);
}

#[test]
fn byo_yomi_runs_out_and_loses_on_time() {
    let mut app = two_player(
        Variant::Tori,
        Some(TimeControl {
            main: Duration::from_secs(1),
            byoyomi: Duration::from_secs(2),
        }),
    );
    let start = Instant::now();
    app.tick(start + Duration::from_millis(2500));
    let clocks = app.clocks.unwrap_or_else(|| panic!("clocks are set"));
    assert_eq!(clocks[0].main, Duration::ZERO);
    assert!(clocks[0].period <= Duration::from_millis(500) + Duration::from_millis(100));
    assert!(app.ended.is_none());
    app.tick(start + Duration::from_millis(4000));
    assert_eq!(
        app.ended.map(|o| o.to_string()).as_deref(),
        Some("gote wins by time")
    );
}

#[test]
fn time_controls_are_read() {
    let control: TimeControl = "600+30".parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(control.main, Duration::from_secs(600));
    assert_eq!(control.byoyomi, Duration::from_secs(30));
    assert!("ten minutes".parse::<TimeControl>().is_err());
    assert!("0+0".parse::<TimeControl>().is_err());
}

/// A two-player Tenjiku game from `sfen` (the start position when `None`).
fn tenjiku(sfen: Option<&str>) -> App {
    let variant = Variant::Tenjiku;
    let options = options_for(variant, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut session = session_for(&options).unwrap_or_else(|e| panic!("{e}"));
    let mut record = Record::new(options.clone());
    if let Some(sfen) = sfen {
        session
            .set_position(tsubame_protocol::session::Start::Sfen(sfen), &[])
            .unwrap_or_else(|e| panic!("{e}"));
        record.start_sfen = Some(sfen.to_string());
    }
    let config = Config {
        options,
        level: 1,
        human: [true, true],
        time: None,
        save_path: std::env::temp_dir().join("tsubame-play-unit.tsr"),
    };
    App::new(config, session, record).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn tenjiku_moves_typed_in_usi_and_hodges() {
    let mut app = tenjiku(None);
    assert_eq!(app.board_size(), (16, 16));
    type_line(&mut app, "9l9k");
    type_line(&mut app, "P-8f");
    type_line(&mut app, "Ln-9o");
    let written: Vec<&str> = app.replay.steps.iter().map(|s| s.hodges.as_str()).collect();
    assert_eq!(written, ["P-9k", "P-8f", "Ln-9o"]);
    let usi: Vec<&str> = app.record.moves.iter().map(|m| m.usi.as_str()).collect();
    assert_eq!(usi, ["9l9k", "8e8f", "9o9o"]);
    assert_eq!(app.message, "sente played Ln-9o");
    // Gote's lion passing too would repeat the position after 8e8f.
    type_line(&mut app, "8b8b");
    assert!(
        app.message.contains("repeating is illegal"),
        "{}",
        app.message
    );
    type_line(&mut app, "Qx9x");
    assert!(app.message.contains("Qx9x"), "{}", app.message);
    assert_eq!(app.record.moves.len(), 3);
}

#[test]
fn tenjiku_cursor_takes_the_plain_move() {
    // A lion on 8h, a gote pawn on 8g: 8f is a jump, or a capture on 8g on the way.
    let sfen = "15k/16/16/16/16/16/8p7/8L!7/16/16/16/16/16/16/16/K15 b - 1";
    let mut app = tenjiku(Some(sfen));
    assert_eq!(app.cursor_square(), "8p");
    for _ in 0..8 {
        app.handle_key(key(KeyCode::Up));
    }
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.selected.as_deref(), Some("8h"));
    let mut to_8f: Vec<Option<&str>> = app
        .targets
        .iter()
        .filter(|t| t.to == "8f")
        .map(|t| t.via.as_deref())
        .collect();
    to_8f.sort();
    assert_eq!(to_8f, [None, Some("8g")]);
    // Enter on the lion's own square drops the selection rather than passing.
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.selected, None);
    assert!(app.record.moves.is_empty());
    app.handle_key(key(KeyCode::Enter));
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.record.moves[0].usi, "8h8f");
    assert_eq!(
        app.sfen(),
        "15k/16/16/16/16/8L!7/8p7/16/16/16/16/16/16/16/16/K15 w - 2"
    );
    // The capture on the way is typed.
    app.handle_key(control('u'));
    type_line(&mut app, "8h8g8f");
    assert_eq!(app.message, "sente played Lnx8g-8f");
    assert_eq!(
        app.sfen(),
        "15k/16/16/16/16/8L!7/16/16/16/16/16/16/16/16/16/K15 w - 2"
    );
}

fn screen(app: &App, width: u16, height: u16) -> Vec<String> {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut terminal =
        Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| panic!("{e}"));
    terminal
        .draw(|frame| super::view::draw(frame, app))
        .unwrap_or_else(|e| panic!("{e}"));
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            let mut row = String::new();
            let mut x = 0;
            while x < width {
                let symbol = buffer[(x, y)].symbol();
                row.push_str(symbol);
                // A kanji covers the next cell too.
                let wide = symbol.chars().next().is_some_and(|c| c >= '\u{2e80}');
                x += if wide { 2 } else { 1 };
            }
            row
        })
        .collect()
}

#[test]
fn the_tenjiku_board_in_kanji_and_latin() {
    let mut app = tenjiku(None);
    let small = screen(&app, 80, 24).join("\n");
    assert!(
        small.contains("Tenjiku shogi needs a terminal of at least 111x25; this one is 80x24."),
        "{small}"
    );
    type_line(&mut app, "9l9k");
    let rows = screen(&app, 120, 40);
    // Border, gote's hand, file numbers, then rank a from file 16.
    assert!(rows[2].starts_with("│  16   15   14"), "{}", rows[2]);
    assert!(rows[3].starts_with("│ v香車v桂馬v猛豹v鉄将"), "{}", rows[3]);
    assert!(rows[3].contains("v酔象v玉将"), "{}", rows[3]);
    // Rank k: the pawn that moved, on file 9 (the eighth square).
    assert!(
        rows[13].starts_with("│   ·    ·    ·    ·   犬    ·    ·   歩兵  ·    ·    ·   犬    · "),
        "{}",
        rows[13]
    );
    assert!(
        rows[18].starts_with("│  香車 桂馬 猛豹 鉄将 銅将"),
        "{}",
        rows[18]
    );
    assert!(rows.iter().any(|r| r.contains("  1. P-9k")), "{rows:?}");
    app.handle_key(key(KeyCode::Tab));
    let rows = screen(&app, 120, 40);
    assert!(
        rows[3].starts_with("│   l    n    f    i    c    s    g    e    k"),
        "{}",
        rows[3]
    );
    assert!(
        rows[17].starts_with("│   A    ·   C!   C!    ·    T    O   L!    Q    X"),
        "{}",
        rows[17]
    );
}
#[test]
fn a_drop_chosen_with_the_cursor() {
    let mut app = two_player(Variant::Tori, None);
    type_line(&mut app, "Swx3c");
    type_line(&mut app, "Swx5e");
    // Sente holds a swallow; 4d is empty, one file right of the cursor's start and three up.
    app.handle_key(key(KeyCode::Right));
    for _ in 0..3 {
        app.handle_key(key(KeyCode::Up));
    }
    assert_eq!(app.cursor_square(), "3d");
    app.handle_key(key(KeyCode::Left));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.drop_square.as_deref(), Some("4d"));
    assert_eq!(app.message, "drop on 4d: type S and Enter");
    type_line(&mut app, "s");
    assert_eq!(
        app.record.moves.last().map(|m| m.usi.as_str()),
        Some("S*4d")
    );
    assert_eq!(app.message, "sente played Sw*4d");
}

#[test]
fn the_screen_marks_the_last_move_and_the_check() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::style::Color as Colour;

    let variant = Variant::Tori;
    let options = options_for(variant, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut session = session_for(&options).unwrap_or_else(|e| panic!("{e}"));
    let sfen = "3k3/7/7/7/7/7/3K3 b S 1";
    session
        .set_position(tsubame_protocol::session::Start::Sfen(sfen), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let mut record = Record::new(options.clone());
    record.start_sfen = Some(sfen.to_string());
    let config = Config {
        options,
        level: 1,
        human: [true, true],
        time: None,
        save_path: std::env::temp_dir().join("tsubame-play-unit.tsr"),
    };
    let mut app = App::new(config, session, record).unwrap_or_else(|e| panic!("{e}"));
    type_line(&mut app, "Sw*4b");

    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap_or_else(|e| panic!("{e}"));
    terminal
        .draw(|frame| super::view::draw(frame, &app))
        .unwrap_or_else(|e| panic!("{e}"));
    let buffer = terminal.backend().buffer();
    let row = |y: u16| -> String {
        (0..80)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect::<String>()
    };
    // Border, gote's hand, file numbers, then rank a: 4a is the fourth square from the left.
    assert!(row(3).starts_with("│  ·  ·  · v鵬"), "{}", row(3));
    assert!(row(4).starts_with("│  ·  ·  ·  燕"), "{}", row(4));
    assert_eq!(buffer[(11, 3)].bg, Colour::Red, "the phoenix in check");
    assert_eq!(
        buffer[(11, 4)].bg,
        Colour::Yellow,
        "the square just dropped on"
    );
    assert!(row(21).starts_with("gote to move (check)."), "{}", row(21));
}
