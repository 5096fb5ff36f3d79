//! The byte tables of the x86 shuffle kernels (`lut_shuffle`) as `vpshufb` rows, found
//! once when a plan is bound (a [`Lut`] holds them): which rows a table needs, whether it is
//! mostly a sum of two nibble tables, and which bytes go cold; and the 16-bit tables of
//! 8-bit float sources as arithmetic ([`Affine16`], for `affine16`).

use crate::kernels::lanes::{self, sym, Lut, Plus, SignRule};

/// The 256-entry byte table of `lut_shuffle` as 16-byte rows, per half (entries 0-127 and
/// 128-255; with a [`sym`] rule only the first half, looked up by the magnitude): each row
/// that differs from the one before it (the first, from zeros), as its XOR with that row,
/// with the first entry it holds. Most tables have long runs of equal rows (every value past a
/// target's range fails or clamps alike; small magnitudes all round to zero), and a run
/// costs no lookups. An entry that goes cold anyway takes the value above it, so it does
/// not start a row.
#[derive(Clone, Debug)]
pub(crate) struct ShuffleRows {
    /// The [`sym`] rule the rows are for (the table's own, or none).
    pub how: u8,
    /// Whether every row is kept, the row starting at entry 16 k in slot k (more than six
    /// rows per half, no [`NibbleSums`]).
    pub uncompacted: bool,
    /// Per half: (XOR with the previous row, first entry's index within the half).
    pub rows: [[([u8; 16], u8); 8]; 2],
    /// Rows used per half.
    pub len: [usize; 2],
    /// The bytes that go to the reference: failing ones, and the negative bytes the rule
    /// does not serve.
    pub cold: [bool; 256],
    /// The cold bytes as magnitude thresholds, where they are that ([`ColdTest`]).
    pub test: Option<ColdTest>,
    /// How the kernel finds the cold bytes ([`cold_form`]).
    pub cold_form: u8,
    /// Where the table is mostly a sum of a high-nibble and a low-nibble entry: those two
    /// 16-entry tables, and `rows` then holds what remains (see [`NibbleSums`]).
    pub sums: Option<NibbleSums>,
    /// The rule's [`Plus`] where it has one (the rows then hold its stored entries).
    pub plus: Option<Plus>,
    /// Whether the Plus rides in bit 7 of the entries ([`plus_form::BIT7`]).
    pub plus_bit7: bool,
}

/// How a shuffle kernel finds the cold bytes: a value fixed when the plan is bound, so that
/// the kernel is chosen for it and its loop does not branch on it.
pub(crate) mod cold_form {
    /// None is cold.
    pub const NONE: u8 = 0;
    /// One [`ColdTest`](super::ColdTest) threshold for both signs, 0x80 not apart.
    pub const SAME: u8 = 1;
    /// A threshold per sign, and one byte tested for equality (0x80, or one that is cold
    /// anyway).
    pub const SIGNS: u8 = 2;
    /// Any other set: a 256-bit bitmap.
    pub const BITMAP: u8 = 3;
    /// Bit 7 of the entries: set in a cold byte's entry (with a rule, in a magnitude's
    /// entry where either of its bytes is cold), which every other entry has clear (the
    /// target's stored bytes are all below 0x80: uint2/uint4, float4/float6, and tables
    /// such as uint8 -> float8 whose values are all non-negative). One
    /// `vpmovmskb` finds them (the reference rewrites those lanes), where the tests on the
    /// source byte take three to eleven ops.
    pub const FLAG: u8 = 4;
}

/// How a shuffle kernel adds a rule's [`Plus`]: a value fixed when the plan is bound.
pub(crate) mod plus_form {
    use crate::kernels::lanes::sym;

    /// The rule has none.
    pub const NONE: u8 = 0;
    /// A 128-bit bitmap by magnitude, looked up beside the rows (seven ops).
    pub const BITMAP: u8 = 1;
    /// Bit 7 of the magnitude's entry, where the stored entries leave it free (the rows then
    /// carry it, and two ops take it out): positive codes of float targets, and integer
    /// targets whose positive results are below 0x80.
    pub const BIT7: u8 = 2;

