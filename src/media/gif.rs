//! GIF: the logical screen descriptor right after the `GIF87a` / `GIF89a`
//! signature (`GIF89a` §18): width and height as 16-bit little-endian. The
//! logical screen is what a viewer, and a provider's decoder, allocates.

use super::bytes::Window;
use super::{ImageFormat, ImageInfo};

/// Whether `head` starts with a GIF signature.
pub(crate) fn is_gif(head: &[u8]) -> bool {
    head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a")
}

/// The logical screen's size, or `None`.
pub(crate) fn size(w: &Window<'_>) -> Option<ImageInfo> {
    let width = u16::from_le_bytes(w.head(6)?);
    let height = u16::from_le_bytes(w.head(8)?);
    ImageInfo::new(ImageFormat::Gif, u32::from(width), u32::from(height))
}
