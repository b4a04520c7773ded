// A Cloudflare Worker that fits seeded agent histories in all four formats, LangChain's made in the
// isolate by the real @langchain/core (which needs the nodejs_compat flag on Workers).
import { CtxpackError, fitMessages, validateMessages } from 'ctxpack';
import { randomHistory, render } from '../test/messages-histories.mjs';

export default {
  async fetch(request) {
    const { cases } = await request.json();
    const out = cases.map(({ seed, format, tokens_max }) => {
      const { messages, system } = render(randomHistory(seed), format);
      try {
        const r = fitMessages(messages, { format, system, budgets: { tokens_max } });
        // The caller's own objects, but for tool results sent truncated (new objects).
        const sent = r.decisions.filter((d) => d.included);
        const own = r.messages.every((m, k) => messages.includes(m) === (sent[k].truncated === undefined));
        return { decisions: r.decisions, kept: r.messages.length, own, violations: validateMessages(r.messages, format).length };
      } catch (err) {
        if (!(err instanceof CtxpackError)) throw err;
        return { error: err.code };
      }
    });
    return Response.json(out);
  },
};
