/** `cohort batch` as a user runs it: a child process against the test server, output read back from disk. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimServer } from '../src/sim';
import { SOLO_TEAM } from './helpers/batch';
import { assertBuilt, cliEnv, runCli } from './helpers/cli';
import { testAddress, uniqueTaskQueue } from './helpers/temporal';

let dir: string;
let sim: SimServer | undefined;
beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cohort-batch-cli-'));
  writeFileSync(join(dir, 'team.yaml'), SOLO_TEAM);
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A user's environment: no API key unless `model` points at a sim (cliEnv removes model settings). */
const env = (extra: Record<string, string | undefined> = {}, model: Record<string, string> = {}) => ({
  ...cliEnv({ TEMPORAL_ADDRESS: testAddress(), COHORT_TASK_QUEUE: uniqueTaskQueue('batch-cli'), ...extra }),
  ...model,
});

test('a malformed jobs file is reported with line numbers and nothing starts (exit 2)', async () => {
  writeFileSync(join(dir, 'jobs.jsonl'), '{"task": "fine"}\n{"task": ""}\nnot json\n');
  // An unreachable server proves the check comes first: no connection is even tried.
  const r = await runCli(['batch', 'team.yaml', 'jobs.jsonl'], env({ TEMPORAL_ADDRESS: '127.0.0.1:1' }), dir);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('jobs.jsonl: line 2: task: task is empty');
  expect(r.stderr).toContain('jobs.jsonl: line 3: not valid JSON');
  expect(r.stderr).not.toMatch(/Temporal|started/);
});

test('a batch writes one answer file per job and results.jsonl, exits 1 naming the failed job, and --retry-failed reruns only it', async () => {
  sim = await startSim({
    port: 0,
    script: {
      rules: [
        {
          match: { last_user: 'sky' },
          error: { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } } },
          times: 1,
        },
      ],
    },
  });
  writeFileSync(join(dir, 'questions.txt'), 'What is a heat pump?\nWhy is the sky blue?\nWho invented the transistor?\n');
  const model = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: sim.url };
  const batchId = uniqueTaskQueue('cli');
  const args = ['batch', 'team.yaml', 'questions.txt', '--concurrency', '2', '--out', 'out', '--id', batchId];
  // Each run gets its own task queue: the server lists a finished process's pollers for a while,
  // and `cohort batch` would then wait for that gone worker instead of running its own.
  const first = await runCli(args, env({}, model), dir);
  expect(first.code).toBe(1);
  expect(first.stdout).toContain(`Batch ${batchId} completed: 3 jobs · 2 done · 1 failed`);
  expect(first.stderr).toMatch(/1 job did not finish:\n {2}job-0002: failed · .*prompt is too long/);
  expect(first.stderr).toContain('--retry-failed');
  expect(first.stderr).toMatch(/progress: 3\/3 · 2 done · 1 failed/); // plain lines: not a terminal

  const lines = readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(lines.map((l) => [l.id, l.status, l.workflowId, l.answer_file])).toEqual([
    ['job-0001', 'completed', `${batchId}/job-0001`, 'job-0001.md'],
    ['job-0002', 'failed', `${batchId}/job-0002`, 'job-0002.md'],
    ['job-0003', 'completed', `${batchId}/job-0003`, 'job-0003.md'],
  ]);
  expect(lines[0].usage.input_tokens).toBeGreaterThan(0);
  expect(lines[1].error).toMatch(/prompt is too long/);

  const answer = readFileSync(join(dir, 'out', 'job-0001.md'), 'utf8');
  expect(answer).toMatch(/^# job-0001\n\n> What is a heat pump\?\n/);
  expect(answer).toContain('heat pump'); // the sim's answer quotes the task
  expect(answer).toMatch(/\*\*Status:\*\* completed · \d+ tok · \$0\.\d{4} · workflow `.*\/job-0001`/);
  expect(answer).toContain('**Agents:** the lead alone (no subagents)');

  const before = sim.stats().requests;
  const retry = await runCli([...args, '--retry-failed'], env({}, model), dir);
  expect(retry.code).toBe(0);
  expect(retry.stdout).toContain('3 done · 0 failed · 2 from earlier submissions');
  expect(sim.stats().log.slice(before).map((e) => e.last_user)).toEqual([expect.stringContaining('sky')]);
  const again = readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(again.map((l) => [l.status, Boolean(l.earlier)])).toEqual([
    ['completed', true],
    ['completed', false],
    ['completed', true],
  ]);
  expect(readFileSync(join(dir, 'out', 'job-0002.md'), 'utf8')).toMatch(/\*\*Status:\*\* completed/);
});

test('with no API key the batch runs on the simulated model; `batch status` reads it back', async () => {
  writeFileSync(join(dir, 'jobs.csv'), 'id,task\nalpha,"Compare heat pumps, gas boilers"\n');
  const batchId = uniqueTaskQueue('cli');
  const r = await runCli(['batch', 'team.yaml', 'jobs.csv', '--id', batchId], env(), dir);
  expect(r.stderr).toContain('No ANTHROPIC_API_KEY: using the simulated model');
  expect(r.code).toBe(0);
  expect(readFileSync(join(dir, `${batchId}-results`, 'alpha.md'), 'utf8')).toContain('Compare heat pumps, gas boilers');

  const status = await runCli(['batch', 'status', batchId], env(), dir);
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(new RegExp(`^${batchId} · completed · 1/1 done · 0 failed`));
});
