import { RatePacer } from '../../src/activities/rate-pacer';

/** Headers as the API sends them, with resets `inMs` from `now`. */
function headers(now: number, h: { requests?: number; tokens?: number; inMs: number }) {
  const reset = new Date(now + h.inMs).toISOString();
  const map = new Map<string, string>();
  if (h.requests !== undefined) {
    map.set('anthropic-ratelimit-requests-remaining', String(h.requests));
    map.set('anthropic-ratelimit-requests-reset', reset);
  }
  if (h.tokens !== undefined) {
    map.set('anthropic-ratelimit-input-tokens-remaining', String(h.tokens));
    map.set('anthropic-ratelimit-input-tokens-reset', reset);
  }
  return { get: (name: string) => map.get(name) ?? null };
}

describe('RatePacer', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('lets requests through before any headers are known', () => {
    expect(new RatePacer(clock).delayFor(10_000)).toBe(0);
  });

  it('waits for the requests reset when none are left', () => {
    const pacer = new RatePacer(clock);
    pacer.observe(headers(now, { requests: 0, inMs: 3_000 }));
    expect(pacer.delayFor(1)).toBe(3_000);
  });

  it('waits for the tokens reset when the request would not fit, not when it would', () => {
    const pacer = new RatePacer(clock);
    pacer.observe(headers(now, { tokens: 500, inMs: 2_000 }));
    expect(pacer.delayFor(400)).toBe(0);
    expect(pacer.delayFor(600)).toBe(2_000);
  });

  it('counts requests it lets through against what is left, so concurrent calls do not all spend the last one', async () => {
    const pacer = new RatePacer(clock);
    pacer.observe(headers(now, { requests: 1, inMs: 5_000 }));
    await pacer.acquire(10);
    expect(pacer.delayFor(10)).toBe(5_000);
  });

  it('after a reset lets one call probe, and the next waits for its headers', async () => {
    const pacer = new RatePacer(clock);
    pacer.observe(headers(now, { requests: 0, inMs: 1_000 }));
    now += 1_001;
    await pacer.acquire(10);
    expect(pacer.delayFor(10)).toBeGreaterThan(0);
    pacer.observe(headers(now, { requests: 4, inMs: 60_000 }));
    expect(pacer.delayFor(10)).toBe(0);
  });

  it('stops the wait when the activity is cancelled', async () => {
    const pacer = new RatePacer(() => Date.now());
    pacer.observe(headers(Date.now(), { requests: 0, inMs: 60_000 }));
    const controller = new AbortController();
    const beats: number[] = [];
    const waiting = pacer.acquire(1, { signal: controller.signal, heartbeat: () => beats.push(1), heartbeatMs: 10 });
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    await expect(waiting).rejects.toThrow('cancelled');
    expect(beats.length).toBeGreaterThan(0);
  });
});
