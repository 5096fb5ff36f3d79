//! Hand-written AVX-512 kernels (F, BW, VL, VBMI, DQ), for the kinds of directions AVX2
//! does slowest. Sources of 8 bits or less: their 256-entry table (built from the scalar
//! reference at plan time, scalar_map folded in) fits in four 64-byte registers per target
//! byte, and `vpermi2b` looks up 64 indices in two of them at once: two lookups and a blend
//! on bit 7 give one byte plane of 64 elements, where AVX2 needs sixteen `vpshufb` rows
//! (and their XOR) per 32. Wider targets look up one plane per byte and interleave them with
//! `vpermi2b`/`vpermi2w`/`vpermi2d`. 16-bit and wider float sources and the 64-bit integers
//! -> byte float types: in 16-bit lanes, with a per-exponent table of shifts, rounding
//! constants and codes (`to_byte_float`).
//! 64-bit integers <-> floats, and 32-bit integers -> float16/bfloat16: AVX-512 DQ's
//! conversions, with the rounding mode in the instruction (`int64_to_float`,
//! `int_to_half`, `to_int64`). Every other direction runs the AVX2 tier's kernels.
//!
//! Every kernel is tested against the scalar reference by tests/tiers.rs (every tier, every
//! source byte, lengths and offsets).

// This module is built only when build.rs found Rust 1.89 or later (`cast_value_avx512`),
// where these intrinsics are stable; the crate's MSRV builds without it.
#![allow(clippy::incompatible_msrv)]

use crate::dtype::{DataType, Format, Kind};
use crate::error::ElementError;
use crate::kernels::lanes::{self, mode, mode_code};
use crate::kernels::{array_fn, dispatch, hot, unrolled, KernelFn};
use crate::plan::Direction;
use core::arch::x86_64::*;

/// Proof that the CPU runs this tier's instructions (AVX-512 F, BW, VL, VBMI, DQ), as the
/// AVX2 tier's `Avx2` is for that tier: made without `unsafe` only where the caller is
/// compiled with those features, and taken by the `#[inline(always)]` helpers.
#[derive(Clone, Copy)]
struct Avx512(());

impl Avx512 {
    /// The proof, where the caller's own target features include this tier's.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
    #[inline]
    fn new() -> Avx512 {
        Avx512(())
    }
}

/// Source codes of [`to_byte_float`]: float16 and bfloat16 are read as they are; the others
/// become f32 lanes ([`f32_bits`]), then bfloat16 rounded to odd.
mod src {
    pub const F16: u8 = 0;
    pub const BF16: u8 = 1;
    pub const F32: u8 = 2;
    pub const F64: u8 = 3;
    pub const I64: u8 = 8;
    pub const U64: u8 = 9;

    /// Bytes per element.
    pub const fn size(s: u8) -> usize {
        match s {
            F16 | BF16 => 2,
            F64 | I64 | U64 => 8,
            _ => 4,
        }
    }
}

/// The kernel for a direction, or `None` to use the AVX2 tier's.
pub fn select(dir: &Direction) -> Option<KernelFn> {
    table_kernel(dir).or_else(|| compute_kernel(dir)).or_else(|| int_kernel(dir)).or_else(|| to_int64_kernel(dir))
}

/// float32/bfloat16/float64 -> int64/uint64 in every mode, where the scalar_map holds at
/// most NaN/+-Inf keys (lanes this kernel sends cold).
fn to_int64_kernel(dir: &Direction) -> Option<KernelFn> {
    use DataType as T;
    if !lanes::map_keys_are_special(dir) {
        return None;
    }
    let s = match dir.from {
        T::Float32 => src::F32,
        T::BFloat16 => src::BF16,
        T::Float64 => src::F64,
        _ => return None,
    };
    let u = match dir.to {
        T::Int64 => false,
        T::UInt64 => true,
        _ => return None,
    };
    macro_rules! modes {
        ($s:expr, $u:expr) => {
            match mode_code(dir.rounding) {
                mode::NE => to_int64::<{ $s }, $u, { mode::NE }> as KernelFn,
                mode::TZ => to_int64::<{ $s }, $u, { mode::TZ }>,
                mode::TP => to_int64::<{ $s }, $u, { mode::TP }>,
                mode::TN => to_int64::<{ $s }, $u, { mode::TN }>,
                _ => to_int64::<{ $s }, $u, { mode::NA }>,
            }
        };
    }
    Some(match (s, u) {
        (src::F32, false) => modes!(src::F32, false),
        (src::F32, true) => modes!(src::F32, true),
        (src::BF16, false) => modes!(src::BF16, false),
        (src::BF16, true) => modes!(src::BF16, true),
        (_, false) => modes!(src::F64, false),
        (_, true) => modes!(src::F64, true),
    })
}

