//! The kernel bodies every vector tier shares, written once over fixed-width lane arrays
//! (`[u64; LANES]`; `[u32; 16]` for float32 -> the narrower floats) so that each tier's
//! entry function compiles them to its own vector code.
//!
//! Shape ("the fast path detects, the slow path explains"): a chunk of elements is
//! loaded, each lane is converted branch-free by integer bit work, and every lane that the
//! fast path does not cover exactly (NaN, Inf, subnormals, values at or beyond the target's
//! range) sets a flag. Flagged elements only are redone: a NaN or +-Inf that the scalar_map
//! maps is written in-line ([`SpecialMap`]), anything else by the scalar reference, which
//! writes the exact result or reports the exact error. Other scalar_map keys are found by a
//! pass after the chunk loop and redone the same way ([`Keys`]). Every choice that
//! depends on the configuration (types, rounding, out_of_range, map present) is a const
//! generic or a plan-time parameter, never a branch in the loop.

use crate::config::{OutOfRange, Rounding};
use crate::dtype::{DataType, Decoded, Format, KernelClass, Kind};
use crate::error::ElementError;
use crate::kernels::scalar;
use crate::plan::Direction;

/// Lanes per chunk: wide enough for two AVX2 registers of u64, small enough that a cold
/// chunk costs little.
pub const LANES: usize = 8;

/// The most elements a kernel of any tier converts in one step: test windows at least this
/// long reach every kernel's vector loop (shorter buffers go straight to the tail).
pub const MAX_STEP: usize = 64;

/// The most scalar_map entries the lane programs take; a larger map uses the table or scalar
/// kernels.
pub const MAX_LANE_KEYS: usize = 8;

/// Rounding modes as const generic values.
pub mod mode {
    /// nearest-even
    pub const NE: u8 = 0;
    /// towards-zero
    pub const TZ: u8 = 1;
    /// towards-positive
    pub const TP: u8 = 2;
    /// towards-negative
    pub const TN: u8 = 3;
    /// nearest-away
    pub const NA: u8 = 4;
}

/// out_of_range settings as const generic values.
pub mod range {
    /// absent: out of range is an error (cold path)
    pub const ERROR: u8 = 0;
    /// clamp
    pub const CLAMP: u8 = 1;
    /// wrap
    pub const WRAP: u8 = 2;
}

/// The const-generic code of a rounding mode.
pub const fn mode_code(r: Rounding) -> u8 {
    match r {
        Rounding::NearestEven => mode::NE,
        Rounding::TowardsZero => mode::TZ,
        Rounding::TowardsPositive => mode::TP,
        Rounding::TowardsNegative => mode::TN,
        Rounding::NearestAway => mode::NA,
    }
}

/// The const-generic code of an out_of_range setting.
pub const fn range_code(o: Option<OutOfRange>) -> u8 {
    match o {
        None => range::ERROR,
        Some(OutOfRange::Clamp) => range::CLAMP,
        Some(OutOfRange::Wrap) => range::WRAP,
    }
}

/// Whether every scalar_map key is a lane the hand-written kernels already send cold: NaN or
/// +-Inf of a float source (true without a map). Any other key leaves the direction to the
/// generic lane programs, which look for the other keys after their chunk loop.
pub fn map_keys_are_special(dir: &Direction) -> bool {
    dir.map.entries().iter().all(|&(k, _)| special_key(dir.from, k))
}

/// Is `key` NaN or +-Inf of a float source `from`? Every kernel sends such lanes cold.
fn special_key(from: DataType, key: u64) -> bool {
    from.is_float() && matches!(from.decode_bits(key), Decoded::Nan | Decoded::Inf { .. })
}

/// Which lane program a pair runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneClass {
    /// IEEE float (16/32/64-bit) to any float.
    FloatToFloat,
    /// IEEE float to integer.
    FloatToInt,
    /// Integer (16+ bits) to integer.
    IntToInt,
    /// Integer (16+ bits) to float.
    IntToFloat,
}

/// Everything the lane programs need, derived from the two formats when the plan is bound.
#[derive(Clone, Copy, Debug)]
pub struct LaneParams {
    /// The program.
    pub class: LaneClass,
    /// Source width in bits and mantissa bits (floats).
    src_bits: u32,
    src_man: u32,
    src_bias: i64,
    /// Target width, mantissa bits, bias, sign, and the largest finite magnitude pattern.
    dst_bits: u32,
    dst_man: u32,
    dst_bias: i64,
    dst_has_sign: bool,
    dst_neg_zero: bool,
    dst_has_zero: bool,
    dst_subnormals: bool,
    dst_max_mag: u64,
    dst_mask: u64,
    /// Integer targets: magnitude limits on each side, and the clamp results.
    lim_pos: u64,
    lim_neg: u64,
    /// Signed integer target: its sign bit, by which results are stored sign-extended
    /// (int2/int4 fill the byte); 0 for other targets. Likewise for a signed source.
    dst_sign_ext: u64,
    src_sign_ext: u64,
    min_bits: u64,
    max_bits: u64,
    /// The scalar_map keys the program leaves to [`fix_key_hits`].
    keys: Keys,
    /// The source value a kernel may put in NaN/Inf lanes instead of resolving them as map
    /// hits ([`special_substitute`]), found once, when the plan is bound.
    pub substitute: Option<u64>,
    /// float32 to a narrower float with Inf: the 32-bit lane program's parameters.
    pub narrow32: Option<Narrow32>,
}

impl LaneParams {
    /// The lane program for a direction, if one covers its pair (16+ bit source; map small
    /// enough to check in-lane).
    pub fn new(dir: &Direction) -> Option<LaneParams> {
        let (s, d) = (dir.from.format(), dir.to.format());
        if s.bits < 16 || dir.map.entries().len() > MAX_LANE_KEYS {
            return None;
        }
        // The pair's class comes from the generated 26x26 matrix (build.rs).
        let class = match dir.from.kernel_class(dir.to) {
            KernelClass::SmallSource => return None,
            KernelClass::IntToInt => LaneClass::IntToInt,
            KernelClass::IntToFloat => LaneClass::IntToFloat,
            KernelClass::FloatToInt => LaneClass::FloatToInt,
            KernelClass::FloatWiden | KernelClass::FloatNarrow => LaneClass::FloatToFloat,
            KernelClass::Identity if s.kind == Kind::Float => LaneClass::FloatToFloat,
            KernelClass::Identity => LaneClass::IntToInt,
        };
        let (lim_pos, lim_neg) = match d.kind {
            Kind::Signed => (d.mask() >> 1, (d.mask() >> 1) + 1),
            Kind::Unsigned => (d.mask(), 0),
            Kind::Float => (0, 0),
        };
        Some(LaneParams {
            class,
            src_bits: s.bits,
            src_man: s.man_bits,
            src_bias: s.bias as i64,
            dst_bits: d.bits,
            dst_man: d.man_bits,
            dst_bias: d.bias as i64,
            dst_has_sign: d.has_sign,
            dst_neg_zero: d.has_negative_zero(),
            dst_has_zero: d.subnormals || d.kind != Kind::Float,
            dst_subnormals: d.subnormals,
            dst_max_mag: d.max_bits() & !d.sign_mask(),
            dst_mask: d.mask(),
            lim_pos,
            lim_neg,
            dst_sign_ext: if d.kind == Kind::Signed { d.sign_mask() } else { 0 },
            src_sign_ext: if s.kind == Kind::Signed { s.sign_mask() } else { 0 },
            min_bits: d.min_bits(),
            max_bits: d.max_bits(),
            keys: Keys::new(dir),
            substitute: special_substitute(dir),
            narrow32: Narrow32::new(dir),
        })
    }
}

