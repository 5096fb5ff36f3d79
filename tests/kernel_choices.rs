//! The x86 tiers' plan-time choices, which no kernel's output shows (every choice writes the
//! same bytes): which kernel a map plan takes for its data, how a byte table flags its cold
//! bytes, that every byte table fits the kernel picked for it, that the byte-float decoders
//! give every code exactly, and the AVX-512 tier's gate for cores that run it in halves.
#![cfg(target_arch = "x86_64")]

use cast_value_kernels::kernels::dispatch;
use cast_value_kernels::kernels::lanes::special_substitute;
use cast_value_kernels::kernels::x86_64_avx2::probes;
use cast_value_kernels::{
    CastConfig, CastPlan, DataType as T, Decoded, FillValue as V, Kind, OutOfRange, Rounding, ALL_DATA_TYPES,
};

/// The sample that picks a map plan's kernel: the substituting one where NaN/Inf are 1% of
/// the data or more (at random places or every 100th), the plain one at 0.1% or none.
#[test]
fn map_kernels_substitute_where_nan_and_inf_are_dense() {
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -f64::NAN];
    for t in [T::Float32, T::Float64] {
        let f = t.format();
        // A special where the random word (or with `periodic` the index) is a multiple of `m`
        // (none for 0). (2^20 elements: about 2,000 samples.)
        let data = |periodic: bool, m: u64| {
            let mut x = 0x2545_f491_4f6c_dd1du64;
            (0..1u64 << 20)
                .flat_map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let hit = m != 0 && if periodic { i.is_multiple_of(m) } else { x.is_multiple_of(m) };
                    let v = if hit { specials[(x % 4) as usize] } else { i as f64 * 0.25 };
                    match t {
                        T::Float32 => (v as f32).to_ne_bytes().to_vec(),
                        _ => v.to_ne_bytes().to_vec(),
                    }
                })
                .collect::<Vec<u8>>()
        };
        assert!(probes::dense_specials(&data(false, 3), f), "{t}");
        assert!(probes::dense_specials(&data(false, 100), f), "{t}");
        assert!(probes::dense_specials(&data(true, 100), f), "{t}");
        assert!(!probes::dense_specials(&data(false, 1000), f), "{t}");
        assert!(!probes::dense_specials(&data(true, 1000), f), "{t}");
        assert!(!probes::dense_specials(&data(false, 0), f), "{t}");
        assert!(!probes::dense_specials(&[], f), "{t}");
    }
}

/// A map of NaN/+-Inf to one value has a substitute exactly where a finite float32 (or
/// float64) casts to that value by itself (then the kernels may put it in those lanes); the
/// plan finds it when it is bound.
#[test]
fn a_map_has_a_substitute_where_a_finite_source_value_casts_to_its_value() {
    let sub_from = |from: T, to: T, map: &[(V, V)], r: Rounding, oor: Option<OutOfRange>| {
        let cfg = CastConfig::new(to).with_rounding(r).with_out_of_range(oor).with_scalar_map(map, &[]);
        let plan = CastPlan::new(&cfg, from, None).unwrap();
        let found = special_substitute(plan.encoder());
        assert_eq!(probes::bound_substitute(plan.encoder()), found, "{from}->{to}");
        found
    };
    let sub = |to: T, map: &[(V, V)], r: Rounding, oor: Option<OutOfRange>| sub_from(T::Float32, to, map, r, oor);
    let all = |v| [(V::NaN, v), (V::Infinity, v), (V::NegInfinity, v)];
    let ne = Rounding::NearestEven;
    assert_eq!(sub(T::UInt8, &all(V::Int(200)), ne, None), Some(200f32.to_bits() as u64));
    assert_eq!(sub(T::Int16, &all(V::Int(-300)), Rounding::TowardsZero, None), Some((-300f32).to_bits() as u64));
    assert_eq!(sub(T::Float16, &all(V::Number("-0.0")), ne, None), Some(0x8000_0000));
    assert_eq!(sub(T::Float16, &all(V::Number("1.5")), ne, None), Some(1.5f32.to_bits() as u64));
    // No finite float32 is that value, or the map is not one value for all three.
    assert_eq!(sub(T::Int32, &all(V::Int(16_777_217)), ne, None), None);
    assert_eq!(sub(T::Float16, &all(V::Infinity), ne, None), None);
    assert_eq!(sub(T::BFloat16, &all(V::NaN), ne, None), None);
    let two = [(V::NaN, V::Int(1)), (V::Infinity, V::Int(1)), (V::NegInfinity, V::Int(2))];
    assert_eq!(sub(T::Int8, &two, ne, None), None);
    assert_eq!(sub(T::Int8, &[(V::NaN, V::Int(1)), (V::Infinity, V::Int(1))], ne, None), None);
    assert_eq!(sub(T::Int8, &[], ne, None), None);
    // float64 sources.
    let clamp = Some(OutOfRange::Clamp);
    assert_eq!(sub_from(T::Float64, T::Float32, &all(V::Number("1.5")), ne, clamp), Some(1.5f64.to_bits()));
    let least = (-2_147_483_648f64).to_bits();
    assert_eq!(sub_from(T::Float64, T::Int32, &all(V::Int(-2_147_483_648)), ne, clamp), Some(least));
    assert_eq!(sub_from(T::Float64, T::Float32, &all(V::NaN), ne, clamp), None);
}

