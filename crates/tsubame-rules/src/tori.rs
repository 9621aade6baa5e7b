//! Tori shogi as data, following the project's rules page `rules/tori-shogi.md`.
//!
//! ```
//! use tsubame_rules::{tori, Position, Options};
//! let position = tori::start(&Options::defaults(tori::spec())).unwrap();
//! assert_eq!(position.legal_moves().len(), 17);
//! assert_eq!(position.to_sfen(), "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1");
//! ```

use crate::Color;
use crate::position::{Position, PositionError};
use crate::tables::Tables;
use crate::variant::{
    DropMateRule, DropRule, Effect, Hook, OptionSpec, OptionValue, Options, PromotionRule,
    RepetitionRule, Role, RoleSpec, RuleSet, StalemateRule, VariantSpec,
};
use std::sync::OnceLock;

/// The phoenix, the royal piece (`K`).
pub const PHOENIX: Role = Role(0);
/// The falcon (`F`).
pub const FALCON: Role = Role(1);
/// The eagle, a promoted falcon (`+F`).
pub const EAGLE: Role = Role(2);
/// The crane (`C`).
pub const CRANE: Role = Role(3);
/// The pheasant (`P`).
pub const PHEASANT: Role = Role(4);
/// The left quail (`L`).
pub const LEFT_QUAIL: Role = Role(5);
/// The right quail (`R`).
pub const RIGHT_QUAIL: Role = Role(6);
/// The swallow (`S`).
pub const SWALLOW: Role = Role(7);
/// The goose, a promoted swallow (`+S`).
pub const GOOSE: Role = Role(8);
/// The owl, an expansion piece (`O`).
pub const OWL: Role = Role(9);
/// The shrike, an expansion piece (`M`).
pub const SHRIKE: Role = Role(10);

const FREE: DropRule = DropRule::FREE;

const fn role(
    name: &'static str,
    sfen: &'static str,
    hodges: &'static str,
    kanji: &'static str,
    betza: &'static str,
    set_count: u8,
) -> RoleSpec {
    RoleSpec {
        name,
        sfen,
        hodges,
        kanji,
        betza,
        promotes_to: None,
        promoted_from: None,
        royal: false,
        drop: FREE,
        set_count,
        exchangeable: true,
        hooks: &[],
    }
}

static ROLES: [RoleSpec; 11] = [
    RoleSpec {
        royal: true,
        exchangeable: false,
        ..role("phoenix", "K", "Ph", "鵬", "K", 2)
    },
    RoleSpec {
        promotes_to: Some(EAGLE),
        ..role("falcon", "F", "Fa", "鷹", "FsfW", 2)
    },
    RoleSpec {
        promoted_from: Some(FALCON),
        ..role("eagle", "+F", "+Fa", "鵰", "fBbRWbB2", 0)
    },
    role("crane", "C", "Cr", "鶴", "FvW", 4),
    role("pheasant", "P", "Pt", "雉", "fDbF", 4),
    role("left quail", "L", "LQ", "左鶉", "fRrbBlbF", 2),
    role("right quail", "R", "RQ", "右鶉", "fRlbBrbF", 2),
    RoleSpec {
        promotes_to: Some(GOOSE),
        exchangeable: false,
        drop: DropRule {
            barred_far_ranks: 1,
            max_per_file: Some(2),
            mate_restricted: true,
            file_limit_binds_board: true,
        },
        ..role("swallow", "S", "Sw", "燕", "fW", 16)
    },
    RoleSpec {
        promoted_from: Some(SWALLOW),
        ..role("goose", "+S", "+Sw", "鴈", "fAbD", 0)
    },
    role("owl", "O", "Ow", "梟", "FsW", 2),
    RoleSpec {
        exchangeable: false,
        hooks: &[Hook::ExchangeInZone],
        ..role("shrike", "M", "Sh", "鴟", "fW2", 2)
    },
];

const GOTE_FIRST: Effect = Effect::FirstMover(Color::Gote);

static OPTIONS: [OptionSpec; 5] = [
    OptionSpec {
        name: "drop-mate",
        help: "a swallow drop that gives immediate mate: the dropper loses, or the drop is illegal",
        number: None,
        values: &[
            OptionValue {
                name: "loses",
                effects: &[Effect::DropMate(DropMateRule::Loses)],
            },
            OptionValue {
                name: "illegal",
                effects: &[Effect::DropMate(DropMateRule::Illegal)],
            },
        ],
    },
    OptionSpec {
        name: "repetition",
        help: "the occurrence of a position on which the player who repeats it loses",
        number: None,
        values: &[
            OptionValue {
                name: "3",
                effects: &[Effect::RepetitionCount(3)],
            },
            OptionValue {
                name: "4",
                effects: &[Effect::RepetitionCount(4)],
            },
        ],
    },
    OptionSpec {
        name: "owl",
        help: "expansion: each side's right-hand crane starts as an owl",
        number: None,
        values: &[
            OptionValue {
                name: "off",
                effects: &[],
            },
            OptionValue {
                name: "on",
                effects: &[
                    Effect::ReplaceAtStart("3g", OWL),
                    Effect::ReplaceAtStart("5a", OWL),
                ],
            },
        ],
    },
    OptionSpec {
        name: "shrike",
        help: "expansion: each side starts with a shrike in hand",
        number: None,
        values: &[
            OptionValue {
                name: "off",
                effects: &[],
            },
            OptionValue {
                name: "on",
                effects: &[Effect::HandAtStart(SHRIKE, 1)],
            },
        ],
    },
    OptionSpec {
        name: "handicap",
        help: "gote gives a handicap and moves first",
        number: None,
        values: &[
            OptionValue {
                name: "none",
                effects: &[],
            },
            OptionValue {
                name: "left-quail",
                effects: &[Effect::RemoveAtStart(&["1a"]), GOTE_FIRST],
            },
            OptionValue {
                name: "falcon",
                effects: &[Effect::RemoveAtStart(&["4b"]), GOTE_FIRST],
            },
            OptionValue {
                name: "falcon-left-quail",
                effects: &[Effect::RemoveAtStart(&["4b", "1a"]), GOTE_FIRST],
            },
            OptionValue {
                name: "falcon-both-quails",
                effects: &[Effect::RemoveAtStart(&["4b", "1a", "7a"]), GOTE_FIRST],
            },
        ],
    },
];

static SPEC: VariantSpec = VariantSpec {
    name: "tori",
    protocol_name: "torishogi",
    title: "Tori shogi",
    width: 7,
    height: 7,
    roles: &ROLES,
    start_sfen: "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1",
    promotion: PromotionRule {
        zone_depth: 2,
        compulsory: true,
    },
    drops: true,
    repetition: RepetitionRule::MoverLoses,
    default_rules: RuleSet {
        drop_mate: DropMateRule::Loses,
        repetition_count: 3,
        drops: true,
        max_plies: 0,
    },
    stalemate: StalemateRule::Loss,
    options: &OPTIONS,
};

/// The Tori shogi definition.
pub fn spec() -> &'static VariantSpec {
    &SPEC
}

/// Tori shogi's compiled tables.
pub fn tables() -> &'static Tables<u64> {
    static TABLES: OnceLock<Tables<u64>> = OnceLock::new();
    TABLES.get_or_init(|| Tables::new(&SPEC).unwrap_or_else(|e| panic!("tori tables: {e}")))
}

/// The start position for these options (expansion pieces, handicap).
pub fn start(options: &Options) -> Result<Position<u64>, PositionError> {
    Position::start(tables(), options)
}
