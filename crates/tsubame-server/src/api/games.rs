//! Games: made, listed, looked at, joined, and played (moves, resignation, berserk, aborts,
//! draws, rematches, chat); the lobby, TV and the site's numbers.

use crate::chat::ChatLine;
use crate::clock::TimeControl;
use crate::error::ApiError;
use crate::hub::{GameView, Hub, NewGame, SeatGrant};
use crate::request::{CarriesToken, SeatRequest, carries_token, ok, token_of};
use crate::request::{OptionsInput, creator_side_of, parse_body, variant_of};
use crate::responses::{ChatHistory, ErrorBody, GameForViewer};
use crate::viewer::ClientAddress;
use crate::viewer::Viewer;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use tsubame_engine::strength::Level;
use tsubame_rules::Variant;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateRequest {
    variant: String,
    #[serde(default)]
    options: OptionsInput,
    /// Tori handicap, a shortcut for the `handicap` rule option.
    #[serde(default)]
    handicap: Option<String>,
    #[serde(default)]
    sfen: Option<String>,
    /// `engine` or `human`.
    #[serde(default = "default_opponent")]
    opponent: String,
    #[serde(default = "default_level")]
    level: u8,
    /// `sente`, `gote` or `random`.
    #[serde(default = "default_side")]
    side: String,
    #[serde(default = "default_clock")]
    clock: TimeControl,
    #[serde(default)]
    public: bool,
    /// Whether the result changes the players' ratings (both players logged in).
    #[serde(default)]
    rated: bool,
    /// Who may join a seek: `[least, most]` rating.
    #[serde(default)]
    rating_range: Option<[i64; 2]>,
}

