//! Accounts and their sessions: made, logged into, ended, closed, deleted.

use super::{SESSION_CHANNEL, Store, name_key, notify};
use anyhow::Result;
use sqlx::Row;

/// Takes the write locks of these accounts' rows until the transaction ends, always in the
/// same order (so two transactions never wait on each other in a circle). A count read
/// afterwards in the transaction cannot change under it: on PostgreSQL another transaction
/// locking one of the rows waits for this one to commit, and each later statement sees what
/// committed before (read committed); on SQLite the write this takes holds the database's one
/// write lock. What makes a limit hold under any concurrency, on every instance: the lock and
/// the count in the transaction that writes, not a read before it.
pub(crate) async fn lock_accounts(
    connection: &mut sqlx::AnyConnection,
    accounts: &[&str],
) -> Result<(), sqlx::Error> {
    let mut accounts = accounts.to_vec();
    accounts.sort_unstable();
    accounts.dedup();
    for account in accounts {
        sqlx::query("UPDATE accounts SET created_at = created_at WHERE id = $1")
            .bind(account)
            .execute(&mut *connection)
            .await?;
    }
    Ok(())
}

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// The account's id (never shown: names are).
    pub id: String,
    /// The user name as chosen.
    pub name: String,
    /// The Argon2id hash of the password, as a PHC string.
    pub password_hash: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// `player`, or `admin` for an administrator.
    pub role: String,
    /// When an administrator closed the account, unix milliseconds; 0 while it is open.
    pub closed_at: i64,
    /// When its owner deleted it, unix milliseconds; 0 while it exists.
    pub deleted_at: i64,
    /// Until when its chat is muted, unix milliseconds; 0 for never muted.
    pub muted_until: i64,
}

impl AccountRow {
    /// A new player's account: no role beyond playing, open, not muted.
    pub fn player(id: String, name: String, password_hash: String, created_at: i64) -> AccountRow {
        AccountRow {
            id,
            name,
            password_hash,
            created_at,
            role: ROLE_PLAYER.to_string(),
            closed_at: 0,
            deleted_at: 0,
            muted_until: 0,
        }
    }

    /// Whether the account is an administrator's.
    pub fn is_admin(&self) -> bool {
        self.role == ROLE_ADMIN
    }
}

/// The role of every account to begin with.
pub const ROLE_PLAYER: &str = "player";

/// The role of an administrator, given with `tsubame admin grant`.
pub const ROLE_ADMIN: &str = "admin";

/// The name games and chat show for an account its owner deleted: no user name can be it.
pub const DELETED_NAME: &str = "[deleted]";

/// The columns [`account_from_row`] reads, from the `accounts` table.
pub(super) const ACCOUNT_COLUMNS: &str = "accounts.id AS id, accounts.name AS name, \
     accounts.password_hash AS password_hash, accounts.created_at AS created_at, \
     accounts.role AS role, accounts.closed_at AS closed_at, \
     accounts.deleted_at AS deleted_at, accounts.muted_until AS muted_until";

pub(super) fn account_from_row(row: &sqlx::any::AnyRow) -> Result<AccountRow> {
    Ok(AccountRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        password_hash: row.try_get("password_hash")?,
        created_at: row.try_get("created_at")?,
        role: row.try_get("role")?,
        closed_at: row.try_get("closed_at")?,
        deleted_at: row.try_get("deleted_at")?,
        muted_until: row.try_get("muted_until")?,
    })
}

impl Store {
    /// Stores a new account; `false` when the name (without regard to case) is taken.
    pub async fn insert_account(&self, account: &AccountRow) -> Result<bool> {
        let inserted = sqlx::query(
            "INSERT INTO accounts (id, name, name_key, password_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&account.id)
        .bind(&account.name)
        .bind(name_key(&account.name))
        .bind(&account.password_hash)
        .bind(account.created_at)
        .execute(&self.pool)
        .await;
        match inserted {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(false),
            inserted => self.written(inserted).map(|_| true),
        }
    }

    /// The account of a name, without regard to case.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<AccountRow>> {
        let row = sqlx::query(&format!(
            "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1"
        ))
        .bind(name_key(name))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(account_from_row).transpose()
    }

