//! The computer's strength levels, for people to play against: from a beginner's opponent that
//! misses a capture or a mate now and then, to the engine at full strength.
//!
//! A level is the same search held to a node budget and a time cap, and below the top levels
//! a weakened choice of move in the manner of Stockfish's Skill Level: the search finds its
//! few best moves (MultiPV) and the move played is the best by the search's score plus a
//! random push that is larger the weaker the level, so that a weak level sometimes plays its
//! second or fourth choice, and mostly where they differ little.
//!
//! Tenjiku has budgets of its own: a 16x16 board with hundreds of moves and long capture
//! sequences takes tens of thousands of nodes for one full ply, so its weak levels are
//! budgets that stop the first ply part way (the moves looked at first are played, a capture
//! or a threat beyond them missed) and its stronger ones budgets of one to two whole plies.
//!
//! ```
//! use tsubame_engine::limits::Limits;
//! use tsubame_engine::strength::Level;
//! use tsubame_rules::Variant;
//!
//! let beginner = Level::new(1).expect("levels are 1 to 8");
//! let limits = beginner.limits(Limits::default());
//! assert!(limits.nodes.is_some());
//! assert!(limits.lines >= 4);
//! // Tenjiku's beginner looks at part of one ply, on a budget of its own, with one line.
//! let tenjiku = beginner.for_variant(Variant::Tenjiku).limits(Limits::default());
//! assert_eq!(tenjiku.lines, 1);
//! assert_ne!(tenjiku.nodes, limits.nodes);
//! // The top level is the plain search, held only to its time cap.
//! let full = Level::new(Level::MAX).expect("the top level");
//! assert_eq!(full.limits(Limits::default()).nodes, None);
//! assert_eq!(full.limits(Limits::default()).lines, 1);
//! ```

use crate::limits::Limits;
use crate::search::{Info, Outcome, Score};
use std::time::Duration;
use tsubame_rules::{Move, Variant};

/// What a level's search is held to and how its move is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LevelSpec {
    /// Nodes a move may search; none: the time cap alone.
    nodes: Option<u64>,
    /// The most time a move may take (less when the clock allows less).
    time_cap: Duration,
    /// Best moves searched to choose among; 1: the best move is played.
    lines: u32,
    /// How far the choice strays from the best move, Stockfish's `120 - 2 × skill` (0 to 120).
    weakness: i32,
    /// The least time a reply takes on the play server, so that a beginner's opponent does not
    /// answer at once.
    pace: Duration,
}

const fn ms(value: u64) -> Duration {
    Duration::from_millis(value)
}

/// The levels of Tori and Wa, weakest first.
const LEVELS: [LevelSpec; 8] = [
    LevelSpec {
        nodes: Some(300),
        time_cap: ms(200),
        lines: 5,
        weakness: 110,
        pace: ms(1_200),
    },
    LevelSpec {
        nodes: Some(1_000),
        time_cap: ms(300),
        lines: 4,
        weakness: 90,
        pace: ms(1_200),
    },
    LevelSpec {
        nodes: Some(3_000),
        time_cap: ms(400),
        lines: 4,
        weakness: 65,
        pace: ms(1_000),
    },
    LevelSpec {
        nodes: Some(6_600),
        time_cap: ms(600),
        lines: 3,
        weakness: 45,
        pace: ms(1_000),
    },
    LevelSpec {
        nodes: Some(12_600),
        time_cap: ms(900),
        lines: 2,
        weakness: 30,
        pace: ms(800),
    },
    LevelSpec {
        nodes: Some(36_000),
        time_cap: ms(1_500),
        lines: 2,
        weakness: 15,
        pace: ms(500),
    },
    LevelSpec {
        nodes: Some(52_000),
        time_cap: ms(2_500),
        lines: 1,
        weakness: 0,
        pace: ms(0),
    },
    LevelSpec {
        nodes: None,
        time_cap: ms(5_000),
        lines: 1,
        weakness: 0,
        pace: ms(0),
    },
];

