/**
 * `cohort doctor`: checks, in order, everything a session needs, and says what to fix. One line
 * per check; exits 1 if any check fails. Later checks that need an earlier one are skipped.
 */
import { Connection, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { connectClient, connectionSettings, type ConnectionSettings } from '../client/connection';
import { SEARCH_ATTRIBUTES } from '../client/devserver';
import { DEFAULT_TASK_QUEUE, llmTaskQueueFor } from '../worker';

type Outcome = { ok: true; detail: string } | { ok: false; detail: string; fix: string } | { skipped: string };

interface Check {
  name: string;
  outcome: Outcome;
}

const TIMEOUT_MS = 5_000;
/** A poller counts as alive if it polled this recently (a long poll lasts up to ~70 s). */
const POLLER_FRESH_MS = 90_000;
const { TaskQueueType } = temporal.api.enums.v1;

export interface DoctorOptions {
  taskQueue?: string;
}

export async function doctorCommand(opts: DoctorOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const checks = await runChecks(opts, env);
  const width = Math.max(...checks.map((c) => c.name.length));
  for (const c of checks) process.stdout.write(`${formatCheck(c, width)}\n`);
  const failed = checks.filter((c) => !('skipped' in c.outcome) && !c.outcome.ok).length;
  const skipped = checks.filter((c) => 'skipped' in c.outcome).length;
  process.stdout.write(
    failed + skipped === 0
      ? 'All checks passed: sessions can run.\n'
      : `${failed} problem${failed === 1 ? '' : 's'}${skipped ? `, ${skipped} check${skipped === 1 ? '' : 's'} skipped` : ''}: fix the first one and run \`cohort doctor\` again.\n`,
  );
  return failed + skipped === 0 ? 0 : 1;
}

function formatCheck(c: Check, width: number): string {
  const name = c.name.padEnd(width);
  if ('skipped' in c.outcome) return `skip     ${name}  ${c.outcome.skipped}`;
  if (c.outcome.ok) return `ok       ${name}  ${c.outcome.detail}`;
  return `problem  ${name}  ${c.outcome.detail}\n         ${' '.repeat(width)}  fix: ${c.outcome.fix}`;
}

export async function runChecks(opts: DoctorOptions, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  const taskQueue = opts.taskQueue ?? env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const queues: Array<{ name: string; queue: string; type: number; what: string }> = [
    { name: `workflow worker "${taskQueue}"`, queue: taskQueue, type: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, what: 'sessions' },
    { name: `tool worker "${taskQueue}"`, queue: taskQueue, type: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, what: 'tool calls' },
    {
      name: `model worker "${llmTaskQueueFor(taskQueue)}"`,
      queue: llmTaskQueueFor(taskQueue),
      type: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      what: 'model calls',
    },
  ];

  let settings: ConnectionSettings | undefined;
  let client: Client | undefined;
  let connection: Connection | undefined;
  try {
    settings = connectionSettings(env);
  } catch (err) {
    checks.push({ name: 'Temporal server', outcome: { ok: false, detail: (err as Error).message, fix: 'correct the TEMPORAL_* variables' } });
  }
  try {
    if (settings) {
      const server = await checkServer(settings);
      checks.push({ name: 'Temporal server', outcome: server.outcome });
      if (server.connected) ({ client, connection } = server.connected);
    }
    const needServer = (name: string) => checks.push({ name, outcome: { skipped: 'needs the Temporal server' } });
    if (client && settings) {
      const namespace = await checkNamespace(client, settings.namespace);
      checks.push({ name: 'namespace', outcome: namespace });
      if ('ok' in namespace && namespace.ok) {
        checks.push({ name: 'search attributes', outcome: await checkSearchAttributes(client, settings.namespace) });
        for (const q of queues) checks.push({ name: q.name, outcome: await checkPollers(client, settings.namespace, q, taskQueue) });
      } else {
        for (const name of ['search attributes', ...queues.map((q) => q.name)]) {
          checks.push({ name, outcome: { skipped: 'needs the namespace' } });
        }
      }
    } else {
      for (const name of ['namespace', 'search attributes', ...queues.map((q) => q.name)]) needServer(name);
    }
  } finally {
    await connection?.close().catch(() => undefined);
  }
  checks.push({ name: 'model API', outcome: await checkModel(env) });
  return checks;
}

async function checkServer(
  settings: ConnectionSettings,
): Promise<{ outcome: Outcome; connected?: { client: Client; connection: Connection } }> {
  const fix = 'start one with `cohort dev` (or `cohort server`), or point TEMPORAL_ADDRESS at yours';
  try {
    const connected = await withTimeout(connectClient(settings, { connectTimeoutMs: TIMEOUT_MS }), `no answer within ${TIMEOUT_MS / 1000} s`, TIMEOUT_MS + 2_000);
    const info = await connected.connection.withDeadline(Date.now() + TIMEOUT_MS, () =>
      connected.connection.workflowService.getSystemInfo({}),
    );
    const version = info.serverVersion ? ` (server ${info.serverVersion})` : '';
    return { outcome: { ok: true, detail: `${settings.address} answers${version}` }, connected };
  } catch (err) {
    return { outcome: { ok: false, detail: `cannot reach Temporal at ${settings.address}: ${firstLine(err)}`, fix } };
  }
}

async function checkNamespace(client: Client, namespace: string): Promise<Outcome> {
  try {
    await client.connection.withDeadline(Date.now() + TIMEOUT_MS, () =>
      client.connection.workflowService.describeNamespace({ namespace }),
    );
    return { ok: true, detail: namespace };
  } catch (err) {
    return {
      ok: false,
      detail: `namespace "${namespace}": ${firstLine(err)}`,
      fix: `create it (\`temporal operator namespace create ${namespace}\`) or set TEMPORAL_NAMESPACE to one that exists`,
    };
  }
}

async function checkSearchAttributes(client: Client, namespace: string): Promise<Outcome> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => customAttributes?.[name] === undefined);
    if (missing.length === 0) return { ok: true, detail: Object.keys(SEARCH_ATTRIBUTES).join(', ') };
    return {
      ok: false,
      detail: `missing ${missing.join(', ')} (sessions still run, but cannot be filtered by team or status)`,
      fix: 'run `cohort setup`',
    };
  } catch (err) {
    return { ok: false, detail: `cannot list search attributes: ${firstLine(err)}`, fix: 'check that your API key or certificate may read the namespace' };
  }
}

