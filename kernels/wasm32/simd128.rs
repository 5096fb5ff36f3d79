//! Hand-written simd128 kernels (wasm32 builds with `+simd128`) for the hot set.
//!
//! * float16/bfloat16/float32/float64 -> 8/16-bit integers and int32 in every rounding
//!   mode: simd128 rounds to an integral float in four of the codec's modes (`nearest`,
//!   `trunc`, `ceil`, `floor`); nearest-away is the truncation plus one step away from zero
//!   where the exact remainder is a half or more. float32 (and the 16-bit floats, widened
//!   to it exactly): clamp is the saturating conversion and narrowings, wrap
//!   takes away the nearest multiple of 2^32 first (exact); float64: the rounded value
//!   (bounded first under clamp) plus 1.5 * 2^52, whose low pattern bits are the integer's
//!   low bits, below 2^51.
//! * float16/bfloat16/float8_e5m2/float8_e4m3 -> float32 by integer widening (subnormals as
//!   their integer significand times the least step), float32 -> float64, float64 -> float32
//!   (nearest-even by the hardware's demotion, the directed modes one step back where it went
//!   past the source), float32 -> float16/bfloat16/float8_e5m2/float8_e4m3 by integer rounding
//!   of the float32 pattern in every mode (subnormal results by rounding the magnitude over
//!   the least step, which is exact). With clamp, results beyond the target's range become
//!   its Inf in the lanes.
//! * int32/int16 -> narrower integers with clamp (saturating narrowings), wrap (the low bits)
//!   or error.
//!
//! NaN, +-Inf and lanes near or beyond the target's range are flagged; the scalar reference
//! redoes them (mapped NaN/Inf in-line, [`lanes::SpecialMap`]), in order, so errors keep the
//! scalar path's index. WebAssembly's float operations round to nearest-even and keep
//! subnormals, which the float steps here rely on. Every kernel is tested against the scalar
//! reference by tests/tiers.rs under Node's WASI (`.ci/run`).

use crate::dtype::DataType;
use crate::error::ElementError;
use crate::kernels::lanes::{self, mode, mode_code, range, range_code};
use crate::kernels::{array_fn, array_map, array_unzip, unrolled, KernelFn};
use crate::plan::Direction;
use core::arch::wasm32::*;

/// Elements per step of every kernel here.
const N: usize = 16;

/// `Some($k::<M, $g..>)` for rounding-mode code `$m` (`except NA`: `None` for nearest-away).
macro_rules! by_mode {
    ($m:expr, $k:ident $(, $g:expr)*) => {
        Some(match $m {
            mode::NE => $k::<{ mode::NE } $(, $g)*> as KernelFn,
            mode::TZ => $k::<{ mode::TZ } $(, $g)*>,
            mode::TP => $k::<{ mode::TP } $(, $g)*>,
            mode::TN => $k::<{ mode::TN } $(, $g)*>,
            _ => $k::<{ mode::NA } $(, $g)*>,
        })
    };
    (except NA: $m:expr, $k:ident $(, $g:expr)*) => {
        match $m {
            mode::NE => Some($k::<{ mode::NE } $(, $g)*> as KernelFn),
            mode::TZ => Some($k::<{ mode::TZ } $(, $g)*>),
            mode::TP => Some($k::<{ mode::TP } $(, $g)*>),
            mode::TN => Some($k::<{ mode::TN } $(, $g)*>),
            _ => None,
        }
    };
}

