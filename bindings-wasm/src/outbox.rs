//! The outbox: where a request's step waits for the guard (`npm/wasm/lib/guard.mjs`) to read it
//! out of wasm memory, in a small tagged layout any serde value writes and the guard's one
//! decoder reads back.
//!
//! Why not serde-wasm-bindgen or JSON text: a small read is a few microseconds of work, and
//! serde-wasm-bindgen makes each object, member and string of a step with a call out of the
//! module (a string also with a `TextDecoder` call, which in Node costs a fixed half
//! microsecond), while JSON text costs a `TextDecoder` call and a `JSON.parse`, in Chromium
//! about a microsecond for the two steps of a read. Here the guard reads numbers, takes member
//! names from a cache (they are the same `&'static str` every time), makes short ASCII strings
//! itself and decodes only long text.
//!
//! Layout (little-endian `u32`s): a value is a tag byte, then
//! - [`NULL`], [`FALSE`], [`TRUE`]: nothing;
//! - [`NUMBER`]: an `f64` (every integer becomes a JS number, as `JSON.parse` makes it);
//! - [`ASCII`], [`TEXT`] (UTF-8: text with non-ASCII characters, or longer than
//!   [`ASCII_TOLD_MAX`] and not crossing as UTF-16), [`BYTES`] (a `Uint8Array` copy): the
//!   length, then the bytes;
//! - [`NAME`]: the address and length of a `&'static str` (a member or variant name);
//! - [`WIDE`]: the offset and length, in UTF-16 units, of text in the units buffer (see
//!   [`super::utf16_into`]; only when the guard has a UTF-16 decoder);
//! - [`ARRAY`]: the count, then the items; [`OBJECT`]: the count, then name and value pairs;
//! - [`READ`]: a read's plain outcome, `{done: {result: {content}, change: null}}` (nothing
//!   else set: no `_meta`, error, change, stale document or reply), then its content
//!   ([`put_read`]);
//! - [`OPEN`]: the step asking to open a file, `{io: {op: "open", root, path, head}}`, then
//!   `root` and `path` as text and `head` as a number ([`put_open`]).

use serde::ser::{self, Serialize};
use std::cell::RefCell;
use std::fmt;

pub const NULL: u8 = 0;
pub const FALSE: u8 = 1;
pub const TRUE: u8 = 2;
pub const NUMBER: u8 = 3;
pub const ASCII: u8 = 4;
pub const TEXT: u8 = 5;
pub const NAME: u8 = 6;
pub const WIDE: u8 = 7;
pub const BYTES: u8 = 8;
pub const ARRAY: u8 = 9;
pub const OBJECT: u8 = 10;
/// After the inbox's own tags (11–15), which the guard's reader never meets.
pub const READ: u8 = 16;
pub const OPEN: u8 = 17;

/// The most text that crosses as UTF-16: above it the wasm memory would keep twice the text's
/// size for the rest of the instance's life, for a gain that the decode no longer dominates.
const WIDE_MAX: usize = 1 << 20;

/// Text longer than this is [`TEXT`] even when it is all ASCII, unless it is to cross as UTF-16
/// (`wide`: a read's content, where the guard has a UTF-16 decoder). The guard makes ASCII
/// strings up to its `SHORT` (npm/wasm/lib/guard.mjs) byte by byte and decodes longer ones as
/// UTF-8 like any text, so telling it would only cost a pass over the text: for a read's
/// content, the whole file when it is ASCII. The value is the guard's `SHORT`; were they to
/// differ, only speed would change, not a value the guard reads.
const ASCII_TOLD_MAX: usize = 32;

struct Outbox {
    /// Address and length of the value's layout, and of the units buffer.
    slots: [u32; 4],
    stream: Vec<u8>,
    /// UTF-16 units of the [`WIDE`] text (reused: a read allocates nothing for it once it has
    /// grown).
    units: Vec<u16>,
}

thread_local! {
    static OUTBOX: RefCell<Outbox> =
        const { RefCell::new(Outbox { slots: [0; 4], stream: Vec::new(), units: Vec::new() }) };
}