/// The rounding increment (0 or 1) for a magnitude `n` with dropped bits `rem` of which
/// `half` is the weight of the first, under mode `M` and sign `neg`.
#[inline(always)]
fn increment<const M: u8>(neg: bool, n: u64, rem: u64, half: u64) -> u64 {
    let inexact = rem != 0;
    let up = match M {
        mode::NE => (rem > half) | ((rem == half) & (half != 0) & (n & 1 == 1)),
        mode::NA => (rem >= half) & (half != 0),
        mode::TZ => false,
        mode::TP => !neg & inexact,
        _ => neg & inexact,
    };
    up as u64
}

/// The scalar_map keys the lane programs do not flag: NaN and +-Inf keys of a float source
/// are left out, since every lane program flags those lanes anyway. The chunk loop carries
/// no key comparison (per lane it cost up to half of a conversion where lanes are scalar,
/// wasm32 without simd128 and Cortex-M); [`fix_key_hits`] redoes the hits after it.
#[derive(Clone, Copy, Debug)]
pub struct Keys {
    /// The canonical keys; the first `len` are real.
    keys: [u64; MAX_LANE_KEYS],
    len: usize,
    /// The bits of an element that tell zero: the magnitude of a float source (its -0
    /// matches the canonical +0 key), every bit of an integer.
    nonzero: u64,
}

impl Keys {
    fn new(dir: &Direction) -> Keys {
        let from = dir.from;
        let mut keys = [0; MAX_LANE_KEYS];
        let mut len = 0;
        for &(k, _) in dir.map.entries().iter().filter(|e| !special_key(from, e.0)) {
            if let Some(slot) = keys.get_mut(len) {
                *slot = k;
                len += 1;
            }
        }
        let nonzero = if from.is_float() { from.format().mask() >> 1 } else { u64::MAX };
        Keys { keys, len, nonzero }
    }

    /// Is the element `x` one of the keys? ([`scalar::canonical_key`] for the elements that
    /// can match here, which are not NaN: -0 is +0.)
    #[inline(always)]
    fn hit(&self, x: u64) -> bool {
        let key = if x & self.nonzero == 0 { 0 } else { x };
        self.keys.get(..self.len).unwrap_or(&[]).contains(&key)
    }
}

/// The parameters of [`f32_narrow`]: float32 to a narrower float with a sign, -0, +-Inf and
/// subnormals (float16, bfloat16, float8_e4m3, float8_e5m2), all of them 32-bit values fixed
/// when the plan is bound. The lane program shifts by one amount in every lane, which SSE2,
/// NEON and simd128 have (they have no per-lane shift), and its 32-bit lanes are native on
/// Cortex-M and wasm32, where the 64-bit lanes of [`float_to_float`] take pairs of
/// registers.
#[derive(Clone, Copy, Debug)]
pub struct Narrow32 {
    /// Mantissa bits dropped from a normal result (23 less the target's).
    sh: u32,
    /// The rebias of the exponent field, at the target's mantissa position (wrapping).
    delta: u32,
    /// float32's exponent field less the target's at equal values (biases' difference); a
    /// float32 field at most this has a result below the target's normal range before
    /// rounding.
    rebias: u32,
    /// The target's largest finite magnitude pattern (+Inf's is one more).
    max_mag: u32,
    /// Where the target's sign bit goes.
    sign_shift: u32,
    /// Whether results beyond the range are +-Inf (clamp) rather than flagged.
    clamp: bool,
    /// Whether normal float32 values can have subnormal results (a target with a narrower
    /// exponent range than float32's).
    pub subnormal_results: bool,
    /// The scalar_map keys the program leaves to [`fix_key_hits`].
    keys: Keys,
}

impl Narrow32 {
    /// The parameters for a direction from float32 to such a target, with a scalar_map small
    /// enough to check in-lane; `None` for any other direction.
    pub fn new(dir: &Direction) -> Option<Narrow32> {
        let (s, d) = (dir.from.format(), dir.to.format());
        let entries = dir.map.entries();
        let fits = s.dtype == DataType::Float32
            && d.kind == Kind::Float
            && d.bits < 32
            && d.has_sign
            && d.has_inf
            && d.subnormals
            && d.man_bits >= 1
            && entries.len() <= MAX_LANE_KEYS;
        if !fits {
            return None;
        }
        let max_mag = u32::try_from(d.max_bits() & !d.sign_mask()).ok()?;
        // +Inf is the pattern after the largest finite one (all-ones exponent, mantissa 0).
        if u64::from(max_mag) + 1 != ((1u64 << d.exp_bits) - 1) << d.man_bits {
            return None;
        }
        Some(Narrow32 {
            sh: s.man_bits - d.man_bits,
            delta: ((d.bias - s.bias) << d.man_bits) as u32,
            rebias: (s.bias - d.bias) as u32,
            max_mag,
            sign_shift: d.bits - 1,
            clamp: dir.out_of_range == Some(OutOfRange::Clamp),
            subnormal_results: d.exp_bits < s.exp_bits,
            keys: Keys::new(dir),
        })
    }
}

/// Whether the code the lane programs compile to here lacks a shift by a per-lane amount:
/// SSE2 (x86 below AVX2, what the portable tier is built for there) and simd128. Scalar
/// code (Cortex-M, RISC-V, wasm32 without simd128) and NEON shift each lane by its own
/// amount in one instruction, which the stepwise form would only slow down.
const STEPWISE_SHIFT: bool = cfg!(any(
    all(any(target_arch = "x86_64", target_arch = "x86"), not(target_feature = "avx2")),
    target_feature = "simd128"
));

/// [`float_to_float`] from float32 to a [`Narrow32`] target in 32-bit lanes, rounded once.
/// A normal result is the pattern rebased to the target's exponent bias, rounded at its last
/// mantissa bit (a carry into the exponent is the rounding up). With `SUB`, a subnormal
/// result is the significand shifted down `k` places more, the bits shifted out kept as a
/// sticky bit; where [`STEPWISE_SHIFT`], `k` is taken apart into shifts by 1, 2, 4 and 8
/// that each lane takes or not (a per-lane shift from uniform ones). Without `SUB`, those
/// lanes are flagged. Beyond the largest finite value after rounding: +-Inf with clamp, else
/// flagged. NaN, +-Inf and subnormal sources are flagged (map keys are [`fix_key_hits`]'s).
#[inline(always)]
pub fn f32_narrow<const M: u8, const SUB: bool>(p: &Narrow32, x: u32) -> (u32, bool) {
    let neg = x >> 31;
    let mag = x & 0x7fff_ffff;
    let field = mag >> 23;
    let below = field <= p.rebias;
    let sub = SUB & below;
    // The operand and the shift beyond a normal result's: the pattern (k = 0) for a normal
    // result; the significand for a subnormal one, one place more for each exponent step
    // below the target's least normal one (k >= 1; from 15 on every bit is out already).
    let a = if sub { (mag & 0x7f_ffff) | 0x80_0000 } else { mag };
    let k = if sub { (p.rebias + 1).wrapping_sub(field).min(15) } else { 0 };
    // `v` keeps the first dropped bit (the guard) as its lowest bit.
    let mut sticky = a & ((1 << (p.sh - 1)) - 1) != 0;
    let mut v = a >> (p.sh - 1);
    if SUB & STEPWISE_SHIFT {
        for j in 0..4 {
            let take = (k >> j) & 1 == 1;
            let w = 1u32 << j;
            sticky |= take & (v & ((1 << w) - 1) != 0);
            v = if take { v >> w } else { v };
        }
    } else if SUB {
        sticky |= v & ((1 << k) - 1) != 0;
        v >>= k;
    }
    let guard = v & 1 == 1;
    let base = (v >> 1).wrapping_add(if sub { 0 } else { p.delta });
    let inexact = guard | sticky;
    // delta is a multiple of 2 (the target keeps a mantissa bit): base's parity is the kept
    // bits'.
    let up = match M {
        mode::NE => guard & (sticky | (base & 1 == 1)),
        mode::NA => guard,
        mode::TZ => false,
        mode::TP => (neg == 0) & inexact,
        _ => (neg == 1) & inexact,
    };
    let comb = base.wrapping_add(up as u32);
    let over = !sub & (comb > p.max_mag);
    let zero = mag == 0;
    let out_mag = if zero {
        0
    } else if over & p.clamp {
        p.max_mag + 1
    } else {
        comb
    };
    let tiny = if SUB { (field == 0) & !zero } else { !zero & below };
    let bad = (mag >= 0x7f80_0000) | tiny | (over & !p.clamp);
    (out_mag | (neg << p.sign_shift), bad)
}