    /// About how many vector ops form `form` adds per 32 bytes (the bitmap's lookup and
    /// test, or bit 7's compare and mask; then the side's mask and the add).
    pub fn ops(form: u8) -> usize {
        match form {
            BITMAP => 9,
            BIT7 => 5,
            _ => 0,
        }
    }

    /// Whether a kernel with the bit-7 form is built for the rule `how` and the cold form
    /// `cold` (those the tables with a Plus take; by int8's absolute value, none).
    pub fn bit7_kernel(how: u8, cold: u8, abs: bool) -> bool {
        use super::cold_form::{SAME, SIGNS};
        !abs && matches!(how, sym::XOR | sym::NEG | sym::NEG_WRAP_U) && matches!(cold, SAME | SIGNS)
    }
}

/// The rows of a byte table, per half, as [`ShuffleRows::rows`] and their count.
pub(crate) type Rows = ([[([u8; 16], u8); 8]; 2], [usize; 2]);

/// A byte table `t` written as `high[x >> 4] + low[x & 15] + rest[x]` (wrapping), with
/// `rest` mostly zero: float8 -> float8 tables are sums like that wherever both values are
/// normal (the code is the exponent's part plus the mantissa's, rounding's carry included),
/// and rows that differ by a constant (clamped or underflowed runs) give equal rows of
/// `rest`, which cost nothing. Two lookups and two additions replace five to eight rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NibbleSums {
    /// By the high nibble (bit 7 included).
    pub high: [u8; 16],
    /// By the low nibble.
    pub low: [u8; 16],
}

/// The row slots of the kernel that runs `rows` rows per half, with [`NibbleSums`] or
/// without (never more than [`MAX_SUMS_ROWS`] with them): the kernels are built for these
/// counts only (each slot costs its lookup, used or not), and 8 is the uncompacted layout.
pub(crate) fn slots(rows: usize, sums: bool) -> usize {
    match rows {
        0 if sums => 0,
        0 | 1 => 1,
        2..=4 => rows,
        5 | 6 if !sums => 6,
        _ => 8,
    }
}

/// The most rows a table with [`NibbleSums`] may keep (its kernels' most slots).
pub(crate) const MAX_SUMS_ROWS: usize = 4;

/// The lookups (three ops per row) of `rows` rows with or without [`NibbleSums`] (six ops:
/// the high nibble, two lookups, two additions), as the kernel that runs them rounds up.
fn lookup_ops(rows: usize, sums: bool) -> usize {
    3 * slots(rows, sums) + if sums { 6 } else { 0 }
}

/// [`NibbleSums`] whose low table is row `g` of `entries`: each row's high entry makes its
/// remainder the row above's where it can (free), else zero (one row), else leaves it. With
/// `loose` (the free entries are flagged ones: any value with bit 7 set), a row with no
/// other entries gets one that sets bit 7 in all of its sums with the row above's remainder.
fn nibble_sums(entries: &[u8; 256], free: &[bool; 256], g: usize, halves: usize, loose: bool) -> NibbleSums {
    let at = |i: usize| entries.get(i).copied().unwrap_or(0);
    let low: [u8; 16] = core::array::from_fn(|j| at(16 * g + j));
    let mut high = [0u8; 16];
    for h in 0..halves {
        let mut above = [0u8; 16];
        for r in 8 * h..8 * h + 8 {
            let used = |j: &usize| !free.get(16 * r + j).copied().unwrap_or(true);
            let rest = |j: usize| at(16 * r + j).wrapping_sub(low.get(j).copied().unwrap_or(0));
            let uniform = |f: &dyn Fn(usize) -> u8| {
                let mut values = (0..16).filter(used).map(f);
                let first = values.next()?;
                values.all(|v| v == first).then_some(first)
            };
            // Flagged-free rows: the sums with the remainder carried from above.
            let carried: [u8; 16] = core::array::from_fn(|j| {
                above.get(j).copied().unwrap_or(0).wrapping_add(low.get(j).copied().unwrap_or(0))
            });
            let flags_all = |a: &u8| carried.iter().all(|&v| v.wrapping_add(*a) >= 0x80);
            let flagging = || carried.iter().map(|&v| 0x80u8.wrapping_sub(v)).find(flags_all);
            let a = uniform(&|j| rest(j).wrapping_sub(above.get(j).copied().unwrap_or(0)))
                .or_else(|| uniform(&rest))
                .or_else(|| if loose && (0..16).filter(used).count() == 0 { flagging() } else { None })
                .unwrap_or(0);
            if let Some(slot) = high.get_mut(r) {
                *slot = a;
            }
            for j in (0..16).filter(used) {
                if let Some(v) = above.get_mut(j) {
                    *v = rest(j).wrapping_sub(a);
                }
            }
        }
    }
    NibbleSums { high, low }
}

