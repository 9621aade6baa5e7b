//! The two inner loops, in a portable form and, where the processor has them, with AVX2 or
//! WebAssembly's SIMD (the browser's engine). All compute exactly the same integers.

use super::{HIDDEN, QA};

/// Sums of the first layer updated together by AVX2: 128 lanes of 16 bits in eight of its
/// sixteen registers, which stay there while every column is added in.
#[cfg(target_arch = "x86_64")]
const ADD_SUB_BLOCK: usize = 128;

/// `out = parent + sum(added) - sum(removed)`, lane by lane, wrapping.
#[inline]
pub fn add_sub(
    out: &mut [i16; HIDDEN],
    parent: &[i16; HIDDEN],
    added: &[&[i16]],
    removed: &[&[i16]],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        unsafe { add_sub_avx2(out, parent, added, removed) };
        return;
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        add_sub_wasm(out, parent, added, removed);
        return;
    }
    #[allow(unreachable_code)]
    add_sub_portable(out, parent, added, removed);
}

/// [`add_sub`] without SIMD instructions beyond what the target always has.
#[inline(always)]
pub fn add_sub_portable(
    out: &mut [i16; HIDDEN],
    parent: &[i16; HIDDEN],
    added: &[&[i16]],
    removed: &[&[i16]],
) {
    out.copy_from_slice(parent);
    for column in added {
        for (v, w) in out.iter_mut().zip(column.iter()) {
            *v = v.wrapping_add(*w);
        }
    }
    for column in removed {
        for (v, w) in out.iter_mut().zip(column.iter()) {
            *v = v.wrapping_sub(*w);
        }
    }
}

/// The same sums with AVX2, in one pass: each block of lanes is loaded once, every column
/// added to it in registers, and stored once (the portable loop makes a pass through
/// memory per column).
///
/// # Safety
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_avx2(
    out: &mut [i16; HIDDEN],
    parent: &[i16; HIDDEN],
    added: &[&[i16]],
    removed: &[&[i16]],
) {
    use std::arch::x86_64::*;
    const REGISTERS: usize = ADD_SUB_BLOCK / 16;
    if added
        .iter()
        .chain(removed)
        .any(|column| column.len() < HIDDEN)
    {
        add_sub_portable(out, parent, added, removed);
        return;
    }
    for block in (0..HIDDEN).step_by(ADD_SUB_BLOCK) {
        let mut sums = [_mm256_setzero_si256(); REGISTERS];
        for (r, sum) in sums.iter_mut().enumerate() {
            // SAFETY: `block + 16 * r + 16 <= HIDDEN`, the length of `parent`.
            *sum = unsafe { _mm256_loadu_si256(parent.as_ptr().add(block + 16 * r).cast()) };
        }
        for column in added {
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: every column holds at least HIDDEN values, checked above.
                let w = unsafe { _mm256_loadu_si256(column.as_ptr().add(block + 16 * r).cast()) };
                *sum = _mm256_add_epi16(*sum, w);
            }
        }
        for column in removed {
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: as for the added columns.
                let w = unsafe { _mm256_loadu_si256(column.as_ptr().add(block + 16 * r).cast()) };
                *sum = _mm256_sub_epi16(*sum, w);
            }
        }
        for (r, sum) in sums.iter().enumerate() {
            // SAFETY: `block + 16 * r + 16 <= HIDDEN`, the length of `out`.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(block + 16 * r).cast(), *sum) };
        }
    }
}

