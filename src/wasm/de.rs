//! The serde `Deserializer` of the options objects: a struct read field by
//! field from a plain JS object into typed fields (numbers, booleans,
//! strings, enums, arrays of structs), each refusal naming the field's path
//! (`entries[1].capCount`), what it takes and what it got (described, never
//! shown: see [`describe`]).
//!
//! Not serde-wasm-bindgen's: its deserializer builds serde's error messages,
//! whose `Unexpected::Float` brings Rust's float formatting into the .wasm
//! (about 18 KB gzipped, measured against this one; the crate otherwise
//! prints numbers through JS). These errors format only what a field
//! expects (its own `expecting` text) and describe the value through JS.
//! Results still go out through serde-wasm-bindgen's serializer.

use std::cell::RefCell;
use std::fmt;

use js_sys::{Array, JsString, Object, Reflect};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::{forward_to_deserialize_any, Deserialize, Deserializer};
use wasm_bindgen::{JsCast, JsValue};

use super::decode::{describe, kind_from_js};

/// Why an options object could not be read.
#[derive(Debug)]
pub(super) enum Error {
    /// The value at `path` is not what the field takes.
    Invalid {
        path: String,
        /// What the field takes (`an integer from 0 to 2^53 - 1`).
        expected: String,
        /// The value, described.
        got: String,
    },
    /// A required field is absent.
    Missing { path: String },
    /// A key the object does not take.
    Unknown {
        path: String,
        known: &'static [&'static str],
    },
    /// Reading the property threw (a getter, a Proxy trap).
    Unreadable { path: String },
    /// What a field's visitor refused, before the value's path and
    /// description are known (completed by [`ValueDe`]).
    Bare { expected: String },
    /// A required field, before its path is known.
    MissingField(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("could not be read")
    }
}

impl std::error::Error for Error {}

// Only what a field expects is formatted: never the value (`Unexpected`).
impl de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Error::Bare {
            expected: String::new(),
        }
    }
    fn invalid_type(_: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Error::Bare {
            expected: exp.to_string(),
        }
    }
    fn invalid_value(_: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Error::Bare {
            expected: exp.to_string(),
        }
    }
    fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Self {
        let quoted: Vec<String> = expected.iter().map(|v| format!("'{v}'")).collect();
        let expected = match quoted.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => quoted.concat(),
        };
        Error::Bare { expected }
    }
    fn missing_field(field: &'static str) -> Self {
        Error::MissingField(field)
    }
}

/// `path.key`, or `key` at the top.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl Error {
    /// The error of the value `value` at `path`.
    fn at(self, path: &str, value: &JsValue) -> Self {
        match self {
            Error::Bare { expected } => Error::Invalid {
                path: path.to_owned(),
                expected,
                got: describe(value),
            },
            Error::MissingField(field) => Error::Missing {
                path: join(path, field),
            },
            other => other,
        }
    }
}

thread_local! {
    /// Field names already made JS strings, by the address of their
    /// `&'static str`: decoding a name from wasm memory on every call was
    /// most of a small call's cost.
    static KEYS: RefCell<Vec<(usize, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// `field` as a JS string, made once.
fn field_key(field: &'static str) -> JsValue {
    let addr = field.as_ptr() as usize;
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        if let Some((_, key)) = keys.iter().find(|(a, _)| *a == addr) {
            return key.clone();
        }
        let key = JsValue::from_str(field);
        keys.push((addr, key.clone()));
        key
    })
}

/// Whether `v` is a plain object (not `null`, not an array).
pub(super) fn is_object(v: &JsValue) -> bool {
    v.is_object() && !v.is_null() && !Array::is_array(v)
}

/// The keys of the object `obj` that `fields` names, or the first that it
/// does not (`Error::Unknown`, its path under `path`).
pub(super) fn keys_of(
    obj: &JsValue,
    fields: &'static [&'static str],
    path: &str,
) -> Result<Vec<&'static str>, Error> {
    let mut present = Vec::new();
    for key in Object::keys(obj.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        let Some(&name) = fields.iter().find(|&&k| k == key) else {
            return Err(Error::Unknown {
                path: join(path, &key),
                known: fields,
            });
        };
        present.push(name);
    }
    Ok(present)
}

/// `T` read from the plain object `obj`, whose own keys `present` are
/// known to be `T`'s fields: each read by its name, the others left to
/// their defaults without asking JS.
pub(super) fn from_js<T: DeserializeOwned>(obj: &JsValue, present: &[&str]) -> Result<T, Error> {
    T::deserialize(ObjectDe {
        obj,
        present: Some(present),
        path: "",
    })
    .map_err(|e| e.at("", obj))
}

/// An object's fields; `present: None` reads its keys first (nested
/// structs), refusing unknown ones.
struct ObjectDe<'a> {
    obj: &'a JsValue,
    present: Option<&'a [&'a str]>,
    path: &'a str,
}

