//! Every bit pattern of every source type of 16 bits or less, cast to every target under
//! every rounding mode and out_of_range setting, checked against the independent model.

mod model;

use cast_value_kernels::kernels::scalar;
use cast_value_kernels::{DataType, OutOfRange, Rounding, ALL_DATA_TYPES};

/// Every pattern natively; under miri (CI's UB check) a spread sample, for time.
const STEP: usize = if cfg!(miri) { 19997 } else { 1 };

fn settings(dst: DataType) -> Vec<Option<OutOfRange>> {
    let mut v = vec![None, Some(OutOfRange::Clamp)];
    if dst.is_integer() {
        v.push(Some(OutOfRange::Wrap));
    }
    v
}

fn exhaustive(src: DataType) {
    // Sub-byte sources: every byte, so the ignored upper bits are exercised too.
    let patterns: u64 = if src.bits() <= 8 { 256 } else { 1 << src.bits() };
    let ms = model::ty(src);
    let mut checked = 0u64;
    for dst in ALL_DATA_TYPES {
        let md = model::ty(dst);
        for rounding in Rounding::ALL {
            for oor in settings(dst) {
                for bits in (0..patterns).step_by(STEP) {
                    let got = scalar::convert(src, dst, rounding, oor, bits);
                    let want = model::cast(ms, md, rounding, oor, bits);
                    assert!(
                        model::agrees(md, &want, &got),
                        "{src}->{dst} {rounding} {oor:?} input {bits:#x}: crate {got:x?}, model {want:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= patterns / STEP as u64 * 26 * 10);
}

macro_rules! exhaustive_tests {
    ($($name:ident => $t:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            exhaustive(DataType::$t);
        }
    )*};
}

exhaustive_tests! {
    from_int2 => Int2, from_int4 => Int4, from_int8 => Int8, from_int16 => Int16,
    from_uint2 => UInt2, from_uint4 => UInt4, from_uint8 => UInt8, from_uint16 => UInt16,
    from_float4_e2m1fn => Float4E2M1FN, from_float6_e2m3fn => Float6E2M3FN,
    from_float6_e3m2fn => Float6E3M2FN, from_float8_e3m4 => Float8E3M4,
    from_float8_e4m3 => Float8E4M3, from_float8_e4m3b11fnuz => Float8E4M3B11FNUZ,
    from_float8_e4m3fnuz => Float8E4M3FNUZ, from_float8_e5m2 => Float8E5M2,
    from_float8_e5m2fnuz => Float8E5M2FNUZ, from_float8_e8m0fnu => Float8E8M0FNU,
    from_bfloat16 => BFloat16, from_float16 => Float16,
}

/// The model's hand-typed table agrees with DECISIONS' derived columns (max finite, min
/// subnormal, canonical NaN) and with the crate's own table on the shared facts.
#[test]
fn model_table_matches_decisions_columns() {
    for t in ALL_DATA_TYPES {
        let m = model::ty(t);
        assert_eq!(m.bits, t.bits(), "{t}");
        if t.is_integer() {
            continue;
        }
        // max finite: the largest finite decoded pattern equals the DECISIONS column.
        let mut best: Option<(u128, i32)> = None;
        let mut min_pos: Option<(u128, i32)> = None;
        let limit: u64 = if m.bits > 16 { 0 } else { 1 << m.bits };
        for b in 0..limit {
            if let model::Val::Fin { neg: false, m: mm, e } = model::decode(m, b) {
                if mm == 0 {
                    continue;
                }
                if best.is_none_or(|(bm, be)| model::cmp_mag(mm, e, bm, be).is_gt()) {
                    best = Some((mm, e));
                }
                if min_pos.is_none_or(|(bm, be)| model::cmp_mag(mm, e, bm, be).is_lt()) {
                    min_pos = Some((mm, e));
                }
            }
        }
        if let (Some((bm, be)), Some((pm, pe))) = (best, min_pos) {
            let (xm, xe) = model::from_f64(m.max_finite);
            assert!(model::cmp_mag(bm, be, xm, xe).is_eq(), "{t} max finite");
            let want_min = if m.min_sub == 0.0 { (1, -127) } else { model::from_f64(m.min_sub) };
            assert!(model::cmp_mag(pm, pe, want_min.0, want_min.1).is_eq(), "{t} min positive");
        }
        assert_eq!(t.format().canonical_nan(), m.canonical_nan, "{t} canonical NaN");
    }
}
