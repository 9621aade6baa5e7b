//! The API's one error type: an HTTP status, a sentence for the client and, for 429, the
//! wait. Every layer that refuses a request (the hub, accounts, chat, the engine scheduler,
//! the handlers) answers with it; it knows nothing of them.

use crate::game::RulesError;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error for the API: an HTTP status and a sentence for the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code.
    pub status: u16,
    /// What was wrong.
    pub message: String,
    /// For 429: how many seconds until the same request is let through (`Retry-After`).
    pub retry_after_secs: Option<u64>,
}

impl ApiError {
    /// 400: the request itself is malformed.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
            retry_after_secs: None,
        }
    }
    /// 403: the token does not hold the seat.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 403,
            message: message.into(),
            retry_after_secs: None,
        }
    }
    /// 404: no such game.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: message.into(),
            retry_after_secs: None,
        }
    }
    /// 409: the game's state does not allow it now.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 409,
            message: message.into(),
            retry_after_secs: None,
        }
    }
    /// 422: well-formed, but the rules refuse it.
    pub fn rules(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 422,
            message: message.into(),
            retry_after_secs: None,
        }
    }
    /// The one rule for what the rules refuse: rule options that are not options are a
    /// malformed request (400), a start position or a move the rules refuse is 422, wherever
    /// it is sent (creating a game, analysing, replaying).
    pub fn from_rules(error: RulesError) -> ApiError {
        match error {
            RulesError::Options(_) => ApiError::bad_request(error.to_string()),
            RulesError::Start(_) | RulesError::Move(_) | RulesError::Refused(_) => {
                ApiError::rules(error.to_string())
            }
        }
    }

    /// 429: too much at once; the client may try again in a couple of seconds.
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 429,
            message: message.into(),
            retry_after_secs: None,
        }
    }

    /// 500: the server could not do it (the database failed); nothing changed.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            message: message.into(),
            retry_after_secs: None,
        }
    }

    /// 503: the server cannot do it now (the database refuses writes); nothing changed, and
    /// the same request may succeed in a moment.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 503,
            message: message.into(),
            retry_after_secs: None,
        }
    }

    /// A failed write of `what` (`"the move"`): 503 with a sentence for the player when the
    /// database refuses writes ([`WritesRefused`]), else 500. Nothing was stored either way.
    pub fn storing(what: &str, error: anyhow::Error) -> ApiError {
        match error.downcast_ref::<WritesRefused>() {
            Some(refused) => ApiError::unavailable(format!(
                "the site cannot save {what} right now: the database refuses writes ({}); \
                 nothing was changed, try again in a moment",
                refused.reason
            )),
            None => ApiError::internal(format!("could not store {what}: {error}")),
        }
    }

    /// 429 with the real wait: the limiter lets the same request through after `wait`
    /// (rounded up to whole seconds, at least one).
    pub fn busy_for(message: impl Into<String>, wait: std::time::Duration) -> ApiError {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        ApiError {
            status: 429,
            message: format!("{} (try again in {} s)", message.into(), seconds.max(1)),
            retry_after_secs: Some(seconds.max(1)),
        }
    }

    /// Whether this is the database refusing writes: already logged once by the store, so
    /// not worth a line per game or request.
    pub fn is_unavailable(&self) -> bool {
        self.status == 503
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        let mut response = (status, axum::Json(json!({ "error": self.message }))).into_response();
        if status == StatusCode::TOO_MANY_REQUESTS {
            // Limits without a known wait (a full queue) suggest two seconds.
            let seconds = self.retry_after_secs.unwrap_or(2);
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// A write the database refused for a reason of its own, not the write's: the disk is full,
/// an I/O error, the database is read-only, locked or gone. Nothing was stored; the server
/// answers 503 while writes fail this way and takes them again by itself once they succeed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the database cannot take writes right now ({reason})")]
pub struct WritesRefused {
    /// What the database said.
    pub reason: String,
}
