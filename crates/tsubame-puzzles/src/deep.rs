//! The deep check of a tactic: each of the player's positions searched again, for its two best
//! moves, far beyond the searches that mined it. A tactic is kept when its first move is the
//! best, clearly better than the second best, and (unless the puzzle is about defending)
//! clearly winning; a later answer of the player's must be the best too, or as good as it, and
//! a second move as good as the answer is listed, to be taken as right when played. Mates are
//! not checked here: the mate solver proves them, and any move that mates as fast is right.

use crate::generate::look;
use crate::{Puzzle, PuzzleError};
use serde::{Deserialize, Serialize};

/// The nodes of each search by default: fifty times the first look of the mining, ten times its
/// confirmation.
pub const DEEP_NODES: u64 = 1_000_000;
/// A first move is clearly winning from this many centipawns for the player.
pub const DEEP_WINNING: i32 = 200;
/// A first move is clearly the best when the second best is this many centipawns behind it...
pub const DEEP_CLEAR: i32 = 100;
/// ...and at least this share of the first move's value behind: the engines' scales differ
/// (Tori's network calls a won falcon thousands of centipawns), and between two moves that win
/// about as much neither is the answer.
pub const DEEP_CLEAR_SHARE: f64 = 0.15;
/// A later answer within this many centipawns of the best move is as good as it.
pub const DEEP_EQUAL: i32 = 60;

/// What the deep check made of a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeepVerdict {
    /// The puzzle.
    pub id: String,
    /// Whether it is kept.
    pub keep: bool,
    /// Why it is left out, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Later answers as good as the solution's: the index of the move in the line, and the
    /// move, USI.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<(usize, String)>,
    /// The search's value of the first move, centipawns for the player (mates beyond every
    /// centipawn value); none for a mate, which is not searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<i32>,
    /// The value of the second best first move, as `first`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<i32>,
}

/// The deep check of one puzzle with `nodes` a search (see the module).
pub fn deep_verdict(puzzle: &Puzzle, nodes: u64) -> Result<DeepVerdict, PuzzleError> {
    let mut verdict = DeepVerdict {
        id: puzzle.id.clone(),
        keep: true,
        why: None,
        also: Vec::new(),
        first: None,
        second: None,
    };
    if puzzle.has_theme("mate") {
        return Ok(verdict);
    }
    let params = puzzle.engine_params()?;
    let mut position = puzzle.position()?;
    let drop = |verdict: &mut DeepVerdict, why: String| {
        verdict.keep = false;
        verdict.why = Some(why);
    };
    for (index, usi) in puzzle.moves.iter().enumerate() {
        let mv = puzzle.line_move(&position, index)?;
        if index % 2 == 0 {
            let Some(seen) = look(&position, &params, Some(nodes), None, 2) else {
                drop(&mut verdict, format!("move {}: no move found", index + 1));
                break;
            };
            let best = position.to_usi(seen.best);
            if index == 0 {
                verdict.first = Some(seen.best_value);
                verdict.second = seen.second_value;
                if seen.best != mv {
                    drop(
                        &mut verdict,
                        format!("the first move {usi} is not the best: {best} is"),
                    );
                    break;
                }
                if !puzzle.has_theme("defence") && seen.best_value < DEEP_WINNING {
                    drop(
                        &mut verdict,
                        format!(
                            "the first move {usi} is not clearly winning ({} cp)",
                            seen.best_value
                        ),
                    );
                    break;
                }
                if let Some(second) = seen.second_value {
                    let gap = seen.best_value - second;
                    let share = f64::from(gap) / f64::from(seen.best_value.max(1));
                    if gap < DEEP_CLEAR || share < DEEP_CLEAR_SHARE {
                        let other = seen
                            .second
                            .map_or_else(|| "another move".to_string(), |m| position.to_usi(m));
                        drop(
                            &mut verdict,
                            format!(
                                "the first move {usi} ({} cp) is not clearly better than {other} \
                                 ({second} cp)",
                                seen.best_value
                            ),
                        );
                        break;
                    }
                }
            } else if seen.best == mv {
                // The answer is the best: a second move as good is right too.
                if let (Some(second), Some(value)) = (seen.second, seen.second_value)
                    && seen.best_value - value <= DEEP_EQUAL
                {
                    verdict.also.push((index, position.to_usi(second)));
                }
            } else if seen.second == Some(mv)
                && seen
                    .second_value
                    .is_some_and(|value| seen.best_value - value <= DEEP_EQUAL)
            {
                // The answer is as good as the best: the best is right too.
                verdict.also.push((index, best));
            } else {
                drop(
                    &mut verdict,
                    format!("move {} ({usi}): the engine prefers {best}", index + 1),
                );
                break;
            }
        }
        position.play_unchecked(mv);
    }
    Ok(verdict)
}
