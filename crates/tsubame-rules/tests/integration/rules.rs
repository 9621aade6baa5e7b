//! Special rules of Tori shogi, one test position each, from the seeds and
//! `rules/tori-shogi.md`: compulsory promotion, drops and the three swallow restrictions,
//! drop-mate under both options, check, checkmate, stalemate, repetition and perpetual check,
//! handicaps, and the expansion pieces with the shrike's exchange.

use tsubame_rules::{
    Color, EndReason, Game, GameError, MoveError, Options, Outcome, Position, Status, tori,
};

fn options(text: &str) -> Options {
    Options::parse(tori::spec(), text).unwrap()
}

fn position(sfen: &str, opts: &str) -> Position<u64> {
    Position::from_sfen(tori::tables(), sfen, options(opts).rule_set())
        .unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn usi_moves(p: &Position<u64>) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().into_iter().map(|m| p.to_usi(m)).collect();
    v.sort();
    v
}

fn game(sfen: &str, opts: &str) -> Game<u64> {
    Game::from_sfen(tori::tables(), sfen, options(opts)).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn play_all(game: &mut Game<u64>, moves: &[&str]) {
    for mv in moves {
        assert_eq!(game.status(), Status::Ongoing, "game ended before {mv}");
        game.play_usi(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
}

// "If a piece crosses the board within the promotion zone, including moves into, out of, or
// wholly within the zone ... then that player must promote the piece."
#[test]
fn falcon_must_promote_into_within_and_out_of_the_zone() {
    // Falcons on 4c (outside), 6b (dropped into the zone earlier) for sente.
    let p = position("6k/1F5/3F3/7/7/7/K6 b - 1", "");
    let moves = usi_moves(&p);
    for must in [
        "4c4b+", "4c3b+", "4c5b+", "6b6a+", "6b5b+", "6b7c+", "6b5c+", "6b7a+",
    ] {
        assert!(
            moves.contains(&must.to_string()),
            "{must} missing from {moves:?}"
        );
        let plain = must.trim_end_matches('+');
        assert!(
            !moves.contains(&plain.to_string()),
            "{plain} must not be playable unpromoted"
        );
    }
    // Outside the zone there is no promotion.
    assert!(moves.contains(&"4c3d".to_string()) && !moves.contains(&"4c3d+".to_string()));
    // A move out of the zone that leaves the falcon unpromoted is refused with the reason.
    let err = p.parse_usi("6b7c").unwrap_err();
    assert!(err.to_string().contains("must promote"), "{err}");
}

#[test]
fn swallow_promotes_entering_the_zone_and_captured_pieces_return_unpromoted() {
    let mut p = position("k6/7/3S3/7/7/7/6K b - 1", "");
    assert_eq!(
        p.parse_usi("4c4b").unwrap_err().to_string(),
        "4c4b is illegal: a swallow must promote on a move into, within or out of the zone"
    );
    p.play_usi("4c4b+").unwrap();
    assert_eq!(p.to_sfen(), "k6/3+S3/7/7/7/7/6K w - 2");
    // A goose captured goes to hand as a swallow.
    let mut q = position("k6/1+S5/7/7/7/7/6K w - 1", "");
    q.play_usi("7a6b").unwrap();
    assert_eq!(q.hand_count(Color::Gote, tori::SWALLOW), 1);
    assert_eq!(q.hand_count(Color::Gote, tori::GOOSE), 0);
    assert_eq!(q.to_sfen(), "7/1k5/7/7/7/7/6K b s 2");
}

#[test]
fn drops_never_promote_and_a_falcon_dropped_in_the_zone_promotes_on_its_next_move() {
    let mut p = position("k6/7/7/7/7/7/6K b F 1", "");
    assert!(usi_moves(&p).contains(&"F*3b".to_string()));
    p.play_usi("F*3b").unwrap();
    assert_eq!(
        p.piece_at(tori::tables().geometry.parse_square("3b").unwrap())
            .map(|x| x.role),
        Some(tori::FALCON)
    );
    p.play_usi("7a7b").unwrap();
    let moves = usi_moves(&p);
    assert!(
        moves
            .iter()
            .filter(|m| m.starts_with("3b"))
            .all(|m| m.ends_with('+'))
    );
}

// "A swallow may not be dropped on the furthest rank."
#[test]
fn swallow_drops_barred_on_the_last_rank_only() {
    let p = position("k6/7/7/7/7/7/6K b S 1", "");
    let drops: Vec<String> = usi_moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("S*"))
        .collect();
    assert!(!drops.iter().any(|d| d.ends_with('a')));
    assert_eq!(drops.len(), 49 - 2 - 6);
    let g = position("k6/7/7/7/7/7/6K w s 1", "");
    let drops: Vec<String> = usi_moves(&g)
        .into_iter()
        .filter(|m| m.starts_with("S*"))
        .collect();
    assert!(!drops.iter().any(|d| d.ends_with('g')));
    assert!(drops.contains(&"S*3a".to_string()));
    assert_eq!(
        p.parse_usi("S*3a").unwrap_err().to_string(),
        "S*3a is illegal: a swallow may not be dropped on the last 1 rank(s)"
    );
}

// "A swallow cannot be dropped into the same file as two other unpromoted swallows controlled by
// the same player. (A goose ... does not count.)"
#[test]
fn swallow_drops_barred_on_a_file_with_two_own_unpromoted_swallows() {
    // File 3: two sente swallows. File 5: sente swallow and goose. File 6: sente swallow and a
    // gote swallow.
    let p = position("k6/7/2S1S2/1s5/1S+S1S2/7/6K b S 1", "");
    let drops: Vec<String> = usi_moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("S*"))
        .collect();
    assert!(
        !drops.iter().any(|d| d.starts_with("S*3")),
        "file 3 is full: {drops:?}"
    );
    assert!(
        drops.contains(&"S*5d".to_string()),
        "a goose does not count"
    );
    assert!(
        drops.contains(&"S*6c".to_string()),
        "the opponent's swallows do not count"
    );
    assert!(
        p.parse_usi("S*3d")
            .unwrap_err()
            .to_string()
            .contains("file 3 already holds 2")
    );
}

/// Gote's phoenix on 1a hemmed in by its own swallows on 2a and 2b; a sente crane on 1c guards
/// 1b. A sente swallow dropped on 1b mates.
const DROP_MATE: &str = "5sk/5s1/6C/7/7/7/K6 b S 1";

#[test]
fn mating_swallow_drop_loses_by_default() {
    let p = position(DROP_MATE, "");
    assert!(usi_moves(&p).contains(&"S*1b".to_string()));
    let mut g = game(DROP_MATE, "");
    assert_eq!(
        g.play_usi("S*1b").map(|_| g.status()).unwrap(),
        Status::Finished(Outcome {
            winner: Some(Color::Gote),
            reason: EndReason::DropMate
        })
    );
    assert!(matches!(g.play_usi("7g7f"), Err(GameError::Finished(_))));
}

#[test]
fn mating_swallow_drop_is_illegal_under_the_strict_option() {
    let p = position(DROP_MATE, "drop-mate=illegal");
    assert!(!usi_moves(&p).contains(&"S*1b".to_string()));
    assert_eq!(
        p.parse_usi("S*1b").unwrap_err(),
        MoveError::Illegal {
            text: "S*1b".into(),
            reason: "a swallow drop may not give immediate mate".into()
        }
    );
    // The same mate by another piece is fine: a falcon dropped on 1b mates too.
    let q = position("5sk/5s1/6C/7/7/7/K6 b FS 1", "drop-mate=illegal");
    let mut g = Game::from_position(q.clone(), options("drop-mate=illegal"));
    g.play_usi("F*1b").unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Checkmate
        })
    );
}

