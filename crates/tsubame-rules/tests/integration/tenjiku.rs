//! Tenjiku shogi: perft, and one test per numbered decision of `rules/tenjiku-shogi.md` and per
//! special rule of the seed, each built on a small position where the rule decides the outcome.

use tsubame_rules::tenjiku::{self, TenjikuGame, TenjikuPosition, TenjikuRules};
use tsubame_rules::{Color, EndReason, Move, MoveError, Options, Outcome, Status};

/// A position from pieces on squares (`("8h", "D!")`, upper case sente), sente's king on 16p
/// and gote's on 1a unless the list places kings itself.
fn position_with(pieces: &[(&str, &str)], side: Color, options: &str) -> TenjikuPosition {
    let mut board = vec![vec![None; 16]; 16];
    let mut has_kings = false;
    for &(square, code) in pieces {
        let digits = square.bytes().take_while(u8::is_ascii_digit).count();
        let file: usize = square[..digits].parse().expect("file");
        let rank = (square.as_bytes()[digits] - b'a') as usize;
        assert!(board[rank][16 - file].is_none(), "{square} twice");
        board[rank][16 - file] = Some(code.to_string());
        has_kings |= matches!(code, "K" | "k" | "+E" | "+e");
    }
    if !has_kings {
        board[15][0] = Some("K".into());
        board[0][15] = Some("k".into());
    }
    let mut text = String::new();
    for (r, row) in board.iter().enumerate() {
        if r > 0 {
            text.push('/');
        }
        let mut empty = 0;
        for cell in row {
            match cell {
                None => empty += 1,
                Some(code) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push_str(code);
                }
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
    }
    text.push_str(if side == Color::Sente {
        " b - 1"
    } else {
        " w - 1"
    });
    let options = Options::parse(tenjiku::spec(), options).expect("options");
    TenjikuPosition::from_sfen(&text, TenjikuRules::from_options(&options))
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn sente(pieces: &[(&str, &str)]) -> TenjikuPosition {
    position_with(pieces, Color::Sente, "")
}

/// The moves of the piece on `square`, as sorted USI text.
fn moves_from(position: &TenjikuPosition, square: &str) -> Vec<String> {
    let mut moves: Vec<String> = position
        .legal_moves()
        .into_iter()
        .map(|mv| position.to_usi(mv))
        .filter(|text| text.starts_with(square))
        .collect();
    moves.sort();
    moves.dedup();
    moves
}

fn play(position: &TenjikuPosition, text: &str) -> (TenjikuPosition, Vec<(String, bool)>) {
    let mv = position
        .parse_usi(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut after = position.clone();
    let undo = after.make_move(mv);
    let removed = undo
        .removals()
        .map(|r| (after.geometry().name(r.square).to_string(), r.burned))
        .collect();
    (after, removed)
}

fn has(position: &TenjikuPosition, text: &str) -> bool {
    position.parse_usi(text).is_ok()
}

// ---- perft -------------------------------------------------------------------------------

#[test]
fn start_position_perft_to_depth_three() {
    let mut start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    assert_eq!(start.perft(1), 76);
    assert_eq!(start.perft(2), 5832);
    assert_eq!(start.perft(3), 498_508);
}

#[test]
fn start_position_perft_under_each_option() {
    for (option, nodes) in [
        ("lion-hawk=tsa", 479_707),
        ("free-eagle=japanese", 498_603),
        ("demon-conflict=adams", 498_508),
        ("range-jump=always", 2_802_550),
        ("promotion=entry", 498_508),
    ] {
        let options = Options::parse(tenjiku::spec(), option).expect("option");
        let mut start = TenjikuPosition::start(&options);
        assert_eq!(start.perft(3), nodes, "{option}");
    }
}

#[test]
fn constructed_positions_perft_to_depth_two() {
    let data = include_str!("../data/tenjiku-positions.tsv");
    let mut rows = 0;
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let options = if fields[0] == "-" { "" } else { fields[0] };
        let options = Options::parse(tenjiku::spec(), options).expect("options");
        let mut position =
            TenjikuPosition::from_sfen(fields[1], TenjikuRules::from_options(&options))
                .expect("position");
        assert_eq!(position.perft(1).to_string(), fields[2], "{}", fields[4]);
        assert_eq!(position.perft(2).to_string(), fields[3], "{}", fields[4]);
        rows += 1;
    }
    assert_eq!(rows, 20);
}

#[test]
fn the_worked_example_of_the_start_position() {
    let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    // "great general 6 (five captures down its file over lower-ranked pieces, three of them
    // ending next to a gote fire demon so the general burns, plus one diagonal capture)"
    let general = moves_from(&start, "9m");
    assert_eq!(general, ["9m1e", "9m9a", "9m9b", "9m9c", "9m9d", "9m9e"]);
    let burned = general
        .iter()
        .filter(|m| {
            play(&start, m)
                .1
                .iter()
                .any(|&(ref s, burned)| burned && s != "9m")
        })
        .count();
    assert_eq!(burned, 3);
    // "bishop generals 6 each (three range-jump captures over their own pawn, each with and
    // without promotion)"
    assert_eq!(moves_from(&start, "11m").len(), 6);
    assert_eq!(moves_from(&start, "6m").len(), 6);
    // "soaring eagles 3 each (two jumps and a pass)", "horned falcons 2 each"
    assert_eq!(moves_from(&start, "12m"), ["12m10k", "12m12m", "12m14k"]);
    assert_eq!(moves_from(&start, "13m"), ["13m13k", "13m13m"]);
    // "the lion only its pass", "the lion hawk only its pass"; demons and vice general none.
    assert_eq!(moves_from(&start, "9o"), ["9o9o"]);
    assert_eq!(moves_from(&start, "9n"), ["9n9n"]);
    assert!(moves_from(&start, "10n").is_empty());
    assert_eq!(moves_from(&start, "8m"), ["8m16e"]);
}

// ---- 3, 5, 6, 7: fire demons -------------------------------------------------------------

#[test]
fn active_burn_removes_every_adjacent_enemy_but_demons() {
    // Decision 5: after a demon's move, every enemy on the eight neighbours is removed,
    // except enemy fire demons.
    let position = sente(&[
        ("8j", "D!"),
        ("7g", "p"),
        ("9g", "g"),
        ("8f", "s"),
        ("9h", "n"),
        ("5g", "d!"),
    ]);
    let (after, removed) = play(&position, "8j8g");
    let mut burned: Vec<&str> = removed.iter().map(|(s, _)| s.as_str()).collect();
    burned.sort();
    assert_eq!(burned, ["7g", "8f", "9g", "9h"]);
    assert!(removed.iter().all(|&(_, b)| b));
    assert!(after.piece_at(sq("8g")).is_some());
}

#[test]
fn a_demon_burns_after_its_capture_and_on_a_pass() {
    let position = sente(&[("8j", "D!"), ("8g", "r"), ("7f", "p"), ("9i", "p")]);
    // The slide captures on 8g, then 7f burns.
    let (_, removed) = play(&position, "8j8g");
    assert_eq!(removed, [("8g".into(), false), ("7f".into(), true)]);
    // Stepping out and back (a pass) burns 9i.
    let (_, removed) = play(&position, "8j8j");
    assert_eq!(removed, [("9i".into(), true)]);
}

#[test]
fn a_water_buffalo_promoting_to_a_fire_demon_does_not_burn_on_that_move() {
    let position = sente(&[("8g", "W!"), ("7e", "p"), ("9d", "g")]);
    let (after, removed) = play(&position, "8g8e+");
    assert!(removed.is_empty(), "{removed:?}");
    let demon = after.piece_at(sq("8e")).expect("piece");
    assert_eq!(demon.role, tenjiku::PROMOTED_WATER_BUFFALO);
    // As a fire demon it burns on its next move and is immune to burns.
    let mut next = after.clone();
    next.make_null_move();
    let (_, removed) = play(&next, "8e8d");
    assert!(removed.iter().any(|(s, b)| s == "9d" && *b));
}

#[test]
fn passive_burn_of_a_king_ends_the_game() {
    // Decision 6: kings are not exempt.
    // The demon could burn the king wherever it goes, so the game is already mated: play on.
    let options = Options::parse(tenjiku::spec(), "mate=play-on").expect("option");
    let start = position_with(
        &[("9p", "K"), ("8a", "k"), ("10n", "d!"), ("3c", "P")],
        Color::Sente,
        "",
    );
    let mut game = TenjikuGame::from_position(start, options);
    assert_eq!(game.status(), Status::Ongoing);
    game.play_usi("9p9o").expect("moving into danger is legal");
    assert_eq!(
        game.status(),
        Status::Finished(Outcome {
            winner: Some(Color::Gote),
            reason: EndReason::RoyalCaptured
        })
    );
}

#[test]
fn an_igui_capture_next_to_an_enemy_demon_burns_the_lion() {
    // "A piece that captures by igui or passes ends its move where it stands, and burns if
    // that square is next to an enemy demon."
    let position = sente(&[("8h", "L!"), ("8g", "p"), ("9i", "d!")]);
    let (after, removed) = play(&position, "8h8g8h");
    assert_eq!(removed, [("8g".into(), false), ("8h".into(), true)]);
    assert!(after.piece_at(sq("8h")).is_none());
    // Capturing the only adjacent demon saves the mover.
    let (after, removed) = play(&position, "8h9i");
    assert_eq!(removed, [("9i".into(), false)]);
    assert!(after.piece_at(sq("9i")).is_some());
    // Capturing the demon by igui saves it too.
    let (_, removed) = play(&position, "8h9i8h");
    assert_eq!(removed, [("9i".into(), false)]);
}

#[test]
fn demon_meets_demon_under_both_readings() {
    let pieces = [("8j", "D!"), ("6h", "d!"), ("8g", "p"), ("7h", "s")];
    // Decision 7, default (TSA): the moving demon is burned and burns nothing.
    let tsa = position_with(&pieces, Color::Sente, "");
    let (after, removed) = play(&tsa, "8j7i");
    assert_eq!(removed, [("7i".into(), true)]);
    assert!(
        after.piece_at(sq("6h")).is_some(),
        "the stationary demon survives"
    );
    assert!(after.piece_at(sq("7h")).is_some());
    // Adams: it burns the other adjacent enemies, then dies; the stationary demon survives.
    let adams = position_with(&pieces, Color::Sente, "demon-conflict=adams");
    let (after, removed) = play(&adams, "8j7i");
    assert_eq!(removed, [("7h".into(), true), ("7i".into(), true)]);
    assert!(after.piece_at(sq("6h")).is_some());
    // Demons are never burned by an active burn.
    let (after, _) = play(&tsa, "8j8i");
    assert!(after.piece_at(sq("6h")).is_some());
}

#[test]
fn a_fire_demon_area_move_steps_through_empty_squares_only() {
    // Decision 3: up to three king steps, stopping on a capture.
    let position = sente(&[("8h", "D!"), ("8g", "P"), ("8e", "p")]);
    // The forward slide is blocked by the own pawn; the area move goes round it.
    assert!(has(&position, "8h8f"));
    assert!(has(&position, "8h8e"), "three steps, capturing");
    assert!(
        !has(&position, "8h8d"),
        "four steps away and off the demon's lines"
    );
    let walled = sente(&[
        ("8h", "D!"),
        ("9g", "P"),
        ("8g", "P"),
        ("7g", "P"),
        ("8e", "p"),
    ]);
    assert!(!has(&walled, "8h8e"), "no path of empty squares");
}

// ---- 8: range jumping --------------------------------------------------------------------

#[test]
fn range_jumps_follow_the_rank_rule_for_every_pair() {
    // Decision 8: each general against a blocker of every rank, own and enemy: the enemy
    // pawn beyond may be taken only over a strictly lower-ranked blocker, and the blocker
    // itself only when it is an enemy (it is the first piece on the line).
    let blockers = [
        "k", "+e", "q!", "v!", "r!", "b!", "g", "K", "+E", "Q!", "V!", "R!", "G",
    ];
    for (jumper, level, line_square, beyond) in [
        ("Q!", 4, "8l", "8h"),
        ("V!", 3, "7l", "4i"),
        ("R!", 2, "8l", "8h"),
        ("B!", 2, "7l", "4i"),
    ] {
        for blocker in blockers {
            // A set has one great and one vice general: an own blocker of the jumper's kind is
            // its promoted twin.
            let blocker = match (jumper, blocker) {
                ("Q!", "Q!") => "+R!",
                ("V!", "V!") => "+B!",
                _ => blocker,
            };
            let rank = match blocker.to_ascii_uppercase().as_str() {
                "K" | "+E" => 5,
                "Q!" | "+R!" => 4,
                "V!" | "+B!" => 3,
                "R!" | "B!" => 2,
                _ => 0,
            };
            let mut pieces = vec![("8m", jumper), (line_square, blocker), (beyond, "p")];
            if !matches!(blocker, "K" | "+E") {
                pieces.push(("16p", "K"));
            }
            if !matches!(blocker, "k" | "+e") {
                pieces.push(("1a", "k"));
            }
            let position = sente(&pieces);
            assert_eq!(
                has(&position, &format!("8m{beyond}")),
                rank < level,
                "{jumper} over {blocker}: capture beyond"
            );
            assert_eq!(
                has(&position, &format!("8m{line_square}")),
                blocker.starts_with(|c: char| c.is_ascii_lowercase()) || blocker.starts_with("+e"),
                "{jumper} takes {blocker} as the first piece"
            );
        }
    }
}

#[test]
fn a_general_never_captures_an_equal_rank_piece_beyond_jumped_ones() {
    // Decision 8: "A piece of equal or higher rank can be captured only as the first piece on
    // the line."
    let position = sente(&[("8m", "R!"), ("8k", "p"), ("8h", "r!"), ("8e", "p")]);
    assert!(has(&position, "8m8k"));
    assert!(!has(&position, "8m8h"));
    assert!(!has(&position, "8m8e"));
}

#[test]
fn jumping_to_empty_squares_only_under_range_jump_always() {
    let pieces = [("8m", "R!"), ("8k", "P"), ("8e", "p")];
    let capture = position_with(&pieces, Color::Sente, "");
    assert!(has(&capture, "8m8e"));
    assert!(!has(&capture, "8m8h"));
    let always = position_with(&pieces, Color::Sente, "range-jump=always");
    assert!(has(&always, "8m8e"));
    assert!(has(&always, "8m8h"));
    assert!(
        has(&always, "8m8d"),
        "on past the enemy pawn, which is also jumpable"
    );
    assert!(!has(&capture, "8m8d"));
}

#[test]
fn the_japanese_free_eagle_jumps_only_the_lowest_rank() {
    let pieces = [
        ("8m", "Q'"),
        ("8k", "P"),
        ("8h", "p"),
        ("4m", "b!"),
        ("2m", "p"),
    ];
    let english = position_with(&pieces, Color::Sente, "");
    assert!(!has(&english, "8m8h"), "slides stop at the own pawn");
    let japanese = position_with(&pieces, Color::Sente, "free-eagle=japanese");
    assert!(has(&japanese, "8m8h"), "jumps the pawn to capture");
    assert!(
        has(&japanese, "8m4m"),
        "takes the bishop general as first piece"
    );
    assert!(!has(&japanese, "8m2m"), "cannot jump a bishop general");
    assert!(has(&japanese, "8m9l"), "still slides diagonally");
}

#[test]
fn the_english_free_eagle_jumps_to_the_second_square() {
    let position = sente(&[("8m", "Q'"), ("8l", "P"), ("9m", "P"), ("10m", "p")]);
    assert!(has(&position, "8m8k"), "jumps over its own pawn");
    assert!(has(&position, "8m10m"), "jumps and captures");
    assert!(!has(&position, "8m8j"));
}

// ---- 1, 10, 12: lion power -----------------------------------------------------------------

#[test]
fn the_lion_captures_twice_in_both_orders_igui_passes_and_jumps() {
    let position = sente(&[
        ("8h", "L!"),
        ("8g", "p"),
        ("7g", "g"),
        ("9h", "P"),
        ("8f", "s"),
    ]);
    // Double capture both ways round.
    assert!(has(&position, "8h8g7g"));
    assert!(has(&position, "8h7g8g"));
    // Capture, then return (igui), and capture then move on to an empty square.
    assert!(has(&position, "8h8g8h"));
    assert!(has(&position, "8h8g9f"));
    // Jump over a piece (the own pawn on 9h) to 10h, and over 8g to 8f.
    assert!(has(&position, "8h10h"));
    assert!(has(&position, "8h8f"));
    // Pass: always, written as the square twice; out and back through an empty square names
    // the same move.
    assert!(has(&position, "8h8h"));
    assert_eq!(position.parse_usi("8h7h8h"), position.parse_usi("8h8h"));
    let (_, removed) = play(&position, "8h8g7g");
    assert_eq!(removed, [("8g".into(), false), ("7g".into(), false)]);
}

#[test]
fn a_lion_path_through_an_empty_zone_square_may_promote() {
    // Decision 9: a two-step through an empty zone square counts even if the same effect is
    // also a jump; a lion next to the zone promotes without appearing to move.
    let position = sente(&[("8f", "L!")]);
    assert!(has(&position, "8f8f+"));
    assert!(has(&position, "8f10f+"), "through the empty zone square 9e");
    assert!(!has(&position, "8f10g+"), "no path to 10g touches the zone");
    let blocked = sente(&[("8f", "L!"), ("9e", "P"), ("8e", "P"), ("7e", "P")]);
    assert!(!has(&blocked, "8f8f+"));
    assert!(!has(&blocked, "8f10f+"));
    assert!(has(&blocked, "8f10f"));
}

#[test]
fn soaring_eagle_and_horned_falcon_have_lion_power_on_their_lines_only() {
    let position = sente(&[
        ("8h", "E!"),
        ("7g", "p"),
        ("6f", "p"),
        ("9i", "p"),
        ("4h", "F!"),
        ("4g", "p"),
    ]);
    assert!(has(&position, "8h7g6f"), "double capture on the diagonal");
    assert!(has(&position, "8h7g8h"), "igui on the line");
    assert!(!has(&position, "8h9i8h"), "no igui elsewhere");
    assert!(has(&position, "8h8h"), "pass");
    assert!(has(&position, "4h4g4f"), "falcon: capture and go on");
    assert!(has(&position, "4h4g4h"));
    assert!(has(&position, "4h4f"), "falcon jumps its line");
}

#[test]
fn lion_hawk_has_lion_power_by_default_and_an_area_move_under_tsa() {
    let pieces = [
        ("8h", "H!"),
        ("8g", "p"),
        ("7g", "p"),
        ("7i", "P"),
        ("8i", "P"),
        ("9i", "P"),
    ];
    let lion = position_with(&pieces, Color::Sente, "");
    assert!(has(&lion, "8h8g7g"));
    assert!(has(&lion, "8h8g8h"));
    assert!(has(&lion, "8h8j"), "jump over its own pawn");
    let tsa = position_with(&pieces, Color::Sente, "lion-hawk=tsa");
    assert!(!has(&tsa, "8h8g7g"));
    assert!(!has(&tsa, "8h8g8h"));
    assert!(has(&tsa, "8h8g"));
    assert!(!has(&tsa, "8h8j"), "no jump");
    assert!(has(&tsa, "8h8h"), "a pass by stepping out and back");
}

// ---- 11: heavenly tetrarch -----------------------------------------------------------------

#[test]
fn the_tetrarch_never_steps_but_captures_adjacent_pieces_by_igui() {
    let position = sente(&[
        ("8h", "+C!"),
        ("7g", "p"),
        ("9h", "p"),
        ("7h", "P"),
        ("5h", "p"),
    ]);
    let moves = moves_from(&position, "8h");
    assert!(
        !moves
            .iter()
            .any(|m| m.len() == 4 && m != "8h8h" && is_adjacent(&m[2..], "8h"))
    );
    assert!(has(&position, "8h7g8h"));
    assert!(has(&position, "8h9h8h"));
    assert!(!has(&position, "8h8h"), "no pass");
    assert!(has(&position, "8h6f"), "diagonal past the first square");
    assert!(has(&position, "8h10h"), "sideways past the first square");
    assert!(has(&position, "8h11h"), "three squares sideways");
    assert!(!has(&position, "8h12h"));
    assert!(
        has(&position, "8h6h"),
        "past its own piece on the first square"
    );
    assert!(has(&position, "8h5h"), "three squares, capturing");
}

fn is_adjacent(a: &str, b: &str) -> bool {
    let (x1, y1) = coords(a);
    let (x2, y2) = coords(b);
    x1.abs_diff(x2) <= 1 && y1.abs_diff(y2) <= 1
}

fn coords(square: &str) -> (usize, usize) {
    let digits = square.bytes().take_while(u8::is_ascii_digit).count();
    (
        square[..digits].parse().expect("file"),
        (square.as_bytes()[digits] - b'a') as usize,
    )
}

fn sq(name: &str) -> tsubame_rules::Square {
    TenjikuPosition::start(&Options::defaults(tenjiku::spec()))
        .geometry()
        .parse_square(name)
        .expect("square")
}

// ---- 9: promotion --------------------------------------------------------------------------

#[test]
fn declining_a_promotion_defers_the_next_one_unless_capturing() {
    let position = sente(&[("8f", "G"), ("5c", "p")]);
    let (after, _) = play(&position, "8f8e");
    let sfen = after.to_sfen();
    assert!(sfen.contains("G="), "{sfen}");
    assert!(after.is_deferred(sq("8e")));
    let mut next = after.clone();
    next.make_null_move();
    assert!(!has(&next, "8e8d+"), "no promotion without a capture");
    assert!(has(&next, "8e8d"));
    let (cleared, _) = play(&next, "8e8d");
    assert!(!cleared.is_deferred(sq("8d")), "that move clears the flag");
    // A capturing move may promote while deferred.
    let capture = sente(&[("6d", "G="), ("5c", "p")]);
    assert!(has(&capture, "6d5c+"));
    assert!(!has(&capture, "6d6c+"));
    // The flag is part of the hash.
    let plain = sente(&[("6d", "G"), ("5c", "p")]);
    assert_ne!(plain.key(), capture.key());
}

#[test]
fn promotion_entry_promotes_on_entering_or_capturing_in_the_zone() {
    let position = position_with(
        &[("8f", "G"), ("6d", "G"), ("5c", "p")],
        Color::Sente,
        "promotion=entry",
    );
    assert!(has(&position, "8f8e+"), "entering");
    assert!(!has(&position, "6d6c+"), "moving within without a capture");
    assert!(has(&position, "6d5c+"), "capturing within");
    let (after, _) = play(&position, "8f8e");
    assert!(!after.is_deferred(sq("8e")), "no deferral flag");
}

#[test]
fn pawns_lances_irons_and_knights_must_promote_where_they_could_not_move() {
    let position = sente(&[("8b", "P"), ("6b", "L"), ("4b", "I"), ("2d", "N")]);
    assert_eq!(moves_from(&position, "8b"), ["8b8a+"]);
    assert!(has(&position, "6b6a+") && !has(&position, "6b6a"));
    assert!(has(&position, "4b4a+") && !has(&position, "4b4a"));
    assert!(has(&position, "2d1b+") && !has(&position, "2d1b"));
    assert!(
        TenjikuPosition::from_sfen(
            "P15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/k14K b - 1",
            TenjikuRules::DEFAULT
        )
        .is_err()
    );
}

#[test]
fn a_mover_that_burns_has_no_promotion_choice() {
    let position = sente(&[("8f", "G"), ("7d", "d!")]);
    let moves = moves_from(&position, "8f");
    assert!(moves.contains(&"8f8e".to_string()));
    assert!(!moves.contains(&"8f8e+".to_string()));
}

// ---- 13, 14: royals, repetition, mate ------------------------------------------------------

#[test]
fn the_crown_prince_is_a_second_royal() {
    let start = position_with(
        &[
            ("9p", "K"),
            ("8a", "k"),
            ("3c", "+e"),
            ("8b", "R"),
            ("9c", "P"),
        ],
        Color::Sente,
        "",
    );
    let mut game = TenjikuGame::from_position(start, Options::defaults(tenjiku::spec()));
    game.play_usi("8b8a").expect("capture the king");
    assert_eq!(
        game.status(),
        Status::Ongoing,
        "gote still has its crown prince"
    );
    assert_eq!(game.position().royal_count(Color::Gote), 1);
    // A drunk elephant promoting becomes a royal.
    let elephant = sente(&[("8f", "E")]);
    let (after, _) = play(&elephant, "8f8e+");
    assert_eq!(after.royal_count(Color::Sente), 2);
}

#[test]
fn a_position_without_a_royal_has_no_moves() {
    let position = TenjikuPosition::from_sfen(
        "16/16/16/16/16/16/16/7D!8/16/16/16/16/16/16/16/8K7 b - 1",
        TenjikuRules::DEFAULT,
    )
    .expect("position");
    assert!(position.is_over());
    assert!(position.legal_moves().is_empty());
}

#[test]
fn repeating_any_earlier_position_is_illegal() {
    let mut game = TenjikuGame::new(Options::defaults(tenjiku::spec()));
    game.play_usi("9o9o").expect("lion pass");
    let error = game.play_usi("8b8b").expect_err("recreates the start");
    assert!(
        error.to_string().contains("repeating is illegal"),
        "{error}"
    );
    assert!(
        !game
            .legal_moves()
            .iter()
            .any(|&m| game.position().to_usi(m) == "8b8b")
    );
    game.play_usi("8e8f").expect("a pawn move");
    game.play_usi("9n9n").expect("lion hawk pass is new");
    let error = game
        .play_usi("8b8b")
        .expect_err("recreates the position after 8e8f");
    assert!(error.to_string().contains("after move 2"), "{error}");
}

#[test]
fn moving_into_check_is_legal_and_mate_ends_the_game() {
    // Gote's king in the corner, two sente rook generals covering every escape: every gote
    // move leaves the king capturable.
    let start = position_with(
        &[("9p", "K"), ("1a", "k"), ("3a", "R!"), ("3b", "R!")],
        Color::Gote,
        "",
    );
    assert!(has(&start, "1a1b"), "moving into check is a legal move");
    let game = TenjikuGame::from_position(start.clone(), Options::defaults(tenjiku::spec()));
    assert!(game.is_mated());
    assert_eq!(
        game.status(),
        Status::Finished(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Checkmate
        })
    );
    let play_on = Options::parse(tenjiku::spec(), "mate=play-on").expect("option");
    let mut game = TenjikuGame::from_position(start, play_on);
    assert_eq!(game.status(), Status::Ongoing);
    game.play_usi("1a1b").expect("into check");
    game.play_usi("3b1b").expect("capture the king");
    assert_eq!(
        game.status(),
        Status::Finished(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::RoyalCaptured
        })
    );
}

