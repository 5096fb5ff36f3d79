//! Nothing lost: every cast the spec calls exact (every widening, every identity cast, every
//! value representable in the target) round-trips bit for bit through encode then decode,
//! in every rounding mode and out_of_range setting, on every kernel tier. "Representable" is
//! decided by the independent model: the target holds the source's value, zero sign included.
//! A NaN comes back as the source's canonical NaN (DECISIONS §2: payloads are not kept).

mod model;

use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastPlan, DataType, OutOfRange, Rounding, ALL_DATA_TYPES};
use proptest::prelude::*;

/// Under miri, 16 spread patterns per source.
fn step(bits: u32) -> usize {
    if cfg!(miri) {
        ((1usize << bits) / 16).max(1)
    } else {
        1
    }
}

fn to_bytes(t: DataType, bits: &[u64]) -> Vec<u8> {
    let mut v = vec![0u8; bits.len() * t.size()];
    for (&b, c) in bits.iter().zip(v.chunks_exact_mut(t.size())) {
        scalar::write_bits(t.format(), b, c);
    }
    v
}

fn from_bytes(t: DataType, bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(t.size()).map(|c| scalar::read_bits(t.format(), c)).collect()
}

/// The patterns of `src` whose value `dst` holds exactly.
fn exact_patterns(src: DataType, dst: DataType, candidates: impl Iterator<Item = u64>) -> Vec<u64> {
    let (ms, md) = (model::ty(src), model::ty(dst));
    candidates
        .filter(|&b| {
            let v = model::decode(ms, b);
            Rounding::ALL.iter().all(|&r| model::cast(ms, md, r, None, b) == Ok(v))
        })
        .collect()
}

fn check_round_trip(src: DataType, dst: DataType, bits: &[u64]) {
    if bits.is_empty() {
        return;
    }
    let input = to_bytes(src, bits);
    let canonical_nan = src.format().canonical_nan();
    let want: Vec<u64> = bits
        .iter()
        .map(|&b| if model::decode(model::ty(src), b) == model::Val::NaN { canonical_nan } else { b })
        .collect();
    // Under miri (CI's UB check) one mode, for time.
    let modes = if cfg!(miri) { &Rounding::ALL[..1] } else { &Rounding::ALL[..] };
    for &rounding in modes {
        let mut oors = vec![None, Some(OutOfRange::Clamp)];
        if dst.is_integer() {
            oors.push(Some(OutOfRange::Wrap));
        }
        for oor in oors {
            let config = CastConfig::new(dst).with_rounding(rounding).with_out_of_range(oor);
            let plan = CastPlan::new(&config, src, None).unwrap();
            for &tier in Tier::available() {
                let plan = plan.clone().with_tier(tier).unwrap();
                let mut encoded = vec![0u8; bits.len() * dst.size()];
                plan.encode(&input, &mut encoded).unwrap_or_else(|e| panic!("{src}->{dst} {tier}: {e}"));
                let mut decoded = vec![0u8; input.len()];
                plan.decode(&encoded, &mut decoded).unwrap_or_else(|e| panic!("{dst}->{src} {tier}: {e}"));
                let back = from_bytes(src, &decoded);
                for (i, (&w, &g)) in want.iter().zip(&back).enumerate() {
                    assert_eq!(g, w, "{src}->{dst}->{src} {rounding} {oor:?} {tier}: element {i} ({:#x})", bits[i]);
                }
            }
        }
    }
}

#[test]
fn every_exact_cast_from_sources_of_16_bits_or_less_round_trips() {
    let mut pairs_with_exact = 0;
    let mut widening = 0;
    for src in ALL_DATA_TYPES.into_iter().filter(|t| t.bits() <= 16) {
        let all: Vec<u64> = (0..1u64 << src.bits()).step_by(step(src.bits())).collect();
        for dst in ALL_DATA_TYPES {
            let exact = exact_patterns(src, dst, all.iter().copied());
            // A widening or identity keeps every value (NaN as NaN, -0 as -0).
            if exact.len() == all.len() {
                widening += 1;
            }
            if !exact.is_empty() {
                pairs_with_exact += 1;
            }
            check_round_trip(src, dst, &exact);
        }
    }
    // Sanity: the filter is not vacuous (every identity at least is a widening).
    assert!(widening >= 20, "{widening}");
    assert!(pairs_with_exact > if cfg!(miri) { 100 } else { 400 }, "{pairs_with_exact}");
}

#[test]
fn identity_casts_keep_every_pattern() {
    for t in ALL_DATA_TYPES.into_iter().filter(|t| t.bits() <= 16) {
        let all: Vec<u64> = (0..1u64 << t.bits()).step_by(step(t.bits())).collect();
        let exact = exact_patterns(t, t, all.iter().copied());
        assert_eq!(exact.len(), all.len(), "{t}: an identity cast keeps every value");
    }
}

fn wide_source() -> impl Strategy<Value = (usize, Vec<u64>)> {
    let wide: Vec<usize> = (0..26).filter(|&i| ALL_DATA_TYPES[i].bits() >= 32).collect();
    (proptest::sample::select(wide), proptest::collection::vec(any::<u64>(), 1..64))
}

proptest! {
    #![proptest_config(if cfg!(miri) {
        ProptestConfig { cases: 2, failure_persistence: None, ..ProptestConfig::default() }
    } else {
        ProptestConfig { cases: 400, ..ProptestConfig::default() }
    })]

    /// 32/64-bit sources: random patterns and patterns shortened to fit narrower targets.
    #[test]
    fn exact_casts_from_wide_sources_round_trip((i, raw) in wide_source(), shift in 0u32..60) {
        let src = ALL_DATA_TYPES[i];
        let mask = src.format().mask();
        for dst in ALL_DATA_TYPES {
            // Clearing low bits (low mantissa bits for floats, small magnitudes for ints)
            // makes many values exact in narrower targets.
            let cands = raw.iter().flat_map(|&b| [b & mask, (b & mask) >> shift, (b & mask) & !((1u64 << shift) - 1)]);
            let exact = exact_patterns(src, dst, cands);
            check_round_trip(src, dst, &exact);
        }
    }
}
