//! One bounded scheduler for every engine search the server runs: computer opponents and
//! analysis requests share a fixed number of slots (one search per core by default), and
//! analysis requests are admitted only while the queue and the asking address have room.
//! Work on records (replays, imports) is admitted the same way, with a share of its own for
//! each address: the analysis board replays the position it is shown while its search of
//! the one before is still stopping, and must not be refused by its own search.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Why the engine's scheduler refuses work now (the status and code are given at the edge,
/// `crate::refusals`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineRefusal {
    /// The address already has its share of this kind of work waiting or running.
    #[error(
        "this address already has {waiting} {share} waiting or running: wait for one to finish \
         before more {what}"
    )]
    ShareFull {
        /// How many it has.
        waiting: usize,
        /// The kind of work (`analyses and mate searches`, `replays and imports`).
        share: &'static str,
        /// What was asked for (`analyses`, `replays`).
        what: &'static str,
    },
    /// Every slot and the queue are full.
    #[error("the engine is busy: try again shortly")]
    Busy,
    /// The scheduler's bookkeeping failed.
    #[error("the engine scheduler failed")]
    Failed,
}

/// Limits of the engine work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineLimits {
    /// Searches that run at once.
    pub slots: usize,
    /// Analysis requests that may wait for a slot, beyond those running.
    pub queue: usize,
    /// Analysis requests one address may have waiting or running, and as many replays and
    /// imports besides.
    pub per_client: usize,
}

/// The two shares of an address: searches, and work on records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Share {
    Searches,
    Records,
}

impl Default for EngineLimits {
    fn default() -> Self {
        EngineLimits {
            slots: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 32,
            per_client: 2,
        }
    }
}

/// The scheduler.
pub struct EngineWork {
    limits: EngineLimits,
    slots: Arc<Semaphore>,
    /// Requests admitted (waiting or running), by address and share.
    admitted: Mutex<HashMap<(IpAddr, Share), usize>>,
    /// How long the last computer moves waited for a slot or a worker, and when they began.
    recent_waits: Mutex<VecDeque<(Instant, Duration)>>,
    /// The computer moves waiting now, by number, with when each began to wait.
    waiting_moves: Mutex<(u64, HashMap<u64, Instant>)>,
}

/// A computer move waiting for a slot or a worker: [`WaitingMove::began`] once its search
/// begins records its wait; dropped before, it stops counting as waiting.
pub struct WaitingMove {
    work: Arc<EngineWork>,
    number: u64,
    since: Instant,
}

impl WaitingMove {
    /// The move's search began: its wait is remembered; how long it was.
    pub fn began(self) -> Duration {
        let waited = self.since.elapsed();
        if let Ok(mut waits) = self.work.recent_waits.lock() {
            if waits.len() == RECENT_WAITS {
                waits.pop_front();
            }
            waits.push_back((Instant::now(), waited));
        }
        waited
    }
}

impl Drop for WaitingMove {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.work.waiting_moves.lock() {
            waiting.1.remove(&self.number);
        }
    }
}

/// How long a computer's move waits now, as `GET /api/engine/queue` answers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct EngineQueue {
    /// Computer moves waiting for a slot, or, on a server with workers, for a worker (every
    /// instance's).
    pub waiting: i64,
    /// How long the oldest of them has waited, in milliseconds.
    pub oldest_wait_ms: u64,
    /// The mean wait of the computer's moves begun in the last five minutes, in milliseconds.
    pub recent_wait_ms: u64,
    /// Whether either wait is past three seconds: the lobby then says the computer is slow.
    pub long: bool,
}

/// The computer moves whose waits are remembered.
const RECENT_WAITS: usize = 32;

/// How long a computer move's wait is remembered.
const RECENT_WAIT_SPAN: Duration = Duration::from_secs(300);

/// A wait for a computer's move past which the queue is called long (the lobby says so).
pub const LONG_WAIT: Duration = Duration::from_secs(3);

/// An admitted request; dropping it gives its place back.
pub struct AnalysisTicket {
    work: Arc<EngineWork>,
    client: (IpAddr, Share),
}

impl Drop for AnalysisTicket {
    fn drop(&mut self) {
        if let Ok(mut admitted) = self.work.admitted.lock()
            && let Some(count) = admitted.get_mut(&self.client)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                admitted.remove(&self.client);
            }
        }
    }
}

impl EngineWork {
    /// A scheduler with these limits (at least one slot).
    pub fn new(limits: EngineLimits) -> Arc<EngineWork> {
        let limits = EngineLimits {
            slots: limits.slots.max(1),
            ..limits
        };
        Arc::new(EngineWork {
            limits,
            slots: Arc::new(Semaphore::new(limits.slots)),
            admitted: Mutex::new(HashMap::new()),
            recent_waits: Mutex::new(VecDeque::new()),
            waiting_moves: Mutex::new((0, HashMap::new())),
        })
    }

    /// A computer move begins to wait for a slot or a worker.
    pub fn computer_move_waits(self: &Arc<Self>) -> WaitingMove {
        let since = Instant::now();
        let number = match self.waiting_moves.lock() {
            Ok(mut waiting) => {
                waiting.0 += 1;
                let number = waiting.0;
                waiting.1.insert(number, since);
                number
            }
            Err(_) => 0,
        };
        WaitingMove {
            work: self.clone(),
            number,
            since,
        }
    }

