//! Several instances on one PostgreSQL database: each follows what the others announce
//! (`NOTIFY`), so every game in memory stays as stored and every instance's watchers see every
//! move, end and chat line wherever it was made.

use super::chat::ChatNotice;
use super::room::{Notice, Phase};
use super::rooms::Rooms;
use crate::store::{CHAT_CHANNEL, GAME_CHANNEL, SESSION_CHANNEL};
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::Duration;

/// Follows the changes and chat lines the other instances announce, for as long as the
/// server runs: every game in memory stays as stored, new games are loaded (so lobbies and
/// lists are the same on every instance), and this instance's watchers see every move, end
/// and line wherever it was made. After a lost connection, and every half minute, the games
/// in memory are compared with the stored versions. `opened` is a listener opened before the
/// games were loaded, so that nothing falls between.
pub(super) async fn follow_other_instances(rooms: Arc<Rooms>, mut opened: Option<PgListener>) {
    let store = &rooms.services().store;
    let mut failures = 0u32;
    loop {
        let listening = match opened.take() {
            Some(listener) => Ok(Some(listener)),
            None => store.listener().await,
        };
        let mut listener = match listening {
            Ok(Some(listener)) => listener,
            Ok(None) => return,
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(60) {
                    tracing::warn!("cannot listen to the other instances: {e:#}");
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        failures = 0;
        // Whatever was announced while nobody listened.
        catch_up_with_database(&rooms).await;
        let mut check = tokio::time::interval(Duration::from_secs(30));
        check.tick().await;
        loop {
            tokio::select! {
                notification = listener.try_recv() => match notification {
                    Ok(Some(notification)) => {
                        let rooms = rooms.clone();
                        let channel = notification.channel().to_string();
                        let payload = notification.payload().to_string();
                        tokio::spawn(async move { take_notice(&rooms, &channel, &payload).await });
                    }
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!("lost the other instances' announcements: {e}");
                        break;
                    }
                },
                _ = check.tick() => {
                    let rooms = rooms.clone();
                    tokio::spawn(async move { catch_up_with_database(&rooms).await });
                }
            }
        }
    }
}

/// Takes in what another instance announced.
async fn take_notice(rooms: &Rooms, channel: &str, payload: &str) {
    let svc = rooms.services();
    if channel == CHAT_CHANNEL {
        match serde_json::from_str::<ChatNotice>(payload) {
            Ok(notice) if notice.from != svc.instance => {
                if let Some(room) = rooms.get(&notice.game) {
                    let _ = room.chat.send(Arc::new(notice.line));
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("unreadable chat announcement: {e}"),
        }
        return;
    }
    if channel == SESSION_CHANNEL {
        match serde_json::from_str::<crate::accounts::SessionEnd>(payload) {
            Ok(end) if end.from != svc.instance => {
                // Nobody watching is fine.
                let _ = svc.sessions_ended.send(Arc::new(end));
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("unreadable session announcement: {e}"),
        }
        return;
    }
    if channel == crate::store::TOURNAMENT_CHANNEL {
        // Nobody watching is fine.
        let _ = svc.tournaments.send(Arc::from(payload));
        return;
    }
    if channel != GAME_CHANNEL {
        return;
    }
    let notice = match serde_json::from_str::<Notice>(payload) {
        Ok(notice) => notice,
        Err(e) => {
            tracing::warn!("unreadable game announcement: {e}");
            return;
        }
    };
    let Some(room) = rooms.get(&notice.id) else {
        // A game this instance does not hold yet: a new one, one being played elsewhere.
        if let Err(e) = rooms.find(&notice.id).await {
            tracing::warn!(game = %notice.id, "cannot load an announced game: {e}");
        }
        return;
    };
    let mut live = room.game.lock().await;
    if notice.version <= live.version {
        return;
    }
    if let Some(moved) = &notice.moved
        && notice.version == live.version + 1
        && moved.row.ply == live.moves.len() as i64 + 1
        && live.phase == Phase::Playing
    {
        let phase = live.phase;
        let plies = live.moves.len();
        if live.take_move(&moved.row).is_ok() {
            live.turn_started = moved.turn_started_at;
            live.engine_waiting = moved.engine_waiting;
            live.draw_offer = None;
            live.version = notice.version;
            room.announce_catch_up(svc, &live, plies, phase);
            return;
        }
    }
    if let Err(e) = room.refresh(svc, &mut live).await {
        tracing::warn!(game = %notice.id, "cannot reload a changed game: {e}");
    }
}

/// Compares every unfinished stored game with memory: reloads those behind, loads those
/// missing. What a lost announcement would otherwise leave stale.
async fn catch_up_with_database(rooms: &Rooms) {
    let svc = rooms.services();
    let versions = match svc.store.unfinished_versions().await {
        Ok(versions) => versions,
        Err(e) => {
            tracing::warn!("cannot compare the games with the database: {e}");
            return;
        }
    };
    // Games in memory that are no longer unfinished in the database ended elsewhere.
    let unfinished: std::collections::HashSet<&str> =
        versions.iter().map(|(id, _)| id.as_str()).collect();
    for room in rooms.all() {
        let mut live = room.game.lock().await;
        if live.phase != Phase::Finished
            && !unfinished.contains(live.id.as_str())
            && let Err(e) = room.refresh(svc, &mut live).await
        {
            tracing::warn!(game = %live.id, "cannot reload an ended game: {e}");
        }
    }
    for (id, version) in versions {
        match rooms.get(&id) {
            Some(room) => {
                let mut live = room.game.lock().await;
                if live.version < version
                    && let Err(e) = room.refresh(svc, &mut live).await
                {
                    tracing::warn!(game = %id, "cannot reload a changed game: {e}");
                }
            }
            None => {
                if let Err(e) = rooms.find(&id).await {
                    tracing::warn!(game = %id, "cannot load a game: {e}");
                }
            }
        }
    }
}
