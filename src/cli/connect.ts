/** How commands reach Temporal: one message for an unreachable server, one for an unknown id. */
import { type Client, type Connection, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { connectClient, connectionSettings, type ConnectionSettings } from '../client/connection';
import { CliError } from './errors';

export interface Connected {
  settings: ConnectionSettings;
  client: Client;
  connection: Connection;
}

/** A client for commands that need no worker; an unreachable server is a message, not a stack. */
export async function connectOrExplain(): Promise<Connected> {
  const settings = connectionSettings();
  try {
    return { settings, ...(await connectClient(settings)) };
  } catch (err) {
    throw new CliError(`cannot reach Temporal at ${settings.address}: ${(err as Error).message} (start one with \`cohort server\` or set TEMPORAL_ADDRESS)`);
  }
}

/** Runs `fn` with a connected client and closes the connection afterwards. */
export async function withClient<T>(fn: (c: Connected) => Promise<T>): Promise<T> {
  const c = await connectOrExplain();
  try {
    return await fn(c);
  } finally {
    await c.connection.close();
  }
}

/**
 * The handle of an existing workflow of the given type, with its description; an unknown id or
 * a workflow of another kind is a message naming it.
 */
export async function existingWorkflow(
  client: Client,
  id: string,
  kind: { type: 'sessionWorkflow' | 'batchWorkflow'; noun: string; otherwise?: string },
) {
  const handle: WorkflowHandle = client.workflow.getHandle(id);
  const description = await handle.describe().catch((err) => {
    if (err instanceof WorkflowNotFoundError) throw new CliError(`no ${kind.noun} with id ${id}`);
    throw err;
  });
  if (description.type !== kind.type) {
    throw new CliError(`${id} is a ${description.type}, not a ${kind.noun}${kind.otherwise ? ` (${kind.otherwise})` : ''}`);
  }
  return { handle, description };
}

export const SESSION = { type: 'sessionWorkflow', noun: 'session', otherwise: 'for a batch: cohort batch status <id>' } as const;
export const BATCH = { type: 'batchWorkflow', noun: 'batch' } as const;
