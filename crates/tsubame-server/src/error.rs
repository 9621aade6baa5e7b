//! The API's one error type: an HTTP status, a sentence for the client and, for 429, the
//! wait; for a refusal a player can meet, a code and its parameters, from which the web UI
//! writes the sentence in the visitor's language (`web/src/messages/errors.json`). Every layer
//! that refuses a request (the hub, accounts, chat, the engine scheduler, the handlers)
//! answers with it; it knows nothing of them.

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
    /// What kind of refusal this is (`game.not-your-turn`), for a client to word it in its
    /// own language; none for a malformed request no page sends.
    pub code: Option<&'static str>,
    /// The values its sentence names (`name`, `seconds`, ...), as text.
    pub params: Vec<(&'static str, String)>,
}

impl ApiError {
    /// An error of `status` with the sentence `message`, without a code.
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after_secs: None,
            code: None,
            params: Vec::new(),
        }
    }

    /// The same error with its code.
    #[must_use]
    pub fn code(mut self, code: &'static str) -> ApiError {
        self.code = Some(code);
        self
    }

    /// The same error with a value its sentence names.
    #[must_use]
    pub fn param(mut self, key: &'static str, value: impl ToString) -> ApiError {
        self.params.push((key, value.to_string()));
        self
    }

    /// 400: the request itself is malformed.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }
    /// 403: the token does not hold the seat.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(403, message)
    }
    /// 404: no such game.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, message)
    }
    /// 409: the game's state does not allow it now.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(409, message)
    }
    /// 422: well-formed, but the rules refuse it.
    pub fn rules(message: impl Into<String>) -> ApiError {
        ApiError::new(422, message)
    }
    /// The one rule for what the rules refuse: rule options that are not options are a
    /// malformed request (400), a start position or a move the rules refuse is 422, wherever
    /// it is sent (creating a game, analysing, replaying).
    pub fn from_rules(error: RulesError) -> ApiError {
        match error {
            RulesError::Options(_) => ApiError::bad_request(error.to_string())
                .code("rules.options")
                .param("detail", &error),
            RulesError::Start(_) | RulesError::Move(_) | RulesError::Refused(_) => {
                ApiError::rules(error.to_string())
                    .code("rules.refused")
                    .param("detail", &error)
            }
        }
    }

    /// 429: too much at once; the client may try again in a couple of seconds.
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError::new(429, message)
    }

    /// 500: the server could not do it (the database failed); nothing changed.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, message)
    }

    /// 503: the server cannot do it now (the database refuses writes); nothing changed, and
    /// the same request may succeed in a moment.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(503, message)
    }

    /// A failed write of `what` (`"the move"`): 503 with a sentence for the player when the
    /// database refuses writes ([`WritesRefused`]), else 500. Nothing was stored either way.
    pub fn storing(what: &str, error: anyhow::Error) -> ApiError {
        match error.downcast_ref::<WritesRefused>() {
            Some(refused) => ApiError::unavailable(format!(
                "the site cannot save {what} right now: the database refuses writes ({}); \
                 nothing was changed, try again in a moment",
                refused.reason
            ))
            .code("storing.refused")
            .param("what", what)
            .param("reason", &refused.reason),
            None => ApiError::internal(format!("could not store {what}: {error}")),
        }
    }

    /// A failed read or write of `what` (`"your progress"`): 503 while the database refuses
    /// writes ([`WritesRefused`]), else 500.
    pub fn database(what: &str, error: anyhow::Error) -> ApiError {
        if error.is::<WritesRefused>() {
            return ApiError::storing(what, error);
        }
        ApiError::internal(format!("database: {error}"))
    }

    /// 429 with the real wait: the limiter lets the same request through after `wait`
    /// (rounded up to whole seconds, at least one).
    pub fn busy_for(message: impl Into<String>, wait: std::time::Duration) -> ApiError {
        let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
        let mut error = ApiError::new(
            429,
            format!("{} (try again in {seconds} s)", message.into()),
        )
        .param("seconds", seconds);
        error.retry_after_secs = Some(seconds);
        error
    }

    /// The code a client words the refusal by (a server fault is one refusal to the player,
    /// whatever caused it: `internal`), and the values its sentence names.
    pub fn code_and_params(
        &self,
    ) -> (
        Option<&'static str>,
        Option<serde_json::Map<String, serde_json::Value>>,
    ) {
        let code = self
            .code
            .or((self.status >= 500 && self.status != 503).then_some("internal"));
        let params = (code.is_some() && !self.params.is_empty()).then(|| {
            self.params
                .iter()
                .map(|(key, value)| ((*key).to_string(), json!(value)))
                .collect()
        });
        (code, params)
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
        let mut body = json!({ "error": self.message });
        let (code, params) = self.code_and_params();
        if let Some(code) = code {
            body["code"] = json!(code);
        }
        if let Some(params) = params {
            body["params"] = params.into();
        }
        let mut response = (status, axum::Json(body)).into_response();
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(error: ApiError) -> serde_json::Value {
        let response = error.into_response();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap_or_default();
        serde_json::from_slice(&bytes).unwrap_or_default()
    }

    #[tokio::test]
    async fn a_refusal_carries_its_code_and_values_and_a_fault_is_internal() {
        let taken = ApiError::conflict("the name ann is taken")
            .code("signup.name-taken")
            .param("name", "ann");
        assert_eq!(
            body_of(taken).await,
            json!({"error": "the name ann is taken", "code": "signup.name-taken", "params": {"name": "ann"}})
        );
        let waited = ApiError::busy_for(
            "too many chat lines",
            std::time::Duration::from_millis(1500),
        )
        .code("chat.too-fast");
        assert_eq!(
            body_of(waited).await,
            json!({"error": "too many chat lines (try again in 2 s)", "code": "chat.too-fast", "params": {"seconds": "2"}})
        );
        assert_eq!(
            body_of(ApiError::internal("disk on fire")).await["code"],
            "internal"
        );
        // A malformed request no page sends has no code.
        assert_eq!(
            body_of(ApiError::bad_request("bad request body")).await,
            json!({"error": "bad request body"})
        );
        let refused = ApiError::storing(
            "the move",
            WritesRefused {
                reason: "disk full".into(),
            }
            .into(),
        );
        assert_eq!(refused.status, 503);
        assert_eq!(refused.code, Some("storing.refused"));
    }
}
