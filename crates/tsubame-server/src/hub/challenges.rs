//! Challenges to a named player: a game made for one account, whose open seat that account
//! alone can take (accept) or close (decline), listed for both players while it waits.

use super::room::{GameView, Phase, Player};
use super::rooms::Rooms;
use serde::Serialize;
use utoipa::ToSchema;

/// The most challenges one player may have waiting at once.
pub const MAX_WAITING_CHALLENGES: usize = 5;

/// An account's challenges waiting for an answer.
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct ChallengeList {
    /// Challenges to the account, oldest first: each can be accepted (`POST
    /// /api/games/{id}/join`) or declined (`POST /api/games/{id}/decline`).
    pub incoming: Vec<ChallengeView>,
    /// The account's own challenges, oldest first: each can be withdrawn (`POST
    /// /api/games/{id}/abort`).
    pub outgoing: Vec<ChallengeView>,
    /// The account's arena games that have started and wait for a first move (the arena
    /// pairs without asking): where the site takes a paired player, from any page.
    pub arena_games: Vec<ArenaGameStart>,
}

/// An arena game that has started for the player.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ArenaGameStart {
    /// The game's id.
    pub game_id: String,
    /// Its arena.
    pub tournament_id: String,
}

/// A challenge as its players see it in a list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChallengeView {
    /// The game's id.
    pub game_id: String,
    /// Who challenges.
    pub from: String,
    /// Who is challenged.
    pub to: String,
    /// The challenger's seat: `sente` or `gote`.
    #[schema(value_type = super::Side)]
    pub from_side: &'static str,
    /// The game: variant, rules, clock, rating.
    pub game: GameView,
}

/// The waiting challenges to and from `account_id`, and its arena games starting.
pub(super) async fn challenges_of(rooms: &Rooms, account_id: &str) -> ChallengeList {
    let svc = rooms.services();
    let now = svc.now();
    let mut list = ChallengeList::default();
    for room in rooms.all() {
        let live = room.game.lock().await;
        if let Some(tournament) = &live.tournament
            && live.phase == Phase::Playing
            && !live.started_by_both()
            && live
                .accounts
                .iter()
                .any(|a| a.as_deref() == Some(account_id))
        {
            list.arena_games.push(ArenaGameStart {
                game_id: live.id.clone(),
                tournament_id: tournament.clone(),
            });
        }
        let Some(challenged) = live.challenged.as_deref() else {
            continue;
        };
        if live.phase != Phase::Waiting {
            continue;
        }
        let Some(open) = live.players.iter().position(|&p| p == Player::Open) else {
            continue;
        };
        let creator = 1 - open;
        let incoming = challenged == account_id;
        let outgoing = live.accounts[creator].as_deref() == Some(account_id);
        if !incoming && !outgoing {
            continue;
        }
        let view = ChallengeView {
            game_id: live.id.clone(),
            from: live.names[creator].clone(),
            to: live.names[open].clone(),
            from_side: if creator == 0 { "sente" } else { "gote" },
            game: live.summary(now, &svc.settings),
        };
        if incoming {
            list.incoming.push(view);
        } else {
            list.outgoing.push(view);
        }
    }
    list.incoming.sort_by_key(|c| c.game.created_at);
    list.outgoing.sort_by_key(|c| c.game.created_at);
    list
}
