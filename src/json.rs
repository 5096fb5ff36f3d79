//! The codec's zarr.json entry: parse, validate and print it (feature `json`).
//!
//! Parsing is strict: unknown keys at every level, wrong JSON types and bad
//! strings are errors that name the offending key or entry. Scalars are kept as the exact
//! text written, so numbers are never squeezed through f64, and printing gives back the
//! fields that were present and no others.

use crate::config::{CastConfig, FillValue, MapEntry, OutOfRange, Rounding};
use crate::dtype::DataType;
use crate::error::{CastError, ConfigError};
use crate::plan::CastPlan;
use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// An owned fill-value JSON scalar (see [`FillValue`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnedFillValue {
    /// A JSON integer literal that fits i128.
    Int(i128),
    /// Any other JSON number, as written.
    Number(String),
    /// `"NaN"`.
    NaN,
    /// `"Infinity"`.
    Infinity,
    /// `"-Infinity"`.
    NegInfinity,
    /// `"0x..."`: the digits after `0x`.
    Hex(String),
}

impl OwnedFillValue {
    /// The borrowed form.
    pub fn as_fill_value(&self) -> FillValue<'_> {
        match self {
            OwnedFillValue::Int(v) => FillValue::Int(*v),
            OwnedFillValue::Number(t) => FillValue::Number(t),
            OwnedFillValue::NaN => FillValue::NaN,
            OwnedFillValue::Infinity => FillValue::Infinity,
            OwnedFillValue::NegInfinity => FillValue::NegInfinity,
            OwnedFillValue::Hex(h) => FillValue::Hex(h),
        }
    }

    /// Parse one fill-value JSON scalar (a number or one of the strings "NaN", "Infinity",
    /// "-Infinity", "0x..."). Whether it is valid for a data type is checked when bound.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let raw: Box<RawValue> = serde_json::from_str(text).map_err(|e| meta("fill_value", e))?;
        scalar(&raw, "fill_value")
    }
}

impl fmt::Display for OwnedFillValue {
    /// The fill-value JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_fill_value().fmt(f)
    }
}

/// One owned `[input, output]` scalar_map entry.
pub type OwnedMapEntry = (OwnedFillValue, OwnedFillValue);

/// The `scalar_map` object as written: each list present or absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedScalarMap {
    /// `encode`, if present.
    pub encode: Option<Vec<OwnedMapEntry>>,
    /// `decode`, if present.
    pub decode: Option<Vec<OwnedMapEntry>>,
}

/// A parsed `cast_value` codec entry, `{"name": "cast_value", "configuration": {...}}`,
/// remembering which optional fields were written.
///
/// ```
/// use cast_value_kernels::{json::CodecMetadata, DataType};
/// let text = r#"{"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"clamp"}}"#;
/// let codec = CodecMetadata::from_json(text).unwrap();
/// assert_eq!(codec.to_json(), text);
/// let plan = codec.bind(DataType::Float32, None).unwrap();
/// let mut out = [0u8; 2];
/// plan.encode_slice(&[-3.0f32, 2.5], &mut out).unwrap();
/// assert_eq!(out, [0, 2]);
///
/// let err = CodecMetadata::from_json(r#"{"name":"cast_value","configuration":{"data_type":"uint8","foo":1}}"#);
/// assert!(err.unwrap_err().to_string().contains("foo"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecMetadata {
    /// `data_type`.
    pub data_type: DataType,
    /// Whether `data_type` was written as `{"name": ...}`.
    pub data_type_as_object: bool,
    /// `rounding`, if written.
    pub rounding: Option<Rounding>,
    /// `out_of_range`, if written.
    pub out_of_range: Option<OutOfRange>,
    /// `scalar_map`, if written.
    pub scalar_map: Option<OwnedScalarMap>,
}

