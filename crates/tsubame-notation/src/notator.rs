//! Writing and reading moves against one position.

use crate::HodgesError;
use crate::syntax::{self, Marker, PromotionMark, Written};
use tsubame_rules::{Bitboard, Move, MoveKind, Position, Role, Square};

/// A position together with its legal moves, for writing or reading many moves of it.
///
/// Both notations leave out what the position makes obvious (the start square, mostly), so
/// every move is written and read by comparing it with the other legal moves. The free
/// functions [`write_hodges`](crate::write_hodges), [`parse_hodges`](crate::parse_hodges) and
/// [`write_short`](crate::write_short) work the legal moves out on each call; a `Notator`
/// does it once.
///
/// ```
/// use tsubame_notation::Notator;
/// use tsubame_rules::{tori, Options};
///
/// let position = tori::start(&Options::defaults(tori::spec())).unwrap();
/// let notator = Notator::new(&position);
/// let mut written: Vec<String> = notator.legal_moves().iter().map(|&m| notator.hodges(m)).collect();
/// written.sort();
/// assert_eq!(written[..3], ["Cr-2f", "Cr-3f", "Cr-5f"]);
/// ```
#[derive(Clone, Debug)]
pub struct Notator<'p, B: Bitboard> {
    position: &'p Position<B>,
    legal: Vec<Move>,
}

/// How one notation spells pieces, squares and plain moves.
struct Style {
    piece: fn(&tsubame_rules::RoleSpec) -> &'static str,
    square: fn(&mut String, u8, u8),
    plain: &'static str,
}

const HODGES: Style = Style {
    piece: |r| r.hodges,
    square: |out, file, rank| {
        out.push_str(&file.to_string());
        out.push(char::from(b'a'.saturating_add(rank)));
    },
    plain: "-",
};

const SHORT: Style = Style {
    piece: |r| r.sfen,
    square: |out, file, rank| {
        out.push_str(&file.to_string());
        out.push_str(&(u32::from(rank) + 1).to_string());
    },
    plain: "",
};

impl<'p, B: Bitboard> Notator<'p, B> {
    /// Works out the legal moves of `position`.
    pub fn new(position: &'p Position<B>) -> Notator<'p, B> {
        Notator {
            position,
            legal: position.legal_moves(),
        }
    }

    /// The position.
    pub fn position(&self) -> &'p Position<B> {
        self.position
    }

    /// The legal moves, in the rules library's generation order.
    pub fn legal_moves(&self) -> &[Move] {
        &self.legal
    }

    /// The move in Hodges notation; see [`write_hodges`](crate::write_hodges).
    pub fn hodges(&self, mv: Move) -> String {
        self.write(mv, &HODGES)
    }

    /// The move in the play site's short form; see [`write_short`](crate::write_short).
    pub fn short(&self, mv: Move) -> String {
        self.write(mv, &SHORT)
    }

    /// Reads a move in Hodges notation; see [`parse_hodges`](crate::parse_hodges).
    pub fn parse_hodges(&self, text: &str) -> Result<Move, HodgesError> {
        let tables = self.position.tables();
        let written = syntax::parse(tables.spec, tables.geometry, text)?;
        match written.marker {
            Marker::Drop => self.resolve_drop(&written),
            Marker::Move | Marker::Capture => self.resolve_board_move(&written),
        }
    }

