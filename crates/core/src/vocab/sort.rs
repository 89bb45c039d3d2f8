//! How a sort orders its keys: [`SortOrder`], what every sorting collective takes, and
//! [`SortSpec`], the order validated for a key type, what the raw entry points receive.

use crate::element::Element;
use crate::error::{Result, WavekitError};

/// How a sort orders its keys: ascending or descending, by every bit of each key's
/// [`order_bits`](Element::order_bits) or by a range of them (CUB's `begin_bit`/`end_bit`).
/// Every sort is stable: keys that compare equal keep their input order, in both directions.
///
/// ```
/// use wavekit::prelude::*;
///
/// let by_low_byte = SortOrder::ASCENDING.bits(0, 8);
/// assert_eq!(by_low_byte.bit_range(), Some((0, 8)));
/// assert!(SortOrder::DESCENDING.is_descending());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortOrder {
    descending: bool,
    bits: Option<(u32, u32)>,
}

impl SortOrder {
    /// Smallest key first, every key bit compared.
    pub const ASCENDING: SortOrder = SortOrder {
        descending: false,
        bits: None,
    };
    /// Largest key first, every key bit compared; equal keys keep their input order.
    pub const DESCENDING: SortOrder = SortOrder {
        descending: true,
        bits: None,
    };

    /// The same direction, comparing only bits `begin..end` of each key's order bits (bit 0
    /// the lowest). Checked against the key type when the sort is called: `InvalidBitRange`
    /// unless `begin < end <=` the key's bits.
    pub const fn bits(self, begin: u32, end: u32) -> SortOrder {
        SortOrder {
            descending: self.descending,
            bits: Some((begin, end)),
        }
    }

    /// `true` for largest first.
    pub const fn is_descending(self) -> bool {
        self.descending
    }

    /// The bits compared, if a range was given (`None`: all of them).
    pub const fn bit_range(self) -> Option<(u32, u32)> {
        self.bits
    }

    /// The validated spec for keys of type `K`. Its [`SortSpec::rank`] of a key's order bits
    /// is the key's place in the order.
    ///
    /// # Errors
    /// `InvalidBitRange` unless `begin < end <=` the key's bits.
    ///
    /// ```
    /// use wavekit_core::{Element, SortOrder};
    ///
    /// let spec = SortOrder::DESCENDING.bits(0, 8).spec::<u32>()?;
    /// assert!(spec.rank(0x1ffu32.order_bits()) < spec.rank(0x100u32.order_bits()));
    /// assert!(SortOrder::ASCENDING.bits(0, 40).spec::<u32>().is_err());
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    pub fn spec<K: Element>(self) -> Result<SortSpec> {
        let bits = K::KIND.size() as u32 * 8;
        let (begin_bit, end_bit) = self.bits.unwrap_or((0, bits));
        if begin_bit >= end_bit || end_bit > bits {
            return Err(WavekitError::InvalidBitRange {
                begin: begin_bit,
                end: end_bit,
                bits,
            });
        }
        Ok(SortSpec {
            descending: self.descending,
            begin_bit,
            end_bit,
        })
    }
}

/// A sort's order, validated: stable, by bits `begin_bit..end_bit` of each key's
/// [`order_bits`](crate::Element::order_bits), ascending or descending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortSpec {
    /// Largest first (equal keys still keep their input order).
    pub descending: bool,
    /// The lowest key bit compared.
    pub begin_bit: u32,
    /// One past the highest key bit compared: `begin_bit < end_bit <= ` the key's bits.
    pub end_bit: u32,
}

impl SortSpec {
    /// The part of `order_bits` this spec compares, shifted down to bit 0.
    #[inline]
    pub fn digits(&self, order_bits: u64) -> u64 {
        let width = self.end_bit - self.begin_bit;
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        (order_bits >> self.begin_bit) & mask
    }

    /// The key's rank (docs/SEMANTICS.md "sort"): its [`digits`](Self::digits), complemented
    /// within the compared bits when descending, so that ascending ranks are the sort's order.
    #[inline]
    pub fn rank(&self, order_bits: u64) -> u64 {
        let d = self.digits(order_bits);
        if !self.descending {
            return d;
        }
        let width = self.end_bit - self.begin_bit;
        let top = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        top - d
    }
}
