/** `cohort start | status | result`: sessions through the Temporal client, no worker needed here. */
import { uiUrlFor } from '../client/connection';
import { querySession, sessionResult, startSession } from '../client/session';
import { formatUsage } from '../shared/render';
import { DEFAULT_TASK_QUEUE } from '../worker';
import { SESSION, existingWorkflow, withClient } from './connect';
import { exitCodeFor, printResult } from './output';
import { loadTeamOrExit } from './team-io';

export async function startCommand(teamFile: string, task: string, opts: { id?: string; taskQueue?: string; interactive?: boolean }): Promise<number> {
  const { team } = await loadTeamOrExit(teamFile);
  return withClient(async ({ settings, client }) => {
    const taskQueue = opts.taskQueue ?? process.env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    const handle = await startSession(client, team, task, { id: opts.id, taskQueue, interactive: opts.interactive });
    process.stdout.write(`${handle.workflowId}\n`);
    process.stderr.write(`UI: ${uiUrlFor(settings.address, settings.namespace, handle.workflowId)}\n`);
    return 0;
  });
}

export async function statusCommand(id: string, opts: { json?: boolean }): Promise<number> {
  return withClient(async ({ client }) => {
    const { handle, description } = await existingWorkflow(client, id, SESSION);
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
  });
}

export async function resultCommand(id: string, opts: { json?: boolean }): Promise<number> {
  return withClient(async ({ client }) => {
    const { handle } = await existingWorkflow(client, id, SESSION);
    const result = await sessionResult(handle);
    printResult(result, Boolean(opts.json));
    return exitCodeFor(result);
  });
}
