//! The hot code. A plan resolves its kernel once, when it is bound, through [`select`]:
//! (pair, rounding, out_of_range, scalar_map, tier) -> one function.
//!
//! * [`scalar`]: the reference. It defines the semantics; every other kernel is tested
//!   against it bit for bit, and every vector kernel hands it the chunks it cannot do exactly.
//! * `lanes`: the shared kernel bodies over fixed-width lane arrays, and the 256-entry table
//!   kernel for sources of 8 bits or less (built from the reference, scalar_map folded in).
//! * `tiers`: those bodies compiled per instruction set: `portable` (the target's baseline
//!   vector code) and, on x86_64, `avx2`, chosen at run time without std.
//! * `x86_64_avx2`, `x86_64_avx512`: hand-written kernels of those two tiers (the AVX-512
//!   tier has kernels for sources of 8 bits or less, narrowing to byte float types and
//!   64-bit integer conversions, and uses AVX2's for the rest); `aarch64_neon`: the NEON
//!   tier's (tables, float -> integer, the hot float pairs; the lane bodies for the rest);
//!   `wasm32_simd128`: the simd128 tier's (float -> integer, the hot float pairs, integer
//!   narrowing; the lane bodies for the rest).

use crate::error::ElementError;
use crate::plan::Direction;
use core::fmt;
use core::mem::MaybeUninit;

/// `$k::<D, FAILS>` for a table kernel (`planes` of the AVX-512 and NEON tiers) of a target of
/// `$size` bytes (1, 2, 4, else 8) whose table has failing bytes or not (`$fails`).
#[allow(unused_macros)]
macro_rules! table_planes {
    ($k:ident, $size:expr, $fails:expr) => {
        match ($size, $fails) {
            (1, false) => $k::<1, false> as KernelFn,
            (1, true) => $k::<1, true>,
            (2, false) => $k::<2, false>,
            (2, true) => $k::<2, true>,
            (4, false) => $k::<4, false>,
            (4, true) => $k::<4, true>,
            (_, false) => $k::<8, false>,
            (_, true) => $k::<8, true>,
        }
    };
}

/// Hand-written NEON kernels (tables, float -> integer in every rounding mode, hot float
/// pairs) (aarch64).
#[cfg(target_arch = "aarch64")]
#[path = "aarch64/neon.rs"]
pub mod aarch64_neon;
pub mod dispatch;
pub mod lanes;
pub mod scalar;
pub mod tiers;
/// Hand-written simd128 kernels (float -> integer in every rounding mode, the hot float
/// pairs, integer narrowing) (wasm32 builds with `+simd128`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[path = "wasm32/simd128.rs"]
pub mod wasm32_simd128;
/// Hand-written AVX2 kernels for the hot set (x86_64).
#[cfg(target_arch = "x86_64")]
#[path = "x86_64/avx2.rs"]
pub mod x86_64_avx2;
/// Hand-written AVX-512 kernels (tables, narrowing to byte floats, 64-bit integer
/// conversions) (x86_64, Rust 1.89 or later).
#[cfg(all(target_arch = "x86_64", cast_value_avx512))]
#[path = "x86_64/avx512.rs"]
pub mod x86_64_avx512;
/// The byte tables of the AVX2 shuffle kernels as `vpshufb` rows, found at bind (x86_64).
#[cfg(target_arch = "x86_64")]
#[path = "x86_64/byte_rows.rs"]
pub(crate) mod x86_64_byte_rows;

/// Its argument: a call-argument position for `#[inline(always)]` on a closure bound to a
/// name (the attribute is stable on a closure passed as an argument, not on a `let`'s
/// initializer). Every closure of a kernel's step is `#[inline(always)]`, so no step is left
/// to the inliner's cost model, which differs between build profiles (`panic = "abort"`,
/// `opt-level = "s"`). (Used by the x86 and NEON kernels.)
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(crate) const fn hot<F>(f: F) -> F {
    f
}

