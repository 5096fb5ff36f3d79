//! DECISIONS §1-2 and §5, one named test per ruling and per listed consequence. Expected
//! values are worked out by hand from the rulings, not taken from the crate's output.

use cast_value_kernels::{CastConfig, CastError, CastPlan, DataType as T, FillValue, OutOfRange, Reason, Rounding};

/// 2^k exactly, built from bits (`powi` is not exact everywhere, e.g. under miri).
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

const F16_MAX: u64 = 0x7bff; // 65504
const F32_INF: u64 = 0x7f80_0000;

fn cast_cfg(src: T, config: &CastConfig<'_>, bits: u64) -> Result<u64, CastError> {
    let plan = CastPlan::new(config, src, None).expect("valid configuration");
    let input = bits.to_ne_bytes();
    let input = if cfg!(target_endian = "little") { &input[..src.size()] } else { &input[8 - src.size()..] };
    let mut out = [0u8; 8];
    let n = plan.data_type().size();
    plan.encode(input, &mut out[..n])?;
    let mut full = [0u8; 8];
    if cfg!(target_endian = "little") {
        full[..n].copy_from_slice(&out[..n]);
    } else {
        full[8 - n..].copy_from_slice(&out[..n]);
    }
    Ok(u64::from_ne_bytes(full))
}

fn cast(src: T, dst: T, r: Rounding, oor: Option<OutOfRange>, bits: u64) -> Result<u64, CastError> {
    cast_cfg(src, &CastConfig::new(dst).with_rounding(r).with_out_of_range(oor), bits)
}

fn reason(r: Result<u64, CastError>) -> Reason {
    match r {
        Err(CastError::Element(e)) => e.reason,
        other => panic!("expected an element error, got {other:?}"),
    }
}

use OutOfRange::{Clamp, Wrap};
use Rounding::*;

#[test]
fn f64_65519_to_float16_nearest_even_is_65504() {
    assert_eq!(cast(T::Float64, T::Float16, NearestEven, None, 65519f64.to_bits()).unwrap(), F16_MAX);
}

#[test]
fn f64_65520_to_float16_is_out_of_range() {
    assert!(matches!(
        reason(cast(T::Float64, T::Float16, NearestEven, None, 65520f64.to_bits())),
        Reason::OutOfRange { above: true, .. }
    ));
    // With clamp the float16 target has Inf, so the result is +Inf.
    assert_eq!(cast(T::Float64, T::Float16, NearestEven, Some(Clamp), 65520f64.to_bits()).unwrap(), 0x7c00);
}

#[test]
fn f64_1e300_to_float32_towards_zero_is_out_of_range_not_max() {
    let x = 1e300f64.to_bits();
    assert!(matches!(
        reason(cast(T::Float64, T::Float32, TowardsZero, None, x)),
        Reason::OutOfRange { above: true, .. }
    ));
    assert_eq!(cast(T::Float64, T::Float32, TowardsZero, Some(Clamp), x).unwrap(), F32_INF);
}

#[test]
fn f64_128_to_int8_errors_clamps_and_wraps() {
    let x = 128f64.to_bits();
    assert!(matches!(reason(cast(T::Float64, T::Int8, NearestEven, None, x)), Reason::OutOfRange { above: true, .. }));
    assert_eq!(cast(T::Float64, T::Int8, NearestEven, Some(Clamp), x).unwrap(), 127);
    assert_eq!(cast(T::Float64, T::Int8, NearestEven, Some(Wrap), x).unwrap(), 0x80);
    // -128
}

#[test]
fn infinity_to_uint8_with_clamp_errors() {
    for bits in [f64::INFINITY.to_bits(), f64::NEG_INFINITY.to_bits()] {
        for oor in [None, Some(Clamp), Some(Wrap)] {
            assert!(matches!(
                reason(cast(T::Float64, T::UInt8, NearestEven, oor, bits)),
                Reason::InfinityNotRepresentable { .. }
            ));
        }
    }
}

#[test]
fn u64_max_to_float64_rounds_once() {
    // towards-zero: the largest double below 2^64, 2^64 - 2^11.
    assert_eq!(cast(T::UInt64, T::Float64, TowardsZero, None, u64::MAX).unwrap(), 18446744073709549568f64.to_bits());
    // nearest-even: 2^64 exactly (0x43f0000000000000).
    assert_eq!(cast(T::UInt64, T::Float64, NearestEven, None, u64::MAX).unwrap(), 0x43f0_0000_0000_0000);
}

