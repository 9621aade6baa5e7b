//! How a game ends: the end computed as the game's next version, stored (with the ratings
//! it changes), then put in place and announced; resignations, aborts, flags, agreements and
//! the rules' own ends all come here.

use super::error::GameError;
use super::room::Announcement;
use super::room::{Credential, GameResult, GameRoom, GameView, LiveGame, Phase};
use super::services::GameServices;
use crate::clock::SideClock;
use crate::ratings::{Speed, rating_game};
use crate::store::RatedEnd;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tsubame_rules::{Color, EndReason};

/// Why a game ended: the rules' own ends (time and resignation among them), or one of the
/// site's. Its name is what the database, the API, records and metrics say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEndReason {
    /// By the rules: checkmate, repetition, ..., and also time and resignation.
    Rules(EndReason),
    /// The players agreed a draw.
    Agreement,
    /// Nobody really started it: aborted, a seek that expired, a first move not made; counts
    /// as no game.
    Aborted,
    /// The challenged player declined the challenge.
    Declined,
    /// An arena player who did not come to their game lost it.
    Absent,
}

impl GameEndReason {
    /// Lost on time.
    pub const TIME: GameEndReason = GameEndReason::Rules(EndReason::Time);
    /// Resigned.
    pub const RESIGNATION: GameEndReason = GameEndReason::Rules(EndReason::Resignation);

    /// The end as one lower-case word.
    pub fn name(self) -> &'static str {
        match self {
            GameEndReason::Rules(reason) => reason.name(),
            GameEndReason::Agreement => "agreement",
            GameEndReason::Aborted => "aborted",
            GameEndReason::Declined => "declined",
            GameEndReason::Absent => "absent",
        }
    }
}

impl LiveGame {
    /// The game as an end at `now` leaves it (same version): finished with its result, the
    /// running turn's time charged so that the final clocks show what was used, no offer
    /// left open and no computer's move awaited.
    pub(super) fn ended(&self, winner: Option<Color>, reason: GameEndReason, now: u64) -> LiveGame {
        let mut ended = self.clone();
        if ended.clock_runs() {
            let side = ended.side_to_move();
            let elapsed = now.saturating_sub(ended.turn_started);
            let mut clock = ended.clock;
            if clock.end_turn(&ended.control, side.index(), elapsed) {
                ended.clock = clock;
            } else if let Some(c) = ended.clock.sides.get_mut(side.index()) {
                *c = SideClock {
                    remaining_ms: 0,
                    periods: 0,
                };
            }
        }
        ended.phase = Phase::Finished;
        ended.draw_offer = None;
        ended.rematch_offer = None;
        ended.engine_waiting = false;
        ended.result = Some(GameResult {
            winner: winner.map(Color::name),
            reason: reason.name().to_string(),
        });
        ended
    }
}

impl GameRoom {
    /// Ends a game: stores the result, then puts the ended game in place and announces it.
    /// When the result cannot be stored nothing changes and nothing is announced: an end is
    /// never acknowledged before it is stored.
    pub(super) async fn finish(
        &self,
        svc: &GameServices,
        live: &mut LiveGame,
        winner: Option<Color>,
        reason: GameEndReason,
    ) -> Result<(), GameError> {
        let now = svc.now();
        let write = Instant::now();
        let mut next = live.ended(winner, reason, now);
        next.version += 1;
        let game = rating_game(live.game.variant(), &live.game.options_text());
        let speed = Speed::of(&live.control);
        // A game that ends before each side has moved changes no rating, however it ends.
        let rates = live.rated && reason != GameEndReason::Aborted && live.started_by_both();
        let rated_seats = match (&live.accounts, speed) {
            ([Some(sente), Some(gote)], Some(speed)) if rates => Some(RatedEnd {
                accounts: [sente.as_str(), gote.as_str()],
                game,
                speed: speed.name(),
            }),
            _ => None,
        };
        let change = next.state_change(&svc.settings, live.version);
        let stored = match rated_seats {
            Some(rated) => svc
                .store
                .finish_rated_game(
                    &change,
                    winner.map(Color::index),
                    reason.name(),
                    now as i64,
                    rated,
                )
                .await
                .map(|changes| {
                    let Some(changes) = changes else {
                        return false;
                    };
                    for (seat, change) in next.ratings.iter_mut().zip(changes) {
                        if let Some(seat) = seat {
                            seat.change = Some(change);
                        }
                    }
                    true
                }),
            None => {
                svc.store
                    .finish_game(&change, winner.map(Color::name), reason.name(), now as i64)
                    .await
            }
        };
        self.settle(svc, live, next, stored, "the result").await?;
        svc.metrics
            .database_seconds
            .observe(write.elapsed().as_secs_f64());
        self.announce_end(svc, live, reason);
        Ok(())
    }

