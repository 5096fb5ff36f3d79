//! Hand-written AVX2 (+F16C) kernels for the hot set. Each one converts a chunk with the
//! instructions whose rounding is exactly the requested one (hardware conversions round
//! nearest-even in the default MXCSR state, which Rust never changes; `vroundps` and F16C
//! take the mode as an immediate), flags every lane they do not cover exactly, and hands a
//! flagged chunk to the scalar reference. Pairs and modes without a kernel here use the
//! generic lane bodies compiled for AVX2 (`tiers::avx2`).
//!
//! Every kernel is tested against the scalar reference by tests/tiers.rs.

use crate::config::{OutOfRange, Rounding};
use crate::dtype::{DataType, Decoded, Kind};
use crate::error::ElementError;
use crate::kernels::lanes::{self, mode, range, range_code};
use crate::kernels::KernelFn;
use crate::plan::Direction;
use core::arch::x86_64::*;

/// A specialised kernel for the direction, if the hot set has one. Only called after
/// run-time detection reported AVX2, FMA and F16C.
pub fn select(dir: &Direction) -> Option<KernelFn> {
    // scalar_map keys must be lanes these kernels already send cold: NaN or +-Inf of a float
    // source. Any other key leaves the direction to the generic lane bodies.
    let from = dir.from;
    let keys_are_special = dir
        .map
        .entries()
        .iter()
        .all(|&(k, _)| from.is_float() && matches!(from.decode_bits(k), Decoded::Nan | Decoded::Inf { .. }));
    if !keys_are_special {
        return None;
    }
    if let Some(_t) = &dir.lut {
        return match dir.to.size() {
            4 => Some(lut_gather32 as KernelFn),
            _ => None,
        };
    }
    use DataType as T;
    let r = dir.rounding;
    let oor = dir.out_of_range;
    match (from, dir.to) {
        (T::Float64, T::Float32) if r == Rounding::NearestEven => Some(match oor {
            Some(OutOfRange::Clamp) => f64_to_f32_ne::<true> as KernelFn,
            _ => f64_to_f32_ne::<false>,
        }),
        (T::Float32, T::Float64) => Some(f32_to_f64 as KernelFn),
        (T::Float32, T::Float16) => match r {
            Rounding::NearestEven => Some(f32_to_f16::<{ _MM_FROUND_TO_NEAREST_INT }> as KernelFn),
            Rounding::TowardsZero => Some(f32_to_f16::<{ _MM_FROUND_TO_ZERO }>),
            Rounding::TowardsPositive => Some(f32_to_f16::<{ _MM_FROUND_TO_POS_INF }>),
            Rounding::TowardsNegative => Some(f32_to_f16::<{ _MM_FROUND_TO_NEG_INF }>),
            Rounding::NearestAway => None,
        },
        (T::Float16, T::Float32) => Some(f16_to_f32 as KernelFn),
        (T::BFloat16, T::Float32) => Some(bf16_to_f32 as KernelFn),
        (T::Float32, T::BFloat16) => match r {
            Rounding::NearestEven => Some(f32_to_bf16::<{ mode::NE }> as KernelFn),
            Rounding::TowardsZero => Some(f32_to_bf16::<{ mode::TZ }>),
            Rounding::TowardsPositive => Some(f32_to_bf16::<{ mode::TP }>),
            Rounding::TowardsNegative => Some(f32_to_bf16::<{ mode::TN }>),
            Rounding::NearestAway => Some(f32_to_bf16::<{ mode::NA }>),
        },
        (T::Int32 | T::Int16, T::Int8 | T::UInt8 | T::Int16 | T::UInt16) if dir.to != from => {
            pick_int_narrow(from.size(), dir.to.size(), range_code(oor))
        }
        (T::Float32 | T::Float64, T::Int8 | T::UInt8 | T::Int16 | T::UInt16 | T::Int32) => {
            let (ss, ds, rc) = (from.size(), dir.to.size(), range_code(oor));
            match r {
                Rounding::NearestEven => {
                    pick_float_to_int::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(ss, ds, rc)
                }
                Rounding::TowardsZero => pick_float_to_int::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(ss, ds, rc),
                Rounding::TowardsPositive => {
                    pick_float_to_int::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(ss, ds, rc)
                }
                Rounding::TowardsNegative => {
                    pick_float_to_int::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(ss, ds, rc)
                }
                Rounding::NearestAway => None,
            }
        }
        _ => None,
    }
}

