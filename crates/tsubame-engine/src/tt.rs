//! Transposition table: fixed size, shared between search threads without locks. Each entry is
//! two 64-bit words, the key stored XOR-ed with the data so that a torn write is detected as a
//! miss rather than read as a wrong entry.

use std::sync::atomic::{AtomicU64, Ordering};
use tsubame_rules::Move;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at least the score.
    Lower,
    /// The true value is at most the score.
    Upper,
    /// The score is exact.
    Exact,
}

/// An entry read from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best or refuting move found, if any.
    pub mv: Option<Move>,
    /// The score, with mate scores relative to the stored node.
    pub score: i32,
    /// Depth of the search that produced it.
    pub depth: i32,
    /// How the score bounds the value.
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

/// A table whose memory could not be allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {megabytes} MiB hash table cannot be allocated")]
pub struct TableError {
    /// The size asked for.
    pub megabytes: usize,
}

/// The table.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    mask: usize,
    generation: AtomicU64,
}

const NO_MOVE: u32 = u32::MAX;

fn pack(mv: Option<Move>, score: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    let mv = mv.map_or(NO_MOVE, Move::to_bits) as u64;
    let score = (score.clamp(i16::MIN as i32, i16::MAX as i32) as i16) as u16 as u64;
    let depth = (depth.clamp(0, 255)) as u64;
    let bound = match bound {
        Bound::Lower => 1,
        Bound::Upper => 2,
        Bound::Exact => 3,
    };
    mv | (score << 32) | (depth << 48) | ((bound | (u64::from(generation) << 2)) << 56)
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (at least one slot; rounded down to a power of two).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let mut slots = Vec::with_capacity(Self::slot_count(megabytes));
        slots.resize_with(slots.capacity(), Slot::default);
        Self::with_slots(slots)
    }

    /// A table of about `megabytes` MiB, or an error where the memory cannot be had (instead
    /// of the abort of a failed allocation).
    pub fn try_new(megabytes: usize) -> Result<TranspositionTable, TableError> {
        let count = Self::slot_count(megabytes);
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(count)
            .map_err(|_| TableError { megabytes })?;
        slots.resize_with(count, Slot::default);
        Ok(Self::with_slots(slots))
    }

    /// The largest power of two of slots that fits in `megabytes` MiB (at least one).
    fn slot_count(megabytes: usize) -> usize {
        let bytes = megabytes.max(1).saturating_mul(1 << 20);
        let wanted = (bytes / std::mem::size_of::<Slot>()).max(1);
        1usize << (usize::BITS - 1 - wanted.leading_zeros())
    }

    fn with_slots(slots: Vec<Slot>) -> TranspositionTable {
        TranspositionTable {
            mask: slots.len().max(1) - 1,
            slots,
            generation: AtomicU64::new(0),
        }
    }

    /// Empties the table.
    pub fn clear(&self) {
        for slot in &self.slots {
            slot.key_xor_data.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
    }

    /// Starts a new search: older entries become easier to replace.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        (self.generation.load(Ordering::Relaxed) & 0x3f) as u8
    }

    /// The entry for `key`, if stored.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = &self.slots[key as usize & self.mask];
        let data = slot.data.load(Ordering::Relaxed);
        if slot.key_xor_data.load(Ordering::Relaxed) ^ data != key || data == 0 {
            return None;
        }
        let bits = (data & 0xffff_ffff) as u32;
        let bound = match (data >> 56) & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(Entry {
            mv: (bits != NO_MOVE).then(|| Move::from_bits(bits)),
            score: ((data >> 32) & 0xffff) as u16 as i16 as i32,
            depth: ((data >> 48) & 0xff) as i32,
            bound,
        })
    }

    /// Stores a result, replacing the slot's entry unless that one is deeper and current.
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let slot = &self.slots[key as usize & self.mask];
        let generation = self.generation();
        let old = slot.data.load(Ordering::Relaxed);
        let old_key = slot.key_xor_data.load(Ordering::Relaxed) ^ old;
        let old_depth = ((old >> 48) & 0xff) as i32;
        let old_generation = ((old >> 58) & 0x3f) as u8;
        if old != 0 && old_key != key && old_generation == generation && old_depth > depth + 2 {
            return;
        }
        // Keep a known move when the new result has none for the same position.
        let mv = match (mv, old_key == key && old != 0) {
            (None, true) => {
                let bits = (old & 0xffff_ffff) as u32;
                (bits != NO_MOVE).then(|| Move::from_bits(bits))
            }
            (mv, _) => mv,
        };
        let data = pack(mv, score, depth, bound, generation);
        slot.data.store(data, Ordering::Relaxed);
        slot.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Per mille of slots written in the current search (sampled).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| {
                let data = s.data.load(Ordering::Relaxed);
                data != 0 && ((data >> 58) & 0x3f) as u8 == generation
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::Square;

    #[test]
    fn stores_and_reads_back_entries() {
        let tt = TranspositionTable::new(1);
        let mv = Move::normal(Square::from_index(30), Square::from_index(23), true);
        tt.store(0xDEAD_BEEF_0000_1234, Some(mv), -29_950, 7, Bound::Exact);
        let entry = tt.probe(0xDEAD_BEEF_0000_1234).unwrap();
        assert_eq!(
            entry,
            Entry {
                mv: Some(mv),
                score: -29_950,
                depth: 7,
                bound: Bound::Exact
            }
        );
        assert_eq!(tt.probe(0xDEAD_BEEF_0000_1235), None);
        tt.store(0x1111, None, 12, 3, Bound::Lower);
        assert_eq!(
            tt.probe(0x1111).map(|e| (e.mv, e.bound)),
            Some((None, Bound::Lower))
        );
        tt.clear();
        assert_eq!(tt.probe(0xDEAD_BEEF_0000_1234), None);
    }

    #[test]
    fn a_deeper_current_entry_of_another_position_is_kept() {
        let tt = TranspositionTable::new(1);
        let slots = tt.mask as u64 + 1;
        tt.store(5, None, 10, 12, Bound::Exact);
        tt.store(5 + slots, None, 20, 1, Bound::Exact);
        assert_eq!(tt.probe(5).map(|e| e.depth), Some(12));
        tt.new_search();
        tt.store(5 + slots, None, 20, 1, Bound::Exact);
        assert_eq!(tt.probe(5 + slots).map(|e| e.score), Some(20));
    }
}
