//! The account endpoints (`/api/account/…`, `/api/players/…`): signing up, logging in and
//! out, passwords, deletion, a player's page and games. Who a request comes from is
//! [`crate::viewer`]'s.

use crate::accounts::{NewSession, SESSION_COOKIE};
use crate::connections::PeerAddr;
use crate::error::ApiError;
use crate::hub::GameView;
use crate::hub::Hub;
use crate::ratings::{RATING_GAMES, Speed};
use crate::request::parse_json;
use crate::responses::{
    AccountAnswer, ErrorBody, PlayerPage, PlayerPuzzleRating, PlayerRating, RatingChange, WhoAmI,
};
use crate::viewer::ClientAddress;
use crate::viewer::{Viewer, account_named, is_cross_site, logged_in_account, over_https};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::Arc;

/// The most rating-history points a player page sends (the newest).
const HISTORY_POINTS: i64 = 500;

/// Logging in from another site's page is refused too: it would log the player's browser into
/// someone else's account.
fn refuse_cross_site(headers: &HeaderMap) -> Result<(), ApiError> {
    if is_cross_site(headers) {
        return Err(
            ApiError::forbidden("logging in is possible only from this site's own pages")
                .code("login.cross-site"),
        );
    }
    Ok(())
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoginRequest {
    username: String,
    password: String,
}

fn cookie_header(value: &str, max_age_s: u64, secure: bool) -> Result<HeaderValue, ApiError> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_s}{secure}"
    ))
    .map_err(|e| ApiError::internal(format!("cookie: {e}")))
}

fn logged_in(
    hub: &Hub,
    session: NewSession,
    secure: bool,
    status: u16,
) -> Result<Response, ApiError> {
    let cookie = cookie_header(
        &session.token,
        hub.accounts().session_ttl_ms() / 1000,
        secure,
    )?;
    let status = axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::OK);
    let mut response = (
        status,
        axum::Json(AccountAnswer {
            account: Some(session.account),
        }),
    )
        .into_response();
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    Ok(response)
}

fn parse_login(body: &Bytes) -> Result<LoginRequest, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!(
            "bad request body: {e} (expected {{\"username\": ..., \"password\": ...}})"
        ))
    })
}

/// How a session is opened: with a new account, or by logging in to one.
#[derive(Clone, Copy)]
enum Entry {
    SignUp,
    LogIn,
}

async fn enter(
    hub: &Hub,
    peer: std::net::SocketAddr,
    headers: &HeaderMap,
    body: &Bytes,
    entry: Entry,
) -> Result<Response, ApiError> {
    refuse_cross_site(headers)?;
    let request = parse_login(body)?;
    let client = hub.settings().connections.client_address(peer, headers);
    let (name, password, now) = (&request.username, &request.password, hub.now());
    let (session, status) = match entry {
        Entry::SignUp => (
            hub.accounts().signup(name, password, client, now).await?,
            201,
        ),
        Entry::LogIn => (
            hub.accounts().login(name, password, client, now).await?,
            200,
        ),
    };
    logged_in(hub, session, over_https(hub, peer, headers), status)
}

#[utoipa::path(post, path = "/api/account/signup", tag = "accounts", request_body = LoginRequest, responses((status = 201, description = "The new account, logged in (a session cookie is set)", body = AccountAnswer), (status = 400, description = "A malformed request", body = ErrorBody), (status = 409, description = "Not possible in the game as it stands", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn signup(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    enter(&hub, peer, &headers, &body, Entry::SignUp).await
}

#[utoipa::path(post, path = "/api/account/login", tag = "accounts", request_body = LoginRequest, responses((status = 200, description = "The account, logged in (a session cookie is set)", body = AccountAnswer), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "No seat, or not allowed", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn login(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    enter(&hub, peer, &headers, &body, Entry::LogIn).await
}

#[utoipa::path(post, path = "/api/account/logout", tag = "accounts", responses((status = 200, description = "Logged out", body = AccountAnswer)))]
pub(crate) async fn logout(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    if let Some(session) = &viewer.session {
        hub.accounts().logout(session).await?;
    }
    logged_out(&hub, peer, &headers)
}

#[utoipa::path(get, path = "/api/account", tag = "accounts", responses((status = 200, description = "Who is logged in, and their games waiting for a move", body = WhoAmI)))]
pub(crate) async fn who_am_i(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    viewer: Viewer,
) -> Response {
    // Every page asks this when it opens and every 15 s: the visitor is on the site.
    let account_id = viewer.account.as_ref().map(|a| a.id.as_str());
    let visitor = crate::presence::visitor_key(account_id, client);
    if let Err(e) = hub
        .presence()
        .seen(hub.store(), visitor, account_id, hub.now())
        .await
    {
        tracing::warn!("cannot note a visitor: {e}");
    }
    let your_turn = match &viewer.account {
        Some(account) => hub.your_turn_count(&account.id).await,
        None => 0,
    };
    let mut response = axum::Json(WhoAmI {
        account: viewer.account,
        your_turn,
    })
    .into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    response
}

