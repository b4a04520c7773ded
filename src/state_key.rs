//! Keyed hashes for a session's exported state (the npm package's
//! `createSession({ stateKey })`, docs/sessions.md).
//!
//! Without a key, a state's text keys are a fast public hash: anyone can
//! hash candidate texts and compare, so a short or guessable text (a
//! 6-digit code) is recovered from its key. With a key, every text key is
//! SipHash-2-4 (Aumasson and Bernstein, a pseudorandom function with a
//! 128-bit key; the [`siphasher`] crate, checked here against the paper's
//! reference vectors) of the text under a key derived from the caller's
//! secret, and cannot be computed without it.
//!
//! * [`derive_key`]: the 128-bit SipHash-2-4 key of a secret of at least
//!   [`MIN_SECRET_BYTES`] bytes: SipHash-2-4 with 128-bit output of the
//!   secret under the fixed public key `b"ctxpack stateKey"`. It spreads the
//!   secret over the key's 128 bits; it adds no strength to a guessable
//!   secret, which should be random bytes.
//! * [`text_hash`]: the hash of a text given as its UTF-16 code units, each
//!   as 2 little-endian bytes: the same text gives the same units in every
//!   JavaScript runtime, and distinct texts (lone surrogates included) give
//!   distinct inputs.
//! * [`key_check`]: the hash of the 23 bytes `b"ctxpack state key check"`,
//!   which a state stores to tell the key it was written with. Its input
//!   has an odd length, so no text (an even number of bytes) shares it.
//!
//! ```
//! use ctxpack_core::state_key::{derive_key, key_check, text_hash};
//!
//! let key = derive_key(b"0123456789abcdef").unwrap();
//! let units: Vec<u16> = "code 123456".encode_utf16().collect();
//! assert_eq!(text_hash(&key, &units), text_hash(&key, &units));
//! let other = derive_key(b"0123456789abcdeF").unwrap();
//! assert_ne!(text_hash(&key, &units), text_hash(&other, &units));
//! assert_ne!(key_check(&key), key_check(&other));
//! ```

use core::hash::Hasher;

use siphasher::sip::SipHasher24;
use siphasher::sip128::SipHasher24 as SipHasher24x128;

/// The shortest secret [`derive_key`] takes, in bytes (128 bits).
///
/// ```
/// assert_eq!(ctxpack_core::state_key::MIN_SECRET_BYTES, 16);
/// ```
pub const MIN_SECRET_BYTES: usize = 16;

/// The fixed public key under which a secret becomes a SipHash-2-4 key.
const DERIVE_KEY: &[u8; 16] = b"ctxpack stateKey";

/// The input of [`key_check`]: an odd number of bytes, unlike any text.
const CHECK_INPUT: &[u8; 23] = b"ctxpack state key check";

/// The SipHash-2-4 key of `secret`: SipHash-2-4-128 of the secret under the
/// fixed key `b"ctxpack stateKey"`; `None` when the secret is shorter than
/// [`MIN_SECRET_BYTES`].
///
/// ```
/// use ctxpack_core::state_key::derive_key;
///
/// assert!(derive_key(b"too short").is_none());
/// let key = derive_key(b"a secret of 32 bytes, kept apart").unwrap();
/// assert_eq!(key, derive_key(b"a secret of 32 bytes, kept apart").unwrap());
/// assert_ne!(key, derive_key(b"a secret of 32 bytes, kept apar!").unwrap());
/// ```
pub fn derive_key(secret: &[u8]) -> Option<[u8; 16]> {
    if secret.len() < MIN_SECRET_BYTES {
        return None;
    }
    Some(
        SipHasher24x128::new_with_key(DERIVE_KEY)
            .hash(secret)
            .as_bytes(),
    )
}

/// SipHash-2-4 under `key` of the UTF-16 code units `units`, each as two
/// little-endian bytes.
///
/// ```
/// use ctxpack_core::state_key::text_hash;
///
/// // The paper's key 00..0f and message 00 01 02 03: the units 0x0100, 0x0302.
/// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
/// assert_eq!(text_hash(&key, &[0x0100, 0x0302]), 0xcf27_94e0_2771_87b7);
/// ```
pub fn text_hash(key: &[u8; 16], units: &[u16]) -> u64 {
    let mut h = SipHasher24::new_with_key(key);
    // Through a small buffer: one `write` per 256 units, no allocation.
    let mut buf = [0u8; 512];
    for chunk in units.chunks(256) {
        for (k, u) in chunk.iter().enumerate() {
            buf[2 * k..2 * k + 2].copy_from_slice(&u.to_le_bytes());
        }
        h.write(&buf[..2 * chunk.len()]);
    }
    h.finish()
}