/// The kernel for a direction, or `None` to use the lane bodies compiled for simd128.
pub fn select(dir: &Direction) -> Option<KernelFn> {
    use DataType as T;
    let (m, r) = (mode_code(dir.rounding), range_code(dir.out_of_range));
    let clamp = r == range::CLAMP;
    if dir.from.is_integer() {
        // Integer keys are checked in-lane by the lane bodies only.
        return if dir.map.is_empty() { narrow_kernel(dir.from, dir.to, r) } else { None };
    }
    if !lanes::map_keys_are_special(dir) {
        return None;
    }
    match (dir.from, dir.to) {
        (T::Float16, T::Float32) => Some(small_to_f32::<{ small::F16 }> as KernelFn),
        (T::Float8E5M2, T::Float32) => Some(small_to_f32::<{ small::E5M2 }>),
        (T::Float8E4M3, T::Float32) => Some(small_to_f32::<{ small::E4M3 }>),
        (T::BFloat16, T::Float32) => Some(small_to_f32::<{ small::BF16 }>),
        (T::Float32, T::Float64) => Some(f32_to_f64),
        // Clamp keeps out-of-range results in the lanes (as +-Inf: every target here has it).
        (T::Float64, T::Float32) if clamp => by_mode!(except NA: m, f64_to_f32, true),
        (T::Float64, T::Float32) => by_mode!(except NA: m, f64_to_f32, false),
        (T::Float32, to @ (T::Float16 | T::BFloat16 | T::Float8E5M2 | T::Float8E4M3)) => {
            let f = match to {
                T::Float16 => small::F16,
                T::BFloat16 => small::BF16,
                T::Float8E5M2 => small::E5M2,
                _ => small::E4M3,
            };
            match (f, clamp) {
                (small::F16, true) => by_mode!(m, f32_to_small, { small::F16 }, true),
                (small::F16, false) => by_mode!(m, f32_to_small, { small::F16 }, false),
                (small::BF16, true) => by_mode!(m, f32_to_small, { small::BF16 }, true),
                (small::BF16, false) => by_mode!(m, f32_to_small, { small::BF16 }, false),
                (small::E5M2, true) => by_mode!(m, f32_to_small, { small::E5M2 }, true),
                (small::E5M2, false) => by_mode!(m, f32_to_small, { small::E5M2 }, false),
                (_, true) => by_mode!(m, f32_to_small, { small::E4M3 }, true),
                (_, false) => by_mode!(m, f32_to_small, { small::E4M3 }, false),
            }
        }
        (from @ (T::Float16 | T::BFloat16 | T::Float32 | T::Float64), to)
            if to.is_integer() && to.size() <= 4 && to != T::UInt32 =>
        {
            let t = tgt::of(to)?;
            Some(match from {
                T::Float16 => pick_f2i::<{ src::F16 }>(m, t, r),
                T::BFloat16 => pick_f2i::<{ src::BF16 }>(m, t, r),
                T::Float32 => pick_f2i::<{ src::F32 }>(m, t, r),
                _ => pick_f2i::<{ src::F64 }>(m, t, r),
            })
        }
        _ => None,
    }
}

/// Source codes of [`f2i`].
mod src {
    pub const F16: u8 = 0;
    pub const BF16: u8 = 1;
    pub const F32: u8 = 2;
    pub const F64: u8 = 3;
}

/// The IEEE-like formats narrower than float32 with kernels here (an exponent of all ones is
/// Inf/NaN, the bias is half the exponent range less one): their codes and shapes.
mod small {
    pub const F16: u8 = 0;
    pub const E5M2: u8 = 1;
    pub const E4M3: u8 = 2;
    pub const BF16: u8 = 3;

    /// Significand bits, exponent bias and total bits of format `f`. (bfloat16 has
    /// float32's bias and exponents: its patterns are float32's top halves, subnormals too.)
    pub const fn shape(f: u8) -> (u32, u32, u32) {
        match f {
            F16 => (10, 15, 16),
            BF16 => (7, 127, 16),
            E5M2 => (2, 15, 8),
            _ => (3, 7, 8),
        }
    }

    /// The exponent field of format `f`, in place (all ones there: Inf/NaN).
    pub const fn exp_mask(f: u8) -> u32 {
        let (m, _, bits) = shape(f);
        ((1 << (bits - 1)) - 1) & !((1 << m) - 1)
    }
}

/// Integer target codes (bytes per element `1 << (code / 2)`; odd codes unsigned).
mod tgt {
    use crate::dtype::DataType;

    pub const I8: u8 = 0;
    pub const U8: u8 = 1;
    pub const I16: u8 = 2;
    pub const U16: u8 = 3;
    pub const I32: u8 = 4;

    /// The code of an 8/16-bit or int32 target.
    pub fn of(t: DataType) -> Option<u8> {
        match t {
            DataType::Int8 => Some(I8),
            DataType::UInt8 => Some(U8),
            DataType::Int16 => Some(I16),
            DataType::UInt16 => Some(U16),
            DataType::Int32 => Some(I32),
            _ => None,
        }
    }

    /// Bytes per element.
    pub const fn size(t: u8) -> usize {
        1 << (t / 2)
    }
}

