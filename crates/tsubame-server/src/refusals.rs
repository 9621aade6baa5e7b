//! How the domain's refusals reach a client: each [`GameError`], [`AccountError`],
//! [`EngineRefusal`] and [`AnalysisRefusal`] with its
//! HTTP status, its code (for the web UI to word it in the visitor's language,
//! `web/src/messages/errors.json`) and the values its sentence names. The one place where a
//! game's or an account's refusal meets HTTP.

use crate::accounts::{
    AccountError, GUEST_PREFIX, NAME_LENGTH, PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS,
};
use crate::chat::{LineError, MAX_CHARS};
use crate::engine_work::EngineRefusal;
use crate::error::ApiError;
use crate::game_analysis::{AnalysisRefusal, GAME_ANALYSIS_MAX_PLIES};
use crate::hub::{GameError, Refusal};
use axum::response::{IntoResponse, Response};

impl From<GameError> for ApiError {
    fn from(error: GameError) -> ApiError {
        use GameError::*;
        let message = error.to_string();
        let status = match error.refusal() {
            Refusal::Malformed => 400,
            Refusal::NotAllowed => 403,
            Refusal::Missing => 404,
            Refusal::NotNow => 409,
            Refusal::Rules => 422,
            Refusal::TooFast => 429,
            Refusal::Unavailable => 503,
            Refusal::Fault => 500,
        };
        let refused = || ApiError::new(status, message.clone());
        match error {
            Rules(rules) => ApiError::from_rules(rules),
            Storing { what, error } => ApiError::storing(what, error),
            TooManyCreated { per_minute, wait } => ApiError::busy_for(message, wait)
                .code("game.too-many-created")
                .param("count", per_minute),
            ChatTooFast { wait } => ApiError::busy_for(message, wait).code("chat.too-fast"),
            UnknownGame { .. } => refused().code("game.unknown"),
            NotStarted => refused().code("game.not-started"),
            Over { reason } => refused().code("game.over").param("reason", reason),
            AlreadyOver => refused().code("game.already-over"),
            NotYourTurn { turn, side } => refused()
                .code("game.not-your-turn")
                .param("turn", turn.name())
                .param("side", side.name()),
            TimeUp => refused().code("game.time-up"),
            Stale => refused().code("game.stale"),
            ResignNotInPlay => refused().code("game.resign-not-in-play"),
            AbortTooLate => refused().code("game.abort-too-late"),
            DrawNotInPlay => refused().code("draw.not-in-play"),
            DrawTooEarly => refused().code("draw.too-early"),
            DrawWithEngine => refused().code("draw.engine"),
            NoDrawToAccept => refused().code("draw.none-to-accept"),
            NoDrawToDecline => refused().code("draw.none-to-decline"),
            RematchNotOver => refused().code("rematch.not-over"),
            RematchWithComputer => refused().code("rematch.computer"),
            NoRematchToAccept => refused().code("rematch.none-to-accept"),
            NoRematchToDecline => refused().code("rematch.none-to-decline"),
            BerserkNotArena => refused().code("berserk.not-arena"),
            BerserkTooLate => refused().code("berserk.too-late"),
            BerserkWithoutMainTime => refused().code("berserk.no-main-time"),
            NoCredential => refused().code("seat.none"),
            TokenHoldsNoSeat => refused().code("seat.token-holds-none"),
            AccountHoldsNoSeat => refused().code("seat.account-holds-none"),
            NoOpenSeat => refused().code("seat.no-open-seat"),
            OwnGame => refused().code("seat.own-game"),
            RatedPlayNeedsLogin => refused().code("login.needed-rated-play"),
            OutsideRatingRange { min, max, rating } => refused()
                .code("seat.rating-range")
                .param("min", min)
                .param("max", max)
                .param("rating", rating),
            RatingRangeNeedsLogin { min, max } => refused()
                .code("seat.rating-range-login")
                .param("min", min)
                .param("max", max),
            Private => refused().code("seat.private"),
            CreatorBlocksYou => refused().code("seat.blocked"),
            RatedNeedsAccounts => refused().code("game.rated-needs-accounts"),
            RatedNeedsClock => refused().code("game.rated-needs-clock"),
            ChallengeNeedsLogins => refused().code("challenge.login"),
            ChallengeBlocked => refused().code("challenge.blocked"),
            TooManyChallenges { count } => {
                refused().code("challenge.too-many").param("count", count)
            }
            ChallengeAlreadyWaiting { name } => refused()
                .code("challenge.already-waiting")
                .param("name", name),
            ChallengeNotYours { name } => refused().code("challenge.not-yours").param("name", name),
            ChallengeNotToYou => refused().code("challenge.not-to-you"),
            ChallengeAnswered => refused().code("challenge.answered"),
            ChatNotAllowed => refused().code("chat.not-allowed"),
            ChatMuted { minutes } => refused().code("chat.muted").param("minutes", minutes),
            ChatFull => refused().code("chat.full"),
            ChatLine(LineError::Empty) => refused().code("chat.empty"),
            ChatLine(LineError::TooLong { length }) => refused()
                .code("chat.too-long")
                .param("max", MAX_CHARS)
                .param("length", length),
            // Malformed requests no page sends, and the server's own faults: no code (a fault
            // is `internal` to the client whatever caused it).
            MoveTooLong
            | UnknownOfferAction { .. }
            | Clock(_)
            | StartDecided
            | RatingRangeReversed
            | ChallengeShape
            | Database(_)
            | Damaged { .. }
            | Corrupt(_) => ApiError::new(status, message),
        }
    }
}

