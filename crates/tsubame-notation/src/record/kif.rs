//! KIF, the Japanese kifu format, for Tori shogi.

use super::canonical::decided_by_moves;
use super::replay::default_start;
use super::replay::{Reader, WrittenMove, resolve};
use super::{GameResult, MoveNotation, Record, RecordError, RecordErrorKind, RecordMove};
use tsubame_rules::{EndReason, Options, tori};

const FILE_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const RANK_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const MOVES_HEADER: &str = "手数----指手---------消費時間--";

/// The handicap option values and their KIF names.
const HANDICAPS: [(&str, &str); 5] = [
    ("none", "平手"),
    ("left-quail", "左鶉落ち"),
    ("falcon", "鷹落ち"),
    ("falcon-left-quail", "鷹左鶉落ち"),
    ("falcon-both-quails", "鷹両鶉落ち"),
];

/// The closing words of a KIF game and the end they stand for.
const ENDINGS: [(&str, EndReason); 4] = [
    ("投了", EndReason::Resignation),
    ("詰み", EndReason::Checkmate),
    ("切れ負け", EndReason::Time),
    ("千日手", EndReason::Repetition),
];

/// The comment that records a resignation made on the opponent's turn (`*後手投了`).
const OFF_TURN_RESIGNATION: &str = "投了";

/// A time control as KIF's 持ち時間 line writes it: `600+30b` (byo-yomi) as `10分+30秒`,
/// `300+5` (an increment) as `5分+5秒加算`; another form as it is.
fn kif_time_control(control: &str) -> String {
    let seconds = |text: &str| text.parse::<u64>().ok();
    let minutes = |total: u64| {
        if total.is_multiple_of(60) {
            format!("{}分", total / 60)
        } else {
            format!("{total}秒")
        }
    };
    match control.split_once('+') {
        Some((main, period)) if period.ends_with('b') => {
            match (seconds(main), seconds(period.trim_end_matches('b'))) {
                (Some(main), Some(period)) => format!("{}+{period}秒", minutes(main)),
                _ => control.to_string(),
            }
        }
        Some((main, increment)) => match (seconds(main), seconds(increment)) {
            (Some(main), Some(increment)) => format!("{}+{increment}秒加算", minutes(main)),
            _ => control.to_string(),
        },
        None => control.to_string(),
    }
}

/// A 持ち時間 line read back into the record's form (`10分+30秒` → `600+30b`); a form it does
/// not know is kept as written.
fn time_control_of_kif(text: &str) -> String {
    let amount = |part: &str| -> Option<u64> {
        if let Some(m) = part.strip_suffix('分') {
            m.trim().parse::<u64>().ok().map(|m| m * 60)
        } else {
            part.strip_suffix('秒')?.trim().parse().ok()
        }
    };
    let Some((main, rest)) = text.split_once('+') else {
        return text.to_string();
    };
    let (rest, increment) = match rest.strip_suffix("加算") {
        Some(rest) => (rest, true),
        None => (rest, false),
    };
    match (amount(main.trim()), amount(rest.trim())) {
        (Some(main), Some(extra)) if increment => format!("{main}+{extra}"),
        (Some(main), Some(extra)) => format!("{main}+{extra}b"),
        _ => text.to_string(),
    }
}

fn unsupported(text: &str) -> RecordError {
    RecordError::at(0, 0, RecordErrorKind::Unsupported(text.to_string()))
}

fn square_text(file: u8, rank: u8) -> Option<String> {
    let f = FILE_DIGITS.get(usize::from(file).checked_sub(1)?)?;
    let r = RANK_NUMERALS.get(usize::from(rank))?;
    Some(format!("{f}{r}"))
}

