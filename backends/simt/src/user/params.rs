//! A user kernel's parameters, as its descriptor spells them: scalars (`i32`), pointers
//! (`const f32*`), and, for plain CUDA and HIP, structs of those (`struct
//! Params/24{x@0:const f32*;n@8:i32;}`, the fields `wavekit check` read from the source).

use super::Elem;
use std::fmt;

/// A parameter of a user kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A value of this element type, passed by value.
    Scalar(Elem),
    /// A pointer to elements; `read_only` when the kernel takes it as `const T*`.
    Pointer {
        /// The pointee's element type (a vector's component type).
        elem: Elem,
        /// `true` for `const T*`.
        read_only: bool,
        /// Elements per pointee: 1, or a CUDA vector type's components (4 for `float4*`),
        /// whose buffer holds that many elements per item.
        parts: usize,
    },
    /// A struct passed by value, whose fields are scalars and pointers.
    Struct(StructParam),
}

/// A struct parameter: its name, size and fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructParam {
    /// Its type's name.
    pub name: String,
    /// `sizeof` the struct.
    pub size: usize,
    /// Its data members, in order.
    pub fields: Vec<Field>,
}

/// One field of a [`StructParam`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its offset in the struct, in bytes.
    pub offset: usize,
    /// Its type: a scalar or a pointer.
    pub param: Param,
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Scalar(e) => f.write_str(e.name()),
            Param::Pointer {
                elem,
                read_only,
                parts,
            } => {
                let vector = if *parts > 1 {
                    format!("x{parts}")
                } else {
                    String::new()
                };
                write!(
                    f,
                    "{}{}{vector}*",
                    if *read_only { "const " } else { "" },
                    elem.name()
                )
            }
            Param::Struct(s) => {
                write!(f, "struct {} {{", s.name)?;
                for (i, x) in s.fields.iter().enumerate() {
                    write!(
                        f,
                        "{}{} {}",
                        if i > 0 { "; " } else { " " },
                        x.param,
                        x.name
                    )?;
                }
                f.write_str(" }")
            }
        }
    }
}

/// Why a parameter's spelling is not one the executor can pass: the type it names.
pub(super) struct Unpassable(pub String);

impl Param {
    /// The parameter spelled `s` in a descriptor.
    pub(super) fn parse(s: &str) -> Result<Param, Unpassable> {
        let s = s.trim();
        if let Some(t) = s.strip_prefix('?') {
            return Err(Unpassable(t.to_string()));
        }
        if let Some(rest) = s.strip_prefix("struct ") {
            return parse_struct(rest).ok_or_else(|| Unpassable(s.to_string()));
        }
        match s.strip_suffix('*') {
            Some(p) => {
                let (read_only, e) = match p.trim().strip_prefix("const ") {
                    Some(e) => (true, e),
                    None => (false, p.trim()),
                };
                // `u32x4`: a pointer to CUDA's uint4.
                let (e, parts) = match e.split_once('x') {
                    Some((e, n)) => (e, n.parse().ok().filter(|&n| n > 1)),
                    None => (e, Some(1)),
                };
                Elem::parse(e)
                    .zip(parts)
                    .map(|(elem, parts)| Param::Pointer {
                        elem,
                        read_only,
                        parts,
                    })
            }
            None => Elem::parse(s).map(Param::Scalar),
        }
        .ok_or_else(|| Unpassable(s.to_string()))
    }
}

/// `NAME/SIZE{FIELD@OFFSET:TYPE;...}`.
fn parse_struct(s: &str) -> Option<Param> {
    let (head, body) = s.split_once('{')?;
    let (name, size) = head.rsplit_once('/')?;
    let body = body.strip_suffix('}')?;
    let fields = body
        .split(';')
        .filter(|f| !f.is_empty())
        .map(|f| {
            let (name, rest) = f.split_once('@')?;
            let (offset, ty) = rest.split_once(':')?;
            let param = Param::parse(ty).ok()?;
            if matches!(param, Param::Struct(_)) {
                return None;
            }
            Some(Field {
                name: name.to_string(),
                offset: offset.parse().ok()?,
                param,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Param::Struct(StructParam {
        name: name.to_string(),
        size: size.parse().ok()?,
        fields,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_parse() {
        assert_eq!(Param::parse("i16").ok(), Some(Param::Scalar(Elem::I16)));
        assert_eq!(
            Param::parse("const f32*").ok(),
            Some(Param::Pointer {
                elem: Elem::F32,
                read_only: true,
                parts: 1
            })
        );
        let v = Param::parse("u32x4*").ok().unwrap();
        assert_eq!(
            v,
            Param::Pointer {
                elem: Elem::U32,
                read_only: false,
                parts: 4
            }
        );
        assert_eq!(v.to_string(), "u32x4*");
        assert!(Param::parse("u32x1*").is_err() && Param::parse("u32xy*").is_err());
        let p = Param::parse("struct Params/24{x@0:const f32*;y@8:f32*;n@16:i32;}")
            .ok()
            .unwrap();
        let Param::Struct(s) = &p else {
            panic!("{p:?}")
        };
        assert_eq!((s.name.as_str(), s.size, s.fields.len()), ("Params", 24, 3));
        assert_eq!(s.fields[2].offset, 16);
        assert_eq!(
            p.to_string(),
            "struct Params { const f32* x; f32* y; i32 n }"
        );
        assert_eq!(
            Param::parse("?float2").err().map(|u| u.0),
            Some("float2".into())
        );
        assert!(Param::parse("struct S/8{a@0:?float2;}").is_err());
    }
}
