//! Error values: per-element cast failures, buffer misuse and invalid configurations.

use crate::dtype::{DataType, Decoded, Kind};
use core::fmt;

/// Why one element could not be cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The input is NaN and the target has no NaN encoding.
    NanNotRepresentable,
    /// The input is +-Inf and the target has no infinities (out_of_range does not apply).
    InfinityNotRepresentable {
        /// True for -Inf.
        negative: bool,
    },
    /// The rounded value lies outside the target's range and out_of_range is absent.
    OutOfRange {
        /// True when the value is above `max`, false when below `min`.
        above: bool,
        /// The target's smallest value, as a target bit pattern.
        min: u64,
        /// The target's largest finite value, as a target bit pattern.
        max: u64,
    },
}

/// Shows a bit pattern of a data type as the number it encodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarDisplay {
    /// The data type of `bits`.
    pub data_type: DataType,
    /// The bit pattern (logical bits).
    pub bits: u64,
}

impl fmt::Display for ScalarDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fmt_ = self.data_type.format();
        match (fmt_.kind, self.data_type.decode_bits(self.bits)) {
            (Kind::Signed, Decoded::Finite { neg, mant, .. }) => {
                if neg {
                    write!(f, "-{mant}")
                } else {
                    write!(f, "{mant}")
                }
            }
            (Kind::Unsigned, Decoded::Finite { mant, .. }) => write!(f, "{mant}"),
            (_, Decoded::Nan) => f.write_str("NaN"),
            (_, Decoded::Inf { neg }) => f.write_str(if neg { "-Infinity" } else { "Infinity" }),
            (_, Decoded::Finite { neg, mant, exp }) => {
                // Display only: every format of the crate embeds exactly in binary64. Plain
                // notation for magnitudes about 1e-5..1e16 (binary exponent -17..53).
                let v = exact_f64(neg, mant, exp);
                let e = if mant == 0 { 0 } else { 63 - mant.leading_zeros() as i32 + exp };
                if (-17..53).contains(&e) {
                    write!(f, "{v}")
                } else {
                    write!(f, "{v:e}")
                }
            }
        }
    }
}

/// Build the binary64 holding `(-1)^neg * mant * 2^exp` from bits; exact for every value of
/// the 26 formats (at most 53 significant bits, exponent within binary64's range).
fn exact_f64(neg: bool, mant: u64, exp: i32) -> f64 {
    let sign = (neg as u64) << 63;
    if mant == 0 {
        return f64::from_bits(sign);
    }
    let msb = 63 - mant.leading_zeros() as i32;
    let e = msb + exp;
    let bits = if e >= -1022 {
        let frac = if msb <= 52 { mant << (52 - msb) } else { mant >> (msb - 52) };
        (((e + 1023) as u64) << 52) | (frac & ((1u64 << 52) - 1))
    } else {
        let s = exp + 1074;
        if s >= 0 {
            mant << s
        } else {
            mant >> -s
        }
    };
    f64::from_bits(sign | bits)
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NanNotRepresentable => f.write_str("NaN is not representable in the target type"),
            Reason::InfinityNotRepresentable { negative } => {
                write!(f, "{}Infinity is not representable in the target type", if *negative { "-" } else { "" })
            }
            Reason::OutOfRange { above, .. } => {
                write!(f, "out of range ({} the representable range)", if *above { "above" } else { "below" })
            }
        }
    }
}

/// The first element that failed to cast, with everything needed to explain it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementError {
    /// Index of the element in the input buffer.
    pub index: usize,
    /// Its bit pattern (logical bits, as read).
    pub value: u64,
    /// Source data type.
    pub from: DataType,
    /// Target data type.
    pub to: DataType,
    /// Why it failed.
    pub reason: Reason,
}

impl fmt::Display for ElementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "element {}: {} value {} cannot be cast to {}: {}",
            self.index,
            self.from,
            ScalarDisplay { data_type: self.from, bits: self.value },
            self.to,
            self.reason
        )?;
        if let Reason::OutOfRange { min, max, .. } = self.reason {
            write!(
                f,
                " [{}, {}]",
                ScalarDisplay { data_type: self.to, bits: min },
                ScalarDisplay { data_type: self.to, bits: max }
            )?;
        }
        Ok(())
    }
}

