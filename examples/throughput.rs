//! The throughput table: GB/s (bytes read + written) of encode for a representative set of
//! type pairs x rounding modes x out_of_range settings, with the ratio to a memcpy of the same
//! number of bytes measured in the same run, just before each case.
//!
//! ```text
//! cargo run --release --example throughput
//! cargo run --release --example throughput -- --pairs float32:uint8,float64:float32 \
//!     --rounding all --oor all --n 2^24 --runs 9 --isa scalar --csv
//! ```
//!
//! Input data is drawn so that every element casts without error (values spread over the
//! target's range, perturbed in their low bits so that rounding has work to do).

use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastPlan, DataType, OutOfRange, Rounding};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

const DEFAULT_PAIRS: &[(&str, &str)] = &[
    ("float64", "float32"),
    ("float32", "float64"),
    ("float32", "float16"),
    ("float16", "float32"),
    ("float32", "bfloat16"),
    ("bfloat16", "float32"),
    ("float32", "uint8"),
    ("float32", "int16"),
    ("float64", "int8"),
    ("float64", "int32"),
    ("int32", "int8"),
    ("int16", "uint8"),
    ("float8_e4m3", "float32"),
    ("float32", "float8_e4m3"),
    ("float8_e5m2", "float32"),
    ("float32", "float8_e5m2"),
    ("uint64", "float64"),
    ("int64", "float32"),
    ("float4_e2m1fn", "float16"),
    ("float32", "float8_e8m0fnu"),
    ("uint8", "uint8"),
];

struct Options {
    pairs: Vec<(DataType, DataType)>,
    roundings: Vec<Rounding>,
    oors: Vec<Option<OutOfRange>>,
    n: usize,
    runs: usize,
    csv: bool,
    tier: Option<Tier>,
}

fn usage() -> &'static str {
    "usage: throughput [--pairs SRC:DST,...|all] [--rounding MODE,...|all] [--oor none,clamp,wrap|all]\n\
     \x20                 [--n N|2^K] [--runs R] [--isa NAME] [--csv]\n\
     defaults: a representative pair set, nearest-even and towards-zero, every valid out_of_range,\n\
     n = 2^20, 7 runs (median), the tier dispatch picks"
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        pairs: DEFAULT_PAIRS
            .iter()
            .map(|(a, b)| {
                (DataType::from_name(a).unwrap_or(DataType::UInt8), DataType::from_name(b).unwrap_or(DataType::UInt8))
            })
            .collect(),
        roundings: vec![Rounding::NearestEven, Rounding::TowardsZero],
        oors: vec![None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)],
        n: 1 << 20,
        runs: 7,
        csv: false,
        tier: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--pairs" => {
                let v = value()?;
                o.pairs = if v == "all" {
                    let all = cast_value_kernels::ALL_DATA_TYPES;
                    all.iter().flat_map(|&s| all.iter().map(move |&d| (s, d))).collect()
                } else {
                    v.split(',').map(parse_pair).collect::<Result<_, _>>()?
                };
            }
            "--rounding" => {
                let v = value()?;
                o.roundings = if v == "all" {
                    Rounding::ALL.to_vec()
                } else {
                    v.split(',')
                        .map(|r| Rounding::from_name(r).ok_or(format!("unknown rounding {r:?}")))
                        .collect::<Result<_, _>>()?
                };
            }
            "--oor" => {
                let v = value()?;
                o.oors = if v == "all" {
                    vec![None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)]
                } else {
                    v.split(',')
                        .map(|s| match s {
                            "none" => Ok(None),
                            other => {
                                OutOfRange::from_name(other).map(Some).ok_or(format!("unknown out_of_range {s:?}"))
                            }
                        })
                        .collect::<Result<_, _>>()?
                };
            }
            "--n" => o.n = parse_size(&value()?)?,
            "--runs" => o.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--isa" => {
                let v = value()?;
                o.tier = Some(Tier::from_name(&v).ok_or(format!("tier {v:?} is not available here"))?);
            }
            "--csv" => o.csv = true,
            "-h" | "--help" => return Err(usage().into()),
            other => return Err(format!("unknown option {other:?}\n{}", usage())),
        }
    }
    if o.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    Ok(o)
}

fn parse_pair(s: &str) -> Result<(DataType, DataType), String> {
    let (a, b) = s.split_once(':').ok_or(format!("pair {s:?} is not SRC:DST"))?;
    let t = |n: &str| DataType::from_name(n).ok_or(format!("unknown data type {n:?}"));
    Ok((t(a)?, t(b)?))
}

fn parse_size(s: &str) -> Result<usize, String> {
    if let Some(k) = s.strip_prefix("2^") {
        let k: u32 = k.parse().map_err(|e| format!("--n {s}: {e}"))?;
        return 1usize.checked_shl(k).ok_or(format!("--n {s} too large"));
    }
    s.parse().map_err(|e| format!("--n {s}: {e}"))
}

