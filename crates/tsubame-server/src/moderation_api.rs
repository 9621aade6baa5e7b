//! Blocking and reporting players (`/api/players/{name}/block|unblock|report`,
//! `/api/account/blocks`) and the administrators' tools (`/api/admin/…`): reading and resolving
//! reports, closing and reopening accounts, muting chat.

use crate::accounts::Account;
use crate::error::ApiError;
use crate::hub::Hub;
use crate::moderation::{
    Limited, MAX_BLOCKS, MAX_OPEN_REPORTS, MAX_REPORT_CHARS, NewReport, REPORT_REASONS,
};
use crate::request::parse_json;
use crate::responses::{
    BlockAnswer, BlockList, BlockedPlayer, ErrorBody, ModeratedAccount, ReportFiled, ReportList,
    ReportView,
};
use crate::viewer::{Viewer, account_named, administrator, logged_in_account};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rand::Rng;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::Arc;

/// The longest mute, in minutes: a year.
const MAX_MUTE_MINUTES: u64 = 525_600;

/// The most reports one list gives.
const MAX_REPORT_LIST: i64 = 200;

fn database(error: anyhow::Error) -> ApiError {
    ApiError::database("the change", error)
}

/// Another player than the viewer, by name: 404 for nobody, 400 for oneself.
async fn other_player(
    hub: &Hub,
    me: &Account,
    name: &str,
    action: &str,
) -> Result<Account, ApiError> {
    let other = account_named(hub, name).await?;
    if other.id == me.id {
        return Err(
            ApiError::bad_request(format!("you cannot {action} yourself"))
                .code("player.yourself")
                .param("action", action),
        );
    }
    Ok(other)
}

#[utoipa::path(post, path = "/api/players/{name}/block", tag = "accounts", params(("name" = String, Path, description = "The user name")), responses((status = 200, description = "The player is blocked: no games with the viewer from their side, none of their chat lines shown to the viewer", body = BlockAnswer), (status = 400, description = "Oneself", body = ErrorBody), (status = 403, description = "Not logged in", body = ErrorBody), (status = 404, description = "No such player", body = ErrorBody), (status = 409, description = "Too many players blocked", body = ErrorBody)))]
pub(crate) async fn block(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "block a player")?;
    let other = other_player(&hub, me, &name, "block").await?;
    let blocked = hub
        .store()
        .block(&me.id, &other.id, hub.now() as i64, MAX_BLOCKS)
        .await
        .map_err(database)?;
    if blocked == Limited::TooMany {
        return Err(ApiError::conflict(format!(
            "you block {MAX_BLOCKS} players already: unblock one first"
        ))
        .code("block.too-many")
        .param("count", MAX_BLOCKS));
    }
    Ok(axum::Json(BlockAnswer {
        username: other.username,
        blocked: true,
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/players/{name}/unblock", tag = "accounts", params(("name" = String, Path, description = "The user name")), responses((status = 200, description = "The player is no longer blocked", body = BlockAnswer), (status = 403, description = "Not logged in", body = ErrorBody), (status = 404, description = "No such player", body = ErrorBody)))]
pub(crate) async fn unblock(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "unblock a player")?;
    let other = other_player(&hub, me, &name, "unblock").await?;
    hub.store()
        .unblock(&me.id, &other.id)
        .await
        .map_err(database)?;
    Ok(axum::Json(BlockAnswer {
        username: other.username,
        blocked: false,
    })
    .into_response())
}

#[utoipa::path(get, path = "/api/account/blocks", tag = "accounts", responses((status = 200, description = "The players the account blocks, newest first", body = BlockList), (status = 403, description = "Not logged in", body = ErrorBody)))]
pub(crate) async fn blocks(
    State(hub): State<Arc<Hub>>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "see whom you block")?;
    let blocked = hub
        .store()
        .blocked_names(&me.id)
        .await
        .map_err(database)?
        .into_iter()
        .map(|(username, since)| BlockedPlayer { username, since })
        .collect();
    Ok(axum::Json(BlockList { blocked }).into_response())
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReportRequest {
    /// `cheating`, `abuse`, `name` or `other`.
    reason: String,
    /// What happened, up to 1,000 characters.
    text: String,
    /// The game it is about.
    #[serde(default)]
    game_id: Option<String>,
}

#[utoipa::path(post, path = "/api/players/{name}/report", tag = "accounts", params(("name" = String, Path, description = "The user name")), request_body = ReportRequest, responses((status = 201, description = "The report waits for an administrator", body = ReportFiled), (status = 400, description = "A malformed report, or oneself", body = ErrorBody), (status = 403, description = "Not logged in", body = ErrorBody), (status = 404, description = "No such player or game", body = ErrorBody), (status = 409, description = "This player is reported already, or too many reports wait", body = ErrorBody), (status = 503, description = "The database cannot save now: nothing was changed", body = ErrorBody)))]
pub(crate) async fn report(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "report a player")?;
    let request: ReportRequest =
        parse_json(&body, "{\"reason\": ..., \"text\": ..., \"game_id\": ...}")?;
    let reason = REPORT_REASONS
        .iter()
        .find(|r| **r == request.reason)
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "reason {:?} is not one of {}",
                request.reason.chars().take(40).collect::<String>(),
                REPORT_REASONS.join(", ")
            ))
        })?;
    let text = crate::chat::clean_text(&request.text);
    if text.is_empty() {
        return Err(
            ApiError::bad_request("say what happened in the report's text").code("report.empty"),
        );
    }
    if text.chars().count() > MAX_REPORT_CHARS {
        return Err(ApiError::bad_request(format!(
            "a report of at most {MAX_REPORT_CHARS} characters"
        ))
        .code("report.too-long")
        .param("count", MAX_REPORT_CHARS));
    }
    let other = other_player(&hub, me, &name, "report").await?;
    let store = hub.store();
    if let Some(game) = &request.game_id {
        let exists = game.len() <= 64 && store.game(game).await.map_err(database)?.is_some();
        if !exists {
            return Err(ApiError::not_found(format!(
                "no game with id {:?}",
                game.chars().take(64).collect::<String>()
            ))
            .code("game.unknown"));
        }
    }
    let id = format!(
        "r{:012x}",
        rand::thread_rng().r#gen::<u64>() & 0xffff_ffff_ffff
    );
    let filed = store
        .insert_report(
            &NewReport {
                id: &id,
                reporter_id: &me.id,
                reported_id: &other.id,
                reason,
                text: &text,
                game_id: request.game_id.as_deref(),
                now: hub.now() as i64,
            },
            MAX_OPEN_REPORTS,
        )
        .await
        .map_err(database)?;
    match filed {
        Limited::Done => {}
        Limited::Already => {
            return Err(ApiError::conflict(format!(
                "your report of {} waits for an administrator already",
                other.username
            ))
            .code("report.waiting")
            .param("name", &other.username));
        }
        Limited::TooMany => {
            return Err(ApiError::conflict(format!(
                "{MAX_OPEN_REPORTS} of your reports wait for an administrator already"
            ))
            .code("report.too-many")
            .param("count", MAX_OPEN_REPORTS));
        }
    }
    tracing::info!(
        reporter = me.username,
        reported = other.username,
        reason,
        "player reported"
    );
    Ok((StatusCode::CREATED, axum::Json(ReportFiled { id })).into_response())
}

