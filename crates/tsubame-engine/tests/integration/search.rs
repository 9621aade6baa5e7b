//! The search against the rules: it finds mates, respects each game's special endings, and in
//! self-play never produces a move the rules library refuses.

use rand::{Rng, SeedableRng, rngs::StdRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::{Outcome, Score, SearchRequest, search};
use tsubame_engine::search_params::SearchParams;
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::{Bitboard, Game, Options, Position, Status, Tables, tori, wa};

fn think<B: Bitboard>(position: &Position<B>, limits: Limits) -> Outcome {
    think_with(position, limits, &SearchParams::DEFAULT)
}

fn think_with<B: Bitboard>(
    position: &Position<B>,
    limits: Limits,
    search_params: &SearchParams,
) -> Outcome {
    let params = EvalParams::for_variant(position.tables().spec);
    let tt = Arc::new(TranspositionTable::new(8));
    search(
        SearchRequest {
            position,
            history_keys: &[],
            history_checks: &[],
            limits: &limits,
            eval: &params,
            search: Some(search_params),
            tt,
            stop: Arc::new(AtomicBool::new(false)),
            threads: 1,
            memory: None,
        },
        &mut |_| {},
    )
}

fn depth(n: u32) -> Limits {
    Limits {
        depth: Some(n),
        ..Limits::default()
    }
}

fn tori_position(sfen: &str, options: &str) -> Position<u64> {
    let rules = Options::parse(tori::spec(), options).unwrap().rule_set();
    Position::from_sfen(tori::tables(), sfen, rules).unwrap()
}

#[test]
fn finds_mate_in_one_in_both_games() {
    let tori = tori_position("5sk/5s1/6C/7/7/7/K6 b F 1", "");
    let outcome = think(&tori, depth(4));
    assert_eq!(
        outcome.best.map(|m| tori.to_usi(m)).as_deref(),
        Some("F*1b")
    );
    assert_eq!(outcome.info.score, Score::Mate(1));

    let rules = Options::defaults(wa::spec()).rule_set();
    let wa = Position::from_sfen(
        wa::tables(),
        "9pk/9p1/10W/11/11/11/11/11/11/11/K10 b PV 1",
        rules,
    )
    .unwrap();
    let outcome = think(&wa, depth(4));
    assert_eq!(outcome.best.map(|m| wa.to_usi(m)).as_deref(), Some("V*1b"));
    assert_eq!(outcome.info.score, Score::Mate(1));
}

#[test]
fn a_mating_swallow_drop_that_loses_is_not_played() {
    // S*1b mates, and under the default rule the player who drops it loses.
    let position = tori_position("5sk/5s1/6C/7/7/7/K6 b S 1", "");
    assert!(
        position
            .legal_moves()
            .iter()
            .any(|&m| position.to_usi(m) == "S*1b")
    );
    let outcome = think(&position, depth(3));
    let best = outcome.best.map(|m| position.to_usi(m)).unwrap();
    assert_ne!(best, "S*1b");
    // With only a swallow in hand there is no other mate here, so no mate may be claimed.
    assert!(
        !matches!(outcome.info.score, Score::Mate(n) if n > 0),
        "{:?}",
        outcome.info.score
    );
}

#[test]
fn finds_a_mate_in_three_plies() {
    // Gote's phoenix on 1a behind its swallow on 2a; sente holds a falcon and a crane, and its
    // crane on 1c guards 1b. Sente mates within three plies and must report it.
    let position = tori_position("5sk/7/6C/7/7/7/K6 b FC 1", "");
    let outcome = think(&position, depth(5));
    assert!(
        matches!(outcome.info.score, Score::Mate(n) if n > 0 && n <= 3),
        "{:?}",
        outcome.info.score
    );
}

/// Searched with `params` (named `label` in a failure), the two short Tori mates must keep the
/// default set's scores, and both must still be mates for the side to move.
fn assert_mates_kept(params: &SearchParams, label: &str) {
    for (sfen, depth_limit) in [
        ("5sk/5s1/6C/7/7/7/K6 b F 1", 6),
        ("5sk/7/6C/7/7/7/K6 b FC 1", 7),
    ] {
        let position = tori_position(sfen, "");
        let with = think_with(&position, depth(depth_limit), params);
        let without = think_with(&position, depth(depth_limit), &SearchParams::DEFAULT);
        assert_eq!(with.info.score, without.info.score, "{label} {sfen}");
        assert!(
            matches!(with.info.score, Score::Mate(n) if n > 0),
            "{label} {sfen}"
        );
    }
}

#[test]
fn the_singular_extension_changes_the_search_but_not_its_mates() {
    // Tested at every node it may apply to, the extension and its searches without the table's
    // move must leave forced mates as they are; set to its usual depth it must take part in an
    // ordinary search (the node count shows it ran), and by default it is off.
    let everywhere: SearchParams = "singular_depth=1".parse().unwrap();
    let usual: SearchParams = "singular_depth=7".parse().unwrap();
    let never: SearchParams = "singular_depth=128".parse().unwrap();
    assert_eq!(SearchParams::DEFAULT, never);
    assert_mates_kept(&everywhere, "singular_depth=1");
    let start = tori::start(&Options::defaults(tori::spec())).unwrap();
    let with = think_with(&start, depth(9), &usual);
    let without = think_with(&start, depth(9), &never);
    assert_ne!(with.info.nodes, without.info.nodes);
    for outcome in [with, without] {
        let best = outcome.best.unwrap();
        assert!(start.legal_moves().contains(&best));
    }
}

#[test]
fn shallow_exchange_and_history_pruning_keep_mates() {
    // Applied at every depth, neither pruning may lose a forced mate (checks are never pruned,
    // so mating drops that hand a piece over still count); at a usual depth each must take
    // part in an ordinary search, and by default both are off.
    let default = SearchParams::DEFAULT;
    assert_eq!(
        (default.exchange_prune_depth, default.history_prune_depth),
        (0, 0)
    );
    for everywhere in ["exchange_prune_depth=12", "history_prune_depth=12"] {
        assert_mates_kept(&everywhere.parse().unwrap(), everywhere);
    }
    let start = tori::start(&Options::defaults(tori::spec())).unwrap();
    let without = think_with(&start, depth(9), &default);
    for usual in [
        "exchange_prune_depth=3",
        "history_prune_depth=3 history_prune_margin=0",
    ] {
        let pruning: SearchParams = usual.parse().unwrap();
        let with = think_with(&start, depth(9), &pruning);
        assert_ne!(with.info.nodes, without.info.nodes, "{usual}");
        assert!(start.legal_moves().contains(&with.best.unwrap()), "{usual}");
    }
}

#[test]
fn the_side_without_moves_reports_none() {
    // Gote to move and mated already.
    let position = tori_position("5sk/5sF/6C/7/7/7/K6 w - 1", "");
    let outcome = think(&position, depth(3));
    assert_eq!(outcome.best, None);
}

#[test]
fn node_and_time_limits_stop_the_search() {
    let start = tori::start(&Options::defaults(tori::spec())).unwrap();
    let outcome = think(
        &start,
        Limits {
            nodes: Some(5_000),
            ..Limits::default()
        },
    );
    assert!(outcome.best.is_some());
    assert!(outcome.info.nodes < 5_000 + 2_048, "{}", outcome.info.nodes);
    let began = std::time::Instant::now();
    let timed = think(
        &start,
        Limits {
            move_time: Some(std::time::Duration::from_millis(200)),
            ..Limits::default()
        },
    );
    let spent = began.elapsed();
    assert!(timed.best.is_some());
    // The engine's own clock: the search uses a good part of the move time and stops by
    // itself. Measured around the whole search, not by the last finished iteration's report,
    // which may come well before the stop when the next iteration is cut short. The upper
    // bound is loose on purpose: a machine busy with other tests may hold the thread back
    // for a while after the engine decided to stop, which is not the engine's doing.
    assert!(
        spent >= std::time::Duration::from_millis(150),
        "stopped early: {spent:?}"
    );
    assert!(
        spent < std::time::Duration::from_secs(3),
        "did not stop: {spent:?}"
    );
}

#[test]
fn a_search_stopped_inside_an_iteration_keeps_that_iteration_s_best_move() {
    let position = tori_position(
        "1p2cpl/2Rkf2/1s1s2s/1s3s1/Kc+SSS1S/4S+sR/1P2CPF b LSScsss 41",
        "",
    );
    let legal = position.legal_moves();
    // The first iteration that takes enough nodes to be stopped at several points.
    let (full_depth, before, finished) = (5..=14)
        .map(|d| {
            let before = think(&position, depth(d - 1)).info.nodes;
            (d, before, think(&position, depth(d)).info.nodes)
        })
        .find(|&(_, before, finished)| finished > before + 16 * 1024)
        .expect("a deep enough iteration");
    // The same search stopped at points inside iteration `full_depth`. The node limit is
    // checked every 1024 nodes, so each stop lands before the iteration ends; the last one in
    // its final 1100 nodes, when the first root move (most of the work) has been searched.
    let limits = (1..8)
        .map(|step| before + (finished - before) * step / 8)
        .chain([finished - 1_100]);
    for limit in limits {
        let stopped = think(
            &position,
            Limits {
                nodes: Some(limit),
                ..Limits::default()
            },
        );
        let best = stopped.best.expect("a move");
        assert!(legal.contains(&best));
        assert_eq!(stopped.info.pv.first(), Some(&best));
        assert!(stopped.info.nodes < finished, "{limit}: {:?}", stopped.info);
        let reached = stopped.info.depth;
        assert!(
            reached + 1 == full_depth || reached == full_depth,
            "{limit}: {reached}"
        );
        if limit == finished - 1_100 {
            assert_eq!(
                reached, full_depth,
                "the unfinished iteration's move was dropped"
            );
        }
    }
}

/// Plays fast self-play games from randomised openings; the rules library checks every move.
fn self_play<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &str,
    games: u64,
    seed: u64,
) -> (usize, usize) {
    let params = EvalParams::for_variant(tables.spec);
    let tt = Arc::new(TranspositionTable::new(2));
    let mut finished = 0;
    let mut plies = 0;
    for g in 0..games {
        let mut rng = StdRng::seed_from_u64(seed + g);
        let options = Options::parse(tables.spec, options).unwrap();
        let mut game = Game::new(tables, options).unwrap();
        let opening = rng.gen_range(2..8);
        while game.status() == Status::Ongoing && game.moves().len() < 160 {
            let position = game.position().clone();
            let mv = if game.moves().len() < opening {
                let legal = position.legal_moves();
                legal[rng.gen_range(0..legal.len())]
            } else {
                let limits = Limits {
                    nodes: Some(rng.gen_range(100..600)),
                    ..Limits::default()
                };
                let outcome = search(
                    SearchRequest::new(&position, &limits, &params, tt.clone()),
                    &mut |_| {},
                );
                outcome.best.expect("an ongoing game has a legal move")
            };
            let text = position.to_usi(mv);
            game.play(mv).unwrap_or_else(|e| {
                panic!(
                    "game {g}: engine move {text} refused: {e} in {}",
                    position.to_sfen()
                )
            });
            plies += 1;
        }
        if game.status() != Status::Ongoing {
            finished += 1;
        }
    }
    (finished, plies)
}

