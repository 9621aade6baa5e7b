//! The web UI's own addresses: which paths are pages of the site, so that each is answered
//! with the page (200) and anything else, a game that does not exist included, with the
//! page's "not found" view under a 404 status that links, crawlers and scripts can see.

use crate::hub::Hub;
use crate::learn::lesson_exists;
use axum::http::StatusCode;
use tsubame_rules::Variant;

/// Whether `name` is a game's name as the site writes it in addresses (`tori`, `wa`,
/// `tenjiku`).
fn is_game_name(name: &str) -> bool {
    Variant::ALL.into_iter().any(|v| v.name() == name)
}

/// What the site's pages are, by their path's segments; a game, a tournament or a player is
/// looked up by [`status`].
#[derive(Debug, PartialEq, Eq)]
enum Page<'a> {
    /// A page that exists whatever the database holds.
    Static,
    /// A game's page: it exists when the game does.
    Game(&'a str),
    /// A tournament's page: it exists when the tournament does.
    Tournament(&'a str),
    /// A player's page: it exists when the player does.
    Player(&'a str),
    /// A puzzle's page: it exists when the puzzle does.
    Puzzle(&'a str),
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
        ["learn", game, lesson] if is_game_name(game) && lesson_exists(game, lesson) => {
            Page::Static
        }
        ["rules", rest @ ..] | ["learn", rest @ ..] | ["editor", rest @ ..] | ["tv", rest @ ..] => {
            game_or_none(rest)
        }
        ["puzzles"] | ["tournaments"] => Page::Static,
        ["puzzles", game] if is_game_name(game) => Page::Static,
        ["puzzles", game, id] if is_game_name(game) && !id.is_empty() => Page::Puzzle(id),
        ["tournament", id] if !id.is_empty() => Page::Tournament(id),
        ["@", name] if !name.is_empty() => Page::Player(name),
        _ => Page::Unknown,
    }
}

/// The status the page at `path` is answered with: 200 for the site's pages, 404 for other
/// paths and for games, tournaments and players that do not exist. When the database cannot
/// say, the page is served (200) and says what it finds itself.
pub async fn status(hub: &Hub, path: &str) -> StatusCode {
    let found = |exists: bool| {
        if exists {
            StatusCode::OK
        } else {
            StatusCode::NOT_FOUND
        }
    };
    match page(path) {
        Page::Static => StatusCode::OK,
        Page::Unknown => StatusCode::NOT_FOUND,
        Page::Game(id) => match hub.find(id).await {
            Err(crate::hub::GameError::UnknownGame { .. }) => StatusCode::NOT_FOUND,
            _ => StatusCode::OK,
        },
        Page::Tournament(id) => {
            let known = id.len() <= 64 && !matches!(hub.store().tournament(id).await, Ok(None));
            found(known)
        }
        Page::Puzzle(id) => {
            let known = id.len() <= 64 && !matches!(hub.store().puzzle(id).await, Ok(None));
            found(known)
        }
        Page::Player(name) => {
            let name = percent_decoded(name);
            found(!matches!(hub.accounts().by_name(&name).await, Ok(None)))
        }
    }
}

/// A path segment with its `%XX` escapes decoded (as the page decodes it); as written when
/// they are not UTF-8.
fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| segment.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| segment.to_string())
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
            "/learn/tori/capture",
            "/learn/tenjiku/piece-lion",
            "/editor",
            "/editor/tenjiku",
            "/puzzles",
            "/puzzles/tori",
            "/tournaments",
        ] {
            assert_eq!(page(path), Page::Static, "{path}");
        }
        assert_eq!(page("/game/abc123"), Page::Game("abc123"));
        assert_eq!(page("/tournament/abc123"), Page::Tournament("abc123"));
        assert_eq!(page("/@/some_player"), Page::Player("some_player"));
        assert_eq!(page("/puzzles/tori/t-000123"), Page::Puzzle("t-000123"));
        assert_eq!(page("/join/abc123/secret"), Page::Game("abc123"));
        for path in [
            "/nonsense",
            "/rules/chess",
            "/rules/tori/extra",
            "/learn/chu",
            "/learn/tori/burning",
            "/learn/tori/pieces",
            "/learn/tori/capture/x",
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
            "/tournament",
            "/tournament/a/b",
            "/tournaments/x",
            "/wp-admin/login.php/x",
        ] {
            assert_eq!(page(path), Page::Unknown, "{path}");
        }
    }

    #[test]
    fn escapes_are_decoded_as_the_page_decodes_them() {
        assert_eq!(percent_decoded("some_player"), "some_player");
        assert_eq!(percent_decoded("a%20b"), "a b");
        assert_eq!(percent_decoded("%E9%B3%A5"), "鳥");
        assert_eq!(percent_decoded("%zz%"), "%zz%");
        assert_eq!(percent_decoded("%FF"), "%FF");
    }
}
