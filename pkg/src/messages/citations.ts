/**
 * Anthropic's citations of search results and documents, kept true to the request as sent. A
 * text block's `search_result_location` citation names the `search_result` block it cites by
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
 * Citations of documents (`char_location`, `page_location`, `content_block_location`) name a
 * `document` block by `document_index` among the request's documents (counted as search results
 * are) and by `document_title` alone (`null` for an untitled document), so they are checked only
 * as far as the title tells: a titled citation whose index holds a document of another title is
 * given the index of the one document with its title, or removed when the request has none (or
 * several: which one is unknown); an untitled one stays where its index is in range, and is
 * removed past the request's documents. An untitled citation whose document was left out, with
 * another document now at its index, cannot be told from a true one and stays. LangChain's `file`
 * and data blocks become documents only as `@langchain/anthropic` converts them: with one in the
 * request, citations of documents stay as they are.
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

/** What the request cites: its `search_result` blocks, and the titles of its `document` blocks (`null` for none), each in request order. */
interface Cited {
  readonly results: SearchResult[];
  readonly documents: unknown[];
  /**
   * Whether a block may become a document as sent without being one here: LangChain's `file`
   * blocks and data blocks (`source_type`), which `@langchain/anthropic` converts. The documents
   * are then not known, and citations of documents stay as they are.
   */
  unknown: boolean;
}

/** The `search_result` and `document` blocks of `blocks` and of the blocks in their `content` (a `tool_result`'s), in order. */
function citedBlocks(blocks: unknown, out: Cited, depth = 0): void {
  if (!Array.isArray(blocks) || depth > 1) return;
  for (const b of blocks) {
    if (!isRecord(b)) continue;
    if (b['type'] === 'search_result') out.results.push({ source: b['source'], title: b['title'] });
    else if (b['type'] === 'document') out.documents.push(b['title'] ?? null);
    else if (b['type'] === 'file' || 'source_type' in b) out.unknown = true;
    else citedBlocks(b['content'], out, depth + 1);
  }
}

/** The citation types that name a `document` block by `document_index`. */
const DOCUMENT_CITATIONS = new Set(['char_location', 'page_location', 'content_block_location']);

/** Counts of what changed, by kind of citation. */
interface Counts {
  removed: number;
  moved: number;
  documentsRemoved: number;
  documentsMoved: number;
}

const noCounts = (): Counts => ({ removed: 0, moved: 0, documentsRemoved: 0, documentsMoved: 0 });

/** Where a document citation goes: its index kept (`'keep'`), another index, or removed (`undefined`). */
function documentIndex(citation: Readonly<Record<string, unknown>>, documents: readonly unknown[]): number | 'keep' | undefined {
  const at = citation['document_index'];
  const inRange = typeof at === 'number' && Number.isInteger(at) && at >= 0 && at < documents.length;
  const title = citation['document_title'];
  if (typeof title !== 'string') return inRange ? 'keep' : undefined;
  if (inRange && documents[at] === title) return 'keep';
  const first = documents.indexOf(title);
  return first >= 0 && documents.indexOf(title, first + 1) < 0 ? first : undefined;
}

/** Whether `citation` names `result` (its source, and its title unless the citation has none). */
function names(citation: Readonly<Record<string, unknown>>, result: SearchResult | undefined): boolean {
  if (result === undefined || result.source !== citation['source']) return false;
  const title = citation['title'];
  return title === undefined || title === null || title === result.title;
}

/** What a text block's citations become: `undefined` when none changes. */
function citationsOf(citations: readonly unknown[], cited: Cited, counts: Counts): unknown[] | undefined {
  const { results, documents } = cited;
  let out: unknown[] | undefined;
  for (let k = 0; k < citations.length; k++) {
    const c = citations[k];
    if (isRecord(c) && typeof c['type'] === 'string' && DOCUMENT_CITATIONS.has(c['type'])) {
      const to = cited.unknown ? 'keep' : documentIndex(c, documents);
      if (to === 'keep') {
        out?.push(c);
        continue;
      }
      out ??= citations.slice(0, k);
      if (to === undefined) counts.documentsRemoved++;
      else {
        counts.documentsMoved++;
        out.push({ ...c, document_index: to });
      }
      continue;
    }
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

/** A copy of `content` whose text blocks' citations hold for `cited`; `content` itself when none changes. */
function citedContent(content: unknown, cited: Cited, counts: Counts): unknown {
  if (!Array.isArray(content)) return content;
  let out: unknown[] | undefined;
  for (let k = 0; k < content.length; k++) {
    const b: unknown = content[k];
    if (!isRecord(b) || b['type'] !== 'text' || !Array.isArray(b['citations'])) continue;
    const citations = citationsOf(b['citations'], cited, counts);
    if (citations === undefined) continue;
    const { citations: _, ...rest } = b;
    (out ??= content.slice())[k] = citations.length > 0 ? { ...rest, citations } : rest;
  }
  return out ?? content;
}

/**
 * Keeps the citations of `messages` (a request's kept messages, Anthropic's or LangChain's)
 * true to the `search_result` and `document` blocks the request holds: updated in place with
 * copies (`rebuild`: how a message of the format is copied with other content, turns.ts
 * `copyWithContent`), the caller's messages never modified. Returns the warnings, naming the messages by their
 * index in the history (`indexOf`).
 */
export function fitCitations<M>(messages: M[], indexOf: (k: number) => number, rebuild: (message: M, content: unknown) => M | undefined): string[] {
  const cited: Cited = { results: [], documents: [], unknown: false };
  for (const m of messages) if (isRecord(m)) citedBlocks(m['content'], cited);
  const at: { [K in keyof Counts]: number[] } = { removed: [], moved: [], documentsRemoved: [], documentsMoved: [] };
  const total = noCounts();
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k];
    if (!isRecord(m)) continue;
    const counts = noCounts();
    const content = citedContent(m['content'], cited, counts);
    if (content === m['content']) continue;
    const copy = rebuild(m, content);
    if (copy === undefined) continue; // a class that refuses a copy: its citations stay as they were
    messages[k] = copy;
    for (const key of Object.keys(counts) as (keyof Counts)[]) {
      if (counts[key] > 0) at[key].push(indexOf(k));
      total[key] += counts[key];
    }
  }
  const warnings: string[] = [];
  if (total.removed > 0) {
    warnings.push(`citations_removed: ${total.removed} search_result_location citation(s) on messages[${at.removed.join(', ')}] cite a search result the request leaves out: removed from copies of their text blocks, the text kept`);
  }
  if (total.moved > 0) {
    warnings.push(`citations_reindexed: ${total.moved} search_result_location citation(s) on messages[${at.moved.join(', ')}] cite a search result that moved in the request: given its index there (on copies)`);
  }
  if (total.documentsRemoved > 0) {
    warnings.push(`document_citations_removed: ${total.documentsRemoved} citation(s) of documents on messages[${at.documentsRemoved.join(', ')}] name a document the request does not hold (by its title, or past the request's ${cited.documents.length} document(s)): removed from copies of their text blocks, the text kept`);
  }
  if (total.documentsMoved > 0) {
    warnings.push(`document_citations_reindexed: ${total.documentsMoved} citation(s) of documents on messages[${at.documentsMoved.join(', ')}] name a document that moved in the request (by its title): given its index there (on copies)`);
  }
  return warnings;
}
