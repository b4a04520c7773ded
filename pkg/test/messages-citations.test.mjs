// Anthropic's citations of search results (messages/citations.ts): a text block's
// search_result_location citation names a search_result block of the request by its index among
// all of them and its source. When a fit leaves that block out, the citation goes from a copy of
// its text block (the text stays); when an earlier one is left out, it gets its block's new index.
// Citations of documents name a document block by its index among the request's and by its title
// alone: checked as far as the title tells (messages/citations.ts).
// The shapes are @anthropic-ai/sdk's (SearchResultBlockParam, DocumentBlockParam, TextBlockParam,
// CitationSearchResultLocationParam, CitationWebSearchResultLocationParam, CitationCharLocationParam,
// CitationPageLocationParam, CitationContentBlockLocationParam), and the request is sent through the
// real Anthropic client and the real ChatAnthropic (their fetch answers locally).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fitMessages, validateMessages } from 'ctxpack';

const filler = (k) => Array.from({ length: 400 }, (_, i) => `line ${i} of build ${k} wrote module_${(i * 7) % 13}`).join('\n');
/** A SearchResultBlockParam. */
const result = (source, text) => ({ type: 'search_result', source, title: `About ${source}`, content: [{ type: 'text', text }], citations: { enabled: true } });
/** A CitationSearchResultLocationParam of the search result at `index`. */
const cite = (index, source) => ({ type: 'search_result_location', cited_text: 'the text', search_result_index: index, source, title: `About ${source}`, start_block_index: 0, end_block_index: 1 });
/** A CitationWebSearchResultLocationParam. */
const web = { type: 'web_search_result_location', cited_text: 'web text', encrypted_index: 'Eo8BCioIAhgBIiQ', title: 'A page', url: 'https://example.com/page' };

/** A conversation whose first tool result holds a search result (cut by a small budget), the second another; the last answer cites both. */
function history() {
  return [
    { role: 'user', content: 'Look up how sessions expire.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'old' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [result('https://docs/old', filler(1))] }] },
    { role: 'assistant', content: 'Old docs read.' },
    { role: 'user', content: 'And the new docs?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'search', input: { q: 'new' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [result('https://docs/new', 'Sessions expire after an hour.')] }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Before: one minute.', citations: [cite(0, 'https://docs/old'), web] },
        { type: 'text', text: 'Now: an hour.', citations: [cite(1, 'https://docs/new')] },
      ],
    },
    { role: 'user', content: 'Thanks. Anything else?' },
  ];
}

/** The real Anthropic client, recording the bodies it sends. */
function client() {
  const bodies = [];
  const fetch = async (_url, init) => {
    bodies.push(JSON.parse(init.body));
    const reply = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { bodies, fetch, anthropic: new Anthropic({ apiKey: 'sk-test', maxRetries: 0, fetch }) };
}

test('anthropic: a citation of a search result the fit leaves out is removed from a copy of its text block, the next one re-indexed, a web citation kept', async () => {
  const h = history();
  const original = structuredClone(h);
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 600 }, keep: (_m, i) => i === 7, truncateToolResults: false });
  const kept = r.decisions.filter((d) => d.included).map((d) => d.index);
  assert.ok(!kept.includes(2) && kept.includes(6) && kept.includes(7), `kept ${kept}`);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  const answer = r.messages[kept.indexOf(7)];
  assert.notEqual(answer, h[7], 'a copy');
  assert.deepEqual(answer.content[0], { type: 'text', text: 'Before: one minute.', citations: [web] }, 'the text and the web citation stay');
  // The old search result left out, the new one is the request's first: index 0.
  assert.deepEqual(answer.content[1], { type: 'text', text: 'Now: an hour.', citations: [cite(0, 'https://docs/new')] });
  assert.deepEqual(h, original, "the caller's messages are untouched");
  assert.ok(r.warnings.some((w) => w === 'citations_removed: 1 search_result_location citation(s) on messages[7] cite a search result the request leaves out: removed from copies of their text blocks, the text kept'), r.warnings.join('\n'));
  assert.ok(r.warnings.some((w) => w.startsWith('citations_reindexed: 1 search_result_location citation(s) on messages[7] ')));
  // Through the real client: the body holds what the fit returned.
  const { bodies, anthropic } = client();
  await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: r.messages });
  const sent = bodies[0].messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).flatMap((b) => b.citations ?? []);
  assert.deepEqual(sent.map((c) => c.type), ['web_search_result_location', 'search_result_location']);
  assert.equal(sent[1].search_result_index, 0);

  // Truncated (the default for a tool result too large): its search result becomes text, so the citation goes the same way.
  const cut = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 2_000 } });
  assert.ok(cut.decisions[2].included && cut.decisions[2].truncated !== undefined);
  assert.deepEqual(cut.messages[7].content[0].citations, [web]);
  assert.deepEqual(cut.messages[7].content[1].citations, [cite(0, 'https://docs/new')]);

  // Everything kept: the messages themselves, no warning.
  const whole = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.ok(whole.messages.every((m, k) => m === h[k]));
  assert.ok(!whole.warnings.some((w) => w.startsWith('citations_')));
});

