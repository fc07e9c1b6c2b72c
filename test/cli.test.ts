import { freePort } from '../src/client/devserver';
import type { SessionResult } from '../src/shared/session-types';
import { assertBuilt, cliEnv, runCli, spawnCli, stopProcess } from './helpers/cli';
import { testAddress, testNamespace, uniqueTaskQueue } from './helpers/temporal';
import { waitFor } from './helpers/wait';

const TEAM = 'examples/research/team.yaml';
const TASK = 'How do heat pumps compare to gas boilers in cold climates?';

beforeAll(assertBuilt);

function expectUsage(u: SessionResult['usage']) {
  expect(u.input_tokens).toBeGreaterThan(0);
  expect(u.output_tokens).toBeGreaterThan(0);
  expect(u.cost_usd).toBeGreaterThan(0);
}

test('`cohort run --json` offline: the sim answers, a worker runs in-process, and the JSON has every field', async () => {
  const id = uniqueTaskQueue('cli-run');
  const env = cliEnv({ TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: testNamespace(), COHORT_TASK_QUEUE: uniqueTaskQueue('cliq') });
  const r = await runCli(['run', TEAM, TASK, '--json', '--id', id], env);
  expect(r.stderr).toContain('No ANTHROPIC_API_KEY: using the simulated model');
  expect(r.stderr).toContain('running one in this process');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as SessionResult;
  expect(Object.keys(out).sort()).toEqual(['agents', 'answer', 'status', 'usage', 'workflowId']);
  expect(out.workflowId).toBe(id);
  expect(out.status).toBe('completed');
  for (const name of ['researcher', 'analyst', 'writer']) expect(out.answer).toContain(`### ${name}`);
  expectUsage(out.usage);
  expect(out.agents.map((a) => a.name).sort()).toEqual(['analyst', 'researcher', 'writer']);
  for (const a of out.agents) {
    expect(Object.keys(a).sort()).toEqual(['id', 'name', 'status', 'turns', 'usage']);
    expect(a.id).toBe(`${id}/${a.name}-1`);
    expect(a.status).toBe('completed');
    expect(a.turns).toBeGreaterThanOrEqual(1);
    expectUsage(a.usage);
  }
  const childTokens = out.agents.reduce((n, a) => n + a.usage.input_tokens + a.usage.output_tokens, 0);
  expect(out.usage.input_tokens + out.usage.output_tokens).toBeGreaterThan(childTokens);
});

test('`cohort run` with no Temporal server starts one, follows the session and prints the answer', async () => {
  const port = await freePort();
  const env = cliEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_NAMESPACE: undefined });
  const r = await runCli(['run', TEAM, TASK], env);
  expect(r.stderr).toContain(`No Temporal server at 127.0.0.1:${port}: starting a dev server`);
  expect(r.stderr).toMatch(/researcher-1 completed \(\d+ turns?, /);
  expect(r.stderr).toMatch(/\ncompleted · [\d.k]+ tok · \$\d+\.\d{4} · 3 subagents · research-/);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`Final answer for: ${TASK}`);
  expect(r.stdout).toContain('### analyst');
}, 120_000);

test('`cohort start`, `status` and `result --json` work against a separate `cohort worker --sim`, which serves metrics', async () => {
  const taskQueue = uniqueTaskQueue('cli-worker');
  const env = cliEnv({ TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: testNamespace(), COHORT_TASK_QUEUE: taskQueue });
  const metricsPort = await freePort();
  const worker = spawnCli(['worker', '--sim', '--metrics', `127.0.0.1:${metricsPort}`], env);
  try {
    await waitFor('the worker to poll', () => worker.output().includes('Worker polling'));
    const started = await runCli(['start', TEAM, TASK], env);
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(/^research-\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(started.stderr).toContain(`/workflows/${id}`);

    const result = await runCli(['result', id, '--json'], env);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as SessionResult;
    expect(out.workflowId).toBe(id);
    expect(out.status).toBe('completed');
    expect(out.agents).toHaveLength(3);

    const status = await runCli(['status', id], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`${id} · COMPLETED · completed`);
    expect(status.stdout).toMatch(/researcher-1: completed, 1 turns?/);

    // Prometheus: the runtime's worker metrics and Cohort's model-call metrics, by model.
    const metrics = await waitFor('model metrics', async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return /cohort_model_calls\w*\{[^}]*model="claude-haiku-4-5"/.test(text) ? text : undefined;
    });
    expect(metrics).toMatch(/cohort_model_calls\w*\{[^}]*model="claude-sonnet-4-5"[^}]*status="ok"[^}]*\} 4/);
    // ^ lead (2 turns), analyst and writer run on sonnet; the researcher on haiku.
    expect(metrics).toMatch(/cohort_model_input_tokens\w*\{[^}]*model="claude-haiku-4-5"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/temporal_\w+/);
  } finally {
    await stopProcess(worker.child);
  }
});

