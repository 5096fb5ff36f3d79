//! Exact parsing of JSON number text, for fill values and scalar_map entries.
//!
//! A JSON number is a decimal; the float it denotes is that decimal rounded ONCE onto the
//! type's grid. Parsing through f64 first would round twice (decimal -> f64 -> float16), so
//! the text is turned into a 64-bit truncated significand plus an exact sticky bit with a
//! small fixed-size bignum, and then rounded by the scalar reference like any other value.

/// 32-bit limbs: 4224 bits, enough for 801 significant digits divided by up to 10^1161
/// with 66 bits of quotient (see `parse`).
const LIMBS: usize = 132;
/// Significant digits kept; any further non-zero digit becomes one sticky digit. 800 is more
/// than the ~770 digits of the longest exact binary64 midpoint, so no decision changes.
const MAX_DIGITS: usize = 800;

struct Big {
    limbs: [u32; LIMBS],
    len: usize,
}

impl Big {
    fn new() -> Self {
        Big { limbs: [0; LIMBS], len: 0 }
    }

    fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// `self = self * m + a`. The callers' bounds keep this within LIMBS.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = a as u64;
        for limb in self.limbs.iter_mut().take(self.len) {
            let v = *limb as u64 * m as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            if let Some(slot) = self.limbs.get_mut(self.len) {
                *slot = carry as u32;
                self.len += 1;
            }
        }
    }

    /// `self <<= bits` (bits beyond LIMBS are dropped; the callers' bounds keep them zero).
    fn shl(&mut self, bits: usize) {
        let (words, rem) = (bits / 32, bits % 32);
        let mut out = [0u32; LIMBS];
        for (i, &limb) in self.limbs.iter().enumerate().take(self.len) {
            let wide = (limb as u64) << rem;
            if let Some(o) = out.get_mut(i + words) {
                *o |= wide as u32;
            }
            if let Some(o) = out.get_mut(i + words + 1) {
                *o |= (wide >> 32) as u32;
            }
        }
        self.limbs = out;
        self.len = (self.len + words + 1).min(LIMBS);
        self.trim();
    }

    /// `self /= d`, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.limbs.iter_mut().take(self.len).rev() {
            let cur = (rem << 32) | *limb as u64;
            *limb = (cur / d as u64) as u32;
            rem = cur % d as u64;
        }
        self.trim();
        rem as u32
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    fn bit_len(&self) -> usize {
        match self.len.checked_sub(1).and_then(|top| self.limbs.get(top)) {
            Some(top) => self.len * 32 - top.leading_zeros() as usize,
            None => 0,
        }
    }

    fn bit(&self, i: usize) -> u64 {
        self.limbs.get(i / 32).map_or(0, |l| ((l >> (i % 32)) & 1) as u64)
    }

    /// The top 64 bits, the power of two they are scaled by, and whether any lower bit is set.
    fn top64(&self) -> (u64, i32, bool) {
        let bl = self.bit_len();
        let shift = bl.saturating_sub(64);
        let mut mant = 0u64;
        for i in (shift..bl).rev() {
            mant = (mant << 1) | self.bit(i);
        }
        let sticky = (0..shift).any(|i| self.bit(i) != 0);
        (mant, shift as i32, sticky)
    }
}

/// An exact value, or a stand-in that rounds identically: `(-1)^neg * (mant + s) * 2^exp`,
/// `s` infinitesimal and positive when `sticky`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exact {
    pub neg: bool,
    pub mant: u64,
    pub exp: i32,
    pub sticky: bool,
}

/// The parts of a JSON number's text.
pub(crate) struct NumberParts<'a> {
    pub neg: bool,
    pub int: &'a [u8],
    pub frac: &'a [u8],
    /// The exponent's text after `e`/`E`, sign included.
    pub exp: Option<&'a [u8]>,
}

/// Split off the leading ASCII digits.
fn take_digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
    s.split_at_checked(n).unwrap_or((s, &[]))
}

