//! Puzzles: the files built into the server, loaded into the database at start, and the
//! queries and rated attempts of the puzzle endpoints.

use crate::ratings::{Rating, after_game};
use crate::store::{Store, lock_accounts};
use anyhow::{Context, Result};
use sqlx::{AnyPool, Row};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use tsubame_puzzles::deep::DeepVerdict;
use tsubame_puzzles::{Puzzle, read_puzzles};

/// The puzzle files built into the server: mined from the engine's games with `tsubame
/// puzzles generate` (see `data/puzzles/README.md`).
const BUILT_IN_FILES: [(&str, &str); 3] = [
    ("tori", include_str!("../../../data/puzzles/tori.jsonl")),
    ("wa", include_str!("../../../data/puzzles/wa.jsonl")),
    (
        "tenjiku",
        include_str!("../../../data/puzzles/tenjiku.jsonl"),
    ),
];

/// The deep check's verdicts on the built-in puzzles (`tsubame puzzles check --deep`, see
/// `data/puzzles/README.md`).
const BUILT_IN_VERDICTS: [(&str, &str); 3] = [
    (
        "tori",
        include_str!("../../../data/puzzles/tori.deep.jsonl"),
    ),
    ("wa", include_str!("../../../data/puzzles/wa.deep.jsonl")),
    (
        "tenjiku",
        include_str!("../../../data/puzzles/tenjiku.deep.jsonl"),
    ),
];

/// The deep check's verdicts, by puzzle: whether it is retired, and its other right answers
/// as stored (`index:move` words).
pub fn deep_verdicts() -> &'static HashMap<String, (bool, String)> {
    static VERDICTS: OnceLock<HashMap<String, (bool, String)>> = OnceLock::new();
    VERDICTS.get_or_init(|| {
        BUILT_IN_VERDICTS
            .iter()
            .flat_map(|(_, text)| text.lines())
            .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            .filter_map(|line| serde_json::from_str::<DeepVerdict>(line).ok())
            .map(|verdict| {
                let also = verdict
                    .also
                    .iter()
                    .map(|(index, usi)| format!("{index}:{usi}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                (verdict.id, (!verdict.keep, also))
            })
            .collect()
    })
}

/// The deviation a built-in puzzle starts with: its mined rating is an estimate.
const START_DEVIATION: f64 = 200.0;

/// The built-in puzzles, read once.
pub fn built_in() -> &'static [Puzzle] {
    static PUZZLES: OnceLock<Vec<Puzzle>> = OnceLock::new();
    PUZZLES.get_or_init(|| {
        BUILT_IN_FILES
            .iter()
            .flat_map(|(name, text)| {
                // The files are checked by the tests; a defect leaves the file out rather
                // than stopping the server.
                read_puzzles(text).unwrap_or_else(|e| {
                    tracing::error!("built-in puzzle file {name}: {e}");
                    Vec::new()
                })
            })
            .collect()
    })
}

