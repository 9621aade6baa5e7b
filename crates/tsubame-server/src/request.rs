//! What the API's handlers share in reading a request and closing a socket: the body's size
//! limit and JSON, rule options, the game and side a request names, and the closing frames of
//! a socket.

use crate::accounts::{SESSION_ENDED_CLOSE, SESSION_ENDED_REASON};
use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, close_code};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;
use tsubame_rules::Variant;
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
pub(crate) fn creator_side_of(text: &str) -> Result<usize, ApiError> {
    match text {
        "sente" => Ok(0),
        "gote" => Ok(1),
        "random" => Ok(usize::from(rand::random::<bool>())),
        other => Err(ApiError::bad_request(format!(
            "side {other:?} is not one of sente, gote, random"
        ))),
    }
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
