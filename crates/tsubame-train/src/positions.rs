//! Labelled positions: what training reads (a position, the search's score, the game's
//! result), and the first data format, which stored each of them whole. New data is written
//! as games ([`crate::games`]); files of this format are still read, and converted.
//!
//! The file: a header (`TSBDATA1`, the variant's short name, squares and kinds as u16), then
//! fixed-size records, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | game number (u32) |
//! | 2 | records of that game (u16), to tell a game cut short by a stop |
//! | 2 | ply (u16) |
//! | 1 | side to move: 0 sente, 1 gote |
//! | 1 | result for the side to move: 2 won, 1 drawn, 0 lost |
//! | 2 | search score for the side to move, centipawns (i16, mates at +-[`MAX_SCORE`]) |
//! | squares | each square from rank `a`, file 1 on: 0 empty, else 1 + color * kinds + kind |
//! | 2 * kinds | hand counts, sente's kinds then gote's |
//!
//! A Tori record (49 squares, 11 kinds with the owl and the shrike) is 83 bytes.

use tsubame_engine::nnue::{HAND_LEVELS, Layout, RoyalBuckets, View};
use tsubame_rules::{Bitboard, Color, Piece, Position, Role, Square, Variant};

const MAGIC: &[u8; 8] = b"TSBDATA1";
/// Scores are kept within this many centipawns; a mate is written as this.
pub const MAX_SCORE: i16 = 3000;
/// Bytes before the board in a record.
const FIXED: usize = 12;

/// Why a data file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file is not a training data file.
    #[error("{0}: not a Tsubame training data file (no TSBDATA1 header)")]
    Magic(String),
    /// The file holds another game's positions.
    #[error("{path}: the positions are of {found}, not {expected}")]
    Variant {
        /// The file.
        path: String,
        /// What was asked for.
        expected: String,
        /// What the file holds.
        found: String,
    },
    /// The options are of no game this program knows.
    #[error("the rule options are of no known game")]
    UnknownGame,
    /// The variant has no network inputs.
    #[error("{0} has no network inputs")]
    NoLayout(Variant),
    /// A games file of other rule options than asked for.
    #[error("{path}: the games are played with options {found:?}, not {expected:?}")]
    Options {
        /// The file.
        path: String,
        /// The file's options.
        found: String,
        /// The options asked for.
        expected: String,
    },
    /// Some kind of the variant has no mirror image among its kinds.
    #[error("{0} has a piece whose mirror image is no piece of the game: it cannot be mirrored")]
    NoMirror(Variant),
    /// A games file whose bytes hold what no game does.
    #[error("{path}: damaged at byte {offset}: {what}")]
    Damaged {
        /// The file.
        path: String,
        /// Where.
        offset: usize,
        /// What was found.
        what: String,
    },
    /// A stored game the rules refuse to replay.
    #[error("{path}: {what}")]
    Refused {
        /// The file.
        path: String,
        /// Which game and ply, and why.
        what: String,
    },
    /// Games were to be added to a file of labelled positions (the first format).
    #[error(
        "{0} holds labelled positions (TSBDATA1), not games: convert it with `tsubame nnue convert`, or write to a new file"
    )]
    PositionFile(String),
}

/// One labelled position as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The game it comes from.
    pub game: u32,
    /// Records that game has in the file.
    pub game_records: u16,
    /// Its ply in the game.
    pub ply: u16,
    /// The side to move.
    pub side: Color,
    /// The game's result for the side to move: 1 won, 0 drawn, -1 lost.
    pub result: i8,
    /// The search's score for the side to move, centipawns.
    pub score: i16,
    /// Each square's piece code: 0 empty, else 1 + color * kinds + kind.
    pub board: Vec<u8>,
    /// Hand counts, sente's kinds then gote's.
    pub hands: Vec<u8>,
}

impl Record {
    /// The size of a record of `layout`.
    pub fn size(layout: Layout) -> usize {
        FIXED + layout.squares + 2 * layout.roles
    }

    /// The record of a position.
    pub fn of<B: Bitboard>(
        position: &Position<B>,
        layout: Layout,
        game: u32,
        score: i16,
        result: i8,
    ) -> Record {
        let board = (0..layout.squares)
            .map(|s| match position.piece_at(Square::from_index(s as u8)) {
                None => 0,
                Some(piece) => (1 + piece.color.index() * layout.roles + piece.role.index()) as u8,
            })
            .collect();
        let hands = [Color::Sente, Color::Gote]
            .iter()
            .flat_map(|&color| {
                (0..layout.roles).map(move |r| position.hand_count(color, Role(r as u8)))
            })
            .collect();
        Record {
            game,
            game_records: 0,
            ply: position.ply().min(u32::from(u16::MAX)) as u16,
            side: position.side_to_move(),
            result,
            score,
            board,
            hands,
        }
    }

