//! The engine jobs and the worker keys as the database keeps them (`engine_jobs`,
//! `worker_keys`): a repository of its own over the server's connection pool.

use crate::store::Store;
use anyhow::Result;
use sqlx::Row;

/// A job as a worker leases it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeasedJob {
    /// The job's id.
    pub id: String,
    /// `move` (the computer's move), `analyse` or `mate`.
    pub kind: String,
    /// The question, JSON in the browser engine's form (`tsubame_analysis::request`).
    pub question: String,
    /// This lease's secret: the worker presents it to renew the lease and to answer.
    pub lease_id: String,
    /// How many leases the job has had, this one included.
    pub attempts: i64,
}

/// Where a job stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobState {
    /// No job has this id.
    Missing,
    /// Waiting for a worker.
    Waiting,
    /// A worker has it.
    Leased,
    /// Answered: the answer, checked.
    Answered(String),
    /// Given up: why.
    Failed(String),
}

/// A worker key as `tsubame admin worker-key list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerKey {
    /// The worker's name.
    pub name: String,
    /// When the key was made (Unix milliseconds).
    pub created_at: i64,
    /// When it was revoked; 0 while it holds.
    pub revoked_at: i64,
    /// When a worker last leased a job with it; 0 if never.
    pub last_seen: i64,
}

/// The jobs and keys in the server's database.
#[derive(Clone)]
pub struct Jobs {
    store: Store,
}

impl Jobs {
    /// The jobs of this database.
    pub fn new(store: Store) -> Jobs {
        Jobs { store }
    }

    /// Adds a job, unless one has the id already; one given up on (failed, withdrawn, or out
    /// of its `max_attempts` leases) is asked again, with this question.
    pub async fn enqueue(
        &self,
        id: &str,
        kind: &str,
        question: &str,
        now: i64,
        max_attempts: i64,
    ) -> Result<()> {
        let done = sqlx::query(
            "INSERT INTO engine_jobs (id, kind, question, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (id) DO UPDATE SET failure = NULL, attempts = 0, lease_until = 0, \
             lease_id = '', progress = 0, created_at = $4, kind = $2, question = $3 \
             WHERE engine_jobs.failure IS NOT NULL OR (engine_jobs.answered_at = 0 \
             AND engine_jobs.attempts >= $5 AND engine_jobs.lease_until < $4)",
        )
        .bind(id)
        .bind(kind)
        .bind(question)
        .bind(now)
        .bind(max_attempts)
        .execute(self.store.pool())
        .await;
        self.store.written(done).map(|_| ())
    }

    /// Leases a waiting job to `worker` until `now + lease_ms`, unless it has had
    /// `max_attempts` leases already: the oldest computer move first (a player waits on its
    /// clock), then the oldest search someone waits for (a mate search, the analysis board),
    /// then the oldest game's analysis. Rows another instance is leasing are skipped, not waited
    /// for (PostgreSQL; SQLite has one writer at a time).
    pub async fn lease(
        &self,
        worker: &str,
        lease_id: &str,
        now: i64,
        lease_ms: i64,
        max_attempts: i64,
    ) -> Result<Option<LeasedJob>> {
        let skip_locked = if self.store.shared() {
            " FOR UPDATE SKIP LOCKED"
        } else {
            ""
        };
        let lease = format!(
            "UPDATE engine_jobs SET lease_id = $1, worker = $2, leased_at = $3, \
             lease_until = $4, attempts = attempts + 1 WHERE id = (SELECT id FROM engine_jobs \
             WHERE answered_at = 0 AND failure IS NULL AND lease_until < $3 AND attempts < $5 \
             ORDER BY CASE kind WHEN 'move' THEN 0 WHEN 'game' THEN 2 ELSE 1 END, created_at \
             LIMIT 1{skip_locked}) \
             RETURNING id, kind, question, attempts"
        );
        let row = sqlx::query(&lease)
            .bind(lease_id)
            .bind(worker)
            .bind(now)
            .bind(now + lease_ms)
            .bind(max_attempts)
            .fetch_optional(self.store.pool())
            .await;
        let Some(row) = self.store.written(row)? else {
            return Ok(None);
        };
        let seen = sqlx::query("UPDATE worker_keys SET last_seen = $1 WHERE name = $2")
            .bind(now)
            .bind(worker)
            .execute(self.store.pool())
            .await;
        self.store.written(seen)?;
        Ok(Some(LeasedJob {
            id: row.try_get("id")?,
            kind: row.try_get("kind")?,
            question: row.try_get("question")?,
            lease_id: lease_id.to_string(),
            attempts: row.try_get("attempts")?,
        }))
    }

