/** Batch test helpers: a one-call team, jobs, and a batch run to its end on a harness. */
import { batchOutcome, submitBatch, type BatchOutcome, type Submitted } from '../../src/client/batch';
import type { BatchJob } from '../../src/shared/batch-types';
import type { Harness } from './session';
import { teamFromYaml } from './session';
import { testClient, uniqueTaskQueue } from './temporal';

/** A lead with no subagents: each job's session is exactly one model call. */
export const SOLO_TEAM = `
version: 1
name: solo
lead:
  model: haiku
  prompt: "You answer alone."
`;

export function soloTeam() {
  return teamFromYaml(SOLO_TEAM);
}

export function jobs(n: number, task = (i: number) => `Question ${i + 1}`): BatchJob[] {
  return Array.from({ length: n }, (_, i) => ({ id: `q${String(i + 1).padStart(4, '0')}`, task: task(i) }));
}

export function newBatchId(): string {
  return uniqueTaskQueue('batch');
}

export async function submit(
  h: Harness,
  batchId: string,
  list: BatchJob[],
  opts: { concurrency?: number; retryFailed?: boolean; jobsPerRun?: number } = {},
): Promise<Submitted> {
  return submitBatch(await testClient(), {
    batchId,
    team: soloTeam(),
    jobs: list,
    concurrency: opts.concurrency ?? 4,
    taskQueue: h.taskQueue,
    retryFailed: opts.retryFailed,
    jobsPerRun: opts.jobsPerRun,
  });
}

export async function runBatch(h: Harness, batchId: string, list: BatchJob[], opts: Parameters<typeof submit>[3] = {}): Promise<BatchOutcome> {
  const { handle } = await submit(h, batchId, list, opts);
  return batchOutcome(handle);
}
