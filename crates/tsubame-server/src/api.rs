//! The HTTP JSON API and the per-game WebSocket.
//!
//! Request bodies are read as bytes and parsed here, so every malformed request gets a JSON
//! error naming what was wrong instead of the framework's plain-text rejection.

use crate::account_api::Viewer;
use crate::accounts::{Account, SessionWatch, session_ended};
use crate::chat::ChatLine;
use crate::chat::Room;
use crate::clock::TimeControl;
use crate::connections::PeerAddr;
use crate::error::ApiError;
use crate::game::EngineReply;
use crate::game::HostedGame;
use crate::game::MateReply;
use crate::game_analysis::{AnalysisJob, GameAnalysis};
use crate::hub::{Credential, GameRoom, GameView, Hub, LiveGame, NewGame, SeatGrant};
use crate::metrics::GaugeGuard;
use crate::records::{
    RecordTags, export_texts_timed, game_address, move_refused, record_end, record_of,
};
use crate::request::{
    BODY_LIMIT, OptionsInput, SocketClose, close_socket, creator_side_of, parse_body, variant_of,
};
use crate::responses::{
    ChatHistory, CheckedPosition, DropInfo, ErrorBody, GameForViewer, ImportTags, Imported,
    ImportedGame, LionPower, NumberRange, OptionInfo, PositionProblem, RangeJump, ReplayedGame,
    RoleInfo, RoleMove, SocketMessage, StoredGameRecord, TenjikuPowers, VariantInfo,
};
use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{
    ConnectInfo, DefaultBodyLimit, FromRequest, FromRequestParts, Path, Query, State,
};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::{SinkExt, StreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tsubame_engine::limits::Limits;
use tsubame_engine::strength::Level;
use tsubame_notation::record::{
    RecordError, RecordErrorKind, read_hodges_text, read_kif_with, read_pgn_games_at_most,
    read_records_at_most,
};
use tsubame_rules::Variant;
use tsubame_rules::betza::Reach;
use tsubame_rules::tenjiku;
use tsubame_rules::{EndReason, Options};
use utoipa::ToSchema;

/// The most best lines `POST /api/analyse` gives.
pub const MAX_ANALYSIS_LINES: u32 = 10;

/// The largest record file `POST /api/import` takes: a PGN of many games.
pub const IMPORT_BODY_LIMIT: usize = 2 * 1024 * 1024;

fn ok<T: Serialize>(value: &T) -> Response {
    axum::Json(value).into_response()
}

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

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PositionRequest {
    variant: String,
    #[serde(default)]
    options: OptionsInput,
    #[serde(default)]
    sfen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    #[serde(default)]
    depth: Option<u32>,
    #[serde(default)]
    movetime_ms: Option<u64>,
    /// How many best lines to return (1 to 10).
    #[serde(default)]
    lines: Option<u32>,
}

/// A token from the `Authorization: Bearer` header or the body.
fn token_of(headers: &HeaderMap, body_token: Option<String>) -> Option<String> {
    body_token.or_else(|| {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string)
    })
}

/// A request body that may carry the seat token (else it comes as `Authorization: Bearer`).
trait CarriesToken {
    /// The token in the body, taken out of it.
    fn take_token(&mut self) -> Option<String>;
}

macro_rules! carries_token {
    ($($request:ty),*) => {
        $(impl CarriesToken for $request {
            fn take_token(&mut self) -> Option<String> {
                self.token.take()
            }
        })*
    };
}

carries_token!(
    TokenRequest,
    MoveRequest,
    DrawRequest,
    JoinRequest,
    ChatRequest
);

/// A request that acts in a game for whoever holds a seat: the game (found in memory or the
/// database), who asks (the login, and a seat token from the body or `Authorization`) and the
/// body's other fields. Taken in the order the answers depend on: the path, the login (a
/// cross-site request is refused), the body (malformed: 400), then the game (404).
pub(crate) struct SeatRequest<T> {
    hub: Arc<Hub>,
    slot: Arc<GameRoom>,
    viewer: Viewer,
    token: Option<String>,
    body: T,
}

impl<T> SeatRequest<T> {
    /// What the request presents to act for a seat.
    fn credential(&self) -> Credential<'_> {
        self.viewer.credential(self.token.as_deref())
    }
}

impl<T: DeserializeOwned + CarriesToken + Send> FromRequest<Arc<Hub>> for SeatRequest<T> {
    type Rejection = Response;

    async fn from_request(
        request: axum::extract::Request,
        hub: &Arc<Hub>,
    ) -> Result<SeatRequest<T>, Response> {
        let (mut parts, body) = request.into_parts();
        let Path(id) = Path::<String>::from_request_parts(&mut parts, hub)
            .await
            .map_err(IntoResponse::into_response)?;
        let viewer = Viewer::from_request_parts(&mut parts, hub)
            .await
            .map_err(IntoResponse::into_response)?;
        let headers = parts.headers.clone();
        let bytes = Bytes::from_request(axum::extract::Request::from_parts(parts, body), hub)
            .await
            .map_err(IntoResponse::into_response)?;
        let mut body: T = parse_body(&bytes).map_err(IntoResponse::into_response)?;
        let token = token_of(&headers, body.take_token());
        let slot = hub.find(&id).await.map_err(IntoResponse::into_response)?;
        Ok(SeatRequest {
            hub: hub.clone(),
            slot,
            viewer,
            token,
            body,
        })
    }
}

/// A kind's ordinary moves, as the move generator reads them from its Betza string: each a
/// vector from sente's side (`left`, `forward`), leapt once or slid along (`limit` 0: no limit).
fn role_moves(betza: &str) -> Vec<RoleMove> {
    tsubame_rules::betza::parse(betza)
        .unwrap_or_default()
        .into_iter()
        .map(|atom| RoleMove {
            left: atom.left,
            forward: atom.forward,
            slide: matches!(atom.reach, Reach::Slide { .. }),
            limit: match atom.reach {
                Reach::Leap => None,
                Reach::Slide { limit } => Some(limit),
            },
        })
        .collect()
}

