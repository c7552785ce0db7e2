//! Edge weights for the Dutch system's matchings: integers wide enough to
//! hold every criterion as a field of its own, highest criterion in the
//! highest bits, so that a heavier matching is a better pairing.
//!
//! The fields' widths depend on the tournament (how many score groups, how
//! large the largest), so the weight type is chosen per pairing: `i128` for
//! small tournaments, `bnum`'s fixed-width signed integers above. They are
//! `Copy`, which the matching solver needs.

use std::ops::{Add, AddAssign, BitOr, Shl, Sub, SubAssign};

use bnum::cast::CastFrom;
use integer_blossom::Weight;

/// A weight the Dutch system can build and the matching solver can sum.
pub(crate) trait Wide: Weight + Shl<u32, Output = Self> + BitOr<Output = Self> {
    /// The most bits a weight of this type may use, leaving the solver room to
    /// double and add (its duals reach twice the largest weight).
    const ROOM: u32;
    fn small(value: u64) -> Self;
}

impl Wide for i128 {
    const ROOM: u32 = 120;
    fn small(value: u64) -> Self {
        i128::from(value)
    }
}

/// A `bnum` signed integer as a solver weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Big<T>(T);

impl<T: Add<Output = T>> Add for Big<T> {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Big(self.0 + rhs.0)
    }
}

impl<T: Sub<Output = T>> Sub for Big<T> {
    type Output = Self;
    fn sub(self, rhs: Self) -> Self {
        Big(self.0 - rhs.0)
    }
}

impl<T: AddAssign> AddAssign for Big<T> {
    fn add_assign(&mut self, rhs: Self) {
        self.0 += rhs.0;
    }
}

impl<T: SubAssign> SubAssign for Big<T> {
    fn sub_assign(&mut self, rhs: Self) {
        self.0 -= rhs.0;
    }
}

impl<T: Shl<u32, Output = T>> Shl<u32> for Big<T> {
    type Output = Self;
    fn shl(self, rhs: u32) -> Self {
        Big(self.0 << rhs)
    }
}

impl<T: BitOr<Output = T>> BitOr for Big<T> {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Big(self.0 | rhs.0)
    }
}

macro_rules! big {
    ($($t:ident),*) => {$(
        impl Weight for Big<bnum::types::$t> {
            const ZERO: Self = Big(bnum::types::$t::from_le_bytes(
                [0; bnum::types::$t::BYTES as usize],
            ));
            const ONE: Self = Big({
                let mut bytes = [0; bnum::types::$t::BYTES as usize];
                bytes[0] = 1;
                bnum::types::$t::from_le_bytes(bytes)
            });
            fn inf() -> Self {
                Big(bnum::types::$t::MAX >> 2u32)
            }
            fn double(self) -> Self {
                Big(self.0 << 1u32)
            }
            fn half(self) -> Self {
                Big(self.0 >> 1u32)
            }
        }

        impl Wide for Big<bnum::types::$t> {
            const ROOM: u32 = bnum::types::$t::BITS - 8;
            fn small(value: u64) -> Self {
                Big(bnum::types::$t::cast_from(value))
            }
        }
    )*};
}

big!(I256, I512, I1024, I2048, I4096, I8192);
