/** `cohort send | cancel`: talk to a running session through the Temporal client. */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { connectClient, connectionSettings } from '../client/connection';
import { cancelSession, sendFollowUp } from '../client/session';
import { formatUsage } from '../shared/render';
import { CliError } from './errors';

async function withSession<T>(id: string, fn: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
  const settings = connectionSettings();
  let conn: Awaited<ReturnType<typeof connectClient>>;
  try {
    conn = await connectClient(settings);
  } catch (err) {
    throw new CliError(`cannot reach Temporal at ${settings.address}: ${(err as Error).message} (start one with \`cohort server\` or set TEMPORAL_ADDRESS)`);
  }
  try {
    const handle = conn.client.workflow.getHandle(id);
    await handle.describe().catch((err) => {
      if (err instanceof WorkflowNotFoundError) throw new CliError(`no session with id ${id}`);
      throw err;
    });
    return await fn(handle);
  } finally {
    await conn.connection.close();
  }
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
