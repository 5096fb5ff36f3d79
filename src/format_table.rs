// The ONE table of the 26 data types and their format parameters.
//
// This file is `include!`d twice: by the library (src/dtype.rs) and by build.rs, which
// generates the name tables, the pair-to-kernel-class matrix and the small-format decode
// tables from it. It must therefore stay plain Rust that needs nothing but `core`.

/// A Zarr v3 data type that `cast_value` supports.
///
/// The discriminant is the row of [`FORMATS`]; `FORMATS[t as usize].dtype == t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DataType {
    /// `int2`: 2-bit two's complement integer, one per byte.
    Int2,
    /// `int4`: 4-bit two's complement integer, one per byte.
    Int4,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `uint2`: 2-bit unsigned integer, one per byte.
    UInt2,
    /// `uint4`: 4-bit unsigned integer, one per byte.
    UInt4,
    /// `uint8`.
    UInt8,
    /// `uint16`.
    UInt16,
    /// `uint32`.
    UInt32,
    /// `uint64`.
    UInt64,
    /// `float4_e2m1fn`: 1/2/1 bits, bias 1, no Inf or NaN, one per byte.
    Float4E2M1FN,
    /// `float6_e2m3fn`: 1/2/3 bits, bias 1, no Inf or NaN, one per byte.
    Float6E2M3FN,
    /// `float6_e3m2fn`: 1/3/2 bits, bias 3, no Inf or NaN, one per byte.
    Float6E3M2FN,
    /// `float8_e3m4`: IEEE-like, bias 3.
    Float8E3M4,
    /// `float8_e4m3`: IEEE-like, bias 7, max 240 (not the OCP `e4m3fn`).
    Float8E4M3,
    /// `float8_e4m3b11fnuz`: bias 11, NaN only at 0x80, no -0, no Inf.
    Float8E4M3B11FNUZ,
    /// `float8_e4m3fnuz`: bias 8, NaN only at 0x80, no -0, no Inf.
    Float8E4M3FNUZ,
    /// `float8_e5m2`: IEEE-like, bias 15.
    Float8E5M2,
    /// `float8_e5m2fnuz`: bias 16, NaN only at 0x80, no -0, no Inf.
    Float8E5M2FNUZ,
    /// `float8_e8m0fnu`: unsigned powers of two 2^-127..2^127, NaN 0xff, no zero.
    Float8E8M0FNU,
    /// `bfloat16`.
    BFloat16,
    /// `float16` (IEEE binary16).
    Float16,
    /// `float32` (IEEE binary32).
    Float32,
    /// `float64` (IEEE binary64).
    Float64,
}

/// What kind of number a data type holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Two's complement integer.
    Signed,
    /// Unsigned integer.
    Unsigned,
    /// Binary floating point.
    Float,
}

/// Where a float format keeps its NaN, if anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanEncoding {
    /// No NaN at all (float4/float6 `fn` types).
    None,
    /// IEEE: exponent all ones, mantissa non-zero.
    Ieee,
    /// `fnuz`: the one pattern that would be -0 (sign bit alone) is the NaN.
    NegativeZero,
    /// `float8_e8m0fnu`: the all-ones pattern is the NaN.
    AllOnes,
}

/// The format parameters of one data type: one row of [`FORMATS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The data type this row describes.
    pub dtype: DataType,
    /// The Zarr v3 name.
    pub name: &'static str,
    /// Integer or float.
    pub kind: Kind,
    /// Logical width in bits (2 for int2, 6 for the float6 types, ...).
    pub bits: u32,
    /// Bytes per element in memory (1 for every sub-byte type).
    pub size: usize,
    /// Exponent field width (floats; 0 for integers).
    pub exp_bits: u32,
    /// Stored mantissa width (floats; 0 for integers and float8_e8m0fnu).
    pub man_bits: u32,
    /// Exponent bias (floats).
    pub bias: i32,
    /// Whether the format has a sign bit (all but uint* and float8_e8m0fnu).
    pub has_sign: bool,
    /// Whether +-Inf exist.
    pub has_inf: bool,
    /// Where the NaN lives.
    pub nan: NanEncoding,
    /// Whether exponent field 0 encodes subnormals (false only for float8_e8m0fnu).
    pub subnormals: bool,
}

