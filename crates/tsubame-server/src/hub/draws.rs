//! Draw offers: offered, accepted (the game ends by agreement) or declined, each change the
//! game's next version, stored before it is put in place.

use super::ends::GameEndReason;
use super::error::GameError;
use super::room::Announcement;
use super::room::{Credential, GameRoom, GameView, Phase, Player};
use super::services::GameServices;

impl GameRoom {
    /// Offers, accepts or declines a draw. Offering when the opponent already offers accepts.
    pub(super) async fn draw(
        &self,
        svc: &GameServices,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, GameError> {
        self.retry_stale(svc, || self.draw_once(svc, who, action))
            .await
    }

    /// One try of the above.
    pub(super) async fn draw_once(
        &self,
        svc: &GameServices,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, GameError> {
        let mut live = self.game.lock().await;
        let side = Self::seat(&live, who)?;
        if live.phase != Phase::Playing {
            return Err(GameError::DrawNotInPlay);
        }
        if !live.started_by_both() && matches!(action, "offer" | "accept") {
            return Err(GameError::DrawTooEarly);
        }
        let opponent_offers = live.draw_offer == Some(!side);
        match action {
            "offer" | "accept" if opponent_offers => {
                self.finish(svc, &mut live, None, GameEndReason::Agreement)
                    .await?;
            }
            "offer" => {
                if live.players[(!side).index()] == Player::Engine {
                    return Err(GameError::DrawWithEngine);
                }
                if live.draw_offer != Some(side) {
                    let mut next = live.next_version();
                    next.draw_offer = Some(side);
                    self.store_state(svc, &mut live, next).await?;
                    self.announce(svc, &live, Announcement::State, None);
                }
            }
            "accept" => {
                return Err(GameError::NoDrawToAccept);
            }
            "decline" => {
                if !opponent_offers {
                    return Err(GameError::NoDrawToDecline);
                }
                let mut next = live.next_version();
                next.draw_offer = None;
                self.store_state(svc, &mut live, next).await?;
                self.announce(svc, &live, Announcement::State, None);
            }
            other => {
                return Err(GameError::UnknownOfferAction {
                    offer: "draw",
                    action: other.to_string(),
                });
            }
        }
        Ok(live.view(svc.now(), &svc.settings, false))
    }
}