/// [`f2i`] with its const generics resolved from plan-time codes.
fn pick_f2i<const S: u8>(m: u8, t: u8, r: u8) -> KernelFn {
    macro_rules! by_target {
        ($m:expr, $r:expr) => {
            match t {
                tgt::I8 => f2i::<S, $m, { tgt::I8 }, $r> as KernelFn,
                tgt::U8 => f2i::<S, $m, { tgt::U8 }, $r>,
                tgt::I16 => f2i::<S, $m, { tgt::I16 }, $r>,
                tgt::U16 => f2i::<S, $m, { tgt::U16 }, $r>,
                _ => f2i::<S, $m, { tgt::I32 }, $r>,
            }
        };
    }
    macro_rules! by_rule {
        ($m:expr) => {
            match r {
                range::ERROR => by_target!($m, { range::ERROR }),
                range::CLAMP => by_target!($m, { range::CLAMP }),
                _ => by_target!($m, { range::WRAP }),
            }
        };
    }
    match m {
        mode::NE => by_rule!({ mode::NE }),
        mode::TZ => by_rule!({ mode::TZ }),
        mode::TP => by_rule!({ mode::TP }),
        mode::TN => by_rule!({ mode::TN }),
        _ => by_rule!({ mode::NA }),
    }
}

/// The integer narrowings: int16/int32 sources to a narrower 8/16-bit target.
fn narrow_kernel(from: DataType, to: DataType, r: u8) -> Option<KernelFn> {
    let t = tgt::of(to)?;
    let wide = match from {
        DataType::Int32 => 4,
        DataType::Int16 => 2,
        _ => return None,
    };
    if tgt::size(t) >= wide {
        return None;
    }
    macro_rules! by_target {
        ($s:expr, $r:expr) => {
            match t {
                tgt::I8 => narrow::<$s, { tgt::I8 }, $r> as KernelFn,
                tgt::U8 => narrow::<$s, { tgt::U8 }, $r>,
                tgt::I16 => narrow::<$s, { tgt::I16 }, $r>,
                _ => narrow::<$s, { tgt::U16 }, $r>,
            }
        };
    }
    macro_rules! by_rule {
        ($s:expr) => {
            match r {
                range::ERROR => by_target!($s, { range::ERROR }),
                range::CLAMP => by_target!($s, { range::CLAMP }),
                _ => by_target!($s, { range::WRAP }),
            }
        };
    }
    Some(if wide == 4 { by_rule!(4) } else { by_rule!(2) })
}

/// The `k`-th 16 bytes of `s` (zeros where `s` is shorter: the callers pass whole chunks,
/// so that never happens).
#[inline(always)]
fn load(s: &[u8], k: usize) -> v128 {
    match s.get(16 * k..16 * k + 16) {
        // SAFETY: `b` holds 16 bytes; wasm loads have no alignment requirement.
        Some(b) => unsafe { v128_load(b.as_ptr().cast()) },
        None => u64x2_splat(0),
    }
}

/// Store 16 bytes as the `k`-th 16 bytes of `d` (nothing where `d` is shorter; see [`load`]).
#[inline(always)]
fn store(d: &mut [u8], k: usize, v: v128) {
    if let Some(b) = d.get_mut(16 * k..16 * k + 16) {
        // SAFETY: `b` holds 16 bytes; wasm stores have no alignment requirement.
        unsafe { v128_store(b.as_mut_ptr().cast(), v) }
    }
}

/// `f(k, a[k])` for every `k`, written out ([`unrolled`]): a `for` loop over the array stays
/// a loop at `opt-level = "s"`, with the vectors in memory.
#[inline(always)]
fn each<const K: usize>(a: [v128; K], mut f: impl FnMut(usize, v128)) {
    unrolled(
        K,
        #[inline(always)]
        |k| {
            if let Some(&v) = a.get(k) {
                f(k, v)
            }
        },
    );
}

/// One bit per lane of sixteen 32-bit lane masks (four vectors, in order), after one test
/// for none at all.
#[inline(always)]
fn lane_bits(m: [v128; 4]) -> u32 {
    let any = v128_or(v128_or(m[0], m[1]), v128_or(m[2], m[3]));
    if !v128_any_true(any) {
        return 0;
    }
    let b = i8x16_narrow_i16x8(i16x8_narrow_i32x4(m[0], m[1]), i16x8_narrow_i32x4(m[2], m[3]));
    u32::from(i8x16_bitmask(b))
}

/// [`lane_bits`] of sixteen 16-bit lane masks (two vectors).
#[inline(always)]
fn lane_bits16(a: v128, b: v128) -> u32 {
    if !v128_any_true(v128_or(a, b)) {
        return 0;
    }
    u32::from(i8x16_bitmask(i8x16_narrow_i16x8(a, b)))
}

/// The 32-bit lanes 0 and 2 of `a` and of `b` (the low halves of four 64-bit lanes).
#[inline(always)]
fn low_halves(a: v128, b: v128) -> v128 {
    i32x4_shuffle::<0, 2, 4, 6>(a, b)
}