/// Strict JSON number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn split_json_number(text: &str) -> Option<NumberParts<'_>> {
    let b = text.as_bytes();
    let (neg, rest) = match b.split_first() {
        Some((b'-', r)) => (true, r),
        _ => (false, b),
    };
    let (int, mut rest) = take_digits(rest);
    if int.is_empty() || (int.len() > 1 && int.first() == Some(&b'0')) {
        return None;
    }
    let mut frac: &[u8] = &[];
    if let Some((b'.', r)) = rest.split_first() {
        let (f, r) = take_digits(r);
        if f.is_empty() {
            return None;
        }
        frac = f;
        rest = r;
    }
    let mut exp = None;
    if let Some((b'e' | b'E', r)) = rest.split_first() {
        let unsigned = match r.split_first() {
            Some((b'+' | b'-', u)) => u,
            _ => r,
        };
        let (digits, after) = take_digits(unsigned);
        if digits.is_empty() {
            return None;
        }
        exp = r.get(..r.len() - after.len());
        rest = after;
    }
    if !rest.is_empty() {
        return None;
    }
    Some(NumberParts { neg, int, frac, exp })
}

/// Parse JSON number text exactly. `None` if it is not a JSON number.
pub(crate) fn parse(text: &str) -> Option<Exact> {
    let NumberParts { neg, int, frac, exp: exp_text } = split_json_number(text)?;
    // Decimal exponent, saturated far beyond anything that matters.
    let mut exp10: i64 = 0;
    if let Some(e) = exp_text {
        let (sign, digits) = match e.split_first() {
            Some((b'-', d)) => (-1, d),
            Some((b'+', d)) => (1, d),
            _ => (1, e),
        };
        for &d in digits {
            exp10 = (exp10 * 10 + (d - b'0') as i64).min(1_000_000);
        }
        exp10 *= sign;
    }
    let mut big = Big::new();
    let mut kept = 0usize;
    let mut dropped_nonzero = false;
    let mut scale: i64 = exp10 - frac.len() as i64;
    for &d in int.iter().chain(frac.iter()) {
        let d = d - b'0';
        if kept == 0 && d == 0 {
            continue;
        }
        if kept < MAX_DIGITS {
            big.mul_add(10, d as u32);
            kept += 1;
        } else {
            dropped_nonzero |= d != 0;
            scale += 1;
        }
    }
    if dropped_nonzero {
        // A trailing 1 one digit further down: strictly between the truncation and the next
        // step, far below any rounding boundary.
        big.mul_add(10, 1);
        kept += 1;
        scale -= 1;
    }
    if big.is_zero() {
        return Some(Exact { neg, mant: 0, exp: 0, sticky: false });
    }
    // value lies in [10^(kept-1+scale), 10^(kept+scale)).
    let top = kept as i64 + scale;
    if top > 331 {
        // Above 10^330 > 2^1096: beyond every format's range in every rounding mode.
        return Some(Exact { neg, mant: 1 << 63, exp: 1100, sticky: false });
    }
    if top < -360 {
        // Below 10^-360 < 2^-1195: rounds like any value in (0, 2^-1076) in every mode.
        return Some(Exact { neg, mant: 1 << 63, exp: -1300 - 63, sticky: false });
    }
    if scale >= 0 {
        for _ in 0..scale {
            big.mul_add(10, 0);
        }
        let (mant, exp, sticky) = big.top64();
        return Some(Exact { neg, mant, exp, sticky });
    }
    // value = D / 10^n: compute floor(D * 2^s / 10^n) with at least 66 bits, and whether the
    // division was exact. log2(10) < 3.322.
    let n = (-scale) as usize;
    let need = 66 + n * 3322 / 1000 + 2;
    let s = need.saturating_sub(big.bit_len());
    big.shl(s);
    let mut inexact = false;
    let mut left = n;
    while left > 0 {
        let step = left.min(9);
        inexact |= big.div_small(10u32.pow(step as u32)) != 0;
        left -= step;
    }
    let (mant, shift, sticky) = big.top64();
    Some(Exact { neg, mant, exp: shift - s as i32, sticky: sticky || inexact })
}
