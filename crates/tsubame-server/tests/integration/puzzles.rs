//! Puzzles over the real server: the built-in files loaded once, lists by game and theme, one
//! puzzle, the next near a rating, the day's puzzle, and attempts rated for accounts only, on
//! SQLite and (when `TSUBAME_TEST_POSTGRES` names a server) PostgreSQL.

use crate::common::*;
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

/// The built-in Tori puzzles, as the file has them.
fn tori_file() -> Vec<Value> {
    let text = include_str!("../../../../data/puzzles/tori.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a puzzle line"))
        .collect()
}

/// The ids of the puzzles the deep check left out of a game's file: retired.
fn retired(deep: &str) -> std::collections::HashSet<String> {
    deep.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<Value>(l).expect("a verdict line"))
        .filter(|v| v["keep"] == false)
        .map(|v| v["id"].as_str().expect("id").to_string())
        .collect()
}

fn ids(list: &Value) -> Vec<String> {
    list["puzzles"]
        .as_array()
        .expect("puzzles")
        .iter()
        .map(|p| p["id"].as_str().expect("id").to_string())
        .collect()
}

fn puzzles_are_listed_tried_and_rated(db: &Db) {
    let all = tori_file();
    // The puzzles the deep check left out are retired: not listed, counted or handed out.
    let tori_retired = retired(include_str!("../../../../data/puzzles/tori.deep.jsonl"));
    let file: Vec<Value> = all
        .iter()
        .filter(|p| !tori_retired.contains(p["id"].as_str().expect("id")))
        .cloned()
        .collect();
    assert!(!file.is_empty());
    let server = Server::start(db);

    // Lists: every built-in puzzle in use is there once, easiest first.
    let (status, list) = server.get("/api/puzzles?variant=tori&limit=100");
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["total"], file.len(), "{}", list["total"]);
    let mut listed = std::collections::HashSet::new();
    for offset in (0..file.len()).step_by(100) {
        let (_, page) = server.get(&format!(
            "/api/puzzles?variant=tori&limit=100&offset={offset}"
        ));
        listed.extend(ids(&page));
    }
    assert_eq!(listed.len(), file.len());
    assert!(listed.is_disjoint(&tori_retired.iter().cloned().collect()));
    // A retired puzzle's own page stays, for links to it.
    if let Some(gone) = tori_retired.iter().next() {
        assert_eq!(server.get(&format!("/api/puzzles/{gone}")).0, 200);
    }
    let ratings: Vec<i64> = list["puzzles"]
        .as_array()
        .expect("puzzles")
        .iter()
        .map(|p| p["rating"].as_i64().expect("rating"))
        .collect();
    assert!(ratings.windows(2).all(|w| w[0] <= w[1]), "{ratings:?}");
    // Every game has its puzzles, Tenjiku's too (at least the hundred asked for).
    let tenjiku_retired = retired(include_str!("../../../../data/puzzles/tenjiku.deep.jsonl"));
    let tenjiku = include_str!("../../../../data/puzzles/tenjiku.jsonl")
        .lines()
        .filter(|line| line.starts_with('{'))
        .filter(|line| !tenjiku_retired.iter().any(|id| line.contains(id.as_str())))
        .count();
    assert!(tenjiku >= 100, "{tenjiku} tenjiku puzzles");
    let (_, list) = server.get("/api/puzzles?variant=tenjiku&limit=5");
    assert_eq!(list["total"], tenjiku, "{list}");
    assert_eq!(list["puzzles"][0]["variant"], "tenjiku", "{list}");
    let (_, tsume) = server.get("/api/puzzles?variant=tori&theme=tsume&limit=100");
    let expected_tsume = file
        .iter()
        .filter(|p| {
            p["themes"]
                .as_array()
                .is_some_and(|t| t.contains(&json!("tsume")))
        })
        .count();
    assert_eq!(tsume["total"], expected_tsume);
    for puzzle in tsume["puzzles"].as_array().expect("puzzles") {
        assert!(
            puzzle["themes"]
                .as_array()
                .expect("themes")
                .contains(&json!("tsume"))
        );
    }
    for (query, named) in [
        ("theme=nonsense", "nonsense"),
        ("variant=chess", "chess"),
        ("variant=chess", "the games are tori, wa"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
    ] {
        let (status, refused) = server.get(&format!("/api/puzzles?{query}"));
        assert_eq!(status, 400, "{query}: {refused}");
        assert!(
            refused["error"].as_str().expect("error").contains(named),
            "{refused}"
        );
    }

    // One puzzle: as the file has it.
    let first = &file[0];
    let id = first["id"].as_str().expect("id");
    let (status, one) = server.get(&format!("/api/puzzles/{id}"));
    assert_eq!(status, 200, "{one}");
    for field in ["variant", "options", "sfen", "moves", "themes", "rating"] {
        assert_eq!(one[field], first[field], "{field}");
    }
    assert_eq!(server.get("/api/puzzles/doesnotexist").0, 404);

    // The next puzzle for a guest, near the rating its browser keeps, not one it has seen.
    let (status, next) = server.get(&format!(
        "/api/puzzles/next?variant=tori&rating=600&seen={id}"
    ));
    assert_eq!(status, 200, "{next}");
    assert_ne!(next["id"], first["id"]);
    assert!(next["rating"].as_i64().expect("rating") < 1500, "{next}");
    let (_, tsume_next) = server.get("/api/puzzles/next?variant=tori&theme=tsume");
    assert!(
        tsume_next["themes"]
            .as_array()
            .expect("themes")
            .contains(&json!("tsume"))
    );

    // Past the first puzzles the choice follows the player's rating.
    for (rating, low, high) in [(900, 0, 1250), (1700, 1350, 4000)] {
        let (_, next) = server.get(&format!(
            "/api/puzzles/next?variant=tori&rating={rating}&attempts=40"
        ));
        let got = next["rating"].as_i64().expect("rating");
        assert!((low..=high).contains(&got), "near {rating}: {got}");
    }

    // The day's puzzle is the same all day.
    let (status, daily) = server.get("/api/puzzles/daily?variant=tori");
    assert_eq!(status, 200, "{daily}");
    assert_eq!(
        server.get("/api/puzzles/daily?variant=tori").1["id"],
        daily["id"]
    );

    // A guest's attempt is answered, unrated; a claim to have solved it needs the moves.
    let solution = first["moves"].clone();
    let (status, guest) = server.post(
        &format!("/api/puzzles/{id}/attempt"),
        json!({"solved": true, "moves": solution}),
    );
    assert_eq!(status, 200, "{guest}");
    assert_eq!(guest["rated"], false);
    let (status, refused) = server.post(
        &format!("/api/puzzles/{id}/attempt"),
        json!({"solved": true, "moves": ["1a1b"]}),
    );
    assert_eq!(status, 400, "{refused}");
    let (status, _) = server.post(
        &format!("/api/puzzles/{id}/attempt"),
        json!({"solved": "yes"}),
    );
    assert_eq!(status, 400);

    // A list is no answer sheet: its puzzles come without their solutions.
    let (_, listed) = server.get("/api/puzzles?variant=tori&limit=100");
    for puzzle in listed["puzzles"].as_array().expect("puzzles") {
        assert!(puzzle.get("moves").is_none(), "{puzzle}");
        assert!(puzzle["player_moves"].as_u64().expect("player_moves") >= 1);
    }

    // An account: an attempt at a puzzle the server did not hand it (one opened from a list
    // or a link) is answered, unrated, and nothing is recorded.
    let mut alice = Browser::new(&server);
    alice.sign_up("puzzler", PASSWORD);
    let (status, unhanded) = alice.post(
        &format!("/api/puzzles/{id}/attempt"),
        json!({"solved": true, "moves": solution}),
    );
    assert_eq!(status, 200, "{unhanded}");
    assert_eq!(unhanded["rated"], false, "{unhanded}");
    assert_eq!(unhanded["unrated"], "not-handed-out", "{unhanded}");
    // A newcomer's first puzzles are one-move puzzles, the easiest first.
    let (_, beginners) = server.get("/api/puzzles?variant=tori&theme=beginner&limit=10");
    let easiest: Vec<&str> = beginners["puzzles"]
        .as_array()
        .expect("puzzles")
        .iter()
        .map(|p| p["id"].as_str().expect("id"))
        .collect();
    assert!(easiest.len() == 10, "{beginners}");
    // Handed out, then solved at once, faster than a person can play it: spent, unrated.
    let (_, rushed) = alice.get("/api/puzzles/next?variant=tori");
    assert!(
        rushed["themes"]
            .as_array()
            .expect("themes")
            .contains(&json!("short")),
        "{rushed}"
    );
    assert!(
        easiest.contains(&rushed["id"].as_str().expect("id")),
        "{rushed}"
    );
    let rushed_id = rushed["id"].as_str().expect("id").to_string();
    let (_, answer) = alice.post(
        &format!("/api/puzzles/{rushed_id}/attempt"),
        json!({"solved": true, "moves": rushed["moves"]}),
    );
    assert_eq!(answer["unrated"], "too-fast", "{answer}");
    // Handed out and solved at a person's pace (a second for each of the player's moves): a
    // solved first attempt raises the player's rating and lowers the puzzle's.
    let (_, handed) = alice.get("/api/puzzles/next?variant=tori");
    let handed_id = handed["id"].as_str().expect("id").to_string();
    assert_ne!(
        handed_id, rushed_id,
        "a tried puzzle is not handed out again"
    );
    let own_moves = handed["moves"].as_array().expect("moves").len().div_ceil(2);
    std::thread::sleep(std::time::Duration::from_millis(
        1000 * own_moves as u64 + 100,
    ));
    let (status, solved) = alice.post(
        &format!("/api/puzzles/{handed_id}/attempt"),
        json!({"solved": true, "moves": handed["moves"]}),
    );
    assert_eq!(status, 200, "{solved}");
    assert_eq!(solved["rated"], true, "{solved}");
    assert_eq!(solved["unrated"], Value::Null, "{solved}");
    assert_eq!(solved["rating"]["before"], 1500);
    let after_win = solved["rating"]["after"].as_i64().expect("after");
    assert!(after_win > 1500, "{solved}");
    assert!(
        solved["puzzle_rating"].as_i64().expect("puzzle")
            < handed["rating"].as_i64().expect("rating")
    );
    let (_, again) = alice.post(
        &format!("/api/puzzles/{handed_id}/attempt"),
        json!({"solved": true, "moves": handed["moves"]}),
    );
    assert_eq!(again["rated"], false, "{again}");
    assert_eq!(again["unrated"], "tried-before", "{again}");
    // A failure needs no time to be rated: it lowers the player's rating.
    let (_, daily) = alice.get("/api/puzzles/daily?variant=tori");
    let other = daily["id"].as_str().expect("id").to_string();
    let (_, failed) = alice.post(
        &format!("/api/puzzles/{other}/attempt"),
        json!({"solved": false, "moves": []}),
    );
    assert_eq!(failed["rated"], true, "{failed}");
    assert!(
        failed["rating"]["after"].as_i64().expect("after") < after_win,
        "{failed}"
    );
    // The player's page shows the puzzle rating and its rated attempts.
    let (status, player) = alice.get("/api/players/puzzler");
    assert_eq!(status, 200, "{player}");
    assert_eq!(player["puzzle_ratings"][0]["variant"], "tori", "{player}");
    assert_eq!(player["puzzle_ratings"][0]["attempts"], 2, "{player}");
    assert_eq!(
        player["puzzle_ratings"][0]["rating"], failed["rating"]["after"],
        "{player}"
    );
    assert_eq!(player["puzzle_ratings"].as_array().map(Vec::len), Some(1));
    // The account's next puzzle is never one it has tried.
    for _ in 0..5 {
        let (_, next) = alice.get("/api/puzzles/next?variant=tori");
        for tried in [&rushed_id, &handed_id, &other] {
            assert_ne!(next["id"].as_str(), Some(tried.as_str()));
        }
    }
    // At most fifteen attempts a minute count: the three above, twelve quick failures, then
    // none.
    let mut answers = Vec::new();
    for _ in 0..13 {
        let (_, next) = alice.get("/api/puzzles/next?variant=tori");
        let next_id = next["id"].as_str().expect("id").to_string();
        let (_, answer) = alice.post(
            &format!("/api/puzzles/{next_id}/attempt"),
            json!({"solved": false, "moves": []}),
        );
        answers.push(answer["unrated"].clone());
    }
    assert!(answers[..12].iter().all(Value::is_null), "{answers:?}");
    assert_eq!(answers[12], "too-many", "{answers:?}");
    let id = handed_id.as_str();

    // A restart loads nothing twice and keeps what the attempts changed.
    let moved = server.get(&format!("/api/puzzles/{id}")).1["rating"].clone();
    server.terminate();
    let server = Server::start(db);
    let (_, list) = server.get("/api/puzzles?variant=tori&limit=5");
    assert_eq!(list["total"], file.len());
    assert_eq!(server.get(&format!("/api/puzzles/{id}")).1["rating"], moved);
    // One rated attempt: the account's first; the guest's and the repeated one are not.
    assert_eq!(server.get(&format!("/api/puzzles/{id}")).1["plays"], 1);
    assert!(ids(&list).len() == 5);
}

