//! The inbox: where the guard (`npm/wasm/lib/guard.mjs`) writes an io's answer for the next
//! `step`, in a small tagged layout, straight into wasm memory ([`room`]); read here into the
//! core's [`HostAnswer`] through its own `Deserialize` (the core's serde derive decides what is
//! an answer, as it did from JSON text). The answer's bytes have a room of their own
//! ([`super::bytes_room`]), which the engine then keeps. The first step of a request with small
//! flat params comes the same way: its method and params ([`request`]), read into the core's
//! flat params (`acp_fs::host::FlatParams`): no JSON value, no map, no name hashed.
//!
//! Why not JSON text: a small read's answer (`{file, metadata, bytes: true}`) cost a
//! `JSON.stringify`, a string copied into wasm and a serde_json parse, about half a microsecond
//! in Chromium of a read that takes a few; here the guard writes the few members itself and
//! this reader visits them without parsing.
//!
//! The answer is read as its JSON form, exactly what `JSON.parse(JSON.stringify(answer))` would
//! give, and visited the way serde_json visits that text, so an answer is accepted or refused as
//! before: numbers as serde_json reads their JSON digits (an integer as `u64` or `i64`, anything
//! else as `f64`), `null` for what JSON has no number for, a struct from an object or an array,
//! an enum from its variant's name or a one-member object, the members nobody asked for skipped.
//! The guard hands anything JSON would change (a `toJSON`, a class instance, a `bigint`) to
//! `JSON.stringify` first, and writes what has no JSON form at all as [`NOT_JSON`].
//!
//! Layout (little-endian `u32`s; the tags are the outbox's, [`super::outbox`], for what they
//! share): a value is a tag byte, then
//! - [`NULL`], [`FALSE`], [`TRUE`]: nothing;
//! - [`NUMBER`]: a finite `f64`;
//! - [`TEXT`]: the length, then that many bytes of UTF-8;
//! - [`LONE`]: nothing (text with a lone surrogate, which serde_json refused as a string and
//!   skipped where nothing reads it);
//! - [`ARRAY`]: the count, then the items; [`OBJECT`]: the count, then name and value pairs (a
//!   name is [`TEXT`] or [`LONE`]);
//! - [`NOT_JSON`]: nothing (only the whole answer: it has no JSON text);
//! - [`DEEP`]: nothing (a value nested deeper than the guard writes, 256 levels: skipped like
//!   any other, refused where something reads it; nothing in an answer is read that deep);
//! - [`UINT`], [`INT`]: a `u64`, an `i64` (a call's argument only: a `bigint`).
//!
//! A call's arguments ([`args`]) come the same way, but as the binding's value conversion
//! (serde-wasm-bindgen before) took them rather than as their JSON form: a `bigint` is an integer,
//! `undefined` is `null`, a function or a symbol anywhere makes the argument [`NOT_JSON`], text
//! with a lone surrogate has U+FFFD in its place (as wasm-bindgen's strings do).

use super::outbox::{ARRAY, FALSE, NULL, NUMBER, OBJECT, TEXT, TRUE};
use acp_fs::host::{FlatParams, HostAnswer, Scalar};
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::cell::RefCell;
use std::fmt;

/// Text JSON would write with an escaped lone surrogate.
pub const LONE: u8 = 11;
/// A whole answer with no JSON text (`JSON.stringify` threw or gave nothing).
pub const NOT_JSON: u8 = 12;
/// A value nested deeper than the guard writes.
pub const DEEP: u8 = 13;
/// A `bigint` that fits a `u64`.
pub const UINT: u8 = 14;
/// A negative `bigint` that fits an `i64`.
pub const INT: u8 = 15;

/// The layout is not a value of the form asked for. Why is not kept: the core reports every
/// answer a binding could not convert with one text, whatever the binding's reason.
#[derive(Debug)]
pub struct Malformed;

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the inbox holds no value of that form")
    }
}

impl std::error::Error for Malformed {}

impl de::Error for Malformed {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Malformed
    }
}

