//! Image sizes read from real headers written here at many sizes and
//! aspect ratios (PNG, GIF, WebP's three chunks, JPEG baseline and
//! progressive, with large APP segments before the frame header), whole,
//! in windows, in base64 and truncated; and the provider rules against the
//! providers' own worked examples.

#![allow(clippy::cast_possible_truncation)] // test bytes and sizes, all small

mod common;

use common::Rng;
use ctxpack_core::media::{
    base64_char_of, image_info, image_info_base64, image_tokens, pdf_pages, pdf_tokens, probe,
    probe_base64, ImageFormat, Probe, Provider, WINDOW_BYTES, WINDOW_CHARS,
};

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]); // depth, colour, …, CRC
    b.extend_from_slice(&[0; 64]); // a stand-in for IDAT
    b
}

fn gif(w: u16, h: u16) -> Vec<u8> {
    let mut b = b"GIF89a".to_vec();
    b.extend_from_slice(&w.to_le_bytes());
    b.extend_from_slice(&h.to_le_bytes());
    b.extend_from_slice(&[0xf7, 0, 0, 0, 0, 0, 0x3b]);
    b
}

fn riff(chunk: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut b = b"RIFF\0\0\0\0WEBP".to_vec();
    b.extend_from_slice(&chunk);
    b.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_le_bytes());
    b.extend_from_slice(payload);
    b
}

fn webp_vp8(w: u16, h: u16) -> Vec<u8> {
    let mut p = vec![0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a];
    p.extend_from_slice(&w.to_le_bytes());
    p.extend_from_slice(&h.to_le_bytes());
    p.extend_from_slice(&[0; 16]);
    riff(*b"VP8 ", &p)
}

fn webp_vp8l(w: u32, h: u32) -> Vec<u8> {
    let bits = (w - 1) | ((h - 1) << 14);
    let mut p = vec![0x2f];
    p.extend_from_slice(&bits.to_le_bytes());
    p.extend_from_slice(&[0; 8]);
    riff(*b"VP8L", &p)
}

fn webp_vp8x(w: u32, h: u32) -> Vec<u8> {
    let mut p = vec![0x10, 0, 0, 0];
    p.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
    p.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
    riff(*b"VP8X", &p)
}

/// A JPEG: SOI, the given `APPn` segments (marker, payload length), a DQT,
/// then the frame header `sof` (0xC0 baseline, 0xC2 progressive), a DHT and
/// a scan.
fn jpeg(apps: &[(u8, usize)], sof: u8, w: u16, h: u16) -> Vec<u8> {
    let mut b = vec![0xff, 0xd8];
    for &(marker, len) in apps {
        b.extend_from_slice(&[0xff, marker]);
        b.extend_from_slice(&u16::try_from(len + 2).unwrap().to_be_bytes());
        b.extend((0..len).map(|i| (i % 251) as u8));
    }
    b.extend_from_slice(&[0xff, 0xdb, 0, 67, 0]);
    b.extend_from_slice(&[1; 64]);
    b.extend_from_slice(&[0xff, 0xff, sof, 0, 17, 8]); // a fill byte first
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    b.extend_from_slice(&[0xff, 0xc4, 0, 3, 0, 0xff, 0xda, 0, 2, 0xff, 0xd9]);
    b
}

fn base64(bytes: &[u8], url_safe: bool) -> String {
    let table: &[u8; 64] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(table[(n >> (18 - 6 * i) & 63) as usize]));
        }
        if !url_safe {
            out.extend(std::iter::repeat('=').take(3 - chunk.len()));
        }
    }
    out
}

/// The size through the window protocol a wasm caller uses: 4 KiB windows.
fn windowed(bytes: &[u8]) -> Option<(u32, u32, u32)> {
    let mut offset = 0u64;
    for round in 1..=16 {
        let start = usize::try_from(offset).ok()?.min(bytes.len());
        let end = (start + WINDOW_BYTES).min(bytes.len());
        match probe(&bytes[start..end], offset, end == bytes.len()) {
            Probe::Found(i) => return Some((i.width, i.height, round)),
            Probe::Unknown => return None,
            Probe::Need(next) => offset = next,
        }
    }
    None
}

