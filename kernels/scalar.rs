//! The scalar reference kernel: it defines the semantics of the codec, and
//! every other kernel is checked against it bit for bit.
//!
//! Everything here is integer bit work on the exact value `(-1)^neg * mant * 2^exp` of the
//! input: one rounding per element, no floating-point arithmetic, no detour through f64 or
//! f32. It needs neither std nor an FPU.

use crate::config::{OutOfRange, Rounding};
use crate::dtype::{sign_extend, DataType, Decoded, Format, Kind};
use crate::error::{ElementError, Reason};
use crate::plan::Direction;

/// Read one element from its bytes (native-endian; sub-byte types masked to their width).
/// Returns the logical bit pattern. `bytes.len()` must equal the type's size.
#[inline(always)]
pub fn read_bits(format: &Format, bytes: &[u8]) -> u64 {
    let raw = match *bytes {
        [a] => a as u64,
        [a, b] => u16::from_ne_bytes([a, b]) as u64,
        [a, b, c, d] => u32::from_ne_bytes([a, b, c, d]) as u64,
        [a, b, c, d, e, f, g, h] => u64::from_ne_bytes([a, b, c, d, e, f, g, h]),
        _ => 0,
    };
    raw & format.mask()
}

/// Write one element's logical bits into its bytes (native-endian). int2/int4 are
/// sign-extended to the whole byte; the other sub-byte types get zero upper bits.
#[inline(always)]
pub fn write_bits(format: &Format, bits: u64, out: &mut [u8]) {
    let v = if format.kind == Kind::Signed { sign_extend(bits, format.bits) as u64 } else { bits };
    match out {
        [b] => *b = v as u8,
        [_, _] => out.copy_from_slice(&(v as u16).to_ne_bytes()),
        [_, _, _, _] => out.copy_from_slice(&(v as u32).to_ne_bytes()),
        [_, _, _, _, _, _, _, _] => out.copy_from_slice(&v.to_ne_bytes()),
        _ => {}
    }
}

/// The scalar_map key of a bit pattern: values that compare equal share one key (every NaN
/// is the canonical NaN, -0 is +0), so a map lookup is one integer comparison.
#[inline]
pub fn canonical_key(data_type: DataType, bits: u64) -> u64 {
    let f = data_type.format();
    let bits = bits & f.mask();
    if f.kind != Kind::Float {
        return bits;
    }
    match data_type.decode_bits(bits) {
        Decoded::Nan => f.canonical_nan(),
        Decoded::Finite { mant: 0, .. } => 0,
        _ => bits,
    }
}

/// Cast one element with the full procedure: scalar_map first, then NaN, Inf, rounding and
/// the range rule.
#[inline]
pub fn cast_element(dir: &Direction, bits: u64) -> Result<u64, Reason> {
    if !dir.map.is_empty() {
        if let Some(v) = dir.map.get(canonical_key(dir.from, bits)) {
            return Ok(v);
        }
    }
    convert(dir.from, dir.to, dir.rounding, dir.out_of_range, bits)
}

/// The procedure without scalar_map: decode, round once, apply the range rule, encode.
#[inline]
pub fn convert(
    from: DataType,
    to: DataType,
    rounding: Rounding,
    oor: Option<OutOfRange>,
    bits: u64,
) -> Result<u64, Reason> {
    let t = to.format();
    match from.decode_bits(bits) {
        Decoded::Nan => {
            if t.has_nan() {
                Ok(t.canonical_nan())
            } else {
                Err(Reason::NanNotRepresentable)
            }
        }
        Decoded::Inf { neg } => {
            if t.has_inf {
                Ok(t.positive_infinity() | if neg { t.sign_mask() } else { 0 })
            } else {
                Err(Reason::InfinityNotRepresentable { negative: neg })
            }
        }
        Decoded::Finite { neg, mant, exp } => round_finite(t, neg, mant, exp, false, rounding, oor),
    }
}

/// Round the exact value `(-1)^neg * (mant + s) * 2^exp`, where `s` is an infinitesimal
/// positive fraction when `sticky` is set, onto `to`'s grid, then apply the range rule.
///
/// `sticky` lets callers that hold more than 64 significant bits (the decimal parser) pass a
/// truncated significand; it must only be set when `mant` has its top bit set, so the sticky
/// part always lies below the target's rounding position.
pub fn round_finite(
    to: &Format,
    neg: bool,
    mant: u64,
    exp: i32,
    sticky: bool,
    rounding: Rounding,
    oor: Option<OutOfRange>,
) -> Result<u64, Reason> {
    // Beyond +-4000 the exponent changes no decision (every format's range and grid lies
    // within 2^-1075..2^1024, and wrap keeps no bit at 2^64 or above); clamping it keeps
    // the exponent arithmetic below far from overflow for any caller.
    let exp = exp.clamp(-4000, 4000);
    if to.kind == Kind::Float {
        round_to_float(to, neg, mant, exp, sticky, rounding, oor)
    } else {
        round_to_integer(to, neg, mant, exp, sticky, rounding, oor)
    }
}

