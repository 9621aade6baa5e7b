//! Wa shogi as data, following the project's rules page `rules/wa-shogi.md`: 11x11, seventeen
//! kinds and their promoted forms (each promoted kind its own piece, even where it moves like
//! another), a three-rank zone with optional promotion, drops as an option.
//!
//! ```
//! use tsubame_rules::{wa, Options};
//! let position = wa::start(&Options::defaults(wa::spec())).unwrap();
//! assert_eq!(position.legal_moves().len(), 51);
//! let without_drops = Options::parse(wa::spec(), "drops=off").unwrap();
//! assert!(!without_drops.rule_set().drops);
//! ```

use crate::position::{Position, PositionError};
use crate::tables::Tables;
use crate::variant::{
    DropMateRule, DropRule, Effect, NumberOption, OptionSpec, OptionValue, Options, PromotionRule,
    RepetitionRule, Role, RoleSpec, RuleSet, StalemateRule, VariantSpec,
};
use std::sync::OnceLock;

/// Crane king, the royal piece (`K`).
pub const CRANE_KING: Role = Role(0);
/// Cloud eagle (`E`).
pub const CLOUD_EAGLE: Role = Role(1);
/// Flying falcon (`F`).
pub const FLYING_FALCON: Role = Role(2);
/// Swallow's wings (`S`).
pub const SWALLOWS_WINGS: Role = Role(3);
/// Treacherous fox (`X`).
pub const TREACHEROUS_FOX: Role = Role(4);
/// Running rabbit (`R`).
pub const RUNNING_RABBIT: Role = Role(5);
/// Violent wolf (`W`).
pub const VIOLENT_WOLF: Role = Role(6);
/// Violent stag (`V`).
pub const VIOLENT_STAG: Role = Role(7);
/// Flying goose (`G`).
pub const FLYING_GOOSE: Role = Role(8);
/// Flying cock (`C`).
pub const FLYING_COCK: Role = Role(9);
/// Strutting crow (`U`).
pub const STRUTTING_CROW: Role = Role(10);
/// Swooping owl (`L`).
pub const SWOOPING_OWL: Role = Role(11);
/// Blind dog (`D`).
pub const BLIND_DOG: Role = Role(12);
/// Climbing monkey (`M`).
pub const CLIMBING_MONKEY: Role = Role(13);
/// Liberated horse (`H`).
pub const LIBERATED_HORSE: Role = Role(14);
/// Oxcart (`O`).
pub const OXCART: Role = Role(15);
/// Sparrow pawn (`P`).
pub const SPARROW_PAWN: Role = Role(16);
/// Tenacious falcon, a promoted flying falcon (`+F`).
pub const TENACIOUS_FALCON: Role = Role(17);
/// Gliding swallow, a promoted swallow's wings (`+S`).
pub const GLIDING_SWALLOW: Role = Role(18);
/// A promoted running rabbit, moving as a treacherous fox (`+R`).
pub const PROMOTED_RABBIT: Role = Role(19);
/// Bear's eyes, a promoted violent wolf (`+W`).
pub const BEARS_EYES: Role = Role(20);
/// Roaming boar, a promoted violent stag (`+V`).
pub const ROAMING_BOAR: Role = Role(21);
/// A promoted flying goose, moving as a swallow's wings (`+G`).
pub const PROMOTED_GOOSE: Role = Role(22);
/// Raiding falcon, a promoted flying cock (`+C`).
pub const RAIDING_FALCON: Role = Role(23);
/// A promoted strutting crow, moving as a flying falcon (`+U`).
pub const PROMOTED_CROW: Role = Role(24);
/// A promoted swooping owl, moving as a cloud eagle (`+L`).
pub const PROMOTED_OWL: Role = Role(25);
/// A promoted blind dog, moving as a violent wolf (`+D`).
pub const PROMOTED_DOG: Role = Role(26);
/// A promoted climbing monkey, moving as a violent stag (`+M`).
pub const PROMOTED_MONKEY: Role = Role(27);
/// Heavenly horse, a promoted liberated horse (`+H`).
pub const HEAVENLY_HORSE: Role = Role(28);
/// Plodding ox, a promoted oxcart (`+O`).
pub const PLODDING_OX: Role = Role(29);
/// Golden bird, a promoted sparrow pawn (`+P`).
pub const GOLDEN_BIRD: Role = Role(30);