/// The directions of a Tenjiku direction set as (left, forward) unit vectors.
fn direction_vectors(set: tenjiku::DirSet) -> Vec<[i8; 2]> {
    const VECTORS: [[i8; 2]; 8] = [
        [0, 1],
        [1, 1],
        [1, 0],
        [1, -1],
        [0, -1],
        [-1, -1],
        [-1, 0],
        [-1, 1],
    ];
    VECTORS
        .into_iter()
        .enumerate()
        .filter(|(bit, _)| set & (1 << bit) != 0)
        .map(|(_, v)| v)
        .collect()
}

/// What a Tenjiku kind does beyond its Betza moves (lion power, area moves, range jumps, the
/// tetrarch's moves, burning), from the rules library's own table; `None` for none.
fn tenjiku_powers(role: Option<tsubame_rules::Role>) -> Option<TenjikuPowers> {
    let powers = tenjiku::powers(role?)?;
    let lion = match powers.lion {
        tenjiku::Lion::None => None,
        tenjiku::Lion::Full => Some(LionPower::Named("full")),
        tenjiku::Lion::LionHawk => Some(LionPower::Named("lion-hawk")),
        tenjiku::Lion::Line(set) => Some(LionPower::Line {
            line: direction_vectors(set),
        }),
    };
    let plain = lion.is_none()
        && powers.area == 0
        && powers.range_jump.is_none()
        && !powers.tetrarch
        && !powers.burns
        && !powers.free_eagle;
    (!plain).then(|| TenjikuPowers {
        lion,
        area: powers.area,
        range_jump: powers.range_jump.map(|jump| RangeJump {
            directions: direction_vectors(jump.dirs),
            level: jump.level,
        }),
        tetrarch: powers.tetrarch,
        burns: powers.burns,
        free_eagle: powers.free_eagle,
        rank: powers.rank,
    })
}

/// Every game: board, pieces with their moves, rule options.
#[utoipa::path(get, path = "/api/variants", tag = "games",
    responses((status = 200, description = "Every game", body = Vec<VariantInfo>)))]
pub(crate) async fn variants() -> Response {
    let list: Vec<VariantInfo> = Variant::ALL
        .into_iter()
        .map(|variant| {
            let (files, ranks) = variant.board_size();
            let spec = variant.spec();
            let roles = spec
                .roles
                .iter()
                .map(|r| RoleInfo {
                    name: r.name,
                    sfen: r.sfen,
                    hodges: r.hodges,
                    kanji: r.kanji,
                    royal: r.royal,
                    promotes_to: r.promotes_to.map(|p| spec.role(p).sfen),
                    promoted_from: r.promoted_from.map(|p| spec.role(p).sfen),
                    betza: r.betza,
                    moves: role_moves(r.betza),
                    powers: (variant == Variant::Tenjiku)
                        .then(|| tenjiku_powers(spec.role_by_sfen(r.sfen)))
                        .flatten(),
                    drop: DropInfo {
                        barred_far_ranks: r.drop.barred_far_ranks,
                        max_per_file: r.drop.max_per_file,
                        mate_restricted: r.drop.mate_restricted,
                    },
                })
                .collect();
            let options = spec
                .options
                .iter()
                .map(|o| OptionInfo {
                    name: o.name,
                    help: o.help,
                    values: o.values.iter().map(|v| v.name).collect(),
                    number: o.number.map(|n| NumberRange {
                        min: n.min,
                        max: n.max,
                    }),
                })
                .collect();
            VariantInfo {
                name: spec.name,
                title: spec.title,
                files,
                ranks,
                available: true,
                start_sfen: spec.start_sfen,
                roles,
                options,
                drops: spec.drops,
                promotion_zone: spec.promotion.zone_depth,
                promotion_compulsory: spec.promotion.compulsory,
                rating_pools: crate::ratings::rating_pools(variant),
            }
        })
        .collect();
    ok(&list)
}

#[utoipa::path(post, path = "/api/games", tag = "games", request_body = CreateRequest, responses((status = 201, description = "The creator's seat", body = SeatGrant), (status = 400, description = "A malformed request", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn create_game(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    hub.admit_creation(hub.settings().connections.client_address(peer, &headers))?;
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

/// A live game's start, as a hosted game of its variant and options, and its moves as USI
/// text: what a record or an analysis replays.
fn start_and_moves(live: &LiveGame) -> Result<(HostedGame, Vec<String>), ApiError> {
    let start = HostedGame::new(
        live.rules_game().variant(),
        &live.rules_game().options_text(),
        Some(&live.rules_game().start_sfen()),
    )
    .map_err(|e| ApiError::internal(e.to_string()))?;
    let moves = live.moves().iter().map(|m| m.played.usi.clone()).collect();
    Ok((start, moves))
}

#[utoipa::path(get, path = "/api/games/{id}/record", tag = "records", params(("id" = String, Path, description = "The game's id")), responses((status = 200, description = "The game replayed, with its record in each format", body = StoredGameRecord), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn game_record(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let slot = hub.find(&id).await?;
    let live = slot.game.lock().await;
    let (start, moves) = start_and_moves(&live)?;
    let thinks: Vec<u64> = live.moves().iter().map(|m| m.think_ms).collect();
    let mut game = record_of(&start, &moves)?;
    let view = hub.view_of(&live, false);
    drop(live);
    // When a finished game ended is the stored row's to say: asked only once it has.
    let finished_at = match view.result {
        Some(_) => match hub.store().game(&id).await {
            Ok(Some(row)) => row.finished_at.map(|at| at.max(0) as u64),
            _ => None,
        },
        None => None,
    };
    let tags = RecordTags::of_game(
        [&view.sente_name, &view.gote_name],
        &view.time_control,
        view.rated,
        view.variant,
        game_address(&hub, peer, &headers, &id),
        view.created_at,
        finished_at,
    );
    let result = view.result;
    game.exports = export_texts_timed(&start, &moves, &thinks, record_end(result.as_ref()), &tags);
    Ok(ok(&StoredGameRecord { game, id, result }))
}

/// What is known of a game's analysis: its progress while being made here, else what is kept.
async fn known_analysis(hub: &Hub, id: &str) -> Result<GameAnalysis, ApiError> {
    if let Some(progress) = hub.game_analyses().progress(id) {
        return Ok(progress);
    }
    let stored =
        hub.store().game_analysis(id).await.map_err(|e| {
            ApiError::internal(format!("the game's analysis could not be read: {e}"))
        })?;
    Ok(stored
        .as_ref()
        .and_then(GameAnalysis::of_stored)
        .unwrap_or_else(GameAnalysis::none))
}