impl core::error::Error for ElementError {}

/// Failure of an encode or decode call.
///
/// After an error the output buffer holds the cast of every element before the failing index;
/// the failing element and those after it are unspecified (they may hold stale bytes or
/// results), never uninitialised memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastError {
    /// The input length is not a whole number of elements.
    InputLength {
        /// Bytes given.
        len: usize,
        /// Bytes per input element.
        element_size: usize,
    },
    /// The output buffer does not hold exactly one element per input element.
    OutputLength {
        /// Bytes needed.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// A typed entry point was called with an element type of the wrong size.
    ElementSize {
        /// The data type the plan expects on that side.
        data_type: DataType,
        /// `size_of` of the Rust type given.
        actual: usize,
    },
    /// An element could not be cast.
    Element(ElementError),
}

impl From<ElementError> for CastError {
    fn from(e: ElementError) -> Self {
        CastError::Element(e)
    }
}

impl fmt::Display for CastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CastError::InputLength { len, element_size } => {
                write!(f, "input length {len} is not a multiple of the element size {element_size}")
            }
            CastError::OutputLength { expected, actual } => {
                write!(f, "output buffer is {actual} bytes, expected {expected}")
            }
            CastError::ElementSize { data_type, actual } => {
                write!(f, "element type of {actual} bytes given where {data_type} needs {}", data_type.size())
            }
            CastError::Element(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for CastError {}

/// Which list of a scalar_map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapDirection {
    /// `scalar_map.encode`.
    Encode,
    /// `scalar_map.decode`.
    Decode,
}

impl MapDirection {
    /// `"encode"` or `"decode"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            MapDirection::Encode => "encode",
            MapDirection::Decode => "decode",
        }
    }
}

/// Why a fill-value JSON scalar is not valid for a data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillValueError {
    /// A non-integer (fraction, exponent, string) for an integer type.
    NotAnInteger,
    /// An integer outside the type's range.
    IntegerOutOfRange,
    /// A number whose nearest-even rounding lies outside the type's finite range.
    NumberOutOfRange,
    /// Text that is not a JSON number.
    NumberSyntax,
    /// "NaN" for a type without NaN.
    NanNotSupported,
    /// "Infinity"/"-Infinity" for a type without infinities.
    InfinityNotSupported,
    /// Zero or a negative number for float8_e8m0fnu, which holds positive values only.
    NotPositive,
    /// A hex bit pattern with the wrong number of digits.
    HexDigits {
        /// Digits the type needs (two per byte).
        expected: usize,
    },
    /// A hex bit pattern with a character that is not a hex digit.
    HexSyntax,
    /// A hex bit pattern with bits set above the type's logical width.
    HexHighBits,
    /// A hex bit pattern for an integer type (integers take JSON integers only).
    HexForInteger,
}

impl fmt::Display for FillValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FillValueError::NotAnInteger => f.write_str("integer types take a JSON integer literal"),
            FillValueError::IntegerOutOfRange => f.write_str("integer out of the type's range"),
            FillValueError::NumberOutOfRange => f.write_str("number outside the type's finite range"),
            FillValueError::NumberSyntax => f.write_str("not a JSON number"),
            FillValueError::NanNotSupported => f.write_str("the type has no NaN"),
            FillValueError::InfinityNotSupported => f.write_str("the type has no infinities"),
            FillValueError::NotPositive => f.write_str("float8_e8m0fnu holds positive numbers only"),
            FillValueError::HexDigits { expected } => {
                write!(f, "hex bit pattern needs exactly {expected} digits")
            }
            FillValueError::HexSyntax => f.write_str("not a hex bit pattern"),
            FillValueError::HexHighBits => f.write_str("hex bit pattern sets bits above the type's width"),
            FillValueError::HexForInteger => f.write_str("integer types take a JSON integer literal, not hex"),
        }
    }
}

