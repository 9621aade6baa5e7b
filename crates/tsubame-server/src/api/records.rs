//! Records: a game's record, a pasted record replayed, and record files imported.

use crate::connections::PeerAddr;
use crate::error::ApiError;
use crate::game::HostedGame;
use crate::hub::Hub;
use crate::metrics::GaugeGuard;
use crate::records::start_and_moves;
use crate::records::{
    RecordTags, export_texts_timed, game_address, record_end, record_exported, record_of,
};
use crate::request::{PositionRequest, game_for, ok};
use crate::request::{parse_body, variant_of};
use crate::responses::{
    ErrorBody, ImportTags, Imported, ImportedGame, ReplayedGame, StoredGameRecord,
};
use crate::viewer::ClientAddress;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;
use tsubame_notation::record::{
    RecordError, RecordErrorKind, read_hodges_text, read_kif_with, read_pgn_games_at_most,
    read_records_at_most,
};
use tsubame_rules::Variant;
use tsubame_rules::{EndReason, Options};

/// The largest record file `POST /api/import` takes: a PGN of many games.
pub const IMPORT_BODY_LIMIT: usize = 2 * 1024 * 1024;

#[utoipa::path(get, path = "/api/games/{id}/record", tag = "records", params(("id" = String, Path, description = "The game's id")), responses((status = 200, description = "The game replayed, with its record in each format", body = StoredGameRecord), (status = 404, description = "No such game", body = ErrorBody)))]
pub(crate) async fn game_record(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(PeerAddr(peer)): ConnectInfo<PeerAddr>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let slot = hub.find(&id).await?;
    let live = slot.game.lock().await;
    let (start, moves) = start_and_moves(&live)?;
    let thinks: Vec<u64> = live.moves().iter().map(|m| m.think_ms).collect();
    let view = hub.view_of(&live, false);
    drop(live);
    // When a finished game ended is the stored row's to say: asked only once it has.
    let finished_at = match view.result {
        Some(_) => match hub.store().game(&id).await {
            Ok(Some(row)) => row.finished_at.map(|at| at.max(0) as u64),
            _ => None,
        },
        None => None,
    };
    let tags = RecordTags::of_game(
        [&view.sente_name, &view.gote_name],
        &view.time_control,
        view.rated,
        view.variant,
        game_address(&hub, peer, &headers, &id),
        view.created_at,
        finished_at,
    );
    let result = view.result;
    let game = record_exported(&start, &moves, |_| {
        export_texts_timed(&start, &moves, &thinks, record_end(result.as_ref()), &tags)
    })?;
    Ok(ok(&StoredGameRecord { game, id, result }))
}

/// Replays a pasted record: every position, Hodges text and the export forms.
#[utoipa::path(post, path = "/api/replay", tag = "records", request_body = PositionRequest, responses((status = 200, description = "Every position, the moves in each notation and the export forms", body = ReplayedGame), (status = 400, description = "A malformed request", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody)))]
pub(crate) async fn replay(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: PositionRequest = parse_body(&body)?;
    // The address's share first, then the work, on the blocking pool: a long record of a big
    // game is seconds of work that must not hold the server's own threads.
    let ticket = hub.engine().admit_work(client, "replays")?;
    // The ticket goes with the work: a client that leaves does not free its place while the
    // replay still runs.
    let replayed = tokio::task::spawn_blocking(move || {
        let _ticket = ticket;
        let start = game_for(&request)?;
        record_of(&start, &request.moves)
    })
    .await
    .map_err(|e| ApiError::internal(format!("replay failed: {e}")))??;
    Ok(ok(&replayed))
}

/// What `POST /api/import` reads: the format (or `auto`), and for Hodges text, which has no
/// tags, the game and its options.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ImportQuery {
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    options: Option<String>,
}

/// The formats `POST /api/import` reads.
const IMPORT_FORMATS: [&str; 4] = ["record", "kif", "pgn", "hodges"];

/// The most games one import returns.
const IMPORT_GAMES: usize = 200;

/// How long an import may take to read and replay once it has its slot; past that it is
/// answered 413 (its reading, linear in its length, goes on in the background and ends).
const IMPORT_TIME: Duration = Duration::from_secs(10);

/// The format a record's text is most likely in.
fn detect_format(text: &str) -> &'static str {
    let head: String = text.chars().take(4000).collect();
    let lower = head.to_lowercase();
    // The play site's PGN names the game `torishogi` and carries a FEN tag; a Tsubame record
    // names it by its short name (`tori`, `wa`, `tenjiku`).
    let play_site = lower.contains("[variant \"torishogi\"]") || lower.contains("[fen ");
    if head.contains("[Variant ") && !play_site {
        "record"
    } else if head.trim_start().starts_with('[') {
        "pgn"
    } else if head.contains("手数") || head.contains("先手：") || head.contains("開始日時")
    {
        "kif"
    } else {
        "hodges"
    }
}

