/** `cohort watch <id>`: the live agent tree of a session until it ends, then its status line. */
import { WorkflowNotFoundError } from '@temporalio/client';
import { followSession, querySession, sessionResult } from '../client/session';
import { formatUsage } from '../shared/render';
import type { SessionResult } from '../shared/session-types';
import { connectOrExplain } from './batch';
import { CliError } from './errors';
import { LiveView, type Sink } from './live';
import { exitCodeFor } from './output';

export async function watchCommand(id: string, out: Sink = process.stderr): Promise<number> {
  const { client, connection } = await connectOrExplain();
  try {
    const handle = client.workflow.getHandle(id);
    const d = await handle.describe().catch((err) => {
      if (err instanceof WorkflowNotFoundError) throw new CliError(`no session with id ${id}`);
      throw err;
    });
    if (d.type !== 'sessionWorkflow') throw new CliError(`${id} is a ${d.type}, not a session (for a batch: cohort batch status ${id})`);
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
  } finally {
    await connection.close();
  }
}

export function statusLine(r: SessionResult): string {
  const agents = r.agents.length ? ` · ${r.agents.length} subagent${r.agents.length === 1 ? '' : 's'}` : '';
  return `${r.workflowId} ${r.status} · ${formatUsage(r.usage)}${agents}${r.error ? ` · ${r.error}` : ''}`;
}