/// Sixteen int32 lanes (four vectors) to the target `T`'s bytes: saturating narrowings
/// (`sat`, clamp to the target's range), else the low bits of each lane.
#[inline(always)]
fn pack<const T: u8>(d: &mut [u8], v: [v128; 4], sat: bool) {
    match T {
        tgt::I32 => {
            each(
                v,
                #[inline(always)]
                |k, x| store(d, k, x),
            );
        }
        tgt::I16 | tgt::U16 => {
            let [a, b, c, e] = if sat {
                v
            } else {
                // Low halves, zero-extended, so the unsigned narrowing keeps them.
                array_map(
                    v,
                    #[inline(always)]
                    |x| v128_and(x, u32x4_splat(0xffff)),
                )
            };
            let n = if T == tgt::I16 && sat { i16x8_narrow_i32x4 } else { u16x8_narrow_i32x4 };
            store(d, 0, n(a, b));
            store(d, 1, n(c, e));
        }
        _ => {
            let [a, b, c, e] = if sat {
                v
            } else {
                array_map(
                    v,
                    #[inline(always)]
                    |x| v128_and(x, u32x4_splat(0xff)),
                )
            };
            let (lo, hi) = (i16x8_narrow_i32x4(a, b), i16x8_narrow_i32x4(c, e));
            store(d, 0, if T == tgt::I8 && sat { i8x16_narrow_i16x8(lo, hi) } else { u8x16_narrow_i16x8(lo, hi) });
        }
    }
}

/// Round four float32 lanes to integral floats in mode `M`.
#[inline(always)]
fn round32<const M: u8>(x: v128) -> v128 {
    match M {
        mode::NE => f32x4_nearest(x),
        mode::TZ => f32x4_trunc(x),
        mode::TP => f32x4_ceil(x),
        mode::TN => f32x4_floor(x),
        _ => {
            // The remainder x - trunc(x) is exact; a half or more steps away from zero.
            let t = f32x4_trunc(x);
            let far = f32x4_ge(f32x4_abs(f32x4_sub(x, t)), f32x4_splat(0.5));
            let one = v128_or(v128_and(x, u32x4_splat(0x8000_0000)), f32x4_splat(1.0));
            f32x4_add(t, v128_and(far, one))
        }
    }
}

/// [`round32`] for float64 lanes.
#[inline(always)]
fn round64<const M: u8>(x: v128) -> v128 {
    match M {
        mode::NE => f64x2_nearest(x),
        mode::TZ => f64x2_trunc(x),
        mode::TP => f64x2_ceil(x),
        mode::TN => f64x2_floor(x),
        _ => {
            let t = f64x2_trunc(x);
            let far = f64x2_ge(f64x2_abs(f64x2_sub(x, t)), f64x2_splat(0.5));
            let one = v128_or(v128_and(x, u64x2_splat(0x8000_0000_0000_0000)), f64x2_splat(1.0));
            f64x2_add(t, v128_and(far, one))
        }
    }
}

/// 1.5 * 2^52: added to an integral float64 of magnitude below 2^51, the sum's low 32
/// pattern bits are the integer's low 32 bits (two's complement).
const WRAP_SUM: f64 = 6_755_399_441_055_744.0;

/// Two integral float64 lanes plus [`WRAP_SUM`].
#[inline(always)]
fn wrap_sum(r: v128) -> v128 {
    f64x2_add(r, f64x2_splat(WRAP_SUM))
}

/// Four integral float32 lanes (`r`, finite) -> their low 32 bits, without a branch: less
/// the nearest multiple of 2^32 (exact: below 2^31 that is 0, and above it `r`'s step is at
/// least 2^8, so the difference, at most 2^31 in magnitude, holds in 24 bits), that
/// difference converted, and +2^31 (which saturates to 2^31 - 1) moved on by one to -2^31.
#[inline(always)]
fn wrap32(r: v128) -> v128 {
    let k = f32x4_nearest(f32x4_mul(r, f32x4_splat(1.0 / 4_294_967_296.0)));
    let q = f32x4_sub(r, f32x4_mul(k, f32x4_splat(4_294_967_296.0)));
    i32x4_sub(i32x4_trunc_sat_f32x4(q), f32x4_ge(q, f32x4_splat(2_147_483_648.0)))
}