fn default_opponent() -> String {
    "engine".into()
}
fn default_level() -> u8 {
    2
}
fn default_side() -> String {
    "sente".into()
}
fn default_clock() -> TimeControl {
    TimeControl::Unlimited
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TokenRequest {
    #[serde(default)]
    token: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveRequest {
    #[serde(default)]
    token: Option<String>,
    #[serde(rename = "move")]
    usi: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DrawRequest {
    #[serde(default)]
    token: Option<String>,
    #[serde(default = "default_draw_action")]
    action: String,
}

fn default_draw_action() -> String {
    "offer".into()
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct JoinRequest {
    #[serde(default)]
    invite: Option<String>,
    /// A seat token the joiner already holds in this game (a guest's own seek), so that
    /// joining it is refused instead of seating them against themselves.
    #[serde(default)]
    token: Option<String>,
}

carries_token!(
    TokenRequest,
    MoveRequest,
    DrawRequest,
    JoinRequest,
    ChatRequest
);

#[utoipa::path(post, path = "/api/games", tag = "games", request_body = CreateRequest, responses((status = 201, description = "The creator's seat", body = SeatGrant), (status = 400, description = "A malformed request", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn create_game(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    hub.admit_creation(client)?;
    let request: CreateRequest = parse_body(&body)?;
    let variant = variant_of(&request.variant)?;
    let mut options = request.options.to_text()?;
    if let Some(handicap) = &request.handicap {
        if variant != Variant::Tori {
            return Err(ApiError::bad_request("handicaps exist only for Tori shogi"));
        }
        if !options.is_empty() {
            options.push(',');
        }
        options.push_str(&format!("handicap={handicap}"));
    }
    let against_engine = match request.opponent.as_str() {
        "engine" => true,
        "human" => false,
        other => {
            return Err(ApiError::bad_request(format!(
                "opponent {other:?} is not one of engine, human"
            )));
        }
    };
    if Level::new(request.level).is_none() {
        return Err(ApiError::bad_request(format!(
            "level must be 1 to {}",
            Level::MAX
        )));
    }
    let creator_side = creator_side_of(&request.side)?;
    if request.rated && viewer.account.is_none() {
        return Err(ApiError::forbidden("log in to create a rated game").code("login.needed-rated"));
    }
    if request.rated && against_engine {
        return Err(
            ApiError::bad_request("games against the computer are not rated")
                .code("game.computer-unrated"),
        );
    }
    let (creator, guest_cookie) = viewer.sitter_with_cookie()?;
    let grant = hub
        .create(NewGame {
            variant,
            options,
            start_sfen: request.sfen,
            control: request.clock,
            against_engine,
            engine_level: request.level,
            creator_side,
            creator,
            rated: request.rated,
            rating_range: request.rating_range.map(|[min, max]| (min, max)),
            public: request.public,
            challenged: None,
        })
        .await?;
    Ok(with_guest_cookie(
        (StatusCode::CREATED, axum::Json(grant)).into_response(),
        guest_cookie,
    ))
}

/// A response that gives a guest's browser the name it took a seat under.
fn with_guest_cookie(mut response: Response, cookie: Option<header::HeaderValue>) -> Response {
    if let Some(cookie) = cookie {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

#[utoipa::path(get, path = "/api/games", tag = "games", params(("status" = Option<String>, Query, description = "waiting, playing or finished"), ("limit" = Option<usize>, Query, description = "At most this many (1 to 200)")), responses((status = 200, description = "Games in play and the newest finished, newest first", body = Vec<GameView>), (status = 400, description = "A malformed request", body = ErrorBody)))]
pub(crate) async fn list_games(
    State(hub): State<Arc<Hub>>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let status = crate::query::status_of(&query)?;
    let limit = crate::query::limit_of(&query)?;
    Ok(ok(&hub.list(status, limit).await?))
}

#[utoipa::path(get, path = "/api/lobby", tag = "games", responses((status = 200, description = "Public games with an open seat, newest first", body = Vec<GameView>)))]
pub(crate) async fn lobby(State(hub): State<Arc<Hub>>) -> Response {
    ok(&hub.lobby().await)
}

/// How long a computer's move waits now: the lobby says so when it is long.
#[utoipa::path(get, path = "/api/engine/queue", tag = "analysis", responses((status = 200, description = "Searches or jobs waiting, the oldest's and the recent moves' waits, and whether that is long", body = crate::engine_work::EngineQueue)))]
pub(crate) async fn engine_queue(State(hub): State<Arc<Hub>>) -> Response {
    ok(&hub.engine_queue().await)
}

#[utoipa::path(get, path = "/api/stats", tag = "games", responses((status = 200, description = "Players on the site within the last minute, and games being played", body = crate::presence::SiteStats)))]
pub(crate) async fn site_stats(State(hub): State<Arc<Hub>>) -> Result<Response, ApiError> {
    let stats = hub
        .presence()
        .stats(hub.store(), hub.now())
        .await
        .map_err(|e| ApiError::internal(format!("database: {e}")))?;
    Ok(ok(&stats))
}

/// The game TV shows.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct TvGame {
    /// The game's id.
    game_id: String,
    /// Its game.
    #[schema(value_type = String, example = "tori")]
    variant: Variant,
    /// The mean rating of its rated seats (0 when neither has one).
    rating: i64,
}

/// TV: the highest-rated public game being played, of one game or of any; the most moves
/// played breaks a tie. A viewer asks again when the game they watch is over.
#[utoipa::path(get, path = "/api/tv", tag = "games", params(("variant" = Option<String>, Query, description = "tori, wa or tenjiku; any game when left out")), responses((status = 200, description = "The game to watch", body = TvGame), (status = 400, description = "An unknown game", body = ErrorBody), (status = 404, description = "No public game is being played", body = ErrorBody)))]
pub(crate) async fn tv(
    State(hub): State<Arc<Hub>>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let wanted = query.get("variant").map(|v| variant_of(v)).transpose()?;
    let strength = |game: &GameView| {
        let ratings: Vec<i64> = [&game.sente_rating, &game.gote_rating]
            .into_iter()
            .flatten()
            .map(|r| r.rating)
            .collect();
        if ratings.is_empty() {
            0
        } else {
            ratings.iter().sum::<i64>() / ratings.len() as i64
        }
    };
    let best = hub
        .list(Some("playing"), 1000)
        .await?
        .into_iter()
        .filter(|game| wanted.is_none_or(|v| game.variant == v))
        .max_by_key(|game| (strength(game), game.ply));
    match best {
        Some(game) => Ok(ok(&TvGame {
            rating: strength(&game),
            game_id: game.id,
            variant: game.variant,
        })),
        None => Err(ApiError::not_found("no public game is being played now").code("tv.none")),
    }
}

/// A game with, for a logged-in player, `you`: the seat their account holds (a player can
/// pick up their game on any device).
#[utoipa::path(get, path = "/api/games/{id}", tag = "games", params(("id" = String, Path, description = "The game's id")), responses((status = 200, description = "The game, and the viewer's seat", body = GameForViewer), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn get_game(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let slot = hub.find(&id).await?;
    let live = slot.game.lock().await;
    Ok(ok(&GameForViewer {
        game: hub.view_of(&live, true),
        you: live.viewer_seat(&viewer.credential(None)),
    }))
}

#[utoipa::path(post, path = "/api/games/{id}/join", tag = "games", params(("id" = String, Path, description = "The game's id")), request_body = JoinRequest, responses((status = 200, description = "The joiner's seat", body = SeatGrant), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn join_game(request: SeatRequest<JoinRequest>) -> Result<Response, ApiError> {
    let (joiner, guest_cookie) = request.viewer.sitter_with_cookie()?;
    let grant = request
        .hub
        .join(
            &request.slot,
            request.body.invite.as_deref(),
            joiner,
            &request.credential(),
        )
        .await?;
    Ok(with_guest_cookie(ok(&grant), guest_cookie))
}

#[utoipa::path(post, path = "/api/games/{id}/moves", tag = "play", params(("id" = String, Path, description = "The game's id")), request_body = MoveRequest, responses((status = 200, description = "The game after the move, once stored", body = GameView), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn post_move(request: SeatRequest<MoveRequest>) -> Result<Response, ApiError> {
    let view = request
        .hub
        .play(
            &request.slot,
            &request.credential(),
            request.body.usi.trim(),
        )
        .await?;
    Ok(ok(&view))
}

#[utoipa::path(post, path = "/api/games/{id}/resign", tag = "play", params(("id" = String, Path, description = "The game's id")), request_body = TokenRequest, responses((status = 200, description = "The game, over", body = GameView), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn resign(request: SeatRequest<TokenRequest>) -> Result<Response, ApiError> {
    let view = request
        .hub
        .resign(&request.slot, &request.credential())
        .await?;
    Ok(ok(&view))
}