/// Tables of sources of 6 bits or less mark their failing bytes by bit 7 of the low plane
/// where every byte that casts leaves it clear, look up a plane of fails where not, and test
/// nothing where none fails.
#[test]
fn small_sources_flag_failing_bytes_where_bit_7_is_free() {
    let form = |from: T, to: T, oor: Option<OutOfRange>| {
        let plan = CastPlan::new(&CastConfig::new(to).with_out_of_range(oor), from, None).ok()?;
        probes::planes_fail(plan.encoder())
    };
    let (flag, lookup, none) = (Some(probes::FAIL_FLAG), Some(probes::FAIL_LOOKUP), Some(probes::FAIL_NONE));
    // Negative values and those past 3 fail; 0..=3 stored in two bits.
    assert_eq!(form(T::Float6E2M3FN, T::UInt2, None), flag);
    // Every value that casts is at most 28: seven bits.
    assert_eq!(form(T::Float6E3M2FN, T::UInt8, None), flag);
    // float4's sign is bit 3 of its byte.
    assert_eq!(form(T::Float6E3M2FN, T::Float4E2M1FN, None), flag);
    assert_eq!(form(T::UInt4, T::Int2, None), flag);
    // int2 is stored sign-extended: -1 and -2 set bit 7.
    assert_eq!(form(T::Float6E3M2FN, T::Int2, None), lookup);
    assert_eq!(form(T::Float4E2M1FN, T::Int2, None), lookup);
    // Nothing fails: float8_e4m3fnuz holds every float6_e3m2fn value.
    assert_eq!(form(T::Float6E3M2FN, T::Float8E4M3FNUZ, None), none);
    assert_eq!(form(T::Int4, T::Int8, None), none);
    assert_eq!(form(T::Float6E3M2FN, T::UInt2, Some(OutOfRange::Clamp)), none);
}

/// The exact value of a finite code, as f32 (every 8-bit float value is one).
fn exact(t: T, b: u8) -> Option<f32> {
    match t.format().decode_float(u64::from(b)) {
        Decoded::Finite { neg, mant, exp } => {
            let m = mant as f32 * pow2(exp);
            Some(if neg { -m } else { m })
        }
        _ => None,
    }
}

/// 2^e for the exponents of 8-bit floats (|e| < 64), by repeated doubling: exact.
fn pow2(e: i32) -> f32 {
    let mut p = 1.0f32;
    for _ in 0..e.unsigned_abs() {
        p = if e < 0 { p / 2.0 } else { p * 2.0 };
    }
    p
}

/// Both forms of the 8-bit float decoder (each whether or not this CPU is one it is chosen
/// on) give every finite code's exact value, bit for bit, the sign of zero included.
#[test]
fn byte_float_decoders_give_every_finite_code_exactly() {
    if !dispatch::has_avx2() {
        return;
    }
    let mut checked = 0;
    for &t in ALL_DATA_TYPES.iter() {
        let f = t.format();
        if f.kind != Kind::Float || f.bits != 8 || !f.has_sign || !f.subnormals {
            continue;
        }
        for top in [true, false] {
            let Some(got) = probes::byte_float_decoded(t, top) else {
                assert!(!top, "{t:?}: no decoder with `top`");
                continue;
            };
            for (b, g) in (0..=255u8).zip(got) {
                if let Some(want) = exact(t, b) {
                    assert_eq!(g, want.to_bits(), "{t:?} code {b:#04x} (top: {top})");
                    checked += 1;
                }
            }
        }
    }
    // Six formats with `top`, five of them (the IEEE-like ones and e4m3's fnuz types)
    // without it too.
    assert!(checked > 2400, "{checked}");
}

