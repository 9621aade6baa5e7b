//! The library's Tenjiku move generator against a plain reference generator written from the
//! seed and the rules page (`tenjiku_oracle`): the same set of move effects (destination,
//! captures, burns, the mover's fate, promotion and deferral) in the start position under
//! every option combination, in the constructed positions of `data/tenjiku-positions.tsv`
//! and their children, and along random games.

use crate::tenjiku_oracle::{Board, Effect, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use tsubame_rules::Options;
use tsubame_rules::tenjiku::{self, TenjikuPosition, TenjikuRules};

fn options(text: &str) -> Options {
    let text = if text == "-" { "" } else { text };
    Options::parse(tenjiku::spec(), text).expect("options")
}

fn oracle_rules(options: &Options) -> Rules {
    let get = |name: &str| options.get(name).unwrap_or_default();
    Rules {
        lion_hawk_tsa: get("lion-hawk") == "tsa",
        free_eagle_japanese: get("free-eagle") == "japanese",
        demon_adams: get("demon-conflict") == "adams",
        range_jump_always: get("range-jump") == "always",
        promotion_entry: get("promotion") == "entry",
    }
}

fn library_effects(position: &TenjikuPosition) -> BTreeSet<Effect> {
    let mover_side = position.side_to_move();
    position
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let mut after = position.clone();
            let undo = after.make_move(mv);
            let mut captured = Vec::new();
            let mut burned = Vec::new();
            let mut mover_burned = false;
            for removal in undo.removals() {
                if removal.burned && removal.piece.color == mover_side {
                    mover_burned = true;
                } else if removal.burned {
                    burned.push(removal.square.index());
                } else {
                    captured.push(removal.square.index());
                }
            }
            captured.sort();
            burned.sort();
            Effect {
                from: mv.from().map_or(usize::MAX, |s| s.index()),
                to: mv.to().index(),
                captured,
                burned,
                mover_burned,
                promote: mv.is_promotion(),
                declines: mv.declines(),
            }
        })
        .collect()
}

fn assert_same_effects(position: &TenjikuPosition, rules: &Rules, context: &str) {
    let library = library_effects(position);
    let oracle = Board::from_sfen(&position.to_sfen()).effects(rules);
    let count = position.legal_moves().len();
    assert_eq!(
        count,
        library.len(),
        "{context}: two moves with one effect in {}",
        position.to_sfen()
    );
    if library != oracle {
        let missing: Vec<_> = oracle.difference(&library).take(5).collect();
        let extra: Vec<_> = library.difference(&oracle).take(5).collect();
        panic!(
            "{context}: {}\nlibrary {} effects, reference {}\nmissing {missing:?}\nextra {extra:?}",
            position.to_sfen(),
            library.len(),
            oracle.len()
        );
    }
}

/// Quiescence search's move list: every move that removes an enemy piece, and besides those
/// only demon moves that end next to an enemy demon (they would burn, but are burned first).
/// The quiet moves are every other move: the two lists together give each move once.
fn assert_captures_are_the_moves_that_remove_enemies(position: &TenjikuPosition) {
    let mut captures = Vec::new();
    position.generate_captures(&mut captures);
    let mut quiets = Vec::new();
    position.generate_quiets(&mut quiets);
    let mut both: Vec<_> = captures
        .iter()
        .chain(&quiets)
        .map(|mv| mv.to_bits())
        .collect();
    let mut legal: Vec<_> = position
        .legal_moves()
        .iter()
        .map(|mv| mv.to_bits())
        .collect();
    both.sort_unstable();
    legal.sort_unstable();
    assert_eq!(
        both,
        legal,
        "captures and quiet moves in {}",
        position.to_sfen()
    );
    let side = position.side_to_move();
    for mv in position.legal_moves() {
        let removals = position.removals(mv);
        let removes_enemy = removals.iter().any(|r| r.piece.color != side);
        if removes_enemy {
            assert!(
                captures.contains(&mv),
                "{} missing from captures",
                position.to_usi(mv)
            );
        } else if captures.contains(&mv) {
            let mover_burned = removals.iter().any(|r| r.piece.color == side);
            assert!(mover_burned, "{} is no capture", position.to_usi(mv));
        }
    }
}

const OPTION_NAMES: [(&str, &str); 5] = [
    ("lion-hawk", "tsa"),
    ("free-eagle", "japanese"),
    ("demon-conflict", "adams"),
    ("range-jump", "always"),
    ("promotion", "entry"),
];

#[test]
fn start_position_and_its_children_under_every_option_combination() {
    for mask in 0..32u32 {
        let text: Vec<String> = OPTION_NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, (name, value))| format!("{name}={value}"))
            .collect();
        let options = options(&text.join(","));
        let rules = oracle_rules(&options);
        let start = TenjikuPosition::start(&options);
        assert_same_effects(&start, &rules, &text.join(","));
        if [0, 1, 2, 4, 8, 16, 31].contains(&mask) {
            // Every node at depth 1 and 2: the perft counts to depth 3 rest on these sets.
            for mv in start.legal_moves() {
                let mut child = start.clone();
                child.make_move(mv);
                assert_same_effects(&child, &rules, "start child");
                for reply in child.legal_moves() {
                    let mut grandchild = child.clone();
                    grandchild.make_move(reply);
                    assert_same_effects(&grandchild, &rules, "start grandchild");
                }
            }
        }
    }
}

