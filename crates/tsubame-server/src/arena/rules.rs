//! The arena's rules, as lichess and lishogi publish them, apart from the server: what a game
//! is worth, who plays whom next and with which side, and the order of the standings.
//!
//! - A win is worth 2 points, a draw 1, a loss 0; a draw before each side has made 10 moves
//!   is worth nothing.
//! - A game in which a side made fewer than 4 moves is worth nothing to either player,
//!   whatever its ending (a resignation, a flag, a player who never moved): two players who
//!   agree cannot trade points in a few seconds. It keeps the winner's streak as it was and
//!   ends the others' (losing early does not save a streak). A game resigned or aborted before
//!   each side has moved is aborted, and counts as no game at all.
//! - Two wins in a row start a streak: every game after them is worth double (a win 4, a
//!   draw 2) until the player fails to win.
//! - A player who berserks (half their main time) and wins, having made at least 7 moves,
//!   gets one point more.
//! - Players are paired again as soon as their game ends: the waiting players by points,
//!   then rating, each with the next one that was not their last opponent. Two players who
//!   just met play again only when nobody else is playing (nobody else can come).
//! - Sente goes to the player who has had it less often (counted against gote); on a tie, to
//!   the one placed higher.

use std::cmp::Ordering;

/// Plies before which a draw is worth nothing: ten moves by each side.
pub const SCORELESS_DRAW_PLIES: u32 = 20;

/// Moves each side must have made for a game to be worth anything, whatever its ending.
pub const SCORING_MOVES: u32 = 4;

/// Moves a berserking player must make for the extra point.
pub const BERSERK_MOVES: u32 = 7;

/// How a game ended for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Won.
    Win,
    /// Drawn.
    Draw,
    /// Lost.
    Loss,
}

/// What one player's game counts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The result for the player.
    pub outcome: Outcome,
    /// Whether the player berserked.
    pub berserked: bool,
    /// Moves the player made.
    pub own_moves: u32,
    /// Plies played by both.
    pub plies: u32,
}

/// The points a game earns a player whose streak of wins before it was `streak`, and the
/// streak after it.
pub fn score(streak: u32, end: GameEnd) -> (i64, u32) {
    // Sente moved first in every arena game: gote has made plies / 2 moves.
    if end.plies / 2 < SCORING_MOVES {
        let kept = if end.outcome == Outcome::Win {
            streak
        } else {
            0
        };
        return (0, kept);
    }
    let on_fire = streak >= 2;
    let factor = if on_fire { 2 } else { 1 };
    match end.outcome {
        Outcome::Win => {
            let bonus = i64::from(end.berserked && end.own_moves >= BERSERK_MOVES);
            (2 * factor + bonus, streak + 1)
        }
        Outcome::Draw if end.plies < SCORELESS_DRAW_PLIES => (0, 0),
        Outcome::Draw => (factor, 0),
        Outcome::Loss => (0, 0),
    }
}

/// A player waiting for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The account's id.
    pub account: String,
    /// The name, the last tie-break.
    pub name: String,
    /// Points so far.
    pub points: i64,
    /// Rating when the player joined.
    pub rating: i64,
    /// The last opponent's account, if any.
    pub last_opponent: Option<String>,
    /// Games played with sente.
    pub sente_games: i64,
    /// Games played.
    pub games: i64,
}

impl Waiting {
    /// How many more games with sente than with gote the player has had.
    fn sente_balance(&self) -> i64 {
        2 * self.sente_games - self.games
    }
}

/// The order of the standings and of pairing: points, then rating, then name.
pub fn placing(
    a_points: i64,
    a_rating: i64,
    a_name: &str,
    b_points: i64,
    b_rating: i64,
    b_name: &str,
) -> Ordering {
    b_points
        .cmp(&a_points)
        .then(b_rating.cmp(&a_rating))
        .then_with(|| a_name.to_lowercase().cmp(&b_name.to_lowercase()))
}

