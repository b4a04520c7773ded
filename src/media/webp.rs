//! WebP: a RIFF container whose first chunk is `VP8 ` (lossy), `VP8L`
//! (lossless) or `VP8X` (extended), each with the size at a fixed place
//! (RFC 9649 §2.5–2.7; RFC 6386 §9.1 for the VP8 frame header).

use super::bytes::Window;
use super::{ImageFormat, ImageInfo};

/// Whether `head` starts a WebP file (`RIFF`, a size, `WEBP`).
pub(crate) fn is_webp(head: &[u8]) -> bool {
    head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP"
}

/// The canvas or frame size of the first chunk, or `None`.
pub(crate) fn size(window: &Window<'_>) -> Option<ImageInfo> {
    // The first chunk's FourCC at 12, its payload at 20.
    let (width, height) = match &window.head::<4>(12)? {
        b"VP8 " => {
            // Frame tag (3 bytes), then the key frame start code.
            if window.head::<3>(23)? != [0x9d, 0x01, 0x2a] {
                return None;
            }
            // 14 bits of size, 2 of scaling (ignored: the stored size counts).
            let width = u16::from_le_bytes(window.head(26)?) & 0x3fff;
            let height = u16::from_le_bytes(window.head(28)?) & 0x3fff;
            (u32::from(width), u32::from(height))
        }
        b"VP8L" => {
            let [signature, b0, b1, b2, b3] = window.head::<5>(20)?;
            if signature != 0x2f {
                return None;
            }
            // 14 bits each of width - 1 and height - 1, little-endian.
            let bits = u32::from_le_bytes([b0, b1, b2, b3]);
            (1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff))
        }
        b"VP8X" => {
            // Flags (4 bytes), then 24-bit canvas width - 1 and height - 1.
            let [w0, w1, w2, h0, h1, h2] = window.head::<6>(24)?;
            (
                1 + u32::from_le_bytes([w0, w1, w2, 0]),
                1 + u32::from_le_bytes([h0, h1, h2, 0]),
            )
        }
        _ => return None,
    };
    ImageInfo::new(ImageFormat::Webp, width, height)
}