/// The address of the outbox's slots, fixed for the instance's life (the guard reads it once).
pub fn slots() -> u32 {
    // SAFETY: only the address is taken; the slots live as long as the instance.
    OUTBOX.with(|out| unsafe { std::ptr::addr_of!((*out.as_ptr()).slots) as u32 })
}

/// Puts `value` in the outbox (`wide`: non-ASCII text, up to 1 MiB, as UTF-16); the reason
/// it has no form here (only a custom `Serialize` could fail). The guard reads it as soon as the
/// call returns, before anything else enters the module (and could move or grow its memory).
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn put<T: Serialize + ?Sized>(value: &T, wide: bool) -> Result<(), String> {
    put_with(wide, |encoder| value.serialize(encoder).map_err(|Unsupported(why)| why))
}

/// Puts a read's plain outcome (see [`READ`]) with this content in the outbox. The most common
/// step there is, and the one whose generic form cost most to read: the guard makes its four
/// objects as literals, where it builds a generic object member by member (a keyed store each).
pub fn put_read(content: &str, wide: bool) {
    put_with(wide, |encoder| {
        encoder.tag(READ);
        // Text always has a form.
        let _ = encoder.text(content);
    });
}

/// Puts the step asking to open `path` below `root` with a `head` in the outbox (see [`OPEN`]):
/// the first step of every read.
pub fn put_open(root: &str, path: &str, head: usize) {
    put_with(false, |encoder| {
        encoder.tag(OPEN);
        let _ = encoder.text(root);
        let _ = encoder.text(path);
        let _ = encoder.number(head as f64);
    });
}

/// The outbox emptied, `write` filling it, and the slots telling the guard where it is.
fn put_with<R>(wide: bool, write: impl FnOnce(&mut Encoder<'_>) -> R) -> R {
    OUTBOX.with(|out| {
        let mut out = out.borrow_mut();
        let out = &mut *out;
        let mut encoder = Encoder { stream: &mut out.stream, units: &mut out.units, wide };
        encoder.stream.clear();
        encoder.units.clear();
        let done = write(&mut encoder);
        let (stream, units) = (&out.stream, &out.units);
        out.slots = [stream.as_ptr() as u32, stream.len() as u32, units.as_ptr() as u32, units.len() as u32];
        done
    })
}

/// A value with no form here (only a custom `Serialize` could ask for one).
#[derive(Debug)]
pub struct Unsupported(String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

struct Encoder<'a> {
    stream: &'a mut Vec<u8>,
    units: &'a mut Vec<u16>,
    wide: bool,
}

type Done = Result<(), Unsupported>;

impl<'a> Encoder<'a> {
    fn tag(&mut self, tag: u8) {
        self.stream.push(tag);
    }

    fn u32(&mut self, n: usize) {
        self.stream.extend_from_slice(&(n as u32).to_le_bytes());
    }

    #[inline(never)]
    fn number(&mut self, n: f64) -> Done {
        self.tag(NUMBER);
        self.stream.extend_from_slice(&n.to_le_bytes());
        Ok(())
    }

    #[inline(never)]
    fn name(&mut self, name: &'static str) {
        self.tag(NAME);
        self.u32(name.as_ptr() as usize);
        self.u32(name.len());
    }

    #[inline(never)]
    fn text(&mut self, text: &str) -> Done {
        if (self.wide || text.len() <= ASCII_TOLD_MAX) && text.is_ascii() {
            self.tag(ASCII);
        } else if self.wide && text.len() <= WIDE_MAX {
            // A JS string is UTF-16, and Node makes one of UTF-8 with non-ASCII characters about
            // ten times as slowly as of UTF-16 units: for a 4 KB source file that was the
            // largest cost of a whole read. (Chromium decodes UTF-8 fast and UTF-16 slowly: the
            // guard asks for this only where the host gave it a UTF-16 decoder.)
            let start = self.units.len();
            // At most one unit per byte: sized once, then cut to what was written.
            self.units.resize(start + text.len(), 0);
            let written = super::utf16_into(text.as_bytes(), &mut self.units[start..]);
            self.units.truncate(start + written);
            self.tag(WIDE);
            self.u32(start);
            self.u32(written);
            return Ok(());
        } else {
            self.tag(TEXT);
        }
        self.u32(text.len());
        self.stream.extend_from_slice(text.as_bytes());
        Ok(())
    }

    /// Opens an array or object whose count is written when it closes.
    #[inline(never)]
    fn open<'e>(&'e mut self, tag: u8) -> Compound<'e, 'a> {
        self.tag(tag);
        let at = self.stream.len();
        self.u32(0);
        Compound { encoder: self, at, count: 0 }
    }

    /// `{variant: …}` (how serde's externally tagged enums look in JSON) around what follows.
    #[inline(never)]
    fn variant(&mut self, variant: &'static str) {
        self.tag(OBJECT);
        self.u32(1);
        self.name(variant);
    }
}

