//! JSON configuration and fill-value parsing (the check is in fuzz/checks, which `cargo
//! test` also runs over the committed seeds, through tests/fuzz_seeds.rs).
#![no_main]

#[path = "../checks/json_config.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check(data));
