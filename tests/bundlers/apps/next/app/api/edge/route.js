import * as ctxpack from 'ctxpack';
import { outcomeWith } from '../../../../shared/plan.js';

export const runtime = 'edge';
export const dynamic = 'force-dynamic';

export async function GET() {
  return Response.json(await outcomeWith(ctxpack));
}
