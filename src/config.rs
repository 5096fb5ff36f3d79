//! The codec configuration in its borrowed, allocation-free form.

use crate::dtype::DataType;
use core::fmt;

/// How a value that falls between two representable values is rounded (spec: `rounding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// `"nearest-even"`: IEEE roundTiesToEven. The default.
    #[default]
    NearestEven,
    /// `"towards-zero"`: truncate.
    TowardsZero,
    /// `"towards-positive"`: ceiling.
    TowardsPositive,
    /// `"towards-negative"`: floor.
    TowardsNegative,
    /// `"nearest-away"`: ties away from zero.
    NearestAway,
}

impl Rounding {
    /// All five modes, in the spec's order.
    pub const ALL: [Rounding; 5] = [
        Rounding::NearestEven,
        Rounding::TowardsZero,
        Rounding::TowardsPositive,
        Rounding::TowardsNegative,
        Rounding::NearestAway,
    ];

    /// The JSON string of this mode.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rounding::NearestEven => "nearest-even",
            Rounding::TowardsZero => "towards-zero",
            Rounding::TowardsPositive => "towards-positive",
            Rounding::TowardsNegative => "towards-negative",
            Rounding::NearestAway => "nearest-away",
        }
    }

    /// Parse the JSON string of a mode.
    pub fn from_name(s: &str) -> Option<Rounding> {
        Rounding::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happens to a rounded value outside the target's range (spec: `out_of_range`).
/// Absent (`None` in [`CastConfig::out_of_range`]) means such a value is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutOfRange {
    /// `"clamp"`: to the target's min/max (or +-Inf where the target has it).
    Clamp,
    /// `"wrap"`: modulo 2^N, integer targets only.
    Wrap,
}

impl OutOfRange {
    /// The JSON string.
    pub const fn as_str(self) -> &'static str {
        match self {
            OutOfRange::Clamp => "clamp",
            OutOfRange::Wrap => "wrap",
        }
    }

    /// Parse the JSON string.
    pub fn from_name(s: &str) -> Option<OutOfRange> {
        match s {
            "clamp" => Some(OutOfRange::Clamp),
            "wrap" => Some(OutOfRange::Wrap),
            _ => None,
        }
    }
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scalar written in the Zarr v3 fill-value JSON encoding, not yet bound to a data type.
/// Borrowed, so a `static` scalar_map can be written without allocation:
///
/// ```
/// use cast_value_kernels::FillValue;
/// static NUMPY_LIKE: [(FillValue, FillValue); 3] = [
///     (FillValue::NaN, FillValue::Int(0)),
///     (FillValue::Infinity, FillValue::Int(0)),
///     (FillValue::NegInfinity, FillValue::Int(0)),
/// ];
/// # assert_eq!(NUMPY_LIKE.len(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillValue<'a> {
    /// A JSON integer literal (no fraction, no exponent), exact.
    Int(i128),
    /// Any other JSON number, as its literal text (e.g. `"-1.5e3"`); rounded nearest-even to a
    /// float type, invalid for integer types. Parsed exactly, never through f64.
    Number(&'a str),
    /// `"NaN"`.
    NaN,
    /// `"Infinity"`.
    Infinity,
    /// `"-Infinity"`.
    NegInfinity,
    /// `"0x..."`: the hex digits after `0x` of a float bit pattern, sign bit first, two digits
    /// per byte.
    Hex(&'a str),
}

impl fmt::Display for FillValue<'_> {
    /// Prints the fill-value JSON form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FillValue::Int(v) => write!(f, "{v}"),
            FillValue::Number(t) => f.write_str(t),
            FillValue::NaN => f.write_str("\"NaN\""),
            FillValue::Infinity => f.write_str("\"Infinity\""),
            FillValue::NegInfinity => f.write_str("\"-Infinity\""),
            FillValue::Hex(h) => write!(f, "\"0x{h}\""),
        }
    }
}

/// One `[input, output]` entry of a scalar_map.
pub type MapEntry<'a> = (FillValue<'a>, FillValue<'a>);

/// The `scalar_map` field: explicit overrides for encode and decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScalarMap<'a> {
    /// `encode`: keys of the array's data type, values of the codec's `data_type`.
    pub encode: &'a [MapEntry<'a>],
    /// `decode`: keys of the codec's `data_type`, values of the array's data type.
    pub decode: &'a [MapEntry<'a>],
}

/// A cast_value configuration, borrowed and allocation-free. Validated when bound to an array
/// data type by [`CastPlan::new`](crate::CastPlan::new).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastConfig<'a> {
    /// `data_type`: the encoded (target) type.
    pub data_type: DataType,
    /// `rounding` (default nearest-even).
    pub rounding: Rounding,
    /// `out_of_range`; `None` when absent.
    pub out_of_range: Option<OutOfRange>,
    /// `scalar_map`; empty slices when absent.
    pub scalar_map: ScalarMap<'a>,
}

impl<'a> CastConfig<'a> {
    /// A configuration with defaults: nearest-even, no out_of_range, no scalar_map.
    pub const fn new(data_type: DataType) -> Self {
        CastConfig {
            data_type,
            rounding: Rounding::NearestEven,
            out_of_range: None,
            scalar_map: ScalarMap { encode: &[], decode: &[] },
        }
    }

    /// Set `rounding`.
    pub const fn with_rounding(mut self, rounding: Rounding) -> Self {
        self.rounding = rounding;
        self
    }

    /// Set `out_of_range`.
    pub const fn with_out_of_range(mut self, out_of_range: Option<OutOfRange>) -> Self {
        self.out_of_range = out_of_range;
        self
    }

    /// Set `scalar_map`.
    pub const fn with_scalar_map(mut self, encode: &'a [MapEntry<'a>], decode: &'a [MapEntry<'a>]) -> Self {
        self.scalar_map = ScalarMap { encode, decode };
        self
    }
}