test('a second `cohort run` right after the first (whose worker Temporal still lists) does not wait for a gone worker', async () => {
  const env = cliEnv({ TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: testNamespace(), COHORT_TASK_QUEUE: uniqueTaskQueue('cli-twice') });
  const first = await runCli(['run', TEAM, 'first question', '--json'], env);
  expect(first.code).toBe(0);
  const second = await runCli(['run', TEAM, 'second question', '--json'], env);
  expect(second.code).toBe(0);
  expect(JSON.parse(second.stdout).status).toBe('completed');
  expect(second.stderr).toMatch(/No worker (on task queue|picked up)/);
});

test('`cohort run --interactive` answers the task, then each follow-up line from stdin, keeping one session', async () => {
  const env = cliEnv({ TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: testNamespace(), COHORT_TASK_QUEUE: uniqueTaskQueue('cli-chat') });
  const r = await runCli(['run', TEAM, TASK, '--interactive', '--json'], env, undefined, 'And what about running costs?\n');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`Final answer for: ${TASK}`);
  expect(r.stdout).toContain('Final answer for: And what about running costs?');
  const json = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('\n{') + 1)) as SessionResult;
  expect(json.status).toBe('completed');
  // The follow-up fanned out again inside the same session: second instances of each agent.
  expect(json.agents.map((a) => a.id.split('/').pop()).sort()).toEqual(
    ['analyst-1', 'analyst-2', 'researcher-1', 'researcher-2', 'writer-1', 'writer-2'],
  );
});

test('`cohort start --interactive`, `send` and `cancel` drive a session held by a separate worker', async () => {
  const env = cliEnv({ TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: testNamespace(), COHORT_TASK_QUEUE: uniqueTaskQueue('cli-send') });
  const worker = spawnCli(['worker', '--sim'], env);
  try {
    await waitFor('the worker to poll', () => worker.output().includes('Worker polling'));
    const id = (await runCli(['start', TEAM, TASK, '--interactive'], env)).stdout.trim();
    const followUp = await runCli(['send', id, 'Which is cheaper to install?'], env);
    expect(followUp.code).toBe(0);
    expect(followUp.stdout).toContain('Final answer for: Which is cheaper to install?');

    const empty = await runCli(['send', id, '   '], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/cohort: .*empty/i);

    const cancelled = await runCli(['cancel', id], env);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toMatch(new RegExp(`^cancelled · .+ · 6 subagents · ${id}$`, 'm'));
    const status = await runCli(['status', id], env);
    expect(status.stdout).toContain(`${id} · CANCELLED`);
  } finally {
    await stopProcess(worker.child);
  }
});

test('`cohort validate` and `cohort run` name the problems of a bad team and exit 2', async () => {
  const env = cliEnv({ TEMPORAL_ADDRESS: testAddress() });
  const ok = await runCli(['validate', TEAM], env);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('research: valid');
  const bad = await runCli(['run', 'test/fixtures/teams/many-problems.yaml', 'x'], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/many-problems\.yaml: .+\(line \d+\)/);
  expect(bad.stdout).toBe('');
});

test('`cohort status` of an unknown id says so', async () => {
  const r = await runCli(['status', 'no-such-session-42'], cliEnv({ TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: testNamespace() }));
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('no session with id no-such-session-42');
});
