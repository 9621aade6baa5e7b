//! The learn path's lessons, as the web UI holds them (`web/src/lessons.json`): which lesson
//! pages exist, so that an address that names none is answered 404, and (in the tests) that
//! every exercise is one the rules let a player solve and also get wrong; and an account's
//! progress on the path, kept with the account so that it follows the player to any browser.

use crate::error::ApiError;
use crate::hub::Hub;
use crate::request::{parse_body, variant_of};
use crate::responses::{ErrorBody, LearnProgress};
use crate::store::Store;
use crate::viewer::{Viewer, logged_in_account};
use anyhow::Result;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroU32;
use std::sync::{Arc, LazyLock};
use std::time::Duration;
use tsubame_rules::Variant;

/// The most items one request may record: every drill and lesson of the largest path fits.
const MAX_ITEMS_PER_REQUEST: usize = 400;

/// How often an account may record progress: a lesson's step takes a person seconds, so one
/// a second with a burst of twenty (a path's worth sent after logging in) is far above use
/// and keeps a script from holding the database's writer.
const RECORD_PERIOD: Duration = Duration::from_secs(1);
const RECORD_BURST: u32 = 20;

/// Records of progress per account, on this instance.
static RECORDERS: LazyLock<DefaultKeyedRateLimiter<String>> = LazyLock::new(|| {
    RateLimiter::keyed(
        Quota::with_period(RECORD_PERIOD)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(NonZeroU32::new(RECORD_BURST).unwrap_or(NonZeroU32::MIN)),
    )
});

/// The drills a piece has (`learn.ts`'s stages).
const DRILL_STAGES: [&str; 4] = ["alone", "blocked", "promotion", "drops"];

/// The lessons of every game, in the order of the path.
const LESSONS_JSON: &str = include_str!("../../../web/src/lessons.json");

/// A lesson of the path; `pieces` stands for one lesson per piece, made from the game's roles.
#[derive(Debug, Deserialize)]
struct Lesson {
    id: String,
    #[cfg_attr(not(test), allow(dead_code))]
    #[serde(default)]
    steps: Vec<Step>,
}

/// One step of a lesson: reading, a tap drill, or a move to find on a board.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(not(test), allow(dead_code))]
struct Step {
    /// A move exercise: its position, the moves before it, and what the move must do.
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    sfen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    #[serde(default)]
    goal: Option<Goal>,
}

/// What a move must do to solve an exercise.
#[derive(Debug, Deserialize)]
#[cfg_attr(not(test), allow(dead_code))]
struct Goal {
    kind: String,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    on: Option<String>,
    #[serde(default)]
    check: bool,
}

static LESSONS: LazyLock<HashMap<String, Vec<Lesson>>> =
    LazyLock::new(|| serde_json::from_str(LESSONS_JSON).unwrap_or_default());

/// A piece lesson's address part: the piece's name in lower case, words joined by `-`
/// (`piece-swallow`, `piece-great-general`); the web UI makes the same.
pub(crate) fn piece_slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// Whether `/learn/{game}/{lesson}` is a lesson page: a lesson of the game's path, or the
/// lesson of one of its unpromoted pieces.
pub(crate) fn lesson_exists(game: &str, lesson: &str) -> bool {
    let Some(variant) = Variant::from_name(game) else {
        return false;
    };
    if let Some(piece) = lesson.strip_prefix("piece-") {
        return variant
            .spec()
            .roles
            .iter()
            .any(|r| r.promoted_from.is_none() && piece_slug(r.name) == piece);
    }
    lesson != "pieces"
        && LESSONS
            .get(game)
            .is_some_and(|lessons| lessons.iter().any(|l| l.id == lesson))
}

/// Whether `item` names something of the game's path that progress is kept for: a lesson
/// (`lesson capture`, `lesson piece-swallow`) or a piece's drill (`F alone`, `Q! blocked`).
pub(crate) fn progress_item_exists(variant: Variant, item: &str) -> bool {
    if let Some(lesson) = item.strip_prefix("lesson ") {
        return lesson_exists(variant.name(), lesson);
    }
    let Some((code, stage)) = item.split_once(' ') else {
        return false;
    };
    DRILL_STAGES.contains(&stage) && variant.spec().roles.iter().any(|r| r.sfen == code)
}

/// What `POST /api/account/learn/{variant}` reads: items done, each with its stars.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProgressRequest {
    /// `lesson ID` (1 when done) or `CODE STAGE` of a piece's drill (1 to 3 stars).
    items: BTreeMap<String, u8>,
}

/// Accounts' progress on the learn paths, in the database.
pub(crate) struct ProgressRepository<'a> {
    store: &'a Store,
}

impl Store {
    /// The learn paths' progress of accounts.
    pub(crate) fn learn_progress(&self) -> ProgressRepository<'_> {
        ProgressRepository { store: self }
    }
}

