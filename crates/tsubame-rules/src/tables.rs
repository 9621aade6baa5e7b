//! A variant's data compiled into lookup tables for move generation.

use crate::Color;
use crate::betza::{self, BetzaError, Reach};
use crate::bitboard::Bitboard;
use crate::square::{Geometry, Square};
use crate::variant::{Hook, Role, VariantSpec};
use thiserror::Error;

/// A slide along one vector from every square.
#[derive(Debug)]
pub(crate) struct Slide<B> {
    /// Whether the vector raises the square index (then the nearest blocker is the lowest bit).
    pub ascending: bool,
    /// Squares reachable on an empty board, within the slide's limit, per square.
    pub rays: Vec<B>,
    /// Index into [`Tables::vector_rays`]: unlimited rays along the same vector.
    pub beyond: usize,
}

/// How one kind of one side moves.
#[derive(Debug, Default)]
pub(crate) struct RoleMoves<B> {
    /// Targets that no piece can block, per square.
    pub leaps: Vec<B>,
    /// Slides.
    pub slides: Vec<Slide<B>>,
}

/// Why a variant's data is unusable.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SpecError {
    /// A piece's Betza string is wrong.
    #[error("piece {role}: {source}")]
    Betza {
        /// The piece.
        role: &'static str,
        /// What is wrong.
        source: BetzaError,
    },
    /// The board does not fit the bitboard word.
    #[error("a {width}x{height} board does not fit a {capacity}-square bitboard")]
    BoardTooLarge {
        /// Files.
        width: u8,
        /// Ranks.
        height: u8,
        /// Squares of the word.
        capacity: usize,
    },
}

