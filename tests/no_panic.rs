//! No panics reachable from the public API: every public entry point fed lengths that do not
//! match, odd byte counts, unaligned and empty buffers, extreme arguments and the largest
//! scalar maps. Each call must return an error value or a defined result.

use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{
    fill_value_bits, CastConfig, CastError, CastPlan, DataType, Decoded, FillValue, OutOfRange, Rounding,
    ALL_DATA_TYPES,
};

#[test]
fn buffer_entry_points_with_every_length_and_offset() {
    let backing = [0x3cu8; 64];
    let mut out_backing = vec![0u8; 256];
    for src in ALL_DATA_TYPES {
        for dst in ALL_DATA_TYPES {
            let plan =
                CastPlan::new(&CastConfig::new(dst).with_out_of_range(Some(OutOfRange::Clamp)), src, None).unwrap();
            for &tier in Tier::available() {
                let plan = plan.clone().with_tier(tier).unwrap();
                for in_len in 0..=17 {
                    for off in [0, 1, 3, 7] {
                        let input = &backing[off..off + in_len];
                        for out_len in [0, 1, 2, 8, 16, in_len / src.size() * dst.size()] {
                            let out = &mut out_backing[off..off + out_len];
                            let whole = in_len % src.size() == 0;
                            let fits = out_len == in_len / src.size() * dst.size();
                            match plan.encode(input, out) {
                                Ok(()) => assert!(whole && fits),
                                Err(CastError::InputLength { .. }) => assert!(!whole),
                                Err(CastError::OutputLength { .. }) => assert!(whole && !fits),
                                Err(e) => panic!("{src}->{dst}: unexpected {e:?}"),
                            }
                            // decode swaps the roles; any outcome is fine as long as it returns.
                            let _ = plan.decode(input, out);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn typed_entry_points_reject_wrong_element_sizes() {
    let plan = CastPlan::new(&CastConfig::new(DataType::Float16), DataType::Float32, None).unwrap();
    assert!(matches!(plan.encode_slice(&[0u8; 4], &mut [0u16; 4]), Err(CastError::ElementSize { .. })));
    assert!(matches!(plan.encode_slice(&[0f32; 4], &mut [0u32; 4]), Err(CastError::ElementSize { .. })));
    assert!(matches!(plan.decode_slice(&[0u16; 4], &mut [0f64; 4]), Err(CastError::ElementSize { .. })));
    assert!(matches!(plan.encode_slice(&[0f32; 4], &mut [0u16; 3]), Err(CastError::OutputLength { .. })));
    assert!(plan.encode_slice::<f32, u16>(&[], &mut []).is_ok());
    assert!(matches!(plan.encode_slice(&[(); 4], &mut [0u16; 4]), Err(CastError::ElementSize { .. })));
}

#[test]
fn kernel_level_entry_points_tolerate_mismatched_slices() {
    let plan = CastPlan::new(&CastConfig::new(DataType::Int8), DataType::Float64, None).unwrap();
    // The raw kernel casts as many whole elements as both sides hold.
    let src = 3.0f64.to_ne_bytes();
    let mut dst = [0u8; 3];
    assert!(scalar::cast(plan.encoder(), &src, &mut dst).is_ok());
    assert_eq!(dst, [3, 0, 0]);
    assert!(scalar::cast(plan.encoder(), &src[..5], &mut dst).is_ok());
    for len in 0..10 {
        let bytes = vec![0xffu8; len];
        let _ = scalar::read_bits(DataType::Float32.format(), &bytes);
        let mut out = vec![0u8; len];
        scalar::write_bits(DataType::Float64.format(), u64::MAX, &mut out);
    }
    assert_eq!(scalar::read_bits(DataType::UInt16.format(), &[1, 2, 3]), 0, "a wrong width reads as 0");
}

#[test]
fn extreme_values_through_the_rounding_core() {
    let exps = [i32::MIN, -100_000, -4001, -1100, -64, 0, 63, 64, 1100, 100_000, i32::MAX];
    let mants = [0, 1, 3, 1 << 52, u64::MAX >> 1, u64::MAX];
    for dst in ALL_DATA_TYPES {
        for r in Rounding::ALL {
            for oor in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                for &e in &exps {
                    for &m in &mants {
                        for (neg, sticky) in [(false, false), (true, false), (false, true), (true, true)] {
                            let _ = scalar::round_finite(dst.format(), neg, m, e, sticky, r, oor);
                        }
                    }
                }
            }
        }
        for bits in [0, 1, u64::MAX, u64::MAX >> 1, 1 << 63] {
            let _ = dst.decode_bits(bits);
            let _ = scalar::canonical_key(dst, bits);
            for src in ALL_DATA_TYPES {
                let _ = scalar::convert(src, dst, Rounding::NearestAway, Some(OutOfRange::Wrap), bits);
            }
        }
    }
    // Wrap is exact even for exponents far beyond any format.
    assert_eq!(
        scalar::round_finite(
            DataType::UInt8.format(),
            false,
            5,
            i32::MAX,
            false,
            Rounding::NearestEven,
            Some(OutOfRange::Wrap)
        ),
        Ok(0)
    );
    assert!(matches!(DataType::Float64.decode_bits(0), Decoded::Finite { mant: 0, .. }));
}

#[test]
fn hostile_fill_value_text() {
    let long = if cfg!(miri) { 2_000 } else { 20_000 }; // miri: CI's UB check, for time
    let long_digits = "9".repeat(long);
    let long_fraction = format!("0.{}1", "0".repeat(long));
    let texts = [
        "",
        "-",
        "+1",
        "0x",
        "1e",
        "1e+",
        "1.",
        ".5",
        "00",
        "-01",
        "1e999999999999999999",
        "-1e-999999999999999999",
        "١٢",
        "NaN",
        "∞",
        &long_digits,
        &long_fraction,
        "1E5",
        "1e-400",
        "4.9406564584124654e-324",
    ];
    for t in ALL_DATA_TYPES {
        for text in texts {
            let _ = fill_value_bits(t, &FillValue::Number(text));
            let _ = fill_value_bits(t, &FillValue::Hex(text));
        }
        for v in [i128::MIN, i128::MAX, -1, 0, u64::MAX as i128 + 1] {
            let _ = fill_value_bits(t, &FillValue::Int(v));
        }
    }
    assert!(fill_value_bits(DataType::Float64, &FillValue::Number(&long_digits)).is_err());
    assert_eq!(fill_value_bits(DataType::Float64, &FillValue::Number(&long_fraction)), Ok(0));
    assert!(fill_value_bits(DataType::Float16, &FillValue::Hex("ﬀﬀ")).is_err());
}

#[cfg(feature = "json")]
#[test]
fn hostile_json() {
    use cast_value_kernels::json::{CodecMetadata, OwnedFillValue};
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let docs = [
        deep.as_str(),
        "\u{0}",
        "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\",\"scalar_map\":{\"encode\":[[\"\\ud800\",0]]}}}",
        "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"\\u0000\"}}",
        "null",
        "1",
    ];
    for d in docs {
        assert!(CodecMetadata::from_json(d).is_err(), "{d:.40}");
        assert!(CodecMetadata::from_configuration_json(d).is_err());
        let _ = OwnedFillValue::from_json(d);
    }
}

#[cfg(feature = "alloc")]
#[test]
fn the_largest_scalar_maps() {
    // Every uint16 value mapped (65536 entries, plus a duplicate of each): built in
    // O(n log n), looked up by binary search, first occurrence kept.
    let n: i128 = if cfg!(miri) { 256 } else { 65536 };
    let entries: Vec<(FillValue, FillValue)> = (0..n)
        .chain(0..n)
        .enumerate()
        .map(|(i, k)| (FillValue::Int(k), FillValue::Int(if (i as i128) < n { k % 256 } else { 7 })))
        .collect();
    let cfg = CastConfig::new(DataType::UInt8).with_scalar_map(&entries, &entries[..0]);
    let plan = CastPlan::new(&cfg, DataType::UInt16, None).unwrap();
    assert_eq!(plan.encoder().map().entries().len(), n as usize);
    let input: Vec<u16> = (0..n as u16).collect();
    let mut out = vec![0u8; input.len()];
    plan.encode_slice(&input, &mut out).unwrap();
    assert!(out.iter().zip(&input).all(|(&o, &i)| o as u16 == i % 256));
}