/// IEEE float (f16/bf16/f32/f64) to any float: normal values whose result is normal and in
/// range; zeros. Returns (bits, needs the cold path).
#[inline(always)]
pub fn float_to_float<const M: u8>(p: &LaneParams, x: u64) -> (u64, bool) {
    let ms = p.src_man;
    let sign_shift = p.src_bits - 1;
    let neg = (x >> sign_shift) & 1 == 1;
    let mag = x & ((1u64 << sign_shift) - 1);
    let field = mag >> ms;
    let all_ones = (1u64 << (sign_shift - ms)) - 1;
    let special_src = ((field == 0) & (mag != 0)) | (field == all_ones);
    let delta = ((p.dst_bias - p.src_bias) << p.dst_man) as u64;
    let comb = if ms >= p.dst_man {
        let sh = ms - p.dst_man;
        let base = (mag >> sh).wrapping_add(delta);
        let rem = mag & ((1u64 << sh) - 1);
        let half = (1u64 << sh) >> 1;
        // A target without stored mantissa bits (float8_e8m0fnu) has significand 1: odd.
        let parity = if p.dst_man == 0 { 1 } else { base };
        base.wrapping_add(increment::<M>(neg, parity, rem, half))
    } else {
        (mag << (p.dst_man - ms)).wrapping_add(delta)
    };
    // Normal result: the biased target exponent before rounding was at least 1 (as a signed
    // quantity), and the rounded pattern does not pass the largest finite one.
    let unrounded_field = ((mag >> ms) as i64) + (p.dst_bias - p.src_bias);
    let normal = (unrounded_field >= 1) & (comb <= p.dst_max_mag);
    // Subnormal (or zero) result: the significand, hidden bit included, shifted down onto
    // the target's subnormal grid: right by (ms - mt) + (1 - field), rounded once. A carry
    // into bit mt gives the smallest normal, which is the right encoding too.
    let sig = (mag & ((1u64 << ms) - 1)) | (1u64 << ms);
    let r = (ms as i64 - p.dst_man as i64) + (1 - unrounded_field);
    let rs = r.clamp(0, 63) as u32; // sig < 2^53: beyond 53 the split is exact anyway
    let ls = (-r).clamp(0, 63) as u32;
    let shifted = sig << ls;
    let sub = shifted >> rs;
    let srem = shifted & ((1u64 << rs) - 1);
    let shalf = (1u64 << rs) >> 1;
    let sub = sub + increment::<M>(neg, sub, srem, shalf);
    let subnormal = (unrounded_field < 1) & p.dst_subnormals;
    let zero = mag == 0;
    let sign_bit = if p.dst_has_sign { (neg as u64) << (p.dst_bits - 1) } else { 0 };
    let neg_zero_bit = if neg & p.dst_neg_zero { sign_bit } else { 0 };
    let mag_out = if subnormal { sub } else { comb };
    let out = if zero | (subnormal & (sub == 0)) { neg_zero_bit } else { sign_bit | mag_out };
    let normal = normal | subnormal;
    let bad = special_src | (!zero & !normal) | (zero & !p.dst_has_zero) | (neg & !zero & !p.dst_has_sign);
    (out, bad)
}

/// IEEE float to integer: every finite value whose rounded magnitude fits 64 bits; the
/// range rule applied in-lane for clamp and wrap.
#[inline(always)]
pub fn float_to_int<const M: u8, const R: u8>(p: &LaneParams, x: u64) -> (u64, bool) {
    let ms = p.src_man;
    let sign_shift = p.src_bits - 1;
    let neg = (x >> sign_shift) & 1 == 1;
    let mag = x & ((1u64 << sign_shift) - 1);
    let field = mag >> ms;
    let all_ones = (1u64 << (sign_shift - ms)) - 1;
    let man = mag & ((1u64 << ms) - 1);
    let mant = if field == 0 { man } else { man | (1u64 << ms) };
    // value = mant * 2^e
    let e = (field.max(1) as i64) - p.src_bias - ms as i64;
    // Left shifts: exact while the result keeps below 2^63 (mant < 2^(ms+1)); beyond, the
    // low 64 bits are still exact modulo 2^64 (what wrap needs), and 0 from 2^64 up.
    let left = e >= 0;
    let lsh = (e.clamp(0, 63)) as u32;
    let huge = left & (e > 62 - ms as i64);
    // Right shifts: clamp the distance to 63; mant < 2^54 keeps the split exact (see the
    // scalar kernel's derivation).
    let rsh = ((-e).clamp(0, 63)) as u32;
    let n_right = mant >> rsh;
    let rem = mant & ((1u64 << rsh) - 1);
    let half = (1u64 << rsh) >> 1;
    let n_left = if e >= 64 { 0 } else { mant << lsh };
    let n = if left { n_left } else { n_right + increment::<M>(neg, n_right, rem, half) };
    let limit = if neg { p.lim_neg } else { p.lim_pos };
    let in_range = !huge & (n <= limit);
    let wrapped = (if neg { n.wrapping_neg() } else { n }) & p.dst_mask;
    let clamped = if neg { p.min_bits } else { p.max_bits };
    let out = stored_int(
        p,
        match R {
            range::CLAMP => {
                if in_range {
                    wrapped
                } else {
                    clamped
                }
            }
            _ => wrapped,
        },
    );
    // `huge` lanes (|x| >= 2^63) are out of range for every target narrower than 64 bits;
    // uint64 holds [2^63, 2^64), so with clamp they go cold there (int64 clamps them right:
    // above to the max, and -2^63 is its min either way).
    let bad = (field == all_ones)
        | ((R == range::ERROR) & !in_range)
        | ((R == range::CLAMP) & huge & (p.lim_pos == u64::MAX));
    (out, bad)
}

/// The stored form of an integer result (masked to the target's width): sign-extended for
/// signed targets, so that the low bytes written are right for every width, int2 and int4
/// included. By xor and subtract: AVX2 has no 64-bit arithmetic shift, and a shift here
/// made the compiler scalarise the whole lane program.
#[inline(always)]
fn stored_int(p: &LaneParams, bits: u64) -> u64 {
    (bits ^ p.dst_sign_ext).wrapping_sub(p.dst_sign_ext)
}

