//! Tenjiku shogi as data, following the project's rules page `rules/tenjiku-shogi.md`.
//!
//! Every piece kind is a [`RoleSpec`] whose Betza string holds its ordinary moves (steps,
//! slides, limited slides, jumps) and a [`Powers`] entry for what Betza cannot say: lion power,
//! area moves, range jumps with the generals' rank rule, the heavenly tetrarch and burning.
//! Rule options pick between readings of the sources (lion hawk, free eagle, demon conflict,
//! range jumps, promotion).
//!
//! ```
//! use tsubame_rules::tenjiku::{self, TenjikuPosition};
//! use tsubame_rules::Options;
//! let position = TenjikuPosition::start(&Options::defaults(tenjiku::spec()));
//! assert_eq!(position.legal_moves().len(), 76);
//! let after = position.after_usi("9l9k").unwrap();
//! assert_eq!(after.side_to_move(), tsubame_rules::Color::Gote);
//! ```
//!
//! # Piece codes
//!
//! SFEN and FEN write each kind as one letter, or a letter followed by `'` or `!` (upper case for
//! sente); a promoted kind has a leading `+`; a piece whose last move declined a promotion it
//! was allowed (so that its next move may promote only by capturing) has a trailing `=`.
//! The letters are HaChu's, so positions pass to XBoard and HaChu by changing only the colour
//! and rank order; HaChu has no dog, which is `D'` here.
//!
//! | code | piece | code | piece | code | piece |
//! |---|---|---|---|---|---|
//! | `K` | king | `Q!` | great general | `V!` | vice general |
//! | `R!` | rook general | `B!` | bishop general | `Q'` | free eagle |
//! | `Q` | free king | `E!` | soaring eagle | `F!` | horned falcon |
//! | `W!` | water buffalo | `C!` | chariot soldier | `D!` | fire demon |
//! | `H!` | lion hawk | `L!` | lion | `D` | dragon king |
//! | `H` | dragon horse | `R` | rook | `B` | bishop |
//! | `O` | kirin | `X` | phoenix | `E` | drunk elephant |
//! | `T` | blind tiger | `F` | ferocious leopard | `G` | gold general |
//! | `S` | silver general | `C` | copper general | `V` | vertical mover |
//! | `M` | side mover | `A` | reverse chariot | `V'` | vertical soldier |
//! | `S'` | side soldier | `L` | lance | `N` | knight |
//! | `I` | iron general | `D'` | dog | `P` | pawn |
//!
//! Promoted kinds: `+R!` (great general), `+B!` (vice general), `+Q` (free eagle), `+E!` (rook
//! general), `+F!` (bishop general), `+W!` (fire demon), `+C!` (heavenly tetrarch), `+L!` (lion
//! hawk), `+D` (soaring eagle), `+H` (horned falcon), `+R` (dragon king), `+B` (dragon horse),
//! `+O` (lion), `+X` (free king), `+E` (crown prince), `+T` (flying stag), `+F` (bishop), `+G`
//! (rook), `+S` (vertical mover), `+C` (side mover), `+V` (flying ox), `+M` (free boar), `+A`
//! (whale), `+V'` (chariot soldier), `+S'` (water buffalo), `+L` (white horse), `+N` (side
//! soldier), `+I` (vertical soldier), `+D'` (multi general), `+P` (gold general).
//!
//! # Move text
//!
//! USI style: start and end square (`9l9k`), `+` for promotion. A move that captures on its way
//! names the square of that capture in between: `6f5e6d` (a lion takes on 5e and goes on to 6d),
//! and igui goes out and back (`6f5e6f`). A pass is the piece's square twice (`6f6f`); the
//! out-and-back form through an empty square (`6f5e6f` with 5e empty) is read as the same pass.

mod game;
mod movegen;
mod position;
mod text;

pub use game::{TenjikuGame, TenjikuGameError, TenjikuStatus};
pub use position::{Removal, TenjikuPosition, TenjikuUndo};
pub use text::{TenjikuSetup, TenjikuSetupError};

use crate::bitboard::{Bitboard, Bitboard256};
use crate::color::Color;
use crate::square::Square;
use crate::tables::Tables;
pub use crate::variant::TenjikuRule;
use crate::variant::{
    DropMateRule, DropRule, Effect, NumberOption, OptionSpec, OptionValue, Options, PromotionRule,
    RepetitionRule, Role, RoleSpec, RuleSet, StalemateRule, VariantSpec,
};
use std::sync::OnceLock;