#[test]
fn i64_2p53_plus_1_to_float64_towards_positive_is_2p53_plus_2() {
    let x = (1i64 << 53) + 1;
    assert_eq!(cast(T::Int64, T::Float64, TowardsPositive, None, x as u64).unwrap(), 9007199254740994f64.to_bits());
    assert_eq!(cast(T::Int64, T::Float64, TowardsNegative, None, x as u64).unwrap(), 9007199254740992f64.to_bits());
}

#[test]
fn minus_0_4_to_uint8_nearest_even_is_zero() {
    assert_eq!(cast(T::Float64, T::UInt8, NearestEven, None, (-0.4f64).to_bits()).unwrap(), 0);
    // Towards negative it is -1: below the range.
    assert!(matches!(
        reason(cast(T::Float64, T::UInt8, TowardsNegative, None, (-0.4f64).to_bits())),
        Reason::OutOfRange { above: false, .. }
    ));
}

#[test]
fn e8m0_nonpositive_and_tiny_values_are_below_range() {
    for x in [0.0f64, -0.0, -1.0, pow2(-129)] {
        assert!(
            matches!(
                reason(cast(T::Float64, T::Float8E8M0FNU, NearestEven, None, x.to_bits())),
                Reason::OutOfRange { above: false, .. }
            ),
            "{x}"
        );
        // clamp: 2^-127, the pattern 0x00.
        assert_eq!(cast(T::Float64, T::Float8E8M0FNU, NearestEven, Some(Clamp), x.to_bits()).unwrap(), 0x00);
    }
    // 1.6 * 2^-128 rounds (nearest) to 2^-127: in range.
    assert_eq!(cast(T::Float64, T::Float8E8M0FNU, NearestEven, None, (1.6 * pow2(-128)).to_bits()).unwrap(), 0);
    // Above: 2^128 clamps to 2^127 = 0xfe.
    assert_eq!(cast(T::Float64, T::Float8E8M0FNU, NearestEven, Some(Clamp), pow2(128).to_bits()).unwrap(), 0xfe);
}

#[test]
fn e8m0_nearest_ties_round_up_in_both_nearest_modes() {
    for k in [-20i32, 0, 5, 100] {
        let x = 1.5 * pow2(k);
        let want = (k + 1 + 127) as u64;
        for r in [NearestEven, NearestAway] {
            assert_eq!(cast(T::Float64, T::Float8E8M0FNU, r, None, x.to_bits()).unwrap(), want, "{x} {r}");
        }
        assert_eq!(cast(T::Float64, T::Float8E8M0FNU, TowardsZero, None, x.to_bits()).unwrap(), want - 1);
    }
}

#[test]
fn wrap_is_exact_for_any_magnitude() {
    assert_eq!(cast(T::Float64, T::UInt8, NearestEven, Some(Wrap), 1e300f64.to_bits()).unwrap(), 0);
    // 7 * 2^55 + 5 * 2^8 spans 50 bits, so it is a double; modulo 2^16 it is 1280.
    let x = 7.0 * pow2(55) + 1280.0;
    assert_eq!(x as u64 % 65536, 1280);
    assert_eq!(cast(T::Float64, T::UInt16, NearestEven, Some(Wrap), x.to_bits()).unwrap(), 1280);
    assert_eq!(cast(T::Float64, T::Int4, NearestEven, Some(Wrap), (-9.0f64).to_bits()).unwrap(), 7);
}

#[test]
fn spec_int16_wrap_examples() {
    for (input, want) in [(32768i64, -32768i16), (32769, -32767), (-32769, 32767)] {
        assert_eq!(cast(T::Int64, T::Int16, NearestEven, Some(Wrap), input as u64).unwrap(), want as u16 as u64);
    }
}

#[test]
fn nan_becomes_the_canonical_nan_or_errors() {
    let payload_nan = 0xfff0_0000_0000_1234u64; // negative, odd payload
    let cases = [(T::Float16, 0x7e00), (T::Float8E4M3FNUZ, 0x80), (T::Float8E8M0FNU, 0xff), (T::Float8E4M3, 0x7c)];
    for (dst, want) in cases {
        assert_eq!(cast(T::Float64, dst, NearestEven, None, payload_nan).unwrap(), want, "{dst}");
    }
    // No NaN in the target: an error, clamp does not rescue it.
    for dst in [T::Int8, T::Float4E2M1FN, T::Float6E3M2FN] {
        assert_eq!(reason(cast(T::Float64, dst, NearestEven, Some(Clamp), payload_nan)), Reason::NanNotRepresentable);
    }
}

