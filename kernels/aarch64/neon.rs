//! Hand-written NEON kernels (aarch64) for the hot set and for sources of 8 bits or less.
//!
//! * Sources of 8 bits or less: the 256-entry table (built from the scalar reference at plan
//!   time, scalar_map folded in) is four `TBL`/`TBX` lookups of 64 entries per target byte;
//!   wider targets store their byte planes interleaved (`ST2`/`ST4`, and a byte zip for
//!   8-byte targets).
//! * float32/float64 -> 8/16/32-bit integers: NEON rounds to an integral float in every
//!   rounding mode the codec has (`FRINTN`, `FRINTZ`, `FRINTP`, `FRINTM`, `FRINTA`), so each
//!   mode is one instruction; the range rule is a compare (none), a min/max (clamp) or the
//!   low bits of an exact conversion (wrap).
//! * float16/bfloat16 <-> float32, float32 <-> float64: the hardware conversions where they
//!   round nearest-even (`FCVTL`, `FCVTN`), the bfloat16 narrowing by integer rounding in
//!   every mode.
//!
//! NaN, +-Inf and lanes near or beyond the target's range are flagged; the scalar reference
//! redoes them (mapped NaN/Inf in-line, [`lanes::SpecialMap`]), in order, so errors keep
//! the scalar path's index. The float conversions assume the default FPCR (round to nearest
//! even, no flush to zero), which Rust code runs with. Every kernel is tested against the
//! scalar reference by tests/tiers.rs under qemu-aarch64 (`.ci/run`); no aarch64 hardware
//! was at hand to time them.

use crate::dtype::DataType;
use crate::error::ElementError;
use crate::kernels::lanes::{self, mode, mode_code, range, range_code};
use crate::kernels::{array_fn, array_map, array_unzip, hot, KernelFn};
use crate::plan::Direction;
use core::arch::aarch64::*;
use core::arch::asm;

/// Proof that the code runs with NEON, as the x86 tiers' tokens are for theirs: made without
/// `unsafe` only where the caller is compiled with NEON, and taken by the
/// `#[inline(always)]` helpers, so that no step of a kernel is left to the inliner's cost
/// model.
#[derive(Clone, Copy)]
struct Neon(());

impl Neon {
    /// The proof, where the caller's own target features include NEON.
    #[target_feature(enable = "neon")]
    #[inline]
    fn new() -> Neon {
        Neon(())
    }
}

/// A safe kernel entry for a NEON body.
macro_rules! entry {
    ($name:ident <$(const $g:ident: $gt:ty),*>, $body:ident) => {
        fn $name<$(const $g: $gt),*>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: NEON is part of the aarch64 baseline (every aarch64 target Rust
            // supports enables it), so the feature the body was compiled for is present.
            unsafe { $body::<$($g),*>(dir, src, dst) }
        }
    };
    ($name:ident, $body:ident) => {
        fn $name(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
            // SAFETY: as above: NEON is baseline on aarch64.
            unsafe { $body(dir, src, dst) }
        }
    };
}

/// Elements per step of every kernel here.
const N: usize = 16;

/// The kernel for a direction, or `None` to use the lane bodies compiled for NEON.
pub fn select(dir: &Direction) -> Option<KernelFn> {
    table_kernel(dir).or_else(|| if lanes::map_keys_are_special(dir) { compute_kernel(dir) } else { None })
}

/// Sources of 8 bits or less (every one has a table), but an integer identity (a copy).
fn table_kernel(dir: &Direction) -> Option<KernelFn> {
    let fails = dir.lut.as_ref()?.any_fail();
    if dir.from == dir.to && dir.from.is_integer() {
        return None;
    }
    Some(table_planes!(planes, dir.to.size(), fails))
}

