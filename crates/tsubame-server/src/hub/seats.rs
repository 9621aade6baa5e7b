//! Seating players: games created (a seek, an invite, a game against the computer), open
//! seats taken, and rematches agreed, each stored before anyone is told.

use super::challenges::MAX_WAITING_CHALLENGES;
use super::computer::{Computer, engine_name};
use super::ends::GameEndReason;
use super::error::GameError;
use super::room::Announcement;
use super::room::{
    Credential, GameRoom, GameView, LiveGame, Notice, Phase, Player, constant_time_eq,
};
use super::rooms::Rooms;
use super::services::{GameServices, random_hex};
use crate::clock::TimeControl;
use crate::game::HostedGame;
use crate::ratings::{SeatRating, Speed, rating_game};
use crate::store::{ChallengeStored, StartedSeats, token_hash};
use serde::Serialize;
use std::sync::Arc;
use tsubame_engine::strength::Level;
use tsubame_rules::Color;
use tsubame_rules::Variant;
use utoipa::ToSchema;

/// What a seat gets when it creates or joins a game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatGrant {
    /// The game's id.
    pub game_id: String,
    /// `sente` or `gote`.
    #[schema(value_type = super::Side)]
    pub seat: &'static str,
    /// The seat's secret: needed to move, resign, offer a draw or abort.
    pub token: String,
    /// The secret for the other player to join, while their seat is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

/// What creating a game needs.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Variant.
    pub variant: Variant,
    /// Rule options, `name=value,...`.
    pub options: String,
    /// A start position other than the variant's.
    pub start_sfen: Option<String>,
    /// Clock.
    pub control: TimeControl,
    /// Play the engine instead of a person.
    pub against_engine: bool,
    /// Engine strength 1 to 5.
    pub engine_level: u8,
    /// The creator's seat.
    pub creator_side: Color,
    /// Who creates it.
    pub creator: Sitter,
    /// Whether the result changes the players' ratings (only between two accounts).
    pub rated: bool,
    /// Who may join a seek: the least and most rating.
    pub rating_range: Option<(i64, i64)>,
    /// Listed in the lobby.
    pub public: bool,
    /// A challenge: the one account (and its name) that may take the open seat.
    pub challenged: Option<Sitter>,
}

/// Who takes a seat: an account, or a guest with a generated name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sitter {
    /// The account's id; none for a guest.
    pub account: Option<String>,
    /// The name shown.
    pub name: String,
}

/// Seats players in the rooms: creation, joining, rematch.
pub(super) struct Seats {
    pub(super) services: Arc<GameServices>,
    rooms: Arc<Rooms>,
    computer: Computer,
}

impl Seats {
    /// Seating in these rooms, with this computer for games against it.
    pub(super) fn new(rooms: Arc<Rooms>, computer: Computer) -> Seats {
        Seats {
            services: rooms.services().clone(),
            rooms,
            computer,
        }
    }

    /// An account's rating for a game's category, as its seat shows it; none for a guest or
    /// a game without a clock. A player with no rated game yet has the starting rating.
    pub(super) async fn seat_rating(
        &self,
        account: Option<&str>,
        game: &HostedGame,
        control: &TimeControl,
    ) -> Result<Option<SeatRating>, GameError> {
        let (Some(account), Some(speed)) = (account, Speed::of(control)) else {
            return Ok(None);
        };
        let rating = self
            .services
            .store
            .rating(
                account,
                rating_game(game.variant(), &game.options_text()),
                speed.name(),
            )
            .await
            .map_err(GameError::Database)?
            .unwrap_or_default();
        Ok(Some(SeatRating::of(&rating)))
    }

