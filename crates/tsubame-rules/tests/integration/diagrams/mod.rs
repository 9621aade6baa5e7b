//! Movement diagrams of the Tenjiku pieces and the check that compares them with the moves.

use tsubame_rules::Square;
use tsubame_rules::tenjiku::{TenjikuPosition, TenjikuRules};

/// A 9x9 movement diagram, sente's view.
pub type Diagram = [&'static str; 9];

pub const KING: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "...xox...",
    "...xxx...",
    ".........",
    ".........",
    ".........",
];

pub const QUEEN: Diagram = [
    "x...x...x",
    ".x..x..x.",
    "..x.x.x..",
    "...xxx...",
    "xxxxoxxxx",
    "...xxx...",
    "..x.x.x..",
    ".x..x..x.",
    "x...x...x",
];

pub const ROOK: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "xxxxoxxxx",
    "....x....",
    "....x....",
    "....x....",
    "....x....",
];

pub const BISHOP: Diagram = [
    "x.......x",
    ".x.....x.",
    "..x...x..",
    "...x.x...",
    "....o....",
    "...x.x...",
    "..x...x..",
    ".x.....x.",
    "x.......x",
];

pub const VICE_GENERAL: Diagram = [
    "x.......x",
    ".xxxxxxx.",
    ".xxxxxxx.",
    ".xxxxxxx.",
    ".xxx*xxx.",
    ".xxxxxxx.",
    ".xxxxxxx.",
    ".xxxxxxx.",
    "x.......x",
];

pub const FIRE_DEMON: Diagram = [
    "x...x...x",
    ".xxxxxxx.",
    ".xxxxxxx.",
    ".xxxxxxx.",
    ".xxx*xxx.",
    ".xxxxxxx.",
    ".xxxxxxx.",
    ".xxxxxxx.",
    "x...x...x",
];

pub const SOARING_EAGLE: Diagram = [
    "....x....",
    "....x....",
    "..x.x.x..",
    "...xxx...",
    "xxxx*xxxx",
    "...xxx...",
    "..x.x.x..",
    ".x..x..x.",
    "x...x...x",
];

pub const HORNED_FALCON: Diagram = [
    "x.......x",
    ".x.....x.",
    "..x.x.x..",
    "...xxx...",
    "xxxx*xxxx",
    "...xxx...",
    "..x.x.x..",
    ".x..x..x.",
    "x...x...x",
];

pub const WATER_BUFFALO: Diagram = [
    "x.......x",
    ".x.....x.",
    "..x.x.x..",
    "...xxx...",
    "xxxxoxxxx",
    "...xxx...",
    "..x.x.x..",
    ".x.....x.",
    "x.......x",
];

pub const CHARIOT_SOLDIER: Diagram = [
    "x...x...x",
    ".x..x..x.",
    "..x.x.x..",
    "...xxx...",
    "..xxoxx..",
    "...xxx...",
    "..x.x.x..",
    ".x..x..x.",
    "x...x...x",
];

pub const LION_HAWK: Diagram = [
    "x.......x",
    ".x.....x.",
    "..xxxxx..",
    "..xxxxx..",
    "..xx*xx..",
    "..xxxxx..",
    "..xxxxx..",
    ".x.....x.",
    "x.......x",
];

pub const LION: Diagram = [
    ".........",
    ".........",
    "..xxxxx..",
    "..xxxxx..",
    "..xx*xx..",
    "..xxxxx..",
    "..xxxxx..",
    ".........",
    ".........",
];

pub const DRAGON_KING: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "...xxx...",
    "xxxxoxxxx",
    "...xxx...",
    "....x....",
    "....x....",
    "....x....",
];

pub const DRAGON_HORSE: Diagram = [
    "x.......x",
    ".x.....x.",
    "..x...x..",
    "...xxx...",
    "...xox...",
    "...xxx...",
    "..x...x..",
    ".x.....x.",
    "x.......x",
];

pub const KIRIN: Diagram = [
    ".........",
    ".........",
    "....x....",
    "...x.x...",
    "..x.o.x..",
    "...x.x...",
    "....x....",
    ".........",
    ".........",
];