/// The members of a JSON object in document order, values unparsed. Duplicate keys are an
/// error rather than last-wins, so nothing is silently lost.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out: Vec<(String, Box<RawValue>)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                    if out.iter().any(|(k2, _)| *k2 == k) {
                        return Err(serde::de::Error::custom(format!("duplicate key \"{k}\"")));
                    }
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn meta(path: &str, message: impl fmt::Display) -> ConfigError {
    ConfigError::Metadata { path: path.to_owned(), message: message.to_string() }
}

fn object(raw: &str, path: &str) -> Result<Vec<(String, Box<RawValue>)>, ConfigError> {
    serde_json::from_str::<Members>(raw).map(|m| m.0).map_err(|e| meta(path, e))
}

fn string(raw: &RawValue, path: &str) -> Result<String, ConfigError> {
    serde_json::from_str::<String>(raw.get())
        .map_err(|_| meta(path, format_args!("expected a string, got {}", raw.get())))
}

/// Classify one fill-value JSON scalar by its text.
fn scalar(raw: &RawValue, path: &str) -> Result<OwnedFillValue, ConfigError> {
    let text = raw.get().trim();
    if text.starts_with('"') {
        let s = string(raw, path)?;
        return match s.as_str() {
            "NaN" => Ok(OwnedFillValue::NaN),
            "Infinity" => Ok(OwnedFillValue::Infinity),
            "-Infinity" => Ok(OwnedFillValue::NegInfinity),
            // Hex digits only: nothing else can ever be a bit pattern, and it keeps the
            // printed form free of characters that would need escaping.
            _ => match s.strip_prefix("0x").filter(|h| !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit())) {
                Some(h) => Ok(OwnedFillValue::Hex(h.to_owned())),
                None => Err(meta(
                    path,
                    format_args!(
                        "{text} is not a fill value (a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" hex)"
                    ),
                )),
            },
        };
    }
    if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        let integer = !text.contains(['.', 'e', 'E']);
        // "-0" stays text so a float type keeps its sign.
        if integer && text != "-0" {
            if let Ok(v) = text.parse::<i128>() {
                return Ok(OwnedFillValue::Int(v));
            }
        }
        return Ok(OwnedFillValue::Number(text.to_owned()));
    }
    Err(meta(path, format_args!("expected a number or a string, got {text}")))
}

fn map_list(raw: &RawValue, path: &str) -> Result<Vec<OwnedMapEntry>, ConfigError> {
    let items: Vec<Box<RawValue>> = serde_json::from_str(raw.get())
        .map_err(|_| meta(path, format_args!("expected an array of [input, output] pairs, got {}", raw.get())))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let pair: Vec<Box<RawValue>> = serde_json::from_str(item.get())
            .map_err(|_| meta(&p, format_args!("expected an [input, output] pair, got {}", item.get())))?;
        match pair.as_slice() {
            [input, output] => out.push((scalar(input, &format!("{p}[0]"))?, scalar(output, &format!("{p}[1]"))?)),
            _ => return Err(meta(&p, format_args!("expected an [input, output] pair, got {} elements", pair.len()))),
        }
    }
    Ok(out)
}

fn data_type(raw: &RawValue, path: &str) -> Result<(DataType, bool), ConfigError> {
    let text = raw.get().trim();
    let (name, as_object, name_path) = if text.starts_with('{') {
        let mut name = None;
        for (k, v) in object(text, path)? {
            match k.as_str() {
                "name" => name = Some(string(&v, &format!("{path}.name"))?),
                _ => return Err(meta(&format!("{path}.{k}"), "unknown key")),
            }
        }
        let name = name.ok_or_else(|| meta(path, "missing key \"name\""))?;
        (name, true, format!("{path}.name"))
    } else {
        (string(raw, path)?, false, path.to_owned())
    };
    match DataType::from_name(&name) {
        Some(t) => Ok((t, as_object)),
        None => Err(meta(&name_path, format_args!("\"{name}\" is not one of the 26 cast_value data types"))),
    }
}

fn borrow_list(l: &Option<Vec<OwnedMapEntry>>) -> Vec<MapEntry<'_>> {
    l.iter().flatten().map(|(a, b)| (a.as_fill_value(), b.as_fill_value())).collect()
}

