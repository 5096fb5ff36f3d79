//! The fuzz targets' checks (fuzz/checks) over every committed seed (fuzz/corpus), on stable
//! and through every available tier: each past finding stays a regression test of
//! `cargo test`. The fuzzers themselves run by hand (`bash fuzz/run.sh [SECONDS]`, nightly).
#![cfg(feature = "json")]

#[path = "../fuzz/checks/codec_differential.rs"]
mod codec_differential;
#[path = "../fuzz/checks/json_config.rs"]
mod json_config;
mod model;

use std::path::PathBuf;

/// The committed seeds of one target, sorted by name.
fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("directory entry").path();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, bytes)
        })
        .collect();
    out.sort();
    out
}

fn replay(target: &str, check: fn(&[u8])) {
    let seeds = seeds(target);
    assert!(!seeds.is_empty(), "no committed seeds for {target}");
    for (path, bytes) in seeds {
        eprintln!("{target}: {}", path.display());
        check(&bytes);
    }
}

#[test]
fn json_config_seeds() {
    replay("json_config", json_config::check);
}

#[test]
fn codec_differential_seeds() {
    replay("codec_differential", codec_differential::check);
}
