//! Work that falls due by the clock: flags, the abort of games nobody started, overdue
//! computer moves, and the finished games memory lets go. On a shared database the due games
//! are claimed with `FOR UPDATE SKIP LOCKED`, so that one instance, and only one, deals with
//! each.

use super::computer::Computer;
use super::ends::GameEndReason;
use super::error::GameError;
use super::room::{ENGINE_OVERDUE_MS, GameRoom, LiveGame, Phase, Player};
use super::rooms::Rooms;
use crate::store::WritesRefused;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tsubame_rules::Color;

/// How long an instance keeps the due games it claims: long enough to act at the exact time
/// its own clocks say (they may be a little later than the stored due time).
const CLAIM_MS: u64 = 2_000;

/// The most due games claimed at once.
const CLAIMS_AT_ONCE: i64 = 64;

/// How long a finished game stays in memory after it was last looked up.
const FINISHED_KEPT_MS: u64 = 60_000;

/// Does what falls due in the rooms.
pub(super) struct Sweeper {
    rooms: Arc<Rooms>,
    computer: Computer,
}

impl Sweeper {
    /// A sweeper of these rooms, whose computer takes up overdue moves.
    pub(super) fn new(rooms: Arc<Rooms>, computer: Computer) -> Sweeper {
        Sweeper { rooms, computer }
    }

    /// Runs [`Sweeper::flag_sweep`] forever, every 50 ms, and every ten seconds drops the
    /// finished games nobody looked at for a minute.
    pub(super) async fn run(self) {
        let shared = self.rooms.services().store.shared();
        let mut tick = tokio::time::interval(Duration::from_millis(50));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_eviction = Instant::now();
        let mut last_claim = Instant::now();
        loop {
            tick.tick().await;
            if shared && last_claim.elapsed() >= Duration::from_millis(100) {
                self.claim_due_games().await;
                last_claim = Instant::now();
            }
            self.flag_sweep().await;
            if last_eviction.elapsed() >= Duration::from_secs(10) {
                self.rooms.evict_finished(FINISHED_KEPT_MS);
                last_eviction = Instant::now();
            }
        }
    }

    /// Ends every game whose flag has fallen, and takes up overdue computer moves. On a
    /// shared database only the games this instance has claimed are its to end.
    async fn flag_sweep(&self) {
        let svc = self.rooms.services();
        let now = svc.now();
        let shared = svc.store.shared();
        let due: Vec<Arc<GameRoom>> = self
            .rooms
            .all()
            .into_iter()
            .filter(|room| {
                room.deadline.load(Ordering::Relaxed) <= now
                    && (!shared || room.claimed_until.load(Ordering::Relaxed) > now)
            })
            .collect();
        for room in due {
            self.sweep(&room).await;
        }
    }

    /// Does what is due in one game: an abort, a flag, the computer's overdue move.
    async fn sweep(&self, room: &Arc<GameRoom>) {
        let svc = self.rooms.services();
        let mut live = room.game.lock().await;
        if live.phase == Phase::Finished {
            return;
        }
        if live.game.outcome().is_some() {
            // Ended by its last move, whose instance did not get to store the result.
            room.finish_by_rules(svc, &mut live).await;
            return;
        }
        let now = svc.now();
        if let Some(abort_deadline) = live.abort_deadline(&svc.settings) {
            if abort_deadline <= now {
                // In a tournament the player who did not make their first move loses.
                if live.tournament.is_some() && live.phase == Phase::Playing {
                    let absent = live.side_to_move();
                    self.finish_or_retry(room, &mut live, Some(!absent), GameEndReason::Absent)
                        .await;
                } else {
                    self.finish_or_retry(room, &mut live, None, GameEndReason::Aborted)
                        .await;
                }
            } else {
                room.reschedule(&live, &svc.settings);
            }
            return;
        }
        let side = live.side_to_move();
        let engine_turn = live.players[side.index()] == Player::Engine;
        let elapsed = now.saturating_sub(live.turn_started);
        let flag_fell = live.clock_runs()
            && live.clock.time_left(&live.control, side.index(), elapsed) == Some(0);
        let overdue = engine_turn && elapsed >= ENGINE_OVERDUE_MS;
        // On a shared database an overdue computer move is the searching instance's loss,
        // not the computer's: another instance searches it again.
        if flag_fell && !(overdue && svc.store.shared()) {
            self.finish_or_retry(room, &mut live, Some(!side), GameEndReason::TIME)
                .await;
        } else if overdue && live.engine_search_ply != Some(live.moves.len()) {
            tracing::warn!(game = %live.id, "the computer's move is overdue: searching it here");
            self.computer.schedule(room, &mut live);
        } else if overdue {
            // This instance's search is still waiting for a slot.
            room.deadline
                .store(now.saturating_add(1000), Ordering::Relaxed);
        } else {
            room.reschedule(&live, &svc.settings);
        }
    }

    /// Ends a game for the sweeper; when the result cannot be stored the game stays as it is
    /// and the sweeper tries again a second later.
    async fn finish_or_retry(
        &self,
        room: &GameRoom,
        live: &mut LiveGame,
        winner: Option<Color>,
        reason: GameEndReason,
    ) {
        let svc = self.rooms.services();
        if let Err(e) = room.finish(svc, live, winner, reason).await {
            if matches!(e, GameError::Stale) {
                return;
            }
            if !e.is_unavailable() {
                tracing::warn!(
                    game = %live.id,
                    "not ended by {} yet, retrying in a second: {}",
                    reason.name(),
                    e
                );
            }
            room.deadline
                .store(svc.now().saturating_add(1000), Ordering::Relaxed);
        }
    }

    /// On a shared database, claims the stored games that are due (for two seconds) so that
    /// this instance's sweeper, and no other's, deals with them.
    async fn claim_due_games(&self) {
        let svc = self.rooms.services();
        let now = svc.now();
        let until = now.saturating_add(CLAIM_MS);
        let ids = match svc
            .store
            .claim_due(now as i64, until as i64, CLAIMS_AT_ONCE)
            .await
        {
            Ok(ids) => ids,
            Err(e) => {
                if e.downcast_ref::<WritesRefused>().is_none() {
                    tracing::warn!("cannot claim due games: {e}");
                }
                return;
            }
        };
        for id in ids {
            match self.rooms.find(&id).await {
                Ok(room) => {
                    room.claimed_until.store(until, Ordering::Relaxed);
                    // Memory may be behind the row that made the game due.
                    let mut live = room.game.lock().await;
                    if let Err(e) = room.refresh(svc, &mut live).await {
                        tracing::warn!(game = %id, "cannot reload a due game: {e}");
                    }
                }
                Err(e) => tracing::warn!(game = %id, "cannot load a due game: {e}"),
            }
        }
    }
}
