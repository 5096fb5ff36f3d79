//! A configuration bound to the decoded array's data type: the validated, resolved form that
//! the kernels run. Everything is decided here, once.

use crate::config::{CastConfig, FillValue, MapEntry, OutOfRange, Rounding};
use crate::dtype::DataType;
use crate::error::{CastError, ConfigError, ElementError, MapDirection};
use crate::fill::fill_value_bits;
use crate::kernels::lanes::{LaneParams, Lut};
use crate::kernels::{self, scalar, KernelFn, Tier};

/// Distinct scalar_map keys a build without the `alloc` feature can hold per direction.
pub const INLINE_MAP_CAPACITY: usize = 16;

cfg_if::cfg_if! {
    if #[cfg(feature = "alloc")] {
        type Entries = alloc::vec::Vec<(u64, u64)>;
    } else {
        /// Fixed-capacity storage: no allocator needed.
        #[derive(Clone, Debug)]
        struct Entries {
            len: usize,
            items: [(u64, u64); INLINE_MAP_CAPACITY],
        }

        impl Entries {
            fn new() -> Self {
                Entries { len: 0, items: [(0, 0); INLINE_MAP_CAPACITY] }
            }
            fn as_slice(&self) -> &[(u64, u64)] {
                self.items.get(..self.len).unwrap_or(&[])
            }
            fn as_mut_slice(&mut self) -> &mut [(u64, u64)] {
                self.items.get_mut(..self.len).unwrap_or(&mut [])
            }
            /// False when full.
            fn try_push(&mut self, entry: (u64, u64)) -> bool {
                match self.items.get_mut(self.len) {
                    Some(slot) => {
                        *slot = entry;
                        self.len += 1;
                        true
                    }
                    None => false,
                }
            }
        }
    }
}

/// A resolved scalar_map: canonical key bits (see [`scalar::canonical_key`]) to output bits,
/// first occurrence of each key kept.
#[derive(Clone, Debug)]
pub struct ResolvedMap {
    entries: Entries,
}

impl ResolvedMap {
    fn build(
        direction: MapDirection,
        list: &[MapEntry<'_>],
        key_type: DataType,
        value_type: DataType,
    ) -> Result<Self, ConfigError> {
        let mut entries = Entries::new();
        for (index, (k, v)) in list.iter().enumerate() {
            let entry_error = |position, data_type, error| ConfigError::ScalarMapEntry {
                direction,
                index,
                position,
                data_type,
                error,
            };
            let kb = fill_value_bits(key_type, k).map_err(|e| entry_error(0, key_type, e))?;
            let vb = fill_value_bits(value_type, v).map_err(|e| entry_error(1, value_type, e))?;
            let key = scalar::canonical_key(key_type, kb);
            #[cfg(feature = "alloc")]
            entries.push((key, vb));
            #[cfg(not(feature = "alloc"))]
            {
                if entries.as_slice().iter().any(|&(k2, _)| k2 == key) {
                    continue; // the first occurrence wins
                }
                if !entries.try_push((key, vb)) {
                    return Err(ConfigError::ScalarMapTooLarge {
                        direction,
                        len: list.len(),
                        capacity: INLINE_MAP_CAPACITY,
                    });
                }
            }
        }
        // Sorted by key for binary search. With alloc: a stable sort keeps equal keys in
        // list order, so dedup keeps the first occurrence, in O(n log n) for any map size.
        #[cfg(feature = "alloc")]
        {
            entries.sort_by_key(|e| e.0);
            entries.dedup_by_key(|e| e.0);
        }
        #[cfg(not(feature = "alloc"))]
        entries.as_mut_slice().sort_unstable_by_key(|e| e.0); // keys already unique
        Ok(ResolvedMap { entries })
    }

    /// The (canonical key, output bits) pairs, one per distinct key (its first occurrence),
    /// sorted by key.
    #[inline]
    pub fn entries(&self) -> &[(u64, u64)] {
        entries_slice(&self.entries)
    }

    /// True when there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The output for a canonical key, if mapped.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u64> {
        let e = self.entries();
        e.binary_search_by_key(&key, |&(k, _)| k).ok().and_then(|i| e.get(i)).map(|&(_, v)| v)
    }
}

#[inline]
fn entries_slice(e: &Entries) -> &[(u64, u64)] {
    e.as_slice()
}