    /// Creates a game and returns the creator's seat.
    pub(super) async fn create(&self, new: NewGame) -> Result<SeatGrant, GameError> {
        new.control.validate()?;
        let game = HostedGame::new(new.variant, &new.options, new.start_sfen.as_deref())
            .map_err(GameError::Rules)?;
        if game.outcome().is_some() {
            return Err(GameError::StartDecided);
        }
        if new.rated && (new.against_engine || new.creator.account.is_none()) {
            return Err(GameError::RatedNeedsAccounts);
        }
        if new.rated && Speed::of(&new.control).is_none() {
            return Err(GameError::RatedNeedsClock);
        }
        if let Some((min, max)) = new.rating_range
            && (min > max || new.against_engine)
        {
            return Err(GameError::RatingRangeReversed);
        }
        if new.challenged.is_some()
            && (new.against_engine || new.creator.account.is_none() || new.rating_range.is_some())
        {
            return Err(GameError::ChallengeShape);
        }
        let creator = new.creator_side;
        // A challenge's seat is taken by its account, not by whoever has a link.
        let invitable = !new.against_engine && new.challenged.is_none();
        let engine_level = new.engine_level.clamp(1, Level::MAX);
        let mut accounts = [None, None];
        accounts[creator.index()] = new.creator.account.clone();
        let mut names = [String::new(), String::new()];
        names[creator.index()] = new.creator.name.clone();
        let mut ratings = [None, None];
        ratings[creator.index()] = self
            .seat_rating(new.creator.account.as_deref(), &game, &new.control)
            .await?;
        if new.against_engine {
            names[(!creator).index()] = engine_name(engine_level);
        }
        if let Some(challenged) = &new.challenged {
            names[(!creator).index()] = challenged.name.clone();
        }
        let mut players = [Player::Open, Player::Open];
        players[creator.index()] = Player::Human;
        players[(!creator).index()] = if new.against_engine {
            Player::Engine
        } else {
            Player::Open
        };
        // Only the creator's seat gets a token now; an open seat's is made when it is taken.
        let creator_token = random_hex(16);
        let mut token_hashes = [String::new(), String::new()];
        token_hashes[creator.index()] = token_hash(&creator_token);
        let now = self.services.now();
        let phase = if new.against_engine {
            Phase::Playing
        } else {
            Phase::Waiting
        };
        let live = LiveGame {
            phase,
            players,
            token_hashes,
            accounts,
            names,
            rated: new.rated,
            ratings,
            rating_range: new.rating_range,
            engine_level,
            public: new.public && !new.against_engine && new.challenged.is_none(),
            challenged: new.challenged.and_then(|sitter| sitter.account),
            ..LiveGame::made(game, new.control, now)
        };
        let grant = SeatGrant {
            game_id: live.id.clone(),
            seat: creator.name(),
            token: creator_token,
            invite: invitable.then(|| live.invite.clone()),
        };
        match live
            .challenged
            .is_some()
            .then(|| live.accounts[creator.index()].clone())
        {
            Some(Some(challenger)) => self.store_new_challenge(live, &challenger).await?,
            _ => self.store_new(live).await?,
        }
        Ok(grant)
    }

    /// Stores a challenge just made, if its limits allow (checked in the transaction that
    /// stores it), then hosts it.
    async fn store_new_challenge(&self, live: LiveGame, challenger: &str) -> Result<(), GameError> {
        let row = live.new_row(&self.services.settings)?;
        let notice = serde_json::to_string(&Notice::of(&live.id, live.version)).unwrap_or_default();
        let stored = self
            .services
            .store
            .insert_challenge(&row, &notice, challenger, MAX_WAITING_CHALLENGES as i64)
            .await
            .map_err(|e| GameError::Storing {
                what: "the challenge",
                error: e,
            })?;
        match stored {
            ChallengeStored::Made => {
                self.rooms.insert(live);
                Ok(())
            }
            ChallengeStored::PairWaiting => {
                let open = live.players.iter().position(|&p| p == Player::Open);
                let name = open
                    .and_then(|side| live.names.get(side))
                    .cloned()
                    .unwrap_or_default();
                Err(GameError::ChallengeAlreadyWaiting { name })
            }
            ChallengeStored::TooMany => Err(GameError::TooManyChallenges {
                count: MAX_WAITING_CHALLENGES,
            }),
        }
    }

    /// A tournament's game between two accounts (sente, gote), made but not stored: both
    /// seats are held by their logins, the game is listed and starts at once.
    pub(super) async fn paired(
        &self,
        game: HostedGame,
        control: TimeControl,
        rated: bool,
        tournament_id: &str,
        players: [Sitter; 2],
    ) -> Result<LiveGame, GameError> {
        let mut ratings = [None, None];
        for (side, player) in players.iter().enumerate() {
            ratings[side] = self
                .seat_rating(player.account.as_deref(), &game, &control)
                .await?;
        }
        let [sente, gote] = players;
        Ok(LiveGame {
            phase: Phase::Playing,
            players: [Player::Human, Player::Human],
            // Nobody is handed these tokens: the players act through their logins.
            token_hashes: [token_hash(&random_hex(16)), token_hash(&random_hex(16))],
            accounts: [sente.account, gote.account],
            names: [sente.name, gote.name],
            rated,
            ratings,
            public: true,
            tournament: Some(tournament_id.to_string()),
            ..LiveGame::made(game, control, self.services.now())
        })
    }

    /// Hosts tournament games just stored: their clocks run from now.
    pub(super) fn host_stored(&self, games: Vec<LiveGame>) {
        for live in games {
            self.rooms.insert(live);
        }
    }

