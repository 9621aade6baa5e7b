//! The tournaments' endpoints: `GET /api/tournaments` (upcoming, running, finished),
//! `POST /api/tournaments` (administrators), `GET /api/tournaments/{id}` (settings, status,
//! standings, games), `POST /api/tournaments/{id}/join` and `/withdraw`, and the events of
//! one tournament on its WebSocket, `/api/tournaments/{id}/ws`.

use super::rules;
use super::store::{EntrantRow, PairingRow, TournamentRow};
use crate::accounts::{SessionWatch, session_ended};
use crate::clock::TimeControl;
use crate::error::ApiError;
use crate::game::HostedGame;
use crate::hub::Hub;
use crate::ratings::{Speed, rating_game};
use crate::request::parse_json;
use crate::request::{OptionsInput, SocketClose, close_socket, variant_of};
use crate::responses::ErrorBody;
use crate::viewer::ClientAddress;
use crate::viewer::{Viewer, logged_in_account};
use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use utoipa::ToSchema;

/// The longest tournament, in minutes: a day.
const MAX_MINUTES: f64 = 1_440.0;

/// The shortest: six seconds (for trying the rules out; a real arena lasts an hour or so).
const MIN_MINUTES: f64 = 0.1;

/// How far ahead a tournament may be made to start: thirty days.
const MAX_START_SECONDS: f64 = 30.0 * 86_400.0;

/// How many finished tournaments the list shows.
const FINISHED_LISTED: i64 = 20;

/// How many of a tournament's games its page shows.
const GAMES_SHOWN: i64 = 100;

fn database(error: anyhow::Error) -> ApiError {
    ApiError::database("the tournament", error)
}

/// What making a tournament takes.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewTournament {
    /// Its name, 1 to 60 characters.
    name: String,
    /// The game: `tori`, `wa` or `tenjiku`.
    variant: String,
    /// Rule options, as `name=value,...` or an object.
    #[serde(default)]
    options: OptionsInput,
    /// The clock: byo-yomi or Fischer, with main time.
    clock: TimeControl,
    /// How long it lasts, in minutes (0.1 to 1,440).
    minutes: f64,
    /// When it starts, in seconds from now (0 to 30 days).
    #[serde(default)]
    starts_in_seconds: f64,
    /// Whether its games are rated.
    #[serde(default = "rated_by_default")]
    rated: bool,
}

fn rated_by_default() -> bool {
    true
}

/// A tournament made: its id.
#[derive(Serialize, ToSchema)]
pub struct TournamentMade {
    /// The new tournament's id.
    pub id: String,
}

/// A tournament in a list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentSummary {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The game.
    pub variant: String,
    /// Rule options (non-default ones).
    pub options: String,
    /// The clock.
    pub clock: TimeControl,
    /// How long it lasts, in minutes.
    pub minutes: f64,
    /// Whether its games are rated.
    pub rated: bool,
    /// `created` (not started yet), `started` or `finished`.
    pub status: String,
    /// When it starts, unix milliseconds.
    pub starts_at: i64,
    /// When it ends.
    pub ends_at: i64,
    /// Whether it was made from the configuration's schedule.
    pub scheduled: bool,
}

/// The tournaments: those to come, those being played, the newest finished.
#[derive(Serialize, ToSchema)]
pub struct TournamentList {
    /// Not started yet, soonest first.
    pub upcoming: Vec<TournamentSummary>,
    /// Being played, the soonest to end first.
    pub running: Vec<TournamentSummary>,
    /// Finished, newest first.
    pub finished: Vec<TournamentSummary>,
}

/// A player's line in the standings.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Standing {
    /// Place, from 1.
    pub rank: usize,
    /// The player.
    pub username: String,
    /// Points.
    pub points: i64,
    /// Games scored.
    pub games: i64,
    /// Games won.
    pub wins: i64,
    /// Rating when the player joined.
    pub rating: i64,
    /// Wins in a row now: from 2 on, the next game is worth double.
    pub streak: i64,
    /// Whether the player takes part now (not withdrawn).
    pub active: bool,
    /// The game the player is in, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playing: Option<String>,
}

