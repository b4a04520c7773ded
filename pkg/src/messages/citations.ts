/**
 * Anthropic's citations of search results, kept true to the request as sent. A text block's
 * `search_result_location` citation names the `search_result` block it cites by
 * `search_result_index`, "0-based index of the cited search result among all `search_result`
 * content blocks in the request, in the order they appear across messages and tool results"
 * (@anthropic-ai/sdk's `CitationSearchResultLocationParam`), and by its `source` and `title`.
 * When a fit leaves out a message that holds search results, a later citation either cites a
 * block the request no longer has or, its index shifted, another one. Whether Anthropic refuses
 * that is not documented: a citation whose search result is left out is removed from a copy of its
 * text block (the text stays), and one whose search result moved is given its new index.
 * `web_search_result_location` citations name a URL and an encrypted index of the server's own
 * `web_search_tool_result` block, which stands in the same assistant message as the text citing
 * it, and so is kept or left out with it: they stay as they are.
 *
 * Anthropic's blocks, and LangChain's (`@langchain/anthropic` passes a text block's `citations`
 * and `search_result` blocks on as they are, a tool message's blocks inside its `tool_result`).
 *
 * @internal
 * @module
 */

import { isRecord } from '../validate/fields.js';

/** A `search_result` block of the request, by what a citation names it. */
interface SearchResult {
  readonly source: unknown;
  readonly title: unknown;
}

/** The `search_result` blocks of `blocks` and of the blocks in their `content` (a `tool_result`'s), in order. */
function searchResults(blocks: unknown, out: SearchResult[], depth = 0): void {
  if (!Array.isArray(blocks) || depth > 1) return;
  for (const b of blocks) {
    if (!isRecord(b)) continue;
    if (b['type'] === 'search_result') out.push({ source: b['source'], title: b['title'] });
    else searchResults(b['content'], out, depth + 1);
  }
}

/** Whether `citation` names `result` (its source, and its title unless the citation has none). */
function names(citation: Readonly<Record<string, unknown>>, result: SearchResult | undefined): boolean {
  if (result === undefined || result.source !== citation['source']) return false;
  const title = citation['title'];
  return title === undefined || title === null || title === result.title;
}

/** What a text block's citations become: `undefined` when none changes. */
function citationsOf(citations: readonly unknown[], results: readonly SearchResult[], counts: { removed: number; moved: number }): unknown[] | undefined {
  let out: unknown[] | undefined;
  for (let k = 0; k < citations.length; k++) {
    const c = citations[k];
    if (!isRecord(c) || c['type'] !== 'search_result_location') {
      out?.push(c);
      continue;
    }
    const at = c['search_result_index'];
    if (typeof at === 'number' && names(c, results[at])) {
      out?.push(c);
      continue;
    }
    out ??= citations.slice(0, k);
    const found = results.findIndex((r) => names(c, r));
    if (found < 0) counts.removed++;
    else {
      counts.moved++;
      out.push({ ...c, search_result_index: found });
    }
  }
  return out;
}

/** A copy of `content` whose text blocks' search citations hold for `results`; `content` itself when none changes. */
function citedContent(content: unknown, results: readonly SearchResult[], counts: { removed: number; moved: number }): unknown {
  if (!Array.isArray(content)) return content;
  let out: unknown[] | undefined;
  for (let k = 0; k < content.length; k++) {
    const b: unknown = content[k];
    if (!isRecord(b) || b['type'] !== 'text' || !Array.isArray(b['citations'])) continue;
    const citations = citationsOf(b['citations'], results, counts);
    if (citations === undefined) continue;
    const { citations: _, ...rest } = b;
    (out ??= content.slice())[k] = citations.length > 0 ? { ...rest, citations } : rest;
  }
  return out ?? content;
}

/**
 * Keeps the search citations of `messages` (a request's kept messages, Anthropic's or LangChain's)
 * true to the `search_result` blocks the request holds: updated in place with copies (`rebuild`:
 * how a message of the format is copied with other content, turns.ts `copyWithContent`), the
 * caller's messages never modified. Returns the warnings, naming the messages by their
 * index in the history (`indexOf`).
 */
export function fitCitations<M>(messages: M[], indexOf: (k: number) => number, rebuild: (message: M, content: unknown) => M | undefined): string[] {
  const results: SearchResult[] = [];
  for (const m of messages) if (isRecord(m)) searchResults(m['content'], results);
  const removed: number[] = [];
  const moved: number[] = [];
  let counts = { removed: 0, moved: 0 };
  let total = { removed: 0, moved: 0 };
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k];
    if (!isRecord(m)) continue;
    counts = { removed: 0, moved: 0 };
    const content = citedContent(m['content'], results, counts);
    if (content === m['content']) continue;
    const copy = rebuild(m, content);
    if (copy === undefined) continue; // a class that refuses a copy: its citations stay as they were
    messages[k] = copy;
    if (counts.removed > 0) removed.push(indexOf(k));
    if (counts.moved > 0) moved.push(indexOf(k));
    total = { removed: total.removed + counts.removed, moved: total.moved + counts.moved };
  }
  const warnings: string[] = [];
  if (total.removed > 0) {
    warnings.push(`citations_removed: ${total.removed} search_result_location citation(s) on messages[${removed.join(', ')}] cite a search result the request leaves out: removed from copies of their text blocks, the text kept`);
  }
  if (total.moved > 0) {
    warnings.push(`citations_reindexed: ${total.moved} search_result_location citation(s) on messages[${moved.join(', ')}] cite a search result that moved in the request: given its index there (on copies)`);
  }
  return warnings;
}
