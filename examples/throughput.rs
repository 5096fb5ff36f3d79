//! The throughput table: GB/s (bytes read + written) of encode for a representative set of
//! type pairs x rounding modes x out_of_range settings, with the ratio to a memcpy of the same
//! number of bytes measured in the same run, just before each case.
//!
//! ```text
//! cargo run --release --example throughput
//! cargo run --release --example throughput -- --pairs float32:uint8,float64:float32 \
//!     --rounding all --oor all --n 2^24 --runs 9 --isa scalar --csv
//! cargo run --release --example throughput -- --pairs float64:int32 --oor clamp,wrap --out-of-range 10
//! ```
//!
//! Input data is drawn so that every element casts without error (values spread over the
//! target's range, perturbed in their low bits so that rounding has work to do). With
//! `--out-of-range P`, P% of the elements of the clamp and wrap rows lie beyond the target's
//! range instead, half above it and half below (magnitudes up to 2^16 times the bound, or
//! 2^16 below an unsigned target's zero); the default run adds a 10% variant of every clamp
//! and wrap row of the hot set.

use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastPlan, DataType, FillValue, OutOfRange, Rounding};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

/// The default run: the hot set (issue targets) and at least one case of every kernel class.
fn default_cases() -> Vec<Case> {
    use DataType as T;
    use OutOfRange::{Clamp, Wrap};
    use Rounding::*;
    let mut v: Vec<(DataType, DataType, Rounding, Option<OutOfRange>)> = Vec::new();
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
    // The hot set's clamp and wrap rows again, 10% of their input out of range (where the
    // source can hold such values: not the widenings).
    let hot: Vec<_> = v.iter().copied().filter(|c| c.3.is_some()).collect();
    let mut v: Vec<Case> = v.into_iter().map(|(a, b, r, o)| (a, b, r, o, 0.0)).collect();
    v.extend(hot.into_iter().map(|(a, b, r, o)| (a, b, r, o, 10.0)));
    // One or more of every other kernel class.
    let others = [
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
    ];
    v.extend(others.into_iter().map(|(a, b, r, o)| (a, b, r, o, 0.0)));
    v
}

/// A row: source, target, rounding, out_of_range, and the share (%) of the input beyond the
/// target's range.
type Case = (DataType, DataType, Rounding, Option<OutOfRange>, f64);

struct Options {
    pairs: Option<Vec<(DataType, DataType)>>,
    roundings: Vec<Rounding>,
    oors: Vec<Option<OutOfRange>>,
    map: bool,
    hits: f64,
    out_of_range: f64,
    n: usize,
    runs: usize,
    csv: bool,
    tier: Option<Tier>,
}

fn usage() -> &'static str {
    "usage: throughput [--pairs SRC:DST,...|all] [--rounding MODE,...|all] [--oor none,clamp,wrap|all]\n\
     \x20                 [--n N|2^K] [--runs R] [--isa NAME] [--map] [--hits PERCENT]\n\
     \x20                 [--out-of-range PERCENT] [--csv]\n\
     default: the hot set and one case of every kernel class; with --pairs, those pairs x\n\
     --rounding (default nearest-even,towards-zero) x --oor (default all valid).\n\
     --map adds scalar_map.encode [[NaN,0],[Infinity,0],[-Infinity,0]] (float sources);\n\
     --hits P also makes P% of the input NaN (map hits); --out-of-range P puts P% of the\n\
     input of clamp and wrap rows beyond the target's range. n = 2^20, 7 runs (median)."
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        pairs: None,
        roundings: vec![Rounding::NearestEven, Rounding::TowardsZero],
        map: false,
        hits: 0.0,
        out_of_range: 0.0,
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
            "--out-of-range" => {
                o.out_of_range = value()?.parse().map_err(|e| format!("--out-of-range: {e}"))?;
                if !(0.0..=100.0).contains(&o.out_of_range) {
                    return Err("--out-of-range takes a percentage, 0 to 100".into());
                }
            }
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