/// Four float32 lanes -> int32 results for target `T` (range `lo..=hi`) with rule `R` in
/// mode `M`, and the lanes to flag: NaN/Inf always, and beyond the range without a rule.
#[inline(always)]
fn f32_lanes<const M: u8, const T: u8, const R: u8>(x: v128, (lo, hi): (f64, f64)) -> (v128, v128) {
    let r = round32::<M>(x);
    let exp = u32x4_splat(0x7f80_0000);
    match R {
        range::CLAMP => (i32x4_trunc_sat_f32x4(r), i32x4_eq(v128_and(x, exp), exp)),
        range::WRAP => (wrap32(r), i32x4_eq(v128_and(x, exp), exp)),
        _ => {
            // NaN compares false, so it is outside too. int32's 2^31 - 1 becomes 2^31 as a
            // float32, itself outside.
            let below =
                if T == tgt::I32 { f32x4_lt(r, f32x4_splat(hi as f32)) } else { f32x4_le(r, f32x4_splat(hi as f32)) };
            let inside = v128_and(f32x4_ge(r, f32x4_splat(lo as f32)), below);
            (i32x4_trunc_sat_f32x4(r), v128_not(inside))
        }
    }
}

/// Two float64 lanes -> [`wrap_sum`] of their integer results for rule `R` in mode `M` (the
/// result in the low half of each 64-bit lane), and 64-bit lane flags: NaN/Inf always;
/// beyond the range (without a rule); from 2^51 up (wrap). Clamp bounds the rounded value
/// first. (The sum, not the saturating conversion: V8 runs that one several times slower,
/// and slower still on lanes beyond int32.)
#[inline(always)]
fn f64_lanes<const M: u8, const R: u8>(x: v128, (lo, hi): (f64, f64)) -> (v128, v128) {
    let r = round64::<M>(x);
    match R {
        range::CLAMP => {
            let exp = u64x2_splat(0x7ff0_0000_0000_0000);
            // NaN stays NaN (and is flagged).
            let c = f64x2_pmin(f64x2_pmax(r, f64x2_splat(lo)), f64x2_splat(hi));
            (wrap_sum(c), i64x2_eq(v128_and(x, exp), exp))
        }
        range::WRAP => {
            let held = f64x2_lt(f64x2_abs(r), f64x2_splat(2_251_799_813_685_248.0));
            (wrap_sum(r), v128_not(held))
        }
        _ => {
            let inside = v128_and(f64x2_ge(r, f64x2_splat(lo)), f64x2_le(r, f64x2_splat(hi)));
            (wrap_sum(r), v128_not(inside))
        }
    }
}

// float16/bfloat16/float32/float64 (`S`) -> 8/16/32-bit integer target `T` in rounding
// mode `M` with range rule `R` (float16 and bfloat16 widened to float32 exactly first), 16
// elements per step.
fn f2i<const S: u8, const M: u8, const T: u8, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    // The target's range, as floats (exact: every bound here is at most 2^31 in magnitude).
    let (lo, hi) = dir.to.format().int_bounds();
    let bounds = (lo as f64, hi as f64);
    let specials = lanes::SpecialMap::new(dir);
    let ss = match S {
        src::F64 => 8,
        src::F32 => 4,
        _ => 2,
    };
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (ss, tgt::size(T)),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            // Results and flags of each four lanes, in order.
            let q: [(v128, v128); 4] = if S == src::F64 {
                array_fn(
                    #[inline(always)]
                    |k| {
                        let (a, fa) = f64_lanes::<M, R>(load(s, 2 * k), bounds);
                        let (b, fb) = f64_lanes::<M, R>(load(s, 2 * k + 1), bounds);
                        (low_halves(a, b), low_halves(fa, fb))
                    },
                )
            } else {
                let x: [v128; 4] = if S == src::F32 {
                    array_fn(
                        #[inline(always)]
                        |k| load(s, k),
                    )
                } else if S == src::F16 {
                    widen16::<{ small::F16 }>(s).0
                } else {
                    widen16::<{ small::BF16 }>(s).0
                };
                array_map(
                    x,
                    #[inline(always)]
                    |x| f32_lanes::<M, T, R>(x, bounds),
                )
            };
            let (v, f) = array_unzip(q);
            pack::<T>(d, v, R != range::WRAP);
            // float16's Inf/NaN patterns widen to finite values: flagged from the source.
            let special = if S == src::F16 { widen16::<{ small::F16 }>(s).1 } else { 0 };
            lane_bits(f) | special
        },
    )
}

