//! `tsubame serve`: a self-hosted site for playing Tori, Wa and (once its rules land) Tenjiku
//! shogi in the browser.
//!
//! The server is the authority on rules and clocks: players send moves as USI text over HTTP
//! or a game's WebSocket, and every change is stored (SQLite or PostgreSQL) before anyone is
//! told about it. The web UI is built ahead of time and embedded in the binary.

#![deny(missing_docs)]

pub mod api;
pub mod cli;
pub mod clock;
pub mod game;
pub mod hub;
pub mod store;

use anyhow::{Context, Result};
use axum::Router;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;
use std::net::SocketAddr;
use std::sync::Arc;

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
}

async fn static_file(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    // A missing file (`/favicon.ico`, `/robots.txt`) is not found; other paths are the
    // single-page app's own routes.
    let looks_like_file = path
        .rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'));
    let (path, file) = match Assets::get(path) {
        Some(file) if !path.is_empty() => (path, file),
        None if looks_like_file => return (StatusCode::NOT_FOUND, "not found").into_response(),
        _ => match Assets::get("index.html") {
            Some(file) => ("index.html", file),
            None => return (StatusCode::NOT_FOUND, "the web UI is not built").into_response(),
        },
    };
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let cache = if path.starts_with("assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    (
        [
            (header::CONTENT_TYPE, mime.as_ref().to_string()),
            (header::CACHE_CONTROL, cache.to_string()),
        ],
        file.data.into_owned(),
    )
        .into_response()
}

/// The whole application: API, WebSockets and the web UI.
pub fn app(hub: Arc<hub::Hub>) -> Router {
    api::routes(hub).fallback(static_file)
}

/// Opens the database, resumes unfinished games, and serves until the process ends.
/// `on_ready` is told the address actually bound (useful with port 0).
pub async fn serve(config: Config, on_ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let store = store::Store::open(&config.database).await?;
    let hub = hub::Hub::open(store).await?;
    tokio::spawn(hub.clone().run_flag_sweeper());
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    on_ready(listener.local_addr()?);
    axum::serve(listener, app(hub)).await?;
    Ok(())
}
