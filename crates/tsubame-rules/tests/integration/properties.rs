//! Invariants over random legal play: make/unmake restores the position, the incremental key
//! equals a key computed from scratch, text formats round-trip, and the generator yields exactly
//! the legal moves (checked against an independent make-and-test over all pseudo-legal moves),
//! its captures, quiet moves and quiet checks are those of the legal moves, and a position mirrored left to
//! right has exactly the mirrored moves.

use proptest::prelude::*;
use tsubame_rules::{Bitboard, Move, Options, Position, Square, UsiMove, tori, wa};

const OPTION_SETS: [&str; 6] = [
    "",
    "drop-mate=illegal",
    "owl=on,shrike=on",
    "shrike=on,drop-mate=illegal",
    "handicap=falcon-both-quails",
    "handicap=left-quail,owl=on",
];

const WA_OPTION_SETS: [&str; 2] = ["", "drops=off"];

fn start(option_set: usize) -> Position<u64> {
    let options =
        Options::parse(tori::spec(), OPTION_SETS[option_set % OPTION_SETS.len()]).unwrap();
    tori::start(&options).unwrap()
}

/// Plays the moves picked by `choices` from a Tori start and checks every position reached.
fn walk(option_set: usize, choices: &[u16], check: impl FnMut(&Position<u64>)) {
    walk_from(start(option_set), choices, check);
}

/// The same from a Wa start, with or without drops.
fn walk_wa(option_set: usize, choices: &[u16], check: impl FnMut(&Position<u128>)) {
    let text = WA_OPTION_SETS[option_set % WA_OPTION_SETS.len()];
    let options = Options::parse(wa::spec(), text).unwrap();
    walk_from(wa::start(&options).unwrap(), choices, check);
}

fn walk_from<B: Bitboard>(
    mut position: Position<B>,
    choices: &[u16],
    mut check: impl FnMut(&Position<B>),
) {
    check(&position);
    for &choice in choices {
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        position.make_move(moves[choice as usize % moves.len()]);
        check(&position);
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: if cfg!(debug_assertions) { 24 } else { 160 },
        ..ProptestConfig::default()
    }
}

fn check_make_unmake<B: Bitboard>(position: &Position<B>) {
    assert_eq!(
        position.key(),
        position.key_from_scratch(),
        "{}",
        position.to_sfen()
    );
    let mut scratch = position.clone();
    for mv in position.legal_moves() {
        let undo = scratch.make_move(mv);
        assert_eq!(
            scratch.key(),
            scratch.key_from_scratch(),
            "after {}",
            position.to_usi(mv)
        );
        scratch.unmake_move(mv, undo);
        assert_eq!(&scratch, position, "unmake of {}", position.to_usi(mv));
    }
}

fn check_text_round_trips<B: Bitboard>(position: &Position<B>) {
    let tables = position.tables();
    let rules = position.rules();
    let sfen = position.to_sfen();
    let back = Position::from_sfen(tables, &sfen, rules).unwrap();
    assert_eq!(&back, position, "{sfen}");
    let fen = position.to_fen();
    let from_fen = Position::from_fen(tables, &fen, rules).unwrap();
    assert_eq!(from_fen.to_fen(), fen);
    assert_eq!(from_fen.to_setup().board, position.to_setup().board);
    assert_eq!(from_fen.to_setup().hands, position.to_setup().hands);
    assert_eq!(from_fen.side_to_move(), position.side_to_move());
    for mv in position.legal_moves() {
        let text = position.to_usi(mv);
        assert_eq!(position.parse_usi(&text), Ok(mv), "{text} in {sfen}");
    }
}

