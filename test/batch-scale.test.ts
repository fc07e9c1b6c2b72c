import { defaultPayloadConverter } from '@temporalio/common';
import { batchOutcome, batchProgress } from '../src/client/batch';
import type { BatchInput } from '../src/shared/batch-types';
import { jobs, newBatchId, submit } from './helpers/batch';
import { maxOverlap, startHarness, type Harness } from './helpers/session';

const SCALE_LIMIT_S = 150;
let h: Harness;
afterAll(async () => {
  await h?.stop();
});

test('1,000 one-call jobs, 50 at once, continuing as new every 250 starts: all complete, each once', async () => {
  h = await startHarness();
  const batchId = newBatchId();
  const started = Date.now();
  const { handle } = await submit(h, batchId, jobs(1000), { concurrency: 50, jobsPerRun: 250 });
  const outcome = await batchOutcome(handle);
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(`batch of 1000 jobs: ${seconds.toFixed(1)} s\n`);

  expect(outcome.status).toBe('completed');
  expect(outcome.jobs).toHaveLength(1000);
  expect(outcome.jobs.every((j) => j.status === 'completed' && (j.input_tokens ?? 0) > 0)).toBe(true);
  expect(new Set(outcome.jobs.map((j) => j.id)).size).toBe(1000);
  const log = h.sim.stats().log;
  expect(log).toHaveLength(1000);
  expect(maxOverlap(log)).toBeLessThanOrEqual(50);

  // Four runs; the last one was handed only its 250 jobs' text plus the small state of the 750 before.
  const progress = await batchProgress(handle, { limit: 0 });
  expect(progress).toMatchObject({ run: 4, done: 1000, total: 1000, jobs: [] });
  const history = await handle.fetchHistory();
  const input = defaultPayloadConverter.fromPayload<BatchInput>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
  expect(input.jobs).toHaveLength(250);
  expect(input.jobs[0].id).toBe('q0751');
  expect(input.finished).toHaveLength(750);
  expect(Object.keys(input.finished![0]).sort()).toEqual(['cost_usd', 'id', 'input_tokens', 'output_tokens', 'status']);

  // Session cost dominates (each is two workflow tasks and a model call). On an idle 2-core
  // machine this takes well under a minute; the bound leaves room for a machine shared with
  // other test runs and still catches a batch that serialises its jobs.
  expect(seconds).toBeLessThan(SCALE_LIMIT_S);
}, (SCALE_LIMIT_S + 60) * 1000);
