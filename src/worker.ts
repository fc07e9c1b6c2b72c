/**
 * Cohort's worker: workflows and tool activities on the session task queue, model calls on their
 * own `<queue>-llm` task queue so they can be rate-limited apart (DESIGN.md §5).
 */
import path from 'node:path';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { installRuntime } from './telemetry';
import { WORKFLOW_TRACING_MODULE, setupTracing, workerTracingOptions, type Tracing } from './tracing';
import { createActivities, type ActivityConfig } from './activities';
import { readSessionOutcome } from './activities/batch';

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
  /**
   * Model calls started per second across all workers of the queue: Temporal's
   * `maxTaskQueueActivitiesPerSecond`, enforced by the server (the last worker to poll sets it).
   */
  modelRatePerSecond?: number;
  /** OpenTelemetry tracing (src/tracing.ts); default: as the OTEL_* environment says. */
  tracing?: Tracing;
}

/**
 * How often a model call's heartbeats reach the server at most. The SDK's default (up to 80% of
 * the heartbeat timeout) would let a cancelled session's call run on for ~24 s: cancellation
 * only reaches an activity in a heartbeat's answer.
 */
const MODEL_HEARTBEAT_THROTTLE = '2 seconds';

const bundles: Record<'plain' | 'traced', Promise<WorkflowBundleWithSourceMap> | undefined> = { plain: undefined, traced: undefined };

/**
 * The workflow bundle, built once per process (webpack takes a second or two); the traced variant
 * carries the OpenTelemetry workflow interceptors.
 */
export function workflowBundle(traced = false): Promise<WorkflowBundleWithSourceMap> {
  const kind = traced ? 'traced' : 'plain';
  bundles[kind] ??= bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: new DefaultLogger('WARN'),
    ...(traced ? { workflowInterceptorModules: [WORKFLOW_TRACING_MODULE] } : {}),
  });
  return bundles[kind];
}

export async function createWorkers(opts: CohortWorkerOptions): Promise<Worker[]> {
  const { callModel, runTool } = createActivities(opts.activities);
  const tracing = opts.tracing ?? setupTracing();
  const traced = tracing ? workerTracingOptions(tracing) : {};
  const sessionWorker = await Worker.create({
    ...traced,
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: await workflowBundle(Boolean(tracing)),
    activities: { runTool, readSessionOutcome },
  });
  const modelWorker = await Worker.create({
    ...traced,
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: llmTaskQueueFor(opts.taskQueue),
    activities: { callModel },
    maxConcurrentActivityTaskExecutions: opts.modelConcurrency ?? 20,
    maxHeartbeatThrottleInterval: MODEL_HEARTBEAT_THROTTLE,
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
  installRuntime({ logLevel: 'ERROR' });
}

export function defaultWorkDir(): string {
  return path.resolve(process.env.COHORT_WORKDIR ?? process.cwd());
}
