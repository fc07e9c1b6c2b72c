/**
 * The batch workflow's one activity: the outcome of a job session that already existed when the
 * batch tried to start it (a resubmitted batch). Workflows cannot read another workflow's
 * result, so this asks the server through the worker's own client.
 */
import { Context } from '@temporalio/activity';
import { sessionResult } from '../client/session';
import { jobStatusOf, shortError, type SessionOutcome } from '../shared/batch-types';

const HEARTBEAT_MS = 5_000;

export async function readSessionOutcome(workflowId: string): Promise<SessionOutcome> {
  const ctx = Context.current();
  // An earlier session may still be running (its batch was cancelled a moment ago): wait for it.
  const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
  try {
    const r = await sessionResult(ctx.client.workflow.getHandle(workflowId));
    return {
      status: jobStatusOf(r.status),
      input_tokens: r.usage.input_tokens,
      output_tokens: r.usage.output_tokens,
      cost_usd: r.usage.cost_usd,
      ...(r.error ? { error: shortError(r.error) } : {}),
    };
  } finally {
    clearInterval(beat);
  }
}
