//! The puzzle endpoints (`/api/puzzles…`): lists by game and theme (without solutions), one
//! puzzle, the next one near the player's rating, the day's puzzle, and attempts, rated for
//! accounts (Glicko-2, the player against the puzzle): only an account's first attempt at a
//! puzzle the server handed it (the next, the day's), solved no sooner than a person could
//! play the solution, and at most so many a minute.

use crate::error::ApiError;
use crate::hub::Hub;
use crate::puzzles::{AttemptOutcome, AttemptRules, PuzzleFilter, PuzzleRow};
use crate::responses::{
    AttemptAnswer, ErrorBody, OtherAnswer, PuzzleAnswer, PuzzleList, PuzzleRatingChange,
    PuzzleSummary,
};
use crate::viewer::Viewer;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rand::Rng;
use serde::Deserialize;
use std::sync::Arc;
use tsubame_puzzles::THEMES;
use tsubame_rules::Variant;

/// The most puzzles a list gives.
pub const MAX_LIST: i64 = 100;
/// The most moves an attempt may report.
const MAX_ATTEMPT_MOVES: usize = 64;
/// The most ids a guest may name as already seen.
const MAX_SEEN: usize = 200;

/// The theme for newcomers: the puzzles whose answer is one move (a mate in one, a one-move
/// tactic), given easiest first. It is the `short` theme, in that order.
pub const BEGINNER_THEME: &str = "beginner";

/// A player's first puzzles of a game, this many, are beginner puzzles, easiest first; the
/// choice follows their results from there.
pub const FIRST_EASY_PUZZLES: i64 = 5;

fn database(error: anyhow::Error) -> ApiError {
    ApiError::internal(format!("database: {error}"))
}

fn summary(puzzle: &PuzzleRow) -> PuzzleSummary {
    PuzzleSummary {
        id: puzzle.id.clone(),
        variant: puzzle.variant.clone(),
        options: puzzle.options.clone(),
        sfen: puzzle.sfen.clone(),
        player_moves: puzzle.moves.len().div_ceil(2),
        themes: puzzle.themes.clone(),
        rating: puzzle.rating.rating.round() as i64,
        plays: puzzle.plays,
    }
}

fn answer(puzzle: &PuzzleRow) -> PuzzleAnswer {
    PuzzleAnswer {
        id: puzzle.id.clone(),
        variant: puzzle.variant.clone(),
        options: puzzle.options.clone(),
        sfen: puzzle.sfen.clone(),
        moves: puzzle.moves.clone(),
        themes: puzzle.themes.clone(),
        rating: puzzle.rating.rating.round() as i64,
        plays: puzzle.plays,
        also: puzzle
            .also
            .iter()
            .map(|(index, usi)| OtherAnswer {
                index: *index,
                usi: usi.clone(),
            })
            .collect(),
    }
}

