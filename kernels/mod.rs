//! The hot code. One module per instruction-set tier; a plan resolves its kernel once, when it
//! is bound, through [`select`].
//!
//! Only the `scalar` reference tier exists so far. It defines the semantics; every faster
//! tier added later is tested against it bit for bit and plugs in through [`select`] without
//! changing the public API.

use crate::error::ElementError;
use crate::plan::Direction;
use core::fmt;

pub mod scalar;

/// A buffer kernel: casts every element of `src` into `dst` for one direction of a plan.
/// Buffer lengths are already checked.
pub type KernelFn = fn(&Direction, &[u8], &mut [u8]) -> Result<(), ElementError>;

/// An instruction-set tier of kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Tier {
    /// The exact scalar reference.
    Scalar,
}

impl Tier {
    /// The tier's name, as printed by the throughput table and accepted by `--isa`.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Scalar => "scalar",
        }
    }

    /// Every tier this build and CPU can run, best first.
    pub fn available() -> &'static [Tier] {
        &[Tier::Scalar]
    }

    /// The tier dispatch picks on this machine.
    pub fn best() -> Tier {
        Tier::Scalar
    }

    /// The named tier, if this build and CPU can run it.
    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::available().iter().copied().find(|t| t.name() == name)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernel of `tier` for one direction, or `None` if the tier cannot run here.
pub fn select(tier: Tier, _dir: &Direction) -> Option<KernelFn> {
    match tier {
        Tier::Scalar => Some(scalar::cast as KernelFn),
    }
}