/// An all-ones mask where `c` holds: data-dependent choices are written as mask blends so
/// that they stay blends in vector code.
#[inline(always)]
fn mask(c: bool) -> u64 {
    (c as u64).wrapping_neg()
}

/// Sign mask (all ones if negative) and magnitude of an integer lane.
#[inline(always)]
fn int_parts(p: &LaneParams, x: u64) -> (u64, u64) {
    let v = (x ^ p.src_sign_ext).wrapping_sub(p.src_sign_ext);
    let m = mask(x & p.src_sign_ext != 0);
    (m, (v ^ m).wrapping_sub(m))
}

/// Integer to integer: the range rule in-lane.
#[inline(always)]
pub fn int_to_int<const R: u8>(p: &LaneParams, x: u64) -> (u64, bool) {
    let (neg, n) = int_parts(p, x);
    let limit = (p.lim_neg & neg) | (p.lim_pos & !neg);
    let in_range = n <= limit;
    let wrapped = ((n ^ neg).wrapping_sub(neg)) & p.dst_mask;
    let out = stored_int(
        p,
        match R {
            range::CLAMP => {
                let keep = mask(in_range);
                (wrapped & keep) | (((p.min_bits & neg) | (p.max_bits & !neg)) & !keep)
            }
            _ => wrapped,
        },
    );
    let bad = (R == range::ERROR) & !in_range;
    (out, bad)
}

/// Integer to float: results that are normal and in range; zero.
#[inline(always)]
pub fn int_to_float<const M: u8>(p: &LaneParams, x: u64) -> (u64, bool) {
    let (neg_mask, n) = int_parts(p, x);
    let neg = neg_mask != 0;
    let mt = p.dst_man;
    let msb = 63 - (n | 1).leading_zeros();
    let sh = msb.saturating_sub(mt);
    let up = mt.saturating_sub(msb);
    let field = ((msb as i64 + p.dst_bias) as u64) << mt;
    let kept = (n >> sh) << up; // the significand with its leading bit at position mt
    let rem = n & ((1u64 << sh) - 1);
    let half = (1u64 << sh) >> 1;
    // Leading bit dropped, exponent added: a carry out of the mantissa bumps the exponent.
    let base = field + (kept & ((1u64 << mt) - 1));
    let parity = if mt == 0 { 1 } else { base };
    let comb = base + increment::<M>(neg, parity, rem, half);
    let zero = n == 0;
    let sign_bit = if p.dst_has_sign { (neg as u64) << (p.dst_bits - 1) } else { 0 };
    let out = if zero { 0 } else { sign_bit | comb };
    let bad = (!zero & (comb > p.dst_max_mag)) | (zero & !p.dst_has_zero) | (neg & !p.dst_has_sign);
    (out, bad)
}

/// Load an element of `S` bytes (native-endian) from the front of `b`.
#[inline(always)]
fn load<const S: usize>(b: &[u8]) -> u64 {
    match (S, b) {
        (2, [a, c, ..]) => u16::from_ne_bytes([*a, *c]) as u64,
        (4, [a, c, d, e, ..]) => u32::from_ne_bytes([*a, *c, *d, *e]) as u64,
        (8, [a, c, d, e, f, g, h, i, ..]) => u64::from_ne_bytes([*a, *c, *d, *e, *f, *g, *h, *i]),
        (_, [a, ..]) => *a as u64,
        _ => 0,
    }
}

/// Store the low `D` bytes of `v` (native-endian) at the front of `b`.
#[inline(always)]
fn store<const D: usize>(b: &mut [u8], v: u64) {
    match D {
        1 => {
            if let Some(x) = b.first_mut() {
                *x = v as u8;
            }
        }
        // Byte by byte into a slice of known length (one store once optimised): no
        // `copy_from_slice`, whose call a build for size may keep.
        2 => {
            if let Some([x0, x1]) = b.get_mut(..2) {
                [*x0, *x1] = (v as u16).to_ne_bytes();
            }
        }
        4 => {
            if let Some([x0, x1, x2, x3]) = b.get_mut(..4) {
                [*x0, *x1, *x2, *x3] = (v as u32).to_ne_bytes();
            }
        }
        _ => {
            if let Some([x0, x1, x2, x3, x4, x5, x6, x7]) = b.get_mut(..8) {
                [*x0, *x1, *x2, *x3, *x4, *x5, *x6, *x7] = v.to_ne_bytes();
            }
        }
    }
}

/// Redo `src` (whole elements) with the scalar reference, reporting errors at `offset + i`.
#[cold]
#[inline(never)]
pub fn cold(dir: &Direction, src: &[u8], dst: &mut [u8], offset: usize) -> Result<(), ElementError> {
    scalar::cast(dir, src, dst).map_err(|mut e| {
        e.index += offset;
        e
    })
}

/// Redo the elements of a chunk whose bit is set in `flagged` (bit i = element i, `ss` / `ds`
/// bytes each) with the scalar reference, in order, reporting errors at `offset + i`.
#[cold]
#[inline(never)]
pub fn cold_lanes(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    (ss, ds): (usize, usize),
    mut flagged: u32,
    offset: usize,
) -> Result<(), ElementError> {
    while flagged != 0 {
        let i = flagged.trailing_zeros() as usize;
        flagged &= flagged - 1;
        match (src.get(i * ss..(i + 1) * ss), dst.get_mut(i * ds..(i + 1) * ds)) {
            (Some(s), Some(d)) => cold(dir, s, d, offset + i)?,
            _ => break,
        }
    }
    Ok(())
}

/// Resolve the flagged elements of a chunk: mapped NaN/Inf lanes in-line (`specials`), the
/// rest through the scalar reference ([`cold_lanes`]).
#[inline(always)]
pub fn resolve_flagged(
    dir: &Direction,
    specials: Option<&SpecialMap>,
    src: &[u8],
    dst: &mut [u8],
    sizes: (usize, usize),
    flagged: u32,
    offset: usize,
) -> Result<(), ElementError> {
    let rest = match specials {
        Some(m) => m.fix(src, dst, sizes, u64::from(flagged)) as u32,
        None => flagged,
    };
    if rest != 0 {
        cold_lanes(dir, src, dst, sizes, rest, offset)?;
    }
    Ok(())
}

/// The chunk loop of the hand-written NEON and simd128 kernels: run `step` over chunks of `N`
/// elements (`ss` / `ds` bytes each). `step` returns the lanes it flagged (bit i = element
/// i); those elements (mapped NaN/Inf through `specials`) and the tail are redone by the
/// scalar reference, in order, so the first error is the first failing element.
#[cfg(any(target_arch = "aarch64", all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub fn steps<const N: usize>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    (ss, ds): (usize, usize),
    specials: Option<&SpecialMap>,
    mut step: impl FnMut(&[u8], &mut [u8]) -> u32,
) -> Result<(), ElementError> {
    let mut done = 0;
    let mut sc = src.chunks_exact(ss * N);
    let mut dc = dst.chunks_exact_mut(ds * N);
    for (s, d) in (&mut sc).zip(&mut dc) {
        let flagged = step(s, d);
        if flagged != 0 {
            resolve_flagged(dir, specials, s, d, (ss, ds), flagged, done)?;
        }
        done += N;
    }
    cold(dir, sc.remainder(), dc.into_remainder(), done)
}

