//! The engine's answers: a finished game's analysis, and searches of a position (best lines,
//! mates) in the server's slots or by workers.

use crate::error::ApiError;
use crate::game::EngineReply;
use crate::game::HostedGame;
use crate::game::MateReply;
use crate::game_analysis::{AnalysisJob, GameAnalysis};
use crate::hub::Hub;
use crate::metrics::GaugeGuard;
use crate::records::move_refused;
use crate::records::start_and_moves;
use crate::request::{OptionsInput, parse_body};
use crate::request::{PositionRequest, game_for, ok};
use crate::responses::ErrorBody;
use crate::viewer::ClientAddress;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tsubame_engine::limits::Limits;
use utoipa::ToSchema;

/// The most best lines `POST /api/analyse` gives.
pub const MAX_ANALYSIS_LINES: u32 = 10;

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
    ClientAddress(client): ClientAddress,
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
    let ticket = hub.engine().admit_analysis(client)?;
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
    fn analysis(hub: &Hub, client: ClientAddress) -> Result<Admitted, ApiError> {
        hub.engine()
            .admit_analysis(client.0)
            .map(Admitted)
            .map_err(ApiError::from)
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
    client: ClientAddress,
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
    let admitted = Admitted::analysis(&hub, client)?;
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
    client: ClientAddress,
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
    let admitted = Admitted::analysis(&hub, client)?;
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
