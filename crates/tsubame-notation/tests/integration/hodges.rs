//! Hodges notation on hand-made positions: the examples of the encyclopedia article (seed 000),
//! disambiguation, quails, the shrike's exchange, promotion, and malformed text.

use tsubame_notation::{HodgesError, Notator, parse_hodges, write_hodges, write_short};
use tsubame_rules::{Move, MoveKind, Options, Position, tori};

fn start() -> Position<u64> {
    tori::start(&Options::defaults(tori::spec())).unwrap()
}

fn sfen(text: &str) -> Position<u64> {
    let rules = Options::parse(tori::spec(), "shrike=on,owl=on")
        .unwrap()
        .rule_set();
    Position::from_sfen(tori::tables(), text, rules).unwrap()
}

/// Reads `text`, checks it is the legal move `usi` and that it is written back as `canonical`.
#[track_caller]
fn reads(position: &Position<u64>, text: &str, usi: &str, canonical: &str) -> Move {
    let mv = parse_hodges(position, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(position.to_usi(mv), usi, "{text}");
    assert!(position.legal_moves().contains(&mv), "{text}");
    assert_eq!(write_hodges(position, mv), canonical, "{text}");
    mv
}

#[test]
fn the_seed_opening_reads_and_rewrites() {
    let mut position = start();
    let expected = [
        ("Swx3c", "3d3c", "Swx3c"),
        ("Swx5e", "5d5e", "Swx5e"),
        ("Fax5e", "4f5e", "Fax5e"),
        ("Fax3c", "4b3c", "Fax3c"),
        ("Cr-5f", "5g5f", "Cr-5f"),
        ("Q-1b", "1a1b", "LQ-1b"),
    ];
    for (text, usi, canonical) in expected {
        let mv = reads(&position, text, usi, canonical);
        position.play(mv).unwrap();
    }
}

#[test]
fn seed_examples_in_positions_where_they_are_legal() {
    // Sw-6d: the swallow on 6e steps forward at the very start.
    reads(&start(), "Sw-6d", "6e6d", "Sw-6d");

    // Sw*4d: after the two swallow captures sente holds a swallow.
    let mut position = start();
    for usi in ["3d3c", "5d5e"] {
        position.play_usi(usi).unwrap();
    }
    let mv = reads(&position, "Sw*4d", "S*4d", "Sw*4d");
    assert_eq!(
        mv.kind(),
        MoveKind::Drop {
            role: tori::SWALLOW,
            to: mv.to()
        }
    );

    // SWx4a+: a swallow on 4b takes the pheasant on 4a and promotes; the seed writes it in
    // capitals, and the `+` may be left out because the promotion is compulsory.
    let position = sfen("k2p3/3S3/7/7/7/7/3K3 b - 1");
    reads(&position, "SWx4a+", "4b4a+", "Swx4a+");
    reads(&position, "Swx4a", "4b4a+", "Swx4a+");
    reads(&position, "swx4A+", "4b4a+", "Swx4a+");
    assert_eq!(
        write_short(&position, position.parse_usi("4b4a+").unwrap()),
        "Sx41+"
    );
}

#[test]
fn two_cranes_reaching_one_square_need_their_start_squares() {
    let position = sfen("3k3/7/2C1C2/7/7/7/3K3 b - 1");
    reads(&position, "Cr5c-4b", "5c4b", "Cr5c-4b");
    reads(&position, "Cr3c-4b", "3c4b", "Cr3c-4b");
    // Only one crane reaches 5b, so its start square is left out, and accepted if written.
    reads(&position, "Cr-5b", "5c5b", "Cr-5b");
    reads(&position, "Cr5c-5b", "5c5b", "Cr-5b");
    assert_eq!(
        parse_hodges(&position, "Cr-4b").map_err(sorted_candidates),
        Err(HodgesError::Ambiguous {
            written: "Cr-4b".to_string(),
            candidates: vec!["Cr3c-4b".to_string(), "Cr5c-4b".to_string()],
        })
    );
    let short = |usi: &str| write_short(&position, position.parse_usi(usi).unwrap());
    assert_eq!(short("5c4b"), "C5342");
    assert_eq!(short("3c4b"), "C3342");
    assert_eq!(short("5c5b"), "C52");

    let capture = sfen("3k3/3f3/2C1C2/7/7/7/3K3 b - 1");
    reads(&capture, "Cr5cx4b", "5c4b", "Cr5cx4b");
    assert_eq!(
        write_short(&capture, capture.parse_usi("3c4b").unwrap()),
        "C33x42"
    );
}

fn sorted_candidates(error: HodgesError) -> HodgesError {
    match error {
        HodgesError::Ambiguous {
            written,
            mut candidates,
        } => {
            candidates.sort();
            HodgesError::Ambiguous {
                written,
                candidates,
            }
        }
        other => other,
    }
}

#[test]
fn a_bare_q_names_whichever_quail_can_move() {
    // A left quail on 5c and a right quail on 3c both reach 4d diagonally backwards.
    let position = sfen("3k3/7/2L1R2/7/7/7/3K3 b - 1");
    reads(&position, "LQ-4d", "5c4d", "LQ-4d");
    reads(&position, "rq-4d", "3c4d", "RQ-4d");
    reads(&position, "Q-5b", "5c5b", "LQ-5b");
    reads(&position, "Q3c-4d", "3c4d", "RQ-4d");
    assert_eq!(
        parse_hodges(&position, "Q-4d").map_err(sorted_candidates),
        Err(HodgesError::Ambiguous {
            written: "Q-4d".to_string(),
            candidates: vec!["LQ-4d".to_string(), "RQ-4d".to_string()],
        })
    );
    // The wrong quail is not silently swapped for the right one.
    assert!(matches!(
        parse_hodges(&position, "RQ-5b"),
        Err(HodgesError::NoSuchMove { .. })
    ));
}

#[test]
fn the_shrike_exchange_is_written_like_a_drop_on_its_square() {
    let position = sfen("3k3/4M2/7/7/7/7/3K3 b CM 1");
    let mv = reads(&position, "Cr*3b", "C*3b", "Cr*3b");
    assert!(matches!(mv.kind(), MoveKind::Exchange { role, .. } if role == tori::CRANE));
    assert_eq!(write_short(&position, mv), "C*32");
    let mv = reads(&position, "Cr*4c", "C*4c", "Cr*4c");
    assert!(matches!(mv.kind(), MoveKind::Drop { .. }));
    reads(&position, "Sh*4d", "M*4d", "Sh*4d");
    reads(&position, "Sh-3a", "3b3a", "Sh-3a");
    let err = parse_hodges(&position, "Sh*3b").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no legal move Sh*3b: a shrike cannot be brought in by an exchange"
    );
}

