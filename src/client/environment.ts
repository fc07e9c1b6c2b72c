/**
 * What `cohort run` needs around a session: a Temporal server (started when none answers
 * locally), a worker (run in-process when none polls the task queue) and a model (the simulated
 * one when no ANTHROPIC_API_KEY is set).
 */
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { startSim, type SimServer } from '../sim';
import { createWorkers, defaultWorkDir, installQuietRuntime, llmTaskQueueFor, runWorkers } from '../worker';
import { connectClient, connectWorkerConnection, connectionSettings, isServerReachable, type ConnectionSettings } from './connection';
import { startDevServer, type DevServer } from './devserver';

export type Log = (line: string) => void;

export interface Environment {
  settings: ConnectionSettings;
  client: Client;
  connection: Connection;
  server?: DevServer;
  sim?: SimServer;
  workers: Worker[];
  /** Runs the in-process workers (if any) until `until` settles. */
  runWorkersUntil(until: Promise<unknown>): Promise<void>;
  /** Starts in-process workers if no live worker picks up this workflow's first task soon. */
  ensureWorker(handle: WorkflowHandle): Promise<void>;
  close(): Promise<void>;
}

export interface EnvironmentOptions {
  taskQueue: string;
  /** Start a dev server when nothing answers at a local address (default true). */
  startServer?: boolean;
  /** Run a worker in-process when none polls the task queue (default true). */
  startWorker?: boolean;
  log: Log;
  env?: NodeJS.ProcessEnv;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLocalAddress(address: string): boolean {
  const host = address.replace(/:\d+$/, '');
  return LOCAL_HOSTS.has(host);
}

/** Nothing answers at a non-local address (or starting a server was not allowed). */
export class ServerUnreachableError extends Error {
  constructor(settings: ConnectionSettings) {
    super(
      `cannot reach Temporal at ${settings.address} (namespace ${settings.namespace}): check TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, or run \`cohort server\``,
    );
    this.name = new.target.name;
  }
}

/**
 * The settings of a server that answers: the configured one, or a dev server started on the
 * configured local port when nothing answers there (`server` is then set; stop it when done).
 */
export async function ensureServer(
  settings: ConnectionSettings,
  opts: { log: Log; why: string; dbFile?: string; startServer?: boolean },
): Promise<{ settings: ConnectionSettings; server?: DevServer }> {
  if (await isServerReachable(settings)) return { settings };
  if (opts.startServer === false || !isLocalAddress(settings.address)) throw new ServerUnreachableError(settings);
  const port = Number(settings.address.split(':').pop()) || 7233;
  opts.log(`No Temporal server at ${settings.address}: ${opts.why}`);
  const server = await startDevServer({ port, namespace: settings.namespace, dbFile: opts.dbFile, log: opts.log });
  return { settings: { ...settings, address: server.address }, server };
}

export async function prepareEnvironment(opts: EnvironmentOptions): Promise<Environment> {
  const env = opts.env ?? process.env;
  const { settings, server } = await ensureServer(connectionSettings(env), {
    log: opts.log,
    why: 'starting a dev server for this run (`cohort server` keeps one running).',
    startServer: opts.startServer,
  });
  const { client, connection } = await connectClient(settings);
  let sim: SimServer | undefined;
  let workers: Worker[] = [];
  let until: Promise<unknown> | undefined;
  const runs: Promise<void>[] = [];

  async function startLocalWorkers(why: string): Promise<void> {
    let apiKey = env.ANTHROPIC_API_KEY;
    let baseURL = env.ANTHROPIC_BASE_URL;
    if (!apiKey) {
      sim = await startSim({ port: 0 });
      apiKey = 'sim';
      baseURL = sim.url;
      opts.log(`No ANTHROPIC_API_KEY: using the simulated model at ${sim.url} (offline mode).`);
    }
    installQuietRuntime();
    const nativeConnection = await connectWorkerConnection(settings);
    workers = await createWorkers({
      connection: nativeConnection,
      namespace: settings.namespace,
      taskQueue: opts.taskQueue,
      activities: { model: { apiKey, baseURL }, workDir: defaultWorkDir() },
    });
    opts.log(why);
    if (until) runs.push(runWorkers(workers, until));
  }

  if (opts.startWorker !== false && !(await hasPollers(client, settings.namespace, opts.taskQueue))) {
    await startLocalWorkers(`No worker on task queue "${opts.taskQueue}": running one in this process.`);
  }
  return {
    settings,
    client,
    connection,
    server,
    get sim() {
      return sim;
    },
    get workers() {
      return workers;
    },
    async ensureWorker(handle) {
      if (workers.length > 0 || opts.startWorker === false) return;
      if (await pickedUp(handle, PICKUP_GRACE_MS)) return;
      await startLocalWorkers(
        `No worker picked up ${handle.workflowId} within ${PICKUP_GRACE_MS / 1000} s (the workers Temporal lists for "${opts.taskQueue}" are gone): running one in this process.`,
      );
    },
    runWorkersUntil(done) {
      until = done;
      if (workers.length) runs.push(runWorkers(workers, done));
      return done.then(
        () => Promise.all(runs).then(() => undefined),
        () => Promise.all(runs).then(() => undefined),
      );
    },
    async close() {
      await connection.close().catch(() => undefined);
      await sim?.close();
      await server?.stop();
    },
  };
}

/**
 * Temporal lists a task queue's pollers for a while after a worker stops, so "some poller is
 * listed" can be stale (a `cohort run` that just ended). The first workflow task being started is
 * the proof that a live worker exists.
 */
const PICKUP_GRACE_MS = 5_000;

async function pickedUp(handle: WorkflowHandle, graceMs: number): Promise<boolean> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const d = await handle.describe();
    const pending = d.raw.pendingWorkflowTask;
    if (!pending || pending.state !== temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED) {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** True when some worker polls the session task queue and its model queue. */
export async function hasPollers(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  const svc = client.workflowService;
  const [wf, llm] = await Promise.all([
    svc.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    }),
    svc.describeTaskQueue({
      namespace,
      taskQueue: { name: llmTaskQueueFor(taskQueue) },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    }),
  ]);
  return (wf.pollers?.length ?? 0) > 0 && (llm.pollers?.length ?? 0) > 0;
}
