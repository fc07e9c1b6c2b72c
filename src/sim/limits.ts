/**
 * Requests- and tokens-per-minute limits over a sliding one-minute window, with the
 * `anthropic-ratelimit-*` headers the real API sends. Only admitted requests count: a client
 * that retries after a 429 is not pushed further back by its own rejected attempts.
 */

const MINUTE_MS = 60_000;

interface Entry {
  t: number;
  tokens: number;
}

export type Admission =
  | { ok: true }
  | { ok: false; retryAfterMs: number; message: string };

export class RateLimiter {
  private requests: Entry[] = [];
  private tokens: Entry[] = [];

  private readonly rpm?: number;
  private readonly tpm?: number;

  /** `windowMs` shorter than a minute scales both limits down with it. */
  constructor(
    rpm?: number,
    tpm?: number,
    private readonly windowMs: number = MINUTE_MS,
  ) {
    const scale = (perMinute?: number) =>
      perMinute === undefined ? undefined : Math.max(1, Math.floor((perMinute * windowMs) / MINUTE_MS));
    this.rpm = scale(rpm);
    this.tpm = scale(tpm);
  }

  get active(): boolean {
    return this.rpm !== undefined || this.tpm !== undefined;
  }

  /** Admits a request of `inputTokens` and records it, or says how long to wait. */
  admit(inputTokens: number, now: number): Admission {
    this.prune(now);
    if (this.rpm !== undefined && this.requests.length >= this.rpm) {
      return {
        ok: false,
        retryAfterMs: this.requests[0].t + this.windowMs - now,
        message: `Simulated rate limit: more than ${this.rpm} requests per ${this.windowLabel()}.`,
      };
    }
    if (this.tpm !== undefined && this.tokens.length > 0) {
      const excess = this.used() + inputTokens - this.tpm;
      if (excess > 0) {
        // A request bigger than the whole budget still passes when the window is empty, so it
        // can never be starved forever.
        let freed = 0;
        let at = now;
        for (const e of this.tokens) {
          freed += e.tokens;
          at = e.t + this.windowMs;
          if (freed >= excess) break;
        }
        return { ok: false, retryAfterMs: at - now, message: `Simulated rate limit: more than ${this.tpm} tokens per ${this.windowLabel()}.` };
      }
    }
    this.requests.push({ t: now, tokens: 0 });
    this.tokens.push({ t: now, tokens: inputTokens });
    return { ok: true };
  }

  recordOutput(tokens: number, now: number): void {
    this.tokens.push({ t: now, tokens });
  }

  /** The `anthropic-ratelimit-*` headers for the configured limits (none when no limit is set). */
  headers(now: number): Record<string, string> {
    this.prune(now);
    const h: Record<string, string> = {};
    const reset = (entries: Entry[]) => new Date(entries.length ? entries[0].t + this.windowMs : now).toISOString();
    if (this.rpm !== undefined) {
      h['anthropic-ratelimit-requests-limit'] = String(this.rpm);
      h['anthropic-ratelimit-requests-remaining'] = String(Math.max(0, this.rpm - this.requests.length));
      h['anthropic-ratelimit-requests-reset'] = reset(this.requests);
    }
    if (this.tpm !== undefined) {
      h['anthropic-ratelimit-tokens-limit'] = String(this.tpm);
      h['anthropic-ratelimit-tokens-remaining'] = String(Math.max(0, this.tpm - this.used()));
      h['anthropic-ratelimit-tokens-reset'] = reset(this.tokens);
    }
    return h;
  }

  private windowLabel(): string {
    return this.windowMs === MINUTE_MS ? 'minute' : `${this.windowMs / 1000} s`;
  }

  reset(): void {
    this.requests = [];
    this.tokens = [];
  }

  private used(): number {
    return this.tokens.reduce((sum, e) => sum + e.tokens, 0);
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    while (this.requests.length && this.requests[0].t <= cutoff) this.requests.shift();
    while (this.tokens.length && this.tokens[0].t <= cutoff) this.tokens.shift();
  }
}