/// Inserts the built-in puzzles the database does not have yet.
pub async fn load_built_in(pool: &AnyPool) -> Result<()> {
    let have: HashSet<String> = sqlx::query_scalar("SELECT id FROM puzzles")
        .fetch_all(pool)
        .await?
        .into_iter()
        .collect();
    let missing: Vec<&Puzzle> = built_in()
        .iter()
        .filter(|p| !have.contains(&p.id))
        .collect();
    if missing.is_empty() {
        return apply_deep_verdicts(pool).await;
    }
    let start = Rating {
        deviation: START_DEVIATION,
        ..Rating::default()
    };
    let mut tx = pool.begin().await?;
    for puzzle in missing {
        let (_, deviation, volatility) = start.to_stored();
        // Several instances may load at once: a puzzle another has just inserted is skipped.
        sqlx::query(
            "INSERT INTO puzzles (id, variant, options, sfen, moves, themes, rating_milli, \
             deviation_milli, volatility_nano, plays, solved) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&puzzle.id)
        .bind(&puzzle.variant)
        .bind(&puzzle.options)
        .bind(&puzzle.sfen)
        .bind(puzzle.moves.join(" "))
        .bind(format!(" {} ", puzzle.themes.join(" ")))
        .bind(i64::from(puzzle.rating) * 1000)
        .bind(deviation)
        .bind(volatility)
        .execute(&mut *tx)
        .await
        .with_context(|| format!("puzzle {}", puzzle.id))?;
    }
    tx.commit().await?;
    apply_deep_verdicts(pool).await
}

/// Applies the deep check's verdicts to the puzzles that do not have them yet: those it
/// leaves out are retired, and the other right answers it found are kept with each.
async fn apply_deep_verdicts(pool: &AnyPool) -> Result<()> {
    let stored: Vec<(String, i64, String)> =
        sqlx::query_as("SELECT id, retired, also FROM puzzles ORDER BY id")
            .fetch_all(pool)
            .await?;
    let verdicts = deep_verdicts();
    let mut tx = pool.begin().await?;
    for (id, retired, also) in stored {
        let Some((retire, answers)) = verdicts.get(&id) else {
            continue;
        };
        if (retired != 0) == *retire && &also == answers {
            continue;
        }
        sqlx::query("UPDATE puzzles SET retired = $1, also = $2 WHERE id = $3")
            .bind(i64::from(*retire))
            .bind(answers)
            .bind(&id)
            .execute(&mut *tx)
            .await
            .with_context(|| format!("puzzle {id}"))?;
    }
    tx.commit().await?;
    Ok(())
}

/// A puzzle as the database has it, with its current rating.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzleRow {
    /// The id.
    pub id: String,
    /// The game.
    pub variant: String,
    /// Rule options text.
    pub options: String,
    /// The start position.
    pub sfen: String,
    /// The solution, USI.
    pub moves: Vec<String>,
    /// Its themes.
    pub themes: Vec<String>,
    /// Its rating now.
    pub rating: Rating,
    /// Attempts by accounts.
    pub plays: i64,
    /// Later answers as good as the solution's (the deep check's): the index of the move in
    /// the line, and the move; playing one solves the puzzle there.
    pub also: Vec<(usize, String)>,
}

impl PuzzleRow {
    /// Whether `moves` solve the puzzle: its own solution, or, for a puzzle whose line ends in
    /// mate, any line of no more moves, legal from its position, that ends with the player
    /// mating: a move that mates as fast is as right as the solution's (as the play sites
    /// take it), and the replies after it are the defender's own.
    pub fn solved_by(&self, moves: &[String]) -> bool {
        if moves == self.moves.as_slice() {
            return true;
        }
        // A later answer as good as the solution's ends the puzzle there.
        if let Some((last, before)) = moves.split_last()
            && self.also.iter().any(|(index, usi)| {
                *index == before.len() && usi == last && self.moves.get(..*index) == Some(before)
            })
        {
            return true;
        }
        if !self.themes.iter().any(|theme| theme == "mate")
            || moves.len() > self.moves.len()
            || moves.len().is_multiple_of(2)
        {
            return false;
        }
        let Some(variant) = tsubame_rules::Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name() == self.variant)
        else {
            return false;
        };
        let Ok(mut game) = crate::game::HostedGame::new(variant, &self.options, Some(&self.sfen))
        else {
            return false;
        };
        let player = if game.sente_to_move() {
            tsubame_rules::Color::Sente
        } else {
            tsubame_rules::Color::Gote
        };
        for mv in moves {
            if game.outcome().is_some() || game.play_silently(mv).is_err() {
                return false;
            }
        }
        game.outcome().is_some_and(|outcome| {
            outcome.reason == tsubame_rules::EndReason::Checkmate && outcome.winner == Some(player)
        })
    }
}

const COLUMNS: &str = "id, variant, options, sfen, moves, themes, rating_milli, \
    deviation_milli, volatility_nano, plays, also";

/// Only the puzzles the deep check kept are handed out, listed and counted.
const IN_USE: &str = "retired = 0";

