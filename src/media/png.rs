//! PNG: the IHDR chunk, which the specification puts first (PNG 1.2 §3.2,
//! §4.1.1): signature, chunk length, `IHDR`, width and height as 31-bit
//! big-endian integers.

use super::bytes::Window;
use super::{ImageFormat, ImageInfo};

/// The PNG signature.
pub(crate) const SIGNATURE: [u8; 8] = *b"\x89PNG\r\n\x1a\n";

/// The size in a PNG's IHDR, or `None`.
pub(crate) fn size(w: &Window<'_>) -> Option<ImageInfo> {
    if w.head::<4>(12)? != *b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(w.head(16)?);
    let height = u32::from_be_bytes(w.head(20)?);
    // The specification caps both at 2^31 - 1.
    if width > i32::MAX as u32 || height > i32::MAX as u32 {
        return None;
    }
    ImageInfo::new(ImageFormat::Png, width, height)
}
