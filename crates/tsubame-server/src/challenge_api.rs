//! Challenges to a named player (`POST /api/players/{name}/challenge`), answered with
//! `POST /api/games/{id}/join` (accept) or `/decline`, withdrawn with `/abort`, listed at
//! `GET /api/challenges` and streamed to their players, wherever they are on the site, at
//! `GET /api/challenges/events`.

use crate::accounts::{SessionWatch, session_ended};
use crate::clock::TimeControl;
use crate::error::ApiError;
use crate::hub::{ChallengeList, GameView, Hub, NewGame, SeatGrant, Sitter};
use crate::request::{OptionsInput, creator_side_of, parse_body, variant_of};
use crate::responses::ErrorBody;
use crate::viewer::ClientAddress;
use crate::viewer::{Viewer, account_named, logged_in_account};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::Stream;
use serde::Deserialize;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use utoipa::ToSchema;

/// What a challenge proposes.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChallengeRequest {
    /// The game: `tori`, `wa` or `tenjiku`.
    variant: String,
    /// Rule options, as `name=value,...` or an object.
    #[serde(default)]
    options: OptionsInput,
    /// The clock (none: unlimited).
    #[serde(default = "unlimited")]
    clock: TimeControl,
    /// The challenger's side: `sente`, `gote` or `random`.
    #[serde(default = "random_side")]
    side: String,
    /// Whether the result changes both players' ratings (needs a clock).
    #[serde(default)]
    rated: bool,
}

fn unlimited() -> TimeControl {
    TimeControl::Unlimited
}

fn random_side() -> String {
    "random".into()
}

#[utoipa::path(post, path = "/api/players/{name}/challenge", tag = "play", params(("name" = String, Path, description = "The player challenged")), request_body = ChallengeRequest, responses((status = 201, description = "The challenger's seat in the game made for the player: it starts when they accept", body = SeatGrant), (status = 400, description = "A malformed request, or oneself", body = ErrorBody), (status = 403, description = "Not logged in, or the player takes no challenges from the challenger", body = ErrorBody), (status = 404, description = "No such player", body = ErrorBody), (status = 409, description = "A challenge between the two already waits, or too many of the challenger's do", body = ErrorBody), (status = 429, description = "Too many games made from this address", body = ErrorBody)))]
pub(crate) async fn challenge(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    Path(name): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "challenge a player")?;
    let request: ChallengeRequest = parse_body(&body)?;
    let variant = variant_of(&request.variant)?;
    let options = request.options.to_text()?;
    let creator_side = creator_side_of(&request.side)?;
    let other = account_named(&hub, &name).await?;
    if other.id == me.id {
        return Err(
            ApiError::bad_request("you cannot challenge yourself").code("challenge.yourself")
        );
    }
    if other.closed {
        return Err(ApiError::forbidden(format!(
            "{} cannot play: the account is closed",
            other.username
        ))
        .code("challenge.account-closed")
        .param("name", &other.username));
    }
    hub.admit_creation(client)?;
    let grant = hub
        .challenge(NewGame {
            variant,
            options,
            start_sfen: None,
            control: request.clock,
            against_engine: false,
            engine_level: 1,
            creator_side,
            creator: viewer.sitter(),
            rated: request.rated,
            rating_range: None,
            public: false,
            challenged: Some(Sitter {
                account: Some(other.id.clone()),
                name: other.username.clone(),
            }),
        })
        .await?;
    Ok((StatusCode::CREATED, axum::Json(grant)).into_response())
}

#[utoipa::path(post, path = "/api/games/{id}/decline", tag = "play", params(("id" = String, Path, description = "The challenge's game")), responses((status = 200, description = "The challenge, declined (its game ends as `declined`)", body = GameView), (status = 403, description = "Not logged in as the player challenged", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 409, description = "Already answered or withdrawn", body = ErrorBody)))]
pub(crate) async fn decline(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "decline a challenge")?;
    let room = hub.find(&id).await?;
    let view = hub.decline(&room, &me.id).await?;
    Ok(axum::Json(view).into_response())
}

#[utoipa::path(get, path = "/api/challenges", tag = "play", responses((status = 200, description = "The challenges to and from the logged-in player that wait for an answer", body = ChallengeList), (status = 403, description = "Not logged in", body = ErrorBody)))]
pub(crate) async fn challenges(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "see your challenges")?;
    Ok(axum::Json(hub.challenges_of(&me.id).await).into_response())
}

/// How often a quiet stream sends a comment, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(20);

#[utoipa::path(get, path = "/api/challenges/events", tag = "play", responses((status = 200, description = "Server-sent events: a `challenges` event with the logged-in player's waiting challenges (a ChallengeList) at once, and again whenever they change", content_type = "text/event-stream"), (status = 403, description = "Not logged in", body = ErrorBody)))]
pub(crate) async fn challenge_events(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let me = logged_in_account(&viewer, "follow your challenges")?;
    let session = viewer.session_watch(&hub);
    Ok(Sse::new(challenge_stream(hub, me.id.clone(), session))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

/// The stream's state: what it watches, and the list it sent last.
struct Following {
    hub: Arc<Hub>,
    account_id: String,
    signal: tokio::sync::broadcast::Receiver<Arc<[String]>>,
    /// Whether the list is to be sent (at once, and after a change of the account's).
    look: bool,
    shutdown: tokio::sync::watch::Receiver<bool>,
    /// The session that opened the stream: it ends with it.
    session: Option<SessionWatch>,
    last_sent: Option<String>,
}

/// An account's challenge lists: the first at once, then each one that differs from the last
/// sent, whenever a challenge changes anywhere; it ends when the server stops or the session
/// that opened it ends.
fn challenge_stream(
    hub: Arc<Hub>,
    account_id: String,
    session: Option<SessionWatch>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let signal = hub.challenge_signal();
    let following = Following {
        session,
        shutdown: hub.shutdown_signal(),
        hub,
        account_id,
        signal,
        look: true,
        last_sent: None,
    };
    futures_util::stream::unfold(following, |mut following| async move {
        loop {
            if *following.shutdown.borrow() {
                return None;
            }
            if !following.look {
                tokio::select! {
                    biased;
                    _ = session_ended(&mut following.session, following.hub.accounts()) => {
                        return None;
                    }
                    changed = following.signal.recv() => match changed {
                        Ok(accounts) => {
                            following.look = accounts.contains(&following.account_id);
                        }
                        // Changes were missed: look anyway.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => following.look = true,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                    },
                    _ = following.shutdown.changed() => return None,
                }
                continue;
            }
            following.look = false;
            let list = following.hub.challenges_of(&following.account_id).await;
            let text = serde_json::to_string(&list).unwrap_or_default();
            if following.last_sent.as_deref() == Some(text.as_str()) {
                continue;
            }
            following.last_sent = Some(text.clone());
            let event = Event::default().event("challenges").data(text);
            return Some((Ok(event), following));
        }
    })
}

/// The challenge routes.
pub(crate) fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/players/{name}/challenge", post(challenge))
        .route("/api/games/{id}/decline", post(decline))
        .route("/api/challenges", get(challenges))
        .route("/api/challenges/events", get(challenge_events))
}