#[test]
fn game_removals_report_every_piece_a_move_removed() {
    let start = sente(&[("8j", "D!"), ("8g", "r"), ("7f", "p"), ("9f", "s")]);
    let mut game = TenjikuGame::from_position(start, Options::defaults(tenjiku::spec()));
    game.play_usi("8j8g").expect("demon captures");
    let removed: Vec<_> = game.removals().next().expect("one move");
    assert_eq!(removed.len(), 3);
    assert_eq!(removed.iter().filter(|r| r.burned).count(), 2);
}

// ---- move text -------------------------------------------------------------------------------

#[test]
fn move_text_round_trips_for_every_move_of_the_constructed_positions() {
    let data = include_str!("../data/tenjiku-positions.tsv");
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let options = if fields[0] == "-" { "" } else { fields[0] };
        let options = Options::parse(tenjiku::spec(), options).expect("options");
        let position = TenjikuPosition::from_sfen(fields[1], TenjikuRules::from_options(&options))
            .expect("position");
        for mv in position.legal_moves() {
            let text = position.to_usi(mv);
            assert_eq!(position.parse_usi(&text), Ok(mv), "{text}");
            assert_eq!(Move::from_bits(mv.to_bits()), mv);
        }
    }
}

// ---- malformed input -----------------------------------------------------------------------

