//! What the server counts for Prometheus: games, moves, their storage latency, sockets, engine
//! work and game ends, served as text at `/metrics`.
//!
//! Each hub owns its registry (no process-wide recorder), so several servers in one process
//! (tests) count separately.

use prometheus::{
    Encoder, Gauge, GaugeVec, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// The server's counters, gauges and histograms.
pub struct Metrics {
    registry: Registry,
    /// Games in memory by status (`waiting`, `playing`, and `finished` ones kept a while after
    /// they were looked at), set when scraped.
    pub games: IntGaugeVec,
    /// Moves stored, by people and engines.
    pub moves: IntCounter,
    /// Seconds from a move's arrival to its acknowledgement (checked, stored, announced).
    pub move_seconds: Histogram,
    /// Seconds a database write of a move or a result took.
    pub database_seconds: Histogram,
    /// Open game WebSockets.
    pub websockets: IntGauge,
    /// Engine searches waiting for a slot.
    pub engine_waiting: IntGauge,
    /// Engine searches running.
    pub engine_running: IntGauge,
    /// Seconds a computer's move waited for a slot or a worker before its search began.
    pub engine_wait_seconds: Histogram,
    /// Jobs waiting for a worker, set when scraped (with workers).
    pub worker_jobs_waiting: IntGauge,
    /// Seconds the oldest job waiting for a worker has waited, set when scraped.
    pub worker_oldest_wait_seconds: Gauge,
    /// Jobs each worker answered in the last hour, set when scraped.
    pub worker_jobs_answered: IntGaugeVec,
    /// Seconds each worker spent on the jobs it answered in the last hour, set when scraped.
    pub worker_busy_seconds: GaugeVec,
    /// Games ended, by reason.
    pub games_ended: IntCounterVec,
    /// Writes the database refused (a full disk, I/O errors), set from the store when scraped.
    pub database_write_failures: IntCounter,
    /// 1 while the database takes writes, 0 while it refuses them.
    pub database_writable: IntGauge,
    /// Connections refused because their address held its share, set when scraped.
    pub connections_refused: IntCounter,
}

/// Bucket bounds in seconds for latencies from a tenth of a millisecond to ten seconds.
const LATENCY_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

impl Metrics {
    /// A fresh set, registered in a registry of its own.
    pub fn new() -> Result<Metrics, prometheus::Error> {
        let registry = Registry::new();
        let games = IntGaugeVec::new(
            Opts::new("tsubame_games", "Games in memory by status"),
            &["status"],
        )?;
        let moves = IntCounter::new("tsubame_moves_total", "Moves stored")?;
        let move_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "tsubame_move_seconds",
                "Seconds from a move's arrival to its acknowledgement",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
        )?;
        let database_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "tsubame_database_write_seconds",
                "Seconds a database write of a move or a result took",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
        )?;
        let websockets = IntGauge::new("tsubame_websockets", "Open game WebSockets")?;
        let engine_waiting = IntGauge::new(
            "tsubame_engine_searches_waiting",
            "Engine searches waiting for a slot",
        )?;
        let engine_running =
            IntGauge::new("tsubame_engine_searches_running", "Engine searches running")?;
        let games_ended = IntCounterVec::new(
            Opts::new("tsubame_games_ended_total", "Games ended, by reason"),
            &["reason"],
        )?;
        registry.register(Box::new(games.clone()))?;
        registry.register(Box::new(moves.clone()))?;
        registry.register(Box::new(move_seconds.clone()))?;
        registry.register(Box::new(database_seconds.clone()))?;
        registry.register(Box::new(websockets.clone()))?;
        registry.register(Box::new(engine_waiting.clone()))?;
        registry.register(Box::new(engine_running.clone()))?;
        let engine_wait_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "tsubame_engine_wait_seconds",
                "Seconds a computer's move waited for a slot or a worker",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
        )?;
        let worker_jobs_waiting = IntGauge::new(
            "tsubame_worker_jobs_waiting",
            "Engine jobs waiting for a worker",
        )?;
        let worker_oldest_wait_seconds = Gauge::new(
            "tsubame_worker_oldest_wait_seconds",
            "Seconds the oldest engine job waiting for a worker has waited",
        )?;
        let worker_jobs_answered = IntGaugeVec::new(
            Opts::new(
                "tsubame_worker_jobs_answered_last_hour",
                "Engine jobs each worker answered in the last hour",
            ),
            &["worker"],
        )?;
        let worker_busy_seconds = GaugeVec::new(
            Opts::new(
                "tsubame_worker_busy_seconds_last_hour",
                "Seconds each worker spent on the jobs it answered in the last hour",
            ),
            &["worker"],
        )?;
        registry.register(Box::new(engine_wait_seconds.clone()))?;
        registry.register(Box::new(worker_jobs_waiting.clone()))?;
        registry.register(Box::new(worker_oldest_wait_seconds.clone()))?;
        registry.register(Box::new(worker_jobs_answered.clone()))?;
        registry.register(Box::new(worker_busy_seconds.clone()))?;
        let database_write_failures = IntCounter::new(
            "tsubame_database_write_failures_total",
            "Writes the database refused (a full disk, I/O errors)",
        )?;
        let database_writable = IntGauge::new(
            "tsubame_database_writable",
            "1 while the database takes writes, 0 while it refuses them",
        )?;
        let connections_refused = IntCounter::new(
            "tsubame_connections_refused_total",
            "Connections refused because their address held its share",
        )?;
        registry.register(Box::new(connections_refused.clone()))?;
        registry.register(Box::new(games_ended.clone()))?;
        registry.register(Box::new(database_write_failures.clone()))?;
        registry.register(Box::new(database_writable.clone()))?;
        Ok(Metrics {
            registry,
            games,
            moves,
            move_seconds,
            database_seconds,
            websockets,
            engine_waiting,
            engine_running,
            engine_wait_seconds,
            worker_jobs_waiting,
            worker_oldest_wait_seconds,
            worker_jobs_answered,
            worker_busy_seconds,
            games_ended,
            database_write_failures,
            database_writable,
            connections_refused,
        })
    }

    /// Everything in Prometheus' text exposition format.
    pub fn render(&self) -> String {
        let mut buffer = Vec::new();
        // Encoding into memory fails only for a malformed metric, which the names above are not.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut buffer);
        String::from_utf8(buffer).unwrap_or_default()
    }
}

/// Counts one more of something while it lasts (an open socket, a running search).
pub struct GaugeGuard(IntGauge);

impl GaugeGuard {
    /// Raises `gauge` until the guard is dropped.
    pub fn hold(gauge: &IntGauge) -> GaugeGuard {
        gauge.inc();
        GaugeGuard(gauge.clone())
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_what_was_counted() {
        let metrics = Metrics::new().unwrap();
        metrics.moves.inc();
        metrics.moves.inc();
        metrics.games_ended.with_label_values(&["checkmate"]).inc();
        {
            let _socket = GaugeGuard::hold(&metrics.websockets);
            assert!(metrics.render().contains("tsubame_websockets 1"));
        }
        let text = metrics.render();
        assert!(text.contains("tsubame_moves_total 2"), "{text}");
        assert!(text.contains("tsubame_websockets 0"), "{text}");
        assert!(
            text.contains("tsubame_games_ended_total{reason=\"checkmate\"} 1"),
            "{text}"
        );
    }
}
