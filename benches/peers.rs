// criterion benchmarks side by side with the alternatives a user has, on the same inputs in
// the same buffers (in range, and with 10% of the elements beyond the target's range for the
// clamp cases), ids `src->dst/rounding/oor/data/implementation/N`:
//
// - this crate on each x86 tier that runs here (`avx2`, `avx512`);
// - zarr-cast-value 0.5 (the Rust core of zarr-python's `cast_value` codec) on each pair it
//   has a SIMD path for, and on int32 -> uint8 / uint8 -> float64 (its slice loops);
// - `half`'s slice conversions (float32 / float64 -> float16);
// - the loop a user would write by hand: clamp, then `to_int_unchecked`, in an AVX2
//   `#[target_feature]` function (or a plain `as` loop where that is the cast).
//
// `CAST_VALUE_BENCH_N` sets the element count (`2^K` or a number; default 2^20). Run with
// `cargo bench --bench peers`, add `-- --quick` for a short pass; `examples/peers.rs` builds
// the same benchmark with the profile's panic strategy.

use cast_value_kernels::kernels::Tier;
use cast_value_kernels::{CastConfig, CastPlan, DataType as T, OutOfRange, Rounding};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use half::f16;
use half::slice::HalfFloatSliceExt;
use std::hint::black_box;
use zarr_cast_value as zcv;

/// The element count: `CAST_VALUE_BENCH_N` (a number or `2^K`), else 2^20.
fn n() -> usize {
    let v = std::env::var("CAST_VALUE_BENCH_N").unwrap_or_default();
    match v.strip_prefix("2^") {
        Some(k) => k.parse().ok().and_then(|k: u32| 1usize.checked_shl(k)),
        None => v.parse().ok(),
    }
    .unwrap_or(1 << 20)
}

/// xorshift64*: reproducible inputs without a dependency.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` values in `[lo, hi]` with fractional parts, and with `beyond` (0 to 1) of them outside
/// it, alternately above and below, by up to 2^16 times the bound's magnitude (at least 1).
fn values(n: usize, (lo, hi): (f64, f64), beyond: f64, rng: &mut Rng) -> Vec<f64> {
    let mut above = true;
    (0..n)
        .map(|_| {
            if rng.unit() < beyond {
                above = !above;
                let scale = 2f64.powf(rng.unit() * 16.0);
                if above {
                    hi.abs().max(1.0) * scale + 1.0
                } else {
                    lo - lo.abs().max(1.0) * scale - 1.0
                }
            } else {
                lo + (hi - lo) * rng.unit()
            }
        })
        .collect()
}

/// The hand-written loops: clamp, then the unchecked conversion, in AVX2 functions (the
/// compiler vectorizes them); only called where AVX2 was detected.
mod hand {
    /// `$name(src, dst)`: each element through `$conv`, in an AVX2 function.
    macro_rules! hand_loop {
        ($name:ident, $from:ty, $to:ty, |$s:ident| $conv:expr) => {
            #[target_feature(enable = "avx2")]
            pub fn $name(src: &[$from], dst: &mut [$to]) {
                for (d, &$s) in dst.iter_mut().zip(src) {
                    *d = $conv;
                }
            }
        };
    }
    // SAFETY (each `to_int_unchecked`): the value is clamped to the target's range first, and
    // the inputs hold no NaN.
    hand_loop!(f64_u8, f64, u8, |s| unsafe { s.round_ties_even().clamp(0.0, 255.0).to_int_unchecked() });
    hand_loop!(f32_u8, f32, u8, |s| unsafe { s.round_ties_even().clamp(0.0, 255.0).to_int_unchecked() });
    hand_loop!(f32_i16, f32, i16, |s| unsafe { s.round_ties_even().clamp(-32768.0, 32767.0).to_int_unchecked() });
    hand_loop!(f64_i32, f64, i32, |s| unsafe {
        s.round_ties_even().clamp(-2_147_483_648.0, 2_147_483_647.0).to_int_unchecked()
    });
    // Truncation is the conversion's own rounding.
    hand_loop!(f32_i32_tz, f32, i32, |s| unsafe { s.clamp(-2_147_483_648.0, 2_147_483_520.0).to_int_unchecked() });
    hand_loop!(i32_u8, i32, u8, |s| s.clamp(0, 255) as u8);
    hand_loop!(u8_f64, u8, f64, |s| f64::from(s));
    hand_loop!(f64_f32, f64, f32, |s| s as f32);
}

