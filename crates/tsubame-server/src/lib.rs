//! `tsubame serve`: a self-hosted site for playing Tori, Wa and Tenjiku shogi in the browser.
//!
//! The server is the authority on rules and clocks: players send moves as USI text over HTTP
//! or a game's WebSocket, and every change is stored (SQLite or PostgreSQL) before anyone is
//! told about it. The web UI is built ahead of time and embedded in the binary.

#![deny(missing_docs)]

pub mod account_api;
pub mod accounts;
pub mod api;
pub mod arena;
pub mod backup;
pub mod challenge_api;
pub mod chat;
pub mod cli;
pub mod clock;
pub mod connections;
pub mod engine_work;
pub mod error;
pub mod game;
pub mod game_analysis;
pub mod hub;
pub mod learn;
pub mod metrics;
pub mod moderation;
pub mod moderation_api;
pub mod openapi;
pub mod pages;
pub mod presence;
pub mod puzzle_api;
pub mod puzzles;
pub mod query;
mod random;
mod rate;
pub mod ratings;
pub mod records;
mod refusals;
pub mod request;
pub mod responses;
pub mod routes;
pub mod store;
pub mod viewer;
pub mod worker_api;
pub mod workers;

use anyhow::{Context, Result};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::Request;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

/// The built web UI (`web/dist`, produced by `npm run build` in `web/` and committed).
#[derive(RustEmbed)]
#[folder = "../../web/dist"]
struct Assets;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// `sqlite://file` or `postgres://...`.
    pub database: String,
    /// What the hosted games allow.
    pub settings: hub::Settings,
}

/// A file of the web UI, or for any other path the UI's page: with 200 at the site's own
/// addresses, 404 elsewhere (the page then shows its "not found" view).
async fn static_file(hub: Arc<hub::Hub>, uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    // A missing file (`/favicon.ico`, `/robots.txt`) is not found; other paths are the
    // single-page app's own routes.
    let looks_like_file = path
        .rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'));
    let (path, file, status) = match Assets::get(path) {
        Some(file) if !path.is_empty() => (path, file, StatusCode::OK),
        None if looks_like_file => return (StatusCode::NOT_FOUND, "not found").into_response(),
        _ => match Assets::get("index.html") {
            Some(file) => ("index.html", file, pages::status(&hub, uri.path()).await),
            None => return (StatusCode::NOT_FOUND, "the web UI is not built").into_response(),
        },
    };
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    // A file named by its content is the same for ever: a browser keeps it a year. Anything
    // else (index.html above all, which names the current files) is asked for again each
    // time, so that an upgrade is seen at once.
    let cache = if path.starts_with("assets/") && is_content_named(path) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    (
        status,
        [
            (header::CONTENT_TYPE, mime.as_ref().to_string()),
            (header::CACHE_CONTROL, cache.to_string()),
        ],
        file.data.into_owned(),
    )
        .into_response()
}

/// Whether a file's name carries its content's hash, as the web UI's build names its assets
/// (`app-89b275642ee7.js`: twelve hex digits before the extension).
fn is_content_named(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    stem.rsplit_once('-').is_some_and(|(_, hash)| {
        hash.len() == 12
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// `/healthz`: the process is up and serving.
async fn healthz() -> Response {
    (StatusCode::OK, "ok\n").into_response()
}

/// `/readyz`: the process can serve games, that is the database answers; 503 with the reason
/// when it does not, so that a load balancer sends players elsewhere.
async fn readyz(State(hub): State<Arc<hub::Hub>>) -> Response {
    match hub.database_ready().await {
        Ok(()) => (StatusCode::OK, "ready\n").into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {e:#}\n"),
        )
            .into_response(),
    }
}

/// The security headers of every response: the page runs only its own scripts (and compiles
/// its own engine's WebAssembly: `wasm-unsafe-eval` allows that and no `eval`) and talks only
/// to its own server (WebSockets included), is never framed, and no type is guessed.
fn security_headers(router: Router) -> Router {
    let csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; \
               img-src 'self' data:; font-src 'self'; connect-src 'self'; \
               frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
    let headers = [
        (header::CONTENT_SECURITY_POLICY, csp),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    headers.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ))
    })
}

