//! JSON objects, and only objects, where the configuration expects one.
//!
//! serde's derived structs also accept a JSON array of their fields' values in order (`[[["a", {"prefix": "/a"}, 1,
//! 0]]]` is a whole configuration): that form names no field, so it sidesteps the refusal of unknown fields, and a
//! value in the wrong place is reported by position. Every struct of the configuration is therefore read through
//! [`Object`], which asks the JSON deserializer for a map and refuses anything else as "expected a JSON object".

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

/// A `T` read from a JSON object only.
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(ObjectOnly(deserializer)).map(Object)
    }
}

/// For `#[serde(deserialize_with)]`: a struct field read from a JSON object only.
pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<T, D::Error> {
    Object::deserialize(deserializer).map(|Object(value)| value)
}

/// For `#[serde(deserialize_with)]`: a list whose every element is read from a JSON object only.
pub fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    Vec::<Object<T>>::deserialize(deserializer).map(|all| all.into_iter().map(|Object(value)| value).collect())
}

/// For `#[serde(deserialize_with)]`: an optional struct, `null` or a JSON object.
pub fn optional_object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    Option::<Object<T>>::deserialize(deserializer).map(|value| value.map(|Object(value)| value))
}

/// Hands a derived struct's request for its fields to the JSON deserializer as a request for a map.
struct ObjectOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(MapOnly(visitor))
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(MapOnly(visitor))
    }

    // A derived struct asks only for a struct; anything else is read as a map all the same.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// Passes a map on to the struct's visitor, and refuses every other kind of value, a sequence above all.
struct MapOnly<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for MapOnly<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(map)
    }
}
