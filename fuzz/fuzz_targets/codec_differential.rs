//! Codec differential (the check is in fuzz/checks, which `cargo test` also runs over the
//! committed seeds, through tests/fuzz_seeds.rs).
#![no_main]

#[path = "../checks/codec_differential.rs"]
mod checks;
#[path = "../../tests/model/mod.rs"]
mod model;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