/// The scalar_map entries for NaN and +-Inf of an IEEE float source (float16, bfloat16,
/// float32, float64), resolved to their stored target bytes, so that a flagged lane holding
/// one of them is written in a few instructions instead of going through the reference.
#[derive(Clone, Copy, Debug)]
pub struct SpecialMap {
    exp: u64,
    man: u64,
    sign: u64,
    /// The stored target of each class (see [`SpecialMap::fix`]); bit `c` of `mapped` set
    /// where class `c` is mapped.
    values: [u64; 4],
    mapped: u32,
}

impl SpecialMap {
    /// The map's NaN/Inf entries, if the source is an IEEE float and the map has any.
    pub fn new(dir: &Direction) -> Option<SpecialMap> {
        let f = dir.from.format();
        if f.kind != Kind::Float || f.nan != crate::dtype::NanEncoding::Ieee || dir.map.is_empty() {
            return None;
        }
        let to = dir.to.format();
        let stored = |key: u64| {
            dir.map.get(key).map(|v| {
                let mut b = [0u8; 8];
                scalar::write_bits(to, v, b.get_mut(..to.size).unwrap_or(&mut []));
                u64::from_ne_bytes(b)
            })
        };
        let inf = f.positive_infinity();
        let classes = [None, stored(f.canonical_nan()), stored(inf), stored(inf | f.sign_mask())];
        let m = SpecialMap {
            exp: inf,
            man: (1u64 << f.man_bits) - 1,
            sign: f.sign_mask(),
            values: classes.map(|v| v.unwrap_or(0)),
            mapped: classes.iter().enumerate().map(|(c, v)| u32::from(v.is_some()) << c).sum(),
        };
        (m.mapped != 0).then_some(m)
    }

    /// Write the mapped value of every flagged lane whose source is a mapped NaN or +-Inf;
    /// return the lanes still flagged.
    #[inline(always)]
    pub fn fix(&self, src: &[u8], dst: &mut [u8], (ss, ds): (usize, usize), flagged: u64) -> u64 {
        let mut rest = flagged;
        let mut todo = flagged;
        while todo != 0 {
            let i = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let (Some(s), Some(d)) = (src.get(i * ss..(i + 1) * ss), dst.get_mut(i * ds..(i + 1) * ds)) else {
                break;
            };
            let x = load_dyn(s);
            // 0: not NaN/Inf, 1: NaN, 2: +Inf, 3: -Inf (no branch on the value).
            let special = usize::from(x & self.exp == self.exp);
            let inf = usize::from(x & self.man == 0);
            let neg = usize::from(x & self.sign != 0);
            let class = special * (1 + inf * (1 + neg));
            if self.mapped >> class & 1 != 0 {
                store_dyn(d, self.values.get(class).copied().unwrap_or(0));
                rest &= !(1u64 << i);
            }
        }
        rest
    }
}

/// Where the scalar_map is exactly NaN, +Inf and -Inf of an IEEE float source, all three to
/// one value `v`, and some finite source value `c` casts to `v` by itself: `c`'s bits (the
/// reference decides both: `c` is `v` read back into the source type, then cast forward with
/// the direction's own rounding and range rule). A kernel may then put `c` in every NaN/Inf
/// lane before it converts, so that map hits are neither flagged nor resolved: a hit costs
/// what any lane costs.
pub fn special_substitute(dir: &Direction) -> Option<u64> {
    let f = dir.from.format();
    if f.kind != Kind::Float || f.nan != crate::dtype::NanEncoding::Ieee || dir.map.entries().len() != 3 {
        return None;
    }
    let inf = f.positive_infinity();
    let v = dir.map.get(f.canonical_nan())?;
    if dir.map.get(inf) != Some(v) || dir.map.get(inf | f.sign_mask()) != Some(v) {
        return None;
    }
    let c = scalar::convert(dir.to, dir.from, Rounding::NearestEven, None, v).ok()?;
    let finite = matches!(dir.from.decode_bits(c), Decoded::Finite { .. });
    (finite && scalar::convert(dir.from, dir.to, dir.rounding, dir.out_of_range, c) == Ok(v)).then_some(c)
}

/// A lane program as a type, so that it is inlined into each tier's entry function (a
/// function pointer or `Fn` argument is not reliably inlined across target features).
pub trait LaneOp {
    /// Convert one lane: (result bits, needs the cold path).
    fn run(p: &LaneParams, x: u64) -> (u64, bool);
}

/// float -> float with rounding mode `M`.
pub struct FloatToFloatOp<const M: u8>;
/// float -> int with rounding mode `M` and range rule `R`.
pub struct FloatToIntOp<const M: u8, const R: u8>;
/// int -> int with range rule `R`.
pub struct IntToIntOp<const R: u8>;
/// int -> float with rounding mode `M`.
pub struct IntToFloatOp<const M: u8>;

impl<const M: u8> LaneOp for FloatToFloatOp<M> {
    #[inline(always)]
    fn run(p: &LaneParams, x: u64) -> (u64, bool) {
        float_to_float::<M>(p, x)
    }
}
impl<const M: u8, const R: u8> LaneOp for FloatToIntOp<M, R> {
    #[inline(always)]
    fn run(p: &LaneParams, x: u64) -> (u64, bool) {
        float_to_int::<M, R>(p, x)
    }
}
impl<const R: u8> LaneOp for IntToIntOp<R> {
    #[inline(always)]
    fn run(p: &LaneParams, x: u64) -> (u64, bool) {
        int_to_int::<R>(p, x)
    }
}
impl<const M: u8> LaneOp for IntToFloatOp<M> {
    #[inline(always)]
    fn run(p: &LaneParams, x: u64) -> (u64, bool) {
        int_to_float::<M>(p, x)
    }
}

/// The integer type of a lane: `u64` for the general programs, `u32` for [`f32_narrow`].
pub trait Lane: Copy + Default {
    /// The lane holding the low bits of `v`.
    fn from_u64(v: u64) -> Self;
    /// The lane's value, widened.
    fn to_u64(self) -> u64;
}

impl Lane for u64 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
}

impl Lane for u32 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as u32
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
}

/// Run a lane program over whole buffers: `N` elements (at most 32) of `S` bytes at a time
/// into `D` bytes each, converted by `run` in lanes of `T`; flagged elements and the tail go
/// through the scalar reference.
#[inline(always)]
fn drive_chunks<const S: usize, const D: usize, const N: usize, T: Lane>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    keys: &Keys,
    run: impl FnMut(T) -> (T, bool),
) -> Result<(), ElementError> {
    let converted = convert_chunks::<S, D, N, T>(dir, src, dst, run);
    if keys.len == 0 {
        return converted;
    }
    // Every element before a failing one holds its cast (the contract on errors).
    let end = match &converted {
        Ok(()) => src.len() / S,
        Err(e) => e.index,
    };
    fix_key_hits(dir, keys, src, dst, (S, D), end)?;
    converted
}

/// Redo, by the scalar reference, every element before `end` that is one of `keys`: the
/// lane programs convert those as ordinary values. Once per call, after the chunk loop, and
/// out of line, so that the loop stays free of the comparison and is not compiled twice
/// (with and without keys).
#[inline(never)]
fn fix_key_hits(
    dir: &Direction,
    keys: &Keys,
    src: &[u8],
    dst: &mut [u8],
    (s, d): (usize, usize),
    end: usize,
) -> Result<(), ElementError> {
    let format = dir.from.format();
    for lo in (0..end).step_by(32) {
        let hi = end.min(lo + 32);
        let (Some(sc), Some(dc)) = (src.get(s * lo..s * hi), dst.get_mut(d * lo..d * hi)) else { break };
        let mut hits = 0u32;
        for (i, e) in sc.chunks_exact(s).enumerate() {
            hits |= (keys.hit(scalar::read_bits(format, e)) as u32) << i;
        }
        if hits != 0 {
            cold_lanes(dir, sc, dc, (s, d), hits, lo)?;
        }
    }
    Ok(())
}