/// The narrowing kernel for (source size, target size, range rule), all resolved here.
fn pick_int_narrow(ss: usize, ds: usize, r: u8) -> Option<KernelFn> {
    Some(match (ss, ds, r) {
        (4, 1, range::ERROR) => int_narrow::<4, 1, { range::ERROR }> as KernelFn,
        (4, 1, range::CLAMP) => int_narrow::<4, 1, { range::CLAMP }> as KernelFn,
        (4, 1, range::WRAP) => int_narrow::<4, 1, { range::WRAP }> as KernelFn,
        (4, 2, range::ERROR) => int_narrow::<4, 2, { range::ERROR }> as KernelFn,
        (4, 2, range::CLAMP) => int_narrow::<4, 2, { range::CLAMP }> as KernelFn,
        (4, 2, range::WRAP) => int_narrow::<4, 2, { range::WRAP }> as KernelFn,
        (2, 1, range::ERROR) => int_narrow::<2, 1, { range::ERROR }> as KernelFn,
        (2, 1, range::CLAMP) => int_narrow::<2, 1, { range::CLAMP }> as KernelFn,
        (2, 1, range::WRAP) => int_narrow::<2, 1, { range::WRAP }> as KernelFn,
        (2, 2, range::ERROR) => int_narrow::<2, 2, { range::ERROR }> as KernelFn,
        (2, 2, range::CLAMP) => int_narrow::<2, 2, { range::CLAMP }> as KernelFn,
        (2, 2, range::WRAP) => int_narrow::<2, 2, { range::WRAP }> as KernelFn,
        _ => return None,
    })
}

/// The float -> int kernel for (source size, target size, range rule) in rounding `MODE`.
fn pick_float_to_int<const MODE: i32>(ss: usize, ds: usize, r: u8) -> Option<KernelFn> {
    Some(match (ss, ds, r) {
        (4, 1, range::ERROR) => float_to_int::<MODE, 4, 1, { range::ERROR }> as KernelFn,
        (4, 1, range::CLAMP) => float_to_int::<MODE, 4, 1, { range::CLAMP }> as KernelFn,
        (4, 1, range::WRAP) => float_to_int::<MODE, 4, 1, { range::WRAP }> as KernelFn,
        (4, 2, range::ERROR) => float_to_int::<MODE, 4, 2, { range::ERROR }> as KernelFn,
        (4, 2, range::CLAMP) => float_to_int::<MODE, 4, 2, { range::CLAMP }> as KernelFn,
        (4, 2, range::WRAP) => float_to_int::<MODE, 4, 2, { range::WRAP }> as KernelFn,
        (4, 4, range::ERROR) => float_to_int::<MODE, 4, 4, { range::ERROR }> as KernelFn,
        (4, 4, range::CLAMP) => float_to_int::<MODE, 4, 4, { range::CLAMP }> as KernelFn,
        (4, 4, range::WRAP) => float_to_int::<MODE, 4, 4, { range::WRAP }> as KernelFn,
        (8, 1, range::ERROR) => float_to_int::<MODE, 8, 1, { range::ERROR }> as KernelFn,
        (8, 1, range::CLAMP) => float_to_int::<MODE, 8, 1, { range::CLAMP }> as KernelFn,
        (8, 1, range::WRAP) => float_to_int::<MODE, 8, 1, { range::WRAP }> as KernelFn,
        (8, 2, range::ERROR) => float_to_int::<MODE, 8, 2, { range::ERROR }> as KernelFn,
        (8, 2, range::CLAMP) => float_to_int::<MODE, 8, 2, { range::CLAMP }> as KernelFn,
        (8, 2, range::WRAP) => float_to_int::<MODE, 8, 2, { range::WRAP }> as KernelFn,
        (8, 4, range::ERROR) => float_to_int::<MODE, 8, 4, { range::ERROR }> as KernelFn,
        (8, 4, range::CLAMP) => float_to_int::<MODE, 8, 4, { range::CLAMP }> as KernelFn,
        (8, 4, range::WRAP) => float_to_int::<MODE, 8, 4, { range::WRAP }> as KernelFn,
        _ => return None,
    })
}

