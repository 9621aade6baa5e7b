//! `/api/openapi.json` describes the API the server actually serves: every routed endpoint is
//! in it with its methods, and what the server answers matches the document's schemas: no
//! field the document lacks, none it requires missing, down through nested objects and lists.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

/// The `(method, path)` pairs the routers serve, read from their sources.
fn routed() -> BTreeSet<(String, String)> {
    let sources = [
        include_str!("../../src/api/mod.rs"),
        include_str!("../../src/account_api.rs"),
        include_str!("../../src/puzzle_api.rs"),
        include_str!("../../src/moderation_api.rs"),
        include_str!("../../src/challenge_api.rs"),
        include_str!("../../src/arena/api.rs"),
        include_str!("../../src/learn.rs"),
        include_str!("../../src/worker_api.rs"),
        include_str!("../../src/lib.rs"),
    ];
    let mut routes = BTreeSet::new();
    for source in sources {
        for chunk in source.split(".route(").skip(1) {
            let Some(path) = chunk.split('"').nth(1) else {
                continue;
            };
            if !path.starts_with("/api/") || path == "/api/{*rest}" {
                continue;
            }
            let handlers = chunk.split(')').take(3).collect::<Vec<_>>().join(")");
            for method in ["get", "post"] {
                if handlers.contains(&format!("{method}(")) {
                    routes.insert((method.to_string(), path.to_string()));
                }
            }
        }
    }
    routes
}

/// Resolves a `$ref` to its schema.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.trim_start_matches("#/components/schemas/");
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// The properties and required names of an object schema, through `allOf` (a flattened
/// struct) and `$ref`.
fn object_shape(doc: &Value, schema: &Value) -> (serde_json::Map<String, Value>, BTreeSet<String>) {
    let schema = resolve(doc, schema);
    let mut properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut required: BTreeSet<String> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(str::to_string))
        .collect();
    for part in schema["allOf"].as_array().into_iter().flatten() {
        let (more, more_required) = object_shape(doc, part);
        properties.extend(more);
        required.extend(more_required);
    }
    (properties, required)
}

/// Checks `value` against `schema`, naming the first difference with its path.
fn check(doc: &Value, schema: &Value, value: &Value, at: &str) {
    if let Err(difference) = differences(doc, schema, value, at) {
        panic!("{difference}");
    }
}

/// The first difference between `value` and `schema`, with its path.
fn differences(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let schema = resolve(doc, schema);
    if value.is_null() {
        return Ok(());
    }
    // A choice (an optional value, an untagged enum, a tagged message): one must fit.
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema[key].as_array() {
            let mut misses = Vec::new();
            for option in options {
                if resolve(doc, option)["type"] == "null" {
                    continue;
                }
                match differences(doc, option, value, at) {
                    Ok(()) => return Ok(()),
                    Err(miss) => misses.push(miss),
                }
            }
            return Err(format!(
                "{at}: {value} fits no choice: {}",
                misses.join("; ")
            ));
        }
    }
    match value {
        Value::Object(fields) => {
            let (properties, required) = object_shape(doc, schema);
            if properties.is_empty() && schema["additionalProperties"].is_object() {
                for (name, item) in fields {
                    differences(
                        doc,
                        &schema["additionalProperties"],
                        item,
                        &format!("{at}.{name}"),
                    )?;
                }
                return Ok(());
            }
            for (name, item) in fields {
                let Some(property) = properties.get(name) else {
                    return Err(format!(
                        "{at}: the server sends {name:?}, which the document lacks"
                    ));
                };
                differences(doc, property, item, &format!("{at}.{name}"))?;
            }
            for name in &required {
                if !fields.contains_key(name) {
                    return Err(format!(
                        "{at}: the document requires {name:?}, which the server did not send"
                    ));
                }
            }
        }
        Value::Array(items) => {
            let item_schema = &schema["items"];
            if item_schema.is_object() {
                for (index, item) in items.iter().enumerate() {
                    differences(doc, item_schema, item, &format!("{at}[{index}]"))?;
                }
            }
        }
        Value::String(_) if schema["type"] == "object" => {
            return Err(format!("{at}: {value} where the document has an object"));
        }
        Value::String(_)
            if schema["enum"]
                .as_array()
                .is_some_and(|names| !names.contains(value)) =>
        {
            return Err(format!(
                "{at}: {value} is none of the document's {}",
                schema["enum"]
            ));
        }
        _ => {}
    }
    Ok(())
}

/// The schema of a path's answer with `status`.
fn answer_schema<'a>(doc: &'a Value, method: &str, path: &str, status: &str) -> &'a Value {
    let schema =
        &doc["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "{method} {path} {status}: no schema");
    schema
}