#[test]
fn swallows_promote_into_and_within_the_zone() {
    let into = sfen("3k3/7/4S2/7/7/7/3K3 b - 1");
    reads(&into, "Sw-3b+", "3c3b+", "Sw-3b+");
    reads(&into, "Sw-3b", "3c3b+", "Sw-3b+");
    assert_eq!(
        parse_hodges(&into, "Sw-3b="),
        Err(HodgesError::MustPromote {
            written: "Sw-3b=".to_string(),
            piece: "swallow"
        })
    );

    let within = sfen("k6/4S2/7/7/7/7/3K3 b - 1");
    reads(&within, "Sw-3a+", "3b3a+", "Sw-3a+");
    assert_eq!(
        write_short(&within, within.parse_usi("3b3a+").unwrap()),
        "S31+"
    );

    // Below the zone a swallow step does not promote, and `+` is refused.
    let below = start();
    reads(&below, "Sw-6d", "6e6d", "Sw-6d");
    assert_eq!(
        parse_hodges(&below, "Sw-6d+"),
        Err(HodgesError::CannotPromote {
            written: "Sw-6d+".to_string(),
            reason: "the move neither starts nor ends in the promotion zone".to_string(),
        })
    );

    // The goose keeps its `+` while moving.
    let goose = sfen("k6/7/7/7/2+S4/7/3K3 b - 1");
    reads(&goose, "+Sw-3c", "5e3c", "+Sw-3c");
    assert_eq!(
        write_short(&goose, goose.parse_usi("5e3c").unwrap()),
        "+S33"
    );
}

