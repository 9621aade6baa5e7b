//! Berserk: in a tournament's game, before one's first move, half one's main time for one
//! more point on a win.

use super::error::GameError;
use super::room::Announcement;
use super::room::{Credential, GameRoom, GameView, Phase};
use super::services::GameServices;
use crate::clock::TimeControl;

impl GameRoom {
    /// Berserks for the seat the credential holds: in a tournament's game, before the
    /// player's first move, half their main time for one more point if they win.
    pub(super) async fn berserk(
        &self,
        svc: &GameServices,
        who: &Credential<'_>,
    ) -> Result<GameView, GameError> {
        self.retry_stale(svc, || async {
            let mut live = self.game.lock().await;
            let side = Self::seat(&live, who)?;
            if live.tournament.is_none() {
                return Err(GameError::BerserkNotArena);
            }
            if live.phase != Phase::Playing || live.moves_of(side) > 0 {
                return Err(GameError::BerserkTooLate);
            }
            if live.berserk[side.index()] {
                return Ok(live.view(svc.now(), &svc.settings, false));
            }
            let main_ms = match live.control {
                TimeControl::Byoyomi { main_ms, .. } | TimeControl::Fischer { main_ms, .. } => {
                    main_ms
                }
                _ => 0,
            };
            if main_ms < 2_000 {
                return Err(GameError::BerserkWithoutMainTime);
            }
            let mut next = live.next_version();
            next.berserk[side.index()] = true;
            next.settle_berserk();
            let change = next.state_change(&svc.settings, live.version);
            let stored = svc.store.set_berserk(&change, side.index()).await;
            self.settle(svc, &mut live, next, stored, "the berserk")
                .await?;
            self.announce(svc, &live, Announcement::State, None);
            Ok(live.view(svc.now(), &svc.settings, false))
        })
        .await
    }
}
