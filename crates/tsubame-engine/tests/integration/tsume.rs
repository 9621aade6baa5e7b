//! The tsume solver against a brute-force search of checks, and every line it reports replayed
//! through the rules' own games.

use tsubame_engine::bench::MATES;
use tsubame_engine::tsume::{MateLimits, MateResult, solve};
use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{
    AnyGame, AnyPosition, Bitboard, Color, DropMateRule, EndReason, Move, MoveKind, Options,
    Position, Status, Variant, tori,
};

/// Whether the side to move (attacking) mates within `plies` by checks, by trying every legal
/// move: a check is read by playing the move and asking whether the opponent is in check, a
/// mate by asking for the defender's legal moves, never by the solver's own generators.
fn brute_mates<B: Bitboard>(
    position: &mut Position<B>,
    plies: u32,
    attacking: bool,
    line: &mut Vec<u64>,
) -> bool {
    if attacking {
        if plies == 0 {
            return false;
        }
        for mv in position.legal_moves() {
            let undo = position.make_move(mv);
            let check = position.in_check();
            let restricted_mate = check
                && position.rules().drop_mate == DropMateRule::Loses
                && is_restricted_drop(position, mv)
                && position.legal_moves().is_empty();
            let repeated = line.contains(&position.key());
            let mates = check && !restricted_mate && !repeated && {
                line.push(position.key());
                let mates = brute_mates(position, plies - 1, false, line);
                line.pop();
                mates
            };
            position.unmake_move(mv, undo);
            if mates {
                return true;
            }
        }
        false
    } else {
        let replies = position.legal_moves();
        if replies.is_empty() {
            return true;
        }
        if plies == 0 {
            return false;
        }
        for mv in replies {
            let undo = position.make_move(mv);
            let repeated = line.contains(&position.key());
            let mated = !repeated && {
                line.push(position.key());
                let mated = brute_mates(position, plies - 1, true, line);
                line.pop();
                mated
            };
            position.unmake_move(mv, undo);
            if !mated {
                return false;
            }
        }
        true
    }
}

fn is_restricted_drop<B: Bitboard>(position: &Position<B>, mv: Move) -> bool {
    match mv.kind() {
        MoveKind::Drop { role, .. } => position
            .tables()
            .spec
            .roles
            .get(role.index())
            .is_some_and(|r| r.drop.mate_restricted),
        _ => false,
    }
}

/// The shortest mate by brute force, in attacker moves, up to `max_moves`.
fn brute_shortest<B: Bitboard>(position: &Position<B>, max_moves: u32) -> Option<u32> {
    (1..=max_moves).find(|&moves| {
        let mut walk = position.clone();
        let mut line = vec![walk.key()];
        brute_mates(&mut walk, 2 * moves - 1, true, &mut line)
    })
}

fn solved<P: tsubame_engine::tsume::MateRules>(position: &P, max_moves: u32) -> MateResult {
    solve(position, &MateLimits::moves(max_moves), &mut |_| {}).result
}

/// Whether the Tenjiku side to move could take the last royal of `victim` with one move.
fn threatens(position: &TenjikuPosition, victim: Color) -> bool {
    position.legal_moves().into_iter().any(|mv| {
        let mut after = position.clone();
        after.make_move(mv);
        after.royal_count(victim) == 0
    })
}

/// Replays a reported mate through the rules' game: every attacker move legal and a check,
/// every defender move legal, `2N - 1` moves, and the game over by checkmate for the attacker.
fn assert_valid_mate(options: &Options, sfen: &str, line: &[Move], moves: u32) {
    assert_eq!(line.len(), 2 * moves as usize - 1, "{sfen}: line length");
    let mut game = AnyGame::from_sfen(sfen, options.clone()).expect("the suite's SFEN");
    let attacker = game.position().side_to_move();
    for (index, &mv) in line.iter().enumerate() {
        let before = game.position();
        assert!(before.is_legal(mv), "{sfen}: move {} is illegal", index + 1);
        game.play(mv)
            .unwrap_or_else(|e| panic!("{sfen}: move {}: {e}", index + 1));
        if index % 2 == 0 {
            let after = game.position();
            let check = match &after {
                AnyPosition::Tenjiku(position) => {
                    let mut passed = position.as_ref().clone();
                    passed.make_null_move();
                    threatens(&passed, !attacker)
                }
                other => other.in_check(),
            };
            assert!(check, "{sfen}: attacker move {} gives no check", index + 1);
        }
    }
    match game.status() {
        Status::Finished(outcome) => {
            assert_eq!(outcome.winner, Some(attacker), "{sfen}: winner");
            assert_eq!(outcome.reason, EndReason::Checkmate, "{sfen}: ending");
        }
        Status::Ongoing => panic!("{sfen}: the line does not end the game"),
    }
}