pub const PHOENIX: Diagram = [
    ".........",
    ".........",
    "..x...x..",
    "....x....",
    "...xox...",
    "....x....",
    "..x...x..",
    ".........",
    ".........",
];

pub const DRUNK_ELEPHANT: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "...xox...",
    "...x.x...",
    ".........",
    ".........",
    ".........",
];

pub const BLIND_TIGER: Diagram = [
    ".........",
    ".........",
    ".........",
    "...x.x...",
    "...xox...",
    "...xxx...",
    ".........",
    ".........",
    ".........",
];

pub const FEROCIOUS_LEOPARD: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "....o....",
    "...xxx...",
    ".........",
    ".........",
    ".........",
];

pub const GOLD: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "...xox...",
    "....x....",
    ".........",
    ".........",
    ".........",
];

pub const SILVER: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "....o....",
    "...x.x...",
    ".........",
    ".........",
    ".........",
];

pub const COPPER: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "....o....",
    "....x....",
    ".........",
    ".........",
    ".........",
];

pub const VERTICAL_MOVER: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "...xox...",
    "....x....",
    "....x....",
    "....x....",
    "....x....",
];

pub const SIDE_MOVER: Diagram = [
    ".........",
    ".........",
    ".........",
    "....x....",
    "xxxxoxxxx",
    "....x....",
    ".........",
    ".........",
    ".........",
];

pub const REVERSE_CHARIOT: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "....o....",
    "....x....",
    "....x....",
    "....x....",
    "....x....",
];

pub const VERTICAL_SOLDIER: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "..xxoxx..",
    "....x....",
    ".........",
    ".........",
    ".........",
];

pub const SIDE_SOLDIER: Diagram = [
    ".........",
    ".........",
    "....x....",
    "....x....",
    "xxxxoxxxx",
    "....x....",
    ".........",
    ".........",
    ".........",
];

pub const LANCE: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "....o....",
    ".........",
    ".........",
    ".........",
    ".........",
];

pub const KNIGHT: Diagram = [
    ".........",
    ".........",
    "...x.x...",
    ".........",
    "....o....",
    ".........",
    ".........",
    ".........",
    ".........",
];

pub const IRON: Diagram = [
    ".........",
    ".........",
    ".........",
    "...xxx...",
    "....o....",
    ".........",
    ".........",
    ".........",
    ".........",
];

pub const DOG: Diagram = [
    ".........",
    ".........",
    ".........",
    "....x....",
    "....o....",
    "...x.x...",
    ".........",
    ".........",
    ".........",
];

pub const PAWN: Diagram = [
    ".........",
    ".........",
    ".........",
    "....x....",
    "....o....",
    ".........",
    ".........",
    ".........",
    ".........",
];

pub const TETRARCH: Diagram = [
    "x.......x",
    ".x.....x.",
    "..x...x..",
    ".........",
    ".xx.o.xx.",
    ".........",
    "..x...x..",
    ".x.....x.",
    "x.......x",
];

pub const FLYING_STAG: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "...xxx...",
    "...xox...",
    "...xxx...",
    "....x....",
    "....x....",
    "....x....",
];

pub const FLYING_OX: Diagram = [
    "x...x...x",
    ".x..x..x.",
    "..x.x.x..",
    "...xxx...",
    "....o....",
    "...xxx...",
    "..x.x.x..",
    ".x..x..x.",
    "x...x...x",
];

pub const FREE_BOAR: Diagram = [
    "x.......x",
    ".x.....x.",
    "..x...x..",
    "...x.x...",
    "xxxxoxxxx",
    "...x.x...",
    "..x...x..",
    ".x.....x.",
    "x.......x",
];

pub const WHALE: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "....o....",
    "...xxx...",
    "..x.x.x..",
    ".x..x..x.",
    "x...x...x",
];

pub const WHITE_HORSE: Diagram = [
    "x...x...x",
    ".x..x..x.",
    "..x.x.x..",
    "...xxx...",
    "....o....",
    "....x....",
    "....x....",
    "....x....",
    "....x....",
];