async function checkPollers(
  client: Client,
  namespace: string,
  q: { queue: string; type: number; what: string },
  taskQueue: string,
): Promise<Outcome> {
  try {
    const { pollers } = await client.connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: q.queue },
      taskQueueType: q.type,
    });
    const now = Date.now();
    const alive = (pollers ?? []).filter((p) => {
      const seconds = Number(p.lastAccessTime?.seconds ?? 0);
      return now - seconds * 1000 < POLLER_FRESH_MS;
    });
    if (alive.length > 0) {
      const who = [...new Set(alive.map((p) => p.identity).filter(Boolean))].join(', ');
      return { ok: true, detail: `${alive.length} poller${alive.length === 1 ? '' : 's'}${who ? ` (${who})` : ''}` };
    }
    return {
      ok: false,
      detail: `no worker is polling, so ${q.what} will wait`,
      fix: `start one: \`cohort worker${taskQueue === DEFAULT_TASK_QUEUE ? '' : ` --task-queue ${taskQueue}`}\``,
    };
  } catch (err) {
    return { ok: false, detail: `cannot describe task queue ${q.queue}: ${firstLine(err)}`, fix: 'check your permissions on the namespace' };
  }
}

/** The model endpoint as seen from here; workers read the same variables. */
async function checkModel(env: NodeJS.ProcessEnv): Promise<Outcome> {
  const base = (env.ANTHROPIC_BASE_URL?.trim() || 'https://api.anthropic.com').replace(/\/+$/, '');
  const key = env.ANTHROPIC_API_KEY?.trim();
  if (!key) {
    return {
      ok: false,
      detail: 'ANTHROPIC_API_KEY is not set',
      fix: 'export ANTHROPIC_API_KEY=... where workers run (or run `cohort worker --sim` for the simulated model)',
    };
  }
  try {
    const res = await fetch(`${base}/v1/models`, {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.ok) return { ok: true, detail: `${base} answers GET /v1/models with the key` };
    const body = (await res.text().catch(() => '')).slice(0, 200);
    if (res.status === 401 || res.status === 403) {
      return { ok: false, detail: `${base} refused the key (HTTP ${res.status})`, fix: 'check ANTHROPIC_API_KEY (a key for this endpoint, not revoked)' };
    }
    return { ok: false, detail: `${base}/v1/models answered HTTP ${res.status} ${body}`, fix: 'check ANTHROPIC_BASE_URL points at an Anthropic-compatible API' };
  } catch (err) {
    return {
      ok: false,
      detail: `cannot reach ${base}: ${causeMessage(err)}`,
      fix: env.ANTHROPIC_BASE_URL ? 'check ANTHROPIC_BASE_URL and that the endpoint is up' : 'check the network or proxy settings',
    };
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}

/** fetch hides the useful reason (ECONNREFUSED...) in `cause`. */
function causeMessage(err: unknown): string {
  const cause = (err as { cause?: { message?: string; code?: string } })?.cause;
  return cause?.code ?? cause?.message ?? firstLine(err);
}

/** A backstop in case connecting ignores its own deadline (e.g. a TLS handshake that stalls). */
function withTimeout<T extends { connection?: Connection }>(p: Promise<T>, message: string, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(message));
    }, ms);
  });
  // A connection that arrives after the timeout must still be closed.
  p.then(
    (v) => timedOut && void v.connection?.close().catch(() => undefined),
    () => undefined,
  );
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