/// One of a tournament's games.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentGame {
    /// The game.
    pub game_id: String,
    /// Sente's name.
    pub sente: String,
    /// Gote's name.
    pub gote: String,
    /// `playing` or `finished`.
    pub status: String,
    /// `sente`, `gote` or none.
    #[schema(required = true, value_type = Option<crate::hub::Side>)]
    pub winner: Option<String>,
    /// Why it ended.
    #[schema(required = true)]
    pub reason: Option<String>,
    /// Points it earned sente and gote, once scored.
    pub sente_points: i64,
    /// Gote's points.
    pub gote_points: i64,
    /// Whether it has been scored (a game that ended after the tournament is not).
    pub scored: bool,
    /// Whether sente berserked.
    pub sente_berserk: bool,
    /// Whether gote berserked.
    pub gote_berserk: bool,
}

/// What the viewer is in a tournament.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentYou {
    /// Whether they take part now.
    pub active: bool,
    /// Their game, if they are in one.
    #[schema(required = true)]
    pub playing: Option<String>,
}

/// A tournament with its standings and games.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentView {
    /// Its settings and status.
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// Server time now, unix milliseconds: what the countdown counts from.
    pub now: i64,
    /// Every player, best first: by points, then rating, then name.
    pub standings: Vec<Standing>,
    /// The newest games first (at most 100).
    pub games: Vec<TournamentGame>,
    /// The logged-in viewer's place in it, if they joined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub you: Option<TournamentYou>,
}

fn summary(t: &TournamentRow) -> TournamentSummary {
    TournamentSummary {
        id: t.id.clone(),
        name: t.name.clone(),
        variant: t.variant.clone(),
        options: t.options.clone(),
        clock: serde_json::from_str(&t.time_control).unwrap_or(TimeControl::Unlimited),
        minutes: (t.ends_at - t.starts_at) as f64 / 60_000.0,
        rated: t.rated,
        status: t.status.clone(),
        starts_at: t.starts_at,
        ends_at: t.ends_at,
        scheduled: t.schedule_key.is_some(),
    }
}

/// The standings of these players, best first.
pub fn standings(entrants: &[EntrantRow]) -> Vec<Standing> {
    let mut sorted: Vec<&EntrantRow> = entrants.iter().collect();
    sorted.sort_by(|a, b| {
        rules::placing(
            a.points,
            a.rating,
            &a.username,
            b.points,
            b.rating,
            &b.username,
        )
    });
    sorted
        .into_iter()
        .enumerate()
        .map(|(place, e)| Standing {
            rank: place + 1,
            username: e.username.clone(),
            points: e.points,
            games: e.games,
            wins: e.wins,
            rating: e.rating,
            streak: e.streak,
            active: e.active,
            playing: e.game_id.clone(),
        })
        .collect()
}

fn game_line(p: &PairingRow) -> TournamentGame {
    TournamentGame {
        game_id: p.game_id.clone(),
        sente: p.names[0].clone(),
        gote: p.names[1].clone(),
        status: p.status.clone(),
        winner: p.winner.clone(),
        reason: p.reason.clone(),
        sente_points: p.points[0],
        gote_points: p.points[1],
        scored: p.scored && p.counted,
        sente_berserk: p.berserk[0],
        gote_berserk: p.berserk[1],
    }
}

/// A tournament as its page shows it to `viewer` (an account's id, if logged in).
pub async fn tournament_view(
    hub: &Hub,
    id: &str,
    viewer: Option<&str>,
) -> Result<TournamentView, ApiError> {
    let store = hub.store();
    let found = if id.len() > 64 {
        None
    } else {
        store.tournament(id).await.map_err(database)?
    };
    let t = found.ok_or_else(|| {
        ApiError::not_found(format!(
            "no tournament with id {:?}",
            id.chars().take(64).collect::<String>()
        ))
        .code("arena.unknown")
    })?;
    let (entrants, games) = store
        .standings_and_pairings(id, GAMES_SHOWN)
        .await
        .map_err(database)?;
    let you = viewer.and_then(|account| {
        entrants
            .iter()
            .find(|e| e.account_id == account)
            .map(|e| TournamentYou {
                active: e.active,
                playing: e.game_id.clone(),
            })
    });
    Ok(TournamentView {
        summary: summary(&t),
        now: hub.now() as i64,
        standings: standings(&entrants),
        games: games.iter().map(game_line).collect(),
        you,
    })
}

