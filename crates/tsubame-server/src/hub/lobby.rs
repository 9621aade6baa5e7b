//! What lists games: the lobby's open seeks, the games in play and finished, a player's
//! games, and the count of games waiting for a player's move.

use super::error::GameError;
use super::room::{GameView, Phase};
use super::rooms::Rooms;

/// Public games with an open seat, newest first.
pub(super) async fn open_seeks(rooms: &Rooms) -> Vec<GameView> {
    let svc = rooms.services();
    let now = svc.now();
    let mut out = Vec::new();
    for room in rooms.all() {
        let live = room.game.lock().await;
        if live.public && live.phase == Phase::Waiting {
            out.push(live.summary(now, &svc.settings));
        }
    }
    out.sort_by_key(|v| std::cmp::Reverse(v.created_at));
    out
}

/// Games in play (live) and the newest finished ones, newest first.
pub(super) async fn listed_games(
    rooms: &Rooms,
    status: Option<&str>,
    limit: usize,
) -> Result<Vec<GameView>, GameError> {
    let svc = rooms.services();
    let now = svc.now();
    let mut out = Vec::new();
    if status != Some("finished") {
        for room in rooms.all() {
            let live = room.game.lock().await;
            if live.phase != Phase::Finished
                && status.is_none_or(|s| s == live.phase.name())
                && live.is_listed()
            {
                out.push(live.summary(now, &svc.settings));
            }
        }
    }
    if status.is_none() || status == Some("finished") {
        let rows = svc
            .store
            .finished_games(limit as i64)
            .await
            .map_err(GameError::Database)?;
        for row in rows {
            if let Ok(room) = rooms.find(&row.id).await {
                let live = room.game.lock().await;
                if live.is_listed() {
                    out.push(live.summary(now, &svc.settings));
                }
            }
        }
    }
    out.sort_by_key(|v| std::cmp::Reverse(v.created_at));
    out.truncate(limit);
    Ok(out)
}

/// An account's games, newest first, optionally of one status.
pub(super) async fn account_games(
    rooms: &Rooms,
    account_id: &str,
    status: Option<&str>,
    limit: usize,
) -> Result<Vec<GameView>, GameError> {
    let svc = rooms.services();
    let ids = svc
        .store
        .account_game_ids(account_id, status, limit as i64)
        .await
        .map_err(GameError::Database)?;
    let now = svc.now();
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Ok(room) = rooms.find(&id).await {
            out.push(room.game.lock().await.summary(now, &svc.settings));
        }
    }
    Ok(out)
}

/// How many games in play wait for a move of this account's: its games in play (from the
/// database's index by account, not a walk over every game in memory) whose side to move is
/// the account's.
pub(super) async fn your_turn_count(rooms: &Rooms, account_id: &str) -> usize {
    let ids = match rooms
        .services()
        .store
        .account_game_ids(account_id, Some("playing"), 1000)
        .await
    {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!("could not count the games waiting for a player: {e}");
            return 0;
        }
    };
    let mut count = 0;
    for id in ids {
        // Games in play are all in memory.
        let Some(room) = rooms.get(&id) else { continue };
        let live = room.game.lock().await;
        let to_move = live.side_to_move();
        if live.phase == Phase::Playing
            && live.accounts[to_move.index()].as_deref() == Some(account_id)
        {
            count += 1;
        }
    }
    count
}