/// int64/uint64 -> float32/float64 in the modes AVX-512 DQ converts with (every mode but
/// nearest-away), and int32/uint32/int64/uint64 -> float16/bfloat16 in every mode, without a
/// scalar_map (integer keys are checked in-lane elsewhere).
fn int_kernel(dir: &Direction) -> Option<KernelFn> {
    use DataType as T;
    if !dir.map.is_empty() {
        return None;
    }
    macro_rules! modes {
        ($u:expr, $d:expr) => {
            match mode_code(dir.rounding) {
                mode::NE => {
                    Some(int64_to_float::<$u, $d, { _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }> as KernelFn)
                }
                mode::TZ => Some(int64_to_float::<$u, $d, { _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>),
                mode::TP => Some(int64_to_float::<$u, $d, { _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>),
                mode::TN => Some(int64_to_float::<$u, $d, { _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>),
                _ => None,
            }
        };
    }
    macro_rules! halves {
        ($w:expr, $u:expr, $f16:expr) => {
            match mode_code(dir.rounding) {
                mode::NE => Some(int_to_half::<$w, $u, $f16, { mode::NE }> as KernelFn),
                mode::TZ => Some(int_to_half::<$w, $u, $f16, { mode::TZ }>),
                mode::TP => Some(int_to_half::<$w, $u, $f16, { mode::TP }>),
                mode::TN => Some(int_to_half::<$w, $u, $f16, { mode::TN }>),
                _ => Some(int_to_half::<$w, $u, $f16, { mode::NA }>),
            }
        };
    }
    match (dir.from, dir.to) {
        (T::Int32, T::Float16) => halves!(4, false, true),
        (T::UInt32, T::Float16) => halves!(4, true, true),
        (T::Int32, T::BFloat16) => halves!(4, false, false),
        (T::UInt32, T::BFloat16) => halves!(4, true, false),
        (T::Int64, T::Float16) => halves!(8, false, true),
        (T::UInt64, T::Float16) => halves!(8, true, true),
        (T::Int64, T::BFloat16) => halves!(8, false, false),
        (T::UInt64, T::BFloat16) => halves!(8, true, false),
        (T::Int64, T::Float32) => modes!(false, 4),
        (T::Int64, T::Float64) => modes!(false, 8),
        (T::UInt64, T::Float32) => modes!(true, 4),
        (T::UInt64, T::Float64) => modes!(true, 8),
        _ => None,
    }
}

/// A float source of 16 bits or more, or int64/uint64 -> a byte float type with a sign and
/// subnormals, where the scalar_map holds at most NaN/+-Inf keys (the lanes this kernel
/// sends cold).
fn compute_kernel(dir: &Direction) -> Option<KernelFn> {
    let (from, to) = (dir.from, dir.to);
    let t = to.format();
    if !(t.kind == Kind::Float && t.size == 1 && t.subnormals && t.has_sign && t.man_bits <= 4) {
        return None;
    }
    if !lanes::map_keys_are_special(dir) {
        return None;
    }
    // The source's subnormals must be subnormal in the target too (one shift per exponent
    // assumes a hidden bit above the target's normal range): not so for float16 ->
    // float8_e5m2fnuz, whose least normal is 2^-15. (bfloat16's least normal is 2^-126.)
    if from == DataType::Float16 && t.min_normal_exponent() < from.format().min_normal_exponent() {
        return None;
    }
    // 16/32-bit integer sources: AVX2's `to_mini` takes integers in its integer form alone (no
    // subnormal results from integers), faster than these 16-bit lanes (int64/uint64, whose
    // f32 lanes come from a conversion here, about equal, and stay).
    if matches!(from, DataType::Int16 | DataType::UInt16 | DataType::Int32 | DataType::UInt32) {
        return None;
    }
    // On an AMD Zen 4, which runs 512-bit operations as two 256-bit halves, the sources made
    // bfloat16 rounded to odd first run faster on AVX2's `to_mini` (float16/bfloat16, faster
    // here, stay).
    if dispatch::avx512_in_halves() && !matches!(from, DataType::Float16 | DataType::BFloat16) {
        return None;
    }
    // AVX2's F16C kernel rounds these nearest-away faster (measured).
    if from == DataType::Float32 && to == DataType::Float8E5M2 && mode_code(dir.rounding) == mode::NA {
        return None;
    }
    macro_rules! modes {
        ($s:expr) => {
            match mode_code(dir.rounding) {
                mode::NE => to_byte_float::<{ $s }, { mode::NE }> as KernelFn,
                mode::TZ => to_byte_float::<{ $s }, { mode::TZ }>,
                mode::TP => to_byte_float::<{ $s }, { mode::TP }>,
                mode::TN => to_byte_float::<{ $s }, { mode::TN }>,
                _ => to_byte_float::<{ $s }, { mode::NA }>,
            }
        };
    }
    use DataType as T;
    Some(match from {
        T::Float16 => modes!(src::F16),
        T::BFloat16 => modes!(src::BF16),
        T::Float32 => modes!(src::F32),
        T::Float64 => modes!(src::F64),
        T::Int64 => modes!(src::I64),
        T::UInt64 => modes!(src::U64),
        _ => return None,
    })
}

/// The table kernel for a source of 8 bits or less, if it beats AVX2's. Measured (2^20, every
/// byte source x target x rule): the tables win for byte and 2-byte targets, and for wider
/// ones from float6/float8 sources; AVX2's own kernels for integer and float4 sources to
/// 4- and 8-byte targets (extensions and `vpshufb` rows) are as fast or faster, and a copy
/// is a copy.
fn table_kernel(dir: &Direction) -> Option<KernelFn> {
    let fails = dir.lut.as_ref()?.any_fail();
    let (from, to) = (dir.from, dir.to);
    if (from == to && from.is_integer()) || (to.size() >= 4 && (from.is_integer() || from.bits() < 6)) {
        return None;
    }
    Some(table_planes!(planes, dir.to.size(), fails))
}

/// A table of 256 bytes as four registers: `entry(64 r + i)` at byte `i` of register `r`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn table(entry: impl Fn(usize) -> u8) -> [__m512i; 4] {
    array_fn(
        #[inline(always)]
        |r| {
            let b: [u8; 64] = array_fn(
                #[inline(always)]
                |i| entry(64 * r + i),
            );
            // SAFETY: `b` holds the 64 bytes read; an unaligned load.
            unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
        },
    )
}

/// Byte `x` of [`table`] `t` for each of 64 bytes: `vpermi2b` reads bits 0-6 of the index
/// (bit 6 picks the register), so entries below 128 come from `t[0..2]`, the others from
/// `t[2..4]`, and bit 7 picks between the two.
#[inline(always)]
fn look_up(_cpu: Avx512, t: &[__m512i; 4], x: __m512i) -> __m512i {
    // SAFETY: the `Avx512` proves the tier's features (see [`Avx512`]).
    unsafe {
        let [a, b, c, d] = *t;
        let low = _mm512_permutex2var_epi8(a, x, b);
        let high = _mm512_permutex2var_epi8(c, x, d);
        _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high)
    }
}

/// The index vectors that interleave two vectors of `U` units each (`U` = 64, 32, 16 for
/// bytes, words, dwords): output half `h`, unit `u`, is unit `U/2 h + u/2` of the first
/// input (`u` even) or of the second (`u` odd; indices from `U` name the second operand).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn zip_index<const U: usize>() -> [__m512i; 2] {
    array_fn(
        #[inline(always)]
        |h| {
            let mut b = [0u8; 64];
            let w = 64 / U;
            for (u, unit) in b.chunks_exact_mut(w).enumerate() {
                let idx = (u % 2) * U + U / 2 * h + u / 2;
                // Little-endian unit of `w` bytes holding `idx` (below 128).
                if let Some(first) = unit.first_mut() {
                    *first = idx as u8;
                }
            }
            // SAFETY: `b` holds the 64 bytes read; an unaligned load.
            unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
        },
    )
}

