//! Keyed rate limits (per address, per name, per account): one way to count a request and to
//! say how long a refused key waits.

use governor::DefaultKeyedRateLimiter;
use governor::clock::{Clock as _, DefaultClock};
use std::hash::Hash;
use std::time::Duration;

/// How many keys a limiter holds before the quiet ones are forgotten.
const KEYS_KEPT: usize = 10_000;

/// Counts one request of `key` against `limiter`, or refuses it with the wait until the key may
/// try again. Past [`KEYS_KEPT`] keys, those whose whole quota has come back are forgotten
/// first, so a flood of distinct keys (addresses, names) cannot grow the table without bound.
pub(crate) fn admit<K: Hash + Eq + Clone>(
    limiter: &DefaultKeyedRateLimiter<K>,
    key: &K,
) -> Result<(), Duration> {
    if limiter.len() > KEYS_KEPT {
        limiter.retain_recent();
    }
    limiter
        .check_key(key)
        .map_err(|refused| refused.wait_time_from(DefaultClock::default().now()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::{Quota, RateLimiter};
    use std::num::NonZeroU32;

    #[test]
    fn a_key_past_its_quota_waits_and_others_do_not() {
        let limiter = RateLimiter::keyed(Quota::per_minute(NonZeroU32::MIN.saturating_add(1)));
        assert_eq!(admit(&limiter, &"a"), Ok(()));
        assert_eq!(admit(&limiter, &"a"), Ok(()));
        let wait = admit(&limiter, &"a").expect_err("a third request in the minute is refused");
        assert!(
            wait > Duration::from_secs(20) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert_eq!(admit(&limiter, &"b"), Ok(()));
    }

    #[test]
    fn quiet_keys_are_forgotten_once_the_table_is_full() {
        // Each key's one request comes back within a millisecond.
        let per_second = NonZeroU32::new(1000).expect("not zero");
        let limiter =
            RateLimiter::keyed(Quota::per_second(per_second).allow_burst(NonZeroU32::MIN));
        for key in 0..=KEYS_KEPT as u32 {
            assert_eq!(admit(&limiter, &key), Ok(()));
        }
        assert_eq!(limiter.len(), KEYS_KEPT + 1);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(admit(&limiter, &u32::MAX), Ok(()));
        assert!(limiter.len() < 10, "{} keys kept", limiter.len());
    }
}
