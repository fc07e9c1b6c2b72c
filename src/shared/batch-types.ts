/**
 * Batch jobs: many tasks on one team, each run as a session child of `batchWorkflow`.
 * Per-job state is deliberately small (no answers): a batch of thousands of jobs carries it
 * through continue-as-new and returns it in query results.
 */
import type { SessionStatus } from './session-types';
import type { TeamSpec } from './team';

export interface BatchJob {
  /** Unique in the batch; part of the child's workflow id `<batchId>/<id>` and of file names. */
  id: string;
  task: string;
  /** Extra material for the lead, appended to the task. */
  context?: string;
}

/** A job ends like its session; `max_turns` and `budget_exhausted` still produced an answer. */
export type JobStatus = 'queued' | 'running' | 'completed' | 'max_turns' | 'budget_exhausted' | 'failed' | 'cancelled';

/** One job as the batch tracks it: a few hundred bytes at most. */
export interface JobState {
  id: string;
  status: JobStatus;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  /** First line of the failure, at most {@link MAX_JOB_ERROR_CHARS} characters. */
  error?: string;
  /** True when the child had already ended before this submission (its outcome was read, not rerun). */
  earlier?: boolean;
}

export interface BatchInput {
  batchId: string;
  team: TeamSpec;
  /** Jobs not started yet (after continue-as-new: only the ones after the carried position). */
  jobs: BatchJob[];
  concurrency: number;
  /** Rerun jobs whose earlier session failed, was cancelled or was terminated. */
  retryFailed?: boolean;
  llmTaskQueue?: string;
  /** Set CohortTeam / CohortBatch on children (the client checks that the namespace has them). */
  searchAttributes?: boolean;
  /** Children started per run before continuing as new (default {@link DEFAULT_JOBS_PER_RUN}). */
  jobsPerRun?: number;
  /** Carried through continue-as-new: the jobs that have ended, in batch order. */
  finished?: JobState[];
  /** Carried through continue-as-new: how many runs came before this one. */
  runs?: number;
}

export interface BatchTotals {
  total: number;
  done: number;
  failed: number;
  running: number;
  queued: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface BatchProgress extends BatchTotals {
  batchId: string;
  team: string;
  /** running → completed (every job ended; some may have failed) or cancelled. */
  status: 'running' | 'completed' | 'cancelled';
  /** Runs of the batch workflow so far, this one included (continue-as-new). */
  run: number;
  /** The page of jobs asked for (all by default), in batch order. */
  jobs: JobState[];
  offset: number;
}

export interface ProgressQueryArgs {
  /** First job of the page (default 0). */
  offset?: number;
  /** Jobs in the page (default all; 0 = totals only). */
  limit?: number;
}

export interface BatchResult {
  batchId: string;
  totals: BatchTotals;
  jobs: JobState[];
}

export const DEFAULT_JOBS_PER_RUN = 500;

/** Set on job sessions so the UI and `cohort ls` can filter by team and by batch (registered by `cohort dev`). */
export { COHORT_BATCH, COHORT_TEAM } from './search-attributes';
export const MAX_JOB_ERROR_CHARS = 300;

/** Workflow id of one job's session: deterministic, so a resubmitted batch finds earlier runs. */
export function jobWorkflowId(batchId: string, jobId: string): string {
  return `${batchId}/${jobId}`;
}

/** What the lead is asked: the task, then the job's context when it has one. */
export function jobTask(job: BatchJob): string {
  return job.context ? `${job.task}\n\nContext:\n${job.context}` : job.task;
}

export function isJobDone(s: JobStatus): boolean {
  return s === 'completed' || s === 'max_turns' || s === 'budget_exhausted';
}

/** A batch session is not interactive, so it always ends; a live status here means it did not finish. */
export function jobStatusOf(s: SessionStatus): Exclude<JobStatus, 'queued' | 'running'> {
  return s === 'running' || s === 'idle' ? 'failed' : s;
}

export function isJobFailed(s: JobStatus): boolean {
  return s === 'failed' || s === 'cancelled';
}

export function totalsOf(jobs: JobState[]): BatchTotals {
  const t: BatchTotals = { total: jobs.length, done: 0, failed: 0, running: 0, queued: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  for (const j of jobs) {
    if (isJobDone(j.status)) t.done++;
    else if (isJobFailed(j.status)) t.failed++;
    else if (j.status === 'running') t.running++;
    else t.queued++;
    t.input_tokens += j.input_tokens ?? 0;
    t.output_tokens += j.output_tokens ?? 0;
    t.cost_usd += j.cost_usd ?? 0;
  }
  return t;
}

/** One short line: failure messages can be pages of stack trace. */
export function shortError(message: string): string {
  const line = message.split('\n')[0].trim();
  return line.length > MAX_JOB_ERROR_CHARS ? `${line.slice(0, MAX_JOB_ERROR_CHARS - 1)}…` : line;
}

/** What the `readSessionOutcome` activity reports about a session that already exists. */
export interface SessionOutcome {
  status: Exclude<JobStatus, 'queued' | 'running'>;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  error?: string;
}
