/**
 * One shape for workflow tests: a sim with a script, Cohort's real workers on a fresh task queue
 * of the shared dev server, a team parsed from YAML, and a session run to its end.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { sessionResult, startSession, type SessionHandle } from '../../src/client/session';
import type { SessionResult } from '../../src/shared/session-types';
import type { TeamSpec } from '../../src/shared/team';
import type { ModelConfig } from '../../src/activities';
import { startSim, type SimOptions, type SimScript, type SimServer } from '../../src/sim';
import { parseTeam } from '../../src/team';
import { createWorkers, type CohortWorkerOptions } from '../../src/worker';
import { testClient, testNamespace, testWorkerConnection, uniqueTaskQueue } from './temporal';

export function teamFromYaml(yaml: string): TeamSpec {
  const dir = mkdtempSync(join(tmpdir(), 'cohort-team-'));
  const file = join(dir, 'team.yaml');
  writeFileSync(file, yaml);
  return parseTeam(yaml, { file, baseDir: dir }).team;
}

export interface Harness {
  sim: SimServer;
  taskQueue: string;
  workers: Worker[];
  workDir: string;
  /** Starts a session; the workers run until `stop()`. */
  start(team: TeamSpec, task: string, id?: string): Promise<SessionHandle>;
  /** Starts a session and waits for its result. */
  run(team: TeamSpec, task: string): Promise<{ result: SessionResult; handle: SessionHandle }>;
  stop(): Promise<void>;
}

/** Fault tests tune the sim (rate limits, latency) and the workers (rates, timeouts, pacing). */
export interface HarnessOptions {
  sim?: Omit<SimOptions, 'port' | 'script'>;
  worker?: Pick<CohortWorkerOptions, 'modelConcurrency' | 'modelRatePerSecond'>;
  model?: Omit<ModelConfig, 'apiKey' | 'baseURL'>;
}

export async function startHarness(script?: SimScript, opts: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSim({ ...opts.sim, port: 0, script });
  const taskQueue = uniqueTaskQueue('session');
  const workDir = mkdtempSync(join(tmpdir(), 'cohort-work-'));
  const workers = await createWorkers({
    connection: await testWorkerConnection(),
    namespace: testNamespace(),
    taskQueue,
    activities: { model: { ...opts.model, apiKey: 'test-key', baseURL: sim.url }, workDir },
    ...opts.worker,
  });
  const running = Promise.all(workers.map((w) => w.run()));
  const client = await testClient();
  const start = (team: TeamSpec, task: string, id?: string) =>
    startSession(client, team, task, { taskQueue, id: id ?? uniqueTaskQueue('s') });
  return {
    sim,
    taskQueue,
    workers,
    workDir,
    start,
    async run(team, task) {
      const handle = await start(team, task);
      return { result: await sessionResult(handle), handle };
    },
    async stop() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await sim.close();
    },
  };
}

/** Requests whose system prompt matches, from the sim's log. */
export function requestsOf(sim: SimServer, system: RegExp) {
  return sim.stats().log.filter((e) => system.test(e.system));
}

/** The most requests in flight at once among the given log entries. */
export function maxOverlap(entries: Array<{ start: number; end: number }>): number {
  const events = entries.flatMap((e) => [
    { t: e.start, d: 1 },
    { t: e.end, d: -1 },
  ]);
  // Ends before starts at the same instant: touching intervals do not overlap.
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let cur = 0;
  let max = 0;
  for (const e of events) {
    cur += e.d;
    max = Math.max(max, cur);
  }
  return max;
}