/// Whether any of eight float32 lanes (as bits) has its exponent all ones: NaN (which must
/// become the canonical NaN) or +-Inf (possibly a scalar_map key). Such chunks go cold.
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
#[inline]
fn any_nan_or_inf(x: __m256i) -> bool {
    let e = _mm256_set1_epi32(0x7f80_0000);
    _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_and_si256(x, e), e)) != 0
}

/// Wrap a `#[target_feature]` body as a safe kernel.
macro_rules! entry {
    ($name:ident $(<$(const $g:ident: $gt:ty),*>)?, $body:ident) => {
        fn $name $(<$(const $g: $gt),*>)? (dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: `select` hands these kernels out only after run-time detection reported
            // AVX2, FMA, F16C and BMI2 with OS support for the AVX state (see `dispatch`).
            unsafe { $body $(::<$($g),*>)? (dir, src, dst) }
        }
    };
}

/// Run `step` over chunks of `N` elements (`ss` / `ds` bytes each); a chunk for which it
/// returns true (a flagged lane), and the tail, are redone by the scalar reference.
#[inline(always)]
fn chunked<const N: usize>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    (ss, ds): (usize, usize),
    mut step: impl FnMut(&[u8], &mut [u8]) -> bool,
) -> Result<(), ElementError> {
    let mut done = 0;
    let mut sc = src.chunks_exact(ss * N);
    let mut dc = dst.chunks_exact_mut(ds * N);
    for (s, d) in (&mut sc).zip(&mut dc) {
        if step(s, d) {
            lanes::cold(dir, s, d, done)?;
        }
        done += N;
    }
    lanes::cold(dir, sc.remainder(), dc.into_remainder(), done)
}

entry!(f64_to_f32_ne<const CLAMP: bool>, f64_to_f32_ne_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f64_to_f32_ne_body<const CLAMP: bool>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const N: usize = 8;
    let abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
    let inf64 = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0_0000_0000_0000));
    let inf32 = _mm_castsi128_ps(_mm_set1_epi32(0x7f80_0000));
    let abs32 = _mm_castsi128_ps(_mm_set1_epi32(i32::MAX));
    chunked::<N>(dir, src, dst, (8, 4), |s, d| {
        // SAFETY: `s` holds 64 bytes and `d` 32 (chunks_exact); the loads and stores are
        // unaligned and stay inside them.
        unsafe {
            let a = _mm256_loadu_pd(s.as_ptr().cast());
            let b = _mm256_loadu_pd(s.as_ptr().add(32).cast());
            let ra = _mm256_cvtpd_ps(a);
            let rb = _mm256_cvtpd_ps(b);
            _mm_storeu_ps(d.as_mut_ptr().cast(), ra);
            _mm_storeu_ps(d.as_mut_ptr().add(16).cast(), rb);
            // Cold: NaN or Inf inputs; and without clamp, finite inputs that overflowed.
            let sa = _mm256_cmp_pd::<_CMP_NLT_UQ>(_mm256_and_pd(a, abs_mask), inf64);
            let sb = _mm256_cmp_pd::<_CMP_NLT_UQ>(_mm256_and_pd(b, abs_mask), inf64);
            let oa = _mm_cmp_ps::<_CMP_EQ_OQ>(_mm_and_ps(ra, abs32), inf32);
            let ob = _mm_cmp_ps::<_CMP_EQ_OQ>(_mm_and_ps(rb, abs32), inf32);
            let special = _mm256_movemask_pd(sa) | _mm256_movemask_pd(sb);
            let over = if CLAMP { 0 } else { _mm_movemask_ps(oa) | _mm_movemask_ps(ob) };
            (special | over) != 0
        }
    })
}

entry!(f32_to_f64, f32_to_f64_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f32_to_f64_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const N: usize = 8;
    chunked::<N>(dir, src, dst, (4, 8), |s, d| {
        // SAFETY: `s` holds 32 bytes and `d` 64 (chunks_exact); unaligned loads and stores.
        unsafe {
            let x = _mm256_loadu_ps(s.as_ptr().cast());
            let lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
            let hi = _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x));
            _mm256_storeu_pd(d.as_mut_ptr().cast(), lo);
            _mm256_storeu_pd(d.as_mut_ptr().add(32).cast(), hi);
            // Widening is exact; NaN needs the canonical pattern and +-Inf may be map keys:
            // exponent all ones goes cold.
            any_nan_or_inf(_mm256_castps_si256(x))
        }
    })
}

