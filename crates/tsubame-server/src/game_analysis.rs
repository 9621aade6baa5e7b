//! A finished game's analysis by the server's engine, made once and kept with the game: every
//! position searched in turn, each search in one of the engine's slots (so that computer
//! opponents and the analysis board take their turns between two positions), or, on a server
//! that takes workers, the whole game one job for a worker (its progress told with each
//! renewal of its lease); the whole under one admission of the address that asked. Anyone opening the game afterwards reads it from
//! the database; while it is being made, every request sees its progress and none starts a
//! second one on this instance (two instances over one database may each make it: the first
//! kept stays).

use crate::engine_work::{AnalysisTicket, EngineWork};
use crate::game::HostedGame;
use crate::store::{Store, StoredAnalysis};
use crate::workers::EngineJobs;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tsubame_engine::limits::Limits;
use utoipa::ToSchema;

pub use tsubame_analysis::{
    AnalysedPosition, GAME_ANALYSIS_DEPTH, GAME_ANALYSIS_MAX_PLIES, GAME_ANALYSIS_MOVETIME_MS,
};

/// Why a game's analysis is not started (the status and code are given at the edge,
/// `crate::refusals`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisRefusal {
    /// A game longer than [`GAME_ANALYSIS_MAX_PLIES`].
    #[error("a game of {plies} plies is longer than the {GAME_ANALYSIS_MAX_PLIES} analysed")]
    TooLong {
        /// The game's length.
        plies: usize,
    },
    /// As many analyses as this instance makes at once are being made.
    #[error("the server is analysing as many games as it can: try again shortly")]
    Busy,
    /// The analyses' bookkeeping failed.
    #[error("the game analyses failed")]
    Failed,
}

/// How long a game's analysis may take a worker, waiting included, before it is given up:
/// [`GAME_ANALYSIS_MAX_PLIES`] positions at [`GAME_ANALYSIS_MOVETIME_MS`] is three minutes.
const WORKER_ANALYSIS_WITHIN: Duration = Duration::from_secs(15 * 60);

/// What a worker answers for a game's analysis.
#[derive(Deserialize)]
struct WorkerAnswer {
    positions: Vec<AnalysedPosition>,
}

/// A game's analysis as `GET /api/games/{id}/analysis` answers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct GameAnalysis {
    /// `none` (not made yet), `running` or `done`.
    pub status: String,
    /// While running: the positions searched so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<usize>,
    /// While running or done: the positions of the game, the start included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// Once done: each position's score and line, from the start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<AnalysedPosition>>,
    /// Once done: the depth of each search, at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Once done: the time of each search, at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    /// Once done: when it was made (Unix milliseconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub made_at: Option<u64>,
}

impl GameAnalysis {
    /// Not made yet.
    pub fn none() -> GameAnalysis {
        GameAnalysis {
            status: "none".into(),
            done: None,
            total: None,
            positions: None,
            depth: None,
            movetime_ms: None,
            made_at: None,
        }
    }

    fn running(done: usize, total: usize) -> GameAnalysis {
        GameAnalysis {
            status: "running".into(),
            done: Some(done),
            total: Some(total),
            ..GameAnalysis::none()
        }
    }

    /// A kept analysis; `None` when what is kept does not read (it is then made again).
    pub fn of_stored(stored: &StoredAnalysis) -> Option<GameAnalysis> {
        let positions: Vec<AnalysedPosition> = serde_json::from_str(&stored.positions).ok()?;
        Some(GameAnalysis {
            status: "done".into(),
            done: None,
            total: Some(positions.len()),
            positions: Some(positions),
            depth: u32::try_from(stored.depth).ok(),
            movetime_ms: u64::try_from(stored.movetime_ms).ok(),
            made_at: u64::try_from(stored.made_at).ok(),
        })
    }
}

/// The analyses being made on this instance, by game, with their progress; at most `at_once`
/// of them, so that computer opponents keep most of the engine's slots.
pub struct GameAnalyses {
    running: Mutex<HashMap<String, (usize, usize)>>,
    at_once: usize,
    /// With workers, the queue the analyses go to.
    jobs: Option<Arc<EngineJobs>>,
}

/// What holds an analysis's place while it is made: the asking address's admission and its
/// entry among those running, both given back however the work ends.
struct Making {
    analyses: Arc<GameAnalyses>,
    game_id: String,
    _ticket: AnalysisTicket,
}

impl Drop for Making {
    fn drop(&mut self) {
        if let Ok(mut running) = self.analyses.running.lock() {
            running.remove(&self.game_id);
        }
    }
}

/// What to analyse: the game's start and its moves, USI text.
pub struct AnalysisJob {
    /// The game's id, under which the analysis is kept.
    pub game_id: String,
    /// The game at its start.
    pub start: HostedGame,
    /// Its moves.
    pub moves: Vec<String>,
}

impl GameAnalyses {
    /// Room for `at_once` analyses at a time (at least one), made in the engine's slots, or
    /// by workers through `jobs`.
    pub fn new(at_once: usize, jobs: Option<Arc<EngineJobs>>) -> GameAnalyses {
        GameAnalyses {
            running: Mutex::new(HashMap::new()),
            at_once: at_once.max(1),
            jobs,
        }
    }

    /// The progress of the game's analysis, while it is being made here.
    pub fn progress(&self, game_id: &str) -> Option<GameAnalysis> {
        let running = self.running.lock().ok()?;
        running
            .get(game_id)
            .map(|&(done, total)| GameAnalysis::running(done, total))
    }