pub fn constructed_positions() -> Vec<(String, String, u64, u64, String)> {
    include_str!("../data/tenjiku-positions.tsv")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 5, "{line}");
            (
                fields[0].to_string(),
                fields[1].to_string(),
                fields[2].parse().expect("depth 1 count"),
                fields[3].parse().expect("depth 2 count"),
                fields[4].to_string(),
            )
        })
        .collect()
}

#[test]
fn constructed_positions_and_their_children_agree_with_the_reference() {
    let positions = constructed_positions();
    assert_eq!(positions.len(), 20);
    for (option_text, sfen, _, _, description) in positions {
        let options = options(&option_text);
        let rules = oracle_rules(&options);
        let position = TenjikuPosition::from_sfen(&sfen, TenjikuRules::from_options(&options))
            .unwrap_or_else(|e| panic!("{description}: {e}"));
        assert_same_effects(&position, &rules, &description);
        for mv in position.legal_moves() {
            let mut child = position.clone();
            child.make_move(mv);
            assert_same_effects(&child, &rules, &description);
        }
    }
}

#[test]
fn random_games_agree_with_the_reference_and_unmake_restores_everything() {
    let mut rng = StdRng::seed_from_u64(20261121);
    let mut tally = Tally::default();
    for game in 0..120 {
        let mask = game % 32;
        let text: Vec<String> = OPTION_NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, (name, value))| format!("{name}={value}"))
            .collect();
        let options = options(&text.join(","));
        let rules = oracle_rules(&options);
        let mut position = TenjikuPosition::start(&options);
        for ply in 0..100 {
            let moves = position.legal_moves();
            if moves.is_empty() {
                assert!(position.is_over(), "no moves but both sides have royals");
                break;
            }
            assert_same_effects(&position, &rules, &format!("game {game} ply {ply}"));
            assert_captures_are_the_moves_that_remove_enemies(&position);
            tally.add(&library_effects(&position));
            // Prefer captures and lion moves so that the special rules come into play.
            let interesting: Vec<_> = moves
                .iter()
                .copied()
                .filter(|&mv| mv.middle().is_some() || position.piece_at(mv.to()).is_some())
                .collect();
            let pool = if !interesting.is_empty() && rng.gen_bool(0.6) {
                &interesting
            } else {
                &moves
            };
            let mv = pool[rng.gen_range(0..pool.len())];
            let before = position.clone();
            let sfen_before = position.to_sfen();
            let undo = position.make_move(mv);
            assert_eq!(
                position.key(),
                position.key_from_scratch(),
                "incremental key"
            );
            let round_trip =
                TenjikuPosition::from_sfen(&position.to_sfen(), position.rules()).expect("sfen");
            assert_eq!(round_trip, position, "SFEN round trip");
            assert_eq!(round_trip.key(), position.key());
            let mut back = position.clone();
            back.unmake_move(mv, undo);
            assert_eq!(back, before, "unmake after {}", before.to_usi(mv));
            assert_eq!(back.key(), before.key());
            assert_eq!(back.to_sfen(), sfen_before);
        }
    }
    // The games must have exercised every special rule, or agreeing proves little.
    assert!(tally.double_captures >= 50, "{tally:?}");
    assert!(tally.igui >= 50, "{tally:?}");
    assert!(tally.active_burns >= 50, "{tally:?}");
    assert!(tally.multiple_burns >= 10, "{tally:?}");
    assert!(tally.suicides >= 50, "{tally:?}");
    assert!(tally.promotions >= 50, "{tally:?}");
    assert!(tally.declines >= 50, "{tally:?}");
    assert!(tally.passes >= 50, "{tally:?}");
}

#[derive(Debug, Default)]
struct Tally {
    double_captures: usize,
    igui: usize,
    active_burns: usize,
    multiple_burns: usize,
    suicides: usize,
    promotions: usize,
    declines: usize,
    passes: usize,
}

impl Tally {
    fn add(&mut self, effects: &BTreeSet<Effect>) {
        for effect in effects {
            let stays = effect.from == effect.to;
            self.double_captures += (effect.captured.len() == 2) as usize;
            self.igui += (stays && !effect.captured.is_empty()) as usize;
            self.passes += (stays && effect.captured.is_empty()) as usize;
            self.active_burns += (!effect.burned.is_empty()) as usize;
            self.multiple_burns += (effect.burned.len() >= 2) as usize;
            self.suicides += effect.mover_burned as usize;
            self.promotions += effect.promote as usize;
            self.declines += effect.declines as usize;
        }
    }
}