/// The games to start among `waiting` players: (sente, gote) as indices into `waiting`.
/// `others_playing`: whether any other player of the arena is in a game (so could come to
/// pair with one who would otherwise meet their last opponent again).
pub fn pair(waiting: &[Waiting], others_playing: bool) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..waiting.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&waiting[a], &waiting[b]);
        placing(a.points, a.rating, &a.name, b.points, b.rating, &b.name)
    });
    let met = |a: &Waiting, b: &Waiting| {
        a.last_opponent.as_deref() == Some(b.account.as_str())
            || b.last_opponent.as_deref() == Some(a.account.as_str())
    };
    let mut taken = vec![false; waiting.len()];
    let mut pairs = Vec::new();
    for pass in [false, true] {
        // The second pass, only when nobody else can come, lets last opponents meet again.
        if pass && others_playing {
            break;
        }
        for (rank, &first) in order.iter().enumerate() {
            if taken[first] {
                continue;
            }
            let partner = order[rank + 1..]
                .iter()
                .copied()
                .find(|&other| !taken[other] && (pass || !met(&waiting[first], &waiting[other])));
            if let Some(second) = partner {
                taken[first] = true;
                taken[second] = true;
                pairs.push(sides(waiting, first, second));
            }
        }
    }
    pairs
}

