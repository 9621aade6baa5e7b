//! Self-play games kept as games: each game's start, its moves, the search's score at every
//! searched ply and the result. A position costs six bytes before compression (the labelled
//! positions of the first format, [`crate::data::Record`], take 83 a Tori position), every
//! ply is kept (captures, checks, the random opening), and the training positions are read
//! out of the games with the filter the generator has always applied: a searched ply whose
//! side is not in check and whose chosen move takes nothing.
//!
//! The file: a header, then games, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | `TSBGAME1` |
//! | 1 + n | the variant's short name, its length first |
//! | 2 + n | the rule options (`name=value,...`, empty for the defaults), their length first |
//!
//! and for each game:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | game number (u32) |
//! | 1 | result: 0 drawn, 1 sente won, 2 gote won |
//! | 2 + n | the start position as SFEN, its length first; empty for the game's own start |
//! | 2 | plies (u16) |
//! | 6 each | a ply: the move (4 bytes, [`encode_move`]) and the search's score for the side to move before it (i16, [`NOT_SEARCHED`] for a ply played without a search) |
//! | 2 | the score of the position after the last ply ([`NOT_SEARCHED`] when it has none) |
//!
//! One game number may have several entries: a game converted from the first format is cut
//! where the moves between two of its positions could not be found, and goes on from the
//! next position in an entry of its own.

use crate::positions::{DataError, MAX_SCORE, Record, io_error, read_position_file};
use std::collections::HashSet;
use tsubame_engine::nnue::Layout;
use tsubame_engine::search::Score;
use tsubame_rules::{
    Bitboard, Color, Game, Move, MoveKind, Options, Position, Role, Setup, Square, Tables, Variant,
};

/// The first bytes of a games file.
pub const MAGIC: &[u8; 8] = b"TSBGAME1";

/// The score of a ply played without a search (a random opening move, a move found again when
/// converting).
pub const NOT_SEARCHED: i16 = i16::MIN;

/// A ply: the move and, when it was searched, the search's score before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move played.
    pub mv: Move,
    /// The search's score for the side to move, centipawns within [`MAX_SCORE`]; none for a
    /// ply played without a search.
    pub score: Option<i16>,
}

/// One game as stored: where it starts, its plies and its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's number in its seed.
    pub game: u32,
    /// The winner; none for a draw (or a game stopped at the ply cap).
    pub winner: Option<Color>,
    /// The start position as SFEN; none for the game's own start under the file's options.
    pub start: Option<String>,
    /// The plies in order.
    pub plies: Vec<Ply>,
    /// The search's score of the position after the last ply, when it has one (a game
    /// converted from the first format ends at its last labelled position).
    pub final_score: Option<i16>,
}

/// A search's score as stored: centipawns within [`MAX_SCORE`], a mate as its bound.
pub fn stored_score(score: Score) -> i16 {
    (match score {
        Score::Centipawns(cp) => cp.clamp(-i32::from(MAX_SCORE), i32::from(MAX_SCORE)),
        Score::Mate(n) if n > 0 => i32::from(MAX_SCORE),
        Score::Mate(_) => -i32::from(MAX_SCORE),
    }) as i16
}

/// The header of a games file of these options.
pub fn header(options: &Options) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let name = options.variant().name.as_bytes();
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    let text = options.to_string();
    out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out
}

