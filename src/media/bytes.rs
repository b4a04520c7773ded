//! The one way a header parser reads input: a window of the input's bytes
//! at a known offset, which says whether a byte out of reach is past the
//! input's end or only past what the caller passed.

use super::probe::Probe;

/// The bytes `offset..offset + bytes.len()` of an input; `complete` when
/// they reach its end.
#[derive(Clone, Copy)]
pub(crate) struct Window<'a> {
    bytes: &'a [u8],
    offset: u64,
    complete: bool,
}

/// What a read gives.
pub(crate) enum Read<T> {
    Got(T),
    /// Past the window, and the input goes on: ask for a window there.
    Missing,
    /// Past the input's end (or before the window: never asked for).
    End,
}

impl<'a> Window<'a> {
    pub(crate) fn new(bytes: &'a [u8], offset: u64, complete: bool) -> Self {
        Window {
            bytes,
            offset,
            complete,
        }
    }

    /// The `N` bytes at input offset `at`.
    pub(crate) fn array<const N: usize>(&self, at: u64) -> Read<[u8; N]> {
        let Some(rel) = at.checked_sub(self.offset) else {
            return Read::End;
        };
        let got = usize::try_from(rel)
            .ok()
            .and_then(|rel| self.bytes.get(rel..rel.checked_add(N)?));
        match got.and_then(|s| <[u8; N]>::try_from(s).ok()) {
            Some(a) => Read::Got(a),
            None if self.complete => Read::End,
            None => Read::Missing,
        }
    }

    /// [`array`](Self::array) for a parser that walks on: a byte out of the
    /// window asks for a window at `at`, one past the end is `Unknown`.
    pub(crate) fn walk<const N: usize>(&self, at: u64) -> Result<[u8; N], Probe> {
        match self.array(at) {
            Read::Got(a) => Ok(a),
            Read::Missing => Err(Probe::Need(at)),
            Read::End => Err(Probe::Unknown),
        }
    }

    /// [`array`](Self::array) for a fixed header near the start, which the
    /// first window always holds: anything out of reach is `None`.
    pub(crate) fn head<const N: usize>(&self, at: u64) -> Option<[u8; N]> {
        match self.array(at) {
            Read::Got(a) => Some(a),
            Read::Missing | Read::End => None,
        }
    }
}