/// A response that logs the browser out: no account, the cookie cleared.
fn logged_out(
    hub: &Hub,
    peer: std::net::SocketAddr,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let mut response = axum::Json(AccountAnswer { account: None }).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        cookie_header("", 0, over_https(hub, peer, headers))?,
    );
    Ok(response)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PasswordChange {
    current_password: String,
    new_password: String,
}

#[utoipa::path(post, path = "/api/account/password", tag = "accounts", request_body = PasswordChange, responses((status = 200, description = "The password is changed; every other session of the account has ended", body = AccountAnswer), (status = 400, description = "A malformed request, or a new password that is too short or too long", body = ErrorBody), (status = 403, description = "Not logged in, or the current password is wrong", body = ErrorBody), (status = 429, description = "Too many password attempts: Retry-After says when to try again", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn change_password(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let account = logged_in_account(&viewer, "change your password")?;
    let change: PasswordChange =
        parse_json(&body, "{\"current_password\": ..., \"new_password\": ...}")?;
    let session = viewer.session.as_deref().unwrap_or_default();
    hub.accounts()
        .change_password(
            account,
            session,
            &change.current_password,
            &change.new_password,
        )
        .await?;
    Ok(axum::Json(AccountAnswer {
        account: Some(account.clone()),
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/account/logout-everywhere", tag = "accounts", responses((status = 200, description = "Every session of the account has ended, this one too (its cookie is cleared)", body = AccountAnswer), (status = 403, description = "Not logged in", body = ErrorBody)))]
pub(crate) async fn logout_everywhere(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let account = logged_in_account(&viewer, "log out everywhere")?;
    let ended = hub.accounts().logout_everywhere(account).await?;
    tracing::info!(name = account.username, ended, "logged out everywhere");
    logged_out(&hub, peer, &headers)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccountDeletion {
    password: String,
}

#[utoipa::path(post, path = "/api/account/delete", tag = "accounts", request_body = AccountDeletion, responses((status = 200, description = "The account is deleted: its finished games stay, under the name [deleted]; the name stays taken", body = AccountAnswer), (status = 403, description = "Not logged in, or the password is wrong", body = ErrorBody), (status = 409, description = "One of the account's games is waiting or being played", body = ErrorBody), (status = 429, description = "Too many password attempts", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn delete_account(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let account = logged_in_account(&viewer, "delete your account")?;
    let deletion: AccountDeletion = parse_json(&body, "{\"password\": ...}")?;
    hub.accounts()
        .delete(account, &deletion.password, hub.now())
        .await?;
    hub.forget_deleted_account(&account.id).await;
    hub.end_challenges_of(&account.id).await;
    logged_out(&hub, peer, &headers)
}

/// The most games one download holds (the oldest first; a player with more downloads them
/// from the player's game list).
pub const DOWNLOAD_GAMES: i64 = 10_000;

/// Which record format `GET /api/account/games/download` writes.
#[derive(Clone, Copy, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DownloadFormat {
    /// The site's own record text: every game of every variant.
    #[default]
    Record,
    /// The Tori play site's PGN: the Tori games (the format holds no other).
    Pgn,
    /// KIF: the Tori games, one after another, each whole (a blank line between).
    Kif,
}

/// The query of a download.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct DownloadQuery {
    /// `record` (the default), `pgn` or `kif`.
    #[serde(default)]
    pub format: DownloadFormat,
}

#[utoipa::path(get, path = "/api/account/games/download", tag = "accounts", params(DownloadQuery), responses((status = 200, description = "Every finished game of the account (aborted ones left out), oldest first, as one record file: in the site's record text (every game), PGN or KIF (the Tori games: those formats hold no other), each game with its players, event, address, start and end, clock and result (KIF: each move's time), separated by a blank line", content_type = "text/plain"), (status = 400, description = "An unknown format", body = ErrorBody), (status = 403, description = "Not logged in", body = ErrorBody)))]
pub(crate) async fn download_games(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    query: Result<Query<DownloadQuery>, axum::extract::rejection::QueryRejection>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let account = logged_in_account(&viewer, "download your games")?;
    let Query(query) =
        query.map_err(|_| ApiError::bad_request("the format must be record, pgn or kif"))?;
    let games = hub
        .store()
        .account_finished_games(&account.id, DOWNLOAD_GAMES)
        .await
        .map_err(|e| ApiError::internal(format!("database: {e}")))?;
    let texts: Vec<String> = games
        .iter()
        .filter_map(|(row, moves)| {
            let site = crate::records::game_address(&hub, peer, &headers, &row.id);
            let exports = crate::records::stored_record_exports(row, moves, site)?;
            match query.format {
                DownloadFormat::Record => exports.record,
                DownloadFormat::Pgn => exports.pgn,
                DownloadFormat::Kif => exports.kif,
            }
        })
        .map(|text| text.trim_end().to_string())
        .collect();
    let mut file = texts.join("\n\n");
    if !file.is_empty() {
        file.push('\n');
    }
    let extension = match query.format {
        DownloadFormat::Record => "txt",
        DownloadFormat::Pgn => "pgn",
        DownloadFormat::Kif => "kif",
    };
    let disposition = format!(
        "attachment; filename=\"tsubame-{}-games.{extension}\"",
        account.username
    );
    let mut response = file.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    Ok(response)
}

#[utoipa::path(get, path = "/api/players/{name}", tag = "accounts", params(("name" = String, Path, description = "The user name")), responses((status = 200, description = "The player's ratings and history", body = PlayerPage), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn player(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let account = account_named(&hub, &name).await?;
    let blocked = match &viewer.account {
        Some(me) => hub
            .store()
            .blocks(&me.id, &account.id)
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?,
        None => false,
    };
    let online = hub
        .presence()
        .is_online(hub.store(), &account.id, hub.now())
        .await
        .map_err(|e| ApiError::internal(format!("database: {e}")))?;
    let database = |e: anyhow::Error| ApiError::internal(format!("database: {e}"));
    let store = hub.store();
    let games = store
        .account_finished_game_count(&account.id)
        .await
        .map_err(database)?;
    let mut ratings = store.ratings_of(&account.id).await.map_err(database)?;
    let order = |game: &str, speed: &str| {
        let game = RATING_GAMES.iter().position(|g| *g == game);
        let speed = Speed::ALL.iter().position(|s| s.name() == speed);
        (game, speed)
    };
    ratings.sort_by_key(|r| order(&r.game, &r.speed));
    let ratings = ratings
        .iter()
        .map(|r| PlayerRating {
            game: r.game.clone(),
            speed: r.speed.clone(),
            rating: r.rating.rating.round() as i64,
            deviation: r.rating.deviation.round() as i64,
            provisional: r.rating.provisional(),
            games: r.games,
        })
        .collect();
    let history = store
        .rating_history(&account.id, HISTORY_POINTS)
        .await
        .map_err(database)?
        .into_iter()
        .map(|p| RatingChange {
            game: p.game,
            speed: p.speed,
            game_id: p.game_id,
            rating: p.rating,
            at: p.at,
        })
        .collect();
    let puzzle_ratings = store
        .puzzle_ratings_of(&account.id)
        .await
        .map_err(database)?
        .into_iter()
        .map(|(variant, rating, attempts)| PlayerPuzzleRating {
            variant,
            rating: rating.rating.round() as i64,
            deviation: rating.deviation.round() as i64,
            provisional: rating.provisional(),
            attempts,
        })
        .collect();
    Ok(axum::Json(PlayerPage {
        username: account.username,
        joined: account.created_at,
        games,
        ratings,
        history,
        puzzle_ratings,
        closed: account.closed,
        blocked,
        online,
    })
    .into_response())
}

#[utoipa::path(get, path = "/api/players/{name}/games", tag = "accounts", params(("name" = String, Path, description = "The user name"), ("status" = Option<String>, Query, description = "waiting, playing or finished"), ("limit" = Option<usize>, Query, description = "At most this many")), responses((status = 200, description = "The player's games, newest first", body = Vec<GameView>), (status = 400, description = "A malformed request", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn player_games(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let status = crate::query::status_of(&query)?;
    let limit = crate::query::limit_of(&query)?;
    let account = account_named(&hub, &name).await?;
    Ok(axum::Json(hub.account_games(&account.id, status, limit).await?).into_response())
}

/// The account routes.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/account", get(who_am_i))
        .route("/api/account/signup", post(signup))
        .route("/api/account/login", post(login))
        .route("/api/account/logout", post(logout))
        .route("/api/account/logout-everywhere", post(logout_everywhere))
        .route("/api/account/password", post(change_password))
        .route("/api/account/delete", post(delete_account))
        .route("/api/account/games/download", get(download_games))
        .route("/api/players/{name}", get(player))
        .route("/api/players/{name}/games", get(player_games))
}
