//! The generic machinery on a 16x16 board (Tenjiku's size) with a 256-square bitboard: a small
//! test variant of ranging, stepping and leaping pieces, checked for move generation against the
//! independent make-and-test route, text round trips and incremental keys, including the squares
//! of the last bitboard word.

use std::sync::OnceLock;
use tsubame_rules::{
    Bitboard256, DropMateRule, DropRule, Options, Position, PromotionRule, RepetitionRule, Role,
    RoleSpec, RuleSet, StalemateRule, Tables, VariantSpec,
};

const FREE: DropRule = DropRule::FREE;

const fn piece(name: &'static str, sfen: &'static str, betza: &'static str, count: u8) -> RoleSpec {
    RoleSpec {
        name,
        sfen,
        hodges: sfen,
        kanji: "",
        betza,
        promotes_to: None,
        promoted_from: None,
        royal: false,
        drop: FREE,
        set_count: count,
        exchangeable: true,
        hooks: &[],
    }
}

static ROLES: [RoleSpec; 7] = [
    RoleSpec {
        royal: true,
        ..piece("king", "K", "K", 2)
    },
    piece("rook", "R", "R", 4),
    piece("bishop", "B", "B", 4),
    piece("gold", "G", "WfF", 4),
    piece("horse", "N", "ffN", 4),
    RoleSpec {
        promotes_to: Some(Role(6)),
        ..piece("pawn", "P", "fW", 32)
    },
    RoleSpec {
        promoted_from: Some(Role(5)),
        set_count: 0,
        ..piece("tokin", "+P", "WfF", 0)
    },
];

static SPEC: VariantSpec = VariantSpec {
    name: "large-test",
    protocol_name: "large-test",
    title: "16x16 test game",
    width: 16,
    height: 16,
    roles: &ROLES,
    start_sfen: "rnbg4k3gbnr/16/pppppppppppppppp/16/16/16/16/16/16/16/16/16/16/PPPPPPPPPPPPPPPP/16/RNBG3K4GBNR b - 1",
    promotion: PromotionRule {
        zone_depth: 5,
        compulsory: false,
    },
    drops: false,
    repetition: RepetitionRule::NoContest,
    default_rules: RuleSet {
        drop_mate: DropMateRule::Illegal,
        repetition_count: 4,
        drops: false,
        max_plies: 0,
    },
    stalemate: StalemateRule::Loss,
    options: &[],
};

fn tables() -> &'static Tables<Bitboard256> {
    static TABLES: OnceLock<Tables<Bitboard256>> = OnceLock::new();
    TABLES.get_or_init(|| Tables::new(&SPEC).unwrap())
}

fn slow_perft(position: &mut Position<Bitboard256>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mover = position.side_to_move();
    let mut nodes = 0;
    for mv in position.pseudo_legal_moves() {
        let undo = position.make_move(mv);
        if !position.is_in_check(mover) {
            nodes += slow_perft(position, depth - 1);
        }
        position.unmake_move(mv, undo);
    }
    nodes
}

#[test]
fn start_position_moves_on_a_16x16_board() {
    let start = Position::start(tables(), &Options::defaults(&SPEC)).unwrap();
    assert_eq!(start.to_sfen(), SPEC.start_sfen);
    let mut moves: Vec<String> = start
        .legal_moves()
        .into_iter()
        .map(|m| start.to_usi(m))
        .collect();
    moves.sort();
    // Sixteen pawn steps; the horses' narrow leaps land on their own pawns.
    assert_eq!(
        moves
            .iter()
            .filter(|m| m.contains('n') && m.ends_with('m'))
            .count(),
        16
    );
    assert!(moves.contains(&"16n16m".to_string()) && moves.contains(&"1n1m".to_string()));
    assert!(!moves.iter().any(|m| m.starts_with("15p")));
    let mut p = start.clone();
    assert_eq!(p.perft(1), moves.len() as u64);
    assert_eq!(p.perft(3), slow_perft(&mut p.clone(), 3));
}

#[test]
fn far_squares_keys_and_text_round_trip() {
    let rules = Options::defaults(&SPEC).rule_set();
    // Pieces in the last word of the bitboard (ranks m-p) and across word boundaries.
    let sfen = "1k14/16/16/4r11/16/16/16/8B7/7b8/16/16/16/3+P12/16/1N14/R13GK b - 1";
    let mut position = Position::from_sfen(tables(), sfen, rules).unwrap();
    assert_eq!(position.to_sfen(), sfen);
    assert_eq!(
        Position::from_fen(tables(), &position.to_fen(), rules)
            .unwrap()
            .to_sfen(),
        sfen
    );
    for mv in position.legal_moves() {
        let text = position.to_usi(mv);
        assert_eq!(position.parse_usi(&text), Ok(mv), "{text}");
        let before = position.clone();
        let undo = position.make_move(mv);
        assert_eq!(position.key(), position.key_from_scratch(), "{text}");
        position.unmake_move(mv, undo);
        assert_eq!(position, before);
    }
    let fast = position.perft(3);
    assert_eq!(fast, slow_perft(&mut position, 3));
    // The rook on 16p ranges along rank p to 3p (2p is the gold) and up file 16 to its end.
    let moves: Vec<String> = position
        .legal_moves()
        .into_iter()
        .map(|m| position.to_usi(m))
        .collect();
    assert!(moves.contains(&"16p3p".to_string()) && !moves.contains(&"16p2p".to_string()));
    assert!(moves.contains(&"16p16a".to_string()), "{moves:?}");
}