/// [`drive_chunks`]' loop: every element converted by `run` (by the scalar reference where
/// it flags the lane, and for the tail), map keys aside.
#[inline(always)]
fn convert_chunks<const S: usize, const D: usize, const N: usize, T: Lane>(
    dir: &Direction,
    src: &[u8],
    dst: &mut [u8],
    mut run: impl FnMut(T) -> (T, bool),
) -> Result<(), ElementError> {
    let mut done = 0;
    let specials = SpecialMap::new(dir);
    // Chunks by `get`, arrays indexed in loops of constant length: no iterator adapter (whose
    // calls a build for size may keep) and nothing that can panic.
    let (cs, cd) = (S * N, D * N);
    let chunks = (src.len() / cs).min(dst.len() / cd);
    for k in 0..chunks {
        let (Some(sc), Some(dc)) = (src.get(cs * k..cs * (k + 1)), dst.get_mut(cd * k..cd * (k + 1))) else { break };
        // Three simple passes over the lane arrays (load, convert, reduce) so that each
        // vectorizes on its own.
        let mut x = [T::default(); N];
        for (i, xl) in x.iter_mut().enumerate() {
            *xl = T::from_u64(load::<S>(sc.get(S * i..).unwrap_or(&[])));
        }
        let mut y = [T::default(); N];
        let mut flags = [false; N];
        for i in 0..N {
            if let (Some(&xl), Some(yl), Some(fl)) = (x.get(i), y.get_mut(i), flags.get_mut(i)) {
                (*yl, *fl) = run(xl);
            }
        }
        for (i, &yl) in y.iter().enumerate() {
            store::<D>(dc.get_mut(D * i..).unwrap_or(&mut []), yl.to_u64());
        }
        let mut flagged = 0u32;
        for (i, &f) in flags.iter().enumerate() {
            flagged |= (f as u32) << i;
        }
        if flagged != 0 {
            resolve_flagged(dir, specials.as_ref(), sc, dc, (S, D), flagged, done)?;
        }
        done += N;
    }
    let (Some(s), Some(d)) = (src.get(cs * chunks..), dst.get_mut(cd * chunks..)) else { return Ok(()) };
    cold(dir, s, d, done)
}

/// Run a lane program over whole buffers: `LANES` elements at a time in `u64` lanes.
#[inline(always)]
pub fn drive<const S: usize, const D: usize, O: LaneOp>(
    dir: &Direction,
    p: &LaneParams,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    drive_chunks::<S, D, LANES, u64>(
        dir,
        src,
        dst,
        &p.keys,
        #[inline(always)]
        |x| O::run(p, x),
    )
}

/// [`f32_narrow`] over whole buffers: 16 float32 elements at a time in `u32` lanes, results
/// of `D` bytes.
#[inline(always)]
pub fn drive_narrow32<const D: usize, const M: u8, const SUB: bool>(
    dir: &Direction,
    p: &Narrow32,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), ElementError> {
    drive_chunks::<4, D, 16, u32>(
        dir,
        src,
        dst,
        &p.keys,
        #[inline(always)]
        |x| f32_narrow::<M, SUB>(p, x),
    )
}

/// A 256-entry table for a source of 8 bits or less, built from the scalar reference with
/// the scalar_map folded in: `values[b]` is what byte `b` becomes (in its stored form),
/// `fails` marks the bytes whose cast is an error.
#[derive(Clone, Debug)]
pub struct Lut {
    values: [u64; 256],
    fails: [bool; 256],
    /// `fails` as words (all ones where the byte fails), for vector gathers.
    fail_words: [u32; 256],
    /// For targets of up to 16 bits: the value with bit 31 set where the byte fails, so
    /// that one gather gives both.
    tagged: [u32; 256],
    any_fail: bool,
    /// Whether a byte whose source value is finite fails (NaN and +-Inf aside).
    finite_fail: bool,
    /// Whether every byte that casts stores a low byte below 0x80.
    low_bit7_free: bool,
    sign_rule: Option<SignRule>,
    /// Byte targets: the table as the AVX2 shuffle kernel's rows, found once here.
    #[cfg(target_arch = "x86_64")]
    shuffle_rows: Option<crate::kernels::x86_64_byte_rows::ShuffleRows>,
    /// 8-bit float sources to 16-bit floats: the table as arithmetic, where it is that.
    #[cfg(target_arch = "x86_64")]
    affine16: Option<crate::kernels::x86_64_byte_rows::Affine16>,
}

impl Lut {
    /// What each byte becomes, in its stored form.
    pub fn values(&self) -> &[u64; 256] {
        &self.values
    }

    /// Which bytes fail to cast.
    pub fn fails(&self) -> &[bool; 256] {
        &self.fails
    }

    /// Byte `p` (little-endian) of the stored value of source byte `i` (0 beyond the
    /// table): one byte plane, for the byte-table kernels.
    pub fn plane_byte(&self, p: usize, i: usize) -> u8 {
        self.values.get(i).map_or(0, |&v| (v >> (8 * p)) as u8)
    }

    /// 0xff where source byte `i` fails (or is beyond the table), else 0.
    pub fn fail_byte(&self, i: usize) -> u8 {
        if self.fails.get(i).copied().unwrap_or(true) {
            0xff
        } else {
            0
        }
    }

    /// Which bytes fail to cast, as words of all ones (failing) or zero.
    pub fn fail_words(&self) -> &[u32; 256] {
        &self.fail_words
    }

    /// For targets of up to 16 bits: each byte's value (stored form, low 16 bits) with bit
    /// 31 set where the byte fails.
    pub fn tagged(&self) -> &[u32; 256] {
        &self.tagged
    }

