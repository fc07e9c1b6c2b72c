import { batchOutcome, batchProgress } from '../src/client/batch';
import { jobWorkflowId } from '../src/shared/batch-types';
import { jobs, newBatchId, runBatch, submit } from './helpers/batch';
import { maxOverlap, requestsOf, startHarness, type Harness } from './helpers/session';
import { testClient } from './helpers/temporal';
import { waitFor } from './helpers/wait';

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

test('at most `concurrency` sessions run at once, and with slow replies exactly that many', async () => {
  h = await startHarness({ rules: [{ match: { system: '^You answer alone' }, reply: { content: 'An answer.' }, delay_ms: 700 }] });
  const batchId = newBatchId();
  const { handle } = await submit(h, batchId, jobs(6), { concurrency: 2 });

  // While it runs, the progress query shows the bound too.
  const mid = await waitFor('two jobs running and some queued', async () => {
    const p = await batchProgress(handle);
    return p.running === 2 && p.queued > 0 ? p : undefined;
  });
  expect(mid.total).toBe(6);
  expect(mid.jobs.filter((j) => j.status === 'running')).toHaveLength(2);

  const { status, jobs: end } = await batchOutcome(handle);
  expect(status).toBe('completed');
  expect(end.map((j) => j.status)).toEqual(Array(6).fill('completed'));
  for (const j of end) {
    expect(j.input_tokens).toBeGreaterThan(0);
    expect(j.cost_usd).toBeGreaterThan(0);
  }
  const calls = requestsOf(h.sim, /^You answer alone/);
  expect(calls).toHaveLength(6);
  expect(maxOverlap(calls)).toBe(2);

  const done = await batchProgress(handle, { offset: 4, limit: 10 });
  expect(done).toMatchObject({ status: 'completed', total: 6, done: 6, failed: 0, running: 0, queued: 0, offset: 4 });
  expect(done.jobs.map((j) => j.id)).toEqual(['q0005', 'q0006']);
  expect(done.input_tokens).toBe(end.reduce((n, j) => n + (j.input_tokens ?? 0), 0));
});

test('resubmitting a finished batch reruns nothing it finished and runs only the new job', async () => {
  h = await startHarness();
  const batchId = newBatchId();
  const first = await runBatch(h, batchId, jobs(3), { concurrency: 3 });
  expect(first.jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
  expect(h.sim.stats().requests).toBe(3);

  h.sim.reset();
  const again = await runBatch(h, batchId, jobs(4), { concurrency: 3 });
  // The model saw one request: the new job's.
  expect(h.sim.stats().log.map((e) => e.last_user)).toEqual([expect.stringContaining('Question 4')]);
  expect(again.jobs.map((j) => [j.id, j.status, Boolean(j.earlier)])).toEqual([
    ['q0001', 'completed', true],
    ['q0002', 'completed', true],
    ['q0003', 'completed', true],
    ['q0004', 'completed', false],
  ]);
  // Usage of earlier jobs is read back from their sessions, not lost.
  expect(again.jobs[0].input_tokens).toBe(first.jobs[0].input_tokens);
});

test('a job that fails stays failed on resubmission, and --retry-failed reruns only it', async () => {
  h = await startHarness({
    rules: [
      {
        match: { last_user: 'Question 2' },
        error: { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } } },
        times: 1,
      },
    ],
  });
  const batchId = newBatchId();
  const first = await runBatch(h, batchId, jobs(3), { concurrency: 3 });
  expect(first.jobs.map((j) => j.status)).toEqual(['completed', 'failed', 'completed']);
  expect(first.jobs[1].error).toMatch(/prompt is too long/);

  // (sim.reset() would also re-arm the `times: 1` rule, so count from here instead.)
  const seen = h.sim.stats().requests;
  const plain = await runBatch(h, batchId, jobs(3), { concurrency: 3 });
  expect(h.sim.stats().requests).toBe(seen);
  expect(plain.jobs[1]).toMatchObject({ status: 'failed', earlier: true });
  expect(plain.jobs[1].error).toMatch(/in an earlier submission \(rerun with --retry-failed\)/);

  const retried = await runBatch(h, batchId, jobs(3), { concurrency: 3, retryFailed: true });
  expect(h.sim.stats().log.slice(seen).map((e) => e.last_user)).toEqual([expect.stringContaining('Question 2')]);
  expect(retried.jobs.map((j) => [j.status, Boolean(j.earlier)])).toEqual([
    ['completed', true],
    ['completed', false],
    ['completed', true],
  ]);
  // The rerun is the same workflow id: a new run of the failed session.
  const client = await testClient();
  const d = await client.workflow.getHandle(jobWorkflowId(batchId, 'q0002')).describe();
  expect(d.status.name).toBe('COMPLETED');
});

test('cancelling a batch cancels its running sessions and starts no more', async () => {
  h = await startHarness({ rules: [{ match: { system: '^You answer alone' }, reply: { content: 'Slow.' }, delay_ms: 20_000 }] });
  const batchId = newBatchId();
  const { handle } = await submit(h, batchId, jobs(5), { concurrency: 2 });
  await waitFor('two running jobs', async () => (await batchProgress(handle)).running === 2);
  await handle.cancel();
  const outcome = await batchOutcome(handle);
  expect(outcome.status).toBe('cancelled');
  expect(outcome.jobs.map((j) => j.status)).toEqual(Array(5).fill('cancelled'));
  const client = await testClient();
  expect((await client.workflow.getHandle(jobWorkflowId(batchId, 'q0001')).describe()).status.name).toBe('CANCELLED');
  await expect(client.workflow.getHandle(jobWorkflowId(batchId, 'q0003')).describe()).rejects.toThrow(/not found/i);
});