/// Games per self-play test in a release build (a debug build plays a few).
const SELF_PLAY_GAMES: u64 = if cfg!(debug_assertions) { 10 } else { 200 };

// One test per game and rule set, so the test harness can play them side by side.

#[test]
fn tori_self_play_never_makes_an_illegal_move() {
    let games = SELF_PLAY_GAMES;
    let (finished, plies) = self_play(tori::tables(), "", games, 1000);
    assert!(
        finished > 0 && plies > games as usize * 10,
        "{finished} finished, {plies} plies"
    );
}

#[test]
fn tori_self_play_with_the_rule_options_never_makes_an_illegal_move() {
    let games = SELF_PLAY_GAMES / 4;
    let (_, plies) = self_play(
        tori::tables(),
        "drop-mate=illegal,shrike=on,owl=on",
        games,
        2000,
    );
    assert!(plies > games as usize * 10, "{plies} plies");
}

#[test]
fn wa_self_play_never_makes_an_illegal_move() {
    let games = SELF_PLAY_GAMES;
    let (_, plies) = self_play(wa::tables(), "", games, 3000);
    assert!(plies > games as usize * 10, "{plies} plies");
}

#[test]
fn wa_self_play_without_drops_never_makes_an_illegal_move() {
    let games = SELF_PLAY_GAMES / 2;
    let (_, plies) = self_play(wa::tables(), "drops=off", games, 4000);
    assert!(plies > games as usize * 10, "{plies} plies");
}

