//! `GET /api/variants`: every game's board, pieces with their moves, and rule options.

use crate::request::ok;
use crate::responses::{
    DropInfo, LionPower, NumberRange, OptionInfo, RangeJump, RoleInfo, RoleMove, TenjikuPowers,
    VariantInfo,
};
use axum::response::Response;
use tsubame_rules::Variant;
use tsubame_rules::betza::Reach;
use tsubame_rules::tenjiku;

/// A kind's ordinary moves, as the move generator reads them from its Betza string: each a
/// vector from sente's side (`left`, `forward`), leapt once or slid along (`limit` 0: no limit).
fn role_moves(betza: &str) -> Vec<RoleMove> {
    tsubame_rules::betza::parse(betza)
        .unwrap_or_default()
        .into_iter()
        .map(|atom| RoleMove {
            left: atom.left,
            forward: atom.forward,
            slide: matches!(atom.reach, Reach::Slide { .. }),
            limit: match atom.reach {
                Reach::Leap => None,
                Reach::Slide { limit } => Some(limit),
            },
        })
        .collect()
}

/// The directions of a Tenjiku direction set as (left, forward) unit vectors.
fn direction_vectors(set: tenjiku::DirSet) -> Vec<[i8; 2]> {
    const VECTORS: [[i8; 2]; 8] = [
        [0, 1],
        [1, 1],
        [1, 0],
        [1, -1],
        [0, -1],
        [-1, -1],
        [-1, 0],
        [-1, 1],
    ];
    VECTORS
        .into_iter()
        .enumerate()
        .filter(|(bit, _)| set & (1 << bit) != 0)
        .map(|(_, v)| v)
        .collect()
}

/// What a Tenjiku kind does beyond its Betza moves (lion power, area moves, range jumps, the
/// tetrarch's moves, burning), from the rules library's own table; `None` for none.
fn tenjiku_powers(role: Option<tsubame_rules::Role>) -> Option<TenjikuPowers> {
    let powers = tenjiku::powers(role?)?;
    let lion = match powers.lion {
        tenjiku::Lion::None => None,
        tenjiku::Lion::Full => Some(LionPower::Named("full")),
        tenjiku::Lion::LionHawk => Some(LionPower::Named("lion-hawk")),
        tenjiku::Lion::Line(set) => Some(LionPower::Line {
            line: direction_vectors(set),
        }),
    };
    let plain = lion.is_none()
        && powers.area == 0
        && powers.range_jump.is_none()
        && !powers.tetrarch
        && !powers.burns
        && !powers.free_eagle;
    (!plain).then(|| TenjikuPowers {
        lion,
        area: powers.area,
        range_jump: powers.range_jump.map(|jump| RangeJump {
            directions: direction_vectors(jump.dirs),
            level: jump.level,
        }),
        tetrarch: powers.tetrarch,
        burns: powers.burns,
        free_eagle: powers.free_eagle,
        rank: powers.rank,
    })
}

/// Every game: board, pieces with their moves, rule options.
#[utoipa::path(get, path = "/api/variants", tag = "games",
    responses((status = 200, description = "Every game", body = Vec<VariantInfo>)))]
pub(crate) async fn variants() -> Response {
    let list: Vec<VariantInfo> = Variant::ALL
        .into_iter()
        .map(|variant| {
            let (files, ranks) = variant.board_size();
            let spec = variant.spec();
            let roles = spec
                .roles
                .iter()
                .map(|r| RoleInfo {
                    name: r.name,
                    sfen: r.sfen,
                    hodges: r.hodges,
                    kanji: r.kanji,
                    royal: r.royal,
                    promotes_to: r.promotes_to.map(|p| spec.role(p).sfen),
                    promoted_from: r.promoted_from.map(|p| spec.role(p).sfen),
                    betza: r.betza,
                    moves: role_moves(r.betza),
                    powers: (variant == Variant::Tenjiku)
                        .then(|| tenjiku_powers(spec.role_by_sfen(r.sfen)))
                        .flatten(),
                    drop: DropInfo {
                        barred_far_ranks: r.drop.barred_far_ranks,
                        max_per_file: r.drop.max_per_file,
                        mate_restricted: r.drop.mate_restricted,
                    },
                })
                .collect();
            let options = spec
                .options
                .iter()
                .map(|o| OptionInfo {
                    name: o.name,
                    help: o.help,
                    values: o.values.iter().map(|v| v.name).collect(),
                    number: o.number.map(|n| NumberRange {
                        min: n.min,
                        max: n.max,
                    }),
                })
                .collect();
            VariantInfo {
                name: spec.name,
                title: spec.title,
                files,
                ranks,
                available: true,
                start_sfen: spec.start_sfen,
                roles,
                options,
                drops: spec.drops,
                promotion_zone: spec.promotion.zone_depth,
                promotion_compulsory: spec.promotion.compulsory,
                rating_pools: crate::ratings::rating_pools(variant),
            }
        })
        .collect();
    ok(&list)
}
