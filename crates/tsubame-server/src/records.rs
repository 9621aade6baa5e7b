//! A game's records: every position and notation of a line of moves, the export forms (the
//! site's own text, KIF, PGN) with what a record says of its game besides the moves, and a
//! stored game's records for a download.

use crate::error::ApiError;
use crate::game::HostedGame;
use crate::hub::LiveGame;
use crate::hub::{GameEndReason, Hub};
use crate::request::variant_of;
use crate::responses::{Exports, ReplayedGame, RulesOutcome};
use axum::http::HeaderMap;
use tsubame_notation::record::{
    GameResult, Record, RecordMove, end_reason_from_name, write_kif, write_pgn,
};
use tsubame_rules::{EndReason, Outcome, Variant};

/// The refusal of a line's move by the rules: which move (counted from 1) and why.
pub(crate) fn move_refused(index: usize, usi: &str, error: &impl std::fmt::Display) -> ApiError {
    ApiError::rules(format!("move {} ({usi}): {error}", index + 1))
        .code("rules.move-refused")
        .param("number", index + 1)
        .param("move", usi)
        .param("detail", error)
}

/// A record in every export form, with the position after each ply for replay.
pub(crate) fn record_of(
    game_start: &HostedGame,
    moves: &[String],
) -> Result<ReplayedGame, ApiError> {
    record_exported(game_start, moves, |outcome| {
        export_texts(
            game_start,
            moves,
            outcome.map(|o| (GameResult::from_outcome(o), Some(o.reason))),
            &RecordTags::default(),
        )
    })
}

/// [`record_of`] with the export forms `exports` writes, given how the rules ended the game
/// (if they did): for a record whose result, players and times say more than its moves. Each
/// form is written once: writing them is most of a replay's work.
pub(crate) fn record_exported(
    game_start: &HostedGame,
    moves: &[String],
    exports: impl FnOnce(Option<Outcome>) -> Exports,
) -> Result<ReplayedGame, ApiError> {
    let mut walk = game_start.clone();
    let mut positions = vec![walk.sfen()];
    let mut checks = vec![walk.check_square()];
    let mut gives_check = Vec::new();
    let mut hodges = Vec::new();
    let mut removed = Vec::new();
    let mut japanese = Vec::new();
    let mut short = Vec::new();
    for (index, usi) in moves.iter().enumerate() {
        let played = walk.play(usi).map_err(|e| move_refused(index, usi, &e))?;
        positions.push(walk.sfen());
        checks.push(walk.check_square());
        gives_check.push(played.check);
        hodges.push(played.hodges);
        removed.push(played.removed);
        japanese.extend(played.japanese);
        short.extend(played.short);
    }
    let start = game_start.start_sfen();
    let usi_record = if moves.is_empty() {
        format!("sfen {start}")
    } else {
        format!("sfen {start} moves {}", moves.join(" "))
    };
    let hodges_text = hodges
        .chunks(2)
        .enumerate()
        .map(|(n, pair)| format!("{}. {}", n + 1, pair.join(" ")))
        .collect::<Vec<_>>()
        .join("\n");
    let variant = game_start.variant();
    let (files, ranks) = variant.board_size();
    let outcome = walk.outcome();
    Ok(ReplayedGame {
        variant: variant.name().to_string(),
        files,
        ranks,
        options: game_start.options_text(),
        start_sfen: start,
        usi: moves.to_vec(),
        usi_record,
        hodges,
        hodges_text,
        japanese: (japanese.len() == moves.len() && !moves.is_empty()).then_some(japanese),
        short: (short.len() == moves.len() && !moves.is_empty()).then_some(short),
        removed,
        positions,
        checks,
        gives_check,
        fen: (variant == Variant::Tori).then(|| walk.fen()),
        start_fen: (variant == Variant::Tori).then(|| game_start.start_fen()),
        outcome: outcome.map(|o| RulesOutcome {
            winner: o.winner.map(|c| {
                if c == tsubame_rules::Color::Sente {
                    "sente"
                } else {
                    "gote"
                }
            }),
            reason: o.reason.name(),
        }),
        legal_moves: walk.legal_moves(),
        sfen: walk.sfen(),
        exports: exports(outcome),
    })
}

