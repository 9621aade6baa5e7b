//! Who is on the site now. Every page asks who is logged in when it opens and every 15
//! seconds after (`GET /api/account`); that request marks its visitor (the account, or a
//! guest's address, hashed) as seen, in the database so that every instance counts the same
//! visitors. A visitor is online while seen within the last minute.

use crate::store::{Store, token_hash};
use anyhow::Result;
use serde::Serialize;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use utoipa::ToSchema;

/// How recently a visitor must have been seen to count as online.
pub const ONLINE_MS: u64 = 60_000;

/// A visitor's sighting is written at most this often by one instance.
const WRITE_EVERY_MS: u64 = 20_000;

/// Sightings older than this are deleted.
const FORGET_MS: u64 = 600_000;

/// The counts are computed at most this often by one instance.
const STATS_KEPT_MS: u64 = 5_000;

/// Visitors an instance remembers having written before it forgets the oldest.
const REMEMBERED_VISITORS: usize = 20_000;

/// The site's activity, as the home page shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct SiteStats {
    /// Visitors (players logged in, and guests) seen within the last minute.
    pub players_online: i64,
    /// Games between two sides being played now (seeks not counted).
    pub games_playing: i64,
}

/// A visitor: their account, or for a guest their address, hashed (no address is stored).
pub fn visitor_key(account_id: Option<&str>, client: IpAddr) -> String {
    match account_id {
        Some(account) => format!("a:{account}"),
        None => format!("g:{}", &token_hash(&client.to_string())[..24]),
    }
}

/// An instance's memory of the sightings it wrote and of the last counts.
#[derive(Debug, Default)]
pub struct Presence {
    written: Mutex<HashMap<String, u64>>,
    stats: Mutex<Option<(u64, SiteStats)>>,
}

impl Presence {
    /// Notes that `visitor` (of `account_id`, if any) is on the site at `now`.
    pub async fn seen(
        &self,
        store: &Store,
        visitor: String,
        account_id: Option<&str>,
        now: u64,
    ) -> Result<()> {
        {
            let Ok(mut written) = self.written.lock() else {
                return Ok(());
            };
            if written
                .get(&visitor)
                .is_some_and(|&at| now < at.saturating_add(WRITE_EVERY_MS))
            {
                return Ok(());
            }
            if written.len() >= REMEMBERED_VISITORS {
                written.retain(|_, at| now < at.saturating_add(WRITE_EVERY_MS));
            }
            written.insert(visitor.clone(), now);
        }
        store.note_presence(&visitor, account_id, now as i64).await
    }

    /// Visitors online and games in play, counted at most every few seconds.
    pub async fn stats(&self, store: &Store, now: u64) -> Result<SiteStats> {
        if let Ok(kept) = self.stats.lock()
            && let Some((at, stats)) = *kept
            && now < at.saturating_add(STATS_KEPT_MS)
        {
            return Ok(stats);
        }
        store
            .forget_presence(now.saturating_sub(FORGET_MS) as i64)
            .await?;
        let stats = SiteStats {
            players_online: store
                .visitors_seen_since(now.saturating_sub(ONLINE_MS) as i64)
                .await?,
            games_playing: store.games_playing().await?,
        };
        if let Ok(mut kept) = self.stats.lock() {
            *kept = Some((now, stats));
        }
        Ok(stats)
    }

    /// Whether an account was on the site within the last minute.
    pub async fn is_online(&self, store: &Store, account_id: &str, now: u64) -> Result<bool> {
        store
            .account_seen_since(account_id, now.saturating_sub(ONLINE_MS) as i64)
            .await
    }
}

impl Store {
    /// Writes a visitor's sighting.
    pub async fn note_presence(
        &self,
        visitor: &str,
        account_id: Option<&str>,
        now: i64,
    ) -> Result<()> {
        let done = sqlx::query(
            "INSERT INTO presence (visitor, account_id, seen_at) VALUES ($1, $2, $3) \
             ON CONFLICT (visitor) DO UPDATE SET seen_at = excluded.seen_at, \
             account_id = excluded.account_id",
        )
        .bind(visitor)
        .bind(account_id)
        .bind(now)
        .execute(self.pool())
        .await;
        self.written(done).map(|_| ())
    }

    /// Deletes sightings older than `before`.
    pub async fn forget_presence(&self, before: i64) -> Result<()> {
        let done = sqlx::query("DELETE FROM presence WHERE seen_at < $1")
            .bind(before)
            .execute(self.pool())
            .await;
        self.written(done).map(|_| ())
    }

    /// Visitors seen since `since`.
    pub async fn visitors_seen_since(&self, since: i64) -> Result<i64> {
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM presence WHERE seen_at >= $1")
            .bind(since)
            .fetch_one(self.pool())
            .await?;
        Ok(count)
    }

    /// Whether an account was seen since `since`.
    pub async fn account_seen_since(&self, account_id: &str, since: i64) -> Result<bool> {
        let (count,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM presence WHERE account_id = $1 AND seen_at >= $2")
                .bind(account_id)
                .bind(since)
                .fetch_one(self.pool())
                .await?;
        Ok(count > 0)
    }

    /// Games being played now.
    pub async fn games_playing(&self) -> Result<i64> {
        let (count,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM games WHERE status = 'playing'")
                .fetch_one(self.pool())
                .await?;
        Ok(count)
    }
}