const fn int(dtype: DataType, name: &'static str, signed: bool, bits: u32) -> Format {
    Format {
        dtype,
        name,
        kind: if signed { Kind::Signed } else { Kind::Unsigned },
        bits,
        size: if bits < 8 { 1 } else { (bits / 8) as usize },
        exp_bits: 0,
        man_bits: 0,
        bias: 0,
        has_sign: signed,
        has_inf: false,
        nan: NanEncoding::None,
        subnormals: false,
    }
}

#[allow(clippy::too_many_arguments)]
const fn float(
    dtype: DataType,
    name: &'static str,
    has_sign: bool,
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    has_inf: bool,
    nan: NanEncoding,
) -> Format {
    let bits = has_sign as u32 + exp_bits + man_bits;
    Format {
        dtype,
        name,
        kind: Kind::Float,
        bits,
        size: if bits <= 8 { 1 } else { (bits / 8) as usize },
        exp_bits,
        man_bits,
        bias,
        has_sign,
        has_inf,
        nan,
        subnormals: man_bits > 0,
    }
}

/// The 26 data types, in [`DataType`] discriminant order.
pub const FORMATS: [Format; 26] = {
    use DataType as D;
    use NanEncoding::{AllOnes, Ieee, NegativeZero};
    const NO_NAN: NanEncoding = NanEncoding::None;
    [
        int(D::Int2, "int2", true, 2),
        int(D::Int4, "int4", true, 4),
        int(D::Int8, "int8", true, 8),
        int(D::Int16, "int16", true, 16),
        int(D::Int32, "int32", true, 32),
        int(D::Int64, "int64", true, 64),
        int(D::UInt2, "uint2", false, 2),
        int(D::UInt4, "uint4", false, 4),
        int(D::UInt8, "uint8", false, 8),
        int(D::UInt16, "uint16", false, 16),
        int(D::UInt32, "uint32", false, 32),
        int(D::UInt64, "uint64", false, 64),
        float(D::Float4E2M1FN, "float4_e2m1fn", true, 2, 1, 1, false, NO_NAN),
        float(D::Float6E2M3FN, "float6_e2m3fn", true, 2, 3, 1, false, NO_NAN),
        float(D::Float6E3M2FN, "float6_e3m2fn", true, 3, 2, 3, false, NO_NAN),
        float(D::Float8E3M4, "float8_e3m4", true, 3, 4, 3, true, Ieee),
        float(D::Float8E4M3, "float8_e4m3", true, 4, 3, 7, true, Ieee),
        float(D::Float8E4M3B11FNUZ, "float8_e4m3b11fnuz", true, 4, 3, 11, false, NegativeZero),
        float(D::Float8E4M3FNUZ, "float8_e4m3fnuz", true, 4, 3, 8, false, NegativeZero),
        float(D::Float8E5M2, "float8_e5m2", true, 5, 2, 15, true, Ieee),
        float(D::Float8E5M2FNUZ, "float8_e5m2fnuz", true, 5, 2, 16, false, NegativeZero),
        float(D::Float8E8M0FNU, "float8_e8m0fnu", false, 8, 0, 127, false, AllOnes),
        float(D::BFloat16, "bfloat16", true, 8, 7, 127, true, Ieee),
        float(D::Float16, "float16", true, 5, 10, 15, true, Ieee),
        float(D::Float32, "float32", true, 8, 23, 127, true, Ieee),
        float(D::Float64, "float64", true, 11, 52, 1023, true, Ieee),
    ]
};