#[test]
fn malformed_tenjiku_sfen_gets_a_specific_error() {
    use tsubame_rules::tenjiku::TenjikuSetupError as E;
    let start = tenjiku::spec().start_sfen;
    let board = start.split(' ').next().expect("board");
    let ranks: Vec<&str> = board.split('/').collect();
    let with_rank = |index: usize, text: &str| {
        let mut ranks = ranks.clone();
        ranks[index] = text;
        format!("{} b - 1", ranks.join("/"))
    };
    type Expectation = fn(&E) -> bool;
    let cases: Vec<(String, Expectation)> = vec![
        ("".into(), |e| matches!(e, E::Empty)),
        ("   ".into(), |e| matches!(e, E::Empty)),
        (board.to_string(), |e| matches!(e, E::FieldCount(1))),
        (format!("{board} b - 1 extra"), |e| {
            matches!(e, E::FieldCount(5))
        }),
        ("16/16/16 b - 1".into(), |e| matches!(e, E::RankCount(3))),
        (format!("{board}/16 b - 1"), |e| {
            matches!(e, E::RankCount(17))
        }),
        (with_rank(6, "15"), |e| {
            matches!(
                e,
                E::RankWidth {
                    rank: 'g',
                    files: 15
                }
            )
        }),
        (with_rank(6, "8P8"), |e| {
            matches!(
                e,
                E::RankWidth {
                    rank: 'g',
                    files: 17
                }
            )
        }),
        (with_rank(6, "16P"), |e| {
            matches!(e, E::RankWidth { rank: 'g', .. })
        }),
        (with_rank(6, "0P15"), |e| {
            matches!(e, E::BadCount { rank: 'g', .. })
        }),
        (with_rank(6, "17"), |e| {
            matches!(e, E::BadCount { rank: 'g', .. })
        }),
        (with_rank(6, "15Z"), |e| {
            matches!(e, E::UnknownPiece { rank: 'g', .. })
        }),
        (with_rank(6, "15Y!"), |e| {
            matches!(e, E::UnknownPiece { rank: 'g', .. })
        }),
        (with_rank(6, "15+K"), |e| {
            matches!(e, E::UnknownPiece { rank: 'g', .. })
        }),
        (with_rank(6, "15+"), |e| {
            matches!(e, E::UnknownPiece { rank: 'g', .. })
        }),
        (with_rank(6, "15*"), |e| {
            matches!(
                e,
                E::UnexpectedCharacter {
                    rank: 'g',
                    found: '*'
                }
            )
        }),
        (with_rank(6, "15é"), |e| {
            matches!(e, E::UnexpectedCharacter { rank: 'g', .. })
        }),
        (with_rank(6, "15D!="), |e| {
            matches!(e, E::DeferralOnUnpromotable { .. })
        }),
        (with_rank(6, "15+P="), |e| {
            matches!(e, E::DeferralOnUnpromotable { .. })
        }),
        (with_rank(0, "lnficsgekgscifnP"), |e| {
            matches!(e, E::DeadPiece { .. })
        }),
        (with_rank(1, "N15"), |e| matches!(e, E::DeadPiece { .. })),
        (with_rank(7, "KK14"), |e| {
            matches!(
                e,
                E::TooMany {
                    color: Color::Sente,
                    ..
                }
            )
        }),
        (with_rank(7, "PPPPPPPPPPPPPPPP"), |e| {
            matches!(e, E::TooMany { count: 32, .. })
        }),
        (start.replace(" b ", " x "), |e| matches!(e, E::BadSide(_))),
        (start.replace(" - ", " P "), |e| {
            matches!(e, E::HandNotEmpty(_))
        }),
        (start.replace(" 1", " 0"), |e| matches!(e, E::BadPly(_))),
        (start.replace(" 1", " -3"), |e| matches!(e, E::BadPly(_))),
        (start.replace(" 1", " x"), |e| matches!(e, E::BadPly(_))),
    ];
    assert!(cases.len() >= 20);
    for (text, expected) in cases {
        match TenjikuPosition::from_sfen(&text, TenjikuRules::DEFAULT) {
            Ok(_) => panic!("accepted {text:?}"),
            Err(error) => {
                assert!(expected(&error), "{text:?} gave {error:?}");
                assert!(!error.to_string().is_empty());
            }
        }
    }
}