/// The value a state keeps to tell which key wrote it: SipHash-2-4 under
/// `key` of `b"ctxpack state key check"`.
///
/// ```
/// use ctxpack_core::state_key::{derive_key, key_check};
///
/// let a = derive_key(b"0123456789abcdef").unwrap();
/// assert_eq!(key_check(&a), key_check(&a));
/// assert_ne!(key_check(&a), key_check(&derive_key(b"fedcba9876543210").unwrap()));
/// ```
pub fn key_check(key: &[u8; 16]) -> u64 {
    SipHasher24::new_with_key(key).hash(CHECK_INPUT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference key 00 01 … 0f.
    fn reference_key() -> [u8; 16] {
        core::array::from_fn(|i| u8::try_from(i).unwrap())
    }

    /// SipHash-2-4 64-bit reference vectors (the paper's appendix, vectors.h)
    /// for the messages 00 01 … (len − 1), as little-endian u64.
    const VECTORS_64: [(usize, u64); 6] = [
        (0, 0x726f_db47_dd0e_0e31),
        (4, 0xcf27_94e0_2771_87b7),
        (8, 0x93f5_f579_9a93_2462),
        (15, 0xa129_ca61_49be_45e5),
        (62, 0xe51b_3860_8ef2_5f57),
        (63, 0x958a_324c_eb06_4572),
    ];

    #[test]
    fn siphash_2_4_matches_the_reference_vectors() {
        let key = reference_key();
        for (len, want) in VECTORS_64 {
            let msg: Vec<u8> = (0..len).map(|i| u8::try_from(i).unwrap()).collect();
            assert_eq!(
                SipHasher24::new_with_key(&key).hash(&msg),
                want,
                "length {len}"
            );
            if len % 2 == 0 {
                let units: Vec<u16> = msg
                    .chunks(2)
                    .map(|p| u16::from_le_bytes([p[0], p[1]]))
                    .collect();
                assert_eq!(
                    text_hash(&key, &units),
                    want,
                    "length {len} as UTF-16 units"
                );
            }
        }
    }

    #[test]
    fn siphash_2_4_128_matches_the_reference_vector() {
        // The empty message under 00..0f (vectors_sip128 in the reference code).
        let want = [
            0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55,
            0x02, 0x93,
        ];
        assert_eq!(
            SipHasher24x128::new_with_key(&reference_key())
                .hash(&[])
                .as_bytes(),
            want
        );
    }

    #[test]
    fn long_texts_hash_as_one_message_across_the_buffer() {
        let key = reference_key();
        let units: Vec<u16> = (0..1000u16).map(|i| i.wrapping_mul(40_503)).collect();
        let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        assert_eq!(
            text_hash(&key, &units),
            SipHasher24::new_with_key(&key).hash(&bytes)
        );
    }

    #[test]
    fn lone_surrogates_stay_distinct() {
        let key = derive_key(&[7; 16]).unwrap();
        assert_ne!(
            text_hash(&key, &[0x61, 0xd800]),
            text_hash(&key, &[0x61, 0xfffd])
        );
    }

    /// The values pkg/test/session-state.test.mjs pins through the package (the secret
    /// "0123456789abcdef" as UTF-8): the wasm path and this one agree.
    #[test]
    fn package_vectors() {
        let key = derive_key(b"0123456789abcdef").unwrap();
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        assert_eq!(
            format!("{:016x}", text_hash(&key, &units("h\u{e9}llo"))),
            "1cdd7f41ff3a177e"
        );
        assert_eq!(
            format!("{:016x}", text_hash(&key, &[0x61, 0xd800])),
            "1c74e6b29a13fc54"
        );
        assert_eq!(
            format!("{:016x}", text_hash(&key, &units("a\u{fffd}"))),
            "5efd1c946e679cf5"
        );
        assert_eq!(format!("{:016x}", key_check(&key)), "cf98c6c31d7b297d");
    }
}
