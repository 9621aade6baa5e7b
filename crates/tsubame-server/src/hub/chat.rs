//! A game's chat: who may speak in which room, how often, and the lines stored and passed on
//! to every instance.

use super::error::GameError;
use super::room::{Credential, GameRoom};
use super::services::{GameServices, random_hex};
use crate::chat::{ChatLine, HISTORY_LINES, Room, clean_line};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Serialize;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

/// Chat lines one sender may say in a burst, then one per [`CHAT_LINE_PERIOD`].
const CHAT_BURST: NonZeroU32 = NonZeroU32::new(5).expect("five is not zero");

/// How often a sender may say one more line once the burst is spent.
const CHAT_LINE_PERIOD: Duration = Duration::from_secs(2);

/// A chat line as announced to the other instances.
#[derive(Debug, Serialize, serde::Deserialize)]
pub(super) struct ChatNotice {
    pub(super) game: String,
    /// The instance that stored it (which has passed it on already).
    pub(super) from: String,
    pub(super) line: ChatLine,
}

/// The chat of every game, with each sender's rate.
pub(super) struct GameChat {
    /// Chat lines by sender (account, or guest seat).
    senders: DefaultKeyedRateLimiter<String>,
}

impl GameChat {
    /// Nobody has spoken yet.
    pub(super) fn new() -> GameChat {
        GameChat {
            senders: RateLimiter::keyed(
                Quota::with_period(CHAT_LINE_PERIOD)
                    .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
                    .allow_burst(CHAT_BURST),
            ),
        }
    }

    /// Says a line in a game's chat: a player in the players' room, anyone else (logged in)
    /// in the spectators'. `account_name` is the logged-in speaker's name.
    pub(super) async fn say(
        &self,
        svc: &GameServices,
        room: &GameRoom,
        who: &Credential<'_>,
        account_name: Option<&str>,
        text: &str,
    ) -> Result<ChatLine, GameError> {
        let text = clean_line(text)?;
        let (game_id, chat_room, author, sender) = {
            let live = room.game.lock().await;
            match live.seat_for(who) {
                Some(side) => (
                    live.id.clone(),
                    Room::Players,
                    live.names[side.index()].clone(),
                    live.accounts[side.index()]
                        .clone()
                        .unwrap_or_else(|| format!("{}:{}", live.id, side.name())),
                ),
                None => match (who.account, account_name) {
                    (Some(account), Some(name)) => (
                        live.id.clone(),
                        Room::Spectators,
                        name.to_string(),
                        account.to_string(),
                    ),
                    _ => {
                        return Err(GameError::ChatNotAllowed);
                    }
                },
            }
        };
        if let Some(account) = who.account {
            let until = svc
                .store
                .muted_until(account)
                .await
                .map_err(GameError::Database)?;
            let now = svc.now() as i64;
            if until > now {
                let minutes = (until - now + 59_999) / 60_000;
                return Err(GameError::ChatMuted { minutes });
            }
        }
        crate::rate::admit(&self.senders, &sender)
            .map_err(|wait| GameError::ChatTooFast { wait })?;
        let line = ChatLine {
            id: random_hex(8),
            room: chat_room,
            author,
            text,
            at: svc.now(),
        };
        let account = match chat_room {
            Room::Players => who.account.filter(|a| *a == sender),
            Room::Spectators => who.account,
        };
        let notice = serde_json::to_string(&ChatNotice {
            game: game_id.clone(),
            from: svc.instance.clone(),
            line: line.clone(),
        })
        .unwrap_or_default();
        let stored = svc
            .store
            .insert_chat(&game_id, &line, account, &notice)
            .await
            .map_err(|e| GameError::Storing {
                what: "the chat line",
                error: e,
            })?;
        if !stored {
            return Err(GameError::ChatFull);
        }
        let _ = room.chat.send(Arc::new(line.clone()));
        Ok(line)
    }

    /// The room a credential sees in a game, and its newest lines.
    pub(super) async fn history(
        &self,
        svc: &GameServices,
        room: &GameRoom,
        who: &Credential<'_>,
    ) -> Result<(Room, Vec<ChatLine>), GameError> {
        let (game_id, chat_room) = {
            let live = room.game.lock().await;
            let chat_room = if live.seat_for(who).is_some() {
                Room::Players
            } else {
                Room::Spectators
            };
            (live.id.clone(), chat_room)
        };
        let mut lines = svc
            .store
            .chat_lines(&game_id, chat_room, HISTORY_LINES)
            .await
            .map_err(GameError::Database)?;
        // The lines of players the viewer blocks are not shown to them.
        if let Some(account) = who.account {
            let blocked = svc
                .store
                .blocked_names(account)
                .await
                .map_err(GameError::Database)?;
            if !blocked.is_empty() {
                lines.retain(|line| !blocked.iter().any(|(name, _)| *name == line.author));
            }
        }
        Ok((chat_room, lines))
    }
}
