//! Glicko-2 ratings per game and speed.
//!
//! Each rated game is its own rating period, as on the play sites: both players' ratings are
//! updated from the ratings they had when it ended. The arithmetic is `skillratings`' (with
//! Glickman's system constant τ = 0.5); this module decides what is rated, under which
//! category, and how ratings are stored and shown.

use crate::clock::TimeControl;
use serde::Serialize;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use tsubame_rules::Variant;
use utoipa::ToSchema;

/// A rating's deviation above this is provisional (shown with `?`).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// How fast a game is, from its time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// Under 8 minutes for a game of about 40 moves each.
    Blitz,
    /// Under 25 minutes.
    Rapid,
    /// Longer.
    Classical,
    /// Days per move.
    Correspondence,
}

impl Speed {
    /// Every speed, fastest first.
    pub const ALL: [Speed; 4] = [
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The name stored and shown.
    pub fn name(self) -> &'static str {
        match self {
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The speed of a time control; none without a clock (such games are not rated).
    ///
    /// A game's length is estimated for 40 moves a side: the main time, 40 increments, or for
    /// byo-yomi 25 periods (many moves are made within a period, which byo-yomi keeps).
    pub fn of(control: &TimeControl) -> Option<Speed> {
        let estimate_ms = match *control {
            TimeControl::Unlimited => return None,
            TimeControl::Correspondence { .. } => return Some(Speed::Correspondence),
            TimeControl::Fischer {
                main_ms,
                increment_ms,
            } => main_ms.saturating_add(increment_ms.saturating_mul(40)),
            TimeControl::Byoyomi {
                main_ms,
                periods,
                period_ms,
            } => main_ms.saturating_add(if periods > 0 {
                period_ms.saturating_mul(25)
            } else {
                0
            }),
        };
        Some(match estimate_ms {
            ms if ms < 8 * 60_000 => Speed::Blitz,
            ms if ms < 25 * 60_000 => Speed::Rapid,
            _ => Speed::Classical,
        })
    }
}

/// The game a rating is for: Wa shogi with and without drops are rated apart, as they play
/// very differently.
pub fn rating_game(variant: Variant, options_text: &str) -> &'static str {
    match variant {
        Variant::Tori => "tori",
        Variant::Wa if options_text.split(',').any(|o| o.trim() == "drops=off") => "wa-nodrops",
        Variant::Wa => "wa",
        Variant::Tenjiku => "tenjiku",
    }
}

/// Every rating game, in the order pages show them.
pub const RATING_GAMES: [&str; 4] = ["tori", "wa", "wa-nodrops", "tenjiku"];

/// A rating pool: the games rated together, by name, and the title pages show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct RatingPool {
    /// The pool's name, as [`rating_game`] gives it.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
}

/// The rating pools of a game, in the order pages show them: Wa is rated apart with drops
/// and without.
pub fn rating_pools(variant: Variant) -> &'static [RatingPool] {
    const TORI: [RatingPool; 1] = [RatingPool {
        name: "tori",
        title: "Tori",
    }];
    const WA: [RatingPool; 2] = [
        RatingPool {
            name: "wa",
            title: "Wa",
        },
        RatingPool {
            name: "wa-nodrops",
            title: "Wa (no drops)",
        },
    ];
    const TENJIKU: [RatingPool; 1] = [RatingPool {
        name: "tenjiku",
        title: "Tenjiku",
    }];
    match variant {
        Variant::Tori => &TORI,
        Variant::Wa => &WA,
        Variant::Tenjiku => &TENJIKU,
    }
}

/// A player's rating in one category.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating, 1500 for a new player.
    pub rating: f64,
    /// Rating deviation, 350 for a new player.
    pub deviation: f64,
    /// Volatility, 0.06 for a new player.
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Self {
        let new = Glicko2Rating::new();
        Rating {
            rating: new.rating,
            deviation: new.deviation,
            volatility: new.volatility,
        }
    }
}

impl Rating {
    /// Whether the rating is still uncertain (shown with `?`).
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// As stored: rating and deviation in thousandths of a point, volatility in billionths.
    pub fn to_stored(self) -> (i64, i64, i64) {
        (
            (self.rating * 1000.0).round() as i64,
            (self.deviation * 1000.0).round() as i64,
            (self.volatility * 1e9).round() as i64,
        )
    }

