//! An independent, slow model of the cast procedure (DECISIONS §1-2), sharing no code with
//! the crate's reference path: its own type table typed in from DECISIONS §1 (with the max
//! finite / min subnormal columns as checks), its own decoder, and rounding by comparing the
//! exact value against its two grid neighbours in u128/i128 arithmetic.

#![allow(dead_code)]

use cast_value_kernels::{DataType, OutOfRange, Reason, Rounding};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Nan {
    None,
    Ieee,
    X80,
    Xff,
}

#[derive(Clone, Copy, Debug)]
pub struct Ty {
    pub name: &'static str,
    pub int: Option<bool>, // Some(signed) for integers
    pub bits: u32,
    pub s: u32,
    pub e: u32,
    pub m: u32,
    pub bias: i32,
    pub inf: bool,
    pub nan: Nan,
    pub neg_zero: bool,
    pub canonical_nan: u64,
    /// DECISIONS §1 "max finite", as binary64.
    pub max_finite: f64,
    /// DECISIONS §1 "min subnormal" (0: none; float8_e8m0fnu's minimum is in `min_value`).
    pub min_sub: f64,
}

const fn int(name: &'static str, signed: bool, bits: u32) -> Ty {
    Ty {
        name,
        int: Some(signed),
        bits,
        s: 0,
        e: 0,
        m: 0,
        bias: 0,
        inf: false,
        nan: Nan::None,
        neg_zero: false,
        canonical_nan: 0,
        max_finite: 0.0,
        min_sub: 0.0,
    }
}

#[allow(clippy::too_many_arguments)]
const fn fl(
    name: &'static str,
    s: u32,
    e: u32,
    m: u32,
    bias: i32,
    inf: bool,
    nan: Nan,
    neg_zero: bool,
    canonical_nan: u64,
    max_finite: f64,
    min_sub: f64,
) -> Ty {
    Ty { name, int: None, bits: s + e + m, s, e, m, bias, inf, nan, neg_zero, canonical_nan, max_finite, min_sub }
}

/// DECISIONS §1, typed in by hand.
pub static TYPES: [Ty; 26] = [
    int("int2", true, 2),
    int("int4", true, 4),
    int("int8", true, 8),
    int("int16", true, 16),
    int("int32", true, 32),
    int("int64", true, 64),
    int("uint2", false, 2),
    int("uint4", false, 4),
    int("uint8", false, 8),
    int("uint16", false, 16),
    int("uint32", false, 32),
    int("uint64", false, 64),
    fl("float4_e2m1fn", 1, 2, 1, 1, false, Nan::None, true, 0, 6.0, 0.5),
    fl("float6_e2m3fn", 1, 2, 3, 1, false, Nan::None, true, 0, 7.5, 0.125),
    fl("float6_e3m2fn", 1, 3, 2, 3, false, Nan::None, true, 0, 28.0, 0.0625),
    fl("float8_e3m4", 1, 3, 4, 3, true, Nan::Ieee, true, 0x78, 15.5, 0.015625),
    fl("float8_e4m3", 1, 4, 3, 7, true, Nan::Ieee, true, 0x7c, 240.0, 0.001953125),
    fl("float8_e4m3b11fnuz", 1, 4, 3, 11, false, Nan::X80, false, 0x80, 30.0, 1.220703125e-4),
    fl("float8_e4m3fnuz", 1, 4, 3, 8, false, Nan::X80, false, 0x80, 240.0, 9.765625e-4),
    fl("float8_e5m2", 1, 5, 2, 15, true, Nan::Ieee, true, 0x7e, 57344.0, 1.52587890625e-5),
    fl("float8_e5m2fnuz", 1, 5, 2, 16, false, Nan::X80, false, 0x80, 57344.0, 7.62939453125e-6),
    fl("float8_e8m0fnu", 0, 8, 0, 127, false, Nan::Xff, false, 0xff, 1.7014118346046923e38, 0.0),
    fl("bfloat16", 1, 8, 7, 127, true, Nan::Ieee, true, 0x7fc0, 3.3895313892515355e38, 9.183549615799121e-41),
    fl("float16", 1, 5, 10, 15, true, Nan::Ieee, true, 0x7e00, 65504.0, 5.960464477539063e-8),
    fl("float32", 1, 8, 23, 127, true, Nan::Ieee, true, 0x7fc00000, 3.4028234663852886e38, 1.401298464324817e-45),
    fl("float64", 1, 11, 52, 1023, true, Nan::Ieee, true, 0x7ff8000000000000, f64::MAX, 5e-324),
];