impl GameRecord {
    /// Appends the game's bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.game.to_le_bytes());
        out.push(match self.winner {
            None => 0,
            Some(Color::Sente) => 1,
            Some(Color::Gote) => 2,
        });
        let start = self.start.as_deref().unwrap_or("").as_bytes();
        out.extend_from_slice(&(start.len() as u16).to_le_bytes());
        out.extend_from_slice(start);
        out.extend_from_slice(&(self.plies.len() as u16).to_le_bytes());
        for ply in &self.plies {
            out.extend_from_slice(&encode_move(ply.mv));
            out.extend_from_slice(&ply.score.unwrap_or(NOT_SEARCHED).to_le_bytes());
        }
        out.extend_from_slice(&self.final_score.unwrap_or(NOT_SEARCHED).to_le_bytes());
    }

    /// Replays the game under `options` and gives its training positions: each searched ply
    /// whose side is not in check and whose move takes nothing, and the final position when
    /// it has a score. `Err` names the first ply the rules refuse.
    pub fn positions<B: Bitboard>(
        &self,
        tables: &'static Tables<B>,
        options: &Options,
    ) -> Result<Vec<Record>, String> {
        let layout = Layout::of_tables(tables);
        let result_for = |side: Color| match self.winner {
            None => 0,
            Some(winner) if winner == side => 1,
            Some(_) => -1,
        };
        let mut records = Vec::new();
        self.replay(tables, options, |position, score| {
            let side = position.side_to_move();
            records.push(Record::of(
                position,
                layout,
                self.game,
                score,
                result_for(side),
            ));
        })?;
        Ok(records)
    }

    /// How many training positions [`GameRecord::positions`] gives, counted without building
    /// them: a game with no network's layout (Tenjiku) is counted too.
    pub fn position_count<B: Bitboard>(
        &self,
        tables: &'static Tables<B>,
        options: &Options,
    ) -> Result<usize, String> {
        let mut count = 0;
        self.replay(tables, options, |_, _| count += 1)?;
        Ok(count)
    }

    /// Replays the game under `options`, calling `on_position` with each training position
    /// and its score (see [`GameRecord::positions`]); `Err` names the first ply refused.
    fn replay<B: Bitboard>(
        &self,
        tables: &'static Tables<B>,
        options: &Options,
        mut on_position: impl FnMut(&Position<B>, i16),
    ) -> Result<(), String> {
        let mut game = match &self.start {
            None => Game::new(tables, options.clone()),
            Some(sfen) => Game::from_sfen(tables, sfen, options.clone()),
        }
        .map_err(|e| format!("game {}: the start is refused: {e}", self.game))?;
        for (index, ply) in self.plies.iter().enumerate() {
            let position = game.position();
            if !position.is_legal(ply.mv) {
                return Err(format!(
                    "game {}: ply {} is no legal move",
                    self.game,
                    index + 1
                ));
            }
            if let Some(score) = ply.score
                && is_quiet_move(position, ply.mv)
            {
                on_position(position, score);
            }
            game.play(ply.mv)
                .map_err(|e| format!("game {}: ply {}: {e}", self.game, index + 1))?;
        }
        if let Some(score) = self.final_score {
            on_position(game.position(), score);
        }
        Ok(())
    }
}

/// A move as four bytes of the file, a layout of its own so that stored games outlast the
/// rules library's in-memory form: the destination square, the origin square (or the kind
/// placed from hand), the middle square of a two-step move, and flags (bits 0-1: 0 a move on
/// the board, 1 a drop, 2 an exchange; bit 2 promotes; bit 3 has a middle square; bit 4
/// declines a promotion the rules would otherwise force).
pub fn encode_move(mv: Move) -> [u8; 4] {
    let (to, from_or_role, kind, promote) = match mv.kind() {
        MoveKind::Normal { from, to, promote } => (to.index(), from.index(), 0, promote),
        MoveKind::Drop { role, to } => (to.index(), role.index(), 1, false),
        MoveKind::Exchange { role, square } => (square.index(), role.index(), 2, false),
    };
    let middle = mv.middle();
    let flags = kind
        | u8::from(promote) << 2
        | u8::from(middle.is_some()) << 3
        | u8::from(mv.declines()) << 4;
    // Boards have at most 256 squares and 256 kinds: each index fits a byte.
    [
        to as u8,
        from_or_role as u8,
        middle.map_or(0, |m| m.index() as u8),
        flags,
    ]
}

