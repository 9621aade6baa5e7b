//! The API of `tsubame worker`: lease a job, renew the lease while searching, answer it (or give
//! it back). Every request carries the worker's key as `Authorization: Bearer`.

use crate::error::ApiError;
use crate::hub::Hub;
use crate::request::parse_body;
use crate::responses::ErrorBody;
use crate::workers::{EngineJobs, JobError};
use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use utoipa::ToSchema;

/// The largest answer a worker may send, in bytes.
pub const ANSWER_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// A worker's request for a job.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    /// How long to wait for a job, in milliseconds (at most 25,000; default 20,000).
    #[serde(default)]
    wait_ms: Option<u64>,
}

/// A job leased to the worker, or none within the wait.
#[derive(Serialize, ToSchema)]
pub struct LeaseAnswer {
    /// The job; none when no job came within the wait.
    #[schema(required = true)]
    job: Option<LeasedJobBody>,
}

/// A leased job.
#[derive(Serialize, ToSchema)]
pub struct LeasedJobBody {
    /// The job's id.
    id: String,
    /// `move` (the computer's move), `game` (a finished game's analysis), `analyse` (the
    /// analysis board's search) or `mate` (a mate search).
    kind: String,
    /// The question, JSON text in the form `tsubame analyse --json` takes.
    question: String,
    /// The lease's secret, for renewing and answering.
    lease: String,
    /// Milliseconds the lease lasts unless renewed.
    lease_ms: u64,
    /// The job's leases so far, this one included.
    attempt: i64,
}

/// A lease named by its secret.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenewRequest {
    /// The lease's secret.
    lease: String,
    /// How far a long job has got (a game's analysis: the positions done), shown to those
    /// waiting for it.
    #[serde(default)]
    progress: Option<u64>,
}

/// A lease renewed.
#[derive(Serialize, ToSchema)]
pub struct RenewAnswer {
    /// Milliseconds the lease lasts from now unless renewed again.
    lease_ms: u64,
}

/// A job's answer.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    /// The lease's secret.
    lease: String,
    /// The engine's answer: JSON text as `tsubame analyse --json` writes it.
    answer: String,
}

/// A job the worker cannot answer.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GiveBackRequest {
    /// The lease's secret.
    lease: String,
    /// Why (the engine's refusal of the question).
    error: String,
}

/// Done.
#[derive(Serialize, ToSchema)]
pub struct Done {
    /// Always true.
    ok: bool,
}

impl From<JobError> for ApiError {
    fn from(error: JobError) -> ApiError {
        let text = error.to_string();
        match error {
            JobError::UnknownKey => ApiError::new(401, text),
            JobError::LeaseLost => ApiError::conflict(text),
            JobError::NoSuchJob => ApiError::not_found(text),
            JobError::Refused(_) => ApiError::rules(text),
            JobError::Failed(_) => ApiError::conflict(text),
            JobError::NoWorkers => ApiError::conflict(text),
            JobError::Database(e) => ApiError::storing("the engine job", e),
        }
    }
}

/// The queue, and the worker whose key the request carries.
async fn worker(hub: &Hub, headers: &HeaderMap) -> Result<(Arc<EngineJobs>, String), ApiError> {
    let jobs = hub.engine_jobs().ok_or(JobError::NoWorkers)?;
    let key = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .ok_or_else(|| {
            ApiError::new(
                401,
                "a worker's key is needed, as `Authorization: Bearer KEY`",
            )
        })?;
    let name = jobs.worker(key).await?;
    Ok((jobs, name))
}

