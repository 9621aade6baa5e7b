//! USI move text: `3e3d`, `3b3a+`, drops `S*4d`; the shrike's exchange is written like a drop
//! onto the shrike's own square (`C*3b`).

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::square::Square;
use crate::variant::{DropMateRule, Role};
use thiserror::Error;

/// A move as written, before it is checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UsiMove {
    /// `<from><to>[+]`
    Normal {
        /// Start square.
        from: Square,
        /// Destination.
        to: Square,
        /// Whether `+` was written.
        promote: bool,
    },
    /// `<piece>*<square>`: a drop, or an exchange onto the exchanging piece's square.
    Put {
        /// The kind placed.
        role: Role,
        /// The square.
        to: Square,
    },
}

/// Why move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text is not a move in USI form.
    #[error("{text:?} is not a move: {reason}")]
    Syntax {
        /// The text.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The text is a move, but not a legal one here.
    #[error("{text} is illegal: {reason}")]
    Illegal {
        /// The move as written.
        text: String,
        /// Why it cannot be played.
        reason: String,
    },
}

fn syntax(text: &str, reason: &'static str) -> MoveError {
    MoveError::Syntax {
        text: text.chars().take(40).collect(),
        reason,
    }
}

impl<B: Bitboard> Position<B> {
    /// Reads USI move text without checking legality.
    pub fn parse_usi_syntax(&self, text: &str) -> Result<UsiMove, MoveError> {
        let t = self.tables;
        let g = t.geometry;
        if text.is_empty() {
            return Err(syntax(text, "empty"));
        }
        if !text.is_ascii() {
            return Err(syntax(text, "contains characters other than ASCII"));
        }
        if let Some((piece, square)) = text.split_once('*') {
            let role = t
                .spec
                .role_by_sfen(piece)
                .filter(|_| piece.chars().all(|c| c.is_ascii_uppercase()))
                .ok_or_else(|| {
                    syntax(
                        text,
                        "the piece before '*' is not an upper-case piece letter of this game",
                    )
                })?;
            let to = g.parse_square(square).ok_or_else(|| {
                syntax(text, "the square after '*' is not a square of this board")
            })?;
            return Ok(UsiMove::Put { role, to });
        }
        let (from, used) = g
            .parse_square_prefix(text)
            .ok_or_else(|| syntax(text, "it does not start with a square of this board"))?;
        let rest = text.get(used..).unwrap_or("");
        let (to, used_to) = g
            .parse_square_prefix(rest)
            .ok_or_else(|| syntax(text, "the second square is missing or off the board"))?;
        let promote = match rest.get(used_to..).unwrap_or("") {
            "" => false,
            "+" => true,
            _ => return Err(syntax(text, "only '+' may follow the destination")),
        };
        Ok(UsiMove::Normal { from, to, promote })
    }

    /// Reads USI move text and checks that the move is legal here.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options};
    /// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
    /// assert!(position.parse_usi("4f3f").is_ok());
    /// let err = position.parse_usi("4g4f").unwrap_err();
    /// assert_eq!(err.to_string(), "4g4f is illegal: the square is held by your own falcon");
    /// ```
    pub fn parse_usi(&self, text: &str) -> Result<Move, MoveError> {
        let written = self.parse_usi_syntax(text)?;
        let candidate = match written {
            UsiMove::Normal { from, to, promote } => Move::normal(from, to, promote),
            UsiMove::Put { role, to } => {
                let own_exchanger = self.piece_at(to).is_some_and(|p| {
                    p.color == self.side && !self.tables.spec.roles[p.role.index()].hooks.is_empty()
                });
                if own_exchanger {
                    Move::exchange(role, to)
                } else {
                    Move::drop(role, to)
                }
            }
        };
        if self.is_legal(candidate) {
            return Ok(candidate);
        }
        Err(MoveError::Illegal {
            text: text.to_string(),
            reason: self.why_illegal(candidate),
        })
    }

    /// Writes a move as USI text.
    pub fn to_usi(&self, mv: Move) -> String {
        let t = self.tables;
        let g = t.geometry;
        match mv.kind() {
            MoveKind::Normal { from, to, promote } => {
                format!(
                    "{}{}{}",
                    g.name(from),
                    g.name(to),
                    if promote { "+" } else { "" }
                )
            }
            MoveKind::Drop { role, to } | MoveKind::Exchange { role, square: to } => {
                let code = t.spec.roles.get(role.index()).map_or("?", |r| r.sfen);
                format!("{}*{}", code, g.name(to))
            }
        }
    }