#[test]
fn swallow_drop_that_checks_without_mating_is_legal_under_both_options() {
    // Without the crane on 1c the phoenix takes the swallow.
    for opts in ["drop-mate=loses", "drop-mate=illegal"] {
        let mut g = game("5sk/5s1/7/7/7/7/K6 b S 1", opts);
        g.play_usi("S*1b").unwrap();
        assert_eq!(g.status(), Status::Ongoing);
        assert!(g.position().in_check());
    }
}

#[test]
fn swallow_drop_that_stalemates_is_legal_and_stalemate_loses() {
    // Gote's lone phoenix on 1a; sente's left quail on 2g rakes file 2. S*1c takes away 1b
    // without giving check.
    for opts in ["drop-mate=loses", "drop-mate=illegal"] {
        let mut g = game("6k/7/7/7/7/7/K4L1 b S 1", opts);
        g.play_usi("S*1c").unwrap();
        assert_eq!(
            g.outcome(),
            Some(Outcome {
                winner: Some(Color::Sente),
                reason: EndReason::Stalemate
            })
        );
        assert!(!g.position().in_check());
    }
}

#[test]
fn a_move_that_leaves_the_own_phoenix_attacked_is_illegal() {
    // Gote's quails range forward, down the board: a gote left quail on 4a pins sente's crane on
    // 4f against the phoenix on 4g. A gote swallow on 3e guards 3f.
    let p = position("3l2k/7/7/7/4s2/3C3/3K3 b - 1", "");
    let moves = usi_moves(&p);
    assert!(
        moves
            .iter()
            .filter(|m| m.starts_with("4f"))
            .all(|m| m.starts_with("4f4")),
        "{moves:?}"
    );
    assert!(moves.contains(&"4f4e".to_string()));
    assert!(!moves.contains(&"4f3e".to_string()));
    assert_eq!(
        p.parse_usi("4f3e").unwrap_err().to_string(),
        "4f3e is illegal: it leaves your phoenix attacked"
    );
    // The phoenix may not step onto an attacked square.
    assert!(!moves.contains(&"4g3f".to_string()) && moves.contains(&"4g5f".to_string()));
}