#[test]
fn malformed_or_illegal_tenjiku_moves_get_a_specific_error() {
    let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    // Text that names no move at all is a syntax error; a move this position does not have is
    // illegal, with the reason.
    for (text, syntax, expected) in [
        ("", true, "not a move"),
        ("9l", true, "two or three squares"),
        ("9l9k9j9i", true, "not a move"),
        ("17a1a", true, "not a move"),
        ("9q9k", true, "not a move"),
        ("9l9k++", true, "not a move"),
        ("9l9k=", true, "not a move"),
        ("9x9k", true, "not a move"),
        ("8h8g", false, "8h8g is illegal: there is no piece on 8h"),
        ("9e9f", false, "not sente's"),
        ("9l9j", false, "no such move"),
        ("9l9k+", false, "no such move"),
        ("9o9n9o", false, "own side's piece"),
        ("9o7m9o", false, "not a step"),
        ("9o8n7m", false, "own side's piece"),
        ("9m9l9e", false, "not a step"),
    ] {
        let error = start.parse_usi(text).expect_err(text);
        assert_eq!(
            matches!(error, MoveError::Syntax { .. }),
            syntax,
            "{text:?}: {error:?}"
        );
        assert!(error.to_string().contains(expected), "{text:?}: {error}");
    }
}