/// Directions relative to the moving side, counter-clockwise from straight ahead; bit `i` of a
/// [`DirSet`] is direction `i`.
pub mod dir {
    /// Straight forward.
    pub const FORWARD: u8 = 1 << 0;
    /// Diagonally forward to the mover's left.
    pub const FORWARD_LEFT: u8 = 1 << 1;
    /// Sideways to the left.
    pub const LEFT: u8 = 1 << 2;
    /// Diagonally back to the left.
    pub const BACK_LEFT: u8 = 1 << 3;
    /// Straight back.
    pub const BACK: u8 = 1 << 4;
    /// Diagonally back to the right.
    pub const BACK_RIGHT: u8 = 1 << 5;
    /// Sideways to the right.
    pub const RIGHT: u8 = 1 << 6;
    /// Diagonally forward to the right.
    pub const FORWARD_RIGHT: u8 = 1 << 7;
    /// The four orthogonal directions.
    pub const ORTHOGONAL: u8 = FORWARD | LEFT | BACK | RIGHT;
    /// The four diagonal directions.
    pub const DIAGONAL: u8 = FORWARD_LEFT | BACK_LEFT | BACK_RIGHT | FORWARD_RIGHT;
    /// All eight directions.
    pub const ALL: u8 = 0xff;
}

/// A set of relative directions, see [`dir`].
pub type DirSet = u8;

/// A piece's lion power.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lion {
    /// None.
    None,
    /// Full lion power: two king steps with a capture on each, igui on every neighbour, a jump
    /// to any square within two, and a pass.
    Full,
    /// Lion power along these directions only (soaring eagle, horned falcon): one or two steps
    /// with up to two captures, igui on the first square, a jump to the second, and a pass.
    Line(DirSet),
    /// The lion hawk's power, which depends on the `lion-hawk` option: [`Lion::Full`] by
    /// default, a two-step area move under `lion-hawk=tsa`.
    LionHawk,
}

/// A range jump: sliding over pieces of lower rank along the given directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeJump {
    /// The directions.
    pub dirs: DirSet,
    /// The jumper's level: it jumps over, and captures beyond them, pieces whose
    /// [`Powers::rank`] is strictly lower.
    pub level: u8,
}

/// What a Tenjiku piece can do beyond the ordinary moves of its Betza string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Powers {
    /// Lion power.
    pub lion: Lion,
    /// An area move of up to this many king steps through empty squares (0: none); a capture
    /// ends it; coming back to the start is a pass.
    pub area: u8,
    /// Range jumping.
    pub range_jump: Option<RangeJump>,
    /// The heavenly tetrarch's moves (igui all round, diagonal slides from the second square,
    /// sideways two or three squares past the first).
    pub tetrarch: bool,
    /// Burns adjacent enemies after moving, and is not burned by enemy demons' active burns.
    pub burns: bool,
    /// The free eagle, whose moves depend on the `free-eagle` option.
    pub free_eagle: bool,
    /// Rank for range jumping: royals 5, great general 4, vice general 3, rook and bishop
    /// generals 2, every other piece 0.
    pub rank: u8,
}

/// Rank of the king and crown prince.
pub const RANK_ROYAL: u8 = 5;
/// Rank of the great general.
pub const RANK_GREAT_GENERAL: u8 = 4;
/// Rank of the vice general.
pub const RANK_VICE_GENERAL: u8 = 3;
/// Rank of the rook and bishop generals.
pub const RANK_GENERAL: u8 = 2;
/// Level of the free eagle's orthogonal range jump under `free-eagle=japanese`: just below
/// the rook and bishop generals.
pub const LEVEL_FREE_EAGLE: u8 = 1;

const P_PLAIN: Powers = Powers {
    lion: Lion::None,
    area: 0,
    range_jump: None,
    tetrarch: false,
    burns: false,
    free_eagle: false,
    rank: 0,
};

const fn jumper(dirs: DirSet, level: u8) -> Powers {
    Powers {
        range_jump: Some(RangeJump { dirs, level }),
        rank: level,
        ..P_PLAIN
    }
}