    /// Starts making the game's analysis, holding `ticket` (the asking address's admission)
    /// until it is kept; an analysis of the game already being made is left to go on. The
    /// answer is the progress either way; 429 when as many analyses as this instance makes at
    /// once are being made, 409 for a game longer than [`GAME_ANALYSIS_MAX_PLIES`].
    pub fn start(
        self: &Arc<Self>,
        job: AnalysisJob,
        ticket: AnalysisTicket,
        engine: Arc<EngineWork>,
        store: Store,
    ) -> Result<GameAnalysis, AnalysisRefusal> {
        if job.moves.len() > GAME_ANALYSIS_MAX_PLIES {
            return Err(AnalysisRefusal::TooLong {
                plies: job.moves.len(),
            });
        }
        let total = job.moves.len() + 1;
        {
            let mut running = self.running.lock().map_err(|_| AnalysisRefusal::Failed)?;
            if let Some(&(done, total)) = running.get(&job.game_id) {
                return Ok(GameAnalysis::running(done, total));
            }
            if running.len() >= self.at_once {
                return Err(AnalysisRefusal::Busy);
            }
            running.insert(job.game_id.clone(), (0, total));
        }
        let making = Making {
            analyses: self.clone(),
            game_id: job.game_id.clone(),
            _ticket: ticket,
        };
        tokio::spawn(async move {
            let game_id = making.game_id.clone();
            let made = match &making.analyses.jobs {
                Some(jobs) => making.analyses.make_by_worker(job, jobs).await,
                None => making.analyses.make(job, &engine).await,
            };
            match made {
                Some(positions) => {
                    let kept = StoredAnalysis {
                        depth: i64::from(GAME_ANALYSIS_DEPTH),
                        movetime_ms: GAME_ANALYSIS_MOVETIME_MS as i64,
                        positions: serde_json::to_string(&positions).unwrap_or_default(),
                        made_at: unix_ms(),
                    };
                    if let Err(e) = store.insert_game_analysis(&game_id, &kept).await {
                        tracing::warn!(game = %game_id, "a game's analysis was not kept: {e:#}");
                    }
                }
                None => tracing::warn!(game = %game_id, "a game's analysis stopped early"),
            }
            drop(making);
        });
        Ok(GameAnalysis::running(0, total))
    }

    /// Has a worker analyse the game: one job under the game's id (asked again, on any
    /// instance, it is the same job), its progress read as the worker tells it.
    async fn make_by_worker(
        &self,
        job: AnalysisJob,
        jobs: &Arc<EngineJobs>,
    ) -> Option<Vec<AnalysedPosition>> {
        let id = format!("game:{}", job.game_id);
        let question = serde_json::json!({
            "type": "game",
            "variant": job.start.variant().name(),
            "options": job.start.options_text(),
            "sfen": job.start.start_sfen(),
            "moves": job.moves,
            "depth": GAME_ANALYSIS_DEPTH,
            "movetime_ms": GAME_ANALYSIS_MOVETIME_MS,
        })
        .to_string();
        let now = || unix_ms().max(0) as u64;
        let asked = jobs.ask(&id, "game", &question, WORKER_ANALYSIS_WITHIN, now);
        // The progress is read beside the wait for the answer, both polled all along: a
        // read awaited while the wait stood still could wait for the very connection the
        // wait holds (SQLite's pool has one).
        let follow_progress = async {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                if let Ok(Some(done)) = jobs.progress(&id).await
                    && let Ok(mut running) = self.running.lock()
                    && let Some(progress) = running.get_mut(&job.game_id)
                {
                    progress.0 = usize::try_from(done).unwrap_or(usize::MAX).min(progress.1);
                }
            }
        };
        let answered = tokio::select! {
            answered = asked => answered,
            never = follow_progress => never,
        };
        match answered.map(|text| serde_json::from_str::<WorkerAnswer>(&text)) {
            Ok(Ok(answer)) => Some(answer.positions),
            Ok(Err(e)) => {
                tracing::warn!(job = %id, "a worker's analysis unread: {e}");
                None
            }
            Err(e) => {
                tracing::warn!(job = %id, "no analysis by a worker: {e}");
                None
            }
        }
    }

    /// Searches every position of the game in turn, each in a slot of its own.
    async fn make(&self, job: AnalysisJob, engine: &EngineWork) -> Option<Vec<AnalysedPosition>> {
        let limits = Limits {
            depth: Some(GAME_ANALYSIS_DEPTH),
            move_time: Some(Duration::from_millis(GAME_ANALYSIS_MOVETIME_MS)),
            ..Limits::default()
        };
        let mut game = job.start;
        let mut positions = Vec::with_capacity(job.moves.len() + 1);
        for ply in 0..=job.moves.len() {
            let slot = engine.slot().await?;
            let searched = tokio::task::spawn_blocking(move || {
                let analysed = game.analysed_position(&limits);
                (game, analysed)
            })
            .await
            .ok()?;
            drop(slot);
            game = searched.0;
            positions.push(searched.1);
            if let Some(mv) = job.moves.get(ply) {
                game.play(mv).ok()?;
            }
            if let Ok(mut running) = self.running.lock()
                && let Some(progress) = running.get_mut(&job.game_id)
            {
                progress.0 = ply + 1;
            }
        }
        Some(positions)
    }
}

/// Now, in Unix milliseconds.
fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
