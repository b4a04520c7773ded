//! Reading an image's size from windows of its bytes: the caller passes the
//! first window (its first [`WINDOW_BYTES`] bytes, or all of them), and
//! only a JPEG ever asks for another, at the offset of the marker its walk
//! reached. The whole input never needs to cross into wasm memory.

use super::bytes::Window;
use super::{gif, jpeg, png, webp, ImageInfo};

/// The window a caller passes at a time: every header but a JPEG's is in
/// the first 30 bytes, and a JPEG's small segments (DQT, DHT, SOF) come in
/// runs that one window of this size holds.
pub const WINDOW_BYTES: usize = 4096;

/// JPEG segments walked in one call before asking to go on: the bound that
/// keeps one call's work constant, whatever the input.
pub const MAX_JPEG_SEGMENTS: u32 = 64;

/// Windows a caller asks for at most per image before giving up on it
/// (so at most `MAX_ROUNDS × MAX_JPEG_SEGMENTS` segments in all); real
/// JPEGs need one or two.
pub const MAX_ROUNDS: u32 = 16;

/// What one look at a window found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The size.
    Found(ImageInfo),
    /// Not a known format, or malformed, or truncated: the size is unknown.
    Unknown,
    /// A JPEG whose walk needs the bytes from this offset on: call
    /// [`probe`] again with a window starting there.
    Need(u64),
}

/// The size of the image whose bytes `offset..offset + window.len()` are
/// `window` (`complete`: they reach the input's end).
///
/// At offset 0 the format is told by its signature; any other offset must
/// be one a [`Probe::Need`] asked for, and continues a JPEG's walk there.
///
/// ```
/// use ctxpack_core::media::{probe, ImageFormat, Probe};
///
/// // SOI, an APP1 segment of 30,000 bytes, then SOF0 (height 600, width 800).
/// let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe1, 0x75, 0x30];
/// jpeg.resize(2 + 2 + 30_000, 0);
/// jpeg.extend_from_slice(&[0xff, 0xc0, 0, 17, 8, 0x02, 0x58, 0x03, 0x20]);
/// // Only the first 16 bytes are passed: the walk asks for the SOF's offset.
/// assert_eq!(probe(&jpeg[..16], 0, false), Probe::Need(30_004));
/// let Probe::Found(info) = probe(&jpeg[30_004..], 30_004, true) else { panic!() };
/// assert_eq!((info.format, info.width, info.height), (ImageFormat::Jpeg, 800, 600));
/// ```
pub fn probe(window: &[u8], offset: u64, complete: bool) -> Probe {
    let w = Window::new(window, offset, complete);
    if offset != 0 {
        return jpeg::walk(&w, offset);
    }
    let found = if window.starts_with(&png::SIGNATURE) {
        png::size(&w)
    } else if gif::is_gif(window) {
        gif::size(&w)
    } else if webp::is_webp(window) {
        webp::size(&w)
    } else if jpeg::is_jpeg(window) {
        return jpeg::walk(&w, 2);
    } else {
        None
    };
    found.map_or(Probe::Unknown, Probe::Found)
}

/// The size of the image in `bytes`, read from its header: `None` when the
/// format is not PNG, JPEG, GIF or WebP, or the header is malformed or
/// truncated. Reads at most `MAX_ROUNDS × MAX_JPEG_SEGMENTS` segment
/// headers of a JPEG; never the pixels.
///
/// ```
/// use ctxpack_core::media::image_info;
/// let gif = b"GIF89a\x40\x01\xf0\x00";
/// let info = image_info(gif).unwrap();
/// assert_eq!((info.width, info.height), (320, 240));
/// assert_eq!(image_info(b"not an image"), None);
/// ```
pub fn image_info(bytes: &[u8]) -> Option<ImageInfo> {
    walk_windows(|offset| {
        let start = usize::try_from(offset).ok()?;
        Some(probe(bytes.get(start..)?, offset, true))
    })
}

/// Runs `probe_at` from offset 0 on, following [`Probe::Need`] for at most
/// [`MAX_ROUNDS`] windows; a request that does not move forward ends it.
pub(crate) fn walk_windows(mut probe_at: impl FnMut(u64) -> Option<Probe>) -> Option<ImageInfo> {
    let mut offset = 0;
    for _ in 0..MAX_ROUNDS {
        match probe_at(offset)? {
            Probe::Found(info) => return Some(info),
            Probe::Need(next) if next > offset => offset = next,
            // Unknown, or a request that would not move forward.
            Probe::Unknown | Probe::Need(_) => return None,
        }
    }
    None
}
