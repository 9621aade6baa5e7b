//! Live games: the server's authority over moves, clocks, results and who may do what.
//!
//! Every game in play lives in memory behind its own lock. A change is stored before it is
//! applied in memory and announced, so what a player was told is always in the database; a
//! restart rebuilds the same games from the stored rows.
//!
//! Several instances may share one PostgreSQL database. The database is then the authority:
//! each change is stored only over the version of the game it was made from (so of two
//! instances changing a game at once, one wins and the other reloads the game and checks the
//! request again), each committed change is announced with `NOTIFY` and every instance keeps
//! its games in memory as stored and tells its own watchers, and what falls due (a flag, an
//! expiry, a computer's move whose instance stopped) is claimed by one instance with
//! `FOR UPDATE SKIP LOCKED`. Clocks run from the turn start stored with each change.
//!
//! Each live game is a room (`room.rs`): its state, its lock, its flag time, its watchers and
//! every transition of a game in play. The hub keeps the index of rooms (`rooms.rs`) and hands
//! each request to its room; seating (`seats.rs`), the computer (`computer.rs`), what falls due
//! (`due.rs`), the other instances (`sync.rs`), chat (`chat.rs`), the lobby (`lobby.rs`) and the
//! creation limit (`limits.rs`) are modules of their own over the rooms and the shared
//! services (`services.rs`), none of which knows the hub.

mod berserk;
mod challenges;
mod chat;
mod computer;
mod draws;
mod due;
mod ends;
mod error;
mod limits;
mod lobby;
mod messages;
mod moves;
mod rematch;
mod room;
mod rooms;
mod seats;
mod services;
mod sync;

pub use challenges::{ChallengeList, ChallengeView, MAX_WAITING_CHALLENGES};
pub use ends::GameEndReason;
pub use error::{GameError, Refusal};
pub use messages::SocketMessage;
pub use room::{
    Credential, GameResult, GameRoom, GameView, LiveGame, MoveRecord, Phase, Player, Side,
};
pub use seats::{NewGame, SeatGrant, Sitter};
pub use services::Settings;

use crate::accounts::Accounts;
use crate::chat::{ChatLine, Room};
use crate::engine_work::EngineWork;
use crate::metrics::Metrics;
use crate::store::Store;
use chat::GameChat;
use computer::Computer;
use limits::CreationLimit;
use rooms::Rooms;
use seats::Seats;
use services::GameServices;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex as StdMutex};

/// A new random id, of the shape games have: for tournaments too.
pub fn random_game_id() -> String {
    room::random_id()
}

/// All live games and what they use: the index of rooms, the computer, the chat, the limits
/// and the accounts. Each request is handed to the game's room; the hub seats players and
/// starts the rooms' workers.
pub struct Hub {
    services: Arc<GameServices>,
    rooms: Arc<Rooms>,
    computer: Computer,
    seats: Seats,
    chat: GameChat,
    /// Game creations by address.
    creations: CreationLimit,
    accounts: Accounts,
    /// Who is on the site.
    presence: crate::presence::Presence,
    /// Becomes `true` when the server stops: every game socket then closes with 1001.
    shutdown: tokio::sync::watch::Sender<bool>,
    /// On a shared database, the connection that listens for the other instances'
    /// announcements, opened before the games are loaded so that nothing falls between.
    listener: StdMutex<Option<sqlx::postgres::PgListener>>,
    /// The listener's count of connections refused for their address's share.
    refused_connections: std::sync::OnceLock<Arc<crate::connections::RefusalLog>>,
    /// Finished games' analyses being made on this instance.
    game_analyses: Arc<crate::game_analysis::GameAnalyses>,
}

impl Hub {
    /// Whether the database answers: what a readiness probe asks.
    pub async fn database_ready(&self) -> anyhow::Result<()> {
        self.services.store.ping().await?;
        if let Some(reason) = self.services.store.writes_refused() {
            anyhow::bail!(
                "the database refuses writes ({reason}): moves and games cannot be saved"
            );
        }
        Ok(())
    }

