//! Conformance runner: checks golden vectors (format: shared/conformance/README.md) against
//! the crate, building every codec from its JSON through the crate's own parser.
//!
//! `cargo run --release --example conformance -- PATH...` (files or directories of `.jsonl`
//! / `.jsonl.gz`). Prints up to 20 mismatches, a count per file and, last, `N passed, M
//! failed`; exits non-zero if any vector failed or any line could not be parsed.

use cast_value_kernels::json::{CodecMetadata, OwnedFillValue};
use cast_value_kernels::kernels::scalar::read_bits;
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: conformance PATH...   (files or directories of .jsonl / .jsonl.gz)");
        return ExitCode::from(2);
    }
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
        if let Err(e) = run_file(file, &mut total) {
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

fn run_file(path: &Path, t: &mut Tally) -> std::io::Result<()> {
    let f = std::fs::File::open(path)?;
    let reader: Box<dyn Read> = if path.to_string_lossy().ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    };
    for (n, line) in BufReader::new(reader).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match check(&line) {
            Ok(Ok(())) => t.passed += 1,
            Ok(Err(why)) => {
                t.failed += 1;
                if t.shown < MAX_SHOWN {
                    t.shown += 1;
                    println!("MISMATCH {}:{}: {why}\n    {line}", path.display(), n + 1);
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
    Ok(())
}

/// Outer error: the line itself is malformed. Inner error: the crate disagrees.
fn check(line: &str) -> Result<Result<(), String>, String> {
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
    let array_type = if decode { dst } else { src };
    let plan = CodecMetadata::from_json(&codec_json).and_then(|codec| {
        let fill = get("fill_value").map(OwnedFillValue::from_json).transpose()?;
        codec.bind(array_type, fill.as_ref())
    });
    let plan = match (plan, expected.as_str()) {
        (Err(_), "invalid") => return Ok(Ok(())),
        (Ok(_), "invalid") => return Ok(Err("construction succeeded, expected invalid".into())),
        (Err(e), _) => return Ok(Err(format!("construction failed: {e}"))),
        (Ok(p), _) => p,
    };
    let input = parse_hex(&string("input")?.ok_or("missing input")?)?;
    let src_bytes = to_bytes(src, input);
    let mut out = vec![0u8; dst.size()];
    let r = if decode { plan.decode(&src_bytes, &mut out) } else { plan.encode(&src_bytes, &mut out) };
    Ok(match (r, expected.as_str()) {
        (Err(CastError::Element(_)), "error") => Ok(()),
        (Err(e), _) => Err(format!("cast failed: {e}")),
        (Ok(()), "error") => Err(format!("cast gave {:#x}, expected an error", read_bits(dst.format(), &out))),
        (Ok(()), exp) => {
            let want = parse_hex(exp)?;
            let got = read_bits(dst.format(), &out);
            let mask = dst.format().mask();
            let nan = |b| dst.decode_bits(b) == Decoded::Nan;
            if (got & mask) == (want & mask) || (nan(want) && nan(got)) {
                Ok(())
            } else {
                Err(format!("got {got:#x}, expected {want:#x}"))
            }
        }
    })
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
