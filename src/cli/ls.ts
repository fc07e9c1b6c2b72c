/** `cohort ls`: sessions through a visibility query, newest first. */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { COHORT_TEAM } from '../shared/batch-types';
import { connectOrExplain } from './connect';
import { CliError } from './errors';

export interface LsOptions {
  status?: string;
  team?: string;
  limit?: string;
  json?: boolean;
}

/** `--status` words → Temporal's ExecutionStatus values. */
const STATUSES: Record<string, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  canceled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
  continued_as_new: 'ContinuedAsNew',
};

export interface SessionRow {
  id: string;
  status: string;
  team: string;
  started: string;
  summary: string;
}

/** The visibility query `cohort ls` sends; values are quoted so ids and names cannot break out. */
export function sessionListQuery(opts: { status?: string; team?: string }): string {
  const parts = [`WorkflowType = 'sessionWorkflow'`];
  if (opts.status) {
    const value = STATUSES[opts.status.toLowerCase()];
    if (!value) throw new CliError(`--status must be one of ${Object.keys(STATUSES).filter((s) => s !== 'canceled').join(', ')} (got "${opts.status}")`, 2);
    parts.push(`ExecutionStatus = '${value}'`);
  }
  if (opts.team) parts.push(`CohortTeam = ${quote(opts.team)}`);
  return parts.join(' AND ');
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export async function listSessions(client: Client, query: string, limit: number): Promise<SessionRow[]> {
  const infos: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 100) })) {
    infos.push(info);
    if (infos.length >= limit) break;
  }
  // The list does not carry the static summary; describe each row (limit keeps this small).
  return Promise.all(
    infos.map(async (info): Promise<SessionRow> => {
      const summary = await client.workflow
        .getHandle(info.workflowId, info.runId)
        .describe()
        .then((d) => d.staticSummary())
        .catch(() => undefined);
      return {
        id: info.workflowId,
        status: info.status.name.toLowerCase(),
        team: info.typedSearchAttributes.get(COHORT_TEAM) ?? '',
        started: info.startTime.toISOString().replace('T', ' ').slice(0, 19),
        summary: summary ?? '',
      };
    }),
  );
}

export async function lsCommand(opts: LsOptions): Promise<number> {
  const limit = opts.limit === undefined ? 20 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError(`--limit must be a whole number of at least 1 (got "${opts.limit}")`, 2);
  const query = sessionListQuery(opts);
  const { client, connection } = await connectOrExplain();
  try {
    const rows = await listSessions(client, query, limit).catch((err) => {
      if (opts.team && /CohortTeam/.test(String((err as Error).message))) {
        throw new CliError(`this namespace has no CohortTeam search attribute, so --team cannot filter: run \`cohort setup\` (${(err as Error).message})`);
      }
      throw err;
    });
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      process.stderr.write(`no sessions match (${query})\n`);
      return 0;
    }
    process.stdout.write(table(rows));
    return 0;
  } finally {
    await connection.close();
  }
}

export function table(rows: SessionRow[]): string {
  const width = Math.max(40, (process.stdout.columns || 160) - 1);
  const cols: Array<keyof SessionRow> = ['id', 'status', 'team', 'started'];
  const header: SessionRow = { id: 'ID', status: 'STATUS', team: 'TEAM', started: 'STARTED (UTC)', summary: 'SUMMARY' };
  const all = [header, ...rows];
  const w = Object.fromEntries(cols.map((c) => [c, Math.max(...all.map((r) => r[c].length))])) as Record<keyof SessionRow, number>;
  const line = (r: SessionRow) => `${cols.map((c) => r[c].padEnd(w[c])).join('  ')}  ${r.summary.replace(/\s+/g, ' ')}`.slice(0, width).trimEnd();
  return `${all.map(line).join('\n')}\n`;
}
