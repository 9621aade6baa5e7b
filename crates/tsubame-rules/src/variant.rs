//! Games described as data: board, pieces, promotion, drops, game-end rules and rule options.
//!
//! A [`VariantSpec`] is plain static data; [`crate::tables::Tables`] compiles it into the attack
//! tables that move generation reads. Special rules that do not fit the data (the shrike's
//! exchange move, for example) are named [`Hook`]s on the piece that has them.

use crate::Color;
use std::fmt;

/// A piece kind, as an index into its variant's [`VariantSpec::roles`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role(pub u8);

impl Role {
    /// The index into the variant's role list.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece: a kind and the side that owns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The owner.
    pub color: Color,
    /// The kind.
    pub role: Role,
}

/// Where a piece of some kind may be dropped, beyond "any empty square".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DropRule {
    /// Drops are barred on this many ranks at the far side (1: the last rank).
    pub barred_far_ranks: u8,
    /// A drop is barred on a file already holding this many of the dropper's pieces of this kind.
    pub max_per_file: Option<u8>,
    /// A drop of this kind that gives immediate mate falls under the variant's
    /// [`DropMateRule`].
    pub mate_restricted: bool,
    /// Whether no play at all can put more than `max_per_file` of these pieces on a file, so a
    /// position with more is impossible (Tori's swallows; not Wa's pawns, which start doubled).
    pub file_limit_binds_board: bool,
}

impl DropRule {
    /// No restriction beyond "any empty square".
    pub const FREE: DropRule = DropRule {
        barred_far_ranks: 0,
        max_per_file: None,
        mate_restricted: false,
        file_limit_binds_board: false,
    };
}

/// Special abilities a piece has beyond its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// While the piece stands in its owner's promotion zone, the owner may, as a whole move,
    /// exchange it for a piece in hand: the hand piece takes the square, unpromoted, and this
    /// piece goes to the hand. Kinds marked [`RoleSpec::exchangeable`] `false` cannot be taken.
    ExchangeInZone,
}

/// One piece kind of a variant.
#[derive(Clone, Copy, Debug)]
pub struct RoleSpec {
    /// English name, lower case (`"swallow"`).
    pub name: &'static str,
    /// SFEN code: an upper-case letter, with a leading `+` for a promoted kind (`"+S"`).
    pub sfen: &'static str,
    /// Hodges abbreviation (`"Sw"`, `"+Sw"`).
    pub hodges: &'static str,
    /// Japanese name as written on the piece.
    pub kanji: &'static str,
    /// Moves in Betza notation, from sente's side.
    pub betza: &'static str,
    /// The kind it promotes to, if any.
    pub promotes_to: Option<Role>,
    /// For a promoted kind, the kind it was promoted from (what a capture puts in hand).
    pub promoted_from: Option<Role>,
    /// Whether losing it loses the game (the king of the variant).
    pub royal: bool,
    /// Drop restrictions.
    pub drop: DropRule,
    /// How many of this kind, with its promoted form, a full set holds (both sides together);
    /// positions with more are rejected.
    pub set_count: u8,
    /// Whether a hook exchange may bring this kind from hand.
    pub exchangeable: bool,
    /// Special abilities.
    pub hooks: &'static [Hook],
}

/// What happens when a drop marked [`DropRule::mate_restricted`] gives immediate mate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropMateRule {
    /// The drop may be played, and the player who made it loses at once.
    Loses,
    /// The drop is not a legal move.
    Illegal,
}

/// How a game treats a position that is reached again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RepetitionRule {
    /// When a move produces a position for the deciding time the player who made it loses,
    /// unless every opponent move of the cycle gave check (then the checking player loses).
    MoverLoses,
    /// The deciding occurrence ends the game without a winner, unless one player gave check
    /// with every move of the cycle: that player loses.
    NoContest,
    /// A move that recreates any earlier position with the same side to move is illegal.
    Illegal,
}

/// How a player with no legal move and not in check fares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StalemateRule {
    /// The player who cannot move loses.
    Loss,
}

/// Promotion rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromotionRule {
    /// How many far ranks form the promotion zone.
    pub zone_depth: u8,
    /// Whether a move into, within or out of the zone must promote.
    pub compulsory: bool,
}

