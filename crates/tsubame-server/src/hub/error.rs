//! Why the hub refuses an action on a game, a seat, a challenge or a chat: one variant a
//! refusal, with its sentence. The hub knows nothing of HTTP: what status, code and values a
//! client receives for each is decided once, at the edge (`From<GameError> for ApiError` in
//! `crate::error`).

use crate::game::RulesError;
use tsubame_rules::Color;

/// A refusal of the hub, or a fault of the server while it served the request.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// No game has this id (in memory or stored).
    #[error("no game with id {id:?}")]
    UnknownGame {
        /// The id as asked, cut to 64 characters: a long path is not echoed back in full.
        id: String,
    },
    /// A move before the second player took their seat.
    #[error("the game has not started: waiting for the second player")]
    NotStarted,
    /// A move after the end.
    #[error("the game is over ({reason})")]
    Over {
        /// Why it ended (`checkmate`, `time`, ...).
        reason: String,
    },
    /// An abort after the end.
    #[error("the game is already over")]
    AlreadyOver,
    /// A move out of turn.
    #[error("it is {}'s turn, not {}'s", turn.name(), side.name())]
    NotYourTurn {
        /// The side to move.
        turn: Color,
        /// The side that tried to move.
        side: Color,
    },
    /// Move text longer than any move is written.
    #[error("move text is too long")]
    MoveTooLong,
    /// A move that arrived after the mover's flag fell.
    #[error("time is up: the game is lost on time")]
    TimeUp,
    /// What the rules refuse: a move, a start position, rule options.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// Another instance changed the game first; it has been reloaded.
    #[error("the game changed meanwhile (on another server): look at it again")]
    Stale,
    /// A resignation of a game not in play.
    #[error("only a game in play can be resigned")]
    ResignNotInPlay,
    /// An abort once both players have moved.
    #[error("a game can only be aborted before both players have moved")]
    AbortTooLate,
    /// A draw offer outside play.
    #[error("draws are offered only in a game in play")]
    DrawNotInPlay,
    /// A draw offer before each side has moved.
    #[error("a draw is agreed only once each side has moved: abort the game instead")]
    DrawTooEarly,
    /// A draw offered to the computer.
    #[error("the engine does not accept draws")]
    DrawWithEngine,
    /// Accepting a draw nobody offered.
    #[error("there is no draw offer to accept")]
    NoDrawToAccept,
    /// Declining a draw nobody offered.
    #[error("there is no draw offer to decline")]
    NoDrawToDecline,
    /// An answer to an offer that is not `offer`, `accept` or `decline`.
    #[error("{offer} action {action:?} is not one of offer, accept, decline")]
    UnknownOfferAction {
        /// What is offered: `draw` or `rematch`.
        offer: &'static str,
        /// The action as sent.
        action: String,
    },
    /// A rematch offer before the end.
    #[error("a rematch is offered once the game is over")]
    RematchNotOver,
    /// A rematch against the computer.
    #[error("against the computer, start a new game instead")]
    RematchWithComputer,
    /// Accepting a rematch nobody offered.
    #[error("there is no rematch offer to accept")]
    NoRematchToAccept,
    /// Declining a rematch nobody offered.
    #[error("there is no rematch offer to decline")]
    NoRematchToDecline,
    /// Berserk outside a tournament.
    #[error("only a tournament's game has berserk")]
    BerserkNotArena,
    /// Berserk after one's first move.
    #[error("berserk is chosen before one's first move")]
    BerserkTooLate,
    /// Berserk with a clock that has no main time.
    #[error("this clock has no main time to halve: no berserk")]
    BerserkWithoutMainTime,
    /// A seat's action without a token or a login.
    #[error("a seat token or a login holding a seat is required")]
    NoCredential,
    /// A token that holds no seat in this game.
    #[error("the token does not hold a seat in this game")]
    TokenHoldsNoSeat,
    /// A logged-in account that holds no seat in this game.
    #[error("your account does not hold a seat in this game")]
    AccountHoldsNoSeat,
    /// Joining a game whose seats are taken.
    #[error("this game has no open seat")]
    NoOpenSeat,
    /// Joining one's own game.
    #[error("this is your own game: you cannot join it (cancel it instead)")]
    OwnGame,
    /// Joining a rated game without a login.
    #[error("log in to play a rated game")]
    RatedPlayNeedsLogin,
    /// Joining a seek whose rating range leaves one out.
    #[error("this seek is for ratings {min} to {max}; yours is {rating}")]
    OutsideRatingRange {
        /// The range's lowest rating.
        min: i64,
        /// The range's highest rating.
        max: i64,
        /// The joiner's rating.
        rating: i64,
    },
    /// Joining a seek with a rating range without a login.
    #[error("this seek is for ratings {min} to {max}: log in to join it")]
    RatingRangeNeedsLogin {
        /// The range's lowest rating.
        min: i64,
        /// The range's highest rating.
        max: i64,
    },
    /// Joining a private game without its invite code.
    #[error("this game is private: the invite code is missing or wrong")]
    Private,
    /// Joining a game whose creator blocks the joiner.
    #[error("this player does not take games from you")]
    CreatorBlocksYou,
    /// A time control that is not one (a negative period, an hour-long increment).
    #[error("{0}")]
    Clock(#[from] crate::clock::ClockError),
    /// A start position in which the game is already decided.
    #[error("the start position is already decided")]
    StartDecided,
    /// A rated game with a guest.
    #[error("only games between two logged-in players can be rated")]
    RatedNeedsAccounts,
    /// A rated game without a clock.
    #[error("a rated game needs a clock")]
    RatedNeedsClock,
    /// A rating range from high to low.
    #[error("a rating range is from a lower to a higher rating, for a seek")]
    RatingRangeReversed,
    /// A challenge with a rating range, or one not between two accounts.
    #[error("a challenge is from one logged-in player to another, without a rating range")]
    ChallengeShape,
    /// An address that created too many games in the last minute.
    #[error("this address has created {per_minute} games in the last minute")]
    TooManyCreated {
        /// How many a minute an address may create.
        per_minute: u32,
        /// Until the next is let through.
        wait: std::time::Duration,
    },
    /// A challenge from a guest, or to one.
    #[error("a challenge is from one logged-in player to another")]
    ChallengeNeedsLogins,
    /// A challenge to a player who blocks the challenger.
    #[error("this player does not take challenges from you")]
    ChallengeBlocked,
    /// A challenge past the number one may have waiting.
    #[error("you have {count} challenges waiting: withdraw one first")]
    TooManyChallenges {
        /// How many may wait at once.
        count: usize,
    },
    /// A second challenge between the same two players.
    #[error("a challenge between you and {name} is already waiting")]
    ChallengeAlreadyWaiting {
        /// The other player.
        name: String,
    },
    /// Accepting a challenge made to someone else.
    #[error("this challenge is for {name}: only they can accept it")]
    ChallengeNotYours {
        /// Whom it is for.
        name: String,
    },
    /// Answering a game that is not a challenge to the one answering.
    #[error("this game is not a challenge to you")]
    ChallengeNotToYou,
    /// Answering a challenge already answered or withdrawn.
    #[error("this challenge has already been answered or withdrawn")]
    ChallengeAnswered,
    /// A chat line from a guest spectator.
    #[error("only the players and logged-in spectators can chat")]
    ChatNotAllowed,
    /// A chat line from a muted account.
    #[error("an administrator muted your chat: {minutes} minutes to go")]
    ChatMuted {
        /// Whole minutes until the mute ends, rounded up.
        minutes: i64,
    },
    /// Chat lines faster than the limit.
    #[error("too many chat lines")]
    ChatTooFast {
        /// Until the next line is let through.
        wait: std::time::Duration,
    },
    /// A chat line that cannot be said (empty, too long).
    #[error(transparent)]
    ChatLine(#[from] crate::chat::LineError),
    /// A chat line past the game's limit of lines.
    #[error("this game's chat is full")]
    ChatFull,
    /// A write of `what` failed; nothing was stored.
    #[error("could not store {what}: {error}")]
    Storing {
        /// What was being stored (`the move`).
        what: &'static str,
        /// Why it failed (a [`crate::error::WritesRefused`] while the database refuses writes).
        error: anyhow::Error,
    },
    /// A read of the database failed.
    #[error("database: {0}")]
    Database(anyhow::Error),
    /// A stored game that cannot be rebuilt.
    #[error("stored game {id} is damaged: {error}")]
    Damaged {
        /// The game.
        id: String,
        /// What is wrong with it.
        error: String,
    },
    /// A stored value that does not read back (a tournament's clock, its variant).
    #[error("{0}")]
    Corrupt(String),
}

/// What kind of refusal a [`GameError`] is: the edge maps each to its HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The request is malformed (400).
    Malformed,
    /// The asker may not do this (403).
    NotAllowed,
    /// No such game (404).
    Missing,
    /// The game's state does not allow it now (409).
    NotNow,
    /// The rules refuse it (422, or 400 for rule options that are not options).
    Rules,
    /// Too much at once; let through again after a wait (429).
    TooFast,
    /// The database refuses writes for now; nothing changed (503).
    Unavailable,
    /// The server failed (500).
    Fault,
}