    /// The table of a direction whose source has 8 bits or less.
    pub fn new(dir: &Direction) -> Option<Lut> {
        let from: &Format = dir.from.format();
        if from.bits > 8 {
            return None;
        }
        let to = dir.to.format();
        let mut lut = Lut {
            values: [0; 256],
            fails: [false; 256],
            fail_words: [0; 256],
            tagged: [0; 256],
            any_fail: false,
            finite_fail: false,
            low_bit7_free: false,
            sign_rule: None,
            #[cfg(target_arch = "x86_64")]
            shuffle_rows: None,
            #[cfg(target_arch = "x86_64")]
            affine16: None,
        };
        for ((v, f), byte) in lut.values.iter_mut().zip(lut.fails.iter_mut()).zip(0u8..=255) {
            match scalar::cast_element(dir, scalar::read_bits(from, &[byte])) {
                Ok(bits) => {
                    // The stored form: int2/int4 sign-extended to the byte.
                    let mut b = [0u8; 8];
                    let stored = b.get_mut(..to.size).unwrap_or(&mut []);
                    scalar::write_bits(to, bits, stored);
                    *v = load_dyn(stored);
                }
                Err(_) => *f = true,
            }
        }
        lut.any_fail = lut.fails.iter().any(|&f| f);
        lut.low_bit7_free = lut.values.iter().zip(lut.fails.iter()).all(|(&v, &f)| f || v & 0x80 == 0);
        lut.finite_fail = lut
            .fails
            .iter()
            .zip(0u64..)
            .any(|(&f, b)| f && (from.is_integer() || matches!(from.decode_float(b), Decoded::Finite { .. })));
        for (((w, t), &f), &v) in
            lut.fail_words.iter_mut().zip(lut.tagged.iter_mut()).zip(lut.fails.iter()).zip(lut.values.iter())
        {
            *w = if f { u32::MAX } else { 0 };
            *t = (v as u32 & 0xffff) | if f { 1 << 31 } else { 0 };
        }
        lut.sign_rule = sign_rule(dir, &lut);
        // The failing magnitudes the rule serves through (see `sign_rule`) get the entry
        // that gives their negative byte's (int8's 0 is its own negative: never both).
        if let Some(r) = &lut.sign_rule {
            for x in 0..0x80 {
                let n = SignRule::negative(r.abs, x);
                let (Some(&fails), Some(&n_fails), Some(&vn)) = (lut.fails.get(x), lut.fails.get(n), lut.values.get(n))
                else {
                    continue;
                };
                if fails && !n_fails {
                    if let (Some(t), Some(v), Some(w)) =
                        (sym::solve(r.how, r.s, vn as u8), lut.values.get_mut(x), lut.tagged.get_mut(x))
                    {
                        *v = u64::from(t);
                        *w = u32::from(t) | 1 << 31;
                    }
                }
            }
        }
        // Only where the AVX2 tier can run (not under miri, not on Nehalem): the search for
        // the rows costs about 20 us, and more than the cast under miri.
        #[cfg(target_arch = "x86_64")]
        if to.size == 1 && crate::kernels::dispatch::has_avx2() {
            lut.shuffle_rows = Some(crate::kernels::x86_64_byte_rows::ShuffleRows::of(&lut));
        }
        #[cfg(target_arch = "x86_64")]
        if to.size == 2 && crate::kernels::dispatch::has_avx2() {
            lut.affine16 = crate::kernels::x86_64_byte_rows::Affine16::of(&lut, from, to);
        }
        Some(lut)
    }

    /// Byte targets: the table as the AVX2 shuffle kernel's rows (found when bound).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn shuffle_rows(&self) -> Option<&crate::kernels::x86_64_byte_rows::ShuffleRows> {
        self.shuffle_rows.as_ref()
    }

    /// 8-bit float sources to 16-bit floats: the table as the AVX2 affine kernel's form (found
    /// when bound).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn affine16(&self) -> Option<&crate::kernels::x86_64_byte_rows::Affine16> {
        self.affine16.as_ref()
    }

    /// A rule for the negative bytes' entries, found once, when the plan was bound (by the
    /// private `sign_rule`).
    pub fn sign_rule(&self) -> Option<&SignRule> {
        self.sign_rule.as_ref()
    }

    /// Whether any byte fails (if none, kernels skip the per-chunk check).
    pub fn any_fail(&self) -> bool {
        self.any_fail
    }

    /// Whether a byte fails whose source value is finite (an integer source's every byte
    /// is): if not, a kernel that sends the source's NaN and +-Inf cold needs no range test.
    pub fn finite_fail(&self) -> bool {
        self.finite_fail
    }

    /// Whether every byte that casts stores a low byte below 0x80: a kernel may then mark the
    /// bytes it sends to the reference by bit 7 of that byte (uint2/uint4/float4/float6
    /// targets, and tables such as float6 -> uint8 whose values all fit in 7 bits).
    pub fn low_bit7_free(&self) -> bool {
        self.low_bit7_free
    }
}

/// How a byte-table kernel may derive a negative source byte's entry from its magnitude's
/// entry `t` ([`Lut::sign_rule`]).
pub mod sym {
    /// No symmetry: the whole table.
    pub const NONE: u8 = 0;
    /// `t ^ s`: a float target's sign bit.
    pub const XOR: u8 = 1;
    /// `t ^ s` except that 0 stays 0: targets without -0.
    pub const XOR_NZ: u8 = 2;
    /// `-t` (two's complement): signed integer targets without a lopsided rule.
    pub const NEG: u8 = 3;
    /// 0: unsigned targets (negative values fail or clamp to 0) and float8_e8m0fnu with
    /// clamp (its least code is 0).
    pub const ZERO: u8 = 4;
    /// `-t` wrapped to the target's N bits, `s` = 2^N - 1: uint2/uint4 with wrap.
    pub const NEG_WRAP_U: u8 = 5;
    /// `-t` wrapped to N bits and sign-extended, `s` = 2^N - 1: int2/int4 with wrap, where
    /// plain negation fails at -2^(N-1) (it wraps to itself).
    pub const NEG_WRAP_S: u8 = 6;

    /// The entry of a negative byte under `how`, from its magnitude's entry `t`.
    pub fn apply(how: u8, s: u8, t: u8) -> u8 {
        match how {
            XOR => t ^ s,
            XOR_NZ if t == 0 => 0,
            XOR_NZ => t ^ s,
            NEG => t.wrapping_neg(),
            NEG_WRAP_U => t.wrapping_neg() & s,
            NEG_WRAP_S => {
                let m = (s >> 1) + 1;
                ((t.wrapping_neg() & s) ^ m).wrapping_sub(m)
            }
            _ => 0,
        }
    }

    /// An entry `t` with `apply(how, s, t) == e`, if there is one: what a failing
    /// magnitude's entry (never stored: its lanes go cold) is set to, so that the rule still
    /// serves its negative byte.
    pub fn solve(how: u8, s: u8, e: u8) -> Option<u8> {
        [e.wrapping_neg(), e ^ s, 0].into_iter().find(|&t| apply(how, s, t) == e)
    }
}

/// A [`sym`] rule of a table ([`Lut::sign_rule`]).
#[derive(Clone, Debug)]
pub struct SignRule {
    /// The rule ([`sym`]).
    pub how: u8,
    /// Its byte: the XOR rules' flip, the wrapped negations' target mask.
    pub s: u8,
    /// The negative bytes it does not serve, which must go to the scalar reference.
    pub cold: [bool; 256],
    /// How a negative byte's magnitude is found: its absolute value (int8, two's
    /// complement), or bit 7 cleared (the float8 types).
    pub abs: bool,
    /// int8's -128, whose absolute value is itself: a kernel whose lookup of it gives 0
    /// (`vpshufb` of a negative index) gets `sym::apply(how, s, 0)`, and XORs this in to
    /// make its entry (0 where -128 fails: it is flagged, its entry never stored).
    pub minus128: u8,
    /// Where the rule holds only after adding one to some entries ([`Plus`]): the tables of
    /// the directed rounding modes, whose two signs round apart.
    pub plus: Option<Plus>,
}

/// The one-ulp step between the two signs of a directed rounding table: towards positive, a
/// positive magnitude rounds up where its negative rounds towards zero (and towards negative
/// the other way round), so that the entry of one side is the next code after what the rule
/// derives from the other (float targets' codes and integers alike count up by one). The
/// stored entry of magnitude `m` is then `b(m)`, the side's lanes add `bits` bit `m` to it,
/// and the rule is applied to that on the negative lanes.
#[derive(Clone, Copy, Debug)]
pub struct Plus {
    /// Bit `m & 7` of byte `m >> 3`: magnitude `m` adds one on `negative`'s side.
    pub bits: [u8; 16],
    /// The side that adds: the negative lanes (before the rule), or the positive ones (whose
    /// stored entry is then one less than their own).
    pub negative: bool,
}