/// Tenjiku self-play from randomised openings: every engine move is one the rules' game
/// accepts (repetitions included, since the game's earlier positions are passed to the search).
fn tenjiku_self_play(options: &str, games: u64, max_plies: usize, seed: u64) -> (usize, usize) {
    use tsubame_rules::tenjiku::{self, TenjikuGame};
    let params = EvalParams::for_variant(tenjiku::spec());
    let tt = Arc::new(TranspositionTable::new(4));
    let mut finished = 0;
    let mut plies = 0;
    for g in 0..games {
        let mut rng = StdRng::seed_from_u64(seed + g);
        let options = Options::parse(tenjiku::spec(), options).unwrap();
        let mut game = TenjikuGame::new(options);
        let mut keys = Vec::new();
        let opening = rng.gen_range(2..8);
        while game.status() == Status::Ongoing && game.moves().len() < max_plies {
            let position = game.position().clone();
            let mv = if game.moves().len() < opening {
                let legal = game.legal_moves();
                legal[rng.gen_range(0..legal.len())]
            } else {
                let limits = Limits {
                    nodes: Some(rng.gen_range(50..150)),
                    ..Limits::default()
                };
                let outcome = search(
                    SearchRequest {
                        history_keys: &keys,
                        history_checks: &vec![false; keys.len()],
                        ..SearchRequest::new(&position, &limits, &params, tt.clone())
                    },
                    &mut |_| {},
                );
                outcome.best.expect("an ongoing game has a legal move")
            };
            let text = position.to_usi(mv);
            keys.push(position.key());
            game.play(mv).unwrap_or_else(|e| {
                panic!(
                    "game {g}: engine move {text} refused: {e} in {}",
                    position.to_sfen()
                )
            });
            plies += 1;
        }
        if game.status() != Status::Ongoing {
            finished += 1;
        }
    }
    (finished, plies)
}