/// An invalid configuration, scalar_map entry or fill value. Every variant names what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// `out_of_range: "wrap"` with a float `data_type`.
    WrapNeedsIntegerTarget {
        /// The configured `data_type`.
        data_type: DataType,
    },
    /// A scalar_map entry that is not a valid fill value of its type.
    ScalarMapEntry {
        /// `encode` or `decode`.
        direction: MapDirection,
        /// Index of the entry in its list.
        index: usize,
        /// 0 for the input (key), 1 for the output.
        position: usize,
        /// The type the scalar must be a fill value of.
        data_type: DataType,
        /// Why it is not.
        error: FillValueError,
    },
    /// More scalar_map entries than a build without `alloc` can hold.
    ScalarMapTooLarge {
        /// `encode` or `decode`.
        direction: MapDirection,
        /// Distinct keys given.
        len: usize,
        /// Entries that fit without `alloc`.
        capacity: usize,
    },
    /// The array's fill value is not a valid fill value of the array's type.
    InvalidFillValue {
        /// The array data type.
        data_type: DataType,
        /// Why.
        error: FillValueError,
    },
    /// The fill value cannot be encoded, or its encoding cannot be decoded.
    FillValueNotCastable {
        /// `encode` (array -> data_type) or `decode` (back).
        direction: MapDirection,
        /// The failure, index 0.
        error: ElementError,
    },
    /// The fill value does not survive encode then decode.
    FillValueRoundTrip {
        /// The array data type.
        array_type: DataType,
        /// The fill value's bits.
        fill: u64,
        /// The codec's `data_type`.
        data_type: DataType,
        /// The encoded fill value's bits.
        encoded: u64,
        /// What decoding gave back.
        decoded: u64,
    },
    /// A typed plan's Rust element type does not hold the configured data type.
    ElementType {
        /// The data type the configuration names.
        expected: DataType,
        /// The data type the Rust element type holds.
        actual: DataType,
    },
    /// An array->array codec other than cast_value in an array's codec chain: this crate
    /// cannot run it, so the chain cannot be run (never silently skipped).
    #[cfg(feature = "alloc")]
    UnsupportedCodec {
        /// Position in the `codecs` list.
        index: usize,
        /// The codec's `name`.
        name: alloc::string::String,
    },
    /// Malformed metadata JSON: `path` names the key or entry (e.g.
    /// `configuration.scalar_map.encode[1]`).
    #[cfg(feature = "alloc")]
    Metadata {
        /// Where in the document.
        path: alloc::string::String,
        /// What is wrong there.
        message: alloc::string::String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::WrapNeedsIntegerTarget { data_type } => {
                write!(f, "out_of_range: \"wrap\" needs an integer data_type, not {data_type}")
            }
            ConfigError::ScalarMapEntry { direction, index, position, data_type, error } => write!(
                f,
                "scalar_map.{}[{index}][{position}]: not a valid {data_type} fill value: {error}",
                direction.as_str()
            ),
            ConfigError::ScalarMapTooLarge { direction, len, capacity } => write!(
                f,
                "scalar_map.{}: {len} entries, but a build without the `alloc` feature holds at most {capacity}",
                direction.as_str()
            ),
            ConfigError::InvalidFillValue { data_type, error } => {
                write!(f, "fill_value: not a valid {data_type} fill value: {error}")
            }
            ConfigError::FillValueNotCastable { direction, error } => write!(
                f,
                "fill_value {} cannot be {}d: {}",
                ScalarDisplay { data_type: error.from, bits: error.value },
                direction.as_str(),
                error.reason
            ),
            ConfigError::FillValueRoundTrip { array_type, fill, data_type, encoded, decoded } => write!(
                f,
                "fill_value {} does not survive the round trip: encoded as {data_type} {}, decoded back to {}",
                ScalarDisplay { data_type: *array_type, bits: *fill },
                ScalarDisplay { data_type: *data_type, bits: *encoded },
                ScalarDisplay { data_type: *array_type, bits: *decoded },
            ),
            ConfigError::ElementType { expected, actual } => {
                write!(f, "data_type is {expected}, but the output element type holds {actual}")
            }
            #[cfg(feature = "alloc")]
            ConfigError::UnsupportedCodec { index, name } => {
                write!(f, "codecs[{index}]: \"{name}\" is not supported here (only cast_value runs before the array->bytes codec)")
            }
            #[cfg(feature = "alloc")]
            ConfigError::Metadata { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl core::error::Error for ConfigError {}
