//! A sensor front end on a microcontroller: raw float32 samples are stored as uint8, NumPy
//! style (towards-zero, wrap, NaN and +-Inf to 0). No std, no allocator: the scalar_map is
//! a `static`, the plan lives on the stack, errors are plain values.
#![no_std]

use cast_value_kernels::{CastConfig, CastError, CastPlan, ConfigError, DataType, FillValue, OutOfRange, Rounding};

/// The codec's scalar_map.encode, fixed at compile time.
static ENCODE_MAP: [(FillValue<'static>, FillValue<'static>); 3] = [
    (FillValue::NaN, FillValue::Int(0)),
    (FillValue::Infinity, FillValue::Int(0)),
    (FillValue::NegInfinity, FillValue::Int(0)),
];

/// The codec configuration, also fixed at compile time.
pub const CONFIG: CastConfig<'static> = CastConfig::new(DataType::UInt8)
    .with_rounding(Rounding::TowardsZero)
    .with_out_of_range(Some(OutOfRange::Wrap))
    .with_scalar_map(&ENCODE_MAP, &[]);

/// Bind the configuration once, at start-up.
pub fn plan() -> Result<CastPlan, ConfigError> {
    CastPlan::new(&CONFIG, DataType::Float32, None)
}

/// Convert one block of samples (raw native-endian float32 bytes, any alignment, e.g.
/// straight from a DMA buffer) into `out`. Returns the number of bytes written; on a cast
/// error the index of the failing sample is in the error.
pub fn encode_block(plan: &CastPlan, samples: &[u8], out: &mut [u8]) -> Result<usize, CastError> {
    let n = samples.len() / 4;
    let actual = out.len();
    let out = out.get_mut(..n).ok_or(CastError::OutputLength { expected: n, actual })?;
    plan.encode(samples, out)?;
    Ok(n)
}
