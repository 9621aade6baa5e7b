//! Rematches after a game between people: offered, declined, or agreed, when a new game
//! starts with the same rules, clock and rating, colours swapped.

use super::room::{Credential, GameRoom, GameView, LiveGame, Phase, Player};
use super::seats::Seats;
use crate::error::ApiError;
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
    ) -> Result<GameView, ApiError> {
        room.retry_stale(&self.services, || self.rematch_once(room, who, action))
            .await
    }

    /// One try of the above.
    async fn rematch_once(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, ApiError> {
        let mut live = room.game.lock().await;
        let side = GameRoom::seat(&live, who)?;
        if live.phase != Phase::Finished {
            return Err(
                ApiError::conflict("a rematch is offered once the game is over")
                    .code("rematch.not-over"),
            );
        }
        if live.players.contains(&Player::Engine) {
            return Err(
                ApiError::conflict("against the computer, start a new game instead")
                    .code("rematch.computer"),
            );
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
                return Err(ApiError::conflict("there is no rematch offer to accept")
                    .code("rematch.none-to-accept"));
            }
            "decline" => {
                if !opponent_offers {
                    return Err(ApiError::conflict("there is no rematch offer to decline")
                        .code("rematch.none-to-decline"));
                }
                let mut next = live.next_version();
                next.rematch_offer = None;
                room.store_state(&self.services, &mut live, next).await?;
            }
            other => {
                return Err(ApiError::bad_request(format!(
                    "rematch action {other:?} is not one of offer, accept, decline"
                )));
            }
        }
        room.announce(&self.services, &live, "state", None);
        Ok(live.view(self.services.now(), &self.services.settings, false))
    }

    /// Stores and starts the rematch of a finished game; its id.
    async fn start_rematch(&self, old: &LiveGame) -> Result<String, ApiError> {
        let game = HostedGame::new(
            old.game.variant(),
            &old.game.options_text(),
            Some(&old.game.start_sfen()),
        )
        .map_err(ApiError::from_rules)?;
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
