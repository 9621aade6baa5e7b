//! Static evaluation: material on the board and in hand, piece-square terms, mobility, royal
//! safety and, for the side far ahead, the hunt of the enemy royal.
//! Every weight lives in [`EvalParams`], one set per game, so they can be tuned in one place.

use crate::nnue::Network;
use std::sync::Arc;
use tsubame_rules::tenjiku::{self, Lion, TenjikuPosition};
use tsubame_rules::{
    Bitboard, Color, Geometry, Move, Options, Position, Role, Square, Variant, VariantSpec, betza,
    tori,
};

/// Evaluation weights of one game, in centipawns (a Tori swallow is 100). Parameter files
/// ([`crate::params`]) name the fields as written here.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalParams {
    /// Value of each kind on the board, by role index.
    pub board_value: Vec<i32>,
    /// Value of each kind in hand, by role index.
    pub hand_value: Vec<i32>,
    /// Piece-square bonus by kind and by ranks advanced from the own back rank (one entry per
    /// rank of the board).
    pub rank_bonus: Vec<Vec<i32>>,
    /// Piece-square bonus by kind and by files away from the centre file (one entry per step,
    /// the centre file first).
    pub file_bonus: Vec<Vec<i32>>,
    /// Bonus by kind and by place relative to the enemy royal: index
    /// `(forward + height - 1) * (2 * width - 1) + (sideways + width - 1)`, where `forward` and
    /// `sideways` are the piece's steps ahead of and to the right of that royal as its owner
    /// sees the board. Empty when off, as for every table of [`EvalParams::with_every_table`]:
    /// the evaluation then skips it.
    #[serde(default)]
    pub near_enemy_royal: Vec<Vec<i32>>,
    /// The same by place relative to the own royal.
    #[serde(default)]
    pub near_own_royal: Vec<Vec<i32>>,
    /// Bonus for the side whose royal is under attack (tuned negative), by the enemy's attacks
    /// on the squares next to it (at most 11) and the kinds the enemy holds in hand (at most
    /// 3): index `attacks * 4 + kinds`. Together the two make a royal's danger grow faster than
    /// either alone. Empty when off.
    #[serde(default)]
    pub royal_danger: Vec<i32>,
    /// Bonus by kind for a piece the enemy attacks and no own piece defends (tuned negative).
    /// Empty when off.
    #[serde(default)]
    pub hanging: Vec<i32>,
    /// Bonus by kind for a piece the enemy attacks and an own piece defends.
    #[serde(default)]
    pub attacked: Vec<i32>,
    /// Bonus by the number of squares next to the own royal that the enemy attacks and no own
    /// piece but the royal defends (at most [`WEAK_ZONE_SQUARES`]).
    #[serde(default)]
    pub weak_zone: Vec<i32>,
    /// Bonus per square a non-royal piece attacks that is not held by its own side.
    pub mobility: i32,
    /// Bonus per own piece next to the own royal.
    pub royal_shelter: i32,
    /// Penalty per attack of an enemy piece on the squares next to the own royal.
    pub royal_attack: i32,
    /// Penalty per empty square next to the own royal for each kind the opponent holds in
    /// hand (drop threats), counting at most three kinds.
    pub drop_threat: i32,
    /// Bonus for the side to move.
    pub tempo: i32,
    /// Material lead (centipawns) from which the side ahead is steered to finish the game.
    pub mop_up_margin: i32,
    /// For the side ahead: bonus per ring the losing royal stands away from the centre.
    pub mop_up_edge: i32,
    /// For the side ahead: bonus per step its pieces stand closer to the losing royal.
    pub mop_up_tropism: i32,
    /// Tenjiku: penalty, in hundredths, of the second largest gain the enemy threatens
    /// against the side to move ([`tenjiku_threatened_gains`]); 0 switches the term off.
    #[serde(default)]
    pub threat: i32,
    /// A network that evaluates positions in place of the weights above, which then serve
    /// only move ordering and pruning (piece values). Not part of parameter files: a network
    /// is its own file ([`crate::nnue::Network`]).
    #[serde(skip)]
    pub network: Option<Arc<Network>>,
}

/// Which evaluation the engine uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Evaluation {
    /// The weights of [`EvalParams`]: material, placement, mobility, royal safety.
    Classical,
    /// A network ([`crate::nnue`]) where the game has one; the classical evaluation where not.
    /// The default: Tori and Wa (with drops and without) play with their built-in networks,
    /// Tenjiku classically.
    #[default]
    Network,
    /// Piece values only: the baseline strength is measured against.
    Material,
}

/// A name that is no evaluation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("evaluation {0:?} is not classical, nnue or material")]
pub struct UnknownEvaluation(pub String);

impl Evaluation {
    /// The name the engine option and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            Evaluation::Classical => "classical",
            Evaluation::Network => "nnue",
            Evaluation::Material => "material",
        }
    }
}

impl std::str::FromStr for Evaluation {
    type Err = UnknownEvaluation;

    /// `classical` (also `full`, its earlier name), `nnue` or `material`, in any case.
    fn from_str(text: &str) -> Result<Evaluation, UnknownEvaluation> {
        match text.trim().to_ascii_lowercase().as_str() {
            "classical" | "full" => Ok(Evaluation::Classical),
            "nnue" => Ok(Evaluation::Network),
            "material" => Ok(Evaluation::Material),
            _ => Err(UnknownEvaluation(text.chars().take(40).collect())),
        }
    }
}

/// Most enemy attacks next to a royal that [`EvalParams::royal_danger`] tells apart.
pub const DANGER_ATTACKS: usize = 11;
/// Most kinds in the enemy's hand that [`EvalParams::royal_danger`] tells apart.
pub const DANGER_HAND_KINDS: usize = 3;
/// Entries of [`EvalParams::royal_danger`].
pub const DANGER_ENTRIES: usize = (DANGER_ATTACKS + 1) * (DANGER_HAND_KINDS + 1);

/// Most weak squares next to a royal that [`EvalParams::weak_zone`] tells apart.
pub const WEAK_ZONE_SQUARES: usize = 8;

/// One weight of [`EvalParams`]: the evaluation is a sum of weights times counts, so a term
/// names what the count multiplies, and the tuner works on the same terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// `board_value[kind]`.
    Board(usize),
    /// `hand_value[kind]`.
    Hand(usize),
    /// `rank_bonus[kind][ranks advanced]`.
    Rank(usize, usize),
    /// `file_bonus[kind][files from the centre]`.
    File(usize, usize),
    /// `near_enemy_royal[kind][place]`.
    NearEnemyRoyal(usize, usize),
    /// `near_own_royal[kind][place]`.
    NearOwnRoyal(usize, usize),
    /// `royal_danger[attacks * 4 + kinds]`.
    RoyalDanger(usize),
    /// `hanging[kind]`.
    Hanging(usize),
    /// `attacked[kind]`.
    Attacked(usize),
    /// `weak_zone[squares]`.
    WeakZone(usize),
    /// `mobility`.
    Mobility,
    /// `royal_shelter`.
    RoyalShelter,
    /// `royal_attack`.
    RoyalAttack,
    /// `drop_threat`.
    DropThreat,
    /// `tempo`.
    Tempo,
    /// `mop_up_edge`.
    MopUpEdge,
    /// `mop_up_tropism`.
    MopUpTropism,
}