#[test]
fn check_must_be_answered_by_capture_block_or_escape() {
    // Gote's left quail on 4a checks sente's phoenix on 4g down the file.
    let p = position("3l2k/7/7/7/7/7/3K3 b CS 1", "");
    assert!(p.in_check());
    let moves = usi_moves(&p);
    // Blocks by drops on 4b..4f (a swallow cannot be dropped on 4a, which is occupied anyway),
    // and phoenix steps off the file.
    for m in ["C*4b", "C*4f", "S*4f", "S*4c", "4g3g", "4g5f"] {
        assert!(moves.contains(&m.to_string()), "{m}");
    }
    assert!(!moves.contains(&"4g4f".to_string()));
    assert!(
        !moves
            .iter()
            .any(|m| m.starts_with("C*") && !m.starts_with("C*4"))
    );
    assert_eq!(moves.len(), 5 * 2 + 4);
}

#[test]
fn checkmate_ends_the_game() {
    // Gote's phoenix on 1a, own swallows 2a and 2b; sente drops a falcon on 1b guarded by the crane.
    let mut g = game("5sk/5s1/6C/7/7/7/K6 b F 1", "");
    g.play_usi("F*1b").unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Checkmate
        })
    );
    assert!(g.legal_moves().is_empty());
    // Undo reopens the game.
    g.undo();
    assert_eq!(g.status(), Status::Ongoing);
}

#[test]
fn a_position_given_mate_is_finished_from_the_start() {
    let g = game("5sk/5sF/6C/7/7/7/K6 w - 1", "");
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Checkmate
        })
    );
}

const SHUFFLE: [&str; 4] = ["7g7f", "1a1b", "7f7g", "1b1a"];

#[test]
fn third_occurrence_loses_for_the_player_who_made_it() {
    let mut g = game("6k/7/7/7/7/7/K6 b - 1", "");
    play_all(&mut g, &SHUFFLE);
    play_all(&mut g, &SHUFFLE[..3]);
    assert_eq!(g.status(), Status::Ongoing);
    g.play_usi(SHUFFLE[3]).unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Repetition
        })
    );
}

#[test]
fn repetition_four_waits_for_the_fourth_occurrence() {
    let mut g = game("6k/7/7/7/7/7/K6 b - 1", "repetition=4");
    play_all(&mut g, &SHUFFLE);
    play_all(&mut g, &SHUFFLE);
    assert_eq!(g.status(), Status::Ongoing);
    play_all(&mut g, &SHUFFLE[..3]);
    assert_eq!(g.status(), Status::Ongoing);
    g.play_usi(SHUFFLE[3]).unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Repetition
        })
    );
}

#[test]
fn hands_count_in_repetition() {
    // The same board with a different hand is a different position.
    let a = position("6k/7/7/7/7/7/K6 b S 1", "");
    let b = position("6k/7/7/7/7/7/K6 b - 1", "");
    assert_ne!(a.key(), b.key());
    let c = position("6k/7/7/7/7/7/K6 w - 1", "");
    assert_ne!(b.key(), c.key());
}

/// Sente's eagle shuttles 3d-3c, checking gote's phoenix on 1b and 1a in turn; a left quail on 2g
/// and a crane on 1d fence the phoenix in.
const PERPETUAL: &str = "6k/7/7/4+F1C/7/7/K4L1 b - 1";
const CHECKING: [&str; 4] = ["3d3c", "1a1b", "3c3d", "1b1a"];

#[test]
fn perpetual_check_loses_for_the_checking_player_even_when_the_other_repeats() {
    let mut g = game(PERPETUAL, "");
    play_all(&mut g, &CHECKING);
    play_all(&mut g, &CHECKING[..3]);
    assert_eq!(g.status(), Status::Ongoing);
    // Gote's move makes the third occurrence, but every sente move of the cycle gave check.
    g.play_usi(CHECKING[3]).unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Gote),
            reason: EndReason::PerpetualCheck
        })
    );
}

#[test]
fn perpetual_check_loses_when_the_checker_makes_the_repetition() {
    let mut g = game("6k/7/4+F2/6C/7/7/K4L1 w - 1", "");
    let cycle = ["1a1b", "3c3d", "1b1a", "3d3c"];
    play_all(&mut g, &cycle);
    play_all(&mut g, &cycle[..3]);
    g.play_usi(cycle[3]).unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Gote),
            reason: EndReason::PerpetualCheck
        })
    );
}