fn check_exact_legal_set<B: Bitboard>(position: &Position<B>) {
    let legal = position.legal_moves();
    let mut sorted = legal.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        legal.len(),
        "duplicates in {}",
        position.to_sfen()
    );
    assert_eq!(position.count_legal(), legal.len() as u64);
    let mover = position.side_to_move();
    let mut independent: Vec<_> = position
        .pseudo_legal_moves()
        .into_iter()
        .filter(|&mv| {
            let mut after = position.clone();
            after.make_move(mv);
            !after.is_in_check(mover)
        })
        .collect();
    independent.sort();
    independent.dedup();
    assert_eq!(independent, sorted, "{}", position.to_sfen());
    let mut captures = Vec::new();
    position.generate_captures(&mut captures);
    captures.sort();
    let expected: Vec<_> = sorted
        .iter()
        .copied()
        .filter(|m| !m.is_from_hand() && position.piece_at(m.to()).is_some())
        .collect();
    assert_eq!(captures, expected, "captures in {}", position.to_sfen());
    // The quiet moves are the rest: the two generations together give each legal move once.
    let mut quiets = Vec::new();
    position.generate_quiets(&mut quiets);
    quiets.sort();
    let rest: Vec<_> = sorted
        .iter()
        .copied()
        .filter(|m| !expected.contains(m))
        .collect();
    assert_eq!(quiets, rest, "quiet moves in {}", position.to_sfen());
    // A drop's check is read without playing it; every move's must be the check it leaves.
    for &mv in &sorted {
        let mut after = position.clone();
        after.make_move(mv);
        assert_eq!(
            position.gives_check(mv),
            after.in_check(),
            "check by {} in {}",
            position.to_usi(mv),
            position.to_sfen()
        );
    }
    let mut quiet_checks = Vec::new();
    position.generate_quiet_checks(&mut quiet_checks);
    quiet_checks.sort();
    let expected: Vec<_> = sorted
        .iter()
        .copied()
        .filter(|&m| !expected.contains(&m) && position.gives_check(m))
        .collect();
    assert_eq!(
        quiet_checks,
        expected,
        "quiet checks in {}",
        position.to_sfen()
    );
}

/// The position mirrored left to right with `VariantSpec::mirror_roles` has the mirror
/// image of every legal move and no other, and the same check status: the mirror the network
/// trainer uses to double its positions keeps every rule.
fn check_mirror_image<B: Bitboard>(position: &Position<B>) {
    let tables = position.tables();
    let geometry = tables.geometry;
    let mirror = tables.spec.mirror_roles().unwrap();
    let mirror_square = |square: Square| {
        let (file, rank) = (geometry.file(square), geometry.rank(square));
        geometry.square(geometry.width + 1 - file, rank).unwrap()
    };
    let mirrored = position.mirrored().unwrap();
    assert_eq!(mirrored.mirrored().as_ref(), Some(position));
    assert_eq!(mirrored.in_check(), position.in_check());
    let written = |p: &Position<B>, mirror_it: bool| {
        let mut moves: Vec<String> = p
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let usi = p.parse_usi_syntax(&p.to_usi(mv)).unwrap();
                let usi = match usi {
                    UsiMove::Normal { from, to, promote } if mirror_it => UsiMove::Normal {
                        from: mirror_square(from),
                        to: mirror_square(to),
                        promote,
                    },
                    UsiMove::Put { role, to } if mirror_it => UsiMove::Put {
                        role: mirror[role.index()],
                        to: mirror_square(to),
                    },
                    other => other,
                };
                format!("{usi:?}")
            })
            .collect();
        moves.sort();
        moves
    };
    assert_eq!(
        written(&mirrored, false),
        written(position, true),
        "{} mirrored to {}",
        position.to_sfen(),
        mirrored.to_sfen()
    );
}

#[test]
fn tori_quails_are_each_others_mirror_and_wa_has_a_mirror() {
    let mut expected: Vec<_> = (0..tori::spec().roles.len() as u8)
        .map(tsubame_rules::Role)
        .collect();
    expected.swap(tori::LEFT_QUAIL.index(), tori::RIGHT_QUAIL.index());
    assert_eq!(tori::spec().mirror_roles(), Some(expected));
    let wa_mirror = wa::spec().mirror_roles().unwrap();
    for (role, image) in wa_mirror.iter().enumerate() {
        assert_eq!(wa_mirror[image.index()].index(), role, "an involution");
    }
}

