//! Conformance runner: checks golden vectors (format: shared/conformance/README.md) against
//! the crate, building every codec from its JSON through the crate's own parser.
//!
//! `cargo run --release --example conformance -- [--isa NAME|all] PATH...` (files or
//! directories of `.jsonl` / `.jsonl.gz`). Vectors sharing a configuration run as one batch
//! through the tier dispatch picks, the named tier, or every available tier. Prints up to 20 mismatches, a count per file and, last, `N passed, M
//! failed`; exits non-zero if any vector failed or any line could not be parsed.

use cast_value_kernels::json::{CodecMetadata, OwnedFillValue};
use cast_value_kernels::kernels::scalar::read_bits;
use cast_value_kernels::kernels::Tier;
use cast_value_kernels::{CastError, DataType, Decoded};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const MAX_SHOWN: usize = 20;

#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    unparsable: u64,
    shown: usize,
}

fn main() -> ExitCode {
    let mut args: Vec<String> = Vec::new();
    let mut tiers = vec![Tier::best()];
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--isa" {
            let Some(name) = it.next() else {
                eprintln!("--isa needs a tier name or `all`");
                return ExitCode::from(2);
            };
            tiers = if name == "all" {
                Tier::available().to_vec()
            } else {
                match Tier::from_name(&name) {
                    Some(t) => vec![t],
                    None => {
                        eprintln!("tier {name:?} is not available here (available: {:?})", Tier::available());
                        return ExitCode::from(2);
                    }
                }
            };
        } else {
            args.push(a);
        }
    }
    if args.is_empty() {
        eprintln!("usage: conformance [--isa NAME|all] PATH...   (files or directories of .jsonl / .jsonl.gz)");
        return ExitCode::from(2);
    }
    println!(
        "target {} tiers {}",
        std::env::consts::ARCH,
        tiers.iter().map(|t| t.name()).collect::<Vec<_>>().join(",")
    );
    let mut files = Vec::new();
    for a in &args {
        collect(Path::new(a), &mut files);
    }
    if files.is_empty() {
        eprintln!("no .jsonl or .jsonl.gz files under {args:?}");
        return ExitCode::from(2);
    }
    let mut total = Tally::default();
    for file in &files {
        let before = (total.passed, total.failed, total.unparsable);
        if let Err(e) = run_file(file, &tiers, &mut total) {
            eprintln!("{}: cannot read: {e}", file.display());
            total.unparsable += 1;
        }
        println!(
            "{}: {} passed, {} failed, {} unparsable",
            file.display(),
            total.passed - before.0,
            total.failed - before.1,
            total.unparsable - before.2
        );
    }
    let failed = total.failed + total.unparsable;
    println!("{} passed, {} failed", total.passed, failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(p) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                eprintln!("{}: {e}", p.display());
                return;
            }
        };
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else {
        let name = p.to_string_lossy();
        if name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") {
            out.push(p.to_path_buf());
        } else if !p.exists() {
            eprintln!("{}: no such file", p.display());
            out.push(p.to_path_buf()); // reported as unreadable
        }
    }
}