#[test]
fn infinity_keeps_its_sign_or_errors() {
    assert_eq!(cast(T::Float64, T::Float16, NearestEven, None, f64::NEG_INFINITY.to_bits()).unwrap(), 0xfc00);
    // fnuz types have NaN but no Inf: Inf is an error, not NaN, not max.
    assert_eq!(
        reason(cast(T::Float64, T::Float8E5M2FNUZ, NearestEven, Some(Clamp), f64::INFINITY.to_bits())),
        Reason::InfinityNotRepresentable { negative: false }
    );
}

#[test]
fn clamp_targets_max_or_infinity() {
    let big = 1e10f64.to_bits();
    let nbig = (-1e10f64).to_bits();
    assert_eq!(cast(T::Float64, T::Float8E4M3, NearestEven, Some(Clamp), big).unwrap(), 0x78); // +Inf
    assert_eq!(cast(T::Float64, T::Float8E4M3FNUZ, NearestEven, Some(Clamp), big).unwrap(), 0x7f); // 240
    assert_eq!(cast(T::Float64, T::Float8E4M3FNUZ, NearestEven, Some(Clamp), nbig).unwrap(), 0xff); // -240
    assert_eq!(cast(T::Float64, T::Float4E2M1FN, NearestEven, Some(Clamp), nbig).unwrap(), 0xf); // -6
    assert_eq!(cast(T::Float64, T::Int2, NearestEven, Some(Clamp), nbig).unwrap() as u8, 0xfe);
    // -2, sign-extended
}

#[test]
fn zero_keeps_its_sign_where_the_target_has_minus_zero() {
    let neg_tiny = (-1e-30f64).to_bits();
    assert_eq!(cast(T::Float64, T::Float16, NearestEven, None, (-0.0f64).to_bits()).unwrap(), 0x8000);
    assert_eq!(cast(T::Float64, T::Float16, NearestEven, None, neg_tiny).unwrap(), 0x8000);
    assert_eq!(cast(T::Float64, T::Float8E4M3FNUZ, NearestEven, None, neg_tiny).unwrap(), 0x00);
    assert_eq!(cast(T::Float64, T::Float8E5M2FNUZ, NearestEven, None, (-0.0f64).to_bits()).unwrap(), 0x00);
    assert_eq!(cast(T::Float64, T::Int32, NearestEven, None, (-0.0f64).to_bits()).unwrap(), 0);
}

#[test]
fn fnuz_0x80_is_nan_not_minus_zero() {
    assert_eq!(cast(T::Float8E4M3FNUZ, T::Float32, NearestEven, None, 0x80).unwrap(), 0x7fc0_0000);
    assert_eq!(reason(cast(T::Float8E5M2FNUZ, T::Int8, NearestEven, None, 0x80)), Reason::NanNotRepresentable);
}

#[test]
fn float8_e4m3_is_the_ieee_like_format_with_max_240() {
    assert_eq!(cast(T::Float8E4M3, T::Float32, NearestEven, None, 0x77).unwrap(), 240f32.to_bits() as u64);
    assert_eq!(cast(T::Float8E4M3, T::Float32, NearestEven, None, 0x78).unwrap(), F32_INF);
    assert!(matches!(
        reason(cast(T::Float32, T::Float8E4M3, NearestEven, None, 448f32.to_bits() as u64)),
        Reason::OutOfRange { above: true, .. }
    ));
}

#[test]
fn no_double_rounding_through_f32_for_f64_to_f16() {
    // 1 + 2^-11 + 2^-40: just above a float16 tie; through f32 it would become the tie
    // itself (2^-40 is below f32's half ulp) and round down to even.
    let x = 1.0 + pow2(-11) + pow2(-40);
    assert_eq!(cast(T::Float64, T::Float16, NearestEven, None, x.to_bits()).unwrap(), 0x3c01);
}

#[test]
fn sub_byte_reads_ignore_upper_bits_and_writes_normalise_them() {
    // int4 byte 0xf9: low nibble 9 = -7. uint4 byte 0xf9: 9.
    assert_eq!(cast(T::Int4, T::Int8, NearestEven, None, 0xf9).unwrap(), (-7i8) as u8 as u64);
    assert_eq!(cast(T::UInt4, T::Int8, NearestEven, None, 0xf9).unwrap(), 9);
    // A garbage upper nibble on a float4 input is ignored: 0x?3 is 1.5.
    assert_eq!(cast(T::Float4E2M1FN, T::Float32, NearestEven, None, 0xa3).unwrap(), 1.5f32.to_bits() as u64);
    // int2 -1 is written as the full byte 0xff; uint2 3 as 0x03; float4 -6 as 0x0f.
    assert_eq!(cast(T::Int8, T::Int2, NearestEven, None, 0xff).unwrap(), 0xff);
    assert_eq!(cast(T::Int8, T::UInt2, NearestEven, None, 3).unwrap(), 0x03);
    assert_eq!(cast(T::Float32, T::Float4E2M1FN, NearestEven, None, (-6f32).to_bits() as u64).unwrap(), 0x0f);
}

