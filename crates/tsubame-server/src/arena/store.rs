//! The tournaments' rows: tournaments, their players and their games. Every change the
//! directing instance makes (start, score, pair, end) is written only while its claim on the
//! tournament holds, in one transaction with what it changes, and announced to the other
//! instances on [`TOURNAMENT_CHANNEL`].

use crate::store::{GameRow, Store, TOURNAMENT_CHANNEL, lock_accounts, notify};
use anyhow::Result;
use sqlx::Row;
use std::collections::HashSet;

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The game's short name.
    pub variant: String,
    /// Rule options, `name=value,...`.
    pub options: String,
    /// The clock, as JSON.
    pub time_control: String,
    /// Whether its games are rated.
    pub rated: bool,
    /// When it starts, unix milliseconds.
    pub starts_at: i64,
    /// When it ends.
    pub ends_at: i64,
    /// `created`, `started` or `finished`.
    pub status: String,
    /// The administrator who made it; none for a scheduled one.
    pub created_by: Option<String>,
    /// A scheduled one's schedule and date: each is made once.
    pub schedule_key: Option<String>,
    /// When it was made.
    pub created_at: i64,
}

/// A player in a tournament, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrantRow {
    /// The account's id.
    pub account_id: String,
    /// The name shown.
    pub username: String,
    /// The rating when the player joined.
    pub rating: i64,
    /// Points.
    pub points: i64,
    /// Games scored.
    pub games: i64,
    /// Games won.
    pub wins: i64,
    /// Wins in a row now.
    pub streak: i64,
    /// Games played with sente.
    pub sente_games: i64,
    /// The last opponent's account.
    pub last_opponent: Option<String>,
    /// The game the player is in.
    pub game_id: Option<String>,
    /// Whether the player takes part now (not withdrawn).
    pub active: bool,
    /// When the player first joined.
    pub joined_at: i64,
}

/// A game a tournament paired, as stored with what it earned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairingRow {
    /// The game.
    pub game_id: String,
    /// Sente's account.
    pub sente_account: String,
    /// Gote's account.
    pub gote_account: String,
    /// When it was paired.
    pub created_at: i64,
    /// Whether its result has been scored.
    pub scored: bool,
    /// Whether it counted (ended before the tournament did).
    pub counted: bool,
    /// What it earned sente and gote.
    pub points: [i64; 2],
    /// The names shown for sente and gote.
    pub names: [String; 2],
    /// `playing` or `finished`.
    pub status: String,
    /// `sente`, `gote` or none.
    pub winner: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
    /// Whether each side berserked.
    pub berserk: [bool; 2],
}

/// How many unfinished games of other arenas an account (`$1`) is in, besides arena `$2`'s
/// (arenas that have ended included: their games go on).
const PLAYING_ELSEWHERE: &str = "SELECT COUNT(*) FROM games \
     WHERE status IN ('waiting', 'playing') AND tournament_id IS NOT NULL \
     AND tournament_id <> $2 AND (sente_account = $1 OR gote_account = $1)";

/// A finished game not scored yet, with what scoring it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedPairing {
    /// The game.
    pub game_id: String,
    /// Sente's and gote's accounts.
    pub accounts: [String; 2],
    /// `sente`, `gote` or none.
    pub winner: Option<String>,
    /// Why it ended.
    pub reason: String,
    /// Whether each side berserked.
    pub berserk: [bool; 2],
    /// Plies played.
    pub plies: i64,
    /// When it ended.
    pub finished_at: i64,
}

/// One player's share of a scored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredSide {
    /// The account.
    pub account_id: String,
    /// Points earned.
    pub points: i64,
    /// Whether the game was won.
    pub won: bool,
    /// The streak after the game.
    pub streak: i64,
    /// The opponent's account.
    pub opponent: String,
    /// Whether the player is withdrawn (lost without making a first move).
    pub withdraw: bool,
    /// Whether the game counts as one played (not an aborted one).
    pub counted: bool,
    /// Whether the player had sente in it.
    pub sente: bool,
}

/// A game to start: its row, its announcement, and its players' accounts (sente, gote).
pub struct NewPairing {
    /// The game's row.
    pub row: GameRow,
    /// Its announcement to the other instances.
    pub notice: String,
    /// Sente's and gote's accounts.
    pub accounts: [String; 2],
}

const TOURNAMENT_COLUMNS: &str = "id, name, variant, options, time_control, rated, starts_at, \
     ends_at, status, created_by, schedule_key, created_at";