#[test]
fn the_document_lists_every_endpoint_and_the_answers_match_it() {
    let db = Db::sqlite();
    let server = Server::start(&db);
    let (status, doc) = server.get("/api/openapi.json");
    assert_eq!(status, 200);
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "{}",
        doc["openapi"]
    );

    // Every routed endpoint, with its methods, and nothing the server does not serve.
    let routes = routed();
    assert!(routes.len() >= 25, "{routes:?}");
    let documented: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, methods)| {
            methods
                .as_object()
                .into_iter()
                .flatten()
                .map(move |(method, _)| (method.clone(), path.clone()))
        })
        .collect();
    assert_eq!(documented, routes);

    // A game between two accounts' guests, a move, chat, the record.
    let (id, sente, gote) = server.two_player_game("tori", long_clock());
    server.play_moves(&id, &sente, &gote, &["3d3c", "4b3c"]);
    let path = |p: &str| p.replace("{id}", &id);
    let (status, game) = server.get(&path("/api/games/{id}"));
    assert_eq!(status, 200);
    check(
        &doc,
        answer_schema(&doc, "get", "/api/games/{id}", "200"),
        &game,
        "game",
    );
    let (_, moved) = server.post(
        &path("/api/games/{id}/moves"),
        json!({"token": sente, "move": "1e1d"}),
    );
    check(
        &doc,
        answer_schema(&doc, "post", "/api/games/{id}/moves", "200"),
        &moved,
        "move",
    );
    let (status, line) = server.post(
        &path("/api/games/{id}/chat"),
        json!({"token": gote, "text": "hi"}),
    );
    assert_eq!(status, 201, "{line}");
    check(
        &doc,
        answer_schema(&doc, "post", "/api/games/{id}/chat", "201"),
        &line,
        "line",
    );
    let (_, chat) = server.get(&format!("{}?token={gote}", path("/api/games/{id}/chat")));
    check(
        &doc,
        answer_schema(&doc, "get", "/api/games/{id}/chat", "200"),
        &chat,
        "chat",
    );
    let (_, record) = server.get(&path("/api/games/{id}/record"));
    check(
        &doc,
        answer_schema(&doc, "get", "/api/games/{id}/record", "200"),
        &record,
        "record",
    );
    let (_, draw) = server.post(&path("/api/games/{id}/draw"), json!({"token": gote}));
    check(
        &doc,
        answer_schema(&doc, "post", "/api/games/{id}/draw", "200"),
        &draw,
        "draw",
    );
    let (_, resigned) = server.post(&path("/api/games/{id}/resign"), json!({"token": sente}));
    check(
        &doc,
        answer_schema(&doc, "post", "/api/games/{id}/resign", "200"),
        &resigned,
        "resign",
    );
    assert_eq!(resigned["status"], "finished");

    // Lists, the games' descriptions (Tenjiku's powers included), replay, import, a seek.
    let (_, variants) = server.get("/api/variants");
    check(
        &doc,
        answer_schema(&doc, "get", "/api/variants", "200"),
        &variants,
        "variants",
    );
    let (status, seek) = server.post(
        "/api/games",
        json!({"variant": "wa", "opponent": "human", "public": true, "clock": long_clock()}),
    );
    assert_eq!(status, 201);
    check(
        &doc,
        answer_schema(&doc, "post", "/api/games", "201"),
        &seek,
        "seek",
    );
    let (_, lobby) = server.get("/api/lobby");
    assert!(!lobby.as_array().expect("list").is_empty());
    check(
        &doc,
        answer_schema(&doc, "get", "/api/lobby", "200"),
        &lobby,
        "lobby",
    );
    let (_, list) = server.get("/api/games?limit=20");
    check(
        &doc,
        answer_schema(&doc, "get", "/api/games", "200"),
        &list,
        "list",
    );
    let (_, replayed) = server.post(
        "/api/replay",
        json!({"variant": "tori", "moves": ["3d3c", "4b3c"]}),
    );
    check(
        &doc,
        answer_schema(&doc, "post", "/api/replay", "200"),
        &replayed,
        "replay",
    );
    let (_, checked) = server.post(
        "/api/positions/check",
        json!({"variant": "tori", "sfen": "3k3/7/7/7/7/7/3K3 b S 1"}),
    );
    check(
        &doc,
        answer_schema(&doc, "post", "/api/positions/check", "200"),
        &checked,
        "checked position",
    );
    // The mate solver: a falcon dropped on 1b mates; the start position has no check at all.
    let (status, mated) = server.post(
        "/api/mate",
        json!({"variant": "tori", "sfen": "5sk/5s1/6C/7/7/7/K6 b F 1", "max_moves": 3}),
    );
    assert_eq!(status, 200, "{mated}");
    assert_eq!(mated["result"], "mate", "{mated}");
    assert_eq!(mated["moves"], 1, "{mated}");
    assert_eq!(mated["pv"], json!(["F*1b"]), "{mated}");
    assert_eq!(mated["hodges"], json!(["Fa*1b"]), "{mated}");
    check(
        &doc,
        answer_schema(&doc, "post", "/api/mate", "200"),
        &mated,
        "mate",
    );
    let (status, none) = server.post("/api/mate", json!({"variant": "tori", "max_moves": 2}));
    assert_eq!(status, 200, "{none}");
    assert_eq!(none["result"], "none", "{none}");
    check(
        &doc,
        answer_schema(&doc, "post", "/api/mate", "200"),
        &none,
        "no mate",
    );
    let (status, refused) = server.post("/api/mate", json!({"variant": "tori", "max_moves": 99}));
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("max_moves")),
        "{refused}"
    );
    // Puzzles: a list, one, the next, the day's, an attempt.
    let (status, puzzles) = server.get("/api/puzzles?variant=tori&limit=3");
    assert_eq!(status, 200, "{puzzles}");
    check(
        &doc,
        answer_schema(&doc, "get", "/api/puzzles", "200"),
        &puzzles,
        "puzzles",
    );
    let puzzle_id = puzzles["puzzles"][0]["id"]
        .as_str()
        .expect("a puzzle")
        .to_string();
    for (path, template) in [
        (format!("/api/puzzles/{puzzle_id}"), "/api/puzzles/{id}"),
        (
            "/api/puzzles/next?variant=tori".to_string(),
            "/api/puzzles/next",
        ),
        (
            "/api/puzzles/daily?variant=tori".to_string(),
            "/api/puzzles/daily",
        ),
    ] {
        let (status, answer) = server.get(&path);
        assert_eq!(status, 200, "{path}: {answer}");
        check(
            &doc,
            answer_schema(&doc, "get", template, "200"),
            &answer,
            &path,
        );
    }
    let (status, attempt) = server.post(
        &format!("/api/puzzles/{puzzle_id}/attempt"),
        json!({"solved": false, "moves": []}),
    );
    assert_eq!(status, 200, "{attempt}");
    check(
        &doc,
        answer_schema(&doc, "post", "/api/puzzles/{id}/attempt", "200"),
        &attempt,
        "attempt",
    );
    let kif = record["exports"]["kif"]
        .as_str()
        .expect("a Tori game has a KIF");
    let (status, imported) = server.post_raw("/api/import?format=kif", kif.as_bytes());
    assert_eq!(status, 200, "{imported}");
    check(
        &doc,
        answer_schema(&doc, "post", "/api/import", "200"),
        &imported,
        "import",
    );

    // Accounts and players.
    let mut browser = Browser::new(&server);
    let (status, signed) = browser.post(
        "/api/account/signup",
        json!({"username": "schema_check", "password": "a long enough password"}),
    );
    assert_eq!(status, 201, "{signed}");
    check(
        &doc,
        answer_schema(&doc, "post", "/api/account/signup", "201"),
        &signed,
        "signup",
    );
    let (_, me) = browser.get("/api/account");
    check(
        &doc,
        answer_schema(&doc, "get", "/api/account", "200"),
        &me,
        "account",
    );
    let (_, player) = server.get("/api/players/schema_check");
    check(
        &doc,
        answer_schema(&doc, "get", "/api/players/{name}", "200"),
        &player,
        "player",
    );
    let (_, games) = server.get("/api/players/schema_check/games");
    check(
        &doc,
        answer_schema(&doc, "get", "/api/players/{name}/games", "200"),
        &games,
        "player games",
    );

    // Errors have the one documented shape.
    let (status, missing) = server.get("/api/games/nosuchgame");
    assert_eq!(status, 404);
    check(
        &doc,
        answer_schema(&doc, "get", "/api/games/{id}", "404"),
        &missing,
        "404",
    );

    // The socket's messages are the documented SocketMessage.
    let message_schema = json!({"$ref": "#/components/schemas/SocketMessage"});
    let mut socket = server.socket(&id, Some(&gote));
    let mut seen = BTreeSet::new();
    socket.send(json!({"type": "ping", "id": 7}));
    socket.send(json!({"type": "chat", "text": "again", "id": 8}));
    socket.send(json!({"type": "move", "move": "1a1b", "id": 9}));
    socket.send(json!({"type": "nonsense"}));
    let until = std::time::Instant::now() + Duration::from_secs(5);
    let kinds = [
        "hello",
        "state",
        "chat_history",
        "pong",
        "ack",
        "error",
        "chat",
    ];
    while seen.len() < kinds.len() && std::time::Instant::now() < until {
        let message = socket.wait_for(Duration::from_secs(5), |_| true);
        check(&doc, &message_schema, &message, "socket");
        seen.insert(message["type"].as_str().unwrap_or_default().to_string());
    }
    for kind in kinds {
        assert!(seen.contains(kind), "no {kind} message among {seen:?}");
    }

    // A move and the end reach a watcher as `move` and `end`, documented messages too.
    let (live, sente, gote) = server.two_player_game("tori", long_clock());
    let mut watcher = server.socket(&live, None);
    server.play_moves(&live, &sente, &gote, &["3d3c"]);
    let moved = watcher.wait_for(Duration::from_secs(5), |m| m["type"] == "move");
    check(&doc, &message_schema, &moved, "move announcement");
    let (status, _) = server.post(&format!("/api/games/{live}/resign"), json!({"token": gote}));
    assert_eq!(status, 200);
    let ended = watcher.wait_for(Duration::from_secs(5), |m| m["type"] == "end");
    check(&doc, &message_schema, &ended, "end announcement");
}
