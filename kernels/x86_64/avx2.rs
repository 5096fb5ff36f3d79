//! Hand-written AVX2 (+F16C) kernels. Each one converts a chunk with instructions whose
//! rounding is exactly the requested one (hardware conversions round nearest-even in the
//! default MXCSR state, which Rust never changes; `vroundps`/`vroundpd` and F16C take the mode
//! as an immediate; nearest-away is built from truncation and an exact fraction test), flags
//! every lane it does not cover exactly, and hands a flagged chunk to the scalar reference.
//! Pairs without a kernel here use the generic lane bodies compiled for AVX2
//! (`tiers::avx2`).
//!
//! Float narrowing rounds once: in integer bits where the result is normal (the magnitude
//! with its exponent rebiased, plus the mode's increment, shifted: a carry out of the
//! mantissa bumps the exponent field, as rounding should), and where it is subnormal by an
//! exact scaling to the target's least subnormal and one rounding to an integer in the mode.
//! Sources wider than the f32 lanes first become f32 rounded to odd at enough bits (`src`).
//!
//! Every kernel is tested against the scalar reference by tests/tiers.rs.

use crate::config::OutOfRange;
use crate::dtype::{DataType, Format, Kind, NanEncoding};
use crate::error::ElementError;
use crate::kernels::dispatch;
use crate::kernels::lanes::{self, mode, mode_code, range, range_code, sym};
use crate::kernels::x86_64_byte_rows::{affine_cold, cold_form, plus_form, slots, Affine16, NibbleSums};
use crate::kernels::{array_fn, array_map, hot, unrolled, KernelFn};
use crate::plan::Direction;
use core::arch::x86_64::*;

/// Proof that the CPU runs this tier's instructions (AVX2, FMA, F16C, BMI2). [`Avx2::new`]
/// is a `#[target_feature]` function, so code makes one without `unsafe` only where it is
/// compiled with those features itself: a kernel body, entered after dispatch detected them.
/// The helpers a body calls take one and are `#[inline(always)]` without
/// `#[target_feature]` (the two cannot be combined), so that no step of a kernel is left to
/// the inliner's cost model, whatever the build's profile.
#[derive(Clone, Copy)]
pub(super) struct Avx2(());

impl Avx2 {
    /// The proof, where the caller's own target features include this tier's.
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    #[inline]
    pub(super) fn new() -> Avx2 {
        Avx2(())
    }
}

/// Source codes of the float-domain kernels: how eight (f32 domain) or four (f64 domain)
/// source lanes are loaded as floats, always exactly.
mod src {
    /// float32
    pub const F32: u8 = 0;
    /// float16 (F16C widening)
    pub const F16: u8 = 1;
    /// bfloat16 (shift into the top half)
    pub const BF16: u8 = 2;
    /// int8 and uint8 (in [`super::byte_to_float`] only)
    pub const I8: u8 = 3;
    pub const U8: u8 = 4;
    /// int16 (every value is an f32; byte sources have their own kernels)
    pub const I16: u8 = 5;
    /// uint16
    pub const U16: u8 = 6;
    /// float64 (f64 domain)
    pub const F64: u8 = 7;
    /// int32 (f64 domain: every value is an f64)
    pub const I32: u8 = 8;
    /// uint32 (f64 domain)
    pub const U32: u8 = 9;
    /// int64 (f64 domain; magnitudes from 2^51 are flagged)
    pub const I64: u8 = 10;
    /// uint64 (f64 domain; values from 2^51 are flagged)
    pub const U64: u8 = 11;
    /// a byte float type with subnormals (float4, float6, float8 but e8m0fnu), decoded by
    /// a [`super::Mini`] (NaN/Inf patterns give NaN lanes)
    pub const MINI: u8 = 12;

    /// float64, int32, uint32 as f32 lanes rounded to odd (truncated, with the last bit set
    /// where that was inexact): 24 bits, enough for one later correct rounding to float16,
    /// bfloat16 or a byte float type in any mode. (int64/uint64 round to odd in f64:
    /// [`super::int64_odd`].)
    pub const ODD_F64: u8 = 13;
    pub const ODD_I32: u8 = 14;
    pub const ODD_U32: u8 = 15;

    /// float64 as f32 lanes from its top 32 bits alone: the mantissa's first 20 bits, the
    /// last f32 bit set where any of the low dword's is (rounded to odd at 21 significant
    /// bits, enough for one later correct rounding to 19 bits or fewer: float16 and the byte
    /// floats with subnormals; not bfloat16, whose subnormals are f32's, nor e8m0fnu, whose
    /// least value is), the exponent taken into f32's range: below 2^-126 a nonzero value
    /// becomes a nonzero f32 of at most about 2^-126 (under half the least subnormal of each
    /// such target, so it rounds the same), from 2^128 on a NaN pattern (NaN and Inf too;
    /// every reader sends those lanes cold).
    pub const TOP_F64: u8 = 16;

    /// float8_e8m0fnu: code `c` as the f32 `c << 23` (2^(c - 127), exact), but 2^-127 read as
    /// 2^-126 (a normal f32, and the same rounding to every integer and to float16: both are
    /// under half their least nonzero value) and the NaN code 0xff as +Inf, which every reader
    /// ([`f2i_pack`], [`f2u32`], [`f32_to_f16`]) sends cold as it does NaN.
    pub const E8M0: u8 = 17;

    /// float8_e5m2fnuz (not a [`Mini`](super::Mini) type: its top exponent field is finite):
    /// its float16 ([`super::e5fnuz_halves`]) widened by F16C, and the NaN code 0x80 as an
    /// f32 NaN, which every reader sends cold.
    pub const E5FNUZ: u8 = 22;

    /// int32, uint32, int64, uint64 as f32 lanes exact below 2^24 in magnitude, and 2^24 or
    /// more (with the sign) above: for targets whose finite range ends below 2^17 (float16
    /// and the byte floats), where every such lane is out of range and goes cold, so no
    /// rounding to odd is needed.
    pub const CAP_I32: u8 = 18;
    pub const CAP_U32: u8 = 19;
    pub const CAP_I64: u8 = 20;
    pub const CAP_U64: u8 = 21;

    /// Bytes per source element.
    pub const fn size(s: u8) -> usize {
        match s {
            F16 | BF16 | I16 | U16 => 2,
            F64 | I64 | U64 | ODD_F64 | TOP_F64 | CAP_I64 | CAP_U64 => 8,
            MINI | E8M0 | E5FNUZ => 1,
            _ => 4,
        }
    }

    /// The code of a source type.
    pub fn of(t: crate::dtype::DataType) -> Option<u8> {
        use crate::dtype::DataType as T;
        Some(match t {
            T::Float32 => F32,
            T::Float16 => F16,
            T::BFloat16 => BF16,
            T::Int16 => I16,
            T::UInt16 => U16,
            T::Float64 => F64,
            T::Int32 => I32,
            T::UInt32 => U32,
            T::Int64 => I64,
            T::UInt64 => U64,
            _ => return None,
        })
    }
}

/// Call `$pick::<[$pre,] M>($args)` with `M` the const generic of the rounding code `$m`.
macro_rules! by_mode {
    ($m:expr, $pick:ident[$pre:expr] $(, $arg:expr)*) => {
        match $m {
            mode::NE => $pick::<{ $pre }, { mode::NE }>($($arg),*),
            mode::TZ => $pick::<{ $pre }, { mode::TZ }>($($arg),*),
            mode::TP => $pick::<{ $pre }, { mode::TP }>($($arg),*),
            mode::TN => $pick::<{ $pre }, { mode::TN }>($($arg),*),
            _ => $pick::<{ $pre }, { mode::NA }>($($arg),*),
        }
    };
    ($m:expr, $pick:ident $(, $arg:expr)*) => {
        match $m {
            mode::NE => $pick::<{ mode::NE }>($($arg),*),
            mode::TZ => $pick::<{ mode::TZ }>($($arg),*),
            mode::TP => $pick::<{ mode::TP }>($($arg),*),
            mode::TN => $pick::<{ mode::TN }>($($arg),*),
            _ => $pick::<{ mode::NA }>($($arg),*),
        }
    };
}

/// `Some($kernel::<$generics.., DS, R>)` for a target size `$ds` among `$sizes` and a range
/// rule `$r`, resolved when the plan is bound (`None` for other sizes).
macro_rules! by_size_and_rule {
    (@k $k:ident [$($g:tt)*] $size:literal $rule:expr) => {
        $k::<$($g)*, $size, { $rule }> as KernelFn
    };
    ($k:ident $pre:tt, $ds:expr, $r:expr, [$($size:literal),*]) => {
        match $r {
            range::ERROR => match $ds { $($size => Some(by_size_and_rule!(@k $k $pre $size range::ERROR)),)* _ => None },
            range::CLAMP => match $ds { $($size => Some(by_size_and_rule!(@k $k $pre $size range::CLAMP)),)* _ => None },
            range::WRAP => match $ds { $($size => Some(by_size_and_rule!(@k $k $pre $size range::WRAP)),)* _ => None },
            _ => None,
        }
    };
}

/// `$kernel::<$generics.., R>` for the range rule code `$r`.
macro_rules! by_rule {
    ($k:ident [$($g:tt)*], $r:expr) => {
        match $r {
            range::ERROR => $k::<$($g)*, { range::ERROR }> as KernelFn,
            range::CLAMP => $k::<$($g)*, { range::CLAMP }>,
            _ => $k::<$($g)*, { range::WRAP }>,
        }
    };
}

/// `$k::<S, F16C's rounding immediate, AWAY>` ([`f32_to_f16`] or its map form) for the
/// rounding code `$m` (nearest-away: nearest-even with `AWAY`).
macro_rules! by_f16c_mode {
    ($m:expr, $k:ident, $s:expr) => {
        match $m {
            mode::NE => $k::<{ $s }, { _MM_FROUND_TO_NEAREST_INT }, false> as KernelFn,
            mode::TZ => $k::<{ $s }, { _MM_FROUND_TO_ZERO }, false>,
            mode::TP => $k::<{ $s }, { _MM_FROUND_TO_POS_INF }, false>,
            mode::TN => $k::<{ $s }, { _MM_FROUND_TO_NEG_INF }, false>,
            _ => $k::<{ $s }, { _MM_FROUND_TO_NEAREST_INT }, true>,
        }
    };
}

/// A specialised kernel for the direction, if there is one. Only called after run-time
/// detection reported AVX2, FMA, F16C and BMI2.
pub fn select(dir: &Direction) -> Option<KernelFn> {
    if !lanes::map_keys_are_special(dir) {
        return None;
    }
    let from = dir.from;
    use DataType as T;
    let to = dir.to;
    let (m, r) = (mode_code(dir.rounding), range_code(dir.out_of_range));
    // A scalar_map of NaN/+-Inf to one value: the kernels that can put a source value in
    // those lanes ([`Substitute`]), where they have that form.
    let sub = dir.lanes.as_ref().is_some_and(|l| l.substitute.is_some());
    if sub {
        // (float16's values all round into i32: `f2i_pack` takes its 32/64-bit targets too.)
        let ints = match (from, to) {
            (T::Float16, T::UInt32) => Some(tgt::U32),
            (T::Float16, T::Int64) => Some(tgt::I64),
            (T::Float16, T::UInt64) => Some(tgt::U64),
            _ => tgt::of(to),
        };
        let k = match (from, to) {
            (T::Float32, T::Float16) => Some(by_f16c_mode!(m, f32_to_f16_map, src::F32)),
            (T::Float32, T::BFloat16) => by_mode!(m, pick_to_bf16_map[src::F32]),
            (T::Float64, T::Float32) => by_mode!(m, pick_f64_to_f32_map),
            (T::Float16, T::Float32) => Some(half_to_f32_map::<{ src::F16 }> as KernelFn),
            (T::BFloat16, T::Float32) => Some(half_to_f32_map::<{ src::BF16 }> as KernelFn),
            (T::Float32, T::Float64) => Some(f32_to_f64_map as KernelFn),
            (T::Float16, T::Float64) => Some(half_to_f64_map::<{ src::F16 }> as KernelFn),
            (T::BFloat16, T::Float64) => Some(half_to_f64_map::<{ src::BF16 }> as KernelFn),
            (T::Float32, T::UInt32) => by_mode!(m, pick_f2u32[src::F32], r, true),
            (T::BFloat16, T::UInt32) => by_mode!(m, pick_f2u32[src::BF16], r, true),
            // (`f2i_wide` and `f64_to_u32` resolve each hit: substituting ran x0.83-0.96 of
            // that speed with 1% hits at 2^16; their f64 lanes cost more than the hits.)
            // (The pairs that take `f32_to_f8` keep it, without a substitute.)
            _ if pick_f32_to_f8(from, to, m, r).is_some() => None,
            (T::BFloat16, _) if is_mini_target(to.format()) => {
                by_mode!(m, pick_bf16_to_mini_map, !to.format().has_negative_zero())
            }
            (T::BFloat16, T::Float16) => Some(by_f16c_mode!(m, f32_to_f16_map, src::BF16)),
            (T::Float16, T::BFloat16) => by_mode!(m, pick_to_bf16_map[src::F16]),
            (T::Float32 | T::Float16, _) if is_mini_target(to.format()) => {
                let nz = !to.format().has_negative_zero();
                match from {
                    T::Float32 => by_mode!(m, pick_to_mini_map[src::F32], nz),
                    _ => by_mode!(m, pick_to_mini_map[src::F16], nz),
                }
            }
            (T::Float32, _) => ints.and_then(|t| by_mode!(m, pick_f2i_sub[src::F32], t, r)),
            (T::Float64, _) => ints.and_then(|t| by_mode!(m, pick_f2i_sub[src::F64], t, r)),
            (T::Float16, _) => ints.and_then(|t| by_mode!(m, pick_f2i_sub[src::F16], t, r)),
            (T::BFloat16, _) => ints.and_then(|t| by_mode!(m, pick_f2i_sub[src::BF16], t, r)),
            _ => None,
        };
        if k.is_some() {
            return k;
        }
    }
    if from == to {
        if let Some(k) = pick_identity(from) {
            return Some(k);
        }
    }
    if from.is_integer() && to.is_integer() {
        if matches!((from, to), (T::UInt16, T::Int16) | (T::Int16, T::UInt16)) {
            // The same 16 bits, in range exactly where bit 15 is clear.
            return Some(if from == T::UInt16 { by_rule!(sign16[true], r) } else { by_rule!(sign16[false], r) });
        }
        if let Some(k) = pick_int_pack(from, to, r).or_else(|| pick_int_to_int(from, to.size(), r)) {
            return Some(k);
        }
    }
    // Byte integers -> floats by conversion, but for sources of 4 bits or less to the 16-bit
    // floats: their 16 entries are two `vpshufb` rows and an interleave (`lut_planes`),
    // where the conversion pays for four F16C narrowings (or packs) per 32 elements.
    let planes16 = from.bits() <= 4 && matches!(to, T::Float16 | T::BFloat16) && dir.lut.is_some();
    if from.is_integer() && to.is_float() && from.size() == 1 && !planes16 {
        let k = match from {
            T::UInt8 => pick_byte_to_float::<{ src::U8 }>(to),
            _ => pick_byte_to_float::<{ src::I8 }>(to),
        };
        if k.is_some() {
            return k;
        }
    }
    // 8-bit float sources -> float16/bfloat16 as arithmetic, where the table is that.
    if let Some(k) = dir.lut.as_ref().and_then(|l| l.affine16()).and_then(pick_affine16) {
        return Some(k);
    }
    // Byte float sources: decoding beats the tables (measured, 2^20) for 8-bit ones to 16-
    // and 32-bit targets and float64, and for float6 to float64; float4, float6 and the
    // other targets keep the tables (`vpshufb` rows, gathers for 64-bit integers).
    let decodes = match to {
        T::Float64 => from.bits() >= 6,
        T::Float32 => from.bits() == 8 && !matches!(from, T::Float8E4M3 | T::Float8E5M2),
        T::Float16 | T::BFloat16 | T::Int16 | T::UInt16 | T::Int32 | T::UInt32 | T::Int64 | T::UInt64 => {
            from.bits() == 8
        }
        _ => false,
    };
    if is_mini(from) && decodes {
        return match to {
            T::UInt32 => by_mode!(m, pick_f2i_pack[src::MINI], tgt::U32, r),
            T::Int64 => by_mode!(m, pick_f2i_pack[src::MINI], tgt::I64, r),
            T::UInt64 => by_mode!(m, pick_f2i_pack[src::MINI], tgt::U64, r),
            T::Int16 | T::UInt16 | T::Int32 => by_mode!(m, pick_f2i_pack[src::MINI], tgt::of(to)?, r),
            // Float targets: every value of these types is a float16, bfloat16, f32 and f64.
            _ => pick_byte_to_float::<{ src::MINI }>(to),
        };
    }
    if to == T::Float8E8M0FNU && from.size() >= 2 {
        // Every source of 16 bits or more, in f32 lanes (exactly, or rounded to odd), but
        // bfloat16 (in 16-bit lanes) and the 64-bit integers (in 64-bit lanes).
        let s = match from {
            T::Float32 => src::F32,
            T::Float16 => src::F16,
            T::BFloat16 => src::BF16,
            T::Int16 => src::I16,
            T::UInt16 => src::U16,
            T::Float64 => src::F64,
            T::Int32 => src::ODD_I32,
            T::UInt32 => src::ODD_U32,
            T::Int64 => src::I64,
            _ => src::U64,
        };
        return Some(match s {
            src::F32 => by_mode!(m, pick_to_e8m0[src::F32], r),
            src::F16 => by_mode!(m, pick_to_e8m0[src::F16], r),
            // In 16-bit lanes ([`bf16_to_e8m0`]): twice the lanes per op, measured faster
            // with and without a rule.
            src::BF16 => by_mode!(m, pick_bf16_to_e8m0, r),
            src::I16 => by_mode!(m, pick_to_e8m0[src::I16], r),
            src::U16 => by_mode!(m, pick_to_e8m0[src::U16], r),
            src::F64 => by_mode!(m, pick_to_e8m0[src::F64], r),
            src::ODD_I32 => by_mode!(m, pick_to_e8m0[src::ODD_I32], r),
            src::ODD_U32 => by_mode!(m, pick_to_e8m0[src::ODD_U32], r),
            src::I64 => by_mode!(m, pick_int64_to_e8m0[src::I64], r),
            _ => by_mode!(m, pick_int64_to_e8m0[src::U64], r),
        });
    }
    if from.is_integer() && to.is_float() && from.size() > 1 {
        if let Some(k) = src::of(from).and_then(|s| pick_int_to_float(s, to, m)) {
            return Some(k);
        }
    }
    if from == T::Float8E5M2FNUZ {
        // Decoded through float16 ([`e5fnuz_halves`]), not by the table's gathers (a third of
        // e5m2's decoder's speed). Every value is below 2^16 and rounds into i32 (f2i_pack
        // stores 64-bit targets by sign extension).
        let t = match to {
            T::Float32 => return Some(f8_to_f32::<{ f8::E5FNUZ }> as KernelFn),
            T::Float64 => return Some(half_to_f64::<{ src::E5FNUZ }> as KernelFn),
            T::UInt32 => Some(tgt::U32),
            T::Int64 => Some(tgt::I64),
            T::UInt64 => Some(tgt::U64),
            T::Int16 | T::UInt16 | T::Int32 => tgt::of(to),
            _ => None,
        };
        if let Some(t) = t {
            // Where the byte decoder runs ([`Mini::decode32`]), through it: it takes this
            // format as it takes the others.
            if dispatch::subnormal_operands_free() {
                return by_mode!(m, pick_f2i_pack[src::MINI], t, r);
            }
            return by_mode!(m, pick_f2i_pack[src::E5FNUZ], t, r);
        }
    }
    if from == T::Float8E8M0FNU {
        // Powers of two, a few ops to f32 lanes: faster than the table kernel's gathers for
        // these targets in every mode and rule (measured at 2^20).
        match to {
            // 16-bit integers: two `vpshufb` rows ([`e8m0_to_int16`]).
            T::Int16 | T::UInt16 => return by_mode!(m, pick_e8m0_to_int16, r),
            T::Int32 => return by_mode!(m, pick_f2i_pack[src::E8M0], tgt::of(to)?, r),
            T::UInt32 => return by_mode!(m, pick_f2u32[src::E8M0], r, false),
            T::Float16 => return Some(pick_to_f16::<{ src::E8M0 }>(m)),
            // Exact: the code shifted into f32's exponent field (2^-127 is f32's subnormal
            // 0x400000), not the table's gathers (slow).
            T::Float32 => return Some(byte_to_float::<{ src::E8M0 }, 4, false> as KernelFn),
            T::Int64 | T::UInt64 => return by_mode!(m, pick_e8m0_to_int64, r),
            _ => {}
        }
    }
    if dir.lut.is_some() {
        return match (from, to) {
            (T::Float8E4M3, T::Float32) => Some(f8_to_f32::<{ f8::E4M3 }> as KernelFn),
            (T::Float8E5M2, T::Float32) => Some(f8_to_f32::<{ f8::E5M2 }> as KernelFn),
            // At most 64 distinct entries: a few `vpshufb` rows per target byte.
            _ if from.bits() <= 6 => {
                let fails = dir.lut.as_ref().map_or(planes_fail::NONE, planes_fail::of);
                Some(match (from.bits() > 4, fails) {
                    (false, planes_fail::NONE) => pick_planes::<1, { planes_fail::NONE }>(to.size()),
                    (false, planes_fail::LOOKUP) => pick_planes::<1, { planes_fail::LOOKUP }>(to.size()),
                    (false, _) => pick_planes::<1, { planes_fail::FLAG }>(to.size()),
                    (true, planes_fail::NONE) => pick_planes::<4, { planes_fail::NONE }>(to.size()),
                    (true, planes_fail::LOOKUP) => pick_planes::<4, { planes_fail::LOOKUP }>(to.size()),
                    (true, _) => pick_planes::<4, { planes_fail::FLAG }>(to.size()),
                })
            }
            _ => Some(match to.size() {
                1 => {
                    let lut = dir.lut.as_ref()?;
                    let table = lut.shuffle_rows()?;
                    let how = table.how;
                    let abs = rule_abs(lut, how);
                    pick_shuffle(how, abs, table.cold_form, table.most(), table.sums.is_some(), table.plus_form())
                }
                2 => lut_gather::<2>,
                4 => lut_gather::<4>,
                _ => lut_gather::<8>,
            }),
        };
    }
    // (A scalar_map with a [`Substitute`]: picked above where there is a kernel of that form.)
    let on_f8 = pick_f32_to_f8(from, to, m, r).is_some();
    let src_code = match from {
        T::Float32 => src::F32,
        T::Float16 => src::F16,
        _ => src::BF16,
    };
    match (from, to) {
        (T::Float64, T::Float32) => by_mode!(m, pick_f64_to_f32[src::F64]),
        (T::Float32, T::Float64) => Some(f32_to_f64 as KernelFn),
        (T::Float16, T::Float64) => Some(half_to_f64::<{ src::F16 }> as KernelFn),
        (T::BFloat16, T::Float64) => Some(half_to_f64::<{ src::BF16 }> as KernelFn),
        (T::Float32, T::Float16) => Some(pick_to_f16::<{ src::F32 }>(m)),
        // float64 rounded to odd at 21 bits in f32, then rounded once more, correctly.
        (T::Float64, T::Float16) => Some(pick_to_f16::<{ src::TOP_F64 }>(m)),
        (T::Float64, T::BFloat16) => by_mode!(m, pick_to_bf16[src::ODD_F64]),
        (T::BFloat16, T::Float16) => Some(pick_to_f16::<{ src::BF16 }>(m)),
        (T::Float16, T::Float32) => Some(half_to_f32::<{ src::F16 }> as KernelFn),
        (T::BFloat16, T::Float32) => Some(half_to_f32::<{ src::BF16 }> as KernelFn),
        (T::Float32, T::BFloat16) => by_mode!(m, pick_to_bf16[src::F32]),
        // float16 widens to f32 exactly; then the same rounding.
        (T::Float16, T::BFloat16) => by_mode!(m, pick_to_bf16[src::F16]),
        (T::Float32 | T::Float16 | T::BFloat16 | T::Float64, _) if tgt::of(to).is_some() => {
            let t = tgt::of(to)?;
            match src::of(from)? {
                src::F64 => by_mode!(m, pick_f2i_pack[src::F64], t, r),
                src::F32 => by_mode!(m, pick_f2i_pack[src::F32], t, r),
                src::F16 => by_mode!(m, pick_f2i_pack[src::F16], t, r),
                _ => by_mode!(m, pick_f2i_pack[src::BF16], t, r),
            }
        }
        (T::Float32 | T::Float16 | T::BFloat16, T::UInt32) => match src_code {
            src::F32 => by_mode!(m, pick_f2u32[src::F32], r, false),
            // Every float16 rounds to an i32.
            src::F16 => by_mode!(m, pick_f2i_pack[src::F16], tgt::U32, r),
            _ => by_mode!(m, pick_f2u32[src::BF16], r, false),
        },
        (T::Float64, T::UInt32) => by_mode!(m, pick_f64_to_u32, r),
        // Every float16 rounds to an i32.
        (T::Float16, T::Int64) => by_mode!(m, pick_f2i_pack[src::F16], tgt::I64, r),
        (T::Float16, T::UInt64) => by_mode!(m, pick_f2i_pack[src::F16], tgt::U64, r),
        (T::Float64 | T::Float32 | T::BFloat16, T::Int64 | T::UInt64) => match src::of(from) {
            Some(src::F64) => by_mode!(m, pick_f2i_wide[src::F64], r),
            Some(src::F32) => by_mode!(m, pick_f2i_wide[src::F32], r),
            _ => by_mode!(m, pick_f2i_wide[src::BF16], r),
        },
        _ if on_f8 => pick_f32_to_f8(from, to, m, r),
        // bfloat16 in 16-bit lanes ([`bf16_to_mini`]): measured faster than `to_mini` on
        // every row.
        (T::BFloat16, _) if is_mini_target(to.format()) => {
            by_mode!(m, pick_bf16_to_mini, !to.format().has_negative_zero())
        }
        (T::Float32 | T::Float16, _) if is_mini_target(to.format()) => {
            let nz = !to.format().has_negative_zero();
            match src_code {
                src::F32 => by_mode!(m, pick_to_mini[src::F32], nz),
                _ => by_mode!(m, pick_to_mini[src::F16], nz),
            }
        }
        (T::Float64, _) if is_mini_target(to.format()) => {
            by_mode!(m, pick_to_mini[src::TOP_F64], !to.format().has_negative_zero())
        }
        _ => None,
    }
}

/// Whether [`to_mini`] produces a float target: one byte, with a sign and subnormals.
fn is_mini_target(t: &Format) -> bool {
    t.kind == Kind::Float && t.size == 1 && t.subnormals && t.has_sign
}

/// Same-type casts: a copy, except NaN (canonical pattern) and +-Inf (possible map keys),
/// whose chunks go cold. Types narrower than their byte (int4, float6, ...) and the 8-bit
/// floats (table kernel) are not handled here.
fn pick_identity(t: DataType) -> Option<KernelFn> {
    use DataType as T;
    Some(match t {
        T::Int8 | T::UInt8 | T::Int16 | T::UInt16 | T::Int32 | T::UInt32 | T::Int64 | T::UInt64 => copy as KernelFn,
        T::Float16 => identity_float::<2, 0x7c00> as KernelFn,
        T::BFloat16 => identity_float::<2, 0x7f80>,
        T::Float32 => identity_float::<4, 0x7f80_0000>,
        T::Float64 => identity_float::<8, 0x7ff0_0000_0000_0000>,
        _ => return None,
    })
}

/// The saturating-pack kernel for int16/int32 -> a narrower 8/16-bit integer.
fn pick_int_pack(from: DataType, to: DataType, r: u8) -> Option<KernelFn> {
    use DataType as T;
    macro_rules! rules {
        ($ss:literal, $ds:literal, $signed:literal, $u:literal) => {
            by_rule!(int_pack[$ss, $ds, $signed, $u, false], r)
        };
        ($ss:literal, $u:literal) => {
            by_rule!(int_pack[$ss, 1, true, $u, true], r)
        };
    }
    let sub = matches!(to, T::Int2 | T::Int4 | T::UInt2 | T::UInt4);
    Some(match (from, to) {
        (T::Int16, _) if sub => rules!(2, false),
        (T::UInt16, _) if sub => rules!(2, true),
        (T::Int32, _) if sub => rules!(4, false),
        (T::UInt32, _) if sub => rules!(4, true),
        (T::Int16, T::Int8) => rules!(2, 1, true, false),
        (T::Int16, T::UInt8) => rules!(2, 1, false, false),
        (T::Int32, T::Int8) => rules!(4, 1, true, false),
        (T::Int32, T::UInt8) => rules!(4, 1, false, false),
        (T::Int32, T::Int16) => rules!(4, 2, true, false),
        (T::Int32, T::UInt16) => rules!(4, 2, false, false),
        (T::UInt16, T::Int8) => rules!(2, 1, true, true),
        (T::UInt16, T::UInt8) => rules!(2, 1, false, true),
        (T::UInt32, T::Int8) => rules!(4, 1, true, true),
        (T::UInt32, T::UInt8) => rules!(4, 1, false, true),
        (T::UInt32, T::Int16) => rules!(4, 2, true, true),
        (T::UInt32, T::UInt16) => rules!(4, 2, false, true),
        _ => return None,
    })
}

/// The integer kernel for an integer source, by target size and range rule.
fn pick_int_to_int(from: DataType, ds: usize, r: u8) -> Option<KernelFn> {
    use DataType as T;
    match from {
        T::UInt8 => by_size_and_rule!(byte_int[true], ds, r, [1, 2, 4, 8]),
        T::Int2 | T::Int4 | T::Int8 | T::UInt2 | T::UInt4 => by_size_and_rule!(byte_int[false], ds, r, [1, 2, 4, 8]),
        T::Int16 => pick_int_to_int_s::<2, true>(ds, r),
        T::UInt16 => pick_int_to_int_s::<2, false>(ds, r),
        T::Int32 => pick_int_to_int_s::<4, true>(ds, r),
        T::UInt32 => pick_int64_to_int::<4, false>(ds, r),
        T::Int64 => pick_int64_to_int::<8, true>(ds, r),
        T::UInt64 => pick_int64_to_int::<8, false>(ds, r),
        _ => None,
    }
}

/// The 64-bit-lane integer kernel for uint32/int64/uint64 sources.
fn pick_int64_to_int<const SS: usize, const SIGNED: bool>(ds: usize, r: u8) -> Option<KernelFn> {
    by_size_and_rule!(int64_to_int [SS, SIGNED], ds, r, [1, 2, 4, 8])
}

/// [`pick_int_to_int`] for one source layout.
fn pick_int_to_int_s<const SS: usize, const SIGNED: bool>(ds: usize, r: u8) -> Option<KernelFn> {
    by_size_and_rule!(int_to_int [SS, SIGNED], ds, r, [1, 2, 4, 8])
}

/// A byte source with [`src`] code `K` (int8, uint8, or any byte float type for
/// [`src::MINI`]) -> float16/bfloat16/float32/float64; byte float targets use the tables
/// (`vpshufb`), faster than computing.
fn pick_byte_to_float<const K: u8>(to: DataType) -> Option<KernelFn> {
    use DataType as T;
    match to {
        T::Float16 => Some(byte_to_float::<K, 2, false> as KernelFn),
        T::BFloat16 => Some(byte_to_float::<K, 2, true>),
        T::Float32 => Some(byte_to_float::<K, 4, false>),
        T::Float64 => Some(byte_to_float::<K, 8, false>),
        _ => None,
    }
}

/// [`lut_shuffle`] with the table's [`sym`] rule `how` (by absolute value: `abs`), its
/// [`cold_form`] `cold` and room for `rows` rows per half
/// ([`ShuffleRows`](crate::kernels::x86_64_byte_rows::ShuffleRows)), in the `K` that
/// [`slots`] gives: 1 to 4, or 6, compacted (each slot costs a lookup, so 3 and 6 are their
/// own kernels, measured faster than the next size up on the tables they serve); more
/// than six rows take the uncompacted layout (`K` = 8), whose row offsets are constants: with
/// eight compacted rows their offsets spilled, and the kernel ran slower than without
/// compaction. With `sums`, the rows are what remains of the table less its [`NibbleSums`].
fn pick_shuffle(how: u8, abs: bool, cold: u8, rows: usize, sums: bool, plus: u8) -> KernelFn {
    if plus == plus_form::BIT7 {
        return match cold {
            cold_form::SAME => pick_shuffle_bit7::<{ cold_form::SAME }>(how, rows),
            _ => pick_shuffle_bit7::<{ cold_form::SIGNS }>(how, rows),
        };
    }
    let plus = plus == plus_form::BITMAP;
    match cold {
        cold_form::NONE => pick_shuffle_c::<{ cold_form::NONE }>(how, abs, rows, sums, plus),
        cold_form::SAME => pick_shuffle_c::<{ cold_form::SAME }>(how, abs, rows, sums, plus),
        cold_form::SIGNS => pick_shuffle_c::<{ cold_form::SIGNS }>(how, abs, rows, sums, plus),
        cold_form::FLAG => pick_shuffle_flag(how, rows, sums),
        _ => pick_shuffle_c::<{ cold_form::BITMAP }>(how, abs, rows, sums, plus),
    }
}

/// [`pick_shuffle`] for [`cold_form::FLAG`], which `ShuffleRows` offers for the rules that
/// keep bit 7 (none, XOR, XOR_NZ; not by int8's absolute value) and without a
/// [`lanes::Plus`].
fn pick_shuffle_flag(how: u8, rows: usize, sums: bool) -> KernelFn {
    match (slots(rows, sums), sums) {
        (0, _) => pick_shuffle_flag_k::<0, true>(how),
        (1, true) => pick_shuffle_flag_k::<1, true>(how),
        (2, true) => pick_shuffle_flag_k::<2, true>(how),
        (3, true) => pick_shuffle_flag_k::<3, true>(how),
        (_, true) => pick_shuffle_flag_k::<4, true>(how),
        (1, false) => pick_shuffle_flag_k::<1, false>(how),
        (2, false) => pick_shuffle_flag_k::<2, false>(how),
        (3, false) => pick_shuffle_flag_k::<3, false>(how),
        (4, false) => pick_shuffle_flag_k::<4, false>(how),
        (6, false) => pick_shuffle_flag_k::<6, false>(how),
        _ => pick_shuffle_flag_k::<8, false>(how),
    }
}

/// [`pick_shuffle_flag`] for `K` rows per half.
fn pick_shuffle_flag_k<const K: usize, const SUMS: bool>(how: u8) -> KernelFn {
    const F: u8 = cold_form::FLAG;
    match how {
        sym::XOR => lut_shuffle::<F, { sym::XOR }, false, K, SUMS, { plus_form::NONE }> as KernelFn,
        sym::XOR_NZ => lut_shuffle::<F, { sym::XOR_NZ }, false, K, SUMS, { plus_form::NONE }>,
        // (Never another rule: a kernel that does not fit the table sends it to the
        // reference, which is never wrong.)
        _ => lut_shuffle::<F, { sym::NONE }, false, K, SUMS, { plus_form::NONE }>,
    }
}

/// [`pick_shuffle`] for the cold form `C`.
fn pick_shuffle_c<const C: u8>(how: u8, abs: bool, rows: usize, sums: bool, plus: bool) -> KernelFn {
    // (A Plus comes without sums: `ShuffleRows` finds none for it.)
    match (slots(rows, sums), sums, plus) {
        (1, false, true) => pick_shuffle_plus::<C, 1>(how, abs),
        (2, false, true) => pick_shuffle_plus::<C, 2>(how, abs),
        (3, false, true) => pick_shuffle_plus::<C, 3>(how, abs),
        (4, false, true) => pick_shuffle_plus::<C, 4>(how, abs),
        (6, false, true) => pick_shuffle_plus::<C, 6>(how, abs),
        (_, false, true) => pick_shuffle_plus::<C, 8>(how, abs),
        (0, _, _) => pick_shuffle_k::<C, 0, true>(how, abs),
        (1, true, _) => pick_shuffle_k::<C, 1, true>(how, abs),
        (2, true, _) => pick_shuffle_k::<C, 2, true>(how, abs),
        (3, true, _) => pick_shuffle_k::<C, 3, true>(how, abs),
        (_, true, _) => pick_shuffle_k::<C, 4, true>(how, abs),
        (1, false, _) => pick_shuffle_k::<C, 1, false>(how, abs),
        (2, false, _) => pick_shuffle_k::<C, 2, false>(how, abs),
        (3, false, _) => pick_shuffle_k::<C, 3, false>(how, abs),
        (4, false, _) => pick_shuffle_k::<C, 4, false>(how, abs),
        (6, false, _) => pick_shuffle_k::<C, 6, false>(how, abs),
        _ => pick_shuffle_k::<C, 8, false>(how, abs),
    }
}

