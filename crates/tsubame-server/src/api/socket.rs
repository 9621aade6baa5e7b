//! A game's WebSocket: the game and its chat as they change, and the moves, offers and lines
//! its viewer sends.

use crate::accounts::{Account, SessionWatch, session_ended};
use crate::chat::Room;
use crate::error::ApiError;
use crate::hub::{Credential, GameRoom, Hub};
use crate::request::{BODY_LIMIT, SocketClose, close_socket};
use crate::responses::{ErrorBody, SocketMessage};
use crate::viewer::Viewer;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use utoipa::ToSchema;

/// The WebSocket of a game. It starts as a spectator's; an `auth` message with the seat's
/// token makes it the seat's. The token never travels in the URL, where proxies log it: a
/// `?token=` is refused.
#[utoipa::path(get, path = "/api/games/{id}/ws", tag = "play", params(("id" = String, Path, description = "The game's id")), responses((status = 101, description = "The game's WebSocket: the server sends SocketMessage, the client SocketCommand"), (status = 400, description = "A malformed request", body = ErrorBody), (status = 404, description = "No such game", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn game_socket(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    if query.contains_key("token") {
        return Err(ApiError::bad_request(
            "a seat token does not go in the URL (proxies log it): \
             send {\"type\": \"auth\", \"token\": ...} once connected",
        ));
    }
    let slot = hub.find(&id).await?;
    let viewer = Viewer::of_socket(&hub, &headers).await?;
    let session = viewer.session_watch(&hub);
    let account = viewer.account;
    // Small buffers: thousands of idle games must not each hold the default 128 KiB.
    Ok(upgrade
        .read_buffer_size(4096)
        .write_buffer_size(4096)
        .max_message_size(BODY_LIMIT)
        // A frame's length is checked from its header, before its payload is read: a client
        // cannot make the server hold a 10 MB frame to learn it is too big.
        .max_frame_size(BODY_LIMIT)
        .on_upgrade(move |socket| serve_socket(hub, slot, account, session, socket)))
}

#[derive(Deserialize, ToSchema)]
pub(crate) struct SocketCommand {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, rename = "move")]
    usi: Option<String>,
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    id: Option<Value>,
}

async fn state_text(hub: &Hub, slot: &GameRoom) -> String {
    let live = slot.game.lock().await;
    SocketMessage::State {
        game: Box::new(hub.view_of(&live, true)),
    }
    .text()
}

/// The chat lines a socket's viewer sees, as one message.
async fn chat_history_text(hub: &Hub, slot: &GameRoom, who: &Credential<'_>) -> Option<String> {
    let (room, lines) = hub.chat_history(slot, who).await.ok()?;
    Some(SocketMessage::ChatHistory { room, lines }.text())
}

/// Serves a game's socket; `account` is the logged-in viewer's (from the upgrade's cookie),
/// whose seat the socket acts for without an `auth`, until its `session` ends: then the
/// socket closes (4001), and nothing it sent afterwards acts.
async fn serve_socket(
    hub: Arc<Hub>,
    slot: Arc<GameRoom>,
    account: Option<Account>,
    mut session: Option<SessionWatch>,
    socket: WebSocket,
) {
    let _open = crate::metrics::GaugeGuard::hold(&hub.metrics().websockets);
    let (mut sink, mut stream) = socket.split();
    let mut shutdown = hub.shutdown_signal();
    // Subscribe before the snapshot so no change falls between the two.
    let mut events = slot.events.subscribe();
    let mut chat = slot.chat.subscribe();
    let mut token: Option<String> = None;
    let account_id = account.as_ref().map(|a| a.id.as_str());
    // Pings keep a quiet socket (a spectator's, a player thinking) above the idle limit of the
    // connection; a client that stops answering them is closed by that limit.
    let mut pings = tokio::time::interval(hub.settings().connections.idle / 3);
    pings.tick().await;
    let seat = hub
        .seat_name(
            &slot,
            &Credential {
                token: None,
                account: account_id,
            },
        )
        .await;
    // The players whose chat lines the viewer blocks, as of the socket's opening.
    let blocked: std::collections::HashSet<String> = match &account {
        Some(viewer) => hub
            .store()
            .blocked_names(&viewer.id)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|(name, _)| name)
            .collect(),
        None => Default::default(),
    };
    // The chat room this socket sees: the players' once it holds a seat.
    let mut room = if seat.is_some() {
        Room::Players
    } else {
        Room::Spectators
    };
    let hello = SocketMessage::Hello { id: None, seat }.text();
    if sink.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    if sink
        .send(Message::Text(state_text(&hub, &slot).await.into()))
        .await
        .is_err()
    {
        return;
    }
    let viewer = Credential {
        token: None,
        account: account_id,
    };
    if let Some(history) = chat_history_text(&hub, &slot, &viewer).await
        && sink.send(Message::Text(history.into())).await.is_err()
    {
        return;
    }
    loop {
        if *shutdown.borrow_and_update() {
            close_socket(&mut sink, &mut stream, SocketClose::ServerStopping).await;
            return;
        }
        tokio::select! {
            // The session's end first: a message that arrives with it does not act.
            biased;
            _ = session_ended(&mut session, hub.accounts()) => {
                close_socket(&mut sink, &mut stream, SocketClose::SessionEnded).await;
                return;
            }
            _ = shutdown.changed() => continue,
            _ = pings.tick() => {
                if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return;
                }
            }
            event = events.recv() => {
                let text = match event {
                    Ok(text) => text.to_string(),
                    // Too slow to follow: send the whole state instead of what was missed.
                    Err(RecvError::Lagged(_)) => state_text(&hub, &slot).await,
                    Err(RecvError::Closed) => return,
                };
                if sink.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            line = chat.recv() => {
                let text = match line {
                    Ok(line) if line.room == room && !blocked.contains(&line.author) => {
                        SocketMessage::Chat { line: (*line).clone() }.text()
                    }
                    Ok(_) => continue,
                    Err(RecvError::Lagged(_)) => {
                        let who = Credential { token: token.as_deref(), account: account_id };
                        match chat_history_text(&hub, &slot, &who).await {
                            Some(history) => history,
                            None => continue,
                        }
                    }
                    Err(RecvError::Closed) => return,
                };
                if sink.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | None => return,
                    Some(Err(e)) => {
                        close_socket(&mut sink, &mut stream, SocketClose::BrokenFrame(&e)).await;
                        return;
                    }
                    Some(Ok(_)) => continue,
                };
                let reply =
                    socket_command(&hub, &slot, &mut token, account.as_ref(), text.as_str())
                        .await;
                let seated = matches!(reply, SocketMessage::Hello { seat: Some(_), .. });
                if sink.send(Message::Text(reply.text().into())).await.is_err() {
                    return;
                }
                if seated && room != Room::Players {
                    // Now a player's socket: the players' room, from its history.
                    room = Room::Players;
                    let who = Credential { token: token.as_deref(), account: account_id };
                    if let Some(history) = chat_history_text(&hub, &slot, &who).await
                        && sink.send(Message::Text(history.into())).await.is_err()
                    {
                        return;
                    }
                }
            }
        }
    }
}

