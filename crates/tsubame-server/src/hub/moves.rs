//! A player's move: checked, the next game computed as a value, stored with the move, then
//! put in place and announced.

use super::ends::GameEndReason;
use super::error::GameError;
use super::room::Announcement;
use super::room::MovedNotice;
use super::room::{GameRoom, LiveGame, MoveRecord, Notice, Phase, Player, move_row};
use super::services::GameServices;
use std::time::Instant;
use tsubame_rules::Color;

impl GameRoom {
    /// Plays `text` for `side` on the game behind the held lock: the game as the move leaves
    /// it is stored with the move before it replaces the game in memory, so a move that is not
    /// stored changes nothing.
    pub(super) async fn play_locked(
        &self,
        svc: &GameServices,
        live: &mut LiveGame,
        side: Color,
        text: &str,
    ) -> Result<super::GameView, GameError> {
        match live.phase {
            Phase::Waiting => {
                return Err(GameError::NotStarted);
            }
            Phase::Finished => {
                let reason = live.result.as_ref().map_or("", |r| r.reason.as_str());
                return Err(GameError::Over {
                    reason: reason.to_string(),
                });
            }
            Phase::Playing => {}
        }
        if live.side_to_move() != side {
            return Err(GameError::NotYourTurn {
                turn: live.side_to_move(),
                side,
            });
        }
        if text.len() > 32 {
            return Err(GameError::MoveTooLong);
        }
        let arrived = Instant::now();
        let now = svc.now();
        let think_ms = now.saturating_sub(live.turn_started);
        let mut clock = live.clock;
        if live.clock_runs() && !clock.end_turn(&live.control, side.index(), think_ms) {
            self.finish(svc, live, Some(!side), GameEndReason::TIME)
                .await?;
            return Err(GameError::TimeUp);
        }
        let mut next = live.next_version();
        let played = next.game.play(text).map_err(GameError::Rules)?;
        let record = MoveRecord {
            ply: live.moves.len() + 1,
            played,
            played_at: now,
            think_ms,
            clocks: clock,
        };
        let row = move_row(&record);
        next.clock = clock;
        next.turn_started = now;
        next.moves.push(record.clone());
        next.draw_offer = None;
        next.engine_waiting = next.phase == Phase::Playing
            && next.players[next.side_to_move().index()] == Player::Engine
            && next.game.outcome().is_none();
        let notice = Notice {
            id: next.id.clone(),
            version: next.version,
            moved: Some(MovedNotice {
                row: row.clone(),
                turn_started_at: now,
                engine_waiting: next.engine_waiting,
            }),
        };
        let change = next.change(&svc.settings, live.version, &notice);
        let write = Instant::now();
        let stored = svc.store.insert_move(change, &row).await;
        self.settle(svc, live, next, stored, "the move").await?;
        svc.metrics
            .database_seconds
            .observe(write.elapsed().as_secs_f64());
        svc.metrics.moves.inc();
        // The opponent's turn starts once the move is stored and sent, not when it arrived:
        // a slow write is charged to nobody.
        live.turn_started = svc.now();
        if live.game.outcome().is_some() {
            self.finish_by_rules(svc, live).await;
        } else {
            self.announce(svc, live, Announcement::Move, Some(record));
        }
        svc.metrics
            .move_seconds
            .observe(arrived.elapsed().as_secs_f64());
        Ok(live.view(svc.now(), &svc.settings, false))
    }
}
