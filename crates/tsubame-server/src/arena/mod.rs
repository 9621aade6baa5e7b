//! Arena tournaments: for a fixed time, joined players are paired again as soon as their game
//! ends, and score by the arena's rules (`rules.rs`). Made by an administrator or from the
//! configuration's schedule (`schedule.rs`), stored (`store.rs`), served (`api.rs`) and
//! directed here: one instance at a time claims each tournament whose start has come, starts
//! it, scores its finished games, pairs its waiting players and ends it, every step under the
//! claim and in one transaction with what it changes, so that an instance killed at any point
//! leaves nothing half done and another takes over once its claim runs out.

pub mod api;
pub mod rules;
pub mod schedule;
pub mod store;

use crate::hub::{GameEndReason, Hub, Sitter};
use rules::{GameEnd, Outcome, Waiting};
use std::sync::Arc;
use std::time::Duration;
use store::{EntrantRow, FinishedPairing, ScoredSide, TournamentRow};

/// How long a claim on a tournament lasts: renewed every tick while the instance lives.
const CLAIM_MS: i64 = 3_000;

/// How often the scheduled arenas to come are made (each once, whichever instance does it).
const SCHEDULE_EVERY: Duration = Duration::from_secs(60);

/// How often the director looks at the tournaments.
const TICK: Duration = Duration::from_millis(200);

/// Directs the tournaments whose start has come, for as long as the server runs.
pub async fn run_director(hub: Arc<Hub>) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failures = 0u32;
    let mut last_schedule: Option<std::time::Instant> = None;
    loop {
        tick.tick().await;
        let schedules = &hub.settings().arenas;
        if !schedules.is_empty() && last_schedule.is_none_or(|at| at.elapsed() >= SCHEDULE_EVERY) {
            schedule::make_scheduled(&hub, schedules).await;
            last_schedule = Some(std::time::Instant::now());
        }
        let now = hub.now() as i64;
        let claimed = hub
            .store()
            .claim_tournaments(hub.instance(), now, now + CLAIM_MS)
            .await;
        let ids = match claimed {
            Ok(ids) => {
                failures = 0;
                ids
            }
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(300) {
                    tracing::warn!("cannot claim the tournaments: {e:#}");
                }
                continue;
            }
        };
        for id in ids {
            if let Err(e) = direct(&hub, &id).await {
                tracing::warn!(tournament = %id, "cannot direct the tournament: {e:#}");
            }
        }
    }
}

/// One look at a claimed tournament: its start, its finished games scored, its end, its
/// waiting players paired.
async fn direct(hub: &Hub, id: &str) -> anyhow::Result<()> {
    let store = hub.store();
    let Some(mut tournament) = store.tournament(id).await? else {
        return Ok(());
    };
    let instance = hub.instance();
    let now = hub.now() as i64;
    if tournament.status == "created" && now >= tournament.starts_at {
        if store
            .set_tournament_status(id, instance, now, "created", "started")
            .await?
        {
            tracing::info!(tournament = %id, "started");
            hub.tournament_changed(id);
        }
        tournament.status = "started".into();
    }
    if tournament.status != "started" {
        return Ok(());
    }
    let mut entrants = store.entrants(id).await?;
    for finished in store.finished_unscored(id).await? {
        // A game that ended after the tournament did counts for nothing.
        if finished.finished_at > tournament.ends_at {
            continue;
        }
        let sides = score(&finished, &entrants);
        if store
            .score_pairing(id, instance, hub.now() as i64, &finished.game_id, &sides)
            .await?
        {
            for side in &sides {
                if let Some(entrant) = entrants
                    .iter_mut()
                    .find(|e| e.account_id == side.account_id)
                {
                    entrant.points += side.points;
                    entrant.streak = side.streak;
                    entrant.games += i64::from(side.counted);
                    entrant.sente_games -= i64::from(!side.counted && side.sente);
                    entrant.last_opponent = Some(side.opponent.clone());
                    if entrant.game_id.as_deref() == Some(finished.game_id.as_str()) {
                        entrant.game_id = None;
                    }
                    if side.withdraw {
                        entrant.active = false;
                    }
                }
            }
            hub.tournament_changed(id);
        }
    }
    if hub.now() as i64 >= tournament.ends_at {
        if store
            .set_tournament_status(id, instance, hub.now() as i64, "started", "finished")
            .await?
        {
            tracing::info!(tournament = %id, "finished");
            hub.tournament_changed(id);
        }
        return Ok(());
    }
    let busy = store.playing_elsewhere(id).await?;
    pair(hub, &tournament, &entrants, &busy).await
}