/// A finished game's analysis by the server's engine: `none` until someone asks for it,
/// `running` with its progress while it is made, then `done` with every position's score and
/// line, for anyone who opens the game.
#[utoipa::path(get, path = "/api/games/{id}/analysis", tag = "analysis", params(("id" = String, Path, description = "The game's id")), responses((status = 200, description = "The game's analysis, its progress, or none yet", body = GameAnalysis), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn game_analysis(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    hub.find(&id).await?;
    Ok(ok(&known_analysis(&hub, &id).await?))
}

/// Has the server analyse a finished game, once: every position searched in turn (depth 16,
/// 300 ms each) in the engine's slots (or by a worker, on a server that takes workers), the
/// whole counted as one of the asking address's analyses until it is kept, and at most half as
/// many games at once as the engine has slots (with workers, as many as the engine's queue)
/// (429 beyond); a game of more than 600 plies is not analysed (409). An analysis made or
/// being made is answered as it stands.
#[utoipa::path(post, path = "/api/games/{id}/analysis", tag = "analysis", params(("id" = String, Path, description = "The game's id")), responses((status = 200, description = "The analysis's progress, or the analysis when already made", body = GameAnalysis), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "The game is still in play", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn analyse_game(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let slot = hub.find(&id).await?;
    let known = known_analysis(&hub, &id).await?;
    if known.status != "none" {
        return Ok(ok(&known));
    }
    let live = slot.game.lock().await;
    if hub.view_of(&live, false).result.is_none() {
        return Err(ApiError::conflict(
            "a game in play is not analysed: the engine would help a player",
        )
        .code("analysis.in-play"));
    }
    let (start, moves) = start_and_moves(&live)?;
    drop(live);
    let ticket = hub
        .engine()
        .admit_analysis(hub.settings().connections.client_address(peer, &headers))?;
    let job = AnalysisJob {
        game_id: id,
        start,
        moves,
    };
    Ok(ok(&hub.game_analyses().start(
        job,
        ticket,
        hub.engine().clone(),
        hub.store().clone(),
    )?))
}

fn game_for(request: &PositionRequest) -> Result<HostedGame, ApiError> {
    let variant = variant_of(&request.variant)?;
    let options = request.options.to_text()?;
    if request.moves.len() > 5000 {
        return Err(ApiError::bad_request("at most 5000 moves"));
    }
    HostedGame::new(variant, &options, request.sfen.as_deref().map(str::trim))
        .map_err(ApiError::from_rules)
}

/// Replays a pasted record: every position, Hodges text and the export forms.
#[utoipa::path(post, path = "/api/replay", tag = "records", request_body = PositionRequest, responses((status = 200, description = "Every position, the moves in each notation and the export forms", body = ReplayedGame), (status = 400, description = "A malformed request", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody)))]
pub(crate) async fn replay(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: PositionRequest = parse_body(&body)?;
    // The address's share first, then the work, on the blocking pool: a long record of a big
    // game is seconds of work that must not hold the server's own threads.
    let ticket = hub.engine().admit_work(
        hub.settings().connections.client_address(peer, &headers),
        "replays",
    )?;
    // The ticket goes with the work: a client that leaves does not free its place while the
    // replay still runs.
    let replayed = tokio::task::spawn_blocking(move || {
        let _ticket = ticket;
        let start = game_for(&request)?;
        record_of(&start, &request.moves)
    })
    .await
    .map_err(|e| ApiError::internal(format!("replay failed: {e}")))??;
    Ok(ok(&replayed))
}

/// What `POST /api/positions/check` reads: a position set up in a board editor.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckRequest {
    variant: String,
    #[serde(default)]
    options: OptionsInput,
    sfen: String,
}

/// The longest SFEN a check reads: a full Tenjiku board with every piece named is under 1 KiB.
const CHECKED_SFEN_BYTES: usize = 4096;

/// Checks a position set up in a board editor: every rule it breaks, each in words, or for a
/// playable one its SFEN and FEN as written canonically and what the side to move can do.
#[utoipa::path(post, path = "/api/positions/check", tag = "records", request_body = CheckRequest, responses((status = 200, description = "The position's problems, or its forms when it is playable", body = CheckedPosition), (status = 400, description = "A malformed request", body = ErrorBody)))]
pub(crate) async fn check_position(body: Bytes) -> Result<Response, ApiError> {
    let request: CheckRequest = parse_body(&body)?;
    let variant = variant_of(&request.variant)?;
    let options_text = request.options.to_text()?;
    if request.sfen.len() > CHECKED_SFEN_BYTES {
        return Err(ApiError::bad_request(format!(
            "a position of at most {CHECKED_SFEN_BYTES} bytes"
        )));
    }
    let options = tsubame_rules::Options::parse(variant.spec(), &options_text)
        .map_err(|error| ApiError::from_rules(error.into()))?;
    let sfen = request.sfen.trim();
    let unplayable = |details: Vec<PositionProblem>| CheckedPosition {
        playable: false,
        problems: details.iter().map(|detail| detail.text.clone()).collect(),
        details,
        sfen: None,
        fen: None,
        legal_moves: 0,
        check: false,
    };
    let problems: Vec<PositionProblem> = tsubame_rules::AnyPosition::sfen_problems(&options, sfen)
        .iter()
        .map(position_problem)
        .collect();
    if !problems.is_empty() {
        return Ok(ok(&unplayable(problems)));
    }
    Ok(ok(
        &match HostedGame::new(variant, &options_text, Some(sfen)) {
            Ok(game) => {
                let fen = game.fen();
                CheckedPosition {
                    playable: true,
                    problems: Vec::new(),
                    details: Vec::new(),
                    sfen: Some(game.sfen()),
                    fen: (!fen.is_empty()).then_some(fen),
                    legal_moves: game.legal_moves().len(),
                    check: game.check_square().is_some(),
                }
            }
            Err(error) => unplayable(vec![PositionProblem {
                code: "other",
                text: error.to_string(),
                ..PositionProblem::default()
            }]),
        },
    ))
}