/// The game in the notation library's formats: its canonical record, and for Tori the KIF and
/// the play site's PGN (a form a format cannot hold, such as a Wa KIF, is `null`). `end` is
/// the result to write, when the game has one.
pub(crate) fn export_texts(
    game_start: &HostedGame,
    moves: &[String],
    end: Option<(GameResult, Option<EndReason>)>,
    tags: &RecordTags,
) -> Exports {
    export_texts_timed(game_start, moves, &[], end, tags)
}

/// [`export_texts`] with each move's thinking time (KIF writes it), in milliseconds.
pub(crate) fn export_texts_timed(
    game_start: &HostedGame,
    moves: &[String],
    thinks: &[u64],
    end: Option<(GameResult, Option<EndReason>)>,
    tags: &RecordTags,
) -> Exports {
    let start = game_start.start_sfen();
    let mut record = Record::new(game_start.options().clone());
    record.sente = tags.sente.clone();
    record.gote = tags.gote.clone();
    record.date = tags.date.clone();
    record.time_control = tags.time_control.clone();
    record.extra_tags = tags.more.clone();
    let default_start = HostedGame::new(game_start.variant(), &game_start.options_text(), None)
        .map(|game| game.start_sfen());
    if default_start.ok().as_deref() != Some(start.as_str()) {
        record.start_sfen = Some(start);
    }
    record.moves = moves
        .iter()
        .enumerate()
        .map(|(index, usi)| RecordMove {
            usi: usi.clone(),
            comment: None,
            think_ms: thinks.get(index).copied(),
        })
        .collect();
    if let Some((result, reason)) = end {
        record.result = result;
        record.reason = reason;
    }
    Exports {
        record: record.to_canonical().ok(),
        kif: write_kif(&record).ok(),
        pgn: write_pgn(&record).ok(),
    }
}

/// What a record says of its game besides the moves: the players, the day, the clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordTags {
    /// Sente's name.
    pub(crate) sente: Option<String>,
    /// Gote's name.
    pub(crate) gote: Option<String>,
    /// The day it was played (`2026.11.26`).
    pub(crate) date: Option<String>,
    /// The clock (`600+30b`).
    pub(crate) time_control: Option<String>,
    /// The other tags: `Event`, `Site`, the time of day (`UTCTime`), the end (`EndDate`,
    /// `EndTime`), as PGN writes them and KIF reads them (棋戦, 場所, 開始日時, 終了日時).
    pub(crate) more: Vec<(String, String)>,
}

impl RecordTags {
    /// A game's tags as the site played it: its players, its clock, what it was (`Rated Tori
    /// shogi game`), where (`site`, the game's address), and when it started and ended (UTC).
    pub(crate) fn of_game(
        names: [&str; 2],
        control: &crate::clock::TimeControl,
        rated: bool,
        variant: Variant,
        site: Option<String>,
        created_at: u64,
        finished_at: Option<u64>,
    ) -> RecordTags {
        let mut more = vec![(
            "Event".to_string(),
            format!(
                "{} {} game",
                if rated { "Rated" } else { "Casual" },
                variant.spec().title
            ),
        )];
        if let Some(site) = site {
            more.push(("Site".into(), site));
        }
        more.push(("UTCTime".into(), record_time(created_at)));
        if let Some(end) = finished_at {
            more.push(("EndDate".into(), record_date(end)));
            more.push(("EndTime".into(), record_time(end)));
        }
        RecordTags {
            sente: Some(names[0].to_string()),
            gote: Some(names[1].to_string()),
            date: Some(record_date(created_at)),
            time_control: record_time_control(control),
            more,
        }
    }
}

