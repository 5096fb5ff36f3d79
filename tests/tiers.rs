//! Every kernel tier against the scalar reference, bit for bit: every bit pattern of every
//! source of 16 bits or less for every pair, mode and range rule; buffer lengths around the
//! lane width at every byte offset; a special value at every lane position; the same error
//! index as the scalar path.

use cast_value_kernels::kernels::lanes::{LANES, MAX_STEP};
use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastError, CastPlan, DataType, FillValue, OutOfRange, Rounding, ALL_DATA_TYPES};

fn to_bytes(t: DataType, bits: &[u64]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len() * t.size()];
    for (b, c) in bits.iter().zip(out.chunks_exact_mut(t.size())) {
        scalar::write_bits(t.format(), *b, c);
    }
    out
}

/// The tiers compared with the scalar reference: every available one but scalar, or only
/// those named in `CAST_VALUE_TEST_TIERS` (comma-separated). CI's emulated AVX2 job sets it
/// to `avx2`: the emulated job before it already ran the portable tier of the same binary.
fn vector_tiers() -> Vec<Tier> {
    let only = std::env::var("CAST_VALUE_TEST_TIERS").ok();
    let wanted = |t: &Tier| only.as_deref().is_none_or(|o| o.split(',').any(|n| n == t.name()));
    Tier::available().iter().copied().filter(|&t| t != Tier::Scalar).filter(wanted).collect()
}

/// The tiers of hand-written x86 kernels (the others run lane programs), which are also
/// the ones with a streamed path for large calls.
fn hand_written_x86(t: &Tier) -> bool {
    matches!(t, Tier::Avx2 | Tier::Avx512)
}

/// `CAST_VALUE_TEST_SAMPLE=K` (default 1): the two long sweeps below check one window of
/// `MAX_STEP` elements in K, and the large-call test each case at one output offset. CI's
/// two emulated x86 jobs set it: there the reference runs about 20 times slower than
/// natively, and they run the host's own test binary, to show what dispatch picks on a CPU
/// without AVX2 (portable) or without AVX-512 (avx2) and that no newer instruction leaked
/// into those tiers (the host runs both on every window and offset the tests check).
fn sample() -> usize {
    std::env::var("CAST_VALUE_TEST_SAMPLE").ok().and_then(|v| v.parse().ok()).filter(|&k| k > 0).unwrap_or(1)
}

/// Compare one tier's buffer result with the scalar tier's on `input`.
fn same_as_scalar(plan: &CastPlan, tier: Tier, input: &[u8], what: &str) {
    let (src, dst) = (plan.array_type(), plan.data_type());
    let n = input.len() / src.size();
    let scalar_plan = plan.clone().with_tier(Tier::Scalar).unwrap();
    let mut want = vec![0u8; n * dst.size()];
    let want_r = scalar_plan.encode(input, &mut want);
    let tier_plan = plan.clone().with_tier(tier).unwrap();
    let mut got = vec![0u8; n * dst.size()];
    let got_r = tier_plan.encode(input, &mut got);
    assert_eq!(got_r, want_r, "{what}: {src}->{dst} on {tier}");
    let upto = match want_r {
        Err(CastError::Element(e)) => e.index,
        _ => n,
    };
    if let Some(i) = (0..upto).find(|&i| got[i * dst.size()..][..dst.size()] != want[i * dst.size()..][..dst.size()]) {
        let el = |b: &[u8], at: usize, size: usize| b[at * size..][..size].to_vec();
        panic!(
            "{what}: {src}->{dst} on {tier}: outputs differ first at element {i}: input {:02x?}, scalar {:02x?}, tier {:02x?}",
            el(input, i, src.size()),
            el(&want, i, dst.size()),
            el(&got, i, dst.size())
        );
    }
}