/// Writes a Tori shogi record as KIF (UTF-8): a header with the event (棋戦, from the
/// `Event` tag), place (場所, `Site`), start (開始日時: the date with `Time` or `UTCTime`), end
/// (終了日時: `EndDate`, `EndTime`), clock, handicap and players, the numbered moves (`３三燕(34)`,
/// `同　鷹(45)`, `４四燕打`, `３一燕成(32)`), each with its time and its player's total where
/// the record has them (`( 0:03/00:00:07)`), with `*` comment lines, and the closing line
/// (`まで41手で先手の勝ち`). Only games from the start
/// position of their options can be written.
pub fn write_kif(record: &Record) -> Result<String, RecordError> {
    if record.variant().name != tori::spec().name {
        return Err(unsupported("KIF is written for Tori shogi only"));
    }
    let replay = record.replay()?;
    if replay.start_sfen != default_start(record)? {
        return Err(unsupported(
            "KIF cannot hold a game from a set-up position; use the record format",
        ));
    }
    let handicap = record.options.get("handicap").unwrap_or_default();
    let handicap_name = HANDICAPS
        .iter()
        .find(|(name, _)| *name == handicap)
        .map_or("平手", |(_, kif)| kif);
    let others: Vec<String> = record
        .options
        .iter()
        .filter(|(name, value)| {
            *name != "handicap"
                && record
                    .options
                    .variant()
                    .option(name)
                    .is_some_and(|o| o.values.first().is_none_or(|d| d.name != value.as_str()))
        })
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    if !others.is_empty() {
        return Err(unsupported(&format!(
            "KIF cannot hold the rule options {}; use the record format",
            others.join(",")
        )));
    }
    let mut out = String::new();
    out.push_str("#KIF version=2.0 encoding=UTF-8\n");
    out.push_str("#禽将棋\n");
    let tag = |name: &str| {
        record
            .extra_tag(name)
            .filter(|v| !v.is_empty() && *v != "?")
    };
    if let Some(event) = tag("Event") {
        out.push_str(&format!("棋戦：{event}\n"));
    }
    if let Some(site) = tag("Site") {
        out.push_str(&format!("場所：{site}\n"));
    }
    if let Some(date) = &record.date {
        let time = tag("Time").or_else(|| tag("UTCTime"));
        out.push_str(&format!("開始日時：{}\n", kif_date_time(date, time)));
    }
    if let Some(date) = tag("EndDate") {
        out.push_str(&format!(
            "終了日時：{}\n",
            kif_date_time(date, tag("EndTime"))
        ));
    }
    if let Some(control) = &record.time_control {
        out.push_str(&format!("持ち時間：{}\n", kif_time_control(control)));
    }
    out.push_str(&format!("手合割：{handicap_name}\n"));
    if let Some(sente) = &record.sente {
        out.push_str(&format!("先手：{sente}\n"));
    }
    if let Some(gote) = &record.gote {
        out.push_str(&format!("後手：{gote}\n"));
    }
    if let Some(comment) = &record.comment {
        out.push_str(&format!("*{comment}\n"));
    }
    out.push_str(MOVES_HEADER);
    out.push('\n');
    let mut previous_to = None;
    let mut totals = [0u64; 2];
    // The replay has checked every move: walking them again needs only the board.
    let mut position = tsubame_rules::Position::from_sfen(
        tori::tables(),
        &replay.start_sfen,
        record.options.rule_set(),
    )
    .map_err(|e| unsupported(&e.to_string()))?;
    for (index, step) in replay.steps.iter().enumerate() {
        let mv = position
            .parse_usi(&step.usi)
            .map_err(|e| unsupported(&e.to_string()))?;
        let text = write_kif_move(&position, mv, previous_to)
            .ok_or_else(|| unsupported("KIF squares go up to 9"))?;
        previous_to = Some(mv.to());
        position.make_move(mv);
        match record.moves.get(index).and_then(|m| m.think_ms) {
            Some(think) => {
                // Each player's total so far beside the move's own time, as KIF writes them.
                let total = &mut totals[index % 2];
                *total += think;
                let pad = 14usize.saturating_sub(display_width(&text));
                out.push_str(&format!(
                    "{:>4} {text}{} ({}/{})\n",
                    index + 1,
                    " ".repeat(pad),
                    minutes_seconds(think),
                    hours_minutes_seconds(*total)
                ));
            }
            None => out.push_str(&format!("{:>4} {text}\n", index + 1)),
        }
        if let Some(comment) = record.moves.get(index).and_then(|m| m.comment.as_ref()) {
            out.push_str(&format!("*{comment}\n"));
        }
    }
    let plies = replay.steps.len();
    // KIF's ending line speaks for the side to move: `41 投了` is the 41st move's player
    // resigning, and readers give the game to the other side. A resignation made on the
    // opponent's turn is no such move: it is written as a comment on the last move instead,
    // and the closing line names the winner.
    let to_move_is_sente = replay.final_sfen.split_whitespace().nth(1) != Some("w");
    let winner_is_sente = match record.result {
        GameResult::SenteWins => Some(true),
        GameResult::GoteWins => Some(false),
        _ => None,
    };
    let off_turn_resignation =
        record.reason == Some(EndReason::Resignation) && winner_is_sente == Some(to_move_is_sente);
    if off_turn_resignation {
        let loser = if to_move_is_sente { "後手" } else { "先手" };
        out.push_str(&format!("*{loser}{OFF_TURN_RESIGNATION}\n"));
    } else if let Some((word, _)) = record
        .reason
        .and_then(|r| ENDINGS.iter().find(|(_, reason)| *reason == r))
    {
        out.push_str(&format!("{:>4} {word}\n", plies + 1));
    }
    match record.result {
        GameResult::SenteWins => out.push_str(&format!("まで{plies}手で先手の勝ち\n")),
        GameResult::GoteWins => out.push_str(&format!("まで{plies}手で後手の勝ち\n")),
        GameResult::NoWinner => out.push_str(&format!("まで{plies}手で引き分け\n")),
        GameResult::Unfinished => {}
    }
    Ok(out)
}