impl<'de> Deserializer<'de> for ObjectDe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
        Err(Error::Unreadable {
            path: self.path.to_owned(),
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if !is_object(self.obj) {
            return Err(de::Error::invalid_type(de::Unexpected::Other(""), &visitor));
        }
        let owned;
        let present = if let Some(p) = self.present {
            p
        } else {
            owned = keys_of(self.obj, fields, self.path)?;
            &owned
        };
        visitor.visit_map(Fields {
            obj: self.obj,
            present,
            names: fields.iter(),
            path: self.path,
            current: ("", JsValue::UNDEFINED),
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// The fields present (not `undefined`), in the struct's order.
struct Fields<'a> {
    obj: &'a JsValue,
    present: &'a [&'a str],
    names: std::slice::Iter<'static, &'static str>,
    path: &'a str,
    /// The field being read and its value.
    current: (&'static str, JsValue),
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        for &field in self.names.by_ref() {
            if !self.present.contains(&field) {
                continue;
            }
            let value =
                Reflect::get(self.obj, &field_key(field)).map_err(|_| Error::Unreadable {
                    path: join(self.path, field),
                })?;
            if !value.is_undefined() {
                self.current = (field, value);
                return seed.deserialize(field.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (field, value) = std::mem::replace(&mut self.current, ("", JsValue::UNDEFINED));
        let path = join(self.path, field);
        seed.deserialize(ValueDe {
            value: &value,
            path: &path,
        })
        .map_err(|e| e.at(&path, &value))
    }
}

/// One value, read as the field's type asks.
struct ValueDe<'a> {
    value: &'a JsValue,
    path: &'a str,
}

impl ValueDe<'_> {
    fn refuse<'de, V: Visitor<'de>, T>(visitor: &V) -> Result<T, Error> {
        Err(de::Error::invalid_type(de::Unexpected::Other(""), visitor))
    }
}

impl<'de> Deserializer<'de> for ValueDe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        Self::refuse(&visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value.as_f64() {
            Some(n) => visitor.visit_f64(n),
            None => Self::refuse(&visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value.as_bool() {
            Some(b) => visitor.visit_bool(b),
            None => Self::refuse(&visitor),
        }
    }

    /// Strings as the kinds read them: JS's code units kept (lone
    /// surrogates escaped, see [`kind_from_js`]).
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value.dyn_ref::<JsString>() {
            Some(s) => visitor.visit_string(kind_from_js(s)),
            None => Self::refuse(&visitor),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value.dyn_ref::<JsString>() {
            Some(s) => visitor.visit_enum(kind_from_js(s).into_deserializer()),
            None => Self::refuse(&visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.value.is_undefined() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if !Array::is_array(self.value) {
            return Self::refuse(&visitor);
        }
        visitor.visit_seq(Elements {
            array: self.value.unchecked_ref(),
            next: 0,
            path: self.path,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        ObjectDe {
            obj: self.value,
            present: None,
            path: self.path,
        }
        .deserialize_struct(name, fields, visitor)
    }

    forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 char
        bytes byte_buf unit unit_struct tuple
        tuple_struct map identifier ignored_any
    }
}

/// An array's elements, each at `path[i]`.
struct Elements<'a> {
    array: &'a Array,
    next: u32,
    path: &'a str,
}

impl<'de> SeqAccess<'de> for Elements<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.next >= self.array.length() {
            return Ok(None);
        }
        let value = self.array.get(self.next);
        let path = format!("{}[{}]", self.path, self.next);
        self.next += 1;
        seed.deserialize(ValueDe {
            value: &value,
            path: &path,
        })
        .map(Some)
        .map_err(|e| e.at(&path, &value))
    }
}

/// The largest integer a JS number holds exactly, as a bound of [`Whole`].
pub(super) const SAFE: u64 = (1 << 53) - 1;

/// A whole number in `[MIN, MAX]`, read from a JS number.
#[derive(Clone, Copy)]
pub(super) struct Whole<const MIN: u64, const MAX: u64>(pub(super) u64);

impl<'de, const MIN: u64, const MAX: u64> Deserialize<'de> for Whole<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const MIN: u64, const MAX: u64>;
        impl<const MIN: u64, const MAX: u64> Visitor<'_> for V<MIN, MAX> {
            type Value = Whole<MIN, MAX>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if MAX == SAFE {
                    write!(f, "an integer from {MIN} to 2^53 - 1")
                } else {
                    write!(f, "an integer from {MIN} to {MAX}")
                }
            }
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            #[allow(clippy::cast_sign_loss)] // checked to be a whole number in range first
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
                if n.fract() == 0.0 && n >= MIN as f64 && n <= MAX as f64 {
                    Ok(Whole(n as u64))
                } else {
                    Err(E::invalid_value(de::Unexpected::Other(""), &self))
                }
            }
        }
        d.deserialize_f64(V::<MIN, MAX>)
    }
}