/// Replace `share`% of `bits` (at random places) by source values beyond the target's range,
/// alternately above and below it, each checked with the scalar reference: out of range
/// without a rule, cast under the plan's. Returns false if the source has no such value.
fn put_out_of_range(plan: &CastPlan, bits: &mut [u64], share: f64, rng: &mut Rng) -> bool {
    let (src, dst) = (plan.array_type(), plan.data_type());
    let enc = plan.encoder();
    let strict = CastPlan::new(&CastConfig::new(dst).with_rounding(enc.rounding()), src, None).ok();
    let to_f64 = CastPlan::new(&CastConfig::new(DataType::Float64), dst, None).ok();
    let from_f64 =
        CastPlan::new(&CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp)), DataType::Float64, None).ok();
    let (Some(strict), Some(to_f64), Some(from_f64)) = (strict, to_f64, from_f64) else { return false };
    let bound = |b: u64| scalar::cast_element(to_f64.encoder(), b).map(f64::from_bits).unwrap_or(0.0);
    let (lo, hi) = (bound(dst.format().min_bits()), bound(dst.format().max_bits()));
    let beyond = |above: bool, rng: &mut Rng| -> Option<u64> {
        // Up to 2^16 times the bound (2^16 below zero for a lower bound of 0).
        let scale = 2f64.powf((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 16.0);
        let x = match above {
            true => hi.max(1.0) * scale + 1.0,
            false if lo < 0.0 => lo * scale - 1.0,
            false => -scale,
        };
        let b = scalar::cast_element(from_f64.encoder(), x.to_bits()).ok()?;
        let out =
            matches!(scalar::cast_element(strict.encoder(), b), Err(cast_value_kernels::Reason::OutOfRange { .. }));
        (out && scalar::cast_element(enc, b).is_ok()).then_some(b)
    };
    let (mut above, mut any) = (true, false);
    let threshold = (share / 100.0 * u64::MAX as f64) as u64;
    for b in bits.iter_mut() {
        if rng.next() > threshold {
            continue;
        }
        // A few tries each side: a bound at the source's own limit has nothing beyond it.
        if let Some(v) = (0..8).find_map(|_| beyond(above, rng)).or_else(|| (0..8).find_map(|_| beyond(!above, rng))) {
            *b = v;
            any = true;
        }
        above = !above;
    }
    any
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
        println!("src,dst,rounding,out_of_range,isa,n,gb_per_s,ratio_to_memcpy,beyond_range_pct");
    } else {
        println!("# cast_value encode throughput: {} elements, median of {} runs, on {}", o.n, o.runs, cpu_name());
        println!("# GB/s counts bytes read + written; ratio = GB/s / memcpy GB/s of the same byte count, same run");
        println!(
            "{:<34} {:<16} {:<10} {:<7} {:>8} {:>12} {:>7}",
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
                        v.push((s, d, r, x, if x.is_some() { o.out_of_range } else { 0.0 }));
                    }
                }
            }
            v
        }
    };
    for (src, dst, rounding, oor, beyond) in cases {
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
                if beyond > 0.0 && !put_out_of_range(&plan, &mut bits, beyond, &mut rng) {
                    continue; // the source holds no value beyond the target's range
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
                // The rule, with the share of the input beyond the range when there is one.
                let oor_col = if beyond > 0.0 { format!("{oor_name} {beyond}%") } else { oor_name.to_string() };
                let ratio = gbps / copy_gbps;
                if o.csv {
                    println!("{src},{dst},{rounding},{oor_name},{},{},{gbps:.4},{ratio:.4},{beyond}", plan.tier(), o.n);
                } else {
                    println!(
                        "{:<34} {:<16} {:<10} {:<7} {:>8.3} {:>12.2} {:>7.3}",
                        format!("{src} -> {dst}"),
                        rounding.as_str(),
                        oor_col,
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