/// One move as KIF writes it: the destination (`３三`, or `同　` when it is the square the
/// previous move went to), the piece's kanji, `成` for a promotion, and where it came from
/// (`(34)`) or `打` for a drop: `３三燕(34)`, `同　鷹(45)`, `４四燕打`, `３一燕成(32)`.
/// `None` on a board wider or longer than nine squares, which KIF cannot name.
///
/// ```
/// use tsubame_notation::record::write_kif_move;
/// use tsubame_rules::{tori, Options, Position};
///
/// let rules = Options::defaults(tori::spec()).rule_set();
/// let position = Position::from_sfen(tori::tables(), tori::spec().start_sfen, rules).unwrap();
/// let mv = position.parse_usi("3d3c").unwrap();
/// assert_eq!(write_kif_move(&position, mv, None).as_deref(), Some("３三燕(34)"));
/// ```
pub fn write_kif_move<B: tsubame_rules::Bitboard>(
    position: &tsubame_rules::Position<B>,
    mv: tsubame_rules::Move,
    previous_to: Option<tsubame_rules::Square>,
) -> Option<String> {
    let geometry = position.tables().geometry;
    let spec = position.tables().spec;
    let to = mv.to();
    let mut text = if previous_to == Some(to) {
        "同　".to_string()
    } else {
        square_text(geometry.file(to), geometry.rank(to))?
    };
    match mv.kind() {
        tsubame_rules::MoveKind::Normal { from, promote, .. } => {
            if geometry.file(from) > 9 || geometry.rank(from) >= 9 {
                return None;
            }
            let role = position.piece_at(from).map(|p| p.role);
            text.push_str(role.map_or("?", |r| spec.role(r).kanji));
            if promote {
                text.push('成');
            }
            text.push_str(&format!(
                "({}{})",
                geometry.file(from),
                geometry.rank(from) + 1
            ));
        }
        tsubame_rules::MoveKind::Drop { role, .. }
        | tsubame_rules::MoveKind::Exchange { role, .. } => {
            text.push_str(spec.role(role).kanji);
            text.push('打');
        }
    }
    Some(text)
}