/// A tournament's settings checked: its game's options in words the rules read, its clock.
pub(crate) fn checked_settings(
    variant: &str,
    options: &OptionsInput,
    clock: &TimeControl,
    rated: bool,
) -> Result<(String, String), ApiError> {
    let variant = variant_of(variant)?;
    let options = options.to_text()?;
    HostedGame::new(variant, &options, None).map_err(ApiError::from_rules)?;
    clock
        .validate()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    match clock {
        TimeControl::Byoyomi { main_ms, .. } | TimeControl::Fischer { main_ms, .. }
            if *main_ms > 0 => {}
        _ => {
            return Err(ApiError::bad_request(
                "an arena's clock is byo-yomi or Fischer, with main time",
            )
            .code("arena.clock"));
        }
    }
    if rated && Speed::of(clock).is_none() {
        return Err(ApiError::bad_request("this clock cannot be rated").code("arena.clock-unrated"));
    }
    Ok((variant.name().to_string(), options))
}

#[utoipa::path(post, path = "/api/tournaments", tag = "tournaments", request_body = NewTournament, responses((status = 201, description = "The tournament made", body = TournamentMade), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "Not an administrator", body = ErrorBody), (status = 422, description = "Options the rules refuse", body = ErrorBody)))]
pub(crate) async fn create(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let me = crate::viewer::administrator(&viewer)?;
    let request: NewTournament = parse_json(
        &body,
        "{\"name\", \"variant\", \"options\", \"clock\", \"minutes\", \"starts_in_seconds\", \"rated\"}",
    )?;
    let name = crate::chat::clean_name(&request.name);
    if name.is_empty() || name.chars().count() > 60 {
        return Err(ApiError::bad_request("a name of 1 to 60 characters").code("arena.name-length"));
    }
    let (variant, options) = checked_settings(
        &request.variant,
        &request.options,
        &request.clock,
        request.rated,
    )?;
    if !(MIN_MINUTES..=MAX_MINUTES).contains(&request.minutes) {
        return Err(ApiError::bad_request(format!(
            "minutes must be {MIN_MINUTES} to {MAX_MINUTES}"
        ))
        .code("arena.minutes")
        .param("min", MIN_MINUTES)
        .param("max", MAX_MINUTES));
    }
    if !(0.0..=MAX_START_SECONDS).contains(&request.starts_in_seconds) {
        return Err(
            ApiError::bad_request("starts_in_seconds must be 0 to 30 days").code("arena.start"),
        );
    }
    let now = hub.now() as i64;
    let starts_at = now + (request.starts_in_seconds * 1000.0).round() as i64;
    let row = TournamentRow {
        id: crate::hub::random_game_id(),
        name,
        variant,
        options,
        time_control: serde_json::to_string(&request.clock)
            .map_err(|e| ApiError::internal(e.to_string()))?,
        rated: request.rated,
        starts_at,
        ends_at: starts_at + (request.minutes * 60_000.0).round() as i64,
        status: "created".into(),
        created_by: Some(me.id.clone()),
        schedule_key: None,
        created_at: now,
    };
    hub.store()
        .insert_tournament(&row)
        .await
        .map_err(database)?;
    hub.tournament_changed(&row.id);
    tracing::info!(tournament = %row.id, name = %row.name, "tournament made");
    Ok((
        StatusCode::CREATED,
        axum::Json(TournamentMade { id: row.id }),
    )
        .into_response())
}

