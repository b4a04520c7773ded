//! Image sizes from base64 text (standard or URL-safe alphabet, padded or
//! not, bare or as a `data:<mime>;base64,` URL) without decoding it all:
//! base64 maps every 4 characters to 3 bytes, so the bytes from offset `n`
//! on start at character `4 × ⌊n / 3⌋` of the payload, and a window of
//! [`WINDOW_CHARS`] characters there decodes to the [`WINDOW_BYTES`] bytes
//! [`probe`] reads. A JPEG's walk jumps over its large segments without
//! decoding them.
//!
//! Whitespace inside the payload (MIME line breaks) is skipped within a
//! window, but then character offsets no longer map to byte offsets: only
//! what the first window holds is read (every format's header but a
//! JPEG's with segments past it).

use super::probe::{probe, walk_windows, Probe, WINDOW_BYTES};
use super::ImageInfo;

/// Characters a window holds: [`WINDOW_BYTES`] bytes, rounded up to whole
/// 4-character groups.
pub const WINDOW_CHARS: usize = WINDOW_BYTES.div_ceil(3) * 4;

/// How far a `data:` URL's header may run before its comma.
const MAX_HEADER: usize = 256;

/// Where the base64 payload of `text` starts: after the comma of a
/// `data:…;base64,` URL (its header read from the first 256 bytes only),
/// or at 0 for bare base64. `None` for a `data:` URL that is not base64
/// (or whose comma is not in the first 256 bytes).
///
/// ```
/// use ctxpack_core::media::base64_payload_start;
/// assert_eq!(base64_payload_start(b"data:image/png;base64,iVBORw0KGgo"), Some(22));
/// assert_eq!(base64_payload_start(b"iVBORw0KGgo"), Some(0));
/// assert_eq!(base64_payload_start(b"data:text/plain,hello"), None);
/// ```
pub fn base64_payload_start(text: &[u8]) -> Option<usize> {
    let head = &text[..text.len().min(MAX_HEADER)];
    if head.len() < 5 || !head[..5].eq_ignore_ascii_case(b"data:") {
        return Some(0);
    }
    let comma = head.iter().position(|&b| b == b',')?;
    let meta = &head[..comma];
    let is_base64 = meta.len() >= 7 && meta[meta.len() - 7..].eq_ignore_ascii_case(b";base64");
    is_base64.then_some(comma + 1)
}

/// The value of a base64 character of either alphabet.
fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// A window of characters decoded.
#[derive(Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The bytes, at most `max` of them.
    pub bytes: Vec<u8>,
    /// Padding or a character of neither alphabet ended the data.
    pub ended: bool,
    /// Whitespace was skipped (character offsets no longer map to bytes).
    pub whitespace: bool,
}

/// Decodes `chars` (both alphabets, whitespace skipped) into at most `max`
/// bytes, stopping at padding or any other character.
///
/// ```
/// use ctxpack_core::media::decode_window;
/// let d = decode_window(b"R0lG\nODlh-_8=", 64);
/// assert_eq!(d.bytes, b"GIF89a\xfb\xff");
/// assert!(d.ended && d.whitespace);
/// assert_eq!(decode_window(b"R0lGODlh", 2).bytes, b"GI");
/// ```
pub fn decode_window(chars: &[u8], max: usize) -> Decoded {
    let mut out = Decoded {
        bytes: Vec::with_capacity(max.min(chars.len() / 4 * 3 + 3)),
        ended: false,
        whitespace: false,
    };
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in chars {
        if out.bytes.len() >= max {
            return out;
        }
        let Some(v) = sextet(c) else {
            if c.is_ascii_whitespace() {
                out.whitespace = true;
                continue;
            }
            out.ended = true;
            break;
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            // The top byte of the accumulated bits (truncation intended).
            #[allow(clippy::cast_possible_truncation)]
            out.bytes.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out.bytes.truncate(max);
    out
}

/// [`probe`] on a window of base64 `chars` that starts at the character of
/// byte `offset` (character `4 × ⌊offset / 3⌋` of the payload); `complete`
/// when the window runs to the text's end.
///
/// ```
/// use ctxpack_core::media::{probe_base64, Probe};
/// // "GIF89a", 320 × 240, in base64.
/// let Probe::Found(info) = probe_base64(b"R0lGODlhQAHwAA==", 0, true) else { panic!() };
/// assert_eq!((info.width, info.height), (320, 240));
/// ```
pub fn probe_base64(chars: &[u8], offset: u64, complete: bool) -> Probe {
    #[allow(clippy::cast_possible_truncation)] // below 3
    let skip = (offset % 3) as usize;
    let decoded = decode_window(chars, WINDOW_BYTES + skip);
    let Some(bytes) = decoded.bytes.get(skip..) else {
        return Probe::Unknown;
    };
    let complete = decoded.ended || (complete && decoded.bytes.len() < WINDOW_BYTES + skip);
    match probe(bytes, offset, complete) {
        // Past whitespace, a character offset is not where the bytes are.
        Probe::Need(_) if decoded.whitespace => Probe::Unknown,
        found => found,
    }
}

/// The character where the window of byte `offset` starts, counted from
/// the payload's start.
///
/// ```
/// use ctxpack_core::media::base64_char_of;
/// assert_eq!(base64_char_of(30_004), Some(40_004));
/// ```
pub fn base64_char_of(offset: u64) -> Option<usize> {
    usize::try_from(offset / 3).ok()?.checked_mul(4)
}

/// The size of the image encoded in `text` (bare base64 or a `data:` URL),
/// decoding only the windows its header needs; `None` as in
/// [`image_info`](super::image_info), and for text that is not base64.
///
/// ```
/// use ctxpack_core::media::image_info_base64;
/// let info = image_info_base64("data:image/gif;base64,R0lGODlhQAHwAA==").unwrap();
/// assert_eq!((info.width, info.height), (320, 240));
/// assert_eq!(image_info_base64("data:text/plain,GIF89a"), None);
/// ```
pub fn image_info_base64(text: &str) -> Option<ImageInfo> {
    let text = text.as_bytes();
    let payload = &text[base64_payload_start(text)?..];
    walk_windows(|offset| {
        let start = base64_char_of(offset)?;
        let rest = payload.get(start..)?;
        let complete = rest.len() <= WINDOW_CHARS;
        Some(probe_base64(
            &rest[..rest.len().min(WINDOW_CHARS)],
            offset,
            complete,
        ))
    })
}
