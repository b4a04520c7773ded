//! A PDF's page count, estimated from its bytes in bounded time.
//!
//! A linearized PDF states its page count (`/N`) in the dictionary that
//! opens the file (ISO 32000-1 Annex F.2): that is read first, exactly.
//! Otherwise the page objects are counted: each dictionary holding
//! `/Type /Page` (not `/Pages`, a node of the page tree) is one page
//! (§7.7.3.3), in the first [`PDF_SCAN_BYTES`] bytes only. When the file is
//! longer, the count is scaled by its length over the bytes scanned. Page
//! objects inside compressed object streams (§7.5.7) are not seen: such a
//! file counts as unknown (`None`), and so does anything that is not a PDF.
//! An estimate, then, and the tokens per page are estimates too.

/// Bytes of a PDF scanned for page objects: a few milliseconds in wasm.
pub const PDF_SCAN_BYTES: usize = 4 << 20;

/// Where the header may start (readers accept junk before `%PDF-`) and
/// where a linearization dictionary must be.
const HEAD_BYTES: usize = 1024;

/// The estimated page count of the PDF in `bytes` (see the module
/// documentation); `None` when unknown.
///
/// ```
/// use ctxpack_core::media::pdf_pages;
/// let pdf = b"%PDF-1.7\n1 0 obj <</Type /Pages /Count 2>> endobj\n\
///             2 0 obj <</Type /Page /Parent 1 0 R>> endobj\n\
///             3 0 obj <</Type/Page/Parent 1 0 R>> endobj\n%%EOF";
/// assert_eq!(pdf_pages(pdf), Some(2));
/// assert_eq!(pdf_pages(b"%PDF-1.4\n1 0 obj <</Linearized 1 /L 9 /N 12>>"), Some(12));
/// assert_eq!(pdf_pages(b"hello"), None);
/// ```
pub fn pdf_pages(bytes: &[u8]) -> Option<u32> {
    let total = u64::try_from(bytes.len()).ok()?;
    pdf_pages_window(&bytes[..bytes.len().min(PDF_SCAN_BYTES)], total)
}

/// [`pdf_pages`] from the first bytes of a PDF of `total_len` bytes (pass
/// at most [`PDF_SCAN_BYTES`]: the cost is linear in `window`).
///
/// ```
/// use ctxpack_core::media::pdf_pages_window;
/// let head = b"%PDF-1.7\n2 0 obj <</Type /Page>> endobj\n3 0 obj <</Type /Page>> endobj\n";
/// // Two pages in the first tenth of the file: about twenty in all.
/// assert_eq!(pdf_pages_window(head, 10 * head.len() as u64), Some(20));
/// ```
pub fn pdf_pages_window(window: &[u8], total_len: u64) -> Option<u32> {
    let head = &window[..window.len().min(HEAD_BYTES)];
    let start = find(head, b"%PDF-")?;
    if let Some(n) = linearized_pages(&head[start..]) {
        return Some(n);
    }
    let scanned = u64::try_from(window.len()).ok()?;
    let pages = u64::try_from(count_pages(window)).ok()?;
    if pages == 0 {
        return None;
    }
    // Scale to the whole file when only its start was scanned.
    let total = u128::from(total_len.max(scanned));
    let scaled = (u128::from(pages) * total).div_ceil(u128::from(scanned));
    Some(u32::try_from(scaled).unwrap_or(u32::MAX))
}

/// The `/N` of a linearization dictionary in `head`, when positive.
fn linearized_pages(head: &[u8]) -> Option<u32> {
    let at = find(head, b"/Linearized")?;
    let dict = &head[at..];
    let dict = &dict[..find(dict, b">>").unwrap_or(dict.len())];
    let mut rest = dict;
    while let Some(i) = find(rest, b"/N") {
        rest = &rest[i + 2..];
        // `/N` itself, not a longer name such as `/Nothing`.
        let digits = rest.trim_ascii_start();
        if digits.len() < rest.len() || digits.first().is_some_and(u8::is_ascii_digit) {
            let end = digits
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(digits.len());
            let n: u32 = std::str::from_utf8(&digits[..end]).ok()?.parse().ok()?;
            return (n > 0).then_some(n);
        }
    }
    None
}

/// Dictionaries of `/Type /Page` (whitespace allowed between, the name not
/// going on as `/Pages`).
fn count_pages(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut rest = bytes;
    while let Some(i) = find(rest, b"/Type") {
        rest = &rest[i + 5..];
        let value = rest.trim_ascii_start();
        if let Some(after) = value.strip_prefix(b"/Page") {
            if !after.first().is_some_and(|&b| is_name_char(b)) {
                count += 1;
            }
        }
    }
    count
}

/// A character that continues a PDF name (anything but whitespace and the
/// delimiters, ISO 32000-1 §7.2.2).
fn is_name_char(b: u8) -> bool {
    !b.is_ascii_whitespace() && !b"()<>[]{}/%".contains(&b) && b != 0
}

/// The first position of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, tail) = needle.split_first()?;
    let mut from = 0;
    while let Some(i) = haystack.get(from..)?.iter().position(|&b| b == first) {
        let at = from + i;
        if haystack.get(at + 1..at + needle.len()) == Some(tail) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}
