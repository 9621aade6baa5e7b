//! The deep check's verdicts shipped beside the puzzle files: one for every puzzle, each
//! second answer a legal move where it stands and not the solution's, and the verdicts what
//! the check gives today (a change to the search is followed by a new run; see
//! `data/puzzles/README.md`).

use std::collections::HashMap;
use tsubame_puzzles::deep::{DeepVerdict, deep_verdict};
use tsubame_puzzles::{Puzzle, read_puzzles};

const FILES: [(&str, &str, &str); 3] = [
    (
        "tori",
        include_str!("../../../../data/puzzles/tori.jsonl"),
        include_str!("../../../../data/puzzles/tori.deep.jsonl"),
    ),
    (
        "wa",
        include_str!("../../../../data/puzzles/wa.jsonl"),
        include_str!("../../../../data/puzzles/wa.deep.jsonl"),
    ),
    (
        "tenjiku",
        include_str!("../../../../data/puzzles/tenjiku.jsonl"),
        include_str!("../../../../data/puzzles/tenjiku.deep.jsonl"),
    ),
];

/// A verdict file: the nodes of its searches (from its first line) and its verdicts.
fn verdicts(name: &str, text: &str) -> (u64, Vec<DeepVerdict>) {
    let nodes = text
        .lines()
        .next()
        .and_then(|head| head.split("--nodes ").nth(1))
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name}: the first line names the nodes"));
    let verdicts = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect();
    (nodes, verdicts)
}

#[test]
fn every_puzzle_has_one_verdict_and_every_second_answer_is_a_legal_other_move() {
    for (name, puzzles, deep) in FILES {
        let puzzles: Vec<Puzzle> = read_puzzles(puzzles).expect("puzzles");
        let (_, verdicts) = verdicts(name, deep);
        let by_id: HashMap<&str, &DeepVerdict> =
            verdicts.iter().map(|v| (v.id.as_str(), v)).collect();
        assert_eq!(by_id.len(), verdicts.len(), "{name}: one verdict a puzzle");
        assert_eq!(verdicts.len(), puzzles.len(), "{name}: every puzzle judged");
        let kept = verdicts.iter().filter(|v| v.keep).count();
        assert!(kept * 3 >= puzzles.len(), "{name}: {kept} kept");
        for puzzle in &puzzles {
            let verdict = by_id
                .get(puzzle.id.as_str())
                .unwrap_or_else(|| panic!("{name}: no verdict for {}", puzzle.id));
            assert!(verdict.keep || verdict.why.is_some(), "{}", puzzle.id);
            for (index, other) in &verdict.also {
                assert!(
                    index % 2 == 0 && *index < puzzle.moves.len(),
                    "{}",
                    puzzle.id
                );
                assert_ne!(other, &puzzle.moves[*index], "{}", puzzle.id);
                let mut position = puzzle.position().expect("position");
                for usi in &puzzle.moves[..*index] {
                    let mv = position.parse_usi(usi).expect("the line");
                    position.play_unchecked(mv);
                }
                position
                    .parse_usi(other)
                    .unwrap_or_else(|e| panic!("{}: {other}: {e}", puzzle.id));
            }
        }
    }
}

#[test]
fn the_verdicts_are_what_the_check_gives_today() {
    // The first four tactics of Tori's file, kept and left out: about four seconds.
    let (name, puzzles, deep) = FILES[0];
    let puzzles: Vec<Puzzle> = read_puzzles(puzzles).expect("puzzles");
    let (nodes, verdicts) = verdicts(name, deep);
    let by_id: HashMap<&str, &DeepVerdict> = verdicts.iter().map(|v| (v.id.as_str(), v)).collect();
    for puzzle in puzzles.iter().filter(|p| !p.has_theme("mate")).take(4) {
        let again = deep_verdict(puzzle, nodes).expect("a verdict");
        assert_eq!(
            Some(&&again),
            by_id.get(puzzle.id.as_str()),
            "{}",
            puzzle.id
        );
    }
}
