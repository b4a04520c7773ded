// Plans every case it is sent, in workerd, and answers with the plans.
import { selectFragments } from 'ctxpack';

export default {
  async fetch(request) {
    const { cases } = await request.json();
    return Response.json(cases.map((c) => selectFragments(c.fragments, c.gaze, c.budgets, c.options)));
  },
};
