import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
// Not re-exported by @temporalio/workflow; the class is what startChild rejects with.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type * as batchActivities from '../activities/batch';
import type { BatchInput, BatchJob, BatchProgress, BatchResult, JobState } from '../shared/batch-types';
import { COHORT_BATCH, COHORT_TEAM, DEFAULT_JOBS_PER_RUN, jobStatusOf, jobTask, jobWorkflowId, shortError, totalsOf } from '../shared/batch-types';
import { batchProgressQuery } from '../shared/definitions';
import type { SessionResult } from '../shared/session-types';
import type { sessionWorkflow } from './session';

// Waiting for an earlier session can take as long as that session: heartbeats notice a dead worker.
const { readSessionOutcome } = proxyActivities<typeof batchActivities>({
  startToCloseTimeout: '1 day',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

/**
 * Runs every job of a batch as a `sessionWorkflow` child `<batchId>/<jobId>`, at most
 * `concurrency` at once. A job whose child already exists (a resubmitted batch) is not rerun: the
 * start is rejected by the id reuse policy and the earlier outcome is read instead; with
 * `retryFailed` the policy lets failed, cancelled and terminated children start again.
 *
 * After `jobsPerRun` starts (or when Temporal suggests it) the batch stops starting, waits for
 * its running children and continues as new, carrying only the small state of ended jobs and the
 * jobs not started yet — never a child half-started.
 */
export async function batchWorkflow(input: BatchInput): Promise<BatchResult> {
  const { batchId, team } = input;
  const run = (input.runs ?? 0) + 1;
  const carried = input.finished ?? [];
  const jobs: JobState[] = [...carried, ...input.jobs.map((j): JobState => ({ id: j.id, status: 'queued' }))];
  const jobsPerRun = Math.max(1, input.jobsPerRun ?? DEFAULT_JOBS_PER_RUN);
  const concurrency = Math.max(1, input.concurrency);
  let status: BatchProgress['status'] = 'running';
  let running = 0;

  setHandler(batchProgressQuery, (args = {}) => {
    const offset = Math.max(0, args.offset ?? 0);
    const page = args.limit === undefined ? jobs.slice(offset) : jobs.slice(offset, offset + Math.max(0, args.limit));
    return { batchId, team: team.name, status, run, ...totalsOf(jobs), jobs: page, offset };
  });

  const details = () => {
    const t = totalsOf(jobs);
    setCurrentDetails(
      `**${team.name}** batch · ${status} · ${t.done}/${t.total} done · ${t.failed} failed · ${t.running} running · ` +
        `${t.input_tokens + t.output_tokens} tok · $${t.cost_usd.toFixed(4)} · run ${run}`,
    );
  };

  async function runJob(slot: number, job: BatchJob): Promise<void> {
    const workflowId = jobWorkflowId(batchId, job.id);
    jobs[slot] = { id: job.id, status: 'running' };
    try {
      const child = await startChild<typeof sessionWorkflow>('sessionWorkflow', {
        workflowId,
        args: [{ team, task: jobTask(job), ...(input.llmTaskQueue ? { llmTaskQueue: input.llmTaskQueue } : {}), ...(input.searchAttributes ? { options: { searchAttributes: true } } : {}) }],
        // Never rerun a finished job; with retryFailed, rerun only the ones that did not succeed.
        workflowIdReusePolicy: input.retryFailed ? WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY : WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: summaryLine(`${job.id}: ${job.task}`),
        ...(input.searchAttributes
          ? { typedSearchAttributes: [{ key: COHORT_TEAM, value: team.name }, { key: COHORT_BATCH, value: batchId }] }
          : {}),
      });
      jobs[slot] = fromResult(job.id, (await child.result()) as SessionResult);
    } catch (err) {
      jobs[slot] = await fromFailure(job.id, workflowId, err);
    } finally {
      running--;
      details();
    }
  }

  try {
    let position = 0;
    while (position < input.jobs.length) {
      if (position >= jobsPerRun || (position > 0 && workflowInfo().continueAsNewSuggested)) break;
      await condition(() => running < concurrency);
      running++;
      const job = input.jobs[position];
      void runJob(carried.length + position, job);
      position++;
    }
    await condition(() => running === 0);
    if (position < input.jobs.length) {
      await continueAsNew<typeof batchWorkflow>({
        ...input,
        jobs: input.jobs.slice(position),
        finished: jobs.slice(0, carried.length + position),
        runs: run,
      });
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Children are cancelled with the batch; wait until each has said so, then mark the rest.
    status = 'cancelled';
    await CancellationScope.nonCancellable(() => condition(() => running === 0));
    for (const [i, j] of jobs.entries()) if (j.status === 'queued') jobs[i] = { id: j.id, status: 'cancelled' };
    details();
    throw err;
  }
  status = 'completed';
  details();
  return { batchId, totals: totalsOf(jobs), jobs };
}

function fromResult(id: string, r: SessionResult): JobState {
  return {
    id,
    status: jobStatusOf(r.status),
    input_tokens: r.usage.input_tokens,
    output_tokens: r.usage.output_tokens,
    cost_usd: r.usage.cost_usd,
    ...(r.error ? { error: shortError(r.error) } : {}),
  };
}

async function fromFailure(id: string, workflowId: string, err: unknown): Promise<JobState> {
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    try {
      const earlier = await readSessionOutcome(workflowId);
      const failed = earlier.status === 'failed' || earlier.status === 'cancelled';
      const { error, ...rest } = earlier;
      return {
        id,
        ...rest,
        ...(failed ? { error: shortError(`${earlier.status} in an earlier submission (rerun with --retry-failed): ${error ?? 'no details'}`) } : {}),
        earlier: true,
      };
    } catch (readErr) {
      return { id, status: 'failed', error: shortError(`could not read the earlier session ${workflowId}: ${messageOf(readErr)}`), earlier: true };
    }
  }
  if (err instanceof ChildWorkflowFailure) {
    // A failed session attaches its result (usage included) to the failure.
    const details = err.cause instanceof ApplicationFailure ? err.cause.details?.[0] : undefined;
    if (details && typeof details === 'object' && 'usage' in details) {
      const r = details as SessionResult;
      return { ...fromResult(id, r), status: 'failed', error: shortError(r.error ?? messageOf(err.cause)) };
    }
    const cancelled = isCancellation(err.cause) || err.cause?.name === 'TerminatedFailure';
    return { id, status: cancelled ? 'cancelled' : 'failed', error: shortError(messageOf(err.cause ?? err)) };
  }
  if (isCancellation(err)) return { id, status: 'cancelled', error: 'cancelled before it started' };
  return { id, status: 'failed', error: shortError(messageOf(err)) };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

function summaryLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
