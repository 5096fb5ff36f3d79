//! Fill-value JSON scalars bound to a data type: exact integers over the full
//! 64-bit range, exact decimal rounding for floats, "NaN", infinities, hex bit patterns.

use crate::config::{FillValue, Rounding};
use crate::decimal::{self, Exact};
use crate::dtype::{DataType, Kind};
use crate::error::FillValueError;
use crate::kernels::scalar::round_finite;

/// The bit pattern (logical bits) that a fill-value JSON scalar denotes in `data_type`.
///
/// ```
/// use cast_value_kernels::{fill_value_bits, DataType, FillValue};
/// assert_eq!(fill_value_bits(DataType::Float16, &FillValue::Number("65519")), Ok(0x7bff));
/// assert!(fill_value_bits(DataType::UInt8, &FillValue::Int(300)).is_err());
/// ```
pub fn fill_value_bits(data_type: DataType, value: &FillValue<'_>) -> Result<u64, FillValueError> {
    let f = data_type.format();
    if f.kind != Kind::Float {
        return integer_bits(data_type, value);
    }
    match *value {
        FillValue::NaN => {
            if f.has_nan() {
                Ok(f.canonical_nan())
            } else {
                Err(FillValueError::NanNotSupported)
            }
        }
        FillValue::Infinity | FillValue::NegInfinity => {
            if !f.has_inf {
                return Err(FillValueError::InfinityNotSupported);
            }
            let neg = matches!(value, FillValue::NegInfinity);
            Ok(f.positive_infinity() | if neg { f.sign_mask() } else { 0 })
        }
        FillValue::Hex(digits) => hex_bits(data_type, digits),
        FillValue::Int(v) => float_bits(data_type, exact_from_i128(v)),
        FillValue::Number(text) => float_bits(data_type, decimal::parse(text).ok_or(FillValueError::NumberSyntax)?),
    }
}

fn integer_bits(data_type: DataType, value: &FillValue<'_>) -> Result<u64, FillValueError> {
    let v: i128 = match *value {
        FillValue::Int(v) => v,
        FillValue::Number(text) => {
            let decimal::NumberParts { neg, int, frac, exp } =
                decimal::split_json_number(text).ok_or(FillValueError::NumberSyntax)?;
            if !frac.is_empty() || exp.is_some() {
                return Err(FillValueError::NotAnInteger);
            }
            let mut v: i128 = 0;
            for &d in int {
                v = v
                    .checked_mul(10)
                    .and_then(|v| v.checked_add((d - b'0') as i128))
                    .ok_or(FillValueError::IntegerOutOfRange)?;
            }
            if neg {
                -v
            } else {
                v
            }
        }
        FillValue::NaN => return Err(FillValueError::NanNotSupported),
        FillValue::Infinity | FillValue::NegInfinity => return Err(FillValueError::InfinityNotSupported),
        FillValue::Hex(_) => return Err(FillValueError::HexForInteger),
    };
    let f = data_type.format();
    let (min, max) = f.int_bounds();
    if v < min || v > max {
        return Err(FillValueError::IntegerOutOfRange);
    }
    Ok((v as u64) & f.mask())
}

fn hex_bits(data_type: DataType, digits: &str) -> Result<u64, FillValueError> {
    let f = data_type.format();
    let expected = 2 * f.size;
    if digits.len() != expected {
        return Err(FillValueError::HexDigits { expected });
    }
    let mut v = 0u64;
    for c in digits.bytes() {
        let d = (c as char).to_digit(16).ok_or(FillValueError::HexSyntax)?;
        v = (v << 4) | d as u64;
    }
    if v & !f.mask() != 0 {
        return Err(FillValueError::HexHighBits);
    }
    Ok(v)
}

/// An i128 as significand and exponent; beyond 64 bits the dropped bits become sticky.
fn exact_from_i128(v: i128) -> Exact {
    let mag = v.unsigned_abs();
    let neg = v < 0;
    if mag >> 64 == 0 {
        return Exact { neg, mant: mag as u64, exp: 0, sticky: false };
    }
    let shift = 64 - mag.leading_zeros();
    Exact { neg, mant: (mag >> shift) as u64, exp: shift as i32, sticky: mag & ((1u128 << shift) - 1) != 0 }
}

fn float_bits(data_type: DataType, x: Exact) -> Result<u64, FillValueError> {
    let f = data_type.format();
    if !f.has_sign && (x.neg || (x.mant == 0 && !x.sticky)) {
        return Err(FillValueError::NotPositive);
    }
    round_finite(f, x.neg, x.mant, x.exp, x.sticky, Rounding::NearestEven, None)
        .map_err(|_| FillValueError::NumberOutOfRange)
}