entry!(f32_to_f16<const MODE: i32>, f32_to_f16_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f32_to_f16_body<const MODE: i32>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const N: usize = 8;
    // |x| >= 65504 (the float16 maximum): the range rule decides, cold. NaN/Inf too.
    let limit = _mm256_set1_epi32(0x477f_e000);
    let abs = _mm256_set1_epi32(i32::MAX);
    chunked::<N>(dir, src, dst, (4, 2), |s, d| {
        // SAFETY: `s` holds 32 bytes and `d` 16 (chunks_exact); unaligned loads and stores.
        unsafe {
            let x = _mm256_loadu_ps(s.as_ptr().cast());
            let h = _mm256_cvtps_ph::<MODE>(x);
            _mm_storeu_si128(d.as_mut_ptr().cast(), h);
            let a = _mm256_and_si256(_mm256_castps_si256(x), abs);
            let big = _mm256_cmpgt_epi32(a, _mm256_sub_epi32(limit, _mm256_set1_epi32(1)));
            _mm256_movemask_epi8(big) != 0
        }
    })
}

entry!(f16_to_f32, f16_to_f32_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f16_to_f32_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const N: usize = 8;
    chunked::<N>(dir, src, dst, (2, 4), |s, d| {
        // SAFETY: `s` holds 16 bytes and `d` 32 (chunks_exact); unaligned loads and stores.
        unsafe {
            let h = _mm_loadu_si128(s.as_ptr().cast());
            let x = _mm256_cvtph_ps(h);
            _mm256_storeu_ps(d.as_mut_ptr().cast(), x);
            // NaN (canonical pattern) and +-Inf (possible map keys) go cold.
            any_nan_or_inf(_mm256_castps_si256(x))
        }
    })
}

entry!(bf16_to_f32, bf16_to_f32_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn bf16_to_f32_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const N: usize = 8;
    chunked::<N>(dir, src, dst, (2, 4), |s, d| {
        // SAFETY: `s` holds 16 bytes and `d` 32 (chunks_exact); unaligned loads and stores.
        unsafe {
            let h = _mm_loadu_si128(s.as_ptr().cast());
            let x = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h));
            _mm256_storeu_si256(d.as_mut_ptr().cast(), x);
            // Exponent all ones: Inf or NaN, cold (NaN must become canonical).
            any_nan_or_inf(x)
        }
    })
}

entry!(f32_to_bf16<const M: u8>, f32_to_bf16_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f32_to_bf16_body<const M: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const N: usize = 8;
    let exp = _mm256_set1_epi32(0x7f80_0000);
    let abs = _mm256_set1_epi32(i32::MAX);
    let low = _mm256_set1_epi32(0xffff);
    let one = _mm256_set1_epi32(1);
    let half = _mm256_set1_epi32(0x8000);
    let zero = _mm256_setzero_si256();
    chunked::<N>(dir, src, dst, (4, 2), |s, d| {
        // SAFETY: `s` holds 32 bytes and `d` 16 (chunks_exact); unaligned loads and stores.
        unsafe {
            let x = _mm256_loadu_si256(s.as_ptr().cast());
            let a = _mm256_and_si256(x, abs);
            let rem = _mm256_and_si256(x, low);
            let neg = _mm256_cmpgt_epi32(zero, x);
            let inexact = _mm256_xor_si256(_mm256_cmpeq_epi32(rem, zero), _mm256_set1_epi32(-1));
            // Round the magnitude, in 32-bit lanes: add the increment at bit 16.
            let kept = _mm256_srli_epi32::<16>(a);
            let inc = match M {
                mode::NE => {
                    // nearest-even: rem > half, or rem == half and kept odd
                    let gt = _mm256_cmpgt_epi32(rem, half);
                    let eq = _mm256_cmpeq_epi32(rem, half);
                    let odd = _mm256_cmpeq_epi32(_mm256_and_si256(kept, one), one);
                    _mm256_or_si256(gt, _mm256_and_si256(eq, odd))
                }
                mode::TZ => zero,
                mode::TP => _mm256_andnot_si256(neg, inexact),
                mode::TN => _mm256_and_si256(neg, inexact),
                _ => _mm256_or_si256(_mm256_cmpgt_epi32(rem, half), _mm256_cmpeq_epi32(rem, half)),
            };
            let r = _mm256_sub_epi32(kept, inc); // inc lanes are -1
            let signed = _mm256_or_si256(r, _mm256_and_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(0x8000)));
            // Pack 32-bit lanes to 16 bits (values < 2^16, so the unsigned saturation is exact).
            let packed = _mm256_packus_epi32(signed, signed);
            let ordered = _mm256_permute4x64_epi64::<0b1000>(packed);
            _mm_storeu_si128(d.as_mut_ptr().cast(), _mm256_castsi256_si128(ordered));
            // Cold: NaN/Inf inputs, and results that reached the Inf pattern (overflow).
            let special = _mm256_cmpeq_epi32(_mm256_and_si256(x, exp), exp);
            let over = _mm256_cmpeq_epi32(r, _mm256_set1_epi32(0x7f80));
            _mm256_movemask_epi8(_mm256_or_si256(special, over)) != 0
        }
    })
}