/// Every data type, in table order.
#[allow(clippy::indexing_slicing)] // evaluated at compile time; i < 26
pub const ALL_DATA_TYPES: [DataType; 26] = {
    let mut out = [DataType::Int2; 26];
    let mut i = 0;
    while i < 26 {
        out[i] = FORMATS[i].dtype;
        i += 1;
    }
    out
};

impl Format {
    /// Mask of the logical bits (`2^bits - 1`).
    pub const fn mask(&self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// The smallest and largest value of an integer format (`(0, 0)` for floats).
    pub const fn int_bounds(&self) -> (i128, i128) {
        match self.kind {
            Kind::Signed => (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1),
            Kind::Unsigned => (0, (1i128 << self.bits) - 1),
            Kind::Float => (0, 0),
        }
    }

    /// True for the twelve integer types.
    pub const fn is_integer(&self) -> bool {
        !matches!(self.kind, Kind::Float)
    }

    /// Whether the format has a NaN encoding.
    pub const fn has_nan(&self) -> bool {
        !matches!(self.nan, NanEncoding::None)
    }

    /// Whether -0 exists as a value distinct in encoding from +0.
    pub const fn has_negative_zero(&self) -> bool {
        self.has_sign && matches!(self.kind, Kind::Float) && !matches!(self.nan, NanEncoding::NegativeZero)
    }

    /// Largest exponent field value that encodes a finite number.
    pub const fn max_finite_field(&self) -> u32 {
        let all = (1u32 << self.exp_bits) - 1;
        if self.has_inf || matches!(self.nan, NanEncoding::AllOnes) {
            all - 1
        } else {
            all
        }
    }

    /// Unbiased exponent of the largest finite value's leading bit.
    pub const fn max_exponent(&self) -> i32 {
        self.max_finite_field() as i32 - self.bias
    }

    /// Unbiased exponent of the smallest normal value (for float8_e8m0fnu, of 2^-127).
    pub const fn min_normal_exponent(&self) -> i32 {
        if self.subnormals {
            1 - self.bias
        } else {
            -self.bias
        }
    }

    /// The position of the sign bit as a mask (0 if the format has no sign).
    pub const fn sign_mask(&self) -> u64 {
        if self.has_sign {
            1u64 << (self.bits - 1)
        } else {
            0
        }
    }

    /// Canonical NaN bit pattern, or 0 for types without NaN.
    pub const fn canonical_nan(&self) -> u64 {
        match self.nan {
            NanEncoding::None => 0,
            NanEncoding::Ieee => {
                let exp = ((1u64 << self.exp_bits) - 1) << self.man_bits;
                exp | (1u64 << (self.man_bits - 1))
            }
            NanEncoding::NegativeZero => 1u64 << (self.bits - 1),
            NanEncoding::AllOnes => self.mask(),
        }
    }

    /// Bit pattern of +Inf (meaningful only when `has_inf`).
    pub const fn positive_infinity(&self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.man_bits
    }

    /// The bit pattern a value above the range takes under clamp: +Inf for float types
    /// with Inf, else the largest value.
    pub const fn clamp_above_bits(&self) -> u64 {
        if matches!(self.kind, Kind::Float) && self.has_inf {
            self.positive_infinity()
        } else {
            self.max_bits()
        }
    }

    /// Largest finite value (or integer maximum), as a bit pattern.
    pub const fn max_bits(&self) -> u64 {
        match self.kind {
            Kind::Signed => self.mask() >> 1,
            Kind::Unsigned => self.mask(),
            Kind::Float => {
                ((self.max_finite_field() as u64) << self.man_bits) | ((1u64 << self.man_bits) - 1)
            }
        }
    }

    /// Smallest value (integer minimum, most negative finite float; for float8_e8m0fnu,
    /// 2^-127), as a bit pattern.
    pub const fn min_bits(&self) -> u64 {
        match self.kind {
            Kind::Signed => (self.mask() >> 1) + 1,
            Kind::Unsigned => 0,
            Kind::Float => {
                if self.has_sign {
                    self.max_bits() | self.sign_mask()
                } else {
                    0
                }
            }
        }
    }

    /// Classify and decode a float bit pattern (masked to `bits`) into its exact value.
    ///
    /// Only meaningful for float formats. The result is `Decoded::Finite` with
    /// `value = (-1)^neg * mant * 2^exp` exactly, or NaN / Inf.
    pub const fn decode_float(&self, bits: u64) -> Decoded {
        let bits = bits & self.mask();
        let neg = self.has_sign && (bits & self.sign_mask()) != 0;
        let field = (bits >> self.man_bits) & ((1u64 << self.exp_bits) - 1);
        let man = bits & ((1u64 << self.man_bits) - 1);
        match self.nan {
            NanEncoding::Ieee => {
                if field == (1u64 << self.exp_bits) - 1 {
                    return if man != 0 { Decoded::Nan } else { Decoded::Inf { neg } };
                }
            }
            NanEncoding::NegativeZero => {
                if bits == self.sign_mask() {
                    return Decoded::Nan;
                }
            }
            NanEncoding::AllOnes => {
                if bits == self.mask() {
                    return Decoded::Nan;
                }
            }
            NanEncoding::None => {}
        }
        if field == 0 && self.subnormals {
            Decoded::Finite { neg, mant: man, exp: 1 - self.bias - self.man_bits as i32 }
        } else {
            Decoded::Finite {
                neg,
                mant: man | (1u64 << self.man_bits),
                exp: field as i32 - self.bias - self.man_bits as i32,
            }
        }
    }
}

/// A decoded element: its exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Any NaN.
    Nan,
    /// +-Infinity.
    Inf {
        /// True for -Inf.
        neg: bool,
    },
    /// `(-1)^neg * mant * 2^exp`, exactly. `mant == 0` is a (signed) zero.
    Finite {
        /// Sign.
        neg: bool,
        /// Magnitude significand.
        mant: u64,
        /// Power of two that scales `mant`.
        exp: i32,
    },
}