#[test]
fn handicaps_remove_gote_pieces_for_good_and_gote_moves_first() {
    let cases = [
        (
            "left-quail",
            "rpckcp1/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1",
        ),
        (
            "falcon",
            "rpckcpl/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1",
        ),
        (
            "falcon-left-quail",
            "rpckcp1/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1",
        ),
        (
            "falcon-both-quails",
            "1pckcp1/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1",
        ),
    ];
    for (name, sfen) in cases {
        let start = tori::start(&options(&format!("handicap={name}"))).unwrap();
        assert_eq!(start.to_sfen(), sfen, "{name}");
        assert_eq!(start.side_to_move(), Color::Gote);
        assert!(start.legal_moves().iter().all(|m| !m.is_from_hand()));
    }
}

#[test]
fn owl_replaces_the_right_hand_crane() {
    let start = tori::start(&options("owl=on")).unwrap();
    assert_eq!(
        start.to_sfen(),
        "rpokcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKOPR b - 1"
    );
}

#[test]
fn shrike_starts_in_hand_and_drops_anywhere_empty() {
    let start = tori::start(&options("shrike=on")).unwrap();
    assert_eq!(
        start.to_sfen(),
        "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b Mm 1"
    );
    let drops = usi_moves(&start)
        .into_iter()
        .filter(|m| m.starts_with("M*"))
        .count();
    assert_eq!(
        drops,
        49 - 32,
        "every empty square, the last rank's included"
    );
    // A shrike on the last rank cannot move, but may be dropped there.
    let p = position("k6/7/7/7/7/7/6K b M 1", "");
    assert!(usi_moves(&p).contains(&"M*3a".to_string()));
}

#[test]
fn shrike_exchange_in_the_zone() {
    // Sente's shrike on 4b with a crane, a falcon, a swallow and a second shrike in hand.
    let p = position("k6/3M3/7/7/7/7/6K b CFMS 1", "");
    let moves = usi_moves(&p);
    assert!(moves.contains(&"C*4b".to_string()) && moves.contains(&"F*4b".to_string()));
    assert!(!moves.contains(&"S*4b".to_string()), "not for a swallow");
    assert!(
        !moves.contains(&"M*4b".to_string()),
        "not for another shrike"
    );
    let mut after = p.clone();
    after.play_usi("F*4b").unwrap();
    assert_eq!(after.to_sfen(), "k6/3F3/7/7/7/7/6K w CS2M 2");
    // The placed falcon is unpromoted and promotes on its next move.
    after.play_usi("7a7b").unwrap();
    assert!(
        usi_moves(&after)
            .iter()
            .filter(|m| m.starts_with("4b"))
            .all(|m| m.ends_with('+'))
    );
    // Outside the zone there is no exchange.
    let q = position("k6/7/3M3/7/7/7/6K b C 1", "");
    assert!(!usi_moves(&q).contains(&"C*4c".to_string()));
    // A shrike on the last rank can still be exchanged.
    let r = position("k2M3/7/7/7/7/7/6K b C 1", "");
    assert!(usi_moves(&r).contains(&"C*4a".to_string()));
}

#[test]
fn shrike_exchange_cannot_answer_check_but_may_give_mate() {
    let checked = position("6k/3M3/7/7/7/3c3/3K3 b C 1", "");
    assert!(checked.in_check());
    assert!(!usi_moves(&checked).contains(&"C*4b".to_string()));
    // An exchange that brings a falcon next to gote's hemmed-in phoenix mates, also under the
    // strict drop-mate option, which concerns swallow drops only.
    // Gote's phoenix on 1a behind its pheasant on 2a; sente's shrike on 2b, guarded by a crane.
    let mut g = game("5pk/5M1/5C1/7/7/7/K6 b F 1", "drop-mate=illegal");
    g.play_usi("F*2b").unwrap();
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Sente),
            reason: EndReason::Checkmate
        })
    );
}

#[test]
fn captured_shrike_goes_to_the_captor() {
    let mut p = position("k6/7/7/3m3/3S3/7/6K b - 1", "");
    p.play_usi("4e4d").unwrap();
    assert_eq!(p.hand_count(Color::Sente, tori::SHRIKE), 1);
}

#[test]
fn resignation_and_time_are_results() {
    let mut g = Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
    g.lose_on_time(Color::Sente);
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Gote),
            reason: EndReason::Time
        })
    );
    g.resign(Color::Gote);
    assert_eq!(
        g.outcome().map(|o| o.reason),
        Some(EndReason::Time),
        "the first result stands"
    );
}
