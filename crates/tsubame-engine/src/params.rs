//! Evaluation parameter files: JSON that names a game and overrides some or all of its
//! [`EvalParams`], so weights can be tried in matches and written by the tuner without
//! rebuilding the engine.
//!
//! ```
//! use tsubame_engine::{eval::EvalParams, params::ParamFile};
//! use tsubame_rules::wa;
//!
//! let file = ParamFile::parse(r#"{"variant": "washogi", "params": {"mop_up_edge": 35}}"#).unwrap();
//! let params = file.apply(&EvalParams::for_variant(wa::spec())).unwrap();
//! assert_eq!(params.mop_up_edge, 35);
//! assert_eq!(params.tempo, EvalParams::for_variant(wa::spec()).tempo);
//! ```

use crate::eval::EvalParams;
use serde_json::{Map, Value};
use tsubame_rules::{Variant, VariantSpec};

/// The tuned weights built into the engine, as a parameter file, for the games that have one.
fn tuned_file(spec: &VariantSpec) -> Option<&'static str> {
    match Variant::from_spec(spec)? {
        Variant::Tori => Some(include_str!("../params/torishogi.json")),
        Variant::Tenjiku => Some(include_str!("../params/tenjiku.json")),
        Variant::Wa => Some(include_str!("../params/washogi.json")),
    }
}

// The built-in weights are a parameter file applied to the derived ones: they live here, with
// the files, so that the evaluation knows nothing of parameter files.
impl EvalParams {
    /// The built-in weights of a game: [`EvalParams::derived`], with the tuned values of
    /// `params/<game>.json` (written by `tsubame tune fit`) where the game has such a file.
    pub fn for_variant(spec: &'static VariantSpec) -> EvalParams {
        let derived = EvalParams::derived(spec);
        match tuned_file(spec) {
            Some(text) => ParamFile::parse(text)
                .and_then(|file| file.apply(&derived))
                .unwrap_or(derived),
            None => derived,
        }
    }
}

/// The tables a parameter file may give as `[]` to switch them off.
const SWITCHABLE_TABLES: [&str; 6] = [
    "near_enemy_royal",
    "near_own_royal",
    "royal_danger",
    "hanging",
    "attacked",
    "weak_zone",
];

/// Why a parameter file was refused; the message names what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// Not JSON.
    #[error("not a parameter file: {0}")]
    Json(String),
    /// JSON, but not an object.
    #[error("a parameter file is a JSON object with variant and params")]
    NotAnObject,
    /// No `variant` string.
    #[error("the parameter file names no variant (\"variant\": \"washogi\")")]
    NoVariant,
    /// No `params` object.
    #[error("the parameter file has no \"params\" object")]
    NoParams,
    /// A key other than `variant` and `params`.
    #[error("unknown key {0:?} in the parameter file")]
    UnknownKey(String),
    /// A game this engine does not play.
    #[error("unknown variant {0:?} in the parameter file")]
    UnknownVariant(String),
    /// A name that is no evaluation parameter.
    #[error("unknown evaluation parameter {0:?}")]
    UnknownParameter(String),
    /// A list of the wrong length for the game.
    #[error("{name} has {given} entries; {variant} needs {needed}")]
    WrongLength {
        /// The parameter.
        name: String,
        /// How many entries the file gives.
        given: usize,
        /// The game.
        variant: &'static str,
        /// How many it needs.
        needed: usize,
    },
    /// One row of a per-kind table of the wrong length for the board.
    #[error("{name} of kind {kind} has {given} entries; the board needs {needed}")]
    WrongRowLength {
        /// The table.
        name: &'static str,
        /// The kind whose row it is.
        kind: usize,
        /// How many entries the file gives.
        given: usize,
        /// How many the board needs.
        needed: usize,
    },
    /// A value of the wrong type.
    #[error("bad evaluation parameter value: {0}")]
    Value(String),
    /// The base parameters could not be turned into JSON (never for the built-in ones).
    #[error("the evaluation parameters cannot be written as JSON")]
    Unwritable,
}

/// A parsed parameter file: the game it is for and the parameters it sets.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamFile {
    /// The game's protocol name (`torishogi`, `washogi`, `tenjiku`).
    pub variant: String,
    /// Parameter names and values; the rest keep the game's defaults.
    pub params: Map<String, Value>,
}