#[utoipa::path(get, path = "/api/tournaments", operation_id = "list_tournaments", tag = "tournaments", responses((status = 200, description = "Upcoming, running and the newest finished tournaments", body = TournamentList)))]
pub(crate) async fn list(State(hub): State<Arc<Hub>>) -> Result<Response, ApiError> {
    let rows = hub
        .store()
        .listed_tournaments(FINISHED_LISTED)
        .await
        .map_err(database)?;
    let mut list = TournamentList {
        upcoming: Vec::new(),
        running: Vec::new(),
        finished: Vec::new(),
    };
    for row in &rows {
        let line = summary(row);
        match row.status.as_str() {
            "created" => list.upcoming.push(line),
            "started" => list.running.push(line),
            _ => list.finished.push(line),
        }
    }
    list.running.sort_by_key(|t| t.ends_at);
    Ok(axum::Json(list).into_response())
}

#[utoipa::path(get, path = "/api/tournaments/{id}", tag = "tournaments", params(("id" = String, Path, description = "The tournament")), responses((status = 200, description = "Settings, status, standings (best first) and games", body = TournamentView), (status = 404, description = "No such tournament", body = ErrorBody)))]
pub(crate) async fn show(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let account = viewer.account.as_ref().map(|a| a.id.as_str());
    Ok(axum::Json(tournament_view(&hub, &id, account).await?).into_response())
}

#[utoipa::path(post, path = "/api/tournaments/{id}/join", tag = "tournaments", params(("id" = String, Path, description = "The tournament")), responses((status = 200, description = "Joined (or back after withdrawing): paired as soon as it runs and another player waits", body = TournamentView), (status = 403, description = "Not logged in, or a closed account", body = ErrorBody), (status = 404, description = "No such tournament", body = ErrorBody), (status = 409, description = "Finished", body = ErrorBody), (status = 429, description = "Too many joins, withdrawals and games made from this address", body = ErrorBody)))]
pub(crate) async fn join(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    Path(id): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "join a tournament")?;
    // Each join is written and sent to every watcher: it counts as a game made.
    hub.admit_creation(client)?;
    let store = hub.store();
    let t = store
        .tournament(&id)
        .await
        .map_err(database)?
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "no tournament with id {:?}",
                id.chars().take(64).collect::<String>()
            ))
            .code("arena.unknown")
        })?;
    if t.status == "finished" {
        return Err(ApiError::conflict("this tournament is over").code("arena.over"));
    }
    let control: TimeControl =
        serde_json::from_str(&t.time_control).unwrap_or(TimeControl::Unlimited);
    let variant = variant_of(&t.variant)?;
    let rating = match Speed::of(&control) {
        Some(speed) => store
            .rating(&me.id, rating_game(variant, &t.options), speed.name())
            .await
            .map_err(database)?
            .unwrap_or_default(),
        None => Default::default(),
    };
    let shown = crate::ratings::SeatRating::of(&rating).rating;
    store
        .join_tournament(&id, &me.id, &me.username, shown, hub.now() as i64)
        .await
        .map_err(database)?;
    hub.tournament_changed(&id);
    Ok(axum::Json(tournament_view(&hub, &id, Some(&me.id)).await?).into_response())
}

#[utoipa::path(post, path = "/api/tournaments/{id}/withdraw", tag = "tournaments", params(("id" = String, Path, description = "The tournament")), responses((status = 200, description = "Withdrawn: not paired again (a game in play goes on and counts); join again to come back", body = TournamentView), (status = 403, description = "Not logged in", body = ErrorBody), (status = 404, description = "No such tournament, or not in it", body = ErrorBody), (status = 429, description = "Too many joins, withdrawals and games made from this address", body = ErrorBody)))]
pub(crate) async fn withdraw(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    Path(id): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "withdraw from a tournament")?;
    hub.admit_creation(client)?;
    if !hub
        .store()
        .withdraw_from_tournament(&id, &me.id)
        .await
        .map_err(database)?
    {
        return Err(ApiError::not_found("you are not in this tournament").code("arena.not-joined"));
    }
    hub.tournament_changed(&id);
    Ok(axum::Json(tournament_view(&hub, &id, Some(&me.id)).await?).into_response())
}

