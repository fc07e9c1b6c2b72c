/**
 * Model-call faults, injected by the sim's scripted rules: overloads, server errors, dropped
 * connections and hangs are retried until the session completes; a permanent 401 and an
 * oversized reply fail the session once, with a message that says what is wrong; cancelling a
 * session aborts its in-flight model call; a multi-MB tool result is cut with a visible marker.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sessionResult } from '../src/client/session';
import type { SimRule } from '../src/sim';
import { startHarness, teamFromYaml, type Harness, type HarnessOptions } from './helpers/session';
import { SOLO_YAML } from './helpers/teams';
import { waitFor } from './helpers/wait';

/** One model call per session; quick retries so that a few faults cost milliseconds. */
const SOLO = teamFromYaml(`${SOLO_YAML}limits:
  model_retry: { initial_interval: 100ms, maximum_interval: 300ms, maximum_attempts: 6 }
`);

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function runWith(rules: SimRule[], opts: HarnessOptions = {}, team = SOLO) {
  h = await startHarness({ rules }, opts);
  const handle = await h.start(team, 'What is the boiling point of water?');
  const result = await sessionResult(handle);
  return { result, statuses: h.sim.stats().log.map((e) => e.status) };
}

test('529s, 500s and a dropped connection are retried and the session completes', async () => {
  const { result, statuses } = await runWith([
    { error: { status: 529 }, times: 2 },
    { error: { status: 500 }, times: 2 },
    { drop: true, times: 1 },
  ]);
  expect(result.status).toBe('completed');
  expect(result.answer).not.toBe('');
  // 0 = the sim closed the connection without answering.
  expect(statuses).toEqual([529, 529, 500, 500, 0, 200]);
});

test('a request that hangs past the model request timeout is abandoned and retried', async () => {
  const { result } = await runWith([{ reply: { content: 'too late' }, delay_ms: 4_000, times: 1 }], {
    model: { timeoutMs: 1_000 },
  });
  expect(result.status).toBe('completed');
  expect(result.answer).not.toContain('too late');
  // The sim logs the hung request when its delay ends: 499, the client had gone away.
  const log = await waitFor('the hung request to end', () => {
    const entries = h!.sim.stats().log;
    return entries.length === 2 ? entries : undefined;
  });
  const hung = log.find((e) => e.status === 499)!;
  const answered = log.find((e) => e.status === 200)!;
  expect(hung).toBeDefined();
  expect(answered).toBeDefined();
  // The retry started about one request timeout after the hung request did.
  expect(answered.start - hung.start).toBeGreaterThanOrEqual(1_000);
});

test("the team's model_retry bounds the attempts: 3 overloads with maximum_attempts 2 fail the session", async () => {
  const team = teamFromYaml(`
version: 1
name: impatient
lead:
  model: sonnet
  prompt: "You answer alone."
limits:
  model_retry: { initial_interval: 100ms, maximum_attempts: 2 }
`);
  const { result, statuses } = await runWith([{ error: { status: 529 }, times: 3 }], {}, team);
  expect(statuses).toEqual([529, 529]);
  expect(result.status).toBe('failed');
  expect(result.error).toMatch(/HTTP 529 overloaded_error/);
});

test('a permanent 401 fails the session at once with a message that names the problem', async () => {
  const { result, statuses } = await runWith([{ error: { status: 401 } }]);
  expect(statuses).toEqual([401]);
  expect(result.status).toBe('failed');
  expect(result.error).toMatch(/lead failed: model call failed: HTTP 401 authentication_error/);
});

test('a reply too big for a Temporal payload fails once, naming the agent and the size', async () => {
  const { result, statuses } = await runWith([{ reply: { content: 'x'.repeat(1_600_000) } }]);
  expect(statuses).toEqual([200]);
  expect(result.status).toBe('failed');
  expect(result.error).toMatch(/model reply for agent lead is 1\.6\d MB, over the 1\.50 MB limit/);
});

test("cancelling a session aborts its in-flight model call", async () => {
  h = await startHarness({ rules: [{ reply: { content: 'slow' }, delay_ms: 30_000 }] });
  const handle = await h.start(SOLO, 'Think for a long time');
  await waitFor('the model call to reach the sim', () => h!.sim.stats().max_concurrent >= 1);
  const cancelledAt = Date.now();
  await handle.cancel();
  const aborted = await waitFor('the sim to see the caller go away', () =>
    h!.sim.stats().log.find((e) => e.status === 499),
    15_000,
  );
  expect(aborted.end - cancelledAt).toBeLessThan(10_000);
  expect((await sessionResult(handle)).status).toBe('cancelled');
});

test('a multi-MB page from web_fetch reaches the model truncated with a marker, and the session completes', async () => {
  const page = `<html><body><p>${'All work and no play. '.repeat(150_000)}</p></body></html>`; // ~3.3 MB
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
  try {
    const team = teamFromYaml(`
version: 1
name: reader
lead:
  model: sonnet
  prompt: "You read pages."
  tools: [web_fetch]
`);
    const { result } = await runWith(
      [
        { match: { turn: 1 }, reply: { content: [{ type: 'tool_use', name: 'web_fetch', input: { url } }] } },
        { match: { turn: 2 }, reply: { content: 'Read it.' } },
      ],
      {},
      team,
    );
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('Read it.');
    const second = h!.sim.stats().log.find((e) => e.turn === 2)!;
    expect(second.last_user).toMatch(/\[truncated: \d+ chars total, showing the first 50000\]/);
    expect(second.last_user.length).toBeLessThan(60_000);
  } finally {
    server.close();
  }
});