/// `f(0), f(1), .., f(n - 1)`, written out up to `n` = 8, every call of `f` inlined. The
/// counts of a step's inner loops are known when the kernel is compiled, and LLVM unrolls
/// such a loop at `opt-level = 3` but not at `"s"`, where it kept the loop and the step's
/// vector arrays in memory; written out, the arrays become registers in every profile.
/// Counts above 8 continue in a loop.
#[inline(always)]
pub(crate) fn unrolled(n: usize, mut f: impl FnMut(usize)) {
    macro_rules! calls {
        ($($i:literal)*) => { $( if $i < n { f($i) } )* };
    }
    calls!(0 1 2 3 4 5 6 7);
    let mut i = 8;
    while i < n {
        f(i);
        i += 1;
    }
}

/// `[f(0), f(1), .., f(N - 1)]`, as [`array_map`] builds it.
#[inline(always)]
pub(crate) fn array_fn<T: Copy, const N: usize>(f: impl FnMut(usize) -> T) -> [T; N] {
    array_map(const { indices::<N>() }, f)
}

/// `[0, 1, .., N - 1]`, evaluated when the kernel is compiled.
// Only ever evaluated in a `const` block, where a failed index would be a compile error.
#[allow(clippy::indexing_slicing)]
const fn indices<const N: usize>() -> [usize; N] {
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = i;
        i += 1;
    }
    out
}

/// `a.map(f)`, written out as [`unrolled`]: `core::array::from_fn` and `[T; N]::map` leave
/// their calls to the inliner's cost model, which kept them out of line at
/// `opt-level = "s"`. Nor does it start from `[f(a[0]); N]`: at `"s"` LLVM fills a repeated
/// value with a loop, which keeps the array in memory. Nothing here can panic.
#[inline(always)]
pub(crate) fn array_map<T: Copy, U: Copy, const N: usize>(a: [T; N], mut f: impl FnMut(T) -> U) -> [U; N] {
    let mut out = [MaybeUninit::<U>::uninit(); N];
    unrolled(
        N,
        #[inline(always)]
        |i| {
            if let (Some(o), Some(&x)) = (out.get_mut(i), a.get(i)) {
                *o = MaybeUninit::new(f(x));
            }
        },
    );
    // SAFETY: `unrolled(N, ..)` calls the closure once for every `i < N`, which wrote
    // `out[i]`, so all `N` elements are initialised; `[MaybeUninit<U>; N]` has the layout of
    // `[U; N]`.
    unsafe { out.as_ptr().cast::<[U; N]>().read() }
}

/// The two arrays of `N` pairs' first and second halves, as [`array_map`] builds them.
#[cfg(any(target_arch = "aarch64", all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub(crate) fn array_unzip<T: Copy, U: Copy, const N: usize>(a: [(T, U); N]) -> ([T; N], [U; N]) {
    (
        array_map(
            a,
            #[inline(always)]
            |p| p.0,
        ),
        array_map(
            a,
            #[inline(always)]
            |p| p.1,
        ),
    )
}

/// The target triple this crate was built for (tests and tools print it with the tier).
pub const BUILD_TARGET: &str = match option_env!("CAST_VALUE_TARGET") {
    Some(t) => t,
    None => "unknown",
};

/// A buffer kernel: casts every element of `src` into `dst` for one direction of a plan.
/// Buffer lengths are already checked.
pub type KernelFn = fn(&Direction, &[u8], &mut [u8]) -> Result<(), ElementError>;

/// An instruction-set tier of kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Tier {
    /// The exact scalar reference.
    Scalar,
    /// Lane code compiled for the target's baseline (SSE2 on x86_64, NEON on aarch64).
    Portable,
    /// Lane code compiled for AVX2 + FMA + F16C, plus hand-written AVX2 kernels for the
    /// hot set (x86_64, detected at run time).
    Avx2,
    /// The AVX2 tier plus AVX-512 (F, BW, VL, DQ, VBMI) kernels for sources of 8 bits or
    /// less, narrowing to byte float types and conversions between 64-bit integers and
    /// floats (x86_64, detected at run time; needs a build with Rust 1.89 or later).
    Avx512,
    /// Hand-written NEON kernels (tables for sources of 8 bits or less, float -> integer in
    /// every rounding mode, the hot float pairs), else the lane code compiled for NEON
    /// (aarch64, baseline).
    Neon,
    /// Hand-written simd128 kernels (float -> integer in every rounding mode, the hot float
    /// pairs, integer narrowing), else the lane code compiled for simd128 (wasm32 builds
    /// with `+simd128`).
    Simd128,
}