const P_ROYAL: Powers = Powers {
    rank: RANK_ROYAL,
    ..P_PLAIN
};
const P_GREAT_GENERAL: Powers = jumper(dir::ALL, RANK_GREAT_GENERAL);
const P_VICE_GENERAL: Powers = Powers {
    area: 3,
    ..jumper(dir::DIAGONAL, RANK_VICE_GENERAL)
};
const P_ROOK_GENERAL: Powers = jumper(dir::ORTHOGONAL, RANK_GENERAL);
const P_BISHOP_GENERAL: Powers = jumper(dir::DIAGONAL, RANK_GENERAL);
const P_FREE_EAGLE: Powers = Powers {
    free_eagle: true,
    ..P_PLAIN
};
const P_SOARING_EAGLE: Powers = Powers {
    lion: Lion::Line(dir::FORWARD_LEFT | dir::FORWARD_RIGHT),
    ..P_PLAIN
};
const P_HORNED_FALCON: Powers = Powers {
    lion: Lion::Line(dir::FORWARD),
    ..P_PLAIN
};
const P_FIRE_DEMON: Powers = Powers {
    area: 3,
    burns: true,
    ..P_PLAIN
};
const P_LION_HAWK: Powers = Powers {
    lion: Lion::LionHawk,
    ..P_PLAIN
};
const P_LION: Powers = Powers {
    lion: Lion::Full,
    ..P_PLAIN
};
const P_TETRARCH: Powers = Powers {
    tetrarch: true,
    ..P_PLAIN
};

/// One piece kind: its data shared with every game, and its Tenjiku powers.
#[derive(Clone, Copy)]
struct Kind {
    spec: RoleSpec,
    powers: Powers,
}

const fn kind(
    name: &'static str,
    sfen: &'static str,
    hodges: &'static str,
    kanji: &'static str,
    betza: &'static str,
    promotion: Option<(Role, Role)>,
    powers: Powers,
) -> Kind {
    let (promotes_to, promoted_from) = match promotion {
        Some((to, from)) => (Some(to), Some(from)),
        None => (None, None),
    };
    Kind {
        spec: RoleSpec {
            name,
            sfen,
            hodges,
            kanji,
            betza,
            promotes_to,
            // For a promoted kind: the kind it came from; `promotes_to` is then `None`.
            promoted_from,
            royal: powers.rank == RANK_ROYAL,
            drop: DropRule::FREE,
            set_count: 0,
            exchangeable: false,
            hooks: &[],
        },
        powers,
    }
}

/// Unpromoted kind `index` that promotes to `promoted`.
const fn promotes(promoted: u8) -> Option<(Role, Role)> {
    // promoted_from is not set on the unpromoted side; the second field is unused there.
    Some((Role(promoted), Role(u8::MAX)))
}

/// Promoted kind that came from `base`.
const fn promoted(base: u8) -> Option<(Role, Role)> {
    Some((Role(u8::MAX), Role(base)))
}

macro_rules! roles {
    ($($constant:ident = $index:literal: $doc:literal;)*) => {
        $(
            #[doc = $doc]
            pub const $constant: Role = Role($index);
        )*
    };
}

roles! {
    KING = 0: "The king (`K`).";
    GREAT_GENERAL = 1: "The great general (`Q!`).";
    VICE_GENERAL = 2: "The vice general (`V!`).";
    ROOK_GENERAL = 3: "The rook general (`R!`).";
    BISHOP_GENERAL = 4: "The bishop general (`B!`).";
    FREE_EAGLE = 5: "The free eagle (`Q'`).";
    FREE_KING = 6: "The free king (`Q`).";
    SOARING_EAGLE = 7: "The soaring eagle (`E!`).";
    HORNED_FALCON = 8: "The horned falcon (`F!`).";
    WATER_BUFFALO = 9: "The water buffalo (`W!`).";
    CHARIOT_SOLDIER = 10: "The chariot soldier (`C!`).";
    FIRE_DEMON = 11: "The fire demon (`D!`).";
    LION_HAWK = 12: "The lion hawk (`H!`).";
    LION = 13: "The lion (`L!`).";
    DRAGON_KING = 14: "The dragon king (`D`).";
    DRAGON_HORSE = 15: "The dragon horse (`H`).";
    ROOK = 16: "The rook (`R`).";
    BISHOP = 17: "The bishop (`B`).";
    KIRIN = 18: "The kirin (`O`).";
    PHOENIX = 19: "The phoenix (`X`).";
    DRUNK_ELEPHANT = 20: "The drunk elephant (`E`).";
    BLIND_TIGER = 21: "The blind tiger (`T`).";
    FEROCIOUS_LEOPARD = 22: "The ferocious leopard (`F`).";
    GOLD = 23: "The gold general (`G`).";
    SILVER = 24: "The silver general (`S`).";
    COPPER = 25: "The copper general (`C`).";
    VERTICAL_MOVER = 26: "The vertical mover (`V`).";
    SIDE_MOVER = 27: "The side mover (`M`).";
    REVERSE_CHARIOT = 28: "The reverse chariot (`A`).";
    VERTICAL_SOLDIER = 29: "The vertical soldier (`V'`).";
    SIDE_SOLDIER = 30: "The side soldier (`S'`).";
    LANCE = 31: "The lance (`L`).";
    KNIGHT = 32: "The knight (`N`).";
    IRON = 33: "The iron general (`I`).";
    DOG = 34: "The dog (`D'`).";
    PAWN = 35: "The pawn (`P`).";
    CROWN_PRINCE = 50: "The crown prince, a promoted drunk elephant (`+E`), the second royal.";
    HEAVENLY_TETRARCH = 42: "The heavenly tetrarch, a promoted chariot soldier (`+C!`).";
    PROMOTED_WATER_BUFFALO = 41: "A promoted water buffalo (`+W!`): a fire demon.";
}