/// `round(value / 2^q)` in magnitude, with the mode applied to the sign `neg`.
///
/// Returns the low 64 bits of the rounded magnitude and whether it needs more than 64 bits
/// (possible only when `q < exp`, i.e. the value is already on the grid).
#[inline(always)]
fn round_scaled(neg: bool, mant: u64, exp: i32, sticky: bool, q: i32, rounding: Rounding) -> (u64, bool) {
    let shift = q as i64 - exp as i64;
    if shift <= 0 {
        // Exact: the value is a multiple of 2^q. Keep the low 64 bits for `wrap`.
        let s = (-shift) as u64;
        if mant == 0 {
            return (0, false);
        }
        if s >= 64 {
            return (0, true);
        }
        let huge = s > 0 && (mant >> (64 - s)) != 0;
        return (mant << s, huge);
    }
    // Split into the kept part `n`, the first dropped bit `half` and the rest `rest`.
    let s = shift as u64;
    let (n, half, rest) = if s > 64 {
        (0, false, mant != 0)
    } else if s == 64 {
        (0, mant >> 63 != 0, (mant << 1) != 0)
    } else {
        (mant >> s, (mant >> (s - 1)) & 1 != 0, mant & ((1u64 << (s - 1)) - 1) != 0)
    };
    let rest = rest || sticky;
    let up = match rounding {
        Rounding::NearestEven => half && (rest || n & 1 == 1),
        Rounding::NearestAway => half,
        Rounding::TowardsZero => false,
        Rounding::TowardsPositive => !neg && (half || rest),
        Rounding::TowardsNegative => neg && (half || rest),
    };
    (n + up as u64, false)
}

/// Out of range: the configured rule decides.
#[inline]
fn out_of_range(to: &Format, above: bool, oor: Option<OutOfRange>, wrapped: u64) -> Result<u64, Reason> {
    match oor {
        Some(OutOfRange::Clamp) => Ok(if above {
            to.clamp_above_bits()
        } else if to.kind == Kind::Float && to.has_inf {
            to.positive_infinity() | to.sign_mask()
        } else {
            to.min_bits()
        }),
        // `wrap` is only ever configured for integer targets; the plan drops it elsewhere.
        Some(OutOfRange::Wrap) if to.kind != Kind::Float => Ok(wrapped),
        _ => Err(Reason::OutOfRange { above, min: to.min_bits(), max: to.max_bits() }),
    }
}

fn round_to_integer(
    to: &Format,
    neg: bool,
    mant: u64,
    exp: i32,
    sticky: bool,
    rounding: Rounding,
    oor: Option<OutOfRange>,
) -> Result<u64, Reason> {
    let (n, huge) = round_scaled(neg, mant, exp, sticky, 0, rounding);
    // Magnitude limits: signed N bits hold [-2^(N-1), 2^(N-1) - 1].
    let limit = match (to.kind, neg) {
        (Kind::Signed, false) => to.mask() >> 1,
        (Kind::Signed, true) => (to.mask() >> 1) + 1,
        (_, false) => to.mask(),
        (_, true) => 0,
    };
    // Two's complement of the magnitude, modulo 2^N: the in-range encoding and, for values out
    // of range, the `wrap` result (the low 64 bits of the magnitude are exact modulo 2^64).
    let wrapped = if neg { n.wrapping_neg() } else { n } & to.mask();
    if !huge && n <= limit {
        Ok(wrapped)
    } else {
        out_of_range(to, !neg, oor, wrapped)
    }
}

fn round_to_float(
    to: &Format,
    neg: bool,
    mant: u64,
    exp: i32,
    sticky: bool,
    rounding: Rounding,
    oor: Option<OutOfRange>,
) -> Result<u64, Reason> {
    let sign = if neg { to.sign_mask() } else { 0 };
    let m = to.man_bits as i32;
    if !to.subnormals {
        // float8_e8m0fnu: no zero and no sign; zero and negatives are below its range.
        if neg || (mant == 0 && !sticky) {
            return out_of_range(to, false, oor, 0);
        }
    } else if mant == 0 && !sticky {
        return Ok(signed_zero(to, neg));
    }
    // The value lies in [2^e, 2^(e+1)); its grid spacing there is 2^q, never finer than the
    // subnormal spacing, and the exponent is unbounded above (range is checked afterwards).
    let e = 63 - mant.leading_zeros() as i32 + exp;
    let mut q = if to.subnormals { e.max(to.min_normal_exponent()) - m } else { e - m };
    let (mut n, _) = round_scaled(neg, mant, exp, sticky, q, rounding);
    if n >> (m + 1) != 0 {
        // Rounded up into the next binade: n == 2^(m+1).
        n >>= 1;
        q += 1;
    }
    if n == 0 {
        return Ok(signed_zero(to, neg));
    }
    if q > to.max_exponent() - m {
        return out_of_range(to, !neg, oor, 0);
    }
    if !to.subnormals && q < to.min_normal_exponent() - m {
        return out_of_range(to, false, oor, 0);
    }
    let bits = if n >> m != 0 {
        // Normal: biased exponent of the leading bit, stored fraction without it.
        (((q + m + to.bias) as u64) << m) | (n & ((1u64 << m) - 1))
    } else {
        n
    };
    Ok(sign | bits)
}

/// A zero result keeps the input's sign where the target has -0.
#[inline]
fn signed_zero(to: &Format, neg: bool) -> u64 {
    if neg && to.has_negative_zero() {
        to.sign_mask()
    } else {
        0
    }
}

/// The scalar kernel over whole buffers. Lengths are checked by the caller (the plan): `src`
/// holds whole elements and `dst` exactly as many.
pub fn cast(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let (from, to) = (dir.from.format(), dir.to.format());
    let pairs = src.chunks_exact(from.size).zip(dst.chunks_exact_mut(to.size));
    for (index, (s, d)) in pairs.enumerate() {
        let bits = read_bits(from, s);
        match cast_element(dir, bits) {
            Ok(v) => write_bits(to, v, d),
            Err(reason) => return Err(ElementError { index, value: bits, from: dir.from, to: dir.to, reason }),
        }
    }
    Ok(())
}
