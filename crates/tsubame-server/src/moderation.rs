//! Players keeping others away and administrators keeping the site civil: blocks, reports,
//! closed accounts and muted chat, as the database holds them.

use crate::store::{Store, lock_accounts, name_key};
use anyhow::Result;

/// Why a player is reported.
pub const REPORT_REASONS: [&str; 4] = ["cheating", "abuse", "name", "other"];

/// The most players one account may block.
pub const MAX_BLOCKS: i64 = 500;

/// The most reports one account may have waiting for an administrator.
pub const MAX_OPEN_REPORTS: i64 = 10;

/// The longest report, in characters.
pub const MAX_REPORT_CHARS: usize = 1000;

/// A report as an administrator reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRow {
    /// The report's id.
    pub id: String,
    /// Who reported (the name shown now: `[deleted]` for a deleted account).
    pub reporter: String,
    /// Who was reported.
    pub reported: String,
    /// One of [`REPORT_REASONS`].
    pub reason: String,
    /// What the reporter wrote.
    pub text: String,
    /// The game it is about, if any.
    pub game_id: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// When an administrator resolved it, unix milliseconds; 0 while open.
    pub resolved_at: i64,
    /// The administrator who resolved it.
    pub resolved_by: Option<String>,
    /// What they did, in their words.
    pub resolution: Option<String>,
    /// Whether the reported account is closed now.
    pub reported_closed: bool,
    /// Until when the reported account's chat is muted (0: not muted).
    pub reported_muted_until: i64,
}

/// What became of a write held to a limit per account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limited {
    /// Written.
    Done,
    /// It was so already (the player blocked, a report of them open): nothing written.
    Already,
    /// The account is at its limit: nothing written.
    TooMany,
}

/// The name a report shows for an account: its own, or `[deleted]`.
const SHOWN_NAME: &str = "CASE WHEN {t}.deleted_at <> 0 THEN '[deleted]' ELSE {t}.name END";

fn shown(table: &str) -> String {
    SHOWN_NAME.replace("{t}", table)
}