    fn role_spec(&self, role: Role) -> Option<&'static tsubame_rules::RoleSpec> {
        self.position.tables().spec.roles.get(role.index())
    }

    fn role_name(&self, role: Role) -> &'static str {
        self.role_spec(role).map_or("piece", |r| r.name)
    }

    fn square_name(&self, square: Square) -> String {
        self.position.tables().geometry.name(square).to_string()
    }

    fn write(&self, mv: Move, style: &Style) -> String {
        let geometry = self.position.tables().geometry;
        let mut out = String::with_capacity(8);
        let piece = |out: &mut String, role: Option<Role>| {
            out.push_str(
                role.and_then(|r| self.role_spec(r))
                    .map_or("?", style.piece),
            );
        };
        let square = |out: &mut String, s: Square| {
            (style.square)(out, geometry.file(s), geometry.rank(s));
        };
        match mv.kind() {
            MoveKind::Normal { from, to, promote } => {
                let role = self.position.piece_at(from).map(|p| p.role);
                piece(&mut out, role);
                if self.shares_destination(from, to, role) {
                    square(&mut out, from);
                }
                if self.position.piece_at(to).is_some() {
                    out.push('x');
                } else {
                    out.push_str(style.plain);
                }
                square(&mut out, to);
                if promote {
                    out.push('+');
                } else if self.legal.contains(&Move::normal(from, to, true)) {
                    // Only where promotion is optional does declining it need saying.
                    out.push('=');
                }
            }
            MoveKind::Drop { role, to } | MoveKind::Exchange { role, square: to } => {
                piece(&mut out, Some(role));
                out.push('*');
                square(&mut out, to);
            }
        }
        out
    }

    /// Whether another piece of the same kind could legally move to `to`, so that the start
    /// square must be written.
    fn shares_destination(&self, from: Square, to: Square, role: Option<Role>) -> bool {
        self.legal.iter().any(|m| match m.kind() {
            MoveKind::Normal {
                from: other,
                to: dest,
                ..
            } => {
                dest == to && other != from && self.position.piece_at(other).map(|p| p.role) == role
            }
            _ => false,
        })
    }

    fn kinds(&self, roles: &[Role]) -> String {
        roles
            .iter()
            .map(|&r| self.role_name(r))
            .collect::<Vec<_>>()
            .join(" or ")
    }

    fn no_such_move(&self, written: &Written<'_>, reason: String) -> HodgesError {
        HodgesError::NoSuchMove {
            written: syntax::quoted(written.text),
            reason,
        }
    }

    fn pick(&self, written: &Written<'_>, candidates: Vec<Move>) -> Result<Move, HodgesError> {
        match candidates.as_slice() {
            [only] => Ok(*only),
            _ => Err(HodgesError::Ambiguous {
                written: syntax::quoted(written.text),
                candidates: candidates.iter().map(|&m| self.hodges(m)).collect(),
            }),
        }
    }

    fn resolve_drop(&self, written: &Written<'_>) -> Result<Move, HodgesError> {
        let candidates: Vec<Move> = self
            .legal
            .iter()
            .copied()
            .filter(|m| match m.kind() {
                MoveKind::Drop { role, to } | MoveKind::Exchange { role, square: to } => {
                    to == written.to && written.roles.contains(&role)
                }
                MoveKind::Normal { .. } => false,
            })
            .collect();
        if candidates.is_empty() {
            return Err(self.no_such_move(written, self.why_no_drop(written)));
        }
        self.pick(written, candidates)
    }

    fn why_no_drop(&self, written: &Written<'_>) -> String {
        let position = self.position;
        let us = position.side_to_move();
        let Some(&first) = written.roles.first() else {
            return "no piece of this game is written so".to_string();
        };
        let role = written
            .roles
            .iter()
            .copied()
            .find(|&r| position.hand_count(us, r) > 0)
            .unwrap_or(first);
        let onto_exchanger = position.piece_at(written.to).is_some_and(|p| {
            p.color == us && self.role_spec(p.role).is_some_and(|r| !r.hooks.is_empty())
        });
        let mv = if onto_exchanger {
            Move::exchange(role, written.to)
        } else {
            Move::drop(role, written.to)
        };
        position.why_illegal(mv)
    }

    fn resolve_board_move(&self, written: &Written<'_>) -> Result<Move, HodgesError> {
        let position = self.position;
        let candidates: Vec<Move> = self
            .legal
            .iter()
            .copied()
            .filter(|m| match m.kind() {
                MoveKind::Normal { from, to, .. } => {
                    to == written.to
                        && written.from.is_none_or(|f| f == from)
                        && position
                            .piece_at(from)
                            .is_some_and(|p| written.roles.contains(&p.role))
                }
                _ => false,
            })
            .collect();
        if candidates.is_empty() {
            return Err(self.no_such_move(written, self.why_no_board_move(written)));
        }

        // Every candidate lands on the same square, so they all capture or none does.
        match (written.marker, position.piece_at(written.to)) {
            (Marker::Capture, None) => {
                return Err(HodgesError::CaptureOnEmptySquare {
                    square: self.square_name(written.to),
                });
            }
            (Marker::Move, Some(target)) => {
                return Err(HodgesError::UnmarkedCapture {
                    square: self.square_name(written.to),
                    piece: self.role_name(target.role),
                });
            }
            _ => {}
        }

        let (promoting, plain): (Vec<Move>, Vec<Move>) =
            candidates.iter().partition(|m| m.is_promotion());
        let chosen = match written.mark {
            Some(PromotionMark::Promote) => {
                if promoting.is_empty() {
                    return Err(HodgesError::CannotPromote {
                        written: syntax::quoted(written.text),
                        reason: self.why_no_promotion(&candidates),
                    });
                }
                promoting
            }
            Some(PromotionMark::Decline) => {
                if plain.is_empty() {
                    let piece = candidates
                        .first()
                        .and_then(|m| m.from())
                        .and_then(|f| position.piece_at(f))
                        .map_or("piece", |p| self.role_name(p.role));
                    return Err(HodgesError::MustPromote {
                        written: syntax::quoted(written.text),
                        piece,
                    });
                }
                plain
            }
            // Where promotion is compulsory the only reading is the promoting one, so a
            // missing `+` is forgiven.
            None => candidates,
        };
        self.pick(written, chosen)
    }

    fn why_no_promotion(&self, candidates: &[Move]) -> String {
        let role = candidates
            .first()
            .and_then(|m| m.from())
            .and_then(|f| self.position.piece_at(f))
            .map(|p| p.role);
        match role.and_then(|r| self.role_spec(r)) {
            Some(spec) if spec.promotes_to.is_none() => format!("the {} never promotes", spec.name),
            _ => "the move neither starts nor ends in the promotion zone".to_string(),
        }
    }

    fn why_no_board_move(&self, written: &Written<'_>) -> String {
        let position = self.position;
        let tables = position.tables();
        let us = position.side_to_move();
        let to = written.to;
        let kinds = self.kinds(&written.roles);

        if let Some(from) = written.from {
            let from_name = self.square_name(from);
            return match position.piece_at(from) {
                None => format!("there is no piece on {from_name}"),
                Some(p) if p.color != us => format!(
                    "the {} on {from_name} belongs to {}",
                    self.role_name(p.role),
                    p.color
                ),
                Some(p) if !written.roles.contains(&p.role) => format!(
                    "the piece on {from_name} is a {}, not a {kinds}",
                    self.role_name(p.role)
                ),
                Some(p) => {
                    // The promotion flag that the rules would demand, so that the answer is
                    // about reach or safety rather than about the missing `+`.
                    let zone = tables.zone(us);
                    let promote = self.role_spec(p.role).is_some_and(|r| {
                        r.promotes_to.is_some()
                            && (zone.has(from.index()) || zone.has(to.index()))
                            && (tables.spec.promotion.compulsory
                                || written.mark == Some(PromotionMark::Promote))
                    });
                    position.why_illegal(Move::normal(from, to, promote))
                }
            };
        }

        let mut movers = B::EMPTY;
        for &role in &written.roles {
            movers |= position.pieces(us, role);
        }
        if movers.is_empty() {
            return format!("you have no {kinds} on the board");
        }
        let blocked = position
            .pseudo_legal_moves()
            .into_iter()
            .find(|m| m.to() == to && m.from().is_some_and(|f| movers.has(f.index())));
        if let Some(mv) = blocked {
            return position.why_illegal(mv);
        }
        match position.piece_at(to) {
            Some(p) if p.color == us => format!(
                "{} is held by your own {}",
                self.square_name(to),
                self.role_name(p.role)
            ),
            _ => format!("no {kinds} of yours can move to {}", self.square_name(to)),
        }
    }
}