impl Plus {
    /// Whether magnitude `m` adds one on its side.
    pub fn has(&self, m: usize) -> bool {
        self.bits.get(m >> 3).is_some_and(|b| b >> (m & 7) & 1 == 1)
    }
}

impl SignRule {
    /// The negative byte whose magnitude is `m` (1..=127 for int8, 0..=127 otherwise; int8's
    /// 0 has no negative byte, and gives 0 itself).
    pub fn negative(abs: bool, m: usize) -> usize {
        if abs {
            m.wrapping_neg() & 0xff
        } else {
            m | 0x80
        }
    }
}

/// For a source whose sign is bit 7 (the float8 types but e8m0fnu; int8, whose magnitudes
/// are absolute values) and a byte target: a [`sym`] rule that gives the table's entry for
/// most negative bytes from their magnitude's entry, and the negative bytes it does not
/// serve (only NaN and -Inf may be among them, e.g. NaN patterns whose canonical result is
/// positive), if there is one. int8's -128 has no magnitude among 0..=127: kernels fix its
/// lane up ([`SignRule::minus128`]). A float target in a mode symmetric about zero
/// (nearest-even, towards zero, nearest-away) has one, unless a scalar_map entry or a range
/// rule breaks the symmetry; an integer target, the negation (wrapped to the target's bits
/// for sub-byte targets with wrap) or zero. A failing negative byte is served
/// (it is flagged; its entry is never stored); a failing magnitude's stored entry is used
/// like any other. Where no rule holds as it is (the directed modes round the two signs
/// apart), one that holds after a one-step add on one side ([`Plus`]).
fn sign_rule(dir: &Direction, lut: &Lut) -> Option<SignRule> {
    let abs = dir.from == crate::DataType::Int8;
    if !((abs || dir.from.is_float() && dir.from.format().sign_mask() == 0x80) && dir.to.size() == 1) {
        return None;
    }
    let neg = |m: usize| SignRule::negative(abs, m);
    let fail = |x: usize| lut.fails.get(x).copied().unwrap_or(true);
    let entry = |x: usize| lut.plane_byte(0, x);
    // int8's 0 has no negative byte: nothing to serve. A failing magnitude whose negative
    // byte does not fail (-128 in int8, where 128 fails) serves it with the entry the rule
    // needs there ([`Lut::new`] stores it).
    let solved = |(how, s): (u8, u8), x: usize| fail(x) && sym::solve(how, s, entry(neg(x))).is_some();
    let serves = |(how, s): (u8, u8), x: usize| {
        abs && x == 0 || fail(neg(x)) || sym::apply(how, s, entry(x)) == entry(neg(x)) || solved((how, s), x)
    };
    // The candidates: the flips of five pairs, each as XOR and XOR_NZ, NEG and ZERO, and for
    // sub-byte integer targets the wrapped negation.
    let flips = (0..5).map(|k| 0x20 + 0x10 * k).map(|x| entry(x) ^ entry(neg(x)));
    // Sub-byte integer targets of float8 sources: negation wrapped to the target's bits
    // (what wrap needs, where plain negation misses -2^(N-1)).
    let bits = dir.to.bits();
    let wrap = (!abs && dir.to.is_integer() && bits < 8).then(|| {
        let how = if dir.to.format().kind == crate::Kind::Signed { sym::NEG_WRAP_S } else { sym::NEG_WRAP_U };
        (how, ((1u16 << bits) - 1) as u8)
    });
    let rules = || {
        flips.clone().flat_map(|s| [(sym::XOR, s), (sym::XOR_NZ, s)]).chain([(sym::NEG, 0), (sym::ZERO, 0)]).chain(wrap)
    };
    // Only negative bytes are looked up through another byte's entry: a pair the rule does
    // not serve makes its negative byte cold (a failing byte is flagged anyway), if that is
    // a special value, not data (NaN, -Inf).
    let special = |x: usize| !abs && !matches!(dir.from.decode_bits(x as u64 | 0x80), crate::Decoded::Finite { .. });
    let plain = rules().find(|&r| (0..0x80).all(|x| serves(r, x) || special(x)));
    // Else a rule that holds where one side adds one (`Plus`): the negative lanes to the
    // rule's argument, or the positive lanes to what the rule is applied to.
    let plus_serves = |(how, s): (u8, u8), negative: bool, x: usize| {
        let t = if negative { entry(x).wrapping_add(1) } else { entry(x).wrapping_sub(1) };
        // (int8's 0 has no negative byte; a failing negative byte is served without a step.)
        let idle = abs && x == 0 || fail(neg(x));
        !idle && sym::apply(how, s, t) == entry(neg(x))
    };
    let ((how, s), side) = match plain {
        Some(r) => (r, None),
        None => [false, true].into_iter().find_map(|negative| {
            let holds = |r| (0..0x80).all(|x| serves(r, x) || plus_serves(r, negative, x) || special(x));
            rules().find(|&r| holds(r)).map(|r| (r, Some(negative)))
        })?,
    };
    let mut cold = [false; 256];
    let mut bits = [0u8; 16];
    for x in 0..0x80 {
        if serves((how, s), x) {
            continue;
        }
        match side {
            Some(negative) if plus_serves((how, s), negative, x) => *bits.get_mut(x >> 3)? |= 1 << (x & 7),
            _ => *cold.get_mut(neg(x))? = true,
        }
    }
    let plus = side.map(|negative| Plus { bits, negative });
    // -128's magnitude is 0, which never adds (int8's 0 is served).
    let minus128 = if abs && !fail(0x80) { entry(0x80) ^ sym::apply(how, s, 0) } else { 0 };
    Some(SignRule { how, s, cold, abs, minus128, plus })
}

fn load_dyn(b: &[u8]) -> u64 {
    match b.len() {
        1 => load::<1>(b),
        2 => load::<2>(b),
        4 => load::<4>(b),
        _ => load::<8>(b),
    }
}

/// [`store`] of `b.len()` bytes (1, 2, 4 or 8): fixed-size stores, not a `memcpy` call.
#[inline(always)]
fn store_dyn(b: &mut [u8], v: u64) {
    match b.len() {
        1 => store::<1>(b, v),
        2 => store::<2>(b, v),
        4 => store::<4>(b, v),
        _ => store::<8>(b, v),
    }
}

/// The table kernel body: one lookup per element, failures OR-ed per chunk.
#[inline(always)]
pub fn drive_lut<const D: usize>(dir: &Direction, lut: &Lut, src: &[u8], dst: &mut [u8]) -> Result<(), ElementError> {
    const CHUNK: usize = 64;
    let mut done = 0;
    for k in 0..src.len().div_ceil(CHUNK) {
        let n = (src.len() - CHUNK * k).min(CHUNK);
        let (Some(sc), Some(dc)) = (src.get(CHUNK * k..CHUNK * k + n), dst.get_mut(CHUNK * D * k..(CHUNK * k + n) * D))
        else {
            break;
        };
        let mut bad = false;
        for (k, &s) in sc.iter().enumerate() {
            let i = s as usize;
            let (v, f) = match (lut.values.get(i), lut.fails.get(i)) {
                (Some(&v), Some(&f)) => (v, f),
                _ => (0, true),
            };
            store::<D>(dc.get_mut(D * k..).unwrap_or(&mut []), v);
            bad |= f;
        }
        if bad {
            cold(dir, sc, dc, done)?;
        }
        done += n;
    }
    Ok(())
}