/// The kind of kernel a (source, target) pair needs; the 26x26 matrix of these is generated
/// by build.rs from [`FORMATS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelClass {
    /// Same type on both sides: exact copy, up to NaN canonicalisation and scalar_map.
    Identity,
    /// Source of 8 bits or less: every result can come from a 256-entry table.
    SmallSource,
    /// Integer to integer (16+ bit source).
    IntToInt,
    /// Integer to float (16+ bit source).
    IntToFloat,
    /// Float to integer (16+ bit source).
    FloatToInt,
    /// Float to a wider or equal float (every value exact).
    FloatWiden,
    /// Float to a narrower float (rounding, range checks).
    FloatNarrow,
}

/// The kernel class of one ordered pair, derived from the two formats.
#[allow(dead_code)] // called by build.rs, which generates PAIR_CLASS from it
pub const fn classify_pair(src: &Format, dst: &Format) -> KernelClass {
    if src.dtype as u8 == dst.dtype as u8 {
        return KernelClass::Identity;
    }
    if src.bits <= 8 {
        return KernelClass::SmallSource;
    }
    match (src.is_integer(), dst.is_integer()) {
        (true, true) => KernelClass::IntToInt,
        (true, false) => KernelClass::IntToFloat,
        (false, true) => KernelClass::FloatToInt,
        (false, false) => {
            // Every value of src is exact in dst when dst has at least src's precision and
            // an exponent range that covers src's, subnormals included.
            let src_min = src.min_normal_exponent() - src.man_bits as i32;
            let dst_min = dst.min_normal_exponent() - dst.man_bits as i32;
            if dst.man_bits >= src.man_bits && dst.max_exponent() >= src.max_exponent() && dst_min <= src_min {
                KernelClass::FloatWiden
            } else {
                KernelClass::FloatNarrow
            }
        }
    }
}
