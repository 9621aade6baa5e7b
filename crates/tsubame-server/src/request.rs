//! What the API's handlers share in reading a request and closing a socket: the body's size
//! limit and JSON, rule options, the game and side a request names, and the closing frames of
//! a socket.

use crate::accounts::{SESSION_ENDED_CLOSE, SESSION_ENDED_REASON};
use crate::error::ApiError;
use crate::game::HostedGame;
use crate::hub::{Credential, GameRoom, Hub};
use crate::viewer::Viewer;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, close_code};
use axum::extract::{FromRequest, FromRequestParts, Path};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tsubame_rules::{Color, Variant};
use utoipa::ToSchema;

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A JSON request body (an empty one read as `{}`), or 400 naming what was wrong.
pub(crate) fn parse_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    let body: &[u8] = if body.is_empty() { b"{}" } else { body };
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("bad request body: {e}")))
}

/// Rule options as `"name=value,..."` or as an object of names to values.
#[derive(Deserialize, Default, ToSchema)]
#[serde(untagged)]
pub(crate) enum OptionsInput {
    #[default]
    None,
    Text(String),
    Map(BTreeMap<String, Value>),
}

impl OptionsInput {
    pub(crate) fn to_text(&self) -> Result<String, ApiError> {
        match self {
            OptionsInput::None => Ok(String::new()),
            OptionsInput::Text(text) => Ok(text.clone()),
            OptionsInput::Map(map) => map
                .iter()
                .map(|(name, value)| match value {
                    Value::String(s) => Ok(format!("{name}={s}")),
                    Value::Number(n) => Ok(format!("{name}={n}")),
                    Value::Bool(b) => Ok(format!("{name}={}", if *b { "on" } else { "off" })),
                    _ => Err(ApiError::bad_request(format!(
                        "option {name:?}: the value must be text, a number or true/false"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|pairs| pairs.join(",")),
        }
    }
}

/// The creator's seat a request asks for: `sente`, `gote`, or `random` (drawn now).
pub(crate) fn creator_side_of(text: &str) -> Result<Color, ApiError> {
    if text == "random" {
        return Ok(Color::ALL[usize::from(rand::random::<bool>())]);
    }
    Color::from_name(text).ok_or_else(|| {
        ApiError::bad_request(format!("side {text:?} is not one of sente, gote, random"))
    })
}

/// The game a request names, or 400 listing the games.
pub(crate) fn variant_of(name: &str) -> Result<Variant, ApiError> {
    name.parse()
        .map_err(|e: tsubame_rules::UnknownVariant| ApiError::bad_request(e.to_string()))
}

/// Why the server closes a socket, each with the close frame the client reads.
pub(crate) enum SocketClose<'a> {
    /// The session that opened the socket ended (4001): the client logs in again.
    SessionEnded,
    /// The server is stopping (1001, going away): the client reconnects, to this server once
    /// it is back or to another instance.
    ServerStopping,
    /// A frame past the limit (1009) or a broken one (1002).
    BrokenFrame(&'a axum::Error),
}

impl SocketClose<'_> {
    fn frame(&self) -> CloseFrame {
        match self {
            SocketClose::SessionEnded => CloseFrame {
                code: SESSION_ENDED_CLOSE,
                reason: SESSION_ENDED_REASON.into(),
            },
            SocketClose::ServerStopping => CloseFrame {
                code: close_code::AWAY,
                reason: "the server is restarting".into(),
            },
            SocketClose::BrokenFrame(error) => {
                if error.to_string().contains("Space limit exceeded") {
                    CloseFrame {
                        code: close_code::SIZE,
                        reason: "message too big: at most 64 KiB".into(),
                    }
                } else {
                    CloseFrame {
                        code: close_code::PROTOCOL,
                        reason: "protocol error".into(),
                    }
                }
            }
        }
    }
}

/// How long the server waits for a client to take its close frame.
const CLOSE_SEND_LIMIT: Duration = Duration::from_secs(1);

/// How long the server reads a closed socket for the client's answering close.
const CLOSE_HANDSHAKE_LIMIT: Duration = Duration::from_secs(2);

/// Closes a socket with the closing handshake: the close frame, then what the client still
/// sends read and dropped until its own close comes (briefly). Dropping the connection while
/// the client's messages lie unread makes the kernel reset it, and a reset can reach the
/// client before the close frame it has yet to read: it would see a broken connection, not
/// why it was closed. Nothing read after the close acts; a client that does not read or
/// answer is waited for a few seconds at most.
pub(crate) async fn close_socket<S, R, E>(sink: &mut S, stream: &mut R, why: SocketClose<'_>)
where
    S: futures_util::Sink<Message> + Unpin,
    R: futures_util::Stream<Item = Result<Message, E>> + Unpin,
{
    let sent = tokio::time::timeout(
        CLOSE_SEND_LIMIT,
        sink.send(Message::Close(Some(why.frame()))),
    )
    .await;
    if !matches!(sent, Ok(Ok(()))) || matches!(why, SocketClose::BrokenFrame(_)) {
        // Nothing more comes from a broken stream, and a stuck client is not waited for.
        return;
    }
    let _ = tokio::time::timeout(CLOSE_HANDSHAKE_LIMIT, async {
        while let Some(Ok(message)) = stream.next().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// A JSON body of the `shape` named, or 400 saying what is wrong with it.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(
    body: &Bytes,
    shape: &str,
) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("bad request body: {e} (expected {shape})")))
}

pub(crate) fn ok<T: Serialize>(value: &T) -> Response {
    axum::Json(value).into_response()
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PositionRequest {
    pub(crate) variant: String,
    #[serde(default)]
    pub(crate) options: OptionsInput,
    #[serde(default)]
    pub(crate) sfen: Option<String>,
    #[serde(default)]
    pub(crate) moves: Vec<String>,
    #[serde(default)]
    pub(crate) depth: Option<u32>,
    #[serde(default)]
    pub(crate) movetime_ms: Option<u64>,
    /// How many best lines to return (1 to 10).
    #[serde(default)]
    pub(crate) lines: Option<u32>,
}

/// A token from the `Authorization: Bearer` header or the body.
pub(crate) fn token_of(headers: &HeaderMap, body_token: Option<String>) -> Option<String> {
    body_token.or_else(|| {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string)
    })
}

/// A request body that may carry the seat token (else it comes as `Authorization: Bearer`).
pub(crate) trait CarriesToken {
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
pub(crate) use carries_token;

/// A request that acts in a game for whoever holds a seat: the game (found in memory or the
/// database), who asks (the login, and a seat token from the body or `Authorization`) and the
/// body's other fields. Taken in the order the answers depend on: the path, the login (a
/// cross-site request is refused), the body (malformed: 400), then the game (404).
pub(crate) struct SeatRequest<T> {
    pub(crate) hub: Arc<Hub>,
    pub(crate) slot: Arc<GameRoom>,
    pub(crate) viewer: Viewer,
    pub(crate) token: Option<String>,
    pub(crate) body: T,
}

impl<T> SeatRequest<T> {
    /// What the request presents to act for a seat.
    pub(crate) fn credential(&self) -> Credential<'_> {
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

pub(crate) fn game_for(request: &PositionRequest) -> Result<HostedGame, ApiError> {
    let variant = variant_of(&request.variant)?;
    let options = request.options.to_text()?;
    if request.moves.len() > 5000 {
        return Err(ApiError::bad_request("at most 5000 moves"));
    }
    HostedGame::new(variant, &options, request.sfen.as_deref().map(str::trim))
        .map_err(ApiError::from_rules)
}