// Narrowing int32/int16 -> int8/uint8/int16/uint16 with any range rule: a wide lane value
// is clamped or wrapped in 32-bit lanes, out-of-range lanes without a rule go cold.
entry!(int_narrow<const SS: usize, const DS: usize, const R: u8>, int_narrow_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int_narrow_body<const SS: usize, const DS: usize, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    const N: usize = 8;
    let f = dir.to.format();
    let (lo, hi) = match f.kind {
        Kind::Signed => (-(1i32 << (f.bits - 1)), (1i32 << (f.bits - 1)) - 1),
        _ => (0, ((1i64 << f.bits) - 1) as i32),
    };
    let (vlo, vhi) = (_mm256_set1_epi32(lo), _mm256_set1_epi32(hi));
    // Byte shuffles that keep the low 1 or 2 bytes of each 32-bit lane.
    let take8 = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1,
    );
    let take16 = _mm256_setr_epi8(
        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1,
        -1,
    );
    chunked::<N>(dir, src, dst, (SS, DS), |s, d| {
        // SAFETY: `s` holds 8 source elements and `d` 8 target elements (chunks_exact);
        // loads and stores are unaligned and stay inside them.
        unsafe {
            let x = if SS == 4 {
                _mm256_loadu_si256(s.as_ptr().cast())
            } else {
                _mm256_cvtepi16_epi32(_mm_loadu_si128(s.as_ptr().cast()))
            };
            let outside = _mm256_or_si256(_mm256_cmpgt_epi32(vlo, x), _mm256_cmpgt_epi32(x, vhi));
            let v = if R == range::CLAMP { _mm256_min_epi32(_mm256_max_epi32(x, vlo), vhi) } else { x };
            if DS == 1 {
                let b = _mm256_shuffle_epi8(v, take8);
                let lo4 = _mm_cvtsi128_si32(_mm256_castsi256_si128(b)) as u32;
                let hi4 = _mm_cvtsi128_si32(_mm256_extracti128_si256::<1>(b)) as u32;
                let bytes = (lo4 as u64 | ((hi4 as u64) << 32)).to_ne_bytes();
                core::ptr::copy_nonoverlapping(bytes.as_ptr(), d.as_mut_ptr(), 8);
            } else {
                let b = _mm256_shuffle_epi8(v, take16);
                let q = _mm256_permute4x64_epi64::<0b1000>(b);
                _mm_storeu_si128(d.as_mut_ptr().cast(), _mm256_castsi256_si128(q));
            }
            R == range::ERROR && _mm256_movemask_epi8(outside) != 0
        }
    })
}