pub const MULTI_GENERAL: Diagram = [
    "....x....",
    "....x....",
    "....x....",
    "....x....",
    "....o....",
    "...x.x...",
    "..x...x..",
    ".x.....x.",
    "x.......x",
];
fn square_name(file: i32, rank: i32) -> String {
    format!("{file}{}", (b'a' + rank as u8) as char)
}

/// SFEN of an empty board with the given pieces (file, rank index, code) and side to move.
fn sfen(pieces: &[(i32, i32, String)], sente_to_move: bool) -> String {
    let mut rows = Vec::new();
    for rank in 0..16 {
        let mut row = String::new();
        let mut empty = 0;
        for file in (1..=16).rev() {
            match pieces.iter().find(|p| p.0 == file && p.1 == rank) {
                Some(piece) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push_str(&piece.2);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    format!(
        "{} {} - 1",
        rows.join("/"),
        if sente_to_move { "b" } else { "w" }
    )
}

/// Checks that the piece `code` (sente's spelling), alone on the board but for the two kings
/// (off its lines), moves exactly as `diagram` shows, as sente from 8h and as gote from 9i.
pub fn check(code: &str, diagram: &Diagram) {
    for sente in [true, false] {
        // Board coordinates: x = file, y = rank index (0 = rank a).
        let (x, y) = if sente { (8, 7) } else { (9, 8) };
        let spelled = if sente {
            code.to_string()
        } else {
            code.chars().map(|c| c.to_ascii_lowercase()).collect()
        };
        let mut pieces = vec![(x, y, spelled)];
        // The tested king is its side's royal itself; a set has only one.
        if code != "K" || !sente {
            pieces.push((16, 13, "K".to_string()));
        }
        if code != "K" || sente {
            pieces.push((1, 1, "k".to_string()));
        }
        let text = sfen(&pieces, sente);
        let position = TenjikuPosition::from_sfen(&text, TenjikuRules::DEFAULT)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        // A step `forward`, `left` of the mover on the board.
        let place = |forward: i32, left: i32| {
            if sente {
                (x + left, y - forward)
            } else {
                (x - left, y + forward)
            }
        };
        let mut expected = std::collections::BTreeSet::new();
        let marked = |row: usize, col: usize| diagram[row].as_bytes()[col] == b'x';
        for (row, line) in diagram.iter().enumerate() {
            for (col, c) in line.bytes().enumerate() {
                if c == b'x' {
                    let (fx, fy) = place(4 - row as i32, 4 - col as i32);
                    expected.insert(square_name(fx, fy));
                }
            }
        }
        for (forward, left) in [
            (1, 0),
            (1, 1),
            (0, 1),
            (-1, 1),
            (-1, 0),
            (-1, -1),
            (0, -1),
            (1, -1),
        ] {
            // Marked at distances 3 and 4 along a line: no jump or area move reaches that far.
            let whole_line =
                (3..=4).all(|k| marked((4 - forward * k) as usize, (4 - left * k) as usize));
            if whole_line {
                let mut k = 5;
                loop {
                    let (fx, fy) = place(forward * k, left * k);
                    if !(1..=16).contains(&fx) || !(0..16).contains(&fy) {
                        break;
                    }
                    expected.insert(square_name(fx, fy));
                    k += 1;
                }
            }
        }
        let from = square_name(x, y);
        let square: Square = position.geometry().parse_square(&from).expect("square");
        let mut actual = std::collections::BTreeSet::new();
        let mut passes = false;
        for mv in position.legal_moves() {
            if mv.from() != Some(square) {
                continue;
            }
            if mv.to() == square {
                passes = true;
            } else {
                actual.insert(position.geometry().name(mv.to()).to_string());
            }
        }
        let side = if sente { "sente" } else { "gote" };
        assert_eq!(actual, expected, "{code} as {side} from {from}");
        let center = diagram[4].as_bytes()[4];
        assert_eq!(passes, center == b'*', "{code} as {side}: pass");
    }
}