const KIND_COUNT: usize = 66;

#[rustfmt::skip]
const KINDS: [Kind; KIND_COUNT] = [
    kind("king", "K", "K", "玉将", "K", None, P_ROYAL),
    kind("great general", "Q!", "GG", "大将", "Q", None, P_GREAT_GENERAL),
    kind("vice general", "V!", "VG", "副将", "B", None, P_VICE_GENERAL),
    kind("rook general", "R!", "RG", "飛将", "R", promotes(36), P_ROOK_GENERAL),
    kind("bishop general", "B!", "BG", "角将", "B", promotes(37), P_BISHOP_GENERAL),
    kind("free eagle", "Q'", "FE", "奔鷲", "QD", None, P_FREE_EAGLE),
    kind("free king", "Q", "FK", "奔王", "Q", promotes(38), P_PLAIN),
    kind("soaring eagle", "E!", "SE", "飛鷲", "RbB", promotes(39), P_SOARING_EAGLE),
    kind("horned falcon", "F!", "HF", "角鷹", "BsRbR", promotes(40), P_HORNED_FALCON),
    kind("water buffalo", "W!", "WB", "水牛", "BsRvW2", promotes(41), P_PLAIN),
    kind("chariot soldier", "C!", "CS", "車兵", "BvRsW2", promotes(42), P_PLAIN),
    kind("fire demon", "D!", "FD", "火鬼", "BvR", None, P_FIRE_DEMON),
    kind("lion hawk", "H!", "LH", "獅鷹", "B", None, P_LION_HAWK),
    kind("lion", "L!", "Ln", "獅子", "", promotes(43), P_LION),
    kind("dragon king", "D", "DK", "龍王", "RF", promotes(44), P_PLAIN),
    kind("dragon horse", "H", "DH", "龍馬", "BW", promotes(45), P_PLAIN),
    kind("rook", "R", "R", "飛車", "R", promotes(46), P_PLAIN),
    kind("bishop", "B", "B", "角行", "B", promotes(47), P_PLAIN),
    kind("kirin", "O", "Kr", "麒麟", "FD", promotes(48), P_PLAIN),
    kind("phoenix", "X", "Ph", "鳳凰", "WA", promotes(49), P_PLAIN),
    kind("drunk elephant", "E", "DE", "酔象", "FfWsW", promotes(50), P_PLAIN),
    kind("blind tiger", "T", "BT", "盲虎", "FbWsW", promotes(51), P_PLAIN),
    kind("ferocious leopard", "F", "FL", "猛豹", "FvW", promotes(52), P_PLAIN),
    kind("gold general", "G", "G", "金将", "WfF", promotes(53), P_PLAIN),
    kind("silver general", "S", "S", "銀将", "FfW", promotes(54), P_PLAIN),
    kind("copper general", "C", "C", "銅将", "vWfF", promotes(55), P_PLAIN),
    kind("vertical mover", "V", "VM", "竪行", "vRsW", promotes(56), P_PLAIN),
    kind("side mover", "M", "SM", "横行", "sRvW", promotes(57), P_PLAIN),
    kind("reverse chariot", "A", "RC", "反車", "vR", promotes(58), P_PLAIN),
    kind("vertical soldier", "V'", "VS", "竪兵", "fRsW2bW", promotes(59), P_PLAIN),
    kind("side soldier", "S'", "SS", "横兵", "sRfW2bW", promotes(60), P_PLAIN),
    kind("lance", "L", "L", "香車", "fR", promotes(61), P_PLAIN),
    kind("knight", "N", "N", "桂馬", "ffN", promotes(62), P_PLAIN),
    kind("iron general", "I", "I", "鉄将", "fWfF", promotes(63), P_PLAIN),
    kind("dog", "D'", "D", "犬", "fWbF", promotes(64), P_PLAIN),
    kind("pawn", "P", "P", "歩兵", "fW", promotes(65), P_PLAIN),
    // Promoted kinds: each moves as (and has every power of) the kind it becomes.
    kind("great general (promoted rook general)", "+R!", "+RG", "大将", "Q", promoted(3), P_GREAT_GENERAL),
    kind("vice general (promoted bishop general)", "+B!", "+BG", "副将", "B", promoted(4), P_VICE_GENERAL),
    kind("free eagle (promoted free king)", "+Q", "+FK", "奔鷲", "QD", promoted(6), P_FREE_EAGLE),
    kind("rook general (promoted soaring eagle)", "+E!", "+SE", "飛将", "R", promoted(7), P_ROOK_GENERAL),
    kind("bishop general (promoted horned falcon)", "+F!", "+HF", "角将", "B", promoted(8), P_BISHOP_GENERAL),
    kind("fire demon (promoted water buffalo)", "+W!", "+WB", "火鬼", "BvR", promoted(9), P_FIRE_DEMON),
    kind("heavenly tetrarch", "+C!", "+CS", "四天王", "", promoted(10), P_TETRARCH),
    kind("lion hawk (promoted lion)", "+L!", "+Ln", "獅鷹", "B", promoted(13), P_LION_HAWK),
    kind("soaring eagle (promoted dragon king)", "+D", "+DK", "飛鷲", "RbB", promoted(14), P_SOARING_EAGLE),
    kind("horned falcon (promoted dragon horse)", "+H", "+DH", "角鷹", "BsRbR", promoted(15), P_HORNED_FALCON),
    kind("dragon king (promoted rook)", "+R", "+R", "龍王", "RF", promoted(16), P_PLAIN),
    kind("dragon horse (promoted bishop)", "+B", "+B", "龍馬", "BW", promoted(17), P_PLAIN),
    kind("lion (promoted kirin)", "+O", "+Kr", "獅子", "", promoted(18), P_LION),
    kind("free king (promoted phoenix)", "+X", "+Ph", "奔王", "Q", promoted(19), P_PLAIN),
    kind("crown prince", "+E", "+DE", "太子", "K", promoted(20), P_ROYAL),
    kind("flying stag", "+T", "+BT", "飛鹿", "KvR", promoted(21), P_PLAIN),
    kind("bishop (promoted ferocious leopard)", "+F", "+FL", "角行", "B", promoted(22), P_PLAIN),
    kind("rook (promoted gold general)", "+G", "+G", "飛車", "R", promoted(23), P_PLAIN),
    kind("vertical mover (promoted silver general)", "+S", "+S", "竪行", "vRsW", promoted(24), P_PLAIN),
    kind("side mover (promoted copper general)", "+C", "+C", "横行", "sRvW", promoted(25), P_PLAIN),
    kind("flying ox", "+V", "+VM", "飛牛", "BvR", promoted(26), P_PLAIN),
    kind("free boar", "+M", "+SM", "奔猪", "BsR", promoted(27), P_PLAIN),
    kind("whale", "+A", "+RC", "鯨鯢", "vRbB", promoted(28), P_PLAIN),
    kind("chariot soldier (promoted vertical soldier)", "+V'", "+VS", "車兵", "BvRsW2", promoted(29), P_PLAIN),
    kind("water buffalo (promoted side soldier)", "+S'", "+SS", "水牛", "BsRvW2", promoted(30), P_PLAIN),
    kind("white horse", "+L", "+L", "白駒", "vRfB", promoted(31), P_PLAIN),
    kind("side soldier (promoted knight)", "+N", "+N", "横兵", "sRfW2bW", promoted(32), P_PLAIN),
    kind("vertical soldier (promoted iron general)", "+I", "+I", "竪兵", "fRsW2bW", promoted(33), P_PLAIN),
    kind("multi general", "+D'", "+D", "雜将", "fRbB", promoted(34), P_PLAIN),
    kind("gold general (promoted pawn)", "+P", "+P", "金将", "WfF", promoted(35), P_PLAIN),
];