    /// A hub over this database, with every unfinished game resumed.
    ///
    /// Time the server was down is not charged to anyone: each resumed turn starts afresh with
    /// the clocks as stored after the last move.
    pub async fn open(store: Store, settings: Settings) -> anyhow::Result<Arc<Hub>> {
        let creations = CreationLimit::new(settings.games_per_minute);
        let engine = EngineWork::new(settings.engine);
        let settings_slots = settings.engine.slots;
        let settings_queue = settings.engine.queue;
        let account_limits = settings.accounts;
        let services = Arc::new(GameServices::new(store.clone(), settings)?);
        let accounts = Accounts::new(
            store,
            account_limits,
            services.sessions_ended.clone(),
            services.instance.clone(),
        );
        let rooms = Arc::new(Rooms::new(services.clone()));
        let engine_jobs = services.settings.workers.map(|workers| {
            let jobs = crate::workers::EngineJobs::new(services.store.clone(), workers);
            let clock = services.clone();
            tokio::spawn(jobs.clone().forget_old_jobs(move || clock.now()));
            jobs
        });
        let computer = Computer::new(services.clone(), engine, engine_jobs.clone());
        let hub = Arc::new(Hub {
            seats: Seats::new(rooms.clone(), computer.clone()),
            computer,
            chat: GameChat::new(),
            creations,
            accounts,
            presence: crate::presence::Presence::default(),
            rooms,
            shutdown: tokio::sync::watch::Sender::new(false),
            listener: StdMutex::new(None),
            refused_connections: std::sync::OnceLock::new(),
            // With workers, analyses queue behind the computer's moves (see `Jobs::lease`), so
            // as many may wait as analysis requests; in the server's own slots, at most half
            // of them go to analyses.
            game_analyses: Arc::new(crate::game_analysis::GameAnalyses::new(
                if engine_jobs.is_some() {
                    settings_queue
                } else {
                    settings_slots / 2
                },
                engine_jobs.clone(),
            )),
            services,
        });
        let svc = &*hub.services;
        let listener = svc.store.listener().await?;
        if let Ok(mut opened) = hub.listener.lock() {
            *opened = listener;
        }
        let mut moves_by_game = svc.store.unfinished_games_moves().await?;
        for row in svc.store.unfinished_games().await? {
            let moves = moves_by_game.remove(&row.id).unwrap_or_default();
            match hub.rooms.rebuild(&row, &moves) {
                Ok(live) => {
                    let room = hub.rooms.insert(live);
                    let mut live = room.game.lock().await;
                    // The last move ended the game, but its result was not stored then.
                    if live.phase == Phase::Playing && live.game.outcome().is_some() {
                        room.finish_by_rules(svc, &mut live).await;
                    }
                    if svc.store.shared() && !live.engine_waiting {
                        // On a shared database, a computer's search that another instance has
                        // started is left to it (and taken up here only once overdue).
                        room.reschedule(&live, &svc.settings);
                    } else {
                        hub.computer.schedule(&room, &mut live);
                    }
                }
                Err(e) => tracing::error!(game = %row.id, "cannot resume the game: {e}"),
            }
        }
        Ok(hub)
    }

    /// On a shared database, follows the changes and chat lines the other instances announce,
    /// for as long as the server runs (see `sync.rs`).
    pub async fn follow_other_instances(self: Arc<Self>) {
        let opened = self
            .listener
            .lock()
            .ok()
            .and_then(|mut opened| opened.take());
        sync::follow_other_instances(self.rooms.clone(), opened).await;
    }

    /// Counts a game creation from `client`, or refuses it (429) past the address's rate.
    pub fn admit_creation(&self, client: IpAddr) -> Result<(), GameError> {
        self.creations.admit(client)
    }

    /// What the operator set.
    pub fn settings(&self) -> &Settings {
        &self.services.settings
    }

    /// Accounts and their sessions.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// Who is on the site.
    pub fn presence(&self) -> &crate::presence::Presence {
        &self.presence
    }

    /// Finished games' analyses being made on this instance.
    pub fn game_analyses(&self) -> &Arc<crate::game_analysis::GameAnalyses> {
        &self.game_analyses
    }

    /// The scheduler of engine searches.
    pub fn engine(&self) -> &Arc<EngineWork> {
        self.computer.engine()
    }

    /// The queue of engine jobs for workers, when the server takes workers.
    pub fn engine_jobs(&self) -> Option<Arc<crate::workers::EngineJobs>> {
        self.computer.jobs().cloned()
    }

