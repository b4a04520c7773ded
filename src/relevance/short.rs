//! The query's short ASCII terms, looked up without making the word: most
//! words of most texts are ASCII and short, and [`QueryTerms::stats`] looks
//! up every word of every text. A word's bytes, lowercased and folded as
//! [`super::tokenize`] does, fit in two `u64` when it has at most 16 of
//! them ([`short_key`]): the key is the word itself (no byte of a word is
//! 0, so the zeros after it say where it ends), and equal keys are equal
//! words. [`ShortTerms`] holds the query's terms that have a key, in an
//! open-addressing table of its own; every other word is looked up as a
//! string, among all the query's terms.

#[cfg(doc)]
use super::QueryTerms;
use super::{plural, read8};

/// Packs a lowercase word of at most 16 bytes (none of them 0).
fn pack(word: &[u8]) -> Option<(u64, u64)> {
    let mut b = [0_u8; 16];
    b.get_mut(..word.len())?.copy_from_slice(word);
    let (lo, hi) = b.split_at(8);
    Some((
        u64::from_le_bytes(lo.try_into().ok()?),
        u64::from_le_bytes(hi.try_into().ok()?),
    ))
}

/// ASCII lowercase of eight alphanumeric bytes at once.
const LOWER: u64 = 0x2020_2020_2020_2020;

/// The low `n` bytes (at most 8) of a `u64` set.
fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1_u64 << (8 * n)) - 1
    }
}

/// The key of the word [`super::tokenize`] makes of `text[start..end]`, an
/// ASCII word as it stands in the text (alphanumeric bytes): `None` when it
/// has more than 16 bytes. Read as two little-endian `u64` straight from
/// the text where 16 bytes follow `start` (most words), its bytes past
/// `end` masked off; ASCII lowercase of an alphanumeric byte sets its
/// `0x20` bit (digits have it already).
pub(super) fn short_key(text: &[u8], start: usize, end: usize) -> Option<(u64, u64)> {
    let span = text.get(start..end)?;
    let len = span.len();
    if len > 16 {
        return None;
    }
    let (lo, hi) = match (read8(text, start), read8(text, start + 8)) {
        (Some(lo), Some(hi)) => (lo, hi),
        _ => pack(span)?,
    };
    let mut lo = (lo | LOWER) & low_bytes(len);
    let mut hi = (hi | LOWER) & low_bytes(len.saturating_sub(8));
    if len > 3 {
        // The rule reads the last three bytes only.
        let last = [
            span[len - 3] | 0x20,
            span[len - 2] | 0x20,
            span[len - 1] | 0x20,
        ];
        if let Some((keep, y)) = plural(&last) {
            let keep = len - 3 + keep;
            lo &= low_bytes(keep);
            hi &= low_bytes(keep.saturating_sub(8));
            if y {
                if keep < 8 {
                    lo |= u64::from(b'y') << (8 * keep);
                } else {
                    hi |= u64::from(b'y') << (8 * (keep - 8));
                }
            }
        }
    }
    Some((lo, hi))
}

/// A query's terms that have a [`short_key`], with their numbers.
#[derive(Clone, Debug, Default)]
pub(super) struct ShortTerms {
    /// Power-of-two many slots, at most half of them taken: (key, number);
    /// an empty slot's key is (0, 0), which no word has.
    slots: Vec<(u64, u64, u32)>,
    /// 64 less the bits of a slot's index.
    shift: u32,
}

impl ShortTerms {
    /// The table of `terms` (each a lowercase, folded word, with its
    /// number), keeping those of at most 16 ASCII bytes.
    pub(super) fn new<'a>(terms: impl ExactSizeIterator<Item = (&'a str, u32)>) -> Self {
        let size = (2 * terms.len()).max(16).next_power_of_two();
        let mut table = Self {
            slots: vec![(0, 0, 0); size],
            shift: 64 - size.trailing_zeros(),
        };
        for (term, number) in terms {
            if !term.is_ascii() {
                continue;
            }
            if let Some((lo, hi)) = pack(term.as_bytes()) {
                let mut i = table.slot(lo, hi);
                while table.slots[i].0 != 0 || table.slots[i].1 != 0 {
                    i = (i + 1) & (size - 1);
                }
                table.slots[i] = (lo, hi, number);
            }
        }
        table
    }

    /// Where the search for a key starts.
    fn slot(&self, lo: u64, hi: u64) -> usize {
        let h = (lo ^ hi.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0x517C_C1B7_2722_0A95);
        // The top bits of the product, which every bit of the key moves.
        usize::try_from(h >> self.shift).unwrap_or(0)
    }

    /// The number of the term with key `(lo, hi)`, if the query has it.
    pub(super) fn get(&self, (lo, hi): (u64, u64)) -> Option<u32> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.slot(lo, hi);
        loop {
            let &(l, h, number) = self.slots.get(i)?;
            if l == lo && h == hi {
                return Some(number);
            }
            if l == 0 && h == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relevance::tokenize;

    #[test]
    fn a_short_key_is_the_packed_word_tokenize_makes() {
        for span in [
            "Dogs",
            "CITIES",
            "bus",
            "status",
            "is",
            "abcs",
            "x",
            "A1B2",
            "classes",
            "abcdefghijklmnop",
            "abcdefghijklmnoS",
            "abcdefghijklmies",
            "abcdefgies",
            "ies",
            "IES",
            "Ties",
            "sss",
            "AbcdEfgS",
            "abcdefgHIes",
            "Z9",
        ] {
            let word = tokenize(span).pop().unwrap();
            let key = pack(word.as_bytes());
            // Alone (read a byte at a time), and with more text after it (16 bytes at once).
            assert_eq!(short_key(span.as_bytes(), 0, span.len()), key, "{span}");
            let text = format!("{span} and more text after it");
            assert_eq!(short_key(text.as_bytes(), 0, span.len()), key, "{span}");
        }
        assert_eq!(short_key(b"abcdefghijklmnopq", 0, 17), None);
    }

    #[test]
    fn the_table_finds_its_terms_only() {
        let terms = [
            "dog",
            "city",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "café",
        ];
        let t = ShortTerms::new(terms.iter().zip(0..5_u32).map(|(t, n)| (*t, n)));
        let key = |w: &[u8]| short_key(w, 0, w.len()).unwrap();
        assert_eq!(t.get(key(b"DOGS")), Some(0));
        assert_eq!(t.get(key(b"cities")), Some(1));
        assert_eq!(t.get(key(b"abcdefghijklmnop")), Some(2));
        assert_eq!(t.get(key(b"cat")), None);
        assert_eq!(ShortTerms::default().get((1, 0)), None);
    }
}
