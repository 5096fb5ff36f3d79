//! Property tests for the 32- and 64-bit sources against the independent model, with inputs
//! biased to the edges: ties at every rounding position, one unit either side of them,
//! powers of two (every target bound is one, or one less), subnormals, NaN payloads, both
//! zeros, and huge magnitudes for wrap.

mod model;

use cast_value_kernels::kernels::scalar;
use cast_value_kernels::{DataType, OutOfRange, Rounding, ALL_DATA_TYPES};
use proptest::prelude::*;

/// Low bits forming a tie at a random position, or one unit either side of it.
fn tie_pattern(width: u32) -> impl Strategy<Value = u64> {
    (any::<u64>(), 1..=width, -2i64..=2).prop_map(move |(r, pos, delta)| {
        let pos = pos.min(63);
        let cleared = r & !((1u64 << pos) - 1);
        (cleared | (1u64 << (pos - 1))).wrapping_add(delta as u64)
    })
}

fn int_bits(bits: u32) -> impl Strategy<Value = u64> {
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    prop_oneof![
        any::<u64>(),
        tie_pattern(bits),
        // Around powers of two: every integer bound and every float max is 2^k or 2^k - 1.
        (0..64u32, -3i64..=3, any::<bool>()).prop_map(|(k, d, neg)| {
            let v = (1u64 << k).wrapping_add(d as u64);
            if neg {
                v.wrapping_neg()
            } else {
                v
            }
        }),
        Just(0u64),
    ]
    .prop_map(move |v| v & mask)
}

fn float_bits(exp_bits: u32, man_bits: u32) -> impl Strategy<Value = u64> {
    let all_exp = (1u64 << exp_bits) - 1;
    let bias = (all_exp >> 1) as i64;
    let man_mask = (1u64 << man_bits) - 1;
    let exponent = prop_oneof![
        0..=all_exp,
        // Near the bias: the ranges of every narrower target and of every integer target.
        (-160i64..=160).prop_map(move |d| (bias + d).clamp(0, all_exp as i64) as u64),
        Just(0u64),
        Just(all_exp),
        Just(all_exp - 1),
    ];
    let mantissa = prop_oneof![any::<u64>(), tie_pattern(man_bits), Just(0u64), Just(u64::MAX), Just(1u64),];
    (any::<bool>(), exponent, mantissa)
        .prop_map(move |(s, e, m)| ((s as u64) << (exp_bits + man_bits)) | (e << man_bits) | (m & man_mask))
}

fn check_all_targets(src: DataType, bits: u64) {
    let ms = model::ty(src);
    for dst in ALL_DATA_TYPES {
        let md = model::ty(dst);
        for rounding in Rounding::ALL {
            let mut modes = vec![None, Some(OutOfRange::Clamp)];
            if dst.is_integer() {
                modes.push(Some(OutOfRange::Wrap));
            }
            for oor in modes {
                let got = scalar::convert(src, dst, rounding, oor, bits);
                let want = model::cast(ms, md, rounding, oor, bits);
                assert!(
                    model::agrees(md, &want, &got),
                    "{src}->{dst} {rounding} {oor:?} input {bits:#x}: crate {got:x?}, model {want:?}"
                );
            }
        }
    }
}

proptest! {
    // Under miri (CI's UB check) a handful of cases, without the on-disk failure file.
    #![proptest_config(if cfg!(miri) {
        ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() }
    } else {
        ProptestConfig { cases: 20_000, ..ProptestConfig::default() }
    })]

    #[test]
    fn float32_source(bits in float_bits(8, 23)) { check_all_targets(DataType::Float32, bits) }

    #[test]
    fn float64_source(bits in float_bits(11, 52)) { check_all_targets(DataType::Float64, bits) }

    #[test]
    fn int32_source(bits in int_bits(32)) { check_all_targets(DataType::Int32, bits) }

    #[test]
    fn uint32_source(bits in int_bits(32)) { check_all_targets(DataType::UInt32, bits) }

    #[test]
    fn int64_source(bits in int_bits(64)) { check_all_targets(DataType::Int64, bits) }

    #[test]
    fn uint64_source(bits in int_bits(64)) { check_all_targets(DataType::UInt64, bits) }
}
