//! The computer opponent: when it is its turn, a search in one of the engine's slots, then
//! its move played like a person's.

use super::room::{GameRoom, LiveGame, Phase, Player, STALE, Side};
use super::services::GameServices;
use crate::engine_work::EngineWork;
use crate::metrics::GaugeGuard;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tsubame_engine::limits::{Clock, Limits};

/// The name shown for the computer at a level.
pub(super) fn engine_name(level: u8) -> String {
    format!("Computer level {level}")
}

/// Engine limits for a level (the engine's own [`Limits::at_level`]): deeper and longer at
/// higher levels, never more than the time left on the clock allows.
fn engine_limits(level: u8, time_left: Option<u64>) -> Limits {
    let clock = time_left.map(|left| Clock {
        remaining: Duration::from_millis(left),
        ..Clock::default()
    });
    Limits {
        clock,
        ..Limits::default()
    }
    .at_level(level)
}

/// Starts the computer's searches in the engine's slots.
#[derive(Clone)]
pub(super) struct Computer {
    services: Arc<GameServices>,
    engine: Arc<EngineWork>,
}

impl Computer {
    /// A computer searching in these slots.
    pub(super) fn new(services: Arc<GameServices>, engine: Arc<EngineWork>) -> Computer {
        Computer { services, engine }
    }

    /// The scheduler of engine searches.
    pub(super) fn engine(&self) -> &Arc<EngineWork> {
        &self.engine
    }

    /// Sets the flag time of a game and starts the engine's search when it is its turn.
    pub(super) fn schedule(&self, room: &Arc<GameRoom>, live: &mut LiveGame) {
        let settings = &self.services.settings;
        let engine_to_move =
            live.phase == Phase::Playing && live.players[live.side_to_move()] == Player::Engine;
        let ply = live.moves.len();
        // One search per turn, however often the game is looked at.
        let start_search = engine_to_move && live.engine_search_ply != Some(ply);
        if start_search {
            live.engine_search_ply = Some(ply);
        }
        room.reschedule(live, settings);
        if !start_search {
            return;
        }
        let side = live.side_to_move();
        let computer = self.clone();
        let room = room.clone();
        tokio::spawn(async move {
            let searched = computer.play(&room, side, ply).await;
            let mut live = room.game.lock().await;
            if !searched && live.engine_search_ply == Some(ply) {
                // Searched again only once the move is overdue, not at once: when another
                // instance is searching it, two instances restarting their searches on each
                // other's changes would never let either move.
                live.engine_search_ply = None;
            }
            room.reschedule(&live, &computer.services.settings);
        });
    }

    /// After a change: sets the flag time and lets the engine move when it is its turn.
    pub(super) async fn after_change(&self, room: &Arc<GameRoom>) {
        let mut live = room.game.lock().await;
        self.schedule(room, &mut live);
    }

    /// Searches and plays the computer's move at `ply`; `false` when this instance did not
    /// (the game moved on, another instance searches it, or the search failed).
    async fn play(&self, room: &Arc<GameRoom>, side: Side, ply: usize) -> bool {
        let svc = &*self.services;
        let waiting = GaugeGuard::hold(&svc.metrics.engine_waiting);
        let Some(_permit) = self.engine.slot().await else {
            return false;
        };
        drop(waiting);
        let (game, limits) = {
            let mut live = room.game.lock().await;
            if live.moves.len() != ply || live.phase != Phase::Playing {
                return false;
            }
            // The computer's clock starts with its search, not while it waited. Storing that
            // is also what keeps a second instance from searching the same move.
            let before = live.clone();
            live.engine_waiting = false;
            live.turn_started = svc.now();
            live.version += 1;
            if let Err(e) = room.store_state(svc, &mut live, before).await {
                if e.message != STALE && !e.is_unavailable() {
                    tracing::warn!(game = %live.id, "computer's search not started: {}", e.message);
                }
                return false;
            }
            room.reschedule(&live, &svc.settings);
            let time_left = live.clock.time_left(&live.control, side, 0);
            (
                live.game.clone(),
                engine_limits(live.engine_level, time_left),
            )
        };
        let running = GaugeGuard::hold(&svc.metrics.engine_running);
        // Searches run on the blocking pool: the async workers keep serving meanwhile.
        let Ok(Some(reply)) = tokio::task::spawn_blocking(move || {
            game.best_move(&limits, Arc::new(AtomicBool::new(false)))
        })
        .await
        else {
            return false;
        };
        drop(running);
        let mut live = room.game.lock().await;
        // The game may have moved on (resignation, abort, flag) while the engine thought.
        if live.moves.len() != ply || live.phase != Phase::Playing {
            return true;
        }
        if let Err(e) = room.play_locked(svc, &mut live, side, &reply.best).await {
            tracing::error!(
                game = %live.id,
                "engine move {} refused: {}",
                reply.best,
                e.message
            );
            return false;
        }
        true
    }
}