    /// Tells everyone of a game's end, now in place: no flag to watch, the metric, the
    /// announcement.
    fn announce_end(&self, svc: &GameServices, live: &LiveGame, reason: GameEndReason) {
        self.deadline.store(u64::MAX, Ordering::Relaxed);
        svc.metrics
            .games_ended
            .with_label_values(&[reason.name()])
            .inc();
        self.announce(svc, live, Announcement::End, live.moves.last().cloned());
    }

    /// Ends a game whose last stored move ended it by the rules. The moves are stored, so the
    /// end is durable even when storing the result fails: a restart replays the moves and
    /// stores it then; meanwhile the game ends in memory.
    pub(super) async fn finish_by_rules(&self, svc: &GameServices, live: &mut LiveGame) {
        let Some(outcome) = live.game.outcome() else {
            return;
        };
        let winner = outcome.winner;
        let reason = GameEndReason::Rules(outcome.reason);
        let mut stored = self.finish(svc, live, winner, reason).await;
        if let Err(e) = &stored
            && matches!(e, GameError::Stale)
        {
            // Another instance changed the game first (on a shared database, another instance
            // resuming it may have stored this very end): the game is reloaded by now.
            if live.phase == Phase::Finished {
                return;
            }
            stored = self.finish(svc, live, winner, reason).await;
        }
        if let Err(e) = stored {
            if !e.is_unavailable() {
                tracing::warn!(
                    game = %live.id,
                    "ended by {}, result not stored yet (stored at the next start): {}",
                    reason.name(),
                    e
                );
            }
            *live = live.ended(winner, reason, svc.now());
            self.announce_end(svc, live, reason);
        }
    }

    /// Resigns for the seat holding `token`. Before each side has made a move, resigning
    /// aborts the game instead (as on lichess and lishogi): nobody wins, nobody's rating
    /// moves and an arena counts it as nothing, so two players who agree cannot trade
    /// points by resigning at the start.
    pub(super) async fn resign(
        &self,
        svc: &GameServices,
        who: &Credential<'_>,
    ) -> Result<GameView, GameError> {
        self.retry_stale(svc, || async {
            let mut live = self.game.lock().await;
            let side = Self::seat(&live, who)?;
            if live.phase != Phase::Playing {
                return Err(GameError::ResignNotInPlay);
            }
            if !live.started_by_both() {
                self.finish(svc, &mut live, None, GameEndReason::Aborted)
                    .await?;
                return Ok(live.view(svc.now(), &svc.settings, false));
            }
            self.finish(svc, &mut live, Some(!side), GameEndReason::RESIGNATION)
                .await?;
            Ok(live.view(svc.now(), &svc.settings, false))
        })
        .await
    }

    /// Aborts a game before both players have moved (or while a seat is open): an arena's
    /// game too, which then counts as no game.
    pub(super) async fn abort(
        &self,
        svc: &GameServices,
        who: &Credential<'_>,
    ) -> Result<GameView, GameError> {
        self.retry_stale(svc, || async {
            let mut live = self.game.lock().await;
            Self::seat(&live, who)?;
            if live.phase == Phase::Finished {
                return Err(GameError::AlreadyOver);
            }
            if live.started_by_both() {
                return Err(GameError::AbortTooLate);
            }
            self.finish(svc, &mut live, None, GameEndReason::Aborted)
                .await?;
            Ok(live.view(svc.now(), &svc.settings, false))
        })
        .await
    }
}