/// The move of four bytes written by [`encode_move`]; `None` for flags no move has.
pub fn decode_move(bytes: [u8; 4]) -> Option<Move> {
    let [to, from_or_role, middle, flags] = bytes;
    if flags >> 5 != 0 {
        return None;
    }
    let promote = flags & 4 != 0;
    let has_middle = flags & 8 != 0;
    let mv = match flags & 3 {
        0 if has_middle => Move::with_middle(
            Square::from_index(from_or_role),
            Square::from_index(middle),
            Square::from_index(to),
            promote,
        ),
        0 => Move::normal(
            Square::from_index(from_or_role),
            Square::from_index(to),
            promote,
        ),
        1 if !promote && !has_middle => Move::drop(Role(from_or_role), Square::from_index(to)),
        2 if !promote && !has_middle => Move::exchange(Role(from_or_role), Square::from_index(to)),
        _ => return None,
    };
    Some(if flags & 16 != 0 { mv.declining() } else { mv })
}

/// Whether a position and the move chosen in it make a training position: the side to move
/// is not in check and the move takes nothing.
pub fn is_quiet_move<B: Bitboard>(position: &Position<B>, mv: Move) -> bool {
    let captures =
        matches!(mv.kind(), MoveKind::Normal { to, .. } if position.piece_at(to).is_some());
    !captures && !position.in_check()
}

/// Reads little-endian values off the front of a byte slice; `None` past its end.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn i16(&mut self) -> Option<i16> {
        self.take(2).map(|b| i16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn text(&mut self, n: usize) -> Option<&'a str> {
        std::str::from_utf8(self.take(n)?).ok()
    }
}

/// A games file read: its options, its whole games, and where the last whole game ends (a
/// game cut short by a stop is left out).
pub struct GamesFile {
    /// The rule options the games were played under.
    pub options: Options,
    /// The whole games, in file order.
    pub games: Vec<GameRecord>,
    /// The length of the header and the whole games, in bytes.
    pub whole_length: usize,
}

/// Whether bytes begin as a games file.
pub fn is_games_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads a games file of `variant` from its bytes (`path` names it in errors). A last game
/// cut short is left out; a game whose fields hold what none does is an error naming where.
pub fn read_games(bytes: &[u8], path: &str, variant: Variant) -> Result<GamesFile, DataError> {
    if !is_games_file(bytes) {
        return Err(DataError::Magic(path.to_string()));
    }
    let mut cursor = Cursor { bytes, at: 8 };
    let damaged = |at: usize, what: &str| DataError::Damaged {
        path: path.to_string(),
        offset: at,
        what: what.to_string(),
    };
    let name_length = cursor.u8().ok_or_else(|| damaged(8, "no variant name"))?;
    let name = cursor
        .text(usize::from(name_length))
        .ok_or_else(|| damaged(9, "no variant name"))?;
    if Variant::from_name(name) != Some(variant) {
        return Err(DataError::Variant {
            path: path.to_string(),
            expected: variant.spec().name.to_string(),
            found: name.to_string(),
        });
    }
    let at = cursor.at;
    let options_length = cursor.u16().ok_or_else(|| damaged(at, "no rule options"))?;
    let options_text = cursor
        .text(usize::from(options_length))
        .ok_or_else(|| damaged(at, "no rule options"))?;
    let options = Options::parse(variant.spec(), options_text)
        .map_err(|e| damaged(at, &format!("rule options {options_text:?}: {e}")))?;
    let mut games = Vec::new();
    let mut whole_length = cursor.at;
    loop {
        let begin = cursor.at;
        if begin == bytes.len() {
            break;
        }
        let Some(game) = read_game(&mut cursor, &damaged)? else {
            // Cut short by a stop: left out.
            break;
        };
        games.push(game);
        whole_length = cursor.at;
    }
    Ok(GamesFile {
        options,
        games,
        whole_length,
    })
}

