/** Submitting, following and reading batches through the Temporal client (no printing here). */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApplicationFailure,
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { BatchInput, BatchJob, BatchProgress, BatchResult, JobState } from '../shared/batch-types';
import { COHORT_BATCH, COHORT_TEAM, isJobDone, jobWorkflowId } from '../shared/batch-types';
import { batchProgressQuery } from '../shared/definitions';
import { formatUsage } from '../shared/render';
import type { SessionResult } from '../shared/session-types';
import type { TeamSpec } from '../shared/team';
import type { batchWorkflow } from '../workflows';

export type BatchHandle = WorkflowHandle<typeof batchWorkflow>;

/** Temporal refuses payloads over 2 MB; stay clear of it with the team spec alongside. */
const MAX_INPUT_BYTES = 1_800_000;
const BATCH_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/;

export class BatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** `<team>-<jobs file name>`: the same file submitted again is the same batch (finished jobs are skipped). */
export function defaultBatchId(teamName: string, jobsFile: string): string {
  const base = jobsFile.split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '');
  return `${teamName}-${base}`.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 150);
}

export interface SubmitBatchOptions {
  batchId: string;
  team: TeamSpec;
  jobs: BatchJob[];
  concurrency: number;
  taskQueue: string;
  retryFailed?: boolean;
  jobsPerRun?: number;
}

export interface Submitted {
  handle: BatchHandle;
  /** True when a run of this batch was already going: we follow it instead of starting one. */
  attached: boolean;
}

/**
 * Starts the batch workflow `batchId`, or attaches to it when it is already running. A finished
 * batch is started again: its children's ids make finished jobs skip (see batchWorkflow).
 */
export async function submitBatch(client: Client, opts: SubmitBatchOptions): Promise<Submitted> {
  if (!BATCH_ID_PATTERN.test(opts.batchId)) {
    throw new BatchError(`batch id "${opts.batchId}" must be letters, digits, ".", "_" or "-" (it prefixes every job's workflow id)`);
  }
  const searchAttributes = await hasSearchAttributes(client, ['CohortTeam', 'CohortBatch']);
  const input: BatchInput = {
    batchId: opts.batchId,
    team: opts.team,
    jobs: opts.jobs,
    concurrency: opts.concurrency,
    searchAttributes,
    ...(opts.retryFailed ? { retryFailed: true } : {}),
    ...(opts.jobsPerRun ? { jobsPerRun: opts.jobsPerRun } : {}),
  };
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MAX_INPUT_BYTES) {
    throw new BatchError(
      `the batch input is ${(bytes / 1e6).toFixed(1)} MB (team + ${opts.jobs.length} jobs); Temporal accepts at most 2 MB per payload: split the jobs file into smaller batches`,
    );
  }
  try {
    const handle = await client.workflow.start<typeof batchWorkflow>('batchWorkflow', {
      workflowId: opts.batchId,
      taskQueue: opts.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      staticSummary: `Batch of ${opts.jobs.length} jobs on team ${opts.team.name} (concurrency ${opts.concurrency})`,
      ...(searchAttributes ? { typedSearchAttributes: [{ key: COHORT_TEAM, value: opts.team.name }, { key: COHORT_BATCH, value: opts.batchId }] } : {}),
    });
    return { handle, attached: false };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    if (opts.retryFailed) {
      throw new BatchError(`batch ${opts.batchId} is still running: --retry-failed applies once it has ended (or cancel it with \`cohort batch cancel ${opts.batchId}\`)`);
    }
    return { handle: client.workflow.getHandle(opts.batchId), attached: true };
  }
}

async function hasSearchAttributes(client: Client, names: string[]): Promise<boolean> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace: client.options.namespace });
    return names.every((n) => customAttributes?.[n] !== undefined);
  } catch {
    return false; // e.g. Temporal Cloud without operator permission: run without them
  }
}

export async function batchProgress(handle: WorkflowHandle, page: { offset?: number; limit?: number } = {}): Promise<BatchProgress> {
  return handle.query(batchProgressQuery, page);
}

/** How a batch ended: its result, or (cancelled, failed) the last state it reported. */
export interface BatchOutcome {
  status: 'completed' | 'cancelled' | 'failed';
  jobs: JobState[];
  error?: string;
}

/**
 * Waits for the batch to end. For a cancelled batch the final job list comes from the progress
 * query, so call this while a worker can still answer queries (before stopping in-process ones).
 */