/// Decodes KIF bytes: UTF-8, or else Shift-JIS.
fn decode(bytes: &[u8]) -> Result<String, RecordError> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(text.trim_start_matches('\u{feff}').to_string());
    }
    let (text, _, had_errors) = encoding_rs::SHIFT_JIS.decode(bytes);
    if had_errors {
        return Err(RecordError::at(0, 0, RecordErrorKind::Encoding));
    }
    Ok(text.into_owned())
}

/// Reads a Tori shogi KIF record, UTF-8 or Shift-JIS. Header lines (`開始日時`, `手合割`,
/// `先手`, `後手`, and `棋戦`, `場所`, `終了日時` as the tags `Event`, `Site`, `EndDate` and
/// `EndTime`; a start's time of day as `Time`) fill the record; `*` lines are comments; the
/// time after a move is its [`RecordMove::think_ms`](super::RecordMove::think_ms). Every move is replayed through the rules, and an error names its line.
///
/// ```
/// use tsubame_notation::record::read_kif;
///
/// let kif = "手合割：平手\n手数----指手---------消費時間--\n   1 ３三燕(34)\n   2 ５五燕(54)\n   3 同　鷹(46)\n";
/// let record = read_kif(kif.as_bytes()).unwrap();
/// assert_eq!(record.moves[2].usi, "4f5e");
/// ```
pub fn read_kif(bytes: &[u8]) -> Result<Record, RecordError> {
    read_kif_with(bytes, None)
}