fn zcv_rounding(r: Rounding) -> zcv::RoundingMode {
    match r {
        Rounding::NearestEven => zcv::RoundingMode::NearestEven,
        Rounding::TowardsZero => zcv::RoundingMode::TowardsZero,
        Rounding::TowardsPositive => zcv::RoundingMode::TowardsPositive,
        Rounding::TowardsNegative => zcv::RoundingMode::TowardsNegative,
        _ => zcv::RoundingMode::NearestAway,
    }
}

fn bench(c: &mut Criterion) {
    let n = n();
    let avx2 = std::is_x86_feature_detected!("avx2");
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut g = c.benchmark_group("peers");
    let ne = Rounding::NearestEven;
    let clamp = Some(OutOfRange::Clamp);
    // (source, target, rounding, rule, the target's range as f64)
    let cases = [
        (T::Float64, T::Float32, ne, None, (-3.0e38, 3.0e38)),
        (T::Float64, T::UInt8, ne, clamp, (0.0, 255.0)),
        (T::Float32, T::UInt8, ne, clamp, (0.0, 255.0)),
        (T::Float32, T::Int16, ne, clamp, (-32768.0, 32767.0)),
        (T::Float64, T::Int32, ne, clamp, (-2_147_483_648.0, 2_147_483_647.0)),
        (T::Float32, T::Int32, Rounding::TowardsZero, clamp, (-2_147_483_648.0, 2_147_483_520.0)),
        (T::Int32, T::UInt8, ne, clamp, (0.0, 255.0)),
        (T::UInt8, T::Float64, ne, None, (0.0, 255.0)),
        (T::Float32, T::Float16, ne, None, (-65504.0, 65504.0)),
        (T::Float64, T::Float16, ne, None, (-65504.0, 65504.0)),
    ];
    for (src, dst, r, oor, range) in cases {
        let datas: &[(&str, f64)] =
            if oor.is_some() { &[("in-range", 0.0), ("10pct-out", 0.1)] } else { &[("in-range", 0.0)] };
        for &(data, beyond) in datas {
            let v = values(n, range, beyond, &mut rng);
            let (f64s, f32s) = (v.clone(), v.iter().map(|&x| x as f32).collect::<Vec<f32>>());
            let i32s: Vec<i32> =
                v.iter().map(|&x| (x.round() as i64).clamp(i32::MIN.into(), i32::MAX.into()) as i32).collect();
            let u8s: Vec<u8> = v.iter().map(|&x| x as u8).collect();
            let bytes: &[u8] = match src {
                T::Float64 => bytemuck::cast_slice(&f64s),
                T::Float32 => bytemuck::cast_slice(&f32s),
                T::Int32 => bytemuck::cast_slice(&i32s),
                _ => &u8s,
            };
            // Every implementation reads and writes the same two buffers (8-byte aligned, so
            // that each can view them as its element type): where the data lies is not a
            // difference between them.
            let (mut input_words, mut out_words) = (vec![0u64; bytes.len().div_ceil(8)], vec![0u64; n]);
            let input = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut input_words)[..bytes.len()];
            input.copy_from_slice(bytes);
            let input = &*input;
            let out = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut out_words)[..n * dst.size()];
            g.throughput(Throughput::Bytes((input.len() + out.len()) as u64));
            let oor_name = oor.map_or("none", |x| x.as_str());
            let pre = format!("{src}->{dst}/{r}/{oor_name}/{data}");
            let plan = CastPlan::new(&CastConfig::new(dst).with_rounding(r).with_out_of_range(oor), src, None)
                .expect("valid benchmark configuration");
            for tier in [Tier::Avx2, Tier::Avx512] {
                let Some(plan) = plan.clone().with_tier(tier) else { continue };
                g.bench_function(format!("{pre}/cast-value-kernels-{tier}/{n}"), |b| {
                    b.iter(|| plan.encode(black_box(input), black_box(&mut *out)))
                });
            }
            let zr = zcv_rounding(r);
            let zo = oor.map(|_| zcv::OutOfRangeMode::Clamp);
            let id = |who: &str| format!("{pre}/{who}/{n}");
            match (src, dst) {
                (T::Float64, T::Float32) => {
                    let cfg =
                        zcv::FloatToFloatConfig::<f64, f32> { map_entries: vec![], rounding: zr, out_of_range: zo };
                    let o = bytemuck::cast_slice_mut::<u8, f32>(out);
                    let s = bytemuck::cast_slice::<u8, f64>(input);
                    g.bench_function(id("zarr-cast-value"), |b| {
                        b.iter(|| zcv::convert_slice_float_to_float(black_box(s), &mut *o, &cfg))
                    });
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::f64_f32(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::Float64, T::UInt8) => {
                    let cfg = zcv::FloatToIntConfig::<f64, u8> { map_entries: vec![], rounding: zr, out_of_range: zo };
                    let o = &mut *out;
                    let s = bytemuck::cast_slice::<u8, f64>(input);
                    g.bench_function(id("zarr-cast-value"), |b| {
                        b.iter(|| zcv::convert_slice_float_to_int(black_box(s), &mut *o, &cfg))
                    });
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::f64_u8(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::Float32, T::UInt8) => {
                    let cfg = zcv::FloatToIntConfig::<f32, u8> { map_entries: vec![], rounding: zr, out_of_range: zo };
                    let o = &mut *out;
                    let s = bytemuck::cast_slice::<u8, f32>(input);
                    g.bench_function(id("zarr-cast-value"), |b| {
                        b.iter(|| zcv::convert_slice_float_to_int(black_box(s), &mut *o, &cfg))
                    });
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::f32_u8(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::Float32, T::Int16) => {
                    let o = bytemuck::cast_slice_mut::<u8, i16>(out);
                    let s = bytemuck::cast_slice::<u8, f32>(input);
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::f32_i16(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::Float64, T::Int32) => {
                    let cfg = zcv::FloatToIntConfig::<f64, i32> { map_entries: vec![], rounding: zr, out_of_range: zo };
                    let o = bytemuck::cast_slice_mut::<u8, i32>(out);
                    let s = bytemuck::cast_slice::<u8, f64>(input);
                    g.bench_function(id("zarr-cast-value"), |b| {
                        b.iter(|| zcv::convert_slice_float_to_int(black_box(s), &mut *o, &cfg))
                    });
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::f64_i32(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::Float32, T::Int32) => {
                    let o = bytemuck::cast_slice_mut::<u8, i32>(out);
                    let s = bytemuck::cast_slice::<u8, f32>(input);
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::f32_i32_tz(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::Int32, T::UInt8) => {
                    let cfg = zcv::IntToIntConfig::<i32, u8> { map_entries: vec![], out_of_range: zo };
                    let o = &mut *out;
                    let s = bytemuck::cast_slice::<u8, i32>(input);
                    g.bench_function(id("zarr-cast-value"), |b| {
                        b.iter(|| zcv::convert_slice_int_to_int(black_box(s), &mut *o, &cfg))
                    });
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::i32_u8(black_box(s), &mut *o) })
                        });
                    }
                }
                (T::UInt8, T::Float64) => {
                    let cfg = zcv::IntToFloatConfig::<u8, f64> { map_entries: vec![], rounding: zr, out_of_range: zo };
                    let o = bytemuck::cast_slice_mut::<u8, f64>(out);
                    g.bench_function(id("zarr-cast-value"), |b| {
                        b.iter(|| zcv::convert_slice_int_to_float(black_box(input), &mut *o, &cfg))
                    });
                    if avx2 {
                        // SAFETY: AVX2 was detected.
                        g.bench_function(id("hand-loop"), |b| {
                            b.iter(|| unsafe { hand::u8_f64(black_box(input), &mut *o) })
                        });
                    }
                }
                (T::Float32, T::Float16) => {
                    let o = bytemuck::cast_slice_mut::<u8, f16>(out);
                    let s = bytemuck::cast_slice::<u8, f32>(input);
                    g.bench_function(id("half-slice"), |b| b.iter(|| o.convert_from_f32_slice(black_box(s))));
                }
                (T::Float64, T::Float16) => {
                    // (Rounds twice, through f32, on its F16C path: not the exact cast.)
                    let o = bytemuck::cast_slice_mut::<u8, f16>(out);
                    let s = bytemuck::cast_slice::<u8, f64>(input);
                    g.bench_function(id("half-slice"), |b| b.iter(|| o.convert_from_f64_slice(black_box(s))));
                }
                _ => {}
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
