//! The serde `Deserializer` of the options objects: a struct read field by
//! field from a plain JS object, each field kept as the JS value it is
//! ([`Js`]), for `options.rs` to check.
//!
//! Not serde-wasm-bindgen's: its deserializer builds serde's error messages,
//! whose `Unexpected::Float` brings Rust's float formatting into the .wasm
//! (about 18 KB gzipped, measured against this one; the crate otherwise
//! prints numbers through JS). These errors never format anything: the
//! boundary drops their text anyway, since it could quote the caller's
//! value. Results still go out through serde-wasm-bindgen's serializer.

use std::cell::RefCell;
use std::fmt;

use js_sys::Reflect;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{forward_to_deserialize_any, Deserialize, Deserializer};
use wasm_bindgen::JsValue;

/// That an object could not be read; no text.
#[derive(Debug)]
pub(super) struct Error;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("could not be read")
    }
}

impl std::error::Error for Error {}

// Every constructor is overridden so that none formats its arguments.
impl de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Error
    }
    fn invalid_type(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Error
    }
    fn invalid_value(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Error
    }
    fn invalid_length(_: usize, _: &dyn de::Expected) -> Self {
        Error
    }
    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        Error
    }
    fn unknown_field(_: &str, _: &'static [&'static str]) -> Self {
        Error
    }
    fn missing_field(_: &'static str) -> Self {
        Error
    }
    fn duplicate_field(_: &'static str) -> Self {
        Error
    }
}

/// A field kept as the JS value it is; `undefined` when absent
/// (`#[serde(default)]`).
#[derive(Default)]
pub(super) struct Js(pub(super) JsValue);

/// [`Js`]'s name for `deserialize_newtype_struct`: only [`ValueDe`] answers it.
const JS: &str = "ctxpack_core::Js";

thread_local! {
    /// The value [`ValueDe`] hands to [`Js`] (wasm32 has one thread).
    static HANDOFF: RefCell<JsValue> = const { RefCell::new(JsValue::UNDEFINED) };
}

impl<'de> Deserialize<'de> for Js {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Take;
        impl Visitor<'_> for Take {
            type Value = Js;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JS value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Js, E> {
                Ok(Js(HANDOFF.with(|h| h.replace(JsValue::UNDEFINED))))
            }
        }
        d.deserialize_newtype_struct(JS, Take)
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

/// `T` read from the plain object `obj`: each of `T`'s fields named in
/// `present` (the object's own keys, known to be fields), by its name; the
/// others are left to their defaults without asking JS.
pub(super) fn from_js<T: DeserializeOwned>(obj: &JsValue, present: &[&str]) -> Result<T, Error> {
    T::deserialize(ObjectDe(obj, present))
}

struct ObjectDe<'a>(&'a JsValue, &'a [&'a str]);

impl<'de> Deserializer<'de> for ObjectDe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
        Err(Error)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if !self.0.is_object() {
            return Err(Error);
        }
        visitor.visit_map(Fields {
            obj: self.0,
            present: self.1,
            names: fields.iter(),
            value: JsValue::UNDEFINED,
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
    value: JsValue,
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
            let value = Reflect::get(self.obj, &field_key(field)).map_err(|_| Error)?;
            if !value.is_undefined() {
                self.value = value;
                return seed.deserialize(field.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(ValueDe(std::mem::replace(
            &mut self.value,
            JsValue::UNDEFINED,
        )))
    }
}

/// One field's value: only [`Js`] can take it.
struct ValueDe(JsValue);

impl<'de> Deserializer<'de> for ValueDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
        Err(Error)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name != JS {
            return Err(Error);
        }
        HANDOFF.with(|h| h.replace(self.0));
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