impl Term {
    /// The weight's value in `params` (0 where the game has no such weight).
    #[inline(always)]
    pub fn get(self, params: &EvalParams) -> i32 {
        let value = match self {
            Term::Board(r) => params.board_value.get(r),
            Term::Hand(r) => params.hand_value.get(r),
            Term::Rank(r, i) => params.rank_bonus.get(r).and_then(|t| t.get(i)),
            Term::File(r, i) => params.file_bonus.get(r).and_then(|t| t.get(i)),
            Term::NearEnemyRoyal(r, i) => params.near_enemy_royal.get(r).and_then(|t| t.get(i)),
            Term::NearOwnRoyal(r, i) => params.near_own_royal.get(r).and_then(|t| t.get(i)),
            Term::RoyalDanger(i) => params.royal_danger.get(i),
            Term::Hanging(r) => params.hanging.get(r),
            Term::Attacked(r) => params.attacked.get(r),
            Term::WeakZone(i) => params.weak_zone.get(i),
            Term::Mobility => Some(&params.mobility),
            Term::RoyalShelter => Some(&params.royal_shelter),
            Term::RoyalAttack => Some(&params.royal_attack),
            Term::DropThreat => Some(&params.drop_threat),
            Term::Tempo => Some(&params.tempo),
            Term::MopUpEdge => Some(&params.mop_up_edge),
            Term::MopUpTropism => Some(&params.mop_up_tropism),
        };
        value.copied().unwrap_or(0)
    }

    /// Sets the weight in `params` (nothing where the game has no such weight).
    pub fn set(self, params: &mut EvalParams, value: i32) {
        let target = match self {
            Term::Board(r) => params.board_value.get_mut(r),
            Term::Hand(r) => params.hand_value.get_mut(r),
            Term::Rank(r, i) => params.rank_bonus.get_mut(r).and_then(|t| t.get_mut(i)),
            Term::File(r, i) => params.file_bonus.get_mut(r).and_then(|t| t.get_mut(i)),
            Term::NearEnemyRoyal(r, i) => params
                .near_enemy_royal
                .get_mut(r)
                .and_then(|t| t.get_mut(i)),
            Term::NearOwnRoyal(r, i) => params.near_own_royal.get_mut(r).and_then(|t| t.get_mut(i)),
            Term::RoyalDanger(i) => params.royal_danger.get_mut(i),
            Term::Hanging(r) => params.hanging.get_mut(r),
            Term::Attacked(r) => params.attacked.get_mut(r),
            Term::WeakZone(i) => params.weak_zone.get_mut(i),
            Term::Mobility => Some(&mut params.mobility),
            Term::RoyalShelter => Some(&mut params.royal_shelter),
            Term::RoyalAttack => Some(&mut params.royal_attack),
            Term::DropThreat => Some(&mut params.drop_threat),
            Term::Tempo => Some(&mut params.tempo),
            Term::MopUpEdge => Some(&mut params.mop_up_edge),
            Term::MopUpTropism => Some(&mut params.mop_up_tropism),
        };
        if let Some(target) = target {
            *target = value;
        }
    }

    /// The [`EvalParams`] field the weight lives in.
    pub fn field(self) -> &'static str {
        match self {
            Term::Board(_) => "board_value",
            Term::Hand(_) => "hand_value",
            Term::Rank(..) => "rank_bonus",
            Term::File(..) => "file_bonus",
            Term::NearEnemyRoyal(..) => "near_enemy_royal",
            Term::NearOwnRoyal(..) => "near_own_royal",
            Term::RoyalDanger(_) => "royal_danger",
            Term::Hanging(_) => "hanging",
            Term::Attacked(_) => "attacked",
            Term::WeakZone(_) => "weak_zone",
            Term::Mobility => "mobility",
            Term::RoyalShelter => "royal_shelter",
            Term::RoyalAttack => "royal_attack",
            Term::DropThreat => "drop_threat",
            Term::Tempo => "tempo",
            Term::MopUpEdge => "mop_up_edge",
            Term::MopUpTropism => "mop_up_tropism",
        }
    }

    /// The weight's name, with the kind's name for per-kind weights.
    pub fn name(self, spec: &VariantSpec) -> String {
        let role = |r: usize| spec.roles.get(r).map_or("?", |role| role.name);
        match self {
            Term::Board(r) => format!("board_value {}", role(r)),
            Term::Hand(r) => format!("hand_value {}", role(r)),
            Term::Rank(r, i) => format!("rank_bonus {} {i}", role(r)),
            Term::File(r, i) => format!("file_bonus {} {i}", role(r)),
            Term::NearEnemyRoyal(r, i) => format!("near_enemy_royal {} {i}", role(r)),
            Term::NearOwnRoyal(r, i) => format!("near_own_royal {} {i}", role(r)),
            Term::Hanging(r) => format!("hanging {}", role(r)),
            Term::Attacked(r) => format!("attacked {}", role(r)),
            Term::WeakZone(i) => format!("weak_zone {i}"),
            Term::RoyalDanger(i) => format!(
                "royal_danger {} attacks {} kinds",
                i / (DANGER_HAND_KINDS + 1),
                i % (DANGER_HAND_KINDS + 1)
            ),
            other => format!("{other:?}"),
        }
    }
}

/// Receives the evaluation's terms: `count` times the weight `term`, for the side `color`.
pub trait Terms {
    /// Adds one term.
    fn add(&mut self, color: usize, term: Term, count: i32);
}

/// Sums the terms with their weights: the evaluation itself.
struct Scores<'a> {
    params: &'a EvalParams,
    score: [i32; 2],
}

impl Terms for Scores<'_> {
    #[inline(always)]
    fn add(&mut self, color: usize, term: Term, count: i32) {
        self.score[color] += count * term.get(self.params);
    }
}

/// The tuned parameter file built into the engine for a game, if it has one.
/// A value for a piece from its moves alone, for games without published values: each
/// direction a leap or step counts as one unit, a slide as more, a forward move a little more.
fn value_from_moves(betza_text: &str) -> i32 {
    let Ok(atoms) = betza::parse(betza_text) else {
        return 100;
    };
    let mut units = 0.0f64;
    for atom in atoms {
        let weight = match atom.reach {
            betza::Reach::Leap => 1.0,
            betza::Reach::Slide { limit: 0 } => 2.4,
            betza::Reach::Slide { limit } => 1.0 + 0.45 * f64::from(limit.min(4) - 1),
        };
        let direction = if atom.forward > 0 { 1.15 } else { 1.0 };
        units += weight * direction;
    }
    (units * 100.0 / 1.15).round() as i32
}

/// What a Tenjiku piece's powers beyond its Betza moves are worth.
fn tenjiku_power_value(role: Role) -> i32 {
    let Some(powers) = tenjiku::powers(role) else {
        return 0;
    };
    let mut value = 0;
    value += match powers.lion {
        Lion::None => 0,
        Lion::Full | Lion::LionHawk => 1500,
        Lion::Line(_) => 250,
    };
    value += match powers.area {
        0 => 0,
        2 => 500,
        _ => 900,
    };
    if let Some(jump) = powers.range_jump {
        value += 100 * jump.dirs.count_ones() as i32;
    }
    if powers.tetrarch {
        value += 1200;
    }
    if powers.burns {
        value += 800;
    }
    value
}

