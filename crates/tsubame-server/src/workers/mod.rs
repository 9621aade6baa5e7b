//! Engine work done by worker processes (`tsubame worker`) on any machine, when the server is
//! started with `--engine-workers`: the computer's moves, finished games' analyses, mate
//! searches and the analysis board's searches become jobs in the database, which workers lease
//! over HTTP (`worker_api.rs`), answer and have checked.
//!
//! A job is a question in the JSON of the browser's engine (`tsubame_analysis::request`), so
//! a worker answers it with the very code the server's own slots and the browser use. Each
//! lease lasts [`WorkerSettings::lease`] and is renewed while the worker searches: a worker
//! that dies or stalls loses its job to the next worker that asks once the lease runs out,
//! up to [`WorkerSettings::attempts`] leases. An answer is kept only from the lease that holds
//! the job, once, and only if it answers the question asked (a legal move of the position, a
//! mate that mates): a computer's move is played once, whoever answers, and never one the
//! rules refuse. The computer's clock starts when a worker takes its job, not while it waits.
//!
//! Jobs in the database are what several instances and their workers share; on one instance a
//! change is heard at once, and changes made through another instance are read again every
//! [`SHARED_POLL`].

pub mod jobs;

use crate::random::random_hex;
use crate::store::Store;
use jobs::{JobState, Jobs, LeasedJob};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How often a job's state, and the queue, are read again for changes made through another
/// instance.
pub const SHARED_POLL: Duration = Duration::from_millis(250);

/// How workers are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerSettings {
    /// How long a lease lasts unless renewed.
    pub lease: Duration,
    /// Leases a job gets before it is given up.
    pub attempts: u32,
    /// The longest a worker's request for a job waits for one.
    pub longest_wait: Duration,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings {
            lease: Duration::from_secs(6),
            attempts: 3,
            longest_wait: Duration::from_secs(25),
        }
    }
}

/// Why a job's answer was not kept.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The key is unknown or revoked.
    #[error("no worker holds this key (unknown or revoked)")]
    UnknownKey,
    /// The job is no longer this lease's: another worker has it, or it is done.
    #[error("this lease no longer holds the job (its time ran out, or it is done)")]
    LeaseLost,
    /// No job has that id.
    #[error("no such job")]
    NoSuchJob,
    /// The answer does not answer the question.
    #[error("the answer was refused: {0}")]
    Refused(String),
    /// A job given up on.
    #[error("the job was given up: {0}")]
    Failed(String),
    /// This server runs its engine work itself.
    #[error("this server takes no workers (it runs with --engine-workers to take them)")]
    NoWorkers,
    /// The database.
    #[error(transparent)]
    Database(#[from] anyhow::Error),
}

/// The job queue as the server uses it.
pub struct EngineJobs {
    jobs: Jobs,
    settings: WorkerSettings,
    /// Told of every job added, answered, leased or released on this instance.
    changed: Notify,
    shared: bool,
}

/// Withdraws a job when its asker stops waiting before the answer (see [`EngineJobs::ask`]).
struct WithdrawWhenDropped(Option<(Arc<EngineJobs>, String)>);

impl Drop for WithdrawWhenDropped {
    fn drop(&mut self) {
        if let Some((jobs, id)) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                jobs.withdraw(&id, "withdrawn: nobody waits for it").await;
            });
        }
    }
}

/// The SHA-256 of a worker key, the only form of it the database holds.
pub fn key_hash(key: &str) -> String {
    crate::store::token_hash(key)
}

/// A new worker key: `tsw_` and 32 random bytes in hex.
pub fn new_key() -> String {
    format!("tsw_{}", random_hex(32))
}

impl EngineJobs {
    /// The queue of this database.
    pub fn new(store: Store, settings: WorkerSettings) -> Arc<EngineJobs> {
        let shared = store.shared();
        Arc::new(EngineJobs {
            jobs: Jobs::new(store),
            settings,
            changed: Notify::new(),
            shared,
        })
    }

    /// The repository, for the keys.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// How workers are held.
    pub fn settings(&self) -> WorkerSettings {
        self.settings
    }

    fn lease_ms(&self) -> i64 {
        self.settings.lease.as_millis() as i64
    }