/// The rows of `entries` less `sums` (if any), per half (the first `halves`): each row that
/// differs from the one above it, as its XOR with that row; a free entry takes the value
/// above it, so that it does not start a row. Uncompacted, all eight rows of each half.
/// With `loose` ([`cold_form::FLAG`]) the free entries are the flagged ones: any value with
/// bit 7 set, so one takes the value above it only where that sum has bit 7 set.
fn residual_rows(
    entries: &[u8; 256],
    free: &[bool; 256],
    sums: Option<&NibbleSums>,
    halves: usize,
    (compact, loose): (bool, bool),
) -> Rows {
    let mut out: Rows = ([[([0; 16], 0); 8]; 2], [0; 2]);
    let at = |i: usize| {
        let e = entries.get(i).copied().unwrap_or(0);
        sums.map_or(e, |s| {
            let (h, l) = (s.high.get(i >> 4), s.low.get(i & 15));
            e.wrapping_sub(h.copied().unwrap_or(0)).wrapping_sub(l.copied().unwrap_or(0))
        })
    };
    for (h, (rows, len)) in out.0.iter_mut().zip(out.1.iter_mut()).enumerate().take(halves) {
        let mut above = [0u8; 16];
        for r in 0..8 {
            let base = 128 * h + 16 * r;
            let mut row = above;
            for (j, v) in row.iter_mut().enumerate() {
                let i = base + j;
                let whole = sums.map_or(*v, |s| {
                    let (h, l) = (s.high.get(i >> 4), s.low.get(i & 15));
                    v.wrapping_add(h.copied().unwrap_or(0)).wrapping_add(l.copied().unwrap_or(0))
                });
                if !free.get(i).copied().unwrap_or(true) || loose && whole < 0x80 {
                    *v = at(i);
                }
            }
            let mut delta = row;
            for (d, a) in delta.iter_mut().zip(above) {
                *d ^= a;
            }
            if delta != [0; 16] || !compact {
                if let Some(slot) = rows.get_mut(*len) {
                    *slot = (delta, 16 * r as u8);
                    *len += 1;
                }
            }
            above = row;
        }
    }
    out
}

/// A set of bytes given by the least cold magnitude (bits 0-6) of each sign, plus 0x80: the
/// form that float8 tables' cold bytes take (NaN and Inf at the top of each sign's
/// magnitudes, with the values out of the target's range below them; fnuz's NaN at 0x80),
/// and integer ones' (unsigned targets: every negative byte). Tested in one compare
/// ([`cold_form::SAME`]) or four ([`cold_form::SIGNS`]) instead of the bitmap's eleven ops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColdTest {
    /// The least cold magnitude of the non-negative and of the negative bytes, less one (as
    /// i8: -1 when all are cold, 127 when none is).
    pub below: [i8; 2],
    /// Whether 0x80 is cold beside the negative threshold.
    pub minus_zero: bool,
    /// The byte the [`cold_form::SIGNS`] test compares for equality: 0x80 where it is cold
    /// beside the thresholds, else one that is cold by them (or, if none is, 0x80: sending a
    /// byte to the reference is never wrong, only slower).
    pub equal: i8,
}