    /// Extends a lease that is still the worker's, with the job's progress when told; `false`
    /// when another has the job or it is done.
    pub async fn renew(
        &self,
        id: &str,
        lease_id: &str,
        now: i64,
        lease_ms: i64,
        progress: Option<i64>,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE engine_jobs SET lease_until = $1, progress = COALESCE($4, progress) \
             WHERE id = $2 AND lease_id = $3 AND answered_at = 0 AND failure IS NULL",
        )
        .bind(now + lease_ms)
        .bind(id)
        .bind(lease_id)
        .bind(progress)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected() == 1)
    }

    /// Keeps the answer of the lease's worker; `false` when the job is no longer its own (taken
    /// by another after its lease ran out) or already answered.
    pub async fn answer(&self, id: &str, lease_id: &str, answer: &str, now: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE engine_jobs SET answer = $1, answered_at = $2 WHERE id = $3 \
             AND lease_id = $4 AND answered_at = 0 AND failure IS NULL",
        )
        .bind(answer)
        .bind(now)
        .bind(id)
        .bind(lease_id)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected() == 1)
    }

    /// Ends the lease's hold on a job whose answer was refused: another worker may take it
    /// (if it has leases left), or, `final_failure` given, it is given up with that reason.
    pub async fn release(
        &self,
        id: &str,
        lease_id: &str,
        final_failure: Option<&str>,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE engine_jobs SET lease_until = 0, failure = $1 WHERE id = $2 \
             AND lease_id = $3 AND answered_at = 0 AND failure IS NULL",
        )
        .bind(final_failure)
        .bind(id)
        .bind(lease_id)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected() == 1)
    }

    /// Gives up a job nobody waits for any more (the client that asked left): a worker
    /// holding it loses its lease. `false` when it was already answered or given up.
    pub async fn withdraw(&self, id: &str, reason: &str) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE engine_jobs SET failure = $1, lease_until = 0 WHERE id = $2 \
             AND answered_at = 0 AND failure IS NULL",
        )
        .bind(reason)
        .bind(id)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected() == 1)
    }

    /// A job's progress as its worker last told it (0 before any).
    pub async fn progress(&self, id: &str) -> Result<Option<i64>> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT progress FROM engine_jobs WHERE id = $1")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.map(|(progress,)| progress))
    }

    /// The queue at `now`: jobs waiting for a worker (of one kind, or all), and how long the
    /// oldest of them has waited (milliseconds; 0 with none).
    pub async fn queue(
        &self,
        now: i64,
        max_attempts: i64,
        kind: Option<&str>,
    ) -> Result<(i64, i64)> {
        let waiting = "SELECT COUNT(*), MIN(created_at) FROM engine_jobs WHERE answered_at = 0 \
             AND failure IS NULL AND lease_until < $1 AND attempts < $2";
        let of_kind = format!("{waiting} AND kind = $3");
        let query = sqlx::query_as(if kind.is_some() { &of_kind } else { waiting })
            .bind(now)
            .bind(max_attempts);
        let query = match kind {
            Some(kind) => query.bind(kind),
            None => query,
        };
        let (count, oldest): (i64, Option<i64>) = query.fetch_one(self.store.pool()).await?;
        Ok((count, oldest.map_or(0, |oldest| (now - oldest).max(0))))
    }

    /// Each worker's jobs answered since `since`, with the milliseconds from their leases to
    /// their answers: what a worker gets through.
    pub async fn answered_by_worker(&self, since: i64) -> Result<Vec<(String, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT worker, COUNT(*), CAST(COALESCE(SUM(answered_at - leased_at), 0) AS BIGINT) \
             FROM engine_jobs WHERE answered_at >= $1 GROUP BY worker ORDER BY worker",
        )
        .bind(since)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// A job's kind, question and leases so far.
    pub async fn question(&self, id: &str) -> Result<Option<(String, String, i64)>> {
        Ok(
            sqlx::query_as("SELECT kind, question, attempts FROM engine_jobs WHERE id = $1")
                .bind(id)
                .fetch_optional(self.store.pool())
                .await?,
        )
    }

    /// Where a job stands at `now`; one out of leases whose last lease ran out has failed.
    pub async fn state(&self, id: &str, now: i64, max_attempts: i64) -> Result<JobState> {
        let row = sqlx::query(
            "SELECT answer, failure, lease_until, attempts FROM engine_jobs \
             WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.store.pool())
        .await?;
        let Some(row) = row else {
            return Ok(JobState::Missing);
        };
        let answer: Option<String> = row.try_get("answer")?;
        let failure: Option<String> = row.try_get("failure")?;
        let lease_until: i64 = row.try_get("lease_until")?;
        let attempts: i64 = row.try_get("attempts")?;
        Ok(match (answer, failure) {
            (Some(answer), _) => JobState::Answered(answer),
            (None, Some(failure)) => JobState::Failed(failure),
            (None, None) if lease_until >= now => JobState::Leased,
            (None, None) if attempts >= max_attempts => {
                JobState::Failed(format!("no worker answered in {attempts} leases"))
            }
            (None, None) => JobState::Waiting,
        })
    }

    /// Forgets the jobs answered, given up or out of their `max_attempts` leases before
    /// `before`.
    pub async fn forget_done(&self, before: i64, max_attempts: i64) -> Result<u64> {
        let done = sqlx::query(
            "DELETE FROM engine_jobs WHERE (answered_at > 0 AND answered_at < $1) \
             OR (failure IS NOT NULL AND created_at < $1) \
             OR (answered_at = 0 AND attempts >= $2 AND lease_until < $1)",
        )
        .bind(before)
        .bind(max_attempts)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected())
    }

    /// Adds a worker key by its hash; `false` when the name is taken.
    pub async fn add_key(&self, name: &str, key_hash: &str, now: i64) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO worker_keys (name, key_hash, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(key_hash)
        .bind(now)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected() == 1)
    }

    /// Revokes a worker's key; `false` when no key of that name holds.
    pub async fn revoke_key(&self, name: &str, now: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE worker_keys SET revoked_at = $1 WHERE name = $2 AND revoked_at = 0",
        )
        .bind(now)
        .bind(name)
        .execute(self.store.pool())
        .await;
        Ok(self.store.written(done)?.rows_affected() == 1)
    }

    /// Every worker key, by name.
    pub async fn keys(&self) -> Result<Vec<WorkerKey>> {
        let rows: Vec<(String, i64, i64, i64)> = sqlx::query_as(
            "SELECT name, created_at, revoked_at, last_seen FROM worker_keys ORDER BY name",
        )
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(name, created_at, revoked_at, last_seen)| WorkerKey {
                name,
                created_at,
                revoked_at,
                last_seen,
            })
            .collect())
    }

    /// The name of the worker whose key has this hash, while the key holds.
    pub async fn worker_of(&self, key_hash: &str) -> Result<Option<String>> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT name FROM worker_keys WHERE key_hash = $1 AND revoked_at = 0")
                .bind(key_hash)
                .fetch_optional(self.store.pool())
                .await?;
        Ok(row.map(|(name,)| name))
    }
}
