//! JSON configuration and fill-value parsing: never panics, and never accepts what
//! DECISIONS §3 forbids. What was accepted is re-checked by an independent validator over
//! serde_json's `Value`, and must print and re-parse to the same configuration.
use cast_value_kernels::json::{CodecMetadata, OwnedFillValue};
use cast_value_kernels::{DataType, ALL_DATA_TYPES};
use serde_json::Value;

/// One fuzz input: panics where parsing accepts what DECISIONS §3 forbids.
pub fn check(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let array_type = ALL_DATA_TYPES[selector as usize % 26];

    if let Ok(fill) = OwnedFillValue::from_json(text) {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            if cast_value_kernels::fill_value_bits(array_type, &fill.as_fill_value()).is_ok() {
                assert!(valid_scalar(&v, array_type), "accepted fill value {text} for {array_type}");
            }
        }
    }

    let Ok(codec) = CodecMetadata::from_json(text) else { return };
    let reparsed = CodecMetadata::from_json(&codec.to_json()).expect("printed configuration parses");
    assert_eq!(codec, reparsed);
    let Ok(doc) = serde_json::from_str::<Value>(text) else { return }; // e.g. 1e400 is not a Value
    let data_type = check_structure(&doc);
    assert_eq!(data_type, codec.data_type);
    if let Ok(plan) = codec.bind(array_type, None) {
        let map = &doc["configuration"]["scalar_map"];
        for (list, key_t, val_t) in [("encode", array_type, plan.data_type()), ("decode", plan.data_type(), array_type)]
        {
            if let Some(entries) = map.get(list).and_then(Value::as_array) {
                for e in entries {
                    let pair = e.as_array().expect("entries are arrays");
                    assert!(valid_scalar(&pair[0], key_t), "accepted key {} for {key_t}", pair[0]);
                    assert!(valid_scalar(&pair[1], val_t), "accepted value {} for {val_t}", pair[1]);
                }
            }
        }
    }
}

/// The structure rules of DECISIONS §3; returns the data type.
fn check_structure(doc: &Value) -> DataType {
    let top = doc.as_object().expect("accepted document is an object");
    assert!(top.keys().all(|k| k == "name" || k == "configuration"), "unknown top-level key accepted");
    assert_eq!(top["name"], "cast_value");
    let cfg = top["configuration"].as_object().expect("configuration is an object");
    for k in cfg.keys() {
        assert!(["data_type", "rounding", "out_of_range", "scalar_map"].contains(&k.as_str()), "accepted key {k}");
    }
    let name = match &cfg["data_type"] {
        Value::String(s) => s.clone(),
        Value::Object(o) => {
            assert!(o.len() == 1, "data_type object with extra keys accepted");
            o["name"].as_str().expect("data_type.name is a string").to_string()
        }
        other => panic!("data_type {other} accepted"),
    };
    let dt = DataType::from_name(&name).expect("known data type");
    if let Some(r) = cfg.get("rounding") {
        let ok = ["nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away"];
        assert!(r.as_str().is_some_and(|s| ok.contains(&s)), "rounding {r} accepted");
    }
    if let Some(o) = cfg.get("out_of_range") {
        assert!(o == "clamp" || o == "wrap", "out_of_range {o} accepted");
        assert!(o != "wrap" || dt.is_integer(), "wrap accepted for {dt}");
    }
    if let Some(m) = cfg.get("scalar_map") {
        let m = m.as_object().expect("scalar_map is an object");
        for (k, list) in m {
            assert!(k == "encode" || k == "decode", "scalar_map key {k} accepted");
            for e in list.as_array().expect("list") {
                assert_eq!(e.as_array().map(Vec::len), Some(2), "entry {e} accepted");
            }
        }
    }
    dt
}

/// Independent fill-value check (DECISIONS §3), coarse where exact rounding would be needed.
fn valid_scalar(v: &Value, t: DataType) -> bool {
    let f = t.format();
    match v {
        Value::Number(n) => {
            let text = n.to_string();
            if t.is_integer() {
                let (lo, hi) = if f.kind == cast_value_kernels::Kind::Signed {
                    (-(1i128 << (t.bits() - 1)), (1i128 << (t.bits() - 1)) - 1)
                } else {
                    (0, (1i128 << t.bits()) - 1)
                };
                // serde_json's Value keeps the integer literal -0 as the float -0.0.
                text == "-0.0" && n.is_f64() || text.parse::<i128>().is_ok_and(|v| v >= lo && v <= hi)
            } else if !f.has_sign {
                n.as_f64().is_some_and(|x| x > 0.0)
            } else {
                true
            }
        }
        Value::String(s) => match s.as_str() {
            "NaN" => t.is_float() && f.has_nan(),
            "Infinity" | "-Infinity" => t.is_float() && f.has_inf,
            _ => {
                t.is_float()
                    && s.strip_prefix("0x")
                        .is_some_and(|h| h.len() == 2 * t.size() && h.chars().all(|c| c.is_ascii_hexdigit()))
            }
        },
        _ => false,
    }
}
