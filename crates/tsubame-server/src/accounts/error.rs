//! Why an account, a login or a session is refused: one variant a refusal, with its sentence.
//! What status, code and values a client receives for each is decided at the edge
//! (`From<AccountError> for ApiError` in `crate::refusals`).

use super::{GUEST_PREFIX, NAME_LENGTH, PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS};
use std::time::Duration;

/// A refusal of the accounts, or a fault of the server while it served the request.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// A name of too few or too many characters.
    #[error(
        "a user name has {} to {} characters (this one has {length})",
        NAME_LENGTH.start(),
        NAME_LENGTH.end()
    )]
    NameLength {
        /// The name's length in characters.
        length: usize,
    },
    /// A name with a character other than letters a-z, digits, `_` and `-`.
    #[error("a user name has only letters a-z, digits, _ and - (not {bad:?})")]
    NameCharacters {
        /// The first character that is not allowed.
        bad: char,
    },
    /// A name that looks like a guest's.
    #[error("names starting with {GUEST_PREFIX} are guests' names")]
    GuestName,
    /// A password too short.
    #[error("a password has at least {PASSWORD_MIN_CHARS} characters")]
    PasswordTooShort,
    /// A password too long to hash.
    #[error("a password has at most {PASSWORD_MAX_BYTES} bytes")]
    PasswordTooLong,
    /// A name someone has.
    #[error("the name {name} is taken")]
    NameTaken {
        /// The name asked for.
        name: String,
    },
    /// Too many sign-ups from one address.
    #[error("too many new accounts from this address")]
    TooManySignups {
        /// Until the next is let through.
        wait: Duration,
    },
    /// Too many logins from one address.
    #[error("too many login attempts from this address")]
    TooManyLoginsFromAddress {
        /// Until the next is let through.
        wait: Duration,
    },
    /// Too many logins to one name.
    #[error("too many login attempts for this name")]
    TooManyLoginsForName {
        /// Until the next is let through.
        wait: Duration,
    },
    /// Too many password checks for one account.
    #[error("too many password attempts for this account")]
    TooManyPasswordAttempts {
        /// Until the next is let through.
        wait: Duration,
    },
    /// Too many password hashes waiting at once.
    #[error("too many logins at once: try again shortly")]
    HashingBusy,
    /// A wrong name or a wrong password: the same answer for both.
    #[error("wrong user name or password")]
    WrongLogin,
    /// The right password of an account the administrators closed.
    #[error("this account was closed by the site's administrators")]
    Closed,
    /// A wrong password before a change that needs it.
    #[error("the password is not this account's")]
    WrongPassword,
    /// A logged-in account deleted meanwhile.
    #[error("this account no longer exists")]
    Gone,
    /// Deleting an account with games not over.
    #[error("{count} of your games are not over: finish, resign or abort them first")]
    GamesUnfinished {
        /// How many.
        count: i64,
    },
    /// Password hashing failed or stopped.
    #[error("{0}")]
    Hashing(String),
    /// A read or write of `what` failed (a [`crate::error::WritesRefused`] while the database
    /// refuses writes).
    #[error("database: {error}")]
    Database {
        /// What was read or written (`your account or login`).
        what: &'static str,
        /// Why it failed.
        error: anyhow::Error,
    },
}

impl AccountError {
    /// A failed read or write of accounts and sessions.
    pub(super) fn database(error: anyhow::Error) -> AccountError {
        AccountError::Database {
            what: "your account or login",
            error,
        }
    }
}