/// [`pick_shuffle`] for `K` rows per half, with [`NibbleSums`] or without.
fn pick_shuffle_k<const C: u8, const K: usize, const SUMS: bool>(how: u8, abs: bool) -> KernelFn {
    match (how, abs) {
        (sym::NONE, _) => lut_shuffle::<C, { sym::NONE }, false, K, SUMS, { plus_form::NONE }> as KernelFn,
        (sym::XOR, false) => lut_shuffle::<C, { sym::XOR }, false, K, SUMS, { plus_form::NONE }>,
        (sym::XOR_NZ, false) => lut_shuffle::<C, { sym::XOR_NZ }, false, K, SUMS, { plus_form::NONE }>,
        (sym::NEG, false) => lut_shuffle::<C, { sym::NEG }, false, K, SUMS, { plus_form::NONE }>,
        (sym::NEG_WRAP_U, false) => lut_shuffle::<C, { sym::NEG_WRAP_U }, false, K, SUMS, { plus_form::NONE }>,
        (sym::NEG_WRAP_S, false) => lut_shuffle::<C, { sym::NEG_WRAP_S }, false, K, SUMS, { plus_form::NONE }>,
        // (Never: `sign_rule` offers the wrapped negations to float8 sources only; the
        // whole-table kernel is right for any table.)
        (sym::NEG_WRAP_U | sym::NEG_WRAP_S, true) => {
            lut_shuffle::<C, { sym::NONE }, false, K, SUMS, { plus_form::NONE }>
        }
        (_, false) => lut_shuffle::<C, { sym::ZERO }, false, K, SUMS, { plus_form::NONE }>,
        (sym::XOR, true) => lut_shuffle::<C, { sym::XOR }, true, K, SUMS, { plus_form::NONE }>,
        (sym::XOR_NZ, true) => lut_shuffle::<C, { sym::XOR_NZ }, true, K, SUMS, { plus_form::NONE }>,
        (sym::NEG, true) => lut_shuffle::<C, { sym::NEG }, true, K, SUMS, { plus_form::NONE }>,
        (_, true) => lut_shuffle::<C, { sym::ZERO }, true, K, SUMS, { plus_form::NONE }>,
    }
}

/// [`pick_shuffle`] for a rule with a [`lanes::Plus`] carried in bit 7 of the entries
/// ([`plus_form::BIT7`]) and `K` rows: the rules and cold forms [`plus_form::bit7_kernel`]
/// names, for which alone `ShuffleRows` lays the rows out so.
fn pick_shuffle_bit7<const C: u8>(how: u8, rows: usize) -> KernelFn {
    match slots(rows, false) {
        1 => pick_shuffle_bit7_k::<C, 1>(how),
        2 => pick_shuffle_bit7_k::<C, 2>(how),
        3 => pick_shuffle_bit7_k::<C, 3>(how),
        4 => pick_shuffle_bit7_k::<C, 4>(how),
        6 => pick_shuffle_bit7_k::<C, 6>(how),
        _ => pick_shuffle_bit7_k::<C, 8>(how),
    }
}

/// [`pick_shuffle_bit7`] for `K` rows.
fn pick_shuffle_bit7_k<const C: u8, const K: usize>(how: u8) -> KernelFn {
    const B: u8 = plus_form::BIT7;
    match how {
        sym::XOR => lut_shuffle::<C, { sym::XOR }, false, K, false, B> as KernelFn,
        sym::NEG => lut_shuffle::<C, { sym::NEG }, false, K, false, B>,
        // (Never: a kernel that does not fit the table sends it to the reference.)
        _ => lut_shuffle::<C, { sym::NEG_WRAP_U }, false, K, false, B>,
    }
}

/// [`pick_shuffle`] for a rule with a [`lanes::Plus`] and `K` rows (no [`NibbleSums`]).
fn pick_shuffle_plus<const C: u8, const K: usize>(how: u8, abs: bool) -> KernelFn {
    match (how, abs) {
        (sym::XOR, false) => lut_shuffle::<C, { sym::XOR }, false, K, false, { plus_form::BITMAP }> as KernelFn,
        (sym::XOR_NZ, false) => lut_shuffle::<C, { sym::XOR_NZ }, false, K, false, { plus_form::BITMAP }>,
        (sym::NEG, false) => lut_shuffle::<C, { sym::NEG }, false, K, false, { plus_form::BITMAP }>,
        (sym::NEG_WRAP_U, false) => lut_shuffle::<C, { sym::NEG_WRAP_U }, false, K, false, { plus_form::BITMAP }>,
        (sym::NEG_WRAP_S, false) => lut_shuffle::<C, { sym::NEG_WRAP_S }, false, K, false, { plus_form::BITMAP }>,
        (sym::XOR, true) => lut_shuffle::<C, { sym::XOR }, true, K, false, { plus_form::BITMAP }>,
        (sym::XOR_NZ, true) => lut_shuffle::<C, { sym::XOR_NZ }, true, K, false, { plus_form::BITMAP }>,
        (sym::NEG, true) => lut_shuffle::<C, { sym::NEG }, true, K, false, { plus_form::BITMAP }>,
        // (Never: ZERO holds with a Plus only where it holds without one, and the wrapped
        // negations are offered to float8 sources only; a kernel that does not fit the
        // table sends it to the reference, which is never wrong.)
        _ => lut_shuffle::<C, { sym::XOR }, false, K, false, { plus_form::BITMAP }>,
    }
}

/// How [`affine16`] finds the small magnitudes' entries: 0 none, 1 one table (up to 8), 2
/// two tables (up to 16).
fn small_form(small: u8) -> u8 {
    match small {
        0 => 0,
        1..=8 => 1,
        _ => 2,
    }
}

/// [`affine16`] for a table's form, where it is one of those built.
fn pick_affine16(a: &Affine16) -> Option<KernelFn> {
    macro_rules! by_cold {
        ($sh:expr, $small:expr) => {
            match a.cold {
                affine_cold::NONE => affine16::<$sh, $small, { affine_cold::NONE }> as KernelFn,
                affine_cold::ABOVE => affine16::<$sh, $small, { affine_cold::ABOVE }>,
                _ => affine16::<$sh, $small, { affine_cold::EQUAL }>,
            }
        };
    }
    // float16 targets: shift 7 (the e4m3 types), 8 (e5m2), 6 (e3m4, 16 subnormals);
    // bfloat16: 4, 5, 7 (e8m0fnu), 3 (e3m4).
    Some(match (a.shift, small_form(a.small)) {
        (4, 0) => by_cold!(4, 0),
        (4, 1) => by_cold!(4, 1),
        (5, 0) => by_cold!(5, 0),
        (5, 1) => by_cold!(5, 1),
        (7, 0) => by_cold!(7, 0),
        (7, 1) => by_cold!(7, 1),
        (8, 0) => by_cold!(8, 0),
        (8, 1) => by_cold!(8, 1),
        (3, 2) => by_cold!(3, 2),
        (6, 2) => by_cold!(6, 2),
        _ => return None,
    })
}

/// How [`lut_planes`] finds the failing bytes: a value fixed when the plan is bound.
mod planes_fail {
    use crate::kernels::lanes::Lut;

    /// None fails.
    pub const NONE: u8 = 0;
    /// A plane of 0xff looked up like the values' (one to four `vpshufb` rows, and blends).
    pub const LOOKUP: u8 = 1;
    /// Bit 7 of the low byte plane, where every byte that casts leaves it clear
    /// ([`Lut::low_bit7_free`]): one `vpmovmskb` of a plane looked up anyway.
    pub const FLAG: u8 = 2;

    /// The form for `lut`: the cheapest that finds its failing bytes.
    pub fn of(lut: &Lut) -> u8 {
        match (lut.any_fail(), lut.low_bit7_free()) {
            (false, _) => NONE,
            (true, false) => LOOKUP,
            (true, true) => FLAG,
        }
    }

    /// Whether form `f` finds every failing byte of `lut` (and flags no other).
    pub fn fits(lut: &Lut, f: u8) -> bool {
        match f {
            NONE => !lut.any_fail(),
            LOOKUP => lut.any_fail(),
            _ => lut.low_bit7_free(),
        }
    }
}

/// [`lut_planes`] with `ROWS` rows for a target of `ds` bytes, failing bytes found by
/// [`planes_fail`] form `F`.
fn pick_planes<const ROWS: usize, const F: u8>(ds: usize) -> KernelFn {
    match ds {
        1 => lut_planes::<ROWS, 1, F> as KernelFn,
        2 => lut_planes::<ROWS, 2, F>,
        4 => lut_planes::<ROWS, 4, F>,
        _ => lut_planes::<ROWS, 8, F>,
    }
}

/// float64, or int64/uint64 rounded to odd in f64, -> float32 in rounding `M`.
fn pick_f64_to_f32<const S: u8, const M: u8>() -> Option<KernelFn> {
    Some(f64_to_f32::<S, M> as KernelFn)
}

/// A source whose values are f32 ([`load8`]) -> bfloat16 in rounding `M`.
fn pick_to_bf16<const S: u8, const M: u8>() -> Option<KernelFn> {
    Some(f32_to_bf16::<S, M> as KernelFn)
}

/// int32 (`U32` false) / uint32 -> float32 in rounding `M`.
fn pick_int32_to_f32<const U32: bool, const M: u8>() -> KernelFn {
    int32_to_f32::<U32, M>
}

/// int64/uint64 -> bfloat16 in rounding `M`.
fn pick_int64_to_bf16<const S: u8, const M: u8>() -> Option<KernelFn> {
    Some(int64_to_bf16::<S, M> as KernelFn)
}

/// A source whose values are f32 ([`load8`]) -> float16: F16C's rounding, one per element.
fn pick_to_f16<const S: u8>(m: u8) -> KernelFn {
    by_f16c_mode!(m, f32_to_f16, S)
}

/// A float source -> an integer target with a [`tgt`] code `t`, in rounding `M`.
fn pick_f2i_pack<const S: u8, const M: u8>(t: u8, r: u8) -> Option<KernelFn> {
    macro_rules! rules {
        ($t:expr) => {
            by_rule!(f2i_pack[S, M, { $t }], r)
        };
    }
    Some(match t {
        tgt::I8 => rules!(tgt::I8),
        tgt::U8 => rules!(tgt::U8),
        tgt::I16 => rules!(tgt::I16),
        tgt::U16 => rules!(tgt::U16),
        tgt::I32 => rules!(tgt::I32),
        tgt::U32 => rules!(tgt::U32),
        tgt::I64 => rules!(tgt::I64),
        tgt::U64 => rules!(tgt::U64),
        _ => rules!(tgt::SUB),
    })
}

/// A float source (`F`: float16, bfloat16, float32, float64) -> an integer target with a
/// [`tgt`] code `t`, in rounding `M`, with [`Substitute`] (`by_density`): the targets
/// [`f2i_pack`] takes from that source.
fn pick_f2i_sub<const F: u8, const M: u8>(t: u8, r: u8) -> Option<KernelFn> {
    Some(match t {
        tgt::I8 => by_rule!(f2i_pack_map[F, M, { tgt::I8 }], r),
        tgt::U8 => by_rule!(f2i_pack_map[F, M, { tgt::U8 }], r),
        tgt::I16 => by_rule!(f2i_pack_map[F, M, { tgt::I16 }], r),
        tgt::U16 => by_rule!(f2i_pack_map[F, M, { tgt::U16 }], r),
        tgt::I32 => by_rule!(f2i_pack_map[F, M, { tgt::I32 }], r),
        tgt::SUB => by_rule!(f2i_pack_map[F, M, { tgt::SUB }], r),
        tgt::U32 if F == src::F16 => by_rule!(f2i_pack_map[F, M, { tgt::U32 }], r),
        tgt::I64 if F == src::F16 => by_rule!(f2i_pack_map[F, M, { tgt::I64 }], r),
        tgt::U64 if F == src::F16 => by_rule!(f2i_pack_map[F, M, { tgt::U64 }], r),
        _ => return None,
    })
}

/// A kernel for plans whose scalar_map has a [`Substitute`]: the substituting one (`$sub`)
/// where the source holds NaN/Inf often enough ([`dense_specials`]), else the plain one,
/// whose resolution of each hit in the cold path costs less on sparser data than the
/// substitution's ops on every step (which slow the loop without hits).
macro_rules! by_density {
    ($name:ident $(<$(const $g:ident: $gt:ty),*>)?, $plain:ident, $sub:ident) => {
        fn $name$(<$(const $g: $gt),*>)?(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            if dense_specials(src, dir.from.format()) {
                $sub$(::<$($g),*>)?(dir, src, dst)
            } else {
                $plain$(::<$($g),*>)?(dir, src, dst)
            }
        }
    };
}
by_density!(f2i_pack_map<const S: u8, const M: u8, const T: u8, const R: u8>, f2i_pack, f2i_pack_sub);
by_density!(f32_to_f16_map<const S: u8, const MODE: i32, const AWAY: bool>, f32_to_f16, f32_to_f16_sub);
by_density!(f32_to_bf16_map<const S: u8, const M: u8>, f32_to_bf16, f32_to_bf16_sub);

/// float32/float16 (`S`) -> bfloat16 in rounding `M` with [`Substitute`] (`by_density`).
fn pick_to_bf16_map<const S: u8, const M: u8>() -> Option<KernelFn> {
    Some(f32_to_bf16_map::<S, M> as KernelFn)
}

/// float64 -> float32 in rounding `M` with [`Substitute`] (`by_density`).
fn pick_f64_to_f32_map<const M: u8>() -> Option<KernelFn> {
    Some(f64_to_f32_map::<{ src::F64 }, M> as KernelFn)
}

/// Whether NaN/Inf make up about 1/256 or more of the elements (2, 4 or 8 bytes, of format `f`)
/// of `src`, by a sample of every 509th element (a prime: data with a special every 100 or
/// 1,000 elements is sampled at its own rate): about where substituting every lane starts to
/// cost less than resolving each hit. Only a choice of speed: both kernels write the same
/// bytes. About 3% of float32 -> uint8's kernel time at 2^16 (`perf`; every 251st element
/// read through `read_bits` took about 9%).
fn dense_specials(src: &[u8], f: &Format) -> bool {
    const STRIDE: usize = 509;
    let exp = f.positive_infinity();
    let (mut seen, mut hits) = (0usize, 0usize);
    let mut at = |bits: u64| {
        seen += 1;
        hits += usize::from(bits & exp == exp);
    };
    match f.size {
        8 => src.chunks_exact(8 * STRIDE).for_each(|c| at(c.first_chunk().map_or(0, |b| u64::from_ne_bytes(*b)))),
        4 => {
            src.chunks_exact(4 * STRIDE).for_each(|c| at(c.first_chunk().map_or(0, |b| u32::from_ne_bytes(*b)).into()))
        }
        _ => {
            src.chunks_exact(2 * STRIDE).for_each(|c| at(c.first_chunk().map_or(0, |b| u16::from_ne_bytes(*b)).into()))
        }
    }
    hits > 0 && hits * 256 >= seen
}

/// float16/bfloat16/float32 -> uint32 in rounding `M`; with `map`, the form with
/// [`Substitute`] (`by_density`).
fn pick_f2u32<const S: u8, const M: u8>(r: u8, map: bool) -> Option<KernelFn> {
    Some(if map { by_rule!(f2u32_map[S, M], r) } else { by_rule!(f2u32[S, M], r) })
}

/// float64 -> uint32 in rounding `M`.
fn pick_f64_to_u32<const M: u8>(r: u8) -> Option<KernelFn> {
    Some(by_rule!(f64_to_u32[M], r))
}

/// float -> int64/uint64 in rounding `M`.
fn pick_f2i_wide<const S: u8, const M: u8>(r: u8) -> Option<KernelFn> {
    Some(by_rule!(f2i_wide[S, M], r))
}

/// float8_e8m0fnu -> int16/uint16 in rounding `M`, by rule `r` ([`e8m0_to_int16`]).
fn pick_e8m0_to_int16<const M: u8>(r: u8) -> Option<KernelFn> {
    Some(by_rule!(e8m0_to_int16[M], r))
}

/// float8_e8m0fnu -> int64/uint64 in rounding `M`, by rule `r` ([`e8m0_to_int64`]).
fn pick_e8m0_to_int64<const M: u8>(r: u8) -> Option<KernelFn> {
    Some(by_rule!(e8m0_to_int64[M], r))
}

/// [`f32_to_f8`] where it is dispatched, else `None`. float16 -> float8_e5m2 (e5m2 is the
/// top byte of a float16): one integer rounding of the source's own patterns, in every mode.
/// float32/bfloat16 -> float8_e5m2 in nearest-away, and float16 -> float8_e4m3 towards zero
/// and nearest-away, stay on the F16C kernel: measured faster there than `to_mini`. Range
/// rule `r`: clamp has its own copies ([`f32_to_f8_clamp`]).
fn pick_f32_to_f8(from: DataType, to: DataType, m: u8, r: u8) -> Option<KernelFn> {
    use DataType as T;
    let c = r == range::CLAMP;
    macro_rules! one {
        ($s:expr, $e5m2:expr, $m:expr) => {
            Some(if c {
                f32_to_f8_clamp::<{ $s }, $e5m2, { $m }> as KernelFn
            } else {
                f32_to_f8::<{ $s }, $e5m2, { $m }>
            })
        };
    }
    match (from, to) {
        (T::Float16, T::Float8E5M2) => by_mode!(m, pick_half_to_e5m2, c),
        (T::Float32, T::Float8E5M2) if m == mode::NA => one!(src::F32, true, mode::NA),
        (T::BFloat16, T::Float8E5M2) if m == mode::NA => one!(src::BF16, true, mode::NA),
        (T::Float16, T::Float8E4M3) if m == mode::TZ => one!(src::F16, false, mode::TZ),
        (T::Float16, T::Float8E4M3) if m == mode::NA => one!(src::F16, false, mode::NA),
        _ => None,
    }
}

/// float16 -> float8_e5m2 in rounding `M` ([`f32_to_f8`] on the source's own patterns;
/// `clamp`: [`f32_to_f8_clamp`]).
fn pick_half_to_e5m2<const M: u8>(clamp: bool) -> Option<KernelFn> {
    Some(if clamp { f32_to_f8_clamp::<{ src::F16 }, true, M> as KernelFn } else { f32_to_f8::<{ src::F16 }, true, M> })
}

/// A source whose values are f32 ([`load8`]) -> a byte float with subnormals and a sign in
/// rounding `M`; `nz` for the types without -0.
fn pick_to_mini<const S: u8, const M: u8>(nz: bool) -> Option<KernelFn> {
    Some(if nz { to_mini::<S, M, true> as KernelFn } else { to_mini::<S, M, false> })
}

/// float16/float32 -> a byte float with subnormals and a sign in rounding `M` with
/// [`Substitute`] (`by_density`); `nz` for the types without -0.
fn pick_to_mini_map<const S: u8, const M: u8>(nz: bool) -> Option<KernelFn> {
    Some(if nz { to_mini_map::<S, M, true> as KernelFn } else { to_mini_map::<S, M, false> })
}

/// [`pick_bf16_to_mini`] with [`Substitute`] (`by_density`).
fn pick_bf16_to_mini_map<const M: u8>(nz: bool) -> Option<KernelFn> {
    Some(if nz { bf16_to_mini_map::<M, true> as KernelFn } else { bf16_to_mini_map::<M, false> })
}

/// bfloat16 -> a byte float with subnormals and a sign, in 16-bit lanes ([`bf16_to_mini`]);
/// `nz` for the types without -0.
fn pick_bf16_to_mini<const M: u8>(nz: bool) -> Option<KernelFn> {
    Some(if nz { bf16_to_mini::<M, true> as KernelFn } else { bf16_to_mini::<M, false> })
}

/// int64/uint64 -> float8_e8m0fnu in rounding `M`, with clamp (`r`) or without a rule
/// (wrap is not a float rule).
fn pick_int64_to_e8m0<const S: u8, const M: u8>(r: u8) -> KernelFn {
    if r == range::CLAMP {
        int64_to_e8m0::<S, M, true>
    } else {
        int64_to_e8m0::<S, M, false>
    }
}

/// A source with [`src`] code `S` (in f32 lanes) -> float8_e8m0fnu in rounding `M`, with
/// clamp (`r`) or without a rule (wrap is not a float rule).
fn pick_to_e8m0<const S: u8, const M: u8>(r: u8) -> KernelFn {
    if r == range::CLAMP {
        to_e8m0::<S, M, true>
    } else {
        to_e8m0::<S, M, false>
    }
}

/// bfloat16 -> float8_e8m0fnu in rounding `M`, with clamp (`r`) or without a rule.
fn pick_bf16_to_e8m0<const M: u8>(r: u8) -> KernelFn {
    if r == range::CLAMP {
        bf16_to_e8m0::<M, true>
    } else {
        bf16_to_e8m0::<M, false>
    }
}

/// Integer -> float: exact conversions, or one rounding in the f32 / f64 domain.
fn pick_int_to_float(s: u8, to: DataType, m: u8) -> Option<KernelFn> {
    use DataType as T;
    let t = to.format();
    let wide = matches!(s, src::I32 | src::U32 | src::I64 | src::U64);
    let to_f64_rounds = matches!(s, src::I64 | src::U64) && to == T::Float64;
    if to_f64_rounds && m != mode::NE {
        // The other modes step nearest-even's result by its exact error.
        return Some(match (s, m) {
            (src::I64, mode::TZ) => int64_to_f64::<{ src::I64 }, { mode::TZ }> as KernelFn,
            (src::I64, mode::TP) => int64_to_f64::<{ src::I64 }, { mode::TP }>,
            (src::I64, mode::TN) => int64_to_f64::<{ src::I64 }, { mode::TN }>,
            (src::I64, _) => int64_to_f64::<{ src::I64 }, { mode::NA }>,
            (_, mode::TZ) => int64_to_f64::<{ src::U64 }, { mode::TZ }>,
            (_, mode::TP) => int64_to_f64::<{ src::U64 }, { mode::TP }>,
            (_, mode::TN) => int64_to_f64::<{ src::U64 }, { mode::TN }>,
            (_, _) => int64_to_f64::<{ src::U64 }, { mode::NA }>,
        });
    }
    if to == T::Float64 || (to == T::Float32 && !wide) {
        return Some(match (s, to.size()) {
            (src::I16, 4) => int_to_float_exact::<{ src::I16 }, 4> as KernelFn,
            (src::U16, 4) => int_to_float_exact::<{ src::U16 }, 4>,
            (src::I16, _) => int_to_float_exact::<{ src::I16 }, 8>,
            (src::U16, _) => int_to_float_exact::<{ src::U16 }, 8>,
            (src::I32, _) => int_to_float_exact::<{ src::I32 }, 8>,
            (src::U32, _) => int_to_float_exact::<{ src::U32 }, 8>,
            (src::I64, _) => int_to_float_exact::<{ src::I64 }, 8>,
            (_, _) => int_to_float_exact::<{ src::U64 }, 8>,
        });
    }
    if !(t.subnormals && t.has_sign) {
        return None;
    }
    match s {
        src::I32 if to == T::Float32 => Some(by_mode!(m, pick_int32_to_f32[false])),
        // Rounded to odd in f32, then rounded once more, correctly.
        // Exact below 2^24 (float16's range ends at 65504; beyond it goes cold).
        src::I32 if to == T::Float16 => Some(pick_to_f16::<{ src::CAP_I32 }>(m)),
        src::U32 if to == T::Float16 => Some(pick_to_f16::<{ src::CAP_U32 }>(m)),
        src::I64 if to == T::Float16 => Some(pick_to_f16::<{ src::CAP_I64 }>(m)),
        src::I64 if to == T::Float32 => by_mode!(m, pick_f64_to_f32[src::I64]),
        src::U64 if to == T::Float32 => by_mode!(m, pick_f64_to_f32[src::U64]),
        src::U64 if to == T::Float16 => Some(pick_to_f16::<{ src::CAP_U64 }>(m)),
        src::I32 if to == T::BFloat16 => by_mode!(m, pick_to_bf16[src::ODD_I32]),
        src::U32 if to == T::BFloat16 => by_mode!(m, pick_to_bf16[src::ODD_U32]),
        src::I64 if to == T::BFloat16 => by_mode!(m, pick_int64_to_bf16[src::I64]),
        src::U64 if to == T::BFloat16 => by_mode!(m, pick_int64_to_bf16[src::U64]),
        src::U32 if to == T::Float32 => Some(by_mode!(m, pick_int32_to_f32[true])),
        // Exact below 2^24 (every byte float's range ends below 2^16; beyond it goes cold).
        _ if is_mini_target(t) => {
            let nz = !t.has_negative_zero();
            match s {
                src::I32 => by_mode!(m, pick_to_mini[src::CAP_I32], nz),
                src::U32 => by_mode!(m, pick_to_mini[src::CAP_U32], nz),
                src::I64 => by_mode!(m, pick_to_mini[src::CAP_I64], nz),
                src::U64 => by_mode!(m, pick_to_mini[src::CAP_U64], nz),
                src::I16 => by_mode!(m, pick_to_mini[src::I16], nz),
                _ => by_mode!(m, pick_to_mini[src::U16], nz),
            }
        }
        _ if to.size() > 2 => None,
        // int16/uint16 are f32 values: F16C or the bfloat16 rounding, as for f32 itself.
        src::I16 if to == T::Float16 => Some(pick_to_f16::<{ src::I16 }>(m)),
        src::U16 if to == T::Float16 => Some(pick_to_f16::<{ src::U16 }>(m)),
        src::I16 if to == T::BFloat16 => by_mode!(m, pick_to_bf16[src::I16]),
        src::U16 if to == T::BFloat16 => by_mode!(m, pick_to_bf16[src::U16]),
        // The byte float targets went to `to_mini` above; no other has subnormals and a sign.
        _ => None,
    }
}

/// Which of eight float32 lanes (as bits) have their exponent all ones: NaN (which must
/// become the canonical NaN) or +-Inf (possibly a scalar_map key). Such lanes go cold.
#[inline(always)]
fn nan_or_inf_lanes(cpu: Avx2, x: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { lanes8(cpu, special_ps(cpu, _mm256_castsi256_ps(x))) }
}

/// One bit per 32-bit lane of a mask (bit i = lane i).
#[inline(always)]
fn lanes8(_cpu: Avx2, m: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32 }
}

/// One bit per 32-bit lane of two masks (lanes of `a`, then of `b`).
#[inline(always)]
fn lanes16(cpu: Avx2, a: __m256i, b: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let any = _mm256_or_si256(a, b);
        if _mm256_testz_si256(any, any) != 0 {
            0
        } else {
            lanes8(cpu, a) | lanes8(cpu, b) << 8
        }
    }
}

/// One bit per 16-bit lane of two masks (lanes of `a`, then of `b`), after one test for none.
#[inline(always)]
fn lanes_words(cpu: Avx2, a: __m256i, b: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let any = _mm256_or_si256(a, b);
        if _mm256_testz_si256(any, any) != 0 {
            return 0;
        }
        word_signs(cpu, a, b)
    }
}

/// The sign bit of each 16-bit lane of `a` (bits 0-15) and `b` (bits 16-31): the signed pack
/// keeps each word's sign in its byte. (Not `pext` of the byte mask: microcoded on AMD cores
/// before Zen 3, its latency growing with the mask's set bits, so every flagged step
/// stalled; see docs/benchmarks.md.)
#[inline(always)]
fn word_signs(_cpu: Avx2, a: __m256i, b: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_movemask_epi8(_mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(a, b))) as u32 }
}

/// One bit per 32-bit lane of four masks (in order), after one test for none at all.
#[inline(always)]
fn lanes32(cpu: Avx2, m: [__m256i; 4]) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let any = _mm256_or_si256(_mm256_or_si256(m[0], m[1]), _mm256_or_si256(m[2], m[3]));
        if _mm256_testz_si256(any, any) != 0 {
            0
        } else {
            lanes8(cpu, m[0]) | lanes8(cpu, m[1]) << 8 | lanes8(cpu, m[2]) << 16 | lanes8(cpu, m[3]) << 24
        }
    }
}

/// Wrap a `#[target_feature]` body as a safe kernel.
macro_rules! entry {
    ($vis:vis $name:ident $(<$(const $g:ident: $gt:ty),*>)?, $body:ident) => {
        $vis fn $name $(<$(const $g: $gt),*>)? (dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: `select` hands these kernels out only after run-time detection reported
            // AVX2, FMA, F16C and BMI2 with OS support for the AVX state (see `dispatch`).
            unsafe { $body $(::<$($g),*>)? (dir, src, dst) }
        }
    };
    // A body with one more const generic, set here (`$extra`).
    ($vis:vis $name:ident, $body:ident [$extra:expr]) => {
        $vis fn $name(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: as above.
            unsafe { $body::<{ $extra }>(dir, src, dst) }
        }
    };
    ($vis:vis $name:ident <$(const $g:ident: $gt:ty),*>, $body:ident [$extra:expr]) => {
        $vis fn $name <$(const $g: $gt),*> (dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: as above.
            unsafe { $body::<$($g),*, { $extra }>(dir, src, dst) }
        }
    };
}

/// Run `step` over chunks of `N` elements (`ss` / `ds` bytes each). `step` returns the lanes
/// it flagged (bit i = element i); those elements, and the tail, are redone by the scalar
/// reference, one by one, so that a rare special value costs one element, not a chunk.
#[inline(always)]
fn chunked<const N: usize>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    sizes: (usize, usize),
    step: impl FnMut(&[u8], &mut [u8]) -> u32,
) -> Result<(), ElementError> {
    chunked_n(N, dir, src, dst, sizes, step)
}

/// [`chunked`] with `halves` (1 or 2) calls of `step` (each `N` elements) per step of the
/// chunk loop (`halves * N` at most 64: [`blocks`] takes the flags as one u64): two for the
/// compute-bound kernels with short steps, whose loop bookkeeping (induction variables,
/// bounds and prefetch tests) would take the ALU ports they keep busy.
/// `step` has one call site whatever `halves` is: a kernel that chose between this and
/// [`chunked`] with a branch had two, and LLVM then kept its step out of line.
#[inline(always)]
fn chunked_halves<const N: usize>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    (ss, ds): (usize, usize),
    halves: usize,
    mut step: impl FnMut(&[u8], &mut [u8]) -> u32,
) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    blocks(
        halves * N,
        dir,
        src,
        dst,
        (ss, ds),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let mut flags = 0;
            for h in 0..halves {
                let (Some(s), Some(d)) = (s.get(h * N * ss..), d.get_mut(h * N * ds..)) else { return u64::MAX };
                flags |= u64::from(step(s, d)) << (h * N);
            }
            flags
        },
    )
}

/// [`chunked`] with the step length `n` (at most 32) a plan-time value; see [`blocks`].
#[inline(always)]
fn chunked_n(
    n: usize,
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    sizes: (usize, usize),
    mut step: impl FnMut(&[u8], &mut [u8]) -> u32,
) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    blocks(
        n,
        dir,
        src,
        dst,
        sizes,
        specials.as_ref(),
        #[inline(always)]
        |s, d| u64::from(step(s, d)),
    )
}

/// The chunk loop of the x86 kernels: `step` converts `n` elements (at most 64; `ss` / `ds`
/// bytes each) and returns the lanes it flagged (bit i = element i); those elements (NaN/Inf
/// scalar_map keys through `specials`) and the tail are redone by the scalar reference, in
/// order, so the first error is the first failing element. The work goes in blocks of
/// chunks (4 KiB of output each), then the rest; calls that read and write [`STREAM_MIN`]
/// bytes or more write each whole block into scratch memory (in L1) first and copy it out
/// with non-temporal stores ([`stream_out`]), after a head of up to a cache line's worth of
/// elements (by the reference) that puts the blocks on cache lines, and prefetch their
/// source [`PREFETCH`] bytes ahead. `step` has one call site, so that it stays
/// inlined. Only for kernels that run where AVX2 was detected.
#[inline(always)]
pub(super) fn blocks(
    n: usize,
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    (ss, ds): (usize, usize),
    specials: Option<&lanes::SpecialMap>,
    mut step: impl FnMut(&[u8], &mut [u8]) -> u64,
) -> Result<(), ElementError> {
    // (Never: every kernel's step has bytes on both sides.)
    if ss == 0 || ds == 0 || n == 0 {
        return lanes::cold(dir, src, dst, 0);
    }
    let mut done = 0;
    let stream = src.len() + dst.len() >= STREAM_MIN;
    let (src, dst) = if stream {
        // The first few elements by the reference, so that every streamed block starts on a
        // cache line: a block edge inside a line leaves that line partly written by
        // non-temporal stores, which the memory then has to merge (measured slower). Not
        // where the output is not aligned to its elements.
        let head = match dst.as_ptr().align_offset(64) {
            a if a % ds == 0 => (a / ds).min(src.len() / ss).min(dst.len() / ds),
            _ => 0,
        };
        let ((s0, src), (d0, dst)) = (src.split_at(head * ss), dst.split_at_mut(head * ds));
        lanes::cold(dir, s0, d0, 0)?;
        done = head;
        (src, dst)
    } else {
        (src, dst)
    };
    // (Zeroed only when used: 4 KiB of stores would weigh on short calls.)
    let mut scratch = if stream { Some(Scratch([0; 4096])) } else { None };
    let chunks = (4096 / (ds * n)).max(1);
    let (sb, db) = (ss * n * chunks, ds * n * chunks);
    let full = (src.len() / sb).min(dst.len() / db);
    let (src_full, src_rest) = src.split_at(full * sb);
    let (dst_full, dst_rest) = dst.split_at_mut(full * db);
    let blocks = src_full.chunks_exact(sb).zip(dst_full.chunks_exact_mut(db)).map(
        #[inline(always)]
        |(s, d)| (s, d, stream),
    );
    let mut result = Ok(());
    let mut flags = [0; GROUP];
    for (s, d, streamed) in blocks.chain(core::iter::once((src_rest, dst_rest, false))) {
        let (out, target) = match scratch.as_mut().and_then(
            #[inline(always)]
            |b| b.0.get_mut(..d.len()),
        ) {
            Some(buf) if streamed => (buf, Some(d)),
            _ => (d, None),
        };
        let (r, steps) = grouped(n, dir, s, out, (ss, ds), specials, &mut step, done, streamed, &mut flags);
        result = r;
        let written = steps * n * ds;
        done += steps * n;
        if let Some(t) = target {
            match result {
                Ok(()) => stream_out(out, t),
                // Every element before the failing one, as the reference leaves them.
                Err(_) => copy_written(t, out, written),
            }
        }
        if result.is_err() {
            break;
        }
    }
    if stream {
        // SAFETY: SSE2 is part of x86_64. Orders the non-temporal stores before any later
        // store, as the cached ones are.
        unsafe { _mm_sfence() };
    }
    result
}

/// The first `written` bytes of `from` into `to` (the elements before a failing one, from a
/// streamed block's scratch); once per failing call.
#[cold]
#[inline(never)]
fn copy_written(to: &mut [u8], from: &[u8], written: usize) {
    if let (Some(t), Some(o)) = (to.get_mut(..written), from.get(..written)) {
        t.copy_from_slice(o);
    }
}

/// Steps per group in [`grouped`].
pub(super) const GROUP: usize = 64;

/// Convert `s` into `d` (`ss` / `ds` bytes per element) with `step` over `n` elements at a
/// time, the tail by the reference; elements before `s` number `done`. Each group of up to
/// [`GROUP`] steps keeps its flagged steps' lanes in `flags`, and they are resolved after the
/// group, out of line ([`resolve_group`]: mapped NaN/Inf lanes written, the rest through
/// the reference, in order): the step loop holds no call and no resolution code (inlined
/// resolution made the error rule's loops spill, and a call per flagged step is far dearer
/// than a map hit). Returns the
/// result and the steps written (through the failing step's group on an error, after which
/// only the elements before the failing one are as the reference leaves them).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn grouped(
    n: usize,
    dir: &Direction,
    s: &[u8],
    d: &mut [u8],
    (ss, ds): (usize, usize),
    specials: Option<&lanes::SpecialMap>,
    step: &mut impl FnMut(&[u8], &mut [u8]) -> u64,
    mut done: usize,
    prefetch: bool,
    flags: &mut [u64; GROUP],
) -> (Result<(), ElementError>, usize) {
    let (cs, cd) = (ss * n, ds * n);
    // (Never: every kernel's step has bytes on both sides. The test lets the divisions
    // below go without a check for zero.)
    if cs == 0 || cd == 0 {
        return (lanes::cold(dir, s, d, done), 0);
    }
    let done0 = done;
    let steps = (s.len() / cs).min(d.len() / cd);
    let (Some((mut s, s_rest)), Some((mut d, d_rest))) =
        (s.split_at_checked(steps * cs), d.split_at_mut_checked(steps * cd))
    else {
        return (lanes::cold(dir, s, d, done), 0);
    };
    // Slices are split, never indexed: nothing in these loops can panic.
    while !s.is_empty() {
        let k = (s.len() / cs).min(GROUP);
        let (Some((gs, s_next)), Some((gd, d_next))) = (s.split_at_checked(k * cs), d.split_at_mut_checked(k * cd))
        else {
            break;
        };
        (s, d) = (s_next, d_next);
        let mut any = 0u64;
        let (mut rs, mut rd) = (gs, &mut *gd);
        for i in 0..k {
            let (Some((s, s_next)), Some((d, d_next))) = (rs.split_at_checked(cs), rd.split_at_mut_checked(cd)) else {
                break;
            };
            (rs, rd) = (s_next, d_next);
            if prefetch {
                // The source a page ahead: the hardware prefetchers stop at page edges.
                let ahead = s.as_ptr().wrapping_add(PREFETCH);
                for line in (0..cs).step_by(64) {
                    // SAFETY: a prefetch never faults, whatever the address; SSE is part
                    // of x86_64.
                    unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(line).cast()) };
                }
            }
            let flagged = step(s, d);
            if flagged != 0 {
                // (A store only here: an unconditional one took a store port that the
                // fastest kernels' own stores need.)
                if let Some(f) = flags.get_mut(i) {
                    *f = flagged;
                }
                any |= 1 << (i % GROUP);
            }
        }
        if any != 0 {
            if let Err(e) = resolve_group(dir, specials, gs, gd, (ss, ds), &Group { n, hits: any, flags, done }) {
                return (Err(e), (done - done0) / n + k);
            }
        }
        done += k * n;
    }
    (lanes::cold(dir, s_rest, d_rest, done), steps)
}