/// Reads one game; `Ok(None)` when the bytes end inside it.
fn read_game(
    cursor: &mut Cursor,
    damaged: &dyn Fn(usize, &str) -> DataError,
) -> Result<Option<GameRecord>, DataError> {
    let begin = cursor.at;
    let Some(game) = cursor.u32() else {
        return Ok(None);
    };
    let Some(result) = cursor.u8() else {
        return Ok(None);
    };
    let winner = match result {
        0 => None,
        1 => Some(Color::Sente),
        2 => Some(Color::Gote),
        _ => return Err(damaged(begin + 4, &format!("result byte {result}"))),
    };
    let Some(start_length) = cursor.u16() else {
        return Ok(None);
    };
    let at = cursor.at;
    let Some(start) = cursor.take(usize::from(start_length)) else {
        return Ok(None);
    };
    let start =
        std::str::from_utf8(start).map_err(|_| damaged(at, "a start position that is not text"))?;
    let Some(count) = cursor.u16() else {
        return Ok(None);
    };
    let mut plies = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let at = cursor.at;
        let (Some(bytes), Some(score)) = (cursor.take(4), cursor.i16()) else {
            return Ok(None);
        };
        let mv = decode_move([bytes[0], bytes[1], bytes[2], bytes[3]])
            .ok_or_else(|| damaged(at, "a move code no move has"))?;
        plies.push(Ply {
            mv,
            score: (score != NOT_SEARCHED).then_some(score),
        });
    }
    let Some(final_score) = cursor.i16() else {
        return Ok(None);
    };
    Ok(Some(GameRecord {
        game,
        winner,
        start: (!start.is_empty()).then(|| start.to_string()),
        plies,
        final_score: (final_score != NOT_SEARCHED).then_some(final_score),
    }))
}

/// The training positions of every game in a games file's bytes, in file order.
pub fn read_positions(
    bytes: &[u8],
    path: &str,
    variant: Variant,
) -> Result<Vec<Record>, DataError> {
    let file = read_games(bytes, path, variant)?;
    match variant {
        Variant::Tori => stored_positions(tsubame_rules::tori::tables(), &file, path),
        Variant::Wa => stored_positions(tsubame_rules::wa::tables(), &file, path),
        Variant::Tenjiku => Err(DataError::NoLayout(variant)),
    }
}

/// The training positions of a games file read, in file order; each record counts its game's
/// positions (over all of the game's entries).
pub fn stored_positions<B: Bitboard>(
    tables: &'static Tables<B>,
    file: &GamesFile,
    path: &str,
) -> Result<Vec<Record>, DataError> {
    let mut records: Vec<Record> = Vec::new();
    let mut entries = file.games.iter().peekable();
    while let Some(first) = entries.next() {
        // Entries of one game follow each other; its records are counted together.
        let mut game_records =
            first
                .positions(tables, &file.options)
                .map_err(|what| DataError::Refused {
                    path: path.to_string(),
                    what,
                })?;
        while let Some(next) = entries.next_if(|g| g.game == first.game) {
            game_records.extend(next.positions(tables, &file.options).map_err(|what| {
                DataError::Refused {
                    path: path.to_string(),
                    what,
                }
            })?);
        }
        let count = game_records.len().min(usize::from(u16::MAX));
        game_records.truncate(count);
        for record in &mut game_records {
            record.game_records = count as u16;
        }
        records.extend(game_records);
    }
    Ok(records)
}

/// How many training positions a games file read holds ([`stored_positions`]'s length, each
/// game's count capped alike), without building them.
pub fn stored_position_count<B: Bitboard>(
    tables: &'static Tables<B>,
    file: &GamesFile,
    path: &str,
) -> Result<usize, DataError> {
    let mut total = 0;
    let mut entries = file.games.iter().peekable();
    while let Some(first) = entries.next() {
        let mut count = 0;
        for entry in std::iter::once(first).chain(std::iter::from_fn(|| {
            entries.next_if(|g| g.game == first.game)
        })) {
            count += entry
                .position_count(tables, &file.options)
                .map_err(|what| DataError::Refused {
                    path: path.to_string(),
                    what,
                })?;
        }
        total += count.min(usize::from(u16::MAX));
    }
    Ok(total)
}

