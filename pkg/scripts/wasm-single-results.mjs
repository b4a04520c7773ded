// `make wasm`: keeps every export of the .wasm to one result at most, for a cold start that does
// not compile a wrapper per export.
//
// rustc marks `multivalue` as used in the .wasm's target_features section (it is on by default for
// wasm32-unknown-unknown), and wasm-bindgen then returns a `Result` or a string as several values
// (`(result i32 i32 i32)`) instead of through memory. V8 calls an export of such a signature
// through a JS-to-wasm wrapper of its own, compiled by TurboFan when the module is compiled (in
// Node 20's V8 11.3, for every such export at once): most of the first `new WebAssembly.Module` of
// the core, about 15 ms of CPU. With one result at most, V8 uses its generic wrapper and compiles
// nothing more (the results come back through memory, as wasm-bindgen does without multivalue).
//
//   node pkg/scripts/wasm-single-results.mjs mark <cargo's .wasm>   before wasm-bindgen: multivalue marked disallowed ('-')
//   node pkg/scripts/wasm-single-results.mjs check <.wasm>          after wasm-opt: fails if an export returns more than one value
import { readFileSync, writeFileSync } from 'node:fs';

const [command, file] = process.argv.slice(2);
const bytes = readFileSync(file);

/** A cursor over `bytes`: unsigned LEB128 numbers, single bytes, names. */
class Cursor {
  constructor(at) {
    this.p = at;
  }
  byte() {
    return bytes[this.p++];
  }
  u32() {
    let r = 0;
    let shift = 0;
    let x;
    do {
      x = bytes[this.p++];
      r += (x & 0x7f) * 2 ** shift;
      shift += 7;
    } while (x & 0x80);
    return r;
  }
  name() {
    const n = this.u32();
    const s = bytes.subarray(this.p, this.p + n).toString();
    this.p += n;
    return s;
  }
  /** A value type: one byte, or a reference type `(ref null? heaptype)` with its heap type. */
  valueType() {
    const t = this.byte();
    if (t === 0x63 || t === 0x64) this.u32(); // heap type index or abstract type (one byte, read as a LEB)
  }
  limits() {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }
}

/** The module's sections: `{ id, name, body }`, `body` a cursor at the contents (after a custom section's name). */
function sections() {
  const out = [];
  const c = new Cursor(8);
  while (c.p < bytes.length) {
    const id = c.byte();
    const len = c.u32();
    const end = c.p + len;
    const body = new Cursor(c.p);
    const name = id === 0 ? body.name() : undefined;
    out.push({ id, name, body });
    c.p = end;
  }
  return out;
}

if (command === 'mark') {
  const section = sections().find((s) => s.name === 'target_features');
  if (section === undefined) throw new Error(`${file}: no target_features section (wasm-bindgen reads it): do not strip the linker's output`);
  const c = section.body;
  const count = c.u32();
  let marked = false;
  for (let i = 0; i < count; i++) {
    const prefixAt = c.p;
    c.byte();
    if (c.name() === 'multivalue') {
      bytes[prefixAt] = 0x2d; // '-': disallowed, so wasm-bindgen returns through memory
      marked = true;
    }
  }
  if (marked) writeFileSync(file, bytes);
  process.stdout.write(`${file}: multivalue ${marked ? 'marked disallowed' : 'not listed'}\n`);
} else if (command === 'check') {
  const all = sections();
  const of = (id) => all.find((s) => s.id === id)?.body;
  // The number of results of each type.
  const results = [];
  const types = of(1);
  for (let i = 0, n = types.u32(); i < n; i++) {
    const form = types.byte();
    if (form !== 0x60) throw new Error(`${file}: type ${i} is not a function type (0x${form.toString(16)}): update this reader`);
    for (let k = 0, params = types.u32(); k < params; k++) types.valueType();
    const res = types.u32();
    for (let k = 0; k < res; k++) types.valueType();
    results.push(res);
  }
  // Function index → type index: the imported functions first, then the function section.
  const funcTypes = [];
  const imports = of(2);
  if (imports !== undefined) {
    for (let i = 0, n = imports.u32(); i < n; i++) {
      imports.name();
      imports.name();
      const kind = imports.byte();
      if (kind === 0) funcTypes.push(imports.u32());
      else if (kind === 1) {
        imports.valueType();
        imports.limits();
      } else if (kind === 2) imports.limits();
      else if (kind === 3) {
        imports.valueType();
        imports.byte();
      } else throw new Error(`${file}: import kind ${kind}: update this reader`);
    }
  }
  const funcs = of(3);
  for (let i = 0, n = funcs.u32(); i < n; i++) funcTypes.push(funcs.u32());
  const bad = [];
  const exports = of(7);
  const n = exports.u32();
  for (let i = 0; i < n; i++) {
    const name = exports.name();
    const kind = exports.byte();
    const index = exports.u32();
    const res = kind === 0 ? results[funcTypes[index]] : 0;
    if (res > 1) bad.push(`${name} (${res} results)`);
  }
  if (bad.length > 0) {
    throw new Error(`${file}: exports with more than one result, each a wrapper V8 compiles at start-up: ${bad.join(', ')} (see pkg/scripts/wasm-single-results.mjs)`);
  }
  process.stdout.write(`${file}: ${n} exports, none with more than one result\n`);
} else {
  throw new Error('usage: wasm-single-results.mjs mark|check <file.wasm>');
}