    /// Asks a question under `id`; a second ask of the same id waits for the same answer.
    pub async fn submit(
        &self,
        id: &str,
        kind: &str,
        question: &str,
        now: u64,
    ) -> Result<(), JobError> {
        self.jobs
            .enqueue(
                id,
                kind,
                question,
                now as i64,
                i64::from(self.settings.attempts),
            )
            .await?;
        self.changed.notify_waiters();
        Ok(())
    }

    /// Waits until a worker takes the job (`until_taken`) or it is done: its state then.
    pub async fn wait(
        &self,
        id: &str,
        until_taken: bool,
        now: impl Fn() -> u64,
    ) -> Result<JobState, JobError> {
        loop {
            // Registered before the state is read, so that no change falls between.
            let change = self.changed.notified();
            let state = self
                .jobs
                .state(id, now() as i64, i64::from(self.settings.attempts))
                .await?;
            match state {
                JobState::Leased if until_taken => return Ok(state),
                JobState::Leased | JobState::Waiting => {}
                done => return Ok(done),
            }
            // A lease that runs out changes nothing here: the state is read again within a
            // lease's time.
            let poll = if self.shared {
                SHARED_POLL
            } else {
                self.settings.lease
            };
            let _ = tokio::time::timeout(poll, change).await;
        }
    }

    /// The checked answer of a job once done.
    pub async fn answer_of(&self, id: &str, now: impl Fn() -> u64) -> Result<String, JobError> {
        match self.wait(id, false, now).await? {
            JobState::Answered(answer) => Ok(answer),
            JobState::Failed(reason) => Err(JobError::Failed(reason)),
            _ => Err(JobError::NoSuchJob),
        }
    }

    /// The worker of a key, or [`JobError::UnknownKey`].
    pub async fn worker(&self, key: &str) -> Result<String, JobError> {
        self.jobs
            .worker_of(&key_hash(key))
            .await?
            .ok_or(JobError::UnknownKey)
    }

    /// Leases the oldest waiting job to `worker`, waiting up to `wait` for one.
    pub async fn lease(
        &self,
        worker: &str,
        wait: Duration,
        now: impl Fn() -> u64,
    ) -> Result<Option<LeasedJob>, JobError> {
        let wait = wait.min(self.settings.longest_wait);
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let change = self.changed.notified();
            let lease_id = random_hex(16);
            let leased = self
                .jobs
                .lease(
                    worker,
                    &lease_id,
                    now() as i64,
                    self.lease_ms(),
                    i64::from(self.settings.attempts),
                )
                .await?;
            if let Some(job) = leased {
                self.changed.notify_waiters();
                return Ok(Some(job));
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            // A job whose lease runs out is found on the next look, within a lease's time.
            let poll = if self.shared {
                SHARED_POLL
            } else {
                self.settings.lease.min(Duration::from_secs(1))
            };
            let _ = tokio::time::timeout(poll.min(left), change).await;
        }
    }

    /// Extends a lease the worker still holds, keeping the job's progress when told.
    pub async fn renew(
        &self,
        id: &str,
        lease_id: &str,
        now: u64,
        progress: Option<u64>,
    ) -> Result<(), JobError> {
        let progress = progress.map(|done| done.min(i64::MAX as u64) as i64);
        if self
            .jobs
            .renew(id, lease_id, now as i64, self.lease_ms(), progress)
            .await?
        {
            Ok(())
        } else {
            Err(JobError::LeaseLost)
        }
    }

    /// Checks and keeps a worker's answer. A refused answer ends the lease: the job goes to
    /// another worker while it has leases left.
    pub async fn answer(
        &self,
        id: &str,
        lease_id: &str,
        answer: &str,
        now: u64,
    ) -> Result<(), JobError> {
        let (_, question, _) = self.jobs.question(id).await?.ok_or(JobError::NoSuchJob)?;
        if let Err(reason) = tsubame_analysis::request::check_answer(&question, answer) {
            // The reason may quote the worker's own text: kept short.
            let reason: String = reason.chars().take(500).collect();
            self.give_back(id, lease_id, &reason).await?;
            return Err(JobError::Refused(reason));
        }
        let kept = self.jobs.answer(id, lease_id, answer, now as i64).await?;
        self.changed.notify_waiters();
        if kept {
            Ok(())
        } else {
            Err(JobError::LeaseLost)
        }
    }