#[utoipa::path(get, path = "/api/admin/reports", tag = "accounts", params(("status" = Option<String>, Query, description = "open (the default) or resolved"), ("limit" = Option<usize>, Query, description = "At most this many (200)")), responses((status = 200, description = "Reports: open ones oldest first, resolved ones newest first", body = ReportList), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "Not an administrator", body = ErrorBody)))]
pub(crate) async fn reports(
    State(hub): State<Arc<Hub>>,
    Query(query): Query<HashMap<String, String>>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    administrator(&viewer)?;
    let open = match query.get("status").map(String::as_str) {
        None | Some("open") => true,
        Some("resolved") => false,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "status {:?} is not open or resolved",
                other.chars().take(40).collect::<String>()
            )));
        }
    };
    let limit = crate::query::limit_of(&query)?.min(MAX_REPORT_LIST as usize) as i64;
    let reports = hub
        .store()
        .reports(open, limit)
        .await
        .map_err(database)?
        .into_iter()
        .map(|r| ReportView {
            id: r.id,
            reporter: r.reporter,
            reported: r.reported,
            reason: r.reason,
            text: r.text,
            game_id: r.game_id,
            created_at: r.created_at,
            resolved_at: (r.resolved_at != 0).then_some(r.resolved_at),
            resolved_by: r.resolved_by,
            resolution: r.resolution,
            reported_closed: r.reported_closed,
            reported_muted_until: (r.reported_muted_until > hub.now() as i64)
                .then_some(r.reported_muted_until),
        })
        .collect();
    Ok(axum::Json(ReportList { reports }).into_response())
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Resolution {
    /// What was done, up to 300 characters.
    resolution: String,
}

#[utoipa::path(post, path = "/api/admin/reports/{id}/resolve", tag = "accounts", params(("id" = String, Path, description = "The report's id")), request_body = Resolution, responses((status = 200, description = "The report is resolved", body = ReportFiled), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "Not an administrator", body = ErrorBody), (status = 404, description = "No open report of that id", body = ErrorBody)))]
pub(crate) async fn resolve(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let me = administrator(&viewer)?;
    let request: Resolution = parse_json(&body, "{\"resolution\": ...}")?;
    let resolution = crate::chat::clean_text(&request.resolution);
    if resolution.is_empty() || resolution.chars().count() > 300 {
        return Err(
            ApiError::bad_request("say what was done, in 1 to 300 characters")
                .code("report.resolution-length"),
        );
    }
    let resolved = id.len() <= 64
        && hub
            .store()
            .resolve_report(&id, &me.username, &resolution, hub.now() as i64)
            .await
            .map_err(database)?;
    if !resolved {
        return Err(ApiError::not_found(format!(
            "no open report with id {:?}",
            id.chars().take(64).collect::<String>()
        ))
        .code("report.unknown"));
    }
    Ok(axum::Json(ReportFiled { id }).into_response())
}