impl ProgressRepository<'_> {
    /// An account's items on one game's path, with their stars.
    pub(crate) async fn of(&self, account_id: &str, variant: &str) -> Result<BTreeMap<String, u8>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT item, stars FROM learn_progress WHERE account_id = $1 AND variant = $2",
        )
        .bind(account_id)
        .bind(variant)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(item, stars)| (item, u8::try_from(stars).unwrap_or(1)))
            .collect())
    }

    /// Records items done, each keeping the best stars it ever had, all in one transaction
    /// (an item whose stars are no better is not written again).
    pub(crate) async fn record(
        &self,
        account_id: &str,
        variant: &str,
        items: &BTreeMap<String, u8>,
        now: i64,
    ) -> Result<()> {
        self.store
            .in_transaction(async |tx| {
                for (item, stars) in items {
                    sqlx::query(
                        "INSERT INTO learn_progress (account_id, variant, item, stars, updated_at) \
                     VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (account_id, variant, item) DO UPDATE SET \
                     stars = excluded.stars, updated_at = excluded.updated_at \
                     WHERE excluded.stars > learn_progress.stars",
                    )
                    .bind(account_id)
                    .bind(variant)
                    .bind(item)
                    .bind(i64::from(*stars))
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                }
                Ok(())
            })
            .await
    }
}

fn database(error: anyhow::Error) -> ApiError {
    ApiError::database("your progress", error)
}