/// Every byte table's rows fit the kernel the AVX2 tier runs them with (the slots it picks,
/// and a bit-7 Plus only for the rules and cold forms it has kernels for): one that did not
/// would send every chunk to the reference, right but slow, which no other test sees.
#[test]
fn every_byte_table_fits_the_kernel_picked_for_it() {
    if !dispatch::has_avx2() {
        return;
    }
    let bytes = ALL_DATA_TYPES.into_iter().filter(|t| t.size() == 1);
    let (mut seen, mut bit7) = (0, 0);
    for from in bytes.clone() {
        for to in bytes.clone() {
            for r in Rounding::ALL {
                for oor in [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)] {
                    let config = CastConfig::new(to).with_rounding(r).with_out_of_range(oor);
                    let Ok(plan) = CastPlan::new(&config, from, None) else { continue };
                    let Some(t) = probes::shuffle_table(plan.encoder()) else { continue };
                    assert!(t.fits, "{from} -> {to} {r:?} {oor:?}: {t:?}");
                    if t.plus_in_bit7 {
                        assert!(t.bit7_kernel, "{from} -> {to} {r:?} {oor:?}: {t:?}");
                        bit7 += 1;
                    }
                    seen += 1;
                }
            }
        }
    }
    // (16 byte types, 5 modes, 3 rules, less the invalid ones: about 3,000 tables.)
    assert!(seen > 2500, "{seen}");
    // (Directed modes' tables of float8 sources to float and small integer targets.)
    assert!(bit7 > 20, "{bit7}");
}

/// Tables whose values leave bit 7 free flag their cold bytes there (where that takes no
/// more rows); tables that use every byte value cannot.
#[test]
fn cold_bytes_are_flagged_where_the_values_leave_bit_7_free() {
    if !dispatch::has_avx2() {
        return; // (No rows are found without the AVX2 tier.)
    }
    let form = |from: T, to: T, oor: Option<OutOfRange>| {
        let plan = CastPlan::new(&CastConfig::new(to).with_out_of_range(oor), from, None).ok()?;
        Some(probes::shuffle_table(plan.encoder())?.cold_form)
    };
    let flag = Some(probes::COLD_FLAG);
    // uint8 -> float8_e4m3: every value non-negative, the NaN byte's 0x7f unused.
    assert_eq!(form(T::UInt8, T::Float8E4M3, None), flag);
    assert_eq!(form(T::Float8E8M0FNU, T::Int2, None), flag);
    // float6 in a byte: bit 7 is never the value's.
    assert_eq!(form(T::Float8E3M4, T::Float6E3M2FN, None), flag);
    // Every byte value is some value's: no flag.
    assert_ne!(form(T::Float8E4M3, T::Int8, None), flag);
    assert_ne!(form(T::Float8E4M3, T::UInt8, Some(OutOfRange::Wrap)), flag);
}

/// On a core that runs AVX-512 in 256-bit halves, the byte float targets of the sources made
/// bfloat16 first are left to the AVX2 tier, while float16 and bfloat16 keep this tier's
/// kernel; elsewhere all of them take it.
#[test]
fn byte_floats_from_wide_sources_follow_the_halves_gate() {
    if !dispatch::has_avx512() {
        return;
    }
    let picked = |from: T| {
        let plan = CastPlan::new(&CastConfig::new(T::Float8E4M3), from, None).ok()?;
        Some(cast_value_kernels::kernels::x86_64_avx512::select(plan.encoder()).is_some())
    };
    let halves = dispatch::avx512_in_halves();
    for from in [T::Float32, T::Float64, T::Int64, T::UInt64] {
        assert_eq!(picked(from), Some(!halves), "{from}");
    }
    for from in [T::Float16, T::BFloat16] {
        assert_eq!(picked(from), Some(true), "{from}");
    }
}
