//! The query parameters the game lists share (`/api/games`, a player's games).

use crate::error::ApiError;
use std::collections::HashMap;

/// A list's `status` query parameter, if given: `waiting`, `playing` or `finished`.
pub fn status_of(query: &HashMap<String, String>) -> Result<Option<&str>, ApiError> {
    match query.get("status").map(String::as_str) {
        Some(status) if !["waiting", "playing", "finished"].contains(&status) => Err(
            ApiError::bad_request("status must be waiting, playing or finished"),
        ),
        status => Ok(status),
    }
}

/// A list's `limit` query parameter: 1 to 500, 100 when not given.
pub fn limit_of(query: &HashMap<String, String>) -> Result<usize, ApiError> {
    match query.get("limit") {
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=500).contains(n))
            .ok_or_else(|| ApiError::bad_request("limit must be a number from 1 to 500")),
        None => Ok(100),
    }
}