impl Store {
    /// `account_id` blocks `blocked_id`, unless it blocks `max_blocks` players already
    /// (counted with the blocker's row locked, in the transaction that writes).
    pub async fn block(
        &self,
        account_id: &str,
        blocked_id: &str,
        now: i64,
        max_blocks: i64,
    ) -> Result<Limited> {
        self.in_transaction(async |tx| {
            lock_accounts(&mut *tx, &[account_id]).await?;
            let (already,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM blocks WHERE account_id = $1 AND blocked_id = $2",
            )
            .bind(account_id)
            .bind(blocked_id)
            .fetch_one(&mut *tx)
            .await?;
            if already > 0 {
                return Ok(Limited::Already);
            }
            let (count,): (i64,) =
                sqlx::query_as("SELECT COUNT(*) FROM blocks WHERE account_id = $1")
                    .bind(account_id)
                    .fetch_one(&mut *tx)
                    .await?;
            if count >= max_blocks {
                return Ok(Limited::TooMany);
            }
            sqlx::query(
                "INSERT INTO blocks (account_id, blocked_id, created_at) VALUES ($1, $2, $3)",
            )
            .bind(account_id)
            .bind(blocked_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            Ok(Limited::Done)
        })
        .await
    }

    /// `account_id` no longer blocks `blocked_id`; `false` when it did not.
    pub async fn unblock(&self, account_id: &str, blocked_id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM blocks WHERE account_id = $1 AND blocked_id = $2")
            .bind(account_id)
            .bind(blocked_id)
            .execute(self.pool())
            .await;
        Ok(self.written(done)?.rows_affected() > 0)
    }

    /// The names an account blocks (deleted accounts left out), with when, newest first.
    pub async fn blocked_names(&self, account_id: &str) -> Result<Vec<(String, i64)>> {
        Ok(sqlx::query_as(
            "SELECT accounts.name, blocks.created_at FROM blocks \
             JOIN accounts ON accounts.id = blocks.blocked_id \
             WHERE blocks.account_id = $1 AND accounts.deleted_at = 0 \
             ORDER BY blocks.created_at DESC, accounts.name",
        )
        .bind(account_id)
        .fetch_all(self.pool())
        .await?)
    }

    /// How many players an account blocks.
    pub async fn block_count(&self, account_id: &str) -> Result<i64> {
        let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM blocks WHERE account_id = $1")
            .bind(account_id)
            .fetch_one(self.pool())
            .await?;
        Ok(count)
    }

    /// Whether `account_id` blocks `other_id`.
    pub async fn blocks(&self, account_id: &str, other_id: &str) -> Result<bool> {
        let (found,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM blocks WHERE account_id = $1 AND blocked_id = $2")
                .bind(account_id)
                .bind(other_id)
                .fetch_one(self.pool())
                .await?;
        Ok(found > 0)
    }

    /// Until when an account's chat is muted (0: not muted).
    pub async fn muted_until(&self, account_id: &str) -> Result<i64> {
        let found: Option<(i64,)> =
            sqlx::query_as("SELECT muted_until FROM accounts WHERE id = $1")
                .bind(account_id)
                .fetch_optional(self.pool())
                .await?;
        Ok(found.map_or(0, |(until,)| until))
    }

    /// Files a report, unless the reporter has an open report of this player already or
    /// `max_open` open reports (counted with the reporter's row locked, in the transaction
    /// that writes: the limits hold however many reports are sent at once).
    pub async fn insert_report(&self, report: &NewReport<'_>, max_open: i64) -> Result<Limited> {
        self.in_transaction(async |tx| {
            lock_accounts(&mut *tx, &[report.reporter_id]).await?;
            let (of_this,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM reports \
                 WHERE reporter_id = $1 AND reported_id = $2 AND resolved_at = 0",
            )
            .bind(report.reporter_id)
            .bind(report.reported_id)
            .fetch_one(&mut *tx)
            .await?;
            if of_this > 0 {
                return Ok(Limited::Already);
            }
            let (open,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM reports WHERE reporter_id = $1 AND resolved_at = 0",
            )
            .bind(report.reporter_id)
            .fetch_one(&mut *tx)
            .await?;
            if open >= max_open {
                return Ok(Limited::TooMany);
            }
            sqlx::query(
                "INSERT INTO reports (id, reporter_id, reported_id, reason, body, game_id, \
                 created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(report.id)
            .bind(report.reporter_id)
            .bind(report.reported_id)
            .bind(report.reason)
            .bind(report.text)
            .bind(report.game_id)
            .bind(report.now)
            .execute(&mut *tx)
            .await?;
            Ok(Limited::Done)
        })
        .await
    }

    /// How many of a reporter's reports wait for an administrator.
    pub async fn open_report_count(&self, reporter_id: &str) -> Result<i64> {
        let (count,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM reports WHERE reporter_id = $1 AND resolved_at = 0",
        )
        .bind(reporter_id)
        .fetch_one(self.pool())
        .await?;
        Ok(count)
    }

    /// Reports, open ones (oldest first, the next to handle) or resolved ones (newest first).
    pub async fn reports(&self, open: bool, limit: i64) -> Result<Vec<ReportRow>> {
        let (filter, order) = if open {
            ("reports.resolved_at = 0", "reports.created_at ASC")
        } else {
            ("reports.resolved_at <> 0", "reports.resolved_at DESC")
        };
        let rows: Vec<ReportTuple> = sqlx::query_as(&format!(
            "SELECT reports.id, {reporter}, {reported}, reports.reason, reports.body, \
             reports.game_id, reports.created_at, reports.resolved_at, reports.resolved_by, \
             reports.resolution, reported.closed_at, reported.muted_until \
             FROM reports JOIN accounts reporter ON reporter.id = reports.reporter_id \
             JOIN accounts reported ON reported.id = reports.reported_id \
             WHERE {filter} ORDER BY {order}, reports.id LIMIT $1",
            reporter = shown("reporter"),
            reported = shown("reported"),
        ))
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(report_from_tuple).collect())
    }

    /// Marks an open report resolved by `admin` with `resolution`; `false` when there is no
    /// open report of that id.
    pub async fn resolve_report(
        &self,
        id: &str,
        admin: &str,
        resolution: &str,
        now: i64,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE reports SET resolved_at = $1, resolved_by = $2, resolution = $3 \
             WHERE id = $4 AND resolved_at = 0",
        )
        .bind(now)
        .bind(admin)
        .bind(resolution)
        .bind(id)
        .execute(self.pool())
        .await;
        Ok(self.written(done)?.rows_affected() > 0)
    }

    /// Closes an account (by name) at `now`, ending its sessions and announcing `notice`
    /// ([`SessionEnd`](crate::accounts::SessionEnd)), or opens it again (`now` 0); `false`
    /// when there is no such account.
    pub async fn set_closed(&self, name: &str, now: i64, notice: &str) -> Result<bool> {
        self.in_transaction(async |tx| {
            let changed = sqlx::query(
                "UPDATE accounts SET closed_at = $1 WHERE name_key = $2 AND deleted_at = 0",
            )
            .bind(now)
            .bind(name_key(name))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if changed > 0 && now != 0 {
                sqlx::query(
                    "DELETE FROM sessions WHERE account_id = \
                     (SELECT id FROM accounts WHERE name_key = $1)",
                )
                .bind(name_key(name))
                .execute(&mut *tx)
                .await?;
                self.announce_session_end(&mut *tx, notice).await?;
            }
            Ok(changed > 0)
        })
        .await
    }

    /// Mutes an account's chat (by name) until `until` (0: unmuted); `false` when there is no
    /// such account.
    pub async fn set_muted_until(&self, name: &str, until: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE accounts SET muted_until = $1 WHERE name_key = $2 AND deleted_at = 0",
        )
        .bind(until)
        .bind(name_key(name))
        .execute(self.pool())
        .await;
        Ok(self.written(done)?.rows_affected() > 0)
    }
}

/// A report as filed.
#[derive(Clone, Copy, Debug)]
pub struct NewReport<'a> {
    /// Its id.
    pub id: &'a str,
    /// The reporting account.
    pub reporter_id: &'a str,
    /// The reported account.
    pub reported_id: &'a str,
    /// One of [`REPORT_REASONS`].
    pub reason: &'a str,
    /// What the reporter wrote.
    pub text: &'a str,
    /// The game it is about.
    pub game_id: Option<&'a str>,
    /// Unix milliseconds.
    pub now: i64,
}

type ReportTuple = (
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    i64,
    i64,
    Option<String>,
    Option<String>,
    i64,
    i64,
);

fn report_from_tuple(row: ReportTuple) -> ReportRow {
    let (
        id,
        reporter,
        reported,
        reason,
        text,
        game_id,
        created_at,
        resolved_at,
        resolved_by,
        resolution,
        closed_at,
        muted_until,
    ) = row;
    ReportRow {
        id,
        reporter,
        reported,
        reason,
        text,
        game_id,
        created_at,
        resolved_at,
        resolved_by,
        resolution,
        reported_closed: closed_at != 0,
        reported_muted_until: muted_until,
    }
}
