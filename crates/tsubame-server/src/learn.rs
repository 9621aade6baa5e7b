//! The learn path's lessons, as the web UI holds them (`web/src/lessons.json`): which lesson
//! pages exist, so that an address that names none is answered 404, and (in the tests) that
//! every exercise is one the rules let a player solve and also get wrong.

use serde::Deserialize;
use std::collections::HashMap;
use std::sync::LazyLock;
use tsubame_rules::Variant;

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
    fn piece_slugs_read_as_words() {
        assert_eq!(piece_slug("swallow's wings"), "swallow-s-wings");
        assert_eq!(piece_slug("great general"), "great-general");
        assert_eq!(piece_slug("left quail"), "left-quail");
    }
}