/// A change an option value makes to a game's rules or start position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Sets the [`DropMateRule`].
    DropMate(DropMateRule),
    /// Sets after how many occurrences a repeated position ends the game.
    RepetitionCount(u8),
    /// Removes the pieces on these squares from the start position, for good.
    RemoveAtStart(&'static [&'static str]),
    /// Replaces the piece on a square of the start position by one of this kind, same owner.
    ReplaceAtStart(&'static str, Role),
    /// Gives each side this many pieces of a kind in hand at the start.
    HandAtStart(Role, u8),
    /// Which side moves first.
    FirstMover(Color),
    /// Whether captured pieces go to hand and may be dropped.
    Drops(bool),
    /// After this many plies the game ends without a winner (0: no limit).
    MaxPlies(u32),
    /// A Tenjiku rule reading other than the default.
    Tenjiku(TenjikuRule),
}

/// A Tenjiku option value that departs from the default reading (the [`Effect`] it makes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TenjikuRule {
    /// `lion-hawk=tsa`.
    LionHawkTsa,
    /// `free-eagle=japanese`.
    FreeEagleJapanese,
    /// `demon-conflict=adams`.
    DemonConflictAdams,
    /// `range-jump=always`.
    RangeJumpAlways,
    /// `promotion=entry`.
    PromotionEntry,
    /// `mate=play-on`: a mated player plays on until a royal is actually captured.
    MateNotFinal,
}

/// One value of a rule option.
#[derive(Clone, Copy, Debug)]
pub struct OptionValue {
    /// The value as written (`"illegal"`).
    pub name: &'static str,
    /// What choosing it does.
    pub effects: &'static [Effect],
}

/// A rule option: a name and its values, the first being the default.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// The option's name (`"drop-mate"`).
    pub name: &'static str,
    /// What it is for, one line.
    pub help: &'static str,
    /// The named values, default first.
    pub values: &'static [OptionValue],
    /// Whether a whole number is also a value, and what it does.
    pub number: Option<NumberOption>,
}

/// A rule option value given as a whole number.
#[derive(Clone, Copy, Debug)]
pub struct NumberOption {
    /// Smallest number allowed.
    pub min: u32,
    /// Largest number allowed.
    pub max: u32,
    /// The effect of choosing `n`.
    pub effect: fn(u32) -> Effect,
}

/// Everything that defines a game.
#[derive(Debug)]
pub struct VariantSpec {
    /// Short name used on the command line and in records (`"tori"`).
    pub name: &'static str,
    /// Name used by USI/UCI `UCI_Variant` and Fairy-Stockfish (`"torishogi"`).
    pub protocol_name: &'static str,
    /// Name for people (`"Tori shogi"`).
    pub title: &'static str,
    /// Files.
    pub width: u8,
    /// Ranks.
    pub height: u8,
    /// Piece kinds; [`Role`] indexes this list.
    pub roles: &'static [RoleSpec],
    /// Start position (even game, default options) as SFEN.
    pub start_sfen: &'static str,
    /// Promotion.
    pub promotion: PromotionRule,
    /// Whether captured pieces go to the captor's hand and may be dropped.
    pub drops: bool,
    /// Repetition.
    pub repetition: RepetitionRule,
    /// The rule choices before any option changes them.
    pub default_rules: RuleSet,
    /// Stalemate.
    pub stalemate: StalemateRule,
    /// Rule options.
    pub options: &'static [OptionSpec],
}

impl VariantSpec {
    /// The kind with this SFEN code (`"S"`, `"+F"`), if any.
    pub fn role_by_sfen(&self, code: &str) -> Option<Role> {
        self.roles
            .iter()
            .position(|r| r.sfen == code)
            .map(|i| Role(i as u8))
    }

