//! Rematches after a game between people: offered, declined, or agreed, when a new game
//! starts with the same rules, clock and rating, colours swapped.

use super::error::GameError;
use super::room::Announcement;
use super::room::{Credential, GameRoom, GameView, LiveGame, Phase, Player};
use super::seats::Seats;
use crate::game::HostedGame;
use std::sync::Arc;

impl Seats {
    /// Offers, accepts or declines a rematch after a game between people. When both want one,
    /// a new game starts with the same rules, clock and rating, colours swapped; each player's
    /// seat token (and login) of this game holds their seat in the new one.
    pub(super) async fn rematch(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, GameError> {
        room.retry_stale(&self.services, || self.rematch_once(room, who, action))
            .await
    }

    /// One try of the above.
    async fn rematch_once(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, GameError> {
        let mut live = room.game.lock().await;
        let side = GameRoom::seat(&live, who)?;
        if live.phase != Phase::Finished {
            return Err(GameError::RematchNotOver);
        }
        if live.players.contains(&Player::Engine) {
            return Err(GameError::RematchWithComputer);
        }
        if live.rematch_id.is_some() {
            return Ok(live.view(self.services.now(), &self.services.settings, false));
        }
        let opponent_offers = live.rematch_offer == Some(!side);
        match action {
            "offer" | "accept" if opponent_offers => {
                let rematch = self.start_rematch(&live).await?;
                let mut next = live.next_version();
                next.rematch_id = Some(rematch.clone());
                next.rematch_offer = None;
                let change = next.state_change(&self.services.settings, live.version);
                let stored = self.services.store.set_rematch(&change, &rematch).await;
                // When another instance's change came first (the other player's own accept,
                // say), it decides which rematch the players see: this one stays unplayed and
                // is aborted after its first-move time.
                room.settle(&self.services, &mut live, next, stored, "the rematch")
                    .await?;
            }
            "offer" => {
                let mut next = live.next_version();
                next.rematch_offer = Some(side);
                room.store_state(&self.services, &mut live, next).await?;
            }
            "accept" => {
                return Err(GameError::NoRematchToAccept);
            }
            "decline" => {
                if !opponent_offers {
                    return Err(GameError::NoRematchToDecline);
                }
                let mut next = live.next_version();
                next.rematch_offer = None;
                room.store_state(&self.services, &mut live, next).await?;
            }
            other => {
                return Err(GameError::UnknownOfferAction {
                    offer: "rematch",
                    action: other.to_string(),
                });
            }
        }
        room.announce(&self.services, &live, Announcement::State, None);
        Ok(live.view(self.services.now(), &self.services.settings, false))
    }

    /// Stores and starts the rematch of a finished game; its id.
    async fn start_rematch(&self, old: &LiveGame) -> Result<String, GameError> {
        let game = HostedGame::new(
            old.game.variant(),
            &old.game.options_text(),
            Some(&old.game.start_sfen()),
        )
        .map_err(GameError::Rules)?;
        let swap = |pair: &[Option<String>; 2]| [pair[1].clone(), pair[0].clone()];
        let accounts = swap(&old.accounts);
        let mut ratings = [None, None];
        for (side, account) in accounts.iter().enumerate() {
            ratings[side] = self
                .seat_rating(account.as_deref(), &game, &old.control)
                .await?;
        }
        let now = self.services.now();
        let live = LiveGame {
            phase: Phase::Playing,
            players: [Player::Human, Player::Human],
            token_hashes: [old.token_hashes[1].clone(), old.token_hashes[0].clone()],
            accounts,
            names: [old.names[1].clone(), old.names[0].clone()],
            rated: old.rated,
            ratings,
            engine_level: old.engine_level,
            public: old.public,
            ..LiveGame::made(game, old.control, now)
        };
        let id = live.id.clone();
        self.store_new(live).await?;
        Ok(id)
    }
}
