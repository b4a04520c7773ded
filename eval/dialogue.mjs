// Generated long two-person dialogues in the shape of LoCoMo (about 600 turns over many sessions,
// everyday talk, questions about what was said): the closest this repository can get to the
// public benchmark without shipping it. Seeded and deterministic.
//
// Two friends talk over 20–26 sessions about work, family, hobbies, food, travel, pets and books,
// in everyday words that recur everywhere. Planted events become cases (the dialogue plus a
// question as the last user message):
//   single     an event told in one turn, asked about in other words
//   answer     a question by one friend and the answer by the other: only the answer is evidence,
//              and it shares almost nothing with the question (its neighbour does)
//   multi-hop  two events sessions apart, both needed
//   update     a plan changed later: only the later turn is evidence
// Each event's topic also comes up in filler (other pets, other trips, other classes), so topic
// words alone do not find it.
import { rng } from '../pkg/test/rng.mjs';

const NAMES = [
  ['Caroline', 'Melanie'],
  ['Jon', 'Gina'],
  ['Nate', 'Joanna'],
  ['Maria', 'John'],
  ['Audrey', 'Andrew'],
  ['Deborah', 'Jolene'],
  ['Evan', 'Sam'],
  ['Tim', 'John'],
];
const PLACES = ['Lisbon', 'Lake Tahoe', 'Vancouver', 'the coast', 'Chicago', 'the mountains', 'Portland', 'Kyoto'];
const HOBBIES = ['painting', 'pottery', 'running', 'guitar', 'baking', 'hiking', 'photography', 'swimming', 'knitting', 'chess'];
const FOODS = ['pasta', 'tacos', 'curry', 'soup', 'pancakes', 'sushi', 'salad', 'pizza'];
const PEOPLE = ['my sister', 'my mom', 'my neighbour', 'a friend from work', 'my cousin', 'my kids', 'my partner', 'my old roommate'];
const FEELINGS = ['really happy', 'a bit tired', 'so proud', 'pretty nervous', 'relaxed', 'excited', 'grateful', 'stressed'];
const TIMES = ['yesterday', 'last weekend', 'this morning', 'on Friday', 'last week', 'a few days ago'];

function filler(r, you) {
  const h = r.pick(HOBBIES);
  const t = r.pick([
    `I went ${r.pick(['out', 'for a walk', 'to the park', 'shopping'])} with ${r.pick(PEOPLE)} ${r.pick(TIMES)} and felt ${r.pick(FEELINGS)}.`,
    `Work has been ${r.pick(['busy', 'slow', 'crazy', 'fine'])} lately, ${r.pick(['but I am managing', 'and I need a break', 'so I am taking it easy'])}.`,
    `I tried a new ${r.pick(FOODS)} recipe ${r.pick(TIMES)}; ${r.pick(['it turned out great', 'it was a disaster', 'the kids loved it'])}.`,
    `I have been doing a lot of ${h} recently, it helps me ${r.pick(['relax', 'think', 'sleep better', 'feel like myself'])}.`,
    `${r.pick(PEOPLE)[0].toUpperCase()}${r.pick(PEOPLE).slice(1)} ${r.pick(['visited', 'called', 'wrote to me', 'surprised me'])} ${r.pick(TIMES)}, that was ${r.pick(['lovely', 'unexpected', 'so nice'])}.`,
    `We are thinking about a trip to ${r.pick(PLACES)} ${r.pick(['this summer', 'next month', 'some day'])}.`,
    `That sounds ${r.pick(['amazing', 'hard', 'fun', 'wonderful'])}, ${you}! How are you feeling about it?`,
    `I am reading a book about ${r.pick(['history', 'gardening', 'space', 'cooking', 'friendship'])} and I cannot put it down.`,
    `Thanks for asking, ${you}. I am ${r.pick(FEELINGS)} today.`,
    `Our ${r.pick(['dog', 'cat', 'neighbour\u2019s dog'])} ${r.pick(['chewed my shoes', 'learned a new trick', 'was sick for a day', 'loves the snow'])} ${r.pick(TIMES)}.`,
    `Did you keep going with ${h}? I remember you liked it.`,
    `I signed up for a ${h} class ${r.pick(['at the community centre', 'online', 'with a friend'])}.`,
  ]);
  return t;
}