/// A later answer the deep check found as good as the solution's comes with the puzzle, and
/// solves it there.
fn second_answers_as_good_are_right(db: &Db) {
    let deep = include_str!("../../../../data/puzzles/tori.deep.jsonl");
    let verdict: Value = deep
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<Value>(l).expect("a verdict line"))
        .find(|v| v["keep"] == true && v["also"].as_array().is_some_and(|a| !a.is_empty()))
        .expect("a kept Tori puzzle with a second answer");
    let id = verdict["id"].as_str().expect("id");
    let index = verdict["also"][0][0].as_u64().expect("index") as usize;
    let other = verdict["also"][0][1].as_str().expect("move");
    let server = Server::start(db);
    let (status, puzzle) = server.get(&format!("/api/puzzles/{id}"));
    assert_eq!(status, 200, "{puzzle}");
    assert_eq!(
        puzzle["also"][0],
        json!({"index": index, "move": other}),
        "{puzzle}"
    );
    let solution: Vec<Value> = puzzle["moves"].as_array().expect("moves").clone();
    assert_ne!(solution[index], json!(other));
    let mut line: Vec<Value> = solution[..index].to_vec();
    line.push(json!(other));
    let (status, answer) = server.post(
        &format!("/api/puzzles/{id}/attempt"),
        json!({"solved": true, "moves": line}),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["solved"], true);
    // Anywhere else in the line it is not the answer.
    if index > 0 {
        let (status, _) = server.post(
            &format!("/api/puzzles/{id}/attempt"),
            json!({"solved": true, "moves": [other]}),
        );
        assert_eq!(status, 400);
    }
}

against_every_database!(
    puzzles_are_listed_tried_and_rated,
    second_answers_as_good_are_right
);