const FREE: DropRule = DropRule::FREE;

/// An unpromoted kind: two in a set, promoting to `promotes_to`.
const fn base(
    name: &'static str,
    sfen: &'static str,
    hodges: &'static str,
    kanji: &'static str,
    betza: &'static str,
    promotes_to: Option<Role>,
) -> RoleSpec {
    RoleSpec {
        name,
        sfen,
        hodges,
        kanji,
        betza,
        promotes_to,
        promoted_from: None,
        royal: false,
        drop: FREE,
        set_count: 2,
        exchangeable: true,
        hooks: &[],
    }
}

/// A promoted kind, counted with the kind it was promoted from.
const fn promoted(
    name: &'static str,
    sfen: &'static str,
    hodges: &'static str,
    kanji: &'static str,
    betza: &'static str,
    from: Role,
) -> RoleSpec {
    RoleSpec {
        promoted_from: Some(from),
        set_count: 0,
        ..base(name, sfen, hodges, kanji, betza, None)
    }
}

static ROLES: [RoleSpec; 31] = [
    RoleSpec {
        royal: true,
        ..base("crane king", "K", "CK", "靏玉", "K", None)
    },
    base("cloud eagle", "E", "CE", "雲鷲", "vRfF3bFsW", None),
    base(
        "flying falcon",
        "F",
        "FF",
        "飛鷹",
        "BfW",
        Some(TENACIOUS_FALCON),
    ),
    base(
        "swallow's wings",
        "S",
        "SW",
        "燕羽",
        "sRvW",
        Some(GLIDING_SWALLOW),
    ),
    base("treacherous fox", "X", "TF", "隠狐", "FvWAvD", None),
    base(
        "running rabbit",
        "R",
        "RR",
        "走兎",
        "fRFbW",
        Some(PROMOTED_RABBIT),
    ),
    base("violent wolf", "W", "VW", "猛狼", "WfF", Some(BEARS_EYES)),
    base("violent stag", "V", "VS", "猛鹿", "FfW", Some(ROAMING_BOAR)),
    base(
        "flying goose",
        "G",
        "FG",
        "鳫飛",
        "vWfF",
        Some(PROMOTED_GOOSE),
    ),
    base(
        "flying cock",
        "C",
        "FC",
        "鶏飛",
        "sWfF",
        Some(RAIDING_FALCON),
    ),
    base(
        "strutting crow",
        "U",
        "SC",
        "烏行",
        "fWbF",
        Some(PROMOTED_CROW),
    ),
    base(
        "swooping owl",
        "L",
        "SO",
        "鴟行",
        "fWbF",
        Some(PROMOTED_OWL),
    ),
    base("blind dog", "D", "BD", "盲犬", "sbWfF", Some(PROMOTED_DOG)),
    base(
        "climbing monkey",
        "M",
        "CM",
        "登猿",
        "vWfF",
        Some(PROMOTED_MONKEY),
    ),
    base(
        "liberated horse",
        "H",
        "LH",
        "風馬",
        "fRbW2",
        Some(HEAVENLY_HORSE),
    ),
    RoleSpec {
        drop: DropRule {
            barred_far_ranks: 1,
            ..FREE
        },
        ..base("oxcart", "O", "OC", "牛車", "fR", Some(PLODDING_OX))
    },
    RoleSpec {
        set_count: 22,
        drop: DropRule {
            barred_far_ranks: 1,
            max_per_file: Some(1),
            mate_restricted: true,
            file_limit_binds_board: false,
        },
        ..base("sparrow pawn", "P", "SP", "萑歩", "fW", Some(GOLDEN_BIRD))
    },
    promoted(
        "tenacious falcon",
        "+F",
        "+FF",
        "鶚鷹",
        "BvRsW",
        FLYING_FALCON,
    ),
    promoted("gliding swallow", "+S", "+SW", "燕行", "R", SWALLOWS_WINGS),
    promoted(
        "promoted running rabbit",
        "+R",
        "+RR",
        "隠狐",
        "FvWAvD",
        RUNNING_RABBIT,
    ),
    promoted("bear's eyes", "+W", "+VW", "熊眼", "K", VIOLENT_WOLF),
    promoted("roaming boar", "+V", "+VS", "行猪", "FfsW", VIOLENT_STAG),
    promoted(
        "promoted flying goose",
        "+G",
        "+FG",
        "燕羽",
        "sRvW",
        FLYING_GOOSE,
    ),
    promoted("raiding falcon", "+C", "+FC", "延鷹", "vRsWfF", FLYING_COCK),
    promoted(
        "promoted strutting crow",
        "+U",
        "+SC",
        "飛鷹",
        "BfW",
        STRUTTING_CROW,
    ),
    promoted(
        "promoted swooping owl",
        "+L",
        "+SO",
        "雲鷲",
        "vRfF3bFsW",
        SWOOPING_OWL,
    ),
    promoted("promoted blind dog", "+D", "+BD", "猛狼", "WfF", BLIND_DOG),
    promoted(
        "promoted climbing monkey",
        "+M",
        "+CM",
        "猛鹿",
        "FfW",
        CLIMBING_MONKEY,
    ),
    promoted(
        "heavenly horse",
        "+H",
        "+LH",
        "天馬",
        "ffNbbN",
        LIBERATED_HORSE,
    ),
    promoted("plodding ox", "+O", "+OC", "歩牛", "K", OXCART),
    promoted("golden bird", "+P", "+SP", "金鳥", "WfF", SPARROW_PAWN),
];

