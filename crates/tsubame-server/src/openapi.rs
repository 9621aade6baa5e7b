//! The API described as OpenAPI 3.1, generated from the handlers' annotations and the answer
//! types (`responses.rs`) and served at `/api/openapi.json`, so that a client can be written,
//! or checked, against what the server actually sends.

use crate::responses::{ErrorBody, SocketMessage};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::OnceLock;
use utoipa::OpenApi;

/// The API document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tsubame",
        description = "The play site's API: games of Tori, Wa and Tenjiku shogi, their moves, \
            chat, records, analysis and accounts. Every error is `{\"error\": \"...\"}` with the \
            status; a 429 or 503 carries `Retry-After`. A seat acts with its token (in the body \
            or `Authorization: Bearer`) or the logged-in account holding it.",
        license(name = "GPL-3.0-or-later")
    ),
    paths(
        crate::api::variants::variants,
        crate::api::games::list_games,
        crate::api::games::create_game,
        crate::api::games::lobby,
        crate::api::games::site_stats,
        crate::api::games::engine_queue,
        crate::api::games::tv,
        crate::api::games::get_game,
        crate::api::games::join_game,
        crate::api::games::post_move,
        crate::api::games::resign,
        crate::api::games::abort,
        crate::api::games::draw,
        crate::api::games::rematch,
        crate::api::games::get_chat,
        crate::api::games::post_chat,
        crate::api::records::game_record,
        crate::api::analysis::game_analysis,
        crate::api::analysis::analyse_game,
        crate::api::socket::game_socket,
        crate::api::records::replay,
        crate::api::positions::check_position,
        crate::api::records::import,
        crate::api::analysis::analyse,
        crate::api::analysis::mate,
        crate::puzzle_api::list,
        crate::puzzle_api::one,
        crate::puzzle_api::next,
        crate::puzzle_api::daily,
        crate::puzzle_api::attempt,
        crate::account_api::who_am_i,
        crate::account_api::signup,
        crate::account_api::login,
        crate::account_api::logout,
        crate::account_api::logout_everywhere,
        crate::account_api::change_password,
        crate::account_api::delete_account,
        crate::account_api::download_games,
        crate::account_api::player,
        crate::account_api::player_games,
        crate::arena::api::list,
        crate::arena::api::create,
        crate::arena::api::show,
        crate::arena::api::join,
        crate::arena::api::withdraw,
        crate::arena::api::socket,
        crate::api::games::berserk,
        crate::challenge_api::challenge,
        crate::challenge_api::decline,
        crate::challenge_api::challenges,
        crate::challenge_api::challenge_events,
        crate::moderation_api::block,
        crate::moderation_api::unblock,
        crate::moderation_api::blocks,
        crate::moderation_api::report,
        crate::moderation_api::reports,
        crate::moderation_api::resolve,
        crate::moderation_api::close,
        crate::moderation_api::reopen,
        crate::moderation_api::mute,
        crate::learn::progress,
        crate::learn::record_progress,
        crate::worker_api::lease,
        crate::worker_api::renew,
        crate::worker_api::answer,
        crate::worker_api::give_back,
        openapi_json,
    ),
    components(schemas(
        ErrorBody,
        SocketMessage,
        crate::account_api::DownloadFormat,
        crate::api::socket::SocketCommand,
        crate::arena::api::TournamentMessage
    )),
    tags(
        (name = "games", description = "Games: creating, joining, listing"),
        (name = "play", description = "Moves, offers and the game's WebSocket"),
        (name = "chat", description = "A game's chat"),
        (name = "records", description = "Records: a game's, replaying and importing"),
        (name = "analysis", description = "The engine on a position"),
        (name = "puzzles", description = "Puzzles and rated attempts"),
        (name = "tournaments", description = "Arena tournaments"),
        (name = "accounts", description = "Accounts and players"),
        (name = "workers", description = "Engine jobs for `tsubame worker` (a server started with `--engine-workers`)"),
        (name = "meta", description = "This document"),
    )
)]
pub struct ApiDoc;

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json")))]
pub(crate) async fn openapi_json() -> Response {
    // The document is the same for the life of the process: built once, on the first request.
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    let text = DOCUMENT.get_or_init(|| ApiDoc::openapi().to_json().unwrap_or_default());
    ([(header::CONTENT_TYPE, "application/json")], text.as_str()).into_response()
}

#[cfg(test)]
mod tests {
    use super::ApiDoc;
    use serde_json::Value;
    use std::path::Path;
    use utoipa::OpenApi;

    /// Every `$ref` in `value`, with where it is.
    fn references<'a>(value: &'a Value, at: String, found: &mut Vec<(String, &'a str)>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    match (key.as_str(), inner) {
                        ("$ref", Value::String(target)) => found.push((at.clone(), target)),
                        _ => references(inner, format!("{at}/{key}"), found),
                    }
                }
            }
            Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    references(inner, format!("{at}/{index}"), found);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_reference_names_a_schema_of_the_document() {
        let document = serde_json::to_value(ApiDoc::openapi()).expect("the document is JSON");
        let mut found = Vec::new();
        references(&document, String::new(), &mut found);
        assert!(found.len() > 100, "{} references", found.len());
        let dangling: Vec<_> = found
            .iter()
            .filter(|(_, target)| {
                let name = target.strip_prefix("#/components/schemas/");
                name.is_none_or(|name| document["components"]["schemas"].get(name).is_none())
            })
            .collect();
        assert!(dangling.is_empty(), "references to no schema: {dangling:?}");
    }

    #[test]
    fn every_operation_has_its_own_id() {
        let document = serde_json::to_value(ApiDoc::openapi()).expect("the document is JSON");
        let mut ids = std::collections::BTreeMap::<String, Vec<String>>::new();
        for (path, methods) in document["paths"].as_object().into_iter().flatten() {
            for (method, operation) in methods.as_object().into_iter().flatten() {
                let id = operation["operationId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                ids.entry(id).or_default().push(format!("{method} {path}"));
            }
        }
        assert!(ids.len() > 50, "{} operations", ids.len());
        let shared: Vec<_> = ids
            .iter()
            .filter(|(id, operations)| id.is_empty() || operations.len() > 1)
            .collect();
        assert!(shared.is_empty(), "ids missing or shared: {shared:?}");
    }

    /// The web UI's types are generated from `web/openapi.json` (`npm run api-types` in web/);
    /// that copy must be the document the server serves, so that an answer that changes shape
    /// changes the UI's types, and the UI's type check fails where the UI does not follow.
    /// `TSUBAME_WRITE_API_DOCUMENT=1` writes the copy instead of comparing it
    /// (`scripts/api-types` does both steps).
    #[test]
    fn the_web_ui_is_typed_from_the_document_the_server_serves() {
        let document = ApiDoc::openapi()
            .to_pretty_json()
            .expect("the document is JSON")
            + "\n";
        let copy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/openapi.json");
        if std::env::var_os("TSUBAME_WRITE_API_DOCUMENT").is_some() {
            std::fs::write(&copy, &document).expect("web/openapi.json is writable");
        }
        let committed = std::fs::read_to_string(&copy).unwrap_or_default();
        assert!(
            committed == document,
            "web/openapi.json is not the API document the server serves: run scripts/api-types \
             and make the web UI follow the types it changes"
        );
    }
}