fn row_of(row: &sqlx::any::AnyRow) -> Result<PuzzleRow> {
    let words = |text: String| text.split_whitespace().map(String::from).collect();
    Ok(PuzzleRow {
        id: row.try_get("id")?,
        variant: row.try_get("variant")?,
        options: row.try_get("options")?,
        sfen: row.try_get("sfen")?,
        moves: words(row.try_get("moves")?),
        themes: words(row.try_get("themes")?),
        rating: Rating::from_stored(
            row.try_get("rating_milli")?,
            row.try_get("deviation_milli")?,
            row.try_get("volatility_nano")?,
        ),
        plays: row.try_get("plays")?,
        also: row
            .try_get::<String, _>("also")?
            .split_whitespace()
            .filter_map(|word| {
                let (index, usi) = word.split_once(':')?;
                Some((index.parse().ok()?, usi.to_string()))
            })
            .collect(),
    })
}

/// What a list of puzzles is filtered by.
#[derive(Clone, Debug, Default)]
pub struct PuzzleFilter<'a> {
    /// Only this game's.
    pub variant: Option<&'a str>,
    /// Only those with this theme.
    pub theme: Option<&'a str>,
}

/// A rated attempt's effect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatedAttempt {
    /// The player's puzzle rating before.
    pub before: Rating,
    /// And after.
    pub after: Rating,
    /// The puzzle's rating after.
    pub puzzle: Rating,
}

/// When an attempt at a puzzle is rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttemptRules {
    /// The least time a person takes for each of their moves in a solution, milliseconds.
    pub move_ms: i64,
    /// Rated attempts an account may make a minute.
    pub per_minute: i64,
}

impl Default for AttemptRules {
    fn default() -> Self {
        AttemptRules {
            move_ms: 1_000,
            per_minute: 15,
        }
    }
}

impl AttemptRules {
    /// The least time a person takes to play a puzzle's solution: [`Self::move_ms`] for each
    /// of their own moves in it.
    pub fn solving_ms(&self, puzzle: &PuzzleRow) -> i64 {
        self.move_ms * puzzle.moves.len().div_ceil(2) as i64
    }
}

/// What became of an account's attempt at a puzzle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttemptOutcome {
    /// Rated: both ratings changed.
    Rated(RatedAttempt),
    /// Not rated, and why.
    Unrated(Unrated),
}

/// Why an account's attempt was not rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrated {
    /// The server did not hand the puzzle to the account (a list shows puzzles to browse,
    /// not to be rated on): nothing is recorded.
    NotHandedOut,
    /// Only a first attempt at a puzzle is rated.
    TriedBefore,
    /// Solved sooner than a person could play the solution: the attempt is spent.
    TooFast,
    /// More rated attempts in the last minute than allowed: nothing is recorded.
    TooMany,
}

impl Unrated {
    /// Why, in a sentence for the player.
    pub fn reason(self) -> &'static str {
        match self {
            Unrated::NotHandedOut => {
                "only a puzzle given to you (the next puzzle, the day's, a theme's) is rated"
            }
            Unrated::TriedBefore => "only your first attempt at a puzzle is rated",
            Unrated::TooFast => "solved faster than a person can play it: not rated",
            Unrated::TooMany => "too many rated attempts in a minute: this one is not rated",
        }
    }

    /// The same as a code the page translates.
    pub fn code(self) -> &'static str {
        match self {
            Unrated::NotHandedOut => "not-handed-out",
            Unrated::TriedBefore => "tried-before",
            Unrated::TooFast => "too-fast",
            Unrated::TooMany => "too-many",
        }
    }
}