/// Tenjiku's levels, weakest first. One full ply of Tenjiku with its capture sequences is some
/// 10,000 to 30,000 nodes, so the budgets of levels 1-5 end the first ply part way, and each
/// line of several (MultiPV) would cost that whole ply: every level plays one line. Measured
/// each against the next (docs/engine.md): steps of 117 to 228 Elo from level 1 to 8.
const TENJIKU_LEVELS: [LevelSpec; 8] = [
    LevelSpec {
        nodes: Some(2_000),
        time_cap: ms(200),
        lines: 1,
        weakness: 0,
        pace: ms(1_200),
    },
    LevelSpec {
        nodes: Some(2_900),
        time_cap: ms(300),
        lines: 1,
        weakness: 0,
        pace: ms(1_200),
    },
    LevelSpec {
        nodes: Some(4_000),
        time_cap: ms(400),
        lines: 1,
        weakness: 0,
        pace: ms(1_000),
    },
    LevelSpec {
        nodes: Some(6_500),
        time_cap: ms(600),
        lines: 1,
        weakness: 0,
        pace: ms(1_000),
    },
    LevelSpec {
        nodes: Some(11_000),
        time_cap: ms(900),
        lines: 1,
        weakness: 0,
        pace: ms(800),
    },
    LevelSpec {
        nodes: Some(20_000),
        time_cap: ms(1_500),
        lines: 1,
        weakness: 0,
        pace: ms(500),
    },
    LevelSpec {
        nodes: Some(45_000),
        time_cap: ms(2_500),
        lines: 1,
        weakness: 0,
        pace: ms(0),
    },
    LevelSpec {
        nodes: None,
        time_cap: ms(5_000),
        lines: 1,
        weakness: 0,
        pace: ms(0),
    },
];

/// A strength level, 1 (weakest) to [`Level::MAX`] (full strength within its time cap), in
/// one game's table of budgets ([`Level::for_variant`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    number: u8,
    table: &'static [LevelSpec; 8],
}

impl Level {
    /// The strongest level.
    pub const MAX: u8 = LEVELS.len() as u8;

    /// The level `level`, if it is one (1 to [`Level::MAX`]).
    /// The budgets are Tori's and Wa's until [`Level::for_variant`] says which game is played.
    pub fn new(level: u8) -> Option<Level> {
        (1..=Level::MAX).contains(&level).then_some(Level {
            number: level,
            table: &LEVELS,
        })
    }

    /// The same level with the budgets of `variant`'s table.
    pub fn for_variant(self, variant: Variant) -> Level {
        let table = match variant {
            Variant::Tenjiku => &TENJIKU_LEVELS,
            Variant::Tori | Variant::Wa => &LEVELS,
        };
        Level { table, ..self }
    }

    /// The level's number.
    pub fn number(self) -> u8 {
        self.number
    }

    fn spec(self) -> &'static LevelSpec {
        &self.table[usize::from(self.number - 1)]
    }

    /// `limits` held to this level: its node budget, its time cap or less when the clock's
    /// budget is less, and enough lines to choose among. An infinite search (analysis) is
    /// left alone.
    pub fn limits(self, limits: Limits) -> Limits {
        if limits.infinite {
            return limits;
        }
        let spec = self.spec();
        let time = limits
            .budget()
            .map_or(spec.time_cap, |budget| budget.soft.min(spec.time_cap))
            .max(ms(10));
        Limits {
            nodes: match (limits.nodes, spec.nodes) {
                (Some(asked), Some(cap)) => Some(asked.min(cap)),
                (asked, cap) => asked.or(cap),
            },
            move_time: Some(time),
            clock: None,
            lines: limits.lines.max(spec.lines),
            ..limits
        }
    }

    /// The least time a reply at this level takes on the play server.
    pub fn pace(self) -> Duration {
        self.spec().pace
    }

    /// The move this level plays from a search held to [`Level::limits`]: the best by the
    /// search's score plus a push from `random` (any number, a fresh one for each move), larger
    /// the weaker the level. `None` when the side to move has no move.
    pub fn choose(self, outcome: &Outcome, random: u64) -> Option<Move> {
        let spec = self.spec();
        let best = outcome.best?;
        if spec.weakness == 0 || outcome.lines.len() < 2 {
            return Some(best);
        }
        let lines: Vec<(Move, i32)> = outcome
            .lines
            .iter()
            .filter_map(|line: &Info| Some((*line.pv.first()?, comparable(line.score))))
            .collect();
        let Some(&(_, top)) = lines.first() else {
            return Some(best);
        };
        // A mate found is never given away: the weakening is among moves that do not decide.
        if matches!(outcome.info.score, Score::Mate(n) if n > 0) {
            return Some(best);
        }
        let last = lines.last().map_or(top, |&(_, score)| score);
        let pawn = 100;
        let delta = (top - last).clamp(0, pawn);
        let weakness = spec.weakness.max(1);
        let mut state = random | 1;
        let mut chosen = best;
        let mut chosen_score = i32::MIN;
        for &(mv, score) in &lines {
            state = next_random(state);
            let noise = (state >> 33) as i32 % weakness;
            let push = (weakness * (top - score) + delta * noise) / 128;
            if score + push >= chosen_score {
                chosen_score = score + push;
                chosen = mv;
            }
        }
        Some(chosen)
    }
}

/// A score as centipawns for comparing lines: mates beyond every evaluation, sooner ones more.
fn comparable(score: Score) -> i32 {
    match score {
        Score::Centipawns(cp) => cp.clamp(-20_000, 20_000),
        Score::Mate(n) if n > 0 => 30_000 - n,
        Score::Mate(n) => -30_000 - n,
    }
}