/// What a finished game earns each of its players. An aborted game (resigned or aborted
/// before each side moved) counts as no game at all: no points, no game played, streaks as
/// they were.
fn score(finished: &FinishedPairing, entrants: &[EntrantRow]) -> [ScoredSide; 2] {
    let aborted = finished.reason == GameEndReason::Aborted.name();
    let plies = u32::try_from(finished.plies).unwrap_or(0);
    let winner = match finished.winner.as_deref() {
        Some("sente") => Some(0),
        Some("gote") => Some(1),
        _ => None,
    };
    let side = |side: usize| {
        let account = &finished.accounts[side];
        let streak = entrants
            .iter()
            .find(|e| &e.account_id == account)
            .map_or(0, |e| u32::try_from(e.streak).unwrap_or(0));
        let outcome = match winner {
            None => Outcome::Draw,
            Some(w) if w == side => Outcome::Win,
            Some(_) => Outcome::Loss,
        };
        // Tournament games start from the game's own position: sente moves first.
        let own_moves = if side == 0 {
            plies.div_ceil(2)
        } else {
            plies / 2
        };
        let (points, streak) = if aborted {
            (0, streak)
        } else {
            rules::score(
                streak,
                GameEnd {
                    outcome,
                    berserked: finished.berserk[side],
                    own_moves,
                    plies,
                },
            )
        };
        ScoredSide {
            account_id: account.clone(),
            points,
            // A win worth nothing (too short) is not counted as one.
            won: outcome == Outcome::Win && points > 0,
            counted: !aborted,
            sente: side == 0,
            streak: i64::from(streak),
            opponent: finished.accounts[1 - side].clone(),
            // Who lost without making a first move is not paired again until they rejoin.
            withdraw: finished.reason == GameEndReason::Absent.name() && outcome == Outcome::Loss,
        }
    };
    [side(0), side(1)]
}

/// Pairs the waiting players and starts their games; `busy`: players in another arena's
/// game, who wait for it to end (one game at a time per player).
async fn pair(
    hub: &Hub,
    tournament: &TournamentRow,
    entrants: &[EntrantRow],
    busy: &std::collections::HashSet<String>,
) -> anyhow::Result<()> {
    let waiting: Vec<&EntrantRow> = entrants
        .iter()
        .filter(|e| e.active && e.game_id.is_none() && !busy.contains(&e.account_id))
        .collect();
    if waiting.len() < 2 {
        return Ok(());
    }
    let others_playing = entrants.iter().any(|e| e.active && e.game_id.is_some());
    let candidates: Vec<Waiting> = waiting
        .iter()
        .map(|e| Waiting {
            account: e.account_id.clone(),
            name: e.username.clone(),
            points: e.points,
            rating: e.rating,
            last_opponent: e.last_opponent.clone(),
            sente_games: e.sente_games,
            games: e.games,
        })
        .collect();
    let pairs = rules::pair(&candidates, others_playing);
    if pairs.is_empty() {
        return Ok(());
    }
    let sitter = |e: &EntrantRow| Sitter {
        account: Some(e.account_id.clone()),
        name: e.username.clone(),
    };
    let games: Vec<[Sitter; 2]> = pairs
        .iter()
        .map(|&(sente, gote)| [sitter(waiting[sente]), sitter(waiting[gote])])
        .collect();
    let started = hub.start_tournament_games(tournament, games).await?;
    if started > 0 {
        tracing::debug!(tournament = %tournament.id, games = started, "paired");
        hub.tournament_changed(&tournament.id);
    }
    Ok(())
}
