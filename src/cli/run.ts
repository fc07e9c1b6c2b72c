import { createInterface } from 'node:readline';
import { prepareEnvironment } from '../client/environment';
import { uiUrlFor } from '../client/connection';
import { closeSession, followSession, sendFollowUp, sessionResult, startSession, waitForExchange, type SessionHandle } from '../client/session';
import { DEFAULT_TASK_QUEUE } from '../worker';
import { loadTeamOrExit } from './team-io';
import { LiveView } from './live';
import { exitCodeFor, printResult } from './output';
import { updateRefusal } from './follow-ups';

export interface RunOptions {
  json?: boolean;
  id?: string;
  taskQueue?: string;
  /** Keep the session open: read follow-up questions from stdin, one per line, until EOF. */
  interactive?: boolean;
}

/** `cohort run <team.yaml> "<task>"`: start a session, follow it live, print the answer. */
export async function runCommand(teamFile: string, task: string, opts: RunOptions): Promise<number> {
  const { team } = await loadTeamOrExit(teamFile);
  const taskQueue = opts.taskQueue ?? process.env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const env = await prepareEnvironment({ taskQueue, log });
  try {
    const handle = await startSession(env.client, team, task, { id: opts.id, taskQueue, interactive: opts.interactive });
    log(`Session ${handle.workflowId} started · ${uiUrlFor(env.settings.address, env.settings.namespace, handle.workflowId)}`);
    const done = sessionResult(handle);
    const view = new LiveView(process.stderr);
    const workers = env.runWorkersUntil(done);
    await env.ensureWorker(handle);
    if (opts.interactive) {
      await converse(handle, view, done);
    } else {
      await followSession(handle, done, (s) => view.update(s));
    }
    await workers;
    const result = await done;
    view.finalize(result);
    // In an interactive session every answer was printed as it came.
    printResult(opts.interactive ? { ...result, answer: '' } : result, Boolean(opts.json));
    return exitCodeFor(result);
  } finally {
    await env.close();
  }
}

/** Prints the first answer, then one answer per stdin line; EOF closes the session. */
async function converse(handle: SessionHandle, view: LiveView, done: Promise<unknown>): Promise<void> {
  const first = waitForExchange(handle, 0);
  await followSession(handle, first, (s) => view.update(s));
  view.finish();
  process.stdout.write(`${(await first).answer}\n`);
  const lines = createInterface({ input: process.stdin, terminal: false });
  // The session may end without us (idle timeout, `cohort cancel`): stop reading then.
  let ended = false;
  void done.finally(() => {
    ended = true;
    lines.close();
  }).catch(() => undefined);
  process.stderr.write('> ');
  for await (const line of lines) {
    const message = line.trim();
    if (message) {
      try {
        const exchange = await sendFollowUp(handle, message);
        process.stdout.write(`${exchange.answer}\n`);
      } catch (err) {
        process.stderr.write(`cohort: ${updateRefusal(err) ?? (err as Error).message}\n`);
        if (!updateRefusal(err)) break;
      }
    }
    process.stderr.write('> ');
  }
  process.stderr.write('\n');
  if (!ended) await closeSession(handle).catch(() => undefined);
}