/// One direction of a plan (encode: array type -> data_type; decode: the reverse), fully
/// resolved: what the kernels read.
#[derive(Clone, Debug)]
pub struct Direction {
    pub(crate) from: DataType,
    pub(crate) to: DataType,
    pub(crate) rounding: Rounding,
    pub(crate) out_of_range: Option<OutOfRange>,
    pub(crate) map: ResolvedMap,
    pub(crate) kernel: KernelFn,
    /// Plan-time state of the vector kernels: the lane program's parameters (16+ bit
    /// sources) or the 256-entry table (sources of 8 bits or less).
    pub(crate) lanes: Option<LaneParams>,
    pub(crate) lut: Option<Lut>,
}

impl Direction {
    /// Source type of this direction.
    pub fn from(&self) -> DataType {
        self.from
    }
    /// Target type of this direction.
    pub fn to(&self) -> DataType {
        self.to
    }
    /// Rounding mode.
    pub fn rounding(&self) -> Rounding {
        self.rounding
    }
    /// The range rule in force (`wrap` is dropped for float targets).
    pub fn out_of_range(&self) -> Option<OutOfRange> {
        self.out_of_range
    }
    /// The resolved scalar_map of this direction.
    pub fn map(&self) -> &ResolvedMap {
        &self.map
    }

    /// Cast `src` into `dst` (raw native-endian element bytes) with this direction's kernel.
    pub fn run(&self, src: &[u8], dst: &mut [u8]) -> Result<(), CastError> {
        let (ss, ds) = (self.from.size(), self.to.size());
        if !src.len().is_multiple_of(ss) {
            return Err(CastError::InputLength { len: src.len(), element_size: ss });
        }
        let expected = (src.len() / ss).saturating_mul(ds);
        if dst.len() != expected {
            return Err(CastError::OutputLength { expected, actual: dst.len() });
        }
        (self.kernel)(self, src, dst).map_err(CastError::Element)
    }
}

/// A cast_value configuration bound to the decoded array's data type (and fill value): the
/// validated plan that encodes and decodes buffers. Binding checks everything once
/// and picks the kernel; nothing on the cast path allocates.
///
/// ```
/// use cast_value_kernels::{CastConfig, CastPlan, DataType, OutOfRange, Rounding};
/// let config = CastConfig::new(DataType::UInt8)
///     .with_rounding(Rounding::TowardsZero)
///     .with_out_of_range(Some(OutOfRange::Clamp));
/// let plan = CastPlan::new(&config, DataType::Float32, None).unwrap();
/// let mut out = [0u8; 3];
/// plan.encode_slice(&[1.9f32, -4.0, 300.0], &mut out).unwrap();
/// assert_eq!(out, [1, 0, 255]);
/// ```
#[derive(Clone, Debug)]
pub struct CastPlan {
    array_type: DataType,
    encode: Direction,
    decode: Direction,
    fill: Option<u64>,
    encoded_fill: Option<u64>,
    tier: Tier,
}

impl CastPlan {
    /// Bind `config` to a decoded array of `array_type`, with the array's fill value if it has
    /// one (then its encoded form is computed and its round trip checked).
    /// Uses the best kernel tier this machine runs.
    pub fn new(
        config: &CastConfig<'_>,
        array_type: DataType,
        fill_value: Option<FillValue<'_>>,
    ) -> Result<Self, ConfigError> {
        let data_type = config.data_type;
        if config.out_of_range == Some(OutOfRange::Wrap) && data_type.is_float() {
            return Err(ConfigError::WrapNeedsIntegerTarget { data_type });
        }
        let tier = Tier::best();
        let direction = |from: DataType, to: DataType, md, list| -> Result<Direction, ConfigError> {
            let out_of_range = match config.out_of_range {
                Some(OutOfRange::Wrap) if to.is_float() => None,
                other => other,
            };
            let mut d = Direction {
                from,
                to,
                rounding: config.rounding,
                out_of_range,
                map: ResolvedMap::build(md, list, from, to)?,
                kernel: scalar::cast,
                lanes: None,
                lut: None,
            };
            d.lanes = LaneParams::new(&d);
            d.lut = Lut::new(&d);
            d.kernel = kernels::select(tier, &d).unwrap_or(scalar::cast);
            Ok(d)
        };
        let encode = direction(array_type, data_type, MapDirection::Encode, config.scalar_map.encode)?;
        let decode = direction(data_type, array_type, MapDirection::Decode, config.scalar_map.decode)?;
        let fill = fill_value
            .map(|fv| fill_value_bits(array_type, &fv))
            .transpose()
            .map_err(|error| ConfigError::InvalidFillValue { data_type: array_type, error })?;
        let mut plan = CastPlan { array_type, encode, decode, fill: None, encoded_fill: None, tier };
        plan.set_fill(fill)?;
        Ok(plan)
    }