    /// Appends the record's bytes in the first format (files of it are read, and converted
    /// to games; new data is written as games).
    #[cfg(test)]
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.game.to_le_bytes());
        out.extend_from_slice(&self.game_records.to_le_bytes());
        out.extend_from_slice(&self.ply.to_le_bytes());
        out.push(self.side.index() as u8);
        out.push((self.result + 1) as u8);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.extend_from_slice(&self.board);
        out.extend_from_slice(&self.hands);
    }

    /// Reads a record of `layout` from exactly [`Record::size`] bytes; `None` when a field
    /// holds what no record does.
    pub fn read(bytes: &[u8], layout: Layout) -> Option<Record> {
        if bytes.len() != Record::size(layout) {
            return None;
        }
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let side = match bytes[8] {
            0 => Color::Sente,
            1 => Color::Gote,
            _ => return None,
        };
        let result = match bytes[9] {
            r @ 0..=2 => r as i8 - 1,
            _ => return None,
        };
        let board = bytes[FIXED..FIXED + layout.squares].to_vec();
        if board.iter().any(|&c| usize::from(c) > 2 * layout.roles) {
            return None;
        }
        Some(Record {
            game: u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            game_records: u16_at(4),
            ply: u16_at(6),
            side,
            result,
            score: i16::from_le_bytes([bytes[10], bytes[11]]),
            board,
            hands: bytes[FIXED + layout.squares..].to_vec(),
        })
    }

    /// The record of the position mirrored left to right: each piece on the same rank's
    /// mirror square and every kind, on the board and in hand, replaced by its image under
    /// `mirror` (from [`tsubame_rules::VariantSpec::mirror_roles`]). Every rule holds in the
    /// mirrored game, so the score and the result stay the position's.
    pub fn mirrored(&self, layout: Layout, width: usize, mirror: &[Role]) -> Record {
        let role_image = |role: usize| mirror.get(role).map_or(role, |r| r.index());
        let mut board = vec![0; self.board.len()];
        for (square, &code) in self.board.iter().enumerate() {
            let image = square - square % width + (width - 1 - square % width);
            let code = if code == 0 {
                0
            } else {
                let code = usize::from(code) - 1;
                let (color, role) = (code / layout.roles, code % layout.roles);
                (1 + color * layout.roles + role_image(role)) as u8
            };
            if let Some(slot) = board.get_mut(image) {
                *slot = code;
            }
        }
        let mut hands = vec![0; self.hands.len()];
        for (i, &count) in self.hands.iter().enumerate() {
            let (color, role) = (i / layout.roles, i % layout.roles);
            if let Some(slot) = hands.get_mut(color * layout.roles + role_image(role)) {
                *slot = count;
            }
        }
        Record {
            board,
            hands,
            ..self.clone()
        }
    }

    /// The pieces on the board: each occupied square's index and its piece.
    pub fn board_pieces(&self, layout: Layout) -> impl Iterator<Item = (usize, Piece)> + '_ {
        self.board
            .iter()
            .enumerate()
            .filter_map(move |(square, &code)| {
                let code = usize::from(code).checked_sub(1)?;
                let color = if code / layout.roles == 0 {
                    Color::Sente
                } else {
                    Color::Gote
                };
                let role = Role((code % layout.roles) as u8);
                Some((square, Piece { color, role }))
            })
    }

    /// The hands: each side's count of each kind.
    pub fn hand_counts(&self, layout: Layout) -> impl Iterator<Item = (Color, Role, u8)> + '_ {
        self.hands.iter().enumerate().map(move |(i, &count)| {
            let color = if i < layout.roles {
                Color::Sente
            } else {
                Color::Gote
            };
            (color, Role((i % layout.roles) as u8), count)
        })
    }

    /// The active inputs of the plain layout of the record's position seen by `perspective`
    /// in the view of its own royal under `royal` (mirrored where that view is), and the
    /// view; with `royal`'s bucket added to each, the inputs [`RoyalBuckets::inputs_of`]
    /// gives for the position itself.
    pub fn inputs_in_view(
        &self,
        layout: Layout,
        royal: &RoyalBuckets,
        perspective: Color,
        out: &mut Vec<usize>,
    ) -> View {
        let view = if royal.is_plain() {
            View::default()
        } else {
            let royal_square = self.board_pieces(layout).find_map(|(square, piece)| {
                (piece.color == perspective && royal.is_royal(piece.role)).then_some(square)
            });
            royal.view(perspective, royal_square)
        };
        let plain = View {
            bucket: 0,
            mirrored: view.mirrored,
        };
        for (square, piece) in self.board_pieces(layout) {
            out.push(royal.board_input(layout, plain, perspective, piece, square));
        }
        for (color, role, count) in self.hand_counts(layout) {
            for level in 0..usize::from(count).min(HAND_LEVELS) {
                out.push(royal.hand_input(layout, plain, perspective, color, role.index(), level));
            }
        }
        view
    }
}

/// The header of a file of labelled positions (the first format).
pub(crate) fn first_format_header(variant: Variant, layout: Layout) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let name = variant.spec().name.as_bytes();
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    out.extend_from_slice(&(layout.squares as u16).to_le_bytes());
    out.extend_from_slice(&(layout.roles as u16).to_le_bytes());
    out
}

pub(crate) fn io_error(path: &str) -> impl Fn(std::io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_string(),
        source,
    }
}