// ---- properties ----------------------------------------------------------------------------

mod properties {
    use super::*;
    use proptest::prelude::*;

    const OPTION_SETS: [&str; 4] = [
        "",
        "lion-hawk=tsa,free-eagle=japanese",
        "demon-conflict=adams,range-jump=always",
        "promotion=entry",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Along any game: make/unmake restores everything (burned pieces, deferral flags,
        /// side, key), the incremental key equals a fresh one, SFEN and move text round-trip.
        #[test]
        fn games_keep_every_invariant(set in 0usize..4, choices in prop::collection::vec(any::<u16>(), 1..80)) {
            let options = Options::parse(tenjiku::spec(), OPTION_SETS[set]).expect("options");
            let mut position = TenjikuPosition::start(&options);
            for choice in choices {
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[choice as usize % moves.len()];
                let text = position.to_usi(mv);
                prop_assert_eq!(position.parse_usi(&text), Ok(mv));
                let before = position.clone();
                let undo = position.make_move(mv);
                prop_assert_eq!(position.key(), position.key_from_scratch());
                let sfen = position.to_sfen();
                let reread = TenjikuPosition::from_sfen(&sfen, position.rules()).expect("own SFEN");
                prop_assert_eq!(&reread, &position);
                prop_assert_eq!(reread.key(), position.key());
                let mut back = position.clone();
                back.unmake_move(mv, undo);
                prop_assert_eq!(&back, &before);
                prop_assert_eq!(back.key(), before.key());
            }
        }

        /// Any text is rejected cleanly or read as a position that writes back to itself.
        #[test]
        fn arbitrary_sfen_text_never_panics(text in "[0-9a-zA-Z+!'=/ -]{0,120}") {
            if let Ok(position) = TenjikuPosition::from_sfen(&text, TenjikuRules::DEFAULT) {
                let written = position.to_sfen();
                let again = TenjikuPosition::from_sfen(&written, TenjikuRules::DEFAULT).expect("own SFEN");
                prop_assert_eq!(again.to_sfen(), written);
            }
        }

        /// Any text is rejected with a reason or names a move of the position.
        #[test]
        fn arbitrary_move_text_never_panics(text in "[0-9a-q+]{0,12}") {
            let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
            match start.parse_usi(&text) {
                Ok(mv) => prop_assert!(start.legal_moves().contains(&mv)),
                Err(reason) => prop_assert!(!reason.to_string().is_empty()),
            }
        }
    }
}

#[test]
fn an_optional_move_limit_ends_the_game_without_a_winner() {
    // Decision 15: no automatic impasse rule, but an optional move limit.
    let options = Options::parse(tenjiku::spec(), "max-plies=2").expect("option");
    let mut game = TenjikuGame::new(options);
    game.play_usi("9l9k").expect("first move");
    assert_eq!(game.status(), Status::Ongoing);
    game.play_usi("8e8f").expect("second move");
    assert_eq!(
        game.status(),
        Status::Finished(Outcome {
            winner: None,
            reason: EndReason::MoveLimit
        })
    );
    assert!(game.legal_moves().is_empty());
}

/// A setup made by hand is checked like one read from text: every position's own setup gives it
/// back, and a board of the wrong size, a move number of 0 or a piece where it could never move
/// are refused with the reason.
#[test]
fn setups_are_checked_before_they_become_positions() {
    use tsubame_rules::tenjiku::{TenjikuSetup, TenjikuSetupError};
    let start = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
    let setup = start.to_setup();
    assert_eq!(
        TenjikuPosition::from_setup(&setup, TenjikuRules::DEFAULT),
        Ok(start.clone())
    );
    assert_eq!(TenjikuSetup::from_sfen(&start.to_sfen()), Ok(setup.clone()));
    let mut short = setup.clone();
    short.board.truncate(255);
    assert_eq!(
        TenjikuPosition::from_setup(&short, TenjikuRules::DEFAULT),
        Err(TenjikuSetupError::BoardSize(255))
    );
    let mut unnumbered = setup.clone();
    unnumbered.ply = 0;
    assert!(matches!(
        TenjikuPosition::from_setup(&unnumbered, TenjikuRules::DEFAULT),
        Err(TenjikuSetupError::BadPly(_))
    ));
    // Sente's pawn from 9l moved to the far rank without promoting.
    let mut dead = setup;
    let pawn_role = tenjiku::spec().role_by_sfen("P").expect("the pawn's code");
    let pawn = dead.board.iter().position(|entry| {
        entry.is_some_and(|(piece, _)| piece.color == Color::Sente && piece.role == pawn_role)
    });
    let pawn = pawn.expect("a sente pawn");
    let piece = dead.board[pawn].take();
    dead.board[5] = piece;
    assert!(matches!(
        TenjikuPosition::from_setup(&dead, TenjikuRules::DEFAULT),
        Err(TenjikuSetupError::DeadPiece { .. })
    ));
}
