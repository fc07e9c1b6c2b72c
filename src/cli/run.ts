import { prepareEnvironment } from '../client/environment';
import { uiUrlFor } from '../client/connection';
import { followSession, sessionResult, startSession } from '../client/session';
import { DEFAULT_TASK_QUEUE } from '../worker';
import { loadTeamOrExit } from './team-io';
import { LiveView } from './live';
import { exitCodeFor, printResult } from './output';

export interface RunOptions {
  json?: boolean;
  id?: string;
  taskQueue?: string;
}

/** `cohort run <team.yaml> "<task>"`: start a session, follow it live, print the answer. */
export async function runCommand(teamFile: string, task: string, opts: RunOptions): Promise<number> {
  const { team } = await loadTeamOrExit(teamFile);
  const taskQueue = opts.taskQueue ?? process.env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const env = await prepareEnvironment({ taskQueue, log });
  try {
    const handle = await startSession(env.client, team, task, { id: opts.id, taskQueue });
    log(`Session ${handle.workflowId} started · ${uiUrlFor(env.settings.address, env.settings.namespace, handle.workflowId)}`);
    const done = sessionResult(handle);
    const view = new LiveView(process.stderr);
    await Promise.all([env.runWorkersUntil(done), followSession(handle, done, (s) => view.update(s))]);
    view.finish();
    const result = await done;
    printResult(result, Boolean(opts.json));
    return exitCodeFor(result);
  } finally {
    await env.close();
  }
}