    fn piece_name(&self, role: Role) -> &'static str {
        self.tables
            .spec
            .roles
            .get(role.index())
            .map_or("piece", |r| r.name)
    }

    /// A sentence saying why a move that is not legal here cannot be played.
    pub fn why_illegal(&self, mv: Move) -> String {
        let t = self.tables;
        let us = self.side;
        let zone = t.zone[us.index()];
        let off_board = match mv.kind() {
            MoveKind::Normal { from, to, .. } => {
                from.index() >= t.squares || to.index() >= t.squares
            }
            MoveKind::Drop { to, .. } | MoveKind::Exchange { square: to, .. } => {
                to.index() >= t.squares
            }
        };
        if off_board {
            return "a square of the move is off the board".to_string();
        }
        match mv.kind() {
            MoveKind::Normal { from, to, promote } => {
                let Some(piece) = self.piece_at(from) else {
                    return format!("there is no piece on {}", t.geometry.name(from));
                };
                if piece.color != us {
                    return format!(
                        "the {} on {} belongs to {}",
                        self.piece_name(piece.role),
                        t.geometry.name(from),
                        piece.color
                    );
                }
                if let Some(target) = self.piece_at(to).filter(|p| p.color == us) {
                    return format!(
                        "the square is held by your own {}",
                        self.piece_name(target.role)
                    );
                }
                let reach = t.attacks(us, piece.role, from.index(), self.occupied());
                if !reach.has(to.index()) {
                    return format!(
                        "a {} cannot move from {} to {}",
                        self.piece_name(piece.role),
                        t.geometry.name(from),
                        t.geometry.name(to)
                    );
                }
                let role_spec = &t.spec.roles[piece.role.index()];
                let in_zone = zone.has(from.index()) || zone.has(to.index());
                if promote && (role_spec.promotes_to.is_none() || !in_zone) {
                    return format!("a {} cannot promote on this move", role_spec.name);
                }
                if !promote
                    && role_spec.promotes_to.is_some()
                    && in_zone
                    && t.spec.promotion.compulsory
                {
                    return format!(
                        "a {} must promote on a move into, within or out of the zone",
                        role_spec.name
                    );
                }
                if !promote
                    && t.drop_barred[t.piece_index(us, piece.role)].has(to.index())
                    && role_spec.promotes_to.is_some()
                {
                    return format!(
                        "a {} must promote on {}",
                        role_spec.name,
                        t.geometry.name(to)
                    );
                }
                if self.in_check() {
                    return "it does not answer the check".to_string();
                }
                let royal = t
                    .royal
                    .map_or("royal piece", |r| t.spec.roles[r.index()].name);
                format!("it leaves your {royal} attacked")
            }
            MoveKind::Drop { role, to } => {
                if role.index() >= t.role_count || self.hand_count(us, role) == 0 {
                    return format!("you have no {} in hand", self.piece_name(role));
                }
                if let Some(p) = self.piece_at(to) {
                    return format!(
                        "{} is occupied by a {}",
                        t.geometry.name(to),
                        self.piece_name(p.role)
                    );
                }
                let rule = t.spec.roles[role.index()].drop;
                if t.drop_barred[t.piece_index(us, role)].has(to.index()) {
                    return format!(
                        "a {} may not be dropped on the last {} rank(s)",
                        self.piece_name(role),
                        rule.barred_far_ranks
                    );
                }
                if let Some(max) = rule.max_per_file {
                    let file = t.geometry.file(to);
                    let on_file = self.pieces(us, role) & t.files[file as usize - 1];
                    if on_file.count() >= max as u32 {
                        return format!(
                            "file {file} already holds {max} of your {}s",
                            self.piece_name(role)
                        );
                    }
                }
                if rule.mate_restricted
                    && self.rules.drop_mate == DropMateRule::Illegal
                    && self.move_mates(mv)
                {
                    return format!(
                        "a {} drop may not give immediate mate",
                        self.piece_name(role)
                    );
                }
                if self.in_check() {
                    return "it does not answer the check".to_string();
                }
                "it is not allowed here".to_string()
            }
            MoveKind::Exchange { role, square } => {
                if self.hand_count(us, role) == 0 {
                    return format!("you have no {} in hand", self.piece_name(role));
                }
                if !t
                    .spec
                    .roles
                    .get(role.index())
                    .is_some_and(|r| r.exchangeable)
                {
                    return format!(
                        "a {} cannot be brought in by an exchange",
                        self.piece_name(role)
                    );
                }
                if !zone.has(square.index()) {
                    return format!(
                        "the piece on {} is not in your promotion zone",
                        t.geometry.name(square)
                    );
                }
                if self.in_check() {
                    return "an exchange cannot answer a check".to_string();
                }
                "this exchange is not allowed".to_string()
            }
        }
    }

    /// Plays a move given as USI text after checking it, or explains why it cannot be played
    /// and leaves the position unchanged.
    pub fn play_usi(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = self.parse_usi(text)?;
        self.make_move(mv);
        Ok(mv)
    }

    /// Plays a move after checking that it is legal; on error the position is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        if !self.is_legal(mv) {
            return Err(MoveError::Illegal {
                text: self.to_usi(mv),
                reason: self.why_illegal(mv),
            });
        }
        self.make_move(mv);
        Ok(())
    }

    /// Plays a move without checking it.
    ///
    /// The move must be legal in this position (for example, taken from
    /// [`Position::legal_moves`]); otherwise the position's contents are unspecified, and the
    /// call may panic.
    pub fn play_unchecked(&mut self, mv: Move) {
        self.make_move(mv);
    }
}
