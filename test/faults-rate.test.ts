/**
 * Rate limits: the sim enforces rpm 60 over a 5 s window (5 requests per 5 s, so a test sees
 * 429s without waiting a minute) and sends `anthropic-ratelimit-*` headers; Cohort's workers
 * stay under it with the server-enforced task-queue rate and the header-driven pacer, and
 * when pushed over it, retry no sooner than the sim's retry-after.
 */
import { sessionResult } from '../src/client/session';
import type { SimLogEntry } from '../src/sim';
import { startHarness, teamFromYaml, type Harness, type HarnessOptions } from './helpers/session';
import { SOLO_YAML } from './helpers/teams';

/** A lead with no agents: exactly one model call per session. */
const SOLO = teamFromYaml(SOLO_YAML);

const LIMITS = { rpm: 60, rateWindowMs: 5_000 };

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function runSessions(n: number, opts: HarnessOptions) {
  h = await startHarness(undefined, opts);
  const started = Date.now();
  const handles = await Promise.all(Array.from({ length: n }, (_, i) => h!.start(SOLO, `Question number ${i}`)));
  const results = await Promise.all(handles.map((handle) => sessionResult(handle)));
  return { results, seconds: (Date.now() - started) / 1000, stats: h.sim.stats() };
}

test('20 sessions with the worker at the limit (1 request/s) finish with zero 429s', async () => {
  const { results, seconds, stats } = await runSessions(20, { sim: LIMITS, worker: { modelRatePerSecond: 1 } });
  expect(results.map((r) => r.status)).toEqual(Array(20).fill('completed'));
  expect(stats.by_status).toEqual({ '200': 20 });
  // The server spaced the calls out: 20 calls at 1/s cannot finish in much under 19 s.
  expect(seconds).toBeGreaterThan(15);
}, 80_000);

test('over the limit: 429s happen, every session completes, and no retry comes before its retry-after', async () => {
  // Header pacing off: with it, a worker often never sends a request the headers say is refused,
  // and this test is about a worker configured above the provider's limit.
  const { results, stats } = await runSessions(20, { sim: LIMITS, worker: { modelRatePerSecond: 50 }, model: { pacing: false } });
  expect(results.map((r) => r.status)).toEqual(Array(20).fill('completed'));
  expect(stats.by_status['429']).toBeGreaterThan(0);
  expect(stats.by_status['200']).toBe(20);
  expectRetriesHonourRetryAfter(stats.log);
}, 80_000);

test('the pacer waits for the reset the rate-limit headers announce instead of sending a request that would be refused', async () => {
  // One call at a time and no task-queue rate: only the headers can keep the worker under the limit.
  const paced = await runSessions(7, { sim: LIMITS, worker: { modelConcurrency: 1 } });
  expect(paced.results.every((r) => r.status === 'completed')).toBe(true);
  expect(paced.stats.by_status).toEqual({ '200': 7 });
  // Calls 6 and 7 waited for the window to roll over.
  expect(paced.stats.log[5].start - paced.stats.log[0].start).toBeGreaterThanOrEqual(4_500);
  await h!.stop();
  h = undefined;

  const unpaced = await runSessions(7, { sim: LIMITS, worker: { modelConcurrency: 1 }, model: { pacing: false } });
  expect(unpaced.results.every((r) => r.status === 'completed')).toBe(true);
  expect(unpaced.stats.by_status['429']).toBeGreaterThan(0);
}, 80_000);

/** Every request after a 429 for the same session starts no sooner than the retry-after it was given. */
function expectRetriesHonourRetryAfter(log: SimLogEntry[]): void {
  const refused = log.filter((e) => e.status === 429);
  for (const r of refused) {
    expect(r.retry_after).toMatch(/^\d+$/);
    const next = log.filter((e) => e !== r && e.last_user === r.last_user && e.start >= r.end).sort((a, b) => a.start - b.start)[0];
    expect(next).toBeDefined();
    expect(next.start - r.end).toBeGreaterThanOrEqual(Number(r.retry_after) * 1000);
  }
}