/// A setup problem as a code and its particulars (see [`PositionProblem`]).
fn position_problem(error: &tsubame_rules::SetupError) -> PositionProblem {
    use tsubame_rules::tenjiku::TenjikuSetupError as Tenjiku;
    use tsubame_rules::{PositionError as Board, SetupError};
    let text = error.to_string();
    let side = |color: &tsubame_rules::Color| Some(color.to_string());
    let name = |piece: &str| Some(piece.to_string());
    let problem = |code| PositionProblem {
        code,
        text: text.clone(),
        ..PositionProblem::default()
    };
    match error {
        SetupError::Position(board) => match board {
            Board::MissingRoyal { color, royal } => PositionProblem {
                side: side(color),
                piece: name(royal),
                ..problem("missing-royal")
            },
            Board::SeveralRoyals {
                color,
                count,
                royal,
            } => PositionProblem {
                side: side(color),
                piece: name(royal),
                count: Some(u64::from(*count)),
                limit: Some(1),
                ..problem("several-royals")
            },
            Board::ImpossibleHandPiece { color, piece } => PositionProblem {
                side: side(color),
                piece: name(piece),
                ..problem("impossible-hand-piece")
            },
            Board::HandWithoutDrops { color } => PositionProblem {
                side: side(color),
                ..problem("hand-without-drops")
            },
            Board::TooManyPieces { piece, count, max } => PositionProblem {
                piece: name(piece),
                count: Some(*count),
                limit: Some(u64::from(*max)),
                ..problem("too-many-pieces")
            },
            Board::ImpossibleSquare {
                color,
                piece,
                square,
            } => PositionProblem {
                side: side(color),
                piece: name(piece),
                square: Some(square.clone()),
                ..problem("impossible-square")
            },
            Board::TooManyOnFile {
                color,
                piece,
                file,
                count,
                max,
            } => PositionProblem {
                side: side(color),
                piece: name(piece),
                file: Some(u32::from(*file)),
                count: Some(u64::from(*count)),
                limit: Some(u64::from(*max)),
                ..problem("too-many-on-file")
            },
            Board::OpponentInCheck(color) => PositionProblem {
                side: side(color),
                ..problem("opponent-in-check")
            },
            Board::ZeroPly => problem("zero-ply"),
            Board::ShapeMismatch { .. } | Board::InvalidStart(_) => problem("other"),
        },
        SetupError::Tenjiku(tenjiku) => match tenjiku {
            Tenjiku::DeadPiece { square, piece } => PositionProblem {
                piece: name(piece),
                square: Some(square.clone()),
                ..problem("dead-piece")
            },
            Tenjiku::DeferralOnUnpromotable { square, piece } => PositionProblem {
                piece: name(piece),
                square: Some(square.clone()),
                ..problem("deferral-on-unpromotable")
            },
            Tenjiku::TooMany {
                color,
                piece,
                count,
                limit,
            } => PositionProblem {
                side: side(color),
                piece: name(piece),
                count: Some(*count as u64),
                limit: Some(*limit as u64),
                ..problem("too-many-of-family")
            },
            Tenjiku::BoardSize(_) | Tenjiku::UnknownKind(_) => problem("other"),
            _ => problem("syntax"),
        },
        SetupError::Sfen(_) => problem("syntax"),
        SetupError::NoFen(_) => problem("other"),
    }
}

/// What `POST /api/import` reads: the format (or `auto`), and for Hodges text, which has no
/// tags, the game and its options.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImportQuery {
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    options: Option<String>,
}

/// The formats `POST /api/import` reads.
const IMPORT_FORMATS: [&str; 4] = ["record", "kif", "pgn", "hodges"];

/// The most games one import returns.
const IMPORT_GAMES: usize = 200;

/// How long an import may take to read and replay once it has its slot; past that it is
/// answered 413 (its reading, linear in its length, goes on in the background and ends).
const IMPORT_TIME: Duration = Duration::from_secs(10);

/// The format a record's text is most likely in.
fn detect_format(text: &str) -> &'static str {
    let head: String = text.chars().take(4000).collect();
    let lower = head.to_lowercase();
    // The play site's PGN names the game `torishogi` and carries a FEN tag; a Tsubame record
    // names it by its short name (`tori`, `wa`, `tenjiku`).
    let play_site = lower.contains("[variant \"torishogi\"]") || lower.contains("[fen ");
    if head.contains("[Variant ") && !play_site {
        "record"
    } else if head.trim_start().starts_with('[') {
        "pgn"
    } else if head.contains("手数") || head.contains("先手：") || head.contains("開始日時")
    {
        "kif"
    } else {
        "hodges"
    }
}

/// Reads a record file or pasted text (the body, as it is: KIF may be Shift-JIS) in the
/// canonical format, KIF, the play site's PGN (every game of the file) or Hodges text, and
/// answers each game as `/api/replay` does, with its tags. Reading is work for a core: it
/// runs on the blocking pool in one of the engine's slots, an address may have as many
/// imports waiting or running as analyses (429 beyond), and it has [`IMPORT_TIME`].
#[utoipa::path(post, path = "/api/import", tag = "records", params(("format" = Option<String>, Query, description = "auto, record, kif, pgn or hodges"), ("variant" = Option<String>, Query, description = "For Hodges text: the game"), ("options" = Option<String>, Query, description = "For Hodges text: its rule options")), request_body(content = String, description = "The record file (KIF may be Shift-JIS)", content_type = "text/plain"), responses((status = 200, description = "Each game of the file, replayed", body = Imported), (status = 400, description = "A malformed request", body = ErrorBody), (status = 413, description = "Too large or too slow to read", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn import(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    Query(query): Query<ImportQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let client = hub.settings().connections.client_address(peer, &headers);
    let ticket = hub.engine().admit_work(client, "imports")?;
    let waiting = GaugeGuard::hold(&hub.metrics().engine_waiting);
    let slot = hub
        .engine()
        .slot()
        .await
        .ok_or_else(|| ApiError::internal("the engine scheduler stopped"))?;
    drop(waiting);
    // The ticket and the slot go with the work, so that they are held until it ends, even
    // when the answer has gone out at the time limit.
    let work = tokio::task::spawn_blocking(move || {
        let read = import_records(&query, &body);
        drop((slot, ticket));
        read
    });
    match tokio::time::timeout(IMPORT_TIME, work).await {
        Ok(Ok(read)) => read.map(|games| ok(&games)),
        Ok(Err(e)) => Err(ApiError::internal(format!("the import failed: {e}"))),
        Err(_) => Err(ApiError::new(
            413,
            format!(
                "the file took more than {} s to read: import fewer games at once",
                IMPORT_TIME.as_secs()
            ),
        )
        .code("import.too-slow")
        .param("seconds", IMPORT_TIME.as_secs())),
    }
}

