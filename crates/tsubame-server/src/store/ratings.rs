//! Ratings: a rated end with both players' new ratings, and the ratings and their history.

use super::{Change, Store, lock_accounts};
use crate::ratings::{Rating, SeatRating, after_game};
use anyhow::Result;
use sqlx::Row;

pub(super) fn seat_rating_from_row(
    row: &sqlx::any::AnyRow,
    side: &str,
) -> Result<Option<SeatRating>> {
    let rating: Option<i64> = row.try_get(format!("{side}_rating").as_str())?;
    let provisional: i64 = row.try_get(format!("{side}_provisional").as_str())?;
    let change: Option<i64> = row.try_get(format!("{side}_rating_change").as_str())?;
    Ok(rating.map(|rating| SeatRating {
        rating,
        provisional: provisional != 0,
        change,
    }))
}

/// One rating as a player page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// `tori`, `wa`, `wa-nodrops` or `tenjiku`.
    pub game: String,
    /// `blitz`, `rapid`, `classical` or `correspondence`.
    pub speed: String,
    /// The rating.
    pub rating: Rating,
    /// Rated games played in this category.
    pub games: i64,
}

/// A point of a player's rating history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingPoint {
    /// The category's game.
    pub game: String,
    /// The category's speed.
    pub speed: String,
    /// The game whose result made it.
    pub game_id: String,
    /// The rating after it, whole points.
    pub rating: i64,
    /// When, unix milliseconds.
    pub at: i64,
}

/// A rated game's end: who played and in which category.
#[derive(Clone, Copy, Debug)]
pub struct RatedEnd<'a> {
    /// Sente's and gote's accounts.
    pub accounts: [&'a str; 2],
    /// The rating game (`tori`, ...).
    pub game: &'a str,
    /// The speed.
    pub speed: &'a str,
}

impl Store {
    /// Stores the result of a rated game and both players' new ratings in one transaction;
    /// returns the rating changes (whole points), or `None` when the game was already over or
    /// has changed meanwhile (a game is never rated twice).
    pub async fn finish_rated_game(
        &self,
        change: &Change,
        winner: Option<usize>,
        reason: &str,
        finished_at: i64,
        rated: RatedEnd<'_>,
    ) -> Result<Option<[i64; 2]>> {
        let id = change.id.as_str();
        let ended = self.in_change(change, async |tx| {
            // Two games of one player ending at once must not both start from the same
            // rating: the accounts' rows are locked, as every limit locks them (in one order,
            // and in a mode a foreign key's check does not wait for).
            lock_accounts(tx, &rated.accounts).await?;
            let winner_name = winner.map(|side| if side == 0 { "sente" } else { "gote" });
            let ended = sqlx::query(
                "UPDATE games SET status = 'finished', winner = $1, reason = $2, finished_at = $3 \
             WHERE id = $4 AND status <> 'finished'",
            )
            .bind(winner_name)
            .bind(reason)
            .bind(finished_at)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            if ended.rows_affected() == 0 {
                return Ok(None);
            }
            let mut before = [Rating::default(); 2];
            let mut played = [0i64; 2];
            for (side, account) in rated.accounts.iter().enumerate() {
                let row: Option<(i64, i64, i64, i64)> = sqlx::query_as(
                    "SELECT rating_milli, deviation_milli, volatility_nano, games FROM ratings \
                 WHERE account_id = $1 AND game = $2 AND speed = $3",
                )
                .bind(*account)
                .bind(rated.game)
                .bind(rated.speed)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some((rating, deviation, volatility, games)) = row {
                    before[side] = Rating::from_stored(rating, deviation, volatility);
                    played[side] = games;
                }
            }
            let after = after_game(before[0], before[1], winner);
            let mut changes = [0i64; 2];
            for side in 0..2 {
                let (rating, deviation, volatility) = after[side].to_stored();
                sqlx::query(
                    "INSERT INTO ratings (account_id, game, speed, rating_milli, deviation_milli, \
                 volatility_nano, games, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (account_id, game, speed) DO UPDATE SET \
                 rating_milli = excluded.rating_milli, deviation_milli = excluded.deviation_milli, \
                 volatility_nano = excluded.volatility_nano, games = excluded.games, \
                 updated_at = excluded.updated_at",
                )
                .bind(rated.accounts[side])
                .bind(rated.game)
                .bind(rated.speed)
                .bind(rating)
                .bind(deviation)
                .bind(volatility)
                .bind(played[side] + 1)
                .bind(finished_at)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO rating_history (account_id, game_id, game, speed, rating_milli, \
                 deviation_milli, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(rated.accounts[side])
                .bind(id)
                .bind(rated.game)
                .bind(rated.speed)
                .bind(rating)
                .bind(deviation)
                .bind(finished_at)
                .execute(&mut *tx)
                .await?;
                changes[side] =
                    after[side].rating.round() as i64 - before[side].rating.round() as i64;
            }
            sqlx::query(
                "UPDATE games SET sente_rating_change = $1, gote_rating_change = $2 WHERE id = $3",
            )
            .bind(changes[0])
            .bind(changes[1])
            .bind(id)
            .execute(&mut *tx)
            .await?;
            Ok(Some(changes))
        });
        self.written(ended.await)
    }

    /// An account's rating in one category, if it has played a rated game in it.
    pub async fn rating(
        &self,
        account_id: &str,
        game: &str,
        speed: &str,
    ) -> Result<Option<Rating>> {
        let row: Option<(i64, i64, i64)> = sqlx::query_as(
            "SELECT rating_milli, deviation_milli, volatility_nano FROM ratings \
             WHERE account_id = $1 AND game = $2 AND speed = $3",
        )
        .bind(account_id)
        .bind(game)
        .bind(speed)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(r, d, v)| Rating::from_stored(r, d, v)))
    }

    /// All of an account's ratings.
    pub async fn ratings_of(&self, account_id: &str) -> Result<Vec<RatingRow>> {
        let rows: Vec<(String, String, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT game, speed, rating_milli, deviation_milli, volatility_nano, games \
             FROM ratings WHERE account_id = $1",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(game, speed, r, d, v, games)| RatingRow {
                game,
                speed,
                rating: Rating::from_stored(r, d, v),
                games,
            })
            .collect())
    }

    /// An account's rating history, oldest first (the newest `limit` points).
    pub async fn rating_history(&self, account_id: &str, limit: i64) -> Result<Vec<RatingPoint>> {
        let rows: Vec<(String, String, String, i64, i64)> = sqlx::query_as(
            "SELECT game, speed, game_id, rating_milli, at FROM rating_history \
             WHERE account_id = $1 ORDER BY at DESC LIMIT $2",
        )
        .bind(account_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut points: Vec<RatingPoint> = rows
            .into_iter()
            .map(|(game, speed, game_id, rating, at)| RatingPoint {
                game,
                speed,
                game_id,
                rating: (rating as f64 / 1000.0).round() as i64,
                at,
            })
            .collect();
        points.reverse();
        Ok(points)
    }
}