impl GameError {
    /// A game that is not there: `id` as asked, cut to 64 characters.
    pub fn unknown_game(id: &str) -> GameError {
        GameError::UnknownGame {
            id: id.chars().take(64).collect(),
        }
    }

    /// What kind of refusal this is.
    pub fn refusal(&self) -> Refusal {
        use GameError::*;
        match self {
            MoveTooLong
            | UnknownOfferAction { .. }
            | Clock(_)
            | StartDecided
            | ChatLine(_)
            | RatedNeedsAccounts
            | RatedNeedsClock
            | RatingRangeReversed
            | ChallengeShape
            | ChallengeNeedsLogins => Refusal::Malformed,
            NoCredential
            | TokenHoldsNoSeat
            | AccountHoldsNoSeat
            | RatedPlayNeedsLogin
            | OutsideRatingRange { .. }
            | RatingRangeNeedsLogin { .. }
            | Private
            | CreatorBlocksYou
            | ChallengeBlocked
            | ChallengeNotYours { .. }
            | ChallengeNotToYou
            | ChatNotAllowed
            | ChatMuted { .. } => Refusal::NotAllowed,
            UnknownGame { .. } => Refusal::Missing,
            NotStarted
            | Over { .. }
            | AlreadyOver
            | NotYourTurn { .. }
            | TimeUp
            | Stale
            | ResignNotInPlay
            | AbortTooLate
            | DrawNotInPlay
            | DrawTooEarly
            | DrawWithEngine
            | NoDrawToAccept
            | NoDrawToDecline
            | RematchNotOver
            | RematchWithComputer
            | NoRematchToAccept
            | NoRematchToDecline
            | BerserkNotArena
            | BerserkTooLate
            | BerserkWithoutMainTime
            | NoOpenSeat
            | OwnGame
            | TooManyChallenges { .. }
            | ChallengeAlreadyWaiting { .. }
            | ChallengeAnswered
            | ChatFull => Refusal::NotNow,
            Rules(_) => Refusal::Rules,
            TooManyCreated { .. } | ChatTooFast { .. } => Refusal::TooFast,
            Storing { error, .. } if error.is::<crate::error::WritesRefused>() => {
                Refusal::Unavailable
            }
            Storing { .. } | Database(_) | Damaged { .. } | Corrupt(_) => Refusal::Fault,
        }
    }

    /// Whether this is the database refusing writes: already logged once by the store, so not
    /// worth a line per game or request.
    pub fn is_unavailable(&self) -> bool {
        self.refusal() == Refusal::Unavailable
    }

    /// Whether this refuses the request as the game stood (not allowed, not now, against the
    /// rules), so that it may be different on the game's latest stored version.
    pub fn depends_on_the_game(&self) -> bool {
        match self {
            // Rule options that are not options are malformed whatever the game's version.
            GameError::Rules(RulesError::Options(_)) => false,
            _ => matches!(
                self.refusal(),
                Refusal::NotAllowed | Refusal::NotNow | Refusal::Rules
            ),
        }
    }
}