impl EvalParams {
    /// The starting weights of a game before tuning: Tori's piece values follow the play
    /// site's guide (swallow 1, pheasant 3, crane 6, quails 7, falcon 7, goose 2, eagle 16; in
    /// hand a little less, the swallow a little more); other games' values come from their
    /// pieces' moves. The tables of [`EvalParams::with_every_table`] start empty (off).
    pub fn derived(spec: &'static VariantSpec) -> EvalParams {
        let n = spec.roles.len();
        let game = Variant::from_spec(spec);
        let mut board_value: Vec<i32> = spec
            .roles
            .iter()
            .map(|r| value_from_moves(r.betza))
            .collect();
        let mut advance = vec![0; n];
        if game == Some(Variant::Tori) {
            let values = [
                (tori::FALCON, 700),
                (tori::EAGLE, 1600),
                (tori::CRANE, 620),
                (tori::PHEASANT, 300),
                (tori::LEFT_QUAIL, 680),
                (tori::RIGHT_QUAIL, 680),
                (tori::SWALLOW, 100),
                (tori::GOOSE, 200),
                (tori::OWL, 500),
                (tori::SHRIKE, 280),
            ];
            for (role, value) in values {
                board_value[role.index()] = value;
            }
            advance[tori::SWALLOW.index()] = 6;
        } else if game != Some(Variant::Tenjiku) {
            // Pawns gain by advancing in Wa; in Tenjiku an advanced pawn mostly opens the
            // lines of the range-jumping generals (a match against the material-only
            // baseline preferred no bonus).
            for (i, role) in spec.roles.iter().enumerate() {
                if role.betza == "fW" {
                    advance[i] = 4;
                }
            }
        }
        if game == Some(Variant::Tenjiku) {
            for (i, value) in board_value.iter_mut().enumerate() {
                *value += tenjiku_power_value(Role(i as u8));
            }
        }
        for (i, role) in spec.roles.iter().enumerate() {
            if role.royal {
                board_value[i] = 0;
            }
        }
        let hand_value = spec
            .roles
            .iter()
            .enumerate()
            .map(|(i, role)| {
                let v = board_value[i];
                if role.promoted_from.is_some() || role.royal {
                    0
                } else if role.drop.max_per_file.is_some() {
                    v * 115 / 100
                } else {
                    v * 92 / 100
                }
            })
            .collect();
        let height = usize::from(spec.height);
        let rank_bonus = advance
            .iter()
            .map(|&per_rank| {
                (0..height as i32)
                    .map(|progress| per_rank * progress)
                    .collect()
            })
            .collect();
        let file_bonus = vec![vec![0; usize::from(spec.width).div_ceil(2)]; n];
        EvalParams {
            board_value,
            hand_value,
            rank_bonus,
            file_bonus,
            near_enemy_royal: Vec::new(),
            near_own_royal: Vec::new(),
            royal_danger: Vec::new(),
            hanging: Vec::new(),
            attacked: Vec::new(),
            weak_zone: Vec::new(),
            mobility: 3,
            royal_shelter: 12,
            royal_attack: 18,
            drop_threat: 6,
            tempo: 10,
            // Wa has no drops to mate with once pieces are traded, so a side ahead must
            // herd the crane king with its pieces; without this, won endings ran into the
            // move limit against HaChu. Tenjiku's won games ran into it too, a side far
            // ahead shuffling pieces that could not see the royal; its pieces are worth
            // more, so its margin is a rook's worth.
            mop_up_margin: if game == Some(Variant::Tenjiku) {
                1000
            } else {
                500
            },
            mop_up_edge: match game {
                Some(Variant::Wa) => 12,
                Some(Variant::Tenjiku) => 10,
                _ => 0,
            },
            mop_up_tropism: match game {
                Some(Variant::Wa | Variant::Tenjiku) => 3,
                _ => 0,
            },
            threat: 0,
            network: None,
        }
    }

    /// What the engine plays a game under these rules with when nothing is set
    /// ([`Evaluation::default`]): the built-in network where the game has one
    /// ([`Network::built_in`]), with [`EvalParams::for_variant`] behind it.
    pub fn engine_default(options: &Options) -> EvalParams {
        let spec = options.variant();
        let classical = EvalParams::for_variant(spec);
        match Evaluation::default() {
            Evaluation::Network => EvalParams {
                network: Network::built_in(options),
                ..classical
            },
            Evaluation::Material => EvalParams::material_baseline(spec),
            Evaluation::Classical => classical,
        }
    }

    /// Whether the search adds the mop-up terms ([`mop_up`]) to a network's evaluation: where
    /// the weights have them (Wa's) and a network evaluates.
    pub fn network_mop_up(&self) -> bool {
        self.network.is_some()
            && self.mop_up_margin > 0
            && (self.mop_up_edge != 0 || self.mop_up_tropism != 0)
    }

    /// These weights with every table that relates pieces to the royals and to each other
    /// (`near_enemy_royal`, `near_own_royal`, `royal_danger`, `hanging`, `attacked`,
    /// `weak_zone`) at its full size for `spec`'s board, zeros where it was empty: the space
    /// a parameter file or the tuner may fill. Tenjiku's evaluation has terms of its own and
    /// keeps them empty.
    pub fn with_every_table(&self, spec: &'static VariantSpec) -> EvalParams {
        let mut params = self.clone();
        if Variant::from_spec(spec) == Some(Variant::Tenjiku) {
            return params;
        }
        let kinds = spec.roles.len();
        let places = (2 * usize::from(spec.height) - 1) * (2 * usize::from(spec.width) - 1);
        for table in [&mut params.near_enemy_royal, &mut params.near_own_royal] {
            if table.is_empty() {
                *table = vec![vec![0; places]; kinds];
            }
        }
        for (table, size) in [
            (&mut params.royal_danger, DANGER_ENTRIES),
            (&mut params.hanging, kinds),
            (&mut params.attacked, kinds),
            (&mut params.weak_zone, WEAK_ZONE_SQUARES + 1),
        ] {
            if table.is_empty() {
                *table = vec![0; size];
            }
        }
        params
    }

    /// These weights with every table of [`EvalParams::with_every_table`] that holds only
    /// zeros emptied. Such a table adds nothing, and the evaluation skips what is empty: the
    /// royal-relative places are worked out only when one of their tables is set, and the
    /// pass over every piece's attacks only when a threat table is.
    pub fn without_zero_tables(mut self) -> EvalParams {
        for table in [&mut self.near_enemy_royal, &mut self.near_own_royal] {
            if table.iter().flatten().all(|&w| w == 0) {
                table.clear();
            }
        }
        for table in [
            &mut self.royal_danger,
            &mut self.hanging,
            &mut self.attacked,
            &mut self.weak_zone,
        ] {
            if table.iter().all(|&w| w == 0) {
                table.clear();
            }
        }
        self
    }

    /// The material-only baseline that strength measurements compare against (the engine's
    /// `Evaluation=material`): the game's standard piece values ([`EvalParams::derived`]) and
    /// nothing else. Tuned or fitted values stay out of it, so that the baseline does not move
    /// when the evaluation it measures is tuned.
    pub fn material_baseline(spec: &'static VariantSpec) -> EvalParams {
        EvalParams::derived(spec).material_only()
    }

    /// The same piece values with every positional term switched off.
    pub fn material_only(&self) -> EvalParams {
        EvalParams {
            board_value: self.board_value.clone(),
            hand_value: self.hand_value.clone(),
            rank_bonus: self.rank_bonus.iter().map(|r| vec![0; r.len()]).collect(),
            file_bonus: self.file_bonus.iter().map(|f| vec![0; f.len()]).collect(),
            near_enemy_royal: Vec::new(),
            near_own_royal: Vec::new(),
            royal_danger: Vec::new(),
            hanging: Vec::new(),
            attacked: Vec::new(),
            weak_zone: Vec::new(),
            mobility: 0,
            royal_shelter: 0,
            royal_attack: 0,
            drop_threat: 0,
            tempo: 0,
            mop_up_margin: 0,
            mop_up_edge: 0,
            mop_up_tropism: 0,
            threat: 0,
            network: None,
        }
    }

