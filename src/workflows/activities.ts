import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { NON_RETRYABLE_MODEL_ERRORS } from '../shared/activity-types';
import type { RetrySpec } from '../shared/team';

export type ModelActivities = Pick<ReturnType<typeof proxyActivities<Activities>>, 'callModel'>;
export type ToolActivities = Pick<ReturnType<typeof proxyActivities<Activities>>, 'runTool'>;

const DEFAULT_MODEL_RETRY: RetrySpec = {
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 60_000,
  maximumAttempts: 10,
};

/**
 * Model calls run on their own task queue so that their rate can be limited apart from
 * everything else. They stream and heartbeat, so a dead worker is noticed within the heartbeat
 * timeout rather than the (long) start-to-close timeout of a big generation.
 *
 * Why 30 s: the activity heartbeats every 5 s (stream events, a keep-alive timer, and while the
 * rate pacer waits), so 30 s tolerates a GC pause or a brief network blip without repeating a
 * paid call, yet a SIGKILLed worker's calls move to another worker within half a minute.
 * Much lower would start duplicate generations on a merely busy worker.
 */
export function modelActivities(taskQueue: string, retry: RetrySpec = DEFAULT_MODEL_RETRY): ModelActivities {
  return proxyActivities<Activities>({
    taskQueue,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS,
    },
  });
}

/** Client tools run on the session's own task queue; they report errors as results, so few retries. */
export function toolActivities(): ToolActivities {
  return proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
}
