/**
 * Per-worker pacing from the provider's `anthropic-ratelimit-*` response headers.
 *
 * Temporal's `maxTaskQueueActivitiesPerSecond` caps request *starts* across workers, but the
 * provider's limits are per minute, on requests and on tokens, and shared with everything else
 * using the key. The headers say what is left and when it refills; when a request would not fit,
 * waiting here for the reset (heartbeating) beats sending it, getting a 429 and burning a retry.
 */

/** What one limit (requests or tokens) has left, as of the last response. */
interface Budget {
  remaining: number;
  /** ms since the epoch when `remaining` refills. */
  resetAt: number;
  /** Set when the real reset passed and this is the one-call probe that follows. */
  probe?: boolean;
}

export interface PacerWaitOptions {
  /** Called about every `heartbeatMs` while waiting, so Temporal knows the worker is alive. */
  heartbeat?: () => void;
  signal?: AbortSignal;
  heartbeatMs?: number;
}

/** A plain header lookup, so both fetch `Headers` and SDK error headers fit. */
export interface HeaderSource {
  get(name: string): string | null;
}

/** Longest single wait; a reset further out than this is treated as bad data, not obeyed. */
const MAX_WAIT_MS = 2 * 60_000;
/** How often a waiting call looks again: fresh headers from another call may free it early. */
const RECHECK_MS = 250;
/**
 * After a reset passes, how much is free is unknown (a sliding window frees one slot, a bucket
 * refills fully), so one call goes first and the rest wait this long at most for its headers.
 */
const PROBE_WAIT_MS = 2_000;

export class RatePacer {
  private requests?: Budget;
  private tokens?: Budget;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * How long to wait before sending a request of about `estimatedTokens` input tokens; 0 = now.
   * Nothing is known before the first response, so the first requests always go.
   */
  delayFor(estimatedTokens: number): number {
    const now = this.now();
    this.requests = afterReset(this.requests, now, 1);
    this.tokens = afterReset(this.tokens, now, estimatedTokens);
    let until = now;
    if (this.requests && this.requests.resetAt > now && this.requests.remaining < 1) {
      until = Math.max(until, this.requests.resetAt);
    }
    if (this.tokens && this.tokens.resetAt > now && this.tokens.remaining < estimatedTokens) {
      until = Math.max(until, this.tokens.resetAt);
    }
    return Math.min(until - now, MAX_WAIT_MS);
  }

  /**
   * Waits until a request of `estimatedTokens` fits, then counts it against the budget so that
   * concurrent calls in this worker do not all spend the same remaining request.
   */
  async acquire(estimatedTokens: number, opts: PacerWaitOptions = {}): Promise<number> {
    let waited = 0;
    for (let delay = this.delayFor(estimatedTokens); delay > 0; delay = this.delayFor(estimatedTokens)) {
      const step = Math.min(delay, RECHECK_MS);
      await sleep(step, opts);
      waited += step;
    }
    const now = this.now();
    if (this.requests && this.requests.resetAt > now) this.requests.remaining -= 1;
    if (this.tokens && this.tokens.resetAt > now) this.tokens.remaining -= estimatedTokens;
    return waited;
  }

  /** Learns the budgets from a response's headers (a success or an error such as a 429). */
  observe(headers: HeaderSource | undefined | null): void {
    if (!headers) return;
    const requests = budget(headers, 'requests');
    if (requests) this.requests = requests;
    // `tokens` is the combined limit; newer APIs send input/output separately. The input budget
    // is the one a request spends up front, so it is what pacing can act on.
    const tokens = budget(headers, 'input-tokens') ?? budget(headers, 'tokens');
    if (tokens) this.tokens = tokens;
  }
}

/** A budget whose reset has passed becomes a probe: room for one call until new headers come. */
function afterReset(b: Budget | undefined, now: number, probeSize: number): Budget | undefined {
  if (!b || b.resetAt > now) return b;
  if (b.probe) return undefined; // No headers came back within the probe wait: stop pacing on stale data.
  return { remaining: probeSize, resetAt: now + PROBE_WAIT_MS, probe: true };
}

function budget(headers: HeaderSource, kind: string): Budget | undefined {
  const remaining = Number(headers.get(`anthropic-ratelimit-${kind}-remaining`) ?? NaN);
  const resetAt = Date.parse(headers.get(`anthropic-ratelimit-${kind}-reset`) ?? '');
  if (!Number.isFinite(remaining) || !Number.isFinite(resetAt)) return undefined;
  return { remaining, resetAt };
}

function sleep(ms: number, opts: PacerWaitOptions): Promise<void> {
  const step = opts.heartbeatMs ?? 5_000;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(opts.signal.reason);
    const end = Date.now() + ms;
    let timer: NodeJS.Timeout;
    const onAbort = () => {
      clearTimeout(timer);
      reject(opts.signal?.reason);
    };
    const tick = () => {
      const left = end - Date.now();
      if (left <= 0) {
        opts.signal?.removeEventListener('abort', onAbort);
        return resolve();
      }
      opts.heartbeat?.();
      timer = setTimeout(tick, Math.min(step, left));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    tick();
  });
}

/** A rough input-token count (4 characters a token), enough to decide whether a request fits. */
export function estimateTokens(parts: unknown[]): number {
  let chars = 0;
  for (const p of parts) chars += typeof p === 'string' ? p.length : JSON.stringify(p ?? '').length;
  return Math.ceil(chars / 4);
}