    /// As [`new`](Self::new), with the fill value given as a bit pattern of `array_type`
    /// (masked to its width): how a codec chain hands one cast's encoded fill value to the
    /// next.
    pub fn with_fill_bits(
        config: &CastConfig<'_>,
        array_type: DataType,
        fill_bits: Option<u64>,
    ) -> Result<Self, ConfigError> {
        let mut plan = Self::new(config, array_type, None)?;
        plan.set_fill(fill_bits.map(|b| b & array_type.format().mask()))?;
        Ok(plan)
    }

    /// Encode the fill value and check that it decodes back to an equal value.
    fn set_fill(&mut self, fill: Option<u64>) -> Result<(), ConfigError> {
        let Some(fill) = fill else { return Ok(()) };
        let (array_type, data_type) = (self.array_type, self.encode.to);
        let encoded = self.cast_one(&self.encode, fill, MapDirection::Encode)?;
        let decoded = self.cast_one(&self.decode, encoded, MapDirection::Decode)?;
        if scalar::canonical_key(array_type, decoded) != scalar::canonical_key(array_type, fill) {
            return Err(ConfigError::FillValueRoundTrip { array_type, fill, data_type, encoded, decoded });
        }
        self.fill = Some(fill);
        self.encoded_fill = Some(encoded);
        Ok(())
    }

    fn cast_one(&self, dir: &Direction, bits: u64, direction: MapDirection) -> Result<u64, ConfigError> {
        scalar::cast_element(dir, bits).map_err(|reason| ConfigError::FillValueNotCastable {
            direction,
            error: ElementError { index: 0, value: bits, from: dir.from, to: dir.to, reason },
        })
    }

    /// Use the kernels of `tier` instead of the best one; `None` if this machine cannot run it.
    pub fn with_tier(mut self, tier: Tier) -> Option<Self> {
        self.encode.kernel = kernels::select(tier, &self.encode)?;
        self.decode.kernel = kernels::select(tier, &self.decode)?;
        self.tier = tier;
        Some(self)
    }

    /// Encode: cast raw elements of the array type (`src`, native-endian, one byte per
    /// sub-byte element, any alignment) into elements of `data_type` in `dst`.
    ///
    /// On error the output holds every element before the failing index; the rest is
    /// unspecified (see [`CastError`]).
    pub fn encode(&self, src: &[u8], dst: &mut [u8]) -> Result<(), CastError> {
        self.encode.run(src, dst)
    }

    /// Decode: cast raw elements of `data_type` back to the array type.
    pub fn decode(&self, src: &[u8], dst: &mut [u8]) -> Result<(), CastError> {
        self.decode.run(src, dst)
    }

    /// [`encode`](Self::encode) over typed slices (any `Pod` types whose sizes match the two
    /// data types; e.g. `f32` -> `u8`, `half::f16` -> `i16`).
    pub fn encode_slice<S: bytemuck::Pod, D: bytemuck::Pod>(&self, src: &[S], dst: &mut [D]) -> Result<(), CastError> {
        typed(&self.encode, src, dst)
    }

    /// [`decode`](Self::decode) over typed slices.
    pub fn decode_slice<S: bytemuck::Pod, D: bytemuck::Pod>(&self, src: &[S], dst: &mut [D]) -> Result<(), CastError> {
        typed(&self.decode, src, dst)
    }

    /// The decoded array's data type.
    pub fn array_type(&self) -> DataType {
        self.array_type
    }

    /// The codec's `data_type`: what the next codec in the chain sees.
    pub fn data_type(&self) -> DataType {
        self.encode.to
    }

    /// The array fill value's bits, when one was given.
    pub fn fill_value(&self) -> Option<u64> {
        self.fill
    }

    /// The encoded fill value (bits of `data_type`), when a fill value was given.
    pub fn encoded_fill_value(&self) -> Option<u64> {
        self.encoded_fill
    }

    /// The kernel tier this plan runs.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The encode direction (array type -> data_type).
    pub fn encoder(&self) -> &Direction {
        &self.encode
    }

    /// The decode direction (data_type -> array type).
    pub fn decoder(&self) -> &Direction {
        &self.decode
    }
}

fn typed<S: bytemuck::Pod, D: bytemuck::Pod>(dir: &Direction, src: &[S], dst: &mut [D]) -> Result<(), CastError> {
    if core::mem::size_of::<S>() != dir.from.size() {
        return Err(CastError::ElementSize { data_type: dir.from, actual: core::mem::size_of::<S>() });
    }
    if core::mem::size_of::<D>() != dir.to.size() {
        return Err(CastError::ElementSize { data_type: dir.to, actual: core::mem::size_of::<D>() });
    }
    dir.run(bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst))
}