/// The games of an import, as `import` answers them.
fn import_records(query: &ImportQuery, body: &[u8]) -> Result<Imported, ApiError> {
    let text = || {
        std::str::from_utf8(body).map_err(|_| {
            ApiError::bad_request("the record is not UTF-8 text (only KIF may be Shift-JIS)")
                .code("import.not-text")
        })
    };
    let format = match query.format.as_deref() {
        None | Some("auto") => match std::str::from_utf8(body) {
            Ok(text) => detect_format(text),
            Err(_) => "kif",
        },
        Some(named) => IMPORT_FORMATS
            .into_iter()
            .find(|&format| format == named)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "unknown format {:?}: one of auto, {}",
                    named.chars().take(40).collect::<String>(),
                    IMPORT_FORMATS.join(", ")
                ))
            })?,
    };
    let refused = |e: RecordError| {
        ApiError::rules(format!("{format}: {e}"))
            .code("import.unreadable")
            .param("format", format)
            .param("detail", &e)
    };
    let records = match format {
        "record" => read_records_at_most(text()?, IMPORT_GAMES).map_err(|e| match e.kind {
            RecordErrorKind::TooManyGames(_) => ApiError::bad_request(format!("{format}: {e}"))
                .code("import.too-many-games")
                .param("max", IMPORT_GAMES),
            _ => refused(e),
        })?,
        "kif" => vec![read_kif_with(body, None).map_err(refused)?],
        // The limit holds while reading: a file of many games is refused at the first one
        // past it, before any is replayed.
        "pgn" => read_pgn_games_at_most(text()?, None, IMPORT_GAMES).map_err(|e| match e.kind {
            RecordErrorKind::TooManyGames(_) => ApiError::bad_request(format!("{format}: {e}"))
                .code("import.too-many-games")
                .param("max", IMPORT_GAMES),
            _ => refused(e),
        })?,
        _ => {
            let variant = variant_of(query.variant.as_deref().unwrap_or("tori"))?;
            let options = Options::parse(variant.spec(), query.options.as_deref().unwrap_or(""))
                .map_err(|e| ApiError::bad_request(e.to_string()))?;
            vec![read_hodges_text(text()?, options).map_err(refused)?]
        }
    };
    if records.len() > IMPORT_GAMES {
        return Err(ApiError::bad_request(format!(
            "the file holds {} games: at most {IMPORT_GAMES} are imported at once",
            records.len()
        ))
        .code("import.too-many")
        .param("count", records.len())
        .param("max", IMPORT_GAMES));
    }
    let mut games = Vec::new();
    for record in &records {
        let variant = Variant::from_name(record.variant().name).ok_or_else(|| {
            ApiError::bad_request(format!("unknown game {}", record.variant().name))
                .code("import.unknown-game")
                .param("game", record.variant().name)
        })?;
        let start = HostedGame::new(
            variant,
            &record.options.to_string(),
            record.start_sfen.as_deref(),
        )
        .map_err(ApiError::from_rules)?;
        let moves: Vec<String> = record.moves.iter().map(|m| m.usi.clone()).collect();
        let mut game = record_of(&start, &moves)?;
        let kept = RecordTags {
            sente: record.sente.clone(),
            gote: record.gote.clone(),
            date: record.date.clone(),
            time_control: record.time_control.clone(),
            more: record.extra_tags.clone(),
        };
        let thinks: Vec<u64> = record.moves.iter().map_while(|m| m.think_ms).collect();
        game.exports = export_texts_timed(
            &start,
            &moves,
            &thinks,
            Some((record.result, record.reason)),
            &kept,
        );
        let tags = ImportTags {
            sente: record.sente.clone(),
            gote: record.gote.clone(),
            date: record.date.clone(),
            time_control: record.time_control.clone(),
            result: record.result.token(),
            reason: record.reason.map(EndReason::name),
            format,
        };
        games.push(ImportedGame { game, tags });
    }
    Ok(Imported { format, games })
}

/// Sets a search's stop flag when dropped: with the request's future, when the client leaves.
struct StopWhenDropped(Arc<AtomicBool>);

impl Drop for StopWhenDropped {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The game of a position request with its moves played; 409 when it is already over.
fn position_to_search(request: &PositionRequest) -> Result<HostedGame, ApiError> {
    let mut game = game_for(request)?;
    for (index, usi) in request.moves.iter().enumerate() {
        game.play_silently(usi)
            .map_err(|e| move_refused(index, usi, &e))?;
    }
    if game.outcome().is_some() {
        return Err(
            ApiError::conflict("the game is over in this position").code("analysis.game-over")
        );
    }
    Ok(game)
}

/// [`position_to_search`] on the blocking pool, for an admitted request: replaying hundreds
/// of moves of a big game is work for a core, not for the server's own threads. The admission
/// goes with the work and comes back with the game, so a client that leaves does not free its
/// place while the replay still runs.
async fn position_to_search_off_thread(
    request: PositionRequest,
    admitted: Admitted,
) -> Result<(HostedGame, Admitted), ApiError> {
    tokio::task::spawn_blocking(move || position_to_search(&request).map(|game| (game, admitted)))
        .await
        .map_err(|e| ApiError::internal(format!("replay failed: {e}")))?
}

/// A place in the engine's work for one analysis: admitted for the asking address, then one of
/// the slots, with the gauges that count both and a stop flag raised when the request goes
/// away (another position asked for, the page left), so the slot is not held for an answer
/// nobody reads. Everything is given back when it is dropped.
struct EngineTurn {
    stop: Arc<AtomicBool>,
    _stop_when_dropped: StopWhenDropped,
    _running: GaugeGuard,
    _slot: tokio::sync::OwnedSemaphorePermit,
    _ticket: crate::engine_work::AnalysisTicket,
}

/// An analysis admitted for its address and the queue, before any of its work is done: what
/// a request holds while its position is replayed, then trades for a slot.
struct Admitted(crate::engine_work::AnalysisTicket);

impl Admitted {
    /// Admits an analysis; 429 when the address already has its share or the queue is full.
    fn analysis(
        hub: &Hub,
        peer: std::net::SocketAddr,
        headers: &HeaderMap,
    ) -> Result<Admitted, ApiError> {
        hub.engine()
            .admit_analysis(hub.settings().connections.client_address(peer, headers))
            .map(Admitted)
    }