const fn role_specs(kinds: [Kind; KIND_COUNT]) -> [RoleSpec; KIND_COUNT] {
    let mut specs = [kinds[0].spec; KIND_COUNT];
    let mut i = 0;
    while i < KIND_COUNT {
        let mut spec = kinds[i].spec;
        if let Some(to) = spec.promotes_to
            && to.0 == u8::MAX
        {
            spec.promotes_to = None;
        }
        if let Some(from) = spec.promoted_from
            && from.0 == u8::MAX
        {
            spec.promoted_from = None;
        }
        specs[i] = spec;
        i += 1;
    }
    specs
}

const fn powers_of(kinds: [Kind; KIND_COUNT]) -> [Powers; KIND_COUNT] {
    let mut powers = [P_PLAIN; KIND_COUNT];
    let mut i = 0;
    while i < KIND_COUNT {
        powers[i] = kinds[i].powers;
        i += 1;
    }
    powers
}

static ROLES: [RoleSpec; KIND_COUNT] = role_specs(KINDS);
static POWERS: [Powers; KIND_COUNT] = powers_of(KINDS);

/// The powers of a kind.
pub fn powers(role: Role) -> Option<&'static Powers> {
    POWERS.get(role.index())
}

/// How the lion hawk moves (`lion-hawk`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LionHawkRule {
    /// Bishop slide plus full lion power.
    Lion,
    /// Bishop slide, or an area move of up to two king steps that stops on a capture.
    Tsa,
}

