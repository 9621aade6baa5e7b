//! The shipped puzzles: every one sound by the rules (and the mate solver for tsume), the
//! engine agreeing with each answer, ids as the positions give them, and mining that gives
//! the same puzzles from the same games.

use tsubame_puzzles::generate::{Settings, Source, SourceGame, hunt_tsume, mine};
use tsubame_puzzles::{Puzzle, check, engine_confirms, puzzle_id, read_puzzles};
use tsubame_rules::{Options, Variant};

const FILES: [(&str, &str); 3] = [
    ("tori", include_str!("../../../../data/puzzles/tori.jsonl")),
    ("wa", include_str!("../../../../data/puzzles/wa.jsonl")),
    (
        "tenjiku",
        include_str!("../../../../data/puzzles/tenjiku.jsonl"),
    ),
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

/// The puzzles the deep check retired (`*.deep.jsonl`): the server no longer hands them out.
fn retired() -> std::collections::HashSet<String> {
    [
        include_str!("../../../../data/puzzles/tori.deep.jsonl"),
        include_str!("../../../../data/puzzles/wa.deep.jsonl"),
        include_str!("../../../../data/puzzles/tenjiku.deep.jsonl"),
    ]
    .iter()
    .flat_map(|text| text.lines())
    .filter(|line| line.starts_with('{'))
    .filter_map(|line| serde_json::from_str::<tsubame_puzzles::deep::DeepVerdict>(line).ok())
    .filter(|verdict| !verdict.keep)
    .map(|verdict| verdict.id)
    .collect()
}

/// Tsume are the mate solver's, checked by it in the test above; the search may prefer a mate
/// without checks or a longer one. The tactics the deep check retired are not asked. The
/// searches are shared out over the machine's cores.
#[test]
fn the_engine_agrees_with_every_shipped_tactic() {
    let retired = retired();
    let tactics: Vec<Puzzle> = shipped()
        .into_iter()
        .filter(|p| !p.has_theme("tsume") && !retired.contains(&p.id))
        .collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let refused: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let tactics = &tactics;
                scope.spawn(move || {
                    tactics
                        .iter()
                        .skip(worker)
                        .step_by(workers)
                        .filter_map(|puzzle| engine_confirms(puzzle).err())
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec!["a worker panicked".into()])
            })
            .collect()
    });
    assert!(refused.is_empty(), "{refused:#?}");
    assert!(tactics.len() >= 700, "{} tactics", tactics.len());
}

/// A puzzle's position given as a game from there on, mined twice: the same puzzles both times.
/// A tsume is the mate solver's, which no change to the search or the network touches: it is
/// found again exactly as shipped. A tactic is the search's: a new network may see another
/// line from the position, or no clear one, so a file is kept by `tsubame puzzles rate`
/// (confirmed and rated again) rather than mined again. Where mining finds a tactic's line
/// again, it gives the shipped themes and rating (the file is rated by this engine), and it
/// finds at least two thirds of the answers again (five of the six with the gen 6 network;
/// two of them with another line).
#[test]
fn mining_is_deterministic_and_finds_the_shipped_puzzles_again() {
    let puzzles = shipped();
    let tsume: Vec<&Puzzle> = puzzles
        .iter()
        .filter(|p| p.variant == "tori" && p.has_theme("tsume"))
        .take(2)
        .collect();
    // Defence is told from the scores before the position, which a game from the position
    // on does not have.
    let tactics: Vec<&Puzzle> = puzzles
        .iter()
        .filter(|p| p.variant == "tori" && !p.has_theme("mate") && !p.has_theme("defence"))
        .take(6)
        .collect();
    assert_eq!((tsume.len(), tactics.len()), (2, 6));
    let source = default_rules(Variant::Tori);
    let settings = Settings {
        opening_plies: 0,
        ..Settings::default()
    };
    let mine_twice = |puzzle: &Puzzle, score: i32| {
        let game = as_game(puzzle, vec![Some(score)]);
        let first = mine(&game, &source, &settings);
        assert_eq!(first, mine(&game, &source, &settings), "{}", puzzle.id);
        first.into_iter().next()
    };
    for puzzle in tsume {
        let found = mine_twice(puzzle, SourceGame::MATE_SCORE)
            .unwrap_or_else(|| panic!("{}: nothing found", puzzle.id));
        assert_eq!(found.id, puzzle.id);
        assert_eq!(found.moves, puzzle.moves, "{}", puzzle.id);
        assert_eq!(found.themes, puzzle.themes, "{}", puzzle.id);
        assert_eq!(found.rating, puzzle.rating, "{}", puzzle.id);
    }
    let mut found_again = Vec::new();
    for puzzle in &tactics {
        let Some(found) = mine_twice(puzzle, 500) else {
            continue;
        };
        assert_eq!(found.id, puzzle.id);
        if found.moves.first() == puzzle.moves.first() {
            found_again.push(puzzle.id.clone());
        }
        if found.moves == puzzle.moves {
            assert_eq!(found.themes, puzzle.themes, "{}", puzzle.id);
            assert_eq!(found.rating, puzzle.rating, "{}", puzzle.id);
        }
    }
    assert!(
        found_again.len() * 3 >= tactics.len() * 2,
        "only {found_again:?} of {} tactics found again",
        tactics.len()
    );
}

/// A game of `variant`'s default rules.
fn default_rules(variant: Variant) -> Source {
    Source {
        variant,
        options: Options::defaults(variant.spec()),
        options_text: String::new(),
    }
}

/// A puzzle's position and solution as a game from there on, with `scores`.
fn as_game(puzzle: &Puzzle, scores: Vec<Option<i32>>) -> SourceGame {
    let start = puzzle.position().expect("position");
    let moves = puzzle
        .moves
        .iter()
        .scan(start.clone(), |walk, usi| {
            let mv = walk.parse_usi(usi).expect("legal");
            walk.play_unchecked(mv);
            Some(mv)
        })
        .collect();
    SourceGame {
        name: "sample".to_string(),
        start,
        moves,
        scores,
    }
}

/// A game that ends in a tsume's mate: the hunt goes back from the mating move and finds the
/// whole tsume, as shipped, in Tori and in Tenjiku (whose mate is the rules' own: a Tenjiku
/// side may have moves left when mated).
#[test]
fn the_tsume_hunt_finds_shipped_tsume_from_their_mating_moves_back() {
    let puzzles = shipped();
    let settings = Settings {
        opening_plies: 0,
        ..Settings::default()
    };
    for (variant, least) in [(Variant::Tori, 5), (Variant::Tenjiku, 1)] {
        let tsume = puzzles
            .iter()
            .find(|p| p.variant == variant.name() && p.has_theme("tsume") && p.moves.len() >= least)
            .unwrap_or_else(|| panic!("a {} tsume", variant.name()));
        let source = default_rules(variant);
        let game = as_game(tsume, Vec::new());
        let found = hunt_tsume(&game, &source, &settings).expect("a tsume");
        assert_eq!(found.id, tsume.id);
        assert_eq!(found.moves, tsume.moves);
        assert_eq!(found.themes, tsume.themes);
        assert_eq!(found.rating, tsume.rating);
        // Without the mating move the game does not end in mate: nothing is hunted.
        let cut = SourceGame {
            moves: game.moves[..game.moves.len() - 1].to_vec(),
            ..game
        };
        assert_eq!(hunt_tsume(&cut, &source, &settings), None);
    }
}
