//! Typed elements: Rust types bound to one Zarr data type, so pairs known at compile time
//! are cast through [`TypedPlan`] with the types checked once, when it is bound.
//!
//! The standard integers, `f32`, `f64`, `half::f16`, `half::bf16` and `float8::F8E5M2` are
//! elements as they are. Every other 8-bit and sub-byte format gets a `#[repr(transparent)]`
//! byte newtype here, with a lossless conversion to `f32`.
//!
//! `float8::F8E4M3` is the OCP `e4m3fn` format (max 448, no Inf), not Zarr's
//! `float8_e4m3` (IEEE-like, max 240, with Inf): it is deliberately not an [`Element`]; use
//! [`Float8E4M3`].

use crate::config::{CastConfig, FillValue, Rounding};
use crate::dtype::DataType;
use crate::error::{CastError, ConfigError};
use crate::kernels::scalar;
use crate::plan::CastPlan;
use core::marker::PhantomData;

/// A Rust type that stores exactly one Zarr data type, in that type's memory layout.
pub trait Element: bytemuck::Pod {
    /// The data type an element of this Rust type holds.
    const DATA_TYPE: DataType;
}

macro_rules! native_elements {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl Element for $t {
            const DATA_TYPE: DataType = DataType::$d;
        }
    )*};
}

native_elements! {
    i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
    u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64,
    f32 => Float32, f64 => Float64,
    half::f16 => Float16, half::bf16 => BFloat16,
    float8::F8E5M2 => Float8E5M2,
}

/// The exact f32 of a bit pattern of a format that f32 holds losslessly.
fn exact_f32(data_type: DataType, bits: u64) -> f32 {
    // Every value of these formats is exact in float32, NaN maps to NaN: the cast cannot
    // fail, and the fallback only keeps the code panic-free.
    scalar::convert(data_type, DataType::Float32, Rounding::NearestEven, None, bits)
        .map_or(f32::NAN, |b| f32::from_bits(b as u32))
}

macro_rules! byte_newtypes {
    ($($(#[$doc:meta])* $name:ident => $d:ident),* $(,)?) => {$(
        $(#[$doc])*
        ///
        /// One element per byte, as it sits in a Zarr chunk; for sub-byte types the upper bits
        /// are ignored on read.
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name(pub u8);

        impl $name {
            /// Wrap a raw byte.
            pub const fn from_bits(bits: u8) -> Self {
                $name(bits)
            }

            /// The raw byte.
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// The exact value as `f32` (lossless: every value of this format is an f32).
            pub fn to_f32(self) -> f32 {
                exact_f32(DataType::$d, self.0 as u64)
            }
        }

        impl From<$name> for f32 {
            fn from(v: $name) -> f32 {
                v.to_f32()
            }
        }

        impl Element for $name {
            const DATA_TYPE: DataType = DataType::$d;
        }
    )*};
}

byte_newtypes! {
    /// `int2`: a 2-bit signed integer.
    Int2 => Int2,
    /// `int4`: a 4-bit signed integer.
    Int4 => Int4,
    /// `uint2`: a 2-bit unsigned integer.
    UInt2 => UInt2,
    /// `uint4`: a 4-bit unsigned integer.
    UInt4 => UInt4,
    /// `float4_e2m1fn`.
    Float4E2M1FN => Float4E2M1FN,
    /// `float6_e2m3fn`.
    Float6E2M3FN => Float6E2M3FN,
    /// `float6_e3m2fn`.
    Float6E3M2FN => Float6E3M2FN,
    /// `float8_e3m4`.
    Float8E3M4 => Float8E3M4,
    /// `float8_e4m3` (Zarr's IEEE-like E4M3 with Inf, max 240; not `float8::F8E4M3`).
    Float8E4M3 => Float8E4M3,
    /// `float8_e4m3b11fnuz`.
    Float8E4M3B11FNUZ => Float8E4M3B11FNUZ,
    /// `float8_e4m3fnuz`.
    Float8E4M3FNUZ => Float8E4M3FNUZ,
    /// `float8_e5m2fnuz`.
    Float8E5M2FNUZ => Float8E5M2FNUZ,
    /// `float8_e8m0fnu`.
    Float8E8M0FNU => Float8E8M0FNU,
}

/// A [`CastPlan`] whose two element types are known at compile time: `S` is the decoded
/// array's element, `D` the encoded one. The types are checked once, when it is bound.
///
/// ```
/// use cast_value_kernels::types::{Float8E4M3, TypedPlan};
/// use cast_value_kernels::{CastConfig, DataType, OutOfRange};
/// let config = CastConfig::new(DataType::Float8E4M3).with_out_of_range(Some(OutOfRange::Clamp));
/// let plan = TypedPlan::<f32, Float8E4M3>::new(&config, None).unwrap();
/// let mut out = [Float8E4M3::default(); 3];
/// plan.encode(&[1.0, 1000.0, -0.3], &mut out).unwrap();
/// assert_eq!(out.map(f32::from), [1.0, f32::INFINITY, -0.3125]);
/// ```
#[derive(Clone, Debug)]
pub struct TypedPlan<S: Element, D: Element> {
    plan: CastPlan,
    types: PhantomData<fn(S) -> D>,
}

impl<S: Element, D: Element> TypedPlan<S, D> {
    /// Bind `config` to arrays of `S`; `config.data_type` must be `D`'s data type.
    pub fn new(config: &CastConfig<'_>, fill_value: Option<FillValue<'_>>) -> Result<Self, ConfigError> {
        if config.data_type != D::DATA_TYPE {
            return Err(ConfigError::ElementType { expected: config.data_type, actual: D::DATA_TYPE });
        }
        Ok(TypedPlan { plan: CastPlan::new(config, S::DATA_TYPE, fill_value)?, types: PhantomData })
    }

    /// Encode `src` into `dst` (equal lengths).
    pub fn encode(&self, src: &[S], dst: &mut [D]) -> Result<(), CastError> {
        self.plan.encode(bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst))
    }

    /// Decode `src` into `dst` (equal lengths).
    pub fn decode(&self, src: &[D], dst: &mut [S]) -> Result<(), CastError> {
        self.plan.decode(bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst))
    }

    /// The untyped plan.
    pub fn plan(&self) -> &CastPlan {
        &self.plan
    }
}