#[test]
fn every_pattern_of_small_sources_on_every_tier() {
    let tiers = vector_tiers();
    assert!(!tiers.is_empty());
    let k = sample();
    println!("target {} tiers {:?} best {}", std::env::consts::ARCH, Tier::available(), Tier::best());
    if k > 1 {
        println!("16-bit sources: one window of {MAX_STEP} patterns in {k} (CAST_VALUE_TEST_SAMPLE)");
    }
    for src in ALL_DATA_TYPES.into_iter().filter(|t| t.bits() <= 16) {
        // Sub-byte sources: every byte, as a read ignores the upper bits (DECISIONS §1).
        let every = if src.bits() == 16 { k as u64 } else { 1 };
        let bits: Vec<u64> =
            (0..1u64 << src.bits().max(8)).filter(|i| (i / MAX_STEP as u64).is_multiple_of(every)).collect();
        let input = if src.bits() < 8 { bits.iter().map(|&b| b as u8).collect() } else { to_bytes(src, &bits) };
        for dst in ALL_DATA_TYPES {
            for r in Rounding::ALL {
                let mut oors = vec![None, Some(OutOfRange::Clamp)];
                if dst.is_integer() {
                    oors.push(Some(OutOfRange::Wrap));
                }
                for oor in oors {
                    let plan = CastPlan::new(&CastConfig::new(dst).with_rounding(r).with_out_of_range(oor), src, None)
                        .unwrap();
                    // The reference once per configuration (it is the slow part, most of all
                    // under emulation), then every tier against it.
                    let sp = plan.clone().with_tier(Tier::Scalar).unwrap();
                    let mut b = vec![0u8; bits.len() * dst.size()];
                    let rb = sp.encode(&input, &mut b);
                    // After an error: lane-sized windows, so that an early error does not hide
                    // the rest.
                    let ss = src.size();
                    let windows: Vec<(Result<(), CastError>, Vec<u8>)> = if rb.is_err() {
                        input
                            .chunks(MAX_STEP * ss)
                            .map(|chunk| {
                                let mut y = vec![0u8; chunk.len() / ss * dst.size()];
                                (sp.encode(chunk, &mut y), y)
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let written = |r: &Result<(), CastError>, len: usize| match r {
                        Err(CastError::Element(e)) => e.index * dst.size(),
                        _ => len,
                    };
                    for &tier in &tiers {
                        let tp = plan.clone().with_tier(tier).unwrap();
                        let mut a = vec![0u8; bits.len() * dst.size()];
                        // Whole buffer: same result or same first error.
                        let ra = tp.encode(&input, &mut a);
                        assert_eq!(ra, rb, "{src}->{dst} {r} {oor:?} {tier}");
                        // The elements before an error are written, as the reference writes them.
                        let upto = written(&ra, a.len());
                        assert!(a[..upto] == b[..upto], "{src}->{dst} {r} {oor:?} {tier}: outputs differ");
                        for (w, (chunk, (ry, y))) in input.chunks(MAX_STEP * ss).zip(&windows).enumerate() {
                            let mut x = vec![0u8; y.len()];
                            let rx = tp.encode(chunk, &mut x);
                            assert_eq!(&rx, ry, "{src}->{dst} {r} {oor:?} {tier} window {w}");
                            let upto = written(&rx, x.len());
                            assert!(
                                x[..upto] == y[..upto],
                                "{src}->{dst} {r} {oor:?} {tier} window {w}: outputs differ"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn lengths_and_offsets_around_the_lane_width() {
    let cases = [
        (DataType::Float32, DataType::Float16, None),
        (DataType::Float64, DataType::UInt8, Some(OutOfRange::Clamp)),
        (DataType::Int32, DataType::Int8, Some(OutOfRange::Wrap)),
        (DataType::UInt16, DataType::Float32, None),
        (DataType::Float8E4M3, DataType::Float32, None),
        (DataType::Int4, DataType::Float64, None),
        (DataType::Float32, DataType::Float8E5M2, None),
        (DataType::BFloat16, DataType::Int16, Some(OutOfRange::Clamp)),
        (DataType::Float64, DataType::Float16, None),
        (DataType::Float16, DataType::Float16, None),
        (DataType::Float16, DataType::Float64, None),
        (DataType::Float8E4M3, DataType::Float8E5M2, None),
        (DataType::Float8E5M2, DataType::UInt16, Some(OutOfRange::Clamp)),
    ];
    let backing: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8 & 0x3f).collect();
    for (src, dst, oor) in cases {
        let plan = CastPlan::new(&CastConfig::new(dst).with_out_of_range(oor), src, None).unwrap();
        for tier in vector_tiers() {
            for n in 0..=2 * MAX_STEP + 3 {
                for off in 0..8 {
                    let input = &backing[off..off + n * src.size()];
                    same_as_scalar(&plan, tier, input, &format!("n={n} off={off}"));
                    // Output offset too.
                    let tp = plan.clone().with_tier(tier).unwrap();
                    let mut out = vec![0u8; 8 + n * dst.size()];
                    let mut out2 = vec![0u8; n * dst.size()];
                    let r1 = tp.encode(input, &mut out[off..off + n * dst.size()]);
                    let r2 = plan.clone().with_tier(Tier::Scalar).unwrap().encode(input, &mut out2);
                    assert_eq!(r1, r2);
                    if r1.is_ok() {
                        assert_eq!(&out[off..off + n * dst.size()], &out2[..]);
                    }
                }
            }
        }
    }
}

#[test]
fn a_special_value_at_every_lane_position() {
    // NaN, Inf, out of range, a subnormal and a map key, placed at each position of a few
    // steps of ordinary values: results (or the first error's index) must match scalar. A
    // numeric key keeps a pair on the generic lane bodies; a NaN key leaves the hand-written
    // kernels in charge (they send NaN lanes cold).
    static MAP: [(FillValue, FillValue); 1] = [(FillValue::Number("2.5"), FillValue::Int(99))];
    static NAN_MAP: [(FillValue, FillValue); 1] = [(FillValue::NaN, FillValue::Int(7))];
    // A key of zero matches both zeros: -0.0 below must take the mapped value.
    static ZERO_MAP: [(FillValue, FillValue); 1] = [(FillValue::Int(0), FillValue::Int(5))];
    // (+-70000 and -1e30 are past float16's range: in the directed modes its clamp makes
    // some of them +-Inf before converting, with and without map keys to resolve.)
    let specials = [f32::NAN, f32::INFINITY, -1e30, 2.5, 300.0, -0.0, 1e-40, -0.4, 7e4, -7e4];
    let n = 2 * MAX_STEP + 3;
    for src in [DataType::Float32, DataType::Float64] {
        for dst in [DataType::UInt8, DataType::Int32, DataType::Float8E4M3, DataType::Float16] {
            let mut oors = vec![None, Some(OutOfRange::Clamp)];
            if dst.is_integer() {
                oors.push(Some(OutOfRange::Wrap));
            }
            let modes: &[Rounding] = if dst == DataType::Float16 {
                &[Rounding::NearestEven, Rounding::TowardsZero, Rounding::TowardsPositive, Rounding::TowardsNegative]
            } else {
                &[Rounding::NearestEven]
            };
            for (oor, &mode) in oors.iter().flat_map(|&o| modes.iter().map(move |m| (o, m))) {
                for map in [&MAP[..], &NAN_MAP[..], &ZERO_MAP[..], &[]] {
                    let cfg = CastConfig::new(dst).with_rounding(mode).with_out_of_range(oor).with_scalar_map(map, &[]);
                    let Ok(plan) = CastPlan::new(&cfg, src, None) else { continue };
                    for tier in vector_tiers() {
                        for &sp in &specials {
                            for pos in 0..n {
                                let mut vals: Vec<f32> = (0..n).map(|i| (i * 7 % 200) as f32 + 0.25).collect();
                                vals[pos] = sp;
                                let input: Vec<u8> = if src == DataType::Float32 {
                                    vals.iter().flat_map(|v| v.to_ne_bytes()).collect()
                                } else {
                                    vals.iter().flat_map(|&v| (v as f64).to_ne_bytes()).collect()
                                };
                                same_as_scalar(
                                    &plan,
                                    tier,
                                    &input,
                                    &format!("{src}->{dst} {mode} special {sp} at {pos} {oor:?} map {}", map.len()),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn map_keys_before_a_failing_element_take_their_values() {
    // Keys are found after the chunk loop; the elements before the first failing one must
    // hold their mapped values all the same (keys before, within and after the chunk of
    // the error, and an error past the whole chunks, in the tail).
    static MAP: [(FillValue, FillValue); 1] = [(FillValue::Number("2.5"), FillValue::Int(99))];
    let n = 2 * MAX_STEP + 3;
    for src in [DataType::Float32, DataType::Float64] {
        for dst in [DataType::UInt8, DataType::Int32, DataType::Float16, DataType::Float8E4M3, DataType::BFloat16] {
            let cfg = CastConfig::new(dst).with_scalar_map(&MAP, &[]);
            let plan = CastPlan::new(&cfg, src, None).unwrap();
            for err in [3, MAX_STEP + 2, n - 1] {
                let mut vals: Vec<f64> = (0..n).map(|i| (i * 7 % 100) as f64 + 0.25).collect();
                for key in [0, 2, MAX_STEP + 1, n - 2] {
                    vals[key] = 2.5;
                }
                vals[err] = 1e30;
                let input: Vec<u8> = if src == DataType::Float32 {
                    vals.iter().flat_map(|&v| (v as f32).to_ne_bytes()).collect()
                } else {
                    vals.iter().flat_map(|v| v.to_ne_bytes()).collect()
                };
                for tier in vector_tiers() {
                    same_as_scalar(&plan, tier, &input, &format!("keys, error at {err}"));
                }
            }
        }
    }
}

#[test]
fn every_tier_reports_the_scalar_error_index() {
    // float64 (compute kernels) and uint8 (table kernels) -> int8: 1000.0 and 200 fail, as
    // does the last element, so the first failing one must be reported.
    let f64_bytes = |v: &[u64]| v.iter().flat_map(|&x| (x as f64).to_ne_bytes()).collect::<Vec<u8>>();
    let u8_bytes = |v: &[u64]| v.iter().map(|&x| x as u8).collect::<Vec<u8>>();
    type Bytes<'a> = &'a dyn Fn(&[u64]) -> Vec<u8>;
    let sources: [(DataType, u64, Bytes); 2] =
        [(DataType::Float64, 1000, &f64_bytes), (DataType::UInt8, 200, &u8_bytes)];
    for tier in vector_tiers() {
        for &(src, bad, bytes) in &sources {
            let plan = CastPlan::new(&CastConfig::new(DataType::Int8), src, None).unwrap().with_tier(tier).unwrap();
            let n = 3 * MAX_STEP + 5;
            for bad_at in [0, 1, LANES - 1, LANES, MAX_STEP / 2 + 1, MAX_STEP - 1, MAX_STEP, 2 * MAX_STEP + 3, n - 1] {
                let mut vals = vec![1u64; n];
                vals[bad_at] = bad;
                vals[n - 1] = bad;
                let input = bytes(&vals);
                let mut out = vec![0u8; n];
                match plan.encode(&input, &mut out) {
                    Err(CastError::Element(e)) => assert_eq!(e.index, bad_at, "{src} {tier}"),
                    other => panic!("{src} {tier}: {other:?}"),
                }
                assert!(out[..bad_at].iter().all(|&b| b == 1), "{src} {tier}: elements before the error are written");
            }
        }
    }
}

mod wide {
    use super::*;
    use proptest::prelude::*;

    /// Source patterns for a wide source: raw bits, and values brought back from random
    /// target values (so that most lanes take the fast path), some nudged by a few ulps.
    fn patterns(src: DataType, dst: DataType, raw: &[u64], nudge: u64) -> Vec<u64> {
        let back = CastPlan::new(&CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp)), dst, None).unwrap();
        let mask = src.format().mask();
        raw.iter()
            .enumerate()
            .map(|(i, &r)| match i % 3 {
                0 => r & mask,
                _ => match scalar::cast_element(back.encoder(), r & dst.format().mask()) {
                    Ok(v) => v.wrapping_add(if i % 3 == 2 { nudge } else { 0 }) & mask,
                    Err(_) => r & mask,
                },
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        #[test]
        fn wide_sources_match_scalar_on_every_tier(
            src in proptest::sample::select(ALL_DATA_TYPES.iter().copied().filter(|t| t.bits() >= 16).collect::<Vec<_>>()),
            di in 0usize..26, ri in 0usize..5, oi in 0usize..3,
            raw in proptest::collection::vec(any::<u64>(), 0..40), nudge in 0u64..4,
        ) {
            let dst = ALL_DATA_TYPES[di];
            let oor = [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)][oi];
            let oor = if dst.is_float() && oor == Some(OutOfRange::Wrap) { None } else { oor };
            let plan = CastPlan::new(&CastConfig::new(dst).with_rounding(Rounding::ALL[ri]).with_out_of_range(oor), src, None).unwrap();
            let input = to_bytes(src, &patterns(src, dst, &raw, nudge));
            for tier in vector_tiers() {
                same_as_scalar(&plan, tier, &input, "proptest");
            }
        }
    }
}

/// The hot pairs over a sweep of the whole 32-bit pattern space (every 4099th pattern plus a
/// dense run around each power of two that bounds a target), in windows of one chunk so that
/// an error in one lane does not mask the others.
#[test]
fn hot_pairs_over_a_sweep_of_the_source_space() {
    use DataType as T;
    let mut f32_bits: Vec<u64> = (0..=u32::MAX as u64).step_by(4099).collect();
    // Contiguous runs, so that a chunk holds only neighbours and none of them drags the
    // chunk onto the cold path for an unrelated reason.
    for e in [126u64, 127, 128, 133, 134, 135, 141, 142, 143, 149, 150, 157, 158, 159, 254] {
        f32_bits.extend((0..64u64).map(|d| (e << 23) - 32 + d));
        f32_bits.extend((0..64u64).map(|d| ((e << 23) - 32 + d) | 0x8000_0000));
        f32_bits.extend((0..64u64).map(|d| (e << 23) | 0x40_0000 | d)); // ties of narrow targets
        f32_bits.extend((0..64u64).map(|d| (e << 23) | 0x7f_e000 | (d << 7))); // near the f16 max
    }
    // Around the largest finite values and rounding limits of float16 (65504, 65520) and
    // bfloat16 (0x7f7f, its tie 0x7f7f8000): where a kernel stops and the cold path starts.
    for edge in [0x477f_e000u64, 0x477f_f000, 0x7f7f_0000, 0x7f7f_8000, 0x7f7f_ffff - 32] {
        f32_bits.extend((0..64u64).map(|d| edge - 32 + d));
        f32_bits.extend((0..64u64).map(|d| (edge - 32 + d) | 0x8000_0000));
    }
    let mut f64_bits: Vec<u64> =
        f32_bits.iter().map(|&b| (f32::from_bits(b as u32) as f64).to_bits() ^ (b & 0x7)).collect();
    // Halves of integers near zero and near the 8/16/32-bit limits, with their f64
    // neighbours: the ties, and the values just short of them (which a rounding that adds
    // 1/2 carries over).
    for k in (-260i64..260).chain([-65537, -32769, 32767, 65535, (1 << 31) - 2, -(1 << 31)]) {
        let tie = (k as f64 + 0.5).to_bits();
        f64_bits.extend((0..8u64).map(|d| tie + d - 4));
    }
    // Between float32's largest finite value and 2^128 (its tie to Inf at 0x47ef_ffff_f...),
    // and f32-subnormal magnitudes whose f64 patterns differ from a result's in the high
    // dword only.
    for edge in [0x47ef_ffff_e000_0000u64, 0x47ef_ffff_f000_0000, 0x47f0_0000_0000_0000] {
        f64_bits.extend((0..16u64).map(|d| edge + (d << 24) - (8 << 24)));
        f64_bits.extend((0..16u64).map(|d| edge - 8 + d));
    }
    for field in 860u64..880 {
        f64_bits.extend((0..16u64).map(|j| field << 52 | j << 32 | (j & 1)));
        f64_bits.extend((0..16u64).map(|j| 1 << 63 | field << 52 | j << 32));
    }
    // 64-bit integers of every magnitude up to 2^59, around the 2^51 limit of the f64 paths.
    let i64_bits: Vec<u64> = f32_bits.iter().map(|&b| ((b as u32 as i32 as i64) << (b % 29)) as u64).collect();
    let cases: Vec<(T, T, &Vec<u64>)> = vec![
        (T::Float32, T::Float16, &f32_bits),
        (T::Float32, T::BFloat16, &f32_bits),
        (T::Float32, T::Float64, &f32_bits),
        (T::Float64, T::Float32, &f64_bits),
        (T::Float32, T::UInt8, &f32_bits),
        (T::Float32, T::Int8, &f32_bits),
        (T::Float32, T::Int16, &f32_bits),
        (T::Float32, T::UInt16, &f32_bits),
        (T::Float32, T::Int32, &f32_bits),
        (T::Float64, T::Int8, &f64_bits),
        (T::Float64, T::UInt16, &f64_bits),
        (T::Float64, T::Int32, &f64_bits),
        (T::Int32, T::Int8, &f32_bits),
        (T::Int32, T::UInt8, &f32_bits),
        (T::Int32, T::Int16, &f32_bits),
        (T::Int32, T::Int4, &f32_bits),
        (T::Int64, T::Float64, &i64_bits),
        (T::Int64, T::Int8, &i64_bits),
        (T::Int64, T::Int4, &i64_bits),
        (T::Int64, T::UInt64, &i64_bits),
        (T::UInt64, T::Int32, &i64_bits),
        (T::UInt64, T::Int64, &i64_bits),
        (T::UInt32, T::Int16, &f32_bits),
        (T::UInt32, T::Int32, &f32_bits),
        (T::Int64, T::Float32, &i64_bits),
        (T::Int64, T::Float32, &f64_bits),
        (T::UInt64, T::BFloat16, &f64_bits),
        (T::UInt64, T::Float64, &f64_bits),
        (T::UInt64, T::Float64, &i64_bits),
        (T::UInt64, T::Float16, &i64_bits),
        (T::Float32, T::Int64, &f32_bits),
        (T::Float64, T::Int64, &f64_bits),
        (T::Float64, T::UInt64, &f64_bits),
        (T::Int32, T::Float32, &f32_bits),
        (T::Int32, T::Float16, &f32_bits),
        (T::UInt32, T::Float32, &f32_bits),
        (T::UInt32, T::BFloat16, &f32_bits),
        (T::Float32, T::UInt32, &f32_bits),
        (T::Float32, T::Int4, &f32_bits),
        (T::Float64, T::UInt32, &f64_bits),
        (T::Float64, T::UInt2, &f64_bits),
        (T::Int32, T::UInt32, &f32_bits),
        (T::Int32, T::UInt64, &f32_bits),
        (T::Float32, T::Float8E4M3, &f32_bits),
        (T::Float32, T::Float8E5M2, &f32_bits),
        (T::Float32, T::Float4E2M1FN, &f32_bits),
        (T::Float32, T::Float32, &f32_bits),
        (T::Float64, T::Float16, &f64_bits),
        (T::Float64, T::BFloat16, &f64_bits),
        (T::Float64, T::Float8E4M3FNUZ, &f64_bits),
    ];
    for (src, dst, bits) in cases {
        let input = to_bytes(src, bits);
        for r in Rounding::ALL {
            let mut oors = vec![None, Some(OutOfRange::Clamp)];
            if dst.is_integer() {
                oors.push(Some(OutOfRange::Wrap));
            }
            for oor in oors {
                let plan =
                    CastPlan::new(&CastConfig::new(dst).with_rounding(r).with_out_of_range(oor), src, None).unwrap();
                // The reference once per configuration and window, then every tier against it.
                // The hand-written kernels this sweep aims at are AVX2's and AVX-512's; the
                // lane programs of the other tiers (exhaustively tested on 16-bit sources) get
                // every 4th window, which keeps the emulated CI jobs short.
                let (tiers, one_in) = (vector_tiers(), sample());
                let checks = |t: &Tier, k: usize| hand_written_x86(t) || k.is_multiple_of(4);
                let sp = plan.clone().with_tier(Tier::Scalar).unwrap();
                let tps: Vec<(Tier, CastPlan)> =
                    tiers.iter().map(|&t| (t, plan.clone().with_tier(t).unwrap())).collect();
                let w = MAX_STEP * src.size();
                let mut a = vec![0u8; MAX_STEP * dst.size()];
                let mut b = a.clone();
                for (k, chunk) in input.chunks(w).enumerate() {
                    if !k.is_multiple_of(one_in) || !tiers.iter().any(|t| checks(t, k)) {
                        continue;
                    }
                    let n = chunk.len() / src.size() * dst.size();
                    let rb = sp.encode(chunk, &mut b[..n]);
                    for (tier, tp) in &tps {
                        if !checks(tier, k) {
                            continue;
                        }
                        let ra = tp.encode(chunk, &mut a[..n]);
                        assert_eq!(ra, rb, "{src}->{dst} {r} {oor:?} {tier} chunk {k}");
                        if ra.is_ok() {
                            assert!(
                                a[..n] == b[..n],
                                "{src}->{dst} {r} {oor:?} {tier} chunk {k}: {:x?} vs {:x?}",
                                &a[..n],
                                &b[..n]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Prints the target and the tier dispatch chose, so a CI job that tested the wrong kernel
/// shows; with CAST_VALUE_EXPECT_TIER set, also checks it.
#[test]
fn reports_target_and_tier() {
    let best = Tier::best();
    println!(
        "TARGET {} TIER {best} (available: {})",
        cast_value_kernels::kernels::BUILD_TARGET,
        Tier::available().iter().map(|t| t.name()).collect::<Vec<_>>().join(",")
    );
    if let Ok(want) = std::env::var("CAST_VALUE_EXPECT_TIER") {
        assert_eq!(best.name(), want, "dispatch chose {best}, the job expects {want}");
    }
    let plan = CastPlan::new(&CastConfig::new(DataType::Float16), DataType::Float32, None).unwrap();
    assert_eq!(plan.tier(), best);
}

/// A scalar_map sending NaN, +Inf and -Inf all to one value (float16, bfloat16, float32 and
/// float64 sources, to integers of every width, floats, byte floats and float64): where some
/// finite source value casts to that value by itself, the x86 kernels that substitute put it
/// in those lanes when the data holds many of them (every third element here), and resolve
/// each hit otherwise (every 1,000th; the other kernels always do); where none does (Inf,
/// NaN, int32's 2^24 + 1, and int32's least value, whose float32 converts to the lane
/// pattern that is flagged anyway) they always resolve. Every result and first error must
/// match scalar, on data in every target's range and on data with values past it.
#[test]
fn one_value_for_every_special_on_every_tier() {
    use DataType as T;
    use FillValue as V;
    let n = 3 * 4096 + 37;
    let cases: [(T, T, &[V]); 40] = [
        (T::Float32, T::Int8, &[V::Int(-7), V::Int(0)]),
        (T::Float32, T::UInt8, &[V::Int(200)]),
        (T::Float32, T::Int16, &[V::Int(-300)]),
        (T::Float32, T::UInt16, &[V::Int(65535)]),
        (T::Float32, T::Int32, &[V::Int(12345), V::Int(16_777_217), V::Int(-2_147_483_648)]),
        (T::Float32, T::Float16, &[V::Number("1.5"), V::Number("-0.0"), V::Number("65504"), V::Infinity, V::NaN]),
        (T::Float32, T::BFloat16, &[V::Number("-2.5"), V::NegInfinity]),
        (T::Float16, T::Float32, &[V::Number("2.5"), V::Number("1e-7"), V::Infinity]),
        (T::BFloat16, T::Float32, &[V::Number("-0.0"), V::Number("3e38"), V::NaN]),
        (T::Float64, T::Int8, &[V::Int(-7)]),
        (T::Float64, T::UInt8, &[V::Int(255)]),
        (T::Float64, T::Int16, &[V::Int(-32768)]),
        (T::Float64, T::UInt16, &[V::Int(300)]),
        (T::Float64, T::Int32, &[V::Int(2_147_483_647), V::Int(-2_147_483_648)]),
        (
            T::Float64,
            T::Float32,
            &[V::Number("1.5"), V::Number("-0.0"), V::Number("3.4028234663852886e38"), V::Number("1e-45"), V::Infinity],
        ),
        (T::Float16, T::Int8, &[V::Int(-7)]),
        (T::Float16, T::UInt32, &[V::Int(2048), V::Int(65505)]),
        (T::Float16, T::Int64, &[V::Int(-65504)]),
        (T::BFloat16, T::UInt8, &[V::Int(255)]),
        (T::BFloat16, T::Int4, &[V::Int(-8)]),
        (T::Float64, T::UInt4, &[V::Int(15)]),
        (T::Float32, T::Int2, &[V::Int(1)]),
        (T::Float32, T::Float8E4M3, &[V::Number("240"), V::Number("-0.0"), V::Number("0.001953125")]),
        (T::Float32, T::Float8E5M2, &[V::Number("1.5"), V::Infinity]),
        (T::Float16, T::Float8E4M3FNUZ, &[V::Number("-2"), V::Number("0")]),
        (T::Float32, T::Float4E2M1FN, &[V::Number("6")]),
        (T::Float16, T::Float6E3M2FN, &[V::Number("-0.25")]),
        (T::BFloat16, T::Float8E4M3, &[V::Number("2"), V::Number("-0.0")]),
        (T::BFloat16, T::Float8E5M2FNUZ, &[V::Number("-0.5")]),
        (T::BFloat16, T::Float16, &[V::Number("1.5"), V::Number("65504")]),
        (T::Float16, T::BFloat16, &[V::Number("-3")]),
        (T::Float32, T::Float64, &[V::Number("-2.5"), V::Number("1e300"), V::Number("1e-45"), V::Infinity]),
        (T::Float16, T::Float64, &[V::Number("65504"), V::Number("5.960464477539063e-8")]),
        (T::BFloat16, T::Float64, &[V::Number("-0.0"), V::Number("0.1")]),
        (T::Float32, T::UInt32, &[V::Int(4_294_967_040), V::Int(7)]),
        (T::BFloat16, T::UInt32, &[V::Int(65536), V::Int(65537)]),
        (T::Float64, T::UInt32, &[V::Int(4_294_967_295)]),
        (T::Float64, T::UInt64, &[V::Int(1 << 60), V::Int(0)]),
        (T::Float32, T::Int64, &[V::Int(-9_223_372_036_854_775_808), V::Int(3)]),
        (T::BFloat16, T::Int64, &[V::Int(-5)]),
    ];
    for (every, rough) in [(3usize, false), (1000, false), (3, true), (1000, true)] {
        for (src, dst, vs) in cases {
            let f = src.format();
            let exp = f.positive_infinity();
            let specials = [exp | 1, exp | (1 << (f.man_bits - 1)) | f.sign_mask(), exp, exp | f.sign_mask(), exp | 3];
            let to_src =
                CastPlan::new(&CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp)), T::Float64, None)
                    .unwrap();
            let bits: Vec<u64> = (0..n)
                .map(|i| {
                    let v = if i % every == every / 2 {
                        return specials[i % specials.len()];
                    } else if rough && i % 97 == 50 {
                        // Past every integer target's range but int32's, past float16's,
                        // and (float64) past float32's.
                        [1.0e5, -3.5, 3.0e9, 7.0e4, -1.0e300][i % 5]
                    } else {
                        (i * 37 % 240) as f64 * 0.5
                    };
                    scalar::cast_element(to_src.encoder(), f64::to_bits(v)).unwrap()
                })
                .collect();
            let input = to_bytes(src, &bits);
            for &v in vs {
                let map = [(V::NaN, v), (V::Infinity, v), (V::NegInfinity, v)];
                for oor in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                    if oor == Some(OutOfRange::Wrap) && dst.is_float() {
                        continue;
                    }
                    for r in Rounding::ALL {
                        let cfg =
                            CastConfig::new(dst).with_rounding(r).with_out_of_range(oor).with_scalar_map(&map, &[]);
                        let plan = CastPlan::new(&cfg, src, None).unwrap();
                        for tier in vector_tiers() {
                            let what = format!("every {every} rough {rough} {src}->{dst} {v} {r} {oor:?}");
                            same_as_scalar(&plan, tier, &input, &what);
                        }
                    }
                }
            }
        }
    }
}

/// scalar_map keys NaN / +Inf / -Inf (alone or together) on IEEE float sources: the vector
/// kernels write mapped specials in-line; every result, and every first error, must match
/// scalar. NaNs come with other payloads and signs, since any NaN matches a NaN key.
#[test]
fn special_map_keys_on_every_tier() {
    use DataType as T;
    static ALL: [(FillValue, FillValue); 3] = [
        (FillValue::NaN, FillValue::Int(3)),
        (FillValue::Infinity, FillValue::Int(5)),
        (FillValue::NegInfinity, FillValue::Int(6)),
    ];
    static POS_INF: [(FillValue, FillValue); 1] = [(FillValue::Infinity, FillValue::Int(5))];
    static NAN: [(FillValue, FillValue); 1] = [(FillValue::NaN, FillValue::Int(3))];
    let n = 3 * MAX_STEP + 5;
    for src in [T::Float16, T::BFloat16, T::Float32, T::Float64] {
        let f = src.format();
        let exp = f.positive_infinity();
        let specials = [exp | 1, exp | (1 << (f.man_bits - 1)) | f.sign_mask(), exp, exp | f.sign_mask(), exp | 3];
        let to_src =
            CastPlan::new(&CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp)), T::Float64, None).unwrap();
        let mut bits: Vec<u64> = (0..n)
            .map(|i| {
                let v = ((i * 37 % 120) as f64 - 20.0) * 0.75;
                scalar::cast_element(to_src.encoder(), v.to_bits()).unwrap()
            })
            .collect();
        // Specials at scattered positions, several in some steps, none in others.
        for (k, pos) in [1usize, 2, 9, 17, MAX_STEP + 3, MAX_STEP + 4, 2 * MAX_STEP + 31, n - 1].into_iter().enumerate()
        {
            bits[pos] = specials[k % specials.len()];
        }
        let input = to_bytes(src, &bits);
        for dst in [T::Int16, T::UInt8, T::Int32, T::Float16, T::Float8E4M3, T::Float32] {
            if dst == src {
                continue;
            }
            for map in [&ALL[..], &POS_INF[..], &NAN[..]] {
                for oor in [None, Some(OutOfRange::Clamp)] {
                    for r in [Rounding::NearestEven, Rounding::TowardsNegative, Rounding::NearestAway] {
                        let cfg =
                            CastConfig::new(dst).with_rounding(r).with_out_of_range(oor).with_scalar_map(map, &[]);
                        let plan = CastPlan::new(&cfg, src, None).unwrap();
                        for tier in vector_tiers() {
                            same_as_scalar(&plan, tier, &input, &format!("{src}->{dst} {r} {oor:?} map {}", map.len()));
                        }
                    }
                }
            }
        }
    }
}

/// Integer narrowing: one out-of-range value at each position of a few steps of in-range
/// values, for each range rule. Without a rule, the first error's index must match scalar;
/// with one, every result.
#[test]
fn an_out_of_range_integer_at_every_lane_position() {
    use DataType as T;
    let pairs = [
        (T::Int16, T::Int8),
        (T::Int16, T::UInt8),
        (T::Int32, T::Int8),
        (T::Int32, T::UInt8),
        (T::Int32, T::Int16),
        (T::Int32, T::UInt16),
        (T::Int32, T::Int4),
        (T::UInt16, T::Int8),
        (T::UInt16, T::Int16),
        (T::Int16, T::UInt16),
        (T::Int64, T::Int8),
        (T::UInt64, T::Int32),
        (T::UInt32, T::Int8),
    ];
    let n = 2 * MAX_STEP + 3;
    for (src, dst) in pairs {
        let ordinary: Vec<u64> = (0..n).map(|i| (i as u64 * 7) % 6).collect();
        for bad in [300i64, -300, 70_000, -70_000, 8] {
            let bad = (bad as u64) & src.format().mask();
            for oor in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                let plan = CastPlan::new(&CastConfig::new(dst).with_out_of_range(oor), src, None).unwrap();
                for tier in vector_tiers() {
                    for pos in 0..n {
                        let mut bits = ordinary.clone();
                        bits[pos] = bad;
                        let input = to_bytes(src, &bits);
                        same_as_scalar(&plan, tier, &input, &format!("{src}->{dst} {bad:#x} at {pos} {oor:?}"));
                    }
                }
            }
        }
    }
}

/// Clamp and wrap keep out-of-range elements in the vector lanes: float sources whose values
/// reach far past the target (past i32, past the target float's largest finite value, around
/// 2^51, 1e30, the largest finite source value) at each position of a few steps of in-range values, in
/// every rounding mode. Every result must match the reference, the neighbours of the
/// out-of-range element included.
#[test]
fn far_out_of_range_floats_at_every_lane_position_with_clamp_and_wrap() {
    use DataType as T;
    let pairs = [
        (T::Float32, T::UInt8),
        (T::Float32, T::Int8),
        (T::Float32, T::Int16),
        (T::Float32, T::Int32),
        (T::Float32, T::Int4),
        (T::BFloat16, T::Int16),
        (T::Float64, T::UInt8),
        (T::Float64, T::Int32),
        (T::Float64, T::UInt16),
        (T::Float32, T::Float16),
        (T::Float32, T::BFloat16),
        (T::Float32, T::Float8E4M3),
        (T::Float32, T::Float8E5M2),
        (T::Float32, T::Float8E4M3FNUZ),
        (T::Float64, T::Float32),
        (T::Float64, T::BFloat16),
        (T::Float64, T::Float16),
    ];
    let n = 2 * MAX_STEP + 3;
    for (src, dst) in pairs {
        let value = |v: f64| match src {
            T::Float64 => v.to_bits(),
            T::BFloat16 => u64::from((v as f32).to_bits() >> 16),
            _ => u64::from((v as f32).to_bits()),
        };
        let ordinary: Vec<u64> = (0..n).map(|i| value((i % 7) as f64 * 1.25 - 3.0)).collect();
        // (Around 2^51, ties, quarters and odd integers: the edge of the kernels' float64
        // wrap that adds 1.5 * 2^52 below 2^51; ties and quarters between 2^31 and 2^51, which
        // that add rounds.)
        let far = [
            2_147_483_648.0,
            6_442_450_944.75,
            1_099_511_627_776.5,
            1.0e10,
            1.0e30,
            65536.0 * 65536.0 * 255.5,
            2_251_799_813_685_247.5,
            2_251_799_813_685_248.0 - 0.25,
            2_251_799_813_685_248.0,
            2_251_799_813_685_248.5,
            2_251_799_813_685_249.0,
            1.0e300,
            f64::MAX,
            // Past the largest float32 by less than half its step (nearest-even keeps it),
            // by more (nearest-even goes to 2^128), and 2^128 itself.
            f64::from(f32::MAX) + 5.0e30,
            340_282_366_920_938_463_463_374_607_431_768_211_456.0 - 1.0e31,
            340_282_366_920_938_463_463_374_607_431_768_211_456.0,
            70_000.0,
            300.0,
        ];
        let far: Vec<f64> = far.iter().flat_map(|&v| [v, -v]).collect();
        let rules: &[OutOfRange] =
            if dst.is_integer() { &[OutOfRange::Clamp, OutOfRange::Wrap] } else { &[OutOfRange::Clamp] };
        for r in Rounding::ALL {
            for &oor in rules {
                let plan =
                    CastPlan::new(&CastConfig::new(dst).with_rounding(r).with_out_of_range(Some(oor)), src, None)
                        .unwrap();
                for &v in &far {
                    let bad = value(v);
                    for tier in vector_tiers() {
                        for pos in (0..n).step_by(3 * sample()) {
                            let mut bits = ordinary.clone();
                            bits[pos] = bad;
                            let input = to_bytes(src, &bits);
                            same_as_scalar(&plan, tier, &input, &format!("{src}->{dst} {r} {oor:?} {v:e} at {pos}"));
                        }
                    }
                }
            }
        }
    }
}

/// float32 and float64 -> every narrower float target: the target's finite values and the
/// midpoints between neighbours (the ties), each also with its pattern's neighbours and
/// with one bit of the source pattern flipped at every position, both signs, and powers of
/// two down to far below the target's smallest subnormal: the bit that breaks a tie or
/// decides a directed step can sit anywhere below the kept ones, for normal and subnormal
/// results alike.
#[test]
fn ties_and_sticky_bits_at_every_position() {
    for src in [DataType::Float32, DataType::Float64] {
        let targets = ALL_DATA_TYPES.into_iter().filter(|t| t.is_float() && t.bits() < src.bits());
        for dst in targets {
            let widen = CastPlan::new(&CastConfig::new(DataType::Float64), dst, None).unwrap();
            let sign = dst.format().sign_mask();
            // float32 targets: every 2^21-th positive pattern and its successor (a tie between
            // them); 16-bit targets: every 61st pair of neighbours.
            let codes: Vec<u64> = if dst.bits() == 32 {
                (0..1u64 << 31).step_by(1 << 21).flat_map(|c| [c, c + 1]).collect()
            } else {
                (0..=dst.format().mask()).collect()
            };
            let mut values: Vec<f64> = codes
                .into_iter()
                .filter(|&c| c & sign == 0)
                .filter_map(|c| scalar::cast_element(widen.encoder(), c).ok())
                .map(f64::from_bits)
                .filter(|v| v.is_finite())
                .collect();
            values.sort_by(f64::total_cmp);
            values.dedup();
            let mut points: Vec<f64> = (0..150).map(|k| (k as f64 - 149.0).exp2()).collect();
            // Around and beyond f32's largest value (out of range of every target here, but
            // not the same as its largest value towards zero).
            points.extend([f64::from(f32::MAX), 128f64.exp2(), 1e300, f64::MAX]);
            for w in values.windows(2).step_by(if dst.bits() == 16 { 61 } else { 1 }) {
                points.extend([w[0], (w[0] + w[1]) / 2.0]);
            }
            let mut bits: Vec<u64> = Vec::new();
            let (width, top) = if src == DataType::Float32 { (23, 1u64 << 31) } else { (52, 1u64 << 63) };
            for p in points {
                let b = if src == DataType::Float32 { (p as f32).to_bits() as u64 } else { p.to_bits() };
                // The point, its neighbours (just under a tie: a tie's pattern minus one),
                // and each bit flipped.
                let near = [b, b.saturating_sub(1), b + 1];
                for v in near.into_iter().chain((0..width).map(|j| b ^ (1 << j))) {
                    bits.extend([v, v | top]);
                }
            }
            every_mode_clamp_and_none(src, dst, &to_bytes(src, &bits), "ties and sticky bits");
        }
    }
}

/// [`same_as_scalar`] on every vector tier for `input`, in every rounding mode, with clamp
/// and without a rule.
fn every_mode_clamp_and_none(src: DataType, dst: DataType, input: &[u8], what: &str) {
    for r in Rounding::ALL {
        for oor in [None, Some(OutOfRange::Clamp)] {
            let cfg = CastConfig::new(dst).with_rounding(r).with_out_of_range(oor);
            let plan = CastPlan::new(&cfg, src, None).unwrap();
            for tier in vector_tiers() {
                same_as_scalar(&plan, tier, input, &format!("{what}, {r} {oor:?}"));
            }
        }
    }
}

/// Integer sources to the narrower floats: every small value, and each power of two with its
/// neighbours (where a rounding to odd on the way, or halving a large uint32 first, could
/// lose an exact result or a tie) and the ties above it, both signs where there are any,
/// every mode and tier.
#[test]
fn integers_around_powers_of_two_to_narrower_floats() {
    for src in [DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64] {
        let mask = src.format().mask();
        let mut values: Vec<u64> = (0..300).collect();
        // The top of the range: -1, -2, ... for signed types, the largest values of unsigned ones.
        values.extend((0..300).map(|d| mask.wrapping_sub(d)));
        for k in 1..src.bits() {
            let p = 1u64 << k;
            values.extend((0..4).flat_map(|d| [p.wrapping_add(d), p.wrapping_sub(d + 1)]));
            // Ties at 11, 24 and 54 significant bits above the power (float16 / float32 /
            // float64; after an even and an odd last kept bit for float64), and next to them.
            values.extend([p | p >> 11, p | p >> 24, p | p >> 11 | 1, p | p >> 24 | 1].map(|v| v & mask));
            let (tie, odd) = (p | p >> 53, p | p >> 52 | p >> 53);
            values.extend([tie, tie + 1, tie - 1, odd, odd + 1, odd - 1].map(|v| v & mask));
            // float8_e8m0fnu's tie (one significant bit): 1.5 times the power, and below it.
            values.extend([p | p >> 1, (p | p >> 1) - 1].map(|v| v & mask));
        }
        let mut bits: Vec<u64> = values.iter().map(|&v| v & mask).collect();
        if src.format().kind == cast_value_kernels::Kind::Signed {
            bits.extend(values.iter().map(|&v| v.wrapping_neg() & mask));
        }
        let input = to_bytes(src, &bits);
        for dst in [
            DataType::Float16,
            DataType::BFloat16,
            DataType::Float32,
            DataType::Float64,
            DataType::Float8E4M3,
            DataType::Float8E5M2,
            DataType::Float6E3M2FN,
            DataType::Float4E2M1FN,
            DataType::Float8E8M0FNU,
        ] {
            every_mode_clamp_and_none(src, dst, &input, "integers near powers of two");
        }
    }
}

/// float32/float64 -> every integer target at the edges of the ranges the kernels test:
/// each power of two from 2^0 to 2^70 (past int64/uint64 and the 2^31 / 2^32 / 2^63 / 2^64
/// where a conversion saturates or a wrap window ends), its float neighbours, the halves
/// and whole numbers next to it, both signs, in every rounding mode and every range rule.
#[test]
fn floats_at_integer_range_edges_in_every_mode_and_rule() {
    let mut values: Vec<f64> = Vec::new();
    for k in 0..=70 {
        let p = (k as f64).exp2();
        for v in [p - 1.5, p - 1.0, p - 0.5, p, p + 0.5, p + 1.0, p + 1.5] {
            values.extend([v, -v]);
        }
        values.extend([f64::from_bits(p.to_bits() - 1), f64::from_bits(p.to_bits() + 1)].map(|v| [v, -v]).concat());
        let q = p as f32;
        for v in [f32::from_bits(q.to_bits() - 1), f32::from_bits(q.to_bits() + 1)].map(f64::from) {
            values.extend([v, -v]);
        }
    }
    values.extend([0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    for src in [DataType::Float32, DataType::Float64] {
        let bits: Vec<u64> = values
            .iter()
            .map(|&v| if src == DataType::Float32 { u64::from((v as f32).to_bits()) } else { v.to_bits() })
            .collect();
        let input = to_bytes(src, &bits);
        for dst in ALL_DATA_TYPES.into_iter().filter(|t| t.is_integer() && t.bits() >= 8) {
            for r in Rounding::ALL {
                for oor in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                    let cfg = CastConfig::new(dst).with_rounding(r).with_out_of_range(oor);
                    let plan = CastPlan::new(&cfg, src, None).unwrap();
                    // Without a rule the first error hides the rest: also the values that cast.
                    let fine: Vec<u64> =
                        bits.iter().copied().filter(|&b| scalar::cast_element(plan.encoder(), b).is_ok()).collect();
                    let fine = to_bytes(src, &fine);
                    for tier in vector_tiers() {
                        same_as_scalar(&plan, tier, &input, &format!("{src}->{dst} {r} {oor:?}"));
                        same_as_scalar(&plan, tier, &fine, &format!("{src}->{dst} {r} {oor:?}, values that cast"));
                    }
                }
            }
        }
    }
}

/// Calls of 32 MiB and more write their output through scratch memory and non-temporal
/// stores on the x86 tiers: a head up to the first cache line (by the reference), whole
/// 4 KiB blocks, a tail. Outputs at several destination alignments (a cache line's start and
/// points inside one), cold lanes (NaN) inside blocks, and an error inside a block or the
/// head (the error index and every element before it) must match the scalar reference.
/// Tiers without that path (every other) run each call as they run short ones, which the
/// other tests cover; they take the first case at one offset here (the cases cost minutes
/// under emulation, where the portable tier is about as slow as the reference).
#[test]
fn large_calls_match_scalar_at_every_destination_alignment() {
    use DataType as T;
    let streams = hand_written_x86;
    let streaming = vector_tiers().iter().any(streams);
    // (source, target, rule, where an out-of-range value sits: 0 none, 1 three quarters of
    // the way in (inside the streamed blocks), 2 three elements before the end (the tail),
    // 3 the third element (the head, at every offset but the cache line's start)).
    let cases = [
        (T::Float32, T::BFloat16, Some(OutOfRange::Clamp), 0),
        (T::Float32, T::Float8E4M3, None, 0),
        (T::Float32, T::Int8, Some(OutOfRange::Clamp), 0),
        (T::Float32, T::Int8, None, 1),
        (T::Float32, T::Int8, None, 2),
        (T::Float32, T::Int8, None, 3),
        // Same-type copies and the integer packs.
        (T::Float32, T::Float32, None, 0),
        (T::Int32, T::Int8, None, 1),
        (T::Float32, T::Float64, None, 0),
        (T::Float64, T::Float32, None, 0),
        // A byte source (AVX-512: table planes, 64 elements per step).
        (T::Float8E4M3, T::Int8, None, 1),
        (T::Float8E4M3, T::BFloat16, None, 0),
    ];
    let one_offset = sample() > 1;
    for (case, (src, dst, oor, bad)) in cases.into_iter().take(if streaming { usize::MAX } else { 1 }).enumerate() {
        let n = (40 << 20) / (src.size() + dst.size()) + 37;
        let bad_at = [usize::MAX, 3 * n / 4, n - 3, 2][bad] as u64;
        // Values in every target's range (|v| <= 125, eighths); every 100,003 elements a value for the
        // cold path: NaN for float targets, one to clamp for int8 with clamp.
        let special = match (dst.is_float(), oor) {
            (true, _) => f64::NAN,
            (false, Some(_)) => -1e6,
            (false, None) => 1.0,
        };
        // As the source type (rounded, and clamped: 1000 is 448 in float8_e4m3, still out of
        // int8's range), 2^16 elements at a time (wasm32 runs this too: memory stays near the
        // buffers' own size).
        let to_src = CastConfig::new(src).with_out_of_range(Some(OutOfRange::Clamp));
        let to_src = CastPlan::new(&to_src, T::Float64, None).unwrap().with_tier(Tier::Scalar).unwrap();
        let mut input = vec![0u8; n * src.size()];
        for (c, out) in input.chunks_mut(src.size() << 16).enumerate() {
            let first = (c as u64) << 16;
            let values: Vec<u64> = (first..first + (out.len() / src.size()) as u64)
                .map(|i| {
                    let v = ((i.wrapping_mul(2_654_435_761) % 2001) as f64 - 1000.0) / 8.0;
                    let v = if i % 100_003 == 99_999 { special } else { v };
                    let v = if i == bad_at { 1000.0 } else { v };
                    v.to_bits()
                })
                .collect();
            to_src.encode(&to_bytes(T::Float64, &values), out).unwrap();
        }
        let plan = CastPlan::new(&CastConfig::new(dst).with_out_of_range(oor), src, None).unwrap();
        let mut want = vec![0u8; n * dst.size()];
        let want_r = plan.clone().with_tier(Tier::Scalar).unwrap().encode(&input, &mut want);
        let upto = match want_r {
            Err(CastError::Element(e)) => e.index * dst.size(),
            _ => want.len(),
        };
        assert_eq!(upto < want.len(), bad != 0, "{src}->{dst}: the error cases, and only they, fail");
        for tier in vector_tiers() {
            let tier_plan = plan.clone().with_tier(tier).unwrap();
            let mut buf = vec![0u8; want.len() + 128];
            let line = buf.as_ptr().align_offset(64);
            let offsets: &[usize] = if streams(&tier) { &[0, 1, 8, 31, 40] } else { &[1] };
            // Sampled: one offset per case, in turn.
            let offsets = if one_offset { &offsets[case % offsets.len()..][..1] } else { offsets };
            for off in offsets.iter().map(|o| line + o) {
                buf.fill(0xa5);
                let got = &mut buf[off..off + want.len()];
                let got_r = tier_plan.encode(&input, got);
                assert_eq!(got_r, want_r, "{src}->{dst} {oor:?} on {tier}, offset {off}");
                assert!(got[..upto] == want[..upto], "{src}->{dst} {oor:?} on {tier}, offset {off}: outputs differ");
            }
        }
    }
}

/// The directed modes round a byte's two signs apart (towards positive, +1.5 -> 2 but -1.5
/// -> -1), so a byte table of theirs has no plain sign rule; `sign_rule` then looks for one
/// that holds after a one-step add on one side (`Plus`), which lets the AVX2 shuffle kernel
/// look up one half of the table instead of two. Every entry the rule serves must come back
/// exactly, from the entries alone (stored entry, the step, the rule): the kernels' own
/// results are checked against scalar by the test above. Signed float8 sources to the
/// targets with a sign and -0 (every value's negation is in the target, clamping is
/// symmetric) must get such a rule, served everywhere but NaN and -Inf.
#[test]
fn directed_byte_tables_take_a_sign_rule_with_a_step() {
    use cast_value_kernels::kernels::lanes::{sym, Lut};
    use DataType as T;
    let sources =
        [T::Float8E4M3, T::Float8E5M2, T::Float8E4M3FNUZ, T::Float8E5M2FNUZ, T::Float8E4M3B11FNUZ, T::Float8E3M4];
    let symmetric = |t: T| t.is_float() && t.format().has_negative_zero() && t.format().sign_mask() != 0;
    let mut stepped = 0;
    for src in sources {
        for dst in ALL_DATA_TYPES.into_iter().filter(|&t| t.size() == 1 && t != src) {
            for r in [Rounding::TowardsPositive, Rounding::TowardsNegative] {
                let mut oors = vec![None, Some(OutOfRange::Clamp)];
                if dst.is_integer() {
                    oors.push(Some(OutOfRange::Wrap));
                }
                for oor in oors {
                    let what = format!("{src}->{dst} {r} {oor:?}");
                    let config = CastConfig::new(dst).with_rounding(r).with_out_of_range(oor);
                    let plan = CastPlan::new(&config, src, None).unwrap();
                    let lut = Lut::new(plan.encoder()).unwrap();
                    let Some(rule) = lut.sign_rule() else {
                        assert!(!(symmetric(dst) && oor.is_some()), "{what}: no sign rule");
                        continue;
                    };
                    let entry = |i: usize| lut.values()[i] as u8;
                    let mut served = 0;
                    for m in 0..0x80usize {
                        let neg = m | 0x80;
                        if lut.fails()[neg] || rule.cold[neg] {
                            continue;
                        }
                        let (step, negative) = rule.plus.map_or((false, false), |p| (p.has(m), p.negative));
                        // The positive side's stored entry is one less than its own.
                        let stored = entry(m).wrapping_sub((step && !negative) as u8);
                        let t = stored.wrapping_add((step && negative) as u8);
                        assert_eq!(sym::apply(rule.how, rule.s, t), entry(neg), "{what}: magnitude {m:#x}");
                        served += 1;
                    }
                    if symmetric(dst) && oor.is_some() {
                        assert!(rule.plus.is_some(), "{what}: a plain rule where the signs round apart");
                        // NaN (and -Inf where the source has it) are the only negative bytes left.
                        let special = (0x80..0x100)
                            .filter(|&b| !matches!(src.decode_bits(b), cast_value_kernels::Decoded::Finite { .. }))
                            .count();
                        assert!(served + special >= 0x80, "{what}: {served} negative bytes served");
                    }
                    stepped += rule.plus.is_some() as usize;
                }
            }
        }
    }
    println!("directed byte tables with a stepped rule: {stepped}");
    assert!(stepped > 0);
}

/// A byte table whose signs are symmetric but for the least value of a signed target
/// (float8 -> int8 without a rule: -128 casts, 128 fails) still takes the negation rule:
/// the failing magnitude's entry is never stored, so it is set to what gives -128's.
#[test]
fn byte_tables_symmetric_but_for_the_least_integer_take_a_rule() {
    use cast_value_kernels::kernels::lanes::{sym, Lut};
    use DataType as T;
    let mut checked = 0;
    for src in [T::Float8E4M3, T::Float8E5M2, T::Float8E4M3FNUZ, T::Float8E5M2FNUZ, T::Float8E3M4] {
        for dst in [T::Int8, T::Int4, T::Int2] {
            for r in [Rounding::NearestEven, Rounding::TowardsZero, Rounding::NearestAway] {
                let what = format!("{src}->{dst} {r}");
                let plan = CastPlan::new(&CastConfig::new(dst).with_rounding(r), src, None).unwrap();
                let lut = Lut::new(plan.encoder()).unwrap();
                // Magnitudes that fail while their negative byte casts (to the least value).
                let lopsided: Vec<usize> = (0..0x80).filter(|&m| lut.fails()[m] && !lut.fails()[m | 0x80]).collect();
                if lopsided.is_empty() {
                    continue;
                }
                let rule = lut.sign_rule().unwrap_or_else(|| panic!("{what}: no sign rule"));
                assert_eq!(rule.how, sym::NEG, "{what}");
                for m in lopsided {
                    let (stored, negative) = (lut.values()[m] as u8, lut.values()[m | 0x80] as u8);
                    assert_eq!(i128::from(negative as i8), dst.format().int_bounds().0, "{what}: {m:#x}");
                    assert_eq!(sym::apply(rule.how, rule.s, stored), negative, "{what}: {m:#x}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "{checked} tables");
}

/// float64, float32 and bfloat16 -> int32 with clamp and wrap on data with many lanes
/// beyond int32: after a step with such lanes the x86 kernels take a different form for the
/// next steps (float64, float32), so runs of them, runs without them long enough for that form to end, edges of
/// int32 in every mode (ties at +-(2^31 - 1/2), -2^31 itself, values just past either end),
/// values from 2^51 on (where the float64 wrap form by addition no longer holds) and
/// NaN/+-Inf (with and without a scalar_map that takes them) must all match the reference.
#[test]
fn floats_to_int32_with_runs_of_values_beyond_the_range() {
    let two31 = 2_147_483_648.0_f64;
    let edges = [
        two31,
        two31 - 0.5,
        two31 - 1.0,
        two31 - 1.5,
        two31 + 0.5,
        two31 + 1.0,
        -two31,
        -two31 - 0.5,
        -two31 + 0.5,
        -two31 - 1.0,
        -two31 + 1.0,
        -two31 + 1.5,
    ];
    let far =
        [1.0e10, 6_442_450_944.5, 4_294_967_295.5, 2_251_799_813_685_248.5, 4_503_599_627_370_497.0, 1.0e30, 1.0e300];
    // xorshift64*: reproducible, no dependency.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    // Segments of MAX_STEP elements: (share of far/edge values in percent, NaN/+-Inf allowed).
    let segments: Vec<(u64, bool)> =
        [(30, false); 6].into_iter().chain([(0, false); 20]).chain([(10, false); 24]).chain([(10, true); 8]).collect();
    let mut values = Vec::new();
    for &(share, specials) in &segments {
        for _ in 0..MAX_STEP {
            let r = next();
            let v = match r % 100 {
                p if p < share && r & 0x100 != 0 => edges[(r >> 9) as usize % edges.len()],
                p if p < share => {
                    let v = far[(r >> 9) as usize % far.len()];
                    if r & 0x10000 != 0 {
                        -v
                    } else {
                        v
                    }
                }
                _ if specials && r >> 60 == 0 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][(r >> 9) as usize % 3],
                _ => ((r >> 20) % 4001) as f64 * 0.25 - 500.0,
            };
            values.push(v);
        }
    }
    let clean: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    static MAP: [(FillValue, FillValue); 3] = [
        (FillValue::NaN, FillValue::Int(3)),
        (FillValue::Infinity, FillValue::Int(5)),
        (FillValue::NegInfinity, FillValue::Int(6)),
    ];
    let dst = DataType::Int32;
    for src in [DataType::Float64, DataType::Float32, DataType::BFloat16] {
        // (float32 and bfloat16 by truncation: any value of theirs near these will do.)
        let bits = |v: &[f64]| -> Vec<u64> {
            v.iter()
                .map(|&v| match src {
                    DataType::Float64 => v.to_bits(),
                    DataType::Float32 => u64::from((v as f32).to_bits()),
                    _ => u64::from((v as f32).to_bits() >> 16),
                })
                .collect()
        };
        let inputs = [("with specials", to_bytes(src, &bits(&values))), ("finite", to_bytes(src, &bits(&clean)))];
        for r in Rounding::ALL {
            for oor in [OutOfRange::Clamp, OutOfRange::Wrap] {
                for map in [&[][..], &MAP[..]] {
                    let cfg =
                        CastConfig::new(dst).with_rounding(r).with_out_of_range(Some(oor)).with_scalar_map(map, &[]);
                    let plan = CastPlan::new(&cfg, src, None).unwrap();
                    for tier in vector_tiers() {
                        for (what, input) in &inputs {
                            same_as_scalar(&plan, tier, input, &format!("{r} {oor:?} map {} {what}", map.len()));
                        }
                    }
                }
            }
        }
    }
}
