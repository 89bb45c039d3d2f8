//! The element types a user kernel's parameters may have, and their values: one scalar
//! ([`Value`]) or a buffer of them ([`Values`]), parsed from text or drawn at random.

use std::ffi::c_void;

macro_rules! elems {
    ($($v:ident $t:ty, $s:literal;)*) => {
        /// An element type a user kernel's parameter may have.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Elem { $(#[doc = concat!("`", $s, "`.")] $v),* }

        impl Elem {
            /// As csrc/wavekit.h spells it: i8 .. u64, f32, f64.
            pub fn name(self) -> &'static str {
                match self { $(Elem::$v => $s),* }
            }

            /// Its size in bytes.
            pub fn size(self) -> usize {
                match self { $(Elem::$v => std::mem::size_of::<$t>()),* }
            }

            pub(super) fn parse(s: &str) -> Option<Elem> {
                match s { $($s => Some(Elem::$v),)* _ => None }
            }
        }

        /// One scalar argument.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Value { $(#[doc = concat!("A `", $s, "`.")] $v($t)),* }

        /// The elements of one buffer argument; a launch reads and writes them in place.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Values { $(#[doc = concat!("Elements of type `", $s, "`.")] $v(Vec<$t>)),* }

        impl Value {
            /// The argument's element type.
            pub fn elem(&self) -> Elem {
                match self { $(Value::$v(_) => Elem::$v),* }
            }

            pub(super) fn bits(&self) -> u64 {
                match *self { $(Value::$v(x) => {
                    let mut b = [0u8; 8];
                    let x = x.to_ne_bytes();
                    b[..x.len()].copy_from_slice(&x);
                    u64::from_ne_bytes(b)
                })* }
            }

            /// `text` read as an element of type `elem` (a decimal, or 0x... for integers).
            pub fn parse(elem: Elem, text: &str) -> Option<Value> {
                let t = text.trim();
                match elem { $(Elem::$v => parse_num::<$t>(t).map(Value::$v)),* }
            }
        }

        impl Values {
            /// The buffer's element type.
            pub fn elem(&self) -> Elem {
                match self { $(Values::$v(_) => Elem::$v),* }
            }

            /// Elements in the buffer.
            pub fn len(&self) -> usize {
                match self { $(Values::$v(v) => v.len()),* }
            }

            /// `true` when the buffer holds no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            pub(super) fn as_mut_ptr(&mut self) -> *mut c_void {
                match self { $(Values::$v(v) => v.as_mut_ptr().cast()),* }
            }

            /// `n` elements of type `elem` from `next`, which yields values in -1..1 scaled
            /// to the type: integers in -100..100 (0..200 unsigned), floats in [-1, 1).
            pub fn random(elem: Elem, n: usize, mut next: impl FnMut() -> f64) -> Values {
                match elem { $(Elem::$v => Values::$v((0..n).map(|_| random_of::<$t>(next())).collect())),* }
            }

            /// `n` zero elements of type `elem`.
            pub fn zeros(elem: Elem, n: usize) -> Values {
                match elem { $(Elem::$v => Values::$v(vec![<$t>::default(); n])),* }
            }

            /// `text`, comma separated, as elements of type `elem`.
            pub fn parse(elem: Elem, text: &str) -> Option<Values> {
                match elem { $(Elem::$v => text.split(',').map(|t| parse_num::<$t>(t.trim())).collect::<Option<Vec<$t>>>().map(Values::$v)),* }
            }

            /// Element i, for printing.
            pub fn show(&self, i: usize) -> String {
                match self { $(Values::$v(v) => v[i].to_string()),* }
            }
        }
    };
}

elems! {
    I8 i8, "i8";
    U8 u8, "u8";
    I16 i16, "i16";
    U16 u16, "u16";
    I32 i32, "i32";
    U32 u32, "u32";
    I64 i64, "i64";
    U64 u64, "u64";
    F32 f32, "f32";
    F64 f64, "f64";
}

trait Num: Sized {
    fn parse_num(s: &str) -> Option<Self>;
    fn from_unit(x: f64) -> Self;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn parse_num(s: &str) -> Option<Self> {
                match s.strip_prefix("0x") {
                    Some(h) => <$t>::from_str_radix(h, 16).ok(),
                    None => s.parse().ok(),
                }
            }
            fn from_unit(x: f64) -> Self {
                // -100..100 signed, 0..200 unsigned: small enough that sums do not overflow.
                let v = (x * 100.0).round() as i64;
                (if <$t>::MIN == 0 { v + 100 } else { v }) as $t
            }
        }
    )*};
}
ints!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn parse_num(s: &str) -> Option<Self> {
                s.parse().ok()
            }
            fn from_unit(x: f64) -> Self {
                x as $t
            }
        }
    )*};
}
floats!(f32, f64);

fn parse_num<T: Num>(s: &str) -> Option<T> {
    T::parse_num(s)
}

fn random_of<T: Num>(x: f64) -> T {
    T::from_unit(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_are_zero_for_every_type_and_random_unsigned_values_are_not_negative() {
        assert_eq!(Values::zeros(Elem::U32, 3), Values::U32(vec![0; 3]));
        assert_eq!(Values::zeros(Elem::F64, 2), Values::F64(vec![0.0; 2]));
        // Random values are scaled into the type: unsigned ones from 0 up.
        assert_eq!(Values::random(Elem::U8, 2, || -1.0), Values::U8(vec![0, 0]));
        assert_eq!(Values::random(Elem::I16, 1, || 0.5), Values::I16(vec![50]));
    }
}