// int32 (`S` = 4) / int16 (`S` = 2) -> a narrower integer target `T` with rule `R`:
// saturating narrowings (clamp), the low bits (wrap), flags beyond the range (error).
// 16 elements per step.
fn narrow<const S: usize, const T: u8, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let (lo, hi) = dir.to.format().int_bounds();
    let (lo, hi) = (lo as i32, hi as i32);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (S, tgt::size(T)),
        None,
        #[inline(always)]
        |s, d| {
            let sat = R != range::WRAP;
            if S == 4 {
                let v: [v128; 4] = array_fn(
                    #[inline(always)]
                    |k| load(s, k),
                );
                let flags = if R == range::ERROR {
                    lane_bits(array_map(
                        v,
                        #[inline(always)]
                        |x| v128_or(i32x4_lt(x, i32x4_splat(lo)), i32x4_gt(x, i32x4_splat(hi))),
                    ))
                } else {
                    0
                };
                pack::<T>(d, v, sat);
                flags
            } else {
                let (a, b) = (load(s, 0), load(s, 1));
                let flags = if R == range::ERROR {
                    lane_bits16(outside16(a, lo as i16, hi as i16), outside16(b, lo as i16, hi as i16))
                } else {
                    0
                };
                let bytes = if !sat {
                    let m = u16x8_splat(0xff);
                    u8x16_narrow_i16x8(v128_and(a, m), v128_and(b, m))
                } else if T == tgt::I8 {
                    i8x16_narrow_i16x8(a, b)
                } else {
                    u8x16_narrow_i16x8(a, b)
                };
                store(d, 0, bytes);
                flags
            }
        },
    )
}

/// Masks of the 16-bit lanes of `x` outside `lo..=hi`.
#[inline(always)]
fn outside16(x: v128, lo: i16, hi: i16) -> v128 {
    v128_or(i16x8_lt(x, i16x8_splat(lo)), i16x8_gt(x, i16x8_splat(hi)))
}

/// Four patterns of small format `F` (zero-extended 32-bit lanes) widened to float32
/// exactly: normal numbers rebiased, subnormals as their integer significand times the
/// format's least step (exact products); bfloat16 is the top half. Inf/NaN patterns give
/// some finite value: the callers flag them.
#[inline(always)]
fn widen<const F: u8>(w: v128) -> v128 {
    let (m, bias, bits) = small::shape(F);
    if bias == 127 {
        return i32x4_shl(w, 16);
    }
    let sign = 1 << (bits - 1);
    let em = v128_and(w, u32x4_splat(sign - 1));
    let normal = i32x4_add(i32x4_shl(em, 23 - m), u32x4_splat((127 - bias) << 23));
    let step = f32::from_bits((127 + 1 - bias - m) << 23);
    let sub = f32x4_mul(f32x4_convert_i32x4(em), f32x4_splat(step));
    let mag = v128_bitselect(sub, normal, i32x4_lt(em, i32x4_splat(1 << m)));
    v128_or(mag, i32x4_shl(v128_and(w, u32x4_splat(sign)), 32 - bits))
}

/// The first 16 patterns of 16-bit format `F` in `s` widened to float32 ([`widen`]), in
/// four vectors, with the flags of those whose exponent is all ones (Inf/NaN, which widen
/// to some finite value for float16).
#[inline(always)]
fn widen16<const F: u8>(s: &[u8]) -> ([v128; 4], u32) {
    let e = u16x8_splat(small::exp_mask(F) as u16);
    let (a, b) = (load(s, 0), load(s, 1));
    let w =
        [u32x4_extend_low_u16x8(a), u32x4_extend_high_u16x8(a), u32x4_extend_low_u16x8(b), u32x4_extend_high_u16x8(b)];
    let flags = lane_bits16(i16x8_eq(v128_and(a, e), e), i16x8_eq(v128_and(b, e), e));
    (array_map(w, widen::<F>), flags)
}

// float16 / bfloat16 / float8_e5m2 / float8_e4m3 (`F`) -> float32: exact widening ([`widen`]). NaN and
// +-Inf (possible map keys) go cold. 16 elements per step.
fn small_to_f32<const F: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    let (_, _, bits) = small::shape(F);
    let exp = small::exp_mask(F);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        ((bits / 8) as usize, 4),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            if bits == 16 {
                let (w, special) = widen16::<F>(s);
                each(
                    w,
                    #[inline(always)]
                    |k, v| store(d, k, v),
                );
                special
            } else {
                let v = load(s, 0);
                let h = [u16x8_extend_low_u8x16(v), u16x8_extend_high_u8x16(v)];
                each(
                    h,
                    #[inline(always)]
                    |k, v| {
                        store(d, 2 * k, widen::<F>(u32x4_extend_low_u16x8(v)));
                        store(d, 2 * k + 1, widen::<F>(u32x4_extend_high_u16x8(v)));
                    },
                );
                let e = u8x16_splat(exp as u8);
                let special = i8x16_eq(v128_and(v, e), e);
                if v128_any_true(special) {
                    u32::from(i8x16_bitmask(special))
                } else {
                    0
                }
            }
        },
    )
}