/// The float kernels: float32/float64 -> 8/16/32-bit integers, and the hot float pairs.
fn compute_kernel(dir: &Direction) -> Option<KernelFn> {
    use DataType as T;
    let (m, r) = (mode_code(dir.rounding), range_code(dir.out_of_range));
    match (dir.from, dir.to) {
        (T::Float16, T::Float32) => Some(half_to_f32::<{ src::F16 }> as KernelFn),
        (T::BFloat16, T::Float32) => Some(half_to_f32::<{ src::BF16 }>),
        (T::Float32, T::Float64) => Some(f32_to_f64),
        (T::Float32, T::Float16) if m == mode::NE => Some(f32_to_f16),
        (T::Float64, T::Float32) if m == mode::NE => Some(f64_to_f32),
        (T::Float32, T::BFloat16) => Some(match m {
            mode::NE => f32_to_bf16::<{ mode::NE }> as KernelFn,
            mode::TZ => f32_to_bf16::<{ mode::TZ }>,
            mode::TP => f32_to_bf16::<{ mode::TP }>,
            mode::TN => f32_to_bf16::<{ mode::TN }>,
            _ => f32_to_bf16::<{ mode::NA }>,
        }),
        (from @ (T::Float16 | T::BFloat16 | T::Float32 | T::Float64), to)
            if to.is_integer() && to.size() <= 4 && to.bits() >= 8 =>
        {
            let s = match from {
                T::Float16 => src::F16,
                T::BFloat16 => src::BF16,
                T::Float32 => src::F32,
                _ => src::F64,
            };
            let t = match to {
                T::Int8 => tgt::I8,
                T::UInt8 => tgt::U8,
                T::Int16 => tgt::I16,
                T::UInt16 => tgt::U16,
                T::Int32 => tgt::I32,
                _ => tgt::U32,
            };
            pick_f2i(s, m, t, r)
        }
        _ => None,
    }
}

/// Source codes of [`f2i`].
mod src {
    pub const F16: u8 = 0;
    pub const BF16: u8 = 1;
    pub const F32: u8 = 2;
    pub const F64: u8 = 3;

    /// Bytes per element.
    pub const fn size(s: u8) -> usize {
        match s {
            F16 | BF16 => 2,
            F32 => 4,
            _ => 8,
        }
    }
}

/// Integer target codes of [`f2i`].
mod tgt {
    pub const I8: u8 = 0;
    pub const U8: u8 = 1;
    pub const I16: u8 = 2;
    pub const U16: u8 = 3;
    pub const I32: u8 = 4;
    pub const U32: u8 = 5;

    /// Bytes per element.
    pub const fn size(t: u8) -> usize {
        1 << (t / 2)
    }
}

/// [`f2i`] with its const generics resolved from plan-time codes.
fn pick_f2i(s: u8, m: u8, t: u8, r: u8) -> Option<KernelFn> {
    macro_rules! by_target {
        ($f:expr, $m:expr, $r:expr) => {
            match t {
                tgt::I8 => f2i::<$f, $m, { tgt::I8 }, $r> as KernelFn,
                tgt::U8 => f2i::<$f, $m, { tgt::U8 }, $r>,
                tgt::I16 => f2i::<$f, $m, { tgt::I16 }, $r>,
                tgt::U16 => f2i::<$f, $m, { tgt::U16 }, $r>,
                tgt::I32 => f2i::<$f, $m, { tgt::I32 }, $r>,
                _ => f2i::<$f, $m, { tgt::U32 }, $r>,
            }
        };
    }
    macro_rules! by_rule {
        ($f:expr, $m:expr) => {
            match r {
                range::ERROR => by_target!($f, $m, { range::ERROR }),
                range::CLAMP => by_target!($f, $m, { range::CLAMP }),
                _ => by_target!($f, $m, { range::WRAP }),
            }
        };
    }
    macro_rules! by_mode {
        ($f:expr) => {
            match m {
                mode::NE => by_rule!($f, { mode::NE }),
                mode::TZ => by_rule!($f, { mode::TZ }),
                mode::TP => by_rule!($f, { mode::TP }),
                mode::TN => by_rule!($f, { mode::TN }),
                _ => by_rule!($f, { mode::NA }),
            }
        };
    }
    Some(match s {
        src::F16 => by_mode!({ src::F16 }),
        src::BF16 => by_mode!({ src::BF16 }),
        src::F32 => by_mode!({ src::F32 }),
        _ => by_mode!({ src::F64 }),
    })
}

