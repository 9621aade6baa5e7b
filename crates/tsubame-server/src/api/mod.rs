//! The HTTP JSON API and the per-game WebSocket.
//!
//! Request bodies are read as bytes and parsed here, so every malformed request gets a JSON
//! error naming what was wrong instead of the framework's plain-text rejection.

pub(crate) mod analysis;
pub(crate) mod games;
pub(crate) mod positions;
pub(crate) mod records;
pub(crate) mod socket;
pub(crate) mod variants;

use crate::hub::Hub;
use analysis::{analyse, analyse_game, game_analysis, mate};
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use games::{
    abort, berserk, create_game, draw, engine_queue, get_chat, get_game, join_game, list_games,
    lobby, post_chat, post_move, rematch, resign, site_stats, tv,
};
use positions::check_position;
use records::{IMPORT_BODY_LIMIT, game_record, import, replay};
use socket::game_socket;
use std::sync::Arc;
use variants::variants;

/// The routes of games, records and analysis (the WebSocket included); the others are their
/// modules' own, and `routes.rs` puts them together.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new()
        .route("/api/variants", get(variants))
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/lobby", get(lobby))
        .route("/api/engine/queue", get(engine_queue))
        .route("/api/stats", get(site_stats))
        .route("/api/tv", get(tv))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/join", post(join_game))
        .route("/api/games/{id}/moves", post(post_move))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/berserk", post(berserk))
        .route("/api/games/{id}/abort", post(abort))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/chat", get(get_chat).post(post_chat))
        .route("/api/games/{id}/record", get(game_record))
        .route(
            "/api/games/{id}/analysis",
            get(game_analysis).post(analyse_game),
        )
        .route("/api/games/{id}/ws", get(game_socket))
        .route("/api/replay", post(replay))
        .route("/api/positions/check", post(check_position))
        .route(
            "/api/import",
            post(import).layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT)),
        )
        .route("/api/analyse", post(analyse))
        .route("/api/mate", post(mate))
}