impl ColdTest {
    fn of(cold: &[bool; 256]) -> Option<ColdTest> {
        let is = |i: usize| cold.get(i).copied().unwrap_or(true);
        // Per sign: cold exactly from some magnitude up (the negative side may add 0x80).
        let least = |base: usize, skip_zero: bool| {
            let from = (0..128).rev().take_while(|&m| is(base + m)).last().unwrap_or(128);
            let rest_clean = (0..from).all(|m| !is(base + m) || skip_zero && m == 0);
            rest_clean.then_some(from)
        };
        let pos = least(0, false)?;
        let neg = least(128, true)?;
        let minus_zero = is(0x80) && neg > 0;
        let equal = match (minus_zero, pos < 128, neg < 128) {
            (false, true, _) => 0x7f,
            (false, false, true) => -1,
            _ => -128,
        };
        Some(ColdTest { below: [(pos as i16 - 1) as i8, (neg as i16 - 1) as i8], minus_zero, equal })
    }
}

/// Whether each magnitude's byte is cold exactly where its negative byte is (but 0x80): a
/// rule's flag, set in a magnitude's entry, makes both lanes cold, which would send a whole
/// sign's clean lanes to the reference where only the other sign's are cold (float8 ->
/// uint4 without a rule: every negative value fails).
fn symmetric_cold(cold: &[bool; 256], rule: &SignRule) -> bool {
    let is = |i: usize| cold.get(i).copied().unwrap_or(true);
    (1..0x80).all(|m| is(m) == is(lanes::SignRule::negative(rule.abs, m)))
}

impl ShuffleRows {
    /// The rows of `lut` for its own [`sym`] rule (or none), or for none where that costs
    /// fewer ops (a rule with a [`Plus`] adds its own lookup, with int8's absolute value
    /// three ops more), each flagged ([`cold_form::FLAG`]) where that pays: compacted, less the
    /// [`NibbleSums`] where those save lookups, else uncompacted if more than six rows per
    /// half remain. Run when the plan is bound.
    pub fn of(lut: &Lut) -> ShuffleRows {
        let rule = lut.sign_rule();
        let abs = rule.is_some_and(|r| r.abs);
        let with = Self::for_rule(lut, rule, None);
        // The table without the rule (where it has one).
        let without = rule.map(|_| Self::for_rule(lut, None, None));
        let best = match (rule, &without) {
            (Some(r), Some(without)) => {
                // (A tie goes to the rule, but for a Plus, whose lookup the model undercounts.)
                let (a, b) = (without.ops(abs), with.ops(abs));
                if a < b || a == b && r.plus.is_some() {
                    without.clone()
                } else {
                    with.clone()
                }
            }
            _ => with.clone(),
        };
        // The cold bytes flagged in the entries, where the target leaves bit 7 free, by the
        // rule (where it keeps bit 7 and each sign is cold alike) or by the whole table, if
        // that takes no more lookups (flagged entries are no longer free to take the value
        // above them): a row more measured slower than the bitmap test it saved, the tests
        // alone faster.
        if best.cold_form == cold_form::NONE || !lut.low_bit7_free() {
            return best;
        }
        let by_rule = rule.filter(|r| {
            matches!(r.how, sym::XOR | sym::XOR_NZ)
                && r.plus.is_none()
                && r.s < 0x80
                && !abs
                && symmetric_cold(&best.cold, r)
        });
        // (Rows as found, not as a kernel rounds them up: its unused slots are zero rows,
        // which fold away.)
        let lookups = |t: &ShuffleRows| {
            let halves = if t.how == sym::NONE { 2 } else { 1 };
            halves * 3 * t.most() + if t.sums.is_some() { 6 } else { 0 }
        };
        // Two ways to find the rows: with the flagged entries exact, or free but for bit 7
        // (the nibble sums then ignore them, which can find worse ones).
        // Each flagged form against the same form unflagged: the rule's, or the whole table's.
        let whole = without.as_ref().unwrap_or(&with);
        let flagged = [(by_rule, &with), (None, whole)]
            .into_iter()
            .enumerate()
            .filter(|&(k, (r, _))| k == 1 || r.is_some())
            .flat_map(|(_, (r, plain))| [false, true].map(|loose| (Self::for_rule(lut, r, Some(loose)), plain)));
        let cheaper =
            |(t, plain): &(ShuffleRows, &ShuffleRows)| lookups(t) <= lookups(plain) && t.ops(abs) < best.ops(abs);
        flagged.filter(cheaper).map(|(t, _)| t).min_by_key(|t| t.ops(abs)).unwrap_or(best)
    }