/// Prometheus metrics: games, moves, move and database latency, sockets, engine work.
async fn metrics(State(hub): State<Arc<hub::Hub>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        hub.metrics_text().await,
    )
        .into_response()
}

/// One access-log line per request: method, path, status and time, at `info`. The query string
/// is left out: whatever a client put there (a token, by mistake) stays out of the logs, as
/// do bodies and headers.
fn access_log(router: Router) -> Router {
    let layer = TraceLayer::new_for_http()
        .make_span_with(|request: &Request<Body>| {
            tracing::info_span!(
                "request",
                method = %request.method(),
                path = %request.uri().path(),
            )
        })
        .on_request(())
        // The access log line below has the status; a line more per failed request would
        // flood the log exactly when the database refuses writes (the store says that once).
        .on_failure(())
        .on_response(
            |response: &Response, latency: Duration, _span: &tracing::Span| {
                tracing::info!(
                    status = response.status().as_u16(),
                    latency_ms = latency.as_secs_f64() * 1000.0,
                    "answered"
                );
            },
        );
    router.layer(layer)
}

/// The whole application: API, its OpenAPI document, WebSockets, health probes and the web
/// UI.
pub fn app(hub: Arc<hub::Hub>) -> Router {
    let probes = Router::new()
        .route("/api/openapi.json", get(openapi::openapi_json))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .with_state(hub.clone());
    let pages_hub = hub.clone();
    let pages = move |uri: Uri| static_file(pages_hub.clone(), uri);
    access_log(security_headers(
        routes::routes(hub).merge(probes).fallback(pages),
    ))
}

/// Opens the database, resumes unfinished games, and serves until the process ends.
/// `on_ready` is told the address actually bound (useful with port 0).
pub async fn serve(config: Config, on_ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let store = store::Store::open(&config.database).await?;
    puzzles::load_built_in(store.pool())
        .await
        .context("cannot load the built-in puzzles")?;
    let connection_limits = config.settings.connections.clone();
    let hub = hub::Hub::open(store, config.settings).await?;
    tokio::spawn(hub.clone().run_flag_sweeper());
    tokio::spawn(hub.clone().follow_other_instances());
    tokio::spawn(arena::run_director(hub.clone()));
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let open_files = connections::raise_open_file_limit();
    tracing::info!(?open_files, "open-file limit");
    let listener = connections::LimitedListener::new(listener, connection_limits.clone());
    hub.count_refused_connections(listener.refusals());
    on_ready(axum::serve::Listener::local_addr(&listener)?.0);
    let stopping = hub.clone();
    let draining = hub.clone();
    // On SIGTERM or Ctrl-C: stop accepting, let requests in flight (and the moves they store)
    // finish, and close every game socket with 1001 so that clients reconnect.
    connections::serve(listener, app(hub), connection_limits, async move {
        stop_requested().await;
        tracing::info!("stopping: closing game sockets, finishing requests in flight");
        stopping.begin_shutdown();
    })
    .await?;
    // Upgraded game sockets run outside the HTTP server's own count of connections: wait for
    // their closing handshakes too, or the process would cut them under their close frames.
    let until = tokio::time::Instant::now() + Duration::from_secs(5);
    while draining.metrics().websockets.get() > 0 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Waits for SIGTERM (what service managers send) or SIGINT.
async fn stop_requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use tsubame_rules::Variant;

    /// The bundled piece font (`web/scripts/build-piece-font`) holds the characters listed in
    /// `web/src/fonts/piece-chars.txt`: that list must be every kanji of every piece, or a
    /// piece added to the rules would be drawn in whatever font the machine has, or not at all.
    #[test]
    fn the_piece_font_lists_every_kanji_of_the_rules() {
        let wanted: BTreeSet<char> = Variant::ALL
            .into_iter()
            .flat_map(|variant| variant.spec().roles.iter())
            .flat_map(|role| role.kanji.chars())
            .filter(|c| !c.is_whitespace())
            .collect();
        let listed: BTreeSet<char> = include_str!("../../../web/src/fonts/piece-chars.txt")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        assert_eq!(
            listed,
            wanted,
            "web/src/fonts/piece-chars.txt must hold exactly {:?}; then run \
             web/scripts/build-piece-font and npm run build",
            wanted.iter().collect::<String>()
        );
    }
}
