//! JPEG: the first `SOFn` marker (ITU T.81 §B.2.2), reached by skipping every
//! segment before it by its length (§B.1.1.4), so that the cost is the
//! number of segments, not their size: a 60 KiB EXIF block is one step.
//! Baseline, extended, progressive (SOF2) and lossless frames all carry the
//! size in the same place; a scan (SOS) or the end (EOI) before any SOF
//! means the size is unknown (a DNL-defined height is too).

use super::bytes::Window;
use super::probe::{Probe, MAX_JPEG_SEGMENTS};
use super::{ImageFormat, ImageInfo};

/// Fill bytes (`0xFF`) allowed before a marker (§B.1.1.2), bounded so that
/// a run of them is not a walk of its own.
const MAX_FILL: u32 = 64;

/// Whether `head` starts a JPEG stream (SOI, then a marker).
pub(crate) fn is_jpeg(head: &[u8]) -> bool {
    head.starts_with(&[0xff, 0xd8, 0xff])
}

/// Walks the segments from the marker at `pos` (2 at the start: right
/// after SOI), at most [`MAX_JPEG_SEGMENTS`] of them; past that, or past
/// the window, it asks for a window at the next marker.
pub(crate) fn walk(w: &Window<'_>, mut pos: u64) -> Probe {
    for _ in 0..MAX_JPEG_SEGMENTS {
        match step(w, pos) {
            Ok(Step::Next(next)) => pos = next,
            Ok(Step::Size(width, height)) => {
                return ImageInfo::new(ImageFormat::Jpeg, width, height)
                    .map_or(Probe::Unknown, Probe::Found);
            }
            Err(probe) => return probe,
        }
    }
    Probe::Need(pos)
}

enum Step {
    Next(u64),
    Size(u32, u32),
}

/// One marker at `pos`: the next marker's offset, or the frame size.
fn step(w: &Window<'_>, mut pos: u64) -> Result<Step, Probe> {
    let [ff, mut marker] = w.walk::<2>(pos)?;
    if ff != 0xff {
        return Err(Probe::Unknown);
    }
    let mut fill = 0;
    while marker == 0xff {
        fill += 1;
        if fill > MAX_FILL {
            return Err(Probe::Unknown);
        }
        pos += 1;
        [_, marker] = w.walk::<2>(pos)?;
    }
    match marker {
        // Markers without a length: TEM, RSTn, a stray SOI.
        0x01 | 0xd0..=0xd8 => Ok(Step::Next(pos + 2)),
        // A scan or the end before any frame header; 0x00 is no marker.
        0x00 | 0xd9 | 0xda => Err(Probe::Unknown),
        // SOFn: every 0xCn but DHT (C4), JPG (C8) and DAC (CC).
        0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
            // Length (2), precision (1), height (2), width (2).
            let [_, _, _, _, _, h1, h0, w1, w0] = w.walk::<9>(pos)?;
            let height = u16::from_be_bytes([h1, h0]);
            let width = u16::from_be_bytes([w1, w0]);
            Ok(Step::Size(u32::from(width), u32::from(height)))
        }
        _ => {
            let [_, _, l1, l0] = w.walk::<4>(pos)?;
            let length = u16::from_be_bytes([l1, l0]);
            if length < 2 {
                return Err(Probe::Unknown);
            }
            Ok(Step::Next(pos + 2 + u64::from(length)))
        }
    }
}