#[test]
fn scalar_map_first_occurrence_wins_and_does_not_chain() {
    static MAP: [(FillValue, FillValue); 3] = [
        (FillValue::Int(1), FillValue::Int(2)),
        (FillValue::Int(1), FillValue::Int(9)), // ignored: key 1 already mapped
        (FillValue::Int(2), FillValue::Int(3)), // not applied to the output of the first entry
    ];
    let cfg = CastConfig::new(T::UInt8).with_scalar_map(&MAP, &[]);
    assert_eq!(cast_cfg(T::UInt8, &cfg, 1).unwrap(), 2);
    assert_eq!(cast_cfg(T::UInt8, &cfg, 2).unwrap(), 3);
    assert_eq!(cast_cfg(T::UInt8, &cfg, 4).unwrap(), 4);
}

#[test]
fn scalar_map_nan_key_matches_every_nan_and_zero_key_both_zeros() {
    static MAP: [(FillValue, FillValue); 2] =
        [(FillValue::NaN, FillValue::Int(7)), (FillValue::Number("-0.0"), FillValue::Int(5))];
    let cfg = CastConfig::new(T::UInt8).with_scalar_map(&MAP, &[]);
    for nan in [0x7ff8_0000_0000_0000u64, 0xfff0_0000_0000_0001, 0x7ff0_0000_dead_beef] {
        assert_eq!(cast_cfg(T::Float64, &cfg, nan).unwrap(), 7);
    }
    assert_eq!(cast_cfg(T::Float64, &cfg, 0).unwrap(), 5);
    assert_eq!(cast_cfg(T::Float64, &cfg, (-0.0f64).to_bits()).unwrap(), 5);
}

#[test]
fn scalar_map_is_checked_before_representability() {
    // Inf has no uint8 encoding, but the map decides first; the output is written verbatim.
    static MAP: [(FillValue, FillValue); 1] = [(FillValue::Infinity, FillValue::Hex("7e01"))];
    let cfg = CastConfig::new(T::Float16).with_scalar_map(&MAP, &[]);
    assert_eq!(cast_cfg(T::Float32, &cfg, f32::INFINITY.to_bits() as u64).unwrap(), 0x7e01);
}

#[test]
fn decode_into_a_float_array_ignores_wrap() {
    let cfg = CastConfig::new(T::Int32).with_out_of_range(Some(Wrap));
    let plan = CastPlan::new(&cfg, T::Float16, None).unwrap();
    let mut out = [0u8; 2];
    let err = plan.decode(&70000i32.to_ne_bytes(), &mut out).unwrap_err();
    assert!(matches!(err, CastError::Element(e) if matches!(e.reason, Reason::OutOfRange { above: true, .. })));
    // Encoding float16 -> int32 with wrap is fine.
    plan.encode(&half::f16::from_f32(3.0).to_bits().to_ne_bytes(), &mut [0u8; 4]).unwrap();
}

#[test]
fn errors_report_first_index_value_types_and_bounds() {
    let cfg = CastConfig::new(T::Int8);
    let plan = CastPlan::new(&cfg, T::Float32, None).unwrap();
    let input: Vec<u8> = [1.0f32, 2.0, 300.0, f32::NAN].iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut out = [0xaau8; 4];
    let err = plan.encode(&input, &mut out).unwrap_err();
    let CastError::Element(e) = err else { panic!("{err:?}") };
    assert_eq!(e.index, 2);
    assert_eq!(e.value, 300f32.to_bits() as u64);
    assert_eq!((e.from, e.to), (T::Float32, T::Int8));
    assert_eq!(e.reason, Reason::OutOfRange { above: true, min: 0x80, max: 0x7f });
    assert_eq!(&out[..2], &[1, 2], "elements before the failure are written");
    let msg = err.to_string();
    for part in ["element 2", "float32", "300", "int8", "-128", "127"] {
        assert!(msg.contains(part), "{msg:?} lacks {part:?}");
    }
}