/// Sixteen bytes from the start of `s` (16 zero bytes where `s` is shorter: the callers
/// pass whole chunks, so that never happens).
#[inline(always)]
fn load(_cpu: Neon, s: &[u8]) -> uint8x16_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        match s.get(..16) {
            // `b` holds 16 bytes; NEON loads have no alignment requirement.
            Some(b) => vld1q_u8(b.as_ptr()),
            None => vdupq_n_u8(0),
        }
    }
}

/// Store 16 bytes at the start of `d` (nothing where `d` is shorter; see [`load`]).
#[inline(always)]
fn store(_cpu: Neon, d: &mut [u8], v: uint8x16_t) {
    if let Some(b) = d.get_mut(..16) {
        // SAFETY: `b` holds 16 bytes; NEON stores have no alignment requirement (and the
        // `Neon` proves NEON).
        unsafe { vst1q_u8(b.as_mut_ptr(), v) }
    }
}

/// One bit per byte lane of a mask (bit i = lane i), after one test for none at all.
#[inline(always)]
fn lane_bits(_cpu: Neon, m: uint8x16_t) -> u32 {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        if vmaxvq_u8(m) == 0 {
            return 0;
        }
        let w = vreinterpretq_u8_u64(vdupq_n_u64(0x8040_2010_0804_0201));
        let b = vandq_u8(m, w);
        u32::from(vaddv_u8(vget_low_u8(b))) | u32::from(vaddv_u8(vget_high_u8(b))) << 8
    }
}

/// Sixteen 32-bit lanes (four vectors, in order) narrowed to their low bytes.
#[inline(always)]
fn bytes_of(cpu: Neon, v: [uint32x4_t; 4]) -> uint8x16_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        let [a, b] = halves_of(cpu, v);
        vcombine_u8(vmovn_u16(a), vmovn_u16(b))
    }
}

/// Sixteen 32-bit lanes (four vectors, in order) narrowed to their low halves.
#[inline(always)]
fn halves_of(_cpu: Neon, [a, b, c, d]: [uint32x4_t; 4]) -> [uint16x8_t; 2] {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe { [vcombine_u16(vmovn_u32(a), vmovn_u32(b)), vcombine_u16(vmovn_u32(c), vmovn_u32(d))] }
}

/// A table of 256 bytes as four 64-entry `TBL` tables.
#[target_feature(enable = "neon")]
fn table(entry: impl Fn(usize) -> u8) -> [uint8x16x4_t; 4] {
    array_fn(
        #[inline(always)]
        |r| {
            let b: [u8; 64] = array_fn(
                #[inline(always)]
                |i| entry(64 * r + i),
            );
            // SAFETY: `b` holds the 64 bytes read; no alignment requirement.
            unsafe { vld1q_u8_x4(b.as_ptr()) }
        },
    )
}

/// Byte `x` of [`table`] `t` for each of 16 bytes: `TBL` gives entries 0-63 (0 for larger
/// indices), and each `TBX` (which leaves lanes with indices from 64 up unchanged) the next
/// 64, with the index moved down by 64 (wrapping, so lower indices fall out of range).
#[inline(always)]
fn look_up(_cpu: Neon, t: &[uint8x16x4_t; 4], x: uint8x16_t) -> uint8x16_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        let [t0, t1, t2, t3] = *t;
        let k = vdupq_n_u8(64);
        let x1 = vsubq_u8(x, k);
        let x2 = vsubq_u8(x1, k);
        let x3 = vsubq_u8(x2, k);
        let r = vqtbl4q_u8(t0, x);
        let r = vqtbx4q_u8(r, t1, x1);
        let r = vqtbx4q_u8(r, t2, x2);
        vqtbx4q_u8(r, t3, x3)
    }
}