#[test]
fn falcons_promote_into_within_and_out_of_the_zone() {
    let into = sfen("k6/7/4F2/7/7/7/3K3 b - 1");
    reads(&into, "Fa-3b+", "3c3b+", "Fa-3b+");
    reads(&into, "Fa-3b", "3c3b+", "Fa-3b+");
    reads(&into, "Fa-2d", "3c2d", "Fa-2d");

    let inside = sfen("k6/4F2/7/7/7/7/3K3 b - 1");
    reads(&inside, "Fa-2b+", "3b2b+", "Fa-2b+");
    reads(&inside, "Fa-3a+", "3b3a+", "Fa-3a+");
    reads(&inside, "Fa-2c+", "3b2c+", "Fa-2c+");
    reads(&inside, "Fa-4c", "3b4c+", "Fa-4c+");
    assert_eq!(
        write_short(&inside, inside.parse_usi("3b4c+").unwrap()),
        "F43+"
    );

    let eagle = sfen("6k/7/7/7/4+F2/7/3K3 b - 1");
    reads(&eagle, "+Fa-6b", "3e6b", "+Fa-6b");
    assert_eq!(
        write_short(&eagle, eagle.parse_usi("3e6b").unwrap()),
        "+F62"
    );
    assert_eq!(
        parse_hodges(&eagle, "+Fa-6b+"),
        Err(HodgesError::CannotPromote {
            written: "+Fa-6b+".to_string(),
            reason: "the eagle never promotes".to_string(),
        })
    );

    let crane = sfen("k6/7/4C2/7/7/7/3K3 b - 1");
    assert_eq!(
        parse_hodges(&crane, "Cr-3b+"),
        Err(HodgesError::CannotPromote {
            written: "Cr-3b+".to_string(),
            reason: "the crane never promotes".to_string(),
        })
    );
}

#[test]
fn gote_moves_are_written_from_the_same_board_coordinates() {
    let mut position = start();
    position.play_usi("6e6d").unwrap();
    reads(&position, "Sw-2d", "2c2d", "Sw-2d");
    reads(&position, "Fa-3b", "4b3b", "Fa-3b");
    reads(&position, "Q-1b", "1a1b", "LQ-1b");
    reads(&position, "Cr-6b", "5a6b", "Cr-6b");
    assert_eq!(
        write_short(&position, position.parse_usi("5d5e").unwrap()),
        "Sx55"
    );
}

#[test]
fn short_form_matches_the_play_site_examples() {
    let position = sfen("3k3/6S/7/7/7/7/3K3 b S 1");
    let short = |usi: &str| write_short(&position, position.parse_usi(usi).unwrap());
    assert_eq!(short("1b1a+"), "S11+");
    assert_eq!(short("S*3c"), "S*33");
    assert_eq!(short("4g4f"), "K46");
    assert_eq!(short("S*7g"), "S*77");
    assert_eq!(
        write_short(&start(), start().parse_usi("3d3c").unwrap()),
        "Sx33"
    );
}

#[test]
fn notator_agrees_with_the_free_functions() {
    let position = sfen("3k3/4M2/2C1C2/7/7/7/3K3 b CS 1");
    let notator = Notator::new(&position);
    for &mv in notator.legal_moves() {
        assert_eq!(notator.hodges(mv), write_hodges(&position, mv));
        assert_eq!(notator.short(mv), write_short(&position, mv));
        assert_eq!(notator.parse_hodges(&notator.hodges(mv)), Ok(mv));
    }
}