/// One step of a xorshift generator: the tests' seeded choices.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Plays `games` seeded random games of up to `plies` plies from `start`, calling `visit` with
/// each position, its legal moves, the ply number and the game's random state.
fn seeded_games<B: Bitboard>(
    start: &Position<B>,
    games: u64,
    plies: usize,
    mut visit: impl FnMut(&Position<B>, &[Move], usize, &mut u64),
) {
    for game in 0..games {
        let mut position = start.clone();
        let mut state = game.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for ply in 0..plies {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            visit(&position, &moves, ply, &mut state);
            let choice = next_random(&mut state) % moves.len() as u64;
            position.make_move(moves[choice as usize]);
        }
    }
}

/// Plays seeded random games and reads every legal move's check without playing it, as the
/// search does, against playing it. Counts the checks that come from a line the move opens
/// (the moved piece does not attack the royal piece itself), which the fast reading finds
/// without looking at every attacker.
fn checks_read_as_played<B: Bitboard>(
    start: Position<B>,
    games: u64,
    plies: usize,
) -> (usize, usize) {
    let (mut checks, mut discovered) = (0, 0);
    seeded_games(&start, games, plies, |position, moves, _, _| {
        for &mv in moves {
            let mut after = position.clone();
            after.make_move(mv);
            let expected = after.in_check();
            assert_eq!(
                position.gives_check(mv),
                expected,
                "check by {} in {}",
                position.to_usi(mv),
                position.to_sfen()
            );
            if expected {
                checks += 1;
                let mover = position.side_to_move();
                let royal = after.royal_square(!mover).unwrap();
                let attackers = after.attackers(royal, mover, after.occupied());
                if !attackers.has(mv.to().index()) {
                    discovered += 1;
                }
            }
        }
    });
    (checks, discovered)
}

#[test]
fn every_check_is_read_without_playing_the_move_as_playing_it_shows() {
    // A pheasant stepping back off the file opens the left quail's line onto the phoenix.
    let rules = Options::defaults(tori::spec()).rule_set();
    let lines = Position::from_sfen(tori::tables(), "3k3/7/7/3P3/7/7/3L2K b - 1", rules).unwrap();
    let (checks, discovered) = checks_read_as_played(lines, 1, 1);
    assert_eq!((checks, discovered), (2, 2));
    let mut discovered_in_games = 0;
    for options in OPTION_SETS {
        let options = Options::parse(tori::spec(), options).unwrap();
        let (checks, discovered) = checks_read_as_played(tori::start(&options).unwrap(), 30, 120);
        assert!(checks > 500, "{checks} checks");
        discovered_in_games += discovered;
    }
    for options in WA_OPTION_SETS {
        let options = Options::parse(wa::spec(), options).unwrap();
        let (checks, discovered) = checks_read_as_played(wa::start(&options).unwrap(), 12, 160);
        assert!(checks > 100, "{checks} checks");
        discovered_in_games += discovered;
    }
    assert!(
        discovered_in_games > 0,
        "no line opened onto a royal piece in random games"
    );
}

/// Plays seeded random games and asks `is_legal` about the legal moves, the pseudo-legal
/// moves, the moves of the last two positions and arbitrary move codes: it must answer exactly
/// as membership in the generated legal moves does. Returns how many candidates were legal and
/// how many not.
fn legality_answers_as_generated<B: Bitboard>(
    start: Position<B>,
    games: u64,
    plies: usize,
) -> (usize, usize) {
    let (mut legal_count, mut illegal_count) = (0, 0);
    let mut earlier: Vec<Vec<Move>> = Vec::new();
    seeded_games(&start, games, plies, |position, moves, ply, state| {
        if ply == 0 {
            earlier.clear();
        }
        let mut candidates = moves.to_vec();
        candidates.extend(position.pseudo_legal_moves());
        for older in earlier.iter().rev().take(2) {
            candidates.extend(older);
        }
        for _ in 0..32 {
            let random = next_random(state);
            candidates.push(Move::from_bits(random as u32));
            // Codes near real ones: a real move's code with one bit changed.
            let near = candidates[(random >> 40) as usize % candidates.len()];
            candidates.push(Move::from_bits(
                near.to_bits() ^ (1 << ((random >> 32) % 20)),
            ));
        }
        for mv in candidates {
            let expected = moves.contains(&mv);
            assert_eq!(
                position.is_legal(mv),
                expected,
                "{mv:?} in {}",
                position.to_sfen()
            );
            if expected {
                legal_count += 1;
            } else {
                illegal_count += 1;
            }
        }
        earlier.push(moves.to_vec());
    });
    (legal_count, illegal_count)
}