/// Flags of four float32 lanes whose magnitude pattern is above `limit` (NaN and Inf too).
#[inline(always)]
fn above(x: v128, limit: u32) -> v128 {
    i32x4_gt(v128_and(x, u32x4_splat(0x7fff_ffff)), u32x4_splat(limit))
}

// float32 -> float64: exact widening. NaN and +-Inf go cold. 16 elements per step.
fn f32_to_f64(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (4, 8),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let x: [v128; 4] = array_fn(
                #[inline(always)]
                |k| load(s, k),
            );
            each(
                x,
                #[inline(always)]
                |k, v| {
                    store(d, 2 * k, f64x2_promote_low_f32x4(v));
                    store(d, 2 * k + 1, f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 2, 3>(v, v)));
                },
            );
            lane_bits(array_map(
                x,
                #[inline(always)]
                |v| above(v, 0x7f7f_ffff),
            ))
        },
    )
}

/// 64-bit lane masks as 32-bit lanes 0 and 1.
#[inline(always)]
fn lanes01(m: v128) -> v128 {
    i32x4_shuffle::<0, 2, 0, 2>(m, m)
}

/// Two float64 lanes demoted to float32 (lanes 0 and 1) in mode `M` (not nearest-away): the
/// nearest-even demotion, then one step of the pattern back toward the source where the
/// directed mode forbids the side the demotion went to (a float32 pattern plus or minus one
/// is the next magnitude up or down, subnormals and zero included).
#[inline(always)]
fn demote<const M: u8>(x: v128) -> v128 {
    let y = f32x4_demote_f64x2_zero(x);
    if M == mode::NE {
        return y;
    }
    let p = f64x2_promote_low_f32x4(y);
    let neg = f64x2_lt(x, f64x2_splat(0.0));
    match M {
        // Went past |x|: one magnitude down (the mask is -1).
        mode::TZ => i32x4_add(y, lanes01(f64x2_gt(f64x2_abs(p), f64x2_abs(x)))),
        // Below x: up (magnitude down where negative).
        mode::TP => {
            let m = lanes01(f64x2_lt(p, x));
            let n = lanes01(neg);
            i32x4_sub(i32x4_add(y, v128_and(m, n)), v128_andnot(m, n))
        }
        // Above x: down (magnitude up where negative).
        _ => {
            let m = lanes01(f64x2_gt(p, x));
            let n = lanes01(neg);
            i32x4_add(i32x4_sub(y, v128_and(m, n)), v128_andnot(m, n))
        }
    }
}

// float64 -> float32 in mode `M` (not nearest-away; [`demote`]). Without `CLAMP`,
// magnitudes above the largest float32 go cold. With it, results beyond float32 are +-Inf in
// the lanes: the nearest-even demotion gives Inf exactly where the rounded value is out of
// range, the directed steps of [`demote`] move across the largest float32 correctly, and
// magnitudes from 2^128 up (which they would bring back to it) are made Inf. NaN and Inf go
// cold. 16 elements per step.
fn f64_to_f32<const M: u8, const CLAMP: bool>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    let max = f64x2_splat(f64::from(f32::MAX));
    // 2^128.
    let beyond = f64x2_splat(f64::from_bits(0x47f0_0000_0000_0000));
    let exp = u64x2_splat(0x7ff0_0000_0000_0000);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (8, 4),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let f: [v128; 4] = array_fn(
                #[inline(always)]
                |k| {
                    let (a, b) = (load(s, 2 * k), load(s, 2 * k + 1));
                    let y = i32x4_shuffle::<0, 1, 4, 5>(demote::<M>(a), demote::<M>(b));
                    if CLAMP {
                        let y = if M == mode::NE {
                            y
                        } else {
                            let big = low_halves(f64x2_ge(f64x2_abs(a), beyond), f64x2_ge(f64x2_abs(b), beyond));
                            let inf = v128_or(v128_and(y, u32x4_splat(0x8000_0000)), u32x4_splat(0x7f80_0000));
                            v128_bitselect(inf, y, big)
                        };
                        store(d, k, y);
                        low_halves(i64x2_eq(v128_and(a, exp), exp), i64x2_eq(v128_and(b, exp), exp))
                    } else {
                        store(d, k, y);
                        // |x| <= max is false for NaN too.
                        v128_not(low_halves(f64x2_le(f64x2_abs(a), max), f64x2_le(f64x2_abs(b), max)))
                    }
                },
            );
            lane_bits(f)
        },
    )
}

