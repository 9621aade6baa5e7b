//! The API's routes put together: each handler module's own (games and records, accounts,
//! puzzles, moderation, challenges, tournaments) under `/api`, with what every answer shares:
//! the body limit, JSON errors, and no caching.

use crate::error::ApiError;
use crate::hub::Hub;
use crate::request::BODY_LIMIT;
use crate::responses::ErrorBody;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::sync::Arc;

async fn api_not_found() -> ApiError {
    ApiError::not_found("no such API endpoint")
}

/// The API's routes under `/api`, the WebSocket included.
pub fn routes(hub: Arc<Hub>) -> Router {
    Router::new()
        .merge(crate::api::routes())
        .merge(crate::account_api::routes())
        .merge(crate::puzzle_api::routes())
        .merge(crate::moderation_api::routes())
        .merge(crate::learn::routes())
        .merge(crate::challenge_api::routes())
        .merge(crate::arena::api::routes())
        .merge(crate::worker_api::routes())
        .route("/api/{*rest}", get(api_not_found).post(api_not_found))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::map_response(errors_as_json))
        // An answer may be the viewer's own (their challenges, blocks, reports, a game's
        // `you`): no shared cache keeps any, and no browser stores one on disk.
        .layer(
            tower_http::set_header::SetResponseHeaderLayer::if_not_present(
                header::CACHE_CONTROL,
                axum::http::HeaderValue::from_static("private, no-store"),
            ),
        )
        .with_state(hub)
}

/// Turns the framework's own plain-text rejections (a body over the limit, a malformed path or
/// query) into the API's JSON error form, so that every error a client sees has one shape.
async fn errors_as_json(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (_, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    (
        status,
        axum::Json(ErrorBody {
            error: message,
            code: None,
            params: None,
        }),
    )
        .into_response()
}