/// A group of steps for [`resolve_group`]: step `i` (of `n` elements) flagged the lanes
/// `flags[i]` where bit `i` of `hits` is set; `done` elements come before the group.
struct Group<'a> {
    n: usize,
    hits: u64,
    flags: &'a [u64; GROUP],
    done: usize,
}

/// Resolve a group's flagged lanes, in order; out of line, one instance per pair of element
/// sizes (`sizes` is a constant wherever this is inlined, so the match folds to one call), so
/// the map's lanes are written with constant sizes. (Other sizes do not occur; they would
/// redo the whole group by the reference.)
#[inline(always)]
fn resolve_group(
    dir: &Direction,
    specials: Option<&lanes::SpecialMap>,
    s: &[u8],
    d: &mut [u8],
    sizes: (usize, usize),
    g: &Group,
) -> Result<(), ElementError> {
    macro_rules! by_sizes {
        ($(($a:literal, $b:literal)),*) => {
            match sizes {
                $(($a, $b) => resolve_group_at::<$a, $b>(dir, specials, s, d, g),)*
                _ => lanes::cold(dir, s, d, g.done),
            }
        };
    }
    by_sizes!(
        (1, 1),
        (1, 2),
        (1, 4),
        (1, 8),
        (2, 1),
        (2, 2),
        (2, 4),
        (2, 8),
        (4, 1),
        (4, 2),
        (4, 4),
        (4, 8),
        (8, 1),
        (8, 2),
        (8, 4),
        (8, 8)
    )
}

/// [`resolve_group`] for sizes `SS` -> `DS`.
#[inline(never)]
fn resolve_group_at<const SS: usize, const DS: usize>(
    dir: &Direction,
    specials: Option<&lanes::SpecialMap>,
    s: &[u8],
    d: &mut [u8],
    g: &Group,
) -> Result<(), ElementError> {
    let mut hits = g.hits;
    let (cs, cd) = (SS * g.n, DS * g.n);
    while hits != 0 {
        let i = hits.trailing_zeros() as usize;
        hits &= hits - 1;
        // (Cannot fail: `i` is below the group's step count, at most GROUP.)
        let (Some(s), Some(d), Some(&f)) =
            (s.get(i * cs..(i + 1) * cs), d.get_mut(i * cd..(i + 1) * cd), g.flags.get(i))
        else {
            break;
        };
        // The step's mapped NaN/Inf lanes, then the reference for the rest.
        let rest = match specials {
            Some(m) => m.fix(s, d, (SS, DS), f),
            None => f,
        };
        if rest != 0 {
            cold64(dir, s, d, (SS, DS), rest, g.done + i * g.n)?;
        }
    }
    Ok(())
}

/// The scalar reference for up to 64 flagged lanes of one step (it takes 32 per call), in
/// order.
#[inline(always)]
fn cold64(
    dir: &Direction,
    s: &[u8],
    d: &mut [u8],
    (ss, ds): (usize, usize),
    flagged: u64,
    done: usize,
) -> Result<(), ElementError> {
    for h in 0..2 {
        let half = (flagged >> (32 * h)) as u32;
        if let (true, Some(s), Some(d)) = (half != 0, s.get(32 * h * ss..), d.get_mut(32 * h * ds..)) {
            lanes::cold_lanes(dir, s, d, (ss, ds), half, done + 32 * h)?;
        }
    }
    Ok(())
}

/// Calls that read and write this many bytes or more (beyond the L3 of the cores this was
/// tuned on) write their output with non-temporal stores: a cached store first reads the
/// line it writes, from memory at these sizes, a quarter to a third of such a kernel's
/// memory traffic. Below an L3's size streaming measured slower or no faster.
pub(super) const STREAM_MIN: usize = 32 << 20;

/// How far ahead of the element loop streamed calls prefetch their source, in bytes (one
/// page: the best of 2 to 16 KiB on the memory-bound pairs at 2^24).
const PREFETCH: usize = 4096;

/// Scratch for [`chunked_n`]'s streamed blocks: one block's output, in L1.
#[repr(C, align(32))]
struct Scratch([u8; 4096]);

/// Copy `from` to `to` (of the same length) with 16-byte non-temporal stores where `to` is
/// 16-byte aligned, plain copies for the unaligned head and the tail. Out of line, one call
/// per 4 KiB block, so that the copies' calls stay out of the kernels' loops; SSE2 (part of
/// x86_64), not AVX2: rustc keeps no `#[inline(never)]` on a `#[target_feature]` function,
/// and the stores run at the memory's speed either way.
#[inline(never)]
fn stream_out(from: &[u8], to: &mut [u8]) {
    let head = to.as_ptr().align_offset(16).min(to.len());
    let (to_head, to_body) = to.split_at_mut(head);
    let (from_head, from_body) = from.split_at(head.min(from.len()));
    to_head.copy_from_slice(from_head);
    let mut t = to_body.chunks_exact_mut(16);
    let mut f = from_body.chunks_exact(16);
    for (t, f) in (&mut t).zip(&mut f) {
        // SAFETY: `t` is 16 bytes at a 16-byte aligned address (the head moved it there),
        // `f` 16 bytes (an unaligned load); SSE2 is part of x86_64.
        unsafe { _mm_stream_si128(t.as_mut_ptr().cast(), _mm_loadu_si128(f.as_ptr().cast())) };
    }
    let (t, f) = (t.into_remainder(), f.remainder());
    if t.len() == f.len() {
        t.copy_from_slice(f);
    }
}

// float64 -> float32: the conversion rounds nearest-even. Nearest-away is that conversion of
// x with its last mantissa bit set: a bit f32 always drops, which turns an exact tie into a
// value just past it (rounded away) and moves no other value across a tie or a grid point.
// Towards zero steps the conversion's result one pattern back where its magnitude went up:
// converted back (exact) and compared with x as i64 patterns (same sign; subnormal results
// and zeros alike). Towards +-Inf rounds in f64 by `vroundpd` at the f32 grid's scale first
// ([`scaled_round`]), after which the conversion is exact (as fast as stepping, measured).
// int64/uint64 come rounded to odd at 53 bits, enough for any of these roundings.
// Magnitudes from just under f32::MAX (and NaN/Inf) go cold, which keeps every rounding
// inside the finite range. With clamp only NaN/+-Inf go cold: every other mode's result is
// then the rule's own value (+-Inf where the rounded value is past f32::MAX, since the last
// conversion rounds such a value to +-Inf and towards +-Inf rounds before it), but towards
// zero's step back, which must not apply from 2^128 on. 32 elements per step.
entry!(f64_to_f32<const S: u8, const M: u8>, f64_to_f32_body[false]);
// The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]): float64.
entry!(f64_to_f32_sub<const S: u8, const M: u8>, f64_to_f32_body[true]);
by_density!(f64_to_f32_map<const S: u8, const M: u8>, f64_to_f32, f64_to_f32_sub);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f64_to_f32_body<const S: u8, const M: u8, const SUB: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let sub = Substitute::of(dir, SUB);
    // The high dword of |x|, compared with that of f32::MAX less one: above it goes cold;
    // with clamp, that of f64::MAX (NaN/+-Inf above it).
    let top = _mm256_set1_epi64x(0x7fff_ffff_0000_0000);
    let clamp = S == src::F64 && dir.out_of_range == Some(OutOfRange::Clamp);
    let limit = _mm256_set1_epi32(if clamp { 0x7fef_ffff } else { 0x47ef_fffe });
    // Towards zero with clamp: lanes from 2^128 on ([`far_f64`]'s bound, compared on the
    // whole 64-bit lane) keep the conversion's +-Inf.
    let far = _mm256_set1_epi64x(((F64_HI_BELOW_2P128 as i64) << 32) | 0xffff_ffff);
    let tz_clamp = M == mode::TZ && clamp;
    let run = hot(
        #[inline(always)]
        |s: &[u8], d: &mut [u8], keep_far: bool| {
            let (Some(s), Some(d)) = (s.get(..N * 8), d.get_mut(..N * 4)) else { return u32::MAX };
            let mut high = [_mm256_setzero_si256(); 8];
            unrolled(
                4,
                #[inline(always)]
                |k| {
                    // SAFETY: `s` holds 256 bytes and `d` 128 (checked above); unaligned loads and
                    // stores of the k-th 64 and 32 bytes.
                    unsafe {
                        let (a, b) = if S == src::F64 {
                            (
                                _mm256_loadu_pd(s.as_ptr().add(64 * k).cast()),
                                _mm256_loadu_pd(s.as_ptr().add(64 * k + 32).cast()),
                            )
                        } else {
                            load8_pd_int::<S, true>(cpu, s.get(64 * k..).unwrap_or(&[]))
                        };
                        let (a, b) = if SUB { (sub.apply_pd(a), sub.apply_pd(b)) } else { (a, b) };
                        let h = [
                            _mm256_and_si256(_mm256_castpd_si256(a), top),
                            _mm256_and_si256(_mm256_castpd_si256(b), top),
                        ];
                        if let Some(o) = high.get_mut(2 * k) {
                            *o = h[0];
                        }
                        if let Some(o) = high.get_mut(2 * k + 1) {
                            *o = h[1];
                        }
                        let y = match M {
                            mode::NE => _mm256_set_m128(_mm256_cvtpd_ps(b), _mm256_cvtpd_ps(a)),
                            mode::TZ if keep_far => towards_zero_ps(
                                cpu,
                                a,
                                b,
                                (_mm256_cmpgt_epi64(h[0], far), _mm256_cmpgt_epi64(h[1], far)),
                            ),
                            mode::TZ => towards_zero_ps(cpu, a, b, (_mm256_setzero_si256(), _mm256_setzero_si256())),
                            mode::NA => {
                                // The last mantissa bit set (not on zeros and f64 subnormals, which
                                // convert to zero either way: no subnormal operand).
                                let away = hot(
                                    #[inline(always)]
                                    |x: __m256d, h: __m256i| {
                                        let normal =
                                            _mm256_min_epu32(_mm256_srli_epi64::<52>(h), _mm256_set1_epi64x(1));
                                        _mm256_cvtpd_ps(_mm256_castsi256_pd(_mm256_or_si256(
                                            _mm256_castpd_si256(x),
                                            normal,
                                        )))
                                    },
                                );
                                _mm256_set_m128(away(b, h[1]), away(a, h[0]))
                            }
                            _ => _mm256_set_m128(scaled_round::<M>(cpu, b), scaled_round::<M>(cpu, a)),
                        };
                        _mm256_storeu_ps(d.as_mut_ptr().add(32 * k).cast(), y);
                    }
                },
            );
            let [h0, h1, h2, h3, h4, h5, h6, h7] = high;
            let most = _mm256_max_epi32(
                _mm256_max_epi32(_mm256_max_epi32(h0, h1), _mm256_max_epi32(h2, h3)),
                _mm256_max_epi32(_mm256_max_epi32(h4, h5), _mm256_max_epi32(h6, h7)),
            );
            let over = _mm256_cmpgt_epi32(most, limit);
            if _mm256_testz_si256(over, over) != 0 {
                return 0;
            }
            let mut flags = 0;
            for (k, &h) in high.iter().enumerate() {
                let lanes = _mm256_cmpgt_epi32(h, limit);
                flags |= (_mm256_movemask_pd(_mm256_castsi256_pd(lanes)) as u32) << (4 * k);
            }
            flags
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (8, 4),
        // (A literal `keep_far` at each call, so that neither copy tests it per lane.)
        #[inline(always)]
        |s, d| if tz_clamp { run(s, d, true) } else { run(s, d, false) },
    )
}

/// Eight float64 lanes rounded to float32 towards zero: the nearest-even conversion, one
/// pattern less where its magnitude went up (see [`f64_to_f32`]), but not in the lanes set
/// in `keep` (64-bit masks of `a` and `b`). [`narrow_pd`]'s pattern difference tells the
/// same, but its subtraction and the sign's shift cost more than this compare.
#[inline(always)]
fn towards_zero_ps(cpu: Avx2, a: __m256d, b: __m256d, keep: (__m256i, __m256i)) -> __m256 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (ya, yb) = (_mm256_cvtpd_ps(a), _mm256_cvtpd_ps(b));
        let up = hot(
            #[inline(always)]
            |y: __m128, x: __m256d, keep: __m256i| {
                _mm256_andnot_si256(
                    keep,
                    _mm256_cmpgt_epi64(_mm256_castpd_si256(_mm256_cvtps_pd(y)), _mm256_castpd_si256(x)),
                )
            },
        );
        let w = dwords::<false>(cpu, up(ya, a, keep.0), up(yb, b, keep.1));
        _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(_mm256_set_m128(yb, ya)), w))
    }
}

/// Four float64 lanes rounded to float32 towards +Inf or -Inf (`M`): scaled by a power of two
/// so that the f32 grid at the lane's magnitude is the integers (2^(23 - E) for exponent E, at
/// most 2^149: f32's subnormal grid), rounded to an integer by `vroundpd` in the mode, and
/// scaled back; every step is exact but the one rounding, so the conversion to f32 is exact
/// too. Magnitudes from f32::MAX's neighbourhood on (NaN/Inf among them) give meaningless
/// lanes, which the caller sends cold.
#[inline(always)]
fn scaled_round<const M: u8>(cpu: Avx2, x: __m256d) -> __m128 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let bits = _mm256_castpd_si256(x);
        // The exponent field in place, at least f32's least normal one (897 in f64's bias).
        let e = _mm256_max_epi32(
            _mm256_and_si256(bits, _mm256_set1_epi64x(0x7ff0_0000_0000_0000)),
            _mm256_set1_epi64x(897 << 52),
        );
        // 2^(1046 - field) and its inverse 2^(field - 1046): fields 897..=1150 keep both normal.
        let scale = _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_set1_epi64x(2069 << 52), e));
        let inv = _mm256_castsi256_pd(_mm256_sub_epi64(e, _mm256_set1_epi64x(23 << 52)));
        _mm256_cvtpd_ps(_mm256_mul_pd(round_pd::<M>(cpu, _mm256_mul_pd(x, scale)), inv))
    }
}

entry!(f32_to_f64, f32_to_f64_body[false]);
// The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]).
entry!(f32_to_f64_sub, f32_to_f64_body[true]);
by_density!(f32_to_f64_map, f32_to_f64, f32_to_f64_sub);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f32_to_f64_body<const SUB: bool>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 8;
    let sub = Substitute::of(dir, SUB);
    chunked::<N>(
        dir,
        src,
        dst,
        (4, 8),
        #[inline(always)]
        |s, d| {
            // SAFETY: `s` holds 32 bytes and `d` 64 (chunks_exact); unaligned loads and stores.
            unsafe {
                let x = _mm256_loadu_ps(s.as_ptr().cast());
                let x = if SUB { sub.apply(x) } else { x };
                let lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
                let hi = _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x));
                _mm256_storeu_pd(d.as_mut_ptr().cast(), lo);
                _mm256_storeu_pd(d.as_mut_ptr().add(32).cast(), hi);
                // Widening is exact; NaN needs the canonical pattern and +-Inf may be map keys:
                // exponent all ones goes cold (substituted lanes no longer have it).
                nan_or_inf_lanes(cpu, _mm256_castps_si256(x))
            }
        },
    )
}

// A module of its own, as are the other large kernel families (`to_bf16`, `f2i`, `wide`,
// `mini`): rustc puts a generic function's instances in its module's codegen unit, and with
// the whole file in one unit, LLVM compiled it on one core for most of the crate's build
// (4-5 minutes at opt-level 3 on a 2-core machine).
mod to_f16 {
    use super::*;

    // float32 -> float16 by F16C with the mode's immediate; nearest-away (which F16C lacks)
    // is nearest-even of x with its last mantissa bit set: a bit float16 always drops, which
    // turns an exact tie into a value just past it and moves no other value across a tie or
    // a grid point (not on zeros and f32 subnormals, which convert to zero either way: no
    // subnormal operand). |x| >= 65504 (the float16 maximum) and NaN/Inf go cold, found on
    // the results, 16 lanes per op: in every mode such an x gives a magnitude of 0x7bff
    // (65504) or more (Inf, NaN), and a smaller x at most 0x7bff, which flags a few lanes
    // the reference then redoes; twice the lanes per op of the same test on the f32 lanes.
    // With clamp every finite lane gets the rule's value in the lanes (see `quiet`). 32
    // elements per step.
    entry!(pub(super) f32_to_f16<const S: u8, const MODE: i32, const AWAY: bool>, f32_to_f16_body[false]);
    // The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]): float32.
    entry!(pub(super) f32_to_f16_sub<const S: u8, const MODE: i32, const AWAY: bool>, f32_to_f16_body[true]);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn f32_to_f16_body<const S: u8, const MODE: i32, const AWAY: bool, const SUB: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let clamp = dir.out_of_range == Some(OutOfRange::Clamp);
        // With clamp and no scalar_map to resolve (or one whose keys the substitute took),
        // every lane's result is the rule's own in the lanes and only NaN lanes go cold (for
        // its canonical pattern): the nearest modes' conversions give +-Inf past the range
        // already, and in the directed modes `premap` makes the finite lanes past the range
        // +-Inf first. +-Inf converts to itself (float8_e8m0fnu's +Inf lanes are its NaN
        // code, found by their bytes).
        let quiet = clamp && (SUB || dir.map.is_empty());
        // Flagged: a result magnitude of 0x7bff (65504) or more (`limit_any`), or with `quiet`
        // NaN only.
        let (mag, limit_any) = (_mm256_set1_epi16(0x7fff), _mm256_set1_epi16(0x7bfe));
        let limit = if quiet { _mm256_set1_epi16(0x7c00) } else { limit_any };
        let abs = _mm256_set1_epi32(i32::MAX);
        // The same on |x| for nearest-away: 65504 + half an ulp or more, or with `quiet`
        // NaN/+-Inf (its last-bit trick would make +-Inf a NaN).
        let limit32 = _mm256_set1_epi32(if quiet { 0x7f7f_ffff } else { 0x477f_e000 - 1 });
        let one = _mm256_set1_epi32(1);
        let ss = src::size(S);
        let mini = Mini::of(dir.from.format());
        let sub = Substitute::of(dir, SUB);
        // Clamp in the directed modes: a finite lane whose value, rounded with its exponent
        // unbounded, is past 65504 takes +-Inf. The conversion gives +-Inf itself where the
        // mode rounds away from zero for the lane's sign and |x| > 65504 (the IEEE overflow
        // rule), and the largest finite value where it rounds towards zero; the latter is
        // past the range exactly when |x| >= 65536 (the next grid point), so those lanes
        // become +-Inf before converting: x >= 65536 where the mode rounds positive values
        // down (towards zero or negative), x <= -65536 where it rounds negative values up
        // (towards zero or positive). Ordered compares leave NaN as it is.
        let premap = clamp && MODE != _MM_FROUND_TO_NEAREST_INT;
        let (top, inf) = (_mm256_set1_ps(65536.0), _mm256_set1_ps(f32::INFINITY));
        let lift = hot(
            #[inline(always)]
            |x: __m256| {
                let x = if MODE != _MM_FROUND_TO_POS_INF {
                    _mm256_blendv_ps(x, inf, _mm256_cmp_ps::<_CMP_GE_OQ>(x, top))
                } else {
                    x
                };
                if MODE != _MM_FROUND_TO_NEG_INF {
                    let neg = |v| _mm256_sub_ps(_mm256_setzero_ps(), v);
                    _mm256_blendv_ps(x, neg(inf), _mm256_cmp_ps::<_CMP_LE_OQ>(x, neg(top)))
                } else {
                    x
                }
            },
        );
        // Eight lanes converted, and with `AWAY` the lanes' flags: nearest-away needs |x|
        // for its last bit anyway, and there the test on it measured faster.
        let cvt = hot(
            #[inline(always)]
            |x: __m256| {
                if !AWAY {
                    return (_mm256_cvtps_ph::<MODE>(x), _mm256_setzero_si256());
                }
                let a = _mm256_and_si256(_mm256_castps_si256(x), abs);
                // The last mantissa bit set where the exponent field is not zero (at most 1).
                let x = _mm256_or_si256(_mm256_castps_si256(x), _mm256_min_epu32(_mm256_srli_epi32::<23>(a), one));
                (_mm256_cvtps_ph::<MODE>(_mm256_castsi256_ps(x)), _mm256_cmpgt_epi32(a, limit32))
            },
        );
        // Lifting costs more than the conversion in range: the steps after one with lanes
        // past the range lift theirs before converting, so data with many such lanes does it
        // once per step and data without never does; other steps with such lanes convert
        // twice.
        const LIFT_RUN: u32 = 16;
        let mut run_lift = 0u32;
        chunked::<N>(
            dir,
            src,
            dst,
            (ss, 2),
            #[inline(always)]
            |s, d| {
                let Some(d) = d.get_mut(..N * 2) else { return u32::MAX };
                let [x0, x1, x2, x3] = f32_lanes::<S, 4>(cpu, s, &mini);
                let [x0, x1, x2, x3] =
                    if SUB { [sub.apply(x0), sub.apply(x1), sub.apply(x2), sub.apply(x3)] } else { [x0, x1, x2, x3] };
                let lifting = premap && run_lift > 0;
                if lifting {
                    run_lift -= 1;
                }
                let mut convert = hot(
                    #[inline(always)]
                    |lifted: bool, limit: __m256i| {
                        let [y0, y1, y2, y3] =
                            if lifted { [lift(x0), lift(x1), lift(x2), lift(x3)] } else { [x0, x1, x2, x3] };
                        let ((h0, f0), (h1, f1), (h2, f2), (h3, f3)) = (cvt(y0), cvt(y1), cvt(y2), cvt(y3));
                        let (h01, h23) = (_mm256_set_m128i(h1, h0), _mm256_set_m128i(h3, h2));
                        // SAFETY: `d` holds 64 bytes (checked above); unaligned stores.
                        unsafe {
                            _mm256_storeu_si256(d.as_mut_ptr().cast(), h01);
                            _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), h23);
                        }
                        let over = hot(
                            #[inline(always)]
                            |h| _mm256_cmpgt_epi16(_mm256_and_si256(h, mag), limit),
                        );
                        if AWAY {
                            lanes32(cpu, [f0, f1, f2, f3])
                        } else {
                            lanes_words(cpu, over(h01), over(h23))
                        }
                    },
                );
                // (A literal `lifted` at each call: with a run-time one the steps without
                // clamp measured 5% slower.)
                let mut flags =
                    if lifting { convert(true, limit) } else { convert(false, if premap { limit_any } else { limit }) };
                if premap && !lifting && flags != 0 {
                    run_lift = LIFT_RUN;
                    flags = convert(true, limit);
                }
                // (With clamp and map keys to resolve: the NaN/+-Inf lanes of flagged steps.)
                if clamp && !quiet && flags != 0 {
                    return lanes32(
                        cpu,
                        [special_ps(cpu, x0), special_ps(cpu, x1), special_ps(cpu, x2), special_ps(cpu, x3)],
                    );
                }
                if S == src::E8M0 && quiet {
                    return flags | mini.specials.in_slice(s);
                }
                flags
            },
        )
    }
}
use to_f16::{f32_to_f16, f32_to_f16_sub};

// float16 / bfloat16 -> float32: exact widening (F16C, or a shift into the top half). NaN
// (canonical pattern) and +-Inf (possible map keys) go cold. 32 elements per step.
entry!(half_to_f32<const S: u8>, half_to_f32_body[false]);
// The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]).
entry!(half_to_f32_sub<const S: u8>, half_to_f32_body[true]);
by_density!(half_to_f32_map<const S: u8>, half_to_f32, half_to_f32_sub);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn half_to_f32_body<const S: u8, const SUB: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let ss = src::size(S);
    let mini = Mini::of(dir.from.format());
    let sub = Substitute::of(dir, SUB);
    chunked::<N>(
        dir,
        src,
        dst,
        (ss, 4),
        #[inline(always)]
        |s, d| {
            let Some(d) = d.get_mut(..N * 4) else { return u32::MAX };
            let lanes = f32_lanes::<S, 4>(cpu, s, &mini);
            let mut special = [_mm256_setzero_si256(); 4];
            unrolled(
                4,
                #[inline(always)]
                |k| {
                    let (Some(&x), Some(m)) = (lanes.get(k), special.get_mut(k)) else { return };
                    *m = special_ps(cpu, x);
                    // (Substituted lanes are no longer flagged: the mask is zero without a substitute.)
                    let x = if SUB { sub.apply_at(x, *m) } else { x };
                    // SAFETY: `d` holds 128 bytes (checked above); an unaligned store of the k-th 32.
                    unsafe { _mm256_storeu_ps(d.as_mut_ptr().add(32 * k).cast(), x) };
                    if SUB {
                        *m = _mm256_andnot_si256(sub.on, *m);
                    }
                },
            );
            lanes32(cpu, special)
        },
    )
}

// Its own codegen unit, as `to_f16`.
mod to_bf16 {
    use super::*;

    // float32 / float16 -> bfloat16: integer rounding of the f32 pattern at bit 16 (adding a
    // carry into the kept half is exactly rounding the magnitude up, subnormals included, and a
    // carry out of the largest finite value gives Inf). Nearest-even adds 0x7fff plus the kept
    // half's last bit, nearest-away 0x8000, the directed modes 0xffff on their side of zero.
    // Magnitudes that may round to Inf (and NaN/Inf) go cold. 32 elements per step.
    entry!(pub(super) f32_to_bf16<const S: u8, const M: u8>, f32_to_bf16_body[false]);
    // The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]): float32.
    entry!(pub(super) f32_to_bf16_sub<const S: u8, const M: u8>, f32_to_bf16_body[true]);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn f32_to_bf16_body<const S: u8, const M: u8, const SUB: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let ss = src::size(S);
        // From here on a magnitude can round past bfloat16's largest finite value 0x7f7f.
        // (Clamp in the nearest modes: the rounding's own result is the rule's, +-Inf where it
        // carries past the largest finite value, so only NaN/+-Inf lanes go cold. The
        // directed modes' increment of 0xffff would carry the largest magnitudes into the
        // sign bit.)
        let clamp = dir.out_of_range == Some(OutOfRange::Clamp) && matches!(M, mode::NE | mode::NA);
        let limit = _mm256_set1_epi32(match M {
            _ if clamp => 0x7f80_0000 - 1,
            mode::NE | mode::NA => 0x7f7f_8000 - 1,
            mode::TZ => 0x7f80_0000 - 1,
            _ => 0x7f7f_0000,
        });
        // float64 with clamp, in every mode: a finite lane from 2^128 on ([`far_f64`]) is
        // +-Inf in its f32 lanes ([`odd32`]) and so in its result, the rule's value; found on
        // flagged steps only. (Lanes just under 2^128, which `odd32` also makes +-Inf, stay
        // flagged: the directed modes keep the largest finite value there.)
        let far_clamp = S == src::ODD_F64 && dir.out_of_range == Some(OutOfRange::Clamp);
        let abs = _mm256_set1_epi32(i32::MAX);
        let low = _mm256_set1_epi32(0xffff);
        let sub = Substitute::of(dir, SUB);
        let conv = hot(
            #[inline(always)]
            |x: __m256i| {
                let inc = match M {
                    mode::NE => _mm256_add_epi32(
                        _mm256_and_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(1)),
                        _mm256_set1_epi32(0x7fff),
                    ),
                    mode::NA => _mm256_set1_epi32(0x8000),
                    mode::TZ => _mm256_setzero_si256(),
                    mode::TP => _mm256_andnot_si256(_mm256_srai_epi32::<31>(x), low),
                    _ => _mm256_and_si256(_mm256_srai_epi32::<31>(x), low),
                };
                let r = _mm256_srli_epi32::<16>(_mm256_add_epi32(x, inc));
                (r, _mm256_cmpgt_epi32(_mm256_and_si256(x, abs), limit))
            },
        );
        chunked::<N>(
            dir,
            src,
            dst,
            (ss, 2),
            #[inline(always)]
            |s, d| {
                let Some(d) = d.get_mut(..N * 2) else { return u32::MAX };
                let at = hot(
                    #[inline(always)]
                    |k: usize| {
                        let x = load8::<S>(cpu, s.get(8 * ss * k..).unwrap_or(&[]));
                        conv(_mm256_castps_si256(if SUB { sub.apply(x) } else { x }))
                    },
                );
                let ((r0, f0), (r1, f1), (r2, f2), (r3, f3)) = (at(0), at(1), at(2), at(3));
                // Lanes hold values below 2^16, so the unsigned-saturating pack is exact.
                let pack = hot(
                    #[inline(always)]
                    |a: __m256i, b: __m256i| _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b)),
                );
                // SAFETY: `d` holds 64 bytes (checked just above); unaligned stores.
                unsafe {
                    _mm256_storeu_si256(d.as_mut_ptr().cast(), pack(r0, r1));
                    _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), pack(r2, r3));
                }
                let flags = lanes32(cpu, [f0, f1, f2, f3]);
                if far_clamp && flags != 0 {
                    flags & !far_f64_lanes(cpu, s)
                } else {
                    flags
                }
            },
        )
    }
}
use to_bf16::{f32_to_bf16, f32_to_bf16_sub};

// float32 -> float8_e5m2 / float8_e4m3 through float16: e5m2 is a float16's top byte, and
// e4m3 is the top bits (shifted right by 7) of the float16 of x * 2^-8 (exact scaling), in
// the normal and subnormal ranges alike. F16C rounds towards zero; the lanes where that was
// inexact (the float16 widened back differs from x) get their last bit set: rounding to odd,
// which keeps 7-8 spare bits, so the one integer rounding of the float16 pattern to the
// float8 that follows (per mode, as in `f32_to_bf16`) is the correctly rounded result.
// Results above the largest finite code go cold (with clamp, the rule's code in the lanes),
// and so do NaN, Inf and the magnitudes F16C saturates (with clamp, where that matters).
// 32 elements per step. Dispatched only where it measured faster than `to_mini`: e5m2 in
// nearest-away, float16 -> e4m3 towards zero and nearest-away, and float16 -> e5m2 in every
// mode, which skips F16C (its own patterns are the float16s).
entry!(f32_to_f8<const S: u8, const E5M2: bool, const M: u8>, f32_to_f8_body[false]);
// The same with clamp: out-of-range lanes get the rule's code in the lanes.
entry!(f32_to_f8_clamp<const S: u8, const E5M2: bool, const M: u8>, f32_to_f8_body[true]);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f32_to_f8_body<const S: u8, const E5M2: bool, const M: u8, const CLAMP: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    const RZ: i32 = _MM_FROUND_TO_ZERO;
    let ss = src::size(S);
    let k = _mm_cvtsi32_si128(if E5M2 { 8 } else { 7 });
    let (scale, unscale) = if E5M2 { (1.0, 1.0) } else { (1.0 / 256.0, 256.0) };
    let (scale, unscale) = (_mm256_set1_ps(scale), _mm256_set1_ps(unscale));
    let ones = _mm256_set1_epi16(if E5M2 { 0xff } else { 0x7f });
    let half = _mm256_set1_epi16(if E5M2 { 0x80 } else { 0x40 });
    // The largest finite code, and the float16 magnitude at which F16C may have saturated.
    let t = dir.to.format();
    let max_code = _mm256_set1_epi16(t.max_bits() as i16);
    let saturated = _mm256_set1_epi16(0x7bfe);
    // Clamp (its own copies: in the others, a branch on the rule or a second pass on flagged
    // steps measured up to a third slower in range): the mode's rounding of an unsaturated
    // float16 is past the largest finite code exactly where the value is out of range, and
    // both formats' clamp code (+-Inf) is the one after it, so `min` gives every lane its
    // value. Only NaN/Inf go cold, and, for e5m2 in the directed modes, the float16s F16C
    // saturated (from 65504 on, where the largest finite code may still be the result);
    // e4m3 ends far below anything float16 saturates, and float16 sources are exact.
    let sure = !E5M2 || S == src::F16 || matches!(M, mode::NE | mode::NA);
    let cap = _mm256_set1_epi16(t.clamp_above_bits() as i16);
    let clamp_cold = _mm256_set1_epi16(if sure { 0x7bff } else { 0x7bfe });
    let mag_mask = _mm256_set1_epi16(0x7fff);
    let sign_mask = _mm256_set1_epi16(-0x8000);
    // Sixteen lanes as float16 patterns rounded to odd, in element order (float16 sources to
    // e5m2: the patterns themselves, exact).
    let odd16 = hot(
        #[inline(always)]
        |s: &[u8]| {
            if S == src::F16 && E5M2 {
                return match s.get(..32) {
                    // SAFETY: the slice holds the 32 bytes read; an unaligned load.
                    Some(b) => unsafe { _mm256_loadu_si256(b.as_ptr().cast()) },
                    None => _mm256_setzero_si256(),
                };
            }
            let half8 = hot(
                #[inline(always)]
                |x: __m256| {
                    let h = _mm256_cvtps_ph::<RZ>(_mm256_mul_ps(x, scale));
                    let back = _mm256_mul_ps(_mm256_cvtph_ps(h), unscale);
                    (h, _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(back, x)))
                },
            );
            let (h0, i0) = half8(load8::<S>(cpu, s));
            let (h1, i1) = half8(load8::<S>(cpu, s.get(8 * ss..).unwrap_or(&[])));
            let inexact = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(i0, i1));
            _mm256_or_si256(_mm256_set_m128i(h1, h0), _mm256_srli_epi16::<15>(inexact))
        },
    );
    // Sixteen float8 codes (in 16-bit lanes) and the lanes for the scalar reference.
    let conv = hot(
        #[inline(always)]
        |h: __m256i| {
            let mag = _mm256_and_si256(h, mag_mask);
            let neg = _mm256_srai_epi16::<15>(h);
            let inc = match M {
                mode::NE => _mm256_add_epi16(
                    _mm256_sub_epi16(half, _mm256_set1_epi16(1)),
                    _mm256_and_si256(_mm256_srl_epi16(mag, k), _mm256_set1_epi16(1)),
                ),
                mode::NA => half,
                mode::TZ => _mm256_setzero_si256(),
                mode::TP => _mm256_andnot_si256(neg, ones),
                _ => _mm256_and_si256(neg, ones),
            };
            let r = _mm256_srl_epi16(_mm256_add_epi16(mag, inc), k);
            let r = if CLAMP { _mm256_min_epi16(r, cap) } else { r };
            let code = _mm256_or_si256(r, _mm256_srli_epi16::<8>(_mm256_and_si256(h, sign_mask)));
            if CLAMP {
                return (code, _mm256_cmpgt_epi16(mag, clamp_cold));
            }
            let cold = _mm256_or_si256(_mm256_cmpgt_epi16(r, max_code), _mm256_cmpgt_epi16(mag, saturated));
            (code, cold)
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (ss, 1),
        #[inline(always)]
        |s, d| {
            let Some(d) = d.get_mut(..N) else { return u32::MAX };
            let (a, ca) = conv(odd16(s));
            let (b, cb) = conv(odd16(s.get(16 * ss..).unwrap_or(&[])));
            let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
            // SAFETY: `d` holds 32 bytes (checked just above); an unaligned store.
            unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes) };
            lanes_words(cpu, ca, cb)
        },
    )
}

/// A byte float type with subnormals (float4, float6, every float8 but e8m0fnu) in f32
/// lanes: its exponent field is at most 5 bits and its mantissa at most 4, so its bits moved
/// into a float16's places (magnitude at the top of the float16 mantissa, sign to bit 15)
/// are a float16 whose exponent field is the type's (a float16 subnormal for the type's
/// subnormals). F16C widens that exactly, and scaling by 2^(15 - bias) is then exact (every
/// result is a normal f32). NaN/Inf codes decode to finite values: callers find them by
/// their bytes, 32 at a time ([`SpecialBytes`]), not in 16-bit lanes (twice the lanes per
/// test, measured faster). The bits get there in three shifts and a
/// mask: the k-bit code shifted to the top of a 16-bit lane (the sign in bit 15, the stored
/// byte's unused bits dropped), shifted right arithmetically by 5 - e (the magnitude into
/// place, sign copies above it), and the copies below bit 15 cleared.
struct Mini {
    /// The proof the methods' intrinsics rest on (read by none: see [`Avx2`]).
    _cpu: Avx2,
    /// Shift counts: to the top (16 - k), then back (5 - e).
    up: __m128i,
    down: __m128i,
    /// Bit 15 and the bits below the sign copies.
    keep: __m256i,
    scale: __m256,
    /// The format's special codes, found on its bytes.
    specials: SpecialBytes,
    /// With `top`, the 8-bit formats (sign in bit 7, exponent and mantissa in the other 7),
    /// on cores that take f32 subnormal operands at full speed: [`Mini::decode32`]'s signed
    /// word multiply (a shift right by the mantissa width + 1), the mask that clears the
    /// sign's copies, and the rebias to f32.
    top: bool,
    top_mul: __m256i,
    top_mask: __m256i,
    top_scale: __m256,
}

/// An 8-bit float format's special codes (NaN/Inf) as the bytes `b` with `b & mask == code`,
/// fixed when the kernel starts, so the test is two ops whatever the format: IEEE types by
/// their exponent field all ones, the fnuz types by their one NaN byte 0x80, float8_e8m0fnu
/// by its NaN 0xff, and the formats without any (float4/float6 `fn`, every such type narrower than a byte) by a code
/// no masked byte equals.
#[derive(Clone, Copy)]
struct SpecialBytes {
    mask: __m256i,
    code: __m256i,
    /// The proof the methods' intrinsics rest on (read by none: see [`Avx2`]).
    _cpu: Avx2,
}