    /// The value of a piece kind on the board.
    #[inline]
    pub fn value(&self, role: Role) -> i32 {
        self.board_value.get(role.index()).copied().unwrap_or(0)
    }
}

/// Pieces whose attacks [`terms`] keeps from its first pass (more than any game has on its
/// board); past it they are worked out again.
const MAX_LISTED_PIECES: usize = 128;

/// The position's value for the side to move.
pub fn evaluate<B: Bitboard>(position: &Position<B>, params: &EvalParams) -> i32 {
    let mut scores = Scores {
        params,
        score: [0; 2],
    };
    terms(position, params, &mut scores);
    let side = position.side_to_move().index();
    scores.score[side] - scores.score[1 - side]
}

/// Hands every term of the evaluation of `position` to `sink`; with the weights of `params`
/// they add up to [`evaluate`]. `params` decides only whether the side far ahead gets the
/// mop-up terms.
pub fn terms<B: Bitboard, T: Terms>(position: &Position<B>, params: &EvalParams, sink: &mut T) {
    let tables = position.tables();
    let spec = tables.spec;
    let geometry = tables.geometry;
    let occupied = position.occupied();
    let mut material = [0i32; 2];
    let (width, height) = (i32::from(geometry.width), i32::from(geometry.height));
    let royals = Color::ALL.map(|color| position.royal_square(color));
    let file_rank = |square: usize| board_place(&geometry, Square::from_index(square as u8));
    let royal_places = royals.map(|royal| royal.map(file_rank));
    // Where a piece of `color` at (file, rank) stands relative to a royal at `royal`, as
    // its owner sees the board.
    let place = |color: Color, (file, rank): (i32, i32), royal: Option<(i32, i32)>| {
        royal.map(|(royal_file, royal_rank)| {
            let (forward, right) = match color {
                Color::Sente => (royal_rank - rank, file - royal_file),
                Color::Gote => (rank - royal_rank, royal_file - file),
            };
            ((forward + height - 1) * (2 * width - 1) + right + width - 1) as usize
        })
    };
    let places_near_enemy = !params.near_enemy_royal.is_empty();
    let places_near_own = !params.near_own_royal.is_empty();
    let mut zones = [B::EMPTY; 2];
    let royal_role = spec
        .roles
        .iter()
        .position(|r| r.royal)
        .map_or(Role(0), |i| Role(i as u8));
    for color in Color::ALL {
        if let Some(royal) = royals[color.index()] {
            zones[color.index()] =
                tables.attacks_from(color, royal_role, Square::from_index(royal as u8), B::EMPTY);
        }
    }
    // Each non-royal piece's attacks, worked out once: what each side covers decides which
    // pieces hang and which royal squares are weak.
    let threats =
        !params.hanging.is_empty() || !params.attacked.is_empty() || !params.weak_zone.is_empty();
    let mut attack_list = [B::EMPTY; MAX_LISTED_PIECES];
    let mut listed = 0;
    let mut cover = [B::EMPTY; 2];
    if threats {
        for color in Color::ALL {
            for (r, role_spec) in spec.roles.iter().enumerate() {
                if role_spec.royal {
                    continue;
                }
                let role = Role(r as u8);
                for square in position.pieces(color, role).iter() {
                    let attacks = tables.attacks_from(
                        color,
                        role,
                        Square::from_index(square as u8),
                        occupied,
                    );
                    cover[color.index()] = cover[color.index()] | attacks;
                    if let Some(slot) = attack_list.get_mut(listed) {
                        *slot = attacks;
                    }
                    listed += 1;
                }
            }
        }
    }
    let mut next_listed = 0;
    for color in Color::ALL {
        let us = color.index();
        let own = position.occupied_by(color);
        let enemy_zone = zones[1 - us];
        let mut royal_hits = 0i32;
        let mut hand_kinds = 0i32;
        if threats && royals[us].is_some() {
            let weak = (zones[us] & cover[1 - us] & !cover[us]).count() as usize;
            sink.add(us, Term::WeakZone(weak.min(WEAK_ZONE_SQUARES)), 1);
        }
        // What attacks a piece of this side: the enemy's pieces and royal.
        let enemy_reach = cover[1 - us] | zones[1 - us];
        let own_reach = cover[us] | zones[us];
        for (r, role_spec) in spec.roles.iter().enumerate() {
            let role = Role(r as u8);
            let pieces = position.pieces(color, role);
            let in_hand = position.hand_count(color, role) as i32;
            if in_hand > 0 {
                hand_kinds += 1;
                material[us] += in_hand * params.hand_value[r];
                sink.add(us, Term::Hand(r), in_hand);
            }
            if pieces.is_empty() {
                continue;
            }
            let count = pieces.count() as i32;
            material[us] += count * params.board_value[r];
            sink.add(us, Term::Board(r), count);
            if role_spec.royal {
                sink.add(us, Term::RoyalShelter, (zones[us] & own).count() as i32);
                continue;
            }
            let mut reach = 0;
            for square in pieces.iter() {
                let sq = Square::from_index(square as u8);
                let (file, rank) = file_rank(square);
                let progress = match color {
                    Color::Sente => height - 1 - rank,
                    Color::Gote => rank,
                };
                let from_centre = (2 * file - (width - 1)).abs() / 2;
                sink.add(us, Term::Rank(r, progress as usize), 1);
                sink.add(us, Term::File(r, from_centre as usize), 1);
                if places_near_enemy
                    && let Some(i) = place(color, (file, rank), royal_places[1 - us])
                {
                    sink.add(us, Term::NearEnemyRoyal(r, i), 1);
                }
                if places_near_own && let Some(i) = place(color, (file, rank), royal_places[us]) {
                    sink.add(us, Term::NearOwnRoyal(r, i), 1);
                }
                let attacks = if threats && next_listed < MAX_LISTED_PIECES {
                    attack_list[next_listed]
                } else {
                    tables.attacks_from(color, role, sq, occupied)
                };
                next_listed += 1;
                if threats && enemy_reach.has(square) {
                    if own_reach.has(square) {
                        sink.add(us, Term::Attacked(r), 1);
                    } else {
                        sink.add(us, Term::Hanging(r), 1);
                    }
                }
                reach += (attacks & !own).count() as i32;
                royal_hits += (attacks & enemy_zone).count() as i32;
            }
            sink.add(us, Term::Mobility, reach);
        }
        sink.add(1 - us, Term::RoyalAttack, -royal_hits);
        let hand_kinds = hand_kinds.min(DANGER_HAND_KINDS as i32);
        let empty_near_enemy_royal = (enemy_zone & !occupied).count() as i32;
        sink.add(
            1 - us,
            Term::DropThreat,
            -hand_kinds * empty_near_enemy_royal,
        );
        if royals[1 - us].is_some() && !params.royal_danger.is_empty() {
            let attacks = (royal_hits as usize).min(DANGER_ATTACKS);
            sink.add(
                1 - us,
                Term::RoyalDanger(attacks * (DANGER_HAND_KINDS + 1) + hand_kinds as usize),
                1,
            );
        }
    }
    let lead = material[0] - material[1];
    if params.mop_up_margin > 0 && lead.abs() >= params.mop_up_margin {
        let ahead = if lead < 0 { Color::Gote } else { Color::Sente };
        if let Some((off_centre, closeness)) = mop_up_counts(position, ahead) {
            sink.add(ahead.index(), Term::MopUpEdge, off_centre);
            sink.add(ahead.index(), Term::MopUpTropism, closeness);
        }
    }
    sink.add(position.side_to_move().index(), Term::Tempo, 1);
}