/// Answers one message of a game's socket; `token` is the seat's once an `auth` has held,
/// `account` the logged-in viewer's.
async fn socket_command(
    hub: &Arc<Hub>,
    slot: &Arc<GameRoom>,
    token: &mut Option<String>,
    account: Option<&Account>,
    text: &str,
) -> SocketMessage {
    let command: SocketCommand = match serde_json::from_str(text) {
        Ok(c) => c,
        Err(e) => {
            return SocketMessage::Error {
                id: None,
                status: None,
                error: format!("bad message: {e}"),
                code: None,
                params: None,
            };
        }
    };
    let id = command.id.clone().unwrap_or(Value::Null);
    if command.kind == "auth" {
        let presented = command.token.unwrap_or_default();
        let presenting = Credential {
            token: Some(&presented),
            account: None,
        };
        return match hub.seat_name(slot, &presenting).await {
            Some(seat) => {
                *token = Some(presented);
                SocketMessage::Hello {
                    id: Some(id),
                    seat: Some(seat),
                }
            }
            None => refused(
                id,
                ApiError::forbidden("the token does not hold a seat in this game")
                    .code("seat.token-holds-none"),
            ),
        };
    }
    let who = Credential {
        token: token.as_deref(),
        account: account.map(|a| a.id.as_str()),
    };
    if command.kind == "chat" {
        let said = hub
            .say(
                slot,
                &who,
                account.map(|a| a.username.as_str()),
                command.text.as_deref().unwrap_or_default(),
            )
            .await;
        return match said {
            Ok(line) => SocketMessage::Ack {
                id,
                ply: None,
                chat: Some(line.id),
            },
            Err(e) => refused(id, e),
        };
    }
    let result: Result<_, ApiError> = match command.kind.as_str() {
        "move" => match command.usi.as_deref() {
            Some(usi) => hub.play(slot, &who, usi.trim()).await.map_err(Into::into),
            None => Err(ApiError::bad_request("a move message needs \"move\"")),
        },
        "resign" => hub.resign(slot, &who).await.map_err(Into::into),
        "abort" => hub.abort(slot, &who).await.map_err(Into::into),
        "draw" => hub
            .draw(slot, &who, command.action.as_deref().unwrap_or("offer"))
            .await
            .map_err(Into::into),
        "rematch" => hub
            .rematch(slot, &who, command.action.as_deref().unwrap_or("offer"))
            .await
            .map_err(Into::into),
        "ping" => {
            return SocketMessage::Pong {
                id,
                server_time_ms: hub.now(),
            };
        }
        other => Err(ApiError::bad_request(format!(
            "unknown message type {:?}: one of auth, move, resign, abort, draw, rematch, chat, \
             ping",
            other.chars().take(40).collect::<String>()
        ))),
    };
    match result {
        Ok(view) => SocketMessage::Ack {
            id,
            ply: Some(view.ply),
            chat: None,
        },
        Err(e) => refused(id, e),
    }
}

/// The socket's answer to a refused message.
fn refused(id: Value, e: impl Into<ApiError>) -> SocketMessage {
    let e: ApiError = e.into();
    let (code, params) = e.code_and_params();
    SocketMessage::Error {
        id: Some(id),
        status: Some(e.status),
        error: e.message,
        code,
        params,
    }
}