impl SpecialBytes {
    /// The test for `f` (any 8-bit float format, [`Mini`] type or not).
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn of(f: &Format) -> SpecialBytes {
        let exp = (((1u32 << f.exp_bits.min(7)) - 1) << f.man_bits.min(7)) as u8;
        let (mask, code) = match f.nan {
            _ if f.bits != 8 => (0, 1),
            NanEncoding::Ieee => (exp, exp),
            NanEncoding::NegativeZero => (0xff, 0x80),
            NanEncoding::AllOnes => (0xff, 0xff),
            _ => (0, 1),
        };
        SpecialBytes { mask: _mm256_set1_epi8(mask as i8), code: _mm256_set1_epi8(code as i8), _cpu: Avx2::new() }
    }

    /// The special codes among 32 bytes, one bit per byte.
    #[inline(always)]
    fn find(&self, b: __m256i) -> u32 {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(b, self.mask), self.code)) as u32 }
    }

    /// [`SpecialBytes::find`] on the first 32 bytes of `s`; short of them, every lane (the
    /// reference then does them all: a step always has its bytes).
    #[inline(always)]
    fn in_slice(&self, s: &[u8]) -> u32 {
        match s.get(..32) {
            // SAFETY: `b` holds the 32 bytes read; an unaligned load (`self._cpu` proves the
            // tier's features).
            Some(b) => self.find(unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }),
            None => u32::MAX,
        }
    }
}

impl Mini {
    /// The decoder of `f` (meaningless, and unused, unless [`is_mini`] holds for `f`).
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn of(f: &Format) -> Mini {
        let (e, m) = (f.exp_bits.min(5) as i32, f.man_bits.min(10) as i32);
        let up = (15 - e - m).clamp(0, 15);
        Mini {
            _cpu: Avx2::new(),
            up: _mm_cvtsi32_si128(up),
            down: _mm_cvtsi32_si128(5 - e),
            keep: _mm256_set1_epi16((0x8000u32 | ((1u32 << (10 + e).clamp(0, 15)) - 1)) as i16),
            scale: _mm256_castsi256_ps(_mm256_set1_epi32((142 - f.bias.clamp(0, 127)) << 23)),
            specials: SpecialBytes::of(f),
            top: f.bits == 8
                && f.has_sign
                && f.exp_bits + f.man_bits == 7
                && f.subnormals
                && dispatch::subnormal_operands_free(),
            top_mul: _mm256_set1_epi16(1 << (15 - f.man_bits.min(14))),
            top_mask: _mm256_set1_epi32((0x8000_0000u32 | ((1u32 << (30 - f.man_bits.min(29))) - 1)) as i32),
            top_scale: _mm256_castsi256_ps(_mm256_set1_epi32((254 - f.bias.clamp(0, 127)) << 23)),
        }
    }

    /// Thirty-two elements (the first 32 bytes of `s`) as f32, in order: [`Mini::decode`]
    /// twice, but for the 8-bit formats (`top`) without F16C: each byte goes to the top of a
    /// dword (elements k, k+8, k+16, k+24 in a dword after one `vpermd`, then a `vpshufb`
    /// per eight), an arithmetic shift right by the mantissa width + 1 (a signed word
    /// multiply: the low word is zero) puts its exponent's low bit at f32's, the mask keeps
    /// the sign and clears its copies, and a multiply rebiases: exact. The subnormal codes
    /// are f32 subnormal operands there, which is why `top` needs a core that takes them at
    /// full speed (`dispatch::subnormal_operands_free`): moving them out of the way first
    /// (5 byte ops per 32) lost all of the gain.
    #[inline(always)]
    fn decode32(&self, s: &[u8]) -> [__m256; 4] {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe {
            let b = match s.get(..32) {
                Some(b) if self.top => b,
                _ => {
                    let ([a, b], [c, e]) = (self.decode(s), self.decode(s.get(16..).unwrap_or(&[])));
                    return [a, b, c, e];
                }
            };
            // SAFETY: `b` holds 32 bytes (checked just above); an unaligned load.
            let v = _mm256_loadu_si256(b.as_ptr().cast());
            // Dwords 0, 2, 4, 6 to the low lane: each lane then holds elements k..k+4 (its own k)
            // of each eight.
            let v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
            let lane = hot(
                #[inline(always)]
                |j: i32| {
                    let d = hot(
                        #[inline(always)]
                        |i: i32| ((4 * j + i) << 24) | 0x0080_8080,
                    );
                    let top = _mm256_shuffle_epi8(v, _mm256_setr_epi32(d(0), d(1), d(2), d(3), d(0), d(1), d(2), d(3)));
                    let x = _mm256_and_si256(_mm256_mulhi_epi16(top, self.top_mul), self.top_mask);
                    _mm256_mul_ps(_mm256_castsi256_ps(x), self.top_scale)
                },
            );
            [lane(0), lane(1), lane(2), lane(3)]
        }
    }

    /// Sixteen elements (the first 16 bytes of `s`; a shorter `s` gives zeros) as f32, with
    /// no care for the special ones (see [`SpecialBytes`]).
    #[inline(always)]
    fn decode(&self, s: &[u8]) -> [__m256; 2] {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe {
            let x = match s.get(..16) {
                // SAFETY: `b` holds the 16 bytes read; an unaligned load.
                Some(b) => _mm_loadu_si128(b.as_ptr().cast()),
                None => _mm_setzero_si128(),
            };
            let top = _mm256_sll_epi16(_mm256_cvtepu8_epi16(x), self.up);
            let h = _mm256_and_si256(_mm256_sra_epi16(top, self.down), self.keep);
            [
                _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(h)), self.scale),
                _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256::<1>(h)), self.scale),
            ]
        }
    }
}

/// Whether a type is decoded by [`Mini`]: not float8_e5m2fnuz, whose top exponent field is
/// finite (a float16's is Inf/NaN), nor float8_e8m0fnu (no subnormals, 8 exponent bits).
fn is_mini(t: DataType) -> bool {
    let f = t.format();
    f.kind == Kind::Float && f.size == 1 && f.subnormals && (f.exp_bits < 5 || f.nan == NanEncoding::Ieee)
}

/// The high dword of the f64 just below 2^128 (f32::MAX rounded up to the next binade).
const F64_HI_BELOW_2P128: i32 = 0x47ef_ffff;

/// The f64 lanes past every float target's range after any rounding: finite, from 2^128 on.
/// `h` holds `|x|`'s high dword in the high half of each 64-bit lane (the low half zero);
/// the result is all ones in the high dword of those lanes (their sign for `movemask_pd`).
#[inline(always)]
fn far_f64(_cpu: Avx2, h: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        _mm256_andnot_si256(
            _mm256_cmpgt_epi32(h, _mm256_set1_epi32(0x7fef_ffff)),
            _mm256_cmpgt_epi32(h, _mm256_set1_epi32(F64_HI_BELOW_2P128)),
        )
    }
}

/// [`far_f64`] of the 32 float64 elements of `s`, one bit per element (0 past its end).
#[inline(always)]
fn far_f64_lanes(cpu: Avx2, s: &[u8]) -> u32 {
    let mut bits = 0;
    unrolled(
        4,
        #[inline(always)]
        |k| {
            let Some((a, b)) = load64(cpu, s.get(64 * k..).unwrap_or(&[])) else { return };
            // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
            unsafe {
                let top = _mm256_set1_epi64x(0x7fff_ffff_0000_0000);
                let lanes = hot(
                    #[inline(always)]
                    |x: __m256i| _mm256_movemask_pd(_mm256_castsi256_pd(far_f64(cpu, _mm256_and_si256(x, top)))) as u32,
                );
                bits |= (lanes(a) | lanes(b) << 4) << (8 * k);
            }
        },
    );
    bits
}

/// Eight f64 lanes as f32 rounded to odd: the nearest-even conversion ([`narrow_pd`]),
/// stepped one pattern down where its magnitude went up (adjacent floats have adjacent
/// patterns), then the last bit set where it was inexact. Zeros and NaN (still a NaN: its
/// quiet bit is set) pass, and
/// so does Inf, also where a finite value rounded to it: beyond f32's range the kernels
/// that read these lanes send it cold (the largest finite f32 would round differently
/// from the value towards zero).
#[inline(always)]
fn odd32(cpu: Avx2, (a, b): (__m256d, __m256d)) -> __m256 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (f, lo, hi) = narrow_pd(cpu, a, b);
        let up = _mm256_srai_epi32::<31>(hi);
        let inexact = _mm256_xor_si256(
            _mm256_cmpeq_epi32(_mm256_or_si256(lo, hi), _mm256_setzero_si256()),
            _mm256_set1_epi32(-1),
        );
        let inf = _mm256_cmpeq_epi32(_mm256_and_si256(f, _mm256_set1_epi32(i32::MAX)), _mm256_set1_epi32(0x7f80_0000));
        let f = _mm256_add_epi32(f, _mm256_andnot_si256(inf, up));
        _mm256_castsi256_ps(_mm256_or_si256(
            f,
            _mm256_andnot_si256(inf, _mm256_and_si256(inexact, _mm256_set1_epi32(1))),
        ))
    }
}

/// Eight f64 lanes (`a`, then `b`) narrowed by the nearest-even conversion, as f32 patterns
/// in element order, with the f64 pattern difference `x - widened(result)` as its (low,
/// high) dwords: the high dword is negative exactly where the result's magnitude went up
/// (the signs are equal, so they cancel), and both are zero exactly where it was exact.
#[inline(always)]
fn narrow_pd(cpu: Avx2, a: __m256d, b: __m256d) -> (__m256i, __m256i, __m256i) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (ya, yb) = (_mm256_cvtpd_ps(a), _mm256_cvtpd_ps(b));
        let back = hot(
            #[inline(always)]
            |x: __m256d, h: __m128| _mm256_sub_epi64(_mm256_castpd_si256(x), _mm256_castpd_si256(_mm256_cvtps_pd(h))),
        );
        let (da, db) = (back(a, ya), back(b, yb));
        (_mm256_castps_si256(_mm256_set_m128(yb, ya)), dwords::<false>(cpu, da, db), dwords::<true>(cpu, da, db))
    }
}

/// Eight int32 lanes as f32 rounded to odd, as [`odd32`] but in 32-bit lanes: the
/// nearest-even conversion converted back (exactly, an integer; 2^31 gives the indefinite,
/// i32::MIN, whose wrapping difference below is still the true one) differs from `x` by
/// `d`, the rounding's step, which has the sign of `x` where the magnitude went up.
#[inline(always)]
fn odd_i32(_cpu: Avx2, x: __m256i) -> __m256 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let f = _mm256_cvtepi32_ps(x);
        let d = _mm256_sub_epi32(_mm256_cvttps_epi32(f), x);
        let exact = _mm256_cmpeq_epi32(d, _mm256_setzero_si256());
        let down = _mm256_cmpgt_epi32(_mm256_setzero_si256(), _mm256_xor_si256(d, x));
        let up = _mm256_andnot_si256(_mm256_or_si256(exact, down), _mm256_set1_epi32(-1));
        let bits = _mm256_add_epi32(_mm256_castps_si256(f), up);
        _mm256_castsi256_ps(_mm256_or_si256(bits, _mm256_andnot_si256(exact, _mm256_set1_epi32(1))))
    }
}

/// Load eight source lanes as f32 (exact for every source code but the `ODD_*` ones).
#[inline(always)]
fn load8<const S: u8>(cpu: Avx2, s: &[u8]) -> __m256 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        match s.get(..8 * src::size(S)) {
            // SAFETY: the slice holds the 8 elements read (checked just above); unaligned loads.
            Some(b) => {
                let p = b.as_ptr();
                match S {
                    src::F32 => _mm256_loadu_ps(p.cast()),
                    src::F16 => _mm256_cvtph_ps(_mm_loadu_si128(p.cast())),
                    src::BF16 => {
                        _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast()))))
                    }
                    src::I16 => _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(p.cast()))),
                    src::ODD_F64 => odd32(cpu, load8_pd::<{ src::F64 }>(cpu, b)),
                    src::E8M0 => {
                        let c = _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast()));
                        _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_max_epu32(c, _mm256_set1_epi32(1))))
                    }
                    src::E5FNUZ => {
                        let h = e5fnuz_halves::<true>(cpu, _mm256_cvtepu8_epi16(_mm_loadl_epi64(p.cast())));
                        _mm256_cvtph_ps(_mm256_castsi256_si128(h))
                    }
                    src::TOP_F64 => {
                        let (hi, lo) = f64_dwords(cpu, b);
                        let abs = _mm256_set1_epi32(i32::MAX);
                        let mag = _mm256_and_si256(hi, abs);
                        // Rebiased to f32's exponent; at least 2^-126 where the high dword is
                        // nonzero (a normal f32: subnormal operands slow the float units down),
                        // at most f32's NaN field with every mantissa bit.
                        let t = _mm256_sub_epi32(mag, _mm256_set1_epi32(896 << 20));
                        let t = _mm256_max_epi32(t, _mm256_min_epu32(mag, _mm256_set1_epi32(1 << 20)));
                        let t = _mm256_min_epi32(t, _mm256_set1_epi32(0xfff_ffff));
                        let f = _mm256_or_si256(_mm256_slli_epi32::<3>(t), _mm256_min_epu32(lo, _mm256_set1_epi32(1)));
                        _mm256_castsi256_ps(_mm256_or_si256(f, _mm256_andnot_si256(abs, hi)))
                    }
                    src::ODD_I32 => odd_i32(cpu, _mm256_loadu_si256(p.cast())),
                    src::ODD_U32 => {
                        // One pattern down where the nearest-even f went up, the last bit set
                        // where its error is not zero.
                        let (f, e) = u32_round(cpu, _mm256_loadu_si256(p.cast()));
                        let up = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(e, _mm256_setzero_ps()));
                        let inexact = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_OQ>(e, _mm256_setzero_ps()));
                        let t = _mm256_add_epi32(_mm256_castps_si256(f), up);
                        _mm256_castsi256_ps(_mm256_or_si256(t, _mm256_and_si256(inexact, _mm256_set1_epi32(1))))
                    }
                    // f32's conversion rounds from 2^24 on, monotonically: those stay at 2^24 or more.
                    src::CAP_I32 => _mm256_cvtepi32_ps(_mm256_loadu_si256(p.cast())),
                    src::CAP_U32 => {
                        let x = _mm256_loadu_si256(p.cast());
                        _mm256_cvtepi32_ps(_mm256_min_epu32(x, _mm256_set1_epi32(1 << 24)))
                    }
                    src::CAP_I64 | src::CAP_U64 => {
                        // The low and high dwords (lanes 0, 1, 4, 5 then 2, 3, 6, 7 of the eight,
                        // put in order at the end): the value is its low dword where the high
                        // one extends it (signed) or is zero (unsigned, low dword below 2^24);
                        // else +-2^24 with the value's sign (a clamp needs it).
                        let (a, b) = (_mm256_loadu_ps(p.cast()), _mm256_loadu_ps(p.add(32).cast()));
                        let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b));
                        let hi = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b));
                        let big = _mm256_set1_epi32(1 << 24);
                        let v = if S == src::CAP_I64 {
                            let fits = _mm256_cmpeq_epi32(hi, _mm256_srai_epi32::<31>(lo));
                            let neg = _mm256_srai_epi32::<31>(hi);
                            let big = _mm256_sub_epi32(_mm256_xor_si256(big, neg), neg);
                            _mm256_blendv_epi8(big, lo, fits)
                        } else {
                            let fits = _mm256_cmpeq_epi32(hi, _mm256_setzero_si256());
                            _mm256_blendv_epi8(big, _mm256_min_epu32(lo, big), fits)
                        };
                        _mm256_cvtepi32_ps(_mm256_permute4x64_epi64::<0b11_01_10_00>(v))
                    }
                    _ => _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast()))),
                }
            }
            None => _mm256_setzero_ps(),
        }
    }
}

/// Load eight source lanes as two vectors of f64 (exact for float64, int32 and uint32).
#[inline(always)]
fn load8_pd<const S: u8>(_cpu: Avx2, s: &[u8]) -> (__m256d, __m256d) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let Some(b) = s.get(..8 * src::size(S)) else { return (_mm256_setzero_pd(), _mm256_setzero_pd()) };
        // The slice holds the 8 elements read (checked just above); unaligned loads.
        {
            let p = b.as_ptr();
            if S == src::F64 {
                return (_mm256_loadu_pd(p.cast()), _mm256_loadu_pd(p.add(32).cast()));
            }
            let v = _mm256_loadu_si256(p.cast());
            let (a, b) =
                (_mm256_cvtepi32_pd(_mm256_castsi256_si128(v)), _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(v)));
            if S == src::U32 {
                // Lanes read as negative int32 are uint32 values 2^32 higher (exact in f64).
                let up = hot(
                    #[inline(always)]
                    |x: __m256d| {
                        let neg = _mm256_cmp_pd::<_CMP_LT_OQ>(x, _mm256_setzero_pd());
                        _mm256_add_pd(x, _mm256_and_pd(neg, _mm256_set1_pd(4_294_967_296.0)))
                    },
                );
                (up(a), up(b))
            } else {
                (a, b)
            }
        }
    }
}

/// [`load8_pd`] for every f64-domain source. 64-bit integers: `ODD` false, rounded to f64
/// nearest-even ([`int64_round`]); `ODD` true, rounded to odd at 53 bits (truncated, with
/// the last bit set where that was inexact), which any later rounding to 51 bits or fewer
/// turns into the correctly rounded result. Exact below 2^53 either way.
#[inline(always)]
fn load8_pd_int<const S: u8, const ODD: bool>(cpu: Avx2, s: &[u8]) -> (__m256d, __m256d) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        if S != src::I64 && S != src::U64 {
            return load8_pd::<S>(cpu, s);
        }
        let Some(b) = s.get(..64) else { return (_mm256_setzero_pd(), _mm256_setzero_pd()) };
        let conv = hot(
            #[inline(always)]
            |x: __m256i| {
                let (neg, bits) = if ODD {
                    int64_odd::<S>(cpu, x)
                } else {
                    let (neg, s, _) = int64_round::<S>(cpu, x);
                    (neg, _mm256_castpd_si256(s))
                };
                _mm256_castsi256_pd(_mm256_or_si256(bits, _mm256_slli_epi64::<63>(neg)))
            },
        );
        // SAFETY: `b` holds 64 bytes (checked just above); unaligned loads.
        let (x, y) = (_mm256_loadu_si256(b.as_ptr().cast()), _mm256_loadu_si256(b.as_ptr().add(32).cast()));
        (conv(x), conv(y))
    }
}

/// Four int64 (`S` = [`src::I64`]) or uint64 lanes: all ones where negative, the magnitude
/// `n` rounded to f64 nearest-even `s = hi * 2^32 + lo` (one rounding: both 32-bit halves
/// are exact, and so is `hi * 2^32`), and that rounding's error `e`, exact (Fast2Sum, the
/// larger addend first): `n = s + e`.
#[inline(always)]
fn int64_round<const S: u8>(_cpu: Avx2, x: __m256i) -> (__m256i, __m256d, __m256d) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let two52 = _mm256_set1_epi64x(0x4330_0000_0000_0000);
        let two32 = _mm256_set1_pd(4_294_967_296.0);
        // A 32-bit half as f64 (exact): 2^52 + h - 2^52.
        let half = hot(
            #[inline(always)]
            |h: __m256i| _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(h, two52)), _mm256_castsi256_pd(two52)),
        );
        let neg = if S == src::I64 { _mm256_cmpgt_epi64(_mm256_setzero_si256(), x) } else { _mm256_setzero_si256() };
        let n = _mm256_sub_epi64(_mm256_xor_si256(x, neg), neg);
        let (hi, lo) = (half(_mm256_srli_epi64::<32>(n)), half(_mm256_and_si256(n, _mm256_set1_epi64x(0xffff_ffff))));
        let s = _mm256_fmadd_pd(hi, two32, lo);
        // hi * 2^32 - s is exact (s - hi * 2^32 is), and so is lo plus it.
        (neg, s, _mm256_add_pd(lo, _mm256_fmsub_pd(hi, two32, s)))
    }
}

/// Four int64/uint64 lanes ([`int64_round`]): all ones where negative, and the magnitude
/// rounded to odd at 53 bits as an f64 pattern (truncated: one pattern down where the
/// nearest-even value went up; then the last bit set where inexact). Zero stays zero.
#[inline(always)]
fn int64_odd<const S: u8>(cpu: Avx2, x: __m256i) -> (__m256i, __m256i) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (neg, s, e) = int64_round::<S>(cpu, x);
        let zero = _mm256_setzero_pd();
        let went_up = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LT_OQ>(e, zero));
        let inexact = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_NEQ_OQ>(e, zero));
        let t = _mm256_add_epi64(_mm256_castpd_si256(s), went_up);
        (neg, _mm256_or_si256(t, _mm256_and_si256(inexact, _mm256_set1_epi64x(1))))
    }
}

/// Sixteen values below 2^16 in the 64-bit lanes of four vectors, as sixteen words in order:
/// the low dwords of each two vectors (`[a0 a1 b0 b1 | a2 a3 b2 b3]`), packed to words (exact),
/// then the dword pairs put in order.
#[inline(always)]
fn words_in_order(cpu: Avx2, v: [__m256i; 4]) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let low2 = hot(
            #[inline(always)]
            |a: __m256i, b: __m256i| {
                _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)))
            },
        );
        let [a, b, c, d] = v;
        in_order(cpu, _mm256_packus_epi32(low2(a, b), low2(c, d)))
    }
}

/// Define `$name::<M>`, rounding the lanes of a `$v` vector to integers in mode `M` (exact:
/// the result is an integer of the same float type). Nearest-away: `x + copysign(p, x)`
/// truncated, with `p` the float just below 1/2 (see [`to_i32`]; `$p`, and the blend on
/// the sign bit `$blend`): a blend, an add and the rounding, where `t + trunc(2 * (x - t))`
/// with `t = trunc(x)` took five. One body for f32 and f64 lanes.
macro_rules! rounding {
    ($(#[$doc:meta])* $name:ident, $v:ty, $round:ident, $sub:ident, $add:ident, $blend:ident, $p:ident) => {
        $(#[$doc])*
        #[inline(always)]
        fn $name<const M: u8>(cpu: Avx2, x: $v) -> $v {
            const TZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
            // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
            unsafe {
                match M {
                    mode::NE => $round::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(x),
                    mode::TZ => $round::<TZ>(x),
                    mode::TP => $round::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(x),
                    mode::TN => $round::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(x),
                    _ => {
                        // -p is `p - 2p` (exact), picked where x's sign bit is set.
                        let p = $p(cpu);
                        $round::<TZ>($add(x, $blend(p, $sub(p, $add(p, p)), x)))
                    }
                }
            }
        }
    };
}

rounding!(
    /// [`rounding`] for eight f32 lanes.
    round_ps, __m256, _mm256_round_ps, _mm256_sub_ps, _mm256_add_ps, _mm256_blendv_ps, below_half_ps
);
rounding!(
    /// [`rounding`] for four f64 lanes.
    round_pd, __m256d, _mm256_round_pd, _mm256_sub_pd, _mm256_add_pd, _mm256_blendv_pd, below_half_pd
);

/// Whether any bfloat16 lane (16-bit lanes) is NaN or +-Inf: its exponent field all ones.
#[inline(always)]
fn special_bf16(_cpu: Avx2, x: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let e = _mm256_set1_epi16(0x7f80);
        _mm256_cmpeq_epi16(_mm256_and_si256(x, e), e)
    }
}

/// Whether any f32 lane is NaN or +-Inf.
#[inline(always)]
fn special_ps(_cpu: Avx2, x: __m256) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let e = _mm256_set1_epi32(0x7f80_0000);
        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(x), e), e)
    }
}

/// The source value that a kernel puts in every NaN/+-Inf lane before converting, where the
/// scalar_map sends all three to one value ([`lanes::special_substitute`]): those lanes then
/// convert to the mapped value and are not flagged, so a map hit costs no more than any lane
/// (three ops per vector on every lane). In f32 lanes (float32, and float16/bfloat16 after
/// widening), f64 lanes (float64), or bfloat16's own 16-bit lanes ([`Substitute::of_bf16`]).
/// Without a substitute the test never matches (the kernel then flags those lanes as it does
/// without one). One `apply` per lane width: each needs its own compare and blend.
#[derive(Clone, Copy)]
struct Substitute {
    mask: __m256i,
    key: __m256i,
    /// The value's bits in every lane.
    value: __m256i,
    /// All ones where there is a substitute, else zero.
    on: __m256i,
    /// The proof the methods' intrinsics rest on (read by none: see [`Avx2`]).
    _cpu: Avx2,
}

impl Substitute {
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    #[inline]
    fn of(dir: &Direction, on: bool) -> Substitute {
        let exp32 = _mm256_set1_epi32(0x7f80_0000);
        // (The exponent field and the value, in the lanes the kernel tests.)
        let lanes = |c: u64| match dir.from {
            DataType::Float32 => Some((exp32, _mm256_set1_epi32(c as i32))),
            DataType::Float16 | DataType::BFloat16 => {
                crate::kernels::scalar::convert(dir.from, DataType::Float32, dir.rounding, None, c)
                    .ok()
                    .map(|c| (exp32, _mm256_set1_epi32(c as i32)))
            }
            DataType::Float64 => Some((_mm256_set1_epi64x(0x7ff0_0000_0000_0000), _mm256_set1_epi64x(c as i64))),
            _ => None,
        };
        let found = if on { dir.lanes.as_ref().and_then(|l| l.substitute) } else { None };
        match found.and_then(lanes) {
            Some((exp, value)) => {
                Substitute { mask: exp, key: exp, value, on: _mm256_set1_epi32(-1), _cpu: Avx2::new() }
            }
            // (Masked to zero, never -1.)
            _ => Substitute {
                mask: _mm256_setzero_si256(),
                key: _mm256_set1_epi32(-1),
                value: _mm256_setzero_si256(),
                on: _mm256_setzero_si256(),
                _cpu: Avx2::new(),
            },
        }
    }

    /// The same for bfloat16 in its own 16-bit lanes ([`Substitute::apply16`]).
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    #[inline]
    fn of_bf16(dir: &Direction, on: bool) -> Substitute {
        let found =
            if on && dir.from == DataType::BFloat16 { dir.lanes.as_ref().and_then(|l| l.substitute) } else { None };
        let exp = _mm256_set1_epi16(0x7f80);
        match found {
            Some(c) => Substitute {
                mask: exp,
                key: exp,
                value: _mm256_set1_epi16(c as i16),
                on: _mm256_set1_epi32(-1),
                _cpu: Avx2::new(),
            },
            None => Substitute::of(dir, false),
        }
    }

    /// `x` with its NaN/+-Inf lanes (`special`: [`special_ps`]) replaced, where there is a
    /// substitute (else `x`).
    #[inline(always)]
    fn apply_at(&self, x: __m256, special: __m256i) -> __m256 {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe {
            let value = _mm256_castsi256_ps(self.value);
            _mm256_blendv_ps(x, value, _mm256_castsi256_ps(_mm256_and_si256(special, self.on)))
        }
    }

    /// `x` (f32 lanes) with its NaN/+-Inf lanes replaced.
    #[inline(always)]
    fn apply(&self, x: __m256) -> __m256 {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe {
            let e = _mm256_and_si256(_mm256_castps_si256(x), self.mask);
            let value = _mm256_castsi256_ps(self.value);
            _mm256_blendv_ps(x, value, _mm256_castsi256_ps(_mm256_cmpeq_epi32(e, self.key)))
        }
    }

    /// `x` (bfloat16 patterns in 16-bit lanes, [`Substitute::of_bf16`]) with its NaN/+-Inf
    /// lanes replaced.
    #[inline(always)]
    fn apply16(&self, x: __m256i) -> __m256i {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe {
            let e = _mm256_and_si256(x, self.mask);
            _mm256_blendv_epi8(x, self.value, _mm256_cmpeq_epi16(e, self.key))
        }
    }

    /// `x` (f64 lanes) with its NaN/+-Inf lanes replaced.
    #[inline(always)]
    fn apply_pd(&self, x: __m256d) -> __m256d {
        // SAFETY: `self._cpu` proves the tier's features (see [`Avx2`]).
        unsafe {
            let e = _mm256_and_si256(_mm256_castpd_si256(x), self.mask);
            let value = _mm256_castsi256_pd(self.value);
            _mm256_blendv_pd(x, value, _mm256_castsi256_pd(_mm256_cmpeq_epi64(e, self.key)))
        }
    }
}

/// Eight uint32 lanes as f32 nearest-even `f = hi * 2^16 + lo` (the exact 16-bit halves, one
/// FMA rounding) and that rounding's error `e = lo + (hi * 2^16 - f)`, exact (Fast2Sum:
/// `hi * 2^16` is the larger addend; |e| <= 128): `x = f + e`.
#[inline(always)]
fn u32_round(_cpu: Avx2, x: __m256i) -> (__m256, __m256) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let hi = _mm256_cvtepi32_ps(_mm256_srli_epi32::<16>(x));
        let lo = _mm256_cvtepi32_ps(_mm256_and_si256(x, _mm256_set1_epi32(0xffff)));
        let two16 = _mm256_set1_ps(65536.0);
        let f = _mm256_fmadd_ps(hi, two16, lo);
        (f, _mm256_add_ps(lo, _mm256_fmsub_ps(hi, two16, f)))
    }
}

/// The high and the low dwords of eight f64 elements (the first 64 bytes of `s`), in
/// element order.
#[inline(always)]
fn f64_dwords(_cpu: Avx2, s: &[u8]) -> (__m256i, __m256i) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let Some(b) = s.get(..64) else { return (_mm256_setzero_si256(), _mm256_setzero_si256()) };
        let p = b.as_ptr();
        // SAFETY: `b` holds 64 bytes (checked just above); unaligned 16-byte loads.
        // Elements (0, 1, 4, 5) and (2, 3, 6, 7) by 128-bit halves: one in-lane shuffle then
        // takes the eight high (low) dwords in element order, no lane-crossing permute.
        let (a, b) = {
            (
                _mm256_castsi256_ps(_mm256_loadu2_m128i(p.add(32).cast(), p.cast())),
                _mm256_castsi256_ps(_mm256_loadu2_m128i(p.add(48).cast(), p.add(16).cast())),
            )
        };
        (
            _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b)),
            _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b)),
        )
    }
}

/// The low dwords (`HI` false) or high dwords of the 64-bit lanes of `a` then `b`, in
/// element order: eight i32 lanes for eight f64 elements.
#[inline(always)]
fn dwords<const HI: bool>(_cpu: Avx2, a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
        let s = if HI { _mm256_shuffle_ps::<0b11_01_11_01>(a, b) } else { _mm256_shuffle_ps::<0b10_00_10_00>(a, b) };
        _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(s))
    }
}

/// The first 64 bytes of `s` as two vectors (unaligned loads); `None` if `s` is shorter.
#[inline(always)]
fn load64(_cpu: Avx2, s: &[u8]) -> Option<(__m256i, __m256i)> {
    let s = s.get(..64)?;
    // SAFETY: `s` holds 64 bytes (checked just above); unaligned loads. The `Avx2` proves
    // the tier's features.
    Some(unsafe { (_mm256_loadu_si256(s.as_ptr().cast()), _mm256_loadu_si256(s.as_ptr().add(32).cast())) })
}

/// [`load64`] as two vectors of four float64.
#[inline(always)]
fn load64_pd(_cpu: Avx2, s: &[u8]) -> Option<(__m256d, __m256d)> {
    let s = s.get(..64)?;
    // SAFETY: as in [`load64`].
    Some(unsafe { (_mm256_loadu_pd(s.as_ptr().cast()), _mm256_loadu_pd(s.as_ptr().add(32).cast())) })
}

/// Store eight i32 lanes as `D`-byte integers (their low bits: the values are in the
/// target's range or already reduced modulo 2^(8D)).
#[inline(always)]
fn store8<const D: usize>(cpu: Avx2, d: &mut [u8], v: __m256i) {
    let Some(d) = d.get_mut(..8 * D) else { return };
    // SAFETY: `d` holds 8 * D bytes (checked just above); unaligned stores inside it. The
    // `Avx2` proves the tier's features.
    unsafe {
        match D {
            4 => _mm256_storeu_si256(d.as_mut_ptr().cast(), v),
            2 => {
                let w = _mm256_packus_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0xffff)), _mm256_setzero_si256());
                let q = _mm256_permute4x64_epi64::<0b1000>(w);
                _mm_storeu_si128(d.as_mut_ptr().cast(), _mm256_castsi256_si128(q));
            }
            _ => {
                let w = _mm256_packus_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0xff)), _mm256_setzero_si256());
                let b = _mm256_packus_epi16(w, w);
                let q = in_order(cpu, b);
                _mm_storel_epi64(d.as_mut_ptr().cast(), _mm256_castsi256_si128(q));
            }
        }
    }
}

/// Store sixteen i32 lanes (`a` then `b`) as `D`-byte integers, as [`store8`].
#[inline(always)]
fn store16<const D: usize>(cpu: Avx2, d: &mut [u8], a: __m256i, b: __m256i) {
    let Some(d) = d.get_mut(..16 * D) else { return };
    // SAFETY: `d` holds 16 * D bytes (checked just above); unaligned stores inside it. The
    // `Avx2` proves the tier's features.
    unsafe {
        match D {
            4 => {
                _mm256_storeu_si256(d.as_mut_ptr().cast(), a);
                _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), b);
            }
            2 => _mm256_storeu_si256(d.as_mut_ptr().cast(), words_of(cpu, a, b, false, true)),
            _ => {
                let m = _mm256_set1_epi32(0xff);
                let w = _mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m));
                let b = _mm256_packus_epi16(w, w);
                let q = in_order(cpu, b);
                _mm_storeu_si128(d.as_mut_ptr().cast(), _mm256_castsi256_si128(q));
            }
        }
    }
}

/// How the integers of a format sit in 32-bit lanes: (shift, mask) such that
/// `sra(sll(v, shift), shift) & mask` sign-extends from the format's width (signed types
/// narrower than 32 bits) or masks to it (unsigned ones); identity for 32-bit types. Read
/// and stored forms both (int2/int4 are stored sign-extended to their byte).
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn form_of(fmt: &Format) -> (__m128i, __m256i) {
    let narrow = fmt.bits < 32;
    let signed = fmt.kind == Kind::Signed;
    let shift = if narrow && signed { 32 - fmt.bits } else { 0 };
    let mask = if narrow && !signed { fmt.mask() as i32 } else { -1 };
    (_mm_cvtsi32_si128(shift as i32), _mm256_set1_epi32(mask))
}

/// Apply a [`form_of`] to eight lanes.
#[inline(always)]
fn in_form(_cpu: Avx2, v: __m256i, (shift, mask): (__m128i, __m256i)) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_and_si256(_mm256_sra_epi32(_mm256_sll_epi32(v, shift), shift), mask) }
}

/// Sixteen i32 lanes (`a`, then `b`) as 16-bit integers in element order: their low 16 bits
/// with `wrap`, else saturated to i16 (`signed`) or u16.
#[inline(always)]
fn words_of(_cpu: Avx2, a: __m256i, b: __m256i, signed: bool, wrap: bool) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let w = if wrap {
            let m = _mm256_set1_epi32(0xffff);
            _mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m))
        } else if signed {
            _mm256_packs_epi32(a, b)
        } else {
            _mm256_packus_epi32(a, b)
        };
        _mm256_permute4x64_epi64::<0b11_01_10_00>(w)
    }
}

/// Thirty-two i32 lanes (four vectors, in order) as bytes in element order: their low bytes
/// with `wrap`, else saturated to i8 (`signed`) or u8 (through a signed 16-bit saturation
/// first, which keeps the order for the second).
#[inline(always)]
fn bytes_of(cpu: Avx2, [a, b, c, e]: [__m256i; 4], signed: bool, wrap: bool) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        if wrap {
            let m = _mm256_set1_epi32(0xff);
            let [a, b, c, e] = array_map(
                [a, b, c, e],
                #[inline(always)]
                |x| _mm256_and_si256(x, m),
            );
            in_order(cpu, _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, e)))
        } else {
            bytes_of_words(cpu, _mm256_packs_epi32(a, b), _mm256_packs_epi32(c, e), signed)
        }
    }
}

/// [`bytes_of`] without wrap from its two vectors of saturated words (`vpackssdw` of the
/// first and second pair of i32 vectors).
#[inline(always)]
fn bytes_of_words(cpu: Avx2, ab: __m256i, ce: __m256i, signed: bool) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { in_order(cpu, if signed { _mm256_packs_epi16(ab, ce) } else { _mm256_packus_epi16(ab, ce) }) }
}

/// The dwords 0, 4, 1, 5, 2, 6, 3, 7: what two rounds of in-lane packs (or an in-lane
/// shuffle and a pack) interleaved, back in element order.
#[inline(always)]
fn in_order(_cpu: Avx2, w: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)) }
}

/// Integer targets of [`f2i_pack`], by how their values are stored from i32 lanes.
mod tgt {
    /// int8 (signed saturating packs)
    pub const I8: u8 = 0;
    /// uint8 (signed, then unsigned saturating packs)
    pub const U8: u8 = 1;
    /// int16
    pub const I16: u8 = 2;
    /// uint16
    pub const U16: u8 = 3;
    /// int32 (stored as is)
    pub const I32: u8 = 4;
    /// int2, int4, uint2, uint4: one byte each, clamped by min/max, wrapped to the stored form
    pub const SUB: u8 = 5;
    /// uint32 from sources whose values are all below 2^31 in magnitude (float16 and the
    /// byte float types): negative results are out of range, wrap is the two's complement
    pub const U32: u8 = 6;
    /// int64 and uint64 from the same sources: sign extension (which, for uint64, is also
    /// the wrap), negative results out of uint64's range
    pub const I64: u8 = 7;
    pub const U64: u8 = 8;

    /// Bytes per target element.
    pub const fn size(t: u8) -> usize {
        match t {
            I16 | U16 => 2,
            I32 | U32 => 4,
            I64 | U64 => 8,
            _ => 1,
        }
    }