/// The mop-up terms that [`terms`] gives the side `ahead` once it leads by
/// `params.mop_up_margin`, weighted: the enemy royal's distance from the centre and the
/// closeness of `ahead`'s other pieces to it. A network evaluates positions without them, and
/// the search adds them where the network's own score shows a side that far ahead
/// ([`EvalParams::network_mop_up`]): a network trained on self-play that mostly ends drawn at
/// the move limit has no notion of herding a bare king, which a game without drops needs to
/// be won (a Wa network scored 17-14-9 against HaChu without them, 54 games, and about 80 %
/// with them; see docs/networks.md). Zero where the enemy has no royal.
pub fn mop_up<B: Bitboard>(position: &Position<B>, params: &EvalParams, ahead: Color) -> i32 {
    mop_up_counts(position, ahead).map_or(0, |(off_centre, closeness)| {
        params.mop_up_edge * off_centre + params.mop_up_tropism * closeness
    })
}

/// A square's (file, rank), both counted from 0 (the rules number files from 1), so that the
/// centre is at (width - 1) / 2 for both sides.
fn board_place(geometry: &Geometry, square: Square) -> (i32, i32) {
    (
        i32::from(geometry.file(square)) - 1,
        i32::from(geometry.rank(square)),
    )
}

/// What the mop-up terms count for the side `ahead`: how many rings the enemy royal stands
/// from the centre, and the summed closeness (the board's span less the king-move distance)
/// of `ahead`'s other pieces to it. `None` where the enemy has no royal.
fn mop_up_counts<B: Bitboard>(position: &Position<B>, ahead: Color) -> Option<(i32, i32)> {
    let tables = position.tables();
    let geometry = tables.geometry;
    let royal = position.royal_square(!ahead)?;
    let royal = Square::from_index(royal as u8);
    let (width, height) = (i32::from(geometry.width), i32::from(geometry.height));
    let span = width.max(height);
    let (royal_file, royal_rank) = board_place(&geometry, royal);
    let off_centre = (2 * royal_file - (width - 1))
        .abs()
        .max((2 * royal_rank - (height - 1)).abs())
        / 2;
    let mut closeness = 0;
    for (r, role_spec) in tables.spec.roles.iter().enumerate() {
        if role_spec.royal {
            continue;
        }
        for square in position.pieces(ahead, Role(r as u8)).iter() {
            let sq = Square::from_index(square as u8);
            let (file, rank) = board_place(&geometry, sq);
            closeness += span - (file - royal_file).abs().max((rank - royal_rank).abs());
        }
    }
    Some((off_centre, closeness))
}

/// A Tenjiku position's value for the side to move: material, advancement, centralisation,
/// the danger of enemy fire demons and of an unguarded royal, and, for a side ahead by
/// `params.mop_up_margin` in material, the mop-up terms ([`tenjiku_mop_up_counts`]).
pub fn evaluate_tenjiku(position: &TenjikuPosition, params: &EvalParams) -> i32 {
    let mut score = [0i32; 2];
    let mut material = [0i32; 2];
    let mut royals = [RoyalPlaces::default(); 2];
    for color in Color::ALL {
        let us = color.index();
        let them = !color;
        let own = position.occupied_by(color);
        let royal_count = position.royal_count(color);
        for square in own.iter() {
            let Some(piece) = position.piece_at(Square::from_index(square as u8)) else {
                continue;
            };
            let r = piece.role.index();
            let (x, y) = ((square % 16) as i32, (square / 16) as i32);
            let value = params.board_value.get(r).copied().unwrap_or(0);
            score[us] += value;
            material[us] += value;
            let progress = match color {
                Color::Sente => 15 - y,
                Color::Gote => y,
            };
            score[us] += params
                .rank_bonus
                .get(r)
                .and_then(|by_rank| by_rank.get(progress as usize))
                .copied()
                .unwrap_or(0);
            // Central pieces reach more of the board.
            let centrality = 14 - ((2 * x - 15).abs() + (2 * y - 15).abs()) / 2;
            score[us] += centrality * params.mobility / 3;
            if !is_tenjiku_royal(piece.role) {
                continue;
            }
            royals[us].push(x, y);
            let at = Square::from_index(square as u8);
            let shelter = (position.neighbours(at) & own)
                .iter()
                .filter(|&f| {
                    position
                        .piece_at(Square::from_index(f as u8))
                        .is_some_and(|p| !is_tenjiku_royal(p.role))
                })
                .count() as i32;
            let attackers = (position.within_two(at) & position.occupied_by(them))
                .iter()
                .filter(|&e| {
                    position
                        .piece_at(Square::from_index(e as u8))
                        .is_some_and(|p| !is_tenjiku_royal(p.role))
                })
                .count() as i32;
            // A demon within four king steps can burn the royal next move.
            let threats = position
                .demons(them)
                .iter()
                .filter(|&d| {
                    let (dx, dy) = ((d % 16) as i32, (d / 16) as i32);
                    (dx - x).abs() <= 4 && (dy - y).abs() <= 4
                })
                .count() as i32;
            // A single royal is the whole game; a second one is insurance.
            let weight = if royal_count == 1 { 3 } else { 1 };
            score[us] += shelter * params.royal_shelter;
            score[us] -=
                weight * (threats * params.royal_attack * 2 + attackers * params.royal_attack);
        }
    }
    let lead = material[0] - material[1];
    if params.mop_up_margin > 0 && lead.abs() >= params.mop_up_margin {
        let ahead = if lead < 0 { Color::Gote } else { Color::Sente };
        let (off_centre, closeness) =
            mop_up_counts_around(position, ahead, royals[(!ahead).index()].places());
        score[ahead.index()] += params.mop_up_edge * off_centre + params.mop_up_tropism * closeness;
    }
    let side = position.side_to_move().index();
    if params.threat != 0 {
        let [_, second] = tenjiku_threatened_gains(position, params);
        score[side] -= params.threat * second / 100;
    }
    score[side] - score[1 - side] + params.tempo
}

/// What a threat on a royal counts as in [`tenjiku_threatened_gains`]: its capture ends the
/// game when it is the last, so it ranks above any piece's loss.
pub const ROYAL_THREAT_GAIN: i32 = 3000;