/// What to add to a sign-magnitude pattern below the bits kept (`low` ones) so that keeping
/// the high bits rounds in mode `M`: nearest-even half less one plus the kept part's last
/// bit (`lsb`), nearest-away half, the directed modes all ones on their side of zero.
#[inline(always)]
fn increment<const M: u8>(low: u32, lsb: v128, neg: v128) -> v128 {
    let ones = u32x4_splat(low);
    match M {
        mode::NE => i32x4_add(u32x4_splat(low >> 1), lsb),
        mode::NA => u32x4_splat(low / 2 + 1),
        mode::TZ => u32x4_splat(0),
        mode::TP => v128_andnot(ones, neg),
        _ => v128_and(ones, neg),
    }
}

// float32 -> small format `F` (float16, bfloat16, float8_e5m2, float8_e4m3) in mode `M`.
// Normal results: the pattern rebased to the format's exponent bias, rounded at its last
// significand bit by [`increment`] (a carry into the exponent is rounding up). Subnormal
// results: the magnitude over the format's least step (exact) rounded to an integer in the
// mode. bfloat16, with float32's exponents, rounds the whole float32 pattern at bit 16. Without `CLAMP`, magnitudes from the format's largest finite value up go cold; with
// it, a rounded pattern beyond the largest finite one is the format's Inf. NaN and Inf go
// cold. 16 elements per step.
fn f32_to_small<const M: u8, const F: u8, const CLAMP: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    let (m, bias, bits) = small::shape(F);
    let cut = 23 - m;
    // The largest finite value's float32 pattern; exponent `bias` is the format's largest.
    let max = ((127 + bias) << 23) | (((1 << m) - 1) << cut);
    let inf = ((1 << (bits - 1)) - 1) & !((1 << m) - 1);
    let limit = if CLAMP { 0x7f7f_ffff } else { max - 1 };
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (4, (bits / 8) as usize),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let x: [v128; 4] = array_fn(
                #[inline(always)]
                |k| load(s, k),
            );
            let h = array_map(
                x,
                #[inline(always)]
                |u| {
                    let neg = i32x4_shr(u, 31);
                    if bias == 127 {
                        // bfloat16: the whole pattern, sign included, rounds at bit 16 (a
                        // rounded value beyond its range is exactly the Inf pattern).
                        let lsb = v128_and(u32x4_shr(u, 16), u32x4_splat(1));
                        return u32x4_shr(i32x4_add(u, increment::<M>(0xffff, lsb, neg)), 16);
                    }
                    let a = v128_and(u, u32x4_splat(0x7fff_ffff));
                    let base = i32x4_sub(a, u32x4_splat((127 - bias) << 23));
                    let lsb = v128_and(u32x4_shr(base, cut), u32x4_splat(1));
                    let normal = u32x4_shr(i32x4_add(base, increment::<M>((1 << cut) - 1, lsb, neg)), cut);
                    let normal = if CLAMP { u32x4_min(normal, u32x4_splat(inf)) } else { normal };
                    let y = f32x4_mul(a, f32x4_splat(f32::from_bits((127 + bias - 1 + m) << 23)));
                    let y = match M {
                        mode::TP => v128_bitselect(f32x4_trunc(y), f32x4_ceil(y), neg),
                        mode::TN => v128_bitselect(f32x4_ceil(y), f32x4_trunc(y), neg),
                        _ => round32::<M>(y),
                    };
                    let tiny = i32x4_lt(a, i32x4_splat(((127 + 1 - bias) << 23) as i32));
                    let mag = v128_bitselect(i32x4_trunc_sat_f32x4(y), normal, tiny);
                    v128_or(mag, u32x4_shr(v128_and(u, u32x4_splat(0x8000_0000)), 32 - bits))
                },
            );
            let (lo, hi) = (u16x8_narrow_i32x4(h[0], h[1]), u16x8_narrow_i32x4(h[2], h[3]));
            if bits == 16 {
                store(d, 0, lo);
                store(d, 1, hi);
            } else {
                store(d, 0, u8x16_narrow_i16x8(lo, hi));
            }
            lane_bits(array_map(
                x,
                #[inline(always)]
                |v| above(v, limit),
            ))
        },
    )
}