    /// The code of an integer target (uint32, int64 and uint64 have none).
    pub fn of(t: crate::dtype::DataType) -> Option<u8> {
        use crate::dtype::DataType as T;
        Some(match t {
            T::Int8 => I8,
            T::UInt8 => U8,
            T::Int16 => I16,
            T::UInt16 => U16,
            T::Int32 => I32,
            T::Int2 | T::Int4 | T::UInt2 | T::UInt4 => SUB,
            _ => return None,
        })
    }
}

/// The f32 just below 1/2, splatted (see [`to_i32`]).
#[inline(always)]
fn below_half_ps(_cpu: Avx2) -> __m256 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_castsi256_ps(_mm256_set1_epi32(0x3eff_ffff)) }
}

/// The first eight float64 of `s` ([`load8_pd`]), with `SUB` their NaN/+-Inf lanes `sub`'s
/// value ([`Substitute`]).
#[inline(always)]
fn f64_lanes<const SUB: bool>(cpu: Avx2, s: &[u8], sub: &Substitute) -> (__m256d, __m256d) {
    let (a, b) = load8_pd::<{ src::F64 }>(cpu, s);
    if SUB {
        (sub.apply_pd(a), sub.apply_pd(b))
    } else {
        (a, b)
    }
}

/// Eight float64 lanes rounded in mode `M` to i32 ([`f32_to_i32`]: f32 lanes). Nearest-even is
/// the conversion's own rounding (default MXCSR) and towards-zero its truncating form;
/// nearest-away is the nearest-even conversion of x with its last mantissa bit set
/// ([`last_bit_pd`]); the directed modes round first (exact). NaN, +-Inf and magnitudes
/// from 2^31 give the integer indefinite, `i32::MIN`. With `SUB`, NaN/+-Inf lanes are `sub`'s
/// value first ([`Substitute`]).
#[inline(always)]
fn to_i32<const M: u8, const SUB: bool>(cpu: Avx2, s: &[u8], sub: &Substitute) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (a, b) = f64_lanes::<SUB>(cpu, s, sub);
        _mm256_set_m128i(pd_to_i32::<M>(cpu, b), pd_to_i32::<M>(cpu, a))
    }
}

/// Eight i32 lanes `v` converted in mode `M` from the f32 lanes `x` ([`f32_to_i32`]), with
/// range rule `R`'s value where the conversion gave the indefinite, and the NaN/+-Inf lanes
/// (all ones), which the rules leave to the reference. Clamp: [`clamp_above_ps`] (a negative
/// `x` keeps the indefinite, `i32::MIN`, which is its clamp). Wrap: [`wrap_beyond_ps`] over
/// the indefinite lanes. Every step is exact: the scaling, the rounding, and the difference,
/// an integer of `x`'s grid in [-2^31, 2^31] whose ends both convert to the bits of -2^31.
#[inline(always)]
fn beyond_i32_ps<const M: u8, const R: u8>(cpu: Avx2, v: __m256i, x: __m256) -> (__m256i, __m256i) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let v = if R == range::CLAMP {
            clamp_above_ps(cpu, v, x)
        } else {
            wrap_beyond_ps::<M>(cpu, x, _mm256_cmpeq_epi32(v, _mm256_set1_epi32(i32::MIN)))
        };
        (v, special_ps(cpu, x))
    }
}

/// Clamp's value from the converted lanes `v` of `x`: `i32::MAX` where `x >= 2^31`, the
/// indefinite (`i32::MIN`) plus the compare's all ones; the other lanes keep their value.
#[inline(always)]
fn clamp_above_ps(_cpu: Avx2, v: __m256i, x: __m256) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let above = _mm256_cmp_ps::<_CMP_GE_OQ>(x, _mm256_set1_ps(2_147_483_648.0));
        _mm256_add_epi32(v, _mm256_castps_si256(above))
    }
}

/// Wrap's value of the f32 lanes `x` in mode `M`: `x - 2^32 k` converted, `k` the nearest
/// integer to `x / 2^32` in the lanes where `beyond` is all ones (those beyond i32's range)
/// and 0 in the others. `x / 2^32` takes 32 from the exponent field: integer work, so a small
/// lane never makes a subnormal product (a microcode assist); those lanes are masked out.
#[inline(always)]
fn wrap_beyond_ps<const M: u8>(cpu: Avx2, x: __m256, beyond: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let scaled = _mm256_sub_epi32(_mm256_castps_si256(x), _mm256_set1_epi32(32 << 23));
        let k = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_castsi256_ps(
            _mm256_and_si256(scaled, beyond),
        ));
        f32_to_i32::<M>(cpu, _mm256_fnmadd_ps(k, _mm256_set1_ps(4_294_967_296.0), x))
    }
}

/// Whether all 32 f32 lanes of `x` are finite, by their sum: NaN or +-Inf if any lane is (or
/// if the sum overflows, which only answers `false` for a step that is finite).
#[inline(always)]
fn finite_ps(_cpu: Avx2, x: &[__m256; 4]) -> bool {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let t = _mm256_add_ps(_mm256_add_ps(x[0], x[1]), _mm256_add_ps(x[2], x[3]));
        let t = _mm256_sub_ps(t, t);
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_UNORD_Q>(t, t)) == 0
    }
}

/// [`finite_ps`] for 32 f64 lanes in pairs of vectors.
#[inline(always)]
fn finite_pd(_cpu: Avx2, x: &[(__m256d, __m256d); 4]) -> bool {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let [p, q, r, u] = array_map(
            *x,
            #[inline(always)]
            |(a, b)| _mm256_add_pd(a, b),
        );
        let t = _mm256_add_pd(_mm256_add_pd(p, q), _mm256_add_pd(r, u));
        let t = _mm256_sub_pd(t, t);
        _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(t, t)) == 0
    }
}

/// [`beyond_i32_ps`] for the eight f64 lanes `a`, `b` ([`to_i32`]). Wrap rounds in mode `M`
/// (exact: an integer of f64) and reduces modulo 2^32 in f64, `r - 2^32 floor(r / 2^32)`,
/// every step exact, then into i32's range; [`wrap_i32_pd`] is the cheaper form where every
/// lane is below 2^51 in magnitude.
#[inline(always)]
fn beyond_i32_pd<const M: u8, const R: u8>(cpu: Avx2, v: __m256i, a: __m256d, b: __m256d) -> (__m256i, __m256i) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let high = dwords::<true>(cpu, _mm256_castpd_si256(a), _mm256_castpd_si256(b));
        let exp = _mm256_set1_epi32(0x7ff0_0000);
        let special = _mm256_cmpeq_epi32(_mm256_and_si256(high, exp), exp);
        let indefinite = _mm256_cmpeq_epi32(v, _mm256_set1_epi32(i32::MIN));
        let v = if R == range::CLAMP {
            _mm256_xor_si256(v, _mm256_andnot_si256(_mm256_srai_epi32::<31>(high), indefinite))
        } else {
            let wrap = hot(
                #[inline(always)]
                |x: __m256d| {
                    let r = round_pd::<M>(cpu, x);
                    let two32 = _mm256_set1_pd(4_294_967_296.0);
                    let q = _mm256_floor_pd(_mm256_mul_pd(r, _mm256_set1_pd(1.0 / 4_294_967_296.0)));
                    let m = _mm256_fnmadd_pd(q, two32, r);
                    let m = _mm256_sub_pd(
                        m,
                        _mm256_and_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(m, _mm256_set1_pd(2_147_483_648.0)), two32),
                    );
                    _mm256_cvtpd_epi32(m)
                },
            );
            _mm256_blendv_epi8(v, _mm256_set_m128i(wrap(b), wrap(a)), indefinite)
        };
        (v, special)
    }
}

/// Eight float64 lanes of `s` rounded in mode `M`, as the low 32 bits of the integer (wrap's
/// value, whatever the target): below 2^51 in magnitude, adding 1.5 * 2^52 puts the integer
/// in the low mantissa bits as two's complement (the sum lies in [2^52, 2^53), where the
/// spacing is 1: the add is exact for an r already rounded, and in nearest-even it is the
/// rounding itself; nearest-away is that of the lane with its last bit set, [`last_bit_pd`]).
/// With a mask that is all ones where every lane's sum stayed in [2^52, 2^53), which is
/// where it holds (NaN, +-Inf and magnitudes from about 2^51 leave it). With `SUB`, NaN/+-Inf
/// lanes are `sub`'s value first.
#[inline(always)]
fn wrap_i32_pd<const M: u8, const SUB: bool>(cpu: Avx2, s: &[u8], sub: &Substitute) -> (__m256i, __m256i) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (a, b) = f64_lanes::<SUB>(cpu, s, sub);
        let sum = hot(
            #[inline(always)]
            |x: __m256d| {
                let r = match M {
                    mode::NE => x,
                    mode::NA => last_bit_pd(cpu, x),
                    _ => round_pd::<M>(cpu, x),
                };
                _mm256_castpd_si256(_mm256_add_pd(r, _mm256_set1_pd(6_755_399_441_055_744.0)))
            },
        );
        let (a, b) = (sum(a), sum(b));
        let field = _mm256_set1_epi64x(0x433);
        let held = _mm256_and_si256(
            _mm256_cmpeq_epi64(_mm256_srli_epi64::<52>(a), field),
            _mm256_cmpeq_epi64(_mm256_srli_epi64::<52>(b), field),
        );
        (dwords::<false>(cpu, a, b), held)
    }
}

/// Four f64 lanes rounded in mode `M` to i32, as [`to_i32`].
#[inline(always)]
fn pd_to_i32<const M: u8>(cpu: Avx2, x: __m256d) -> __m128i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        match M {
            mode::NE => _mm256_cvtpd_epi32(x),
            mode::TZ => _mm256_cvttpd_epi32(x),
            mode::NA => _mm256_cvtpd_epi32(last_bit_pd(cpu, x)),
            _ => _mm256_cvttpd_epi32(round_pd::<M>(cpu, x)),
        }
    }
}

/// Four f64 lanes with their last mantissa bit set: where the integers' grid is coarser than
/// the lane's (below 2^51 in magnitude), nearest-even of the result is nearest-away of x.
/// A tie (bit -1 set, every lower bit clear) moves just past it, away from zero, and no
/// other value reaches a tie or an integer: x moves by at most one ulp, from an even
/// multiple of its ulp to the odd one above it, and ties and integers are even multiples.
/// From 2^31 on (and for NaN/Inf) the conversion gives the indefinite either way.
/// One op fewer than `x + copysign(p, x)` truncated.
#[inline(always)]
fn last_bit_pd(_cpu: Avx2, x: __m256d) -> __m256d {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_or_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(1))) }
}

/// `K` (2 or 4) vectors of eight f32-domain source lanes, in order: [`load8`], or 16 at a
/// time for [`src::BF16`] (two unpacks), [`src::MINI`] ([`Mini::decode`]: the caller finds
/// the special codes by their bytes, [`SpecialBytes`]) and [`src::E5FNUZ`]
/// ([`e5fnuz_halves`]).
#[inline(always)]
fn f32_lanes<const S: u8, const K: usize>(cpu: Avx2, s: &[u8], mini: &Mini) -> [__m256; K] {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let ss = src::size(S);
        let mut out = [_mm256_setzero_ps(); K];
        // Index loops over the arrays (no iterator adapters: nothing left to the inliner).
        let mut put = hot(
            #[inline(always)]
            |k: usize, x: __m256| {
                if let Some(o) = out.get_mut(k) {
                    *o = x;
                }
            },
        );
        if S == src::MINI && K == 4 {
            let [a, b, c, e] = mini.decode32(s);
            put(0, a);
            put(1, b);
            put(2, c);
            put(3, e);
        } else if S == src::MINI {
            unrolled(
                K / 2,
                #[inline(always)]
                |j| {
                    let [a, b] = mini.decode(s.get(16 * j..).unwrap_or(&[]));
                    put(2 * j, a);
                    put(2 * j + 1, b);
                },
            );
        } else if S == src::BF16 {
            // Sixteen at a time: with the 64-bit blocks in the order 0, 2, 1, 3, the in-lane
            // unpacks under zeros give elements 0..8 and 8..16 as f32 (three ops, not four).
            unrolled(
                K / 2,
                #[inline(always)]
                |j| {
                    let Some(b) = s.get(32 * j..32 * j + 32) else { return };
                    // SAFETY: `b` holds 32 bytes (checked just above); an unaligned load.
                    let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_loadu_si256(b.as_ptr().cast()));
                    let z = _mm256_setzero_si256();
                    put(2 * j, _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, v)));
                    put(2 * j + 1, _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, v)));
                },
            );
        } else if S == src::E5FNUZ {
            // Sixteen lanes per op on the way to float16.
            unrolled(
                K / 2,
                #[inline(always)]
                |j| {
                    let Some(b) = s.get(16 * j..16 * j + 16) else { return };
                    // SAFETY: `b` holds 16 bytes (checked just above); an unaligned load.
                    let h = e5fnuz_halves::<true>(cpu, _mm256_cvtepu8_epi16(_mm_loadu_si128(b.as_ptr().cast())));
                    put(2 * j, _mm256_cvtph_ps(_mm256_castsi256_si128(h)));
                    put(2 * j + 1, _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(h)));
                },
            );
        } else {
            unrolled(
                K,
                #[inline(always)]
                |k| {
                    put(k, load8::<S>(cpu, s.get(8 * ss * k..).unwrap_or(&[])));
                },
            );
        }
        out
    }
}

/// float8_e5m2fnuz codes (bias 16, its top exponent finite, 0x80 its only NaN), zero-extended
/// to 16-bit lanes, as float16 patterns (every value is a float16). With the magnitude `c`
/// in the top byte, `(c << 8) - 2^10` is the value's float16 from exponent field 2 on (one
/// field lower), and `c << 7` a float16 subnormal that is the value for fields 0 and 1; the
/// larger of the two (as i16) is the right one on each side. The sign goes to bit 15, and
/// with `NAN` NaN to all ones (a float16 NaN; else to -0, for callers that flag it).
#[inline(always)]
fn e5fnuz_halves<const NAN: bool>(_cpu: Avx2, c: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let t = _mm256_slli_epi16::<8>(c);
        let mag = _mm256_set1_epi16(0x7f00);
        let m = _mm256_and_si256(t, mag);
        let h = _mm256_max_epi16(_mm256_sub_epi16(m, _mm256_set1_epi16(0x400)), _mm256_srli_epi16::<1>(m));
        let h = _mm256_or_si256(h, _mm256_andnot_si256(mag, t));
        if NAN {
            _mm256_or_si256(h, _mm256_cmpeq_epi16(t, _mm256_set1_epi16(i16::MIN)))
        } else {
            h
        }
    }
}

/// Eight f32 lanes with their last mantissa bit set: [`last_bit_pd`] for f32, where the
/// integers' grid is coarser than the lane's below 2^22 (the caller makes sure no lane from
/// there on needs its exact value).
#[inline(always)]
fn last_bit_ps(_cpu: Avx2, x: __m256) -> __m256 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_or_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(1))) }
}

/// The f64 just below 1/2, splatted (see [`to_i32`]).
#[inline(always)]
fn below_half_pd(_cpu: Avx2) -> __m256d {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_castsi256_pd(_mm256_set1_epi64x(0x3fdf_ffff_ffff_ffff)) }
}

/// [`to_i32`] of eight f32 lanes.
#[inline(always)]
fn f32_to_i32<const M: u8>(cpu: Avx2, x: __m256) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let (p, q) = (below_half_ps(cpu), _mm256_sub_ps(_mm256_setzero_ps(), below_half_ps(cpu)));
        match M {
            mode::NE => _mm256_cvtps_epi32(x),
            mode::TZ => _mm256_cvttps_epi32(x),
            // copysign(p, x): blend on the sign bit of x.
            mode::NA => _mm256_cvttps_epi32(_mm256_add_ps(x, _mm256_blendv_ps(p, q, x))),
            _ => _mm256_cvttps_epi32(round_ps::<M>(cpu, x)),
        }
    }
}

// Its own codegen unit, as `to_f16`.
mod f2i {
    use super::*;

    // float16/bfloat16/float32/float64 and the byte float types -> every integer target but
    // uint32/int64/uint64 (those too from float16 and the byte float types, whose values all
    // round into i32: sign extension for the 64-bit ones): round to i32 lanes (`to_i32`), then
    // integer work. The indefinite `i32::MIN` (NaN, Inf, |x| >= 2^31,
    // and -2^31 itself) goes cold; it is below every narrower target's range, so without a rule
    // the range test catches it. Clamp is the saturating packs (min/max for the sub-byte types),
    // wrap keeps the low bits. 32 elements per step.
    entry!(pub(super) f2i_pack<const S: u8, const M: u8, const T: u8, const R: u8>, f2i_pack_body[false]);
    // The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]): float16,
    // bfloat16, float32, float64.
    entry!(pub(super) f2i_pack_sub<const S: u8, const M: u8, const T: u8, const R: u8>, f2i_pack_body[true]);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn f2i_pack_body<const S: u8, const M: u8, const T: u8, const R: u8, const SUB: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let ss = src::size(S);
        let ds = tgt::size(T);
        let (lo, hi) = dir.to.format().int_bounds();
        let (vlo, vhi) = (_mm256_set1_epi32(lo as i32), _mm256_set1_epi32(hi as i32));
        let indefinite = _mm256_set1_epi32(i32::MIN);
        let form = form_of(dir.to.format());
        // Without a rule (targets narrower than 32 bits): `v - lo` has no bit outside the span
        // `hi - lo` (all ones: every such range has a power-of-two size) exactly when in range.
        let outside = _mm256_set1_epi32(!((hi - lo) as i32));
        let wide = matches!(T, tgt::I32 | tgt::U32 | tgt::I64 | tgt::U64);
        // Byte float sources whose finite values all cast: their NaN/Inf lanes are found on
        // the bytes, and no other lane can fail nor turn indefinite (every value is below
        // 2^31), so no test of the results.
        let unchecked = S == src::MINI
            && dir.lut.as_ref().is_some_and(
                #[inline(always)]
                |l| !l.finite_fail(),
            );
        let checked = R == range::ERROR && !wide && !unchecked;
        // Byte targets without a rule test their range on the packs' saturated words (a word
        // saturates only out of a byte's range, as its i32 was): 16 lanes per op, not 8.
        let by_words = checked && ds == 1;
        let (lo16, outside16) = (_mm256_set1_epi16(lo as i16), _mm256_set1_epi16(!((hi - lo) as i16)));
        // uint32/uint64 without a rule: every negative lane (the indefinite included) is flagged.
        let negative_fails = R == range::ERROR && matches!(T, tgt::U32 | tgt::U64);
        let mini = Mini::of(dir.from.format());
        let sub = Substitute::of(dir, SUB);
        // Nearest-away by the last bit, as for float64 ([`last_bit_pd`]), where f32's grid is
        // finer than the integers' (below 2^22: every float16 and byte float value), or where
        // every lane from 2^22 on is out of range and stays so, with its sign (8/16-bit and
        // sub-byte targets, without wrap, which would keep the moved value's low bits).
        let last_bit = M == mode::NA
            && (matches!(S, src::F16 | src::MINI | src::E5FNUZ)
                || (R != range::WRAP && matches!(T, tgt::I8 | tgt::U8 | tgt::I16 | tgt::U16 | tgt::SUB)));
        // Eight lanes rounded to i32 (the indefinite where they do not fit).
        let raw = hot(
            #[inline(always)]
            |k: usize, s: &[u8], pre: &[__m256; 4]| {
                if S == src::F64 {
                    to_i32::<M, SUB>(cpu, s.get(8 * ss * k..).unwrap_or(&[]), &sub)
                } else {
                    let x = match pre.get(k) {
                        Some(&x) => x,
                        None => _mm256_setzero_ps(),
                    };
                    if last_bit {
                        _mm256_cvtps_epi32(last_bit_ps(cpu, x))
                    } else {
                        f32_to_i32::<M>(cpu, x)
                    }
                }
            },
        );
        // Clamp or wrap, from sources with values beyond i32 (float32, bfloat16, float64,
        // float8_e8m0fnu, whose NaN code is +Inf in its lanes; the others' values are all
        // below 2^31): a step with indefinite lanes is redone in the lanes ([`beyond_i32`]),
        // and only its NaN/+-Inf lanes are flagged.
        let beyond = R != range::ERROR
            && matches!(S, src::F32 | src::BF16 | src::F64 | src::E8M0)
            && !matches!(T, tgt::U32 | tgt::I64 | tgt::U64);
        let fix = hot(
            #[inline(always)]
            |k: usize, s: &[u8], pre: &[__m256; 4], v: __m256i| -> (__m256i, __m256i) {
                if S == src::F64 {
                    let (a, b) = f64_lanes::<SUB>(cpu, s.get(8 * ss * k..).unwrap_or(&[]), &sub);
                    beyond_i32_pd::<M, R>(cpu, v, a, b)
                } else {
                    let x = match pre.get(k) {
                        Some(&x) => x,
                        None => _mm256_setzero_ps(),
                    };
                    beyond_i32_ps::<M, R>(cpu, v, x)
                }
            },
        );
        // Eight lanes: (values to store, the lanes' check word: `v - lo` with `checked`, whose
        // bits under `outside` flag a lane, else `v`, whose indefinite lanes are flagged).
        let conv = hot(
            #[inline(always)]
            |v: __m256i| match (T, R) {
                (tgt::U32 | tgt::U64, range::CLAMP) => (_mm256_max_epi32(v, _mm256_setzero_si256()), v),
                (tgt::I32 | tgt::U32 | tgt::I64 | tgt::U64, _) => (v, v),
                (_, range::ERROR) if by_words => (v, v),
                (_, range::ERROR) => (v, _mm256_sub_epi32(v, vlo)),
                (tgt::SUB, range::CLAMP) => (_mm256_min_epi32(_mm256_max_epi32(v, vlo), vhi), v),
                (tgt::SUB, _) => (in_form(cpu, v, form), v),
                _ => (v, v),
            },
        );
        // The flagged lanes of four check words, with one test when there are none.
        let flagged = hot(
            #[inline(always)]
            |x: __m256i| {
                if checked {
                    _mm256_xor_si256(
                        _mm256_cmpeq_epi32(_mm256_and_si256(x, outside), _mm256_setzero_si256()),
                        _mm256_set1_epi32(-1),
                    )
                } else if negative_fails {
                    _mm256_cmpgt_epi32(_mm256_setzero_si256(), x)
                } else {
                    _mm256_cmpeq_epi32(x, indefinite)
                }
            },
        );
        // Whether four check words have no flagged lane (one test).
        let clear = hot(
            #[inline(always)]
            |w: &[__m256i; 4]| {
                if unchecked {
                    true
                } else if checked {
                    let any = _mm256_or_si256(_mm256_or_si256(w[0], w[1]), _mm256_or_si256(w[2], w[3]));
                    _mm256_testz_si256(any, outside) != 0
                } else {
                    // The indefinite is the least i32: it is there if it is the minimum.
                    let least = _mm256_min_epi32(_mm256_min_epi32(w[0], w[1]), _mm256_min_epi32(w[2], w[3]));
                    let m = if negative_fails {
                        _mm256_cmpgt_epi32(_mm256_setzero_si256(), least)
                    } else {
                        _mm256_cmpeq_epi32(least, indefinite)
                    };
                    _mm256_testz_si256(m, m) != 0
                }
            },
        );
        let flags = hot(
            #[inline(always)]
            |w: [__m256i; 4]| {
                if clear(&w) {
                    return 0;
                }
                let mut bits = 0;
                for (k, &x) in w.iter().enumerate() {
                    bits |= lanes8(cpu, flagged(x)) << (8 * k);
                }
                bits
            },
        );
        // Wrap to a full byte or 16-bit target keeps the low bits; everything else is in range
        // or saturates to it.
        let mask_low = R == range::WRAP && T != tgt::SUB;
        // Saturation to a signed range (the sub-byte types' values are in i8's already).
        let signed = !matches!(T, tgt::U8 | tgt::U16);
        // float64 with wrap: every lane's value by [`wrap_i32_pd`] where it holds for all
        // (`None` where a lane is NaN/+-Inf or from about 2^51 in magnitude).
        let by_sum = hot(
            #[inline(always)]
            |s: &[u8]| {
                if S != src::F64 || R != range::WRAP {
                    return None;
                }
                let lanes = hot(
                    #[inline(always)]
                    |k: usize| wrap_i32_pd::<M, SUB>(cpu, s.get(8 * ss * k..).unwrap_or(&[]), &sub),
                );
                let ((a, ha), (b, hb), (c, hc), (e, he)) = (lanes(0), lanes(1), lanes(2), lanes(3));
                let held = _mm256_and_si256(_mm256_and_si256(ha, hb), _mm256_and_si256(hc, he));
                let all = _mm256_testc_si256(held, _mm256_set1_epi32(-1)) != 0;
                if all {
                    Some([a, b, c, e])
                } else {
                    None
                }
            },
        );
        // float64 with clamp: every lane clamped to i32's range before it is rounded (the
        // bounds are integers, so this is the clamp of the rounded value in every mode), so
        // no lane is indefinite; `None` where the step has a NaN/+-Inf lane ([`finite_pd`]).
        let by_clamp = hot(
            #[inline(always)]
            |s: &[u8]| {
                if S != src::F64 || R != range::CLAMP {
                    return None;
                }
                let x = array_map(
                    [0, 1, 2, 3],
                    #[inline(always)]
                    |k: usize| f64_lanes::<SUB>(cpu, s.get(8 * ss * k..).unwrap_or(&[]), &sub),
                );
                if !finite_pd(cpu, &x) {
                    return None;
                }
                let (lo, hi) = (_mm256_set1_pd(-2_147_483_648.0), _mm256_set1_pd(2_147_483_647.0));
                let clamp = hot(
                    #[inline(always)]
                    |x: __m256d| pd_to_i32::<M>(cpu, _mm256_max_pd(lo, _mm256_min_pd(hi, x))),
                );
                Some(array_map(
                    x,
                    #[inline(always)]
                    |(a, b)| _mm256_set_m128i(clamp(b), clamp(a)),
                ))
            },
        );
        // float32 with clamp or wrap: every lane's value as [`beyond_i32_ps`] gives it (for
        // wrap the lanes beyond i32 found by their magnitude); `None` where the step has a
        // NaN/+-Inf lane ([`finite_ps`]).
        let by_rule_ps = hot(
            #[inline(always)]
            |pre: &[__m256; 4]| {
                if S != src::F32 || R == range::ERROR {
                    return None;
                }
                if !finite_ps(cpu, pre) {
                    return None;
                }
                let (two31, magnitude) = (_mm256_set1_ps(2_147_483_648.0), _mm256_set1_epi32(i32::MAX));
                Some(array_map(
                    *pre,
                    #[inline(always)]
                    |x| {
                        if R == range::CLAMP {
                            return clamp_above_ps(cpu, f32_to_i32::<M>(cpu, x), x);
                        }
                        let bits = _mm256_and_si256(_mm256_castps_si256(x), magnitude);
                        let beyond = _mm256_cmp_ps::<_CMP_GE_OQ>(_mm256_castsi256_ps(bits), two31);
                        wrap_beyond_ps::<M>(cpu, x, _mm256_castps_si256(beyond))
                    },
                ))
            },
        );
        // int32 targets with clamp or wrap from float64 and float32: the steps after one
        // with lanes beyond i32 try `by_clamp` / `by_sum` / `by_rule_ps`, which
        // cost more than the general form in range and less than the general form with its
        // redo, so data with many such lanes takes them and data without never does.
        let adapt = T == tgt::I32 && matches!(S, src::F64 | src::F32) && R != range::ERROR;
        const DIRECT_RUN: u32 = 16;
        let mut run_direct = 0u32;
        let step = hot(
            #[inline(always)]
            |s: &[u8], d: &mut [u8]| {
                let Some(d) = d.get_mut(..N * ds) else { return u32::MAX };
                let pre = if S == src::F64 { [_mm256_setzero_ps(); 4] } else { f32_lanes::<S, 4>(cpu, s, &mini) };
                let pre = if SUB {
                    let [a, b, c, e] = pre;
                    [sub.apply(a), sub.apply(b), sub.apply(c), sub.apply(e)]
                } else {
                    pre
                };
                // The byte float types' special codes, found by their bytes (32 at a time).
                let special = if S == src::MINI { mini.specials.in_slice(s) } else { 0 };
                // int32 targets with clamp or wrap, after a step with lanes beyond i32 (`adapt`):
                // every lane's value without the general form's test, where the step allows.
                // (Matches, not `Option::or_else`: a std combinator is left to the inliner's
                // cost model, and out of line it takes the three forms' intrinsics with it.)
                let direct = if run_direct > 0 {
                    run_direct -= 1;
                    match by_clamp(s) {
                        Some(v) => Some(v),
                        None => match by_sum(s) {
                            Some(v) => Some(v),
                            None => by_rule_ps(&pre),
                        },
                    }
                } else {
                    None
                };
                let v = match direct {
                    Some(v) => v,
                    None => [raw(0, s, &pre), raw(1, s, &pre), raw(2, s, &pre), raw(3, s, &pre)],
                };
                let ((a, fa), (b, fb), (c, fc), (e, fe)) = (conv(v[0]), conv(v[1]), conv(v[2]), conv(v[3]));
                if by_words {
                    let (ab, ce) = (_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, e));
                    // SAFETY: `d` holds N bytes (checked just above); an unaligned store.
                    unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes_of_words(cpu, ab, ce, signed)) };
                    let any = _mm256_or_si256(_mm256_sub_epi16(ab, lo16), _mm256_sub_epi16(ce, lo16));
                    if _mm256_testz_si256(any, outside16) != 0 {
                        return special;
                    }
                    return flags(array_map(
                        [a, b, c, e],
                        #[inline(always)]
                        |x| _mm256_sub_epi32(x, vlo),
                    )) | special;
                }
                let (a, b, c, e, flagged) = if direct.is_some() {
                    (a, b, c, e, 0)
                } else if !beyond {
                    (a, b, c, e, flags([fa, fb, fc, fe]))
                } else if clear(&[fa, fb, fc, fe]) {
                    (a, b, c, e, 0)
                } else {
                    // Lanes beyond i32: the rule's values, in the lanes; NaN/+-Inf flagged,
                    // per lane only if there are any.
                    if adapt {
                        run_direct = DIRECT_RUN;
                    }
                    let ((va, ka), (vb, kb), (vc, kc), (ve, ke)) =
                        (fix(0, s, &pre, v[0]), fix(1, s, &pre, v[1]), fix(2, s, &pre, v[2]), fix(3, s, &pre, v[3]));
                    let any = _mm256_or_si256(_mm256_or_si256(ka, kb), _mm256_or_si256(kc, ke));
                    let flagged = if _mm256_testz_si256(any, any) != 0 {
                        0
                    } else {
                        lanes8(cpu, ka) | lanes8(cpu, kb) << 8 | lanes8(cpu, kc) << 16 | lanes8(cpu, ke) << 24
                    };
                    (conv(va).0, conv(vb).0, conv(vc).0, conv(ve).0, flagged)
                };
                let flagged = flagged | special;
                let q = d.as_mut_ptr();
                // SAFETY: `d` holds N * ds bytes (checked just above); unaligned stores inside it.
                unsafe {
                    match ds {
                        8 => {
                            for (k, v) in [a, b, c, e].into_iter().enumerate() {
                                _mm256_storeu_si256(
                                    q.add(64 * k).cast(),
                                    _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                );
                                let hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(v));
                                _mm256_storeu_si256(q.add(64 * k + 32).cast(), hi);
                            }
                        }
                        4 => {
                            for (k, v) in [a, b, c, e].into_iter().enumerate() {
                                _mm256_storeu_si256(q.add(32 * k).cast(), v);
                            }
                        }
                        2 => {
                            _mm256_storeu_si256(q.cast(), words_of(cpu, a, b, signed, mask_low));
                            _mm256_storeu_si256(q.add(32).cast(), words_of(cpu, c, e, signed, mask_low));
                        }
                        _ => _mm256_storeu_si256(q.cast(), bytes_of(cpu, [a, b, c, e], signed, mask_low)),
                    }
                }
                flagged
            },
        );
        // Two halves per step for byte targets, not for float64 sources (measured slower that
        // way: their steps are not short).
        let halves = if ds == 1 && S != src::F64 { 2 } else { 1 };
        chunked_halves::<N>(dir, src, dst, (ss, ds), halves, step)
    }
}
use f2i::{f2i_pack, f2i_pack_sub};

// Its own codegen unit, as `to_f16`.
mod wide {
    use super::*;

