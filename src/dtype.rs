//! The 26 data types as data: one format table (`format_table.rs`, shared with build.rs) and
//! the tables build.rs generates from it.

use core::fmt;
use core::str::FromStr;

include!("format_table.rs");
include!(concat!(env!("OUT_DIR"), "/generated.rs"));

// Row i of the table describes the type whose discriminant is i: `format()` relies on it.
#[allow(clippy::indexing_slicing, clippy::panic)] // compile-time check
const _: () = {
    let mut i = 0;
    while i < FORMATS.len() {
        assert!(FORMATS[i].dtype as usize == i);
        i += 1;
    }
};

impl DataType {
    /// The format parameters of this type (its row of [`FORMATS`]).
    #[inline]
    #[allow(clippy::indexing_slicing)] // the discriminant is < 26 = FORMATS.len() (checked below)
    pub const fn format(self) -> &'static Format {
        &FORMATS[self as usize]
    }

    /// The Zarr v3 name, e.g. `"float8_e4m3"`.
    #[inline]
    pub const fn name(self) -> &'static str {
        self.format().name
    }

    /// Parse a Zarr v3 data type name; `None` for names outside the 26.
    pub const fn from_name(name: &str) -> Option<DataType> {
        lookup_name(name.as_bytes())
    }

    /// Bytes per element in memory (1 for the sub-byte types).
    #[inline]
    pub const fn size(self) -> usize {
        self.format().size
    }

    /// Logical width in bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.format().bits
    }

    /// True for the twelve integer types.
    #[inline]
    pub const fn is_integer(self) -> bool {
        self.format().is_integer()
    }

    /// True for the fourteen float types.
    #[inline]
    pub const fn is_float(self) -> bool {
        !self.is_integer()
    }

    /// The kernel class of the ordered pair `self -> target` (from the generated matrix).
    #[inline]
    #[allow(clippy::indexing_slicing)] // both discriminants are < 26, the matrix is 26x26
    pub fn kernel_class(self, target: DataType) -> KernelClass {
        PAIR_CLASS[self as usize][target as usize]
    }

    /// The exact value of a bit pattern of this type (masked to the logical width; signed
    /// integers are sign-extended).
    #[inline]
    pub fn decode_bits(self, bits: u64) -> Decoded {
        let f = self.format();
        let bits = bits & f.mask();
        match f.kind {
            Kind::Signed => {
                let v = sign_extend(bits, f.bits);
                Decoded::Finite { neg: v < 0, mant: v.unsigned_abs(), exp: 0 }
            }
            Kind::Unsigned => Decoded::Finite { neg: false, mant: bits, exp: 0 },
            Kind::Float => {
                let row = SMALL_FLOAT_INDEX.get(self as usize).copied().unwrap_or(u8::MAX);
                match SMALL_FLOAT_DECODE.get(row as usize).and_then(|t| t.get((bits & 0xff) as usize)) {
                    Some(&packed) => unpack_small(packed),
                    None => f.decode_float(bits),
                }
            }
        }
    }
}

/// Undo build.rs's u16 packing of a small-float decode entry.
#[inline]
fn unpack_small(p: u16) -> Decoded {
    let neg = p & (1 << 13) != 0;
    match p >> 14 {
        0 => Decoded::Finite { neg, mant: (p & 0x1f) as u64, exp: ((p >> 5) as u8) as i8 as i32 },
        1 => Decoded::Inf { neg },
        _ => Decoded::Nan,
    }
}

/// Sign-extend the low `bits` bits of `v`.
#[inline]
pub(crate) const fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of [`DataType::from_str`]: the name is not one of the 26.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownDataType;

impl fmt::Display for UnknownDataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not one of the 26 cast_value data types")
    }
}

impl core::error::Error for UnknownDataType {}

impl FromStr for DataType {
    type Err = UnknownDataType;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DataType::from_name(s).ok_or(UnknownDataType)
    }
}