impl CodecMetadata {
    /// Parse the codec entry `{"name": "cast_value", "configuration": {...}}`.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let mut name = None;
        let mut configuration = None;
        for (k, v) in object(text, "codec")? {
            match k.as_str() {
                "name" => name = Some(string(&v, "name")?),
                "configuration" => configuration = Some(v),
                _ => return Err(meta(&k, "unknown key in the codec entry")),
            }
        }
        match name.as_deref() {
            Some("cast_value") => {}
            Some(other) => return Err(meta("name", format_args!("expected \"cast_value\", got \"{other}\""))),
            None => return Err(meta("name", "missing")),
        }
        let configuration = configuration.ok_or_else(|| meta("configuration", "missing"))?;
        Self::from_configuration_json(configuration.get())
    }

    /// Parse just the `configuration` object.
    pub fn from_configuration_json(text: &str) -> Result<Self, ConfigError> {
        let mut dt = None;
        let mut rounding = None;
        let mut out_of_range = None;
        let mut scalar_map = None;
        for (k, v) in object(text, "configuration")? {
            let path = format!("configuration.{k}");
            match k.as_str() {
                "data_type" => dt = Some(data_type(&v, &path)?),
                "rounding" => {
                    let s = string(&v, &path)?;
                    rounding = Some(Rounding::from_name(&s).ok_or_else(|| {
                        meta(&path, format_args!("\"{s}\" is not a rounding mode (nearest-even, towards-zero, towards-positive, towards-negative, nearest-away)"))
                    })?);
                }
                "out_of_range" => {
                    let s = string(&v, &path)?;
                    out_of_range = Some(
                        OutOfRange::from_name(&s)
                            .ok_or_else(|| meta(&path, format_args!("\"{s}\" is not \"clamp\" or \"wrap\"")))?,
                    );
                }
                "scalar_map" => {
                    let mut m = OwnedScalarMap::default();
                    for (k2, v2) in object(v.get(), &path)? {
                        let p2 = format!("{path}.{k2}");
                        match k2.as_str() {
                            "encode" => m.encode = Some(map_list(&v2, &p2)?),
                            "decode" => m.decode = Some(map_list(&v2, &p2)?),
                            _ => return Err(meta(&p2, "unknown key")),
                        }
                    }
                    scalar_map = Some(m);
                }
                _ => return Err(meta(&path, "unknown key")),
            }
        }
        let (data_type, data_type_as_object) = dt.ok_or_else(|| meta("configuration.data_type", "missing"))?;
        if out_of_range == Some(OutOfRange::Wrap) && data_type.is_float() {
            return Err(ConfigError::WrapNeedsIntegerTarget { data_type });
        }
        Ok(CodecMetadata { data_type, data_type_as_object, rounding, out_of_range, scalar_map })
    }

    /// The codec entry as JSON, with exactly the fields that were present.
    pub fn to_json(&self) -> String {
        let mut s = String::from("{\"name\":\"cast_value\",\"configuration\":");
        s.push_str(&self.configuration_json());
        s.push('}');
        s
    }

    /// The `configuration` object as JSON.
    pub fn configuration_json(&self) -> String {
        let mut s = String::from("{\"data_type\":");
        if self.data_type_as_object {
            s.push_str(&format!("{{\"name\":\"{}\"}}", self.data_type));
        } else {
            s.push_str(&format!("\"{}\"", self.data_type));
        }
        if let Some(r) = self.rounding {
            s.push_str(&format!(",\"rounding\":\"{r}\""));
        }
        if let Some(o) = self.out_of_range {
            s.push_str(&format!(",\"out_of_range\":\"{o}\""));
        }
        if let Some(m) = &self.scalar_map {
            s.push_str(",\"scalar_map\":{");
            let lists = [("encode", &m.encode), ("decode", &m.decode)];
            let mut first = true;
            for (name, list) in lists {
                if let Some(list) = list {
                    if !first {
                        s.push(',');
                    }
                    first = false;
                    s.push_str(&format!("\"{name}\":["));
                    for (i, (a, b)) in list.iter().enumerate() {
                        if i > 0 {
                            s.push(',');
                        }
                        s.push_str(&format!("[{a},{b}]"));
                    }
                    s.push(']');
                }
            }
            s.push('}');
        }
        s.push('}');
        s
    }

    /// The borrowed configuration, for the lifetime of the entry lists it points into.
    fn with_config<R>(&self, f: impl FnOnce(&CastConfig<'_>) -> R) -> R {
        let (encode, decode) = match &self.scalar_map {
            Some(m) => (borrow_list(&m.encode), borrow_list(&m.decode)),
            None => (Vec::new(), Vec::new()),
        };
        let config = CastConfig::new(self.data_type)
            .with_rounding(self.rounding.unwrap_or_default())
            .with_out_of_range(self.out_of_range)
            .with_scalar_map(&encode, &decode);
        f(&config)
    }

    /// Bind to a decoded array of `array_type` with an optional fill value (see
    /// [`CastPlan::new`]).
    pub fn bind(&self, array_type: DataType, fill_value: Option<&OwnedFillValue>) -> Result<CastPlan, ConfigError> {
        self.with_config(|config| CastPlan::new(config, array_type, fill_value.map(OwnedFillValue::as_fill_value)))
    }

    /// As [`bind`](Self::bind), with the fill value as a bit pattern of `array_type`.
    pub fn bind_with_fill_bits(&self, array_type: DataType, fill_bits: Option<u64>) -> Result<CastPlan, ConfigError> {
        self.with_config(|config| CastPlan::with_fill_bits(config, array_type, fill_bits))
    }
}

