//! The shipped puzzles: every one sound by the rules (and the mate solver for tsume), the
//! engine agreeing with each answer, ids as the positions give them, and mining that gives
//! the same puzzles from the same games.

use tsubame_puzzles::generate::{Settings, Source, SourceGame, mine};
use tsubame_puzzles::{Puzzle, check, engine_agrees, puzzle_id, read_puzzles};
use tsubame_rules::{Options, Variant};

const FILES: [(&str, &str); 2] = [
    ("tori", include_str!("../../../data/puzzles/tori.jsonl")),
    ("wa", include_str!("../../../data/puzzles/wa.jsonl")),
];

fn shipped() -> Vec<Puzzle> {
    FILES
        .iter()
        .flat_map(|(name, text)| {
            let puzzles = read_puzzles(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(puzzles.iter().all(|p| p.variant == *name), "{name}");
            puzzles
        })
        .collect()
}

#[test]
fn every_shipped_puzzle_is_sound_and_named_by_its_position() {
    let puzzles = shipped();
    let mut ids = std::collections::HashSet::new();
    for puzzle in &puzzles {
        check(puzzle).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            puzzle.id,
            puzzle_id(&puzzle.variant, &puzzle.options, &puzzle.sfen),
            "{}",
            puzzle.id
        );
        assert!(ids.insert(puzzle.id.clone()), "{} twice", puzzle.id);
        assert!(
            !puzzle.themes.is_empty() || puzzle.moves.len() == 3,
            "{}",
            puzzle.id
        );
        assert!((600..=2600).contains(&puzzle.rating), "{}", puzzle.id);
    }
}

/// Tsume are the mate solver's, checked by it in the test above; the search may prefer a mate
/// without checks or a longer one.
#[test]
fn the_engine_agrees_with_every_shipped_tactic() {
    for puzzle in shipped().into_iter().filter(|p| !p.has_theme("tsume")) {
        engine_agrees(&puzzle, 20_000, 60).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A puzzle's position given as a game from there on: mining it finds the same puzzle (its
/// source aside), twice.
#[test]
fn mining_is_deterministic_and_finds_the_shipped_puzzles_again() {
    let puzzles = shipped();
    let sample: Vec<&Puzzle> = puzzles
        .iter()
        .filter(|p| p.variant == "tori" && p.has_theme("tsume"))
        .take(2)
        .chain(
            puzzles
                .iter()
                .filter(|p| p.variant == "tori" && !p.has_theme("mate"))
                .take(3),
        )
        .collect();
    assert_eq!(sample.len(), 5);
    let options = Options::defaults(Variant::Tori.spec());
    let source = Source {
        variant: Variant::Tori,
        options: options.clone(),
        options_text: String::new(),
    };
    let settings = Settings {
        opening_plies: 0,
        ..Settings::default()
    };
    for puzzle in sample {
        let start = puzzle.position().expect("position");
        let moves: Vec<_> = puzzle
            .moves
            .iter()
            .scan(start.clone(), |walk, usi| {
                let mv = walk.parse_usi(usi).expect("legal");
                walk.play_unchecked(mv);
                Some(mv)
            })
            .collect();
        let score = if puzzle.has_theme("tsume") {
            SourceGame::MATE_SCORE
        } else {
            500
        };
        let game = SourceGame {
            name: "sample".to_string(),
            start,
            moves,
            scores: vec![Some(score)],
        };
        let first = mine(&game, &source, &settings);
        let second = mine(&game, &source, &settings);
        assert_eq!(first, second, "{}", puzzle.id);
        let found = first
            .first()
            .unwrap_or_else(|| panic!("{}: nothing found", puzzle.id));
        assert_eq!(found.id, puzzle.id);
        assert_eq!(found.moves, puzzle.moves, "{}", puzzle.id);
        assert_eq!(found.themes, puzzle.themes, "{}", puzzle.id);
        assert_eq!(found.rating, puzzle.rating, "{}", puzzle.id);
    }
}