/// What a tournament's socket sends: the whole tournament, at once and after each change.
#[derive(Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentMessage {
    /// The tournament as `GET /api/tournaments/{id}` gives it.
    Tournament {
        /// It.
        tournament: Box<TournamentView>,
    },
}

#[utoipa::path(get, path = "/api/tournaments/{id}/ws", tag = "tournaments", params(("id" = String, Path, description = "The tournament")), responses((status = 101, description = "WebSocket: a `tournament` message (TournamentMessage) at once and after every change (a join, a withdrawal, a pairing, a result, the start, the end), on whichever instance it happened"), (status = 404, description = "No such tournament", body = ErrorBody)))]
pub(crate) async fn socket(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let viewer = Viewer::of_socket(&hub, &headers).await?;
    let session = viewer.session_watch(&hub);
    let account = viewer.account.map(|a| a.id);
    // 404 before the upgrade.
    tournament_view(&hub, &id, account.as_deref()).await?;
    Ok(upgrade
        .read_buffer_size(4096)
        .write_buffer_size(4096)
        .max_message_size(crate::request::BODY_LIMIT)
        .max_frame_size(crate::request::BODY_LIMIT)
        .on_upgrade(move |socket| serve_socket(hub, id, account, session, socket)))
}

/// How long changes are gathered before the tournament is sent again.
const SETTLE: Duration = Duration::from_millis(150);

/// Serves a tournament's socket for `account` (from the upgrade's cookie) until its `session`
/// ends: then it closes (4001), as a game's socket does.
async fn serve_socket(
    hub: Arc<Hub>,
    id: String,
    account: Option<String>,
    mut session: Option<SessionWatch>,
    socket: WebSocket,
) {
    let _open = crate::metrics::GaugeGuard::hold(&hub.metrics().websockets);
    let (mut sink, mut stream) = socket.split();
    let mut changes = hub.tournament_signal();
    let mut shutdown = hub.shutdown_signal();
    let mut pings = tokio::time::interval(hub.settings().connections.idle / 3);
    pings.tick().await;
    let mut dirty = true;
    loop {
        if dirty {
            dirty = false;
            let Ok(view) = tournament_view(&hub, &id, account.as_deref()).await else {
                break;
            };
            let message = TournamentMessage::Tournament {
                tournament: Box::new(view),
            };
            let Ok(text) = serde_json::to_string(&message) else {
                break;
            };
            if sink.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
        tokio::select! {
            biased;
            _ = session_ended(&mut session, hub.accounts()) => {
                close_socket(&mut sink, &mut stream, SocketClose::SessionEnded).await;
                break;
            }
            changed = changes.recv() => match changed {
                Ok(changed) if *changed == *id => {
                    tokio::time::sleep(SETTLE).await;
                    // What else changed meanwhile is in the one view sent next.
                    while changes.try_recv().is_ok() {}
                    dirty = true;
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => dirty = true,
                Err(_) => break,
            },
            incoming = stream.next() => match incoming {
                Some(Ok(Message::Close(_))) | None => break,
                Some(Err(e)) => {
                    close_socket(&mut sink, &mut stream, SocketClose::BrokenFrame(&e)).await;
                    break;
                }
                Some(Ok(_)) => {}
            },
            _ = pings.tick() => {
                if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
                    break;
                }
            }
            _ = shutdown.changed() => {
                close_socket(&mut sink, &mut stream, SocketClose::ServerStopping).await;
                break;
            }
        }
    }
}

/// The tournament routes.
pub(crate) fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/tournaments", get(list).post(create))
        .route("/api/tournaments/{id}", get(show))
        .route("/api/tournaments/{id}/join", post(join))
        .route("/api/tournaments/{id}/withdraw", post(withdraw))
        .route("/api/tournaments/{id}/ws", get(socket))
}
