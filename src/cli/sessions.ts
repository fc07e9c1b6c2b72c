/** `cohort start | status | result`: sessions through the Temporal client, no worker needed here. */
import { WorkflowNotFoundError } from '@temporalio/client';
import { connectClient, connectionSettings, uiUrlFor } from '../client/connection';
import { querySession, sessionResult, startSession } from '../client/session';
import { formatUsage } from '../shared/render';
import { DEFAULT_TASK_QUEUE } from '../worker';
import { CliError } from './errors';
import { exitCodeFor, printResult } from './output';
import { loadTeamOrExit } from './team-io';

async function connect() {
  const settings = connectionSettings();
  try {
    return { settings, ...(await connectClient(settings)) };
  } catch (err) {
    throw new CliError(`cannot reach Temporal at ${settings.address}: ${(err as Error).message} (start one with \`cohort server\` or set TEMPORAL_ADDRESS)`);
  }
}

export async function startCommand(teamFile: string, task: string, opts: { id?: string; taskQueue?: string; interactive?: boolean }): Promise<number> {
  const { team } = await loadTeamOrExit(teamFile);
  const { settings, client, connection } = await connect();
  try {
    const taskQueue = opts.taskQueue ?? process.env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    const handle = await startSession(client, team, task, { id: opts.id, taskQueue, interactive: opts.interactive });
    process.stdout.write(`${handle.workflowId}\n`);
    process.stderr.write(`UI: ${uiUrlFor(settings.address, settings.namespace, handle.workflowId)}\n`);
    return 0;
  } finally {
    await connection.close();
  }
}

export async function statusCommand(id: string, opts: { json?: boolean }): Promise<number> {
  const { client, connection } = await connect();
  try {
    const handle = client.workflow.getHandle(id);
    const description = await handle.describe().catch((err) => {
      if (err instanceof WorkflowNotFoundError) throw new CliError(`no session with id ${id}`);
      throw err;
    });
    const state = await querySession(handle).catch(() => undefined);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ workflowId: id, temporalStatus: description.status.name, state }, null, 2)}\n`);
      return 0;
    }
    const lines = [`${id} · ${description.status.name}${state ? ` · ${state.status} · ${formatUsage(state.usage)}` : ''}`];
    if (state) {
      lines.push(`  lead: ${state.lead.turns} turns, ${formatUsage(state.lead.usage)}${state.lead.last ? ` · ${state.lead.last}` : ''}`);
      for (const a of state.agents) {
        lines.push(`  ${a.id.split('/').pop()}: ${a.status}, ${a.turns} turns, ${formatUsage(a.usage)}${a.error ? ` · ${a.error}` : ''}`);
      }
    } else {
      lines.push('  (no worker answered the state query: start one with `cohort worker`)');
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await connection.close();
  }
}

export async function resultCommand(id: string, opts: { json?: boolean }): Promise<number> {
  const { client, connection } = await connect();
  try {
    const handle = client.workflow.getHandle(id);
    await handle.describe().catch((err) => {
      if (err instanceof WorkflowNotFoundError) throw new CliError(`no session with id ${id}`);
      throw err;
    });
    const result = await sessionResult(handle);
    printResult(result, Boolean(opts.json));
    return exitCodeFor(result);
  } finally {
    await connection.close();
  }
}
