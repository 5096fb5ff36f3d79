//! criterion benchmarks of encode throughput (bytes read + written), ids
//! `src->dst/rounding/oor/isa/N`. The hot set is tracked here; the throughput example gives
//! the wider table with the memcpy ratio.

use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastPlan, DataType as T, OutOfRange, Rounding};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

const N: usize = 1 << 16;

const CASES: &[(T, T, Rounding, Option<OutOfRange>)] = &[
    (T::Float64, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::Float16, Rounding::NearestEven, None),
    (T::Float32, T::BFloat16, Rounding::NearestEven, None),
    (T::Float16, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::UInt8, Rounding::TowardsZero, Some(OutOfRange::Clamp)),
    (T::Float64, T::Int16, Rounding::NearestEven, Some(OutOfRange::Wrap)),
    (T::Int32, T::Int8, Rounding::NearestEven, Some(OutOfRange::Clamp)),
    (T::Float8E4M3, T::Float32, Rounding::NearestEven, None),
    (T::Float32, T::Float8E5M2, Rounding::NearestEven, Some(OutOfRange::Clamp)),
];

/// Deterministic inputs: random patterns, those that would fail replaced by zero.
fn input(src: T, plan: &CastPlan) -> Vec<u8> {
    let mut out = Vec::with_capacity(N * src.size());
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..N {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut bits = x & src.format().mask();
        if scalar::cast_element(plan.encoder(), bits).is_err() {
            bits = 0;
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

fn bench(c: &mut Criterion) {
    let oor_name = |o: Option<OutOfRange>| o.map_or("none", |x| x.as_str());
    let mut g = c.benchmark_group("encode");
    for &(src, dst, r, oor) in CASES {
        let plan = CastPlan::new(&CastConfig::new(dst).with_rounding(r).with_out_of_range(oor), src, None)
            .expect("valid benchmark configuration");
        for &tier in Tier::available() {
            let Some(plan) = plan.clone().with_tier(tier) else { continue };
            let inp = input(src, &plan);
            let mut out = vec![0u8; N * dst.size()];
            g.throughput(Throughput::Bytes((inp.len() + out.len()) as u64));
            let id = format!("{src}->{dst}/{r}/{}/{tier}/{N}", oor_name(oor));
            g.bench_function(id, |b| b.iter(|| plan.encode(black_box(&inp), black_box(&mut out))));
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