    /// Waits for a slot.
    async fn turn(self, hub: &Hub) -> Result<EngineTurn, ApiError> {
        EngineTurn::take(hub, self.0).await
    }
}

impl EngineTurn {
    /// Waits for a slot for an admitted analysis.
    async fn take(
        hub: &Hub,
        ticket: crate::engine_work::AnalysisTicket,
    ) -> Result<EngineTurn, ApiError> {
        let waiting = GaugeGuard::hold(&hub.metrics().engine_waiting);
        let slot = hub
            .engine()
            .slot()
            .await
            .ok_or_else(|| ApiError::internal("the engine scheduler stopped"))?;
        drop(waiting);
        let running = GaugeGuard::hold(&hub.metrics().engine_running);
        let stop = Arc::new(AtomicBool::new(false));
        Ok(EngineTurn {
            _stop_when_dropped: StopWhenDropped(stop.clone()),
            stop,
            _running: running,
            _slot: slot,
            _ticket: ticket,
        })
    }
}

/// How long a search asked of the workers may wait for one, beyond its own time.
const WORKER_SEARCH_WAIT: Duration = Duration::from_secs(20);

/// On a server that takes workers: asks them `question` (an `analyse` or `mate` question
/// without its position) about the position of `game`, holding the address's admission until
/// the answer, which is the reply as is: the workers answer in the JSON the server's own
/// engine would. A job nobody took in time, or that the client left, is withdrawn.
async fn ask_workers(
    hub: &Hub,
    jobs: &Arc<crate::workers::EngineJobs>,
    mut question: serde_json::Value,
    game: &HostedGame,
    movetime_ms: u64,
    admitted: Admitted,
) -> Result<Response, ApiError> {
    question["variant"] = game.variant().name().into();
    question["options"] = game.options_text().into();
    question["sfen"] = game.start_sfen().into();
    question["moves"] = game.moves_usi().into();
    let kind = question["type"].as_str().unwrap_or("analyse").to_string();
    let id = format!("{kind}:{}", crate::random::random_hex(16));
    let waiting = GaugeGuard::hold(&hub.metrics().engine_waiting);
    let within = WORKER_SEARCH_WAIT + Duration::from_millis(movetime_ms);
    let answered = jobs
        .ask(&id, &kind, &question.to_string(), within, || hub.now())
        .await;
    // The moves are checked; the notation shown is written here.
    drop(waiting);
    drop(admitted);
    let question = question.to_string();
    match answered.and_then(|answer| {
        tsubame_analysis::request::with_own_notation(&question, &answer)
            .map_err(crate::workers::JobError::Refused)
    }) {
        Ok(answer) => Ok((
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            answer,
        )
            .into_response()),
        Err(crate::workers::JobError::Failed(reason)) => {
            tracing::warn!(job = %id, "a search by the workers failed: {reason}");
            Err(ApiError::busy("the engine is busy: try again shortly").code("engine.busy"))
        }
        Err(e) => Err(e.into()),
    }
}

/// Asks the engine about a position. Searches share the server's engine slots: a request
/// waits for one, and is refused (429, Retry-After) when its address already has its share
/// or the queue is full.
#[utoipa::path(post, path = "/api/analyse", tag = "analysis", request_body = PositionRequest, responses((status = 200, description = "The engine's best move, score and lines", body = EngineReply), (status = 400, description = "A malformed request", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn analyse(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: PositionRequest = parse_body(&body)?;
    let depth = request.depth.unwrap_or(8).clamp(1, 30);
    let movetime = request.movetime_ms.unwrap_or(1000).clamp(10, 10_000);
    let lines = request.lines.unwrap_or(1);
    if !(1..=MAX_ANALYSIS_LINES).contains(&lines) {
        return Err(ApiError::bad_request(format!(
            "lines must be 1 to {MAX_ANALYSIS_LINES}"
        )));
    }
    let limits = Limits {
        depth: Some(depth),
        move_time: Some(Duration::from_millis(movetime)),
        lines,
        ..Limits::default()
    };
    // The limits first, then the work: a refused request costs nothing.
    let admitted = Admitted::analysis(&hub, peer, &headers)?;
    let (game, admitted) = position_to_search_off_thread(request, admitted).await?;
    if let Some(jobs) = hub.engine_jobs() {
        let question = serde_json::json!({
            "type": "analyse",
            "depth": depth,
            "movetime_ms": movetime,
            "lines": lines,
        });
        return ask_workers(&hub, &jobs, question, &game, movetime, admitted).await;
    }
    let turn = admitted.turn(&hub).await?;
    let stop = turn.stop.clone();
    let reply = tokio::task::spawn_blocking(move || game.best_move(&limits, None, stop))
        .await
        .map_err(|e| ApiError::internal(format!("engine failed: {e}")))?;
    drop(turn);
    match reply {
        Some(reply) => Ok(ok(&reply)),
        None => {
            Err(ApiError::conflict("the side to move has no legal move").code("analysis.no-move"))
        }
    }
}

/// What `POST /api/mate` is asked: a position, and how long a mate and how much time.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MateRequest {
    variant: String,
    #[serde(default)]
    options: OptionsInput,
    #[serde(default)]
    sfen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    /// The longest mate looked for, in the attacker's moves (1 to 31; default 15).
    #[serde(default)]
    max_moves: Option<u32>,
    /// Time for the search in milliseconds (10 to 10,000; default 1,000).
    #[serde(default)]
    movetime_ms: Option<u64>,
}

/// The longest mate `POST /api/mate` looks for.
pub const MAX_MATE_MOVES: u32 = 31;