// Sources of 8 bits or less, `D`-byte targets: one [`look_up`] per target byte (its byte
// plane), stored interleaved; failing bytes (`FAILS`: the table has some) are a plane of
// 0xff that flags the lane for the scalar reference.
entry!(planes<const D: usize, const FAILS: bool>, planes_body);
#[target_feature(enable = "neon")]
fn planes_body<const D: usize, const FAILS: bool>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Neon::new();
    let Some(lut) = &dir.lut else { return lanes::cold(dir, src, dst, 0) };
    let tables: [[uint8x16x4_t; 4]; D] = array_fn(
        #[inline(always)]
        |p| {
            table(
                #[inline(always)]
                |i| lut.plane_byte(p, i),
            )
        },
    );
    let fails = table(
        #[inline(always)]
        |i| lut.fail_byte(i),
    );
    let z = vdupq_n_u8(0);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (1, D),
        None,
        #[inline(always)]
        |s, d| {
            let x = load(cpu, s);
            let p: [uint8x16_t; D] = array_fn(
                #[inline(always)]
                |k| {
                    tables.get(k).map_or(
                        z,
                        #[inline(always)]
                        |t| look_up(cpu, t, x),
                    )
                },
            );
            let at = hot(
                #[inline(always)]
                |k: usize| p.get(k).copied().unwrap_or(z),
            );
            if let Some(d) = d.get_mut(..16 * D) {
                let o = d.as_mut_ptr();
                // SAFETY: `d` holds 16 * D bytes (checked just above), which each store fills
                // exactly; NEON stores have no alignment requirement.
                unsafe {
                    match D {
                        1 => vst1q_u8(o, at(0)),
                        2 => vst2q_u8(o, uint8x16x2_t(at(0), at(1))),
                        4 => vst4q_u8(o, uint8x16x4_t(at(0), at(1), at(2), at(3))),
                        _ => {
                            // Byte pairs as 16-bit units, then four of those per element.
                            let pair = hot(
                                #[inline(always)]
                                |k: usize| {
                                    let z = vzipq_u8(at(k), at(k + 1));
                                    (vreinterpretq_u16_u8(z.0), vreinterpretq_u16_u8(z.1))
                                },
                            );
                            let (a, b, c, e) = (pair(0), pair(2), pair(4), pair(6));
                            vst4q_u16(o.cast(), uint16x8x4_t(a.0, b.0, c.0, e.0));
                            vst4q_u16(o.add(64).cast(), uint16x8x4_t(a.1, b.1, c.1, e.1));
                        }
                    }
                }
            }
            if FAILS {
                lane_bits(cpu, look_up(cpu, &fails, x))
            } else {
                0
            }
        },
    )
}

/// Round each lane to an integral float in mode `M` (one instruction each).
#[inline(always)]
fn round32<const M: u8>(_cpu: Neon, x: float32x4_t) -> float32x4_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        match M {
            mode::NE => vrndnq_f32(x),
            mode::TZ => vrndq_f32(x),
            mode::TP => vrndpq_f32(x),
            mode::TN => vrndmq_f32(x),
            _ => vrndaq_f32(x),
        }
    }
}

/// [`round32`] for float64 lanes.
#[inline(always)]
fn round64<const M: u8>(_cpu: Neon, x: float64x2_t) -> float64x2_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        match M {
            mode::NE => vrndnq_f64(x),
            mode::TZ => vrndq_f64(x),
            mode::TP => vrndpq_f64(x),
            mode::TN => vrndmq_f64(x),
            _ => vrndaq_f64(x),
        }
    }
}

