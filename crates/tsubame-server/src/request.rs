//! What the API's handlers share in reading a request and closing a socket: the body's size
//! limit and JSON, rule options, the game and side a request names, and the closing frames of
//! a socket.

use crate::accounts::{SESSION_ENDED_CLOSE, SESSION_ENDED_REASON};
use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, close_code};
use futures_util::SinkExt;
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

/// Closes a socket over a frame past the limit (1009) or a broken frame (1002): the client
/// hears why before the connection closes.
pub(crate) async fn close_for_broken_frame<S>(sink: &mut S, error: &axum::Error)
where
    S: futures_util::Sink<Message> + Unpin,
{
    let too_big = error.to_string().contains("Space limit exceeded");
    let close = CloseFrame {
        code: if too_big {
            close_code::SIZE
        } else {
            close_code::PROTOCOL
        },
        reason: if too_big {
            "message too big: at most 64 KiB".into()
        } else {
            "protocol error".into()
        },
    };
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        sink.send(Message::Close(Some(close))),
    )
    .await;
}

/// Closes a socket whose session ended (4001), without waiting long for a client that does
/// not read.
pub(crate) async fn close_for_ended_session<S>(sink: &mut S)
where
    S: futures_util::Sink<Message> + Unpin,
{
    let close = CloseFrame {
        code: SESSION_ENDED_CLOSE,
        reason: SESSION_ENDED_REASON.into(),
    };
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        sink.send(Message::Close(Some(close))),
    )
    .await;
}