    /// The computer moves waiting now on this instance, and how long the oldest has waited.
    pub fn waiting_moves(&self) -> (usize, Duration) {
        let Ok(waiting) = self.waiting_moves.lock() else {
            return (0, Duration::ZERO);
        };
        let oldest = waiting
            .1
            .values()
            .map(Instant::elapsed)
            .max()
            .unwrap_or(Duration::ZERO);
        (waiting.1.len(), oldest)
    }

    /// The mean wait of the computer moves begun in the last five minutes; zero with none.
    pub fn recent_wait(&self) -> Duration {
        let Ok(waits) = self.recent_waits.lock() else {
            return Duration::ZERO;
        };
        let recent: Vec<Duration> = waits
            .iter()
            .filter(|(at, _)| at.elapsed() <= RECENT_WAIT_SPAN)
            .map(|&(_, waited)| waited)
            .collect();
        match u32::try_from(recent.len()) {
            Ok(count) if count > 0 => recent.iter().sum::<Duration>() / count,
            _ => Duration::ZERO,
        }
    }

    /// Admits an analysis request from `client`, or refuses it with 429 when the address
    /// already has its share or the queue is full.
    pub fn admit_analysis(
        self: &Arc<Self>,
        client: IpAddr,
    ) -> Result<AnalysisTicket, EngineRefusal> {
        self.admit(
            (client, Share::Searches),
            "analyses and mate searches",
            "analyses",
        )
    }

    /// Admits work on records for a core from `client` (`what`: `"replays"`, `"imports"`),
    /// counted against the address's share of such work and the queue; 429 beyond them.
    pub fn admit_work(
        self: &Arc<Self>,
        client: IpAddr,
        what: &'static str,
    ) -> Result<AnalysisTicket, EngineRefusal> {
        self.admit((client, Share::Records), "replays and imports", what)
    }

    fn admit(
        self: &Arc<Self>,
        client: (IpAddr, Share),
        share: &'static str,
        what: &'static str,
    ) -> Result<AnalysisTicket, EngineRefusal> {
        let mut admitted = self.admitted.lock().map_err(|_| EngineRefusal::Failed)?;
        let from_client = admitted.get(&client).copied().unwrap_or(0);
        if from_client >= self.limits.per_client {
            return Err(EngineRefusal::ShareFull {
                waiting: from_client,
                share,
                what,
            });
        }
        let total: usize = admitted.values().sum();
        if total >= self.limits.slots + self.limits.queue {
            return Err(EngineRefusal::Busy);
        }
        *admitted.entry(client).or_insert(0) += 1;
        Ok(AnalysisTicket {
            work: self.clone(),
            client,
        })
    }

    /// Waits for a search slot; `None` only if the scheduler is gone.
    pub async fn slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().acquire_owned().await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn admits_within_the_address_share_and_the_queue() {
        let work = EngineWork::new(EngineLimits {
            slots: 1,
            queue: 2,
            per_client: 2,
        });
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let b = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        let c = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 3));
        let first = work.admit_analysis(a).unwrap();
        let _second = work.admit_analysis(a).unwrap();
        assert!(matches!(
            work.admit_analysis(a),
            Err(EngineRefusal::ShareFull { waiting: 2, .. })
        ));
        let _third = work.admit_analysis(b).unwrap();
        // One slot and a queue of two: three are admitted in all.
        assert_eq!(work.admit_analysis(c).err(), Some(EngineRefusal::Busy));
        drop(first);
        let _fourth = work.admit_analysis(c).unwrap();
        assert_eq!(work.admit_analysis(a).err(), Some(EngineRefusal::Busy));
    }

    #[test]
    fn waiting_moves_are_counted_and_their_waits_remembered() {
        let work = EngineWork::new(EngineLimits::default());
        assert_eq!(work.recent_wait(), Duration::ZERO);
        let first = work.computer_move_waits();
        std::thread::sleep(Duration::from_millis(30));
        let second = work.computer_move_waits();
        let (waiting, oldest) = work.waiting_moves();
        assert_eq!(waiting, 2);
        assert!(oldest >= Duration::from_millis(30), "{oldest:?}");
        let waited = first.began();
        assert!(waited >= Duration::from_millis(30), "{waited:?}");
        assert_eq!(work.waiting_moves().0, 1);
        assert_eq!(work.recent_wait(), waited);
        // A move that stops waiting without a search (its game ended) is not a wait.
        drop(second);
        assert_eq!(work.waiting_moves(), (0, Duration::ZERO));
        assert_eq!(work.recent_wait(), waited);
        for _ in 0..RECENT_WAITS {
            work.computer_move_waits().began();
        }
        assert!(work.recent_wait() < Duration::from_millis(5));
    }

    #[test]
    fn an_address_searching_still_has_its_share_of_replays() {
        let work = EngineWork::new(EngineLimits {
            slots: 1,
            queue: 8,
            per_client: 2,
        });
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let _searches = [
            work.admit_analysis(a).unwrap(),
            work.admit_analysis(a).unwrap(),
        ];
        let first = work.admit_work(a, "replays").unwrap();
        let _second = work.admit_work(a, "imports").unwrap();
        let refused = work
            .admit_work(a, "replays")
            .err()
            .expect("a third refused");
        assert!(
            matches!(
                refused,
                EngineRefusal::ShareFull {
                    waiting: 2,
                    share: "replays and imports",
                    what: "replays"
                }
            ),
            "{refused}"
        );
        drop(first);
        assert!(work.admit_work(a, "replays").is_ok());
        assert!(matches!(
            work.admit_analysis(a),
            Err(EngineRefusal::ShareFull {
                share: "analyses and mate searches",
                ..
            })
        ));
    }
}