/// Four float32 lanes -> the low 32 bits of their integer results (target `T` with range
/// `(lo, hi)`, rule `R`),
/// and the lanes to flag: NaN/Inf always; beyond the target's range (none), or beyond what
/// one exact conversion holds (wrap: [-2^31, 2^31), or [-2^31, 2^32) for uint32).
#[inline(always)]
fn f32_lanes<const M: u8, const T: u8, const R: u8>(
    cpu: Neon,
    x: float32x4_t,
    (lo, hi): (f64, f64),
) -> (uint32x4_t, uint32x4_t) {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        let r = round32::<M>(cpu, x);
        let cvt = hot(
            #[inline(always)]
            |v: float32x4_t| {
                if T == tgt::U32 {
                    vcvtq_u32_f32(v)
                } else {
                    vreinterpretq_u32_s32(vcvtq_s32_f32(v))
                }
            },
        );
        match R {
            range::CLAMP => {
                // 2^31 - 1 and 2^32 - 1 become 2^31 and 2^32 as f32: the saturating
                // conversion brings them to the limit.
                let c = vminq_f32(vmaxq_f32(r, vdupq_n_f32(lo as f32)), vdupq_n_f32(hi as f32));
                let exp = vdupq_n_u32(0x7f80_0000);
                (cvt(c), vceqq_u32(vandq_u32(vreinterpretq_u32_f32(x), exp), exp))
            }
            range::WRAP => {
                let top = if T == tgt::U32 { 4294967296.0 } else { 2147483648.0 };
                let inside = vandq_u32(vcgeq_f32(r, vdupq_n_f32(-2147483648.0)), vcltq_f32(r, vdupq_n_f32(top)));
                let s = vreinterpretq_u32_s32(vcvtq_s32_f32(r));
                let v = if T == tgt::U32 {
                    vbslq_u32(vcgeq_f32(r, vdupq_n_f32(2147483648.0)), vcvtq_u32_f32(r), s)
                } else {
                    s
                };
                // NaN compares false and +-Inf is outside: both flagged with the rest.
                (v, vmvnq_u32(inside))
            }
            _ => {
                // NaN compares false, so it is outside too.
                let inside = vandq_u32(vcgeq_f32(r, vdupq_n_f32(lo as f32)), vcleq_f32(r, vdupq_n_f32(hi as f32)));
                // hi as f32 is 2^31 / 2^32 for the 32-bit targets, itself outside.
                let inside =
                    if T >= tgt::I32 { vandq_u32(inside, vcltq_f32(r, vdupq_n_f32(hi as f32))) } else { inside };
                (cvt(r), vmvnq_u32(inside))
            }
        }
    }
}

/// Two float64 lanes -> their integer results (target `T`, rule `R`) as int64 lanes whose low
/// 32 bits are the result, and the lanes to flag (as [`f32_lanes`]; wrap holds [-2^63, 2^63)).
#[inline(always)]
fn f64_lanes<const M: u8, const T: u8, const R: u8>(
    cpu: Neon,
    x: float64x2_t,
    (lo, hi): (f64, f64),
) -> (uint64x2_t, uint64x2_t) {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        let r = round64::<M>(cpu, x);
        let cvt = hot(
            #[inline(always)]
            |v: float64x2_t| vreinterpretq_u64_s64(vcvtq_s64_f64(v)),
        );
        match R {
            range::CLAMP => {
                let c = vminq_f64(vmaxq_f64(r, vdupq_n_f64(lo)), vdupq_n_f64(hi));
                let exp = vdupq_n_u64(0x7ff0_0000_0000_0000);
                (cvt(c), vceqq_u64(vandq_u64(vreinterpretq_u64_f64(x), exp), exp))
            }
            range::WRAP => {
                let two63 = 9223372036854775808.0;
                let inside = vandq_u64(vcgeq_f64(r, vdupq_n_f64(-two63)), vcltq_f64(r, vdupq_n_f64(two63)));
                (cvt(r), veorq_u64(inside, vdupq_n_u64(u64::MAX)))
            }
            _ => {
                let inside = vandq_u64(vcgeq_f64(r, vdupq_n_f64(lo)), vcleq_f64(r, vdupq_n_f64(hi)));
                (cvt(r), veorq_u64(inside, vdupq_n_u64(u64::MAX)))
            }
        }
    }
}

/// Sixteen 32-bit lanes, the first 64 bytes of `s`, as four vectors.
#[inline(always)]
fn quads(cpu: Neon, s: &[u8]) -> [uint32x4_t; 4] {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        array_map(
            [0, 1, 2, 3],
            #[inline(always)]
            |k| vreinterpretq_u32_u8(load(cpu, s.get(16 * k..).unwrap_or(&[]))),
        )
    }
}

