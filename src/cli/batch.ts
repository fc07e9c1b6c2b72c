/** `cohort batch <team.yaml> <jobs>`, `cohort batch status <id>`, `cohort batch cancel <id>`. */
import { resolve } from 'node:path';
import { type Client, type Connection, type WorkflowHandle } from '@temporalio/client';
import { SingleBar } from 'cli-progress';
import {
  BatchError,
  batchOutcome,
  batchProgress,
  defaultBatchId,
  followBatch,
  submitBatch,
  writeBatchOutputs,
  type JobResultLine,
} from '../client/batch';
import { uiUrlFor } from '../client/connection';
import { prepareEnvironment } from '../client/environment';
import { JobsFileError, readJobsFile } from '../client/jobs';
import type { BatchJob, BatchProgress, BatchResult, BatchTotals, JobState } from '../shared/batch-types';
import { isJobFailed, totalsOf } from '../shared/batch-types';
import { formatTokens } from '../shared/render';
import { DEFAULT_TASK_QUEUE } from '../worker';
import { BATCH, connectOrExplain, existingWorkflow } from './connect';
import { CliError } from './errors';
import type { Sink } from './live';
import { loadTeamOrExit } from './team-io';

export interface BatchOptions {
  concurrency?: string;
  out?: string;
  id?: string;
  retryFailed?: boolean;
  taskQueue?: string;
  jobsPerRun?: string;
}

const DEFAULT_CONCURRENCY = 4;
const QUERY_DEADLINE_MS = 5_000;
/** Failed jobs named in the closing message; the rest are in results.jsonl. */
const MAX_NAMED_FAILURES = 20;

export async function batchCommand(teamFile: string, jobsFile: string, opts: BatchOptions): Promise<number> {
  // The jobs file first: a bad line is reported before any server or worker starts.
  const jobs = readJobsOrExit(jobsFile);
  const { team } = await loadTeamOrExit(teamFile);
  const concurrency = positiveInt(opts.concurrency, '--concurrency') ?? DEFAULT_CONCURRENCY;
  const jobsPerRun = positiveInt(opts.jobsPerRun, '--jobs-per-run');
  const batchId = opts.id ?? defaultBatchId(team.name, jobsFile);
  const outDir = resolve(opts.out ?? `${batchId}-results`);
  const taskQueue = opts.taskQueue ?? process.env.COHORT_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const log = (line: string) => process.stderr.write(`${line}\n`);

  const env = await prepareEnvironment({ taskQueue, log });
  try {
    const { handle, attached } = await submitBatch(env.client, {
      batchId,
      team,
      jobs,
      concurrency,
      taskQueue,
      retryFailed: opts.retryFailed,
      jobsPerRun,
    }).catch((err) => {
      throw err instanceof BatchError ? new CliError(err.message, 2) : err;
    });
    const url = uiUrlFor(env.settings.address, env.settings.namespace, batchId);
    log(
      attached
        ? `Batch ${batchId} is already running: following it (the jobs file given now is not applied) · ${url}`
        : `Batch ${batchId} started: ${plural(jobs.length, 'job')} on team ${team.name}, ${concurrency} at once · ${url}`,
    );
    const done = batchOutcome(handle);
    const view = new BatchProgressView(process.stderr);
    const workersDone = env.runWorkersUntil(done);
    await env.ensureWorker(handle);
    await Promise.all([workersDone, followBatch(handle, done, (p) => view.update(p))]);
    const outcome = await done;
    view.finish(totalsOf(outcome.jobs));

    const tasks = new Map(jobs.map((j): [string, BatchJob] => [j.id, j]));
    const lines = await writeBatchOutputs(env.client, batchId, outcome.jobs, tasks, outDir);
    return report(batchId, outcome.status, outcome.jobs, lines, outDir, outcome.error);
  } finally {
    await env.close();
  }
}

