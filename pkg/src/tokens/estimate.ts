/**
 * The built-in token estimate: a count of the pieces a byte-pair vocabulary (OpenAI's o200k_base
 * and cl100k_base) typically splits a text into, read from its characters in one pass, with no
 * vocabulary. Characters per token differ by a factor of four between kinds of text (English
 * prose about 4.4, JSON and logs about 2.5, CSV 1.9, ids and base64 1.4–1.6, Chinese 1–1.5), so
 * one ratio undercounts tool output and non-Latin text badly; these rules follow what each kind
 * costs:
 *
 * ```text
 * word (a run of ASCII letters and digits)   one token per piece; a piece ends where a lower-case
 *                                            letter meets a capital, letters meet digits, or
 *                                            after 7 lower-case letters, 6 capitals or 3 digits;
 *                                            a random-looking word (8+ characters, pieces under
 *                                            3 characters on average): at least length / 1.5
 * run of ASCII punctuation                   1, then 0.3 per character (0.1 when it repeats the
 *                                            one before: a line of dashes)
 * a run of L spaces and tabs                 before a word ⌈(L − 1) / 128⌉ (the last joins the
 *                                            word: a single space is 0); before a line break 0
 *                                            (it joins the break); before a digit one more
 *                                            (the last is a token of its own); at the end ⌈L / 128⌉
 * a run of L line breaks                     ⌈L / 16⌉
 * CJK, kana, hangul, full-width forms        1 per character
 * Thai, Devanagari and the other Indic       1 per character
 * scripts (U+0900–U+0E7F)
 * Latin-1 and Latin Extended, symbols        1 per character
 * (U+0080–U+02FF, U+2000–U+2BFF)
 * Hebrew, Arabic (U+0590–U+06FF)             0.8 per character
 * other BMP characters (Cyrillic, Greek, …)  0.5 per character
 * a UTF-16 surrogate (half of most emoji)    1.5
 * ```
 *
 * The sum is rounded up; a non-empty text is at least 1. pkg/test/estimate.test.mjs holds it to
 * 0.9–1.3 times the larger of the two vocabularies' counts on prose, markdown, code, type
 * declarations, JSON, logs, CSV, SQL, YAML, stack traces, directory listings, ids, base64, HTML,
 * indented and blank-line-separated text, runs of spaces, Chinese, Russian, German, Thai, Arabic
 * and emoji, where `ceil(length / 4)` is 0.01–1.29; Devanagari to 0.7–1.3 (cl100k_base spends
 * 2.5 times o200k_base's tokens on it, and the estimate sits between). It is an estimate: a real
 * tokenizer (`ctxpack/tokenizers/*`) counts exactly.
 *
 * @internal
 * @module
 */

// Every UTF-16 code unit's class, in one table built on first use (64 KiB): one load per
// character. Costs are summed in tenths of a token, in integers, so that no rounding of a float
// can move the result.
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SPACE = 4;
const BREAK = 5;
const PUNCT = 6;
const COST10 = 7; // other ASCII, CJK, Latin-1 and Latin Extended, symbols
const COST5 = 8; // other BMP characters
const COST15 = 9; // a surrogate
const COST8 = 10; // Hebrew, Arabic
const COST = [0, 0, 0, 0, 0, 0, 0, 10, 5, 15, 8];

let table: Uint8Array | undefined;

function classes(): Uint8Array {
  const t = new Uint8Array(65536).fill(COST5);
  for (let c = 0; c < 128; c++) {
    t[c] =
      c >= 97 && c <= 122 ? LOWER
      : c >= 65 && c <= 90 ? UPPER
      : c >= 48 && c <= 57 ? DIGIT
      : c === 32 ? SPACE
      : c === 10 || c === 13 || c === 9 ? BREAK
      : c > 32 && c < 127 ? PUNCT
      : COST10;
  }
  const ranges: [number, number, number][] = [
    [0x80, 0x2ff, COST10], [0x2000, 0x2bff, COST10], [0x2e80, 0x9fff, COST10], [0xac00, 0xd7af, COST10],
    [0xf900, 0xfaff, COST10], [0xff00, 0xffef, COST10], [0xd800, 0xdfff, COST15],
    [0x0900, 0x0e7f, COST10], [0x0590, 0x06ff, COST8],
  ];
  for (const [from, to, k] of ranges) t.fill(k, from, to + 1);
  return t;
}

