//! How many games one address may create.

use super::error::GameError;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;

/// Game creations by address: a burst, then one every 60/n seconds.
pub(super) struct CreationLimit {
    per_minute: u32,
    creations: DefaultKeyedRateLimiter<IpAddr>,
}

impl CreationLimit {
    /// At most `per_minute` games a minute from one address (at least one).
    pub(super) fn new(per_minute: u32) -> CreationLimit {
        let quota = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        CreationLimit {
            per_minute,
            creations: RateLimiter::keyed(Quota::per_minute(quota)),
        }
    }

    /// Counts a game creation from `client`, or refuses it (429) past the address's rate.
    pub(super) fn admit(&self, client: IpAddr) -> Result<(), GameError> {
        crate::rate::admit(&self.creations, &client).map_err(|wait| GameError::TooManyCreated {
            per_minute: self.per_minute,
            wait,
        })
    }
}
