//! Each piece's moves as the seeds describe them (000 "Individual pieces", 001 "Pieces in
//! Tori-Shogi"), for both sides, in the open, at the edges, blocked and jumping.

use tsubame_rules::{Options, Position, tori};

fn position(sfen: &str) -> Position<u64> {
    let rules = Options::defaults(tori::spec()).rule_set();
    Position::from_sfen(tori::tables(), sfen, rules).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

/// Legal moves of the piece on `from`, as destination squares (with `+` when promoting).
fn destinations(sfen: &str, from: &str) -> Vec<String> {
    let p = position(sfen);
    let mut out: Vec<String> = p
        .legal_moves()
        .into_iter()
        .map(|m| p.to_usi(m))
        .filter(|t| t.starts_with(from) && !t.contains('*'))
        .map(|t| t[from.len()..].to_string())
        .collect();
    out.sort();
    out
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// The square seen from the other side: the board turned half round.
fn rotate(square: &str) -> String {
    let (digits, suffix) = square.split_at(1);
    let file: u8 = digits.parse().unwrap();
    let mut chars = suffix.chars();
    let rank = chars.next().unwrap() as u8;
    let rest: String = chars.collect();
    format!("{}{}{}", 8 - file, (b'a' + (b'g' - rank)) as char, rest)
}

/// Expected moves of a piece on 4d for sente; gote's are the same turned half round. Kings
/// stand out of every line through 4d: gote's on 6a, sente's on 2g.
fn check_both_sides(code: &str, expected_for_sente: &[&str]) {
    let sente = format!("2k4/7/7/3{code}3/7/7/5K1 b - 1");
    assert_eq!(
        destinations(&sente, "4d"),
        sorted(expected_for_sente),
        "sente {code}"
    );
    let gote = format!("2k4/7/7/3{}3/7/7/5K1 w - 1", code.to_ascii_lowercase());
    let mut rotated: Vec<String> = expected_for_sente.iter().map(|s| rotate(s)).collect();
    rotated.sort();
    assert_eq!(destinations(&gote, "4d"), rotated, "gote {code}");
}

#[test]
fn phoenix_steps_one_square_in_any_direction() {
    let p = "7/7/7/3K3/7/7/k6 b - 1";
    assert_eq!(
        destinations(p, "4d"),
        sorted(&["3c", "4c", "5c", "3d", "5d", "3e", "4e", "5e"])
    );
    let q = "6K/7/7/3k3/7/7/7 w - 1";
    assert_eq!(
        destinations(q, "4d"),
        sorted(&["3c", "4c", "5c", "3d", "5d", "3e", "4e", "5e"])
    );
}

#[test]
fn falcon_steps_anywhere_but_straight_back() {
    check_both_sides("F", &["3c", "4c", "5c", "3d", "5d", "3e", "5e"]);
}

#[test]
fn eagle_ranges_forward_diagonals_and_back_steps_forward_and_sideways_two_back_diagonally() {
    check_both_sides(
        "+F",
        &[
            "3c", "2b", "1a", "5c", "6b", "7a", "4e", "4f", "4g", "4c", "3d", "5d", "3e", "2f",
            "5e", "6f",
        ],
    );
}

#[test]
fn eagle_back_diagonal_is_limited_to_two_and_does_not_jump() {
    // Own swallow on 3e blocks the back-right diagonal at once; 1g stays out of reach anyway.
    let p = "2k4/7/7/3+F3/4S2/7/5K1 b - 1";
    let d = destinations(p, "4d");
    assert!(!d.contains(&"3e".to_string()) && !d.contains(&"2f".to_string()));
    assert!(d.contains(&"5e".to_string()) && d.contains(&"6f".to_string()));
    assert!(!d.contains(&"7g".to_string()), "two squares at most");
}

#[test]
fn crane_steps_everywhere_but_sideways() {
    check_both_sides("C", &["3c", "4c", "5c", "3e", "4e", "5e"]);
}

#[test]
fn pheasant_jumps_two_forward_and_steps_back_diagonally() {
    check_both_sides("P", &["4b", "3e", "5e"]);
    // The jump leaps over anything, friend or foe.
    let over = "2k4/7/3s3/3P3/7/7/5K1 b - 1";
    assert!(destinations(over, "4d").contains(&"4b".to_string()));
    // It does not promote in the zone.
    assert!(!destinations(over, "4d").iter().any(|d| d.ends_with('+')));
}

#[test]
fn quails_range_forward_and_one_back_diagonal_and_step_the_other() {
    check_both_sides("L", &["4c", "4b", "4a", "3e", "2f", "1g", "5e"]);
    check_both_sides("R", &["4c", "4b", "4a", "5e", "6f", "7g", "3e"]);
}

#[test]
fn quail_ranges_stop_before_own_pieces_and_on_captures() {
    // A gote swallow on 4b is captured and ends the forward range.
    let p = "2k4/3s3/7/3L3/7/7/5K1 b - 1";
    assert_eq!(
        destinations(p, "4d"),
        sorted(&["4c", "4b", "3e", "2f", "1g", "5e"])
    );
    let q = "2k4/7/7/3R3/7/1S5/5K1 b - 1";
    assert_eq!(
        destinations(q, "4d"),
        sorted(&["4c", "4b", "4a", "5e", "3e"])
    );
}

#[test]
fn swallow_steps_forward_and_promotes_to_goose() {
    check_both_sides("S", &["4c"]);
    let p = "2k4/7/3S3/7/7/7/5K1 b - 1";
    assert_eq!(destinations(p, "4c"), sorted(&["4b+"]));
}

#[test]
fn goose_jumps_two_diagonally_forward_or_two_straight_back() {
    check_both_sides("+S", &["2b", "6b", "4f"]);
    let over = "2k4/7/2sss2/3+S3/3S3/7/5K1 b - 1";
    assert_eq!(destinations(over, "4d"), sorted(&["2b", "6b", "4f"]));
}

#[test]
fn owl_steps_diagonally_and_sideways() {
    check_both_sides("O", &["3c", "5c", "3e", "5e", "3d", "5d"]);
}

#[test]
fn shrike_steps_one_or_two_forward_without_jumping() {
    check_both_sides("M", &["4c", "4b"]);
    let blocked = "2k4/7/3S3/3M3/7/7/5K1 b - 1";
    assert_eq!(destinations(blocked, "4d"), Vec::<String>::new());
    let capture = "2k4/7/3s3/3M3/7/7/5K1 b - 1";
    assert_eq!(destinations(capture, "4d"), sorted(&["4c"]));
}

#[test]
fn edges_cut_moves_off() {
    // Sente's left quail in its corner has only its forward range.
    assert_eq!(
        destinations("6k/7/7/7/7/7/L2K3 b - 1", "7g"),
        sorted(&["7f", "7e", "7d", "7c", "7b", "7a"])
    );
    // A pheasant on 4b cannot jump off the board.
    assert_eq!(
        destinations("k6/3P3/7/7/7/7/3K3 b - 1", "4b"),
        sorted(&["3c", "5c"])
    );
    // A goose on the last rank of its own side cannot jump back.
    assert_eq!(
        destinations("k6/7/7/7/7/7/3K+S2 b - 1", "3g"),
        sorted(&["1e", "5e"])
    );
    // Gote's falcon in its corner 1g: nothing forward, no straight back; it stands in its zone,
    // so both remaining moves promote.
    assert_eq!(
        destinations("k6/7/7/7/7/7/K5f w - 1", "1g"),
        sorted(&["2f+", "2g+"])
    );
}