/// `sum over both accumulators of clamp(v, 0, QA)^2 * w`: the output layer before its
/// scaling. The weights are `us`'s HIDDEN then `them`'s; their array type is what lets
/// the AVX2 path read all of them without a check.
#[inline]
pub fn output_sum(us: &[i16; HIDDEN], them: &[i16; HIDDEN], weights: &[i16; 2 * HIDDEN]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { output_sum_avx2(us, them, weights) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return output_sum_wasm(us, them, weights);
    #[allow(unreachable_code)]
    output_sum_portable(us, them, weights)
}

/// [`output_sum`] in plain integer arithmetic.
pub fn output_sum_portable(
    us: &[i16; HIDDEN],
    them: &[i16; HIDDEN],
    weights: &[i16; 2 * HIDDEN],
) -> i64 {
    let (w_us, w_them) = weights.split_at(HIDDEN);
    let side = |values: &[i16; HIDDEN], w: &[i16]| -> i64 {
        values
            .iter()
            .zip(w)
            .map(|(&v, &w)| {
                let v = i64::from(v.clamp(0, QA as i16));
                v * v * i64::from(w)
            })
            .sum()
    };
    side(us, w_us) + side(them, w_them)
}

/// [`output_sum`] with AVX2: `clamp(v) * w` fits 16 bits (255 * 127), `madd` multiplies
/// it by `clamp(v)` again and adds pairs into 32-bit lanes, each of which sums at most
/// 2 * HIDDEN / 16 * 2 = 64 products of at most 255 * 255 * 127, well inside 32 bits; the
/// lanes are added in 64 bits. Equal to the portable sum whenever every output weight lies
/// within +-127, which the trainer guarantees.
///
/// # Safety
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn output_sum_avx2(
    us: &[i16; HIDDEN],
    them: &[i16; HIDDEN],
    weights: &[i16; 2 * HIDDEN],
) -> i64 {
    use std::arch::x86_64::*;
    let (w_us, w_them) = weights.split_at(HIDDEN);
    let zero = _mm256_setzero_si256();
    let ceiling = _mm256_set1_epi16(QA as i16);
    let mut lanes = _mm256_setzero_si256();
    for (values, w) in [(us, w_us), (them, w_them)] {
        for i in (0..HIDDEN).step_by(16) {
            // SAFETY: `i + 16 <= HIDDEN`, and `values` and `w` (a half of the
            // 2 * HIDDEN weights) hold HIDDEN values each; unaligned loads.
            let (v, w) = unsafe {
                (
                    _mm256_loadu_si256(values.as_ptr().add(i).cast()),
                    _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                )
            };
            let clipped = _mm256_min_epi16(_mm256_max_epi16(v, zero), ceiling);
            let product = _mm256_mullo_epi16(clipped, w);
            lanes = _mm256_add_epi32(lanes, _mm256_madd_epi16(product, clipped));
        }
    }
    let mut parts = [0i32; 8];
    // SAFETY: `parts` holds exactly 32 bytes.
    unsafe { _mm256_storeu_si256(parts.as_mut_ptr().cast(), lanes) };
    parts.iter().map(|&p| i64::from(p)).sum()
}
/// [`add_sub`] with WebAssembly's 128-bit SIMD (a module built with `+simd128`, as the
/// browser's engine is): as the AVX2 path, a block of lanes loaded once, every column added
/// to it, stored once.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn add_sub_wasm(
    out: &mut [i16; HIDDEN],
    parent: &[i16; HIDDEN],
    added: &[&[i16]],
    removed: &[&[i16]],
) {
    use std::arch::wasm32::*;
    const BLOCK: usize = 128;
    const VECTORS: usize = BLOCK / 8;
    if added
        .iter()
        .chain(removed)
        .any(|column| column.len() < HIDDEN)
    {
        add_sub_portable(out, parent, added, removed);
        return;
    }
    for block in (0..HIDDEN).step_by(BLOCK) {
        let mut sums = [i16x8_splat(0); VECTORS];
        for (r, sum) in sums.iter_mut().enumerate() {
            // SAFETY: `block + 8 * r + 8 <= HIDDEN`, the length of `parent`.
            *sum = unsafe { v128_load(parent.as_ptr().add(block + 8 * r).cast()) };
        }
        for column in added {
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: every column holds at least HIDDEN values, checked above.
                let w = unsafe { v128_load(column.as_ptr().add(block + 8 * r).cast()) };
                *sum = i16x8_add(*sum, w);
            }
        }
        for column in removed {
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: as for the added columns.
                let w = unsafe { v128_load(column.as_ptr().add(block + 8 * r).cast()) };
                *sum = i16x8_sub(*sum, w);
            }
        }
        for (r, sum) in sums.iter().enumerate() {
            // SAFETY: `block + 8 * r + 8 <= HIDDEN`, the length of `out`.
            unsafe { v128_store(out.as_mut_ptr().add(block + 8 * r).cast(), *sum) };
        }
    }
}

/// [`output_sum`] with WebAssembly's 128-bit SIMD: `clamp(v) * w` fits 16 bits, the dot
/// product multiplies it by `clamp(v)` again and adds pairs into 32-bit lanes, each summing
/// at most HIDDEN / 4 products of at most 255 * 255 * 127 per side (inside 32 bits for
/// both widths of network); each side's lanes are added in 64 bits. Equal to the portable
/// sum whenever every output weight lies within +-127, which the trainer guarantees.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn output_sum_wasm(us: &[i16; HIDDEN], them: &[i16; HIDDEN], weights: &[i16; 2 * HIDDEN]) -> i64 {
    use std::arch::wasm32::*;
    let (w_us, w_them) = weights.split_at(HIDDEN);
    let zero = i16x8_splat(0);
    let ceiling = i16x8_splat(QA as i16);
    let mut total = 0i64;
    for (values, w) in [(us, w_us), (them, w_them)] {
        let mut lanes = i32x4_splat(0);
        for i in (0..HIDDEN).step_by(8) {
            // SAFETY: `i + 8 <= HIDDEN`, and `values` and `w` (a half of the 2 * HIDDEN
            // weights) hold HIDDEN values each; wasm loads need no alignment.
            let (v, w) = unsafe {
                (
                    v128_load(values.as_ptr().add(i).cast()),
                    v128_load(w.as_ptr().add(i).cast()),
                )
            };
            let clipped = i16x8_min(i16x8_max(v, zero), ceiling);
            let product = i16x8_mul(clipped, w);
            lanes = i32x4_add(lanes, i32x4_dot_i16x8(product, clipped));
        }
        total += i64::from(i32x4_extract_lane::<0>(lanes))
            + i64::from(i32x4_extract_lane::<1>(lanes))
            + i64::from(i32x4_extract_lane::<2>(lanes))
            + i64::from(i32x4_extract_lane::<3>(lanes));
    }
    total
}