    /// From the stored form.
    pub fn from_stored(rating_milli: i64, deviation_milli: i64, volatility_nano: i64) -> Rating {
        Rating {
            rating: rating_milli as f64 / 1000.0,
            deviation: deviation_milli as f64 / 1000.0,
            volatility: volatility_nano as f64 / 1e9,
        }
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn from_glicko(rating: Glicko2Rating) -> Rating {
        Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

/// Both players' ratings after a game between them; `winner` is 0 (sente), 1 (gote) or none
/// for a draw.
pub fn after_game(sente: Rating, gote: Rating, winner: Option<usize>) -> [Rating; 2] {
    let outcome = match winner {
        Some(0) => Outcomes::WIN,
        Some(_) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (sente, gote) = glicko2(
        &sente.glicko(),
        &gote.glicko(),
        &outcome,
        &Glicko2Config::new(),
    );
    [Rating::from_glicko(sente), Rating::from_glicko(gote)]
}

/// A seat's rating as a game shows it: the rating when the game started and, once it is
/// rated, the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct SeatRating {
    /// Whole points.
    pub rating: i64,
    /// Shown with `?`.
    pub provisional: bool,
    /// The change the result made, once the game is over.
    #[schema(required = true)]
    pub change: Option<i64>,
}

impl SeatRating {
    /// The shown form of a rating.
    pub fn of(rating: &Rating) -> SeatRating {
        SeatRating {
            rating: rating.rating.round() as i64,
            provisional: rating.provisional(),
            change: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pools_pages_show_are_the_pools_games_are_rated_in() {
        let pools: Vec<&str> = Variant::ALL
            .into_iter()
            .flat_map(|variant| rating_pools(variant).iter().map(|pool| pool.name))
            .collect();
        assert_eq!(pools, RATING_GAMES);
        assert_eq!(rating_game(Variant::Wa, "drops=off"), "wa-nodrops");
        for variant in Variant::ALL {
            let names: Vec<&str> = rating_pools(variant).iter().map(|p| p.name).collect();
            assert!(names.contains(&rating_game(variant, "")), "{variant}");
        }
    }
    use skillratings::glicko2::glicko2_rating_period;

    /// Glickman's worked example ("Example of the Glicko-2 system", glicko2.pdf): a 1500/200
    /// player beats a 1400/30 one and loses to 1550/100 and 1700/300 ones in one period, and
    /// ends at 1464.06/151.52 with volatility 0.05999.
    #[test]
    fn the_arithmetic_matches_glickmans_worked_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = glicko2_rating_period(
            &player,
            &[
                (opponent(1400.0, 30.0), Outcomes::WIN),
                (opponent(1550.0, 100.0), Outcomes::LOSS),
                (opponent(1700.0, 300.0), Outcomes::LOSS),
            ],
            &Glicko2Config::new(),
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    /// One game between two new players, worked by hand from Glickman's steps: g(φ) = 0.6690,
    /// E = 0.5, v = 1 / (g² E (1 - E)) = 8.937, the volatility stays 0.06 (to 5 places), and
    /// φ' = 1 / sqrt(1/(φ² + σ²) + 1/v) = 1.6712, so RD' = 290.3 and
    /// μ' = φ'² g (s - E) = ±0.9344, a rating of 1500 ± 162.3.
    #[test]
    fn a_first_game_moves_both_players_by_the_same_amount() {
        let [winner, loser] = after_game(Rating::default(), Rating::default(), Some(0));
        assert!((winner.rating - 1662.3).abs() < 0.1, "{winner:?}");
        assert!((loser.rating - 1337.7).abs() < 0.1, "{loser:?}");
        assert!((winner.deviation - 290.3).abs() < 0.1, "{winner:?}");
        assert!((loser.deviation - winner.deviation).abs() < 1e-9);
        assert!((winner.volatility - 0.06).abs() < 1e-5);
        let [draw_sente, draw_gote] = after_game(Rating::default(), Rating::default(), None);
        assert!((draw_sente.rating - 1500.0).abs() < 1e-9);
        assert!((draw_gote.rating - 1500.0).abs() < 1e-9);
        assert!(winner.provisional());
    }

    #[test]
    fn stored_form_round_trips_closely() {
        let rating = Rating {
            rating: 1_662.312_345,
            deviation: 290.319_8,
            volatility: 0.059_999_123,
        };
        let (r, d, v) = rating.to_stored();
        let back = Rating::from_stored(r, d, v);
        assert!((back.rating - rating.rating).abs() < 0.001);
        assert!((back.deviation - rating.deviation).abs() < 0.001);
        assert!((back.volatility - rating.volatility).abs() < 1e-9);
    }

    #[test]
    fn speeds_follow_the_estimated_game_length() {
        let byoyomi = |main_min: u64, period_s: u64| TimeControl::Byoyomi {
            main_ms: main_min * 60_000,
            periods: 1,
            period_ms: period_s * 1000,
        };
        assert_eq!(Speed::of(&TimeControl::Unlimited), None);
        assert_eq!(Speed::of(&byoyomi(3, 10)), Some(Speed::Blitz));
        assert_eq!(Speed::of(&byoyomi(5, 10)), Some(Speed::Rapid));
        assert_eq!(Speed::of(&byoyomi(10, 30)), Some(Speed::Rapid));
        assert_eq!(Speed::of(&byoyomi(15, 30)), Some(Speed::Classical));
        let fischer = TimeControl::Fischer {
            main_ms: 180_000,
            increment_ms: 2000,
        };
        assert_eq!(Speed::of(&fischer), Some(Speed::Blitz));
        let days = TimeControl::Correspondence { days_per_move: 3 };
        assert_eq!(Speed::of(&days), Some(Speed::Correspondence));
    }

    #[test]
    fn wa_without_drops_is_rated_apart() {
        assert_eq!(rating_game(Variant::Wa, ""), "wa");
        assert_eq!(rating_game(Variant::Wa, "drops=off"), "wa-nodrops");
        assert_eq!(rating_game(Variant::Tori, "handicap=falcon"), "tori");
    }
}
