/** `cohort send | cancel`: talk to a running session through the Temporal client. */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { cancelSession, sendFollowUp } from '../client/session';
import { formatUsage } from '../shared/render';
import { SESSION, existingWorkflow, withClient } from './connect';
import { CliError } from './errors';

async function withSession<T>(id: string, fn: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
  return withClient(async ({ client }) => fn((await existingWorkflow(client, id, SESSION)).handle));
}

/** The validator's own words when the session refused the message. */
export function updateRefusal(err: unknown): string | undefined {
  if (err instanceof WorkflowUpdateFailedError) return err.cause?.message ?? err.message;
  return undefined;
}

/** `cohort send <id> "<message>"`: a follow-up for an interactive session; prints the lead's answer. */
export async function sendCommand(id: string, message: string): Promise<number> {
  return withSession(id, async (handle) => {
    try {
      const exchange = await sendFollowUp(handle, message);
      process.stdout.write(`${exchange.answer ?? ''}\n`);
      return exchange.status === 'completed' || exchange.status === 'max_turns' ? 0 : 1;
    } catch (err) {
      const refusal = updateRefusal(err);
      if (refusal) throw new CliError(refusal);
      throw err;
    }
  });
}

/** `cohort cancel <id>`: cancels the session and its running subagents; prints what was spent. */
export async function cancelCommand(id: string): Promise<number> {
  return withSession(id, async (handle) => {
    const result = await cancelSession(handle);
    process.stderr.write(`${result.status} · ${formatUsage(result.usage)} · ${result.agents.length} subagents · ${id}\n`);
    return result.status === 'cancelled' ? 0 : 1;
  });
}