/// How the free eagle moves (`free-eagle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FreeEagleRule {
    /// Slides in all eight directions and jumps to the second square orthogonally.
    English,
    /// Slides diagonally and range-jumps orthogonally.
    Japanese,
}

/// What a fire demon that ends next to an enemy fire demon does (`demon-conflict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DemonConflictRule {
    /// It burns nothing and is burned.
    Tsa,
    /// It burns the other adjacent enemies, then is burned.
    Adams,
}

/// When the generals may jump (`range-jump`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeJumpRule {
    /// Only to capture.
    Capture,
    /// Also to stop on an empty square beyond jumped pieces.
    Always,
}

/// When a piece may promote (`promotion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PromotionTiming {
    /// On any move that starts in, ends in or passes through the zone; a piece that declines
    /// may promote on its next move only by capturing (or when forced).
    Deferred,
    /// A non-capturing move promotes only on entering the zone; a capture promotes if it
    /// starts or ends in the zone; no deferral.
    Entry,
}

/// The Tenjiku rule choices, resolved from [`Options`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TenjikuRules {
    /// The lion hawk.
    pub lion_hawk: LionHawkRule,
    /// The free eagle.
    pub free_eagle: FreeEagleRule,
    /// Demon meets demon.
    pub demon_conflict: DemonConflictRule,
    /// Range jumping.
    pub range_jump: RangeJumpRule,
    /// Promotion.
    pub promotion: PromotionTiming,
    /// Whether a game ends as a loss when every move of the side to move leaves its last
    /// royal capturable.
    pub mate_ends_game: bool,
    /// After this many plies the game ends without a winner; 0 for no limit.
    pub max_plies: u32,
}

impl TenjikuRules {
    /// The defaults of `rules/tenjiku-shogi.md`.
    pub const DEFAULT: TenjikuRules = TenjikuRules {
        lion_hawk: LionHawkRule::Lion,
        free_eagle: FreeEagleRule::English,
        demon_conflict: DemonConflictRule::Tsa,
        range_jump: RangeJumpRule::Capture,
        promotion: PromotionTiming::Deferred,
        mate_ends_game: true,
        max_plies: 0,
    };

    /// These rules with the game-level choices (`mate`, `max-plies`) at their defaults: what
    /// move generation depends on.
    pub fn movement(self) -> TenjikuRules {
        TenjikuRules {
            mate_ends_game: TenjikuRules::DEFAULT.mate_ends_game,
            max_plies: TenjikuRules::DEFAULT.max_plies,
            ..self
        }
    }

    /// The rules chosen by Tenjiku options.
    pub fn from_options(options: &Options) -> TenjikuRules {
        let mut rules = TenjikuRules::DEFAULT;
        for effect in options.effects() {
            match effect {
                Effect::Tenjiku(rule) => match rule {
                    TenjikuRule::LionHawkTsa => rules.lion_hawk = LionHawkRule::Tsa,
                    TenjikuRule::FreeEagleJapanese => {
                        rules.free_eagle = FreeEagleRule::Japanese;
                    }
                    TenjikuRule::DemonConflictAdams => {
                        rules.demon_conflict = DemonConflictRule::Adams;
                    }
                    TenjikuRule::RangeJumpAlways => rules.range_jump = RangeJumpRule::Always,
                    TenjikuRule::PromotionEntry => rules.promotion = PromotionTiming::Entry,
                    TenjikuRule::MateNotFinal => rules.mate_ends_game = false,
                },
                Effect::MaxPlies(n) => rules.max_plies = n,
                _ => {}
            }
        }
        rules
    }
}

const fn named(name: &'static str, effects: &'static [Effect]) -> OptionValue {
    OptionValue { name, effects }
}