impl Store {
    /// Puzzles by rating, easiest first, at most `limit`, from `offset`.
    pub async fn puzzles(
        &self,
        filter: &PuzzleFilter<'_>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<PuzzleRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM puzzles \
             WHERE ($1 = '' OR variant = $1) AND ($2 = '' OR themes LIKE $3) AND {IN_USE} \
             ORDER BY rating_milli, id LIMIT $4 OFFSET $5"
        ))
        .bind(filter.variant.unwrap_or_default())
        .bind(filter.theme.unwrap_or_default())
        .bind(format!("% {} %", filter.theme.unwrap_or_default()))
        .bind(limit)
        .bind(offset)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(row_of).collect()
    }

    /// How many puzzles match.
    pub async fn puzzle_count(&self, filter: &PuzzleFilter<'_>) -> Result<i64> {
        Ok(sqlx::query_scalar(&format!(
            "SELECT COUNT(*) FROM puzzles \
             WHERE ($1 = '' OR variant = $1) AND ($2 = '' OR themes LIKE $3) AND {IN_USE}"
        ))
        .bind(filter.variant.unwrap_or_default())
        .bind(filter.theme.unwrap_or_default())
        .bind(format!("% {} %", filter.theme.unwrap_or_default()))
        .fetch_one(self.pool())
        .await?)
    }

    /// The puzzle at `index` of a game's puzzles ordered by id: an order attempts do not move.
    pub async fn puzzle_by_id_order(&self, variant: &str, index: i64) -> Result<Option<PuzzleRow>> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM puzzles WHERE variant = $1 AND {IN_USE} \
             ORDER BY id LIMIT 1 OFFSET $2"
        ))
        .bind(variant)
        .bind(index)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(row_of).transpose()
    }

    /// One puzzle.
    pub async fn puzzle(&self, id: &str) -> Result<Option<PuzzleRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM puzzles WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(row_of).transpose()
    }

    /// The puzzles nearest to `rating` (thousandths) that `account` has not tried and that are
    /// not in `seen`, nearest first, at most `limit`.
    pub async fn puzzles_near(
        &self,
        filter: &PuzzleFilter<'_>,
        rating_milli: i64,
        account: Option<&str>,
        seen: &[String],
        limit: i64,
    ) -> Result<Vec<PuzzleRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM puzzles \
             WHERE ($1 = '' OR variant = $1) AND ($2 = '' OR themes LIKE $3) AND {IN_USE} \
             AND id NOT IN (SELECT puzzle_id FROM puzzle_attempts WHERE account_id = $4) \
             ORDER BY ABS(rating_milli - $5), id LIMIT $6"
        ))
        .bind(filter.variant.unwrap_or_default())
        .bind(filter.theme.unwrap_or_default())
        .bind(format!("% {} %", filter.theme.unwrap_or_default()))
        .bind(account.unwrap_or_default())
        .bind(rating_milli)
        .bind(limit + seen.len() as i64)
        .fetch_all(self.pool())
        .await?;
        let mut near = Vec::new();
        for row in &rows {
            let puzzle = row_of(row)?;
            if !seen.contains(&puzzle.id) && (near.len() as i64) < limit {
                near.push(puzzle);
            }
        }
        Ok(near)
    }

    /// An account's puzzle rating in a game, and its rated attempts.
    pub async fn puzzle_rating(&self, account_id: &str, variant: &str) -> Result<(Rating, i64)> {
        let row: Option<(i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT rating_milli, deviation_milli, volatility_nano, attempts \
             FROM puzzle_ratings WHERE account_id = $1 AND variant = $2",
        )
        .bind(account_id)
        .bind(variant)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map_or((Rating::default(), 0), |(r, d, v, attempts)| {
            (Rating::from_stored(r, d, v), attempts)
        }))
    }

    /// An account's puzzle rating in each game it has tried puzzles of, with its rated
    /// attempts, in the games' order.
    pub async fn puzzle_ratings_of(&self, account_id: &str) -> Result<Vec<(String, Rating, i64)>> {
        let rows: Vec<(String, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT variant, rating_milli, deviation_milli, volatility_nano, attempts \
             FROM puzzle_ratings WHERE account_id = $1",
        )
        .bind(account_id)
        .fetch_all(self.pool())
        .await?;
        let mut ratings: Vec<(String, Rating, i64)> = rows
            .into_iter()
            .map(|(variant, r, d, v, attempts)| (variant, Rating::from_stored(r, d, v), attempts))
            .collect();
        let order = |name: &str| {
            tsubame_rules::Variant::ALL
                .iter()
                .position(|v| v.name() == name)
        };
        ratings.sort_by_key(|(variant, _, _)| order(variant));
        Ok(ratings)
    }

    /// Records that a puzzle was handed to an account (by the next puzzle, the day's, a
    /// theme's), now: what makes an attempt at it rated, once a person could have solved it.
    pub async fn hand_out_puzzle(&self, account_id: &str, puzzle_id: &str, now: i64) -> Result<()> {
        let done = sqlx::query(
            "INSERT INTO puzzle_handouts (account_id, puzzle_id, handed_at) VALUES ($1, $2, $3) \
             ON CONFLICT (account_id, puzzle_id) DO UPDATE SET handed_at = $3",
        )
        .bind(account_id)
        .bind(puzzle_id)
        .bind(now)
        .execute(self.pool())
        .await;
        self.written(done).map(|_| ())
    }

    /// Records an account's attempt at a puzzle and, when it counts, rates both, the player
    /// winning when it solved it. Only a first attempt at a puzzle the server handed to the
    /// account counts, a solved one only once a person could have played the solution
    /// (`rules.solving_ms` after it was handed out), and at most `rules.per_minute` a minute:
    /// all checked with the account's row locked, in the transaction that rates.
    pub async fn rate_attempt(
        &self,
        account_id: &str,
        puzzle: &PuzzleRow,
        solved: bool,
        now: i64,
        rules: &AttemptRules,
    ) -> Result<AttemptOutcome> {
        self.in_transaction(async |tx| {
            // Two attempts at once would read the same ratings, and the later write would undo
            // the earlier; and the limits are counted: the account's row is locked first.
            lock_accounts(&mut *tx, &[account_id]).await?;
            let handed: Option<(i64,)> = sqlx::query_as(
                "SELECT handed_at FROM puzzle_handouts WHERE account_id = $1 AND puzzle_id = $2",
            )
            .bind(account_id)
            .bind(&puzzle.id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((handed_at,)) = handed else {
                return Ok(AttemptOutcome::Unrated(Unrated::NotHandedOut));
            };
            let (tried,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM puzzle_attempts WHERE account_id = $1 AND puzzle_id = $2",
            )
            .bind(account_id)
            .bind(&puzzle.id)
            .fetch_one(&mut *tx)
            .await?;
            if tried > 0 {
                return Ok(AttemptOutcome::Unrated(Unrated::TriedBefore));
            }
            let (last_minute,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM puzzle_attempts WHERE account_id = $1 AND at > $2",
            )
            .bind(account_id)
            .bind(now - 60_000)
            .fetch_one(&mut *tx)
            .await?;
            if last_minute >= rules.per_minute {
                return Ok(AttemptOutcome::Unrated(Unrated::TooMany));
            }
            sqlx::query(
                "INSERT INTO puzzle_attempts (account_id, puzzle_id, solved, at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(account_id)
            .bind(&puzzle.id)
            .bind(i64::from(solved))
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let too_fast = solved && now - handed_at < rules.solving_ms(puzzle);
            if too_fast {
                // The attempt is spent, unrated: trying fast, then again, earns nothing.
                return Ok(AttemptOutcome::Unrated(Unrated::TooFast));
            }
            let player: Option<(i64, i64, i64)> = sqlx::query_as(
                "SELECT rating_milli, deviation_milli, volatility_nano FROM puzzle_ratings \
                 WHERE account_id = $1 AND variant = $2",
            )
            .bind(account_id)
            .bind(&puzzle.variant)
            .fetch_optional(&mut *tx)
            .await?;
            let before = player.map_or(Rating::default(), |(r, d, v)| Rating::from_stored(r, d, v));
            // Another account's attempt at the same puzzle may rate it at once: its row is
            // locked too (on SQLite the write lock is the database's already), in a mode that
            // does not wait for the key share the attempt's foreign key took, nor make the
            // other attempt's wait for this one's (which would deadlock the two).
            let lock = if self.shared() {
                " FOR NO KEY UPDATE"
            } else {
                ""
            };
            let current: (i64, i64, i64) = sqlx::query_as(&format!(
                "SELECT rating_milli, deviation_milli, volatility_nano FROM puzzles \
                 WHERE id = $1{lock}"
            ))
            .bind(&puzzle.id)
            .fetch_one(&mut *tx)
            .await?;
            let puzzle_before = Rating::from_stored(current.0, current.1, current.2);
            let [after, puzzle_after] =
                after_game(before, puzzle_before, Some(if solved { 0 } else { 1 }));
            let (r, d, v) = after.to_stored();
            sqlx::query(
                "INSERT INTO puzzle_ratings (account_id, variant, rating_milli, deviation_milli, \
                 volatility_nano, attempts, updated_at) VALUES ($1, $2, $3, $4, $5, 1, $6) \
                 ON CONFLICT (account_id, variant) DO UPDATE SET rating_milli = $3, \
                 deviation_milli = $4, volatility_nano = $5, \
                 attempts = puzzle_ratings.attempts + 1, updated_at = $6",
            )
            .bind(account_id)
            .bind(&puzzle.variant)
            .bind(r)
            .bind(d)
            .bind(v)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let (r, d, v) = puzzle_after.to_stored();
            sqlx::query(
                "UPDATE puzzles SET rating_milli = $1, deviation_milli = $2, volatility_nano = $3, \
                 plays = plays + 1, solved = solved + $4 WHERE id = $5",
            )
            .bind(r)
            .bind(d)
            .bind(v)
            .bind(i64::from(solved))
            .bind(&puzzle.id)
            .execute(&mut *tx)
            .await?;
            Ok(AttemptOutcome::Rated(RatedAttempt {
                before,
                after,
                puzzle: puzzle_after,
            }))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn puzzle(sfen: &str, moves: &[&str], themes: &[&str]) -> PuzzleRow {
        PuzzleRow {
            id: "test".into(),
            variant: "tori".into(),
            options: String::new(),
            sfen: sfen.into(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
            themes: themes.iter().map(|t| t.to_string()).collect(),
            rating: Rating::default(),
            plays: 0,
            also: Vec::new(),
        }
    }

    fn line(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn another_move_that_mates_as_fast_solves_a_mate() {
        // A bare phoenix on 1a, a crane on 1c: a falcon dropped on 1b or on 2b mates.
        let mate = puzzle("6k/7/6C/7/7/7/K6 b F 1", &["F*1b"], &["mate", "mate-in-1"]);
        assert!(mate.solved_by(&line(&["F*1b"])));
        assert!(mate.solved_by(&line(&["F*2b"])));
        // Not a mate, a longer line, an illegal move, a line that ends on the defender.
        assert!(!mate.solved_by(&line(&["F*3b"])));
        assert!(!mate.solved_by(&line(&["F*3b", "1a2a", "F*2b"])));
        assert!(!mate.solved_by(&line(&["F*1a"])));
        assert!(!mate.solved_by(&line(&[])));
        // A tactic is solved by its own answer only.
        let tactic = puzzle("6k/7/6C/7/7/7/K6 b F 1", &["F*1b"], &["advantage"]);
        assert!(tactic.solved_by(&line(&["F*1b"])));
        assert!(!tactic.solved_by(&line(&["F*2b"])));
    }

    #[test]
    fn a_later_answer_as_good_solves_a_tactic_there() {
        let mut tactic = puzzle(
            "6k/7/6C/7/7/7/K6 b F 1",
            &["1c1b", "1a2a", "F*3b"],
            &["advantage"],
        );
        tactic.also = vec![(2, "F*2b".to_string())];
        assert!(tactic.solved_by(&line(&["1c1b", "1a2a", "F*3b"])));
        assert!(tactic.solved_by(&line(&["1c1b", "1a2a", "F*2b"])));
        // Only where the deep check found it, after the line's own moves.
        assert!(!tactic.solved_by(&line(&["F*2b"])));
        assert!(!tactic.solved_by(&line(&["1c2b", "1a2a", "F*2b"])));
        assert!(!tactic.solved_by(&line(&["1c1b", "1a2a", "F*4b"])));
    }
}
