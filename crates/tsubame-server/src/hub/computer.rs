//! The computer opponent: when it is its turn, a search in one of the engine's slots (or, with
//! workers, a job for one of them), then its move played like a person's.

use super::error::GameError;
use super::room::{GameRoom, LiveGame, Phase, Player};
use super::services::GameServices;
use crate::engine_work::EngineWork;
use crate::metrics::GaugeGuard;
use crate::workers::EngineJobs;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tsubame_engine::limits::{Clock, Limits};
use tsubame_engine::strength::Level;
use tsubame_rules::Color;

/// Returns once the game is no longer at `ply` in play (a move made, or the game over),
/// looking every half second; it takes the game's lock only, never the database, so that it
/// can wait beside a wait that holds a pooled connection.
async fn moved_on(room: &GameRoom, ply: usize) {
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let live = room.game.lock().await;
        if live.moves.len() != ply || live.phase != Phase::Playing {
            return;
        }
    }
}

/// The name shown for the computer at a level.
pub(super) fn engine_name(level: u8) -> String {
    format!("Computer level {level}")
}

/// The engine's strength level for a game's level (levels out of range are held to the
/// nearest).
fn engine_level(level: u8) -> Level {
    Level::new(level.clamp(1, Level::MAX)).unwrap_or_else(|| unreachable!("clamped to 1..=MAX"))
}

/// The search limits of a computer move: the clock's time left, which the level's own caps
/// shorten further (see [`Level::limits`]).
fn engine_limits(time_left: Option<u64>) -> Limits {
    let clock = time_left.map(|left| Clock {
        remaining: Duration::from_millis(left),
        ..Clock::default()
    });
    Limits {
        clock,
        ..Limits::default()
    }
}

/// Starts the computer's searches in the engine's slots.
#[derive(Clone)]
pub(super) struct Computer {
    services: Arc<GameServices>,
    engine: Arc<EngineWork>,
    /// With workers, the queue their jobs go to.
    jobs: Option<Arc<EngineJobs>>,
}

impl Computer {
    /// A computer searching in these slots, or with workers through this queue.
    pub(super) fn new(
        services: Arc<GameServices>,
        engine: Arc<EngineWork>,
        jobs: Option<Arc<EngineJobs>>,
    ) -> Computer {
        Computer {
            services,
            engine,
            jobs,
        }
    }

    /// The queue of the workers' jobs, when the server takes workers.
    pub(super) fn jobs(&self) -> Option<&Arc<EngineJobs>> {
        self.jobs.as_ref()
    }

    /// The scheduler of engine searches.
    pub(super) fn engine(&self) -> &Arc<EngineWork> {
        &self.engine
    }

    /// Counts how long a computer's move waited for a slot or a worker.
    fn record_wait(&self, asked: crate::engine_work::WaitingMove) {
        let waited = asked.began();
        self.services
            .metrics
            .engine_wait_seconds
            .observe(waited.as_secs_f64());
    }

