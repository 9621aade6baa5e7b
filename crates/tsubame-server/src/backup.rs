//! `tsubame backup`: a consistent copy of a SQLite database, taken while the server runs.
//!
//! SQLite's `VACUUM INTO` reads the database in one read transaction, so the copy is the
//! database as it stood at one instant even while moves are being written (the server keeps
//! the file in WAL mode, where readers never wait for the writer). The copy is written beside
//! its destination under a temporary name, checked, and only then renamed into place: a file
//! with the destination's name is always a whole, checked backup.

use anyhow::{Context, Result, bail};
use sqlx::any::install_default_drivers;
use sqlx::{AnyConnection, Connection, Row};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a backup holds, read back from the copy itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupReport {
    /// Where the copy is.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Games in the copy.
    pub games: i64,
    /// Of which still waiting or in play.
    pub unfinished_games: i64,
    /// Moves in the copy.
    pub moves: i64,
    /// How long the copy took.
    pub elapsed: Duration,
}

impl std::fmt::Display for BackupReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "backed up {} games ({} unfinished) and {} moves to {} ({} bytes) in {:.2} s; \
             integrity check ok",
            self.games,
            self.unfinished_games,
            self.moves,
            self.path.display(),
            self.bytes,
            self.elapsed.as_secs_f64()
        )
    }
}

/// The file a `sqlite://FILE` or `sqlite:FILE` URL names (query parameters dropped), or an
/// error naming what else it is.
fn sqlite_file(database: &str) -> Result<&str> {
    if database.starts_with("postgres:") || database.starts_with("postgresql:") {
        bail!(
            "{database:?} is PostgreSQL: back it up with PostgreSQL's own tools \
             (pg_dump, or continuous archiving); `tsubame backup` copies SQLite files"
        );
    }
    let rest = database
        .strip_prefix("sqlite://")
        .or_else(|| database.strip_prefix("sqlite:"))
        .with_context(|| format!("{database:?} is not a sqlite:// database URL"))?;
    let file = rest.split('?').next().unwrap_or_default();
    if file.is_empty() || file == ":memory:" {
        bail!("{database:?} names no database file");
    }
    Ok(file)
}

/// Copies the SQLite database at `database` (`sqlite://FILE`) to the new file `out`, online.
///
/// Refuses to overwrite `out`, and never creates the source: a mistyped path is an error,
/// not an empty backup.
pub async fn backup_sqlite(database: &str, out: &Path) -> Result<BackupReport> {
    install_default_drivers();
    let started = Instant::now();
    let source = sqlite_file(database)?;
    if !Path::new(source).is_file() {
        bail!("there is no database file at {source}");
    }
    if out.exists() {
        bail!(
            "{} already exists: a backup never overwrites a file",
            out.display()
        );
    }
    let file_name = out
        .file_name()
        .with_context(|| format!("{} names no file", out.display()))?;
    let mut partial_name = file_name.to_os_string();
    partial_name.push(".partial");
    let partial = out.with_file_name(partial_name);
    // Left over from an interrupted backup: never part of a finished one.
    if partial.exists() {
        std::fs::remove_file(&partial)
            .with_context(|| format!("cannot remove the stale {}", partial.display()))?;
    }
    let result = copy_and_check(source, &partial).await;
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, out).with_context(|| {
        format!(
            "cannot move the finished copy {} to {}",
            partial.display(),
            out.display()
        )
    })?;
    Ok(BackupReport {
        path: out.to_path_buf(),
        elapsed: started.elapsed(),
        ..report
    })
}

async fn copy_and_check(source: &str, partial: &Path) -> Result<BackupReport> {
    // `mode=rw`: the file must exist (`rwc` would create an empty one from a typo).
    let mut connection = AnyConnection::connect(&format!("sqlite://{source}?mode=rw"))
        .await
        .with_context(|| format!("cannot open the database {source}"))?;
    // The server's writer holds the lock only for a commit; wait for it rather than fail.
    sqlx::query("PRAGMA busy_timeout = 10000")
        .execute(&mut connection)
        .await?;
    let has_games: i64 = sqlx::query(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'games'",
    )
    .fetch_one(&mut connection)
    .await?
    .try_get("n")?;
    if has_games == 0 {
        bail!("{source} is not a Tsubame database (it has no games table)");
    }
    let target = partial
        .to_str()
        .with_context(|| format!("{} is not a UTF-8 path", partial.display()))?;
    sqlx::query("VACUUM INTO $1")
        .bind(target)
        .execute(&mut connection)
        .await
        .with_context(|| format!("cannot copy {source} to {target}"))?;
    connection.close().await?;

    let mut copy = AnyConnection::connect(&format!("sqlite://{target}?mode=ro"))
        .await
        .with_context(|| format!("cannot open the copy {target}"))?;
    let integrity: String = sqlx::query("PRAGMA integrity_check")
        .fetch_one(&mut copy)
        .await?
        .try_get(0)?;
    if integrity != "ok" {
        bail!("the copy {target} fails SQLite's integrity check: {integrity}");
    }
    let counts = sqlx::query(
        "SELECT (SELECT count(*) FROM games) AS games, \
         (SELECT count(*) FROM games WHERE status <> 'finished') AS unfinished, \
         (SELECT count(*) FROM moves) AS moves",
    )
    .fetch_one(&mut copy)
    .await?;
    let report = BackupReport {
        path: partial.to_path_buf(),
        bytes: 0,
        games: counts.try_get("games")?,
        unfinished_games: counts.try_get("unfinished")?,
        moves: counts.try_get("moves")?,
        elapsed: Duration::ZERO,
    };
    copy.close().await?;
    let bytes = std::fs::metadata(partial)
        .with_context(|| format!("cannot read the size of {}", partial.display()))?
        .len();
    Ok(BackupReport { bytes, ..report })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_urls_name_their_file_or_say_why_not() {
        assert_eq!(sqlite_file("sqlite://games.db").ok(), Some("games.db"));
        assert_eq!(
            sqlite_file("sqlite:/var/t.db?mode=rwc").ok(),
            Some("/var/t.db")
        );
        let postgres = sqlite_file("postgres://u@h/db").unwrap_err().to_string();
        assert!(postgres.contains("pg_dump"), "{postgres}");
        assert!(sqlite_file("mysql://x").is_err());
        assert!(sqlite_file("sqlite://").is_err());
        assert!(sqlite_file("sqlite::memory:").is_err());
    }
}