/// Codecs that turn an array into bytes: the array->array part of a chain ends at the first.
const ARRAY_TO_BYTES: [&str; 4] = ["bytes", "sharding_indexed", "vlen-utf8", "vlen-bytes"];

/// The cast_value codecs of an array's codec chain (zarr.json), bound in order: the first to
/// the array's data type and fill value, each next one to what the previous one produces.
///
/// ```
/// use cast_value_kernels::json::CastChain;
/// use cast_value_kernels::DataType;
/// let zarr_json = r#"{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"float64",
///   "fill_value":"NaN","codecs":[
///     {"name":"cast_value","configuration":{"data_type":"float32"}},
///     {"name":"cast_value","configuration":{"data_type":"uint8","out_of_range":"clamp",
///       "scalar_map":{"encode":[["NaN",255]],"decode":[[255,"NaN"]]}}},
///     {"name":"bytes","configuration":{"endian":"little"}}]}"#;
/// let chain = CastChain::from_array_metadata(zarr_json).unwrap();
/// assert_eq!(chain.plans().len(), 2);
/// assert_eq!(chain.data_type(), DataType::UInt8);
/// assert_eq!(chain.encoded_fill_value(), Some(255));
/// let src: Vec<u8> = [1.5f64, f64::NAN, 300.0, -2.0].iter().flat_map(|v| v.to_ne_bytes()).collect();
/// assert_eq!(chain.encode(&src).unwrap(), vec![2, 255, 255, 0]);
/// ```
#[derive(Clone, Debug)]
pub struct CastChain {
    array_type: DataType,
    plans: Vec<CastPlan>,
    fill: Option<u64>,
}