    // float16/bfloat16/float32 -> uint32, in f32: round in the requested mode (exact), compare
    // with the limits, clamp or wrap in-lane; results from 2^31 are converted as r - 2^32 (exact,
    // same low 32 bits). 16 elements per step.
    entry!(pub(super) f2u32<const S: u8, const M: u8, const R: u8>, f2u32_body[false]);
    // The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]).
    entry!(pub(super) f2u32_sub<const S: u8, const M: u8, const R: u8>, f2u32_body[true]);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn f2u32_body<const S: u8, const M: u8, const R: u8, const SUB: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 16;
        let ss = src::size(S);
        // uint32's limits as f32, rounded inwards: the largest f32 below 2^32 is 2^32 - 256, so
        // `r > hi` means `r >= 2^32`.
        let (vlo, vhi) = (_mm256_setzero_ps(), _mm256_set1_ps(4_294_967_040.0));
        let ihi = _mm256_set1_epi32(-1);
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
        let iabs = _mm256_set1_epi32(i32::MAX);
        let (man, hidden, field_150) =
            (_mm256_set1_epi32(0x7f_ffff), _mm256_set1_epi32(0x80_0000), _mm256_set1_epi32(150));
        let two31 = _mm256_set1_ps(2_147_483_648.0);
        let two32 = _mm256_set1_ps(4_294_967_296.0);
        let cvt = hot(
            #[inline(always)]
            |c: __m256| {
                _mm256_cvttps_epi32(_mm256_sub_ps(c, _mm256_and_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(c, two31), two32)))
            },
        );
        // One vector of eight lanes: (integers, lanes that need the scalar reference). The
        // unordered compares flag NaN with the out-of-range lanes, and +-Inf is out of range,
        // so only clamp and wrap need a separate NaN/Inf test.
        let conv = hot(
            #[inline(always)]
            |x: __m256| {
                let r = round_ps::<M>(cpu, x);
                match R {
                    range::CLAMP => {
                        let i = cvt(_mm256_min_ps(_mm256_max_ps(r, vlo), vhi));
                        // Above the limit: the integer maximum (uint32's is not an f32).
                        let i = _mm256_blendv_epi8(i, ihi, _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(r, vhi)));
                        (i, special_ps(cpu, x))
                    }
                    range::WRAP => {
                        // From 2^31 on, the rounded value is its significand shifted left by
                        // `field - 150` (>= 8): the low 32 bits of that (a count past 31 gives 0),
                        // negated for negative lanes, are the result modulo 2^32.
                        let bits = _mm256_castps_si256(r);
                        let count = _mm256_sub_epi32(_mm256_srli_epi32::<23>(_mm256_and_si256(bits, iabs)), field_150);
                        let n = _mm256_sllv_epi32(_mm256_or_si256(_mm256_and_si256(bits, man), hidden), count);
                        let neg = _mm256_srai_epi32::<31>(bits);
                        let n = _mm256_sub_epi32(_mm256_xor_si256(n, neg), neg);
                        let big = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GE_OQ>(_mm256_and_ps(r, abs), two31));
                        (_mm256_blendv_epi8(_mm256_cvttps_epi32(r), n, big), special_ps(cpu, x))
                    }
                    _ => {
                        let out =
                            _mm256_or_ps(_mm256_cmp_ps::<_CMP_NGE_UQ>(r, vlo), _mm256_cmp_ps::<_CMP_NLE_UQ>(r, vhi));
                        (cvt(r), _mm256_castps_si256(out))
                    }
                }
            },
        );
        let mini = Mini::of(dir.from.format());
        let sub = Substitute::of(dir, SUB);
        chunked::<N>(
            dir,
            src,
            dst,
            (ss, 4),
            #[inline(always)]
            |s, d| {
                let [x0, x1] = f32_lanes::<S, 2>(cpu, s, &mini);
                let [x0, x1] = if SUB { [sub.apply(x0), sub.apply(x1)] } else { [x0, x1] };
                let ((i0, c0), (i1, c1)) = (conv(x0), conv(x1));
                store16::<4>(cpu, d, i0, i1);
                lanes16(cpu, c0, c1)
            },
        )
    }

    // float64 -> uint32: the same in f64 (every limit exact), 8 per step.
    entry!(pub(super) f64_to_u32<const M: u8, const R: u8>, f64_to_u32_body);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn f64_to_u32_body<const M: u8, const R: u8>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 8;
        let (vlo, vhi) = (_mm256_setzero_pd(), _mm256_set1_pd(u32::MAX as f64));
        let inv32 = _mm256_set1_pd(1.0 / 4_294_967_296.0);
        let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
        let inf = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0_0000_0000_0000));
        let two31 = _mm256_set1_pd(2_147_483_648.0);
        let two32 = _mm256_set1_pd(4_294_967_296.0);
        chunked::<N>(
            dir,
            src,
            dst,
            (8, 4),
            #[inline(always)]
            |s, d| {
                let Some((a, b)) = load64_pd(cpu, s) else { return u32::MAX };
                // Four lanes: (integers, lanes that need the scalar reference as a 4-bit mask).
                let conv = hot(
                    #[inline(always)]
                    |x: __m256d| {
                        let r = round_pd::<M>(cpu, x);
                        // NaN or +-Inf: the range rule does not apply to them, cold.
                        let special = _mm256_cmp_pd::<_CMP_NLT_UQ>(_mm256_and_pd(x, abs), inf);
                        let (c, cold) = match R {
                            range::CLAMP => (_mm256_min_pd(_mm256_max_pd(r, vlo), vhi), special),
                            // r modulo 2^32 in [0, 2^32): r / 2^32 and its floor are exact, and so is
                            // the difference, a multiple of r's ulp below 2^32 (0 from 2^85 on).
                            range::WRAP => {
                                let k = _mm256_round_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(
                                    _mm256_mul_pd(r, inv32),
                                );
                                (_mm256_fnmadd_pd(k, two32, r), special)
                            }
                            _ => {
                                let out = _mm256_or_pd(
                                    _mm256_cmp_pd::<_CMP_LT_OQ>(r, vlo),
                                    _mm256_cmp_pd::<_CMP_GT_OQ>(r, vhi),
                                );
                                (r, _mm256_or_pd(special, out))
                            }
                        };
                        // Results from 2^31: converted as r - 2^32 (exact), same low 32 bits.
                        let c = _mm256_sub_pd(c, _mm256_and_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(c, two31), two32));
                        (_mm256_cvttpd_epi32(c), _mm256_movemask_pd(cold) as u32)
                    },
                );
                let ((ia, ma), (ib, mb)) = (conv(a), conv(b));
                store8::<4>(cpu, d, _mm256_set_m128i(ib, ia));
                ma | mb << 4
            },
        )
    }

    // float64/float32/float16/bfloat16 -> int64/uint64: round in f64 (exact), then take the
    // integer from the pattern: significand (hidden bit included) shifted by exponent - 1075,
    // left or right (a rounded value's bits below the point are zero; shifts of 64 or more give
    // 0, so a zero's forced hidden bit vanishes and a left shift gives the value modulo 2^64,
    // which is the wrap). The sign by two's complement. NaN/Inf are flagged; out-of-range lanes
    // are flagged without a rule and take the nearer limit with clamp. 8 per step.
    entry!(pub(super) f2i_wide<const S: u8, const M: u8, const R: u8>, f2i_wide_body);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn f2i_wide_body<const S: u8, const M: u8, const R: u8>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 8;
        let (lo, hi) = dir.to.format().int_bounds();
        // Limits as f64: -2^63 or 0 (exact); above, 2^63 or 2^64, the first value out of range.
        let (vlo, vtop) = (_mm256_set1_pd(lo as f64), _mm256_set1_pd((hi + 1) as f64));
        let (ilo, ihi) = (_mm256_set1_epi64x(lo as i64), _mm256_set1_epi64x(hi as i64));
        let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
        let inf = _mm256_set1_pd(f64::INFINITY);
        let man = _mm256_set1_epi64x((1 << 52) - 1);
        let hidden = _mm256_set1_epi64x(1 << 52);
        let bias = _mm256_set1_epi64x(1075);
        let conv = hot(
            #[inline(always)]
            |x: __m256d| {
                let r = round_pd::<M>(cpu, x);
                let bits = _mm256_castpd_si256(r);
                let field = _mm256_srli_epi64::<52>(_mm256_castpd_si256(_mm256_and_pd(r, abs)));
                let m = _mm256_or_si256(_mm256_and_si256(bits, man), hidden);
                let n = _mm256_or_si256(
                    _mm256_sllv_epi64(m, _mm256_sub_epi64(field, bias)),
                    _mm256_srlv_epi64(m, _mm256_sub_epi64(bias, field)),
                );
                let neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), bits);
                let i = _mm256_sub_epi64(_mm256_xor_si256(n, neg), neg);
                let special = _mm256_cmp_pd::<_CMP_NLT_UQ>(_mm256_and_pd(x, abs), inf);
                let below = _mm256_cmp_pd::<_CMP_LT_OQ>(r, vlo);
                let above = _mm256_cmp_pd::<_CMP_GE_OQ>(r, vtop);
                let (i, flag) = match R {
                    range::ERROR => (i, _mm256_or_pd(special, _mm256_or_pd(below, above))),
                    range::CLAMP => {
                        let i = _mm256_blendv_epi8(i, ilo, _mm256_castpd_si256(below));
                        (_mm256_blendv_epi8(i, ihi, _mm256_castpd_si256(above)), special)
                    }
                    _ => (i, special),
                };
                (i, _mm256_movemask_pd(flag) as u32)
            },
        );
        chunked::<N>(
            dir,
            src,
            dst,
            (src::size(S), 8),
            #[inline(always)]
            |s, d| {
                let (a, b) = if S == src::F64 {
                    load8_pd::<S>(cpu, s)
                } else {
                    let x = load8::<S>(cpu, s);
                    (_mm256_cvtps_pd(_mm256_castps256_ps128(x)), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)))
                };
                let ((ia, ma), (ib, mb)) = (conv(a), conv(b));
                let Some(d) = d.get_mut(..64) else { return u32::MAX };
                // SAFETY: `d` holds 64 bytes (checked just above); unaligned stores.
                unsafe {
                    _mm256_storeu_si256(d.as_mut_ptr().cast(), ia);
                    _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), ib);
                }
                ma | mb << 4
            },
        )
    }
}
use wide::{f2i_wide, f2u32, f2u32_sub, f64_to_u32};
by_density!(f2u32_map<const S: u8, const M: u8, const R: u8>, f2u32, f2u32_sub);

// Its own codegen unit, as `to_f16`.
mod mini {
    use super::*;

    // float16/float32 (and the integers below) -> a byte float type with subnormals and a sign
    // (float4, float6, every float8 but e8m0fnu; bfloat16 has `bf16_to_mini`) in integer bits
    // where the result is normal: the f32 magnitude with its exponent rebiased to the target's,
    // plus the mode's increment, shifted right by 23 - m, is the target's pattern (a carry out of
    // the mantissa moves the exponent up, as rounding should). Where the result is subnormal (|x|
    // < 2^(1 - bias)) it is x * 2^(bias - 1 + m) (exact) rounded to an integer in the mode. One
    // rounding either way, and no float16 subnormals (which slow F16C's conversions down on this
    // machine). Packed to bytes, codes above the largest finite one go cold (NaN and Inf among
    // them), then the sign is merged in (`NZ`: not on zero results, for the types without -0).
    // Integer sources (int16, uint16, the capped wider ones) take the integer form alone: their
    // values are 0 or at least 1, never below such a target's least normal magnitude (bias >= 1),
    // nearest-even among them (half an ulp less one, plus the result's last bit). Float lanes
    // towards +-Inf take one path for both ranges (`conv_dir`: a scaled `vroundps`), and
    // nearest-even another: the magnitude plus 2^(E + 23 - m), where E is its exponent clamped to
    // the target's least normal one, is rounded by the f32 addition (default MXCSR) to a multiple
    // of the target's ulp at E, and the sum's low bits are that multiple (2^m.. for normal
    // results, 0..2^m for subnormal ones), to which the exponent field shifted into place adds
    // the rest of the code. Far out of range the code still comes out above every limit: while
    // the addend is finite it is the exact code (over 255); where it is Inf the sum is too and
    // the code is the exponent's part alone (over 255); beyond that the addend's bits pass the
    // sign bit, and for NaN/Inf as well, the code is negative, which the signed pack takes to
    // -2^15 and the 16-bit offset wraps to 2^15 - 2000 or more. 32 elements per step.
    entry!(pub(super) to_mini<const S: u8, const M: u8, const NZ: bool>, to_mini_body[false]);
    // The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]): float16,
    // float32.
    entry!(pub(super) to_mini_sub<const S: u8, const M: u8, const NZ: bool>, to_mini_body[true]);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn to_mini_body<const S: u8, const M: u8, const NZ: bool, const SUB: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let ss = src::size(S);
        let t = dir.to.format();
        let sh = 23 - t.man_bits as i32;
        // A per-lane shift count: `vpsrlvd` is one uop, the shift by an xmm count two.
        let shift = _mm256_set1_epi32(sh);
        // The least normal magnitude 2^(1 - bias), whose f32 field is 128 - bias; the scale
        // 2^(bias - 1 + m), a normal f32 for every such target (bias <= 16, m <= 4).
        let threshold = _mm256_set1_epi32((128 - t.bias) << 23);
        let scale = _mm256_castsi256_ps(_mm256_set1_epi32((126 + t.bias + t.man_bits as i32) << 23));
        let (half, ulp) = (1i32 << (sh - 1), (1i32 << sh) - 1);
        // (Nearest-even takes `conv_ne` below, but for integer sources: half less one, plus
        // the result's last bit.)
        let base = match M {
            mode::NA => half,
            mode::NE => half - 1,
            _ => 0,
        };
        let rebias = _mm256_set1_epi32(((t.bias - 127) << 23) + base);
        let ulp = _mm256_set1_epi32(ulp);
        let abs_mask = _mm256_set1_epi32(i32::MAX);
        let int = matches!(S, src::I16 | src::U16 | src::CAP_I32 | src::CAP_U32 | src::CAP_I64 | src::CAP_U64);
        let conv = hot(
            #[inline(always)]
            |x: __m256| {
                let bits = _mm256_castps_si256(x);
                let mag = _mm256_and_si256(bits, abs_mask);
                let inc = match M {
                    mode::TP => _mm256_andnot_si256(_mm256_srai_epi32::<31>(bits), ulp),
                    mode::TN => _mm256_and_si256(_mm256_srai_epi32::<31>(bits), ulp),
                    mode::NE => _mm256_and_si256(_mm256_srlv_epi32(mag, shift), _mm256_set1_epi32(1)),
                    _ => _mm256_setzero_si256(),
                };
                let biased = _mm256_add_epi32(_mm256_add_epi32(mag, rebias), inc);
                if int {
                    // An integer is 0 or at least 1, the least normal magnitude of every such
                    // target (bias >= 1) or more: no subnormal path. 0's sum is negative, and
                    // the arithmetic shift keeps it so, for the unsigned pack's 0.
                    return _mm256_srav_epi32(biased, shift);
                }
                let normal = _mm256_srlv_epi32(biased, shift);
                // (Towards +-Inf float lanes take `conv_dir` below, nearest-even `conv_ne`.)
                let sub = match M {
                    // The magnitude plus the float just below 1/2, in one rounding (see `to_i32`).
                    mode::NA => {
                        _mm256_cvttps_epi32(_mm256_fmadd_ps(_mm256_castsi256_ps(mag), scale, below_half_ps(cpu)))
                    }
                    _ => f32_to_i32::<M>(cpu, _mm256_mul_ps(_mm256_castsi256_ps(mag), scale)),
                };
                _mm256_blendv_epi8(normal, sub, _mm256_cmpgt_epi32(threshold, mag))
            },
        );
        let exp_mask = _mm256_set1_epi32(0x7f80_0000);
        let magic_off = _mm256_set1_epi32(sh << 23);
        // The code is the sum's low bits plus the exponent field shifted, less this (16 bits).
        let code_off = _mm256_set1_epi16(((128 - t.bias) << t.man_bits) as i16);
        // E of both one-path forms below: the exponent field in place, clamped to the target's
        // least normal one.
        let field = hot(
            #[inline(always)]
            |x: __m256| _mm256_max_epi32(_mm256_and_si256(_mm256_castps_si256(x), exp_mask), threshold),
        );
        let conv_ne = hot(
            #[inline(always)]
            |x: __m256| {
                let mag = _mm256_and_si256(_mm256_castps_si256(x), abs_mask);
                let e = field(x);
                let magic = _mm256_add_epi32(e, magic_off);
                let sum = _mm256_add_ps(_mm256_castsi256_ps(mag), _mm256_castsi256_ps(magic));
                _mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(sum), magic), _mm256_srlv_epi32(e, shift))
            },
        );
        // Towards +-Inf, one path for both ranges too: the signed value times 2^(m + 127 - E),
        // E its exponent field clamped as in `conv_ne` (exact), has the target's grid at E as
        // its integers; `vroundps` rounds it in the mode, and the integer's magnitude plus the
        // exponent field shifted into place is the code, less the same offset as `conv_ne`'s
        // (a carry to 2^(m + 1) is the next binade's first code). NaN/Inf convert to i32::MIN,
        // whose absolute value is itself: a negative code, which goes cold as there.
        let scale_base = _mm256_set1_epi32((254 + t.man_bits as i32) << 23);
        let conv_dir = hot(
            #[inline(always)]
            |x: __m256| {
                let e = field(x);
                let scaled = _mm256_mul_ps(x, _mm256_castsi256_ps(_mm256_sub_epi32(scale_base, e)));
                let k = _mm256_abs_epi32(_mm256_cvtps_epi32(round_ps::<M>(cpu, scaled)));
                _mm256_add_epi32(k, _mm256_srlv_epi32(e, shift))
            },
        );
        let limit = _mm256_set1_epi8(((t.max_bits() & !t.sign_mask()) + 1) as i8);
        // Clamp: a finite lane beyond the range (its code is at least `limit`: the code of the
        // rounded value, whose exponent is unbounded) takes Inf's code, the next one up, or the
        // largest finite code where there is no Inf; only NaN/+-Inf lanes go cold.
        let clamp = dir.out_of_range == Some(OutOfRange::Clamp);
        let clamped = _mm256_set1_epi8(t.clamp_above_bits() as i8);
        let sign_bit = _mm256_set1_epi8(t.sign_mask() as i8);
        let mini = Mini::of(dir.from.format());
        let sub = Substitute::of(dir, SUB);
        chunked_halves::<N>(
            dir,
            src,
            dst,
            (ss, 1),
            2,
            #[inline(always)]
            |s, d| {
                let Some(d) = d.get_mut(..N) else { return u32::MAX };
                // (Four bindings, not an array map: that kept `conv` out of line, 3x slower.)
                let [x0, x1, x2, x3] = f32_lanes::<S, 4>(cpu, s, &mini);
                let [x0, x1, x2, x3] =
                    if SUB { [sub.apply(x0), sub.apply(x1), sub.apply(x2), sub.apply(x3)] } else { [x0, x1, x2, x3] };
                // Codes below 2^15, so both packs are exact up to the byte saturation at 255, which
                // is above every limit; bytes in the order (k, 0..4) for k = 0..4, then (k, 4..8).
                let codes = if matches!(M, mode::NE | mode::TP | mode::TN) && !int {
                    // The signed packs saturate large codes at 2^15 - 1 and negative ones (see
                    // above) at -2^15; both stay above 255 once the offset is taken off.
                    let conv = hot(
                        #[inline(always)]
                        |x| if M == mode::NE { conv_ne(x) } else { conv_dir(x) },
                    );
                    let (c0, c1, c2, c3) = (conv(x0), conv(x1), conv(x2), conv(x3));
                    let words = hot(
                        #[inline(always)]
                        |a, b| _mm256_sub_epi16(_mm256_packs_epi32(a, b), code_off),
                    );
                    _mm256_packus_epi16(words(c0, c1), words(c2, c3))
                } else {
                    let (c0, c1, c2, c3) = (conv(x0), conv(x1), conv(x2), conv(x3));
                    _mm256_packus_epi16(_mm256_packus_epi32(c0, c1), _mm256_packus_epi32(c2, c3))
                };
                let mut over = _mm256_cmpeq_epi8(_mm256_max_epu8(codes, limit), codes);
                let bits = hot(
                    #[inline(always)]
                    |v: __m256| _mm256_castps_si256(v),
                );
                let codes = if clamp && _mm256_testz_si256(over, over) == 0 {
                    if finite_ps(cpu, &[x0, x1, x2, x3]) {
                        // No NaN/+-Inf lane: every lane over the limit clamps.
                        let fixed = _mm256_blendv_epi8(codes, clamped, over);
                        over = _mm256_setzero_si256();
                        fixed
                    } else {
                        // NaN/+-Inf lanes as bytes in the codes' order (the packs of `signs` below).
                        let special = _mm256_packs_epi16(
                            _mm256_packs_epi32(special_ps(cpu, x0), special_ps(cpu, x1)),
                            _mm256_packs_epi32(special_ps(cpu, x2), special_ps(cpu, x3)),
                        );
                        let fixed = _mm256_blendv_epi8(codes, clamped, _mm256_andnot_si256(special, over));
                        over = special;
                        fixed
                    }
                } else {
                    codes
                };
                // The signed packs keep each lane's sign (bit 31 to bit 7), in the codes' order;
                // then all ones where negative, for the sign bits of targets narrower than a byte.
                let signs =
                    _mm256_packs_epi16(_mm256_packs_epi32(bits(x0), bits(x1)), _mm256_packs_epi32(bits(x2), bits(x3)));
                let signs = _mm256_cmpgt_epi8(_mm256_setzero_si256(), signs);
                let mut signs = _mm256_and_si256(signs, sign_bit);
                if NZ {
                    signs = _mm256_andnot_si256(_mm256_cmpeq_epi8(codes, _mm256_setzero_si256()), signs);
                }
                let bytes = in_order(cpu, _mm256_or_si256(codes, signs));
                // SAFETY: `d` holds 32 bytes (checked just above); an unaligned store.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes) };
                if _mm256_testz_si256(over, over) != 0 {
                    return 0;
                }
                _mm256_movemask_epi8(in_order(cpu, over)) as u32
            },
        )
    }

    // bfloat16 -> the byte float types of `to_mini`, in 16-bit lanes (16 per op, not 8).
    // Where the result is normal: bfloat16's own pattern, its exponent rebiased, plus the
    // mode's increment, shifted right by the difference of the mantissa widths, as `to_mini`'s
    // integer form. Where it is subnormal (magnitudes below the target's least normal one):
    // x * 2^(bias - 1 + m) in f32 (the bits in the top half: exact) rounded to an integer in
    // the mode, as `to_mini` does. One rounding either way. Packed to bytes, codes above the
    // largest finite one go cold (NaN and Inf among them; with clamp only those two, the
    // others clamped in the lanes as `to_mini` does), then the sign is merged in (`NZ`: not on
    // zero results). 32 elements per step. (float16 the same way measured no faster
    // than `to_mini`: its subnormal-range lanes need F16C, or two ops more per 8, to reach f32.)
    entry!(pub(super) bf16_to_mini<const M: u8, const NZ: bool>, bf16_to_mini_body[false]);
    // The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute::apply16`]).
    entry!(pub(super) bf16_to_mini_sub<const M: u8, const NZ: bool>, bf16_to_mini_body[true]);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn bf16_to_mini_body<const M: u8, const NZ: bool, const SUB: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let t = dir.to.format();
        let f = DataType::BFloat16.format();
        let (ms, mt) = (f.man_bits as i32, t.man_bits as i32);
        let sh = ms - mt;
        let shift = _mm_cvtsi32_si128(sh);
        // The normal path's addend: the rebias (a multiple of 2^ms, so the result's last bit
        // is bit `sh` of the magnitude) and the mode's constant part.
        let base = match M {
            mode::NE => (1 << (sh - 1)) - 1,
            mode::NA => 1 << (sh - 1),
            _ => 0,
        };
        let addend = _mm256_set1_epi16((base - ((f.bias - t.bias) << ms)) as i16);
        let ulp = _mm256_set1_epi16(((1 << sh) - 1) as i16);
        let one = _mm256_set1_epi16(1);
        let threshold = _mm256_set1_epi16(((f.bias + 1 - t.bias) << ms) as i16);
        let scale = _mm256_castsi256_ps(_mm256_set1_epi32((126 + t.bias + mt) << 23));
        let abs_mask = _mm256_set1_epi16(i16::MAX);
        let zero = _mm256_setzero_si256();
        let directed = matches!(M, mode::TP | mode::TN);
        let conv = hot(
            #[inline(always)]
            |x: __m256i| {
                let mag = _mm256_and_si256(x, abs_mask);
                let inc = match M {
                    mode::NE => _mm256_and_si256(_mm256_srl_epi16(mag, shift), one),
                    mode::TP => _mm256_andnot_si256(_mm256_srai_epi16::<15>(x), ulp),
                    mode::TN => _mm256_and_si256(_mm256_srai_epi16::<15>(x), ulp),
                    _ => zero,
                };
                let normal = _mm256_srl_epi16(_mm256_add_epi16(_mm256_add_epi16(mag, addend), inc), shift);
                // The directed modes round the signed value, the others the magnitude.
                let v = if directed { x } else { mag };
                let round = hot(
                    #[inline(always)]
                    |p: __m256| match M {
                        // The magnitude plus the float just below 1/2, in one rounding (see `to_i32`).
                        mode::NA => _mm256_cvttps_epi32(_mm256_fmadd_ps(p, scale, below_half_ps(cpu))),
                        mode::TP | mode::TN => _mm256_abs_epi32(f32_to_i32::<M>(cpu, _mm256_mul_ps(p, scale))),
                        _ => f32_to_i32::<M>(cpu, _mm256_mul_ps(p, scale)),
                    },
                );
                // The in-lane unpacks under zeros, packed back in lane: element order.
                let (a, b) = (_mm256_unpacklo_epi16(zero, v), _mm256_unpackhi_epi16(zero, v));
                let sub = _mm256_packs_epi32(round(_mm256_castsi256_ps(a)), round(_mm256_castsi256_ps(b)));
                _mm256_blendv_epi8(normal, sub, _mm256_cmpgt_epi16(threshold, mag))
            },
        );
        let limit = _mm256_set1_epi8(((t.max_bits() & !t.sign_mask()) + 1) as i8);
        // Clamp, as `to_mini`: a finite lane over the limit takes Inf's code, or the largest
        // finite one where there is no Inf; only NaN/+-Inf lanes (exponent all ones) go cold.
        let clamp = dir.out_of_range == Some(OutOfRange::Clamp);
        let clamped = _mm256_set1_epi8(t.clamp_above_bits() as i8);
        let sign_bit = _mm256_set1_epi8(t.sign_mask() as i8);
        // float8's sign is bit 7, which the signed pack of the sources keeps as it is.
        let top_sign = t.sign_mask() == 0x80;
        let sub = Substitute::of_bf16(dir, SUB);
        chunked_halves::<N>(
            dir,
            src,
            dst,
            (2, 1),
            2,
            #[inline(always)]
            |s, d| {
                let (Some((xa, xb)), Some(d)) = (load64(cpu, s), d.get_mut(..N)) else { return u32::MAX };
                let (xa, xb) = if SUB { (sub.apply16(xa), sub.apply16(xb)) } else { (xa, xb) };
                // Codes below 2^12: the unsigned-saturating pack is exact up to 255, which is above
                // every limit. Bytes in the order a0..8, b0..8, a8..16, b8..16.
                let codes = _mm256_packus_epi16(conv(xa), conv(xb));
                let mut over = _mm256_cmpeq_epi8(_mm256_max_epu8(codes, limit), codes);
                let p = _mm256_packs_epi16(xa, xb);
                let mut signs = if top_sign {
                    _mm256_and_si256(p, sign_bit)
                } else {
                    _mm256_and_si256(_mm256_cmpgt_epi8(zero, p), sign_bit)
                };
                if NZ {
                    signs = _mm256_andnot_si256(_mm256_cmpeq_epi8(codes, zero), signs);
                }
                let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_or_si256(codes, signs));
                // SAFETY: `d` holds 32 bytes (checked just above); an unaligned store.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes) };
                if _mm256_testz_si256(over, over) != 0 {
                    return 0;
                }
                if clamp {
                    // Here, not before the store, so that in-range steps run the code they
                    // would without a rule. NaN/+-Inf lanes as bytes in the codes' order; the
                    // clamped lanes keep their signs (their codes were not zero).
                    let special = _mm256_packs_epi16(special_bf16(cpu, xa), special_bf16(cpu, xb));
                    let fixed = _mm256_blendv_epi8(codes, clamped, _mm256_andnot_si256(special, over));
                    let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_or_si256(fixed, signs));
                    // SAFETY: as the store above.
                    unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes) };
                    over = special;
                }
                _mm256_movemask_epi8(_mm256_permute4x64_epi64::<0b11_01_10_00>(over)) as u32
            },
        )
    }

    // Any source of 16 bits or more but bfloat16 (`bf16_to_e8m0`) and the 64-bit integers
    // -> float8_e8m0fnu (powers of two
    // 2^-127..2^127, no sign, no zero; its bias is float32's), in f32 lanes ([`load8`]: exact, or
    // rounded to odd, which keeps the one rounding to a power of two correct), float64 in 32-bit
    // lanes of its own (below). A positive normal f32 with field f rounds to code f, or f + 1
    // where the mode rounds up: towards +Inf where any mantissa bit is set, the nearest modes
    // where the first one is (a tie goes up: the reference counts the one-bit significand as odd).
    // Without a rule, zero, f32 subnormals, negative values, NaN/Inf and a carry to 0xff go cold,
    // found on the stored bytes (codes 0 and 0xff), 32 lanes per test: against per-lane tests
    // before the pack, 4 times the lanes per test; sources without f32 subnormals skip the
    // zeroing (the add alone leaves those lanes at 0 or past 0xff). With clamp (`CLAMP`), zeros
    // and negative values (all below the type's range) become the least code, a carry past 0xfe
    // the largest, and only positive f32 subnormals and NaN/Inf go cold (tested per lane: code 0
    // is a value there; integer sources have nothing to test). 32 elements per step.
    entry!(pub(super) to_e8m0<const S: u8, const M: u8, const CLAMP: bool>, to_e8m0_body);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn to_e8m0_body<const S: u8, const M: u8, const CLAMP: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let ss = src::size(S);
        // The mode's rounding as one integer add before the exponent field is read: a
        // positive normal f32's mantissa plus 2^22 (the nearest modes, ties up) or 2^23 - 1
        // (towards +Inf) carries into the field exactly where the code goes up.
        let inc = _mm256_set1_epi32(match M {
            mode::NE | mode::NA => 0x40_0000,
            mode::TP => 0x7f_ffff,
            // Positive lanes (the others go cold): down is towards zero.
            _ => 0,
        });
        let least_normal = _mm256_set1_epi32(0x7f_ffff);
        // Only float32 lanes can be f32 subnormals here (float16's are f32 normals, integers
        // have none); for the other sources the tests below on zero, negative values and
        // NaN/Inf need nothing more: the add leaves their codes at 0 or past 0xff.
        let subnormals = S == src::F32;
        // Integer sources: no NaN/Inf, and every value below 2^33, far under a carry to 0xff.
        let ints = matches!(S, src::I16 | src::U16 | src::ODD_I32 | src::ODD_U32);
        let conv = hot(
            #[inline(always)]
            |x: __m256| {
                let bits = _mm256_castps_si256(x);
                // Lanes that are not positive normal f32s (NaN/Inf are): zero, subnormals,
                // negative values.
                let small = _mm256_cmpgt_epi32(least_normal, bits);
                let code = hot(
                    #[inline(always)]
                    |b| _mm256_srli_epi32::<23>(_mm256_add_epi32(b, inc)),
                );
                if CLAMP {
                    // Zero and negative values (as signed patterns at most 0) take the least code,
                    // a carry past 0xfe the largest; positive subnormals and NaN/Inf (of either
                    // sign) go cold.
                    let low = _mm256_cmpgt_epi32(_mm256_set1_epi32(1), bits);
                    if ints {
                        // Nothing goes cold.
                        return (_mm256_andnot_si256(low, code(bits)), _mm256_setzero_si256());
                    }
                    let t = _mm256_srli_epi32::<23>(bits);
                    let code = _mm256_andnot_si256(low, _mm256_min_epi32(code(bits), _mm256_set1_epi32(0xfe)));
                    let ff = _mm256_set1_epi32(0xff);
                    let nan_inf = _mm256_cmpeq_epi32(_mm256_and_si256(t, ff), ff);
                    (code, if subnormals { _mm256_or_si256(nan_inf, _mm256_andnot_si256(low, small)) } else { nan_inf })
                } else {
                    // Those lanes read as zero, code 0: flagged on the bytes with 0xff and up.
                    (code(if subnormals { _mm256_andnot_si256(small, bits) } else { bits }), _mm256_setzero_si256())
                }
            },
        );
        // float64 (`S` = F64) from its dwords ([`f64_dwords`]): the same rule on its 11-bit
        // field (rebiased by 1023 - 127), the round-up bit from the high dword, or (towards
        // +Inf) any mantissa bit of either. Codes outside 0..=0xfe go cold without a rule
        // (zeros, negative values, NaN/Inf, and everything rounding below 2^-127 or past
        // 2^127 among them); with clamp, zeros and negative values take the least code, codes
        // past 0xfe the largest, and positive values below the range and NaN/Inf go cold.
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
        let conv64 = hot(
            #[inline(always)]
            |(hi, lo): (__m256i, __m256i)| {
                let t = _mm256_srli_epi32::<20>(hi);
                let inc = match M {
                    mode::NE | mode::NA => _mm256_and_si256(_mm256_srli_epi32::<19>(hi), one),
                    mode::TP => {
                        let man = _mm256_or_si256(_mm256_and_si256(hi, _mm256_set1_epi32(0xf_ffff)), lo);
                        _mm256_andnot_si256(_mm256_cmpeq_epi32(man, zero), one)
                    }
                    _ => zero,
                };
                let code = _mm256_add_epi32(t, _mm256_sub_epi32(inc, _mm256_set1_epi32(1023 - 127)));
                let below = _mm256_cmpgt_epi32(zero, code);
                if CLAMP {
                    let mag = _mm256_or_si256(_mm256_and_si256(hi, _mm256_set1_epi32(i32::MAX)), lo);
                    let low = _mm256_or_si256(_mm256_cmpgt_epi32(zero, hi), _mm256_cmpeq_epi32(mag, zero));
                    let field = _mm256_and_si256(t, _mm256_set1_epi32(0x7ff));
                    let nan_inf = _mm256_cmpgt_epi32(field, _mm256_set1_epi32(0x7fe));
                    let code = _mm256_andnot_si256(low, _mm256_min_epi32(code, _mm256_set1_epi32(0xfe)));
                    (code, _mm256_or_si256(nan_inf, _mm256_andnot_si256(low, below)))
                } else {
                    (code, _mm256_or_si256(below, _mm256_cmpgt_epi32(code, _mm256_set1_epi32(0xfe))))
                }
            },
        );
        chunked::<N>(
            dir,
            src,
            dst,
            (ss, 1),
            #[inline(always)]
            |s, d| {
                let Some(d) = d.get_mut(..N) else { return u32::MAX };
                let at = hot(
                    #[inline(always)]
                    |k: usize| {
                        let s = s.get(8 * ss * k..).unwrap_or(&[]);
                        if S == src::F64 {
                            conv64(f64_dwords(cpu, s))
                        } else {
                            conv(load8::<S>(cpu, s))
                        }
                    },
                );
                let ((v0, c0), (v1, c1), (v2, c2), (v3, c3)) = (at(0), at(1), at(2), at(3));
                // Codes from 0 to 0x200, saturated to bytes: above 255 the lane is flagged (with
                // clamp every code is at most 0xfe).
                let bytes = bytes_of(cpu, [v0, v1, v2, v3], false, false);
                // SAFETY: `d` holds 32 bytes (checked just above); an unaligned store.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes) };
                if S != src::F64 && !CLAMP {
                    // Without a rule, 32 lanes per test: code 0 (zero, subnormals, negative
                    // values) and 0xff (NaN/Inf, a carry past 0xfe).
                    let zero = _mm256_cmpeq_epi8(bytes, _mm256_setzero_si256());
                    let bad = _mm256_or_si256(zero, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(-1)));
                    return _mm256_movemask_epi8(bad) as u32;
                }
                if ints {
                    return 0;
                }
                lanes32(cpu, [c0, c1, c2, c3])
            },
        )
    }

    // bfloat16 -> float8_e8m0fnu in 16-bit lanes: `to_e8m0`'s rule on bfloat16's own pattern
    // (its top mantissa bit is bit 6, so the mode's increment is 0x40, or 0x7f towards +Inf;
    // the code is the sum's bits from 7 on), 16 lanes per op, not 8. Without a rule, zero,
    // subnormals and negative values (all below 0x80 as i16) read as zero, code 0, and NaN/Inf
    // and a carry past 0xfe give 0xff or more: both flagged on the stored bytes. With clamp
    // (`CLAMP`), zero and negative values take the least code and a carry past 0xfe the
    // largest; positive subnormals and NaN/Inf go cold. 32 elements per step.
    entry!(pub(super) bf16_to_e8m0<const M: u8, const CLAMP: bool>, bf16_to_e8m0_body);
    #[target_feature(enable = "avx2,fma,f16c,bmi2")]
    fn bf16_to_e8m0_body<const M: u8, const CLAMP: bool>(
        dir: &Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), ElementError> {
        let cpu = Avx2::new();
        const N: usize = 32;
        let inc = _mm256_set1_epi16(match M {
            mode::NE | mode::NA => 0x40,
            mode::TP => 0x7f,
            // Positive lanes (the others are flagged, or clamped to the least code): down is
            // towards zero.
            _ => 0,
        });
        let least_normal = _mm256_set1_epi16(0x80);
        let (one, fe) = (_mm256_set1_epi16(1), _mm256_set1_epi16(0xfe));
        // Sixteen lanes: (codes, cold lanes (with clamp)).
        let conv = hot(
            #[inline(always)]
            |x: __m256i| {
                // Zero, subnormals, negative values.
                let small = _mm256_cmpgt_epi16(least_normal, x);
                if CLAMP {
                    let low = _mm256_cmpgt_epi16(one, x);
                    let code = _mm256_srli_epi16::<7>(_mm256_add_epi16(x, inc));
                    let code = _mm256_andnot_si256(low, _mm256_min_epi16(code, fe));
                    let nan_inf = special_bf16(cpu, x);
                    (code, _mm256_or_si256(nan_inf, _mm256_andnot_si256(low, small)))
                } else {
                    let code = _mm256_srli_epi16::<7>(_mm256_add_epi16(_mm256_andnot_si256(small, x), inc));
                    (code, small)
                }
            },
        );
        chunked::<N>(
            dir,
            src,
            dst,
            (2, 1),
            #[inline(always)]
            |s, d| {
                let (Some((xa, xb)), Some(d)) = (load64(cpu, s), d.get_mut(..N)) else { return u32::MAX };
                let ((a, ca), (b, cb)) = (conv(xa), conv(xb));
                // Codes up to 0x100 (and the sums' wrap, below 0x80 for negative lanes), saturated
                // to bytes; in the order a0..8, b0..8, a8..16, b8..16 before the permute.
                let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
                // SAFETY: `d` holds 32 bytes (checked just above); an unaligned store.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), bytes) };
                let bad = if CLAMP {
                    let cold = _mm256_or_si256(ca, cb);
                    if _mm256_testz_si256(cold, cold) != 0 {
                        return 0;
                    }
                    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(ca, cb))
                } else {
                    let zero = _mm256_cmpeq_epi8(bytes, _mm256_setzero_si256());
                    _mm256_or_si256(zero, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(-1)))
                };
                _mm256_movemask_epi8(bad) as u32
            },
        )
    }
}
use mini::{bf16_to_e8m0, bf16_to_mini, bf16_to_mini_sub, to_e8m0, to_mini, to_mini_sub};
by_density!(bf16_to_mini_map<const M: u8, const NZ: bool>, bf16_to_mini, bf16_to_mini_sub);
by_density!(to_mini_map<const S: u8, const M: u8, const NZ: bool>, to_mini, to_mini_sub);

// uint32/int64/uint64 -> any integer, in 64-bit lanes. The range test compares in the
// source's value space (unsigned sources biased by 2^63 so that the signed compare orders
// them); clamp blends in the nearer limit; wrap keeps the low bits. Narrow targets take the
// low dwords, then the stored form. 8 per step.
entry!(int64_to_int<const SS: usize, const SIGNED: bool, const DS: usize, const R: u8>, int64_to_int_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int64_to_int_body<const SS: usize, const SIGNED: bool, const DS: usize, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 8;
    let (f, t) = (dir.from.format(), dir.to.format());
    let ((slo, shi), (tlo, thi)) = (f.int_bounds(), t.int_bounds());
    let (lo, hi) = (slo.max(tlo), shi.min(thi));
    let bias: i64 = if SIGNED || SS < 8 { 0 } else { i64::MIN };
    let vbias = _mm256_set1_epi64x(bias);
    let (lo_b, hi_b) = (_mm256_set1_epi64x(lo as i64 ^ bias), _mm256_set1_epi64x(hi as i64 ^ bias));
    let (lo_v, hi_v) = (_mm256_set1_epi64x(lo as i64), _mm256_set1_epi64x(hi as i64));
    let form = form_of(t);
    let conv = hot(
        #[inline(always)]
        |x: __m256i| {
            let xb = _mm256_xor_si256(x, vbias);
            let below = _mm256_cmpgt_epi64(lo_b, xb);
            let above = _mm256_cmpgt_epi64(xb, hi_b);
            let v =
                if R == range::CLAMP { _mm256_blendv_epi8(_mm256_blendv_epi8(x, lo_v, below), hi_v, above) } else { x };
            let flag = if R == range::ERROR {
                _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_or_si256(below, above)))
            } else {
                0
            };
            (v, flag as u32)
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (SS, DS),
        #[inline(always)]
        |s, d| {
            let Some(s) = s.get(..N * SS) else { return u32::MAX };
            // SAFETY: `s` holds N * SS bytes (checked just above); unaligned loads.
            let (x, y) = unsafe {
                if SS == 4 {
                    let v = _mm256_loadu_si256(s.as_ptr().cast());
                    (
                        _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),
                        _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v)),
                    )
                } else {
                    (_mm256_loadu_si256(s.as_ptr().cast()), _mm256_loadu_si256(s.as_ptr().add(32).cast()))
                }
            };
            let ((a, ma), (b, mb)) = (conv(x), conv(y));
            if DS == 8 {
                let Some(d) = d.get_mut(..64) else { return u32::MAX };
                // SAFETY: `d` holds 64 bytes (checked just above); unaligned stores.
                unsafe {
                    _mm256_storeu_si256(d.as_mut_ptr().cast(), a);
                    _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), b);
                }
            } else {
                store8::<DS>(cpu, d, in_form(cpu, dwords::<false>(cpu, a, b), form));
            }
            ma | mb << 4
        },
    )
}