/// The two largest gains the enemy of the side to move threatens, largest first: for each
/// piece of the side to move that an enemy capture (at the destination, or on a lion's or
/// igui's way) takes with a cheaper piece, its value less the capturer's, counted once at its
/// best capture; a royal counts as [`ROYAL_THREAT_GAIN`]. The side to move saves one piece
/// with its move, and its own captures are the quiescence search's, so the second largest is
/// what a static evaluation misses.
pub fn tenjiku_threatened_gains(position: &TenjikuPosition, params: &EvalParams) -> [i32; 2] {
    thread_local! {
        static CAPTURES: std::cell::RefCell<Vec<Move>> =
            std::cell::RefCell::new(Vec::with_capacity(256));
    }
    let value_at = |square: Square| {
        position.piece_at(square).map(|piece| {
            if is_tenjiku_royal(piece.role) {
                ROYAL_THREAT_GAIN
            } else {
                params.value(piece.role)
            }
        })
    };
    let own = position.occupied_by(position.side_to_move());
    let mut enemy_to_move = position.clone();
    enemy_to_move.make_null_move();
    // The best two gains on distinct squares: (square, gain).
    let mut best = [(usize::MAX, 0i32); 2];
    let mut note = |square: Square, gain: i32| {
        let index = square.index();
        if gain <= 0 {
            return;
        }
        if best[0].0 == index {
            best[0].1 = best[0].1.max(gain);
        } else if best[1].0 == index {
            best[1].1 = best[1].1.max(gain);
        } else if gain > best[1].1 {
            best[1] = (index, gain);
        }
        if best[1].1 > best[0].1 {
            best.swap(0, 1);
        }
    };
    CAPTURES.with(|captures| {
        let Ok(mut captures) = captures.try_borrow_mut() else {
            return;
        };
        captures.clear();
        enemy_to_move.generate_captures(&mut captures);
        for &mv in captures.iter() {
            let Some(from) = mv.from() else {
                continue;
            };
            let capturer = position
                .piece_at(from)
                .map_or(0, |piece| params.value(piece.role));
            let to = mv.to();
            for victim in [(from != to).then_some(to), mv.middle()]
                .into_iter()
                .flatten()
            {
                if own.has(victim.index())
                    && let Some(value) = value_at(victim)
                {
                    note(victim, value - capturer);
                }
            }
        }
    });
    [best[0].1, best[1].1]
}

/// What Tenjiku's mop-up terms count for the side `ahead`: how many rings the enemy royals
/// stand from the centre (summed over the king and crown prince, both of which must fall),
/// and the summed closeness (16 less the king-move distance) of `ahead`'s other pieces to the
/// nearest of them. Without them a side far ahead at a fixed search depth has no reason to
/// close in on a royal that many pieces' moves cannot reach, and such games ran into the
/// move limit.
pub fn tenjiku_mop_up_counts(position: &TenjikuPosition, ahead: Color) -> (i32, i32) {
    let mut royals = RoyalPlaces::default();
    for square in position.occupied_by(!ahead).iter() {
        if position
            .piece_at(Square::from_index(square as u8))
            .is_some_and(|piece| is_tenjiku_royal(piece.role))
        {
            royals.push((square % 16) as i32, (square / 16) as i32);
        }
    }
    mop_up_counts_around(position, ahead, royals.places())
}

/// [`tenjiku_mop_up_counts`] with the enemy royals' places (file, rank) already found, as
/// [`evaluate_tenjiku`] finds them on its way over the board.
fn mop_up_counts_around(
    position: &TenjikuPosition,
    ahead: Color,
    enemy_royals: &[(i32, i32)],
) -> (i32, i32) {
    if enemy_royals.is_empty() {
        return (0, 0);
    }
    let off_centre = enemy_royals
        .iter()
        .map(|&(x, y)| (2 * x - 15).abs().max((2 * y - 15).abs()) / 2)
        .sum();
    let mut closeness = 0;
    for square in position.occupied_by(ahead).iter() {
        let Some(piece) = position.piece_at(Square::from_index(square as u8)) else {
            continue;
        };
        if is_tenjiku_royal(piece.role) {
            continue;
        }
        let (x, y) = ((square % 16) as i32, (square / 16) as i32);
        let nearest = enemy_royals
            .iter()
            .map(|&(rx, ry)| (rx - x).abs().max((ry - y).abs()))
            .min()
            .unwrap_or(16);
        closeness += 16 - nearest;
    }
    (off_centre, closeness)
}

/// Whether a Tenjiku role is royal (the king, the crown prince): its capture, when it is the
/// side's last royal, ends the game.
fn is_tenjiku_royal(role: Role) -> bool {
    tenjiku::spec()
        .roles
        .get(role.index())
        .is_some_and(|spec| spec.royal)
}

/// The places (file, rank) of one side's royals: the king and a crown prince promoted from
/// the drunk elephant in play; a position set up with more counts its first
/// [`RoyalPlaces::MAX`].
#[derive(Clone, Copy, Default)]
struct RoyalPlaces {
    places: [(i32, i32); RoyalPlaces::MAX],
    count: usize,
}

impl RoyalPlaces {
    const MAX: usize = 4;

    fn push(&mut self, file: i32, rank: i32) {
        if let Some(slot) = self.places.get_mut(self.count) {
            *slot = (file, rank);
            self.count += 1;
        }
    }