/// The filter of a query, each part checked: a game the server plays and a known theme.
fn filter_of<'a>(
    variant: Option<&'a str>,
    theme: Option<&'a str>,
) -> Result<PuzzleFilter<'a>, ApiError> {
    let variant = variant.filter(|v| !v.is_empty());
    if let Some(name) = variant
        && Variant::from_name(name).is_none()
    {
        return Err(ApiError::bad_request(format!(
            "unknown game {:?}; the games are {}",
            name.chars().take(40).collect::<String>(),
            Variant::ALL
                .iter()
                .map(|v| v.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    // The beginner theme is the one-move puzzles (given easiest first by the next puzzle).
    let theme = theme
        .filter(|t| !t.is_empty())
        .map(|t| if t == BEGINNER_THEME { "short" } else { t });
    if let Some(name) = theme
        && !THEMES.iter().any(|(known, _)| *known == name)
    {
        return Err(ApiError::bad_request(format!(
            "unknown theme {:?}; the themes are {BEGINNER_THEME}, {}",
            name.chars().take(40).collect::<String>(),
            THEMES
                .iter()
                .map(|(t, _)| *t)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    // The database stores the canonical names; a variant's aliases are read as it.
    let variant = variant.and_then(Variant::from_name).map(Variant::name);
    Ok(PuzzleFilter { variant, theme })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListQuery {
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    theme: Option<String>,
    #[serde(default)]
    limit: Option<i64>,
    #[serde(default)]
    offset: Option<i64>,
}

/// Puzzles by rating, easiest first.
#[utoipa::path(get, path = "/api/puzzles", operation_id = "list_puzzles", tag = "puzzles", params(("variant" = Option<String>, Query, description = "Only this game's"), ("theme" = Option<String>, Query, description = "Only those with this theme"), ("limit" = Option<i64>, Query, description = "At most this many (1 to 100, default 20)"), ("offset" = Option<i64>, Query, description = "Skip this many")), responses((status = 200, description = "The puzzles and how many match", body = PuzzleList), (status = 400, description = "A malformed request", body = ErrorBody)))]
pub(crate) async fn list(
    State(hub): State<Arc<Hub>>,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let filter = filter_of(query.variant.as_deref(), query.theme.as_deref())?;
    let limit = query.limit.unwrap_or(20);
    if !(1..=MAX_LIST).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {MAX_LIST}"
        )));
    }
    let offset = query.offset.unwrap_or(0).max(0);
    let store = hub.store();
    let puzzles = store
        .puzzles(&filter, limit, offset)
        .await
        .map_err(database)?;
    let total = store.puzzle_count(&filter).await.map_err(database)?;
    Ok(axum::Json(PuzzleList {
        puzzles: puzzles.iter().map(summary).collect(),
        total,
    })
    .into_response())
}

/// One puzzle.
#[utoipa::path(get, path = "/api/puzzles/{id}", tag = "puzzles", params(("id" = String, Path, description = "The puzzle's id")), responses((status = 200, description = "The puzzle", body = PuzzleAnswer), (status = 404, description = "No such puzzle", body = ErrorBody)))]
pub(crate) async fn one(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let puzzle = find(&hub, &id).await?;
    Ok(axum::Json(answer(&puzzle)).into_response())
}

async fn find(hub: &Hub, id: &str) -> Result<PuzzleRow, ApiError> {
    if id.len() > 64 {
        return Err(ApiError::not_found("no such puzzle").code("puzzle.unknown"));
    }
    hub.store()
        .puzzle(id)
        .await
        .map_err(database)?
        .ok_or_else(|| ApiError::not_found(format!("no puzzle {id:?}")).code("puzzle.unknown"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NextQuery {
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    theme: Option<String>,
    /// A guest's own rating, kept in the browser.
    #[serde(default)]
    rating: Option<i64>,
    /// Ids a guest has already seen, separated by commas.
    #[serde(default)]
    seen: Option<String>,
    /// How many puzzles of the game a guest has tried (their browser counts them).
    #[serde(default)]
    attempts: Option<i64>,
}

/// A puzzle near the player's puzzle rating (an account's, or the one a guest's browser
/// keeps; while it is unsure, on its easier side), one it has not tried, picked at random among
/// the ten nearest. A player's first five puzzles of a game, and the beginner theme, are
/// one-move puzzles, the easiest first.
#[utoipa::path(get, path = "/api/puzzles/next", tag = "puzzles", params(("variant" = Option<String>, Query, description = "The game (default tori)"), ("theme" = Option<String>, Query, description = "Only with this theme"), ("rating" = Option<i64>, Query, description = "A guest's puzzle rating"), ("seen" = Option<String>, Query, description = "Ids a guest has seen, separated by commas"), ("attempts" = Option<i64>, Query, description = "How many puzzles of the game a guest has tried")), responses((status = 200, description = "The puzzle", body = PuzzleAnswer), (status = 400, description = "A malformed request", body = ErrorBody), (status = 404, description = "None left to try", body = ErrorBody)))]
pub(crate) async fn next(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
    Query(query): Query<NextQuery>,
) -> Result<Response, ApiError> {
    let variant = query.variant.as_deref().unwrap_or("tori");
    let asked_theme = query.theme.as_deref().filter(|t| !t.is_empty());
    let filter = filter_of(Some(variant), asked_theme)?;
    let seen: Vec<String> = query
        .seen
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .filter(|id| !id.is_empty() && id.len() <= 64)
        .take(MAX_SEEN)
        .map(String::from)
        .collect();
    let store = hub.store();
    // The rating the puzzle is chosen near, and how many the player has tried. While a rating
    // is unsure (few attempts) the choice leans to the easier side of it, by as much as it is
    // unsure: a newcomer is not handed a hard mate in five at 1500.
    let (rating, unsure, attempts) = match &viewer.account {
        Some(account) => {
            let (rating, attempts) = store
                .puzzle_rating(&account.id, filter.variant.unwrap_or("tori"))
                .await
                .map_err(database)?;
            (rating.rating, (rating.deviation - 60.0).max(0.0), attempts)
        }
        None => {
            let attempts = query.attempts.unwrap_or(0).clamp(0, 1_000_000);
            let unsure = (350 - 15 * attempts).max(0) as f64;
            let rating = query.rating.unwrap_or(1500).clamp(0, 4000) as f64;
            (rating, unsure, attempts)
        }
    };
    // A newcomer's first puzzles, and the beginner theme, are one-move puzzles, easiest first.
    let beginner = asked_theme == Some(BEGINNER_THEME)
        || (asked_theme.is_none() && attempts < FIRST_EASY_PUZZLES);
    let filter = if beginner {
        PuzzleFilter {
            theme: Some("short"),
            ..filter
        }
    } else {
        filter
    };
    let target = if beginner { 0.0 } else { rating - unsure };
    let near = store
        .puzzles_near(
            &filter,
            (target * 1000.0).round() as i64,
            viewer.account.as_ref().map(|a| a.id.as_str()),
            &seen,
            10,
        )
        .await
        .map_err(database)?;
    if near.is_empty() {
        return Err(
            ApiError::not_found("no puzzle left to try with this game and theme")
                .code("puzzle.none-left"),
        );
    }
    let pick = rand::thread_rng().gen_range(0..near.len());
    let puzzle = &near[pick];
    if let Some(account) = &viewer.account {
        store
            .hand_out_puzzle(&account.id, &puzzle.id, hub.now() as i64)
            .await
            .map_err(database)?;
    }
    Ok(axum::Json(answer(puzzle)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DailyQuery {
    #[serde(default)]
    variant: Option<String>,
}

/// The day's puzzle: the same for everyone all day (UTC), each of the game's puzzles in turn.
#[utoipa::path(get, path = "/api/puzzles/daily", tag = "puzzles", params(("variant" = Option<String>, Query, description = "The game (default tori)")), responses((status = 200, description = "The day's puzzle", body = PuzzleAnswer), (status = 400, description = "A malformed request", body = ErrorBody), (status = 404, description = "The game has no puzzles", body = ErrorBody)))]
pub(crate) async fn daily(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
    Query(query): Query<DailyQuery>,
) -> Result<Response, ApiError> {
    let filter = filter_of(Some(query.variant.as_deref().unwrap_or("tori")), None)?;
    let store = hub.store();
    let count = store.puzzle_count(&filter).await.map_err(database)?;
    if count == 0 {
        return Err(ApiError::not_found("this game has no puzzles").code("puzzle.none-for-game"));
    }
    // Days since 1970, walked through the game's puzzles in the order of their ids (which
    // attempts do not change, as they change ratings) with a stride that shares no factor with
    // their number, so that consecutive days are far apart and every puzzle comes in turn.
    let day = (hub.now() / 86_400_000) as i64;
    let stride = (1..count)
        .map(|s| count / 2 + s)
        .find(|s| gcd(*s, count) == 1)
        .unwrap_or(1);
    let index = (day % count) * stride % count;
    let puzzle = store
        .puzzle_by_id_order(filter.variant.unwrap_or("tori"), index)
        .await
        .map_err(database)?
        .ok_or_else(|| {
            ApiError::not_found("this game has no puzzles").code("puzzle.none-for-game")
        })?;
    if let Some(account) = &viewer.account {
        store
            .hand_out_puzzle(&account.id, &puzzle.id, hub.now() as i64)
            .await
            .map_err(database)?;
    }
    Ok(axum::Json(answer(&puzzle)).into_response())
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttemptRequest {
    /// Whether the player found the whole line.
    solved: bool,
    /// The moves the player made, USI (for a solved attempt, the whole solution).
    #[serde(default)]
    moves: Vec<String>,
}

/// An attempt at a puzzle. For an account, its first attempt at the puzzle rates both (the
/// puzzle "wins" when it is not solved); a guest's is answered without a rating. A claim to
/// have solved it must bring the solution's moves, or in a puzzle that ends in mate another
/// line that mates as fast.
#[utoipa::path(post, path = "/api/puzzles/{id}/attempt", tag = "puzzles", params(("id" = String, Path, description = "The puzzle's id")), request_body = AttemptRequest, responses((status = 200, description = "The attempt, and the ratings it changed", body = AttemptAnswer), (status = 400, description = "A malformed request", body = ErrorBody), (status = 404, description = "No such puzzle", body = ErrorBody)))]
pub(crate) async fn attempt(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let body: &[u8] = if body.is_empty() { b"{}" } else { &body };
    let request: AttemptRequest = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("bad request body: {e}")))?;
    if request.moves.len() > MAX_ATTEMPT_MOVES {
        return Err(ApiError::bad_request(format!(
            "at most {MAX_ATTEMPT_MOVES} moves"
        )));
    }
    let puzzle = find(&hub, &id).await?;
    if request.solved && !puzzle.solved_by(&request.moves) {
        return Err(ApiError::bad_request(
            "a solved attempt brings the solution's moves (or, in a mate, another line that \
             mates as fast), and these are not them",
        )
        .code("puzzle.not-solved"));
    }
    let outcome = match &viewer.account {
        Some(account) => Some(
            hub.store()
                .rate_attempt(
                    &account.id,
                    &puzzle,
                    request.solved,
                    hub.now() as i64,
                    &AttemptRules::default(),
                )
                .await
                .map_err(database)?,
        ),
        None => None,
    };
    let (rated, unrated) = match outcome {
        Some(AttemptOutcome::Rated(rated)) => (Some(rated), None),
        Some(AttemptOutcome::Unrated(why)) => (None, Some(why)),
        None => (None, None),
    };
    let change = rated.map(|rated| PuzzleRatingChange {
        before: rated.before.rating.round() as i64,
        after: rated.after.rating.round() as i64,
        provisional: rated.after.provisional(),
    });
    let puzzle_rating = rated.map_or(puzzle.rating.rating, |r| r.puzzle.rating);
    Ok(axum::Json(AttemptAnswer {
        solved: request.solved,
        rated: change.is_some(),
        rating: change,
        unrated: unrated.map(|why| why.code()),
        unrated_reason: unrated.map(|why| why.reason()),
        puzzle_rating: puzzle_rating.round() as i64,
    })
    .into_response())
}

/// The puzzle routes.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/puzzles", get(list))
        .route("/api/puzzles/next", get(next))
        .route("/api/puzzles/daily", get(daily))
        .route("/api/puzzles/{id}", get(one))
        .route("/api/puzzles/{id}/attempt", post(attempt))
}
