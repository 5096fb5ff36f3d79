//! DECISIONS §3 (configuration, fill-value grammar) and §4 (the fill value's round trip),
//! through the JSON parser and through the borrowed no-alloc form.
#![cfg(feature = "json")]

use cast_value_kernels::json::{CodecMetadata, OwnedFillValue};
use cast_value_kernels::{
    fill_value_bits, CastConfig, CastPlan, ConfigError, DataType as T, FillValue, FillValueError, MapDirection,
};

fn codec(configuration: &str) -> String {
    format!(r#"{{"name":"cast_value","configuration":{configuration}}}"#)
}

/// Parse and bind; the error message on failure.
fn build(configuration: &str, array: T, fill: Option<&str>) -> Result<CastPlan, String> {
    let c = CodecMetadata::from_json(&codec(configuration)).map_err(|e| e.to_string())?;
    let fill = fill.map(|f| OwnedFillValue::from_json(f).map_err(|e| e.to_string())).transpose()?;
    c.bind(array, fill.as_ref()).map_err(|e| e.to_string())
}

fn rejects(configuration: &str, array: T, names: &[&str]) {
    match build(configuration, array, None) {
        Ok(_) => panic!("accepted: {configuration}"),
        Err(msg) => {
            for n in names {
                assert!(msg.contains(n), "error for {configuration} should name {n:?}: {msg}");
            }
        }
    }
}

#[test]
fn unknown_keys_are_rejected_at_every_level() {
    rejects(r#"{"data_type":"uint8","foo":1}"#, T::Float64, &["foo"]);
    rejects(r#"{"data_type":"uint8","scalar_map":{"encode":[],"bar":[]}}"#, T::Float64, &["bar"]);
    rejects(r#"{"data_type":{"name":"uint8","configuration":{}}}"#, T::Float64, &["data_type.configuration"]);
    let top = r#"{"name":"cast_value","configuration":{"data_type":"uint8"},"extra":true}"#;
    assert!(CodecMetadata::from_json(top).unwrap_err().to_string().contains("extra"));
    let dup = r#"{"data_type":"uint8","rounding":"towards-zero","rounding":"nearest-even"}"#;
    assert!(build(dup, T::Float64, None).unwrap_err().contains("rounding"));
}

#[test]
fn bad_values_are_rejected_with_the_key_named() {
    rejects(r#"{"data_type":"uint8","rounding":"nearest"}"#, T::Float64, &["rounding", "nearest"]);
    rejects(r#"{"data_type":"uint8","out_of_range":true}"#, T::Float64, &["out_of_range"]);
    rejects(r#"{"data_type":"uint8","out_of_range":"saturate"}"#, T::Float64, &["out_of_range", "saturate"]);
    rejects(r#"{"data_type":"uint7"}"#, T::Float64, &["data_type", "uint7"]);
    rejects(r#"{"rounding":"towards-zero"}"#, T::Float64, &["data_type"]);
    rejects(r#"{"data_type":"float32","out_of_range":"wrap"}"#, T::Float64, &["wrap", "float32"]);
    rejects(r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN"]]}}"#, T::Float64, &["encode[0]"]);
    rejects(r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN",0,1]]}}"#, T::Float64, &["encode[0]"]);
    rejects(r#"{"data_type":"uint8","scalar_map":{"encode":"NaN"}}"#, T::Float64, &["encode"]);
    rejects(r#"{"data_type":"uint8","scalar_map":{"encode":[[true,0]]}}"#, T::Float64, &["encode[0][0]"]);
    assert!(CodecMetadata::from_json("{not json").is_err());
    assert!(CodecMetadata::from_json(r#"{"name":"bytes","configuration":{}}"#).is_err());
}

#[test]
fn invalid_scalar_map_entries_name_the_entry() {
    let cases: &[(&str, T, &str)] = &[
        (r#"{"data_type":"uint8","scalar_map":{"encode":[[0,0],["NaN",0]]}}"#, T::Int8, "encode[1][0]"), // NaN for an int
        (r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN",300]]}}"#, T::Float64, "encode[0][1]"), // 300 for uint8
        (r#"{"data_type":"uint8","scalar_map":{"encode":[[1.5,1]]}}"#, T::Int32, "encode[0][0]"), // 1.5 for an int
        (r#"{"data_type":"uint8","scalar_map":{"encode":[[1.0,1]]}}"#, T::Int32, "encode[0][0]"), // 1.0 is no integer literal
        (r#"{"data_type":"float4_e2m1fn","scalar_map":{"encode":[["Infinity",0]]}}"#, T::Float4E2M1FN, "encode[0][0]"),
        (r#"{"data_type":"float16","scalar_map":{"encode":[["+Infinity",0]]}}"#, T::Float32, "encode[0][0]"),
        (r#"{"data_type":"float6_e2m3fn","scalar_map":{"decode":[["NaN",0]]}}"#, T::Float32, "decode[0][0]"),
        (r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN","0x00"]]}}"#, T::Float64, "encode[0][1]"), // hex for an int
        (r#"{"data_type":"uint8","scalar_map":{"encode":[["1",0]]}}"#, T::Int8, "encode[0][0]"), // string for an int
        (r#"{"data_type":"uint8","scalar_map":{"encode":[["0x7fc0",0]]}}"#, T::Float32, "encode[0][0]"), // 4 digits for float32
        (r#"{"data_type":"float4_e2m1fn","scalar_map":{"encode":[[0,"0x10"]]}}"#, T::Int8, "encode[0][1]"), // high bit set
        (r#"{"data_type":"float8_e8m0fnu","scalar_map":{"encode":[[1,0]]}}"#, T::Int8, "encode[0][1]"), // e8m0 positive only
        (r#"{"data_type":"float8_e8m0fnu","scalar_map":{"encode":[[1,-2.0]]}}"#, T::Int8, "encode[0][1]"),
        (r#"{"data_type":"float16","scalar_map":{"encode":[[1,65520]]}}"#, T::Int32, "encode[0][1]"), // rounds above max
        (r#"{"data_type":"int64","scalar_map":{"encode":[[0,9223372036854775808]]}}"#, T::Int8, "encode[0][1]"),
        (r#"{"data_type":"uint64","scalar_map":{"encode":[[0,-1]]}}"#, T::Int8, "encode[0][1]"),
    ];
    for (cfg, array, path) in cases {
        rejects(cfg, *array, &[path]);
    }
}

#[test]
fn valid_configurations_are_accepted() {
    // The spec's NumPy-compatibility example.
    let numpy = r#"{"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap","scalar_map":{"encode":[["NaN",0],["Infinity",0],["-Infinity",0]]}}"#;
    let plan = build(numpy, T::Float64, None).unwrap();
    let input: Vec<u8> = [f64::NAN, 300.7, -1.5, f64::NEG_INFINITY].iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut out = [0u8; 4];
    plan.encode(&input, &mut out).unwrap();
    assert_eq!(out, [0, 44, 255, 0]);
    // Identity cast with a scalar_map; data_type as an object; empty maps; 64-bit extremes.
    let identity = r#"{"data_type":{"name":"uint16"},"scalar_map":{"encode":[[65535,0]],"decode":[]}}"#;
    let plan = build(identity, T::UInt16, None).unwrap();
    let mut out = [0u8; 4];
    plan.encode(&[0xff, 0xff, 7, 0], &mut out).unwrap();
    assert_eq!(out, [0, 0, 7, 0]);
    build(r#"{"data_type":"int64","scalar_map":{"encode":[[0,-9223372036854775808]]}}"#, T::UInt64, None).unwrap();
    build(
        r#"{"data_type":"uint64","scalar_map":{"encode":[[18446744073709551615,18446744073709551615]]}}"#,
        T::UInt64,
        None,
    )
    .unwrap();
    build(r#"{"data_type":"float16","scalar_map":{"encode":[["NaN","0x7e01"],[1e400,0]]}}"#, T::Float64, None)
        .expect_err("1e400 is outside float64's finite range");
    build(
        r#"{"data_type":"float8_e8m0fnu","scalar_map":{"encode":[["NaN",1.7014118346046923e+38]]}}"#,
        T::Float32,
        None,
    )
    .unwrap();
}

#[test]
fn duplicate_keys_keep_the_first_entry() {
    let cfg = r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN",1],["NaN",2],[-0.0,3],[0.0,4]]}}"#;
    let plan = build(cfg, T::Float32, None).unwrap();
    assert_eq!(plan.encoder().map().entries().len(), 2);
    let input: Vec<u8> = [f32::NAN, 0.0].iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut out = [0u8; 2];
    plan.encode(&input, &mut out).unwrap();
    assert_eq!(out, [1, 3]);
}

#[test]
fn json_round_trips_without_adding_fields() {
    let cases = [
        r#"{"data_type":"uint8"}"#,
        r#"{"data_type":{"name":"int4"},"rounding":"nearest-away"}"#,
        r#"{"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap","scalar_map":{"encode":[["NaN",0],["Infinity",0],["-Infinity",0]]}}"#,
        r#"{"data_type":"float16","scalar_map":{"decode":[["0x7e01",-0.0]],"encode":[[1e-7,"0x0001"]]}}"#,
        r#"{"data_type":"float32","scalar_map":{}}"#,
    ];
    for cfg in cases {
        let c = CodecMetadata::from_json(&codec(cfg)).unwrap();
        let printed = c.to_json();
        let reparsed = CodecMetadata::from_json(&printed).unwrap();
        assert_eq!(c, reparsed);
        let a: serde_json::Value = serde_json::from_str(&codec(cfg)).unwrap();
        let b: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(a, b, "printed {printed}");
    }
}

#[test]
fn fill_value_grammar() {
    use FillValue as F;
    let ok: &[(T, F, u64)] = &[
        (T::Int64, F::Int(i64::MIN as i128), 1 << 63),
        (T::UInt64, F::Int(u64::MAX as i128), u64::MAX),
        (T::UInt64, F::Number("18446744073709551615"), u64::MAX),
        (T::Int4, F::Int(-8), 0x8),
        (T::Float16, F::Number("65519"), 0x7bff),
        (T::Float16, F::Int(-65504), 0xfbff),
        (T::Float16, F::Number("-0.0"), 0x8000),
        (T::Float16, F::Number("-0"), 0x8000),
        (T::Float16, F::Number("1e-9"), 0x0000), // rounds to zero, which is in range
        (T::Float32, F::Number("0.1"), 0x3dcc_cccd),
        (T::Float64, F::Number("0.1"), 0x3fb9_9999_9999_999a),
        (T::Float64, F::Number("4.9406564584124654e-324"), 1),
        (T::Float64, F::Number("2.4703282292062328e-324"), 1), // just above half the min subnormal
        (T::Float64, F::Number("2.4703282292062327e-324"), 0),
        (T::Float64, F::Number("1.7976931348623157e308"), 0x7fef_ffff_ffff_ffff),
        (T::Float32, F::Number("340282356779733661637539395458142568447"), 0x7f7f_ffff), // just below the overflow tie
        (T::Float32, F::Int(i128::MAX), 0x7f00_0000),                                    // 2^127 - 1 rounds to 2^127
        (T::Float8E8M0FNU, F::Number("1.7014118346046923e+38"), 0xfe),
        (T::Float8E8M0FNU, F::Number("5.877471754111438e-39"), 0x00),
        (T::Float8E4M3FNUZ, F::NaN, 0x80),
        (T::Float8E4M3, F::NegInfinity, 0xf8),
        (T::BFloat16, F::Hex("7fc1"), 0x7fc1),
        (T::Float4E2M1FN, F::Hex("0F"), 0x0f),
        (T::Float64, F::Hex("7ff8000000000001"), 0x7ff8_0000_0000_0001),
    ];
    for (t, f, want) in ok {
        assert_eq!(fill_value_bits(*t, f), Ok(*want), "{t} {f}");
    }
    let bad: &[(T, F, FillValueError)] = &[
        (T::UInt8, F::Int(256), FillValueError::IntegerOutOfRange),
        (T::Int8, F::Int(-129), FillValueError::IntegerOutOfRange),
        (T::UInt64, F::Number("18446744073709551616"), FillValueError::IntegerOutOfRange),
        (T::Int32, F::Number("1.5"), FillValueError::NotAnInteger),
        (T::Int32, F::Number("1e2"), FillValueError::NotAnInteger),
        (T::Int32, F::NaN, FillValueError::NanNotSupported),
        (T::Float6E3M2FN, F::NaN, FillValueError::NanNotSupported),
        (T::Float8E4M3FNUZ, F::Infinity, FillValueError::InfinityNotSupported),
        (T::Float16, F::Number("65520"), FillValueError::NumberOutOfRange),
        (T::Float4E2M1FN, F::Number("-7"), FillValueError::NumberOutOfRange),
        (T::Float64, F::Number("1e309"), FillValueError::NumberOutOfRange),
        (T::Float8E8M0FNU, F::Int(0), FillValueError::NotPositive),
        (T::Float8E8M0FNU, F::Number("-1.0"), FillValueError::NotPositive),
        (T::Float8E8M0FNU, F::Number("1e-60"), FillValueError::NumberOutOfRange),
        (T::Float16, F::Number("01"), FillValueError::NumberSyntax),
        (T::Float16, F::Number("1."), FillValueError::NumberSyntax),
        (T::Float16, F::Hex("7e0"), FillValueError::HexDigits { expected: 4 }),
        (T::Float16, F::Hex("7e0g"), FillValueError::HexSyntax),
        (T::Float6E2M3FN, F::Hex("40"), FillValueError::HexHighBits),
        (T::UInt8, F::Hex("00"), FillValueError::HexForInteger),
    ];
    for (t, f, want) in bad {
        assert_eq!(fill_value_bits(*t, f), Err(*want), "{t} {f}");
    }
}

#[test]
fn decimal_numbers_round_once_not_through_f64() {
    // 1 + 2^-11 is a float16 tie (between 0x3c00 and 0x3c01). These decimals lie a hair
    // above and below it, closer than f64 can tell: through f64 both would become the tie
    // and round to even (0x3c00).
    let above = "1.00048828125000000000001";
    let below = "1.00048828124999999999999";
    assert_eq!(fill_value_bits(T::Float16, &FillValue::Number(above)), Ok(0x3c01));
    assert_eq!(fill_value_bits(T::Float16, &FillValue::Number(below)), Ok(0x3c00));
    assert_eq!(fill_value_bits(T::Float16, &FillValue::Number("1.00048828125")), Ok(0x3c00));
    // The same for a bfloat16 tie, 1 + 2^-8, with a digit 900 places down.
    let far = format!("1.00390625{}1", "0".repeat(900));
    assert_eq!(fill_value_bits(T::BFloat16, &FillValue::Number(&far)), Ok(0x3f81));
    assert_eq!(fill_value_bits(T::BFloat16, &FillValue::Number("1.00390625")), Ok(0x3f80));
    // An integer literal beyond i128 parses as a number, exactly.
    let huge = OwnedFillValue::from_json("340282366920938463463374607431768211457").unwrap();
    assert!(matches!(huge, OwnedFillValue::Number(_)));
    assert_eq!(fill_value_bits(T::Float32, &huge.as_fill_value()), Err(FillValueError::NumberOutOfRange));
    assert_eq!(fill_value_bits(T::Float64, &huge.as_fill_value()), Ok(0x47f0_0000_0000_0000));
    let tie = FillValue::Number("340282356779733661637539395458142568448"); // f32 overflow tie
    assert_eq!(fill_value_bits(T::Float32, &tie), Err(FillValueError::NumberOutOfRange));
}

#[test]
fn fill_value_round_trip() {
    // Accepted: NaN through a map both ways; -0.0 comes back as 0 (equal); exact values.
    build(
        r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}"#,
        T::Float64,
        Some(r#""NaN""#),
    )
    .unwrap();
    let p = build(r#"{"data_type":"uint8"}"#, T::Float64, Some("-0.0")).unwrap();
    assert_eq!(p.encoded_fill_value(), Some(0));
    let p = build(r#"{"data_type":"float16"}"#, T::Float32, Some(r#""NaN""#)).unwrap();
    assert_eq!(p.encoded_fill_value(), Some(0x7e00));
    let p = build(r#"{"data_type":"int8","out_of_range":"clamp"}"#, T::Int32, Some("-5")).unwrap();
    assert_eq!((p.fill_value(), p.encoded_fill_value()), (Some(0xffff_fffb), Some(0xfb)));
    // Rejected: the value changes (0.5 -> 0 -> 0.0; 255 -> 127 -> 127), cannot be encoded
    // (NaN to uint8 without a map; 0 to e8m0), or is not a fill value of the array type.
    let e = build(r#"{"data_type":"uint8"}"#, T::Float64, Some("0.5")).unwrap_err();
    assert!(e.contains("fill_value") && e.contains("0.5"), "{e}");
    let e = build(r#"{"data_type":"int8","out_of_range":"clamp"}"#, T::UInt8, Some("255")).unwrap_err();
    assert!(e.contains("fill_value 255"), "{e}");
    let e = build(r#"{"data_type":"uint8"}"#, T::Float64, Some(r#""NaN""#)).unwrap_err();
    assert!(e.contains("fill_value NaN"), "{e}");
    let e = build(r#"{"data_type":"float8_e8m0fnu"}"#, T::Float32, Some("0.0")).unwrap_err();
    assert!(e.contains("fill_value 0"), "{e}");
    let e = build(r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN",0]]}}"#, T::Float64, Some(r#""NaN""#))
        .unwrap_err();
    assert!(e.contains("round trip"), "{e}");
    let e = build(r#"{"data_type":"uint8"}"#, T::Int8, Some("1.0")).unwrap_err();
    assert!(e.contains("fill_value"), "{e}");
}

#[test]
fn borrowed_config_errors_name_the_entry() {
    static MAP: [(FillValue, FillValue); 2] =
        [(FillValue::NaN, FillValue::Int(0)), (FillValue::Infinity, FillValue::Int(256))];
    let cfg = CastConfig::new(T::UInt8).with_scalar_map(&MAP, &[]);
    let err = CastPlan::new(&cfg, T::Float32, None).unwrap_err();
    assert_eq!(
        err,
        ConfigError::ScalarMapEntry {
            direction: MapDirection::Encode,
            index: 1,
            position: 1,
            data_type: T::UInt8,
            error: FillValueError::IntegerOutOfRange
        }
    );
    assert!(err.to_string().contains("scalar_map.encode[1][1]"));
}
