//! Bytes a storage answers with, owned or lent.

use std::ops::Range;
use std::sync::Arc;

/// Bytes a storage answers with: its own, or a range of a buffer it lends (an in-memory file),
/// which the engine reads in place instead of copying it again.
///
/// ```
/// use acp_fs::Bytes;
/// use std::sync::Arc;
/// let file = Arc::new(b"one\ntwo\n".to_vec());
/// let lent = Bytes::lent(file, 4..8);
/// assert_eq!(&*lent, b"two\n");
/// assert_eq!(Bytes::from(b"x".to_vec()).into_vec(), b"x");
/// ```
#[derive(Clone)]
pub struct Bytes(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<u8>),
    Lent(Arc<Vec<u8>>, Range<usize>),
}

impl Bytes {
    /// `range` of `buffer`, without a copy; a range past the buffer is cut to it.
    pub fn lent(buffer: Arc<Vec<u8>>, range: Range<usize>) -> Bytes {
        let end = range.end.min(buffer.len());
        let start = range.start.min(end);
        Bytes(Repr::Lent(buffer, start..end))
    }

    /// The bytes as a vector of their own (a copy only when they were lent).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::Lent(buffer, range) => buffer[range].to_vec(),
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::Lent(buffer, range) => &buffer[range.clone()],
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes(Repr::Owned(v))
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bytes({} bytes)", self.len())
    }
}