    /// A worker that could not answer (its engine refused the question) gives the job up; so
    /// does one whose answer was refused, on the job's last lease.
    pub async fn give_back(&self, id: &str, lease_id: &str, reason: &str) -> Result<(), JobError> {
        let (kind, _, attempts) = self.jobs.question(id).await?.ok_or(JobError::NoSuchJob)?;
        let last = attempts >= i64::from(self.settings.attempts);
        let failure = format!("{kind}: {reason}");
        let released = self
            .jobs
            .release(id, lease_id, last.then_some(failure.as_str()))
            .await?;
        self.changed.notify_waiters();
        if released {
            Ok(())
        } else {
            Err(JobError::LeaseLost)
        }
    }

    /// The queue now: jobs waiting for a worker (of `kind`, or all), and how long the oldest
    /// has waited.
    pub async fn queue(&self, now: u64, kind: Option<&str>) -> Result<(i64, Duration), JobError> {
        let (waiting, oldest_ms) = self
            .jobs
            .queue(now as i64, i64::from(self.settings.attempts), kind)
            .await?;
        Ok((waiting, Duration::from_millis(oldest_ms.max(0) as u64)))
    }

    /// A job's progress as its worker last told it.
    pub async fn progress(&self, id: &str) -> Result<Option<u64>, JobError> {
        Ok(self.jobs.progress(id).await?.map(|done| done.max(0) as u64))
    }

    /// Asks a question that someone waits for (a request, not a game): its checked answer,
    /// or [`JobError::Failed`] when no worker answered `within`; a job not answered in time,
    /// or whose asker leaves (the future dropped), is withdrawn, and a worker searching it
    /// stops at its next renewal.
    pub async fn ask(
        self: &Arc<Self>,
        id: &str,
        kind: &str,
        question: &str,
        within: Duration,
        now: impl Fn() -> u64,
    ) -> Result<String, JobError> {
        self.submit(id, kind, question, now()).await?;
        let mut withdraw = WithdrawWhenDropped(Some((self.clone(), id.to_string())));
        let answered = tokio::time::timeout(within, self.answer_of(id, &now)).await;
        match answered {
            Ok(answered) => {
                withdraw.0 = None;
                answered
            }
            Err(_) => {
                // Withdrawn before the answer goes back, so that asking again at once finds
                // the job given up and asks it afresh.
                withdraw.0 = None;
                self.withdraw(id, "no worker answered in time").await;
                Err(JobError::Failed(format!(
                    "no worker answered within {} s",
                    within.as_secs()
                )))
            }
        }
    }

    /// Gives up a job nobody waits for any more; a worker searching it loses its lease at its
    /// next renewal. A failure to write it is only logged: the job then runs its course.
    pub async fn withdraw(&self, id: &str, reason: &str) {
        match self.jobs.withdraw(id, reason).await {
            Ok(_) => self.changed.notify_waiters(),
            Err(e) => tracing::warn!(job = %id, "a job not withdrawn: {e:#}"),
        }
    }

    /// Each worker's jobs answered since `since` (Unix milliseconds), with the time they took
    /// from lease to answer.
    pub async fn answered_by_worker(
        &self,
        since: u64,
    ) -> Result<Vec<(String, i64, Duration)>, JobError> {
        Ok(self
            .jobs
            .answered_by_worker(since as i64)
            .await?
            .into_iter()
            .map(|(worker, jobs, busy_ms)| {
                (worker, jobs, Duration::from_millis(busy_ms.max(0) as u64))
            })
            .collect())
    }

    /// Forgets, now and then, the jobs done more than an hour ago.
    pub async fn forget_old_jobs(self: Arc<Self>, now: impl Fn() -> u64) {
        let mut every = tokio::time::interval(Duration::from_secs(600));
        loop {
            every.tick().await;
            let before = now().saturating_sub(3_600_000) as i64;
            let attempts = i64::from(self.settings.attempts);
            if let Err(e) = self.jobs.forget_done(before, attempts).await {
                tracing::warn!("old engine jobs not forgotten: {e:#}");
            }
        }
    }
}
