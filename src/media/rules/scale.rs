//! The one resize step the providers' rules share: scale both sides by a
//! factor, keeping the aspect ratio, to whole pixels (rounded down, as an
//! image resize does, and never below one pixel).

/// `(width, height)` scaled by `factor` (at most 1: these rules only ever
/// shrink), rounded down to whole pixels of at least 1.
pub(super) fn shrink(width: f64, height: f64, factor: f64) -> (f64, f64) {
    if factor >= 1.0 {
        return (width, height);
    }
    (
        (width * factor).floor().max(1.0),
        (height * factor).floor().max(1.0),
    )
}

/// How many `unit`-pixel cells cover `length` pixels.
pub(super) fn cells(length: f64, unit: f64) -> u64 {
    // Lengths and units are whole and positive, below 2^32: exact in f64.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let n = (length / unit).ceil() as u64;
    n
}