function readJobsOrExit(file: string): BatchJob[] {
  try {
    return readJobsFile(file);
  } catch (err) {
    if (err instanceof JobsFileError) throw new CliError(err.message, 2);
    throw err;
  }
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} must be a whole number of at least 1 (got "${value}")`, 2);
  return n;
}

function report(batchId: string, status: string, jobs: JobState[], lines: JobResultLine[], outDir: string, error?: string): number {
  const t = totalsOf(jobs);
  const earlier = jobs.filter((j) => j.earlier).length;
  process.stdout.write(
    `Batch ${batchId} ${status}: ${plural(t.total, 'job')} · ${t.done} done · ${t.failed} failed${t.queued ? ` · ${t.queued} not started` : ''}` +
      `${earlier ? ` · ${earlier} from earlier submissions` : ''} · ${usageLine(t)}\n` +
      `Results: ${outDir}/results.jsonl (${lines.filter((l) => l.answer_file).length} answers as <job-id>.md)\n`,
  );
  if (error && status !== 'completed') process.stderr.write(`batch ${status}: ${error}\n`);
  const failed = jobs.filter((j) => isJobFailed(j.status) || j.status === 'queued');
  if (failed.length === 0 && status === 'completed') return 0;
  if (failed.length) {
    process.stderr.write(`${failed.length} job${failed.length === 1 ? '' : 's'} did not finish:\n`);
    for (const j of failed.slice(0, MAX_NAMED_FAILURES)) process.stderr.write(`  ${j.id}: ${j.status}${j.error ? ` · ${j.error}` : ''}\n`);
    if (failed.length > MAX_NAMED_FAILURES) process.stderr.write(`  ... and ${failed.length - MAX_NAMED_FAILURES} more (see results.jsonl)\n`);
    process.stderr.write(`Rerun only these with: cohort batch <team.yaml> <jobs> --id ${batchId} --retry-failed\n`);
  }
  return 1;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function usageLine(t: Pick<BatchTotals, 'input_tokens' | 'output_tokens' | 'cost_usd'>): string {
  return `${formatTokens(t.input_tokens + t.output_tokens)} tok · $${t.cost_usd.toFixed(4)}`;
}

/**
 * A progress bar redrawn in place on a terminal; on anything else, a plain line whenever jobs
 * end (at most one every 2 s, so a thousand tiny jobs do not flood a CI log).
 */
export class BatchProgressView {
  private bar?: SingleBar;
  private lastEnded = -1;
  private lastLineAt = 0;
  private readonly startedAt = Date.now();

  constructor(
    private readonly out: Sink & NodeJS.WritableStream,
    private readonly plainIntervalMs = 2_000,
  ) {}

  update(p: BatchProgress): void {
    if (this.out.isTTY) this.draw(p);
    else this.line(p, false);
  }

  finish(t: BatchTotals): void {
    if (this.bar) {
      this.bar.update(t.done + t.failed, this.payload(t));
      this.bar.stop();
    } else if (this.lastEnded !== t.done + t.failed) {
      this.line({ ...t }, true);
    }
  }

  private payload(t: BatchTotals) {
    return { done: t.done, failed: t.failed, running: t.running, usage: usageLine(t) };
  }

  private draw(p: BatchProgress): void {
    if (!this.bar) {
      this.bar = new SingleBar({
        stream: this.out,
        format: '{bar} {value}/{total} · {done} done · {failed} failed · {running} running · {usage} · ETA {eta_formatted}',
        barsize: 24,
        hideCursor: true,
        etaBuffer: 50,
      });
      this.bar.start(p.total, p.done + p.failed, this.payload(p));
    }
    this.bar.setTotal(p.total);
    this.bar.update(p.done + p.failed, this.payload(p));
  }

  private line(t: BatchTotals, force: boolean): void {
    const ended = t.done + t.failed;
    const now = Date.now();
    if (!force && (ended === this.lastEnded || now - this.lastLineAt < this.plainIntervalMs)) return;
    this.lastEnded = ended;
    this.lastLineAt = now;
    const left = etaText(this.startedAt, now, ended, t.total);
    this.out.write(
      `progress: ${ended}/${t.total} · ${t.done} done · ${t.failed} failed · ${t.running} running · ${usageLine(t)}${left ? ` · ETA ${left}` : ''}\n`,
    );
  }
}

function etaText(startedAt: number, now: number, ended: number, total: number): string | undefined {
  if (ended === 0 || ended >= total) return undefined;
  const seconds = Math.round(((now - startedAt) / ended) * (total - ended) / 1000);
  return seconds >= 90 ? `${Math.round(seconds / 60)}m` : `${seconds}s`;
}

async function existingBatch(client: Client, id: string): Promise<WorkflowHandle> {
  return (await existingWorkflow(client, id, BATCH)).handle;
}

/**
 * A finished batch's result needs no worker; a running or cancelled one is asked through the
 * progress query, which waits for a worker, so it gets a deadline and a clear message.
 */
async function readProgress(connection: Connection, handle: WorkflowHandle, id: string): Promise<Pick<BatchProgress, 'status' | 'jobs'>> {
  const d = await handle.describe();
  if (d.status.name === 'COMPLETED') return { status: 'completed', jobs: ((await handle.result()) as BatchResult).jobs };
  try {
    return await connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => batchProgress(handle));
  } catch (err) {
    throw new CliError(`batch ${id} is ${d.status.name.toLowerCase()} and no worker answered its progress query (start one with \`cohort worker\`): ${(err as Error).message}`);
  }
}

/** `cohort batch status <id>`: totals, then the jobs that failed or are running. */
export async function batchStatusCommand(id: string, opts: { json?: boolean }): Promise<number> {
  const { client, connection } = await connectOrExplain();
  try {
    const handle = await existingBatch(client, id);
    const progress = await readProgress(connection, handle, id);
    const t = totalsOf(progress.jobs);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ batchId: id, status: progress.status, ...t, jobs: progress.jobs }, null, 2)}\n`);
      return 0;
    }
    const lines = [`${id} · ${progress.status} · ${t.done}/${t.total} done · ${t.failed} failed · ${t.running} running · ${t.queued} queued · ${usageLine(t)}`];
    for (const j of progress.jobs.filter((x) => x.status === 'running' || isJobFailed(x.status))) {
      lines.push(`  ${j.id}: ${j.status}${j.error ? ` · ${j.error}` : ''}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await connection.close();
  }
}

/** `cohort batch cancel <id>`: running job sessions are cancelled with the batch. */
export async function batchCancelCommand(id: string): Promise<number> {
  const { client, connection } = await connectOrExplain();
  try {
    const handle = await existingBatch(client, id);
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING') throw new CliError(`batch ${id} is not running (${d.status.name.toLowerCase()})`);
    await handle.cancel();
    process.stdout.write(`Cancellation requested for batch ${id}: running jobs are cancelled, queued ones will not start.\n`);
    return 0;
  } finally {
    await connection.close();
  }
}
