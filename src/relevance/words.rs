//! The words of a text (see the module documentation of
//! [`crate::relevance`]): Unicode lowercase, split at every character that
//! is not alphanumeric, plurals folded.

/// The plural rule on a lowercase word's bytes (see the module
/// documentation), for a word of more than three characters:
/// `Some((keep, y))` when it folds, to its first `keep` bytes followed by a
/// `y` when `y`. The rule's letters are ASCII, so bytes and characters agree.
pub(super) fn plural(word: &[u8]) -> Option<(usize, bool)> {
    if word.last() != Some(&b's') {
        None
    } else if word.ends_with(b"ies") {
        Some((word.len() - 3, true))
    } else if word.ends_with(b"ss") || word.ends_with(b"us") || word.ends_with(b"is") {
        None
    } else {
        Some((word.len() - 1, false))
    }
}

/// Folds a plural to its singular, in place (see the module documentation).
fn stem(word: &mut String) {
    // Both rules need a final `s`, and more than three characters (of which
    // bytes are an upper bound): most words leave at the first test.
    if word.as_bytes().last() != Some(&b's') || word.len() <= 3 || word.chars().count() <= 3 {
        return;
    }
    if let Some((keep, y)) = plural(word.as_bytes()) {
        // At a character boundary: what is cut is ASCII.
        word.truncate(keep);
        if y {
            word.push('y');
        }
    }
}

/// Whether the character at byte `i` of `text` (a character boundary) is
/// alphanumeric, and its width in bytes. ASCII is one byte (for ASCII,
/// `char::is_alphanumeric` is `[0-9A-Za-z]`).
fn class_at(text: &str, i: usize) -> (bool, usize) {
    let b = text.as_bytes()[i];
    if b.is_ascii() {
        (b.is_ascii_alphanumeric(), 1)
    } else {
        text[i..]
            .chars()
            .next()
            .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8()))
    }
}

/// The high bit of each of eight bytes.
const HIGH: u64 = 0x8080_8080_8080_8080;
/// Each of eight bytes 1.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The 8 bytes of `bytes` from `at`, little endian, if it has them.
pub(super) fn read8(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(*bytes.get(at..)?.first_chunk::<8>()?))
}

/// The high bit set in each byte of `x` from `m + 1` to `n - 1` (`m` below
/// 128, `n` at most 128), exactly: no carry or borrow crosses a byte.
const fn between(x: u64, m: u64, n: u64) -> u64 {
    let low = x & (ONES * 127);
    ((ONES * (127 + n)).wrapping_sub(low) & !x & low.wrapping_add(ONES * (127 - m))) & HIGH
}

/// How many ASCII letters and digits `bytes` has in a row from `at`, read
/// eight at a time while they all are: the bytes of a word (most of a
/// text), where one at a time was most of the time of reading a text.
/// Stops at the last eight bytes; the caller reads on one at a time.
fn alphanumeric_run(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while let Some(x) = read8(bytes, i) {
        let alphanumeric = between(x, 0x2f, 0x3a) | between(x | (ONES * 0x20), 0x60, 0x7b);
        if alphanumeric == HIGH {
            i += 8;
        } else {
            // The first byte that is not: its high bit is the lowest one clear.
            i += ((!alphanumeric & HIGH).trailing_zeros() / 8) as usize;
            break;
        }
    }
    i - at
}

/// Calls `f` with where each word of `text` starts and ends (bytes) as it
/// stands in the text (before lowercasing and folding), in order, and
/// whether it is ASCII: the runs of alphanumeric characters. ASCII is read
/// a byte at a time (a run of letters and digits eight at a time), anything
/// else a character at a time.
pub(super) fn for_each_span(text: &str, mut f: impl FnMut(usize, usize, bool)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let start = i;
        let mut ascii = true;
        if b.is_ascii_alphanumeric() {
            i += 1;
        } else if b.is_ascii() {
            i += 1;
            continue;
        } else {
            let (alphanumeric, width) = class_at(text, i);
            i += width;
            if !alphanumeric {
                continue;
            }
            ascii = false;
        }
        while let Some(&b) = bytes.get(i) {
            if b.is_ascii_alphanumeric() {
                i += 1 + alphanumeric_run(bytes, i + 1);
            } else if b.is_ascii() {
                break;
            } else {
                // `i` is always at a character boundary: it moves by whole characters.
                let (alphanumeric, width) = class_at(text, i);
                if !alphanumeric {
                    break;
                }
                ascii = false;
                i += width;
            }
        }
        f(start, i, ascii);
    }
}

/// The word [`tokenize`] makes of `span` (a word as it stands in the text,
/// [`for_each_span`]), written into `word`.
pub(super) fn word_of(span: &str, ascii: bool, word: &mut String) {
    word.clear();
    if ascii {
        word.push_str(span);
        word.make_ascii_lowercase();
    } else {
        // The whole word at once: Unicode's lowercase of a letter can depend on
        // its neighbours (a final Σ is ς).
        word.push_str(&span.to_lowercase());
    }
    stem(word);
}

/// Calls `f` with each word of `text` as [`tokenize`] gives it, in order,
/// through one reused buffer: scoring reads every word of every text, and
/// a string per word would be most of its cost.
pub(super) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    for_each_span(text, |start, end, ascii| {
        word_of(&text[start..end], ascii, &mut word);
        f(&word);
    });
}

/// The words of `text`: Unicode lowercase, split at non-alphanumeric
/// characters, plurals folded (see the module documentation).
///
/// ```
/// use ctxpack_core::relevance::tokenize;
/// assert_eq!(tokenize("Queries about the Ünïcode TOKENS!"), ["query", "about", "the", "ünïcode", "token"]);
/// ```
#[must_use]
pub fn tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(text, |w| words.push(w.to_owned()));
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bytes_at_a_time_stop_where_one_at_a_time_would() {
        let all: Vec<u8> = (0..=255).collect();
        for b in all {
            let mut text = *b"abcdefgh0123456789";
            for at in [3, 8, 12] {
                text[at] = b;
                let one = text[..]
                    .iter()
                    .position(|c| !c.is_ascii_alphanumeric())
                    .unwrap_or(text.len());
                let eight = alphanumeric_run(&text, 0);
                // Eight at a time stops at the last eight bytes at the latest.
                assert_eq!(eight, one.min(16), "{b} at {at}");
                text = *b"abcdefgh0123456789";
            }
        }
    }
}