fn tournament_from_row(row: &sqlx::any::AnyRow) -> Result<TournamentRow> {
    Ok(TournamentRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        variant: row.try_get("variant")?,
        options: row.try_get("options")?,
        time_control: row.try_get("time_control")?,
        rated: row.try_get::<i64, _>("rated")? != 0,
        starts_at: row.try_get("starts_at")?,
        ends_at: row.try_get("ends_at")?,
        status: row.try_get("status")?,
        created_by: row.try_get("created_by")?,
        schedule_key: row.try_get("schedule_key")?,
        created_at: row.try_get("created_at")?,
    })
}

const ENTRANT_COLUMNS: &str = "account_id, username, rating, points, games, wins, streak, \
     sente_games, last_opponent, game_id, active, joined_at";

fn entrant_from_row(row: &sqlx::any::AnyRow) -> Result<EntrantRow> {
    Ok(EntrantRow {
        account_id: row.try_get("account_id")?,
        username: row.try_get("username")?,
        rating: row.try_get("rating")?,
        points: row.try_get("points")?,
        games: row.try_get("games")?,
        wins: row.try_get("wins")?,
        streak: row.try_get("streak")?,
        sente_games: row.try_get("sente_games")?,
        last_opponent: row.try_get("last_opponent")?,
        game_id: row.try_get("game_id")?,
        active: row.try_get::<i64, _>("active")? != 0,
        joined_at: row.try_get("joined_at")?,
    })
}

/// Whether `instance` still holds its claim on tournament `id` at `now`, checked inside the
/// transaction that writes what the claim allows (the row stays locked on PostgreSQL until
/// it commits, so no other instance claims it meanwhile).
async fn claim_holds(
    connection: &mut sqlx::AnyConnection,
    id: &str,
    instance: &str,
    now: i64,
) -> Result<bool, sqlx::Error> {
    let held = sqlx::query(
        "UPDATE tournaments SET claimed_until = claimed_until WHERE id = $1 AND claimed_by = $2 \
         AND claimed_until > $3",
    )
    .bind(id)
    .bind(instance)
    .bind(now)
    .execute(&mut *connection)
    .await?;
    Ok(held.rows_affected() == 1)
}

impl Store {
    /// Runs `work` in one transaction that, once `work` gives a value, announces the change of
    /// tournament `id` and commits; with `claim` (an instance and the time now), only while
    /// that instance's claim on the tournament holds. `None`, with nothing written, when the
    /// claim is lost or `work` gives none.
    async fn change_tournament<T>(
        &self,
        id: &str,
        claim: Option<(&str, i64)>,
        work: impl AsyncFnOnce(&mut sqlx::AnyConnection) -> Result<Option<T>, sqlx::Error>,
    ) -> Result<Option<T>> {
        let written = async {
            let mut tx = self.pool().begin().await?;
            if let Some((instance, now)) = claim
                && !claim_holds(&mut tx, id, instance, now).await?
            {
                return Ok(None);
            }
            let Some(value) = work(&mut tx).await? else {
                return Ok(None);
            };
            self.announce_tournament(&mut tx, id).await?;
            tx.commit().await?;
            Ok(Some(value))
        }
        .await;
        self.written(written)
    }

    async fn announce_tournament(
        &self,
        connection: &mut sqlx::AnyConnection,
        id: &str,
    ) -> Result<(), sqlx::Error> {
        if self.shared() {
            notify(connection, TOURNAMENT_CHANNEL, id).await?;
        }
        Ok(())
    }

    /// Stores a new tournament; `false` when a scheduled one with its key exists already.
    pub async fn insert_tournament(&self, t: &TournamentRow) -> Result<bool> {
        let written = self
            .change_tournament(&t.id, None, async |tx| {
                let inserted = sqlx::query(&format!(
                    "INSERT INTO tournaments ({TOURNAMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, \
                     $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING"
                ))
                .bind(&t.id)
                .bind(&t.name)
                .bind(&t.variant)
                .bind(&t.options)
                .bind(&t.time_control)
                .bind(i64::from(t.rated))
                .bind(t.starts_at)
                .bind(t.ends_at)
                .bind(&t.status)
                .bind(&t.created_by)
                .bind(&t.schedule_key)
                .bind(t.created_at)
                .execute(&mut *tx)
                .await?;
                Ok(Some(inserted.rows_affected() == 1))
            })
            .await?;
        Ok(written.unwrap_or(false))
    }