impl Tier {
    /// Every tier, in order of preference (best last).
    pub const ALL: [Tier; 6] = [Tier::Scalar, Tier::Portable, Tier::Neon, Tier::Simd128, Tier::Avx2, Tier::Avx512];

    /// The tier's name, as printed by the throughput table and accepted by `--isa`.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Scalar => "scalar",
            Tier::Portable => "portable",
            Tier::Avx2 => "avx2",
            Tier::Avx512 => "avx512",
            Tier::Neon => "neon",
            Tier::Simd128 => "simd128",
        }
    }

    /// Whether this build and CPU can run the tier.
    pub fn is_available(self) -> bool {
        match self {
            Tier::Scalar | Tier::Portable => true,
            Tier::Avx2 => dispatch::has_avx2(),
            Tier::Avx512 => cfg!(cast_value_avx512) && dispatch::has_avx512(),
            Tier::Neon => cfg!(target_arch = "aarch64"),
            Tier::Simd128 => cfg!(all(target_arch = "wasm32", target_feature = "simd128")),
        }
    }

    /// Every tier this build and CPU can run, best last.
    pub fn available() -> &'static [Tier] {
        if Tier::Avx512.is_available() {
            &[Tier::Scalar, Tier::Portable, Tier::Avx2, Tier::Avx512]
        } else if Tier::Avx2.is_available() {
            &[Tier::Scalar, Tier::Portable, Tier::Avx2]
        } else if Tier::Neon.is_available() {
            &[Tier::Scalar, Tier::Portable, Tier::Neon]
        } else if Tier::Simd128.is_available() {
            &[Tier::Scalar, Tier::Portable, Tier::Simd128]
        } else {
            &[Tier::Scalar, Tier::Portable]
        }
    }

    /// The tier dispatch picks on this machine.
    pub fn best() -> Tier {
        Tier::available().last().copied().unwrap_or(Tier::Scalar)
    }

    /// The named tier, if this build and CPU can run it.
    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::available().iter().copied().find(|t| t.name() == name)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernel of `tier` for one direction, or `None` if the tier cannot run here. A tier
/// without a kernel for the direction falls back to the scalar reference.
pub fn select(tier: Tier, dir: &Direction) -> Option<KernelFn> {
    if !tier.is_available() {
        return None;
    }
    let vector = match tier {
        Tier::Scalar => None,
        Tier::Portable => tiers::portable::select(dir),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => avx2_kernel(dir),
        #[cfg(not(target_arch = "x86_64"))]
        Tier::Avx2 => None,
        // Its own kernels, else exactly what the AVX2 tier would run.
        #[cfg(all(target_arch = "x86_64", cast_value_avx512))]
        Tier::Avx512 => x86_64_avx512::select(dir).or_else(|| avx2_kernel(dir)),
        #[cfg(not(all(target_arch = "x86_64", cast_value_avx512)))]
        Tier::Avx512 => None,
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => aarch64_neon::select(dir).or_else(|| tiers::neon::select(dir)),
        #[cfg(not(target_arch = "aarch64"))]
        Tier::Neon => None,
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Tier::Simd128 => wasm32_simd128::select(dir).or_else(|| tiers::simd128::select(dir)),
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        Tier::Simd128 => None,
    };
    Some(vector.unwrap_or(scalar::cast as KernelFn))
}

/// The AVX2 tier's kernel for a direction: a hand-written one, else the lane bodies
/// compiled for AVX2.
#[cfg(target_arch = "x86_64")]
fn avx2_kernel(dir: &Direction) -> Option<KernelFn> {
    x86_64_avx2::select(dir).or_else(|| tiers::avx2::select(dir))
}