/// The interleave indices of the three unit widths.
struct Zips {
    bytes: [__m512i; 2],
    words: [__m512i; 2],
    dwords: [__m512i; 2],
    /// The proof the methods' intrinsics rest on (read by none: see [`Avx512`]).
    _cpu: Avx512,
}

impl Zips {
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
    fn new() -> Zips {
        Zips { bytes: zip_index::<64>(), words: zip_index::<32>(), dwords: zip_index::<16>(), _cpu: Avx512::new() }
    }

    /// `a` and `b` interleaved by bytes: 64 byte pairs, the first 32 in the first vector.
    #[inline(always)]
    fn bytes(&self, a: __m512i, b: __m512i) -> [__m512i; 2] {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx512`]).
        unsafe {
            let [i, j] = self.bytes;
            [_mm512_permutex2var_epi8(a, i, b), _mm512_permutex2var_epi8(a, j, b)]
        }
    }

    /// Pairs of byte-pair vectors interleaved by words: 64 four-byte units.
    #[inline(always)]
    fn words(&self, [a0, a1]: [__m512i; 2], [b0, b1]: [__m512i; 2]) -> [__m512i; 4] {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx512`]).
        unsafe {
            let [i, j] = self.words;
            [
                _mm512_permutex2var_epi16(a0, i, b0),
                _mm512_permutex2var_epi16(a0, j, b0),
                _mm512_permutex2var_epi16(a1, i, b1),
                _mm512_permutex2var_epi16(a1, j, b1),
            ]
        }
    }

    /// Quads of four-byte-unit vectors interleaved by dwords: 64 eight-byte units, the
    /// `k`th given to `put` as it is made (an array of eight would be copied with `memcpy`
    /// in a build for size).
    #[inline(always)]
    fn dwords(&self, a: [__m512i; 4], b: [__m512i; 4], mut put: impl FnMut(usize, __m512i)) {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx512`]).
        unsafe {
            let [i, j] = self.dwords;
            unrolled(
                4,
                #[inline(always)]
                |k| {
                    let (Some(&x), Some(&y)) = (a.get(k), b.get(k)) else { return };
                    put(2 * k, _mm512_permutex2var_epi32(x, i, y));
                    put(2 * k + 1, _mm512_permutex2var_epi32(x, j, y));
                },
            );
        }
    }
}

macro_rules! entry {
    ($name:ident <$(const $g:ident: $gt:ty),*>, $body:ident) => {
        fn $name<$(const $g: $gt),*>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: `select` hands these kernels out only for the AVX-512 tier, which
            // `kernels::select` uses only after run-time detection reported AVX-512 F, BW,
            // VL, VBMI and DQ with OS support for the opmask and ZMM state (see `dispatch`).
            unsafe { $body::<$($g),*>(dir, src, dst) }
        }
    };
}

// Sources of 8 bits or less, `D`-byte targets: one [`look_up`] per target byte (its byte
// plane), interleaved into elements; failing bytes (`FAILS`: the table has some) are a
// plane of 0xff whose bit 7 flags the lane for the scalar reference. 64 elements per step.
entry!(planes<const D: usize, const FAILS: bool>, planes_body);
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn planes_body<const D: usize, const FAILS: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx512::new();
    let Some(lut) = &dir.lut else { return lanes::cold(dir, src, dst, 0) };
    let tables: [[__m512i; 4]; D] = array_fn(
        #[inline(always)]
        |p| {
            table(
                #[inline(always)]
                |i| lut.plane_byte(p, i),
            )
        },
    );
    let fails = table(
        #[inline(always)]
        |i| lut.fail_byte(i),
    );
    let zips = Zips::new();
    let z = _mm512_setzero_si512();
    steps(
        dir,
        src,
        dst,
        (1, D),
        64,
        None,
        #[inline(always)]
        |s, d| {
            let Some(s) = s.get(..64) else { return u64::MAX };
            // SAFETY: `s` holds 64 bytes (checked just above); an unaligned load.
            let x = unsafe { _mm512_loadu_si512(s.as_ptr().cast()) };
            let p: [__m512i; D] = array_fn(
                #[inline(always)]
                |k| match tables.get(k) {
                    Some(t) => look_up(cpu, t, x),
                    None => z,
                },
            );
            let at = hot(
                #[inline(always)]
                |k: usize| match p.get(k) {
                    Some(&v) => v,
                    None => z,
                },
            );
            // Each output vector stored as it is made (no array of them: a build for size
            // copies such an array with `memcpy`).
            let mut put = hot(
                #[inline(always)]
                |k: usize, v: __m512i| {
                    if let Some(c) = d.get_mut(64 * k..64 * k + 64) {
                        // SAFETY: `c` is 64 bytes of the chunk; an unaligned store.
                        unsafe { _mm512_storeu_si512(c.as_mut_ptr().cast(), v) };
                    }
                },
            );
            match D {
                1 => put(0, at(0)),
                2 => {
                    let [a, b] = zips.bytes(at(0), at(1));
                    put(0, a);
                    put(1, b);
                }
                4 => {
                    let [a, b, c, e] = zips.words(zips.bytes(at(0), at(1)), zips.bytes(at(2), at(3)));
                    put(0, a);
                    put(1, b);
                    put(2, c);
                    put(3, e);
                }
                _ => {
                    let low = zips.words(zips.bytes(at(0), at(1)), zips.bytes(at(2), at(3)));
                    let high = zips.words(zips.bytes(at(4), at(5)), zips.bytes(at(6), at(7)));
                    zips.dwords(low, high, put);
                }
            }
            if FAILS {
                _mm512_movepi8_mask(look_up(cpu, &fails, x))
            } else {
                0
            }
        },
    )
}

/// Run `step` over chunks of `n` elements (at most 64; `ss` / `ds` bytes each). `step`
/// returns the lanes it flagged (bit i = element i); those elements (NaN/Inf scalar_map
/// keys through `specials`) and the tail are redone by the scalar reference, in order, so
/// the first error is the first failing element. Calls too large for the cache go through
/// AVX2's chunk loop ([`super::x86_64_avx2::blocks`]), which streams their output; the
/// others through this plain loop (measured at 2^20: the block loop cost the table kernels
/// 10-20%).
#[inline(always)]
fn steps(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    (ss, ds): (usize, usize),
    n: usize,
    specials: Option<&lanes::SpecialMap>,
    mut step: impl FnMut(&[u8], &mut [u8]) -> u64,
) -> Result<(), ElementError> {
    if src.len() + dst.len() >= super::x86_64_avx2::STREAM_MIN {
        return super::x86_64_avx2::blocks(n, dir, src, dst, (ss, ds), specials, step);
    }
    let mut flags = [0; super::x86_64_avx2::GROUP];
    super::x86_64_avx2::grouped(n, dir, src, dst, (ss, ds), specials, &mut step, 0, false, &mut flags).0
}

// int64 (`U` false) / uint64 (`U` true) -> float32 (`D` = 4) / float64 (`D` = 8): one
// conversion with the rounding mode `R` in the instruction (`{rn,rz,ru,rd}-sae`), which
// rounds exactly once, as the reference does. Every 64-bit integer is finite in both
// targets, so nothing goes cold. 32 elements per step.
entry!(int64_to_float<const U: bool, const D: usize, const R: i32>, int64_to_float_body);
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn int64_to_float_body<const U: bool, const D: usize, const R: i32>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    steps(
        dir,
        src,
        dst,
        (8, D),
        32,
        None,
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..256), d.get_mut(..32 * D)) else { return u64::MAX };
            unrolled(
                4,
                #[inline(always)]
                |k| {
                    let (Some(x), Some(o)) = (s.get(64 * k..64 * k + 64), d.get_mut(8 * D * k..8 * D * (k + 1))) else {
                        return;
                    };
                    // SAFETY: `x` is 64 bytes of the source chunk and `o` 8 * D bytes of the target
                    // chunk (whole chunks of the checked slices); unaligned loads and stores.
                    unsafe {
                        let v = _mm512_loadu_si512(x.as_ptr().cast());
                        if D == 8 {
                            let f = if U { _mm512_cvt_roundepu64_pd::<R>(v) } else { _mm512_cvt_roundepi64_pd::<R>(v) };
                            _mm512_storeu_pd(o.as_mut_ptr().cast(), f);
                        } else {
                            let f = if U { _mm512_cvt_roundepu64_ps::<R>(v) } else { _mm512_cvt_roundepi64_ps::<R>(v) };
                            _mm256_storeu_ps(o.as_mut_ptr().cast(), f);
                        }
                    }
                },
            );
            0
        },
    )
}

// int32/int64 (`W` = 4/8 bytes; `U`: unsigned) -> float16 (`F16`) / bfloat16 in mode `M`,
// through f32 converted towards zero ([`ints_rz`]). float16: every integer in its range is
// below 65504, exact in f32 (magnitudes from 65504 up stay there and go cold), then F16C
// rounds in the mode (nearest-away: towards zero plus the first dropped bit, bit 12: every
// non-zero integer is a float16 normal, 13 bits shorter than f32; a carry into the exponent
// is the right result). bfloat16 (its range holds every 64-bit integer): the f32 rounded to
// odd (last bit set where the conversion was inexact), then the integer rounding at bit 16
// as AVX2's `f32_to_bf16` does. 32 elements per step.
entry!(int_to_half<const W: usize, const U: bool, const F16: bool, const M: u8>, int_to_half_body);
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn int_to_half_body<const W: usize, const U: bool, const F16: bool, const M: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx512::new();
    let one = _mm512_set1_epi32(1);
    steps(
        dir,
        src,
        dst,
        (W, 2),
        32,
        None,
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..32 * W), d.get_mut(..64)) else { return u64::MAX };
            let mut flags = 0u64;
            unrolled(
                2,
                #[inline(always)]
                |k| {
                    let (Some(x), Some(o)) = (s.get(16 * W * k..16 * W * (k + 1)), d.get_mut(32 * k..32 * k + 32))
                    else {
                        return;
                    };
                    let (f, inexact) = ints_rz::<W, U>(cpu, x, !F16);
                    let h = if F16 {
                        let big = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(_mm512_abs_ps(f), _mm512_set1_ps(65504.0));
                        flags |= u64::from(big) << (16 * k);
                        // F16C's immediate is the mode's rounding.
                        match M {
                            mode::TZ => _mm512_cvtps_ph::<_MM_FROUND_TO_ZERO>(f),
                            mode::TP => _mm512_cvtps_ph::<_MM_FROUND_TO_POS_INF>(f),
                            mode::TN => _mm512_cvtps_ph::<_MM_FROUND_TO_NEG_INF>(f),
                            mode::NA => {
                                let first = _mm512_and_si512(_mm512_srli_epi32::<12>(_mm512_castps_si512(f)), one);
                                _mm256_add_epi16(_mm512_cvtps_ph::<_MM_FROUND_TO_ZERO>(f), _mm512_cvtepi32_epi16(first))
                            }
                            _ => _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(f),
                        }
                    } else {
                        let bits = _mm512_castps_si512(f);
                        let bits = _mm512_mask_or_epi32(bits, inexact, bits, one);
                        let neg = _mm512_srai_epi32::<31>(bits);
                        let ones = _mm512_set1_epi32(0xffff);
                        let inc = match M {
                            mode::NE => _mm512_add_epi32(
                                _mm512_set1_epi32(0x7fff),
                                _mm512_and_si512(_mm512_srli_epi32::<16>(bits), one),
                            ),
                            mode::NA => _mm512_set1_epi32(0x8000),
                            mode::TZ => _mm512_setzero_si512(),
                            mode::TP => _mm512_andnot_si512(neg, ones),
                            _ => _mm512_and_si512(neg, ones),
                        };
                        _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(_mm512_add_epi32(bits, inc)))
                    };
                    // SAFETY: `o` is 32 bytes of the target chunk; an unaligned store.
                    unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), h) };
                },
            );
            flags
        },
    )
}

/// Sixteen int32/int64 (`W` = 4/8 bytes; `U`: unsigned) lanes (the first `16 * W` bytes of
/// `x`, which holds them) as f32 converted towards zero, and, if `want_inexact`, the
/// lanes where that was inexact (converting back, exactly, differs).
#[inline(always)]
fn ints_rz<const W: usize, const U: bool>(_cpu: Avx512, x: &[u8], want_inexact: bool) -> (__m512, u16) {
    // SAFETY: the `Avx512` proves the tier's features (see [`Avx512`]).
    unsafe {
        const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        const SAE: i32 = _MM_FROUND_NO_EXC;
        let Some(x) = x.get(..16 * W) else { return (_mm512_setzero_ps(), 0) };
        let p = x.as_ptr();
        if W == 4 {
            // SAFETY: `x` holds 64 bytes (checked just above); an unaligned load.
            let v = _mm512_loadu_si512(p.cast());
            let f = if U { _mm512_cvt_roundepu32_ps::<RZ>(v) } else { _mm512_cvt_roundepi32_ps::<RZ>(v) };
            if !want_inexact {
                return (f, 0);
            }
            let back = if U { _mm512_cvtt_roundps_epu32::<SAE>(f) } else { _mm512_cvtt_roundps_epi32::<SAE>(f) };
            (f, _mm512_cmpneq_epi32_mask(back, v))
        } else {
            let half = hot(
                #[inline(always)]
                |k: usize| {
                    // SAFETY: `x` holds 128 bytes (checked above); an unaligned load of 64 of them.
                    let v = _mm512_loadu_si512(p.add(64 * k).cast());
                    let f = if U { _mm512_cvt_roundepu64_ps::<RZ>(v) } else { _mm512_cvt_roundepi64_ps::<RZ>(v) };
                    let inexact = if want_inexact {
                        let back =
                            if U { _mm512_cvtt_roundps_epu64::<SAE>(f) } else { _mm512_cvtt_roundps_epi64::<SAE>(f) };
                        _mm512_cmpneq_epi64_mask(back, v)
                    } else {
                        0
                    };
                    (f, inexact)
                },
            );
            let ((a, ia), (b, ib)) = (half(0), half(1));
            (_mm512_insertf32x8::<1>(_mm512_castps256_ps512(a), b), u16::from(ia) | u16::from(ib) << 8)
        }
    }
}

// float32/bfloat16 (in f32 lanes) / float64 (`S`) -> int64/uint64 (`U`) in mode `M`: round
// to an integral float (`vrndscale`; nearest-away truncates x + copysign(p, x), p the float
// just below 1/2, whose one rounding cannot reach the next integer), then convert exactly.
// Lanes outside the target's range after rounding (NaN compares outside too), +-Inf
// included, go cold, whatever the rule: clamp and wrap are the reference's there. 32
// elements per step.
entry!(to_int64<const S: u8, const U: bool, const M: u8>, to_int64_body);
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn to_int64_body<const S: u8, const U: bool, const M: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    const SAE: i32 = _MM_FROUND_NO_EXC;
    // The range, as floats: [lo, top), from the format table (2^63 and 2^64 are exact).
    let (lo, hi) = dir.to.format().int_bounds();
    let (lo, top) = (lo as f64, (hi + 1) as f64);
    let ss = src::size(S);
    let specials = lanes::SpecialMap::new(dir);
    steps(
        dir,
        src,
        dst,
        (ss, 8),
        32,
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..32 * ss), d.get_mut(..256)) else { return u64::MAX };
            let mut flags = 0u64;
            unrolled(
                4,
                #[inline(always)]
                |k| {
                    let (Some(x), Some(o)) = (s.get(8 * ss * k..8 * ss * (k + 1)), d.get_mut(64 * k..64 * k + 64))
                    else {
                        return;
                    };
                    let p = x.as_ptr();
                    let (v, inside) = if S == src::F64 {
                        // SAFETY: `x` is 64 bytes of the source chunk; an unaligned load.
                        let f = unsafe { _mm512_loadu_pd(p.cast()) };
                        // `vrndscale`'s immediate: the rounding in bits 0-1, exceptions suppressed (bit 3).
                        let r = match M {
                            mode::NE => _mm512_roundscale_pd::<0x08>(f),
                            mode::TN => _mm512_roundscale_pd::<0x09>(f),
                            mode::TP => _mm512_roundscale_pd::<0x0a>(f),
                            mode::TZ => _mm512_roundscale_pd::<0x0b>(f),
                            _ => {
                                let half = _mm512_set1_pd(0.49999999999999994);
                                let signed = _mm512_or_pd(half, _mm512_and_pd(f, _mm512_set1_pd(-0.0)));
                                _mm512_roundscale_pd::<0x0b>(_mm512_add_pd(f, signed))
                            }
                        };
                        let inside = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(r, _mm512_set1_pd(lo))
                            & _mm512_cmp_pd_mask::<_CMP_LT_OQ>(r, _mm512_set1_pd(top));
                        let v =
                            if U { _mm512_cvtt_roundpd_epu64::<SAE>(r) } else { _mm512_cvtt_roundpd_epi64::<SAE>(r) };
                        (v, inside)
                    } else {
                        // SAFETY: `x` is 8 * ss bytes of the source chunk; unaligned loads.
                        let f = unsafe {
                            if S == src::BF16 {
                                _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm_loadu_si128(
                                    p.cast(),
                                ))))
                            } else {
                                _mm256_loadu_ps(p.cast())
                            }
                        };
                        let r = match M {
                            mode::NE => _mm256_roundscale_ps::<0x08>(f),
                            mode::TN => _mm256_roundscale_ps::<0x09>(f),
                            mode::TP => _mm256_roundscale_ps::<0x0a>(f),
                            mode::TZ => _mm256_roundscale_ps::<0x0b>(f),
                            _ => {
                                let half = _mm256_set1_ps(0.49999997);
                                let signed = _mm256_or_ps(half, _mm256_and_ps(f, _mm256_set1_ps(-0.0)));
                                _mm256_roundscale_ps::<0x0b>(_mm256_add_ps(f, signed))
                            }
                        };
                        let inside = _mm256_cmp_ps_mask::<_CMP_GE_OQ>(r, _mm256_set1_ps(lo as f32))
                            & _mm256_cmp_ps_mask::<_CMP_LT_OQ>(r, _mm256_set1_ps(top as f32));
                        let v =
                            if U { _mm512_cvtt_roundps_epu64::<SAE>(r) } else { _mm512_cvtt_roundps_epi64::<SAE>(r) };
                        (v, inside)
                    };
                    flags |= u64::from(!inside) << (8 * k);
                    // SAFETY: `o` is 64 bytes of the target chunk; an unaligned store.
                    unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), v) };
                },
            );
            flags
        },
    )
}

/// Per-exponent parameters of [`to_byte_float`]: 64 entries of 16 bits, as two registers
/// each (`vpermi2w` looks up 64 entries).
struct Params {
    /// Right shift of the significand (hidden bit included) to the target's last place.
    shift: [__m512i; 2],
    /// `2^(shift - 1) - 1`: added, with the kept last bit, for nearest-even.
    half: [__m512i; 2],
    /// The code of the exponent: added to the rounded significand (a carry out of it bumps
    /// the exponent, as the patterns are ordered); 0x1000 for exponents beyond the target's
    /// range and NaN/Inf, so that the code exceeds every finite one.
    base: [__m512i; 2],
    /// The biased source exponent of entry 0: lower exponents use entry 0, whose values
    /// all round as any magnitude far below the least subnormal does.
    low: i16,
}

impl Params {
    /// The table from the 16-bit float format `s` (float16 or bfloat16) to the byte float `t`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
    fn new(s: &Format, t: &Format) -> Params {
        let (mt, emin, emax) = (t.man_bits as i32, t.min_normal_exponent(), t.max_exponent());
        let (es, ms, bias_s) = (s.exp_bits, s.man_bits as i32, s.bias);
        // Entry 0 at half the least subnormal, or lower: every magnitude there rounds like
        // a positive one far below (zero, or the least subnormal away from zero).
        let low = if es == 5 { 0 } else { (bias_s + emin - mt - 2).max(0) };
        let mut shift = [0u16; 64];
        let mut half = [0u16; 64];
        let mut base = [0u16; 64];
        for (i, ((k, h), b)) in shift.iter_mut().zip(half.iter_mut()).zip(base.iter_mut()).enumerate() {
            // A 5-bit exponent (float16) indexes with the sign above it: the table twice.
            let field = if es == 5 { (i & 31) as i32 } else { low + i as i32 };
            let e = field.max(1) - bias_s;
            let sh = if field >= (1 << es) - 1 || e > emax {
                *b = 0x1000;
                ms - mt
            } else if e >= emin {
                *b = ((e - emin) << mt) as u16;
                ms - mt
            } else {
                (ms - mt + emin - e).min(15)
            };
            *k = sh as u16;
            *h = ((1u32 << (sh - 1)) - 1) as u16;
        }
        let regs = hot(
            #[inline(always)]
            |v: &[u16; 64]| -> [__m512i; 2] {
                // SAFETY: `v` holds 64 u16 (128 bytes): two unaligned 64-byte loads.
                unsafe { [_mm512_loadu_si512(v.as_ptr().cast()), _mm512_loadu_si512(v.as_ptr().add(32).cast())] }
            },
        );
        Params { shift: regs(&shift), half: regs(&half), base: regs(&base), low: low as i16 }
    }
}

// A float source of 16 bits or more, or int64/uint64 -> a byte float type with a sign and
// subnormals (float8 but e8m0fnu, float6, float4), in 16-bit lanes. The source exponent picks (`vpermi2w`) a shift,
// a rounding constant and the exponent's code from [`Params`]; the significand, hidden bit
// included, is shifted with one rounding in mode `M` and the code added: right for normal
// and subnormal results alike. Sources but float16/bfloat16 first become f32 lanes
// ([`f32_bits`]), then a bfloat16 rounded to odd (truncated, last bit set where bits were
// dropped): 7 mantissa bits, enough for the one correct rounding to 4 or fewer. Results above the largest finite code, NaN and Inf go cold. 32
// elements per step.
entry!(to_byte_float<const S: u8, const M: u8>, to_byte_float_body);
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512dq")]
fn to_byte_float_body<const S: u8, const M: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx512::new();
    let t = dir.to.format();
    let lanes_format = if S == src::F16 { DataType::Float16 } else { DataType::BFloat16 }.format();
    let (es, ms) = (lanes_format.exp_bits, lanes_format.man_bits);
    let p = Params::new(lanes_format, t);
    let ss = src::size(S);
    let low = _mm512_set1_epi16(p.low);
    let top = _mm512_set1_epi16(63);
    let mant_mask = _mm512_set1_epi16((1 << ms) - 1);
    let exp_mask = _mm512_set1_epi16(((1 << es) - 1) << ms);
    let hidden = _mm512_set1_epi16(1 << ms);
    let one = _mm512_set1_epi16(1);
    let max_code = _mm512_set1_epi16((t.max_bits() & !t.sign_mask()) as i16);
    let sign_shift = _mm_cvtsi32_si128(15 - (t.exp_bits + t.man_bits) as i32);
    let neg_zero = t.has_negative_zero();
    let specials = lanes::SpecialMap::new(dir);
    let look = hot(
        #[inline(always)]
        |[a, b]: [__m512i; 2], i: __m512i| _mm512_permutex2var_epi16(a, i, b),
    );
    steps(
        dir,
        src,
        dst,
        (ss, 1),
        32,
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..32 * ss), d.get_mut(..32)) else { return u64::MAX };
            let x = if S == src::F16 || S == src::BF16 {
                // SAFETY: `s` holds 64 bytes (checked just above); an unaligned load.
                unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
            } else {
                let (a, b) = s.split_at(16 * ss);
                let (a, b) = (odd16(cpu, f32_bits::<S>(cpu, a)), odd16(cpu, f32_bits::<S>(cpu, b)));
                _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
            };
            let i = if S == src::F16 {
                // Sign and exponent field; `vpermi2w` reads the low 6 bits.
                _mm512_srli_epi16::<10>(x)
            } else {
                let field = _mm512_and_si512(_mm512_srli_epi16::<7>(x), _mm512_set1_epi16(0xff));
                _mm512_min_epu16(_mm512_subs_epu16(field, low), top)
            };
            let (shift, half, base) = (look(p.shift, i), look(p.half, i), look(p.base, i));
            let mant = _mm512_and_si512(x, mant_mask);
            let sig = _mm512_mask_add_epi16(mant, _mm512_test_epi16_mask(x, exp_mask), mant, hidden);
            let neg = _mm512_movepi16_mask(x);
            let inc = match M {
                mode::NE => _mm512_add_epi16(half, _mm512_and_si512(_mm512_srlv_epi16(sig, shift), one)),
                mode::NA => _mm512_add_epi16(half, one),
                mode::TZ => _mm512_setzero_si512(),
                // Away from zero on the side of the direction: all the dropped bits' ones.
                mode::TP => _mm512_maskz_add_epi16(!neg, _mm512_add_epi16(half, half), one),
                _ => _mm512_maskz_add_epi16(neg, _mm512_add_epi16(half, half), one),
            };
            let code = _mm512_add_epi16(_mm512_srlv_epi16(_mm512_add_epi16(sig, inc), shift), base);
            let cold = _mm512_cmpgt_epu16_mask(code, max_code);
            let sign = _mm512_srl_epi16(_mm512_andnot_si512(_mm512_set1_epi16(0x7fff), x), sign_shift);
            // The sign, except on a zero result of a target without -0.
            let signed = if neg_zero { !0 } else { _mm512_test_epi16_mask(code, code) };
            let code = _mm512_mask_add_epi16(code, signed, code, sign);
            // SAFETY: `d` holds 32 bytes (checked above); an unaligned store.
            unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), _mm512_cvtepi16_epi8(code)) };
            u64::from(cold)
        },
    )
}

/// Sixteen elements (the first `16 * size` bytes of `s`; fewer give NaN lanes) as f32 bit
/// patterns: float64 rounded to odd (converted towards zero, `{rz-sae}`, the last bit set
/// where that was inexact: the result converted back differs); int64/uint64 converted,
/// exactly below 2^24 (larger ones are out of range of every target anyway).
#[inline(always)]
fn f32_bits<const S: u8>(_cpu: Avx512, s: &[u8]) -> __m512i {
    // SAFETY: the `Avx512` proves the tier's features (see [`Avx512`]).
    unsafe {
        const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        let Some(s) = s.get(..16 * src::size(S)) else { return _mm512_set1_epi32(-1) };
        let p = s.as_ptr();
        let one = _mm512_set1_epi32(1);
        // `s` holds 16 elements (checked just above); unaligned loads inside it.
        {
            match S {
                src::F32 => _mm512_loadu_si512(p.cast()),
                src::F64 => {
                    let half = hot(
                        #[inline(always)]
                        |k: usize| {
                            let v = _mm512_loadu_pd(p.add(64 * k).cast());
                            let f = _mm512_cvt_roundpd_ps::<RZ>(v);
                            (f, _mm512_cmp_pd_mask::<_CMP_NEQ_UQ>(_mm512_cvtps_pd(f), v))
                        },
                    );
                    let ((a, ka), (b, kb)) = (half(0), half(1));
                    let f = _mm512_castps_si512(_mm512_insertf32x8::<1>(_mm512_castps256_ps512(a), b));
                    _mm512_mask_or_epi32(f, u16::from(ka) | u16::from(kb) << 8, f, one)
                }
                _ => {
                    let half = hot(
                        #[inline(always)]
                        |k: usize| {
                            let v = _mm512_loadu_si512(p.add(64 * k).cast());
                            if S == src::I64 {
                                _mm512_cvtepi64_ps(v)
                            } else {
                                _mm512_cvtepu64_ps(v)
                            }
                        },
                    );
                    _mm512_castps_si512(_mm512_insertf32x8::<1>(_mm512_castps256_ps512(half(0)), half(1)))
                }
            }
        }
    }
}

/// Sixteen f32 bit patterns as bfloat16 rounded to odd: the top half, its last bit set where
/// the low half was not zero.
#[inline(always)]
fn odd16(_cpu: Avx512, v: __m512i) -> __m256i {
    // SAFETY: the `Avx512` proves the tier's features (see [`Avx512`]).
    unsafe {
        let sticky = _mm512_test_epi32_mask(v, _mm512_set1_epi32(0xffff));
        let h = _mm512_srli_epi32::<16>(v);
        _mm512_cvtepi32_epi16(_mm512_mask_or_epi32(h, sticky, h, _mm512_set1_epi32(1)))
    }
}
