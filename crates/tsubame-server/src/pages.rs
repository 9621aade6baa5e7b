//! The web UI's own addresses: which paths are pages of the site, so that each is answered
//! with the page (200) and anything else, a game that does not exist included, with the
//! page's "not found" view under a 404 status that links, crawlers and scripts can see.

use crate::hub::Hub;
use axum::http::StatusCode;
use tsubame_rules::Variant;

/// Whether `name` is a game's name as the site writes it in addresses (`tori`, `wa`,
/// `tenjiku`).
fn is_game_name(name: &str) -> bool {
    Variant::ALL.into_iter().any(|v| v.name() == name)
}

/// What the site's pages are, by their path's segments; a game is looked up by [`status`].
#[derive(Debug, PartialEq, Eq)]
enum Page<'a> {
    /// A page that exists whatever the database holds.
    Static,
    /// A game's page: it exists when the game does.
    Game(&'a str),
    /// Not one of the site's pages.
    Unknown,
}

fn page(path: &str) -> Page<'_> {
    let trimmed = path.trim_matches('/');
    let segments: Vec<&str> = if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    };
    let game_or_none = |rest: &[&str]| match rest {
        [] => Page::Static,
        [game] if is_game_name(game) => Page::Static,
        _ => Page::Unknown,
    };
    match segments.as_slice() {
        [] | ["import" | "analysis" | "login" | "signup" | "account" | "admin"] => Page::Static,
        ["game", id] if !id.is_empty() => Page::Game(id),
        ["join", id, invite] if !id.is_empty() && !invite.is_empty() => Page::Game(id),
        ["rules", rest @ ..] | ["learn", rest @ ..] | ["editor", rest @ ..] | ["tv", rest @ ..] => {
            game_or_none(rest)
        }
        ["puzzles"] => Page::Static,
        ["puzzles", game] | ["puzzles", game, _] if is_game_name(game) => Page::Static,
        ["@", name] if !name.is_empty() => Page::Static,
        _ => Page::Unknown,
    }
}

/// The status the page at `path` is answered with: 200 for the site's pages, 404 for other
/// paths and for games that do not exist. When the database cannot say, the page is served
/// (200) and says what it finds itself.
pub async fn status(hub: &Hub, path: &str) -> StatusCode {
    match page(path) {
        Page::Static => StatusCode::OK,
        Page::Unknown => StatusCode::NOT_FOUND,
        Page::Game(id) => match hub.find(id).await {
            Err(e) if e.status == 404 => StatusCode::NOT_FOUND,
            _ => StatusCode::OK,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sites_pages_and_nothing_else() {
        for path in [
            "/",
            "",
            "/import",
            "/analysis/",
            "/login",
            "/signup",
            "/account",
            "/admin",
            "/tv",
            "/tv/wa",
            "/rules",
            "/rules/tori",
            "/rules/wa",
            "/rules/tenjiku",
            "/learn",
            "/learn/wa",
            "/editor",
            "/editor/tenjiku",
            "/puzzles",
            "/puzzles/tori",
            "/puzzles/tori/t-000123",
            "/@/some_player",
        ] {
            assert_eq!(page(path), Page::Static, "{path}");
        }
        assert_eq!(page("/game/abc123"), Page::Game("abc123"));
        assert_eq!(page("/join/abc123/secret"), Page::Game("abc123"));
        for path in [
            "/nonsense",
            "/rules/chess",
            "/rules/tori/extra",
            "/learn/chu",
            "/editor/chess",
            "/puzzles/chess",
            "/game",
            "/game/",
            "/game/a/b",
            "/join/abc",
            "/@/",
            "/@/a/b",
            "/import/x",
            "/account/x",
            "/tv/chess",
            "/wp-admin/login.php/x",
        ] {
            assert_eq!(page(path), Page::Unknown, "{path}");
        }
    }
}
