// What a session's history memo (src/messages/history.ts) takes for an unchanged message, and what
// for an edit: a snapshot keeps each container it descends into as its kind, so each case where
// only the kind or the class of a value changed is named here, in place and in a copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importStructure } from './internal.mjs';

const { HistoryMemo, adapterOf } = await importStructure();
const adapter = adapterOf('anthropic');

/** How many leading messages the memo keeps from the read before (`same`) after reading `a`, then `b`. */
function sameAfter(a, b) {
  const memo = new HistoryMemo();
  memo.read(adapter, a);
  memo.read(adapter, b);
  return memo.same;
}

const base = () => [
  { role: 'user', content: [{ type: 'text', text: 'hello' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { q: 'x', opts: { deep: 1 } } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
];

test('the same objects and an equal copy are unchanged', () => {
  const h = base();
  assert.equal(sameAfter(h, h), 3);
  assert.equal(sameAfter(h, structuredClone(h)), 3);
});

test('an array replaced by an object with the same entries is an edit', () => {
  const h = base();
  const e = structuredClone(h);
  e[1].content[0].input.opts = [1];
  assert.equal(sameAfter(h, e), 1);
});

test('an object replaced by an array is an edit, in place too', () => {
  const memo = new HistoryMemo();
  const h = base();
  memo.read(adapter, h);
  h[1].content[0].input.opts = ['deep', 1];
  memo.read(adapter, h);
  assert.equal(memo.same, 1);
});

test('a plain object replaced by an instance of a class with the same fields is an edit', () => {
  class Block {
    constructor() {
      this.type = 'text';
      this.text = 'hello';
    }
  }
  const h = base();
  const e = structuredClone(h);
  e[0].content[0] = new Block();
  assert.equal(sameAfter(h, e), 0);
});

test('a class instance inside a message is compared by identity: the same one is unchanged, an equal one is not', () => {
  class Options {
    constructor() {
      this.deep = 1;
    }
  }
  const opts = new Options();
  const withOpts = (o) => [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { q: 'x', opts: o } }] }];
  assert.equal(sameAfter(withOpts(opts), withOpts(opts)), 1);
  assert.equal(sameAfter(withOpts(opts), withOpts(new Options())), 0);
});

test('a primitive replaced by a container, and a container by a primitive, are edits', () => {
  const h = base();
  const e = structuredClone(h);
  e[1].content[0].input.q = { text: 'x' };
  assert.equal(sameAfter(h, e), 1);
  const f = structuredClone(h);
  f[1].content[0].input = 'q';
  assert.equal(sameAfter(h, f), 1);
});

test('a key added, removed or renamed is an edit; a key past the depth is compared by identity', () => {
  const h = base();
  const added = structuredClone(h);
  added[0].content[0].cache_control = { type: 'ephemeral' };
  assert.equal(sameAfter(h, added), 0);
  const removed = structuredClone(h);
  delete removed[2].content[0].content;
  assert.equal(sameAfter(h, removed), 2);
  // messages[1].content[0].input.opts.deep is past the snapshot's depth (5): the array itself is
  // compared, so an equal copy of it is an edit and the same array is not.
  const kept = base();
  kept[1].content[0].input.opts.deep = [1, 2];
  const deeper = structuredClone(kept);
  assert.equal(sameAfter(kept, deeper), 1);
  deeper[1].content[0].input.opts.deep = kept[1].content[0].input.opts.deep;
  assert.equal(sameAfter(kept, deeper), 3);
});