test('anthropic: a search result in a user message counts as one in a tool result; a text block left without citations loses the field', () => {
  const h = [
    { role: 'user', content: [result('https://kb/a', filler(2)), { type: 'text', text: 'What does it say?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'It says a.', citations: [cite(0, 'https://kb/a')] }] },
    { role: 'user', content: 'Summarise it.' },
  ];
  // Cited where it stands (a user message's search result is the request's first): the messages themselves.
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.ok(r.messages.every((m, k) => m === h[k]));
  // A search result with a title the citation does not name is not the one cited.
  const other = [{ ...h[0], content: [{ ...result('https://kb/a', 'x'), title: 'Another page' }, h[0].content[1]] }, h[1], h[2]];
  const o = fitMessages(other, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.deepEqual(o.messages[1].content[0], { type: 'text', text: 'It says a.' }, 'no citations field left');
  assert.equal(other[1].content[0].citations.length, 1);
});

test('langchain: the same through LangChain messages (classes kept), as the real ChatAnthropic sends them', async () => {
  const h = [
    new HumanMessage('Look up how sessions expire.'),
    new AIMessage({ content: '', tool_calls: [{ id: 'toolu_1', name: 'search', args: { q: 'old' } }] }),
    new ToolMessage({ content: [result('https://docs/old', filler(3))], tool_call_id: 'toolu_1' }),
    new AIMessage('Old docs read.'),
    new HumanMessage('And the new docs?'),
    new AIMessage({ content: '', tool_calls: [{ id: 'toolu_2', name: 'search', args: { q: 'new' } }] }),
    new ToolMessage({ content: [result('https://docs/new', 'Sessions expire after an hour.')], tool_call_id: 'toolu_2' }),
    new AIMessage({ content: [{ type: 'text', text: 'Before: one minute.', citations: [cite(0, 'https://docs/old')] }, { type: 'text', text: 'Now: an hour.', citations: [cite(1, 'https://docs/new')] }] }),
    new HumanMessage('Thanks. Anything else?'),
  ];
  const r = fitMessages(h, { format: 'langchain', budgets: { tokens_max: 600 }, keep: (_m, i) => i === 7, truncateToolResults: false });
  const kept = r.decisions.filter((d) => d.included).map((d) => d.index);
  assert.ok(!kept.includes(2) && kept.includes(6), `kept ${kept}`);
  const answer = r.messages[kept.indexOf(7)];
  assert.ok(AIMessage.isInstance(answer) && answer !== h[7]);
  assert.deepEqual(answer.content, [{ type: 'text', text: 'Before: one minute.' }, { type: 'text', text: 'Now: an hour.', citations: [cite(0, 'https://docs/new')] }]);
  assert.equal(h[7].content[0].citations.length, 1, "the caller's message is untouched");
  const { bodies, fetch } = client();
  await new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-test', maxRetries: 0, clientOptions: { fetch } }).invoke(r.messages);
  const sent = bodies[0].messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).flatMap((b) => b.citations ?? []);
  assert.deepEqual(sent, [cite(0, 'https://docs/new')], 'the body holds the one citation, at the index of its search result there');
  const inBody = bodies[0].messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).flatMap((b) => (b.type === 'tool_result' ? b.content : [])).filter((b) => b.type === 'search_result');
  assert.deepEqual(inBody.map((b) => b.source), ['https://docs/new']);
});

/** A DocumentBlockParam: a plain-text document with citations enabled, titled unless `title` is null. */
const doc = (title, data) => ({ type: 'document', source: { type: 'text', media_type: 'text/plain', data }, ...(title === null ? {} : { title }), citations: { enabled: true } });
/** A CitationCharLocationParam of the document at `index`. */
const charCite = (index, title) => ({ type: 'char_location', cited_text: 'Sessions', document_index: index, document_title: title, start_char_index: 0, end_char_index: 8 });

/** Two documents in user messages (the first large, cut by a small budget); the answer cites both, and one citation is untitled. */
function documentHistory() {
  return [
    { role: 'user', content: [doc('Old policy', filler(4)), { type: 'text', text: 'What did it say?' }] },
    { role: 'assistant', content: 'One minute.' },
    { role: 'user', content: [doc('New policy', 'Sessions expire after an hour.'), { type: 'text', text: 'And now?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Before: one minute.', citations: [charCite(0, 'Old policy')] },
        { type: 'text', text: 'Now: an hour.', citations: [charCite(1, 'New policy')] },
        { type: 'text', text: 'As said.', citations: [charCite(1, null)] },
      ],
    },
    { role: 'user', content: 'Thanks.' },
  ];
}

test('anthropic: a citation of a document the fit leaves out is removed, one whose document moved is re-indexed by its title, an untitled one past the documents removed', async () => {
  const h = documentHistory();
  const original = structuredClone(h);
  const r = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 600 }, keep: (_m, i) => i === 3 });
  const kept = r.decisions.filter((d) => d.included).map((d) => d.index);
  assert.ok(!kept.includes(0) && kept.includes(2) && kept.includes(3), `kept ${kept}`);
  assert.deepEqual(validateMessages(r.messages, 'anthropic'), []);
  const answer = r.messages[kept.indexOf(3)];
  assert.deepEqual(answer.content, [
    { type: 'text', text: 'Before: one minute.' },
    { type: 'text', text: 'Now: an hour.', citations: [charCite(0, 'New policy')] },
    { type: 'text', text: 'As said.' },
  ]);
  assert.deepEqual(h, original, "the caller's messages are untouched");
  assert.ok(r.warnings.includes("document_citations_removed: 2 citation(s) of documents on messages[3] name a document the request does not hold (by its title, or past the request's 1 document(s)): removed from copies of their text blocks, the text kept"), r.warnings.join('\n'));
  assert.ok(r.warnings.includes('document_citations_reindexed: 1 citation(s) of documents on messages[3] name a document that moved in the request (by its title): given its index there (on copies)'), r.warnings.join('\n'));
  const { bodies, anthropic } = client();
  await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: r.messages });
  const sent = bodies[0].messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).flatMap((b) => (b.type === 'text' ? (b.citations ?? []) : []));
  assert.deepEqual(sent, [charCite(0, 'New policy')], 'the body holds the one citation, at the index of its document there');

  // Everything kept: the messages themselves, no warning.
  const whole = fitMessages(h, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.ok(whole.messages.every((m, k) => m === h[k]));
  assert.ok(!whole.warnings.some((w) => w.includes('citations_')), whole.warnings.join('\n'));
});

