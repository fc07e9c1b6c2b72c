/** `cohort server | worker | dev`: long-running processes, stopped with Ctrl-C. */
import { connectWorkerConnection, connectionSettings, uiUrlFor } from '../client/connection';
import { ensureServer } from '../client/environment';
import { startDevServer } from '../client/devserver';
import { startSim, type SimServer } from '../sim';
import { DEFAULT_TASK_QUEUE, createWorkers, defaultWorkDir, runWorkers } from '../worker';
import { CliError } from './errors';
import { installRuntime } from '../telemetry';

const log = (line: string) => process.stderr.write(`${line}\n`);

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

export async function serverCommand(opts: { port?: string; uiPort?: string; db?: string }): Promise<number> {
  const port = opts.port ? Number(opts.port) : 7233;
  const server = await startDevServer({ port, uiPort: opts.uiPort ? Number(opts.uiPort) : undefined, dbFile: opts.db, log });
  process.stdout.write(`Temporal dev server at ${server.address} · UI ${server.uiUrl}${opts.db ? ` · data in ${opts.db}` : ''}\n`);
  await untilSignal();
  await server.stop();
  return 0;
}

export interface WorkerCommandOptions {
  taskQueue?: string;
  sim?: boolean;
  modelConcurrency?: string;
  modelRps?: string;
  /** Per-request HTTP timeout for model calls, seconds. */
  modelTimeout?: string;
  /** commander's `--no-model-pacing` sets this false. */
  modelPacing?: boolean;
  /** host:port for the Prometheus /metrics endpoint (COHORT_METRICS_ADDRESS). */
  metrics?: string;
}

/** The model endpoint for a worker: the real API with a key, else the simulated model if allowed. */
async function modelConfig(allowSim: boolean): Promise<{ apiKey: string; baseURL?: string; sim?: SimServer }> {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (apiKey) return { apiKey, baseURL: process.env.ANTHROPIC_BASE_URL };
  if (!allowSim) {
    throw new CliError('ANTHROPIC_API_KEY is not set: set it for the real API, or pass --sim to use the simulated model');
  }
  const sim = await startSim({ port: 0 });
  log(`No ANTHROPIC_API_KEY: using the simulated model at ${sim.url} (offline mode).`);
  return { apiKey: 'sim', baseURL: sim.url, sim };
}

async function runWorkerProcess(opts: WorkerCommandOptions, allowSim: boolean): Promise<void> {
  const settings = connectionSettings();
  const taskQueue = opts.taskQueue ?? process.env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  // Before any connection: the runtime carries the log level and the Prometheus exporter.
  installRuntime({ logLevel: 'INFO', metricsAddress: opts.metrics });
  const model = await modelConfig(allowSim);
  try {
    const connection = await connectWorkerConnection(settings).catch((err: Error) => {
      throw new CliError(`cannot reach Temporal at ${settings.address}: ${err.message}`);
    });
    const workers = await createWorkers({
      connection,
      namespace: settings.namespace,
      taskQueue,
      activities: {
        model: {
          apiKey: model.apiKey,
          baseURL: model.baseURL,
          timeoutMs: secondsOption(opts.modelTimeout ?? process.env.COHORT_MODEL_TIMEOUT, 'model request timeout'),
          pacing: opts.modelPacing !== false && !/^(0|false|off|no)$/i.test(process.env.COHORT_MODEL_PACING ?? ''),
        },
        workDir: defaultWorkDir(),
      },
      modelConcurrency: numberOption(opts.modelConcurrency ?? process.env.COHORT_MODEL_CONCURRENCY, 'model concurrency'),
      modelRatePerSecond: numberOption(opts.modelRps ?? process.env.COHORT_MODEL_RPS, 'model requests per second'),
    });
    log(`Worker polling "${taskQueue}" and "${taskQueue}-llm" on ${settings.address} (namespace ${settings.namespace}). Ctrl-C stops it.`);
    // The Temporal runtime shuts workers down gracefully on SIGINT/SIGTERM.
    await runWorkers(workers);
    await connection.close();
  } finally {
    await model.sim?.close();
  }
}

function numberOption(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new CliError(`${what} must be a positive number, got "${value}"`);
  return n;
}

function secondsOption(value: string | undefined, what: string): number | undefined {
  const seconds = numberOption(value, what);
  return seconds === undefined ? undefined : seconds * 1000;
}

export async function workerCommand(opts: WorkerCommandOptions): Promise<number> {
  await runWorkerProcess(opts, Boolean(opts.sim));
  return 0;
}

/** A dev server (unless one answers) plus a worker: everything a local user needs. */
export async function devCommand(opts: WorkerCommandOptions & { db?: string }): Promise<number> {
  const { settings, server } = await ensureServer(connectionSettings(), { log, why: 'starting a dev server.', dbFile: opts.db });
  // The worker below reads its address from the environment, like every other command.
  process.env.TEMPORAL_ADDRESS = settings.address;
  process.stdout.write(`Temporal at ${settings.address} · UI ${server?.uiUrl || uiUrlFor(settings.address, settings.namespace)}\n`);
  try {
    await runWorkerProcess(opts, true);
  } finally {
    await server?.stop();
  }
  return 0;
}