    /// The rows of `lut` for `rule` (or none); with `flag`, in the [`cold_form::FLAG`] form,
    /// the flagged entries exact (`Some(false)`) or free but for bit 7 (`Some(true)`).
    fn for_rule(lut: &Lut, rule: Option<&SignRule>, flag: Option<bool>) -> ShuffleRows {
        let (loose, flag) = (flag == Some(true), flag.is_some());
        let how = rule.map_or(sym::NONE, |r| r.how);
        let plus = rule.and_then(|r| r.plus);
        let cold_bytes: [bool; 256] = core::array::from_fn(|i| {
            let unserved = rule.is_some_and(|r| r.cold.get(i).copied().unwrap_or(true));
            lut.fails().get(i).copied().unwrap_or(true) || unserved
        });
        let cold = |i: usize| cold_bytes.get(i).copied().unwrap_or(true);
        // With a rule, a magnitude's entry serves its negative byte too (but with ZERO).
        let either = |i: usize| match (how, rule) {
            (sym::NONE | sym::ZERO, _) | (_, None) => (cold(i), cold(i)),
            (_, Some(r)) => {
                let n = cold(lanes::SignRule::negative(r.abs, i));
                (cold(i) && n, cold(i) || n)
            }
        };
        // Flagged, every flagged entry is free but for bit 7 (both of its lanes go cold).
        let free: [bool; 256] = core::array::from_fn(|i| if flag { loose && either(i).1 } else { either(i).0 });
        let test = ColdTest::of(&cold_bytes);
        let cold_form = match test {
            _ if !cold_bytes.contains(&true) => cold_form::NONE,
            _ if flag => cold_form::FLAG,
            Some(t) if t.below[0] == t.below[1] && !t.minus_zero => cold_form::SAME,
            Some(_) => cold_form::SIGNS,
            None => cold_form::BITMAP,
        };
        // A positive side's Plus: the stored entry is one less than the magnitude's own.
        let stored = |i: usize| {
            let less = plus.is_some_and(|p| !p.negative && p.has(i));
            lut.plane_byte(0, i).wrapping_sub(less as u8)
        };
        // The Plus in bit 7 of the magnitudes' entries, where every stored one leaves it free
        // (a Plus comes with a rule, never flagged: one half), and where that costs fewer ops
        // than its bitmap (5 against 9): the bits of small magnitudes, which all round to
        // zero or the least code, can start rows of their own.
        let abs = rule.is_some_and(|r| r.abs);
        let entries_with = |bit7: bool| -> [u8; 256] {
            core::array::from_fn(|i| {
                let bit = if flag && either(i).1 || bit7 && plus.is_some_and(|p| p.has(i)) { 0x80 } else { 0 };
                stored(i) | bit
            })
        };
        let halves = if how == sym::NONE { 2 } else { 1 };
        let mut entries = entries_with(false);
        let (mut rows, mut len) = residual_rows(&entries, &free, None, halves, (true, loose));
        let bit7_free = plus.is_some()
            && plus_form::bit7_kernel(how, cold_form, abs)
            && (0..128).all(|i| free.get(i).copied().unwrap_or(true) || stored(i) < 0x80);
        let mut plus_bit7 = false;
        if bit7_free {
            let e7 = entries_with(true);
            let (r7, l7) = residual_rows(&e7, &free, None, halves, (true, loose));
            let cost = |len: usize, form: u8| 3 * slots(len, false) + plus_form::ops(form);
            if cost(l7[0], plus_form::BIT7) < cost(len[0], plus_form::BITMAP) {
                (entries, rows, len, plus_bit7) = (e7, r7, l7, true);
            }
        }
        let mut out = ShuffleRows {
            how,
            uncompacted: false,
            rows,
            len,
            cold: cold_bytes,
            test,
            cold_form,
            sums: None,
            plus,
            plus_bit7,
        };
        // Candidate nibble tables: the low one from each row without free entries (not with
        // a Plus, whose kernels are not built with them).
        let best = (0..8 * halves)
            .filter(|&g| plus.is_none() && (0..16).all(|j| !free.get(16 * g + j).copied().unwrap_or(true)))
            .map(|g| nibble_sums(&entries, &free, g, halves, loose))
            .map(|s| (residual_rows(&entries, &free, Some(&s), halves, (true, loose)), s))
            .min_by_key(|((_, len), _)| len[0].max(len[1]));
        match best {
            // Per half the rows' lookups, once the sums' six ops. A tie goes to the sums where
            // the rows alone need more than four slots (their offsets no longer fit in
            // registers beside them: float8_e4m3fnuz -> int4 towards +Inf x0.9).
            Some(((rows, len), sums))
                if len[0].max(len[1]) <= MAX_SUMS_ROWS && {
                    let (with, without) =
                        (halves * 3 * slots(len[0].max(len[1]), true) + 6, halves * lookup_ops(out.most(), false));
                    with < without || with == without && out.most() > 4
                } =>
            {
                (out.rows, out.len, out.sums) = (rows, len, Some(sums));
            }
            _ if out.most() > 6 => {
                (out.rows, out.len) = residual_rows(&entries, &free, None, halves, (false, loose));
                out.uncompacted = true;
            }
            _ => {}
        }
        if how != sym::NONE {
            out.len[1] = 0;
        }
        out
    }