test('anthropic: document citations the title cannot settle', () => {
  const ask = { type: 'text', text: 'Compare them.' };
  // Two documents of one title, the citation's index on neither of that title: which one is unknown, so it goes.
  const twins = [
    { role: 'user', content: [doc('Notes', 'a'), doc('Notes', 'b'), doc('Other', 'c'), ask] },
    { role: 'assistant', content: [{ type: 'text', text: 'See.', citations: [charCite(2, 'Notes')] }] },
    { role: 'user', content: 'Go on.' },
  ];
  const t = fitMessages(twins, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.deepEqual(t.messages[1].content, [{ type: 'text', text: 'See.' }]);
  // An untitled citation in range stays, whatever document is there; the caller's own indexes too.
  const untitled = [
    { role: 'user', content: [doc(null, 'a'), ask] },
    { role: 'assistant', content: [{ type: 'text', text: 'See.', citations: [charCite(0, null), { ...charCite(0, null), type: 'page_location', start_page_number: 1, end_page_number: 2 }] }] },
    { role: 'user', content: 'Go on.' },
  ];
  const u = fitMessages(untitled, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.ok(u.messages.every((m, k) => m === untitled[k]));
  // A content_block_location citation past the documents, and one whose index is not a number.
  const past = [
    { role: 'user', content: [doc(null, 'a'), ask] },
    { role: 'assistant', content: [{ type: 'text', text: 'See.', citations: [{ ...charCite(1, null), type: 'content_block_location', start_block_index: 0, end_block_index: 1 }, { ...charCite(0, null), document_index: '0' }] }] },
    { role: 'user', content: 'Go on.' },
  ];
  const p = fitMessages(past, { format: 'anthropic', budgets: { tokens_max: 100_000 } });
  assert.deepEqual(p.messages[1].content, [{ type: 'text', text: 'See.' }]);
});

test('langchain: with a file block, which @langchain/anthropic sends as a document, citations of documents stay as they are', async () => {
  const h = [
    new HumanMessage({ content: [{ type: 'file', mimeType: 'application/pdf', data: 'JVBERi0xLjQK' }, { type: 'text', text: 'Read it.' }] }),
    new AIMessage({ content: [{ type: 'text', text: 'It says so.', citations: [{ ...charCite(0, null), type: 'page_location', start_page_number: 1, end_page_number: 2 }] }] }),
    new HumanMessage('Thanks.'),
  ];
  // A PDF of unknown pages is counted as 100 of them: room for it.
  const r = fitMessages(h, { format: 'langchain', budgets: { tokens_max: 1_000_000 } });
  assert.ok(r.messages.every((m, k) => m === h[k]));
  assert.ok(!r.warnings.some((w) => w.includes('citations_')), r.warnings.join('\n'));
  // The real ChatAnthropic sends the file as the request's one document, which the citation names.
  const { bodies, fetch } = client();
  await new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-test', maxRetries: 0, clientOptions: { fetch } }).invoke(r.messages);
  const blocks = bodies[0].messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  assert.equal(blocks.filter((b) => b.type === 'document').length, 1);
  assert.deepEqual(blocks.filter((b) => b.type === 'text').flatMap((b) => b.citations ?? []).map((c) => c.document_index), [0]);
  // Left out, the file takes its document with it: the citation then names none.
  const cut = fitMessages(h, { format: 'langchain', budgets: { tokens_max: 2_000 } });
  assert.equal(cut.decisions[0].included, false);
  assert.deepEqual(cut.messages.at(-2).content, [{ type: 'text', text: 'It says so.' }]);
});