impl IntoResponse for GameError {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl From<AccountError> for ApiError {
    fn from(error: AccountError) -> ApiError {
        use AccountError::*;
        let message = error.to_string();
        let refused = |status: u16| ApiError::new(status, message.clone());
        match error {
            NameLength { length } => refused(400)
                .code("signup.name-length")
                .param("min", NAME_LENGTH.start())
                .param("max", NAME_LENGTH.end())
                .param("length", length),
            NameCharacters { bad } => refused(400)
                .code("signup.name-characters")
                .param("bad", bad),
            GuestName => refused(400)
                .code("signup.name-guest")
                .param("prefix", GUEST_PREFIX),
            PasswordTooShort => refused(400)
                .code("password.too-short")
                .param("count", PASSWORD_MIN_CHARS),
            PasswordTooLong => refused(400)
                .code("password.too-long")
                .param("count", PASSWORD_MAX_BYTES),
            NameTaken { name } => refused(409).code("signup.name-taken").param("name", name),
            TooManySignups { wait } => ApiError::busy_for(message, wait).code("signup.too-many"),
            TooManyLoginsFromAddress { wait } => {
                ApiError::busy_for(message, wait).code("login.too-many-address")
            }
            TooManyLoginsForName { wait } => {
                ApiError::busy_for(message, wait).code("login.too-many-name")
            }
            TooManyPasswordAttempts { wait } => {
                ApiError::busy_for(message, wait).code("password.too-many")
            }
            HashingBusy => refused(429).code("login.busy"),
            WrongLogin => refused(403).code("login.wrong"),
            Closed => refused(403).code("login.closed"),
            WrongPassword => refused(403).code("password.wrong"),
            Gone => refused(404).code("account.gone"),
            GamesUnfinished { count } => refused(409)
                .code("account.games-unfinished")
                .param("count", count),
            Hashing(_) => ApiError::internal(message),
            Database { what, error } => ApiError::database(what, error),
        }
    }
}

impl IntoResponse for AccountError {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl From<EngineRefusal> for ApiError {
    fn from(refusal: EngineRefusal) -> ApiError {
        let message = refusal.to_string();
        match refusal {
            EngineRefusal::ShareFull {
                waiting,
                share,
                what,
            } => ApiError::busy(message)
                .code("engine.share-full")
                .param("count", waiting)
                .param("share", share)
                .param("what", what),
            EngineRefusal::Busy => ApiError::busy(message).code("engine.busy"),
            EngineRefusal::Failed => ApiError::internal(message),
        }
    }
}

impl From<AnalysisRefusal> for ApiError {
    fn from(refusal: AnalysisRefusal) -> ApiError {
        let message = refusal.to_string();
        match refusal {
            AnalysisRefusal::TooLong { plies } => ApiError::conflict(message)
                .code("analysis.too-long")
                .param("plies", plies)
                .param("max", GAME_ANALYSIS_MAX_PLIES),
            AnalysisRefusal::Busy => ApiError::busy(message).code("analysis.busy"),
            AnalysisRefusal::Failed => ApiError::internal(message),
        }
    }
}