export async function batchOutcome(handle: WorkflowHandle): Promise<BatchOutcome> {
  try {
    const r = (await handle.result()) as BatchResult;
    return { status: 'completed', jobs: r.jobs };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const progress = await batchProgress(handle).catch(() => undefined);
    const cancelled = err.cause?.name === 'CancelledFailure';
    return { status: cancelled ? 'cancelled' : 'failed', jobs: progress?.jobs ?? [], error: err.cause?.message ?? err.message };
  }
}

/**
 * Calls `onProgress` with the batch's totals (no job list) every `intervalMs` until `done`
 * settles; a query that fails while the batch starts or continues as new is skipped.
 */
export async function followBatch(handle: WorkflowHandle, done: Promise<unknown>, onProgress: (p: BatchProgress) => void, intervalMs = 500): Promise<void> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    const p = await batchProgress(handle, { limit: 0 }).catch(() => undefined);
    if (p && !finished) onProgress(p);
    await Promise.race([done.catch(() => undefined), new Promise((r) => setTimeout(r, intervalMs))]);
  }
}

/**
 * A job session's result without asking a worker: a completed session returns it, a failed one
 * attaches it to its failure. Cancelled, terminated and never-started jobs have none.
 */
export async function readJobResult(client: Client, workflowId: string): Promise<SessionResult | undefined> {
  try {
    return (await client.workflow.getHandle(workflowId).result()) as SessionResult;
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.details?.[0]) {
      return err.cause.details[0] as SessionResult;
    }
    if (err instanceof WorkflowFailedError || err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** One line of results.jsonl. */
export interface JobResultLine {
  id: string;
  status: JobState['status'];
  workflowId: string;
  usage: { input_tokens: number; output_tokens: number; cost_usd: number };
  /** File name inside the output directory; null when the job produced no answer. */
  answer_file: string | null;
  error?: string;
  /** The job had ended in an earlier submission of the batch and was not rerun. */
  earlier?: boolean;
}

/**
 * Writes `<out>/<job-id>.md` (answer, agents, usage) for every job with a session result and
 * `<out>/results.jsonl` with one line per job, in batch order. Returns the lines.
 */
export async function writeBatchOutputs(
  client: Client,
  batchId: string,
  jobs: JobState[],
  tasks: Map<string, BatchJob>,
  outDir: string,
): Promise<JobResultLine[]> {
  await mkdir(outDir, { recursive: true });
  const lines: JobResultLine[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      lines[i] = await writeJob(client, batchId, jobs[i], tasks.get(jobs[i].id), outDir);
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, jobs.length) }, worker));
  await writeFile(join(outDir, 'results.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length ? '\n' : ''));
  return lines;
}

async function writeJob(client: Client, batchId: string, job: JobState, spec: BatchJob | undefined, outDir: string): Promise<JobResultLine> {
  const workflowId = jobWorkflowId(batchId, job.id);
  const result = job.status === 'queued' ? undefined : await readJobResult(client, workflowId);
  const usage = result?.usage ?? { input_tokens: job.input_tokens ?? 0, output_tokens: job.output_tokens ?? 0, cost_usd: job.cost_usd ?? 0 };
  let answerFile: string | null = null;
  if (result) {
    answerFile = `${job.id}.md`;
    await writeFile(join(outDir, answerFile), jobMarkdown(job, spec, result));
  }
  return {
    id: job.id,
    status: job.status,
    workflowId,
    usage,
    answer_file: answerFile,
    ...(job.error ? { error: job.error } : {}),
    ...(job.earlier ? { earlier: true } : {}),
  };
}

/** The answer first (what a reader wants), then who worked on it and what it cost. */
export function jobMarkdown(job: JobState, spec: BatchJob | undefined, r: SessionResult): string {
  const out = [`# ${job.id}`, ''];
  if (spec) out.push(`> ${spec.task.replace(/\n/g, '\n> ')}`, '');
  out.push(r.answer.trim() || (isJobDone(job.status) ? '_(empty answer)_' : '_(no answer)_'), '', '---', '');
  out.push(`**Status:** ${job.status} · ${formatUsage(r.usage)} · workflow \`${r.workflowId}\``);
  if (r.error) out.push('', `**Error:** ${r.error}`);
  if (r.agents.length === 0) {
    out.push('', '**Agents:** the lead alone (no subagents)');
    return `${out.join('\n')}\n`;
  }
  out.push('', '**Agents:**', '', '| agent | status | turns | usage |', '| --- | --- | --- | --- |');
  for (const a of r.agents) out.push(`| ${a.id.split('/').pop()} (${a.name}) | ${a.status} | ${a.turns} | ${formatUsage(a.usage)} |`);
  return `${out.join('\n')}\n`;
}