#[test]
fn illegal_moves_are_written_without_panicking() {
    let position = start();
    let nothing = position.tables().geometry.square(4, 3).unwrap();
    let anywhere = position.tables().geometry.square(4, 4).unwrap();
    assert_eq!(
        write_hodges(&position, Move::normal(nothing, anywhere, false)),
        "?x4e"
    );
    assert_eq!(
        write_hodges(&position, Move::drop(tsubame_rules::Role(200), anywhere)),
        "?*4e"
    );
}

/// One malformed or impossible text and the error it must give.
#[track_caller]
fn rejects(position: &Position<u64>, text: &str, expected: HodgesError) {
    assert_eq!(parse_hodges(position, text), Err(expected), "{text:?}");
}

fn s(text: &str) -> String {
    text.to_string()
}

#[test]
fn malformed_text_is_rejected_with_the_specific_error() {
    let p = start();
    rejects(&p, "", HodgesError::Empty);
    rejects(&p, " \t\n", HodgesError::Empty);
    rejects(&p, "Sw-6dé", HodgesError::NonAscii { found: 'é' });
    rejects(
        &p,
        "\u{3000}Sw-6d",
        HodgesError::NonAscii { found: '\u{3000}' },
    );
    rejects(&p, "-6d", HodgesError::MissingPiece { found: s("-6d") });
    rejects(&p, "6e-6d", HodgesError::MissingPiece { found: s("6e-6d") });
    rejects(&p, "+", HodgesError::MissingPiece { found: s("+") });
    rejects(
        &p,
        "Zz-6d",
        HodgesError::UnknownPiece {
            abbreviation: s("Zz"),
        },
    );
    rejects(
        &p,
        "Zzx3c",
        HodgesError::UnknownPiece {
            abbreviation: s("Zz"),
        },
    );
    rejects(
        &p,
        "+Cr-6d",
        HodgesError::UnknownPiece {
            abbreviation: s("+Cr"),
        },
    );
    rejects(
        &p,
        "Swallow-6d",
        HodgesError::UnknownPiece {
            abbreviation: s("Swallow"),
        },
    );
    rejects(&p, "Sw-8d", HodgesError::BadSquare { square: s("8d") });
    rejects(&p, "Sw-6z", HodgesError::BadSquare { square: s("6z") });
    rejects(&p, "Sw-d6", HodgesError::BadSquare { square: s("d6") });
    rejects(&p, "Sw9e-6d", HodgesError::BadSquare { square: s("9e") });
    rejects(&p, "Sw-", HodgesError::MissingDestination { marker: '-' });
    rejects(&p, "Swx", HodgesError::MissingDestination { marker: 'x' });
    rejects(
        &p,
        "Sw6d",
        HodgesError::MissingMarker {
            after: s("Sw6d"),
            found: s(""),
        },
    );
    rejects(
        &p,
        "Sw/6d",
        HodgesError::MissingMarker {
            after: s("Sw"),
            found: s("/6d"),
        },
    );
    rejects(
        &p,
        "Sw - 6d",
        HodgesError::MissingMarker {
            after: s("Sw"),
            found: s(" - 6d"),
        },
    );
    rejects(
        &p,
        "Sw6e*6d",
        HodgesError::DropWithStartSquare { start: s("6e") },
    );
    rejects(&p, "Sw-6d#", HodgesError::Trailing { rest: s("#") });
    rejects(&p, "Sw-6d!", HodgesError::Trailing { rest: s("!") });
    rejects(&p, "Sw-6d++", HodgesError::Trailing { rest: s("+") });
    rejects(&p, "Sw-6d 1", HodgesError::Trailing { rest: s(" 1") });
    rejects(&p, "Sw*4d+", HodgesError::PromotionMarkOnDrop { mark: '+' });
    rejects(
        &p,
        "Swx6d",
        HodgesError::CaptureOnEmptySquare { square: s("6d") },
    );
    rejects(
        &p,
        "Sw-3c",
        HodgesError::UnmarkedCapture {
            square: s("3c"),
            piece: "swallow",
        },
    );
    rejects(
        &p,
        "Sw*4d",
        HodgesError::NoSuchMove {
            written: s("Sw*4d"),
            reason: s("you have no swallow in hand"),
        },
    );
    rejects(
        &p,
        "Ph-4f",
        HodgesError::NoSuchMove {
            written: s("Ph-4f"),
            reason: s("4f is held by your own falcon"),
        },
    );
    rejects(
        &p,
        "Sw4e-4c",
        HodgesError::NoSuchMove {
            written: s("Sw4e-4c"),
            reason: s("a swallow cannot move from 4e to 4c"),
        },
    );
    rejects(
        &p,
        "Cr4f-4e",
        HodgesError::NoSuchMove {
            written: s("Cr4f-4e"),
            reason: s("the piece on 4f is a falcon, not a crane"),
        },
    );
    rejects(
        &p,
        "Sw4c-4d",
        HodgesError::NoSuchMove {
            written: s("Sw4c-4d"),
            reason: s("the swallow on 4c belongs to gote"),
        },
    );
    rejects(
        &p,
        "+Sw-4d",
        HodgesError::NoSuchMove {
            written: s("+Sw-4d"),
            reason: s("you have no goose on the board"),
        },
    );
    rejects(
        &p,
        "Cr-4b",
        HodgesError::NoSuchMove {
            written: s("Cr-4b"),
            reason: s("no crane of yours can move to 4b"),
        },
    );
}

