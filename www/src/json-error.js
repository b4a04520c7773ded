// Where a JSON text stops being valid, for a message that never quotes the text itself.
// Called only after JSON.parse has refused the text: JSON.parse stays the authority, and its own
// messages are not shown because some quote the input. RFC 8259 grammar.

/**
 * @typedef {{ offset: number, line: number, column: number, expected: string, found: string }} JsonErrorLocation
 * `offset` counts UTF-16 code units from 0; `line` and `column` count from 1.
 */

class Stop {
  constructor(offset, expected) {
    this.offset = offset;
    this.expected = expected;
  }
}

/**
 * The first position where `text` is not valid JSON, or `null` if the scanner finds none (or the
 * text nests too deeply for it).
 * @param {string} text
 * @returns {JsonErrorLocation | null}
 */
export function locateJsonError(text) {
  let i = 0;
  const stop = (expected) => {
    throw new Stop(i, expected);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const digits = () => {
    const start = i;
    while (i < text.length && text[i] >= '0' && text[i] <= '9') i++;
    if (i === start) stop('a digit');
  };
  const number = () => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const string = () => {
    if (text[i] !== '"') stop('a string in double quotes');
    i++;
    for (;;) {
      if (i >= text.length) stop('a closing double quote');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) stop('an escape sequence: control characters must be escaped inside strings');
      if (c === 0x5c) {
        i++;
        if (i < text.length && text[i] === 'u') {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? '')) stop('a hex digit of a \\u escape');
          continue;
        }
        if (i >= text.length || !'"\\/bfnrt'.includes(text[i])) stop('an escape: one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u');
      }
      i++;
    }
  };
  const literal = (word) => {
    for (const ch of word) {
      if (text[i] !== ch) stop(`the literal ${word}`);
      i++;
    }
  };
  const sequence = (close, item) => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === ',') {
        i++;
        ws();
      } else if (text[i] === close) {
        i++;
        return;
      } else stop(`',' or '${close}'`);
    }
  };
  const value = () => {
    const c = text[i];
    if (c === '{') {
      sequence('}', () => {
        string();
        ws();
        if (text[i] !== ':') stop("':'");
        i++;
        ws();
        value();
      });
    } else if (c === '[') sequence(']', value);
    else if (c === '"') string();
    else if (c === '-' || (c >= '0' && c <= '9')) number();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else stop('a value');
  };

  try {
    ws();
    value();
    ws();
    if (i < text.length) stop('the end of the text');
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) return null; // e.g. a RangeError from very deep nesting
    return { ...lineAndColumn(text, err.offset), offset: err.offset, expected: err.expected, found: describeChar(text, err.offset) };
  }
}

function lineAndColumn(text, offset) {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Names the character at `offset` by its class; only JSON punctuation is shown as itself. */
function describeChar(text, offset) {
  if (offset >= text.length) return 'the end of the text';
  const c = text[offset];
  if ('{}[]:,"\''.includes(c)) return `'${c}'`;
  if (/[0-9]/.test(c)) return 'a digit';
  if (/[A-Za-z]/.test(c)) return 'a letter';
  if (c === '\n' || c === '\r') return 'a line break';
  if (c.charCodeAt(0) < 0x20) return 'a control character';
  if (/\s/.test(c)) return 'whitespace';
  return 'another character';
}