/// Whether bytes begin as a file of labelled positions.
pub fn is_position_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads the labelled positions of a file of the first format from its bytes (`path` names
/// it in errors). Records after the last whole one, and a last game with fewer records than it
/// announces (a stop while it was written), are left out.
pub fn read_position_file(
    bytes: &[u8],
    path: &str,
    variant: Variant,
) -> Result<Vec<Record>, DataError> {
    let layout = Layout::for_variant(variant).ok_or(DataError::NoLayout(variant))?;
    let body = check_header(bytes, path, variant, layout)?;
    let size = Record::size(layout);
    let mut records: Vec<Record> = bytes[body..]
        .chunks_exact(size)
        .filter_map(|chunk| Record::read(chunk, layout))
        .collect();
    let whole = whole_games(&records);
    records.truncate(whole);
    Ok(records)
}

/// Adds the mirror image ([`Record::mirrored`]) of every record of a game that training uses,
/// one not kept aside for validation (`validation_every` as in
/// [`crate::train::TrainSettings`]), and returns how many were added: twice the positions, of
/// exactly the same value, for a network whose training is limited by its data.
pub fn add_mirror_images(
    records: &mut Vec<Record>,
    variant: Variant,
    validation_every: u32,
) -> Result<usize, DataError> {
    let layout = Layout::for_variant(variant).ok_or(DataError::NoLayout(variant))?;
    let mirror = variant
        .spec()
        .mirror_roles()
        .ok_or(DataError::NoMirror(variant))?;
    let width = usize::from(variant.spec().width);
    let images: Vec<Record> = records
        .iter()
        .filter(|r| !is_held_out(r.game, validation_every))
        .map(|r| r.mirrored(layout, width, &mirror))
        .collect();
    let added = images.len();
    records.extend(images);
    Ok(added)
}

/// Whether game number `game` is kept aside for validation: every `validation_every`-th game
/// (none with 0), as [`crate::train::TrainSettings`] says.
pub fn is_held_out(game: u32, validation_every: u32) -> bool {
    validation_every != 0 && game.is_multiple_of(validation_every)
}

/// Consecutive game numbers that [`TrainingShare`] keeps or drops together: as many as the
/// usual validation spacing, so that every block holds the same count of held-out games.
pub const SHARE_BLOCK: u32 = 10;

/// A share of the training games, `kept` of every `of` blocks of [`SHARE_BLOCK`] consecutive
/// game numbers: what a network trained on less of the same data learns. The games kept aside
/// for validation stay whatever the share, so two shares are measured on the same games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrainingShare {
    /// Blocks kept of every `of`.
    pub kept: u32,
    /// The blocks counted.
    pub of: u32,
}

impl TrainingShare {
    /// Every training game.
    pub const ALL: TrainingShare = TrainingShare { kept: 1, of: 1 };

    /// Whether training uses game number `game`.
    pub fn keeps(self, game: u32) -> bool {
        (game / SHARE_BLOCK) % self.of < self.kept
    }
}

impl std::str::FromStr for TrainingShare {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (kept, of) = text
            .split_once('/')
            .ok_or_else(|| format!("a share is written K/N (such as 1/2), not `{text}`"))?;
        let number = |part: &str| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{part}` in the share `{text}` is not a whole number"))
        };
        let (kept, of) = (number(kept)?, number(of)?);
        if kept == 0 || kept > of {
            return Err(format!("a share K/N needs 1 <= K <= N, not {kept}/{of}"));
        }
        Ok(TrainingShare { kept, of })
    }
}

/// Drops the records of training games outside `share` (those kept aside for validation,
/// `validation_every` as in [`crate::train::TrainSettings`], all stay) and returns how many
/// were dropped.
pub fn keep_training_share(
    records: &mut Vec<Record>,
    share: TrainingShare,
    validation_every: u32,
) -> usize {
    let before = records.len();
    records.retain(|r| is_held_out(r.game, validation_every) || share.keeps(r.game));
    before - records.len()
}

/// Checks the header and returns where the records start.
fn check_header(
    bytes: &[u8],
    path: &str,
    variant: Variant,
    layout: Layout,
) -> Result<usize, DataError> {
    let expected = first_format_header(variant, layout);
    if bytes.get(..8) != Some(MAGIC.as_slice()) {
        return Err(DataError::Magic(path.to_string()));
    }
    if bytes.get(..expected.len()) != Some(expected.as_slice()) {
        let name_len = bytes.get(8).map_or(0, |&n| usize::from(n));
        let found = bytes
            .get(9..9 + name_len)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        return Err(DataError::Variant {
            path: path.to_string(),
            expected: variant.spec().name.to_string(),
            found,
        });
    }
    Ok(expected.len())
}

/// How many leading records belong to whole games: only the last game can be cut short.
fn whole_games(records: &[Record]) -> usize {
    let Some(last) = records.last() else { return 0 };
    let tail = records
        .iter()
        .rev()
        .take_while(|r| r.game == last.game)
        .count();
    if tail == usize::from(last.game_records) {
        records.len()
    } else {
        records.len() - tail
    }
}