/// Reads a record file or pasted text (the body, as it is: KIF may be Shift-JIS) in the
/// canonical format, KIF, the play site's PGN (every game of the file) or Hodges text, and
/// answers each game as `/api/replay` does, with its tags. Reading is work for a core: it
/// runs on the blocking pool in one of the engine's slots, an address may have as many
/// imports waiting or running as analyses (429 beyond), and it has [`IMPORT_TIME`].
#[utoipa::path(post, path = "/api/import", tag = "records", params(("format" = Option<String>, Query, description = "auto, record, kif, pgn or hodges"), ("variant" = Option<String>, Query, description = "For Hodges text: the game"), ("options" = Option<String>, Query, description = "For Hodges text: its rule options")), request_body(content = String, description = "The record file (KIF may be Shift-JIS)", content_type = "text/plain"), responses((status = 200, description = "Each game of the file, replayed", body = Imported), (status = 400, description = "A malformed request", body = ErrorBody), (status = 413, description = "Too large or too slow to read", body = ErrorBody), (status = 422, description = "Refused by the rules", body = ErrorBody), (status = 429, description = "Too many requests: Retry-After says when to try again", body = ErrorBody)))]
pub(crate) async fn import(
    State(hub): State<Arc<Hub>>,
    ClientAddress(client): ClientAddress,
    Query(query): Query<ImportQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let ticket = hub.engine().admit_work(client, "imports")?;
    let waiting = GaugeGuard::hold(&hub.metrics().engine_waiting);
    let slot = hub
        .engine()
        .slot()
        .await
        .ok_or_else(|| ApiError::internal("the engine scheduler stopped"))?;
    drop(waiting);
    // The ticket and the slot go with the work, so that they are held until it ends, even
    // when the answer has gone out at the time limit.
    let work = tokio::task::spawn_blocking(move || {
        let read = import_records(&query, &body);
        drop((slot, ticket));
        read
    });
    match tokio::time::timeout(IMPORT_TIME, work).await {
        Ok(Ok(read)) => read.map(|games| ok(&games)),
        Ok(Err(e)) => Err(ApiError::internal(format!("the import failed: {e}"))),
        Err(_) => Err(ApiError::new(
            413,
            format!(
                "the file took more than {} s to read: import fewer games at once",
                IMPORT_TIME.as_secs()
            ),
        )
        .code("import.too-slow")
        .param("seconds", IMPORT_TIME.as_secs())),
    }
}

/// The games of an import, as `import` answers them.
fn import_records(query: &ImportQuery, body: &[u8]) -> Result<Imported, ApiError> {
    let text = || {
        std::str::from_utf8(body).map_err(|_| {
            ApiError::bad_request("the record is not UTF-8 text (only KIF may be Shift-JIS)")
                .code("import.not-text")
        })
    };
    let format = match query.format.as_deref() {
        None | Some("auto") => match std::str::from_utf8(body) {
            Ok(text) => detect_format(text),
            Err(_) => "kif",
        },
        Some(named) => IMPORT_FORMATS
            .into_iter()
            .find(|&format| format == named)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "unknown format {:?}: one of auto, {}",
                    named.chars().take(40).collect::<String>(),
                    IMPORT_FORMATS.join(", ")
                ))
            })?,
    };
    let refused = |e: RecordError| {
        ApiError::rules(format!("{format}: {e}"))
            .code("import.unreadable")
            .param("format", format)
            .param("detail", &e)
    };
    let records = match format {
        "record" => read_records_at_most(text()?, IMPORT_GAMES).map_err(|e| match e.kind {
            RecordErrorKind::TooManyGames(_) => ApiError::bad_request(format!("{format}: {e}"))
                .code("import.too-many-games")
                .param("max", IMPORT_GAMES),
            _ => refused(e),
        })?,
        "kif" => vec![read_kif_with(body, None).map_err(refused)?],
        // The limit holds while reading: a file of many games is refused at the first one
        // past it, before any is replayed.
        "pgn" => read_pgn_games_at_most(text()?, None, IMPORT_GAMES).map_err(|e| match e.kind {
            RecordErrorKind::TooManyGames(_) => ApiError::bad_request(format!("{format}: {e}"))
                .code("import.too-many-games")
                .param("max", IMPORT_GAMES),
            _ => refused(e),
        })?,
        _ => {
            let variant = variant_of(query.variant.as_deref().unwrap_or("tori"))?;
            let options = Options::parse(variant.spec(), query.options.as_deref().unwrap_or(""))
                .map_err(|e| ApiError::bad_request(e.to_string()))?;
            vec![read_hodges_text(text()?, options).map_err(refused)?]
        }
    };
    if records.len() > IMPORT_GAMES {
        return Err(ApiError::bad_request(format!(
            "the file holds {} games: at most {IMPORT_GAMES} are imported at once",
            records.len()
        ))
        .code("import.too-many")
        .param("count", records.len())
        .param("max", IMPORT_GAMES));
    }
    let mut games = Vec::new();
    for record in &records {
        let variant = Variant::from_name(record.variant().name).ok_or_else(|| {
            ApiError::bad_request(format!("unknown game {}", record.variant().name))
                .code("import.unknown-game")
                .param("game", record.variant().name)
        })?;
        let start = HostedGame::new(
            variant,
            &record.options.to_string(),
            record.start_sfen.as_deref(),
        )
        .map_err(ApiError::from_rules)?;
        let moves: Vec<String> = record.moves.iter().map(|m| m.usi.clone()).collect();
        let kept = RecordTags {
            sente: record.sente.clone(),
            gote: record.gote.clone(),
            date: record.date.clone(),
            time_control: record.time_control.clone(),
            more: record.extra_tags.clone(),
        };
        let thinks: Vec<u64> = record.moves.iter().map_while(|m| m.think_ms).collect();
        // The file's own result and tags, not the rules' outcome alone, are what it exports.
        let game = record_exported(&start, &moves, |_| {
            export_texts_timed(
                &start,
                &moves,
                &thinks,
                Some((record.result, record.reason)),
                &kept,
            )
        })?;
        let tags = ImportTags {
            sente: record.sente.clone(),
            gote: record.gote.clone(),
            date: record.date.clone(),
            time_control: record.time_control.clone(),
            result: record.result.token(),
            reason: record.reason.map(EndReason::name),
            format,
        };
        games.push(ImportedGame { game, tags });
    }
    Ok(Imported { format, games })
}