/// A time of day as records write it (`19:05:00`, UTC) from unix milliseconds.
fn record_time(unix_ms: u64) -> String {
    let seconds = unix_ms / 1000 % 86_400;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// A game's address on this site, as a record's `Site`: the host the request named (where
/// it is a plain host name), over https when a trusted proxy says the request came so.
pub(crate) fn game_address(
    hub: &Hub,
    peer: std::net::SocketAddr,
    headers: &HeaderMap,
    id: &str,
) -> Option<String> {
    let host = headers.get(axum::http::header::HOST)?.to_str().ok()?;
    if host.is_empty()
        || host.len() > 255
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    {
        return None;
    }
    let https = hub.settings().connections.is_proxy(peer.ip())
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"));
    Some(format!(
        "{}://{host}/game/{id}",
        if https { "https" } else { "http" }
    ))
}

/// A day as records write it (`2026.11.26`, UTC) from unix milliseconds.
fn record_date(unix_ms: u64) -> String {
    // Days to a civil date, as in Howard Hinnant's `civil_from_days`.
    let days = (unix_ms / 86_400_000) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// A clock as records write it: `600+30b` (byo-yomi), `300+5` (an increment); none without one.
fn record_time_control(control: &crate::clock::TimeControl) -> Option<String> {
    use crate::clock::TimeControl;
    match *control {
        TimeControl::Unlimited => None,
        TimeControl::Byoyomi {
            main_ms, period_ms, ..
        } => Some(format!("{}+{}b", main_ms / 1000, period_ms / 1000)),
        TimeControl::Fischer {
            main_ms,
            increment_ms,
        } => Some(format!("{}+{}", main_ms / 1000, increment_ms / 1000)),
        TimeControl::Correspondence { days_per_move } => Some(format!("{days_per_move}d")),
    }
}

/// The server's result of a game as a record's result and reason (an aborted game has none).
pub(crate) fn record_end(
    result: Option<&crate::hub::GameResult>,
) -> Option<(GameResult, Option<EndReason>)> {
    let result = result?;
    if result.reason == GameEndReason::Aborted.name() {
        return None;
    }
    let reason = end_reason_from_name(&result.reason);
    let winner = match result.winner {
        Some("sente") => GameResult::SenteWins,
        Some("gote") => GameResult::GoteWins,
        _ => GameResult::NoWinner,
    };
    Some((winner, reason))
}

/// A stored, finished game's records (the site's own text, KIF and PGN where they hold the
/// game), with its players, event, address (`site`), times, clock, moves with their thinking
/// times, and result; `None` for a game whose rules or moves no longer replay (it is left out
/// of a download rather than failing it).
pub(crate) fn stored_record_exports(
    row: &crate::store::GameRow,
    moves: &[(String, u64)],
    site: Option<String>,
) -> Option<Exports> {
    let variant = variant_of(&row.variant).ok()?;
    let start = HostedGame::new(variant, &row.options, Some(&row.start_sfen)).ok()?;
    let control: crate::clock::TimeControl = serde_json::from_str(&row.time_control).ok()?;
    let tags = RecordTags::of_game(
        [&row.names[0], &row.names[1]],
        &control,
        row.rated,
        variant,
        site,
        row.created_at.max(0) as u64,
        row.finished_at.map(|at| at.max(0) as u64),
    );
    let result = row.reason.as_ref().map(|reason| crate::hub::GameResult {
        winner: match row.winner.as_deref() {
            Some("sente") => Some("sente"),
            Some("gote") => Some("gote"),
            _ => None,
        },
        reason: reason.clone(),
    });
    let (usis, thinks): (Vec<String>, Vec<u64>) = moves.iter().cloned().unzip();
    Some(export_texts_timed(
        &start,
        &usis,
        &thinks,
        record_end(result.as_ref()),
        &tags,
    ))
}

/// A live game's start, as a hosted game of its variant and options, and its moves as USI
/// text: what a record or an analysis replays.
pub(crate) fn start_and_moves(live: &LiveGame) -> Result<(HostedGame, Vec<String>), ApiError> {
    let start = HostedGame::new(
        live.rules_game().variant(),
        &live.rules_game().options_text(),
        Some(&live.rules_game().start_sfen()),
    )
    .map_err(|e| ApiError::internal(e.to_string()))?;
    let moves = live.moves().iter().map(|m| m.played.usi.clone()).collect();
    Ok((start, moves))
}

#[cfg(test)]
mod tests {
    use super::record_date;

    #[test]
    fn record_dates_are_civil_days() {
        assert_eq!(record_date(0), "1970.01.01");
        // 2024-02-29, a leap day, at noon; and the last millisecond of 2025.
        assert_eq!(record_date(1_709_208_000_000), "2024.02.29");
        assert_eq!(record_date(1_767_225_599_999), "2025.12.31");
    }
}
