//! The index of live games: each game's room by id, loaded from the database on demand and
//! dropped from memory once finished and forgotten.

use super::error::GameError;
use super::room::{GameRoom, LiveGame, Phase};
use super::services::GameServices;
use crate::clock::TimeControl;
use crate::game::{HostedGame, RulesError};
use crate::store::{GameRow, MoveRow};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex as StdMutex};
use tsubame_engine::strength::Level;
use tsubame_rules::Variant;

/// Every game in memory, by id.
pub(super) struct Rooms {
    services: Arc<GameServices>,
    games: StdMutex<HashMap<String, Arc<GameRoom>>>,
}

/// Why a stored game could not be loaded back.
#[derive(Debug, thiserror::Error)]
pub(super) enum RebuildError {
    /// A variant name no game has.
    #[error("unknown variant {0}")]
    Variant(String),
    /// A time control that is not the JSON the server writes.
    #[error("bad time control: {0}")]
    TimeControl(serde_json::Error),
    /// The rules refuse the start or a move.
    #[error(transparent)]
    Rules(#[from] RulesError),
}

impl Rooms {
    /// No game yet.
    pub(super) fn new(services: Arc<GameServices>) -> Rooms {
        Rooms {
            services,
            games: StdMutex::new(HashMap::new()),
        }
    }

    /// What the rooms use.
    pub(super) fn services(&self) -> &Arc<GameServices> {
        &self.services
    }

    /// A game from its stored row and moves. On a database other instances share, the
    /// running turn started when the row says; otherwise a resumed turn starts now (time the
    /// server was down is charged to nobody).
    pub(super) fn rebuild(
        &self,
        row: &GameRow,
        moves: &[MoveRow],
    ) -> Result<LiveGame, RebuildError> {
        let variant = Variant::from_name(&row.variant)
            .ok_or_else(|| RebuildError::Variant(row.variant.clone()))?;
        let control: TimeControl =
            serde_json::from_str(&row.time_control).map_err(RebuildError::TimeControl)?;
        let game = HostedGame::new(variant, &row.options, Some(&row.start_sfen))?;
        let stored_turn = u64::try_from(row.state.turn_started_at).unwrap_or(0);
        let turn_started = if self.services.store.shared() && stored_turn > 0 {
            stored_turn
        } else {
            self.services.now()
        };
        let mut live = LiveGame {
            id: row.id.clone(),
            engine_level: row.engine_level.clamp(1, i64::from(Level::MAX)) as u8,
            invite: row.invite.clone(),
            public: row.public,
            created_at: row.created_at.max(0) as u64,
            ..LiveGame::made(game, control, turn_started)
        };
        live.take_row(row);
        for mv in moves {
            live.take_move(mv)?;
        }
        Ok(live)
    }

    /// Hosts a game in its own room.
    pub(super) fn insert(&self, live: LiveGame) -> Arc<GameRoom> {
        let id = live.id.clone();
        let challenge = live.waiting_list_accounts();
        let room = Arc::new(GameRoom::new(
            live,
            self.services.now(),
            &self.services.settings,
        ));
        if let Ok(mut games) = self.games.lock() {
            games.insert(id, room.clone());
        }
        if let Some(accounts) = challenge {
            self.services.challenge_changed(accounts);
        }
        room
    }

    /// A game in memory.
    pub(super) fn get(&self, id: &str) -> Option<Arc<GameRoom>> {
        let room = self.games.lock().ok()?.get(id).cloned()?;
        room.last_used.store(self.services.now(), Ordering::Relaxed);
        Some(room)
    }

    /// Drops from memory the finished games that nothing holds (no socket, no request) and
    /// nobody looked up for `idle_ms`; they are loaded again from the database when asked
    /// for. Returns how many left. Without this every game ever played or viewed would stay.
    pub(super) fn evict_finished(&self, idle_ms: u64) -> usize {
        let now = self.services.now();
        let Ok(mut games) = self.games.lock() else {
            return 0;
        };
        let before = games.len();
        // A new reference is only taken under this lock, so a count of one (the map's own)
        // cannot grow while the game is being dropped.
        games.retain(|_, room| {
            Arc::strong_count(room) > 1
                || room
                    .last_used
                    .load(Ordering::Relaxed)
                    .saturating_add(idle_ms)
                    > now
                || room
                    .game
                    .try_lock()
                    .map_or(true, |live| live.phase != Phase::Finished)
        });
        before - games.len()
    }

    /// A game, live or loaded from the database (finished games are loaded on demand and kept).
    pub(super) async fn find(&self, id: &str) -> Result<Arc<GameRoom>, GameError> {
        if let Some(room) = self.get(id) {
            return Ok(room);
        }
        let not_found = || GameError::unknown_game(id);
        if id.len() > 64 {
            return Err(not_found());
        }
        let store = &self.services.store;
        let row = store
            .game(id)
            .await
            .map_err(GameError::Database)?
            .ok_or_else(not_found)?;
        let moves = store.moves(id).await.map_err(GameError::Database)?;
        let live = self.rebuild(&row, &moves).map_err(|e| GameError::Damaged {
            id: id.to_string(),
            error: e.to_string(),
        })?;
        // Another request may have loaded it meanwhile: keep the first.
        if let Some(room) = self.get(id) {
            return Ok(room);
        }
        Ok(self.insert(live))
    }

    /// Every game in memory.
    pub(super) fn all(&self) -> Vec<Arc<GameRoom>> {
        self.games
            .lock()
            .map(|g| g.values().cloned().collect())
            .unwrap_or_default()
    }
}