#[test]
fn legality_of_any_move_code_is_answered_as_generation_gives_it() {
    for options in OPTION_SETS {
        let options = Options::parse(tori::spec(), options).unwrap();
        let (legal, illegal) =
            legality_answers_as_generated(tori::start(&options).unwrap(), 8, 100);
        assert!(
            legal > 1000 && illegal > 1000,
            "{legal} legal, {illegal} not"
        );
    }
    for options in WA_OPTION_SETS {
        let options = Options::parse(wa::spec(), options).unwrap();
        let (legal, illegal) = legality_answers_as_generated(wa::start(&options).unwrap(), 4, 120);
        assert!(
            legal > 1000 && illegal > 1000,
            "{legal} legal, {illegal} not"
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mirrored_positions_have_the_mirrored_moves(option_set in 0usize..6, choices in prop::collection::vec(any::<u16>(), 0..90)) {
        walk(option_set, &choices, check_mirror_image);
    }

    #[test]
    fn make_unmake_restores_every_move_and_keys_stay_exact(option_set in 0usize..6, choices in prop::collection::vec(any::<u16>(), 0..90)) {
        walk(option_set, &choices, check_make_unmake);
    }

    #[test]
    fn text_formats_round_trip(option_set in 0usize..6, choices in prop::collection::vec(any::<u16>(), 0..90)) {
        walk(option_set, &choices, check_text_round_trips);
    }

    #[test]
    fn generator_yields_exactly_the_legal_moves(option_set in 0usize..6, choices in prop::collection::vec(any::<u16>(), 0..90)) {
        walk(option_set, &choices, check_exact_legal_set);
    }

    #[test]
    fn wa_invariants(option_set in 0usize..2, choices in prop::collection::vec(any::<u16>(), 0..120)) {
        walk_wa(option_set, &choices, |position| {
            check_make_unmake(position);
            check_text_round_trips(position);
            check_exact_legal_set(position);
            check_mirror_image(position);
        });
    }

    #[test]
    fn parsers_never_panic_on_arbitrary_text(text in ".{0,80}") {
        let rules = Options::defaults(tori::spec()).rule_set();
        let _ = Position::from_sfen(tori::tables(), &text, rules);
        let _ = Position::from_fen(tori::tables(), &text, rules);
        let p = start(0);
        if let Ok(mv) = p.parse_usi(&text) {
            assert!(p.legal_moves().contains(&mv));
        }
    }

    #[test]
    fn parsers_never_panic_on_near_miss_positions(text in "[kKfFcCpPlLrRsSoOmMxX+0-9/]{0,60}( [bw-]{0,2})?( [0-9A-Za-z+-]{0,12})?( [0-9]{0,12})?") {
        let rules = Options::defaults(tori::spec()).rule_set();
        if let Ok(p) = Position::from_sfen(tori::tables(), &text, rules) {
            // Whatever parses is a valid position whose SFEN reads back the same.
            assert_eq!(Position::from_sfen(tori::tables(), &p.to_sfen(), rules).as_ref(), Ok(&p));
            let _ = p.legal_moves();
        }
        let fen_like = text.replacen(' ', "[] ", 1);
        if let Ok(p) = Position::from_fen(tori::tables(), &fen_like, rules) {
            let _ = p.legal_moves();
        }
    }
}