/// The game numbers a games file holds whole.
pub fn game_numbers(file: &GamesFile) -> HashSet<u32> {
    file.games.iter().map(|g| g.game).collect()
}

/// The position a record of the first format holds; `None` when the rules refuse it.
fn record_position<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    record: &Record,
) -> Option<Position<B>> {
    let layout = Layout::of_tables(tables);
    let mut setup = Setup::empty(tables);
    for (square, piece) in record.board_pieces(layout) {
        *setup.board.get_mut(square)? = Some(piece);
    }
    for (color, role, count) in record.hand_counts(layout) {
        *setup.hands[color.index()].get_mut(role.index())? = u32::from(count);
    }
    setup.side_to_move = record.side;
    setup.ply = u32::from(record.ply);
    Position::from_setup(tables, setup, options.rule_set()).ok()
}

/// Most nodes the search for the moves between two labelled positions may visit before the
/// game is cut there.
const CONNECT_NODES: usize = 400_000;

/// Finds the `plies` moves that lead from `from` (a labelled position, whose move took
/// nothing) to the position keyed `target`: the first move takes nothing, and each later one
/// was made in check or takes a piece, since the positions between were left out for being
/// one or the other. `None` when none is found within [`CONNECT_NODES`].
fn connect<B: Bitboard>(
    from: &Position<B>,
    target: &Position<B>,
    plies: usize,
) -> Option<Vec<Move>> {
    fn search<B: Bitboard>(
        position: &mut Position<B>,
        target: &Position<B>,
        left: usize,
        first: bool,
        line: &mut Vec<Move>,
        nodes: &mut usize,
    ) -> bool {
        let in_check = position.in_check();
        for mv in position.legal_moves() {
            let captures =
                matches!(mv.kind(), MoveKind::Normal { to, .. } if position.piece_at(to).is_some());
            let allowed = if first {
                !captures
            } else {
                in_check || captures
            };
            if !allowed {
                continue;
            }
            *nodes += 1;
            if *nodes > CONNECT_NODES {
                return false;
            }
            let undo = position.make_move(mv);
            line.push(mv);
            let found = if left == 1 {
                position.key() == target.key() && position.to_setup() == target.to_setup()
            } else {
                search(position, target, left - 1, false, line, nodes)
            };
            position.unmake_move(mv, undo);
            if found {
                return true;
            }
            line.pop();
        }
        false
    }
    let mut position = from.clone();
    let mut line = Vec::with_capacity(plies);
    let mut nodes = 0;
    (plies > 0 && search(&mut position, target, plies, true, &mut line, &mut nodes)).then_some(line)
}

/// What converting a file of the first format found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conversion {
    /// Games converted.
    pub games: usize,
    /// Labelled positions read.
    pub positions: usize,
    /// Gaps between two labelled positions of a game whose moves were found.
    pub connected: usize,
    /// Gaps whose moves were not found: the game goes on in a new entry there.
    pub cut: usize,
}