/// Reads a KIF record like [`read_kif`], replaying it under `rules` (when given) instead of
/// the defaults; its handicap stays the one its 手合割 line sets.
pub fn read_kif_with(bytes: &[u8], rules: Option<&Options>) -> Result<Record, RecordError> {
    let text = decode(bytes)?;
    let spec = tori::spec();
    let mut options = Options::defaults(spec);
    let mut record_fields: Vec<(&str, String)> = Vec::new();
    let mut game_comment: Option<String> = None;
    let mut moves: Vec<WrittenMove> = Vec::new();
    // Each move's 消費時間, where written.
    let mut thinks: Vec<Option<u64>> = Vec::new();
    // 棋戦, 場所, the start's time of day and the end: kept as the record's other tags.
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut in_moves = false;
    let mut previous_to: Option<String> = None;
    let mut ending: Option<(EndReason, usize)> = None;
    let mut result: Option<GameResult> = None;
    let geometry = tori::tables().geometry;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |column: usize, what: String| {
            RecordError::at(number, column, RecordErrorKind::Unexpected(what))
        };
        if let Some(comment) = line.strip_prefix('*') {
            let slot = match moves.last_mut() {
                Some(last) => &mut last.comment,
                None => &mut game_comment,
            };
            match slot {
                Some(existing) => {
                    existing.push(' ');
                    existing.push_str(comment.trim());
                }
                None => *slot = Some(comment.trim().to_string()),
            }
            continue;
        }
        if line.starts_with("変化") {
            // Variations follow the main line; only the game itself is read.
            break;
        }
        if line.starts_with("手数") {
            in_moves = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("まで") {
            result = Some(
                if rest.contains("先手の勝ち") || rest.contains("下手の勝ち") {
                    GameResult::SenteWins
                } else if rest.contains("後手の勝ち") || rest.contains("上手の勝ち") {
                    GameResult::GoteWins
                } else {
                    GameResult::NoWinner
                },
            );
            continue;
        }
        if !in_moves {
            let Some((key, value)) = line.split_once('：').or_else(|| line.split_once(':')) else {
                return Err(fail(1, format!("header line {line:?} without '：'")));
            };
            let value = value.trim().to_string();
            match key.trim() {
                "手合割" => {
                    let handicap = HANDICAPS
                        .iter()
                        .find(|(_, kif)| *kif == value)
                        .map(|(name, _)| *name)
                        .ok_or_else(|| fail(1, format!("unknown handicap {value:?}")))?;
                    options.set("handicap", handicap).map_err(|e| {
                        RecordError::at(number, 0, RecordErrorKind::BadOption(e.to_string()))
                    })?;
                }
                "開始日時" => {
                    let (day, time) = split_date_time(&value);
                    record_fields.push(("date", day));
                    if let Some(time) = time {
                        tags.push(("Time".into(), time));
                    }
                }
                "終了日時" => {
                    let (day, time) = split_date_time(&value);
                    tags.push(("EndDate".into(), day));
                    if let Some(time) = time {
                        tags.push(("EndTime".into(), time));
                    }
                }
                "棋戦" => tags.push(("Event".into(), value)),
                "場所" => tags.push(("Site".into(), value)),
                "持ち時間" => record_fields.push(("time_control", time_control_of_kif(&value))),
                "先手" | "下手" => record_fields.push(("sente", value)),
                "後手" | "上手" => record_fields.push(("gote", value)),
                _ => {}
            }
            continue;
        }
        // A move line: number, move, and perhaps the time used.
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return Err(fail(1, format!("{line:?} is not a numbered move")));
        }
        let body = line.get(digits..).unwrap_or("").trim_start();
        let column = raw.chars().count() - raw.trim_start().chars().count()
            + digits
            + (line.chars().count() - digits - body.chars().count())
            + 1;
        let full = body.trim_end();
        if let Some((_, reason)) = ENDINGS.iter().find(|(word, _)| full.starts_with(word)) {
            ending = Some((*reason, number));
            continue;
        }
        if full.is_empty() {
            return Err(fail(column, "empty move".into()));
        }
        let usi = kif_move_to_usi(full, &mut previous_to, geometry)
            .map_err(|what| fail(column, what.to_string()))?;
        moves.push(WrittenMove {
            text: usi,
            line: number,
            column,
            comment: None,
        });
        thinks.push(think_ms_of(full));
    }
    let options = super::with_rules(options, rules, 1)?;
    let mut record = Record::new(options);
    record.extra_tags = tags;
    for (field, value) in record_fields {
        match field {
            "date" => record.date = Some(value),
            "time_control" => record.time_control = Some(value),
            "sente" => record.sente = Some(value),
            _ => record.gote = Some(value),
        }
    }
    let resolved = resolve(&record.options, None, &moves, Reader::UsiOrHodges, 1)?;
    record.comment = game_comment;
    record.notation = MoveNotation::Hodges;
    record.moves = resolved
        .usi
        .into_iter()
        .zip(moves)
        .zip(thinks)
        .map(|((usi, written), think_ms)| RecordMove {
            usi,
            comment: written.comment,
            think_ms,
        })
        .collect();
    let outcome = resolved.replay.outcome;
    // The side to move after the last move: the one an ending line speaks for.
    let to_move_is_sente = resolved.replay.final_sfen.split_whitespace().nth(1) != Some("w");
    let side_to_move_loses = if to_move_is_sente {
        GameResult::GoteWins
    } else {
        GameResult::SenteWins
    };
    // A resignation on the opponent's turn: the comment this writer leaves on the last move.
    // It is the last comment line, joined to any comment before it with a space.
    let marker = |side: &str| format!("{side}{OFF_TURN_RESIGNATION}");
    let off_turn = record.moves.last().and_then(|last| {
        let comment = last.comment.as_deref()?;
        [
            ("先手", GameResult::GoteWins),
            ("後手", GameResult::SenteWins),
        ]
        .into_iter()
        .find(|(side, _)| {
            let marker = marker(side);
            comment == marker || comment.ends_with(&format!(" {marker}"))
        })
    });
    if let Some((side, _)) = off_turn
        && let Some(last) = record.moves.last_mut()
        && let Some(comment) = &last.comment
    {
        let kept = comment
            .strip_suffix(&marker(side))
            .unwrap_or(comment)
            .trim_end()
            .to_string();
        last.comment = (!kept.is_empty()).then_some(kept);
    }
    let off_turn = off_turn.map(|(_, result)| result);
    // 投了 and 切れ負け: the side to move lost. An ending the moves decide (詰み, 千日手) is
    // the rules' to judge, from the replay.
    let from_ending = ending
        .filter(|(reason, _)| !decided_by_moves(*reason))
        .map(|_| side_to_move_loses);
    record.reason = ending
        .map(|(r, _)| r)
        .or(off_turn.map(|_| EndReason::Resignation))
        .or(outcome.map(|o| o.reason));
    record.result = result
        .or(from_ending)
        .or(off_turn)
        .or(outcome.map(GameResult::from_outcome))
        .unwrap_or(GameResult::Unfinished);
    if let (Some((reason, line)), Some(outcome)) = (ending, outcome)
        && decided_by_moves(reason)
        && reason != outcome.reason
    {
        return Err(RecordError::at(
            line,
            0,
            RecordErrorKind::ResultMismatch {
                written: reason.name().to_string(),
                actual: outcome.to_string(),
            },
        ));
    }
    Ok(record)
}