pub fn ty(t: DataType) -> &'static Ty {
    TYPES.iter().find(|x| x.name == t.name()).expect("every type is in the model table")
}

/// An exact value: (-1)^neg * m * 2^e.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    NaN,
    Inf(bool),
    Fin { neg: bool, m: u128, e: i32 },
}

fn norm(neg: bool, mut m: u128, mut e: i32) -> Val {
    if m == 0 {
        return Val::Fin { neg, m: 0, e: 0 };
    }
    while m.is_multiple_of(2) {
        m /= 2;
        e += 1;
    }
    Val::Fin { neg, m, e }
}

/// An f64 as an exact value (positive, finite).
pub fn from_f64(x: f64) -> (u128, i32) {
    let b = x.to_bits();
    let field = ((b >> 52) & 0x7ff) as i32;
    let frac = (b & ((1 << 52) - 1)) as u128;
    if field == 0 {
        (frac, -1074)
    } else {
        (frac + (1 << 52), field - 1075)
    }
}

/// Decode `bits` of type `t` (the logical bits; upper bits ignored).
pub fn decode(t: &Ty, bits: u64) -> Val {
    let mask: u64 = if t.bits == 64 { u64::MAX } else { (1 << t.bits) - 1 };
    let b = bits & mask;
    if let Some(signed) = t.int {
        if signed && b >> (t.bits - 1) == 1 {
            // Negative: magnitude is 2^N - b.
            let mag = (1u128 << t.bits) - b as u128;
            return norm(true, mag, 0);
        }
        return norm(false, b as u128, 0);
    }
    let neg = t.s == 1 && (b >> (t.bits - 1)) & 1 == 1;
    let field = (b >> t.m) & ((1 << t.e) - 1);
    let man = (b & ((1 << t.m) - 1)) as u128;
    match t.nan {
        Nan::Ieee if field == (1 << t.e) - 1 => return if man == 0 { Val::Inf(neg) } else { Val::NaN },
        Nan::X80 if b == 0x80 => return Val::NaN,
        Nan::Xff if b == 0xff => return Val::NaN,
        _ => {}
    }
    if t.nan == Nan::Xff {
        return norm(false, 1, field as i32 - t.bias);
    }
    if field == 0 {
        norm(neg, man, 1 - t.bias - t.m as i32)
    } else {
        norm(neg, man + (1 << t.m), field as i32 - t.bias - t.m as i32)
    }
}

fn bitlen(m: u128) -> i32 {
    128 - m.leading_zeros() as i32
}

