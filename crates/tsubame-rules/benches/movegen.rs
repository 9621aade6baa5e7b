//! Move-generation speed: legal-move generation and counting on a spread of Tori positions, and
//! perft from the start position. Every perft count is asserted before it is timed.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tsubame_rules::{Options, Position, tori};

/// Positions from the reference perft data: the start, a middle game with full hands, and a
/// position with geese and eagles on the board.
const FENS: [(&str, u32, u64); 3] = [
    (
        "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w - - 0 1",
        4,
        103_857,
    ),
    (
        "2+Spc+F1/6l/+Sc1s1ss/Sks1s2/3SSSS/L1C1sF1/3KCPR[PSprss] w - - 0 25",
        3,
        269_671,
    ),
    (
        "1p2cpl/2Rkf2/1s1s2s/1s3s1/Kc+SSS1S/4S+sR/1P2CPF[LSScsss] b - - 0 21",
        3,
        146_761,
    ),
];

fn positions() -> Vec<(Position<u64>, u32, u64)> {
    let rules = Options::defaults(tori::spec()).rule_set();
    FENS.iter()
        .map(|&(fen, depth, nodes)| {
            let position = Position::from_fen(tori::tables(), fen, rules).expect("reference FEN");
            (position, depth, nodes)
        })
        .collect()
}

fn movegen(c: &mut Criterion) {
    let positions = positions();
    for (mut position, depth, nodes) in positions.clone() {
        assert_eq!(position.perft(depth), nodes, "{}", position.to_fen());
    }
    c.bench_function("legal_moves x3", |b| {
        b.iter(|| {
            for (position, _, _) in &positions {
                black_box(position.legal_moves());
            }
        })
    });
    c.bench_function("count_legal x3", |b| {
        b.iter(|| {
            for (position, _, _) in &positions {
                black_box(position.count_legal());
            }
        })
    });
    let mut start = positions[0].0.clone();
    c.bench_function("perft 4 start (103857 nodes)", |b| {
        b.iter(|| assert_eq!(start.perft(4), 103_857))
    });
}

criterion_group!(benches, movegen);
criterion_main!(benches);