/// Why one KIF move could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum KifMoveError {
    #[error("'同' on the first move")]
    SameOnFirstMove,
    #[error("missing destination")]
    MissingDestination,
    #[error("missing destination rank")]
    MissingDestinationRank,
    #[error("bad file {0:?}")]
    BadFile(char),
    #[error("bad rank {0:?}")]
    BadRank(char),
    #[error("{0} is off the 7x7 board")]
    OffBoard(String),
    #[error("unknown piece in {0:?}")]
    UnknownPiece(String),
    #[error("a promoted {0} cannot be dropped")]
    PromotedDrop(&'static str),
    #[error("missing start square '(..)' in {0:?}")]
    MissingStart(String),
    #[error("bad start square ({0})")]
    BadStart(String),
    #[error("start square ({0}) is off the board")]
    StartOffBoard(String),
    #[error("unexpected {0:?} after the move")]
    Trailing(String),
}

/// One KIF move (`３三燕(34)`, `同　鷹(45)`, `４四燕打`, `３一燕成(32)`) as USI text.
fn kif_move_to_usi(
    text: &str,
    previous_to: &mut Option<String>,
    geometry: tsubame_rules::Geometry,
) -> Result<String, KifMoveError> {
    let spec = tori::spec();
    let mut rest = text;
    let to = if let Some(after) = rest.strip_prefix('同') {
        rest = after.trim_start_matches(['　', ' ']);
        previous_to.clone().ok_or(KifMoveError::SameOnFirstMove)?
    } else {
        let mut chars = rest.chars();
        let file_char = chars.next().ok_or(KifMoveError::MissingDestination)?;
        let rank_char = chars.next().ok_or(KifMoveError::MissingDestinationRank)?;
        let file = FILE_DIGITS
            .iter()
            .position(|&c| c == file_char)
            .or_else(|| {
                file_char
                    .to_digit(10)
                    .and_then(|d| usize::try_from(d).ok()?.checked_sub(1))
            })
            .ok_or(KifMoveError::BadFile(file_char))?;
        let rank = RANK_NUMERALS
            .iter()
            .position(|&c| c == rank_char)
            .ok_or(KifMoveError::BadRank(rank_char))?;
        let (file, rank) = (
            u8::try_from(file + 1).map_err(|_| KifMoveError::BadFile(file_char))?,
            u8::try_from(rank).map_err(|_| KifMoveError::BadRank(rank_char))?,
        );
        let square = geometry
            .square(file, rank)
            .ok_or_else(|| KifMoveError::OffBoard(format!("{file_char}{rank_char}")))?;
        rest = chars.as_str();
        geometry.name(square).to_string()
    };
    // The longest kanji first, so that 左鶉 is not read as something shorter.
    let mut roles: Vec<&tsubame_rules::RoleSpec> = spec.roles.iter().collect();
    roles.sort_by_key(|r| std::cmp::Reverse(r.kanji.chars().count()));
    let role = roles
        .into_iter()
        .find(|r| rest.starts_with(r.kanji))
        .ok_or_else(|| KifMoveError::UnknownPiece(text.to_string()))?;
    rest = rest.get(role.kanji.len()..).unwrap_or("");
    let promote = if let Some(after) = rest.strip_prefix("不成") {
        rest = after;
        false
    } else if let Some(after) = rest.strip_prefix('成') {
        rest = after;
        true
    } else {
        false
    };
    let usi = if let Some(after) = rest.strip_prefix('打') {
        rest = after;
        if role.promoted_from.is_some() {
            return Err(KifMoveError::PromotedDrop(role.name));
        }
        format!("{}*{to}", role.sfen)
    } else {
        let inside = rest
            .strip_prefix('(')
            .and_then(|r| r.split_once(')'))
            .ok_or_else(|| KifMoveError::MissingStart(text.to_string()))?;
        rest = inside.1;
        let digits: Vec<u32> = inside.0.chars().filter_map(|c| c.to_digit(10)).collect();
        let [file, rank] = digits.as_slice() else {
            return Err(KifMoveError::BadStart(inside.0.to_string()));
        };
        let from = geometry
            .square(
                u8::try_from(*file).map_err(|_| KifMoveError::BadStart(inside.0.to_string()))?,
                rank.checked_sub(1)
                    .and_then(|rank| u8::try_from(rank).ok())
                    .ok_or_else(|| KifMoveError::BadStart(inside.0.to_string()))?,
            )
            .ok_or_else(|| KifMoveError::StartOffBoard(inside.0.to_string()))?;
        format!(
            "{}{to}{}",
            geometry.name(from),
            if promote { "+" } else { "" }
        )
    };
    let trailing = rest.trim();
    if !trailing.is_empty() && !trailing.starts_with('(') {
        return Err(KifMoveError::Trailing(trailing.to_string()));
    }
    *previous_to = Some(to);
    Ok(usi)
}

