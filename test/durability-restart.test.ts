/**
 * Restart the Temporal dev server (state in a SQLite file) while a session runs: the worker
 * reconnects, the session picks up where its history says it was, and completes.
 * Uses its own server, not the shared test server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient } from '../src/client/connection';
import { startDevServer, type DevServer } from '../src/client/devserver';
import { sessionResult, startSession } from '../src/client/session';
import { startSim, type SimServer } from '../src/sim';
import { teamFromYaml } from './helpers/session';
import { teamYaml } from './helpers/teams';
import { uniqueTaskQueue } from './helpers/temporal';
import { waitFor } from './helpers/wait';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const TEAM = teamFromYaml(teamYaml('duo', ['researcher', 'analyst']));

let server: DevServer | undefined;
let sim: SimServer | undefined;
let worker: WorkerProcess | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  await worker?.kill();
  await server?.stop();
  await sim?.close();
});

test('a dev server restart mid-session: the session completes', async () => {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'cohort-restart-')), 'temporal.db');
  server = await startDevServer({ dbFile, headless: true });
  const port = Number(server.address.split(':')[1]);
  // The subagents are mid-call when the server goes away, and answer while it is down.
  sim = await startSim({ script: { rules: [{ match: { system: '^You are the' }, reply: { content: 'Finding F-7' }, delay_ms: 2_000 }] } });
  const taskQueue = uniqueTaskQueue('restart');
  worker = await startWorkerProcess({ address: server.address, taskQueue, modelBaseUrl: sim.url });

  const first = await connectClient({ address: server.address, namespace: 'default' });
  closers.push(() => first.connection.close());
  const handle = await startSession(first.client, TEAM, 'Compare heat pumps and gas boilers', { taskQueue });
  await waitFor('subagent calls in flight', () => sim!.stats().max_concurrent >= 2, 30_000);

  await server.stop();
  server = await startDevServer({ dbFile, headless: true, port });

  const second = await connectClient({ address: server.address, namespace: 'default' });
  closers.push(() => second.connection.close());
  const result = await sessionResult(second.client.workflow.getHandle(handle.workflowId));
  expect(result.status).toBe('completed');
  expect(result.agents.map((a) => a.status)).toEqual(['completed', 'completed']);
  expect(result.answer).toContain('F-7');
}, 90_000);
