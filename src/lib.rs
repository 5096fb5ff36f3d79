//! # cast-value-kernels
//!
//! An exact implementation of the Zarr v3 `cast_value` codec for all 26 numeric data types:
//! every element is converted by value, with one rounding in the configured mode, the
//! configured out-of-range rule and an optional `scalar_map` of explicit overrides.
//!
//! * [`CastConfig`] is the configuration (borrowed, allocation-free; a `static` scalar_map
//!   works). With the `json` feature, [`json::CodecMetadata`] parses and prints the codec's
//!   zarr.json entry.
//! * [`CastPlan::new`] binds it to the decoded array's [`DataType`] and fill value, validating
//!   everything once; [`CastPlan::encode`] / [`CastPlan::decode`] then cast raw element
//!   buffers without allocating.
//! * [`kernels::scalar`] is the reference path that defines the semantics.
//!
//! ```
//! use cast_value_kernels::{CastConfig, CastPlan, DataType, FillValue, OutOfRange, Rounding};
//! // The spec's NumPy-compatibility example: float64 -> uint8, towards-zero, wrap,
//! // NaN and +-Inf mapped to 0.
//! static MAP: [(FillValue, FillValue); 3] = [
//!     (FillValue::NaN, FillValue::Int(0)),
//!     (FillValue::Infinity, FillValue::Int(0)),
//!     (FillValue::NegInfinity, FillValue::Int(0)),
//! ];
//! let config = CastConfig::new(DataType::UInt8)
//!     .with_rounding(Rounding::TowardsZero)
//!     .with_out_of_range(Some(OutOfRange::Wrap))
//!     .with_scalar_map(&MAP, &[]);
//! let plan = CastPlan::new(&config, DataType::Float64, None)?;
//! let mut out = [0u8; 4];
//! plan.encode_slice(&[f64::NAN, 258.7, -1.0, f64::INFINITY], &mut out)?;
//! assert_eq!(out, [0, 2, 255, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
// No panics reachable from the public API: these are denied outside tests, with each
// exception allowed locally and its reason written beside it.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::unreachable)
)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod config;
mod decimal;
mod dtype;
mod error;
mod fill;
#[cfg(feature = "json")]
pub mod json;
mod plan;
pub mod types;

#[path = "../kernels/mod.rs"]
pub mod kernels;

pub use config::{CastConfig, FillValue, MapEntry, OutOfRange, Rounding, ScalarMap};
pub use dtype::{DataType, Decoded, Format, KernelClass, Kind, NanEncoding, UnknownDataType, ALL_DATA_TYPES, FORMATS};
pub use error::{CastError, ConfigError, ElementError, FillValueError, MapDirection, Reason, ScalarDisplay};
pub use fill::fill_value_bits;
pub use plan::{CastPlan, Direction, ResolvedMap, INLINE_MAP_CAPACITY};

/// The README's examples run as doctests, so the front page cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