#[utoipa::path(post, path = "/api/worker/lease", tag = "workers", request_body = LeaseRequest, responses((status = 200, description = "A job leased to the worker, or `job: null` when none came within the wait", body = LeaseAnswer), (status = 401, description = "No key, or a key unknown or revoked", body = ErrorBody), (status = 409, description = "The server runs its engine work itself", body = ErrorBody)))]
pub(crate) async fn lease(
    State(hub): State<Arc<Hub>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (jobs, name) = worker(&hub, &headers).await?;
    let request: LeaseRequest = parse_body(&body)?;
    let wait = Duration::from_millis(request.wait_ms.unwrap_or(20_000));
    let leased = jobs.lease(&name, wait, || hub.now()).await?;
    let lease_ms = jobs.settings().lease.as_millis() as u64;
    Ok(axum::Json(LeaseAnswer {
        job: leased.map(|job| LeasedJobBody {
            id: job.id,
            kind: job.kind,
            question: job.question,
            lease: job.lease_id,
            lease_ms,
            attempt: job.attempts,
        }),
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/worker/jobs/{id}/renew", tag = "workers", params(("id" = String, Path, description = "The job")), request_body = RenewRequest, responses((status = 200, description = "The lease renewed", body = RenewAnswer), (status = 401, description = "No key, or a key unknown or revoked", body = ErrorBody), (status = 409, description = "The lease no longer holds the job: stop searching it", body = ErrorBody)))]
pub(crate) async fn renew(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (jobs, _) = worker(&hub, &headers).await?;
    let request: RenewRequest = parse_body(&body)?;
    jobs.renew(&id, &request.lease, hub.now(), request.progress)
        .await?;
    Ok(axum::Json(RenewAnswer {
        lease_ms: jobs.settings().lease.as_millis() as u64,
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/worker/jobs/{id}/answer", tag = "workers", params(("id" = String, Path, description = "The job")), request_body = AnswerRequest, responses((status = 200, description = "The answer kept", body = Done), (status = 401, description = "No key, or a key unknown or revoked", body = ErrorBody), (status = 404, description = "No such job", body = ErrorBody), (status = 409, description = "The lease no longer holds the job (another worker has it, or it is answered)", body = ErrorBody), (status = 422, description = "The answer does not answer the question (an illegal move, a line not of the position, a mate that does not mate): the job goes to another worker", body = ErrorBody)))]
pub(crate) async fn answer(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (jobs, name) = worker(&hub, &headers).await?;
    let request: AnswerRequest = parse_body(&body)?;
    if let Err(error) = jobs
        .answer(&id, &request.lease, &request.answer, hub.now())
        .await
    {
        if let JobError::Refused(reason) = &error {
            tracing::warn!(worker = %name, job = %id, "a worker's answer refused: {reason}");
        }
        return Err(error.into());
    }
    Ok(axum::Json(Done { ok: true }).into_response())
}

#[utoipa::path(post, path = "/api/worker/jobs/{id}/give-back", tag = "workers", params(("id" = String, Path, description = "The job")), request_body = GiveBackRequest, responses((status = 200, description = "The job given back: another worker takes it, or after its last lease it is given up", body = Done), (status = 401, description = "No key, or a key unknown or revoked", body = ErrorBody), (status = 404, description = "No such job", body = ErrorBody), (status = 409, description = "The lease no longer holds the job", body = ErrorBody)))]
pub(crate) async fn give_back(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (jobs, name) = worker(&hub, &headers).await?;
    let request: GiveBackRequest = parse_body(&body)?;
    let reason: String = request.error.chars().take(500).collect();
    tracing::warn!(worker = %name, job = %id, "a worker could not answer: {reason}");
    jobs.give_back(&id, &request.lease, &reason).await?;
    Ok(axum::Json(Done { ok: true }).into_response())
}

/// The workers' routes.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/worker/lease", post(lease))
        .route("/api/worker/jobs/{id}/renew", post(renew))
        // A game's analysis is every position's line, as JSON text inside JSON: far past
        // the API's usual limit for a long game.
        .route(
            "/api/worker/jobs/{id}/answer",
            post(answer).layer(DefaultBodyLimit::max(ANSWER_BODY_LIMIT)),
        )
        .route("/api/worker/jobs/{id}/give-back", post(give_back))
}