/// Converts one game's labelled positions of the first format (in ply order) into game
/// entries: the moves between each two positions found again (the first move takes nothing,
/// each later one was made in check or takes a piece), the first position as the entry's
/// start, each position's score on the move made from it. `Err` names a position the rules
/// refuse.
pub fn convert_game<B: Bitboard>(
    tables: &'static Tables<B>,
    options: &Options,
    records: &[Record],
    tally: &mut Conversion,
) -> Result<Vec<GameRecord>, String> {
    let mut entries = Vec::new();
    let Some(first) = records.first() else {
        return Ok(entries);
    };
    tally.games += 1;
    let winner = match first.result {
        0 => None,
        1 => Some(first.side),
        _ => Some(!first.side),
    };
    let mut current: Option<(Position<B>, &Record, GameRecord)> = None;
    for record in records {
        tally.positions += 1;
        let Some(position) = record_position(tables, options, record) else {
            return Err(format!(
                "game {}: the position at ply {} is refused by the rules of {options}",
                record.game, record.ply
            ));
        };
        if let Some((from, from_record, entry)) = &mut current {
            let gap = usize::from(record.ply.saturating_sub(from_record.ply));
            if let Some(line) = connect(from, &position, gap) {
                tally.connected += 1;
                for (i, mv) in line.into_iter().enumerate() {
                    entry.plies.push(Ply {
                        mv,
                        score: (i == 0).then_some(from_record.score),
                    });
                }
                *from = position;
                *from_record = record;
                continue;
            }
            tally.cut += 1;
        }
        if let Some((_, last, mut entry)) = current.take() {
            entry.final_score = Some(last.score);
            entries.push(entry);
        }
        let entry = GameRecord {
            game: record.game,
            winner,
            start: Some(position.to_sfen()),
            plies: Vec::new(),
            final_score: None,
        };
        current = Some((position, record, entry));
    }
    if let Some((_, last, mut entry)) = current {
        entry.final_score = Some(last.score);
        entries.push(entry);
    }
    Ok(entries)
}