/// Everything move generation looks up, for one variant and one bitboard word.
#[derive(Debug)]
pub struct Tables<B> {
    /// The variant.
    pub spec: &'static VariantSpec,
    /// The board shape.
    pub geometry: Geometry,
    pub(crate) squares: usize,
    pub(crate) role_count: usize,
    pub(crate) board: B,
    pub(crate) vector_rays: Vec<Vec<B>>,
    /// `[color * role_count + role]`
    pub(crate) moves: Vec<RoleMoves<B>>,
    pub(crate) zone: [B; 2],
    pub(crate) files: Vec<B>,
    /// `[color * role_count + role]`: squares where a drop is barred by rank.
    pub(crate) drop_barred: Vec<B>,
    /// `[(color * role_count + role) * squares + square]`
    pub(crate) piece_keys: Vec<u64>,
    /// `[color * role_count + role]`
    pub(crate) hand_keys: Vec<u64>,
    pub(crate) side_key: u64,
    pub(crate) royal: Option<Role>,
    /// Kinds with at least one slide, whose pieces can pin.
    pub(crate) sliding_roles: Vec<Role>,
    /// `[color * squares + square]`: every square that a slide of any kind of `color` reaches
    /// from `square` on an empty board. A piece leaving a square outside this set around a
    /// royal piece can open no line onto it.
    pub(crate) slide_reach: Vec<B>,
    /// Kinds with the exchange hook.
    pub(crate) exchanging_roles: Vec<Role>,
    /// For each kind, what a capture puts in hand.
    pub(crate) hand_role: Vec<Role>,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<B: Bitboard> Tables<B> {
    /// Compiles a variant's data.
    pub fn new(spec: &'static VariantSpec) -> Result<Tables<B>, SpecError> {
        let geometry = Geometry {
            width: spec.width,
            height: spec.height,
        };
        let squares = geometry.square_count();
        if squares > B::CAPACITY || spec.width == 0 || spec.height == 0 {
            return Err(SpecError::BoardTooLarge {
                width: spec.width,
                height: spec.height,
                capacity: B::CAPACITY,
            });
        }
        let (w, h) = (spec.width as i32, spec.height as i32);
        let on_board = |x: i32, y: i32| x >= 0 && y >= 0 && x < w && y < h;
        let index = |x: i32, y: i32| (y * w + x) as usize;
        let mut board = B::EMPTY;
        for s in 0..squares {
            board |= B::single(s);
        }

        let mut vector_keys: Vec<(i32, i32)> = Vec::new();
        let mut vector_rays: Vec<Vec<B>> = Vec::new();
        let mut vector_index = |dx: i32, dy: i32, vector_rays: &mut Vec<Vec<B>>| -> usize {
            if let Some(i) = vector_keys.iter().position(|&v| v == (dx, dy)) {
                return i;
            }
            let mut rays = Vec::with_capacity(squares);
            for s in 0..squares {
                let (mut x, mut y) = ((s as i32) % w, (s as i32) / w);
                let mut ray = B::EMPTY;
                loop {
                    x += dx;
                    y += dy;
                    if !on_board(x, y) {
                        break;
                    }
                    ray |= B::single(index(x, y));
                }
                rays.push(ray);
            }
            vector_keys.push((dx, dy));
            vector_rays.push(rays);
            vector_keys.len() - 1
        };

        let role_count = spec.roles.len();
        let mut moves = Vec::with_capacity(2 * role_count);
        let mut sliding_roles = Vec::new();
        for color in Color::ALL {
            for (r, role_spec) in spec.roles.iter().enumerate() {
                let atoms = betza::parse(role_spec.betza).map_err(|source| SpecError::Betza {
                    role: role_spec.name,
                    source,
                })?;
                let mut role_moves = RoleMoves {
                    leaps: vec![B::EMPTY; squares],
                    slides: Vec::new(),
                };
                for atom in atoms {
                    // Sente's forward is towards rank a (lower y); its left towards higher files.
                    let (mut dx, mut dy) = (atom.left as i32, -(atom.forward as i32));
                    if color == Color::Gote {
                        dx = -dx;
                        dy = -dy;
                    }
                    match atom.reach {
                        Reach::Leap => {
                            for s in 0..squares {
                                let (x, y) = ((s as i32) % w + dx, (s as i32) / w + dy);
                                if on_board(x, y) {
                                    role_moves.leaps[s] |= B::single(index(x, y));
                                }
                            }
                        }
                        Reach::Slide { limit } => {
                            let beyond = vector_index(dx, dy, &mut vector_rays);
                            let mut rays = Vec::with_capacity(squares);
                            for s in 0..squares {
                                let (mut x, mut y) = ((s as i32) % w, (s as i32) / w);
                                let mut ray = B::EMPTY;
                                let mut steps = 0;
                                while limit == 0 || steps < limit {
                                    x += dx;
                                    y += dy;
                                    if !on_board(x, y) {
                                        break;
                                    }
                                    ray |= B::single(index(x, y));
                                    steps += 1;
                                }
                                rays.push(ray);
                            }
                            let ascending = dy > 0 || (dy == 0 && dx > 0);
                            role_moves.slides.push(Slide {
                                ascending,
                                rays,
                                beyond,
                            });
                        }
                    }
                }
                if color == Color::Sente && !role_moves.slides.is_empty() {
                    sliding_roles.push(Role(r as u8));
                }
                moves.push(role_moves);
            }
        }

        let depth = spec.promotion.zone_depth.min(spec.height) as i32;
        let mut zone = [B::EMPTY; 2];
        let mut files = vec![B::EMPTY; spec.width as usize];
        for s in 0..squares {
            let (x, y) = ((s as i32) % w, (s as i32) / w);
            if y < depth {
                zone[Color::Sente.index()] |= B::single(s);
            }
            if y >= h - depth {
                zone[Color::Gote.index()] |= B::single(s);
            }
            files[x as usize] |= B::single(s);
        }

        let mut drop_barred = Vec::with_capacity(2 * role_count);
        for color in Color::ALL {
            for role_spec in spec.roles {
                let barred = role_spec.drop.barred_far_ranks as i32;
                let mut set = B::EMPTY;
                for s in 0..squares {
                    let y = (s as i32) / w;
                    let far = if color == Color::Sente {
                        y < barred
                    } else {
                        y >= h - barred
                    };
                    if far {
                        set |= B::single(s);
                    }
                }
                drop_barred.push(set);
            }
        }

        let mut seed = spec.name.bytes().fold(0x5453_5542_414D_4531u64, |acc, b| {
            acc.rotate_left(8) ^ b as u64
        });
        let piece_keys = (0..2 * role_count * squares)
            .map(|_| splitmix(&mut seed))
            .collect();
        let hand_keys = (0..2 * role_count).map(|_| splitmix(&mut seed)).collect();
        let side_key = splitmix(&mut seed);

        let royal = spec
            .roles
            .iter()
            .position(|r| r.royal)
            .map(|i| Role(i as u8));
        let exchanging_roles = spec
            .roles
            .iter()
            .enumerate()
            .filter(|(_, r)| r.hooks.contains(&Hook::ExchangeInZone))
            .map(|(i, _)| Role(i as u8))
            .collect();
        let hand_role = spec
            .roles
            .iter()
            .enumerate()
            .map(|(i, r)| r.promoted_from.unwrap_or(Role(i as u8)))
            .collect();

        let slide_reach = [Color::Sente, Color::Gote]
            .iter()
            .flat_map(|&color| {
                let moves = &moves;
                (0..squares).map(move |square| {
                    (0..role_count)
                        .flat_map(|role| &moves[color.index() * role_count + role].slides)
                        .fold(B::EMPTY, |reach, slide| reach | slide.rays[square])
                })
            })
            .collect();

        Ok(Tables {
            spec,
            geometry,
            squares,
            role_count,
            board,
            vector_rays,
            moves,
            zone,
            files,
            drop_barred,
            piece_keys,
            hand_keys,
            side_key,
            royal,
            sliding_roles,
            slide_reach,
            exchanging_roles,
            hand_role,
        })
    }

    /// The kind a piece of `role` is once it has moved, promoting or not.
    #[inline]
    pub(crate) fn moved_role(&self, role: Role, promote: bool) -> Role {
        if promote {
            self.spec.roles[role.index()].promotes_to.unwrap_or(role)
        } else {
            role
        }
    }

    /// Index of a piece in per-piece tables.
    #[inline(always)]
    pub(crate) fn piece_index(&self, color: Color, role: Role) -> usize {
        color.index() * self.role_count + role.index()
    }

    /// Squares attacked by a piece standing on `square`, given the occupied squares.
    #[inline(always)]
    pub(crate) fn attacks(&self, color: Color, role: Role, square: usize, occupied: B) -> B {
        let moves = &self.moves[self.piece_index(color, role)];
        let mut targets = moves.leaps[square];
        for slide in &moves.slides {
            targets |= self.slide_attacks(slide, square, occupied);
        }
        targets
    }

    #[inline(always)]
    pub(crate) fn slide_attacks(&self, slide: &Slide<B>, square: usize, occupied: B) -> B {
        let ray = slide.rays[square];
        let blockers = ray & occupied;
        if blockers.is_empty() {
            ray
        } else {
            let nearest = if slide.ascending {
                blockers.lowest()
            } else {
                blockers.highest()
            };
            ray & !self.vector_rays[slide.beyond][nearest]
        }
    }

    /// Squares strictly between `from` and `to` along a slide from `from`.
    #[inline(always)]
    pub(crate) fn between(&self, slide: &Slide<B>, from: usize, to: usize) -> B {
        let rays = &self.vector_rays[slide.beyond];
        rays[from] & !rays[to] & !B::single(to)
    }

    /// Squares a piece standing on `square` attacks, given the occupied squares.
    #[inline]
    pub fn attacks_from(&self, color: Color, role: Role, square: Square, occupied: B) -> B {
        self.attacks(color, role, square.index(), occupied)
    }

    /// Number of piece kinds.
    pub fn role_count(&self) -> usize {
        self.role_count
    }

    /// Squares on the board.
    pub fn board(&self) -> B {
        self.board
    }

    /// Squares a piece can reach from `square` on an empty board.
    pub fn empty_board_attacks(&self, color: Color, role: Role, square: Square) -> B {
        self.attacks(color, role, square.index(), B::EMPTY)
    }

    /// The promotion zone of a side.
    pub fn zone(&self, color: Color) -> B {
        self.zone[color.index()]
    }
}