    fn places(&self) -> &[(i32, i32)] {
        self.places.get(..self.count).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::{Options, wa};

    /// Every term of a position with its side, summed.
    fn terms_of(sfen: &str) -> std::collections::HashMap<(usize, Term), i32> {
        struct Record(std::collections::HashMap<(usize, Term), i32>);
        impl Terms for Record {
            fn add(&mut self, color: usize, term: Term, count: i32) {
                *self.0.entry((color, term)).or_default() += count;
            }
        }
        let rules = Options::defaults(tori::spec()).rule_set();
        let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
        let mut record = Record(Default::default());
        terms(
            &position,
            &EvalParams::for_variant(tori::spec()),
            &mut record,
        );
        record.0
    }

    #[test]
    fn hanging_and_defended_pieces_and_weak_royal_squares_are_counted() {
        // The falcon and the swallow attack each other and nothing defends either.
        let terms = terms_of("3k3/7/7/3s3/3F3/7/3K3 b - 1");
        let (sente, gote) = (0, 1);
        assert_eq!(
            terms.get(&(sente, Term::Hanging(tori::FALCON.index()))),
            Some(&1)
        );
        assert_eq!(
            terms.get(&(gote, Term::Hanging(tori::SWALLOW.index()))),
            Some(&1)
        );
        assert!(!terms.keys().any(|(_, t)| matches!(t, Term::Attacked(_))));
        assert_eq!(terms.get(&(sente, Term::WeakZone(0))), Some(&1));
        // With the phoenix one step behind, the falcon is defended.
        let terms = terms_of("3k3/7/7/3s3/3F3/3K3/7 b - 1");
        assert_eq!(
            terms.get(&(sente, Term::Attacked(tori::FALCON.index()))),
            Some(&1)
        );
        assert!(!terms.contains_key(&(sente, Term::Hanging(tori::FALCON.index()))));
        // Gote's swallow on 4d attacks 4e, next to the phoenix, which only the phoenix
        // defends: one weak square.
        assert_eq!(terms.get(&(sente, Term::WeakZone(1))), Some(&1));
        // A gote falcon next to sente's phoenix attacks royal squares nothing else defends.
        let terms = terms_of("3k3/7/7/7/7/2f4/3K3 b - 1");
        let weak = terms
            .keys()
            .find_map(|&(c, t)| match t {
                Term::WeakZone(n) if c == sente => Some(n),
                _ => None,
            })
            .unwrap();
        // It attacks 5g and 4f of the phoenix's squares (not 5f, where it stands).
        assert_eq!(weak, 2);
        assert_eq!(
            terms.get(&(gote, Term::Attacked(tori::FALCON.index()))),
            None
        );
        assert_eq!(
            terms.get(&(gote, Term::Hanging(tori::FALCON.index()))),
            Some(&1)
        );
    }

    #[test]
    fn tables_of_zeros_and_empty_tables_evaluate_alike() {
        let rules = Options::defaults(tori::spec()).rule_set();
        let compact = EvalParams::for_variant(tori::spec());
        assert!(compact.near_enemy_royal.is_empty() && compact.near_own_royal.is_empty());
        assert!(!compact.hanging.is_empty() && !compact.royal_danger.is_empty());
        let full = compact.with_every_table(tori::spec());
        assert!(!full.near_enemy_royal.is_empty());
        assert_eq!(full.clone().without_zero_tables(), compact);
        for sfen in [
            "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1",
            "2+Spc+F1/6l/+Sc1s1ss/Sks1s2/3SSSS/L1C1sF1/3KCPR w PSprss 49",
            "Lpc2pl/s1k1Fc1/1s3ss/2sS3/1S2sPs/1SK1CS1/1PC1F1R w RSssss 29",
        ] {
            let position = Position::from_sfen(tori::tables(), sfen, rules).unwrap();
            assert_eq!(
                evaluate(&position, &compact),
                evaluate(&position, &full),
                "{sfen}"
            );
        }
        // Wa's derived weights have no tables: without fitted ones its evaluation makes no
        // pass over the attacks.
        let wa_params = EvalParams::derived(wa::spec());
        assert!(wa_params.hanging.is_empty() && wa_params.attacked.is_empty());
        assert!(wa_params.weak_zone.is_empty() && wa_params.royal_danger.is_empty());
    }

    #[test]
    fn start_positions_are_balanced_apart_from_the_tempo() {
        let tori_params = EvalParams::derived(tori::spec());
        let start = tori::start(&Options::defaults(tori::spec())).unwrap();
        assert_eq!(evaluate(&start, &tori_params), tori_params.tempo);
        let wa_params = EvalParams::for_variant(wa::spec());
        let start = wa::start(&Options::defaults(wa::spec())).unwrap();
        assert_eq!(evaluate(&start, &wa_params), wa_params.tempo);
    }

    #[test]
    fn tori_values_follow_the_guide_and_wa_values_follow_the_moves() {
        let p = EvalParams::derived(tori::spec());
        assert_eq!(p.value(tori::EAGLE), 1600);
        assert!(p.hand_value[tori::SWALLOW.index()] > p.value(tori::SWALLOW));
        assert!(p.hand_value[tori::FALCON.index()] < p.value(tori::FALCON));
        let w = EvalParams::derived(wa::spec());
        assert_eq!(w.value(wa::SPARROW_PAWN), 100);
        assert!(w.value(wa::GLIDING_SWALLOW) > w.value(wa::SWALLOWS_WINGS));
        assert!(w.value(wa::TENACIOUS_FALCON) > w.value(wa::FLYING_FALCON));
        assert!(w.value(wa::FLYING_FALCON) > w.value(wa::VIOLENT_WOLF));
        assert_eq!(w.value(wa::CRANE_KING), 0);
    }

    #[test]
    fn the_side_far_ahead_in_wa_wants_the_enemy_royal_on_the_edge_and_its_pieces_near_it() {
        let params = EvalParams::for_variant(wa::spec());
        let without = EvalParams {
            mop_up_edge: 0,
            mop_up_tropism: 0,
            ..params.clone()
        };
        let rules = Options::parse(wa::spec(), "drops=off").unwrap().rule_set();
        // The mop-up part of the evaluation alone.
        let mop_up = |sfen: &str| {
            let position = Position::from_sfen(wa::tables(), sfen, rules).unwrap();
            evaluate(&position, &params) - evaluate(&position, &without)
        };
        // Sente has two flying falcons against a bare crane king. From 6e to 6a the king is
        // four rings further out, and each falcon four steps further away.
        let centre = mop_up("11/11/11/11/5k5/11/11/11/11/11/F4K4F b - 1");
        let edge = mop_up("5k5/11/11/11/11/11/11/11/11/11/F4K4F b - 1");
        assert_eq!(
            centre,
            params.mop_up_edge + 2 * (11 - 6) * params.mop_up_tropism
        );
        assert_eq!(edge, 5 * params.mop_up_edge + 2 * params.mop_up_tropism);
        let near = mop_up("5k5/11/11/3FF6/11/11/11/11/11/11/5K5 b - 1");
        assert_eq!(
            near,
            5 * params.mop_up_edge + 2 * (11 - 3) * params.mop_up_tropism
        );
        // Gote to move: the lead is still sente's, so the term counts against gote.
        let gote_to_move = mop_up("5k5/11/11/3FF6/11/11/11/11/11/11/5K5 w - 1");
        assert_eq!(gote_to_move, -near);
        // The terms alone, as the search adds them to a network's score, are the same.
        let alone = |sfen: &str, ahead: Color| {
            let position = Position::from_sfen(wa::tables(), sfen, rules).unwrap();
            super::mop_up(&position, &params, ahead)
        };
        assert_eq!(
            alone("11/11/11/11/5k5/11/11/11/11/11/F4K4F b - 1", Color::Sente),
            centre
        );
        assert_eq!(
            alone("5k5/11/11/11/11/11/11/11/11/11/F4K4F w - 1", Color::Sente),
            edge
        );
        assert_eq!(
            alone("5k5/11/11/3FF6/11/11/11/11/11/11/5K5 b - 1", Color::Sente),
            near
        );
        // Gote herding sente's royal: its lone royal counts for nothing.
        assert_eq!(
            alone("5k5/11/11/3FF6/11/11/11/11/11/11/5K5 b - 1", Color::Gote),
            5 * params.mop_up_edge
        );
        // With even material the royal's place and the distances are not rewarded.
        let even = |sfen: &str| {
            let position = Position::from_sfen(wa::tables(), sfen, rules).unwrap();
            evaluate(&position, &params.material_only())
        };
        assert_eq!(
            even("5k5/11/11/11/11/11/11/11/11/11/F4K4F b - 1"),
            even("11/11/11/11/5k5/11/11/11/11/11/F4K4F b - 1")
        );
    }

    #[test]
    fn the_side_far_ahead_in_tenjiku_wants_its_pieces_near_the_enemy_royals() {
        use tsubame_rules::tenjiku::{ROOK, TenjikuRules};
        let built_in = EvalParams::for_variant(tenjiku::spec());
        // A margin two rooks clear and one does not, whatever the fitted rook is worth.
        let params = EvalParams {
            mop_up_margin: 2 * built_in.value(ROOK),
            mop_up_edge: 10,
            mop_up_tropism: 3,
            ..built_in
        };
        let without = EvalParams {
            mop_up_edge: 0,
            mop_up_tropism: 0,
            ..params.clone()
        };
        let position =
            |sfen: &str| TenjikuPosition::from_sfen(sfen, TenjikuRules::DEFAULT).unwrap();
        // The mop-up part of the evaluation alone, for the side to move.
        let mop_up = |sfen: &str| {
            let position = position(sfen);
            evaluate_tenjiku(&position, &params) - evaluate_tenjiku(&position, &without)
        };
        // Two rooks ahead (the margin). Gote's king in the centre: no ring out, each
        // rook eight king steps away.
        let rows = |king_row: usize, extra: &str| {
            let mut rows = vec!["16"; 16];
            rows[king_row] = "7k8";
            if !extra.is_empty() {
                rows[14] = extra;
            }
            rows[15] = "R6K7R";
            rows.join("/")
        };
        let closeness = |distance: i32| 16 - distance;
        let centre = rows(7, "");
        assert_eq!(mop_up(&format!("{centre} b - 1")), 3 * 2 * closeness(8));
        // On its own back rank, seven rings out, and the rooks fifteen steps away.
        let edge = rows(0, "");
        assert_eq!(
            mop_up(&format!("{edge} b - 1")),
            10 * 7 + 3 * 2 * closeness(15)
        );
        assert_eq!(
            tenjiku_mop_up_counts(&position(&format!("{edge} b - 1")), Color::Sente),
            (7, 2)
        );
        // Gote to move: the lead is still sente's, so the terms count against gote.
        assert_eq!(
            mop_up(&format!("{edge} w - 1")),
            -(10 * 7 + 3 * 2 * closeness(15))
        );
        // A crown prince beside the left rook: both royals' rings count (seven each), and
        // each rook its distance to the nearer royal: the left one step from the prince, the
        // right fifteen from either.
        let prince = rows(0, "+e15");
        assert_eq!(
            tenjiku_mop_up_counts(&position(&format!("{prince} b - 1")), Color::Sente),
            (14, closeness(1) + closeness(15))
        );
        // Even material: no mop-up, wherever the king stands.
        let even = "7k7r/16/16/16/16/16/16/16/16/16/16/16/16/16/16/R6K8 b - 1";
        assert_eq!(mop_up(even), 0);
        // Counted for gote, whose only piece is its king: nothing to close in with.
        assert_eq!(
            tenjiku_mop_up_counts(&position(&format!("{edge} b - 1")), Color::Gote).1,
            0
        );
    }

    #[test]
    fn tenjiku_threats_count_the_pieces_cheaper_enemies_can_take() {
        use tsubame_rules::tenjiku::{GOLD, PAWN, ROOK, TenjikuRules};
        let params = EvalParams::for_variant(tenjiku::spec());
        let position =
            |sfen: &str| TenjikuPosition::from_sfen(sfen, TenjikuRules::DEFAULT).unwrap();
        // Gote's pawn on 9f attacks sente's gold on 9g, gote's gold on 13j sente's rook on
        // 13k.
        let board = "7k8/16/16/16/16/7p8/7G8/16/16/3g12/3R12/16/16/16/16/7K8";
        let (rook, gold, pawn) = (params.value(ROOK), params.value(GOLD), params.value(PAWN));
        let mut expected = [gold - pawn, rook - gold];
        expected.sort_unstable_by(|a, b| b.cmp(a));
        let sente_to_move = position(&format!("{board} b - 1"));
        assert_eq!(tenjiku_threatened_gains(&sente_to_move, &params), expected);
        // Gote to move: sente's rook and gold attack only dearer pieces than themselves.
        let gote_to_move = position(&format!("{board} w - 1"));
        assert_eq!(tenjiku_threatened_gains(&gote_to_move, &params), [0, 0]);
        // The term costs the side to move the smaller threatened gain.
        let with_threat = EvalParams {
            threat: 100,
            ..params.clone()
        };
        assert_eq!(
            evaluate_tenjiku(&sente_to_move, &with_threat),
            evaluate_tenjiku(&sente_to_move, &params) - expected[1]
        );
        assert_eq!(
            evaluate_tenjiku(&gote_to_move, &with_threat),
            evaluate_tenjiku(&gote_to_move, &params)
        );
        // A threatened king ranks first.
        let king_attacked =
            position("16/16/16/16/16/7p8/7K8/16/16/3g12/3R12/16/16/16/16/7k8 b - 1");
        assert_eq!(
            tenjiku_threatened_gains(&king_attacked, &params),
            [ROYAL_THREAT_GAIN - pawn, rook - gold]
        );
    }

    #[test]
    fn a_captured_piece_shows_in_the_score() {
        let params = EvalParams::for_variant(tori::spec());
        let rules = Options::defaults(tori::spec()).rule_set();
        let even = Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b - 1", rules).unwrap();
        let ahead = Position::from_sfen(tori::tables(), "3k3/7/7/7/7/7/3K3 b C 1", rules).unwrap();
        assert!(evaluate(&ahead, &params) > evaluate(&even, &params) + 400);
    }

    /// `sfen` turned half a turn with the colours swapped: the same game seen from the other
    /// side, whose evaluation for the side to move is the same.
    fn turned(sfen: &str) -> String {
        let mut fields = sfen.split(' ');
        let (board, side, hand, rest) = (
            fields.next().unwrap(),
            fields.next().unwrap(),
            fields.next().unwrap(),
            fields.collect::<Vec<_>>(),
        );
        let swap_case = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        let ranks: Vec<String> = board
            .split('/')
            .rev()
            .map(|rank| {
                // Tokens: a run of empty squares, or a piece with its promotion mark.
                let mut tokens: Vec<String> = Vec::new();
                let mut chars = rank.chars().peekable();
                while let Some(c) = chars.next() {
                    let mut token = String::from(swap_case(c));
                    if c.is_ascii_digit() {
                        while let Some(d) = chars.next_if(char::is_ascii_digit) {
                            token.push(d);
                        }
                    } else if c == '+' {
                        token.push(swap_case(chars.next().unwrap()));
                    }
                    tokens.push(token);
                }
                tokens.into_iter().rev().collect()
            })
            .collect();
        let side = if side == "b" { "w" } else { "b" };
        let hand: String = hand.chars().map(swap_case).collect();
        let mut turned = vec![ranks.join("/"), side.to_string(), hand];
        turned.extend(rest.into_iter().map(str::to_string));
        turned.join(" ")
    }

    /// Weights with every table switched on and set to arbitrary values, so that no term
    /// hides behind a zero.
    fn scrambled(spec: &'static VariantSpec) -> EvalParams {
        let mut params = EvalParams::derived(spec).with_every_table(spec);
        let mut random = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            (random % 41) as i32 - 20
        };
        for table in [
            &mut params.rank_bonus,
            &mut params.file_bonus,
            &mut params.near_enemy_royal,
            &mut params.near_own_royal,
        ] {
            table.iter_mut().flatten().for_each(|v| *v = next());
        }
        for table in [
            &mut params.hanging,
            &mut params.attacked,
            &mut params.weak_zone,
            &mut params.royal_danger,
        ] {
            table.iter_mut().for_each(|v| *v = next());
        }
        params.mop_up_margin = 1;
        params.mop_up_edge = 7;
        params.mop_up_tropism = 3;
        params
    }

