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
use cast_value_kernels::{CastConfig, CastPlan, DataType, FillValue, OutOfRange, Rounding};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

/// The default run: the hot set (issue targets) and at least one case of every kernel class.
fn default_cases() -> Vec<(DataType, DataType, Rounding, Option<OutOfRange>)> {
    use DataType as T;
    use OutOfRange::{Clamp, Wrap};
    use Rounding::*;
    let mut v = Vec::new();
    for (a, b) in [
        (T::Float64, T::Float32),
        (T::Float32, T::Float64),
        (T::Float32, T::Float16),
        (T::Float16, T::Float32),
        (T::Float32, T::BFloat16),
        (T::BFloat16, T::Float32),
        (T::Float8E4M3, T::Float32),
        (T::Float32, T::Float8E4M3),
        (T::Float8E5M2, T::Float32),
        (T::Float32, T::Float8E5M2),
    ] {
        for (r, o) in [(NearestEven, None), (NearestEven, Some(Clamp)), (TowardsZero, None)] {
            v.push((a, b, r, o));
        }
    }
    for a in [T::Float32, T::Float64] {
        for b in [T::Int8, T::UInt8, T::Int16, T::UInt16, T::Int32] {
            for r in Rounding::ALL {
                for o in [None, Some(Clamp), Some(Wrap)] {
                    v.push((a, b, r, o));
                }
            }
        }
    }
    for a in [T::Int32, T::Int16] {
        for b in [T::Int8, T::UInt8] {
            for o in [Some(Clamp), Some(Wrap)] {
                v.push((a, b, NearestEven, o));
            }
        }
    }
    // One or more of every other kernel class.
    v.extend([
        (T::UInt8, T::UInt8, NearestEven, None),          // identity, small source
        (T::Float32, T::Float32, NearestEven, None),      // identity
        (T::Float4E2M1FN, T::Float16, NearestEven, None), // small source (table)
        (T::Int4, T::Float64, NearestEven, None),         // small source (table)
        (T::UInt64, T::Int32, NearestEven, Some(Wrap)),   // int -> int
        (T::UInt64, T::Float64, NearestEven, None),       // int -> float
        (T::Int64, T::Float32, TowardsZero, None),        // int -> float
        (T::BFloat16, T::Int8, NearestEven, Some(Clamp)), // float -> int
        (T::Float16, T::Float64, NearestEven, None),      // float widen
        (T::Float64, T::Float8E8M0FNU, NearestEven, Some(Clamp)), // float narrow
        (T::Float32, T::Float8E4M3FNUZ, NearestAway, Some(Clamp)), // float narrow
    ]);
    v
}

struct Options {
    pairs: Option<Vec<(DataType, DataType)>>,
    roundings: Vec<Rounding>,
    oors: Vec<Option<OutOfRange>>,
    map: bool,
    hits: f64,
    n: usize,
    runs: usize,
    csv: bool,
    tier: Option<Tier>,
}

fn usage() -> &'static str {
    "usage: throughput [--pairs SRC:DST,...|all] [--rounding MODE,...|all] [--oor none,clamp,wrap|all]\n\
     \x20                 [--n N|2^K] [--runs R] [--isa NAME] [--map] [--hits PERCENT] [--csv]\n\
     default: the hot set and one case of every kernel class; with --pairs, those pairs x\n\
     --rounding (default nearest-even,towards-zero) x --oor (default all valid).\n\
     --map adds scalar_map.encode [[NaN,0],[Infinity,0],[-Infinity,0]] (float sources);\n\
     --hits P also makes P% of the input NaN (map hits). n = 2^20, 7 runs (median)."
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        pairs: None,
        roundings: vec![Rounding::NearestEven, Rounding::TowardsZero],
        map: false,
        hits: 0.0,
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
                o.pairs = Some(if v == "all" {
                    let all = cast_value_kernels::ALL_DATA_TYPES;
                    all.iter().flat_map(|&s| all.iter().map(move |&d| (s, d))).collect()
                } else {
                    v.split(',').map(parse_pair).collect::<Result<_, _>>()?
                });
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
            "--map" => o.map = true,
            "--hits" => {
                o.hits = value()?.parse().map_err(|e| format!("--hits: {e}"))?;
                o.map = true;
            }
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
    // In range without any out_of_range rule: the data the table measures has no hits.
    let strict_cfg = CastConfig::new(dst).with_rounding(enc.rounding());
    let strict = CastPlan::new(&strict_cfg, src, None).ok();
    let in_range = |b: u64| match &strict {
        Some(p) => scalar::cast_element(p.encoder(), b).is_ok(),
        None => scalar::cast_element(enc, b).is_ok(),
    };
    let mut out = Vec::with_capacity(n);
    let low_bits = src.bits().min(8) / 2;
    while out.len() < n {
        let mut pick = None;
        // A random plain source value first (what widening pairs see); when that does not
        // cast, a random target value brought back (what narrowing pairs see).
        let direct = rng.next() & src.format().mask();
        if plain_value(src, direct) && in_range(direct) && scalar::cast_element(enc, direct).is_ok() {
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
            if (rare || plain_value(src, noisy)) && in_range(noisy) && scalar::cast_element(enc, noisy).is_ok() {
                pick = Some(noisy);
                break;
            }
            if (rare || plain_value(src, s)) && in_range(s) && scalar::cast_element(enc, s).is_ok() {
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
    let mut v = vec![0u8; bits.len() * t.size()];
    for (&b, c) in bits.iter().zip(v.chunks_exact_mut(t.size())) {
        scalar::write_bits(t.format(), b, c);
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
    static MAP: [(FillValue, FillValue); 3] = [
        (FillValue::NaN, FillValue::Int(0)),
        (FillValue::Infinity, FillValue::Int(0)),
        (FillValue::NegInfinity, FillValue::Int(0)),
    ];
    let cases = match &o.pairs {
        None => default_cases(),
        Some(pairs) => {
            let mut v = Vec::new();
            for &(s, d) in pairs {
                for &r in &o.roundings {
                    for &x in &o.oors {
                        v.push((s, d, r, x));
                    }
                }
            }
            v
        }
    };
    for (src, dst, rounding, oor) in cases {
        {
            {
                if oor == Some(OutOfRange::Wrap) && dst.is_float() {
                    continue;
                }
                let mut config = CastConfig::new(dst).with_rounding(rounding).with_out_of_range(oor);
                if o.map {
                    if !src.is_float() {
                        continue;
                    }
                    config = config.with_scalar_map(&MAP, &[]);
                }
                let Ok(mut plan) = CastPlan::new(&config, src, None) else { continue };
                if let Some(t) = o.tier {
                    match plan.with_tier(t) {
                        Some(p) => plan = p,
                        None => continue,
                    }
                }
                let mut bits = make_input(&plan, o.n, &mut rng);
                if bits.is_empty() {
                    continue;
                }
                if o.hits > 0.0 {
                    // Every k-th element a NaN: a scalar_map hit.
                    let k = ((100.0 / o.hits).round() as usize).max(1);
                    let nan = src.format().canonical_nan();
                    bits.iter_mut().step_by(k).for_each(|b| *b = nan);
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