/// Looks for a mate by checks (a tsume) for the side to move, as the analysis board's mate
/// line shows it. Shares the engine slots and limits with `POST /api/analyse`.
#[utoipa::path(post, path = "/api/mate", tag = "analysis", request_body = MateRequest, responses((status = 200, description = "The shortest mate by checks found, none, or unknown when the time ran out", body = MateReply), (status = 400, description = "A malformed request", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn mate(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: MateRequest = parse_body(&body)?;
    let max_moves = request.max_moves.unwrap_or(15);
    if !(1..=MAX_MATE_MOVES).contains(&max_moves) {
        return Err(ApiError::bad_request(format!(
            "max_moves must be 1 to {MAX_MATE_MOVES}"
        )));
    }
    let movetime = request.movetime_ms.unwrap_or(1000).clamp(10, 10_000);
    let position = PositionRequest {
        variant: request.variant,
        options: request.options,
        sfen: request.sfen,
        moves: request.moves,
        depth: None,
        movetime_ms: None,
        lines: None,
    };
    let admitted = Admitted::analysis(&hub, peer, &headers)?;
    let (game, admitted) = position_to_search_off_thread(position, admitted).await?;
    if let Some(jobs) = hub.engine_jobs() {
        let question = serde_json::json!({
            "type": "mate",
            "max_moves": max_moves,
            "movetime_ms": movetime,
        });
        return ask_workers(&hub, &jobs, question, &game, movetime, admitted).await;
    }
    let turn = admitted.turn(&hub).await?;
    let stop = turn.stop.clone();
    // A small table per request, as for the analyses: the slots bound how many there are.
    let reply = tokio::task::spawn_blocking(move || {
        game.mate(max_moves, Duration::from_millis(movetime), 16, stop)
    })
    .await
    .map_err(|e| ApiError::internal(format!("engine failed: {e}")))?;
    drop(turn);
    Ok(ok(&reply))
}

/// The WebSocket of a game. It starts as a spectator's; an `auth` message with the seat's
/// token makes it the seat's. The token never travels in the URL, where proxies log it: a
/// `?token=` is refused.
#[utoipa::path(get, path = "/api/games/{id}/ws", tag = "play", params(("id" = String, Path, description = "The game's id")), responses((status = 101, description = "The game's WebSocket: the server sends SocketMessage, the client SocketCommand"), (status = 400, description = "A malformed request", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn game_socket(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    if query.contains_key("token") {
        return Err(ApiError::bad_request(
            "a seat token does not go in the URL (proxies log it): \
             send {\"type\": \"auth\", \"token\": ...} once connected",
        ));
    }
    let slot = hub.find(&id).await?;
    let viewer = Viewer::of_socket(&hub, &headers).await?;
    let session = viewer.session_watch(&hub);
    let account = viewer.account;
    // Small buffers: thousands of idle games must not each hold the default 128 KiB.
    Ok(upgrade
        .read_buffer_size(4096)
        .write_buffer_size(4096)
        .max_message_size(BODY_LIMIT)
        // A frame's length is checked from its header, before its payload is read: a client
        // cannot make the server hold a 10 MB frame to learn it is too big.
        .max_frame_size(BODY_LIMIT)
        .on_upgrade(move |socket| serve_socket(hub, slot, account, session, socket)))
}

#[derive(Deserialize, ToSchema)]
pub(crate) struct SocketCommand {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, rename = "move")]
    usi: Option<String>,
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    id: Option<Value>,
}

async fn state_text(hub: &Hub, slot: &GameRoom) -> String {
    let live = slot.game.lock().await;
    SocketMessage::State {
        game: Box::new(hub.view_of(&live, true)),
    }
    .text()
}

/// The chat lines a socket's viewer sees, as one message.
async fn chat_history_text(hub: &Hub, slot: &GameRoom, who: &Credential<'_>) -> Option<String> {
    let (room, lines) = hub.chat_history(slot, who).await.ok()?;
    Some(SocketMessage::ChatHistory { room, lines }.text())
}

/// Serves a game's socket; `account` is the logged-in viewer's (from the upgrade's cookie),
/// whose seat the socket acts for without an `auth`, until its `session` ends: then the
/// socket closes (4001), and nothing it sent afterwards acts.
async fn serve_socket(
    hub: Arc<Hub>,
    slot: Arc<GameRoom>,
    account: Option<Account>,
    mut session: Option<SessionWatch>,
    socket: WebSocket,
) {
    let _open = crate::metrics::GaugeGuard::hold(&hub.metrics().websockets);
    let (mut sink, mut stream) = socket.split();
    let mut shutdown = hub.shutdown_signal();
    // Subscribe before the snapshot so no change falls between the two.
    let mut events = slot.events.subscribe();
    let mut chat = slot.chat.subscribe();
    let mut token: Option<String> = None;
    let account_id = account.as_ref().map(|a| a.id.as_str());
    // Pings keep a quiet socket (a spectator's, a player thinking) above the idle limit of the
    // connection; a client that stops answering them is closed by that limit.
    let mut pings = tokio::time::interval(hub.settings().connections.idle / 3);
    pings.tick().await;
    let seat = hub
        .seat_name(
            &slot,
            &Credential {
                token: None,
                account: account_id,
            },
        )
        .await;
    // The players whose chat lines the viewer blocks, as of the socket's opening.
    let blocked: std::collections::HashSet<String> = match &account {
        Some(viewer) => hub
            .store()
            .blocked_names(&viewer.id)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|(name, _)| name)
            .collect(),
        None => Default::default(),
    };
    // The chat room this socket sees: the players' once it holds a seat.
    let mut room = if seat.is_some() {
        Room::Players
    } else {
        Room::Spectators
    };
    let hello = SocketMessage::Hello { id: None, seat }.text();
    if sink.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    if sink
        .send(Message::Text(state_text(&hub, &slot).await.into()))
        .await
        .is_err()
    {
        return;
    }
    let viewer = Credential {
        token: None,
        account: account_id,
    };
    if let Some(history) = chat_history_text(&hub, &slot, &viewer).await
        && sink.send(Message::Text(history.into())).await.is_err()
    {
        return;
    }
    loop {
        if *shutdown.borrow_and_update() {
            close_socket(&mut sink, &mut stream, SocketClose::ServerStopping).await;
            return;
        }
        tokio::select! {
            // The session's end first: a message that arrives with it does not act.
            biased;
            _ = session_ended(&mut session, hub.accounts()) => {
                close_socket(&mut sink, &mut stream, SocketClose::SessionEnded).await;
                return;
            }
            _ = shutdown.changed() => continue,
            _ = pings.tick() => {
                if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return;
                }
            }
            event = events.recv() => {
                let text = match event {
                    Ok(text) => text.to_string(),
                    // Too slow to follow: send the whole state instead of what was missed.
                    Err(RecvError::Lagged(_)) => state_text(&hub, &slot).await,
                    Err(RecvError::Closed) => return,
                };
                if sink.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            line = chat.recv() => {
                let text = match line {
                    Ok(line) if line.room == room && !blocked.contains(&line.author) => {
                        SocketMessage::Chat { line: (*line).clone() }.text()
                    }
                    Ok(_) => continue,
                    Err(RecvError::Lagged(_)) => {
                        let who = Credential { token: token.as_deref(), account: account_id };
                        match chat_history_text(&hub, &slot, &who).await {
                            Some(history) => history,
                            None => continue,
                        }
                    }
                    Err(RecvError::Closed) => return,
                };
                if sink.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | None => return,
                    Some(Err(e)) => {
                        close_socket(&mut sink, &mut stream, SocketClose::BrokenFrame(&e)).await;
                        return;
                    }
                    Some(Ok(_)) => continue,
                };
                let reply =
                    socket_command(&hub, &slot, &mut token, account.as_ref(), text.as_str())
                        .await;
                let seated = matches!(reply, SocketMessage::Hello { seat: Some(_), .. });
                if sink.send(Message::Text(reply.text().into())).await.is_err() {
                    return;
                }
                if seated && room != Room::Players {
                    // Now a player's socket: the players' room, from its history.
                    room = Room::Players;
                    let who = Credential { token: token.as_deref(), account: account_id };
                    if let Some(history) = chat_history_text(&hub, &slot, &who).await
                        && sink.send(Message::Text(history.into())).await.is_err()
                    {
                        return;
                    }
                }
            }
        }
    }
}

