//! What every room, and each of the hub's workers, uses: the database, the operator's
//! settings, the metrics and the server's clock.

use crate::accounts::AccountLimits;
use crate::connections::ConnectionLimits;
use crate::engine_work::EngineLimits;
use crate::metrics::Metrics;
use crate::store::Store;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What a server operator may set for the games it hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Between people, how long each side has for its first move (which runs no clock) before
    /// the game is aborted: a player who never moves cannot hold the other one forever.
    pub first_move_ms: u64,
    /// How long a seek waits for a second player, and a game against the computer for its
    /// player's first move, before it is aborted.
    pub seek_expiry_ms: u64,
    /// Slots and queues of the engine's searches.
    pub engine: EngineLimits,
    /// Connections per address and the idle time (game sockets are pinged well within it).
    pub connections: ConnectionLimits,
    /// Games one address may create a minute (in a burst, then one every 60/n seconds).
    pub games_per_minute: u32,
    /// Limits on sign-ups and logins, and how long a login lasts.
    pub accounts: AccountLimits,
    /// The arenas made from the schedule.
    pub arenas: Vec<crate::arena::schedule::Schedule>,
    /// With workers (`--engine-workers`), the computer's moves are jobs for `tsubame worker`
    /// processes, held so; without, the server searches them in its own slots.
    pub workers: Option<crate::workers::WorkerSettings>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            first_move_ms: 30_000,
            seek_expiry_ms: 3_600_000,
            engine: EngineLimits::default(),
            connections: ConnectionLimits::default(),
            games_per_minute: 30,
            accounts: AccountLimits::default(),
            arenas: Vec::new(),
            workers: None,
        }
    }
}

/// The database, the settings, the metrics and the clock, shared by the rooms and workers.
pub struct GameServices {
    /// The database.
    pub store: Store,
    /// What the operator set.
    pub settings: Settings,
    /// The server's metrics.
    pub metrics: Metrics,
    /// This instance's name in its announcements, so that it skips its own.
    pub instance: String,
    /// The accounts of each challenge that changed (made, accepted, declined, withdrawn,
    /// expired, here or on another instance): what the challenge streams watch, each looking
    /// again only when its own account is among them.
    pub challenges: tokio::sync::broadcast::Sender<std::sync::Arc<[String]>>,
    /// The id of each tournament that changed (here or, heard, on another instance): what a
    /// tournament's sockets watch.
    pub tournaments: tokio::sync::broadcast::Sender<std::sync::Arc<str>>,
    /// Sessions that ended (here or, heard, on another instance): what the sockets and event
    /// streams a session opened watch, to close when it ends.
    pub sessions_ended: tokio::sync::broadcast::Sender<std::sync::Arc<crate::accounts::SessionEnd>>,
    epoch: Instant,
    epoch_unix_ms: u64,
}

impl GameServices {
    /// Services over this database and settings, with the clock starting now.
    pub fn new(store: Store, settings: Settings) -> anyhow::Result<GameServices> {
        let epoch_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Ok(GameServices {
            store,
            settings,
            metrics: Metrics::new()?,
            instance: random_hex(8),
            challenges: tokio::sync::broadcast::Sender::new(256),
            tournaments: tokio::sync::broadcast::Sender::new(256),
            sessions_ended: tokio::sync::broadcast::Sender::new(256),
            epoch: Instant::now(),
            epoch_unix_ms,
        })
    }

    /// Server time: unix milliseconds that never go backwards.
    pub fn now(&self) -> u64 {
        self.epoch_unix_ms + self.epoch.elapsed().as_millis() as u64
    }

    /// Tells the challenge streams that a challenge between these accounts changed.
    pub(super) fn challenge_changed(&self, accounts: std::sync::Arc<[String]>) {
        // Nobody listening is fine.
        let _ = self.challenges.send(accounts);
    }
}

pub(crate) use crate::random::random_hex;