    /// Stores a game just made, then hosts it: its clock and, on its turn, the computer.
    pub(super) async fn store_new(&self, mut live: LiveGame) -> Result<(), GameError> {
        // The computer's search, when it moves first, has not started.
        live.engine_waiting = live.phase == Phase::Playing
            && live.players[live.side_to_move().index()] == Player::Engine;
        let row = live.new_row(&self.services.settings)?;
        let notice = serde_json::to_string(&Notice::of(&live.id, live.version)).unwrap_or_default();
        self.services
            .store
            .insert_game(&row, &notice)
            .await
            .map_err(|e| GameError::Storing {
                what: "the new game",
                error: e,
            })?;
        let room = self.rooms.insert(live);
        self.computer.after_change(&room).await;
        Ok(())
    }

    /// Takes the open seat of a game with its invite (or of a public game without one).
    /// `who` is what the joiner presents: someone who already holds the other seat cannot
    /// play against themselves.
    pub(super) async fn join(
        &self,
        room: &Arc<GameRoom>,
        invite: Option<&str>,
        joiner: Sitter,
        who: &Credential<'_>,
    ) -> Result<SeatGrant, GameError> {
        room.retry_stale(&self.services, || {
            self.join_once(room, invite, joiner.clone(), who)
        })
        .await
    }

    /// One try of the above.
    async fn join_once(
        &self,
        room: &Arc<GameRoom>,
        invite: Option<&str>,
        joiner: Sitter,
        who: &Credential<'_>,
    ) -> Result<SeatGrant, GameError> {
        let mut live = room.game.lock().await;
        if live.phase != Phase::Waiting {
            return Err(GameError::NoOpenSeat);
        }
        if live.seat_for(who).is_some() {
            return Err(GameError::OwnGame);
        }
        if live.rated && joiner.account.is_none() {
            return Err(GameError::RatedPlayNeedsLogin);
        }
        let joiner_rating = self
            .seat_rating(joiner.account.as_deref(), &live.game, &live.control)
            .await?;
        if let Some((min, max)) = live.rating_range {
            match joiner_rating {
                Some(seat) if (min..=max).contains(&seat.rating) => {}
                Some(seat) => {
                    return Err(GameError::OutsideRatingRange {
                        min,
                        max,
                        rating: seat.rating,
                    });
                }
                None => {
                    return Err(GameError::RatingRangeNeedsLogin { min, max });
                }
            }
        }
        if let Some(challenged) = &live.challenged
            && joiner.account.as_deref() != Some(challenged.as_str())
        {
            let open = live.players.iter().position(|&p| p == Player::Open);
            let name = open
                .and_then(|side| live.names.get(side))
                .cloned()
                .unwrap_or_default();
            return Err(GameError::ChallengeNotYours { name });
        }
        let invited = live.challenged.is_some()
            || invite.is_some_and(|i| constant_time_eq(i.as_bytes(), live.invite.as_bytes()));
        if !invited && !live.public {
            return Err(GameError::Private);
        }
        let Some(open) = live.players.iter().position(|&p| p == Player::Open) else {
            return Err(GameError::NoOpenSeat);
        };
        let joiner_token = random_hex(16);
        let now = self.services.now();
        let mut next = live.next_version();
        next.players[open] = Player::Human;
        next.token_hashes[open] = token_hash(&joiner_token);
        next.accounts[open] = joiner.account;
        next.names[open] = joiner.name;
        next.ratings[open] = joiner_rating;
        next.phase = Phase::Playing;
        next.turn_started = now;
        let change = next.state_change(&self.services.settings, live.version);
        let seats = StartedSeats {
            players: [next.players[0].name(), next.players[1].name()],
            token_hashes: [&next.token_hashes[0], &next.token_hashes[1]],
            accounts: [next.accounts[0].as_deref(), next.accounts[1].as_deref()],
            names: [&next.names[0], &next.names[1]],
            ratings: next.ratings,
        };
        let stored = self
            .services
            .store
            .start_game(&change, &seats, now as i64)
            .await;
        room.settle(&self.services, &mut live, next, stored, "the join")
            .await?;
        let grant = SeatGrant {
            game_id: live.id.clone(),
            seat: Color::ALL[open].name(),
            token: joiner_token,
            invite: None,
        };
        room.announce(&self.services, &live, Announcement::State, None);
        drop(live);
        self.computer.after_change(room).await;
        Ok(grant)
    }

    /// Declines a challenge: only the account it is for can, while it waits.
    pub(super) async fn decline(
        &self,
        room: &Arc<GameRoom>,
        account: &str,
    ) -> Result<GameView, GameError> {
        room.retry_stale(&self.services, || async {
            let mut live = room.game.lock().await;
            if live.challenged.as_deref() != Some(account) {
                return Err(GameError::ChallengeNotToYou);
            }
            if live.phase != Phase::Waiting {
                return Err(GameError::ChallengeAnswered);
            }
            room.finish(&self.services, &mut live, None, GameEndReason::Declined)
                .await?;
            Ok(live.view(self.services.now(), &self.services.settings, false))
        })
        .await
    }
}