impl CastChain {
    /// Read `data_type`, `fill_value` and `codecs` from an array's zarr.json (other keys are
    /// left alone), and bind every cast_value codec before the array->bytes codec. Any other
    /// codec there is reported by name ([`ConfigError::UnsupportedCodec`]).
    pub fn from_array_metadata(zarr_json: &str) -> Result<Self, ConfigError> {
        let mut data_type_raw = None;
        let mut fill_raw = None;
        let mut codecs_raw = None;
        for (k, v) in object(zarr_json, "zarr.json")? {
            match k.as_str() {
                "data_type" => data_type_raw = Some(v),
                "fill_value" => fill_raw = Some(v),
                "codecs" => codecs_raw = Some(v),
                _ => {}
            }
        }
        let data_type_raw = data_type_raw.ok_or_else(|| meta("data_type", "missing"))?;
        let (array_type, _) = data_type(&data_type_raw, "data_type")?;
        let fill = match fill_raw.filter(|f| f.get().trim() != "null") {
            Some(raw) => {
                let fv = scalar(&raw, "fill_value")?;
                Some(
                    crate::fill::fill_value_bits(array_type, &fv.as_fill_value())
                        .map_err(|error| ConfigError::InvalidFillValue { data_type: array_type, error })?,
                )
            }
            None => None,
        };
        let codecs_raw = codecs_raw.ok_or_else(|| meta("codecs", "missing"))?;
        let codecs: Vec<Box<RawValue>> =
            serde_json::from_str(codecs_raw.get()).map_err(|_| meta("codecs", "expected an array of codecs"))?;
        let mut plans: Vec<CastPlan> = Vec::new();
        let mut current = (array_type, fill);
        for (index, codec) in codecs.iter().enumerate() {
            let path = format!("codecs[{index}]");
            let text = codec.get().trim();
            let name = if text.starts_with('"') {
                string(codec, &path)?
            } else {
                let members = object(text, &path)?;
                let name = members.iter().find(|(k, _)| k == "name").ok_or_else(|| meta(&path, "missing \"name\""))?;
                string(&name.1, &format!("{path}.name"))?
            };
            if ARRAY_TO_BYTES.contains(&name.as_str()) {
                return Ok(CastChain { array_type, plans, fill });
            }
            if name != "cast_value" {
                return Err(ConfigError::UnsupportedCodec { index, name });
            }
            let plan = CodecMetadata::from_json(text)?.bind_with_fill_bits(current.0, current.1)?;
            current = (plan.data_type(), plan.encoded_fill_value());
            plans.push(plan);
        }
        Err(meta("codecs", "no array->bytes codec (bytes, sharding_indexed, ...) ends the chain"))
    }

    /// The bound cast_value plans, in chain order.
    pub fn plans(&self) -> &[CastPlan] {
        &self.plans
    }

    /// The array's data type.
    pub fn array_type(&self) -> DataType {
        self.array_type
    }

    /// The data type the array->bytes codec sees.
    pub fn data_type(&self) -> DataType {
        self.plans.last().map_or(self.array_type, CastPlan::data_type)
    }

    /// The array's fill value (bits of the array type).
    pub fn fill_value(&self) -> Option<u64> {
        self.fill
    }

    /// The fill value as the array->bytes codec sees it (bits of [`data_type`](Self::data_type)).
    pub fn encoded_fill_value(&self) -> Option<u64> {
        match self.plans.last() {
            Some(p) => p.encoded_fill_value(),
            None => self.fill,
        }
    }

    /// Encode raw elements of the array type through every cast in the chain.
    pub fn encode(&self, src: &[u8]) -> Result<Vec<u8>, CastError> {
        let mut cur = src.to_vec();
        for p in &self.plans {
            let n = cur.len() / p.array_type().size();
            let mut out = alloc::vec![0u8; n.saturating_mul(p.data_type().size())];
            p.encode(&cur, &mut out)?;
            cur = out;
        }
        Ok(cur)
    }

    /// Decode raw elements of [`data_type`](Self::data_type) back to the array type.
    pub fn decode(&self, src: &[u8]) -> Result<Vec<u8>, CastError> {
        let mut cur = src.to_vec();
        for p in self.plans.iter().rev() {
            let n = cur.len() / p.data_type().size();
            let mut out = alloc::vec![0u8; n.saturating_mul(p.array_type().size())];
            p.decode(&cur, &mut out)?;
            cur = out;
        }
        Ok(cur)
    }
}