/// What an administrator does to an account.
enum Measure {
    Close,
    Reopen,
    Mute,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MuteRequest {
    /// For how long, 0 (unmute) to 525,600 (a year).
    minutes: u64,
}

async fn moderate(
    hub: &Hub,
    viewer: &Viewer,
    name: &str,
    measure: Measure,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let me = administrator(viewer)?;
    let account = account_named(hub, name).await?;
    let store = hub.store();
    let now = hub.now() as i64;
    match measure {
        Measure::Close | Measure::Reopen => {
            if account.id == me.id {
                return Err(ApiError::bad_request("you cannot close your own account")
                    .code("admin.close-self"));
            }
            let closed_at = if matches!(measure, Measure::Close) {
                // Its sessions end, and every socket and stream they opened closes.
                hub.accounts()
                    .close_by_administrator(&account.username, now as u64)
                    .await?;
                hub.end_challenges_of(&account.id).await;
                now.max(1)
            } else {
                store
                    .set_closed(&account.username, 0, "")
                    .await
                    .map_err(database)?;
                0
            };
            tracing::info!(
                admin = me.username,
                account = account.username,
                closed = closed_at != 0,
                "account closed or reopened"
            );
        }
        Measure::Mute => {
            let request: MuteRequest = parse_json(body, "{\"minutes\": ...}")?;
            if request.minutes > MAX_MUTE_MINUTES {
                return Err(ApiError::bad_request(format!(
                    "a mute of at most {MAX_MUTE_MINUTES} minutes (a year)"
                ))
                .code("admin.mute-too-long")
                .param("minutes", MAX_MUTE_MINUTES));
            }
            let until = if request.minutes == 0 {
                0
            } else {
                now.saturating_add(request.minutes as i64 * 60_000)
            };
            store
                .set_muted_until(&account.username, until)
                .await
                .map_err(database)?;
            tracing::info!(
                admin = me.username,
                account = account.username,
                minutes = request.minutes,
                "chat muted"
            );
        }
    }
    let row = store
        .account_by_name(&account.username)
        .await
        .map_err(database)?
        .ok_or_else(|| {
            ApiError::not_found(format!("no player is called {name:?}"))
                .code("player.unknown")
                .param("name", name)
        })?;
    Ok(axum::Json(ModeratedAccount {
        username: row.name,
        closed: row.closed_at != 0,
        muted_until: (row.muted_until > now).then_some(row.muted_until),
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/admin/players/{name}/close", tag = "accounts", params(("name" = String, Path, description = "The user name")), responses((status = 200, description = "The account is closed: its sessions end and it cannot log in; its games stay", body = ModeratedAccount), (status = 400, description = "One's own account", body = ErrorBody), (status = 403, description = "Not an administrator", body = ErrorBody), (status = 404, description = "No such player", body = ErrorBody)))]
pub(crate) async fn close(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    moderate(&hub, &viewer, &name, Measure::Close, &body).await
}

#[utoipa::path(post, path = "/api/admin/players/{name}/reopen", tag = "accounts", params(("name" = String, Path, description = "The user name")), responses((status = 200, description = "The account is open again", body = ModeratedAccount), (status = 403, description = "Not an administrator", body = ErrorBody), (status = 404, description = "No such player", body = ErrorBody)))]
pub(crate) async fn reopen(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    moderate(&hub, &viewer, &name, Measure::Reopen, &body).await
}

#[utoipa::path(post, path = "/api/admin/players/{name}/mute", tag = "accounts", params(("name" = String, Path, description = "The user name")), request_body = MuteRequest, responses((status = 200, description = "The account's chat is muted until the time given (0 minutes: unmuted)", body = ModeratedAccount), (status = 400, description = "A malformed request", body = ErrorBody), (status = 403, description = "Not an administrator", body = ErrorBody), (status = 404, description = "No such player", body = ErrorBody)))]
pub(crate) async fn mute(
    State(hub): State<Arc<Hub>>,
    Path(name): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    moderate(&hub, &viewer, &name, Measure::Mute, &body).await
}

/// The routes of blocks, reports and the administrators' tools.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/players/{name}/block", post(block))
        .route("/api/players/{name}/unblock", post(unblock))
        .route("/api/players/{name}/report", post(report))
        .route("/api/account/blocks", get(blocks))
        .route("/api/admin/reports", get(reports))
        .route("/api/admin/reports/{id}/resolve", post(resolve))
        .route("/api/admin/players/{name}/close", post(close))
        .route("/api/admin/players/{name}/reopen", post(reopen))
        .route("/api/admin/players/{name}/mute", post(mute))
}
