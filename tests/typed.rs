//! The typed API: element newtypes convert to f32 losslessly, typed plans check their types
//! once, and the zarr.json codec chain binds every cast_value codec in order.

mod model;

use cast_value_kernels::types::*;
use cast_value_kernels::{CastConfig, ConfigError, DataType, OutOfRange, Rounding};

fn check_newtype<T: Element + Copy>(wrap: fn(u8) -> T, to_f32: fn(T) -> f32) {
    let m = model::ty(T::DATA_TYPE);
    for b in 0..=255u8 {
        let got = to_f32(wrap(b));
        match model::decode(m, b as u64) {
            model::Val::NaN => assert!(got.is_nan(), "{} {b:#x}", T::DATA_TYPE),
            model::Val::Inf(neg) => assert_eq!(got, if neg { f32::NEG_INFINITY } else { f32::INFINITY }),
            model::Val::Fin { neg, m: mm, e } => {
                assert_eq!(got.is_sign_negative(), neg, "{} {b:#x}", T::DATA_TYPE);
                let (gm, ge) = model::from_f64(got.abs() as f64);
                assert!(model::cmp_mag(gm, ge, mm, e).is_eq(), "{} {b:#x}: {got}", T::DATA_TYPE);
            }
        }
    }
}

#[test]
fn byte_newtypes_convert_to_f32_exactly() {
    check_newtype(Int2::from_bits, Int2::to_f32);
    check_newtype(Int4::from_bits, Int4::to_f32);
    check_newtype(UInt2::from_bits, UInt2::to_f32);
    check_newtype(UInt4::from_bits, UInt4::to_f32);
    check_newtype(Float4E2M1FN::from_bits, Float4E2M1FN::to_f32);
    check_newtype(Float6E2M3FN::from_bits, Float6E2M3FN::to_f32);
    check_newtype(Float6E3M2FN::from_bits, Float6E3M2FN::to_f32);
    check_newtype(Float8E3M4::from_bits, Float8E3M4::to_f32);
    check_newtype(Float8E4M3::from_bits, Float8E4M3::to_f32);
    check_newtype(Float8E4M3B11FNUZ::from_bits, Float8E4M3B11FNUZ::to_f32);
    check_newtype(Float8E4M3FNUZ::from_bits, Float8E4M3FNUZ::to_f32);
    check_newtype(Float8E5M2FNUZ::from_bits, Float8E5M2FNUZ::to_f32);
    check_newtype(Float8E8M0FNU::from_bits, Float8E8M0FNU::to_f32);
    // Spot values from DECISIONS §1.
    assert_eq!(Float8E4M3::from_bits(0x77).to_f32(), 240.0);
    assert_eq!(Float8E8M0FNU::from_bits(0x00).to_f32(), 2f32.powi(-127));
    assert_eq!(Int4::from_bits(0xf8).to_f32(), -8.0);
}

#[test]
fn native_element_types_name_their_data_types() {
    assert_eq!(<half::f16 as Element>::DATA_TYPE, DataType::Float16);
    assert_eq!(<half::bf16 as Element>::DATA_TYPE, DataType::BFloat16);
    assert_eq!(<float8::F8E5M2 as Element>::DATA_TYPE, DataType::Float8E5M2);
    assert_eq!(<i64 as Element>::DATA_TYPE, DataType::Int64);
}

#[test]
fn typed_plans_check_types_once_and_cast() {
    let config = CastConfig::new(DataType::Float16);
    let plan = TypedPlan::<f32, half::f16>::new(&config, None).unwrap();
    let mut out = [half::f16::ZERO; 3];
    plan.encode(&[1.0, 65519.0, -0.0], &mut out).unwrap();
    assert_eq!(out.map(half::f16::to_bits), [0x3c00, 0x7bff, 0x8000]);
    let mut back = [0f32; 3];
    plan.decode(&out, &mut back).unwrap();
    assert_eq!(back, [1.0, 65504.0, -0.0]);
    // float8::F8E5M2 is Zarr's float8_e5m2.
    let c = CastConfig::new(DataType::Float8E5M2).with_out_of_range(Some(OutOfRange::Clamp));
    let p = TypedPlan::<f64, float8::F8E5M2>::new(&c, None).unwrap();
    let mut o = [float8::F8E5M2::ZERO; 2];
    p.encode(&[1e9, 0.5], &mut o).unwrap();
    assert_eq!(o.map(|v| v.to_bits()), [0x7c, 0x38]);
    // Mismatch: the configuration names uint8 but the element type holds int8.
    let err = TypedPlan::<f32, i8>::new(&CastConfig::new(DataType::UInt8), None).unwrap_err();
    assert_eq!(err, ConfigError::ElementType { expected: DataType::UInt8, actual: DataType::Int8 });
    // Sub-byte newtypes in and out.
    let c =
        CastConfig::new(DataType::Int4).with_rounding(Rounding::TowardsZero).with_out_of_range(Some(OutOfRange::Wrap));
    let p = TypedPlan::<f32, Int4>::new(&c, None).unwrap();
    let mut o = [Int4::default(); 3];
    p.encode(&[7.9, -9.0, 16.5], &mut o).unwrap();
    assert_eq!(o.map(Int4::to_bits), [0x07, 0x07, 0x00]);
}