/// A byte integer format's stored form as `((x & mask) ^ sign) - sign` on bytes: the value,
/// sign-extended from the format's width (int2, int4, int8) or masked to it (uint2, uint4,
/// uint8: `sign` 0).
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn byte_form(f: &Format) -> (__m256i, __m256i) {
    let mask = f.mask() as u8 as i8;
    let sign = if f.kind == Kind::Signed { f.sign_mask() as u8 as i8 } else { 0 };
    (_mm256_set1_epi8(mask), _mm256_set1_epi8(sign))
}

/// Apply a [`byte_form`] to 32 bytes.
#[inline(always)]
fn in_byte_form(_cpu: Avx2, x: __m256i, (mask, sign): (__m256i, __m256i)) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_sub_epi8(_mm256_xor_si256(_mm256_and_si256(x, mask), sign), sign) }
}

// int2/int4/int8/uint2/uint4/uint8 -> any integer, on bytes: read the stored form, test or
// clamp the range with byte compares (values as i8, or as u8 for a uint8 source, whose
// range starts at 0), wrap to the target's stored form, then widen (sign- or zero-extend,
// which is also the wrap modulo 2^N) for wider targets. 32 elements per step.
entry!(byte_int<const U8: bool, const DS: usize, const R: u8>, byte_int_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn byte_int_body<const U8: bool, const DS: usize, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let (f, t) = (dir.from.format(), dir.to.format());
    let (s_form, t_form) = (byte_form(f), byte_form(t));
    let (lo, hi) = t.int_bounds();
    // The limits within the source's view (i8, or u8 for uint8).
    let (vlo, vhi) = if U8 {
        (_mm256_setzero_si256(), _mm256_set1_epi8(hi.min(255) as u8 as i8))
    } else {
        (_mm256_set1_epi8(lo.max(-128) as i8), _mm256_set1_epi8(hi.min(127) as i8))
    };
    chunked::<N>(
        dir,
        src,
        dst,
        (1, DS),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..N * DS)) else { return u32::MAX };
            // SAFETY: `s` holds 32 bytes (checked just above); an unaligned load.
            let v = in_byte_form(cpu, unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }, s_form);
            let (v, out) = match (R, U8) {
                (range::CLAMP, true) => (_mm256_min_epu8(v, vhi), 0),
                (range::CLAMP, false) => (_mm256_min_epi8(_mm256_max_epi8(v, vlo), vhi), 0),
                (range::WRAP, _) => (if DS == 1 { in_byte_form(cpu, v, t_form) } else { v }, 0),
                (_, true) => (v, !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v, vhi), vhi)) as u32)),
                (_, false) => {
                    let outside = _mm256_or_si256(_mm256_cmpgt_epi8(vlo, v), _mm256_cmpgt_epi8(v, vhi));
                    (v, _mm256_movemask_epi8(outside) as u32)
                }
            };
            let q = d.as_mut_ptr();
            // SAFETY: `d` holds 32 * DS bytes (checked above); unaligned stores of 32 bytes at
            // offsets below that.
            unsafe {
                let half = hot(
                    #[inline(always)]
                    |k: i32| if k == 0 { _mm256_castsi256_si128(v) } else { _mm256_extracti128_si256::<1>(v) },
                );
                match DS {
                    1 => _mm256_storeu_si256(q.cast(), v),
                    2 => {
                        unrolled(
                            2,
                            #[inline(always)]
                            |k| {
                                let h = half(k as i32);
                                let w = if U8 { _mm256_cvtepu8_epi16(h) } else { _mm256_cvtepi8_epi16(h) };
                                _mm256_storeu_si256(q.add(32 * k).cast(), w);
                            },
                        );
                    }
                    4 => {
                        unrolled(
                            4,
                            #[inline(always)]
                            |k| {
                                let h = half((k / 2) as i32);
                                let h = if k % 2 == 0 { h } else { _mm_srli_si128::<8>(h) };
                                let w = if U8 { _mm256_cvtepu8_epi32(h) } else { _mm256_cvtepi8_epi32(h) };
                                _mm256_storeu_si256(q.add(32 * k).cast(), w);
                            },
                        );
                    }
                    _ => {
                        unrolled(
                            8,
                            #[inline(always)]
                            |k| {
                                let h = half((k / 4) as i32);
                                let h = match k % 4 {
                                    0 => h,
                                    1 => _mm_srli_si128::<4>(h),
                                    2 => _mm_srli_si128::<8>(h),
                                    _ => _mm_srli_si128::<12>(h),
                                };
                                let w = if U8 { _mm256_cvtepu8_epi64(h) } else { _mm256_cvtepi8_epi64(h) };
                                _mm256_storeu_si256(q.add(32 * k).cast(), w);
                            },
                        );
                    }
                }
            }
            out
        },
    )
}

// int2/int4/int8/uint2/uint4/uint8 -> float16/bfloat16/float32/float64: every value (at
// most 8 significant bits) is exact in each, so the stored form is widened, converted and,
// for the 16-bit targets, narrowed without loss (F16C, or the top half for bfloat16). No
// lane is special. `T` is the target's size in bytes, `BF16` picks bfloat16. 32 per step.
entry!(byte_to_float<const K: u8, const T: usize, const BF16: bool>, byte_to_float_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn byte_to_float_body<const K: u8, const T: usize, const BF16: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let form = byte_form(dir.from.format());
    let mini = Mini::of(dir.from.format());
    chunked::<N>(
        dir,
        src,
        dst,
        (1, T),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..N * T)) else { return u32::MAX };
            let q = d.as_mut_ptr();
            let mut special = 0;
            let f: [__m256; 4] = if K == src::MINI {
                special = mini.specials.in_slice(s);
                mini.decode32(s)
            } else {
                // SAFETY: `s` holds 32 bytes (checked above); an unaligned load.
                let v = in_byte_form(cpu, unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }, form);
                if K == src::E8M0 {
                    special = mini.specials.in_slice(s);
                }
                array_fn(
                    #[inline(always)]
                    |k| {
                        let h = if k < 2 { _mm256_castsi256_si128(v) } else { _mm256_extracti128_si256::<1>(v) };
                        let h = if k % 2 == 0 { h } else { _mm_srli_si128::<8>(h) };
                        match K {
                            // float8_e8m0fnu: the code is f32's exponent field; code 0 (2^-127) is
                            // f32's subnormal 0x400000, the least pattern any code can take.
                            src::E8M0 => _mm256_castsi256_ps(_mm256_max_epu32(
                                _mm256_slli_epi32::<23>(_mm256_cvtepu8_epi32(h)),
                                _mm256_set1_epi32(0x40_0000),
                            )),
                            src::U8 => _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(h)),
                            _ => _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(h)),
                        }
                    },
                )
            };
            // SAFETY: `d` holds 32 * T bytes (checked above); each store writes 32 of them at a
            // multiple of 32 below that; unaligned stores.
            unsafe {
                for (k, pair) in f.chunks_exact(2).enumerate() {
                    let (a, b) = (
                        pair.first().copied().unwrap_or(_mm256_setzero_ps()),
                        pair.get(1).copied().unwrap_or(_mm256_setzero_ps()),
                    );
                    match (T, BF16) {
                        (2, false) => {
                            let w = _mm256_set_m128i(
                                _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(b),
                                _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(a),
                            );
                            _mm256_storeu_si256(q.add(32 * k).cast(), w);
                        }
                        (2, true) => {
                            let top = hot(
                                #[inline(always)]
                                |x: __m256| _mm256_srli_epi32::<16>(_mm256_castps_si256(x)),
                            );
                            let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(top(a), top(b)));
                            _mm256_storeu_si256(q.add(32 * k).cast(), w);
                        }
                        (4, _) => {
                            _mm256_storeu_ps(q.add(64 * k).cast(), a);
                            _mm256_storeu_ps(q.add(64 * k + 32).cast(), b);
                        }
                        _ => {
                            for (j, x) in [a, b].into_iter().enumerate() {
                                let o = 128 * k + 64 * j;
                                _mm256_storeu_pd(q.add(o).cast(), _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
                                _mm256_storeu_pd(q.add(o + 32).cast(), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)));
                            }
                        }
                    }
                }
            }
            special
        },
    )
}

/// The first float8_e8m0fnu code out of an integer target's range (2^(bits - 1) for the signed
/// ones, 2^bits for the others: 127 plus that exponent) and the target's largest value.
fn e8m0_limit(to: &Format) -> (u8, i128) {
    let exp = to.bits - u32::from(to.kind == Kind::Signed);
    ((127 + exp).min(255) as u8, to.int_bounds().1)
}

/// Unsigned `c >= t` per byte, as all ones (their maximum is `c` itself).
#[inline(always)]
fn at_least_u8(_cpu: Avx2, c: __m256i, t: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe { _mm256_cmpeq_epi8(_mm256_max_epu8(c, t), c) }
}

/// The lanes of 32 float8_e8m0fnu codes `c` for the reference: NaN, and without a rule
/// (`R`) the codes from the first out of range, `limit`, on.
#[inline(always)]
fn e8m0_flags<const R: u8>(cpu: Avx2, specials: &SpecialBytes, c: __m256i, limit: __m256i) -> u32 {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let nan = specials.find(c);
        if R == range::ERROR {
            nan | _mm256_movemask_epi8(at_least_u8(cpu, c, limit)) as u32
        } else {
            nan
        }
    }
}

// float8_e8m0fnu -> int16/uint16: 2^(c - 127) for the codes 127..142 is one of 16 words, two
// `vpshufb` rows (its low and its high bytes) indexed by c - 127. The other codes index with
// bit 7 set, a zero: those below 127 (values below 1, which the mode may take to 1: every
// one towards +Inf, 1/2 (code 126) in nearest-away) and those from 143 (2^16 and up: 0 is
// their wrap). From the first code out of range, `L` (142, 2^15, for int16; 143, 2^16, for
// uint16), clamp stores the largest value and no rule goes cold; NaN (0xff) goes cold.
// Flags on the source bytes. 32 elements per step: against the f32 lanes of `f2i_pack`,
// see docs/design.md.
entry!(e8m0_to_int16<const M: u8, const R: u8>, e8m0_to_int16_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn e8m0_to_int16_body<const M: u8, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let (limit, top) = e8m0_limit(dir.to.format());
    // The largest value's high byte (its low one is 0xff).
    let (limit, top) = (_mm256_set1_epi8(limit as i8), _mm256_set1_epi8((top >> 8) as u8 as i8));
    let specials = SpecialBytes::of(dir.from.format());
    let (low_row, high_row) = (
        _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
        ),
        _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128,
        ),
    );
    let (k127, k126, k143, one) =
        (_mm256_set1_epi8(127), _mm256_set1_epi8(126), _mm256_set1_epi8(-113), _mm256_set1_epi8(1));
    chunked::<N>(
        dir,
        src,
        dst,
        (1, 2),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..N * 2)) else { return u32::MAX };
            // SAFETY: `s` holds 32 bytes (checked above); an unaligned load.
            let c = unsafe { _mm256_loadu_si256(s.as_ptr().cast()) };
            let cold = e8m0_flags::<R>(cpu, &specials, c, limit);
            // Bytes 0..8 and 16..24 to the low lane: the in-lane unpacks below give elements in
            // order.
            let c = _mm256_permute4x64_epi64::<0b11_01_10_00>(c);
            let index = _mm256_or_si256(_mm256_sub_epi8(c, k127), at_least_u8(cpu, c, k143));
            let mut low = _mm256_shuffle_epi8(low_row, index);
            let mut high = _mm256_shuffle_epi8(high_row, index);
            match M {
                // Codes up to 126.
                mode::TP => low = _mm256_or_si256(low, _mm256_and_si256(at_least_u8(cpu, k126, c), one)),
                mode::NA => low = _mm256_or_si256(low, _mm256_and_si256(_mm256_cmpeq_epi8(c, k126), one)),
                _ => {}
            }
            if R == range::CLAMP {
                let over = at_least_u8(cpu, c, limit);
                low = _mm256_or_si256(low, over);
                high = _mm256_blendv_epi8(high, top, over);
            }
            // SAFETY: `d` holds 64 bytes (checked above); unaligned stores.
            unsafe {
                _mm256_storeu_si256(d.as_mut_ptr().cast(), _mm256_unpacklo_epi8(low, high));
                _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), _mm256_unpackhi_epi8(low, high));
            }
            cold
        },
    )
}

// float8_e8m0fnu -> int64/uint64: 2^(b - 127) is 1 << (b - 127) while that count is 0..63
// (`vpsllvq` gives 0 for larger counts, as wrap wants, and for b < 127, whose count is a
// huge unsigned one). Below 1 the mode decides: 1/2 (b = 126) rounds to 1 in nearest-away,
// every b < 127 to 1 towards +Inf, to 0 otherwise. From the first code out of range, `L`
// (190, 2^63, for int64; 191, 2^64, for uint64), clamp stores the largest value and no rule
// goes cold; NaN (0xff) goes cold. Flags on the source bytes, 32 per test. 32 elements
// per step.
entry!(e8m0_to_int64<const M: u8, const R: u8>, e8m0_to_int64_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn e8m0_to_int64_body<const M: u8, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let (limit, top) = e8m0_limit(dir.to.format());
    let limit8 = _mm256_set1_epi8(limit as i8);
    let (limit64, top) = (_mm256_set1_epi64x(i64::from(limit) - 1), _mm256_set1_epi64x(top as u64 as i64));
    let specials = SpecialBytes::of(dir.from.format());
    let (one, half, k127) = (_mm256_set1_epi64x(1), _mm256_set1_epi64x(126), _mm256_set1_epi64x(127));
    chunked::<N>(
        dir,
        src,
        dst,
        (1, 8),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..N * 8)) else { return u32::MAX };
            // SAFETY: `s` holds 32 bytes (checked above); an unaligned load.
            let v = unsafe { _mm256_loadu_si256(s.as_ptr().cast()) };
            let cold = e8m0_flags::<R>(cpu, &specials, v, limit8);
            unrolled(
                N / 4,
                #[inline(always)]
                |k| {
                    let (Some(&[b0, b1, b2, b3]), Some(o)) = (s.get(4 * k..4 * k + 4), d.get_mut(32 * k..32 * k + 32))
                    else {
                        return;
                    };
                    let w = u32::from_le_bytes([b0, b1, b2, b3]);
                    let b = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(w as i32));
                    let mut i = _mm256_sllv_epi64(one, _mm256_sub_epi64(b, k127));
                    match M {
                        // (Subtracting all ones adds one.)
                        mode::NA => i = _mm256_sub_epi64(i, _mm256_cmpeq_epi64(b, half)),
                        mode::TP => i = _mm256_sub_epi64(i, _mm256_cmpgt_epi64(k127, b)),
                        _ => {}
                    }
                    if R == range::CLAMP {
                        i = _mm256_blendv_epi8(i, top, _mm256_cmpgt_epi64(b, limit64));
                    }
                    // SAFETY: `o` holds 32 bytes (a chunk of `d`); an unaligned store.
                    unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), i) };
                },
            );
            cold
        },
    )
}

// uint16 -> int16 (`U`) and int16 -> uint16: the same bits where bit 15 is clear (in range);
// clamp takes the nearer limit (unsigned min with 0x7fff, signed max with 0), wrap keeps
// the bits, and without a rule lanes with bit 15 set are flagged. 32 elements per step.
entry!(sign16<const U: bool, const R: u8>, sign16_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn sign16_body<const U: bool, const R: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    chunked::<N>(
        dir,
        src,
        dst,
        (2, 2),
        #[inline(always)]
        |s, d| {
            let (Some((a, b)), Some(d)) = (load64(cpu, s), d.get_mut(..2 * N)) else { return u32::MAX };
            let y = array_map(
                [a, b],
                #[inline(always)]
                |v| match R {
                    range::CLAMP if U => _mm256_min_epu16(v, _mm256_set1_epi16(i16::MAX)),
                    range::CLAMP => _mm256_max_epi16(v, _mm256_setzero_si256()),
                    _ => v,
                },
            );
            // SAFETY: `d` holds 64 bytes (checked above); unaligned stores.
            unsafe {
                _mm256_storeu_si256(d.as_mut_ptr().cast(), y[0]);
                _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), y[1]);
            }
            let high = _mm256_set1_epi16(i16::MIN);
            if R != range::ERROR || _mm256_testz_si256(_mm256_or_si256(a, b), high) != 0 {
                return 0;
            }
            // One bit per lane: its sign.
            word_signs(cpu, a, b)
        },
    )
}

// int16/int32 (and uint16/uint32 with `U`, capped at the signed maximum first) ->
// int8/uint8/int16/uint16 by the saturating packs, which are exactly clamp (wrap masks
// first; without a rule, out-of-range lanes are flagged). `SIGNED`: the target's. `SUB`:
// int2/int4/uint2/uint4 targets, packed as int8 (saturation keeps a value out of their
// range out of it), then clamped by byte min/max or, for wrap, put in their stored form.
// 32 elements per step to byte targets, 16 to 16-bit ones.
entry!(int_pack<const SS: usize, const DS: usize, const SIGNED: bool, const U: bool, const SUB: bool, const R: u8>, int_pack_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int_pack_body<const SS: usize, const DS: usize, const SIGNED: bool, const U: bool, const SUB: bool, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    let (lo, hi) = dir.to.format().int_bounds();
    let keep16 = _mm256_set1_epi16(0xff);
    let wrap = R == range::WRAP;
    let (sub_lo, sub_hi) = (_mm256_set1_epi8(lo as i8), _mm256_set1_epi8(hi as i8));
    let form = byte_form(dir.to.format());
    // Lanes outside [lo, hi] (only looked at without a rule).
    let out32 = hot(
        #[inline(always)]
        |x: __m256i| {
            let (vlo, vhi) = (_mm256_set1_epi32(lo as i32), _mm256_set1_epi32(hi as i32));
            lanes8(cpu, _mm256_or_si256(_mm256_cmpgt_epi32(vlo, x), _mm256_cmpgt_epi32(x, vhi)))
        },
    );
    let out16 = hot(
        #[inline(always)]
        |x: __m256i| {
            let (vlo, vhi) = (_mm256_set1_epi16(lo as i16), _mm256_set1_epi16(hi as i16));
            let m = _mm256_or_si256(_mm256_cmpgt_epi16(vlo, x), _mm256_cmpgt_epi16(x, vhi));
            word_signs(cpu, m, _mm256_setzero_si256())
        },
    );
    // Whether two vectors of words (saturated from i32 where the source is wider) are all in
    // the byte target's range: `w - lo` has no bit outside the span `hi - lo`, as in `f2i_pack`.
    let (lo16, outside16) = (_mm256_set1_epi16(lo as i16), _mm256_set1_epi16(!((hi - lo) as i16)));
    let clean = hot(
        #[inline(always)]
        |a: __m256i, b: __m256i| {
            let any = _mm256_or_si256(_mm256_sub_epi16(a, lo16), _mm256_sub_epi16(b, lo16));
            _mm256_testz_si256(any, outside16) != 0
        },
    );
    // Pack two vectors of 16-bit lanes to bytes, in element order.
    let bytes = hot(
        #[inline(always)]
        |a: __m256i, b: __m256i| {
            let p = if SIGNED && !wrap { _mm256_packs_epi16(a, b) } else { _mm256_packus_epi16(a, b) };
            _mm256_permute4x64_epi64::<0b11_01_10_00>(p)
        },
    );
    let n = if DS == 1 { 32 } else { 16 };
    chunked_n(
        n,
        dir,
        src,
        dst,
        (SS, DS),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..SS * n), d.get_mut(..32)) else { return u32::MAX };
            let p = s.as_ptr();
            // SAFETY: `s` holds n * SS bytes and `d` 32 (checked just above): 64 or 128 bytes
            // read, 32 written; unaligned loads and stores inside them.
            unsafe {
                let ld = hot(
                    #[inline(always)]
                    |k: usize| {
                        let x = _mm256_loadu_si256(p.add(32 * k).cast());
                        // Unsigned sources: values from 2^(8 SS - 1) are out of every target's range
                        // here, as is the signed maximum they are capped to (wrap keeps the bits).
                        match (U, R, SS) {
                            (false, _, _) | (true, range::WRAP, _) => x,
                            (true, _, 2) => _mm256_min_epu16(x, _mm256_set1_epi16(i16::MAX)),
                            _ => _mm256_min_epu32(x, _mm256_set1_epi32(i32::MAX)),
                        }
                    },
                );
                let (out, v) = match (SS, DS) {
                    (2, _) => {
                        let (a, b) = (ld(0), ld(1));
                        let out =
                            if R != range::ERROR || DS == 1 && clean(a, b) { 0 } else { out16(a) | out16(b) << 16 };
                        let (a, b) = if R == range::WRAP {
                            (_mm256_and_si256(a, keep16), _mm256_and_si256(b, keep16))
                        } else {
                            (a, b)
                        };
                        (out, bytes(a, b))
                    }
                    (_, 1) => {
                        let (a, b, c, e) = (ld(0), ld(1), ld(2), ld(3));
                        if R == range::ERROR {
                            // Tested on the saturated words (16 lanes per op), per lane only if
                            // any is out.
                            let (ab, ce) = (_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, e));
                            let out = if clean(ab, ce) {
                                0
                            } else {
                                out32(a) | out32(b) << 8 | out32(c) << 16 | out32(e) << 24
                            };
                            (out, bytes_of_words(cpu, ab, ce, SIGNED))
                        } else {
                            (0, bytes_of(cpu, [a, b, c, e], SIGNED, wrap))
                        }
                    }
                    _ => {
                        let (a, b) = (ld(0), ld(1));
                        let out = if R == range::ERROR { out32(a) | out32(b) << 8 } else { 0 };
                        (out, words_of(cpu, a, b, SIGNED, wrap))
                    }
                };
                let v = match (SUB, R) {
                    (false, _) => v,
                    (true, range::CLAMP) => _mm256_min_epi8(_mm256_max_epi8(v, sub_lo), sub_hi),
                    (true, range::WRAP) => in_byte_form(cpu, v, form),
                    // Without a rule, in-range values are their own stored form.
                    _ => v,
                };
                _mm256_storeu_si256(d.as_mut_ptr().cast(), v);
                out
            }
        },
    )
}

// Integer sources whose every value is exact in the target float (8/16-bit integers to
// float32/float64, int32/uint32 to float64), and int64/uint64 to float64 nearest-even (one
// rounding, see `load8_pd_int`): a conversion and a store. 8 per step.
entry!(int_to_float_exact<const S: u8, const D: usize>, int_to_float_exact_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int_to_float_exact_body<const S: u8, const D: usize>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 8;
    chunked::<N>(
        dir,
        src,
        dst,
        (src::size(S), D),
        #[inline(always)]
        |s, d| {
            let Some(d) = d.get_mut(..N * D) else { return u32::MAX };
            let q = d.as_mut_ptr();
            // SAFETY: `d` holds N * D bytes (checked just above); unaligned stores inside it.
            unsafe {
                if matches!(S, src::I32 | src::U32 | src::I64 | src::U64) {
                    let (a, b) = load8_pd_int::<S, false>(cpu, s);
                    _mm256_storeu_pd(q.cast(), a);
                    _mm256_storeu_pd(q.add(32).cast(), b);
                } else {
                    let x = load8::<S>(cpu, s);
                    if D == 4 {
                        _mm256_storeu_ps(q.cast(), x);
                    } else {
                        _mm256_storeu_pd(q.cast(), _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
                        _mm256_storeu_pd(q.add(32).cast(), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)));
                    }
                }
            }
            0
        },
    )
}

// int64/uint64 -> float64 towards zero, towards +-Inf or nearest-away: the magnitude's
// nearest-even value and that rounding's exact error ([`int64_round`]). Where the error is
// not zero, the mode's direction moves the value one pattern (adjacent floats, binade
// boundaries included): down where the magnitude went up and the mode truncates it, up where
// it went down and the mode rounds it up, and nearest-away up on a tie that went down (the
// error half of the value's ulp). 8 per step.
entry!(int64_to_f64<const S: u8, const M: u8>, int64_to_f64_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int64_to_f64_body<const S: u8, const M: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 8;
    let exp_field = _mm256_set1_epi64x(0x7ff0_0000_0000_0000);
    let ulp_53 = _mm256_set1_epi64x(53 << 52);
    let conv = hot(
        #[inline(always)]
        |x: __m256i| {
            let (neg, s, e) = int64_round::<S>(cpu, x);
            let zero = _mm256_setzero_pd();
            // All ones where the magnitude went up (`s` above it) or down.
            let went_up = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LT_OQ>(e, zero));
            let went_down = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(e, zero));
            // Subtracting an all-ones mask steps a pattern up, adding it steps one down.
            let bits = _mm256_castpd_si256(s);
            let bits = match M {
                mode::TZ => _mm256_add_epi64(bits, went_up),
                mode::TP => _mm256_sub_epi64(
                    _mm256_add_epi64(bits, _mm256_and_si256(went_up, neg)),
                    _mm256_andnot_si256(neg, went_down),
                ),
                mode::TN => _mm256_sub_epi64(
                    _mm256_add_epi64(bits, _mm256_andnot_si256(neg, went_up)),
                    _mm256_and_si256(went_down, neg),
                ),
                _ => {
                    // Half an ulp of `s`: its exponent field less 53 (a positive f64 wherever
                    // `s` can be inexact, from 2^53 on).
                    let half_ulp = _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_and_si256(bits, exp_field), ulp_53));
                    _mm256_sub_epi64(bits, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_EQ_OQ>(e, half_ulp)))
                }
            };
            _mm256_or_si256(bits, _mm256_slli_epi64::<63>(neg))
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (8, 8),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..8 * N), d.get_mut(..8 * N)) else { return u32::MAX };
            // SAFETY: `s` and `d` hold 64 bytes each (checked just above); unaligned loads and
            // stores.
            unsafe {
                let (p, q) = (s.as_ptr(), d.as_mut_ptr());
                let (x, y) = (_mm256_loadu_si256(p.cast()), _mm256_loadu_si256(p.add(32).cast()));
                _mm256_storeu_si256(q.cast(), conv(x));
                _mm256_storeu_si256(q.add(32).cast(), conv(y));
            }
            0
        },
    )
}

// int64/uint64 -> bfloat16 in 64-bit lanes: the magnitude rounded to odd at 53 bits
// ([`int64_odd`]), then one integer rounding of that f64 pattern, rebiased, at bit 45 (as
// `f32_to_bf16` rounds at bit 16): every such value is a normal bfloat16 or zero, so
// nothing goes cold. 16 elements per step.
entry!(int64_to_bf16<const S: u8, const M: u8>, int64_to_bf16_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int64_to_bf16_body<const S: u8, const M: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 16;
    // f64's exponent bias less bfloat16's, in the exponent field.
    let rebias = _mm256_set1_epi64x((1023 - 127) << 52);
    let low = _mm256_set1_epi64x((1 << 45) - 1);
    let conv = hot(
        #[inline(always)]
        |x: __m256i| {
            let (neg, odd) = int64_odd::<S>(cpu, x);
            let p = _mm256_sub_epi64(odd, rebias);
            let inc = match M {
                mode::NE => _mm256_add_epi64(
                    _mm256_and_si256(_mm256_srli_epi64::<45>(p), _mm256_set1_epi64x(1)),
                    _mm256_set1_epi64x((1 << 44) - 1),
                ),
                mode::NA => _mm256_set1_epi64x(1 << 44),
                mode::TZ => _mm256_setzero_si256(),
                mode::TP => _mm256_andnot_si256(neg, low),
                _ => _mm256_and_si256(neg, low),
            };
            let r = _mm256_srli_epi64::<45>(_mm256_add_epi64(p, inc));
            // Zero's rebiased pattern is garbage: it gives 0.
            let r = _mm256_andnot_si256(_mm256_cmpeq_epi64(odd, _mm256_setzero_si256()), r);
            _mm256_or_si256(r, _mm256_and_si256(neg, _mm256_set1_epi64x(0x8000)))
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (8, 2),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..8 * N), d.get_mut(..2 * N)) else { return u32::MAX };
            // SAFETY: `s` holds 128 bytes and `d` 32 (checked just above); unaligned loads and a
            // store.
            unsafe {
                let p = s.as_ptr();
                let at = hot(
                    #[inline(always)]
                    |k: usize| conv(_mm256_loadu_si256(p.add(32 * k).cast())),
                );
                _mm256_storeu_si256(d.as_mut_ptr().cast(), words_in_order(cpu, [at(0), at(1), at(2), at(3)]));
            }
            0
        },
    )
}

// int64/uint64 -> float8_e8m0fnu in 64-bit lanes: the magnitude rounded to odd at 53 bits
// ([`int64_odd`]), then `to_e8m0`'s rule on that f64 pattern: its exponent field rebiased
// (f64's bias less 127), plus one where the mode rounds up (any mantissa bit towards +Inf,
// the first one in the nearest modes). Every int64 from 1 up is in range (2^0..2^64);
// zero and negative values go cold without a rule, and become the least code with clamp
// (`CLAMP`). 16 elements per step.
entry!(int64_to_e8m0<const S: u8, const M: u8, const CLAMP: bool>, int64_to_e8m0_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int64_to_e8m0_body<const S: u8, const M: u8, const CLAMP: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 16;
    let man = _mm256_set1_epi64x((1 << 52) - 1);
    let one = _mm256_set1_epi64x(1);
    // (code, lanes below the range: zero or negative)
    let conv = hot(
        #[inline(always)]
        |x: __m256i| {
            let (neg, odd) = int64_odd::<S>(cpu, x);
            let inc = match M {
                mode::NE | mode::NA => _mm256_and_si256(_mm256_srli_epi64::<51>(odd), one),
                mode::TP => {
                    _mm256_andnot_si256(_mm256_cmpeq_epi64(_mm256_and_si256(odd, man), _mm256_setzero_si256()), one)
                }
                // Positive lanes (the others are below the range): down is towards zero.
                _ => _mm256_setzero_si256(),
            };
            let code =
                _mm256_add_epi64(_mm256_srli_epi64::<52>(odd), _mm256_sub_epi64(inc, _mm256_set1_epi64x(1023 - 127)));
            let low = _mm256_or_si256(neg, _mm256_cmpeq_epi64(odd, _mm256_setzero_si256()));
            (_mm256_andnot_si256(low, code), low)
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (8, 1),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..8 * N), d.get_mut(..N)) else { return u32::MAX };
            // SAFETY: `s` holds 128 bytes and `d` 16 (checked just above); unaligned loads and a
            // 16-byte store.
            unsafe {
                let p = s.as_ptr();
                let at = hot(
                    #[inline(always)]
                    |k: usize| conv(_mm256_loadu_si256(p.add(32 * k).cast())),
                );
                let ((c0, l0), (c1, l1), (c2, l2), (c3, l3)) = (at(0), at(1), at(2), at(3));
                // Codes below 2^8: the byte pack is exact too.
                let words = words_in_order(cpu, [c0, c1, c2, c3]);
                let bytes = _mm256_permute4x64_epi64::<0b00_00_10_00>(_mm256_packus_epi16(words, words));
                _mm_storeu_si128(d.as_mut_ptr().cast(), _mm256_castsi256_si128(bytes));
                if CLAMP {
                    return 0;
                }
                let any = _mm256_or_si256(_mm256_or_si256(l0, l1), _mm256_or_si256(l2, l3));
                if _mm256_testz_si256(any, any) != 0 {
                    return 0;
                }
                let m = hot(
                    #[inline(always)]
                    |l: __m256i| _mm256_movemask_pd(_mm256_castsi256_pd(l)) as u32,
                );
                m(l0) | m(l1) << 4 | m(l2) << 8 | m(l3) << 12
            }
        },
    )
}

// float8_e4m3 / float8_e5m2 / float8_e5m2fnuz -> float32 through F16C (`K`: [`f8`]): e5m2 is
// the top byte of a float16; e4m3's magnitude shifted into a float16 is the value times 2^-8
// (normals and subnormals alike), restored by an exact multiply; its sign comes from
// sign-extending the byte (the extension's bit 14 cleared). e5m2fnuz: [`e5fnuz_halves`].
// The special codes (exponent all ones; e5m2fnuz's NaN 0x80) go cold ([`SpecialBytes`]).
// 32 elements per step.
mod f8 {
    /// float8_e4m3
    pub const E4M3: u8 = 0;
    /// float8_e5m2
    pub const E5M2: u8 = 1;
    /// float8_e5m2fnuz
    pub const E5FNUZ: u8 = 2;
}
entry!(f8_to_f32<const K: u8>, f8_to_f32_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn f8_to_f32_body<const K: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let specials = SpecialBytes::of(dir.from.format());
    let (keep, scale) = (_mm256_set1_epi16(!0x4000), _mm256_set1_ps(256.0));
    chunked::<N>(
        dir,
        src,
        dst,
        (1, 4),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..4 * N)) else { return u32::MAX };
            // SAFETY: `s` holds 32 bytes and `d` 128 (checked just above); unaligned loads/stores.
            unsafe {
                let b = _mm256_loadu_si256(s.as_ptr().cast());
                let halves = (_mm256_castsi256_si128(b), _mm256_extracti128_si256::<1>(b));
                let mut store = hot(
                    #[inline(always)]
                    |k: usize, half: __m128i| {
                        let h = match K {
                            f8::E5M2 => _mm256_slli_epi16::<8>(_mm256_cvtepu8_epi16(half)),
                            f8::E4M3 => _mm256_and_si256(_mm256_slli_epi16::<7>(_mm256_cvtepi8_epi16(half)), keep),
                            _ => e5fnuz_halves::<false>(cpu, _mm256_cvtepu8_epi16(half)),
                        };
                        let mut lo = _mm256_cvtph_ps(_mm256_castsi256_si128(h));
                        let mut hi = _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(h));
                        if K == f8::E4M3 {
                            lo = _mm256_mul_ps(lo, scale);
                            hi = _mm256_mul_ps(hi, scale);
                        }
                        _mm256_storeu_ps(d.as_mut_ptr().add(64 * k).cast(), lo);
                        _mm256_storeu_ps(d.as_mut_ptr().add(64 * k + 32).cast(), hi);
                    },
                );
                store(0, halves.0);
                store(1, halves.1);
                specials.find(b)
            }
        },
    )
}

// float16 / bfloat16 / float8_e5m2fnuz -> float64: widen to f32, then to f64 (both exact).
// NaN/Inf cold.
entry!(half_to_f64<const S: u8>, half_to_f64_body[false]);
// The same with a scalar_map's NaN/+-Inf lanes substituted ([`Substitute`]): float16 and
// bfloat16.
entry!(half_to_f64_sub<const S: u8>, half_to_f64_body[true]);
by_density!(half_to_f64_map<const S: u8>, half_to_f64, half_to_f64_sub);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn half_to_f64_body<const S: u8, const SUB: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 8;
    let sub = Substitute::of(dir, SUB);
    chunked::<N>(
        dir,
        src,
        dst,
        (src::size(S), 8),
        #[inline(always)]
        |s, d| {
            let x = load8::<S>(cpu, s);
            let x = if SUB { sub.apply(x) } else { x };
            let Some(d) = d.get_mut(..64) else { return u32::MAX };
            // SAFETY: `d` holds 64 bytes (checked just above); unaligned stores.
            unsafe {
                _mm256_storeu_pd(d.as_mut_ptr().cast(), _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
                _mm256_storeu_pd(d.as_mut_ptr().add(32).cast(), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)));
            }
            lanes8(cpu, special_ps(cpu, x))
        },
    )
}

/// Integer identity: every value is itself (no scalar_map: integer keys never reach here).
fn copy(_dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let n = src.len().min(dst.len());
    if let (Some(d), Some(s)) = (dst.get_mut(..n), src.get(..n)) {
        d.copy_from_slice(s);
    }
    Ok(())
}

// Float identity: a copy of 64 bytes per step; a chunk with exponent-all-ones lanes (NaN
// becomes the canonical NaN, Inf may be a map key) goes cold.
entry!(identity_float<const Z: usize, const EXP: u64>, identity_float_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn identity_float_body<const Z: usize, const EXP: u64>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    let n = 64 / Z;
    let e = match Z {
        2 => _mm256_set1_epi16(EXP as i16),
        4 => _mm256_set1_epi32(EXP as i32),
        _ => _mm256_set1_epi64x(EXP as i64),
    };
    // One bit per element of the 32 bytes `x`.
    let hit = hot(
        #[inline(always)]
        |x: __m256i| {
            let m = _mm256_and_si256(x, e);
            match Z {
                2 => word_signs(cpu, _mm256_cmpeq_epi16(m, e), _mm256_setzero_si256()),
                4 => _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(m, e))) as u32,
                _ => _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(m, e))) as u32,
            }
        },
    );
    chunked_n(
        n,
        dir,
        src,
        dst,
        (Z, Z),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..64), d.get_mut(..64)) else { return u32::MAX };
            // SAFETY: `s` and `d` hold 64 bytes each (checked just above); unaligned loads and
            // stores.
            unsafe {
                let a = _mm256_loadu_si256(s.as_ptr().cast());
                let b = _mm256_loadu_si256(s.as_ptr().add(32).cast());
                _mm256_storeu_si256(d.as_mut_ptr().cast(), a);
                _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), b);
                hit(a) | hit(b) << (32 / Z)
            }
        },
    )
}