impl ParamFile {
    /// Reads `{"variant": NAME, "params": {FIELD: VALUE, ...}}`. The error names what is wrong.
    pub fn parse(text: &str) -> Result<ParamFile, ParamError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ParamError::Json(e.to_string()))?;
        let Value::Object(mut top) = value else {
            return Err(ParamError::NotAnObject);
        };
        let variant = match top.remove("variant") {
            Some(Value::String(name)) => name,
            _ => return Err(ParamError::NoVariant),
        };
        let params = match top.remove("params") {
            Some(Value::Object(params)) => params,
            _ => return Err(ParamError::NoParams),
        };
        if let Some(unknown) = top.keys().next() {
            return Err(ParamError::UnknownKey(unknown.clone()));
        }
        Ok(ParamFile { variant, params })
    }

    /// `base` with this file's parameters set. Every name must be a parameter and every
    /// list must have the size the file's game gives it (one entry per piece kind, per rank,
    /// ...); the tables of [`EvalParams::with_every_table`] may also be empty, which switches
    /// them off. Tables left all zeros come back empty ([`EvalParams::without_zero_tables`]).
    pub fn apply(&self, base: &EvalParams) -> Result<EvalParams, ParamError> {
        let spec = Variant::from_name(&self.variant)
            .map(Variant::spec)
            .ok_or_else(|| ParamError::UnknownVariant(self.variant.clone()))?;
        let full = base.with_every_table(spec);
        let mut merged = match serde_json::to_value(&full) {
            Ok(Value::Object(fields)) => fields,
            _ => return Err(ParamError::Unwritable),
        };
        for (name, value) in &self.params {
            let Some(slot) = merged.get_mut(name) else {
                return Err(ParamError::UnknownParameter(name.clone()));
            };
            if let (Value::Array(old), Value::Array(new)) = (&*slot, value)
                && old.len() != new.len()
                && !(new.is_empty() && SWITCHABLE_TABLES.contains(&name.as_str()))
            {
                return Err(ParamError::WrongLength {
                    name: name.clone(),
                    given: new.len(),
                    variant: spec.name,
                    needed: old.len(),
                });
            }
            *slot = value.clone();
        }
        let params: EvalParams = serde_json::from_value(Value::Object(merged))
            .map_err(|e| ParamError::Value(e.to_string()))?;
        for (name, ours, theirs) in [
            ("rank_bonus", &params.rank_bonus, &full.rank_bonus),
            ("file_bonus", &params.file_bonus, &full.file_bonus),
            (
                "near_enemy_royal",
                &params.near_enemy_royal,
                &full.near_enemy_royal,
            ),
            (
                "near_own_royal",
                &params.near_own_royal,
                &full.near_own_royal,
            ),
        ] {
            if let Some((kind, (table, expected))) = ours
                .iter()
                .zip(theirs)
                .enumerate()
                .find(|(_, (table, expected))| table.len() != expected.len())
            {
                return Err(ParamError::WrongRowLength {
                    name,
                    kind,
                    given: table.len(),
                    needed: expected.len(),
                });
            }
        }
        Ok(params.without_zero_tables())
    }

    /// The file that sets every parameter of `params` for `variant`.
    pub fn complete(variant: &str, params: &EvalParams) -> ParamFile {
        let params = match serde_json::to_value(params) {
            Ok(Value::Object(fields)) => fields,
            _ => Map::new(),
        };
        ParamFile {
            variant: variant.to_string(),
            params,
        }
    }

    /// The file as JSON text, one parameter per line.
    pub fn to_json(&self) -> String {
        let mut text = format!(
            "{{\n  \"variant\": {},\n  \"params\": {{\n",
            Value::from(self.variant.as_str())
        );
        let count = self.params.len();
        for (i, (name, value)) in self.params.iter().enumerate() {
            let comma = if i + 1 < count { "," } else { "" };
            text.push_str(&format!(
                "    {}: {value}{comma}\n",
                Value::from(name.as_str())
            ));
        }
        text.push_str("  }\n}\n");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_tuned_files_are_read_whole() {
        for spec in [
            tsubame_rules::tori::spec(),
            tsubame_rules::wa::spec(),
            tsubame_rules::tenjiku::spec(),
        ] {
            let text = tuned_file(spec).unwrap();
            let file = ParamFile::parse(text).unwrap();
            assert_eq!(file.variant, spec.protocol_name);
            let tuned = file.apply(&EvalParams::derived(spec)).unwrap();
            assert_eq!(EvalParams::for_variant(spec), tuned);
            assert_ne!(tuned, EvalParams::derived(spec));
        }
    }

    use tsubame_rules::{tori, wa};

    #[test]
    fn a_complete_file_reads_back_to_the_same_parameters() {
        let params = EvalParams::for_variant(tori::spec());
        let file = ParamFile::complete("torishogi", &params);
        let read = ParamFile::parse(&file.to_json()).unwrap();
        assert_eq!(read, file);
        assert_eq!(
            read.apply(&EvalParams::for_variant(tori::spec())).unwrap(),
            params
        );
    }

    #[test]
    fn relational_tables_can_be_set_switched_off_and_are_dropped_when_zero() {
        let base = EvalParams::derived(wa::spec());
        assert!(base.near_enemy_royal.is_empty() && base.hanging.is_empty());
        let full = base.with_every_table(wa::spec());
        let kinds = wa::spec().roles.len();
        let places = 21 * 21;
        assert_eq!(full.near_enemy_royal.len(), kinds);
        assert!(full.near_enemy_royal.iter().all(|t| t.len() == places));
        let mut near = vec![vec![0; places]; kinds];
        near[wa::SPARROW_PAWN.index()][7] = 9;
        let text = serde_json::json!({
            "variant": "washogi",
            "params": {"near_enemy_royal": near, "hanging": vec![0; kinds], "weak_zone": []},
        })
        .to_string();
        let params = ParamFile::parse(&text).unwrap().apply(&base).unwrap();
        assert_eq!(params.near_enemy_royal, near);
        // All zeros or empty: off.
        assert!(params.hanging.is_empty() && params.weak_zone.is_empty());
        assert!(params.near_own_royal.is_empty());
        // A table of the wrong size is named, with the size the game needs.
        let text = r#"{"variant": "washogi", "params": {"royal_danger": [1, 2, 3]}}"#;
        let error = ParamFile::parse(text).unwrap().apply(&base).unwrap_err();
        assert!(
            error.to_string().contains("royal_danger has 3 entries"),
            "{error}"
        );
        let text = r#"{"variant": "washogi", "params": {"near_own_royal": [[1]]}}"#;
        let error = ParamFile::parse(text).unwrap().apply(&base).unwrap_err();
        assert!(
            error.to_string().contains("near_own_royal has 1 entries"),
            "{error}"
        );
        let text = r#"{"variant": "chess", "params": {}}"#;
        let error = ParamFile::parse(text).unwrap().apply(&base).unwrap_err();
        assert_eq!(error, ParamError::UnknownVariant("chess".into()));
    }

    #[test]
    fn mistakes_are_named() {
        let base = EvalParams::for_variant(wa::spec());
        let cases = [
            ("[1, 2]", "a JSON object"),
            ("{\"params\": {}}", "names no variant"),
            ("{\"variant\": \"washogi\"}", "no \"params\" object"),
            (
                "{\"variant\": \"washogi\", \"params\": {}, \"x\": 1}",
                "unknown key \"x\"",
            ),
            (
                "{\"variant\": \"washogi\", \"params\": {\"tempoo\": 1}}",
                "unknown evaluation parameter \"tempoo\"",
            ),
            (
                "{\"variant\": \"washogi\", \"params\": {\"hand_value\": [1, 2]}}",
                "hand_value has 2 entries",
            ),
            (
                "{\"variant\": \"washogi\", \"params\": {\"tempo\": \"fast\"}}",
                "bad evaluation parameter value",
            ),
            (
                "{\"variant\": \"washogi\", \"params\": {\"tempo\": 1e30}}",
                "bad evaluation parameter value",
            ),
            ("{not json", "not a parameter file"),
            (
                "{\"variant\": \"washogi\", \"params\": {\"rank_bonus\": [[1]]}}",
                "rank_bonus has 1 entries",
            ),
        ];
        for (text, expected) in cases {
            let error = ParamFile::parse(text)
                .and_then(|file| file.apply(&base))
                .unwrap_err();
            assert!(error.to_string().contains(expected), "{text}: {error}");
        }
    }
}