static OPTIONS: [OptionSpec; 7] = [
    OptionSpec {
        name: "lion-hawk",
        help: "lion: bishop plus full lion power; tsa: bishop or a two-step area move",
        values: &[
            named("lion", &[]),
            named("tsa", &[Effect::Tenjiku(TenjikuRule::LionHawkTsa)]),
        ],
        number: None,
    },
    OptionSpec {
        name: "free-eagle",
        help: "english: queen plus orthogonal jump to the second square; japanese: bishop plus orthogonal range jump",
        values: &[
            named("english", &[]),
            named(
                "japanese",
                &[Effect::Tenjiku(TenjikuRule::FreeEagleJapanese)],
            ),
        ],
        number: None,
    },
    OptionSpec {
        name: "demon-conflict",
        help: "tsa: a demon ending next to an enemy demon burns nothing and dies; adams: it burns the others, then dies",
        values: &[
            named("tsa", &[]),
            named("adams", &[Effect::Tenjiku(TenjikuRule::DemonConflictAdams)]),
        ],
        number: None,
    },
    OptionSpec {
        name: "range-jump",
        help: "capture: generals jump only to capture; always: they may also stop on an empty square beyond",
        values: &[
            named("capture", &[]),
            named("always", &[Effect::Tenjiku(TenjikuRule::RangeJumpAlways)]),
        ],
        number: None,
    },
    OptionSpec {
        name: "promotion",
        help: "deferred: promote on any move touching the zone, a declined promotion waits a move unless capturing; entry: promote on entering the zone or capturing in it",
        values: &[
            named("deferred", &[]),
            named("entry", &[Effect::Tenjiku(TenjikuRule::PromotionEntry)]),
        ],
        number: None,
    },
    OptionSpec {
        name: "mate",
        help: "ends: a player whose every move leaves the last royal capturable loses at once; play-on: only capturing the last royal ends the game",
        values: &[
            named("ends", &[]),
            named("play-on", &[Effect::Tenjiku(TenjikuRule::MateNotFinal)]),
        ],
        number: None,
    },
    OptionSpec {
        name: "max-plies",
        help: "after this many plies the game ends without a winner (impasse); off for no limit",
        values: &[named("off", &[])],
        number: Some(NumberOption {
            min: 1,
            max: 100_000,
            effect: Effect::MaxPlies,
        }),
    },
];

static SPEC: VariantSpec = VariantSpec {
    name: "tenjiku",
    protocol_name: "tenjiku",
    title: "Tenjiku shogi",
    width: 16,
    height: 16,
    roles: &ROLES,
    start_sfen: "lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/pppppppppppppppp/4d'6d'4/16/16/16/16/4D'6D'4/PPPPPPPPPPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!D!H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL b - 1",
    promotion: PromotionRule {
        zone_depth: 5,
        compulsory: false,
    },
    drops: false,
    repetition: RepetitionRule::Illegal,
    default_rules: RuleSet {
        drop_mate: DropMateRule::Illegal,
        repetition_count: 2,
        drops: false,
        max_plies: 0,
    },
    stalemate: StalemateRule::Loss,
    options: &OPTIONS,
};

/// The Tenjiku shogi definition.
pub fn spec() -> &'static VariantSpec {
    &SPEC
}

/// Everything move generation looks up, for one choice of the options that change how pieces
/// move.
#[derive(Debug)]
pub struct Rulebook {
    /// The move-relevant rule choices; the game-level ones (`mate`, `max-plies`) are at their
    /// defaults here, as they do not change move generation.
    pub rules: TenjikuRules,
    pub(crate) tables: &'static Tables<Bitboard256>,
    /// Per kind, the moves it has under these rules.
    pub(crate) movers: Vec<Mover>,
    /// King-step neighbours of each square.
    pub(crate) neighbours: Vec<Bitboard256>,
    /// Squares within two king steps (without the square itself).
    pub(crate) lion_area: Vec<Bitboard256>,
    /// `[color][square]`: squares a promotable piece of this kind may not stay unpromoted on
    /// are computed per kind in [`Mover::forced`].
    pub(crate) zone: [Bitboard256; 2],
    /// Key of the deferral flag on each square.
    pub(crate) deferred_keys: Vec<u64>,
}

/// How one kind moves under one rule choice.
#[derive(Clone, Debug)]
pub(crate) struct Mover {
    /// Kind whose Betza moves are this kind's ordinary moves.
    pub plain: Role,
    pub lion: Lion,
    pub area: u8,
    pub range_jump: Option<RangeJump>,
    pub tetrarch: bool,
    pub burns: bool,
    pub rank: u8,
    pub royal: bool,
    pub promotes_to: Option<Role>,
    /// `[color]`: squares where the kind has no move at all, so that reaching them forces
    /// promotion.
    pub forced: [Bitboard256; 2],
}

/// The compiled tables shared by every rule choice.
pub fn tables() -> &'static Tables<Bitboard256> {
    static TABLES: OnceLock<Tables<Bitboard256>> = OnceLock::new();
    TABLES.get_or_init(|| Tables::new(&SPEC).unwrap_or_else(|e| panic!("tenjiku tables: {e}")))
}