/// Compare magnitudes m1*2^e1 and m2*2^e2.
pub fn cmp_mag(m1: u128, e1: i32, m2: u128, e2: i32) -> Ordering {
    match (m1 == 0, m2 == 0) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let (t1, t2) = (bitlen(m1) + e1, bitlen(m2) + e2);
    if t1 != t2 {
        return t1.cmp(&t2);
    }
    // Same top bit position: align on the smaller exponent (shift < 128 by equal tops).
    if e1 >= e2 {
        (m1 << (e1 - e2)).cmp(&m2)
    } else {
        m1.cmp(&(m2 << (e2 - e1)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    Nan,
    Inf,
    Range { above: bool },
}

/// Round |x| = m*2^e (m > 0) to a multiple k of 2^q, per mode and sign. Returns k, possibly
/// only modulo 2^64 with `huge` set when k >= 2^64 is exact but enormous.
fn round_multiple(neg: bool, m: u128, e: i32, q: i32, mode: Rounding) -> (u128, bool) {
    if q <= e {
        let sh = e - q;
        if bitlen(m) + sh > 120 {
            // Enormous and exact: keep k modulo 2^64 only.
            let low = if sh >= 64 { 0 } else { (m << sh) & (u64::MAX as u128) };
            return (low, true);
        }
        return (m << sh, false);
    }
    let d = q - e;
    // x / 2^q = k + r / 2^d, 0 <= r < 2^d; compare the remainder with one half.
    let (k, half_cmp, exact) = if d > 126 {
        (0u128, Ordering::Less, false)
    } else {
        let k = m >> d;
        let r = m - (k << d);
        ((k), (2 * r).cmp(&(1u128 << d)), r == 0)
    };
    let up = match mode {
        Rounding::NearestEven => half_cmp == Ordering::Greater || (half_cmp == Ordering::Equal && k % 2 == 1),
        Rounding::NearestAway => half_cmp != Ordering::Less,
        Rounding::TowardsZero => false,
        Rounding::TowardsPositive => !neg && !exact,
        Rounding::TowardsNegative => neg && !exact,
    };
    (k + up as u128, false)
}

fn log2_exact(x: f64) -> i32 {
    let (m, e) = from_f64(x);
    assert!(m.is_power_of_two());
    e + m.trailing_zeros() as i32
}

/// The model's answer: the exact result value, or why it fails.
pub fn cast(src: &Ty, dst: &Ty, mode: Rounding, oor: Option<OutOfRange>, bits: u64) -> Result<Val, Fail> {
    let x = decode(src, bits);
    let (neg, m, e) = match x {
        Val::NaN => return if dst.nan != Nan::None { Ok(Val::NaN) } else { Err(Fail::Nan) },
        Val::Inf(n) => return if dst.inf { Ok(Val::Inf(n)) } else { Err(Fail::Inf) },
        Val::Fin { neg, m, e } => (neg, m, e),
    };
    if let Some(signed) = dst.int {
        let n = dst.bits;
        let (k, huge) = if m == 0 { (0, false) } else { round_multiple(neg, m, e, 0, mode) };
        let (lo, hi): (i128, i128) =
            if signed { (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1) } else { (0, (1i128 << n) - 1) };
        let v: Option<i128> = if huge || k > u64::MAX as u128 + 1 {
            None
        } else if neg {
            Some(-(k as i128))
        } else {
            Some(k as i128)
        };
        if let Some(v) = v {
            if v >= lo && v <= hi {
                return Ok(norm(v < 0, v.unsigned_abs(), 0));
            }
        }
        return match oor {
            None => Err(Fail::Range { above: !neg }),
            Some(OutOfRange::Clamp) => {
                Ok(if neg { norm(lo < 0, lo.unsigned_abs(), 0) } else { norm(false, hi as u128, 0) })
            }
            Some(OutOfRange::Wrap) => {
                let modulus = 1u128 << n;
                let mut r = (k & (u64::MAX as u128)) % modulus;
                if neg {
                    r = (modulus - r) % modulus;
                }
                let v = if signed && r >= modulus / 2 { r as i128 - modulus as i128 } else { r as i128 };
                Ok(norm(v < 0, v.unsigned_abs(), 0))
            }
        };
    }
    // Float target.
    let (max_m, max_e) = from_f64(dst.max_finite);
    let above = |neg: bool| -> Result<Val, Fail> {
        match oor {
            Some(OutOfRange::Clamp) if dst.inf => Ok(Val::Inf(neg)),
            Some(OutOfRange::Clamp) => Ok(norm(neg, max_m, max_e)),
            _ => Err(Fail::Range { above: !neg }),
        }
    };
    let below = || -> Result<Val, Fail> {
        match oor {
            Some(OutOfRange::Clamp) => Ok(norm(false, 1, -127)),
            _ => Err(Fail::Range { above: false }),
        }
    };
    let e8m0 = dst.s == 0;
    if e8m0 && (neg || m == 0) {
        return below();
    }
    if m == 0 {
        return Ok(Val::Fin { neg: neg && dst.neg_zero, m: 0, e: 0 });
    }
    let p = dst.m as i32 + 1;
    let top = bitlen(m) - 1 + e; // floor(log2 |x|)
    let mut q = top - (p - 1);
    if !e8m0 {
        q = q.max(log2_exact(dst.min_sub));
    }
    let (k, _) = round_multiple(neg, m, e, q, mode);
    if k == 0 {
        return Ok(Val::Fin { neg: neg && dst.neg_zero, m: 0, e: 0 });
    }
    if cmp_mag(k, q, max_m, max_e) == Ordering::Greater {
        return above(neg);
    }
    if e8m0 && cmp_mag(k, q, 1, -127) == Ordering::Less {
        return below();
    }
    Ok(norm(neg, k, q))
}

/// Does the crate's answer match the model's? On success, also checks the bit encoding
/// details the value alone does not show: canonical NaN, the sign of zero.
pub fn agrees(dst: &Ty, model: &Result<Val, Fail>, got: &Result<u64, Reason>) -> bool {
    match (model, got) {
        (Err(Fail::Nan), Err(Reason::NanNotRepresentable)) => true,
        (Err(Fail::Inf), Err(Reason::InfinityNotRepresentable { .. })) => true,
        (Err(Fail::Range { above }), Err(Reason::OutOfRange { above: a, .. })) => above == a,
        (Ok(Val::NaN), Ok(bits)) => *bits == dst.canonical_nan,
        (Ok(v), Ok(bits)) => {
            let mask: u64 = if dst.bits == 64 { u64::MAX } else { (1 << dst.bits) - 1 };
            *bits & !mask == 0 && decode(dst, *bits) == *v
        }
        _ => false,
    }
}