#[test]
fn tenjiku_self_play_never_makes_an_illegal_move() {
    let games = if cfg!(debug_assertions) { 4 } else { 200 };
    let (finished, plies) = tenjiku_self_play("mate=play-on", games, 40, 5000);
    assert!(
        finished > 0 && plies > games as usize * 10,
        "{finished} finished, {plies} plies"
    );
}

#[test]
fn tenjiku_self_play_under_the_other_readings_and_the_mate_rule() {
    let (_, plies) = tenjiku_self_play(
        "lion-hawk=tsa,free-eagle=japanese,demon-conflict=adams,range-jump=always,promotion=entry,mate=play-on",
        16,
        70,
        6000,
    );
    assert!(plies > 16 * 10);
    let (_, plies) = tenjiku_self_play("", 4, 70, 7000);
    assert!(plies > 0);
}

#[test]
fn tenjiku_search_takes_the_last_royal() {
    use tsubame_rules::tenjiku::{TenjikuPosition, TenjikuRules};
    // Gote's king on 1a can be taken by the rook on 1h; anything else lets it run.
    let position = TenjikuPosition::from_sfen(
        "15k/16/16/16/16/16/16/15R/16/16/16/16/16/16/16/K15 b - 1",
        TenjikuRules::DEFAULT,
    )
    .unwrap();
    let params = EvalParams::for_variant(tsubame_rules::tenjiku::spec());
    let outcome = search(
        SearchRequest::new(
            &position,
            &depth(3),
            &params,
            Arc::new(TranspositionTable::new(4)),
        ),
        &mut |_| {},
    );
    let best = outcome.best.map(|m| position.to_usi(m)).unwrap_or_default();
    assert!(best.starts_with("1h1a"), "{best}");
    assert_eq!(outcome.info.score, Score::Mate(1));
}

/// Where repeating an earlier position is illegal (Tenjiku), a move back into one is in none of
/// the search's lines, so a level choosing among its best lines cannot play it.
#[test]
fn a_move_back_into_an_earlier_position_is_in_no_line_where_repeating_is_illegal() {
    use tsubame_engine::search::search_any;
    use tsubame_rules::{AnyPosition, Variant, tenjiku};
    let options = Variant::Tenjiku.default_options();
    let start = "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15K b - 1";
    let mut position = AnyPosition::from_sfen(&options, start).expect("a Tenjiku position");
    let mut keys = Vec::new();
    for text in ["1p1o", "16a16b", "1o1p"] {
        keys.push(position.key());
        let mv = position.parse_usi(text).expect("a legal move");
        position.play_unchecked(mv);
    }
    // Gote's king stepping back to 16a would bring back the start, sente to move.
    let back = position.parse_usi("16b16a").expect("a move of the board");
    let params = EvalParams::for_variant(tenjiku::spec());
    for limits in [
        Limits {
            depth: Some(3),
            lines: 8,
            ..Limits::default()
        },
        // The weakest level's budget: fewer nodes than a whole first iteration needs.
        Limits {
            nodes: Some(300),
            lines: 5,
            ..Limits::default()
        },
    ] {
        let outcome = search_any(
            SearchRequest {
                history_keys: &keys,
                history_checks: &vec![false; keys.len()],
                ..SearchRequest::new(
                    &position,
                    &limits,
                    &params,
                    Arc::new(TranspositionTable::new(4)),
                )
            },
            &mut |_| {},
        );
        assert!(outcome.lines.len() >= 2, "{} lines", outcome.lines.len());
        for line in &outcome.lines {
            assert_ne!(
                line.pv.first(),
                Some(&back),
                "a line starts with the repetition"
            );
        }
        assert_ne!(outcome.best, Some(back));
        // The move played is the best line's, not a stand-in.
        assert_eq!(outcome.best, outcome.info.pv.first().copied());
    }
}
