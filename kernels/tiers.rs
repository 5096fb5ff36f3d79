//! The vector tiers: the shared lane bodies of `lanes.rs`, instantiated once per tier. A tier
//! is the same source compiled with different target features; only its entry functions
//! carry `#[target_feature]`, everything below them is `#[inline(always)]`.

/// Define a tier's kernel entry points and its `select`. `$call` wraps the call of a body
/// (plain for tiers without runtime-detected features; an `unsafe` block for those that
/// have them, justified by the detection that gates `select`).
macro_rules! lane_tier {
    ($(#[$attr:meta])*; $call:ident) => {
        use crate::error::ElementError;
        use crate::kernels::lanes::{self, mode, range, LaneClass, LaneParams, Lut};
        use crate::kernels::{scalar, KernelFn};
        use crate::plan::Direction;

        $(#[$attr])*
        fn ff_body<const S: usize, const D: usize, const M: u8>(
            dir: &Direction,
            p: &LaneParams,
            src: &[u8],
            dst: &mut [u8],
        ) -> Result<(), ElementError> {
            lanes::drive::<S, D, lanes::FloatToFloatOp<M>>(dir, p, src, dst)
        }

        $(#[$attr])*
        fn narrow32_body<const D: usize, const M: u8>(
            dir: &Direction,
            p: &lanes::Narrow32,
            src: &[u8],
            dst: &mut [u8],
        ) -> Result<(), ElementError> {
            if p.subnormal_results {
                lanes::drive_narrow32::<D, M, true>(dir, p, src, dst)
            } else {
                lanes::drive_narrow32::<D, M, false>(dir, p, src, dst)
            }
        }

        $(#[$attr])*
        fn fi_body<const S: usize, const D: usize, const M: u8, const R: u8>(
            dir: &Direction,
            p: &LaneParams,
            src: &[u8],
            dst: &mut [u8],
        ) -> Result<(), ElementError> {
            lanes::drive::<S, D, lanes::FloatToIntOp<M, R>>(dir, p, src, dst)
        }

        $(#[$attr])*
        fn ii_body<const S: usize, const D: usize, const R: u8>(
            dir: &Direction,
            p: &LaneParams,
            src: &[u8],
            dst: &mut [u8],
        ) -> Result<(), ElementError> {
            lanes::drive::<S, D, lanes::IntToIntOp<R>>(dir, p, src, dst)
        }

        $(#[$attr])*
        fn if_body<const S: usize, const D: usize, const M: u8>(
            dir: &Direction,
            p: &LaneParams,
            src: &[u8],
            dst: &mut [u8],
        ) -> Result<(), ElementError> {
            lanes::drive::<S, D, lanes::IntToFloatOp<M>>(dir, p, src, dst)
        }

        $(#[$attr])*
        fn lut_body<const D: usize>(dir: &Direction, t: &Lut, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            lanes::drive_lut::<D>(dir, t, src, dst)
        }

        fn ff<const S: usize, const D: usize, const M: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            match &dir.lanes {
                Some(LaneParams { narrow32: Some(n), .. }) if S == 4 && D < 4 => {
                    $call!(narrow32_body::<D, M>(dir, n, src, dst))
                }
                Some(p) => $call!(ff_body::<S, D, M>(dir, p, src, dst)),
                None => scalar::cast(dir, src, dst),
            }
        }

        fn fi<const S: usize, const D: usize, const M: u8, const R: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            match &dir.lanes {
                Some(p) => $call!(fi_body::<S, D, M, R>(dir, p, src, dst)),
                None => scalar::cast(dir, src, dst),
            }
        }

        fn ii<const S: usize, const D: usize, const R: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            match &dir.lanes {
                Some(p) => $call!(ii_body::<S, D, R>(dir, p, src, dst)),
                None => scalar::cast(dir, src, dst),
            }
        }

        fn if_<const S: usize, const D: usize, const M: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            match &dir.lanes {
                Some(p) => $call!(if_body::<S, D, M>(dir, p, src, dst)),
                None => scalar::cast(dir, src, dst),
            }
        }

        fn lut<const D: usize>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            match &dir.lut {
                Some(t) => $call!(lut_body::<D>(dir, t, src, dst)),
                None => scalar::cast(dir, src, dst),
            }
        }

        include!("select.in.rs");
    };
}

/// Call a body directly: the tier needs no runtime-detected feature.
macro_rules! plain_call {
    ($e:expr) => {
        $e
    };
}

/// Call a `#[target_feature]` body.
#[cfg(target_arch = "x86_64")]
macro_rules! avx2_call {
    ($e:expr) => {
        // SAFETY: the AVX2 tier's kernels are only handed out by `select` after run-time
        // detection (CPUID + XGETBV) reported AVX2, FMA and F16C with OS support for the
        // AVX state, so the target features the body was compiled for are present.
        unsafe { $e }
    };
}

/// Portable lane code: compiles to whatever vector code the target's baseline allows (SSE2
/// on x86_64, NEON on aarch64, simd128 on wasm32 when enabled).
pub mod portable {
    lane_tier!(#[inline]; plain_call);
}

/// The same lane bodies compiled for AVX2 (+FMA, F16C), picked at run time.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    lane_tier!(#[target_feature(enable = "avx2,fma,f16c,bmi2")]; avx2_call);
}

/// Call a body compiled for NEON.
#[cfg(target_arch = "aarch64")]
macro_rules! neon_call {
    ($e:expr) => {
        // SAFETY: NEON is part of the aarch64 baseline (every aarch64 target Rust supports
        // enables it), so the features the body was compiled for are present.
        unsafe { $e }
    };
}

/// The lane bodies compiled for NEON (aarch64), for the directions the hand-written NEON
/// kernels (`kernels::aarch64_neon`) leave. NEON is baseline there, so this is the same code
/// the portable tier gets on aarch64.
#[cfg(target_arch = "aarch64")]
pub mod neon {
    lane_tier!(#[target_feature(enable = "neon")]; neon_call);
}

/// The lane bodies compiled with wasm32's simd128 (a compile-time feature on wasm: this tier
/// exists only in builds with `-C target-feature=+simd128`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod simd128 {
    lane_tier!(#[inline]; plain_call);
}