/// (sente, gote) for two players, `higher` placed above `lower`.
fn sides(waiting: &[Waiting], higher: usize, lower: usize) -> (usize, usize) {
    if waiting[lower].sente_balance() < waiting[higher].sente_balance() {
        (lower, higher)
    } else {
        (higher, lower)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(outcome: Outcome, plies: u32) -> GameEnd {
        GameEnd {
            outcome,
            berserked: false,
            own_moves: plies / 2,
            plies,
        }
    }

    #[test]
    fn wins_draws_streaks_and_berserk() {
        assert_eq!(score(0, end(Outcome::Win, 40)), (2, 1));
        assert_eq!(
            score(1, end(Outcome::Win, 40)),
            (2, 2),
            "the streak starts after two wins"
        );
        assert_eq!(
            score(2, end(Outcome::Win, 40)),
            (4, 3),
            "on a streak a win is double"
        );
        assert_eq!(
            score(2, end(Outcome::Draw, 40)),
            (2, 0),
            "a draw doubled ends the streak"
        );
        assert_eq!(score(3, end(Outcome::Loss, 40)), (0, 0));
        assert_eq!(score(0, end(Outcome::Draw, 40)), (1, 0));
        assert_eq!(
            score(0, end(Outcome::Draw, 19)),
            (0, 0),
            "a draw in ten moves counts nothing"
        );
        assert_eq!(score(0, end(Outcome::Draw, 20)), (1, 0));
        assert_eq!(
            score(0, end(Outcome::Win, 7)),
            (0, 0),
            "a win before each side made four moves is worth nothing"
        );
        assert_eq!(
            score(2, end(Outcome::Win, 1)),
            (0, 2),
            "and leaves the winner's streak as it was"
        );
        assert_eq!(
            score(2, end(Outcome::Loss, 5)),
            (0, 0),
            "losing early does not save a streak"
        );
        assert_eq!(score(0, end(Outcome::Win, 8)), (2, 1));
        let berserk = |own_moves| GameEnd {
            outcome: Outcome::Win,
            berserked: true,
            own_moves,
            plies: 2 * own_moves,
        };
        assert_eq!(score(0, berserk(7)), (3, 1));
        assert_eq!(
            score(0, berserk(6)),
            (2, 1),
            "seven moves for the extra point"
        );
        assert_eq!(
            score(2, berserk(7)),
            (5, 3),
            "the streak doubles the win, not the extra point"
        );
        let lost = GameEnd {
            outcome: Outcome::Loss,
            ..berserk(30)
        };
        assert_eq!(score(2, lost), (0, 0));
    }

    fn player(name: &str, points: i64, last: Option<&str>, sente: i64, games: i64) -> Waiting {
        Waiting {
            account: name.to_string(),
            name: name.to_string(),
            points,
            rating: 1500,
            last_opponent: last.map(str::to_string),
            sente_games: sente,
            games,
        }
    }

    fn names(waiting: &[Waiting], pairs: &[(usize, usize)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|&(s, g)| (waiting[s].name.clone(), waiting[g].name.clone()))
            .collect()
    }

    fn pairs_of(waiting: &[Waiting], others_playing: bool) -> Vec<(String, String)> {
        names(waiting, &pair(waiting, others_playing))
    }

    fn pair_of(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    /// The six-player arena of the server's test (`tests/integration/arena.rs`), step by step: each
    /// step's waiting players and the games they get, and what each result scores.
    #[test]
    fn the_six_player_worked_example() {
        // The start: all six wait with nothing; by name, sente to the higher placed.
        let start: Vec<Waiting> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|n| player(n, 0, None, 0, 0))
            .collect();
        assert_eq!(
            pairs_of(&start, false),
            [pair_of("a", "b"), pair_of("c", "d"), pair_of("e", "f")]
        );
        // a beats b: a and b wait, each the other's last opponent, while others play.
        assert_eq!(score(0, end(Outcome::Win, 40)), (2, 1));
        let step1 = [
            player("a", 2, Some("b"), 1, 1),
            player("b", 0, Some("a"), 0, 1),
        ];
        assert_eq!(pairs_of(&step1, true), []);
        // d beats c: a and d lead; d has had gote, a sente: d takes sente.
        let step2 = [
            player("a", 2, Some("b"), 1, 1),
            player("b", 0, Some("a"), 0, 1),
            player("c", 0, Some("d"), 1, 1),
            player("d", 2, Some("c"), 0, 1),
        ];
        assert_eq!(
            pairs_of(&step2, true),
            [pair_of("d", "a"), pair_of("b", "c")]
        );
        // e and f agree a draw at once: nothing for either; they wait.
        assert_eq!(score(0, end(Outcome::Draw, 0)), (0, 0));
        // d beats a: two wins, a streak (the second win is still worth 2).
        assert_eq!(score(1, end(Outcome::Win, 40)), (2, 2));
        let step4 = [
            player("a", 2, Some("d"), 1, 2),
            player("d", 4, Some("a"), 1, 2),
            player("e", 0, Some("f"), 1, 1),
            player("f", 0, Some("e"), 0, 1),
        ];
        assert_eq!(
            pairs_of(&step4, true),
            [pair_of("d", "e"), pair_of("f", "a")]
        );
        // c beats b; they met last and others play: they wait.
        let step5 = [
            player("b", 0, Some("c"), 1, 2),
            player("c", 2, Some("b"), 1, 2),
        ];
        assert_eq!(pairs_of(&step5, true), []);
        // d berserks, makes seven moves and wins on a streak: 4 + 1.
        let berserk_win = GameEnd {
            outcome: Outcome::Win,
            berserked: true,
            own_moves: 7,
            plies: 14,
        };
        assert_eq!(score(2, berserk_win), (5, 3));
        let step6 = [
            player("b", 0, Some("c"), 1, 2),
            player("c", 2, Some("b"), 1, 2),
            player("d", 9, Some("e"), 2, 3),
            player("e", 0, Some("d"), 1, 2),
        ];
        assert_eq!(
            pairs_of(&step6, true),
            [pair_of("c", "d"), pair_of("b", "e")]
        );
        // a beats f; then e, who withdrew, loses to b: a, b and f wait, a avoids f.
        let step8 = [
            player("a", 4, Some("f"), 1, 3),
            player("b", 2, Some("e"), 2, 3),
            player("f", 0, Some("a"), 1, 2),
        ];
        assert_eq!(pairs_of(&step8, true), [pair_of("a", "b")]);
    }

    #[test]
    fn last_opponents_meet_again_only_when_nobody_else_can_come() {
        let two = [
            player("x", 2, Some("y"), 1, 1),
            player("y", 0, Some("x"), 0, 1),
        ];
        assert_eq!(pairs_of(&two, true), []);
        assert_eq!(pairs_of(&two, false), [pair_of("y", "x")]);
        // Three waiting, the leader's last opponent second: the leader meets the third.
        let three = [
            player("x", 2, Some("y"), 1, 1),
            player("y", 1, Some("x"), 0, 1),
            player("z", 0, None, 0, 0),
        ];
        assert_eq!(pairs_of(&three, true), [pair_of("z", "x")]);
    }

    #[test]
    fn points_then_rating_then_name() {
        assert_eq!(placing(4, 1400, "z", 2, 1900, "a"), Ordering::Less);
        assert_eq!(placing(2, 1600, "z", 2, 1500, "a"), Ordering::Less);
        assert_eq!(placing(2, 1500, "Ann", 2, 1500, "bob"), Ordering::Less);
    }
}