#[utoipa::path(get, path = "/api/account/learn/{variant}", tag = "accounts", params(("variant" = String, Path, description = "The game")), responses((status = 200, description = "The account's lessons done and drill stars on the game's learn path", body = LearnProgress), (status = 400, description = "No such game", body = ErrorBody), (status = 403, description = "Not logged in", body = ErrorBody)))]
pub(crate) async fn progress(
    State(hub): State<Arc<Hub>>,
    Path(variant): Path<String>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "keep your progress")?;
    let variant = variant_of(&variant)?;
    let items = hub
        .store()
        .learn_progress()
        .of(&me.id, variant.name())
        .await
        .map_err(database)?;
    Ok(axum::Json(LearnProgress {
        variant: variant.name().to_string(),
        items,
        ignored: Vec::new(),
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/account/learn/{variant}", tag = "accounts", params(("variant" = String, Path, description = "The game")), request_body = ProgressRequest, responses((status = 200, description = "The account's progress with these items recorded (the best stars of each kept); items the game's path does not have are named in `ignored`", body = LearnProgress), (status = 400, description = "A malformed request, or stars out of range", body = ErrorBody), (status = 403, description = "Not logged in", body = ErrorBody), (status = 429, description = "Too many records at once", body = ErrorBody), (status = 503, description = "The database refuses writes", body = ErrorBody)))]
pub(crate) async fn record_progress(
    State(hub): State<Arc<Hub>>,
    Path(variant): Path<String>,
    viewer: Viewer,
    body: Bytes,
) -> Result<Response, ApiError> {
    let me = logged_in_account(&viewer, "keep your progress")?;
    let variant = variant_of(&variant)?;
    let request: ProgressRequest = parse_body(&body)?;
    if request.items.len() > MAX_ITEMS_PER_REQUEST {
        return Err(ApiError::bad_request(format!(
            "at most {MAX_ITEMS_PER_REQUEST} items at once"
        )));
    }
    if let Some((item, stars)) = request.items.iter().find(|(_, s)| !(1..=3).contains(*s)) {
        return Err(ApiError::bad_request(format!(
            "{item:?}: stars are 1 to 3, not {stars}"
        )));
    }
    crate::rate::admit(&RECORDERS, &me.id).map_err(|wait| {
        ApiError::busy_for("too many progress records", wait).code("learn.too-fast")
    })?;
    // What the path no longer has (a lesson renamed since a browser kept it) is named, not
    // refused: the rest is recorded.
    let (known, ignored): (BTreeMap<String, u8>, BTreeMap<String, u8>) = request
        .items
        .into_iter()
        .partition(|(item, _)| progress_item_exists(variant, item));
    let store = hub.store();
    let kept = store
        .learn_progress()
        .of(&me.id, variant.name())
        .await
        .map_err(database)?;
    let better: BTreeMap<String, u8> = known
        .into_iter()
        .filter(|(item, stars)| kept.get(item).is_none_or(|had| stars > had))
        .collect();
    if !better.is_empty() {
        store
            .learn_progress()
            .record(&me.id, variant.name(), &better, hub.now() as i64)
            .await
            .map_err(database)?;
    }
    // What was kept with the better stars over it: the rows just written, without reading
    // them back.
    let mut items = kept;
    items.extend(better);
    Ok(axum::Json(LearnProgress {
        variant: variant.name().to_string(),
        items,
        ignored: ignored.into_keys().collect(),
    })
    .into_response())
}
/// The routes of an account's learn progress.
pub fn routes() -> Router<Arc<Hub>> {
    Router::new().route(
        "/api/account/learn/{variant}",
        get(progress).post(record_progress),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::HostedGame;
    use crate::records::record_of;
    use crate::responses::ReplayedGame;

    /// The web UI's judgement of a move, as `learn.ts` makes it from the same replay.
    fn meets(goal: &Goal, usi: &str, replay: &ReplayedGame, mover: &str) -> bool {
        let removed = replay.removed.last().cloned().unwrap_or_default();
        let check = replay.gives_check.last().copied().unwrap_or(false);
        match goal.kind.as_str() {
            "capture" => removed.len() >= goal.count.unwrap_or(1),
            "capture-on" => goal.on.as_ref().is_some_and(|on| removed.contains(on)),
            "check" => check,
            "drop" => usi.contains('*') && (!goal.check || check),
            "promote" => usi.ends_with('+'),
            "mate" => replay
                .outcome
                .as_ref()
                .is_some_and(|o| o.winner == Some(mover) && o.reason == "checkmate"),
            "safe" => replay
                .outcome
                .as_ref()
                .is_none_or(|o| o.winner == Some(mover)),
            other => panic!("unknown goal {other}"),
        }
    }

    #[test]
    fn every_game_has_a_path_with_its_pieces_and_its_first_games() {
        for variant in [Variant::Tori, Variant::Wa, Variant::Tenjiku] {
            let lessons = &LESSONS[variant.name()];
            let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
            for needed in [
                "game",
                "pieces",
                "capture",
                "promotion",
                "check",
                "first-games",
            ] {
                assert!(
                    ids.contains(&needed),
                    "{}: {needed} in {ids:?}",
                    variant.name()
                );
            }
            assert!(
                lesson_exists(variant.name(), "capture"),
                "{}",
                variant.name()
            );
            assert!(!lesson_exists(variant.name(), "pieces"));
            assert!(!lesson_exists(variant.name(), "nonsense"));
        }
        assert!(lesson_exists("tori", "piece-swallow"));
        assert!(lesson_exists("wa", "piece-swallow-s-wings"));
        assert!(lesson_exists("tenjiku", "piece-great-general"));
        assert!(lesson_exists("tenjiku", "burning"));
        assert!(
            !lesson_exists("tori", "piece-goose"),
            "a promoted piece is in its base's lesson"
        );
        assert!(!lesson_exists("tori", "burning"));
        assert!(!lesson_exists("chess", "capture"));
    }

    /// Every move exercise: its position is legal after the moves before it, some legal move
    /// solves it and some other does not, as the page will judge them.
    #[test]
    fn every_exercise_can_be_solved_and_missed() {
        let mut exercises = 0;
        for (game, lessons) in LESSONS.iter() {
            let variant = Variant::from_name(game).expect("a game's name");
            for lesson in lessons {
                for step in lesson.steps.iter().filter(|s| s.task.is_some()) {
                    let name = format!("{game} {} {:?}", lesson.id, step.task);
                    let goal = step.goal.as_ref().expect("a task's goal");
                    let start = HostedGame::new(variant, "", step.sfen.as_deref())
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    let before = record_of(&start, &step.moves)
                        .unwrap_or_else(|e| panic!("{name}: {}", e.message));
                    assert!(before.outcome.is_none(), "{name}: over before the move");
                    let mover = if before.sfen.split(' ').nth(1) == Some("b") {
                        "sente"
                    } else {
                        "gote"
                    };
                    let (mut right, mut wrong) = (Vec::new(), 0);
                    for usi in &before.legal_moves {
                        let mut line = step.moves.clone();
                        line.push(usi.clone());
                        let after = record_of(&start, &line).expect("a legal move");
                        if meets(goal, usi, &after, mover) {
                            right.push(usi.clone());
                        } else {
                            wrong += 1;
                        }
                    }
                    assert!(!right.is_empty(), "{name}: no move solves it");
                    assert!(wrong > 0, "{name}: every move solves it");
                    exercises += 1;
                }
            }
        }
        assert!(exercises >= 15, "{exercises} exercises");
    }

    #[test]
    fn progress_is_kept_only_for_what_the_path_has() {
        assert!(progress_item_exists(Variant::Tori, "lesson capture"));
        assert!(progress_item_exists(Variant::Tori, "lesson piece-swallow"));
        assert!(progress_item_exists(Variant::Tori, "F alone"));
        assert!(progress_item_exists(Variant::Tenjiku, "Q! blocked"));
        for item in [
            "lesson burning",
            "F sideways",
            "Z alone",
            "F",
            "",
            "lesson ",
            "F alone ",
        ] {
            assert!(!progress_item_exists(Variant::Tori, item), "{item:?}");
        }
    }

    #[test]
    fn piece_slugs_read_as_words() {
        assert_eq!(piece_slug("swallow's wings"), "swallow-s-wings");
        assert_eq!(piece_slug("great general"), "great-general");
        assert_eq!(piece_slug("left quail"), "left-quail");
    }
}