    /// The spec of a kind.
    pub fn role(&self, role: Role) -> &'static RoleSpec {
        &self.roles[role.index()]
    }

    /// The option with this name, if any.
    pub fn option(&self, name: &str) -> Option<&'static OptionSpec> {
        self.options.iter().find(|o| o.name == name)
    }

    /// What each kind becomes when the board is mirrored left to right: the kind that moves as
    /// its mirror image and is otherwise the same (royalty, drops, hooks, and promotion to the
    /// mirror of its promoted form). Every rule of the game then holds in the mirrored
    /// position too, so a position and its mirror image have the same value. `None` when some
    /// kind has no such image among the game's kinds, or a move is not written in Betza.
    ///
    /// ```
    /// use tsubame_rules::{Role, tori};
    /// // Tori's quails are each other's mirror image; every other bird is its own.
    /// let mirror = tori::spec().mirror_roles().unwrap();
    /// assert_eq!(mirror[tori::LEFT_QUAIL.index()], tori::RIGHT_QUAIL);
    /// assert_eq!(mirror[tori::FALCON.index()], tori::FALCON);
    /// ```
    pub fn mirror_roles(&self) -> Option<Vec<Role>> {
        let sorted_moves = |betza: &str, mirrored: bool| -> Option<Vec<(i8, i8, bool, u8)>> {
            let mut moves: Vec<_> = crate::betza::parse(betza)
                .ok()?
                .into_iter()
                .map(|atom| {
                    let (leap, limit) = match atom.reach {
                        crate::betza::Reach::Leap => (true, 0),
                        crate::betza::Reach::Slide { limit } => (false, limit),
                    };
                    let left = if mirrored { -atom.left } else { atom.left };
                    (left, atom.forward, leap, limit)
                })
                .collect();
            moves.sort_unstable();
            moves.dedup();
            Some(moves)
        };
        let moves = self
            .roles
            .iter()
            .map(|r| sorted_moves(r.betza, false))
            .collect::<Option<Vec<_>>>()?;
        let alike = |a: &RoleSpec, b: &RoleSpec| {
            a.royal == b.royal
                && a.drop == b.drop
                && a.exchangeable == b.exchangeable
                && a.set_count == b.set_count
                && a.hooks == b.hooks
        };
        let mut mirror = Vec::with_capacity(self.roles.len());
        for (index, spec) in self.roles.iter().enumerate() {
            let image = sorted_moves(spec.betza, true)?;
            // A kind that is its own image keeps itself even when another kind moves alike.
            let found = std::iter::once(index)
                .chain(0..self.roles.len())
                .find(|&other| moves[other] == image && alike(spec, &self.roles[other]))?;
            mirror.push(Role(found as u8));
        }
        let consistent = self.roles.iter().enumerate().all(|(index, spec)| {
            let image = &self.roles[mirror[index].index()];
            spec.promotes_to.map(|p| mirror[p.index()]) == image.promotes_to
                && spec.promoted_from.map(|p| mirror[p.index()]) == image.promoted_from
        });
        consistent.then_some(mirror)
    }
}

/// Chosen values of a variant's rule options.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Options {
    variant: &'static VariantSpec,
    /// The chosen value of each option of the variant, in the variant's order.
    chosen: Vec<Choice>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Choice {
    Named(u8),
    Number(u32),
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Options({self})")
    }
}

impl PartialEq for VariantSpec {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for VariantSpec {}
impl std::hash::Hash for VariantSpec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

/// Why a rule option could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option of that name in this variant.
    #[error("unknown option {name:?} for {variant} (options: {known})")]
    UnknownOption {
        /// The name given.
        name: String,
        /// The variant.
        variant: &'static str,
        /// The variant's option names.
        known: String,
    },
    /// The option has no such value.
    #[error("option {option} has no value {value:?} (values: {known})")]
    UnknownValue {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// The option's values.
        known: String,
    },
    /// Text that is not `name=value`.
    #[error("option {0:?} is not written as name=value")]
    Malformed(String),
}

impl OptionSpec {
    fn value_text(&self, choice: Choice) -> String {
        match choice {
            Choice::Named(i) => self
                .values
                .get(i as usize)
                .map_or("?", |v| v.name)
                .to_string(),
            Choice::Number(n) => n.to_string(),
        }
    }

    fn known_values(&self) -> String {
        let mut known: Vec<String> = self.values.iter().map(|v| v.name.to_string()).collect();
        if let Some(number) = self.number {
            known.push(format!("a number from {} to {}", number.min, number.max));
        }
        known.join(", ")
    }

    fn choose(&self, value: &str) -> Option<Choice> {
        if let Some(i) = self.values.iter().position(|v| v.name == value) {
            return Some(Choice::Named(i as u8));
        }
        let number = self.number?;
        if value.starts_with('+') || (value.len() > 1 && value.starts_with('0')) {
            return None;
        }
        let n: u32 = value.parse().ok()?;
        (number.min..=number.max)
            .contains(&n)
            .then_some(Choice::Number(n))
    }
}

