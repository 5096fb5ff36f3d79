//! The adversarial configuration table: malformed codec entries, each rejected with the
//! right kind of error and a message that names the offending part; beside them, the
//! valid edge cases that must be accepted.
#![cfg(feature = "json")]

use cast_value_kernels::json::{CodecMetadata, OwnedFillValue};
use cast_value_kernels::{ConfigError, DataType as T, FillValueError as FE, MapDirection};

#[derive(Debug, Clone, Copy)]
enum Want {
    /// Malformed metadata at this path.
    Meta(&'static str),
    /// wrap with a float data_type.
    Wrap,
    /// An invalid scalar_map entry: direction, index, position, why.
    Entry(MapDirection, usize, usize, FE),
    /// An invalid fill value of the array type.
    Fill(FE),
    /// The fill value cannot be encoded or decoded.
    FillCast,
    /// The fill value does not survive the round trip.
    FillRoundTrip,
}

use MapDirection::{Decode as D, Encode as E};
use Want::*;

fn cfg(c: &str) -> String {
    format!(r#"{{"name":"cast_value","configuration":{c}}}"#)
}

fn build(codec: &str, array: T, fill: Option<&str>) -> Result<(), ConfigError> {
    let c = CodecMetadata::from_json(codec)?;
    let fill = fill.map(OwnedFillValue::from_json).transpose()?;
    c.bind(array, fill.as_ref()).map(|_| ())
}

/// (codec JSON, array type, fill value, expected error, text the message must contain)
fn table() -> Vec<(String, T, Option<&'static str>, Want, &'static str)> {
    let m = |c: &str, a: T, w: Want, s: &'static str| (cfg(c), a, None, w, s);
    let raw = |c: &str, w: Want, s: &'static str| (c.to_string(), T::Float64, None, w, s);
    let map = |list: &str, dt: &str, a: T, w: Want, s: &'static str| {
        (cfg(&format!(r#"{{"data_type":"{dt}","scalar_map":{list}}}"#)), a, None, w, s)
    };
    let fill = |c: &str, a: T, f: &'static str, w: Want, s: &'static str| (cfg(c), a, Some(f), w, s);
    vec![
        // Unknown keys at every level.
        raw(r#"{"name":"cast_value","configuration":{"data_type":"uint8"},"extra":1}"#, Meta("extra"), "extra"),
        raw(r#"{"Name":"cast_value","configuration":{"data_type":"uint8"}}"#, Meta("Name"), "Name"),
        raw(
            r#"{"name":"cast_value","configuration":{"data_type":"uint8"},"must_understand":false}"#,
            Meta("must_understand"),
            "must_understand",
        ),
        m(r#"{"data_type":"uint8","foo":1}"#, T::Float64, Meta("configuration.foo"), "configuration.foo"),
        m(
            r#"{"data_type":"uint8","roundings":"towards-zero"}"#,
            T::Float64,
            Meta("configuration.roundings"),
            "roundings",
        ),
        m(r#"{"data_type":"uint8","scalar-map":{}}"#, T::Float64, Meta("configuration.scalar-map"), "scalar-map"),
        m(r#"{"data_type":"uint8","scalar_map":{"encoded":[]}}"#, T::Float64, Meta("scalar_map.encoded"), "encoded"),
        m(
            r#"{"data_type":{"name":"uint8","configuration":{}}}"#,
            T::Float64,
            Meta("data_type.configuration"),
            "data_type.configuration",
        ),
        m(r#"{"data_type":{"nam":"uint8"}}"#, T::Float64, Meta("data_type.nam"), "data_type.nam"),
        m(r#"{"data_type":{}}"#, T::Float64, Meta("data_type"), "name"),
        // Missing or wrong required fields.
        raw(r#"{"name":"cast_value"}"#, Meta("configuration"), "configuration"),
        raw(r#"{"configuration":{"data_type":"uint8"}}"#, Meta("name"), "name"),
        raw(r#"{"name":"cast-value","configuration":{"data_type":"uint8"}}"#, Meta("name"), "cast-value"),
        raw(r#"{"name":5,"configuration":{"data_type":"uint8"}}"#, Meta("name"), "name"),
        m(r#"{"rounding":"towards-zero"}"#, T::Float64, Meta("data_type"), "data_type"),
        // Wrong JSON types.
        raw(r#"{"name":"cast_value","configuration":[]}"#, Meta("configuration"), "configuration"),
        raw(r#"{"name":"cast_value","configuration":"uint8"}"#, Meta("configuration"), "configuration"),
        m(r#"{"data_type":8}"#, T::Float64, Meta("data_type"), "data_type"),
        m(r#"{"data_type":null}"#, T::Float64, Meta("data_type"), "data_type"),
        m(r#"{"data_type":["uint8"]}"#, T::Float64, Meta("data_type"), "data_type"),
        m(r#"{"data_type":"uint8","rounding":1}"#, T::Float64, Meta("rounding"), "rounding"),
        m(r#"{"data_type":"uint8","rounding":null}"#, T::Float64, Meta("rounding"), "rounding"),
        m(r#"{"data_type":"uint8","out_of_range":true}"#, T::Float64, Meta("out_of_range"), "out_of_range"),
        m(r#"{"data_type":"uint8","out_of_range":null}"#, T::Float64, Meta("out_of_range"), "out_of_range"),
        map("[]", "uint8", T::Float64, Meta("scalar_map"), "scalar_map"),
        map(r#""NaN""#, "uint8", T::Float64, Meta("scalar_map"), "scalar_map"),
        map(r#"{"encode":{}}"#, "uint8", T::Float64, Meta("scalar_map.encode"), "scalar_map.encode"),
        map(r#"{"encode":"NaN"}"#, "uint8", T::Float64, Meta("scalar_map.encode"), "scalar_map.encode"),
        // Entries that are not [input, output] pairs.
        map(r#"{"encode":[1,2]}"#, "uint8", T::Float64, Meta("encode[0]"), "encode[0]"),
        map(r#"{"encode":[[1]]}"#, "uint8", T::Float64, Meta("encode[0]"), "encode[0]"),
        map(r#"{"encode":[[0,0],[1,2,3]]}"#, "uint8", T::Float64, Meta("encode[1]"), "encode[1]"),
        map(r#"{"encode":[[]]}"#, "uint8", T::Float64, Meta("encode[0]"), "encode[0]"),
        map(r#"{"decode":[{"a":1}]}"#, "uint8", T::Float64, Meta("decode[0]"), "decode[0]"),
        map(r#"{"encode":[[true,0]]}"#, "uint8", T::Float64, Meta("encode[0][0]"), "encode[0][0]"),
        map(r#"{"encode":[[null,0]]}"#, "uint8", T::Float64, Meta("encode[0][0]"), "encode[0][0]"),
        map(r#"{"encode":[[[0],0]]}"#, "uint8", T::Float64, Meta("encode[0][0]"), "encode[0][0]"),
        map(r#"{"encode":[[0,{}]]}"#, "uint8", T::Float64, Meta("encode[0][1]"), "encode[0][1]"),
        // Bad strings.
        m(r#"{"data_type":"uint8","rounding":"nearest"}"#, T::Float64, Meta("rounding"), "nearest"),
        m(r#"{"data_type":"uint8","rounding":"NEAREST-EVEN"}"#, T::Float64, Meta("rounding"), "NEAREST-EVEN"),
        m(r#"{"data_type":"uint8","rounding":"nearest_even"}"#, T::Float64, Meta("rounding"), "nearest_even"),
        m(r#"{"data_type":"uint8","rounding":""}"#, T::Float64, Meta("rounding"), "rounding"),
        m(r#"{"data_type":"uint8","out_of_range":"saturate"}"#, T::Float64, Meta("out_of_range"), "saturate"),
        m(r#"{"data_type":"uint8","out_of_range":"Clamp"}"#, T::Float64, Meta("out_of_range"), "Clamp"),
        m(r#"{"data_type":"uint7"}"#, T::Float64, Meta("data_type"), "uint7"),
        m(r#"{"data_type":"float8_e4m3fn"}"#, T::Float64, Meta("data_type"), "float8_e4m3fn"),
        m(r#"{"data_type":"complex64"}"#, T::Float64, Meta("data_type"), "complex64"),
        // wrap with a float target.
        m(r#"{"data_type":"float32","out_of_range":"wrap"}"#, T::Float64, Wrap, "wrap"),
        m(r#"{"data_type":"float8_e8m0fnu","out_of_range":"wrap"}"#, T::Float64, Wrap, "float8_e8m0fnu"),
        m(r#"{"data_type":{"name":"bfloat16"},"out_of_range":"wrap"}"#, T::Int32, Wrap, "bfloat16"),
        // Strings that are no fill value anywhere.
        map(r#"{"encode":[["+Infinity",0]]}"#, "uint8", T::Float64, Meta("encode[0][0]"), "+Infinity"),
        map(r#"{"decode":[[0,"+Infinity"]]}"#, "uint8", T::Float64, Meta("decode[0][1]"), "+Infinity"),
        map(r#"{"encode":[["inf",0]]}"#, "uint8", T::Float64, Meta("encode[0][0]"), "inf"),
        map(r#"{"encode":[["nan",0]]}"#, "uint8", T::Float64, Meta("encode[0][0]"), "nan"),
        map(r#"{"encode":[[0,"1"]]}"#, "uint8", T::Int8, Meta("encode[0][1]"), "encode[0][1]"),
        map(r#"{"encode":[["0X7e00",0]]}"#, "uint8", T::Float16, Meta("encode[0][0]"), "0X7e00"),
        // Integers out of range or not integral.
        map(r#"{"encode":[[0,256]]}"#, "uint8", T::Int8, Entry(E, 0, 1, FE::IntegerOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,-129]]}"#, "int8", T::Int8, Entry(E, 0, 1, FE::IntegerOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,-1]]}"#, "uint8", T::Int8, Entry(E, 0, 1, FE::IntegerOutOfRange), "encode[0][1]"),
        map(
            r#"{"encode":[[0,9223372036854775808]]}"#,
            "int64",
            T::Int8,
            Entry(E, 0, 1, FE::IntegerOutOfRange),
            "encode[0][1]",
        ),
        map(
            r#"{"encode":[[0,-9223372036854775809]]}"#,
            "int64",
            T::Int8,
            Entry(E, 0, 1, FE::IntegerOutOfRange),
            "encode[0][1]",
        ),
        map(
            r#"{"encode":[[0,18446744073709551616]]}"#,
            "uint64",
            T::Int8,
            Entry(E, 0, 1, FE::IntegerOutOfRange),
            "encode[0][1]",
        ),
        map(
            r#"{"encode":[[0,340282366920938463463374607431768211456]]}"#,
            "uint64",
            T::Int8,
            Entry(E, 0, 1, FE::IntegerOutOfRange),
            "encode[0][1]",
        ),
        map(r#"{"encode":[[0,2]]}"#, "int2", T::Int8, Entry(E, 0, 1, FE::IntegerOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,16]]}"#, "uint4", T::Int8, Entry(E, 0, 1, FE::IntegerOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[1.5,0]]}"#, "uint8", T::Int8, Entry(E, 0, 0, FE::NotAnInteger), "encode[0][0]"),
        map(r#"{"encode":[[0,1e2]]}"#, "int32", T::Int8, Entry(E, 0, 1, FE::NotAnInteger), "encode[0][1]"),
        map(r#"{"encode":[[0,1.0]]}"#, "int32", T::Int8, Entry(E, 0, 1, FE::NotAnInteger), "encode[0][1]"),
        map(r#"{"decode":[[-0.0,0]]}"#, "int32", T::Int8, Entry(D, 0, 0, FE::NotAnInteger), "decode[0][0]"),
        // NaN or Infinity for types without them.
        map(r#"{"encode":[["NaN",0]]}"#, "uint8", T::Int32, Entry(E, 0, 0, FE::NanNotSupported), "encode[0][0]"),
        map(r#"{"encode":[[0,"NaN"]]}"#, "float4_e2m1fn", T::Int8, Entry(E, 0, 1, FE::NanNotSupported), "encode[0][1]"),
        map(
            r#"{"encode":[[0,"Infinity"]]}"#,
            "float8_e4m3fnuz",
            T::Int8,
            Entry(E, 0, 1, FE::InfinityNotSupported),
            "encode[0][1]",
        ),
        map(
            r#"{"encode":[[0,"-Infinity"]]}"#,
            "float6_e3m2fn",
            T::Int8,
            Entry(E, 0, 1, FE::InfinityNotSupported),
            "encode[0][1]",
        ),
        map(
            r#"{"encode":[[1,"Infinity"]]}"#,
            "float8_e8m0fnu",
            T::Int8,
            Entry(E, 0, 1, FE::InfinityNotSupported),
            "encode[0][1]",
        ),
        map(r#"{"decode":[[0,"NaN"]]}"#, "uint8", T::UInt64, Entry(D, 0, 1, FE::NanNotSupported), "decode[0][1]"),
        // Hex bit patterns: wrong digit counts, bad digits, high bits in sub-byte types.
        map(
            r#"{"encode":[[0,"0x7e0"]]}"#,
            "float16",
            T::Int8,
            Entry(E, 0, 1, FE::HexDigits { expected: 4 }),
            "4 digits",
        ),
        map(
            r#"{"encode":[["0x7fc0",0]]}"#,
            "uint8",
            T::Float32,
            Entry(E, 0, 0, FE::HexDigits { expected: 8 }),
            "encode[0][0]",
        ),
        map(
            r#"{"encode":[[0,"0x7ff8"]]}"#,
            "float64",
            T::Int8,
            Entry(E, 0, 1, FE::HexDigits { expected: 16 }),
            "16 digits",
        ),
        map(
            r#"{"encode":[[0,"0x0"]]}"#,
            "float8_e5m2",
            T::Int8,
            Entry(E, 0, 1, FE::HexDigits { expected: 2 }),
            "2 digits",
        ),
        map(r#"{"encode":[[0,"0x1F"]]}"#, "float4_e2m1fn", T::Int8, Entry(E, 0, 1, FE::HexHighBits), "encode[0][1]"),
        map(r#"{"encode":[[0,"0x40"]]}"#, "float6_e2m3fn", T::Int8, Entry(E, 0, 1, FE::HexHighBits), "encode[0][1]"),
        map(r#"{"encode":[[0,"0xzzzz"]]}"#, "float16", T::Int8, Meta("encode[0][1]"), "0xzzzz"),
        map(r#"{"encode":[[0,"0x7e0\""]]}"#, "float16", T::Int8, Meta("encode[0][1]"), "encode[0][1]"),
        map(r#"{"encode":[[0,"0x"]]}"#, "float16", T::Int8, Meta("encode[0][1]"), "encode[0][1]"),
        map(r#"{"encode":[["0x00",0]]}"#, "uint8", T::UInt8, Entry(E, 0, 0, FE::HexForInteger), "encode[0][0]"),
        // Floats outside the finite range, and float8_e8m0fnu's positive-only rule.
        map(r#"{"encode":[[0,65520]]}"#, "float16", T::Int8, Entry(E, 0, 1, FE::NumberOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,1e309]]}"#, "float64", T::Int8, Entry(E, 0, 1, FE::NumberOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,-1.8e308]]}"#, "float64", T::Int8, Entry(E, 0, 1, FE::NumberOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,7]]}"#, "float4_e2m1fn", T::Int8, Entry(E, 0, 1, FE::NumberOutOfRange), "encode[0][1]"),
        map(r#"{"encode":[[0,0]]}"#, "float8_e8m0fnu", T::Int8, Entry(E, 0, 1, FE::NotPositive), "encode[0][1]"),
        map(r#"{"encode":[[0,-1]]}"#, "float8_e8m0fnu", T::Int8, Entry(E, 0, 1, FE::NotPositive), "encode[0][1]"),
        map(
            r#"{"encode":[[0,1e-60]]}"#,
            "float8_e8m0fnu",
            T::Int8,
            Entry(E, 0, 1, FE::NumberOutOfRange),
            "encode[0][1]",
        ),
        // Fill values.
        fill(r#"{"data_type":"uint8"}"#, T::Int32, r#""NaN""#, Fill(FE::NanNotSupported), "fill_value"),
        fill(r#"{"data_type":"int8"}"#, T::UInt8, "300", Fill(FE::IntegerOutOfRange), "fill_value"),
        fill(r#"{"data_type":"uint8"}"#, T::Float64, "0.5", FillRoundTrip, "fill_value 0.5"),
        fill(r#"{"data_type":"uint8"}"#, T::Float32, r#""Infinity""#, FillCast, "fill_value Infinity"),
        fill(r#"{"data_type":"float8_e8m0fnu"}"#, T::Float32, "0", FillCast, "fill_value 0"),
        fill(r#"{"data_type":"float16"}"#, T::Float32, "1e-10", FillRoundTrip, "fill_value"),
        // Not JSON, or not an object.
        raw("{", Meta("codec"), "codec"),
        raw("", Meta("codec"), "codec"),
        raw("[]", Meta("codec"), "codec"),
        raw(
            r#"{"name":"cast_value","configuration":{"data_type":"uint8","data_type":"int8"}}"#,
            Meta("configuration"),
            "duplicate",
        ),
    ]
}

#[test]
fn malformed_configurations_are_rejected_with_the_offending_part_named() {
    let rows = table();
    assert!(rows.len() >= 60, "{} rows", rows.len());
    for (codec, array, fill, want, names) in rows {
        let err = match build(&codec, array, fill) {
            Ok(()) => panic!("accepted {codec} for {array} (fill {fill:?})"),
            Err(e) => e,
        };
        let kind_ok = match (&err, want) {
            (ConfigError::Metadata { path, .. }, Meta(p)) => path.contains(p),
            (ConfigError::WrapNeedsIntegerTarget { .. }, Wrap) => true,
            (ConfigError::ScalarMapEntry { direction, index, position, error, .. }, Entry(d, i, p, e)) => {
                (*direction, *index, *position, *error) == (d, i, p, e)
            }
            (ConfigError::InvalidFillValue { error, .. }, Fill(e)) => *error == e,
            (ConfigError::FillValueNotCastable { .. }, FillCast) => true,
            (ConfigError::FillValueRoundTrip { .. }, FillRoundTrip) => true,
            _ => false,
        };
        assert!(kind_ok, "{codec} for {array}: expected {want:?}, got {err:?}");
        let msg = err.to_string();
        assert!(msg.contains(names), "{codec}: message {msg:?} does not name {names:?}");
    }
}

#[test]
fn valid_edge_cases_are_accepted() {
    let ok: &[(&str, T, Option<&str>)] = &[
        // A duplicated key: the first entry wins.
        (r#"{"data_type":"uint8","scalar_map":{"encode":[["NaN",1],["NaN",2]]}}"#, T::Float32, None),
        (r#"{"data_type":"uint8","scalar_map":{"encode":[[0.0,1],[-0.0,2]]}}"#, T::Float32, None),
        // Identity casts, with and without a map.
        (r#"{"data_type":"uint16","scalar_map":{"encode":[[65535,0]],"decode":[[0,65535]]}}"#, T::UInt16, None),
        (r#"{"data_type":"float8_e4m3fnuz"}"#, T::Float8E4M3FNUZ, Some(r#""NaN""#)),
        // Empty maps and lists.
        (r#"{"data_type":"uint8","scalar_map":{}}"#, T::Float32, None),
        (r#"{"data_type":"uint8","scalar_map":{"encode":[],"decode":[]}}"#, T::Float32, None),
        // data_type as an object; every field spelled out with its default.
        (r#"{"data_type":{"name":"int4"},"rounding":"nearest-even","out_of_range":"clamp"}"#, T::Float32, None),
        // 64-bit extremes.
        (
            r#"{"data_type":"int64","scalar_map":{"encode":[[18446744073709551615,-9223372036854775808]]}}"#,
            T::UInt64,
            None,
        ),
        (
            r#"{"data_type":"uint64","scalar_map":{"decode":[[18446744073709551615,9223372036854775807]]}}"#,
            T::Int64,
            None,
        ),
        // Whitespace everywhere, wrap on an integer target, "-0" as an integer literal.
        (
            " {\n\"data_type\" : \"int2\" ,\t\"out_of_range\":\"wrap\", \"scalar_map\":{\"encode\":[[ -0 , -2 ]]} } ",
            T::Int8,
            Some("1"),
        ),
        // float8_e8m0fnu extremes.
        (
            r#"{"data_type":"float8_e8m0fnu","scalar_map":{"encode":[["NaN",5.877471754111438e-39]]}}"#,
            T::Float32,
            Some("1.7014118346046923e+38"),
        ),
    ];
    for (c, array, fill) in ok {
        build(&cfg(c), *array, *fill).unwrap_or_else(|e| panic!("rejected {c} for {array}: {e}"));
    }
}