/** One dialogue and its cases: `{ messages, cases: [{ kind, question, evidence }] }`. */
export function dialogue(seed, { sessions = [20, 26], turnsPerSession = [18, 30] } = {}) {
  const r = rng(seed * 104729 + 3);
  const [a, b] = r.pick(NAMES);
  const messages = [];
  const say = (speaker, text) => {
    messages.push({ role: speaker === a ? 'user' : 'assistant', content: `${speaker}: ${text}` });
    return messages.length - 1;
  };
  const nSessions = r.int(sessions[0], sessions[1]);
  const pet = r.pick(['Biscuit', 'Luna', 'Pepper', 'Oscar', 'Mochi', 'Ziggy']);
  const hobby = r.pick(['painting', 'pottery', 'photography', 'knitting']);
  const place = r.pick(PLACES);
  const gift = r.pick(['a handmade bowl', 'a scarf', 'a painting of the sea', 'a book of poems']);
  const [from, to] = [r.pick(['March', 'April', 'May']), r.pick(['August', 'September', 'October'])];
  const at = {
    single: [r.int(1, nSessions - 3), r.int(2, 10)],
    answer: [r.int(1, nSessions - 3), r.int(2, 10)],
    hop1: [r.int(0, 4), r.int(2, 10)],
    hop2: [r.int(nSessions - 6, nSessions - 2), r.int(2, 10)],
    plan: [r.int(1, 6), r.int(2, 10)],
    moved: [r.int(nSessions - 8, nSessions - 2), r.int(2, 10)],
  };
  const evidence = {};
  for (let s = 0; s < nSessions; s++) {
    const turns = r.int(turnsPerSession[0], turnsPerSession[1]);
    say(a, `Hey ${b}! ${r.pick(['Long time no see.', 'How was your week?', 'Good to talk again.'])}`);
    for (let t = 0; t < turns; t++) {
      const here = ([ss, tt]) => ss === s && tt === t;
      if (here(at.single)) evidence.single = [say(a, `Guess what: we adopted a puppy ${r.pick(TIMES)} and named her ${pet}!`)];
      if (here(at.answer)) {
        say(b, `How did your ${hobby} exhibition go in the end?`);
        evidence.answer = [say(a, `Better than I hoped: I sold three pieces and a gallery owner gave me her card.`)];
      }
      if (here(at.hop1)) evidence.hop1 = [say(b, `I finally made ${gift} for my mom, she cried when she opened it.`)];
      if (here(at.hop2)) evidence.hop2 = [say(b, `I made ${r.pick(['a small vase', 'a wooden box', 'a quilt'])} for my brother at the ${hobby} class; it took two weekends.`)];
      if (here(at.plan)) evidence.plan = [say(a, `We booked the trip to ${place} for ${from}, I cannot wait.`)];
      if (here(at.moved)) evidence.moved = [say(a, `Small change of plans: our trip to ${place} moved to ${to} because of my work schedule.`)];
      say(t % 2 === 0 ? a : b, filler(r, t % 2 === 0 ? b : a));
    }
  }
  const cases = [
    { kind: 'single', question: `What is the name of the puppy ${a} adopted?`, evidence: evidence.single },
    { kind: 'answer', question: `How many pieces did ${a} sell at the ${hobby} exhibition?`, evidence: evidence.answer },
    { kind: 'multi-hop', question: `What gifts has ${b} made, and for whom?`, evidence: [...evidence.hop1, ...evidence.hop2] },
    { kind: 'update', question: `In which month is ${a} going to ${place}?`, evidence: evidence.moved, stale: evidence.plan },
  ];
  return { messages, cases };
}
