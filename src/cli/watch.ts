/** `cohort watch <id>`: the live agent tree of a session until it ends, then its status line. */
import { followSession, querySession, sessionResult } from '../client/session';
import { formatUsage } from '../shared/render';
import type { SessionResult } from '../shared/session-types';
import { SESSION, existingWorkflow, withClient } from './connect';
import { LiveView, type Sink } from './live';
import { exitCodeFor } from './output';

export async function watchCommand(id: string, out: Sink = process.stderr): Promise<number> {
  return withClient(async ({ client, connection }) => {
    const { handle } = await existingWorkflow(client, id, SESSION);
    const view = new LiveView(out);
    const done = sessionResult(handle);
    await followSession(handle, done, (s) => view.update(s));
    // A session that had already ended was never polled: show its last state once (a closed
    // workflow's query waits for a worker, hence the deadline).
    const last = await connection.withDeadline(Date.now() + 3_000, () => querySession(handle)).catch(() => undefined);
    if (last) view.update(last);
    view.finish();
    const result = await done;
    process.stdout.write(`${statusLine(result)}\n`);
    return exitCodeFor(result);
  });
}

export function statusLine(r: SessionResult): string {
  const agents = r.agents.length ? ` · ${r.agents.length} subagent${r.agents.length === 1 ? '' : 's'}` : '';
  return `${r.workflowId} ${r.status} · ${formatUsage(r.usage)}${agents}${r.error ? ` · ${r.error}` : ''}`;
}