    /// About how many vector ops the kernel spends per 32 bytes (besides the load and
    /// store): each half's rows, the nibble sums, the rule's own ops (a [`Plus`]'s bitmap
    /// lookup and add among them) or the two halves' index and merge, and the cold test.
    fn ops(&self, abs: bool) -> usize {
        let (halves, rule) = match self.how {
            sym::NONE => (2, 2),
            sym::ZERO => (1, 3),
            sym::XOR | sym::NEG => (1, 4),
            sym::NEG_WRAP_U => (1, 5),
            _ => (1, 6),
        };
        let abs = if abs && self.how != sym::NONE { 3 } else { 0 };
        let cold = match self.cold_form {
            cold_form::NONE => 0,
            cold_form::SAME => 3,
            cold_form::SIGNS => 7,
            cold_form::FLAG => 1,
            _ => 11,
        };
        let extras = if self.sums.is_some() { 6 } else { 0 } + plus_form::ops(self.plus_form());
        halves * lookup_ops(self.most(), false) + rule + abs + cold + extras
    }

    /// How the kernel adds the rule's [`Plus`] ([`plus_form`]).
    pub fn plus_form(&self) -> u8 {
        match (self.plus, self.plus_bit7) {
            (None, _) => plus_form::NONE,
            (Some(_), false) => plus_form::BITMAP,
            (Some(_), true) => plus_form::BIT7,
        }
    }

    /// The larger half's row count.
    pub fn most(&self) -> usize {
        self.len[0].max(self.len[1])
    }

    /// Whether a kernel with `k` row slots runs these rows: enough slots, in the layout the
    /// rows were laid out for (8: uncompacted), and with sums only up to their kernels' most.
    pub fn fits(&self, k: usize) -> bool {
        self.most() <= k && self.uncompacted == (k == 8) && (self.sums.is_none() || k <= MAX_SUMS_ROWS)
    }
}

/// How [`Affine16`] finds its cold bytes: a value fixed when the plan is bound, as
/// [`cold_form`]'s.
pub(crate) mod affine_cold {
    /// None is cold.
    pub const NONE: u8 = 0;
    /// Those whose magnitude is above [`Affine16::top`](super::Affine16::top).
    pub const ABOVE: u8 = 1;
    /// The one byte [`Affine16::equal`](super::Affine16::equal).
    pub const EQUAL: u8 = 2;
}