    /// Stores a login session by the hash of its value.
    pub async fn insert_session(
        &self,
        token_hash: &str,
        account_id: &str,
        created_at: i64,
        expires_at: i64,
    ) -> Result<()> {
        let inserted = sqlx::query(
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(account_id)
        .bind(created_at)
        .bind(expires_at)
        .execute(&self.pool)
        .await;
        self.written(inserted).map(|_| ())
    }

    /// The account a session (by the hash of its value) belongs to and when the session
    /// expires, unless it expired by `now`.
    pub async fn session_account(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<(AccountRow, i64)>> {
        let row = sqlx::query(&format!(
            "SELECT {ACCOUNT_COLUMNS}, sessions.expires_at AS session_expires_at \
             FROM sessions JOIN accounts ON accounts.id = sessions.account_id \
             WHERE sessions.token_hash = $1 AND sessions.expires_at > $2 \
             AND accounts.closed_at = 0 AND accounts.deleted_at = 0"
        ))
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let expires: i64 = row.try_get("session_expires_at")?;
        Ok(Some((account_from_row(&row)?, expires)))
    }

    /// Announces `notice` on [`SESSION_CHANNEL`] in a transaction, on PostgreSQL: the other
    /// instances hear of ended sessions once the change commits.
    pub(crate) async fn announce_session_end(
        &self,
        connection: &mut sqlx::AnyConnection,
        notice: &str,
    ) -> Result<(), sqlx::Error> {
        if self.postgres {
            notify(connection, SESSION_CHANNEL, notice).await?;
        }
        Ok(())
    }

    /// Ends a session, announcing `notice` when there was one; whether there was.
    pub async fn delete_session(&self, token_hash: &str, notice: &str) -> Result<bool> {
        self.in_transaction(async |tx| {
            let deleted = sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                .bind(token_hash)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                > 0;
            if deleted {
                self.announce_session_end(&mut *tx, notice).await?;
            }
            Ok(deleted)
        })
        .await
    }

    /// Ends every session of an account, announcing `notice`; returns how many ended.
    pub async fn delete_sessions_of(&self, account_id: &str, notice: &str) -> Result<u64> {
        self.in_transaction(async |tx| {
            let ended = sqlx::query("DELETE FROM sessions WHERE account_id = $1")
                .bind(account_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            self.announce_session_end(&mut *tx, notice).await?;
            Ok(ended)
        })
        .await
    }

    /// Sets an account's password hash and ends its other sessions (all but `keep`), together,
    /// announcing `notice`.
    pub async fn change_password(
        &self,
        account_id: &str,
        password_hash: &str,
        keep: &str,
        notice: &str,
    ) -> Result<()> {
        self.in_transaction(async |tx| {
            sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2")
                .bind(password_hash)
                .bind(account_id)
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND token_hash <> $2")
                .bind(account_id)
                .bind(keep)
                .execute(&mut *tx)
                .await?;
            self.announce_session_end(&mut *tx, notice).await?;
            Ok(())
        })
        .await
    }

    /// Deletes an account at `now`, all in one: no password, no session, and its name in its
    /// games and chat lines replaced by [`DELETED_NAME`]. The row stays so that the name
    /// stays taken and the games' ratings keep their history.
    pub async fn delete_account(&self, account_id: &str, now: i64, notice: &str) -> Result<()> {
        self.in_transaction(async |tx| {
            sqlx::query("UPDATE accounts SET deleted_at = $1, password_hash = '' WHERE id = $2")
                .bind(now)
                .bind(account_id)
                .execute(&mut *tx)
                .await?;
            for statement in [
                "DELETE FROM sessions WHERE account_id = $1",
                "DELETE FROM learn_progress WHERE account_id = $1",
            ] {
                sqlx::query(statement)
                    .bind(account_id)
                    .execute(&mut *tx)
                    .await?;
            }
            for statement in [
                "UPDATE games SET sente_name = $2 WHERE sente_account = $1",
                "UPDATE games SET gote_name = $2 WHERE gote_account = $1",
                "UPDATE chat SET author = $2 WHERE account_id = $1",
                "UPDATE tournament_players SET username = $2, active = 0 WHERE account_id = $1",
            ] {
                sqlx::query(statement)
                    .bind(account_id)
                    .bind(DELETED_NAME)
                    .execute(&mut *tx)
                    .await?;
            }
            self.announce_session_end(&mut *tx, notice).await?;
            Ok(())
        })
        .await
    }

    /// Gives an account (by name) a role; `false` when there is no such account.
    pub async fn set_role(&self, name: &str, role: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE accounts SET role = $1 WHERE name_key = $2")
            .bind(role)
            .bind(name_key(name))
            .execute(&self.pool)
            .await;
        Ok(self.written(done)?.rows_affected() > 0)
    }

    /// Forgets the sessions expired by `now`; returns how many.
    pub async fn delete_expired_sessions(&self, now: i64) -> Result<u64> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await;
        Ok(self.written(done)?.rows_affected())
    }
}
