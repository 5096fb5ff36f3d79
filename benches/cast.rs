//! criterion benchmarks of encode throughput (bytes read + written), ids
//! `src->dst/rounding/oor/isa/N`: the hot set and one case of every kernel class on every
//! available tier, with `half`'s slice conversions and a plain per-element loop beside the
//! f32<->f16 and f32<->bf16 cases. The throughput example gives the wider table with the
//! memcpy ratio.

use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastPlan, DataType as T, OutOfRange, Rounding};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use half::{bf16, f16};
use std::hint::black_box;

const N: usize = 1 << 16;

const CASES: &[(T, T, Rounding, Option<OutOfRange>)] = &[
    (T::Float64, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::Float64, Rounding::NearestEven, None),
    (T::Float32, T::Float16, Rounding::NearestEven, Some(OutOfRange::Clamp)),
    (T::Float16, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::BFloat16, Rounding::NearestEven, Some(OutOfRange::Clamp)),
    (T::BFloat16, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::UInt8, Rounding::TowardsZero, Some(OutOfRange::Clamp)),
    (T::Float64, T::Int16, Rounding::NearestEven, Some(OutOfRange::Wrap)),
    (T::Int32, T::Int8, Rounding::NearestEven, Some(OutOfRange::Clamp)),
    (T::Float8E4M3, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::Float8E5M2, Rounding::NearestEven, Some(OutOfRange::Clamp)),
    // One of every other kernel class.
    (T::UInt8, T::UInt8, Rounding::NearestEven, None),
    (T::Int4, T::Float64, Rounding::NearestEven, None),
    (T::UInt64, T::Int32, Rounding::NearestEven, Some(OutOfRange::Wrap)),
    (T::UInt64, T::Float64, Rounding::NearestEven, None),
    (T::Float16, T::Float64, Rounding::NearestEven, None),
    (T::Float64, T::Float8E8M0FNU, Rounding::NearestEven, Some(OutOfRange::Clamp)),
];

/// Deterministic inputs: normal values that cast without error (a random target value
/// brought back to the source type), so the benchmark measures the fast path.
fn input(src: T, dst: T, plan: &CastPlan) -> Vec<u8> {
    let back = CastPlan::new(&CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp)), dst, None).ok();
    let mut out = Vec::with_capacity(N * src.size());
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..N {
        let mut bits = 0;
        for _ in 0..32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = x & dst.format().mask();
            let cand = back
                .as_ref()
                .and_then(|b| scalar::cast_element(b.encoder(), t).ok())
                .unwrap_or(x & src.format().mask());
            if plain(src, cand) && plain(dst, t) && scalar::cast_element(plan.encoder(), cand).is_ok() {
                bits = cand;
                break;
            }
        }
        match src.size() {
            1 => out.push(bits as u8),
            2 => out.extend_from_slice(&(bits as u16).to_ne_bytes()),
            4 => out.extend_from_slice(&(bits as u32).to_ne_bytes()),
            _ => out.extend_from_slice(&bits.to_ne_bytes()),
        }
    }
    out
}

/// A finite non-zero normal value (or any non-zero integer).
fn plain(t: T, bits: u64) -> bool {
    match t.decode_bits(bits) {
        cast_value_kernels::Decoded::Finite { mant, .. } => {
            let f = t.format();
            mant != 0 && (t.is_integer() || !f.subnormals || mant >> f.man_bits != 0)
        }
        _ => false,
    }
}

fn bench(c: &mut Criterion) {
    let oor_name = |o: Option<OutOfRange>| o.map_or("none", |x| x.as_str());
    let mut g = c.benchmark_group("encode");
    for &(src, dst, r, oor) in CASES {
        let plan = CastPlan::new(&CastConfig::new(dst).with_rounding(r).with_out_of_range(oor), src, None)
            .expect("valid benchmark configuration");
        let inp = input(src, dst, &plan);
        let mut out = vec![0u8; N * dst.size()];
        g.throughput(Throughput::Bytes((inp.len() + out.len()) as u64));
        for &tier in Tier::available() {
            let Some(plan) = plan.clone().with_tier(tier) else { continue };
            let id = format!("{src}->{dst}/{r}/{}/{tier}/{N}", oor_name(oor));
            g.bench_function(id, |b| b.iter(|| plan.encode(black_box(&inp), black_box(&mut out))));
        }
        // Peers on the pairs they cover: half's runtime-detected slice conversions and a
        // plain per-element loop of the same conversion.
        let pre = format!("{src}->{dst}/{r}/{}", oor_name(oor));
        let floats: Vec<f32> = if src == T::Float32 {
            inp.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect()
        } else {
            Vec::new()
        };
        let halves: Vec<u16> = if src.size() == 2 {
            inp.chunks_exact(2).map(|c| u16::from_ne_bytes([c[0], c[1]])).collect()
        } else {
            Vec::new()
        };
        match (src, dst) {
            (T::Float32, T::Float16) => {
                let mut o = vec![f16::ZERO; N];
                g.bench_function(format!("{pre}/half-slice/{N}"), |b| {
                    b.iter(|| o.convert_from_f32_slice(black_box(&floats)))
                });
                g.bench_function(format!("{pre}/per-element/{N}"), |b| {
                    b.iter(|| o.iter_mut().zip(black_box(&floats)).for_each(|(d, &s)| *d = f16::from_f32(s)))
                });
            }
            (T::Float32, T::BFloat16) => {
                let mut o = vec![bf16::ZERO; N];
                g.bench_function(format!("{pre}/half-slice/{N}"), |b| {
                    b.iter(|| o.convert_from_f32_slice(black_box(&floats)))
                });
                g.bench_function(format!("{pre}/per-element/{N}"), |b| {
                    b.iter(|| o.iter_mut().zip(black_box(&floats)).for_each(|(d, &s)| *d = bf16::from_f32(s)))
                });
            }
            (T::Float16, T::Float32) => {
                let h: &[f16] = halves.reinterpret_cast();
                let mut o = vec![0f32; N];
                g.bench_function(format!("{pre}/half-slice/{N}"), |b| {
                    b.iter(|| black_box(h).convert_to_f32_slice(&mut o))
                });
                g.bench_function(format!("{pre}/per-element/{N}"), |b| {
                    b.iter(|| o.iter_mut().zip(black_box(h)).for_each(|(d, &s)| *d = s.to_f32()))
                });
            }
            (T::BFloat16, T::Float32) => {
                let h: &[bf16] = halves.reinterpret_cast();
                let mut o = vec![0f32; N];
                g.bench_function(format!("{pre}/half-slice/{N}"), |b| {
                    b.iter(|| black_box(h).convert_to_f32_slice(&mut o))
                });
                g.bench_function(format!("{pre}/per-element/{N}"), |b| {
                    b.iter(|| o.iter_mut().zip(black_box(h)).for_each(|(d, &s)| *d = s.to_f32()))
                });
            }
            _ => {}
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
