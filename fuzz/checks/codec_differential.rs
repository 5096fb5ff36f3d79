//! Codec differential: an arbitrary type pair, configuration, scalar_map and input bytes.
//! Every available tier must give the same output bytes or the same error as the scalar
//! tier; the scalar buffer path must agree with the per-element reference; and every element
//! that no map entry catches must agree with the independent model of tests/model.
use crate::model;
use cast_value_kernels::kernels::{scalar, Tier};
use cast_value_kernels::{CastConfig, CastError, CastPlan, DataType, FillValue, OutOfRange, Rounding, ALL_DATA_TYPES};

fn scalar_text(t: DataType, bits: u64) -> (Option<i128>, String) {
    let f = t.format();
    let bits = bits & f.mask();
    if t.is_integer() {
        let v = if f.kind == cast_value_kernels::Kind::Signed {
            (((bits << (64 - t.bits())) as i64) >> (64 - t.bits())) as i128
        } else {
            bits as i128
        };
        (Some(v), String::new())
    } else {
        (None, format!("{bits:0w$x}", w = 2 * t.size()))
    }
}

fn fill(t: &(Option<i128>, String)) -> FillValue<'_> {
    match t {
        (Some(i), _) => FillValue::Int(*i),
        (None, h) => FillValue::Hex(h),
    }
}

/// One fuzz input: panics on any disagreement.
pub fn check(data: &[u8]) {
    if data.len() < 5 {
        return;
    }
    let (head, rest) = data.split_at(5);
    let src = ALL_DATA_TYPES[head[0] as usize % 26];
    let dst = ALL_DATA_TYPES[head[1] as usize % 26];
    let rounding = Rounding::ALL[head[2] as usize % 5];
    let oor = [None, Some(OutOfRange::Clamp), Some(OutOfRange::Wrap)][head[3] as usize % 3];
    let n_map = (head[4] % 4) as usize;
    // Map entries: 16 bytes each (key bits, value bits).
    let map_bytes = (n_map * 16).min(rest.len() / 2 * 2);
    let (map_raw, input) = rest.split_at(map_bytes.min(rest.len()));
    let mut texts = Vec::new();
    for chunk in map_raw.chunks_exact(16) {
        let k = u64::from_le_bytes(chunk[..8].try_into().unwrap());
        let v = u64::from_le_bytes(chunk[8..].try_into().unwrap());
        texts.push((scalar_text(src, k), scalar_text(dst, v)));
    }
    let entries: Vec<(FillValue, FillValue)> = texts.iter().map(|(a, b)| (fill(a), fill(b))).collect();
    let config = CastConfig::new(dst).with_rounding(rounding).with_out_of_range(oor).with_scalar_map(&entries, &[]);
    let Ok(plan) = CastPlan::new(&config, src, None) else { return };
    let input = &input[..input.len() - input.len() % src.size()];
    let n = input.len() / src.size();

    let reference = {
        let scalar_plan = plan.clone().with_tier(Tier::Scalar).expect("scalar always runs");
        let mut out = vec![0u8; n * dst.size()];
        let r = scalar_plan.encode(input, &mut out);
        (r, out)
    };
    // Scalar buffer path vs the element reference and the model.
    let (ms, md) = (model::ty(src), model::ty(dst));
    let enc = plan.encoder();
    let mut first_err = None;
    for i in 0..n {
        let bytes = &input[i * src.size()..(i + 1) * src.size()];
        let bits = scalar::read_bits(src.format(), bytes);
        let got = scalar::cast_element(enc, bits);
        let key = scalar::canonical_key(src, bits);
        if enc.map().get(key).is_none() {
            let want = model::cast(ms, md, rounding, enc.out_of_range(), bits);
            assert!(
                model::agrees(md, &want, &got),
                "{src}->{dst} {rounding} {oor:?} {bits:#x}: {got:?} vs model {want:?}"
            );
        }
        if got.is_err() && first_err.is_none() {
            first_err = Some(i);
        }
    }
    match (&reference.0, first_err) {
        (Ok(()), None) => {}
        (Err(CastError::Element(e)), Some(i)) => assert_eq!(e.index, i),
        (r, f) => panic!("buffer {r:?} vs first element error {f:?}"),
    }
    // Every tier against scalar.
    for &tier in Tier::available() {
        let Some(p) = plan.clone().with_tier(tier) else { continue };
        let mut out = vec![0u8; n * dst.size()];
        let r = p.encode(input, &mut out);
        assert_eq!(r, reference.0, "tier {tier}");
        if r.is_ok() {
            assert_eq!(out, reference.1, "tier {tier}");
        }
    }
}