/// xorshift64*: reproducible inputs without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Source elements that all cast without error under `plan`, normal values only (no NaN,
/// Inf, zero or subnormal, where the fallback allows): a random source value where it
/// casts, otherwise a random target value brought back to the source type with its low
/// bits scrambled.
fn make_input(plan: &CastPlan, n: usize, rng: &mut Rng) -> Vec<u64> {
    let (src, dst) = (plan.array_type(), plan.data_type());
    let back = CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp));
    let back = CastPlan::new(&back, dst, None).ok();
    let enc = plan.encoder();
    let mut out = Vec::with_capacity(n);
    let low_bits = src.bits().min(8) / 2;
    while out.len() < n {
        let mut pick = None;
        // A random plain source value first (what widening pairs see); when that does not
        // cast, a random target value brought back (what narrowing pairs see).
        let direct = rng.next() & src.format().mask();
        if plain_value(src, direct) && scalar::cast_element(enc, direct).is_ok() {
            out.push(direct);
            continue;
        }
        for _ in 0..16 {
            let t = rng.next() & dst.format().mask();
            if !plain_value(dst, t) {
                continue; // normal values only: NaN, Inf, zeros and subnormals are special data
            }
            let s = match back.as_ref().map(|b| scalar::cast_element(b.encoder(), t)) {
                Some(Ok(s)) => s,
                _ => rng.next() & src.format().mask(),
            };
            let noisy = s ^ (rng.next() & ((1u64 << low_bits) - 1));
            let rare = false; // specials are left out of the default data on purpose
            if (rare || plain_value(src, noisy)) && scalar::cast_element(enc, noisy).is_ok() {
                pick = Some(noisy);
                break;
            }
            if (rare || plain_value(src, s)) && scalar::cast_element(enc, s).is_ok() {
                pick = Some(s);
                break;
            }
        }
        match pick {
            Some(p) => out.push(p),
            None => {
                // Fall back to the first pattern that casts; some pairs accept almost nothing.
                let any = (0..=src.format().mask().min(1 << 16)).find(|&b| scalar::cast_element(enc, b).is_ok());
                match any {
                    Some(b) => out.push(b),
                    None => return Vec::new(),
                }
            }
        }
    }
    out
}

/// A finite, non-zero, normal value (floats), or any integer.
fn plain_value(t: DataType, bits: u64) -> bool {
    match t.decode_bits(bits) {
        cast_value_kernels::Decoded::Finite { mant, .. } => {
            let f = t.format();
            mant != 0 && (t.is_integer() || !f.subnormals || mant >> f.man_bits != 0)
        }
        _ => false,
    }
}

fn to_bytes(t: DataType, bits: &[u64]) -> Vec<u8> {
    let mut v = Vec::with_capacity(bits.len() * t.size());
    for &b in bits {
        match t.size() {
            1 => v.push(b as u8),
            2 => v.extend_from_slice(&(b as u16).to_ne_bytes()),
            4 => v.extend_from_slice(&(b as u32).to_ne_bytes()),
            _ => v.extend_from_slice(&b.to_ne_bytes()),
        }
    }
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut rng = Rng(0x1234_5678_9abc_def1);
    if o.csv {
        println!("src,dst,rounding,out_of_range,isa,n,gb_per_s,ratio_to_memcpy");
    } else {
        println!("# cast_value encode throughput: {} elements, median of {} runs, on {}", o.n, o.runs, cpu_name());
        println!("# GB/s counts bytes read + written; ratio = GB/s / memcpy GB/s of the same byte count, same run");
        println!(
            "{:<34} {:<16} {:<6} {:<7} {:>8} {:>12} {:>7}",
            "src -> dst", "rounding", "oor", "isa", "GB/s", "memcpy GB/s", "ratio"
        );
    }
    for &(src, dst) in &o.pairs {
        for &rounding in &o.roundings {
            for &oor in &o.oors {
                if oor == Some(OutOfRange::Wrap) && dst.is_float() {
                    continue;
                }
                let config = CastConfig::new(dst).with_rounding(rounding).with_out_of_range(oor);
                let Ok(mut plan) = CastPlan::new(&config, src, None) else { continue };
                if let Some(t) = o.tier {
                    match plan.with_tier(t) {
                        Some(p) => plan = p,
                        None => continue,
                    }
                }
                let bits = make_input(&plan, o.n, &mut rng);
                if bits.is_empty() {
                    continue;
                }
                let input = to_bytes(src, &bits);
                let mut output = vec![0u8; o.n * dst.size()];
                let total = input.len() + output.len();
                // memcpy of the same read+write byte count: copy total/2 bytes.
                let half = total / 2;
                let copy_src = vec![1u8; half];
                let mut copy_dst = vec![0u8; half];
                let mut ours = Vec::with_capacity(o.runs);
                let mut copies = Vec::with_capacity(o.runs);
                copy_dst.copy_from_slice(&copy_src); // warm up: fault the pages in
                if let Err(e) = plan.encode(&input, &mut output) {
                    eprintln!("{src}->{dst}: {e}");
                    return ExitCode::FAILURE;
                }
                for _ in 0..o.runs {
                    let t0 = Instant::now();
                    copy_dst.copy_from_slice(black_box(&copy_src));
                    black_box(&mut copy_dst);
                    copies.push(t0.elapsed().as_secs_f64());
                    let t0 = Instant::now();
                    let r = plan.encode(black_box(&input), &mut output);
                    black_box((&r, &mut output));
                    ours.push(t0.elapsed().as_secs_f64());
                }
                let gbps = total as f64 / median(ours) / 1e9;
                let copy_gbps = total as f64 / median(copies) / 1e9;
                let oor_name = oor.map_or("none", |x| x.as_str());
                let ratio = gbps / copy_gbps;
                if o.csv {
                    println!("{src},{dst},{rounding},{oor_name},{},{},{gbps:.4},{ratio:.4}", plan.tier(), o.n);
                } else {
                    println!(
                        "{:<34} {:<16} {:<6} {:<7} {:>8.3} {:>12.2} {:>7.3}",
                        format!("{src} -> {dst}"),
                        rounding.as_str(),
                        oor_name,
                        plan.tier().name(),
                        gbps,
                        copy_gbps,
                        ratio
                    );
                }
            }
        }
    }
    ExitCode::SUCCESS
}