// int16/uint16/int32 -> every integer target (byte sources have `byte_int`): the range rule
// in 32-bit lanes, then the stored form (sign-extended for signed targets, masked for
// unsigned ones; 64-bit targets sign-extend the lane, which is also the wrap of a negative
// value). 16 per step.
entry!(int_to_int<const SS: usize, const SIGNED: bool, const DS: usize, const R: u8>, int_to_int_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int_to_int_body<const SS: usize, const SIGNED: bool, const DS: usize, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 16;
    let t = dir.to.format();
    let (lo, hi) = t.int_bounds();
    let (vlo, vhi) =
        (_mm256_set1_epi32(lo.max(i32::MIN as i128) as i32), _mm256_set1_epi32(hi.min(i32::MAX as i128) as i32));
    // Writing a byte target: its stored form (int2/int4 sign-extended, uint2/uint4 masked).
    let d_form = form_of(t);
    let conv = hot(
        #[inline(always)]
        |x: __m256i| {
            let outside = _mm256_or_si256(_mm256_cmpgt_epi32(vlo, x), _mm256_cmpgt_epi32(x, vhi));
            let v = if R == range::CLAMP { _mm256_min_epi32(_mm256_max_epi32(x, vlo), vhi) } else { x };
            let v = in_form(cpu, v, d_form);
            (v, if R == range::ERROR { outside } else { _mm256_setzero_si256() })
        },
    );
    chunked::<N>(
        dir,
        src,
        dst,
        (SS, DS),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N * SS), d.get_mut(..N * DS)) else { return u32::MAX };
            // SAFETY: `s` holds N * SS bytes and `d` N * DS (checked just above); unaligned
            // loads and stores inside them.
            unsafe {
                let p = s.as_ptr();
                let (x0, x1) = match (SS, SIGNED) {
                    (2, true) => (
                        _mm256_cvtepi16_epi32(_mm_loadu_si128(p.cast())),
                        _mm256_cvtepi16_epi32(_mm_loadu_si128(p.add(16).cast())),
                    ),
                    (2, false) => (
                        _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
                        _mm256_cvtepu16_epi32(_mm_loadu_si128(p.add(16).cast())),
                    ),
                    _ => (_mm256_loadu_si256(p.cast()), _mm256_loadu_si256(p.add(32).cast())),
                };
                let ((v0, o0), (v1, o1)) = (conv(x0), conv(x1));
                if DS == 8 {
                    let q = d.as_mut_ptr();
                    for (k, v) in [v0, v1].into_iter().enumerate() {
                        _mm256_storeu_si256(q.add(64 * k).cast(), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)));
                        _mm256_storeu_si256(
                            q.add(64 * k + 32).cast(),
                            _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(v)),
                        );
                    }
                } else {
                    store16::<DS>(cpu, d, v0, v1);
                }
                lanes16(cpu, o0, o1)
            }
        },
    )
}

/// Whether the table's rule for `how` takes int8 magnitudes by absolute value.
fn rule_abs(lut: &lanes::Lut, how: u8) -> bool {
    how != sym::NONE && lut.sign_rule().is_some_and(|r| r.abs)
}

// Sources of 8 bits or less to byte targets: the table's rows (`ShuffleRows`, at most `K`
// per half) looked up by the low nibble (`vpshufb`) and combined by XOR without blends (see
// `half`; measured faster than a blend tree on the high nibble). With a [`sym`] rule
// `SYM` ([`lanes::Lut::sign_rule`]): the lower half only, looked up by the magnitude (bit 7
// cleared; with `ABS`, int8's absolute value: -128's is itself, negative, so it looks up
// nothing and gets its entry by [`lanes::SignRule::minus128`]), and the negative lanes'
// entries derived in one to four ops. Cold bytes (failing, or not served by the rule) by
// the table's [`cold_form`] `C`: bit 7 of the entries where the target leaves it free
// (`FLAG`), its `ColdTest` thresholds where they have that form, else a 256-bit bitmap: byte
// `x >> 3` of it (two 16-byte halves, picked by bit 7), bit `x & 7`.
// With `SUMS` the rows are what the table's [`NibbleSums`] leave, and their two lookups are
// added. With a `PLUS` form ([`plus_form`]), the rule's [`lanes::Plus`]: one side's lanes add
// its bit to the entry before the rule, the bit found in a 16-byte bitmap (like the cold
// one's half), or in bit 7 of the entry itself where the stored entries leave that free (two
// ops for seven).
// The rows were found when the plan was bound ([`lanes::Lut::shuffle_rows`]). 32 elements
// per step.
entry!(lut_shuffle<const C: u8, const SYM: u8, const ABS: bool, const K: usize, const SUMS: bool, const PLUS: u8>, lut_shuffle_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn lut_shuffle_body<const C: u8, const SYM: u8, const ABS: bool, const K: usize, const SUMS: bool, const PLUS: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let Some((lut, table)) = dir.lut.as_ref().and_then(
        #[inline(always)]
        |l| Some((l, l.shuffle_rows()?)),
    ) else {
        return lanes::cold(dir, src, dst, 0);
    };
    let fits = table.how == SYM && table.cold_form == C && table.fits(K);
    if !fits || rule_abs(lut, SYM) != ABS || table.sums.is_some() != SUMS || table.plus_form() != PLUS {
        // Not the kernel `select` picked for this table.
        return lanes::cold(dir, src, dst, 0);
    }
    let rule = lut.sign_rule().filter(
        #[inline(always)]
        |_| SYM != sym::NONE,
    );
    let flip = rule.map_or(
        0,
        #[inline(always)]
        |r| r.s,
    );
    let minus128 = _mm256_set1_epi8(rule.map_or(
        0,
        #[inline(always)]
        |r| r.minus128,
    ) as i8);
    let cold = hot(
        #[inline(always)]
        |i: usize| table.cold.get(i).copied().unwrap_or(true),
    );
    let bitmap = table_rows::<2>(
        #[inline(always)]
        |j| {
            (0..8).fold(
                0u8,
                #[inline(always)]
                |b, k| b | (cold(8 * j + k) as u8) << k,
            )
        },
    );
    let bit_of = _mm256_setr_epi8(
        1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    let (below, equal) = table.test.map_or(
        ([0, 0], 0),
        #[inline(always)]
        |t| (t.below, t.equal),
    );
    let (below_pos, below_neg) = (_mm256_set1_epi8(below[0]), _mm256_set1_epi8(below[0] ^ below[1]));
    let equal = _mm256_set1_epi8(equal);
    // The threshold forms: SAME, one compare; SIGNS, each sign's threshold (XOR-picked by
    // the sign) and the one byte compared for equality.
    let by_threshold = hot(
        #[inline(always)]
        |x: __m256i| {
            let magnitude = _mm256_and_si256(x, _mm256_set1_epi8(0x7f));
            let cold = if C == cold_form::SAME {
                _mm256_cmpgt_epi8(magnitude, below_pos)
            } else {
                let negative = _mm256_cmpgt_epi8(_mm256_setzero_si256(), x);
                let below = _mm256_xor_si256(below_pos, _mm256_and_si256(negative, below_neg));
                _mm256_or_si256(_mm256_cmpgt_epi8(magnitude, below), _mm256_cmpeq_epi8(x, equal))
            };
            _mm256_movemask_epi8(cold) as u32
        },
    );
    // Where bit x of a 128-bit bitmap sits: bits 3..6 of x index its byte (in a 16-byte
    // row), bits 0..2 pick the bit.
    let bit_at = hot(
        #[inline(always)]
        |x: __m256i| {
            let idx = _mm256_and_si256(_mm256_srli_epi16::<3>(x), _mm256_set1_epi8(0x0f));
            (idx, _mm256_shuffle_epi8(bit_of, _mm256_and_si256(x, _mm256_set1_epi8(7))))
        },
    );
    let by_bitmap = hot(
        #[inline(always)]
        |x: __m256i| {
            // Bit 7 of x picks the half.
            let (idx, bit) = bit_at(x);
            let byte = _mm256_blendv_epi8(_mm256_shuffle_epi8(bitmap[0], idx), _mm256_shuffle_epi8(bitmap[1], idx), x);
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), bit)) as u32
        },
    );
    // Per half, each row's XOR with the row before it and the index where it starts (unused
    // slots: zero rows, which add nothing).
    let zero = _mm256_setzero_si256();
    let load = hot(
        #[inline(always)]
        |h: usize| -> [(__m256i, __m256i); K] {
            array_fn(
                #[inline(always)]
                |k| match (
                    table.rows.get(h).and_then(
                        #[inline(always)]
                        |r| r.get(k),
                    ),
                    table.len.get(h),
                ) {
                    (Some((d, at)), Some(&len)) if k < len => {
                        // SAFETY: `d` holds the 16 bytes read.
                        let d = unsafe { _mm_loadu_si128(d.as_ptr().cast()) };
                        // Uncompacted, row k starts at 16 k: a constant once the fold is unrolled.
                        let at = if K == 8 { 16 * k as u8 } else { *at };
                        (_mm256_set_m128i(d, d), _mm256_set1_epi8(at as i8))
                    }
                    _ => (zero, zero),
                },
            )
        },
    );
    let (low, high) = (load(0), load(1));
    let sums = table.sums.unwrap_or(NibbleSums { high: [0; 16], low: [0; 16] });
    let [sum_high] = table_rows::<1>(
        #[inline(always)]
        |i| sums.high.get(i).copied().unwrap_or(0),
    );
    let [sum_low] = table_rows::<1>(
        #[inline(always)]
        |i| sums.low.get(i).copied().unwrap_or(0),
    );
    // With SUMS, the rows' lookup `t` plus the nibbles' entries: the low one by `low` (bit 7
    // clear), the high one by bits 4-7 of `x`.
    let add_sums = hot(
        #[inline(always)]
        |t: __m256i, low: __m256i, x: __m256i| {
            if SUMS {
                let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(x), _mm256_set1_epi8(0x0f));
                _mm256_add_epi8(
                    _mm256_add_epi8(t, _mm256_shuffle_epi8(sum_low, low)),
                    _mm256_shuffle_epi8(sum_high, hi),
                )
            } else {
                t
            }
        },
    );
    // Half h (bit 7 of x): its index is x, bit 7 flipped for the upper half, so that the
    // other half's lanes are negative. A row that starts at entry a looks up index - a
    // (signed, saturating): the low nibble stays, and `vpshufb` gives 0 where that is
    // negative, i.e. for the rows above the lane's row and every row of the other half; a
    // lane gets the XOR of the rows up to its own, which is its row.
    let half = hot(
        #[inline(always)]
        |i: __m256i, d: &[(__m256i, __m256i); K]| {
            d.iter().fold(
                zero,
                #[inline(always)]
                |acc, &(row, at)| _mm256_xor_si256(acc, _mm256_shuffle_epi8(row, _mm256_subs_epi8(i, at))),
            )
        },
    );
    // The Plus bitmap, and its side as the mask XOR-ed into the negative lanes' (all ones:
    // the positive lanes add).
    let plus = table.plus.unwrap_or(lanes::Plus { bits: [0; 16], negative: true });
    let [plus_bits] = table_rows::<1>(
        #[inline(always)]
        |i| plus.bits.get(i).copied().unwrap_or(0),
    );
    let plus_side = _mm256_set1_epi8(if plus.negative { 0 } else { -1 });
    // t + 1 where magnitude m's bit is set and the lane is on the side (`negative`: its mask).
    let add_plus = hot(
        #[inline(always)]
        |t: __m256i, m: __m256i, negative: __m256i| match PLUS {
            plus_form::BITMAP => {
                let (idx, bit) = bit_at(m);
                let set = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(plus_bits, idx), bit), bit);
                _mm256_sub_epi8(t, _mm256_and_si256(set, _mm256_xor_si256(negative, plus_side)))
            }
            plus_form::BIT7 => {
                // The bit rode in bit 7 of the entry: taken out, then added on the side's lanes.
                let set = _mm256_cmpgt_epi8(zero, t);
                let t = _mm256_and_si256(t, _mm256_set1_epi8(0x7f));
                _mm256_sub_epi8(t, _mm256_and_si256(set, _mm256_xor_si256(negative, plus_side)))
            }
            _ => t,
        },
    );
    // The wrapped negations' target sign bit (their `flip` is the target's mask).
    let sign_bit = _mm256_set1_epi8(((flip >> 1) + 1) as i8);
    let flip = _mm256_set1_epi8(flip as i8);
    let pick = hot(
        #[inline(always)]
        |x: __m256i| {
            let negative = _mm256_cmpgt_epi8(zero, x);
            // (t ^ -1) - -1 = -t on the negative lanes.
            let negate = hot(
                #[inline(always)]
                |t: __m256i| _mm256_sub_epi8(_mm256_xor_si256(t, negative), negative),
            );
            let magnitude = if ABS { _mm256_abs_epi8(x) } else { _mm256_and_si256(x, _mm256_set1_epi8(0x7f)) };
            let t = add_plus(add_sums(half(magnitude, &low), magnitude, magnitude), magnitude, negative);
            let v = match SYM {
                sym::XOR => _mm256_xor_si256(t, _mm256_and_si256(negative, flip)),
                sym::XOR_NZ => {
                    let flip = _mm256_andnot_si256(_mm256_cmpeq_epi8(t, zero), _mm256_and_si256(negative, flip));
                    _mm256_xor_si256(t, flip)
                }
                sym::NEG => negate(t),
                // Negated on the negative lanes, then wrapped to the target's bits on all (a
                // positive lane's entry is already in range) and, signed, sign-extended.
                sym::NEG_WRAP_U => _mm256_and_si256(negate(t), flip),
                sym::NEG_WRAP_S => {
                    let n = _mm256_and_si256(negate(t), flip);
                    _mm256_sub_epi8(_mm256_xor_si256(n, sign_bit), sign_bit)
                }
                sym::ZERO => _mm256_andnot_si256(negative, t),
                _ => {
                    let t = _mm256_xor_si256(half(x, &low), half(_mm256_xor_si256(x, _mm256_set1_epi8(-128)), &high));
                    // Bit 7 indexes the high entry, not the low one.
                    add_sums(t, _mm256_and_si256(x, _mm256_set1_epi8(0x7f)), x)
                }
            };
            if ABS && SYM != sym::NONE {
                // -128 looked up nothing (t = 0): XOR in what makes its entry.
                _mm256_xor_si256(v, _mm256_and_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(-128)), minus128))
            } else {
                v
            }
        },
    );
    const N: usize = 32;
    chunked::<N>(
        dir,
        src,
        dst,
        (1, 1),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..N)) else { return u32::MAX };
            // SAFETY: `s` and `d` hold 32 bytes (checked just above); unaligned load and store.
            let x = unsafe { _mm256_loadu_si256(s.as_ptr().cast()) };
            let v = pick(x);
            // (Flagged, the lanes with bit 7 set are the cold ones: the reference rewrites them,
            // or they lie past an error, where the output is unspecified.)
            // SAFETY: as above.
            unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), v) };
            match C {
                cold_form::NONE => 0,
                cold_form::FLAG => _mm256_movemask_epi8(v) as u32,
                cold_form::BITMAP => by_bitmap(x),
                _ => by_threshold(x),
            }
        },
    )
}

// 8-bit float sources -> float16/bfloat16 where the table is arithmetic ([`Affine16`], found
// when the plan was bound): in 16-bit lanes holding the byte x (low) and x ^ 8 (high), the
// magnitude shifted by `SH` plus the rebias; with `SMALL` ([`small_form`]), the magnitudes
// below the table's `small` (the subnormals) take its `vpshufb` entry, whose low byte sits at
// x & 15 and high byte at (x ^ 8) & 15 (of the same table, or for 16 entries of the second);
// then the sign bit, bit 15 of the lane. Cold bytes by `C` ([`affine_cold`]), tested on the
// bytes. 64 elements per step.
entry!(affine16<const SH: i32, const SMALL: u8, const C: u8>, affine16_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn affine16_body<const SH: i32, const SMALL: u8, const C: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let Some(a) = dir.lut.as_ref().and_then(
        #[inline(always)]
        |l| l.affine16(),
    ) else {
        return lanes::cold(dir, src, dst, 0);
    };
    if a.shift as i32 != SH || small_form(a.small) != SMALL || a.cold != C {
        // Not the kernel `select` picked for this table.
        return lanes::cold(dir, src, dst, 0);
    }
    let mag = _mm256_set1_epi16(if a.signed { 0x7f } else { 0xff });
    let sign = _mm256_set1_epi16(if a.signed { i16::MIN } else { 0 });
    let offset = _mm256_set1_epi16(a.offset as i16);
    let [table, high] = table_rows::<2>(
        #[inline(always)]
        |i| match i {
            0..16 => a.table.get(i).copied().unwrap_or(0),
            _ => a.high.get(i - 16).copied().unwrap_or(0),
        },
    );
    let small = _mm256_set1_epi16(i16::from(a.small));
    let (top, equal) = (_mm256_set1_epi8(a.top as i8), _mm256_set1_epi8(a.equal as i8));
    // A constant count: the shift compiles to its immediate form.
    let count = _mm_cvtsi32_si128(SH);
    let conv = hot(
        #[inline(always)]
        |w: __m256i| {
            let m = _mm256_and_si256(w, mag);
            let mut v = _mm256_add_epi16(_mm256_sll_epi16(m, count), offset);
            if SMALL > 0 {
                let i = _mm256_and_si256(w, _mm256_set1_epi16(0x0f0f));
                let mut t = _mm256_shuffle_epi8(table, i);
                if SMALL == 2 {
                    // The high bytes from their own table (at (x ^ 8) & 15 = m ^ 8).
                    t = _mm256_blendv_epi8(_mm256_shuffle_epi8(high, i), t, _mm256_set1_epi16(0x00ff));
                }
                v = _mm256_blendv_epi8(v, t, _mm256_cmpgt_epi16(small, m));
            }
            _mm256_or_si256(v, _mm256_and_si256(w, sign))
        },
    );
    const N: usize = 32;
    chunked_halves::<N>(
        dir,
        src,
        dst,
        (1, 2),
        2,
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..2 * N)) else { return u32::MAX };
            // SAFETY: `s` holds 32 bytes (checked just above); an unaligned load.
            let x = unsafe { _mm256_loadu_si256(s.as_ptr().cast()) };
            // 64-bit blocks 0, 2, 1, 3: the in-lane unpacks then give elements 0..16 and 16..32.
            let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(x);
            let y = _mm256_xor_si256(p, _mm256_set1_epi8(8));
            // SAFETY: `d` holds 64 bytes (checked above); unaligned stores.
            unsafe {
                _mm256_storeu_si256(d.as_mut_ptr().cast(), conv(_mm256_unpacklo_epi8(p, y)));
                _mm256_storeu_si256(d.as_mut_ptr().add(32).cast(), conv(_mm256_unpackhi_epi8(p, y)));
            }
            // The cold bytes, tested on the bytes as loaded (in element order).
            let cold = match C {
                affine_cold::ABOVE => _mm256_cmpgt_epi8(_mm256_and_si256(x, _mm256_set1_epi8(0x7f)), top),
                affine_cold::EQUAL => _mm256_cmpeq_epi8(x, equal),
                _ => return 0,
            };
            _mm256_movemask_epi8(cold) as u32
        },
    )
}

// Sources of 8 bits or less, any target: the table's entries gathered 8 lanes at a time,
// and the failing bytes' words gathered beside them when the table has any. 16 per step.
entry!(lut_gather<const D: usize>, lut_gather_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn lut_gather_body<const D: usize>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    let Some(lut) = &dir.lut else { return lanes::cold(dir, src, dst, 0) };
    let (values, fails) = (lut.values(), lut.fail_words());
    const N: usize = 16;
    chunked::<N>(
        dir,
        src,
        dst,
        (1, D),
        #[inline(always)]
        |s, d| {
            let (Some(s), Some(d)) = (s.get(..N), d.get_mut(..N * D)) else { return u32::MAX };
            // SAFETY: `s` holds 16 bytes and `d` 16 * D (checked just above). Every index is a
            // byte (0..=255) and both tables have 256 entries: the gathers read the low 4 bytes
            // (x86_64 is little-endian) or all 8 of a u64 entry, or one u32 word, in bounds.
            unsafe {
                let i0 = _mm256_cvtepu8_epi32(_mm_loadl_epi64(s.as_ptr().cast()));
                let i1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64(s.as_ptr().add(8).cast()));
                if D == 8 {
                    let base = values.as_ptr().cast::<i64>();
                    for (k, idx) in [i0, i1].into_iter().enumerate() {
                        let lo = _mm256_i32gather_epi64::<8>(base, _mm256_castsi256_si128(idx));
                        let hi = _mm256_i32gather_epi64::<8>(base, _mm256_extracti128_si256::<1>(idx));
                        _mm256_storeu_si256(d.as_mut_ptr().add(64 * k).cast(), lo);
                        _mm256_storeu_si256(d.as_mut_ptr().add(64 * k + 32).cast(), hi);
                    }
                } else if D <= 2 {
                    // One gather gives the value and, in bit 31, whether the byte fails.
                    let base = lut.tagged().as_ptr().cast::<i32>();
                    let (a, b) = (_mm256_i32gather_epi32::<4>(base, i0), _mm256_i32gather_epi32::<4>(base, i1));
                    store16::<D>(cpu, d, a, b);
                    return if lut.any_fail() { lanes16(cpu, a, b) } else { 0 };
                } else {
                    let base = values.as_ptr().cast::<i32>();
                    store16::<D>(cpu, d, _mm256_i32gather_epi32::<8>(base, i0), _mm256_i32gather_epi32::<8>(base, i1));
                }
                if lut.any_fail() {
                    let f = fails.as_ptr().cast::<i32>();
                    lanes16(cpu, _mm256_i32gather_epi32::<4>(f, i0), _mm256_i32gather_epi32::<4>(f, i1))
                } else {
                    0
                }
            }
        },
    )
}

/// `ROWS` table rows of 16 bytes, each in both 128-bit halves: row `r` holds
/// `entry(16 r + i)` at byte `i`.
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn table_rows<const ROWS: usize>(entry: impl Fn(usize) -> u8) -> [__m256i; ROWS] {
    array_fn(
        #[inline(always)]
        |r| {
            let b: [u8; 16] = array_fn(
                #[inline(always)]
                |i| entry(16 * r + i),
            );
            // SAFETY: `b` holds the 16 bytes read.
            let h = unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
            _mm256_set_m128i(h, h)
        },
    )
}

/// Look up 32 indices `i` (each below `16 * ROWS`, ROWS 1, 2 or 4) in [`table_rows`]: every
/// row by the low nibble (`vpshufb`), then byte blends on bit 4, then bit 5, pick the row.
#[inline(always)]
fn look_up<const ROWS: usize>(_cpu: Avx2, t: &[__m256i; ROWS], i: __m256i) -> __m256i {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let mut v = [_mm256_setzero_si256(); 4];
        unrolled(
            ROWS,
            #[inline(always)]
            |k| {
                if let (Some(o), Some(&r)) = (v.get_mut(k), t.get(k)) {
                    *o = _mm256_shuffle_epi8(r, i);
                }
            },
        );
        // Bit 4, then bit 5, of each byte moved to its bit 7, the one `vpblendvb` reads.
        let [a, b, c, e] = v;
        match ROWS {
            1 => a,
            2 => _mm256_blendv_epi8(a, b, _mm256_slli_epi16::<3>(i)),
            _ => {
                let bit4 = _mm256_slli_epi16::<3>(i);
                let low = _mm256_blendv_epi8(a, b, bit4);
                let high = _mm256_blendv_epi8(c, e, bit4);
                _mm256_blendv_epi8(low, high, _mm256_slli_epi16::<2>(i))
            }
        }
    }
}

/// Store 32 elements of `D` bytes given as `D` byte planes (plane `p`: byte `p` of each
/// element, elements in order), interleaved by byte, word and dword unpacks; the unpacks
/// work within 128-bit halves, so each output vector takes one half of two of them.
#[inline(always)]
fn store_planes<const D: usize>(_cpu: Avx2, d: &mut [u8], p: &[__m256i; D]) {
    // SAFETY: the `Avx2` proves the tier's features (see [`Avx2`]).
    unsafe {
        let Some(d) = d.get_mut(..32 * D) else { return };
        let z = _mm256_setzero_si256();
        let at = hot(
            #[inline(always)]
            |k: usize| match p.get(k) {
                Some(&v) => v,
                None => z,
            },
        );
        // Element k of the outputs below, per 128-bit half: lo8 = [0..8 | 16..24], hi8 =
        // [8..16 | 24..32] as byte pairs.
        let pairs = hot(
            #[inline(always)]
            |a: __m256i, b: __m256i| (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)),
        );
        // Four planes as dwords: [0..4 | 16..20], [4..8 | 20..24], [8..12 | 24..28], [12..16 | 28..32].
        let quads = hot(
            #[inline(always)]
            |base: usize| {
                let (a_lo, a_hi) = pairs(at(base), at(base + 1));
                let (b_lo, b_hi) = pairs(at(base + 2), at(base + 3));
                [
                    _mm256_unpacklo_epi16(a_lo, b_lo),
                    _mm256_unpackhi_epi16(a_lo, b_lo),
                    _mm256_unpacklo_epi16(a_hi, b_hi),
                    _mm256_unpackhi_epi16(a_hi, b_hi),
                ]
            },
        );
        // Each output vector stored as it is made (no array of them: a build for size copies
        // such an array with `memcpy`). `d` holds 32 * D bytes (checked above).
        let mut put = hot(
            #[inline(always)]
            |k: usize, v: __m256i| {
                if k < D {
                    _mm256_storeu_si256(d.as_mut_ptr().add(32 * k).cast(), v);
                }
            },
        );
        match D {
            1 => put(0, at(0)),
            2 => {
                let (lo, hi) = pairs(at(0), at(1));
                put(0, _mm256_permute2x128_si256::<0x20>(lo, hi));
                put(1, _mm256_permute2x128_si256::<0x31>(lo, hi));
            }
            4 => {
                let [q0, q1, q2, q3] = quads(0);
                put(0, _mm256_permute2x128_si256::<0x20>(q0, q1));
                put(1, _mm256_permute2x128_si256::<0x20>(q2, q3));
                put(2, _mm256_permute2x128_si256::<0x31>(q0, q1));
                put(3, _mm256_permute2x128_si256::<0x31>(q2, q3));
            }
            _ => {
                // Low and high dwords of each element, then qwords: quad k, unpacked with its
                // high dwords, gives [4k, 4k+1 | 16+4k, 17+4k] and [4k+2, 4k+3 | 18+4k, 19+4k].
                let (lo, hi) = (quads(0), quads(4));
                unrolled(
                    4,
                    #[inline(always)]
                    |k| {
                        let (Some(&l), Some(&h)) = (lo.get(k), hi.get(k)) else { return };
                        let (a, b) = (_mm256_unpacklo_epi32(l, h), _mm256_unpackhi_epi32(l, h));
                        put(k, _mm256_permute2x128_si256::<0x20>(a, b));
                        put(4 + k, _mm256_permute2x128_si256::<0x31>(a, b));
                    },
                );
            }
        }
    }
}

// Sources of 6 bits or less (int2/int4, uint2/uint4, float4, float6), any target: their
// table has at most 64 distinct entries (a read ignores the byte's upper bits), so each
// byte of the target is one to four `vpshufb` rows on `x & (16 ROWS - 1)` ([`look_up`]).
// Failing bytes by [`planes_fail`] form `F`: a plane of 0xff, or, where every byte that
// casts leaves it clear, bit 7 of the low plane (set in the failing bytes' entries: the
// reference rewrites those lanes, or they lie past an error, where the output is
// unspecified), which saves the fail plane's lookup (for float6 sources four `vpshufb` and
// three blends per 32 elements). 32 elements per step.
entry!(lut_planes<const ROWS: usize, const D: usize, const F: u8>, lut_planes_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn lut_planes_body<const ROWS: usize, const D: usize, const F: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    let Some(lut) = &dir.lut else { return lanes::cold(dir, src, dst, 0) };
    if !planes_fail::fits(lut, F) {
        // Not a kernel that finds this table's failing bytes.
        return lanes::cold(dir, src, dst, 0);
    }
    let flag = hot(
        #[inline(always)]
        |p: usize, i: usize| if F == planes_fail::FLAG && p == 0 { lut.fail_byte(i) & 0x80 } else { 0 },
    );
    let planes: [[__m256i; ROWS]; D] = array_fn(
        #[inline(always)]
        |p| {
            table_rows(
                #[inline(always)]
                |i| lut.plane_byte(p, i) | flag(p, i),
            )
        },
    );
    // (Only the LOOKUP form reads the plane of fails.)
    let fails: [__m256i; ROWS] = if F == planes_fail::LOOKUP {
        table_rows(
            #[inline(always)]
            |i| lut.fail_byte(i),
        )
    } else {
        [_mm256_setzero_si256(); ROWS]
    };
    let index = _mm256_set1_epi8((16 * ROWS - 1) as i8);
    const N: usize = 32;
    chunked::<N>(
        dir,
        src,
        dst,
        (1, D),
        #[inline(always)]
        |s, d| {
            let Some(s) = s.get(..N) else { return u32::MAX };
            // SAFETY: `s` holds 32 bytes (checked just above); unaligned load.
            let i = _mm256_and_si256(unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }, index);
            let v: [__m256i; D] = array_fn(
                #[inline(always)]
                |p| match planes.get(p) {
                    Some(t) => look_up(cpu, t, i),
                    None => i,
                },
            );
            store_planes::<D>(cpu, d, &v);
            match F {
                planes_fail::LOOKUP => _mm256_movemask_epi8(look_up(cpu, &fails, i)) as u32,
                planes_fail::FLAG => _mm256_movemask_epi8(v[0]) as u32,
                _ => 0,
            }
        },
    )
}

// int32 / uint32 -> float32 in rounding `M`: nearest-even by the conversion's own rounding
// (default MXCSR); uint32 as its exact 16-bit halves in one FMA ([`u32_round`]), so one
// rounding too. The other modes step that result one pattern (adjacent floats have adjacent
// patterns) by the sign of its exact error `e = x - f`: int32 converts `f` back (an integer;
// 2^31 gives the indefinite i32::MIN, whose wrapping difference is still the true one),
// uint32 has it from [`u32_round`].
// Nearest-away steps the magnitude up where `e` is half an ulp towards zero: a tie that
// nearest-even broke downwards (f's binade is x's there). Every result is finite. 32
// elements per step.
entry!(int32_to_f32<const U32: bool, const M: u8>, int32_to_f32_body);
#[target_feature(enable = "avx2,fma,f16c,bmi2")]
fn int32_to_f32_body<const U32: bool, const M: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Avx2::new();
    const N: usize = 32;
    let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
    chunked::<N>(
        dir,
        src,
        dst,
        (4, 4),
        #[inline(always)]
        |s, d| {
            unrolled(
                N / 8,
                #[inline(always)]
                |k| {
                    let (Some(i), Some(o)) = (s.get(32 * k..32 * k + 32), d.get_mut(32 * k..32 * k + 32)) else {
                        return;
                    };
                    // SAFETY: `i` and `o` are 32 bytes each; unaligned load and store.
                    let x = unsafe { _mm256_loadu_si256(i.as_ptr().cast()) };
                    let (f, e) = if U32 {
                        let (f, e) = u32_round(cpu, x);
                        (f, _mm256_cvtps_epi32(e))
                    } else {
                        let f = _mm256_cvtepi32_ps(x);
                        (f, _mm256_sub_epi32(x, _mm256_cvttps_epi32(f)))
                    };
                    let bits = _mm256_castps_si256(f);
                    // All ones where negative; +-1 is one pattern away from zero.
                    let sgn = if U32 { zero } else { _mm256_srai_epi32::<31>(bits) };
                    let bits = match M {
                        mode::NE => bits,
                        // Where the magnitude went up (`e * sign(x) < 0`): one pattern down.
                        mode::TZ => _mm256_add_epi32(
                            bits,
                            _mm256_cmpgt_epi32(zero, _mm256_sub_epi32(_mm256_xor_si256(e, sgn), sgn)),
                        ),
                        // Where f < x: one value up; where f > x: one value down.
                        mode::TP => _mm256_add_epi32(
                            bits,
                            _mm256_and_si256(_mm256_cmpgt_epi32(e, zero), _mm256_or_si256(sgn, one)),
                        ),
                        mode::TN => _mm256_sub_epi32(
                            bits,
                            _mm256_and_si256(_mm256_cmpgt_epi32(zero, e), _mm256_or_si256(sgn, one)),
                        ),
                        _ => {
                            // Half an ulp of f's binade, 2^(E - 151) for an exponent field E >= 151
                            // (below that every lane is exact, e = 0, and the count's wrap keeps
                            // the half nonzero); the sign bit above the field drops out of the count.
                            let count = _mm256_and_si256(
                                _mm256_sub_epi32(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(151)),
                                _mm256_set1_epi32(31),
                            );
                            let half = _mm256_sllv_epi32(one, count);
                            let toward_zero = _mm256_sub_epi32(_mm256_xor_si256(half, sgn), sgn);
                            _mm256_sub_epi32(bits, _mm256_cmpeq_epi32(e, toward_zero))
                        }
                    };
                    // SAFETY: as above.
                    unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), bits) };
                },
            );
            0
        },
    )
}

/// This tier's plan-time choices, open to the crate's own tests (`tests/kernel_choices.rs`):
/// what no kernel's output shows, since every choice writes the same bytes. Not part of the
/// API; free to change with the kernels.
#[doc(hidden)]
pub mod probes {
    use super::{_mm256_storeu_ps, dispatch, is_mini, planes_fail, Mini};
    use crate::dtype::{DataType, Format, Kind};
    use crate::kernels::lanes::sym;
    use crate::kernels::x86_64_byte_rows::{plus_form, slots};
    use crate::plan::Direction;

    /// Whether a map plan over this data takes the kernel that substitutes NaN/+-Inf lanes
    /// (NaN/Inf dense in a sample of it) rather than the one that sends them to the reference.
    pub fn dense_specials(src: &[u8], f: &Format) -> bool {
        super::dense_specials(src, f)
    }

    /// The source value the plan put in NaN/+-Inf lanes when it was bound (see
    /// `lanes::special_substitute`), if any.
    pub fn bound_substitute(dir: &Direction) -> Option<u64> {
        dir.lanes.as_ref().and_then(|l| l.substitute)
    }

    /// The form in which the byte-table kernel finds the plan's failing bytes: `NONE` (none
    /// fails), `LOOKUP` (a looked-up plane of fails) or `FLAG` (bit 7 of the low plane).
    pub fn planes_fail(dir: &Direction) -> Option<u8> {
        Some(planes_fail::of(dir.lut.as_ref()?))
    }
    /// See [`planes_fail()`].
    pub use super::planes_fail::{FLAG as FAIL_FLAG, LOOKUP as FAIL_LOOKUP, NONE as FAIL_NONE};

    /// Every code of an 8-bit float with a sign and subnormals, decoded by the kernels'
    /// byte-float decoder in the form `top` picks (with `top`: every such format; without:
    /// the formats [`is_mini`] names). The f32 patterns, by code; `None` without AVX2 or for
    /// another format.
    pub fn byte_float_decoded(t: DataType, top: bool) -> Option<[u32; 256]> {
        let f = t.format();
        let takes = f.kind == Kind::Float && f.bits == 8 && f.has_sign && f.subnormals && (top || is_mini(t));
        if !takes || !dispatch::has_avx2() {
            return None;
        }
        // SAFETY: the AVX2 tier's features are there (checked just above).
        let mut mini = unsafe { Mini::of(f) };
        mini.top = top;
        let mut out = [0u32; 256];
        for (k, o) in out.chunks_exact_mut(32).enumerate() {
            let codes: [u8; 32] = core::array::from_fn(|i| (32 * k + i) as u8);
            for (lanes, o) in mini.decode32(&codes).into_iter().zip(o.chunks_exact_mut(8)) {
                let mut got = [0f32; 8];
                // SAFETY: `got` holds eight f32; the AVX2 tier's features are there.
                unsafe { _mm256_storeu_ps(got.as_mut_ptr(), lanes) };
                for (o, g) in o.iter_mut().zip(got) {
                    *o = g.to_bits();
                }
            }
        }
        Some(out)
    }

    /// A plan's table for the shuffle kernels, as the kernel picked for it sees it.
    #[derive(Debug)]
    pub struct ShuffleTable {
        /// Its rows fit the slots of the kernel `select` runs it with.
        pub fits: bool,
        /// Its most rows in a half, and whether it is sums of two lookups.
        pub rows: usize,
        /// Whether its rows are nibble sums.
        pub sums: bool,
        /// Whether it keeps a `Plus` bit in bit 7 of its entries.
        pub plus_in_bit7: bool,
        /// Whether a kernel reads a `Plus` in bit 7 for its rule and cold form.
        pub bit7_kernel: bool,
        /// How its kernel flags cold bytes (`COLD_FLAG`: bit 7 of the entries).
        pub cold_form: u8,
    }
    /// See [`ShuffleTable::cold_form`].
    pub use super::cold_form::FLAG as COLD_FLAG;

    /// The shuffle table of a plan between byte types, if it has one (found with AVX2).
    pub fn shuffle_table(dir: &Direction) -> Option<ShuffleTable> {
        let lut = dir.lut.as_ref()?;
        let t = lut.shuffle_rows()?;
        let abs = t.how != sym::NONE && lut.sign_rule().is_some_and(|r| r.abs);
        Some(ShuffleTable {
            fits: t.fits(slots(t.most(), t.sums.is_some())),
            rows: t.most(),
            sums: t.sums.is_some(),
            plus_in_bit7: t.plus_form() == plus_form::BIT7,
            bit7_kernel: plus_form::bit7_kernel(t.how, t.cold_form, abs),
            cold_form: t.cold_form,
        })
    }
}