    /// Sets the flag time of a game and starts the engine's search when it is its turn.
    pub(super) fn schedule(&self, room: &Arc<GameRoom>, live: &mut LiveGame) {
        let settings = &self.services.settings;
        let engine_to_move = live.phase == Phase::Playing
            && live.players[live.side_to_move().index()] == Player::Engine;
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
    async fn play(&self, room: &Arc<GameRoom>, side: Color, ply: usize) -> bool {
        if let Some(jobs) = &self.jobs {
            return self.play_by_worker(jobs, room, side, ply).await;
        }
        let svc = &*self.services;
        let waiting = GaugeGuard::hold(&svc.metrics.engine_waiting);
        let asked = self.engine.computer_move_waits();
        let Some(permit) = self.engine.slot().await else {
            return false;
        };
        drop(waiting);
        self.record_wait(asked);
        let (game, limits, level, time_left) = {
            let mut live = room.game.lock().await;
            if live.moves.len() != ply || live.phase != Phase::Playing {
                return false;
            }
            // The computer's clock starts with its search, not while it waited. Storing that
            // is also what keeps a second instance from searching the same move.
            let mut next = live.next_version();
            next.engine_waiting = false;
            next.turn_started = svc.now();
            if let Err(e) = room.store_state(svc, &mut live, next).await {
                if !matches!(e, GameError::Stale) && !e.is_unavailable() {
                    tracing::warn!(game = %live.id, "computer's search not started: {e}");
                }
                return false;
            }
            room.reschedule(&live, &svc.settings);
            let time_left = live.clock.time_left(&live.control, side.index(), 0);
            (
                live.game.clone(),
                engine_limits(time_left),
                engine_level(live.engine_level).for_variant(live.game.variant()),
                time_left,
            )
        };
        let running = GaugeGuard::hold(&svc.metrics.engine_running);
        let started = std::time::Instant::now();
        // Searches run on the blocking pool: the async workers keep serving meanwhile.
        let Ok(Some(reply)) = tokio::task::spawn_blocking(move || {
            game.best_move(&limits, Some(level), Arc::new(AtomicBool::new(false)))
        })
        .await
        else {
            return false;
        };
        drop(running);
        // The slot is free for other searches while this move waits for its pace.
        drop(permit);
        self.play_at_pace(room, side, ply, &reply.best, level, time_left, started)
            .await
    }

    /// Plays the computer's move found at `started`, at its level's pace: the lower levels
    /// answer at a person's pace, not at once, never with more than a quarter of the clock's
    /// time left. The move is played only at its ply (the game may have moved on: a
    /// resignation, an abort, a flag), so never twice; `false` when the rules refused it.
    #[allow(clippy::too_many_arguments)]
    async fn play_at_pace(
        &self,
        room: &Arc<GameRoom>,
        side: Color,
        ply: usize,
        best: &str,
        level: Level,
        time_left: Option<u64>,
        started: std::time::Instant,
    ) -> bool {
        let svc = &*self.services;
        let pace = time_left.map_or(level.pace(), |left| {
            level.pace().min(Duration::from_millis(left / 4))
        });
        if let Some(wait) = pace.checked_sub(started.elapsed()) {
            tokio::time::sleep(wait).await;
        }
        let mut live = room.game.lock().await;
        if live.moves.len() != ply || live.phase != Phase::Playing {
            return true;
        }
        if let Err(e) = room.play_locked(svc, &mut live, side, best).await {
            tracing::error!(game = %live.id, "the computer's move {best} refused: {e}");
            return false;
        }
        true
    }

    /// The computer's move at `ply` as a job for the workers: asked once under the game's id
    /// and ply (however often, and on whichever instance, it is asked again), its clock
    /// started when a worker takes it, and the checked answer played if the game is still
    /// where it was.
    async fn play_by_worker(
        &self,
        jobs: &EngineJobs,
        room: &Arc<GameRoom>,
        side: Color,
        ply: usize,
    ) -> bool {
        let svc = &*self.services;
        let (id, question, level, time_left) = {
            let live = room.game.lock().await;
            if live.moves.len() != ply || live.phase != Phase::Playing {
                return false;
            }
            let time_left = live.clock.time_left(&live.control, side.index(), 0);
            let question = serde_json::json!({
                "type": "move",
                "variant": live.game.variant().name(),
                "options": live.game.options_text(),
                "sfen": live.game.start_sfen(),
                "moves": live.moves.iter().map(|m| m.played.usi.as_str()).collect::<Vec<_>>(),
                "level": live.engine_level.clamp(1, Level::MAX),
                "time_left_ms": time_left,
                "random": rand::random::<u64>(),
            });
            (
                format!("move:{}:{ply}", live.id),
                question.to_string(),
                engine_level(live.engine_level).for_variant(live.game.variant()),
                time_left,
            )
        };
        let waiting = GaugeGuard::hold(&svc.metrics.engine_waiting);
        let asked = self.engine.computer_move_waits();
        let taken = match jobs.submit(&id, "move", &question, svc.now()).await {
            // A game that ends meanwhile (a resignation, an abort, a flag) needs the move no
            // more: its job is withdrawn, and a worker searching it stops.
            Ok(()) => tokio::select! {
                taken = jobs.wait(&id, true, || svc.now()) => taken.map(Some),
                () = moved_on(room, ply) => Ok(None),
            },
            Err(e) => Err(e),
        };
        drop(waiting);
        match taken {
            Ok(Some(_)) => {
                self.record_wait(asked);
            }
            Ok(None) => {
                jobs.withdraw(&id, "the game moved on").await;
                return false;
            }
            Err(e) => {
                tracing::error!(job = %id, "no computer move: {e}");
                return false;
            }
        }
        let started = std::time::Instant::now();
        let running = GaugeGuard::hold(&svc.metrics.engine_running);
        // The computer's clock starts with the worker's search, not while the job waited for
        // one.
        {
            let mut live = room.game.lock().await;
            if live.moves.len() != ply || live.phase != Phase::Playing {
                return false;
            }
            if live.engine_waiting {
                let mut next = live.next_version();
                next.engine_waiting = false;
                next.turn_started = svc.now();
                if let Err(e) = room.store_state(svc, &mut live, next).await
                    && !matches!(e, GameError::Stale)
                    && !e.is_unavailable()
                {
                    tracing::warn!(game = %live.id, "computer's clock not started: {e}");
                }
                room.reschedule(&live, &svc.settings);
            }
        }
        let answered = tokio::select! {
            answered = jobs.answer_of(&id, || svc.now()) => answered,
            () = moved_on(room, ply) => {
                jobs.withdraw(&id, "the game moved on").await;
                return false;
            }
        };
        drop(running);
        let best = match answered.map(|text| serde_json::from_str::<serde_json::Value>(&text)) {
            Ok(Ok(answer)) => answer["best"].as_str().unwrap_or_default().to_string(),
            Ok(Err(e)) => {
                tracing::error!(job = %id, "a worker's answer unread: {e}");
                return false;
            }
            Err(e) => {
                tracing::error!(job = %id, "no computer move: {e}");
                return false;
            }
        };
        self.play_at_pace(room, side, ply, &best, level, time_left, started)
            .await
    }
}