    /// A tournament.
    pub async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>> {
        let row = sqlx::query(&format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(tournament_from_row).transpose()
    }

    /// Every tournament not finished, soonest first, then the `finished` newest finished.
    pub async fn listed_tournaments(&self, finished: i64) -> Result<Vec<TournamentRow>> {
        let mut out = Vec::new();
        for query in [
            format!(
                "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status <> 'finished' \
                 ORDER BY starts_at LIMIT 200"
            ),
            format!(
                "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status = 'finished' \
                 ORDER BY ends_at DESC LIMIT $1"
            ),
        ] {
            let rows = sqlx::query(&query)
                .bind(finished)
                .fetch_all(self.pool())
                .await?;
            for row in &rows {
                out.push(tournament_from_row(row)?);
            }
        }
        Ok(out)
    }

    /// A tournament's players, in no order.
    pub async fn entrants(&self, id: &str) -> Result<Vec<EntrantRow>> {
        let mut connection = self.pool().acquire().await?;
        entrants_in(&mut connection, id).await
    }

    /// A tournament's players (in no order) and its games (newest first, at most `limit`),
    /// read together: the standings count exactly the games shown as scored, where two
    /// separate reads could fall either side of a game's scoring.
    pub async fn standings_and_pairings(
        &self,
        id: &str,
        limit: i64,
    ) -> Result<(Vec<EntrantRow>, Vec<PairingRow>)> {
        let mut tx = self.read_snapshot().await?;
        let entrants = entrants_in(&mut tx, id).await?;
        let pairings = pairings_in(&mut tx, id, limit).await?;
        tx.commit().await?;
        Ok((entrants, pairings))
    }

    /// Joins a player to a tournament, or takes a withdrawn one back.
    pub async fn join_tournament(
        &self,
        id: &str,
        account_id: &str,
        username: &str,
        rating: i64,
        now: i64,
    ) -> Result<()> {
        self
            .change_tournament(id, None, async |tx| {
                sqlx::query(
                    "INSERT INTO tournament_players (tournament_id, account_id, username, rating, \
                     joined_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tournament_id, account_id) \
                     DO UPDATE SET active = 1",
                )
                .bind(id)
                .bind(account_id)
                .bind(username)
                .bind(rating)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                Ok(Some(()))
            })
            .await?;
        Ok(())
    }

    /// Withdraws a player: not paired again until they join again. `false` when they are
    /// not in the tournament.
    pub async fn withdraw_from_tournament(&self, id: &str, account_id: &str) -> Result<bool> {
        let written = self
            .change_tournament(id, None, async |tx| {
                let changed = sqlx::query(
                    "UPDATE tournament_players SET active = 0 WHERE tournament_id = $1 \
                     AND account_id = $2",
                )
                .bind(id)
                .bind(account_id)
                .execute(&mut *tx)
                .await?;
                Ok(Some(changed.rows_affected() == 1))
            })
            .await?;
        Ok(written.unwrap_or(false))
    }

    /// Claims (until `until`) the tournaments that are not finished and whose start has come,
    /// that no other instance holds: this instance directs them meanwhile. On SQLite, with
    /// one instance, every such tournament.
    pub async fn claim_tournaments(
        &self,
        instance: &str,
        now: i64,
        until: i64,
    ) -> Result<Vec<String>> {
        let skip_locked = if self.shared() {
            " FOR UPDATE SKIP LOCKED"
        } else {
            ""
        };
        let claim = format!(
            "UPDATE tournaments SET claimed_by = $1, claimed_until = $2 WHERE id IN (SELECT id \
             FROM tournaments WHERE status <> 'finished' AND starts_at <= $3 \
             AND (claimed_until <= $3 OR claimed_by = $1) ORDER BY starts_at LIMIT 50{skip_locked}) \
             RETURNING id"
        );
        let rows: Result<Vec<(String,)>, _> = sqlx::query_as(&claim)
            .bind(instance)
            .bind(until)
            .bind(now)
            .fetch_all(self.pool())
            .await;
        Ok(self.written(rows)?.into_iter().map(|(id,)| id).collect())
    }

    /// Moves a tournament from `from` to `to` (`created` to `started`, `started` to
    /// `finished`) under the claim; at the end no player is left in a game. `false` when the
    /// claim is lost or the status was not `from`.
    pub async fn set_tournament_status(
        &self,
        id: &str,
        instance: &str,
        now: i64,
        from: &str,
        to: &str,
    ) -> Result<bool> {
        let written = self
            .change_tournament(id, Some((instance, now)), async |tx| {
                let changed =
                    sqlx::query("UPDATE tournaments SET status = $1 WHERE id = $2 AND status = $3")
                        .bind(to)
                        .bind(id)
                        .bind(from)
                        .execute(&mut *tx)
                        .await?;
                if changed.rows_affected() != 1 {
                    return Ok(None);
                }
                if to == "finished" {
                    sqlx::query(
                        "UPDATE tournament_players SET game_id = NULL WHERE tournament_id = $1",
                    )
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(Some(true))
            })
            .await?;
        Ok(written.unwrap_or(false))
    }

    /// The tournament's finished games not scored yet, oldest first.
    pub async fn finished_unscored(&self, id: &str) -> Result<Vec<FinishedPairing>> {
        let rows = sqlx::query(
            "SELECT p.game_id, p.sente_account, p.gote_account, g.winner, g.reason, \
             g.sente_berserk, g.gote_berserk, g.finished_at, \
             (SELECT COUNT(*) FROM moves m WHERE m.game_id = p.game_id) AS plies \
             FROM tournament_games p JOIN games g ON g.id = p.game_id \
             WHERE p.tournament_id = $1 AND p.scored = 0 AND g.status = 'finished' \
             ORDER BY g.finished_at",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(FinishedPairing {
                    game_id: row.try_get("game_id")?,
                    accounts: [row.try_get("sente_account")?, row.try_get("gote_account")?],
                    winner: row.try_get("winner")?,
                    reason: row
                        .try_get::<Option<String>, _>("reason")?
                        .unwrap_or_default(),
                    berserk: [
                        row.try_get::<i64, _>("sente_berserk")? != 0,
                        row.try_get::<i64, _>("gote_berserk")? != 0,
                    ],
                    plies: row.try_get("plies")?,
                    finished_at: row
                        .try_get::<Option<i64>, _>("finished_at")?
                        .unwrap_or_default(),
                })
            })
            .collect()
    }

    /// Scores one finished game under the claim: its points, both players' totals and
    /// streaks, and both free to be paired again. `false` when the claim is lost or the game
    /// was scored already.
    pub async fn score_pairing(
        &self,
        id: &str,
        instance: &str,
        now: i64,
        game_id: &str,
        sides: &[ScoredSide; 2],
    ) -> Result<bool> {
        let written = self
            .change_tournament(id, Some((instance, now)), async |tx| {
                let marked = sqlx::query(
                    "UPDATE tournament_games SET scored = 1, counted = $1, sente_points = $2, \
                     gote_points = $3 WHERE game_id = $4 AND scored = 0",
                )
                .bind(i64::from(sides[0].counted))
                .bind(sides[0].points)
                .bind(sides[1].points)
                .bind(game_id)
                .execute(&mut *tx)
                .await?;
                if marked.rows_affected() != 1 {
                    return Ok(None);
                }
                for side in sides {
                    // An aborted game is no game: neither played nor a sente given (the
                    // pairing counted it), only the last opponent, so that the two are not
                    // paired straight back together while others can come.
                    let uncounted_sente = i64::from(!side.counted && side.sente);
                    sqlx::query(
                        "UPDATE tournament_players SET points = points + $1, \
                         games = games + $2, sente_games = sente_games - $3, \
                         wins = wins + $4, streak = $5, last_opponent = $6, \
                         game_id = CASE WHEN game_id = $7 THEN NULL ELSE game_id END, \
                         active = CASE WHEN $8 = 1 THEN 0 ELSE active END \
                         WHERE tournament_id = $9 AND account_id = $10",
                    )
                    .bind(side.points)
                    .bind(i64::from(side.counted))
                    .bind(uncounted_sente)
                    .bind(i64::from(side.won))
                    .bind(side.streak)
                    .bind(&side.opponent)
                    .bind(game_id)
                    .bind(i64::from(side.withdraw))
                    .bind(id)
                    .bind(&side.account_id)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(Some(true))
            })
            .await?;
        Ok(written.unwrap_or(false))
    }

    /// The players in another arena's unfinished game (that arena ended or not): not to be
    /// paired in arena `id` until it ends.
    pub async fn playing_elsewhere(&self, id: &str) -> Result<HashSet<String>> {
        // Games in play are few, and found by the status index: their players, then.
        let rows: Vec<(Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT sente_account, gote_account FROM games \
             WHERE status IN ('waiting', 'playing') AND tournament_id IS NOT NULL \
             AND tournament_id <> $1",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .flat_map(|(sente, gote)| [sente, gote])
            .flatten()
            .collect())
    }

    /// Starts the paired games under the claim, each player taken only while waiting and
    /// taking part: all of them or, when one player is not free any more (withdrawn, in a
    /// game another instance started, or in another arena's game), none. `false` then.
    pub async fn start_pairings(
        &self,
        id: &str,
        instance: &str,
        now: i64,
        pairings: &[NewPairing],
    ) -> Result<bool> {
        let written = self
            .change_tournament(id, Some((instance, now)), async |tx| {
                // One game at a time per player, across arenas: with the players' rows
                // locked, nobody may be in another arena's unfinished game.
                let accounts: Vec<&str> = pairings
                    .iter()
                    .flat_map(|p| p.accounts.iter().map(String::as_str))
                    .collect();
                lock_accounts(tx, &accounts).await?;
                for account in &accounts {
                    let (elsewhere,): (i64,) = sqlx::query_as(PLAYING_ELSEWHERE)
                        .bind(*account)
                        .bind(id)
                        .fetch_one(&mut *tx)
                        .await?;
                    if elsewhere > 0 {
                        return Ok(None);
                    }
                }
                for pairing in pairings {
                    for (side, account) in pairing.accounts.iter().enumerate() {
                        let taken = sqlx::query(
                            "UPDATE tournament_players SET game_id = $1, \
                             sente_games = sente_games + $2 WHERE tournament_id = $3 \
                             AND account_id = $4 AND game_id IS NULL AND active = 1",
                        )
                        .bind(&pairing.row.id)
                        .bind(i64::from(side == 0))
                        .bind(id)
                        .bind(account)
                        .execute(&mut *tx)
                        .await?;
                        if taken.rows_affected() != 1 {
                            return Ok(None);
                        }
                    }
                    self.write_game_row(tx, &pairing.row, &pairing.notice)
                        .await?;
                    sqlx::query(
                        "INSERT INTO tournament_games (game_id, tournament_id, sente_account, \
                         gote_account, created_at) VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(&pairing.row.id)
                    .bind(id)
                    .bind(&pairing.accounts[0])
                    .bind(&pairing.accounts[1])
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(Some(true))
            })
            .await?;
        Ok(written.unwrap_or(false))
    }
}

/// A tournament's players, in no order, read on `connection`.
async fn entrants_in(connection: &mut sqlx::AnyConnection, id: &str) -> Result<Vec<EntrantRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {ENTRANT_COLUMNS} FROM tournament_players WHERE tournament_id = $1"
    ))
    .bind(id)
    .fetch_all(&mut *connection)
    .await?;
    rows.iter().map(entrant_from_row).collect()
}

/// A tournament's games, newest first, at most `limit`, read on `connection`.
async fn pairings_in(
    connection: &mut sqlx::AnyConnection,
    id: &str,
    limit: i64,
) -> Result<Vec<PairingRow>> {
    let rows = sqlx::query(
        "SELECT p.game_id, p.sente_account, p.gote_account, p.created_at, p.scored, \
         p.counted, p.sente_points, p.gote_points, g.sente_name, g.gote_name, g.status, \
         g.winner, g.reason, g.sente_berserk, g.gote_berserk \
         FROM tournament_games p JOIN games g ON g.id = p.game_id \
         WHERE p.tournament_id = $1 ORDER BY p.created_at DESC, p.game_id LIMIT $2",
    )
    .bind(id)
    .bind(limit)
    .fetch_all(&mut *connection)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(PairingRow {
                game_id: row.try_get("game_id")?,
                sente_account: row.try_get("sente_account")?,
                gote_account: row.try_get("gote_account")?,
                created_at: row.try_get("created_at")?,
                scored: row.try_get::<i64, _>("scored")? != 0,
                counted: row.try_get::<i64, _>("counted")? != 0,
                points: [row.try_get("sente_points")?, row.try_get("gote_points")?],
                names: [row.try_get("sente_name")?, row.try_get("gote_name")?],
                status: row.try_get("status")?,
                winner: row.try_get("winner")?,
                reason: row.try_get("reason")?,
                berserk: [
                    row.try_get::<i64, _>("sente_berserk")? != 0,
                    row.try_get::<i64, _>("gote_berserk")? != 0,
                ],
            })
        })
        .collect()
}