#[utoipa::path(post, path = "/api/games/{id}/berserk", tag = "tournaments", params(("id" = String, Path, description = "The game's id")), request_body = TokenRequest, responses((status = 200, description = "Berserked: half the main time, one more point for a win with at least 7 moves", body = GameView), (status = 403, description = "No seat", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not a tournament's game, the player has moved, or the clock has no main time", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn berserk(request: SeatRequest<TokenRequest>) -> Result<Response, ApiError> {
    let view = request
        .hub
        .berserk(&request.slot, &request.credential())
        .await?;
    Ok(ok(&view))
}

#[utoipa::path(post, path = "/api/games/{id}/abort", tag = "play", params(("id" = String, Path, description = "The game's id")), request_body = TokenRequest, responses((status = 200, description = "The game, aborted", body = GameView), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn abort(request: SeatRequest<TokenRequest>) -> Result<Response, ApiError> {
    let view = request
        .hub
        .abort(&request.slot, &request.credential())
        .await?;
    Ok(ok(&view))
}

#[utoipa::path(post, path = "/api/games/{id}/draw", tag = "play", params(("id" = String, Path, description = "The game's id")), request_body = DrawRequest, responses((status = 200, description = "The game with the offer made, accepted or declined", body = GameView), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn draw(request: SeatRequest<DrawRequest>) -> Result<Response, ApiError> {
    let view = request
        .hub
        .draw(&request.slot, &request.credential(), &request.body.action)
        .await?;
    Ok(ok(&view))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChatRequest {
    #[serde(default)]
    token: Option<String>,
    text: String,
}

/// Says a line in the game's chat (the players' room for a seat, else the spectators').
#[utoipa::path(post, path = "/api/games/{id}/chat", tag = "chat", params(("id" = String, Path, description = "The game's id")), request_body = ChatRequest, responses((status = 201, description = "The line, stored", body = ChatLine), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn post_chat(request: SeatRequest<ChatRequest>) -> Result<Response, ApiError> {
    let name = request.viewer.account.as_ref().map(|a| a.username.as_str());
    let line = request
        .hub
        .say(
            &request.slot,
            &request.credential(),
            name,
            &request.body.text,
        )
        .await?;
    Ok((StatusCode::CREATED, axum::Json(line)).into_response())
}

/// The chat room the viewer sees (by login, or the seat token in `Authorization`) and its
/// newest lines.
#[utoipa::path(get, path = "/api/games/{id}/chat", tag = "chat", params(("id" = String, Path, description = "The game's id")), responses((status = 200, description = "The room the viewer sees and its newest lines", body = ChatHistory), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn get_chat(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let token = token_of(&headers, None);
    let slot = hub.find(&id).await?;
    let (room, lines) = hub
        .chat_history(&slot, &viewer.credential(token.as_deref()))
        .await?;
    Ok(ok(&ChatHistory { room, lines }))
}

#[utoipa::path(post, path = "/api/games/{id}/rematch", tag = "play", params(("id" = String, Path, description = "The game's id")), request_body = DrawRequest, responses((status = 200, description = "The game with the offer, or the rematch's id once agreed", body = GameView), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn rematch(request: SeatRequest<DrawRequest>) -> Result<Response, ApiError> {
    let view = request
        .hub
        .rematch(&request.slot, &request.credential(), &request.body.action)
        .await?;
    Ok(ok(&view))
}
