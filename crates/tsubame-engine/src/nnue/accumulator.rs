//! The first layer's sums for both perspectives, and the stack of them the search keeps, one
//! per ply, each made from the one below by a move's changes.

use super::*;

/// The first layer's sums for both perspectives (sente's first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub(super) values: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            values: [[0; HIDDEN]; 2],
        }
    }
}

impl Accumulator {
    /// Computes both perspectives' sums from the position's inputs.
    pub fn refresh<B: Bitboard>(&mut self, network: &Network, position: &Position<B>) {
        for perspective in [Color::Sente, Color::Gote] {
            refresh_values(
                &mut self.values[perspective.index()],
                network,
                position,
                perspective,
            );
        }
    }

    /// This accumulator as `parent` changed by `changes`, the changes of the move that made
    /// `position`: updated where the move leaves a perspective's view as it was, computed
    /// afresh where it moved that perspective's royal into another view.
    #[inline]
    pub fn update_from<B: Bitboard>(
        &mut self,
        parent: &Accumulator,
        network: &Network,
        changes: &Changes,
        position: &Position<B>,
    ) {
        for perspective in [Color::Sente, Color::Gote] {
            if changes.refreshes(perspective) {
                refresh_values(
                    &mut self.values[perspective.index()],
                    network,
                    position,
                    perspective,
                );
            } else {
                self.update_perspective(parent, network, changes, perspective);
            }
        }
    }

    /// One perspective's sums as `parent`'s changed by `changes`.
    #[inline]
    fn update_perspective(
        &mut self,
        parent: &Accumulator,
        network: &Network,
        changes: &Changes,
        perspective: Color,
    ) {
        let p = perspective.index();
        let added: [&[i16]; MAX_CHANGES] = std::array::from_fn(|i| {
            network.column(changes.added[p][i.min(MAX_CHANGES - 1)] as usize)
        });
        let removed: [&[i16]; MAX_CHANGES] = std::array::from_fn(|i| {
            network.column(changes.removed[p][i.min(MAX_CHANGES - 1)] as usize)
        });
        simd::add_sub(
            &mut self.values[p],
            &parent.values[p],
            &added[..usize::from(changes.added_count)],
            &removed[..usize::from(changes.removed_count)],
        );
    }

    /// The sums seen by `perspective`.
    pub fn values(&self, perspective: Color) -> &[i16; HIDDEN] {
        &self.values[perspective.index()]
    }
}

/// Computes one perspective's sums from the position's inputs in its view.
pub fn refresh_values<B: Bitboard>(
    values: &mut [i16; HIDDEN],
    network: &Network,
    position: &Position<B>,
    perspective: Color,
) {
    let mut inputs = Vec::with_capacity(96);
    network
        .royal
        .inputs_of(network.layout, position, perspective, &mut inputs);
    values.copy_from_slice(&network.b1);
    for &input in &inputs {
        let column = network.column(input);
        for (v, w) in values.iter_mut().zip(column) {
            *v = v.wrapping_add(*w);
        }
    }
}

/// The accumulators along a search's current line, updated lazily: a move records its input
/// changes, and the sums are brought up to date only when a position is evaluated. Most moves
/// a search makes are taken back unevaluated (pruned late moves, table cutoffs, repetitions),
/// and those never pay for the first layer.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    /// Entry `i` is the accumulator of the position `i` moves below the root. Entries past
    /// `top` are kept from earlier lines, so that a move writes its accumulator in place.
    entries: Vec<Accumulator>,
    /// The input changes of the move that led to each entry's position.
    changes: Vec<Changes>,
    /// Whether each entry holds its position's sums, perspective by perspective; an entry is
    /// computed only after its parent is, except for a perspective its move refreshed, which
    /// is computed when the move is made.
    computed: Vec<[bool; 2]>,
    top: usize,
}

impl AccumulatorStack {
    /// A stack whose root is `root`, with room for `depth` moves before it grows.
    pub fn new(root: Accumulator, depth: usize) -> AccumulatorStack {
        let mut entries = Vec::with_capacity(depth + 1);
        entries.push(root);
        let mut changes = Vec::with_capacity(depth + 1);
        changes.push(Changes::default());
        let mut computed = Vec::with_capacity(depth + 1);
        computed.push([true; 2]);
        AccumulatorStack {
            entries,
            changes,
            computed,
            top: 0,
        }
    }

    /// Records a move that changes `changes` in the inputs; its sums wait until asked for,
    /// except those of a perspective whose view the move changed ([`Changes::refreshes`]):
    /// `refresh` computes those now from the position the move made (with
    /// [`refresh_values`]), since later the position is no longer at hand.
    #[inline]
    pub fn push(&mut self, changes: Changes, mut refresh: impl FnMut(Color, &mut [i16; HIDDEN])) {
        let next = self.top + 1;
        if next < self.entries.len() {
            self.changes[next] = changes;
        } else {
            self.entries.push(Accumulator::default());
            self.changes.push(changes);
            self.computed.push([false; 2]);
        }
        self.computed[next] = changes.refresh;
        if changes.refresh != [false; 2] {
            for perspective in [Color::Sente, Color::Gote] {
                if changes.refreshes(perspective) {
                    refresh(
                        perspective,
                        &mut self.entries[next].values[perspective.index()],
                    );
                }
            }
        }
        self.top = next;
    }

    /// Takes the last move back.
    #[inline]
    pub fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    /// The current position's accumulator, brought up to date from the nearest computed one
    /// below it.
    #[inline]
    pub fn current(&mut self, network: &Network) -> &Accumulator {
        let top = self.top;
        if self.computed[top] != [true; 2] {
            // The nearest computed entry below, for each perspective: most often the same
            // entry for both, found in one walk; they differ only below a move that
            // refreshed one of them.
            let mut base = top;
            while base > 0 && self.computed[base] == [false; 2] {
                base -= 1;
            }
            let bases = if base == 0 || self.computed[base] == [true; 2] {
                [base, base]
            } else {
                [0, 1].map(|p| {
                    let mut below = base;
                    while below > 0 && !self.computed[below][p] {
                        below -= 1;
                    }
                    below
                })
            };
            for index in bases[0].min(bases[1]) + 1..=top {
                let (done, rest) = self.entries.split_at_mut(index);
                let (Some(parent), Some(next)) = (done.last(), rest.first_mut()) else {
                    continue;
                };
                for perspective in [Color::Sente, Color::Gote] {
                    let p = perspective.index();
                    // Entries up to a perspective's base may be stale for it below a refresh:
                    // they stay as they are.
                    if index > bases[p] {
                        next.update_perspective(parent, network, &self.changes[index], perspective);
                        self.computed[index][p] = true;
                    }
                }
            }
        }
        &self.entries[top]
    }
}