#[test]
fn a_move_that_exposes_the_phoenix_is_explained() {
    // The crane on 4f shields the phoenix from gote's right quail on 4a, which ranges
    // straight forward, down the board.
    let position = sfen("k2r3/7/7/7/7/3C3/3K3 b - 1");
    assert_eq!(
        parse_hodges(&position, "Cr-5e").unwrap_err().to_string(),
        "no legal move Cr-5e: it leaves your phoenix attacked"
    );
    let position = sfen("3k3/7/7/7/3r3/7/3K3 b C 1");
    assert_eq!(
        parse_hodges(&position, "Ph-5f").map(|m| position.to_usi(m)),
        Ok(s("4g5f"))
    );
    assert_eq!(
        parse_hodges(&position, "Cr*5c").unwrap_err().to_string(),
        "no legal move Cr*5c: it does not answer the check"
    );
}

#[test]
fn error_messages_name_the_offending_part() {
    let p = start();
    let message = |text: &str| parse_hodges(&p, text).unwrap_err().to_string();
    assert_eq!(message(""), "empty move text");
    assert_eq!(message("Zz-6d"), "unknown piece abbreviation \"Zz\"");
    assert_eq!(message("Sw-8d"), "bad square \"8d\"");
    assert_eq!(
        message("Sw6d"),
        "expected '-', 'x' or '*' after \"Sw6d\", found the end of the text"
    );
    assert_eq!(message("Sw-6d#"), "unexpected \"#\" after the destination");
    assert_eq!(
        message("Swx6d"),
        "'x' marks a capture, but 6d is empty (write '-')"
    );
    assert_eq!(
        message("Sw-3c"),
        "the move captures the swallow on 3c: write 'x', not '-'"
    );
    let cranes = sfen("3k3/7/2C1C2/7/7/7/3K3 b - 1");
    let err = parse_hodges(&cranes, "Cr-4b").unwrap_err().to_string();
    assert!(
        err == "Cr-4b is ambiguous: it could be Cr5c-4b or Cr3c-4b"
            || err == "Cr-4b is ambiguous: it could be Cr3c-4b or Cr5c-4b",
        "{err}"
    );
}
