/**
 * Cohort's worker: workflows and tool activities on the session task queue, model calls on their
 * own `<queue>-llm` task queue so they can be rate-limited apart (DESIGN.md §5).
 */
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityConfig } from './activities';

export const DEFAULT_TASK_QUEUE = 'cohort';

export function llmTaskQueueFor(taskQueue: string): string {
  return `${taskQueue}-llm`;
}

export interface CohortWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: ActivityConfig;
  /** Model calls running at once in this worker. */
  modelConcurrency?: number;
  /** Model calls per second across all workers of the queue (enforced by the server). */
  modelRatePerSecond?: number;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle, built once per process (webpack takes a second or two). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: new DefaultLogger('WARN'),
  });
  return bundle;
}

export async function createWorkers(opts: CohortWorkerOptions): Promise<Worker[]> {
  const { callModel, runTool } = createActivities(opts.activities);
  const sessionWorker = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: { runTool },
  });
  const modelWorker = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: llmTaskQueueFor(opts.taskQueue),
    activities: { callModel },
    maxConcurrentActivityTaskExecutions: opts.modelConcurrency ?? 20,
    ...(opts.modelRatePerSecond ? { maxTaskQueueActivitiesPerSecond: opts.modelRatePerSecond } : {}),
  });
  return [sessionWorker, modelWorker];
}

/** Runs the workers until `until` settles (or the process is asked to stop). */
export async function runWorkers(workers: Worker[], until?: Promise<unknown>): Promise<void> {
  if (until) {
    await Promise.all(workers.map((w) => w.runUntil(until.catch(() => undefined))));
  } else {
    await Promise.all(workers.map((w) => w.run()));
  }
}

/** Quieter Temporal runtime logs for CLI use; call before creating any worker. */
export function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed (a second call in the same process): keep the first.
  }
}

export function defaultWorkDir(): string {
  return path.resolve(process.env.COHORT_WORKDIR ?? process.cwd());
}