struct Compound<'e, 'a> {
    encoder: &'e mut Encoder<'a>,
    /// Where the count goes.
    at: usize,
    count: usize,
}

impl Compound<'_, '_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.count += 1;
        value.serialize(&mut *self.encoder)
    }

    fn member<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Done {
        self.count += 1;
        self.encoder.name(name);
        value.serialize(&mut *self.encoder)
    }

    #[inline(never)]
    fn close(self) -> Done {
        self.encoder.stream[self.at..self.at + 4].copy_from_slice(&(self.count as u32).to_le_bytes());
        Ok(())
    }
}

impl<'e, 'a> ser::Serializer for &'e mut Encoder<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Compound<'e, 'a>;
    type SerializeTuple = Compound<'e, 'a>;
    type SerializeTupleStruct = Compound<'e, 'a>;
    type SerializeTupleVariant = Compound<'e, 'a>;
    type SerializeMap = Compound<'e, 'a>;
    type SerializeStruct = Compound<'e, 'a>;
    type SerializeStructVariant = Compound<'e, 'a>;

    fn serialize_bool(self, v: bool) -> Done {
        self.tag(if v { TRUE } else { FALSE });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Done {
        self.number(v.into())
    }
    fn serialize_i16(self, v: i16) -> Done {
        self.number(v.into())
    }
    fn serialize_i32(self, v: i32) -> Done {
        self.number(v.into())
    }
    fn serialize_i64(self, v: i64) -> Done {
        self.number(v as f64)
    }
    fn serialize_u8(self, v: u8) -> Done {
        self.number(v.into())
    }
    fn serialize_u16(self, v: u16) -> Done {
        self.number(v.into())
    }
    fn serialize_u32(self, v: u32) -> Done {
        self.number(v.into())
    }
    fn serialize_u64(self, v: u64) -> Done {
        self.number(v as f64)
    }
    fn serialize_f32(self, v: f32) -> Done {
        self.number(v.into())
    }
    fn serialize_f64(self, v: f64) -> Done {
        self.number(v)
    }
    fn serialize_char(self, v: char) -> Done {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Done {
        self.text(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.tag(BYTES);
        self.u32(v.len());
        self.stream.extend_from_slice(v);
        Ok(())
    }
    fn serialize_none(self) -> Done {
        self.tag(NULL);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Done {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        self.name(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.variant(variant);
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Ok(self.open(ARRAY))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Ok(self.open(ARRAY))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Ok(self.open(ARRAY))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        self.variant(variant);
        Ok(self.open(ARRAY))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Ok(self.open(OBJECT))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Unsupported> {
        Ok(self.open(OBJECT))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        self.variant(variant);
        Ok(self.open(OBJECT))
    }
}

// serde has a trait per kind of sequence; in the layout all four are an array of items.
macro_rules! items {
    ($($kind:ident :: $add:ident),*) => {$(
        impl ser::$kind for Compound<'_, '_> {
            type Ok = ();
            type Error = Unsupported;
            fn $add<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                self.item(value)
            }
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}
items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        // A pair counts once: the key counts it.
        self.item(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut *self.encoder)
    }
    fn end(self) -> Done {
        self.close()
    }
}

// A struct and a struct variant are both an object of named members.
macro_rules! members {
    ($($kind:ident),*) => {$(
        impl ser::$kind for Compound<'_, '_> {
            type Ok = ();
            type Error = Unsupported;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Done {
                self.member(name, value)
            }
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}
members!(SerializeStruct, SerializeStructVariant);