/// `text` broken into lines of 76 characters ending in `eol`, as MIME does.
fn wrap(text: &str, eol: &str) -> String {
    let mut out = String::new();
    for line in text.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(line).unwrap());
        out.push_str(eol);
    }
    out
}

fn size(bytes: &[u8]) -> Option<(u32, u32)> {
    image_info(bytes).map(|i| (i.width, i.height))
}

const SIZES: [(u32, u32); 10] = [
    (1, 1),
    (2, 3),
    (383, 384),
    (512, 512),
    (1024, 768),
    (768, 1024),
    (1920, 1080),
    (4000, 30),
    (30, 4000),
    (16_383, 16_383),
];

#[test]
fn every_format_at_many_sizes_and_aspect_ratios() {
    for (w, h) in SIZES {
        let (w16, h16) = (u16::try_from(w).unwrap(), u16::try_from(h).unwrap());
        let cases = [
            (png(w, h), ImageFormat::Png),
            (gif(w16, h16), ImageFormat::Gif),
            (webp_vp8(w16, h16), ImageFormat::Webp),
            (webp_vp8l(w, h), ImageFormat::Webp),
            (webp_vp8x(w, h), ImageFormat::Webp),
            (jpeg(&[(0xe0, 14)], 0xc0, w16, h16), ImageFormat::Jpeg),
            (jpeg(&[(0xe1, 9000)], 0xc2, w16, h16), ImageFormat::Jpeg),
        ];
        for (bytes, format) in cases {
            let info = image_info(&bytes).unwrap_or_else(|| panic!("{format:?} {w}x{h}"));
            assert_eq!((info.format, info.width, info.height), (format, w, h));
            assert_eq!(windowed(&bytes).map(|(w, h, _)| (w, h)), Some((w, h)));
            for url_safe in [false, true] {
                let text = base64(&bytes, url_safe);
                let got = image_info_base64(&text).map(|i| (i.width, i.height));
                assert_eq!(got, Some((w, h)), "{format:?} {w}x{h} base64");
                let url = format!("data:image/x;base64,{text}");
                assert_eq!(
                    image_info_base64(&url).map(|i| (i.width, i.height)),
                    Some((w, h))
                );
            }
        }
    }
}

#[test]
fn huge_sizes_of_the_wide_formats() {
    assert_eq!(size(&png(2_147_483_647, 1)), Some((2_147_483_647, 1)));
    assert_eq!(size(&png(2_147_483_648, 1)), None, "over PNG's 2^31 - 1");
    assert_eq!(size(&webp_vp8x(16_777_216, 3)), Some((16_777_216, 3)));
    assert_eq!(size(&gif(65_535, 65_535)), Some((65_535, 65_535)));
    assert_eq!(
        size(&jpeg(&[], 0xc1, 65_535, 65_535)),
        Some((65_535, 65_535))
    );
}

#[test]
fn jpeg_apps_of_any_size_before_the_frame_cost_one_step_each() {
    // EXIF near its 64 KiB maximum, an ICC profile in 12 chunks, XMP: the
    // frame header is ~800 KB in, and each segment longer than a window
    // costs one window (a 4 KiB copy), not its length.
    let mut apps = vec![(0xe0, 14), (0xe1, 65_533)];
    apps.extend(std::iter::repeat((0xe2, 65_533)).take(12));
    apps.push((0xe1, 30_000));
    let bytes = jpeg(&apps, 0xc2, 4032, 3024);
    assert!(bytes.len() > 800_000);
    let (w, h, rounds) = windowed(&bytes).unwrap();
    assert_eq!((w, h), (4032, 3024));
    assert_eq!(
        rounds, 15,
        "one window per segment longer than a window, plus the first"
    );
    let text = base64(&bytes, false);
    assert_eq!(
        image_info_base64(&text).map(|i| (i.width, i.height)),
        Some((4032, 3024))
    );
    // Past 16 windows the size is unknown: the bound, not a failure.
    let apps = vec![(0xe2, 65_533); 17];
    assert_eq!(windowed(&jpeg(&apps, 0xc0, 9, 9)), None);
}