    /// The server's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.services.metrics
    }

    /// Where the listener counts the connections it refuses, for the metrics.
    pub fn count_refused_connections(&self, log: Arc<crate::connections::RefusalLog>) {
        let _ = self.refused_connections.set(log);
    }

    /// The metrics in Prometheus' text format, with the live games counted now.
    pub async fn metrics_text(&self) -> String {
        if let Some(log) = self.refused_connections.get() {
            let refused = log.refused.load(Ordering::Relaxed);
            let counted = self.services.metrics.connections_refused.get();
            self.services
                .metrics
                .connections_refused
                .inc_by(refused.saturating_sub(counted));
        }
        let failures = self.services.store.write_failures();
        let counted = self.services.metrics.database_write_failures.get();
        self.services
            .metrics
            .database_write_failures
            .inc_by(failures.saturating_sub(counted));
        self.services
            .metrics
            .database_writable
            .set(i64::from(self.services.store.writes_refused().is_none()));
        let (mut waiting, mut playing, mut finished) = (0, 0, 0);
        for room in self.rooms.all() {
            match room.game.lock().await.phase {
                Phase::Waiting => waiting += 1,
                Phase::Playing => playing += 1,
                Phase::Finished => finished += 1,
            }
        }
        self.services
            .metrics
            .games
            .with_label_values(&["waiting"])
            .set(waiting);
        self.services
            .metrics
            .games
            .with_label_values(&["playing"])
            .set(playing);
        self.services
            .metrics
            .games
            .with_label_values(&["finished"])
            .set(finished);
        if let Some(jobs) = self.engine_jobs() {
            self.set_worker_metrics(&jobs).await;
        }
        self.services.metrics.render()
    }

    /// The workers' queue and throughput, read from the database (every instance's jobs).
    async fn set_worker_metrics(&self, jobs: &crate::workers::EngineJobs) {
        let metrics = &self.services.metrics;
        let now = self.now();
        match jobs.queue(now, None).await {
            Ok((waiting, oldest)) => {
                metrics.worker_jobs_waiting.set(waiting);
                metrics.worker_oldest_wait_seconds.set(oldest.as_secs_f64());
            }
            Err(e) => tracing::warn!("the workers' queue unread: {e}"),
        }
        match jobs.answered_by_worker(now.saturating_sub(3_600_000)).await {
            Ok(workers) => {
                metrics.worker_jobs_answered.reset();
                metrics.worker_busy_seconds.reset();
                for (worker, answered, busy) in workers {
                    metrics
                        .worker_jobs_answered
                        .with_label_values(&[worker.as_str()])
                        .set(answered);
                    metrics
                        .worker_busy_seconds
                        .with_label_values(&[worker.as_str()])
                        .set(busy.as_secs_f64());
                }
            }
            Err(e) => tracing::warn!("the workers' throughput unread: {e}"),
        }
    }

    /// How long a computer's move waits now: jobs (or searches) waiting, the oldest's wait
    /// (with workers), the recent moves' mean wait on this instance, and whether that is long.
    pub async fn engine_queue(&self) -> crate::engine_work::EngineQueue {
        let recent = self.engine().recent_wait();
        let (waiting, oldest) = match self.engine_jobs() {
            // The computer's moves only: what the page says is how long they wait.
            Some(jobs) => jobs
                .queue(self.now(), Some("move"))
                .await
                .unwrap_or((0, std::time::Duration::ZERO)),
            None => {
                let (waiting, oldest) = self.engine().waiting_moves();
                (waiting as i64, oldest)
            }
        };
        let long_wait = crate::engine_work::LONG_WAIT;
        crate::engine_work::EngineQueue {
            waiting,
            oldest_wait_ms: oldest.as_millis() as u64,
            recent_wait_ms: recent.as_millis() as u64,
            long: recent >= long_wait || oldest >= long_wait,
        }
    }

    /// Tells every game socket that the server is stopping.
    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// What a game socket watches to learn that the server is stopping.
    pub fn shutdown_signal(&self) -> tokio::sync::watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// The client's view of a game now; `with_moves` includes the move list.
    pub fn view_of(&self, live: &LiveGame, with_moves: bool) -> GameView {
        live.view(self.now(), &self.services.settings, with_moves)
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.services.store
    }

    /// Server time: unix milliseconds that never go backwards.
    pub fn now(&self) -> u64 {
        self.services.now()
    }

    /// A game in memory.
    pub fn slot(&self, id: &str) -> Option<Arc<GameRoom>> {
        self.rooms.get(id)
    }

    /// Drops from memory the finished games that nothing holds and nobody looked up for
    /// `idle_ms`; returns how many left.
    pub fn evict_finished(&self, idle_ms: u64) -> usize {
        self.rooms.evict_finished(idle_ms)
    }

    /// Shows a deleted account's seats in the games this instance holds in memory as the
    /// database now has them, under [`crate::store::DELETED_NAME`] (only finished games:
    /// an account with a game not over cannot be deleted). Another instance's copies are
    /// finished games too, dropped from its memory once nobody has looked at them for a while.
    pub async fn forget_deleted_account(&self, account_id: &str) {
        for room in self.rooms.all() {
            let mut live = room.game.lock().await;
            for side in 0..2 {
                if live.accounts[side].as_deref() == Some(account_id) {
                    live.names[side] = crate::store::DELETED_NAME.to_string();
                }
            }
        }
    }

    /// Ends the challenges waiting to or from an account that can no longer answer them
    /// (deleted, or closed by an administrator): those to it as declined, its own withdrawn,
    /// so that no challenger's slot stays taken by a challenge nobody can accept.
    pub async fn end_challenges_of(&self, account_id: &str) {
        for room in self.rooms.all() {
            let (to_it, from_it) = {
                let live = room.game.lock().await;
                let waiting = live.phase == Phase::Waiting && live.challenged.is_some();
                (
                    waiting && live.challenged.as_deref() == Some(account_id),
                    waiting && live.accounts.iter().flatten().any(|a| a == account_id),
                )
            };
            let ended = if to_it {
                self.seats.decline(&room, account_id).await.map(|_| ())
            } else if from_it {
                let who = Credential {
                    token: None,
                    account: Some(account_id),
                };
                room.abort(&self.services, &who).await.map(|_| ())
            } else {
                continue;
            };
            if let Err(e) = ended {
                tracing::warn!(account = account_id, "cannot end a challenge: {}", e);
            }
        }
    }

    /// A game, live or loaded from the database (finished games are loaded on demand and kept).
    pub async fn find(&self, id: &str) -> Result<Arc<GameRoom>, GameError> {
        self.rooms.find(id).await
    }

    /// Creates a game and returns the creator's seat.
    pub async fn create(&self, new: NewGame) -> Result<SeatGrant, GameError> {
        self.seats.create(new).await
    }

    /// Challenges a named player: `new.challenged` is the account the game is for. Refused
    /// when that player blocks the challenger, when one challenge between the two already
    /// waits, or when the challenger has [`MAX_WAITING_CHALLENGES`] waiting.
    pub async fn challenge(&self, new: NewGame) -> Result<SeatGrant, GameError> {
        let (Some(challenger), Some(challenged)) = (
            new.creator.account.clone(),
            new.challenged.as_ref().and_then(|c| c.account.clone()),
        ) else {
            return Err(GameError::ChallengeNeedsLogins);
        };
        let blocked = self
            .store()
            .blocks(&challenged, &challenger)
            .await
            .map_err(GameError::Database)?;
        if blocked {
            return Err(GameError::ChallengeBlocked);
        }
        let waiting = self.challenges_of(&challenger).await;
        if waiting.outgoing.len() >= MAX_WAITING_CHALLENGES {
            return Err(GameError::TooManyChallenges {
                count: MAX_WAITING_CHALLENGES,
            });
        }
        let name = new.challenged.as_ref().map_or("", |c| c.name.as_str());
        if waiting
            .outgoing
            .iter()
            .chain(&waiting.incoming)
            .any(|c| c.to.eq_ignore_ascii_case(name) || c.from.eq_ignore_ascii_case(name))
        {
            return Err(GameError::ChallengeAlreadyWaiting {
                name: name.to_string(),
            });
        }
        self.seats.create(new).await
    }

    /// Starts a tournament's games between the paired players (sente, gote), under this
    /// instance's claim on the tournament: stored together with the players taken, then
    /// hosted here (the other instances load them when they hear of them). How many started:
    /// none when the claim was lost or a player was no longer free.
    pub async fn start_tournament_games(
        &self,
        tournament: &crate::arena::store::TournamentRow,
        pairs: Vec<[Sitter; 2]>,
    ) -> Result<usize, GameError> {
        let variant: tsubame_rules::Variant = tournament
            .variant
            .parse()
            .map_err(|e: tsubame_rules::UnknownVariant| GameError::Corrupt(e.to_string()))?;
        let control: crate::clock::TimeControl = serde_json::from_str(&tournament.time_control)
            .map_err(|e| GameError::Corrupt(format!("the tournament's clock: {e}")))?;
        let mut games = Vec::with_capacity(pairs.len());
        let mut pairings = Vec::with_capacity(pairs.len());
        for players in pairs {
            let accounts = [
                players[0].account.clone().unwrap_or_default(),
                players[1].account.clone().unwrap_or_default(),
            ];
            let game = crate::game::HostedGame::new(variant, &tournament.options, None)
                .map_err(GameError::Rules)?;
            let live = self
                .seats
                .paired(game, control, tournament.rated, &tournament.id, players)
                .await?;
            let row = live.new_row(&self.services.settings)?;
            let notice = serde_json::to_string(&room::Notice::of(&live.id, live.version))
                .unwrap_or_default();
            pairings.push(crate::arena::store::NewPairing {
                row,
                notice,
                accounts,
            });
            games.push(live);
        }
        let started = self
            .store()
            .start_pairings(
                &tournament.id,
                &self.services.instance,
                self.now() as i64,
                &pairings,
            )
            .await
            .map_err(|e| GameError::Storing {
                what: "the pairing",
                error: e,
            })?;
        if !started {
            return Ok(0);
        }
        let count = games.len();
        self.seats.host_stored(games);
        Ok(count)
    }

    /// This instance's name: what it claims tournaments and due games with.
    pub fn instance(&self) -> &str {
        &self.services.instance
    }

    /// Tells this instance's watchers of a tournament that it changed.
    pub fn tournament_changed(&self, id: &str) {
        let _ = self.services.tournaments.send(Arc::from(id));
    }

    /// The ids of the tournaments that change, as they do.
    pub fn tournament_signal(&self) -> tokio::sync::broadcast::Receiver<Arc<str>> {
        self.services.tournaments.subscribe()
    }

    /// Declines a challenge to `account_id`.
    pub async fn decline(
        &self,
        room: &Arc<GameRoom>,
        account_id: &str,
    ) -> Result<GameView, GameError> {
        self.seats.decline(room, account_id).await
    }

    /// The challenges waiting to and from an account.
    pub async fn challenges_of(&self, account_id: &str) -> ChallengeList {
        challenges::challenges_of(&self.rooms, account_id).await
    }

    /// What changes whenever a challenge does, anywhere: a stream of an account's
    /// challenges looks again then.
    pub fn challenge_signal(&self) -> tokio::sync::broadcast::Receiver<Arc<[String]>> {
        self.services.challenges.subscribe()
    }

    /// Takes the open seat of a game with its invite (or of a public game without one).
    /// `who` is what the joiner presents: someone who already holds the other seat cannot
    /// play against themselves.
    pub async fn join(
        &self,
        room: &Arc<GameRoom>,
        invite: Option<&str>,
        joiner: Sitter,
        who: &Credential<'_>,
    ) -> Result<SeatGrant, GameError> {
        // A player who blocks the joiner takes no game from them.
        if let Some(joining) = &joiner.account {
            let seated: Vec<String> = {
                let live = room.game.lock().await;
                live.accounts.iter().flatten().cloned().collect()
            };
            for account in seated {
                let blocks = self
                    .store()
                    .blocks(&account, joining)
                    .await
                    .map_err(GameError::Database)?;
                if blocks {
                    return Err(GameError::CreatorBlocksYou);
                }
            }
        }
        self.seats.join(room, invite, joiner, who).await
    }

    /// Plays a move for the seat holding `token`; answers once the move is stored.
    pub async fn play(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
        text: &str,
    ) -> Result<GameView, GameError> {
        let svc = &*self.services;
        let view = room
            .retry_stale(svc, || async {
                let mut live = room.game.lock().await;
                let side = GameRoom::seat(&live, who)?;
                room.play_locked(svc, &mut live, side, text).await
            })
            .await?;
        self.computer.after_change(room).await;
        Ok(view)
    }

    /// Resigns for the seat the credential holds.
    pub async fn resign(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
    ) -> Result<GameView, GameError> {
        room.resign(&self.services, who).await
    }

    /// Aborts a game before both players have moved (or while a seat is open).
    pub async fn abort(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
    ) -> Result<GameView, GameError> {
        room.abort(&self.services, who).await
    }

    /// Berserks for the seat the credential holds, in a tournament's game.
    pub async fn berserk(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
    ) -> Result<GameView, GameError> {
        room.berserk(&self.services, who).await
    }

    /// Offers, accepts or declines a draw. Offering when the opponent already offers accepts.
    pub async fn draw(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, GameError> {
        room.draw(&self.services, who, action).await
    }

    /// Ends games whose flag has fallen, aborts those nobody started, takes up overdue
    /// computer moves and lets finished games leave memory, forever (see `due.rs`).
    pub async fn run_flag_sweeper(self: Arc<Self>) {
        due::Sweeper::new(self.rooms.clone(), self.computer.clone())
            .run()
            .await;
    }

    /// The seat a credential holds in a game, if any (for the WebSocket greeting).
    pub async fn seat_name(&self, room: &GameRoom, who: &Credential<'_>) -> Option<&'static str> {
        room.game.lock().await.viewer_seat(who)
    }

    /// Says a line in a game's chat: a player in the players' room, anyone else (logged in)
    /// in the spectators'. `account_name` is the logged-in speaker's name.
    pub async fn say(
        &self,
        room: &GameRoom,
        who: &Credential<'_>,
        account_name: Option<&str>,
        text: &str,
    ) -> Result<ChatLine, GameError> {
        self.chat
            .say(&self.services, room, who, account_name, text)
            .await
    }

    /// The room a credential sees in a game, and its newest lines.
    pub async fn chat_history(
        &self,
        room: &GameRoom,
        who: &Credential<'_>,
    ) -> Result<(Room, Vec<ChatLine>), GameError> {
        self.chat.history(&self.services, room, who).await
    }

    /// Offers, accepts or declines a rematch after a game between people (see
    /// `seats.rs`).
    pub async fn rematch(
        &self,
        room: &Arc<GameRoom>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, GameError> {
        self.seats.rematch(room, who, action).await
    }

    /// Public games with an open seat.
    pub async fn lobby(&self) -> Vec<GameView> {
        lobby::open_seeks(&self.rooms).await
    }

    /// Games in play (live) and the newest finished ones.
    pub async fn list(
        &self,
        status: Option<&str>,
        limit: usize,
    ) -> Result<Vec<GameView>, GameError> {
        lobby::listed_games(&self.rooms, status, limit).await
    }

    /// An account's games, newest first, optionally of one status.
    pub async fn account_games(
        &self,
        account_id: &str,
        status: Option<&str>,
        limit: usize,
    ) -> Result<Vec<GameView>, GameError> {
        lobby::account_games(&self.rooms, account_id, status, limit).await
    }

    /// How many games in play wait for a move of this account's.
    pub async fn your_turn_count(&self, account_id: &str) -> usize {
        lobby::your_turn_count(&self.rooms, account_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeControl;
    use crate::store::{Change, GameState, RatedEnd};
    use rand::Rng;
    use tsubame_rules::Variant;

    /// A hub over a fresh SQLite file (removed when the test ends).
    struct TestHub {
        hub: Arc<Hub>,
        path: std::path::PathBuf,
    }

    impl Drop for TestHub {
        fn drop(&mut self) {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
            }
        }
    }

    async fn test_hub(name: &str) -> TestHub {
        let path = std::env::temp_dir().join(format!(
            "tsubame-hub-{name}-{}-{}.db",
            std::process::id(),
            rand::thread_rng().r#gen::<u32>()
        ));
        let store = Store::open(&format!("sqlite://{}", path.display()))
            .await
            .expect("the test database opens");
        let hub = Hub::open(store, Settings::default())
            .await
            .expect("the hub opens");
        TestHub { hub, path }
    }

    async fn new_game(hub: &Arc<Hub>) -> SeatGrant {
        hub.create(NewGame {
            variant: Variant::Tori,
            options: String::new(),
            start_sfen: None,
            control: TimeControl::Unlimited,
            against_engine: false,
            engine_level: 1,
            creator_side: tsubame_rules::Color::Sente,
            creator: Sitter {
                account: None,
                name: "Guest-sente".into(),
            },
            rated: false,
            rating_range: None,
            public: true,
            challenged: None,
        })
        .await
        .expect("the game is created")
    }

    #[tokio::test]
    async fn a_rated_game_is_rated_once() {
        use crate::store::AccountRow;
        let test = test_hub("rated-once").await;
        let hub = &test.hub;
        for id in ["a1", "b2"] {
            let row = AccountRow::player(
                id.into(),
                format!("player-{id}"),
                "$argon2id$unused".into(),
                0,
            );
            assert!(hub.store().insert_account(&row).await.expect("stored"));
        }
        let sitter = |id: &str| Sitter {
            account: Some(id.into()),
            name: format!("player-{id}"),
        };
        let grant = hub
            .create(NewGame {
                variant: Variant::Tori,
                options: String::new(),
                start_sfen: None,
                control: TimeControl::Correspondence { days_per_move: 3 },
                against_engine: false,
                engine_level: 1,
                creator_side: tsubame_rules::Color::Sente,
                creator: sitter("a1"),
                rated: true,
                rating_range: None,
                public: true,
                challenged: None,
            })
            .await
            .expect("a rated correspondence seek");
        let slot = hub.find(&grant.game_id).await.expect("the game exists");
        hub.join(&slot, None, sitter("b2"), &Credential::default())
            .await
            .expect("the second account joins");
        let rated = RatedEnd {
            accounts: ["a1", "b2"],
            game: "tori",
            speed: "correspondence",
        };
        let version = slot.game.lock().await.version;
        let end_from = |from_version: i64| Change {
            id: grant.game_id.clone(),
            from_version,
            state: GameState {
                version: from_version + 1,
                ..GameState::default()
            },
            notice: String::new(),
        };
        let first = hub
            .store()
            .finish_rated_game(
                &end_from(version),
                Some(1),
                GameEndReason::RESIGNATION.name(),
                1,
                rated,
            )
            .await
            .expect("stored");
        assert_eq!(first, Some([-162, 162]));
        let second = hub
            .store()
            .finish_rated_game(
                &end_from(version),
                Some(0),
                GameEndReason::RESIGNATION.name(),
                2,
                rated,
            )
            .await
            .expect("answered");
        assert_eq!(
            second, None,
            "a change from a replaced version is not stored"
        );
        let third = hub
            .store()
            .finish_rated_game(
                &end_from(version + 1),
                Some(0),
                GameEndReason::RESIGNATION.name(),
                2,
                rated,
            )
            .await
            .expect("answered");
        assert_eq!(third, None, "a finished game is not rated again");
        let ratings = hub.store().ratings_of("b2").await.expect("read");
        assert_eq!(ratings.len(), 1);
        assert_eq!(ratings[0].games, 1);
        assert_eq!(ratings[0].rating.rating.round(), 1662.0);
        assert_eq!(
            hub.store()
                .rating_history("a1", 10)
                .await
                .expect("read")
                .len(),
            1
        );
    }

    #[tokio::test]
    async fn finished_games_nobody_holds_leave_memory_and_come_back_whole() {
        let test = test_hub("evict").await;
        let hub = &test.hub;
        let finished = new_game(hub).await;
        let playing = new_game(hub).await;
        for grant in [&finished, &playing] {
            let slot = hub.find(&grant.game_id).await.expect("created games exist");
            let joiner = Sitter {
                account: None,
                name: "Guest-gote".into(),
            };
            hub.join(
                &slot,
                grant.invite.as_deref(),
                joiner,
                &Credential::default(),
            )
            .await
            .expect("the open seat is taken");
        }
        let slot = hub.find(&finished.game_id).await.expect("the game exists");
        let sente = Credential {
            token: Some(&finished.token),
            account: None,
        };
        hub.play(&slot, &sente, "4e4d")
            .await
            .expect("sente's first move is legal");
        let ended = hub
            .resign(&slot, &sente)
            .await
            .expect("a game in play can be resigned");

        // Held by a socket (here: `slot`), or looked at within the idle time: kept.
        assert_eq!(hub.evict_finished(0), 0);
        drop(slot);
        assert_eq!(hub.evict_finished(60_000), 0);
        // Nobody holds it and its idle time is over: it leaves; the game in play stays.
        assert_eq!(hub.evict_finished(0), 1);
        assert!(hub.slot(&finished.game_id).is_none());
        assert!(hub.slot(&playing.game_id).is_some());

        let reloaded = hub
            .find(&finished.game_id)
            .await
            .expect("stored games load");
        let live = reloaded.game.lock().await;
        let view = hub.view_of(&live, true);
        assert_eq!(view.status, ended.status);
        assert_eq!(view.result, ended.result);
        assert_eq!(live.moves().len(), 1);
    }
}