impl Options {
    /// Every option at its default value.
    pub fn defaults(variant: &'static VariantSpec) -> Options {
        Options {
            variant,
            chosen: vec![Choice::Named(0); variant.options.len()],
        }
    }

    /// The variant these options belong to.
    pub fn variant(&self) -> &'static VariantSpec {
        self.variant
    }

    /// Sets option `name` to `value`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let variant = self.variant;
        let index = variant
            .options
            .iter()
            .position(|o| o.name == name)
            .ok_or_else(|| OptionError::UnknownOption {
                name: name.chars().take(40).collect(),
                variant: variant.name,
                known: variant
                    .options
                    .iter()
                    .map(|o| o.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let spec = &variant.options[index];
        let choice = spec
            .choose(value)
            .ok_or_else(|| OptionError::UnknownValue {
                option: spec.name,
                value: value.chars().take(40).collect(),
                known: spec.known_values(),
            })?;
        self.chosen[index] = choice;
        Ok(())
    }

    /// Sets an option from `name=value` text.
    pub fn set_pair(&mut self, text: &str) -> Result<(), OptionError> {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| OptionError::Malformed(text.chars().take(40).collect()))?;
        self.set(name.trim(), value.trim())
    }

    /// Reads a comma-separated list of `name=value` pairs over the defaults.
    ///
    /// ```
    /// use tsubame_rules::{tori, Options};
    /// let options = Options::parse(tori::spec(), "drop-mate=illegal,repetition=4").unwrap();
    /// assert_eq!(options.get("drop-mate").as_deref(), Some("illegal"));
    /// assert_eq!(options.get("owl").as_deref(), Some("off"));
    /// assert!(Options::parse(tori::spec(), "owl=maybe").is_err());
    /// ```
    pub fn parse(variant: &'static VariantSpec, text: &str) -> Result<Options, OptionError> {
        let mut options = Options::defaults(variant);
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            options.set_pair(pair)?;
        }
        Ok(options)
    }

    /// The chosen value of option `name`, as text.
    pub fn get(&self, name: &str) -> Option<String> {
        let index = self.variant.options.iter().position(|o| o.name == name)?;
        Some(self.variant.options[index].value_text(self.chosen[index]))
    }

    /// Every option with its chosen value, in the variant's order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        self.variant
            .options
            .iter()
            .zip(&self.chosen)
            .map(|(o, &c)| (o.name, o.value_text(c)))
    }

    /// The effects of every chosen value.
    pub fn effects(&self) -> Vec<Effect> {
        let mut effects = Vec::new();
        for (spec, &choice) in self.variant.options.iter().zip(&self.chosen) {
            match choice {
                Choice::Named(i) => {
                    if let Some(value) = spec.values.get(i as usize) {
                        effects.extend_from_slice(value.effects);
                    }
                }
                Choice::Number(n) => {
                    if let Some(number) = spec.number {
                        effects.push((number.effect)(n));
                    }
                }
            }
        }
        effects
    }

    /// The rules that move generation and game end depend on.
    pub fn rule_set(&self) -> RuleSet {
        let mut rules = self.variant.default_rules;
        for effect in self.effects() {
            match effect {
                Effect::DropMate(rule) => rules.drop_mate = rule,
                Effect::RepetitionCount(n) => rules.repetition_count = n,
                Effect::Drops(on) => rules.drops = on,
                Effect::MaxPlies(n) => rules.max_plies = n,
                _ => {}
            }
        }
        rules
    }
}

impl fmt::Display for Options {
    /// Writes every option that differs from its default as `name=value`, comma-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (spec, &choice) in self.variant.options.iter().zip(&self.chosen) {
            if choice != Choice::Named(0) {
                if !first {
                    f.write_str(",")?;
                }
                write!(f, "{}={}", spec.name, spec.value_text(choice))?;
                first = false;
            }
        }
        Ok(())
    }
}

/// The rule choices that legal moves and game end depend on, resolved from [`Options`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// What a mating drop of a restricted kind does.
    pub drop_mate: DropMateRule,
    /// After how many occurrences a repeated position ends the game.
    pub repetition_count: u8,
    /// Whether captured pieces go to hand and may be dropped.
    pub drops: bool,
    /// After this many plies the game ends without a winner; 0 for no limit.
    pub max_plies: u32,
}