/// A KIF date and time (`2026/11/30 19:05:00`) as a record's day (`2026.11.30`) and the time
/// of day, where written.
fn split_date_time(value: &str) -> (String, Option<String>) {
    let mut parts = value.split_whitespace();
    let day = parts.next().unwrap_or("").replace('/', ".");
    let time = parts
        .next()
        .filter(|t| t.chars().all(|c| c.is_ascii_digit() || c == ':'))
        .map(str::to_string);
    (day, time)
}

/// A record's day and time of day as KIF writes them: `2026/11/30 19:05:00`.
fn kif_date_time(day: &str, time: Option<&str>) -> String {
    let day = day.replace('.', "/");
    match time {
        Some(time) => format!("{day} {time}"),
        None => day,
    }
}

/// The time a KIF move line gives its move (`( 0:03/00:00:07)`: three seconds), if any.
fn think_ms_of(line: &str) -> Option<u64> {
    let open = line.rfind('(')?;
    let inside = line.get(open + 1..)?.split(')').next()?;
    let (own, _total) = inside.split_once('/')?;
    let mut seconds = 0u64;
    for part in own.trim().split(':') {
        seconds = seconds
            .checked_mul(60)?
            .checked_add(part.trim().parse().ok()?)?;
    }
    seconds.checked_mul(1000)
}

/// A move's time as KIF writes it: ` 0:03`, `12:40` (minutes and seconds, rounded down).
fn minutes_seconds(ms: u64) -> String {
    let seconds = ms / 1000;
    format!("{:>2}:{:02}", seconds / 60, seconds % 60)
}

/// A player's total time as KIF writes it: `00:01:07`.
fn hours_minutes_seconds(ms: u64) -> String {
    let seconds = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The width of a move's text in columns, full-width characters counting two, so that the
/// times line up.
fn display_width(text: &str) -> usize {
    text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}