fn suite_position(variant: Variant, options: &[&str], sfen: &str) -> (Options, AnyPosition) {
    let mut parsed = Options::defaults(variant.spec());
    for pair in options {
        parsed.set_pair(pair).expect("the suite's option");
    }
    let position = AnyPosition::from_sfen(&parsed, sfen).expect("the suite's SFEN");
    (parsed, position)
}

fn solve_any(position: &AnyPosition, max_moves: u32) -> MateResult {
    match position {
        AnyPosition::Tori(p) => solved(p, max_moves),
        AnyPosition::Wa(p) => solved(p, max_moves),
        AnyPosition::Tenjiku(p) => solved(p.as_ref(), max_moves),
    }
}

/// Tori positions from self-play games with mates of one to three moves, besides the bench's.
const SHORT_TORI_MATES: &[&str] = &[
    "k+S1l3/s5c/1c2S2/1rs4/3+f1Sp/2cP1SK/7 w fc2plr10s 136",
    "k+S1l3/s5c/1c2S2/1rs4/3+f1SK/2cP1S1/5l1 w Pfc2pr10s 138",
    "1p3+Fr/1kc4/1s1s+S1s/2s1s2/lSs1c1S/4+f1K/1P4R w 2CPL2Sp5s 72",
    "1p4r/1kc4/1s1s+S1s/2s1s2/lSs1c1S/4+f1K/1P3+FR w 2C2PL2S5s 74",
    "r5l/2c4/kPP+FS1s/+fSC+S3/5SS/1S2S2/K4lR b PS2cp7s 129",
    "r5l/kPc4/1PP+FS1s/+fSC+S3/5SS/1S2S2/K4lR b S2cp7s 131",
    "1p3pl/k2fS2/ss1p1sc/s2R3/1s3Ps/3csK1/7 w FCRScl7s 172",
    "1pcP+F2/3s2l/1k1sSss/SPr1S2/1S1S1SS/2fC1K1/L4PR b 2C4Ss 61",
    "1p1P+F2/2cs2l/1k1sSss/SPr1S2/1S1S1SS/2fC1K1/L4PR b C4Scs 63",
    "3kcp1/r2c2l/spp1s1s/1FsSsS1/S1s1c1S/4pS1/L4KR w F3Sc2s 76",
    "3kcp1/r2c2l/spp1s1s/1FsSsS1/S1s1cSS/7/L4KR w FP3Sc2s 78",
    "1C3p1/1L5/2+FS1sS/R3s2/2Cc1SR/K3kC1/1P2+fP1 b PL10Ss 121",
    "1C3p1/1L5/2+FS1sS/R3s2/2Cc1SR/K6/1P2Ck1 b FPL10Sps 123",
    "1R1l3/1+FR2sk/s6/s1+SS2S/1s1SC2/2SKP2/pSL4 b 2C3Sfc2p3s 181",
    "1R1l1k1/1+FR2s1/s5S/s1+SS2S/1s1SC2/2SKP2/pSL4 b 2C2Sfc2p3s 183",
    "2+F4/1Cl3s/r1s4/k1c2+FS/s1p2R1/4S+s1/S2K3 b C4Sc3pl5s 255",
];

/// Positions near the short Tori mates: each, each with one piece fewer in the
/// attacker's hand, and each after one of its first legal moves (the other side attacking).
fn tori_neighbours() -> Vec<Position<u64>> {
    let rules = Options::defaults(tori::spec()).rule_set();
    let mut positions = Vec::new();
    let bench = MATES
        .iter()
        .filter(|m| m.variant == Variant::Tori && m.moves <= 3)
        .map(|m| m.sfen);
    for sfen in bench.chain(SHORT_TORI_MATES.iter().copied()) {
        let base = Position::from_sfen(tori::tables(), sfen, rules).expect("suite SFEN");
        positions.push(base.clone());
        let setup = base.to_setup();
        let side = setup.side_to_move.index();
        for role in 0..setup.hands[side].len() {
            if setup.hands[side][role] > 0 {
                let mut fewer = setup.clone();
                fewer.hands[side][role] -= 1;
                if let Ok(position) = Position::from_setup(tori::tables(), fewer, rules) {
                    positions.push(position);
                }
            }
        }
        for mv in base.legal_moves().into_iter().take(4) {
            let mut after = base.clone();
            after.make_move(mv);
            positions.push(after);
        }
    }
    positions
}

#[test]
fn the_solver_finds_the_mates_a_brute_force_search_finds_and_no_others() {
    let positions = tori_neighbours();
    assert!(positions.len() > 100, "only {} positions", positions.len());
    let (mut mates, mut none) = (0, 0);
    for position in &positions {
        let expected = brute_shortest(position, 2);
        match solved(position, 2) {
            MateResult::Mate(line) => {
                let found = line.len().div_ceil(2) as u32;
                assert_eq!(Some(found), expected, "{}", position.to_sfen());
                mates += 1;
            }
            MateResult::NoMate(2) => {
                assert_eq!(expected, None, "{}", position.to_sfen());
                none += 1;
            }
            other => panic!("{}: {other:?}", position.to_sfen()),
        }
    }
    eprintln!(
        "{} positions: {mates} mates, {none} without",
        positions.len()
    );
    // Both answers are exercised.
    assert!(mates >= 10 && none >= 10, "{mates} mates, {none} without");
}