// float16/bfloat16/float32/float64 (source code `S`) -> 8/16/32-bit integer target `T` in
// rounding mode `M` (one `FRINT*`) with range rule `R`: float64 in its own lanes
// ([`f64_lanes`]), the others in float32 lanes ([`f32_lanes`]; float16 and bfloat16 widen
// exactly first). 16 elements per step.
entry!(f2i<const S: u8, const M: u8, const T: u8, const R: u8>, f2i_body);
#[target_feature(enable = "neon")]
fn f2i_body<const S: u8, const M: u8, const T: u8, const R: u8>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    let cpu = Neon::new();
    let (ss, ds) = (src::size(S), tgt::size(T));
    // The target's range from the format table, as floats (exact: every bound of these
    // targets is a small integer or 2^31 - 1 / 2^32 - 1, which f64 holds).
    let (lo, hi) = dir.to.format().int_bounds();
    let bounds = (lo as f64, hi as f64);
    let specials = lanes::SpecialMap::new(dir);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (ss, ds),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let part = hot(
                #[inline(always)]
                |k: usize| s.get(16 * k..).unwrap_or(&[]),
            );
            let (v, f): ([uint32x4_t; 4], [uint32x4_t; 4]) = if S == src::F64 {
                let pair = hot(
                    #[inline(always)]
                    |k: usize| {
                        let (a, fa) = f64_lanes::<M, T, R>(cpu, vreinterpretq_f64_u8(load(cpu, part(2 * k))), bounds);
                        let (b, fb) =
                            f64_lanes::<M, T, R>(cpu, vreinterpretq_f64_u8(load(cpu, part(2 * k + 1))), bounds);
                        let v = vcombine_u32(vmovn_u64(a), vmovn_u64(b));
                        (v, vcombine_u32(vmovn_u64(fa), vmovn_u64(fb)))
                    },
                );
                let q = [pair(0), pair(1), pair(2), pair(3)];
                array_unzip(q)
            } else {
                let x: [float32x4_t; 4] = match S {
                    src::F32 => array_map(
                        quads(cpu, s),
                        #[inline(always)]
                        |v| vreinterpretq_f32_u32(v),
                    ),
                    _ => {
                        let [a, b] = array_map(
                            [0, 1],
                            #[inline(always)]
                            |k| widen16::<S>(cpu, vreinterpretq_u16_u8(load(cpu, part(k)))),
                        );
                        [a[0], a[1], b[0], b[1]]
                    }
                };
                let q = array_map(
                    x,
                    #[inline(always)]
                    |v| f32_lanes::<M, T, R>(cpu, v, bounds),
                );
                array_unzip(q)
            };
            match tgt::size(T) {
                1 => store(cpu, d, bytes_of(cpu, v)),
                2 => {
                    let [a, b] = halves_of(cpu, v);
                    store(cpu, d, vreinterpretq_u8_u16(a));
                    store(cpu, d.get_mut(16..).unwrap_or(&mut []), vreinterpretq_u8_u16(b));
                }
                _ => {
                    for (k, x) in v.into_iter().enumerate() {
                        store(cpu, d.get_mut(16 * k..).unwrap_or(&mut []), vreinterpretq_u8_u32(x));
                    }
                }
            }
            lane_bits(cpu, bytes_of(cpu, f))
        },
    )
}

/// Four float16 patterns widened to float32 exactly (`FCVTL`).
#[inline(always)]
fn fcvtl(_cpu: Neon, h: uint16x4_t) -> float32x4_t {
    let out: float32x4_t;
    // SAFETY: FCVTL reads one vector register and writes another; no memory, no flags.
    unsafe {
        asm!("fcvtl {o:v}.4s, {i:v}.4h", i = in(vreg) h, o = lateout(vreg) out, options(pure, nomem, nostack, preserves_flags))
    };
    out
}

/// Four float32 lanes narrowed to float16 patterns, rounded nearest-even (`FCVTN`).
#[inline(always)]
fn fcvtn(_cpu: Neon, x: float32x4_t) -> uint16x4_t {
    let out: uint16x4_t;
    // SAFETY: FCVTN reads one vector register and writes another; no memory, no flags.
    unsafe {
        asm!("fcvtn {o:v}.4h, {i:v}.4s", i = in(vreg) x, o = lateout(vreg) out, options(pure, nomem, nostack, preserves_flags))
    };
    out
}