fn rule_index(rules: &TenjikuRules) -> usize {
    (rules.lion_hawk == LionHawkRule::Tsa) as usize
        | ((rules.free_eagle == FreeEagleRule::Japanese) as usize) << 1
        | ((rules.demon_conflict == DemonConflictRule::Adams) as usize) << 2
        | ((rules.range_jump == RangeJumpRule::Always) as usize) << 3
        | ((rules.promotion == PromotionTiming::Entry) as usize) << 4
}

/// The rulebook for these rules: one per combination of the options that change how pieces move,
/// built on first use and shared from then on.
///
/// Game-level choices (`mate`, `max-plies`) do not change move generation and are not part of
/// the book: the returned book's [`Rulebook::rules`] has them at their defaults, and the game
/// keeps its own. So a program that sets a move limit, even a new one for every game, never
/// builds more than the 32 books of the move-relevant choices.
pub fn rulebook(rules: TenjikuRules) -> &'static Rulebook {
    static BOOKS: OnceLock<Vec<OnceLock<Rulebook>>> = OnceLock::new();
    let books = BOOKS.get_or_init(|| (0..RULEBOOK_COUNT).map(|_| OnceLock::new()).collect());
    let movement = rules.movement();
    let index = rule_index(&movement);
    match books.get(index) {
        Some(book) => book.get_or_init(|| Rulebook::new(movement)),
        None => unreachable!("rule_index is below RULEBOOK_COUNT"),
    }
}

/// How many combinations of move-relevant choices there are (five two-way options).
const RULEBOOK_COUNT: usize = 32;

impl Rulebook {
    fn new(rules: TenjikuRules) -> Rulebook {
        let tables = tables();
        let squares = 256;
        let mut neighbours = vec![Bitboard256::EMPTY; squares];
        let mut lion_area = vec![Bitboard256::EMPTY; squares];
        for s in 0..squares {
            let (x, y) = ((s % 16) as i32, (s / 16) as i32);
            for dy in -2..=2i32 {
                for dx in -2..=2i32 {
                    let (tx, ty) = (x + dx, y + dy);
                    if (dx, dy) == (0, 0) || !(0..16).contains(&tx) || !(0..16).contains(&ty) {
                        continue;
                    }
                    let t = Bitboard256::single((ty * 16 + tx) as usize);
                    lion_area[s] |= t;
                    if dx.abs() <= 1 && dy.abs() <= 1 {
                        neighbours[s] |= t;
                    }
                }
            }
        }
        let movers = (0..KIND_COUNT)
            .map(|r| {
                let role = Role(r as u8);
                let powers = POWERS[r];
                let spec = &ROLES[r];
                let mut mover = Mover {
                    plain: role,
                    lion: powers.lion,
                    area: powers.area,
                    range_jump: powers.range_jump,
                    tetrarch: powers.tetrarch,
                    burns: powers.burns,
                    rank: powers.rank,
                    royal: spec.royal,
                    promotes_to: spec.promotes_to,
                    forced: [Bitboard256::EMPTY; 2],
                };
                if powers.lion == Lion::LionHawk {
                    match rules.lion_hawk {
                        LionHawkRule::Lion => mover.lion = Lion::Full,
                        LionHawkRule::Tsa => {
                            mover.lion = Lion::None;
                            mover.area = 2;
                        }
                    }
                }
                if powers.free_eagle && rules.free_eagle == FreeEagleRule::Japanese {
                    // Ranging orthogonally is part of the range jump (as for the generals).
                    mover.plain = FREE_KING;
                    mover.range_jump = Some(RangeJump {
                        dirs: dir::ORTHOGONAL,
                        level: LEVEL_FREE_EAGLE,
                    });
                }
                let has_powers = mover.lion != Lion::None || mover.area > 0 || mover.tetrarch;
                if mover.promotes_to.is_some() && !has_powers {
                    for color in Color::ALL {
                        for s in 0..squares {
                            let square = Square(s as u8);
                            if tables.empty_board_attacks(color, role, square).is_empty() {
                                mover.forced[color.index()] |= Bitboard256::single(s);
                            }
                        }
                    }
                }
                mover
            })
            .collect();
        let mut seed = 0x7465_6e6a_696b_7531u64;
        let deferred_keys = (0..squares)
            .map(|_| {
                seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = seed;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            })
            .collect();
        Rulebook {
            rules,
            tables,
            movers,
            neighbours,
            lion_area,
            zone: [tables.zone(Color::Sente), tables.zone(Color::Gote)],
            deferred_keys,
        }
    }
}