/// Converts a file of the first format (labelled positions) at `from` into a games file at
/// `to`, for games played under `options`, then reads the games back and checks that they
/// give exactly the positions of the first file (else the games file is removed and the
/// difference named).
pub fn convert_file(from: &str, to: &str, options: &Options) -> Result<Conversion, DataError> {
    let variant = Variant::of(options).ok_or(DataError::UnknownGame)?;
    let bytes = std::fs::read(from).map_err(io_error(from))?;
    let records = read_position_file(&bytes, from, variant)?;
    let mut tally = Conversion::default();
    let mut out = header(options);
    let mut rest = records.as_slice();
    while let Some(first) = rest.first() {
        let length = rest.iter().take_while(|r| r.game == first.game).count();
        let (game, others) = rest.split_at(length);
        let entries = match variant {
            Variant::Tori => convert_game(tsubame_rules::tori::tables(), options, game, &mut tally),
            Variant::Wa => convert_game(tsubame_rules::wa::tables(), options, game, &mut tally),
            Variant::Tenjiku => return Err(DataError::NoLayout(variant)),
        }
        .map_err(|what| DataError::Refused {
            path: from.to_string(),
            what,
        })?;
        for entry in &entries {
            entry.write(&mut out);
        }
        rest = others;
    }
    std::fs::write(to, &out).map_err(|source| DataError::Io {
        path: to.to_string(),
        source,
    })?;
    let expected = records;
    let back = read_positions(&out, to, variant)?;
    if back != expected {
        let _ = std::fs::remove_file(to);
        let differing = back
            .iter()
            .zip(&expected)
            .position(|(a, b)| a != b)
            .unwrap_or(back.len().min(expected.len()));
        return Err(DataError::Refused {
            path: to.to_string(),
            what: format!(
                "the converted games give {} positions where {from} has {}, the first difference at position {differing}",
                back.len(),
                expected.len()
            ),
        });
    }
    Ok(tally)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::{Generation, generate, read_file};
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::AtomicBool;
    use tsubame_engine::eval::EvalParams;
    use tsubame_rules::{RuleSet, tori, wa};

    /// The Tori position a record holds.
    pub(crate) fn position_of(record: &Record, rules: RuleSet) -> Position<u64> {
        let options = Options::defaults(tori::spec());
        let position = record_position(tori::tables(), &options, record).expect("a position");
        assert_eq!(position.rules(), rules);
        position
    }

    fn temp_path(name: &str) -> String {
        let path =
            std::env::temp_dir().join(format!("tsubame-games-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path.to_string_lossy().into_owned()
    }

    /// A games file of `games` Tori games at 300 nodes a move, and its training positions.
    fn tori_games(name: &str, games: usize) -> (String, Vec<Record>) {
        let path = temp_path(name);
        let options = Options::defaults(tori::spec());
        let generation = Generation {
            games,
            nodes: 300,
            seed: 11,
            threads: 2,
            ..Generation::default()
        };
        let progress = generate(
            tori::tables(),
            &options,
            &EvalParams::for_variant(tori::spec()),
            &generation,
            &path,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        let records = read_file(&path, Variant::Tori).unwrap();
        assert_eq!(records.len(), progress.positions);
        (path, records)
    }

    /// Every legal move along random games, of both games with drops.
    fn moves_of_random_games<B: Bitboard>(start: Position<B>, seed: u64) -> Vec<Move> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut all = Vec::new();
        for _ in 0..4 {
            let mut position = start.clone();
            for _ in 0..80 {
                let moves = position.legal_moves();
                all.extend(&moves);
                let Some(&mv) = moves.choose(&mut rng) else {
                    break;
                };
                position.make_move(mv);
            }
        }
        all
    }

    #[test]
    fn every_move_survives_its_four_bytes_and_bad_codes_are_refused() {
        let tori_moves =
            moves_of_random_games(tori::start(&Options::defaults(tori::spec())).unwrap(), 1);
        let wa_moves = moves_of_random_games(
            wa::start(&Options::parse(wa::spec(), "drops=on").unwrap()).unwrap(),
            2,
        );
        let drops = tori_moves.iter().filter(|m| m.is_from_hand()).count();
        let promotions = tori_moves.iter().filter(|m| m.is_promotion()).count();
        assert!(
            drops > 100 && promotions > 0,
            "{drops} drops, {promotions} promotions"
        );
        for mv in tori_moves.into_iter().chain(wa_moves) {
            assert_eq!(decode_move(encode_move(mv)), Some(mv), "{mv:?}");
        }
        // Flags no move has: unknown bits, a promoting drop, kind 3.
        assert_eq!(decode_move([3, 4, 0, 32]), None);
        assert_eq!(decode_move([3, 4, 0, 1 | 4]), None);
        assert_eq!(decode_move([3, 4, 0, 3]), None);
    }

    #[test]
    fn games_are_a_few_bytes_a_position_and_give_each_searched_quiet_position() {
        let (path, records) = tori_games("size", 4);
        let bytes = std::fs::read(&path).unwrap();
        let file = read_games(&bytes, &path, Variant::Tori).unwrap();
        assert_eq!(file.games.len(), 4);
        assert_eq!(file.whole_length, bytes.len());
        let per_position = bytes.len() as f64 / records.len() as f64;
        assert!(per_position < 16.0, "{per_position:.1} bytes a position");
        let rules = Options::defaults(tori::spec()).rule_set();
        for game in &file.games {
            // The random opening is kept, unsearched; every later ply has its score.
            assert!(game.start.is_none() && game.final_score.is_none());
            let unsearched = game.plies.iter().take_while(|p| p.score.is_none()).count();
            assert!((6..=10).contains(&unsearched), "{unsearched}");
            assert!(game.plies[unsearched..].iter().all(|p| p.score.is_some()));
            // The positions are exactly the searched plies not in check whose move takes
            // nothing, each labelled with its score and the game's result for its side.
            let mut replay = Game::new(tori::tables(), Options::defaults(tori::spec())).unwrap();
            let mut wanted = Vec::new();
            for ply in &game.plies {
                let position = replay.position().clone();
                if let Some(score) = ply.score
                    && !position.in_check()
                    && !matches!(ply.mv.kind(), MoveKind::Normal { to, .. } if position.piece_at(to).is_some())
                {
                    wanted.push((position.to_sfen(), score));
                }
                replay.play(ply.mv).unwrap();
            }
            assert_eq!(replay.outcome().and_then(|o| o.winner), game.winner);
            let got: Vec<(String, i16)> = records
                .iter()
                .filter(|r| r.game == game.game)
                .map(|r| (position_of(r, rules).to_sfen(), r.score))
                .collect();
            assert_eq!(got, wanted);
        }
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_file_of_labelled_positions_converts_to_games_that_give_the_same_positions() {
        let (games_path, records) = tori_games("convert-source", 3);
        let layout = Layout::for_variant(Variant::Tori).unwrap();
        let write_positions = |name: &str, records: &[Record]| {
            let path = temp_path(name);
            let mut bytes = crate::positions::first_format_header(Variant::Tori, layout);
            for record in records {
                record.write(&mut bytes);
            }
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let options = Options::defaults(tori::spec());
        let old = write_positions("convert-old", &records);
        let converted = temp_path("convert-new");
        let tally = convert_file(&old, &converted, &options).unwrap();
        assert_eq!((tally.games, tally.positions), (3, records.len()));
        assert_eq!(tally.connected + tally.cut + 3, records.len());
        assert!(tally.cut <= 1, "{tally:?}");
        assert_eq!(read_file(&converted, Variant::Tori).unwrap(), records);

        // A position taken out of the middle of a game leaves a gap no moves of the kind left
        // out can fill: the game is cut there and goes on in an entry of its own, and the
        // positions that are there still come back exactly.
        let mut gapped = records.clone();
        let first_game = gapped.iter().filter(|r| r.game == records[0].game).count();
        assert!(first_game >= 5, "{first_game}");
        let middle = first_game / 2;
        gapped.remove(middle);
        let count = gapped.iter().filter(|r| r.game == records[0].game).count() as u16;
        for record in gapped.iter_mut().filter(|r| r.game == records[0].game) {
            record.game_records = count;
        }
        let old = write_positions("convert-gapped", &gapped);
        let tally = convert_file(&old, &converted, &options).unwrap();
        assert!(tally.cut >= 1, "{tally:?}");
        assert_eq!(read_file(&converted, Variant::Tori).unwrap(), gapped);
        let bytes = std::fs::read(&converted).unwrap();
        let entries = read_games(&bytes, &converted, Variant::Tori).unwrap().games;
        assert!(entries.iter().filter(|g| g.game == records[0].game).count() >= 2);

        // A file of another game's positions is refused by name.
        let wa_options = Options::defaults(wa::spec());
        let error = convert_file(&old, &converted, &wa_options).unwrap_err();
        assert!(matches!(error, DataError::Variant { .. }), "{error}");
        for path in [games_path, old, converted] {
            let _ = std::fs::remove_file(path);
        }
    }

    #[test]
    fn damaged_games_files_are_refused_by_name_and_never_crash() {
        let (path, records) = tori_games("damage", 2);
        let bytes = std::fs::read(&path).unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        let mut refused = 0;
        for _ in 0..400 {
            let mut damaged = bytes.clone();
            for _ in 0..rng.gen_range(1..4) {
                let at = rng.gen_range(0..damaged.len());
                damaged[at] = rng.r#gen();
            }
            match read_positions(&damaged, &path, Variant::Tori) {
                Ok(read) => assert!(read.len() <= records.len() + 400),
                Err(e) => {
                    refused += 1;
                    assert!(e.to_string().starts_with(&path), "{e}");
                }
            }
        }
        assert!(refused > 100, "{refused}");
        // A move the position does not allow is named with its game and ply.
        let mut file = read_games(&bytes, &path, Variant::Tori).unwrap();
        file.games[1].plies[20].mv = file.games[1].plies[0].mv;
        let mut out = header(&file.options);
        for game in &file.games {
            game.write(&mut out);
        }
        let error = read_positions(&out, &path, Variant::Tori)
            .unwrap_err()
            .to_string();
        assert!(error.contains("ply 21"), "{error}");
        let _ = std::fs::remove_file(path);
    }
}
