//! The `peers` benchmark (`benches/peers.rs`) as an example, so that it can be built with the
//! profiles users build with: cargo builds bench targets with unwinding whatever the profile
//! says, examples with its `panic` setting.
//!
//! ```text
//! CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
//! CARGO_PROFILE_RELEASE_PANIC=abort cargo run --release --example peers -- --bench
//! ```
include!("../benches/peers.rs");