/// Eight float16 (`S` = F16, `FCVTL`) or bfloat16 (a shift into the top half) patterns
/// widened to float32 exactly, in order.
#[inline(always)]
fn widen16<const S: u8>(cpu: Neon, h: uint16x8_t) -> [float32x4_t; 2] {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe {
        if S == src::F16 {
            [fcvtl(cpu, vget_low_u16(h)), fcvtl(cpu, vget_high_u16(h))]
        } else {
            [
                vreinterpretq_f32_u32(vshll_n_u16::<16>(vget_low_u16(h))),
                vreinterpretq_f32_u32(vshll_high_n_u16::<16>(h)),
            ]
        }
    }
}

// float16 / bfloat16 (`S`) -> float32: exact widening ([`widen16`]). NaN (canonical pattern)
// and +-Inf (possible map keys) go cold. 16 elements per step.
entry!(half_to_f32<const S: u8>, half_to_f32_body);
#[target_feature(enable = "neon")]
fn half_to_f32_body<const S: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Neon::new();
    let specials = lanes::SpecialMap::new(dir);
    let exp = vdupq_n_u16(if S == src::F16 { 0x7c00 } else { 0x7f80 });
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (2, 4),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let h = [vreinterpretq_u16_u8(load(cpu, s)), vreinterpretq_u16_u8(load(cpu, s.get(16..).unwrap_or(&[])))];
            for (k, v) in h.iter().enumerate() {
                let [lo, hi] = widen16::<S>(cpu, *v);
                store(cpu, d.get_mut(32 * k..).unwrap_or(&mut []), vreinterpretq_u8_f32(lo));
                store(cpu, d.get_mut(32 * k + 16..).unwrap_or(&mut []), vreinterpretq_u8_f32(hi));
            }
            let [a, b] = array_map(
                h,
                #[inline(always)]
                |v| vceqq_u16(vandq_u16(v, exp), exp),
            );
            lane_bits(cpu, vcombine_u8(vmovn_u16(a), vmovn_u16(b)))
        },
    )
}

/// Flags of four float32 lanes whose magnitude pattern is above `limit` (NaN and Inf too).
#[inline(always)]
fn above(_cpu: Neon, x: uint32x4_t, limit: u32) -> uint32x4_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe { vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fff_ffff)), vdupq_n_u32(limit)) }
}

/// Eight u16 lanes as sixteen bytes.
#[inline(always)]
fn u8s(_cpu: Neon, v: uint16x8_t) -> uint8x16_t {
    // SAFETY: the `Neon` proves NEON (see [`Neon`]).
    unsafe { vreinterpretq_u8_u16(v) }
}

/// The chunk loop of float32 -> a 16-bit float: `narrow` turns four float32 patterns into
/// their four 16-bit results; lanes whose magnitude pattern is above `limit` go cold.
/// 16 elements per step.
#[inline(always)]
fn f32_to_half_steps(
    cpu: Neon,
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    limit: u32,
    narrow: impl Fn(uint32x4_t) -> uint16x4_t,
) -> Result<(), ElementError> {
    let specials = lanes::SpecialMap::new(dir);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (4, 2),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let x = quads(cpu, s);
            let [a, b, c, e] = array_map(x, &narrow);
            // SAFETY: the `Neon` proves NEON (see [`Neon`]).
            let (ab, ce) = unsafe { (vcombine_u16(a, b), vcombine_u16(c, e)) };
            store(cpu, d, u8s(cpu, ab));
            store(cpu, d.get_mut(16..).unwrap_or(&mut []), u8s(cpu, ce));
            lane_bits(
                cpu,
                bytes_of(
                    cpu,
                    array_map(
                        x,
                        #[inline(always)]
                        |v| above(cpu, v, limit),
                    ),
                ),
            )
        },
    )
}

// float32 -> float16 nearest-even (`FCVTN`, subnormals included). Magnitudes from 65504 (the
// float16 maximum) up, NaN and Inf go cold.
entry!(f32_to_f16, f32_to_f16_body);
#[target_feature(enable = "neon")]
fn f32_to_f16_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Neon::new();
    f32_to_half_steps(
        cpu,
        dir,
        src,
        dst,
        0x477f_dfff,
        #[inline(always)]
        |v| fcvtn(cpu, vreinterpretq_f32_u32(v)),
    )
}