fn max_plies(n: u32) -> Effect {
    Effect::MaxPlies(n)
}

static OPTIONS: [OptionSpec; 2] = [
    OptionSpec {
        name: "drops",
        help: "captured pieces go to the captor's hand and may be dropped",
        number: None,
        values: &[
            OptionValue {
                name: "on",
                effects: &[Effect::Drops(true)],
            },
            OptionValue {
                name: "off",
                effects: &[Effect::Drops(false)],
            },
        ],
    },
    OptionSpec {
        name: "max-plies",
        help: "a game that reaches this many plies ends without a winner",
        number: Some(NumberOption {
            min: 1,
            max: 100_000,
            effect: max_plies,
        }),
        values: &[OptionValue {
            name: "off",
            effects: &[Effect::MaxPlies(0)],
        }],
    },
];

static SPEC: VariantSpec = VariantSpec {
    name: "wa",
    protocol_name: "washogi",
    title: "Wa shogi",
    width: 11,
    height: 11,
    roles: &ROLES,
    start_sfen: "hmlcvkwgudo/1e3s3f1/ppprpppxppp/3p3p3/11/11/11/3P3P3/PPPXPPPRPPP/1F3S3E1/ODUGWKVCLMH b - 1",
    promotion: PromotionRule {
        zone_depth: 3,
        compulsory: false,
    },
    drops: true,
    repetition: RepetitionRule::NoContest,
    default_rules: RuleSet {
        drop_mate: DropMateRule::Illegal,
        repetition_count: 4,
        drops: true,
        max_plies: 0,
    },
    stalemate: StalemateRule::Loss,
    options: &OPTIONS,
};

/// The Wa shogi definition.
pub fn spec() -> &'static VariantSpec {
    &SPEC
}

/// Wa shogi's compiled tables.
pub fn tables() -> &'static Tables<u128> {
    static TABLES: OnceLock<Tables<u128>> = OnceLock::new();
    TABLES.get_or_init(|| Tables::new(&SPEC).unwrap_or_else(|e| panic!("wa tables: {e}")))
}

/// The start position for these options.
pub fn start(options: &Options) -> Result<Position<u128>, PositionError> {
    Position::start(tables(), options)
}