/// xorshift64*: the push needs no more than a fresh, cheap number per line.
fn next_random(mut state: u64) -> u64 {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::Square;

    /// Level `number` of Tori's and Wa's table.
    fn shared(number: u8) -> Level {
        Level {
            number,
            table: &LEVELS,
        }
    }

    fn line(multipv: u32, score: Score, mv: Move) -> Info {
        Info {
            depth: 5,
            seldepth: 5,
            score,
            nodes: 100,
            time: Duration::ZERO,
            pv: vec![mv],
            hashfull: 0,
            multipv,
        }
    }

    fn moves() -> Vec<Move> {
        (0..4u8)
            .map(|i| Move::normal(Square::from_index(i), Square::from_index(i + 10), false))
            .collect()
    }

    fn outcome(scores: &[Score]) -> Outcome {
        let moves = moves();
        let lines: Vec<Info> = scores
            .iter()
            .enumerate()
            .map(|(i, &s)| line(i as u32 + 1, s, moves[i]))
            .collect();
        Outcome {
            best: Some(moves[0]),
            ponder: None,
            info: lines[0].clone(),
            lines,
        }
    }

    #[test]
    fn levels_are_numbered_one_to_eight_and_get_stronger() {
        assert_eq!(Level::new(0), None);
        assert_eq!(Level::new(9), None);
        for table in [&LEVELS, &TENJIKU_LEVELS] {
            let budgets: Vec<u64> = table.iter().map(|l| l.nodes.unwrap_or(u64::MAX)).collect();
            assert!(budgets.windows(2).all(|w| w[0] < w[1]), "{budgets:?}");
            let caps: Vec<Duration> = table.iter().map(|l| l.time_cap).collect();
            assert!(caps.windows(2).all(|w| w[0] < w[1]), "{caps:?}");
            let weakness: Vec<i32> = table.iter().map(|l| l.weakness).collect();
            assert!(weakness.windows(2).all(|w| w[0] >= w[1]), "{weakness:?}");
            assert!(table.iter().all(|l| (0..=120).contains(&l.weakness)));
            assert_eq!(table[7].nodes, None, "the top level is held by time alone");
        }
        // A line beside the first costs Tenjiku a whole ply: its levels play one.
        assert!(TENJIKU_LEVELS.iter().all(|l| l.lines == 1));
        let tenjiku = |n| shared(n).for_variant(Variant::Tenjiku);
        assert_eq!(tenjiku(3).number(), 3);
        assert_eq!(tenjiku(3).for_variant(Variant::Tori), shared(3));
        assert_eq!(tenjiku(1).limits(Limits::default()).nodes, Some(2_000));
    }

    #[test]
    fn the_clock_shortens_a_level_and_analysis_is_left_alone() {
        use crate::limits::Clock;
        let hurried = Limits {
            clock: Some(Clock {
                remaining: ms(1_000),
                byoyomi: ms(0),
                increment: ms(0),
            }),
            ..Limits::default()
        };
        let level = shared(8);
        let held = level.limits(hurried);
        assert!(held.move_time.unwrap_or(ms(9_999)) < ms(1_000));
        let analysis = Limits {
            infinite: true,
            ..Limits::default()
        };
        assert_eq!(shared(1).limits(analysis), analysis);
    }

    #[test]
    fn a_weak_level_strays_among_close_moves_and_the_top_levels_never_do() {
        let close = outcome(&[
            Score::Centipawns(30),
            Score::Centipawns(20),
            Score::Centipawns(10),
            Score::Centipawns(0),
        ]);
        let picked = |level: u8, case: &Outcome| {
            let mut seen = [0u32; 4];
            for random in 0..400u64 {
                let mv = shared(level).choose(case, random.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let index = moves().iter().position(|m| Some(*m) == mv).unwrap_or(0);
                seen[index] += 1;
            }
            seen
        };
        let beginner = picked(1, &close);
        assert!(
            beginner[0] < 300 && beginner.iter().filter(|&&n| n > 0).count() >= 3,
            "{beginner:?}"
        );
        assert_eq!(picked(7, &close), [400, 0, 0, 0]);
        assert_eq!(picked(8, &close), [400, 0, 0, 0]);
        // A blunder by several pawns is chosen far less often than a near miss.
        let blunder = outcome(&[
            Score::Centipawns(300),
            Score::Centipawns(290),
            Score::Centipawns(-400),
            Score::Centipawns(-500),
        ]);
        let strayed = picked(4, &blunder);
        assert!(strayed[2] + strayed[3] < strayed[1], "{strayed:?}");
        // A mate is always played.
        let mate = outcome(&[
            Score::Mate(3),
            Score::Centipawns(900),
            Score::Centipawns(880),
            Score::Centipawns(870),
        ]);
        assert_eq!(picked(1, &mate), [400, 0, 0, 0]);
    }
}
