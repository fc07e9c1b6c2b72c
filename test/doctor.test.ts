/** `cohort doctor`, run as a user would run it, against the test server and the sim. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { startSim, type SimServer } from '../src/sim';
import { createWorkers } from '../src/worker';
import { testAddress, testNamespace, testWorkerConnection, uniqueTaskQueue } from './helpers/temporal';

const CLI = join(__dirname, 'support', 'cohort-cli.js');

function doctor(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _base, ...rest } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'doctor', ...args], { env: { ...rest, TEMPORAL_NAMESPACE: testNamespace(), ...env } as NodeJS.ProcessEnv }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

function line(out: string, check: string): string {
  return out.split('\n').find((l) => l.includes(check)) ?? `(no line for ${check})`;
}

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ apiKey: 'right-key' });
});
afterAll(async () => {
  await sim.close();
});

test('with no worker on the task queue: the worker checks fail and say how to start one', async () => {
  const queue = uniqueTaskQueue('doctor');
  const { code, out } = await doctor(['--task-queue', queue], {
    TEMPORAL_ADDRESS: testAddress(),
    ANTHROPIC_API_KEY: 'right-key',
    ANTHROPIC_BASE_URL: sim.url,
  });
  expect(code).toBe(1);
  expect(line(out, 'Temporal server')).toMatch(/^ok\s+Temporal server\s+127\.0\.0\.1:\d+ answers \(server [\d.]+\)/);
  expect(line(out, 'namespace')).toMatch(/^ok\s+namespace\s+default$/);
  expect(line(out, 'search attributes')).toMatch(/^ok\s+search attributes\s+CohortTeam, CohortStatus, CohortAgent, CohortBatch/);
  expect(line(out, `workflow worker "${queue}"`)).toMatch(/^problem .* no worker is polling, so sessions will wait/);
  expect(line(out, `model worker "${queue}-llm"`)).toMatch(/^problem .* no worker is polling, so model calls will wait/);
  expect(out).toContain(`fix: start one: \`cohort worker --task-queue ${queue}\``);
  expect(line(out, 'model API')).toMatch(/^ok\s+model API\s+http:\/\/127\.0\.0\.1:\d+ answers GET \/v1\/models/);
  expect(out).toMatch(/3 problems: fix the first one/);
});

test('with a worker running: every check passes and the exit code is 0', async () => {
  const queue = uniqueTaskQueue('doctor');
  const workers: Worker[] = await createWorkers({
    connection: await testWorkerConnection(),
    namespace: testNamespace(),
    taskQueue: queue,
    activities: { model: { apiKey: 'right-key', baseURL: sim.url }, workDir: mkdtempSync(join(tmpdir(), 'cohort-doctor-')) },
  });
  const running = Promise.all(workers.map((w) => w.run()));
  try {
    const { code, out } = await doctor(['--task-queue', queue], {
      TEMPORAL_ADDRESS: testAddress(),
      ANTHROPIC_API_KEY: 'right-key',
      ANTHROPIC_BASE_URL: sim.url,
    });
    expect(out).not.toMatch(/^problem/m);
    expect(line(out, `workflow worker "${queue}"`)).toMatch(/^ok .* 1 poller/);
    expect(line(out, `tool worker "${queue}"`)).toMatch(/^ok .* 1 poller/);
    expect(line(out, `model worker "${queue}-llm"`)).toMatch(/^ok .* 1 poller/);
    expect(out).toContain('All checks passed: sessions can run.');
    expect(code).toBe(0);
  } finally {
    for (const w of workers) w.shutdown();
    await running;
  }
});

test('no server and no API key: says so, skips what needs the server, and exits 1', async () => {
  const { code, out } = await doctor([], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
  expect(code).toBe(1);
  expect(line(out, 'Temporal server')).toMatch(/^problem\s+Temporal server\s+cannot reach Temporal at 127\.0\.0\.1:1/);
  expect(out).toContain('fix: start one with `cohort dev` (or `cohort server`), or point TEMPORAL_ADDRESS at yours');
  expect(line(out, 'namespace')).toMatch(/^skip\s+namespace\s+needs the Temporal server/);
  expect(line(out, 'model API')).toMatch(/^problem\s+model API\s+ANTHROPIC_API_KEY is not set/);
});

test('a key the model endpoint refuses is reported as such', async () => {
  const { code, out } = await doctor(['--task-queue', uniqueTaskQueue('doctor')], {
    TEMPORAL_ADDRESS: testAddress(),
    ANTHROPIC_API_KEY: 'wrong-key',
    ANTHROPIC_BASE_URL: sim.url,
  });
  expect(code).toBe(1);
  expect(line(out, 'model API')).toMatch(/^problem\s+model API\s+http:\/\/127\.0\.0\.1:\d+ refused the key \(HTTP 401\)/);
});