type Result<T> = std::result::Result<T, Malformed>;

thread_local! {
    /// Where the guard writes the next answer's layout (kept: a read allocates nothing for it).
    static LAYOUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Room kept between calls at most: a larger room (a large write's params) is given back once
/// asked for less, which the guard does before the layout after a call's arguments (only the
/// module knows this number).
pub const KEPT: usize = 1 << 20;

/// Room for a layout at least `len` bytes long, what was written kept; its address. Asked for
/// less than a room over [`KEPT`] holds, it starts afresh (the guard asks so only before a
/// layout, never while writing one).
pub fn room(len: u32) -> u32 {
    LAYOUT.with(|layout| {
        let mut layout = layout.borrow_mut();
        let len = len as usize;
        if layout.len() > KEPT.max(len) {
            *layout = Vec::new();
        }
        if layout.len() < len {
            layout.resize(len, 0);
        }
        layout.as_ptr() as u32
    })
}

/// The answer the guard wrote in the first `len` bytes of the room.
pub fn answer(len: u32) -> Result<HostAnswer> {
    LAYOUT.with(|layout| read(layout.borrow().get(..len as usize).ok_or(Malformed)?))
}

/// A request's params as the inbox held them.
pub enum Params {
    /// An object of scalar members, the usual small params: read into the core's flat form, no
    /// JSON value built.
    Flat(FlatParams),
    /// Anything else, read as its JSON value as before.
    Json(Value),
}

/// What `start` gives for the request's method and params the guard wrote in the first `len`
/// bytes of the room, as an array of the two (small flat params: what `JSON.parse` of their JSON
/// text gives). Params of scalar members come as [`Params::Flat`]; any other value as the value
/// serde_json made of its text, or refused as it was.
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn request<T>(len: u32, start: impl FnOnce(&str, Params) -> T) -> Result<T> {
    LAYOUT.with(|layout| {
        let layout = layout.borrow();
        let layout = layout.get(..len as usize).ok_or(Malformed)?;
        let mut reader = Reader { layout, at: 0 };
        if (reader.tag()?, reader.count()?, reader.tag()?) != (ARRAY, 2, TEXT) {
            return Err(Malformed);
        }
        let method = reader.text()?;
        let params = match reader.flat() {
            Some(params) => Params::Flat(params),
            None => Params::Json(reader.value()?),
        };
        if reader.at == layout.len() {
            Ok(start(method, params))
        } else {
            Err(Malformed)
        }
    })
}

/// A call's arguments the guard wrote in the first `len` bytes of the room as an array of
/// `fields.len()` items (one it could not convert as [`NOT_JSON`]); the name in `fields` of the
/// first item that is no JSON value (the order the binding checked them in before).
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn args(len: u32, fields: &[&'static str]) -> std::result::Result<Vec<Value>, &'static str> {
    LAYOUT.with(|layout| {
        let layout = layout.borrow();
        let layout = layout.get(..len as usize).unwrap_or_default();
        let mut reader = Reader { layout, at: 0 };
        let first = fields.first().copied().unwrap_or_default();
        if !matches!((reader.tag(), reader.count()), (Ok(ARRAY), Ok(n)) if n as usize == fields.len()) {
            return Err(first);
        }
        let mut values = Vec::with_capacity(fields.len());
        for field in fields {
            values.push(reader.value().map_err(|Malformed| *field)?);
        }
        if reader.at == layout.len() {
            Ok(values)
        } else {
            Err(first)
        }
    })
}

/// The `T` `layout` holds: all of it, one value.
fn read<'de, T: Deserialize<'de>>(layout: &'de [u8]) -> Result<T> {
    if layout.first() == Some(&NOT_JSON) {
        return Err(Malformed);
    }
    let mut reader = Reader { layout, at: 0 };
    let value = T::deserialize(&mut reader)?;
    if reader.at == layout.len() {
        Ok(value)
    } else {
        Err(Malformed)
    }
}

struct Reader<'de> {
    layout: &'de [u8],
    at: usize,
}

impl<'de> Reader<'de> {
    fn tag(&mut self) -> Result<u8> {
        let tag = *self.layout.get(self.at).ok_or(Malformed)?;
        self.at += 1;
        Ok(tag)
    }

    fn peek(&self) -> Result<u8> {
        self.layout.get(self.at).copied().ok_or(Malformed)
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let bytes = self.layout.get(self.at..self.at + N).ok_or(Malformed)?;
        self.at += N;
        bytes.try_into().map_err(|_| Malformed)
    }

    fn count(&mut self) -> Result<u32> {
        self.take().map(u32::from_le_bytes)
    }

    /// The text after a [`TEXT`] tag.
    fn text(&mut self) -> Result<&'de str> {
        let n = self.count()? as usize;
        let bytes = self.layout.get(self.at..self.at + n).ok_or(Malformed)?;
        self.at += n;
        std::str::from_utf8(bytes).map_err(|_| Malformed)
    }

    /// The object of scalar members at the reader ([`NULL`], [`FALSE`], [`TRUE`], a finite
    /// [`NUMBER`], [`TEXT`]), the reader past it; `None`, the reader where it was, for any other
    /// value.
    fn flat(&mut self) -> Option<FlatParams> {
        let start = self.at;
        let flat = self.flat_members();
        if flat.is_err() {
            self.at = start;
        }
        flat.ok()
    }

    fn flat_members(&mut self) -> Result<FlatParams> {
        if self.tag()? != OBJECT {
            return Err(Malformed);
        }
        let mut params = FlatParams::default();
        for _ in 0..self.count()? {
            if self.tag()? != TEXT {
                return Err(Malformed);
            }
            let name = self.text()?;
            let value = match self.tag()? {
                NULL => Scalar::Null,
                FALSE => Scalar::Bool(false),
                TRUE => Scalar::Bool(true),
                NUMBER => match f64::from_le_bytes(self.take()?) {
                    n if n.is_finite() => Scalar::Number(n),
                    _ => return Err(Malformed),
                },
                TEXT => Scalar::Text(self.text()?.to_owned()),
                _ => return Err(Malformed),
            };
            params.push(name, value);
        }
        Ok(params)
    }

    /// The next value as a JSON value, without serde: serde_json's `Value` visitor's copy for
    /// this reader was 6 KB of the fs/* module. An object is an object whatever its members are
    /// named: that visitor takes one whose only member is `$serde_json::private::RawValue` for
    /// the JSON text in it (its `raw_value` feature, which the core turns on),
    /// which @acp-fs/node's conversion (napi's) does not, nor the raw dispatcher
    /// (core/src/json_text.rs). Nesting is at most what the guard writes (256), so recursion is
    /// bounded.
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn value(&mut self) -> Result<Value> {
        Ok(match self.tag()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            tag @ (NUMBER | UINT | INT) => match self.number(tag)? {
                Number::U64(n) => Value::from(n),
                Number::I64(n) => Value::from(n),
                // Finite (`number` refuses the rest), so never `null`.
                Number::F64(n) => Value::from(n),
            },
            TEXT => Value::String(self.text()?.to_owned()),
            ARRAY => {
                let count = self.count()?;
                let mut items = Vec::new();
                for _ in 0..count {
                    items.push(self.value()?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let count = self.count()?;
                let mut members = serde_json::Map::new();
                for _ in 0..count {
                    if self.tag()? != TEXT {
                        return Err(Malformed);
                    }
                    let name = self.text()?;
                    let value = self.value()?;
                    members.insert(name.to_owned(), value);
                }
                Value::Object(members)
            }
            _ => return Err(Malformed),
        })
    }

    /// Past the next value, however deep (a count of values still to pass, no recursion).
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn skip(&mut self) -> Result<()> {
        let mut left: u64 = 1;
        while left > 0 {
            left -= 1;
            match self.tag()? {
                NULL | FALSE | TRUE | LONE | DEEP => {}
                NUMBER | UINT | INT => self.at += 8,
                TEXT => self.at += self.count()? as usize,
                ARRAY => left += u64::from(self.count()?),
                OBJECT => left += 2 * u64::from(self.count()?),
                _ => return Err(Malformed),
            }
        }
        if self.at <= self.layout.len() {
            Ok(())
        } else {
            Err(Malformed)
        }
    }
}

/// A number as it is visited.
enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Reader<'_> {
    /// The number after a [`NUMBER`], [`UINT`] or [`INT`] tag (in one place, not in each
    /// visitor's copy of `deserialize_any`). A [`NUMBER`] is visited as serde_json visits its
    /// JSON digits: `JSON.stringify` writes an integer below 1e21 as plain digits, which
    /// serde_json reads as a `u64` or an `i64` where it fits; anything else has a fraction or an
    /// exponent and is an `f64`.
    fn number(&mut self, tag: u8) -> Result<Number> {
        let bytes = self.take()?;
        let n = match tag {
            UINT => return Ok(Number::U64(u64::from_le_bytes(bytes))),
            INT => return Ok(Number::I64(i64::from_le_bytes(bytes))),
            _ => f64::from_le_bytes(bytes),
        };
        if !n.is_finite() {
            return Err(Malformed);
        }
        if n.fract() == 0.0 && n.abs() < 1e21 {
            // `-0` is written "0".
            if (0.0..18_446_744_073_709_551_616.0).contains(&n) {
                return Ok(Number::U64(n as u64));
            }
            if (-9_223_372_036_854_775_808.0..0.0).contains(&n) {
                return Ok(Number::I64(n as i64));
            }
        }
        Ok(Number::F64(n))
    }
}

impl<'de> Deserializer<'de> for &mut Reader<'de> {
    type Error = Malformed;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tag()? {
            NULL => visitor.visit_unit(),
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            tag @ (NUMBER | UINT | INT) => match self.number(tag)? {
                Number::U64(n) => visitor.visit_u64(n),
                Number::I64(n) => visitor.visit_i64(n),
                Number::F64(n) => visitor.visit_f64(n),
            },
            TEXT => visitor.visit_borrowed_str(self.text()?),
            ARRAY => {
                let left = self.count()?;
                let mut items = Items { reader: self, left };
                let value = visitor.visit_seq(&mut items)?;
                // serde_json refuses an array longer than what read it.
                if items.left == 0 {
                    Ok(value)
                } else {
                    Err(Malformed)
                }
            }
            OBJECT => self.map(visitor),
            _ => Err(Malformed),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek()? == NULL {
            self.at += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tag()? {
            NULL => visitor.visit_unit(),
            _ => Err(Malformed),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    /// An object only (an array is a struct's other form, not a map's).
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tag()? {
            OBJECT => self.map(visitor),
            _ => Err(Malformed),
        }
    }

    /// A unit variant by its name, or any variant as an object of one member.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.tag()? {
            TEXT => visitor.visit_enum(self.text()?.into_deserializer()),
            OBJECT if self.count()? == 1 => visitor.visit_enum(self),
            _ => Err(Malformed),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip()?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        seq tuple tuple_struct struct identifier
    }
}

impl<'de> Reader<'de> {
    /// The object after an [`OBJECT`] tag, all its members read.
    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let left = self.count()?;
        let mut members = Items { reader: self, left };
        let value = visitor.visit_map(&mut members)?;
        if members.left == 0 {
            Ok(value)
        } else {
            Err(Malformed)
        }
    }
}

/// An array's items or an object's members, `left` of them still to read.
struct Items<'r, 'de> {
    reader: &'r mut Reader<'de>,
    left: u32,
}

impl<'de> Items<'_, 'de> {
    /// The next item, or a member's name; none once `left` are read.
    fn next<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = Malformed;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.next(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = Malformed;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        self.next(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

/// An enum as an object of one member: its name the variant, its value the variant's.
impl<'de> de::EnumAccess<'de> for &mut Reader<'de> {
    type Error = Malformed;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let variant = seed.deserialize(&mut *self)?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Reader<'de> {
    type Error = Malformed;

    fn unit_variant(self) -> Result<()> {
        <()>::deserialize(self)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value> {
        self.deserialize_struct("", &[], visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The layout the guard writes for `value` (every number a JS number: an `f64`).
    fn layout(value: &Value, out: &mut Vec<u8>) {
        match value {
            Value::Null => out.push(NULL),
            Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
            Value::Number(n) => {
                out.push(NUMBER);
                out.extend_from_slice(&n.as_f64().unwrap().to_le_bytes());
            }
            Value::String(s) => text(s, out),
            Value::Array(items) => {
                out.push(ARRAY);
                out.extend_from_slice(&(items.len() as u32).to_le_bytes());
                items.iter().for_each(|item| layout(item, out));
            }
            Value::Object(members) => {
                out.push(OBJECT);
                out.extend_from_slice(&(members.len() as u32).to_le_bytes());
                for (name, value) in members {
                    text(name, out);
                    layout(value, out);
                }
            }
        }
    }

    fn text(s: &str, out: &mut Vec<u8>) {
        out.push(TEXT);
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    /// What `read` makes of all of `layout`, or none.
    fn whole<'de, T>(layout: &'de [u8], read: impl FnOnce(&mut Reader<'de>) -> Result<T>) -> Option<T> {
        let mut reader = Reader { layout, at: 0 };
        let value = read(&mut reader).ok()?;
        (reader.at == layout.len()).then_some(value)
    }

    /// What serde_json's `Value` visitor made of the layout through this module's
    /// `Deserializer`, as `args` and `request` read it before [`Reader::value`].
    fn visited(reader: &mut Reader<'_>) -> Result<Value> {
        Value::deserialize(reader)
    }

    /// The name serde_json's `Value` visitor takes for a raw value's JSON text.
    const RAW_VALUE: &str = "$serde_json::private::RawValue";

    #[test]
    fn values_are_the_json_they_stand_for() {
        let raw = json!({RAW_VALUE: "[1, {\"a\": 2.5}]"});
        let plain = [
            json!(null),
            json!([true, false, 0, -1, 2.5, 1e21, 18_446_744_073_709_549_568u64, "", "é"]),
            json!({"b": {"c": [[], {}]}, "a": null}),
        ];
        // serde_json's raw-value token is a name like any other: what napi's conversion makes
        // of the same object in @acp-fs/node (serde_json's visitor would read `raw` as [1, {..}]).
        let named_like_raw = [
            raw.clone(),
            json!({RAW_VALUE: "[1,"}),
            json!({RAW_VALUE: 1}),
            json!({"b": 2, RAW_VALUE: "1"}),
            json!([raw]),
        ];
        for case in plain.iter().chain(&named_like_raw) {
            let mut bytes = Vec::new();
            layout(case, &mut bytes);
            assert_eq!(whole(&bytes, Reader::value).as_ref(), Some(case), "{case}");
        }
        // Everything else reads as serde_json's visitor driven by this reader reads it.
        for case in &plain {
            let mut bytes = Vec::new();
            layout(case, &mut bytes);
            assert_eq!(whole(&bytes, Reader::value), whole(&bytes, visited), "{case}");
        }
        // Keys are names; anything else is refused.
        let mut bytes = vec![OBJECT, 1, 0, 0, 0, NULL, NULL];
        for key in [NULL, LONE, DEEP, NOT_JSON] {
            bytes[5] = key;
            assert_eq!(whole(&bytes, Reader::value), None);
            assert_eq!(whole(&bytes, visited), None);
        }
        // Nor is a value with no JSON form.
        for tag in [LONE, DEEP, NOT_JSON] {
            assert_eq!(whole(&[ARRAY, 1, 0, 0, 0, tag], Reader::value), None);
            assert_eq!(whole(&[ARRAY, 1, 0, 0, 0, tag], visited), None);
        }
    }
}