fn run_file(path: &Path, tiers: &[Tier], t: &mut Tally) -> std::io::Result<()> {
    let f = std::fs::File::open(path)?;
    let reader: Box<dyn Read> = if path.to_string_lossy().ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    };
    // Vectors sharing a codec, array type, fill value and direction form one batch, run as
    // one buffer so that the vector kernels see full lanes.
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (n, line) in BufReader::new(reader).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match parse(&line) {
            Ok(v) => {
                let key = format!("{}|{}|{:?}|{}", v.codec_json, v.array_type, v.fill, v.decode);
                let gi = *index.entry(key).or_insert_with(|| {
                    groups.push(Group { vectors: Vec::new() });
                    groups.len() - 1
                });
                if let Some(g) = groups.get_mut(gi) {
                    g.vectors.push((n + 1, line, v));
                }
            }
            Err(why) => {
                t.unparsable += 1;
                if t.shown < MAX_SHOWN {
                    t.shown += 1;
                    println!("UNPARSABLE {}:{}: {why}\n    {line}", path.display(), n + 1);
                }
            }
        }
    }
    for g in &groups {
        for &tier in tiers {
            for (line_no, line, why) in run_group(g, tier) {
                match why {
                    None => t.passed += 1,
                    Some(why) => {
                        t.failed += 1;
                        if t.shown < MAX_SHOWN {
                            t.shown += 1;
                            println!("MISMATCH {}:{line_no} [{tier}]: {why}\n    {line}", path.display());
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// One vector, parsed.
struct Vector {
    codec_json: String,
    array_type: DataType,
    fill: Option<String>,
    decode: bool,
    src: DataType,
    dst: DataType,
    input: Option<u64>,
    expected: String,
}

struct Group {
    vectors: Vec<(usize, String, Vector)>,
}

/// Parse a line into a vector; an error means the line itself is malformed.
fn parse(line: &str) -> Result<Vector, String> {
    let v: HashMap<String, Box<RawValue>> = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let get = |k: &str| v.get(k).map(|r| r.get()).filter(|s| *s != "null");
    let string = |k: &str| -> Result<Option<String>, String> {
        get(k).map(|s| serde_json::from_str::<String>(s).map_err(|e| format!("{k}: {e}"))).transpose()
    };
    let src = parse_type(&string("src")?.ok_or("missing src")?)?;
    let dst = parse_type(&string("dst")?.ok_or("missing dst")?)?;
    let decode = match string("direction")?.as_deref() {
        None | Some("encode") => false,
        Some("decode") => true,
        Some(other) => return Err(format!("bad direction {other:?}")),
    };
    let expected = string("expected")?.ok_or("missing expected")?;
    if expected != "invalid" && expected != "error" {
        parse_hex(&expected)?;
    }
    let codec_json = match get("configuration") {
        Some(raw) => format!("{{\"name\":\"cast_value\",\"configuration\":{raw}}}"),
        None => {
            let mut c = format!("{{\"data_type\":\"{}\"", if decode { src } else { dst });
            if let Some(r) = get("rounding") {
                c += &format!(",\"rounding\":{r}");
            }
            if let Some(o) = get("out_of_range") {
                c += &format!(",\"out_of_range\":{o}");
            }
            if let Some(m) = get("scalar_map") {
                c += &format!(",\"scalar_map\":{{\"{}\":{m}}}", if decode { "decode" } else { "encode" });
            }
            format!("{{\"name\":\"cast_value\",\"configuration\":{c}}}}}")
        }
    };
    let input = string("input")?.map(|s| parse_hex(&s)).transpose()?;
    if input.is_none() && expected != "invalid" {
        return Err("missing input".into());
    }
    Ok(Vector {
        codec_json,
        array_type: if decode { dst } else { src },
        fill: get("fill_value").map(str::to_string),
        decode,
        src,
        dst,
        input,
        expected,
    })
}

/// Run a batch on one tier: (line number, line, mismatch or None) per vector.
fn run_group(g: &Group, tier: Tier) -> Vec<(usize, &str, Option<String>)> {
    let Some((_, _, first)) = g.vectors.first() else { return Vec::new() };
    let plan = CodecMetadata::from_json(&first.codec_json).and_then(|codec| {
        let fill = first.fill.as_deref().map(OwnedFillValue::from_json).transpose()?;
        codec.bind(first.array_type, fill.as_ref())
    });
    let mut out = Vec::new();
    let plan = match plan {
        Err(e) => {
            for (n, line, v) in &g.vectors {
                let why = (v.expected != "invalid").then(|| format!("construction failed: {e}"));
                out.push((*n, line.as_str(), why));
            }
            return out;
        }
        Ok(p) => p.with_tier(tier),
    };
    let Some(plan) = plan else {
        for (n, line, _) in &g.vectors {
            out.push((*n, line.as_str(), Some(format!("tier {tier} unavailable"))));
        }
        return out;
    };
    let mut items = Vec::new();
    for (n, line, v) in &g.vectors {
        match v.input {
            Some(i) if v.expected != "invalid" => items.push((*n, line.as_str(), v, i)),
            _ => out.push((*n, line.as_str(), Some("construction succeeded, expected invalid".into()))),
        }
    }
    let (src, dst) = (first.src, first.dst);
    let mut start = 0;
    while start < items.len() {
        let rest = items.get(start..).unwrap_or(&[]);
        let bytes: Vec<u8> = rest.iter().flat_map(|&(_, _, _, i)| to_bytes(src, i)).collect();
        let mut buf = vec![0u8; rest.len() * dst.size()];
        let r = if first.decode { plan.decode(&bytes, &mut buf) } else { plan.encode(&bytes, &mut buf) };
        let failed_at = match &r {
            Ok(()) => rest.len(),
            Err(CastError::Element(e)) => e.index,
            Err(e) => {
                for &(n, line, _, _) in rest {
                    out.push((n, line, Some(format!("cast failed: {e}"))));
                }
                return out;
            }
        };
        for (k, &(n, line, v, _)) in rest.iter().enumerate().take(failed_at) {
            let got = read_bits(dst.format(), buf.get(k * dst.size()..(k + 1) * dst.size()).unwrap_or(&[]));
            out.push((n, line, compare(dst, got, &v.expected)));
        }
        if let (Err(e), Some(&(n, line, v, _))) = (&r, rest.get(failed_at)) {
            let why = (v.expected != "error").then(|| format!("cast failed: {e}"));
            out.push((n, line, why));
        }
        start += failed_at + 1;
    }
    out
}

fn compare(dst: DataType, got: u64, expected: &str) -> Option<String> {
    if expected == "error" {
        return Some(format!("cast gave {got:#x}, expected an error"));
    }
    let want = parse_hex(expected).unwrap_or(u64::MAX);
    let mask = dst.format().mask();
    let nan = |b| dst.decode_bits(b) == Decoded::Nan;
    if (got & mask) == (want & mask) || (nan(want) && nan(got)) {
        None
    } else {
        Some(format!("got {got:#x}, expected {want:#x}"))
    }
}

fn parse_type(name: &str) -> Result<DataType, String> {
    DataType::from_name(name).ok_or_else(|| format!("unknown data type {name:?}"))
}

fn parse_hex(s: &str) -> Result<u64, String> {
    let h = s.strip_prefix("0x").ok_or_else(|| format!("not hex: {s:?}"))?;
    u64::from_str_radix(h, 16).map_err(|e| format!("{s:?}: {e}"))
}

/// The input element as it sits in memory: native-endian, sub-byte types as their byte.
fn to_bytes(t: DataType, bits: u64) -> Vec<u8> {
    match t.size() {
        1 => vec![bits as u8],
        2 => (bits as u16).to_ne_bytes().to_vec(),
        4 => (bits as u32).to_ne_bytes().to_vec(),
        _ => bits.to_ne_bytes().to_vec(),
    }
}