// float32 -> bfloat16: integer rounding of the f32 pattern at bit 16 (a carry into the kept
// half is exactly rounding the magnitude up, subnormals included). Nearest-even adds 0x7fff
// plus the kept half's last bit, nearest-away 0x8000, the directed modes 0xffff on their
// side of zero; `ADDHN` adds and keeps the high halves. Magnitudes that could round to Inf
// (above 0x7f7f0000), NaN and Inf go cold.
entry!(f32_to_bf16<const M: u8>, f32_to_bf16_body);
#[target_feature(enable = "neon")]
fn f32_to_bf16_body<const M: u8>(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Neon::new();
    f32_to_half_steps(
        cpu,
        dir,
        src,
        dst,
        0x7f7f_0000,
        #[inline(always)]
        |v| {
            let neg = vreinterpretq_u32_s32(vshrq_n_s32::<31>(vreinterpretq_s32_u32(v)));
            let ones = vdupq_n_u32(0xffff);
            let inc = match M {
                mode::NE => vaddq_u32(vdupq_n_u32(0x7fff), vandq_u32(vshrq_n_u32::<16>(v), vdupq_n_u32(1))),
                mode::NA => vdupq_n_u32(0x8000),
                mode::TZ => vdupq_n_u32(0),
                mode::TP => vbicq_u32(ones, neg),
                _ => vandq_u32(ones, neg),
            };
            vaddhn_u32(v, inc)
        },
    )
}

// float32 -> float64: exact widening. NaN and +-Inf go cold. 16 elements per step.
entry!(f32_to_f64, f32_to_f64_body);
#[target_feature(enable = "neon")]
fn f32_to_f64_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Neon::new();
    let specials = lanes::SpecialMap::new(dir);
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (4, 8),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let x = quads(cpu, s);
            for (k, v) in x.iter().enumerate() {
                let f = vreinterpretq_f32_u32(*v);
                store(cpu, d.get_mut(32 * k..).unwrap_or(&mut []), vreinterpretq_u8_f64(vcvt_f64_f32(vget_low_f32(f))));
                store(cpu, d.get_mut(32 * k + 16..).unwrap_or(&mut []), vreinterpretq_u8_f64(vcvt_high_f64_f32(f)));
            }
            lane_bits(
                cpu,
                bytes_of(
                    cpu,
                    array_map(
                        x,
                        #[inline(always)]
                        |v| above(cpu, v, 0x7f7f_ffff),
                    ),
                ),
            )
        },
    )
}

// float64 -> float32 nearest-even (`FCVTN`, subnormals included). Magnitudes above the
// largest float32, NaN and Inf go cold. 16 elements per step.
entry!(f64_to_f32, f64_to_f32_body);
#[target_feature(enable = "neon")]
fn f64_to_f32_body(dir: &Direction, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    let cpu = Neon::new();
    let specials = lanes::SpecialMap::new(dir);
    let max = vdupq_n_f64(f64::from(f32::MAX));
    lanes::steps::<N>(
        dir,
        src,
        dst,
        (8, 4),
        specials.as_ref(),
        #[inline(always)]
        |s, d| {
            let mut flags = [vdupq_n_u32(0); 4];
            for (k, f) in flags.iter_mut().enumerate() {
                let a = vreinterpretq_f64_u8(load(cpu, s.get(32 * k..).unwrap_or(&[])));
                let b = vreinterpretq_f64_u8(load(cpu, s.get(32 * k + 16..).unwrap_or(&[])));
                let v = vcvt_high_f32_f64(vcvt_f32_f64(a), b);
                store(cpu, d.get_mut(16 * k..).unwrap_or(&mut []), vreinterpretq_u8_f32(v));
                // |x| <= max is false for NaN too.
                let ok = vcombine_u32(vmovn_u64(vcaleq_f64(a, max)), vmovn_u64(vcaleq_f64(b, max)));
                *f = vmvnq_u32(ok);
            }
            lane_bits(cpu, bytes_of(cpu, flags))
        },
    )
}