#[test]
fn the_walk_is_bounded_in_segments() {
    // 2,000 empty COM segments: more than 16 rounds of 64 segments.
    let apps = vec![(0xfe, 0); 2000];
    assert_eq!(size(&jpeg(&apps, 0xc0, 10, 10)), None);
    let apps = vec![(0xfe, 0); 500];
    assert_eq!(size(&jpeg(&apps, 0xc0, 10, 10)), Some((10, 10)));
}

#[test]
fn truncated_or_broken_headers_are_unknown() {
    for (w, h) in SIZES {
        let (w16, h16) = (u16::try_from(w).unwrap(), u16::try_from(h).unwrap());
        let jpeg = jpeg(&[(0xe1, 300)], 0xc0, w16, h16);
        // Each format with the length of its header up to the last size byte.
        let cases = [
            (png(w, h), 24),
            (gif(w16, h16), 10),
            (webp_vp8(w16, h16), 30),
            (webp_vp8l(w, h), 25),
            (webp_vp8x(w, h), 30),
            (jpeg.clone(), 2 + 304 + 69 + 10),
        ];
        for (full, header) in cases {
            for cut in 0..header {
                assert_eq!(size(&full[..cut]), None, "cut at {cut}");
                assert_eq!(image_info_base64(&base64(&full[..cut], false)), None);
                assert_eq!(windowed(&full[..cut]), None);
            }
            assert_eq!(size(&full[..header]), Some((w, h)));
        }
    }
    // A zero side, a scan before the frame, a bad length, a bad start code.
    assert_eq!(size(&png(0, 5)), None);
    assert_eq!(size(&gif(5, 0)), None);
    let mut sos_first = vec![0xff, 0xd8, 0xff, 0xda, 0, 2];
    sos_first.extend_from_slice(&jpeg(&[], 0xc0, 5, 5)[2..]);
    assert_eq!(size(&sos_first), None);
    assert_eq!(size(&[0xff, 0xd8, 0xff, 0xe0, 0, 1, 0, 0]), None);
    let mut vp8 = webp_vp8(5, 5);
    vp8[23] = 0;
    assert_eq!(size(&vp8), None);
    assert_eq!(size(b""), None);
    assert_eq!(size(b"BM\x36\0\0\0"), None, "BMP is not read");
    assert_eq!(image_info_base64("data:image/png,%89PNG"), None);
}

#[test]
fn base64_with_line_breaks_reads_the_first_window_only() {
    let bytes = png(800, 600);
    let wrapped = wrap(&base64(&bytes, false), "\r\n");
    assert_eq!(image_info_base64(&wrapped).map(|i| i.width), Some(800));
    // A JPEG whose frame is past the first window: the offsets no longer map.
    let far = jpeg(&[(0xe1, 20_000)], 0xc0, 8, 8);
    let wrapped = wrap(&base64(&far, false), "\n");
    assert_eq!(image_info_base64(&wrapped), None);
    assert_eq!(
        image_info_base64(&base64(&far, false)).map(|i| i.width),
        Some(8)
    );
}

#[test]
fn base64_windows_start_at_the_character_of_their_offset() {
    let bytes = jpeg(&[(0xe1, 12_346)], 0xc2, 640, 480);
    let text = base64(&bytes, true);
    let mut offset = 0u64;
    let found = loop {
        let start = base64_char_of(offset).unwrap();
        let rest = &text.as_bytes()[start..];
        let window = &rest[..rest.len().min(WINDOW_CHARS)];
        match probe_base64(window, offset, window.len() == rest.len()) {
            Probe::Need(next) => {
                assert!(next > offset);
                offset = next;
            }
            other => break other,
        }
    };
    let Probe::Found(info) = found else {
        panic!("{found:?}")
    };
    assert_eq!((info.width, info.height), (640, 480));
    assert_eq!(offset % 3, 1, "a window that starts inside a 3-byte group");
}