#[cfg(feature = "json")]
mod chain {
    use cast_value_kernels::json::CastChain;
    use cast_value_kernels::{ConfigError, DataType};

    fn doc(data_type: &str, fill: &str, codecs: &str) -> String {
        format!(
            r#"{{"zarr_format":3,"node_type":"array","shape":[8],"chunk_grid":{{"name":"regular","configuration":{{"chunk_shape":[8]}}}},"data_type":{data_type},"fill_value":{fill},"codecs":[{codecs}],"attributes":{{}}}}"#
        )
    }

    #[test]
    fn several_casts_bind_in_order_with_the_fill_value_carried() {
        let d = doc(
            r#""float64""#,
            "-1.25",
            r#"{"name":"cast_value","configuration":{"data_type":"float32"}},{"name":"cast_value","configuration":{"data_type":"float16","rounding":"towards-zero"}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}"#,
        );
        let chain = CastChain::from_array_metadata(&d).unwrap();
        assert_eq!(chain.array_type(), DataType::Float64);
        assert_eq!(chain.plans().len(), 2);
        assert_eq!(chain.plans()[1].array_type(), DataType::Float32);
        assert_eq!(chain.data_type(), DataType::Float16);
        assert_eq!(chain.encoded_fill_value(), Some(0xbd00)); // -1.25 in float16
        let src: Vec<u8> = [1.0f64, 6.0e-8].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let enc = chain.encode(&src).unwrap();
        assert_eq!(enc, [0x3c00u16, 0x0001].iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>());
        let dec = chain.decode(&enc).unwrap();
        assert_eq!(&dec[..8], &1.0f64.to_ne_bytes());
    }

    #[test]
    fn no_cast_means_an_empty_chain() {
        let chain = CastChain::from_array_metadata(&doc(r#"{"name":"int16"}"#, "7", r#"{"name":"bytes"}"#)).unwrap();
        assert!(chain.plans().is_empty());
        assert_eq!((chain.data_type(), chain.encoded_fill_value()), (DataType::Int16, Some(7)));
    }

    #[test]
    fn other_array_to_array_codecs_are_reported_by_name() {
        for (codecs, name, index) in [
            (r#"{"name":"scale_offset","configuration":{"offset":1,"scale":2}},{"name":"bytes"}"#, "scale_offset", 0),
            (
                r#"{"name":"cast_value","configuration":{"data_type":"float32"}},{"name":"transpose","configuration":{"order":[0]}},{"name":"bytes"}"#,
                "transpose",
                1,
            ),
            (r#""bitround",{"name":"bytes"}"#, "bitround", 0),
        ] {
            let err = CastChain::from_array_metadata(&doc(r#""float64""#, "0", codecs)).unwrap_err();
            assert!(
                matches!(&err, ConfigError::UnsupportedCodec { index: i, name: n } if n == name && *i == index),
                "{err:?}"
            );
            assert!(err.to_string().contains(name));
        }
    }

    #[test]
    fn bad_chains_are_errors() {
        // No array->bytes codec; the fill value fails the second cast's round trip; a bad
        // cast_value configuration inside the chain; a fill value invalid for the array type.
        assert!(CastChain::from_array_metadata(&doc(
            r#""float64""#,
            "0",
            r#"{"name":"cast_value","configuration":{"data_type":"float32"}}"#
        ))
        .is_err());
        let e = CastChain::from_array_metadata(&doc(
            r#""float64""#,
            "0.5",
            r#"{"name":"cast_value","configuration":{"data_type":"float32"}},{"name":"cast_value","configuration":{"data_type":"uint8"}},{"name":"bytes"}"#,
        ))
        .unwrap_err();
        assert!(e.to_string().contains("fill_value 0.5"), "{e}");
        let e = CastChain::from_array_metadata(&doc(
            r#""float64""#,
            "0",
            r#"{"name":"cast_value","configuration":{"data_type":"uint8","x":1}},{"name":"bytes"}"#,
        ))
        .unwrap_err();
        assert!(e.to_string().contains("configuration.x"), "{e}");
        let e = CastChain::from_array_metadata(&doc(r#""uint8""#, "\"NaN\"", r#"{"name":"bytes"}"#)).unwrap_err();
        assert!(e.to_string().contains("fill_value"), "{e}");
    }
}