/// The 16-bit table of an 8-bit float source (float8 -> float16/bfloat16: every value exact)
/// as arithmetic: the magnitude `m` (the byte less its sign bit) shifted left by `shift` plus
/// `offset` (the exponent's rebias), or below `small` (the source's subnormals, whose results
/// are normal) a `vpshufb` table's entry (one 16-byte table for up to 8 of them, two for
/// 16), with the sign bit moved from bit 7 to bit 15. Found from the table itself when the
/// plan is bound, so the reference (scalar_map included) decides every entry: the bytes the
/// form gets wrong or that fail are cold, and there is no form unless they are one byte or
/// lie among the top magnitudes (at most 32 bytes go cold, the NaN codes and their
/// neighbours: float8_e5m2's 0x7e is its canonical NaN already, but is cold beside 0x7d and
/// 0x7f).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Affine16 {
    /// Bit 7 is the sign (else part of the magnitude: float8_e8m0fnu).
    pub signed: bool,
    /// The magnitude's left shift, 0..=8.
    pub shift: u32,
    /// Added to the shifted magnitude (wrapping).
    pub offset: u16,
    /// Magnitudes below this (at most 16: float8_e3m4's subnormals) take `table`'s entry.
    pub small: u8,
    /// Up to 8 small magnitudes: entry m's low byte at m, its high byte at 8 + m. More: the
    /// low bytes at m, and the high bytes in `high` at m ^ 8.
    pub table: [u8; 16],
    /// With more than 8 small magnitudes: entry m's high byte at m ^ 8.
    pub high: [u8; 16],
    /// How the cold bytes are found ([`affine_cold`]).
    pub cold: u8,
    /// With [`affine_cold::ABOVE`]: the largest magnitude that is not cold.
    pub top: u8,
    /// With [`affine_cold::EQUAL`]: the cold byte.
    pub equal: u8,
}

impl Affine16 {
    /// The form of `lut` (a source of 8 bits, `from`, to a 16-bit float, `to`), if it has one.
    pub fn of(lut: &Lut, from: &crate::dtype::Format, to: &crate::dtype::Format) -> Option<Affine16> {
        use crate::dtype::Kind;
        if from.bits != 8 || from.kind != Kind::Float || to.size != 2 || to.kind != Kind::Float {
            return None;
        }
        let signed = from.sign_mask() == 0x80;
        let shift = to.man_bits.checked_sub(from.man_bits).filter(|&s| s <= 8)?;
        let value = |i: usize| lut.values().get(i).map_or(0, |&v| v as u16);
        let fails = |i: usize| lut.fails().get(i).copied().unwrap_or(true);
        let mag = |i: usize| if signed { i & 0x7f } else { i };
        // The rebias from a magnitude mid-range in exponent: normal in both types.
        let mid = (1usize << (from.exp_bits - 1)) << from.man_bits;
        if fails(mid) {
            return None;
        }
        let offset = value(mid).wrapping_sub((mid << shift) as u16);
        let formula = |m: usize| ((m << shift) as u16).wrapping_add(offset);
        let small = (0..16).rev().find(|&m| !fails(m) && formula(m) != value(m)).map_or(0, |m| m + 1);
        // Byte `b` (0 low, 1 high) of entry m, zero past `small`.
        let byte = |m: usize, b: usize| if m < small { value(m).to_le_bytes().get(b).copied().unwrap_or(0) } else { 0 };
        let table: [u8; 16] = core::array::from_fn(|j| if small > 8 { byte(j, 0) } else { byte(j & 7, j >> 3) });
        let high: [u8; 16] = core::array::from_fn(|j| byte(j ^ 8, 1));
        let expected = |i: usize| {
            let m = mag(i);
            let base = if m < small { value(m) } else { formula(m) };
            base | if signed { ((i & 0x80) as u16) << 8 } else { 0 }
        };
        let bad: [bool; 256] = core::array::from_fn(|i| fails(i) || expected(i) != value(i));
        let is_bad = |i: &usize| bad.get(*i).copied().unwrap_or(true);
        let count = (0..256).filter(is_bad).count();
        let first = (0..256).find(is_bad).unwrap_or(0);
        let least = (0..256).filter(is_bad).map(mag).min().unwrap_or(0);
        let (cold, top, equal) = if count == 0 {
            (affine_cold::NONE, 0, 0)
        } else if count == 1 {
            (affine_cold::EQUAL, 0, first as u8)
        } else if signed && least > 0 && (0..256).filter(|&i| mag(i) >= least).count() <= 32 {
            (affine_cold::ABOVE, (least - 1) as u8, 0)
        } else {
            return None;
        };
        Some(Affine16 { signed, shift, offset, small: small as u8, table, high, cold, top, equal })
    }
}