#[test]
fn random_bytes_never_panic_and_never_yield_a_zero_side() {
    let mut rng = Rng::new(27);
    let prefixes: [&[u8]; 5] = [
        b"\x89PNG\r\n\x1a\n",
        b"GIF89a",
        b"RIFF\0\0\0\0WEBP",
        &[0xff, 0xd8, 0xff],
        b"%PDF-",
    ];
    for case in 0..20_000 {
        let len = rng.index(200);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        if case % 2 == 0 {
            let p = prefixes[rng.index(prefixes.len())];
            bytes.splice(0..0, p.iter().copied());
        }
        if let Some(info) = image_info(&bytes) {
            assert!(info.width > 0 && info.height > 0);
        }
        let text = String::from_utf8_lossy(&bytes);
        let _ = image_info_base64(&text);
        let _ = image_info_base64(&base64(&bytes, case % 3 == 0));
        let _ = pdf_pages(&bytes);
        let _ = windowed(&bytes);
    }
}

#[test]
fn openai_tiles_match_the_guides_examples() {
    let t = |model, detail, w, h| image_tokens(Provider::OpenAi, model, detail, w, h).unwrap();
    assert_eq!(t("gpt-4o", "high", 1024, 1024), 765);
    assert_eq!(t("gpt-4o-2024-08-06", "high", 2048, 4096), 1105);
    assert_eq!(t("gpt-4o", "low", 4096, 8192), 85);
    assert_eq!(t("gpt-4o", "auto", 1024, 1024), 765, "auto counts as high");
    assert_eq!(
        t("gpt-4o", "", 512, 512),
        255,
        "small images are not enlarged"
    );
    assert_eq!(t("gpt-4o-mini", "high", 1024, 1024), 2833 + 4 * 5667);
    assert_eq!(t("gpt-4o-mini", "low", 1024, 1024), 2833);
    assert_eq!(t("gpt-5", "high", 1024, 1024), 70 + 4 * 140);
    assert_eq!(t("o3", "high", 1024, 1024), 75 + 4 * 150);
    assert_eq!(t("computer-use-preview", "high", 1024, 1024), 65 + 4 * 129);
    assert_eq!(
        t("some-future-model", "high", 1024, 1024),
        765,
        "the default"
    );
    assert_eq!(t("gpt-4o", "high", 0, 0), 85 + 8 * 170, "unknown size");
    // Rotation never changes a count.
    for (w, h) in SIZES {
        assert_eq!(t("gpt-4o", "high", w, h), t("gpt-4o", "high", h, w));
    }
}

#[test]
fn openai_patches_match_the_guides_examples() {
    let t = |model, w, h| image_tokens(Provider::OpenAi, model, "high", w, h).unwrap();
    assert_eq!(t("gpt-4.1-mini", 1024, 1024), 1659);
    assert_eq!(t("gpt-4.1-mini-2025-04-14", 1800, 2400), 2353);
    assert_eq!(t("gpt-4.1-nano", 1024, 1024), 2520);
    assert_eq!(t("o4-mini", 1024, 1024), 1762);
    assert_eq!(t("gpt-5-mini", 0, 0), 2489);
    assert_eq!(
        image_tokens(Provider::OpenAi, "gpt-5-nano", "low", 64, 64).unwrap(),
        10,
        "detail does not apply"
    );
    // Never over 1536 patches, whatever the shape.
    for (w, h) in SIZES
        .iter()
        .copied()
        .chain([(100_000, 1), (1, 100_000), (8000, 8000)])
    {
        assert!(t("gpt-4.1-mini", w, h) <= 2489, "{w}x{h}");
        assert!(t("gpt-4.1-mini", w, h) >= 2, "{w}x{h}");
    }
}

#[test]
fn anthropic_matches_the_guides_table() {
    let t = |model, w, h| image_tokens(Provider::Anthropic, model, "", w, h).unwrap();
    assert_eq!(t("claude-sonnet-4-5", 200, 200), 54);
    assert_eq!(t("claude-sonnet-4-5", 1000, 1000), 1334);
    assert_eq!(t("claude-3-5-haiku-latest", 1092, 1092), 1590);
    // The guide's largest sizes that are not resized keep their count.
    for (w, h) in [
        (1092, 1092),
        (951, 1268),
        (896, 1344),
        (819, 1456),
        (784, 1568),
    ] {
        assert_eq!(t("claude-opus-4-1", w, h), (w * h).div_ceil(750).into());
    }
    assert_eq!(t("claude-opus-4-1", 8000, 8000), 1637, "1108 x 1108");
    assert_eq!(t("claude-opus-4-1", 0, 0), 1640);
    assert_eq!(t("claude-opus-4-7", 2576, 1000), 3435);
    assert_eq!(
        t("claude-opus-4-7", 2000, 2000),
        4998,
        "over 3.75 MP: 1936 x 1936"
    );
    assert_eq!(t("claude-opus-4-7", 0, 0), 5000);
}