/// Answers one message of a game's socket; `token` is the seat's once an `auth` has held,
/// `account` the logged-in viewer's.
async fn socket_command(
    hub: &Arc<Hub>,
    slot: &Arc<GameRoom>,
    token: &mut Option<String>,
    account: Option<&Account>,
    text: &str,
) -> SocketMessage {
    let command: SocketCommand = match serde_json::from_str(text) {
        Ok(c) => c,
        Err(e) => {
            return SocketMessage::Error {
                id: None,
                status: None,
                error: format!("bad message: {e}"),
                code: None,
                params: None,
            };
        }
    };
    let id = command.id.clone().unwrap_or(Value::Null);
    if command.kind == "auth" {
        let presented = command.token.unwrap_or_default();
        let presenting = Credential {
            token: Some(&presented),
            account: None,
        };
        return match hub.seat_name(slot, &presenting).await {
            Some(seat) => {
                *token = Some(presented);
                SocketMessage::Hello {
                    id: Some(id),
                    seat: Some(seat),
                }
            }
            None => refused(
                id,
                ApiError::forbidden("the token does not hold a seat in this game")
                    .code("seat.token-holds-none"),
            ),
        };
    }
    let who = Credential {
        token: token.as_deref(),
        account: account.map(|a| a.id.as_str()),
    };
    if command.kind == "chat" {
        let said = hub
            .say(
                slot,
                &who,
                account.map(|a| a.username.as_str()),
                command.text.as_deref().unwrap_or_default(),
            )
            .await;
        return match said {
            Ok(line) => SocketMessage::Ack {
                id,
                ply: None,
                chat: Some(line.id),
            },
            Err(e) => refused(id, e),
        };
    }
    let result = match command.kind.as_str() {
        "move" => match command.usi.as_deref() {
            Some(usi) => hub.play(slot, &who, usi.trim()).await,
            None => Err(ApiError::bad_request("a move message needs \"move\"")),
        },
        "resign" => hub.resign(slot, &who).await,
        "abort" => hub.abort(slot, &who).await,
        "draw" => {
            hub.draw(slot, &who, command.action.as_deref().unwrap_or("offer"))
                .await
        }
        "rematch" => {
            hub.rematch(slot, &who, command.action.as_deref().unwrap_or("offer"))
                .await
        }
        "ping" => {
            return SocketMessage::Pong {
                id,
                server_time_ms: hub.now(),
            };
        }
        other => Err(ApiError::bad_request(format!(
            "unknown message type {:?}: one of auth, move, resign, abort, draw, rematch, chat, \
             ping",
            other.chars().take(40).collect::<String>()
        ))),
    };
    match result {
        Ok(view) => SocketMessage::Ack {
            id,
            ply: Some(view.ply),
            chat: None,
        },
        Err(e) => refused(id, e),
    }
}

/// The socket's answer to a refused message.
fn refused(id: Value, e: ApiError) -> SocketMessage {
    let (code, params) = e.code_and_params();
    SocketMessage::Error {
        id: Some(id),
        status: Some(e.status),
        error: e.message,
        code,
        params,
    }
}

/// The routes of games, records and analysis (the WebSocket included); the others are their
/// modules' own, and `routes.rs` puts them together.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/variants", get(variants))
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/lobby", get(lobby))
        .route("/api/engine/queue", get(engine_queue))
        .route("/api/stats", get(site_stats))
        .route("/api/tv", get(tv))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/join", post(join_game))
        .route("/api/games/{id}/moves", post(post_move))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/berserk", post(berserk))
        .route("/api/games/{id}/abort", post(abort))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/chat", get(get_chat).post(post_chat))
        .route("/api/games/{id}/record", get(game_record))
        .route(
            "/api/games/{id}/analysis",
            get(game_analysis).post(analyse_game),
        )
        .route("/api/games/{id}/ws", get(game_socket))
        .route("/api/replay", post(replay))
        .route("/api/positions/check", post(check_position))
        .route(
            "/api/import",
            post(import).layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT)),
        )
        .route("/api/analyse", post(analyse))
        .route("/api/mate", post(mate))
}