#[test]
fn mates_in_three_agree_with_brute_force() {
    let rules = Options::defaults(tori::spec()).rule_set();
    let threes: Vec<_> = MATES
        .iter()
        .filter(|m| m.variant == Variant::Tori && m.moves == 3)
        .collect();
    assert!(!threes.is_empty());
    for mate in threes {
        let position = Position::from_sfen(tori::tables(), mate.sfen, rules).expect("suite");
        assert_eq!(brute_shortest(&position, 3), Some(3), "{}", mate.sfen);
        let MateResult::Mate(line) = solved(&position, 3) else {
            panic!("{}: no mate found", mate.sfen);
        };
        assert_eq!(line.len(), 5, "{}", mate.sfen);
    }
}

#[test]
fn every_suite_mate_is_a_legal_line_of_checks_that_ends_the_game_and_none_is_shorter() {
    for mate in MATES.iter().filter(|m| m.moves <= 9) {
        let (options, position) = suite_position(mate.variant, mate.options, mate.sfen);
        let MateResult::Mate(line) = solve_any(&position, mate.moves) else {
            panic!("{}: no mate in {}", mate.sfen, mate.moves);
        };
        assert_valid_mate(&options, mate.sfen, &line, mate.moves);
        if mate.moves > 1 {
            assert_eq!(
                solve_any(&position, mate.moves - 1),
                MateResult::NoMate(mate.moves - 1),
                "{}: a shorter mate",
                mate.sfen
            );
        }
    }
}

#[test]
fn a_swallow_dropped_to_mate_is_never_the_mating_move() {
    // The swallow dropped on 1b, guarded by the crane, would leave the phoenix no move.
    let sfen = "5sk/5s1/6C/7/7/7/K6 b S 1";
    for rule in ["loses", "illegal"] {
        let options = Options::parse(tori::spec(), &format!("drop-mate={rule}")).expect("rule");
        let position =
            Position::from_sfen(tori::tables(), sfen, options.rule_set()).expect("position");
        match position.parse_usi("S*1b") {
            // Played, it would lose for the dropper.
            Ok(drop) => assert!(rule == "loses" && position.is_restricted_drop_mate(drop)),
            Err(_) => assert_eq!(rule, "illegal"),
        }
        assert_eq!(
            solved(&position, 1),
            MateResult::NoMate(1),
            "drop-mate={rule}"
        );
        // With a falcon in hand instead the same drop square mates.
        let falcon = Position::from_sfen(
            tori::tables(),
            "5sk/5s1/6C/7/7/7/K6 b F 1",
            options.rule_set(),
        )
        .expect("position");
        assert!(matches!(solved(&falcon, 1), MateResult::Mate(line) if line.len() == 1));
    }
}

#[test]
fn perpetual_check_is_no_mate_and_the_search_ends() {
    // A lone quail checks the phoenix up and down the file for ever; nothing mates.
    let rules = Options::defaults(tori::spec()).rule_set();
    let position =
        Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/L2K3 b - 1", rules).expect("position");
    assert_eq!(solved(&position, 12), MateResult::NoMate(12));
}

#[test]
fn a_small_table_finds_the_same_mates() {
    for mate in MATES
        .iter()
        .filter(|m| m.variant == Variant::Tori && (5..=9).contains(&m.moves))
        .take(3)
    {
        let (options, position) = suite_position(mate.variant, mate.options, mate.sfen);
        let AnyPosition::Tori(tori_position) = &position else {
            unreachable!()
        };
        let limits = MateLimits {
            table_mib: 1,
            ..MateLimits::moves(mate.moves)
        };
        let MateResult::Mate(line) = solve(tori_position, &limits, &mut |_| {}).result else {
            panic!("{}: no mate with a small table", mate.sfen);
        };
        assert_valid_mate(&options, mate.sfen, &line, mate.moves);
    }
}

#[test]
fn limits_stop_the_search_with_an_unknown_answer() {
    let deepest = MATES
        .iter()
        .filter(|m| m.variant == Variant::Tori)
        .max_by_key(|m| m.moves)
        .expect("a Tori mate");
    let (_, position) = suite_position(deepest.variant, deepest.options, deepest.sfen);
    let AnyPosition::Tori(tori_position) = &position else {
        unreachable!()
    };
    let limits = MateLimits {
        nodes: Some(200),
        ..MateLimits::moves(deepest.moves)
    };
    let report = solve(tori_position, &limits, &mut |_| {});
    assert_eq!(
        report.result,
        MateResult::Unknown(tsubame_engine::tsume::Interrupted::Nodes)
    );
    assert!(report.nodes <= 220, "{} nodes", report.nodes);
}
