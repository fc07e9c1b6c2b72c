/**
 * SIGKILL the worker process while three subagents' model calls are in flight, start a new one:
 * the session completes, and the sim saw every completed model call once. Only the calls cut
 * off by the kill are sent again (after the 30 s heartbeat timeout notices the dead worker).
 */
import { sessionResult, startSession } from '../src/client/session';
import { startSim, type SimServer } from '../src/sim';
import { teamFromYaml } from './helpers/session';
import { testAddress, testClient, uniqueTaskQueue } from './helpers/temporal';
import { teamYaml } from './helpers/teams';
import { waitFor } from './helpers/wait';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const TEAM = teamFromYaml(teamYaml('trio', ['researcher', 'analyst', 'writer'], 'limits:\n  max_parallel_agents: 3'));

let sim: SimServer | undefined;
const workers: WorkerProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill();
  await sim?.close();
});

test('a SIGKILLed worker mid-session: a new worker finishes it, and no completed model call is repeated', async () => {
  // The first three subagent calls hang, so they are in flight when the worker dies.
  sim = await startSim({
    script: { rules: [{ match: { system: '^You are the' }, reply: { content: 'never sent' }, delay_ms: 60_000, times: 3 }] },
  });
  const taskQueue = uniqueTaskQueue('kill');
  // The worker flags a deployment would pass (rate, concurrency, request timeout), parsed for real.
  const spawnWorker = () =>
    startWorkerProcess({
      address: testAddress(),
      taskQueue,
      modelBaseUrl: sim!.url,
      extraArgs: ['--model-rps', '20', '--model-concurrency', '8', '--model-timeout', '120'],
    });
  workers.push(await spawnWorker());

  const handle = await startSession(await testClient(), TEAM, 'Compare heat pumps and gas boilers', { taskQueue });
  await waitFor('three subagent calls in flight', () => sim!.stats().max_concurrent >= 3, 30_000);
  const answeredBeforeKill = sim.stats().log.filter((e) => e.status === 200);
  expect(answeredBeforeKill).toHaveLength(1); // the lead's delegating turn

  await workers[0].kill();
  const killedAt = Date.now();
  workers.push(await spawnWorker());

  const result = await sessionResult(handle);
  expect(result.status).toBe('completed');
  expect(result.agents.map((a) => a.status)).toEqual(['completed', 'completed', 'completed']);
  expect(result.answer).not.toContain('never sent');

  const log = sim.stats().log;
  const answered = log.filter((e) => e.status === 200);
  const cutOff = log.filter((e) => e.status === 499);
  // Every call was answered exactly once: the lead twice, each subagent once.
  expect(answered).toHaveLength(5);
  expect(new Set(answered.map((e) => e.digest)).size).toBe(5);
  // What was answered before the kill was never sent again...
  for (const done of answeredBeforeKill) expect(log.filter((e) => e.digest === done.digest)).toHaveLength(1);
  // ...and the only repeats are the three calls the kill cut off, each sent once more.
  expect(cutOff).toHaveLength(3);
  for (const c of cutOff) {
    const again = answered.filter((e) => e.digest === c.digest);
    expect(again).toHaveLength(1);
    // The dead worker was noticed within the 30 s heartbeat timeout (plus scheduling slack).
    expect(again[0].start - killedAt).toBeLessThan(40_000);
  }
  expect(log).toHaveLength(8);
}, 90_000);