/** The estimate of `text` (a string; the caller checks). */
export function estimatePieces(text: string): number {
  const cls = (table ??= classes());
  const n = text.length;
  let tokens = 0; // tenths
  let i = 0;
  while (i < n) {
    const k = cls[text.charCodeAt(i)]!;
    if (k <= DIGIT) {
      // A word: a piece ends where a lower-case letter meets a capital, letters meet digits, or
      // after 7 lower-case letters, 6 capitals or 3 digits in a row (a capital's run goes on in
      // lower case: "Abcdefgh" is two pieces). Read a run of one class at a time, with no table:
      // `same` more characters of the class before, entered with `run` characters in the piece
      // so far, start ⌊(run + same − 1) / R⌋ new pieces and leave (run + same − 1) mod R + 1 in
      // it (R: the class's longest run), as a character-by-character count would.
      let pieces = 1;
      let run = 1;
      let last = k;
      let j = i + 1;
      for (;;) {
        const from = j;
        let t: number;
        if (last === LOWER) {
          while (j < n && ((text.charCodeAt(j) - 97) >>> 0) <= 25) j++;
          t = run + (j - from) - 1;
          pieces += (t / 7) | 0;
          run = (t % 7) + 1;
        } else if (last === UPPER) {
          while (j < n && ((text.charCodeAt(j) - 65) >>> 0) <= 25) j++;
          t = run + (j - from) - 1;
          pieces += (t / 6) | 0;
          run = (t % 6) + 1;
        } else {
          while (j < n && ((text.charCodeAt(j) - 48) >>> 0) <= 9) j++;
          t = run + (j - from) - 1;
          pieces += (t / 3) | 0;
          run = (t % 3) + 1;
        }
        if (j >= n) break;
        const e = cls[text.charCodeAt(j)]!;
        if (e > DIGIT) break;
        // Another class: a new piece, but for capitals going on in lower case.
        if (e === LOWER && last === UPPER) run++;
        else {
          pieces++;
          run = 1;
        }
        last = e;
        j++;
      }
      const length = j - i;
      // Random-looking (ids, base64): ceil(length / 1.5) = floor((2·length + 2) / 3).
      tokens += 10 * (length >= 8 && length < 3 * pieces ? Math.max(pieces, Math.floor((2 * length + 2) / 3)) : pieces);
      i = j;
    } else if (k === SPACE && i + 1 < n && ((cls[text.charCodeAt(i + 1)]! - 1) >>> 0) <= 1) {
      // One space before a letter, most of prose: it joins the word (the rule below, L = 1).
      i++;
    } else if (k === SPACE || k === BREAK) {
      // Whitespace, as byte-pair pre-tokenizers split it: a run of line breaks (with the spaces
      // and tabs before it) is ⌈L / 16⌉; spaces and tabs before a word are ⌈(L − 1) / 128⌉, the
      // last joining the word (before a digit, a token of its own); at the end ⌈L / 128⌉.
      let j = i;
      while (j < n) {
        let e = j;
        while (e < n && (text.charCodeAt(e) === 32 || text.charCodeAt(e) === 9)) e++;
        let b = e;
        while (b < n && (text.charCodeAt(b) === 10 || text.charCodeAt(b) === 13)) b++;
        if (b > e) {
          tokens += 10 * Math.ceil((b - e) / 16);
        } else if (e > j) {
          // The last joins a word; before a number (digits are split on their own) it is one more.
          const digit = e < n && ((text.charCodeAt(e) - 48) >>> 0) <= 9;
          tokens += 10 * (e < n ? Math.ceil((e - j - 1) / 128) + (digit ? 1 : 0) : Math.ceil((e - j) / 128));
        }
        if (b === j) break;
        j = b;
      }
      i = j;
    } else if (k === PUNCT) {
      // A run: 1, then 0.3 per character, 0.1 when it repeats the one before (a line of dashes).
      tokens += 10;
      let j = i + 1;
      for (let p = text.charCodeAt(i); j < n; j++) {
        const d = text.charCodeAt(j);
        if (cls[d] !== PUNCT) break;
        tokens += d === p ? 1 : 3;
        p = d;
      }
      i = j;
    } else {
      tokens += COST[k]!;
      i++;
    }
  }
  return n === 0 ? 0 : Math.max(1, Math.ceil(tokens / 10));
}