    /// Tori and Wa play the same from either side of the board: a position and the same
    /// position turned half a turn with the colours swapped evaluate alike, along random
    /// games with every term switched on (files from the centre, places around the royals,
    /// mop-up rings among them).
    fn evaluations_do_not_depend_on_which_side_sits_where<B: Bitboard>(start: Position<B>) {
        let tables = start.tables();
        let params = scrambled(tables.spec);
        let rules = start.rules();
        let mut random = 7_u64;
        for game in 0..6 {
            let mut position = start.clone();
            for _ in 0..(40 + 20 * game) {
                let sfen = position.to_sfen();
                let mirror = Position::from_sfen(tables, &turned(&sfen), rules).unwrap();
                assert_eq!(
                    evaluate(&position, &params),
                    evaluate(&mirror, &params),
                    "{sfen} against {}",
                    mirror.to_sfen()
                );
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                random = random
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                position.make_move(moves[(random >> 33) as usize % moves.len()]);
            }
        }
    }

    #[test]
    fn tori_evaluates_alike_from_either_side() {
        evaluations_do_not_depend_on_which_side_sits_where(
            tori::start(&Options::defaults(tori::spec())).unwrap(),
        );
    }

    #[test]
    fn wa_evaluates_alike_from_either_side() {
        for options in ["", "drops=off"] {
            let options = Options::parse(wa::spec(), options).unwrap();
            evaluations_do_not_depend_on_which_side_sits_where(wa::start(&options).unwrap());
        }
    }
}