// float32/float64 -> int8/uint8/int16/uint16/int32: round with `vround` in the requested
// mode (exact), compare with the limits as floats, clamp or wrap in-lane.
entry!(float_to_int<const MODE: i32, const SS: usize, const DS: usize, const R: u8>, float_to_int_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn float_to_int_body<const MODE: i32, const SS: usize, const DS: usize, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    const N: usize = 8;
    let f = dir.to.format();
    let (lo, hi) = match f.kind {
        Kind::Signed => (-((1i64 << (f.bits - 1)) as f64), ((1i64 << (f.bits - 1)) - 1) as f64),
        _ => (0.0, ((1i64 << f.bits) - 1) as f64),
    };
    let (vlo, vhi) = (_mm256_set1_pd(lo), _mm256_set1_pd(hi));
    // Wrap handles rounded magnitudes below 2^31 in-lane; larger ones go cold.
    let wrap_lim = _mm256_set1_pd(2147483647.0);
    let take8 = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    let take16 = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    chunked::<N>(dir, src, dst, (SS, DS), |s, d| {
        // SAFETY: `s` holds 8 source elements and `d` 8 target elements (chunks_exact);
        // loads and stores are unaligned and stay inside them.
        unsafe {
            let (a, b) = if SS == 4 {
                let x = _mm256_loadu_ps(s.as_ptr().cast());
                (_mm256_cvtps_pd(_mm256_castps256_ps128(x)), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)))
            } else {
                (_mm256_loadu_pd(s.as_ptr().cast()), _mm256_loadu_pd(s.as_ptr().add(32).cast()))
            };
            // f32 -> f64 is exact, so rounding the f64 is rounding the f32.
            let ra = _mm256_round_pd::<MODE>(a);
            let rb = _mm256_round_pd::<MODE>(b);
            // NaN or +-Inf in either half: the range rule does not apply to them, cold.
            let absm = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
            let inf = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0_0000_0000_0000));
            let sa = _mm256_cmp_pd::<_CMP_NLT_UQ>(_mm256_and_pd(a, absm), inf);
            let sb = _mm256_cmp_pd::<_CMP_NLT_UQ>(_mm256_and_pd(b, absm), inf);
            let nan = (_mm256_movemask_pd(sa) | _mm256_movemask_pd(sb)) != 0;
            let out_a = _mm256_or_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(ra, vlo), _mm256_cmp_pd::<_CMP_GT_OQ>(ra, vhi));
            let out_b = _mm256_or_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(rb, vlo), _mm256_cmp_pd::<_CMP_GT_OQ>(rb, vhi));
            let outside = (_mm256_movemask_pd(out_a) | _mm256_movemask_pd(out_b)) != 0;
            let (ca, cb, cold_needed) = match R {
                range::CLAMP => {
                    (_mm256_min_pd(_mm256_max_pd(ra, vlo), vhi), _mm256_min_pd(_mm256_max_pd(rb, vlo), vhi), nan)
                }
                range::WRAP => {
                    let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
                    let big_a = _mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_and_pd(ra, abs), wrap_lim);
                    let big_b = _mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_and_pd(rb, abs), wrap_lim);
                    (ra, rb, nan || (_mm256_movemask_pd(big_a) | _mm256_movemask_pd(big_b)) != 0)
                }
                _ => (ra, rb, nan || outside),
            };
            let ia = _mm256_cvttpd_epi32(ca);
            let ib = _mm256_cvttpd_epi32(cb);
            let i = _mm256_set_m128i(ib, ia);
            if DS == 4 {
                _mm256_storeu_si256(d.as_mut_ptr().cast(), i);
            } else {
                let t = if DS == 1 { take8 } else { take16 };
                let l = _mm_shuffle_epi8(_mm256_castsi256_si128(i), t);
                let h = _mm_shuffle_epi8(_mm256_extracti128_si256::<1>(i), t);
                if DS == 1 {
                    let v = (_mm_cvtsi128_si32(l) as u32 as u64) | ((_mm_cvtsi128_si32(h) as u32 as u64) << 32);
                    core::ptr::copy_nonoverlapping(v.to_ne_bytes().as_ptr(), d.as_mut_ptr(), 8);
                } else {
                    _mm_storeu_si128(d.as_mut_ptr().cast(), _mm_unpacklo_epi64(l, h));
                }
            }
            cold_needed
        }
    })
}

// Sources of 8 bits or less to 32-bit targets: 8 lanes per gather from the table.
entry!(lut_gather32, lut_gather32_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn lut_gather32_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let Some(lut) = &dir.lut else { return lanes::cold(dir, src, dst, 0) };
    let (values, fails) = (lut.values(), lut.fails());
    const N: usize = 8;
    chunked::<N>(dir, src, dst, (1, 4), |s, d| {
        let bad =
            lut.any_fail() && s.iter().fold(false, |acc, &b| acc | fails.get(b as usize).copied().unwrap_or(true));
        // SAFETY: `s` holds 8 bytes and `d` 32 (chunks_exact). The gather reads the low 4
        // bytes (x86_64 is little-endian) of entries 0..=255 of the 256-entry u64 table.
        unsafe {
            let idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(s.as_ptr().cast()));
            let v = _mm256_i32gather_epi32::<8>(values.as_ptr().cast(), idx);
            _mm256_storeu_si256(d.as_mut_ptr().cast(), v);
        }
        bad
    })
}