#[test]
fn gemini_matches_the_guides_examples() {
    let t = |model, detail, w, h| image_tokens(Provider::Gemini, model, detail, w, h).unwrap();
    assert_eq!(t("gemini-2.0-flash", "", 384, 384), 258);
    assert_eq!(t("gemini-2.5-flash", "", 960, 540), 6 * 258);
    assert_eq!(t("models/gemini-2.5-pro", "", 1000, 1000), 4 * 258);
    assert_eq!(t("gemini-2.5-pro", "", 0, 0), 6 * 258);
    assert_eq!(t("gemini-3-pro-preview", "", 4000, 3000), 1120);
    assert_eq!(t("gemini-3-flash", "media_resolution_low", 4000, 3000), 280);
    assert_eq!(t("gemini-3-flash", "ultra_high", 0, 0), 2240);
}

#[test]
fn unknown_providers_and_details_are_invalid_options() {
    let e = ctxpack_core::media::parse_provider("azure").unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_OPTION", Some("provider")));
    let e = image_tokens(Provider::OpenAi, "gpt-4o", "medium", 1, 1).unwrap_err();
    assert_eq!((e.code(), e.field()), ("INVALID_OPTION", Some("detail")));
    let e = image_tokens(Provider::Gemini, "gemini-3-pro", "huge", 1, 1).unwrap_err();
    assert_eq!(e.field(), Some("detail"));
    assert!(
        image_tokens(Provider::Anthropic, "claude", "low", 1, 1).is_ok(),
        "ignored"
    );
}

fn pdf(pages: usize, pad: usize) -> Vec<u8> {
    let mut b = b"%PDF-1.7\n1 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n".to_vec();
    for i in 0..pages {
        let sep = ["", " ", "\n", "\r\n\t"][i % 4];
        b.extend_from_slice(
            format!(
                "{} 0 obj\n<</Type{sep}/Page /Parent 1 0 R>>\nendobj\n",
                i + 2
            )
            .as_bytes(),
        );
        b.extend(std::iter::repeat(b'x').take(pad));
    }
    b.extend_from_slice(b"/Type /Pagesx /Type /PageLabels\n%%EOF\n");
    b
}

#[test]
fn pdf_pages_are_counted_and_scaled_past_the_scan() {
    assert_eq!(pdf_pages(&pdf(1, 0)), Some(1));
    assert_eq!(pdf_pages(&pdf(37, 10)), Some(37));
    assert_eq!(pdf_pages(&pdf(0, 0)), None);
    // 1,000 pages of ~8 KiB each: only the first 4 MiB are scanned; the
    // estimate is within a page or two.
    let big = pdf(1000, 8000);
    let n = pdf_pages(&big).unwrap();
    assert!((999..=1002).contains(&n), "{n}");
    let mut lin = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n4 0 obj\n<< /Linearized 1 /L 1234 /H [ 1 2 ] /O 6 /E 9 /N 42 /T 99 >>\nendobj\n".to_vec();
    lin.extend_from_slice(&pdf(3, 0));
    assert_eq!(
        pdf_pages(&lin),
        Some(42),
        "the linearization dictionary wins"
    );
    assert_eq!(pdf_pages(b"%PNG"), None);
    let t = |p, m, pages| pdf_tokens(p, m, "", pages).unwrap();
    assert_eq!(
        t(Provider::Anthropic, "claude-sonnet-4-5", 3),
        3 * (3000 + 1640)
    );
    assert_eq!(t(Provider::OpenAi, "gpt-4o", 1), 3000 + 1445);
    assert_eq!(
        t(Provider::Gemini, "gemini-2.5-flash", 0),
        100 * 258,
        "unknown pages"
    );
    assert_eq!(t(Provider::Gemini, "gemini-3-pro-preview", 2), 2 * 1120);
}
