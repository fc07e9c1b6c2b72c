import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUILTIN_MODELS } from '../shared/team';
import {
  countTokensRequestSchema,
  describeIssues,
  messagesRequestSchema,
  systemText,
  viewRequest,
  type RequestView,
} from './conversation';
import { RateLimiter } from './limits';
import { defaultPolicy } from './policy';
import { completeReply, errorBody, estimateInputTokens, requestDigest, type SimMessage } from './reply';
import { parseSimScript, ScriptRunner } from './script';
import { formatEvent, streamEvents } from './sse';
import type { SimLogEntry, SimOptions, SimScript, SimServer, SimStats } from './types';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** nginx's "client closed request": the caller went away before the answer was sent. */
const CLIENT_CLOSED = 499;

/** What the sim decided to answer, before the delay. */
type Answer =
  | { kind: 'json'; status: number; headers?: Record<string, string>; body: unknown; delayMs?: number }
  | { kind: 'message'; message: SimMessage; stream: boolean; delayMs?: number }
  | { kind: 'drop'; delayMs?: number };

/** Logged for a connection the sim closed without answering (a `drop` rule). */
const DROPPED = 0;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

type LogFields = Omit<SimLogEntry, 'start' | 'end' | 'status'>;

/**
 * Starts the simulated Messages API server.
 *
 * @example
 * const sim = await startSim({ latencyMs: 20 });
 * const client = new Anthropic({ apiKey: 'test', baseURL: sim.url, maxRetries: 0 });
 * // ... client.messages.create(...)
 * await sim.close();
 */
export async function startSim(opts: SimOptions = {}): Promise<SimServer> {
  checkOptions(opts);
  const sim = new Sim(opts);
  const server = http.createServer((req, res) => {
    sim.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, {}, errorBody(500, `sim internal error: ${(err as Error).message}`));
      else res.destroy();
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    stats: () => sim.stats(),
    reset: () => sim.reset(),
    setScript: (s) => sim.setScript(s),
    close: () =>
      new Promise<void>((resolve, reject) => {
        sim.shutdown();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function checkOptions(o: SimOptions): void {
  const bad = (name: string, want: string, got: unknown) => {
    throw new RangeError(`sim option ${name}: expected ${want}, got ${JSON.stringify(got)}`);
  };
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) bad('port', 'an integer 0-65535', o.port);
  if (o.latencyMs !== undefined && !(Number.isFinite(o.latencyMs) && o.latencyMs >= 0)) bad('latencyMs', 'a number >= 0', o.latencyMs);
  if (o.rpm !== undefined && !(Number.isInteger(o.rpm) && o.rpm >= 1)) bad('rpm', 'an integer >= 1', o.rpm);
  if (o.tpm !== undefined && !(Number.isInteger(o.tpm) && o.tpm >= 1)) bad('tpm', 'an integer >= 1', o.tpm);
  if (o.rateWindowMs !== undefined && !(Number.isInteger(o.rateWindowMs) && o.rateWindowMs >= 100)) bad('rateWindowMs', 'an integer >= 100', o.rateWindowMs);
  if (o.failRate !== undefined && !(o.failRate >= 0 && o.failRate <= 1)) bad('failRate', 'a number between 0 and 1', o.failRate);
}

class Sim {
  private runner?: ScriptRunner;
  private readonly limiter: RateLimiter;
  private log: SimLogEntry[] = [];
  private byStatus: Record<string, number> = {};
  private inFlight = 0;
  private maxConcurrent = 0;
  private nextRequestId = 1;
  private closed = false;
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();

  constructor(private readonly opts: SimOptions) {
    this.setScript(opts.script);
    this.limiter = new RateLimiter(opts.rpm, opts.tpm, opts.rateWindowMs);
  }

  setScript(script: SimScript | undefined): void {
    this.runner = script ? new ScriptRunner(parseSimScript(script, 'sim script')) : undefined;
  }

  stats(): SimStats {
    return structuredClone({
      requests: this.log.length,
      by_status: this.byStatus,
      max_concurrent: this.maxConcurrent,
      log: this.log,
    });
  }

  reset(): void {
    this.log = [];
    this.byStatus = {};
    this.maxConcurrent = this.inFlight;
    this.limiter.reset();
    if (this.runner) this.runner = new ScriptRunner(this.runner.script);
  }

  /** Ends pending delays so close() does not wait for them. */
  shutdown(): void {
    this.closed = true;
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.sleepers.clear();
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sim').pathname.replace(/\/+$/, '') || '/';
    const route = `${req.method} ${path}`;
    if (route === 'POST /v1/messages') return this.handleMessages(req, res);
    const headers = { 'request-id': this.requestId() };
    if (route === 'GET /_sim/stats') return sendJson(res, 200, headers, this.stats());
    if (route === 'POST /_sim/reset') {
      this.reset();
      return sendJson(res, 200, headers, { ok: true });
    }
    try {
      if (route === 'POST /v1/messages/count_tokens') {
        this.authenticate(req);
        const parsed = countTokensRequestSchema.safeParse(parseJson(await readBody(req)));
        if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error));
        return sendJson(res, 200, headers, { input_tokens: estimateInputTokens(parsed.data) });
      }
      if (req.method === 'GET' && path.startsWith('/v1/models')) {
        this.authenticate(req);
        return sendJson(res, 200, headers, modelsResponse(path.slice('/v1/models'.length).replace(/^\//, '')));
      }
      throw new HttpError(404, `sim: no route ${route}`);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      return sendJson(res, err.status, headers, errorBody(err.status, err.message));
    }
  }

  private async handleMessages(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const start = Date.now();
    this.inFlight++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.inFlight);
    let clientGone = false;
    let wake: (() => void) | undefined;
    res.on('close', () => {
      if (!res.writableFinished) clientGone = true;
      // A caller that went away is logged (499) now, not when the delay would have ended.
      wake?.();
    });
    const fields: LogFields = { model: '', system: '', last_user: '', turn: 0, tools: [], stream: false };
    let status = 500;
    let retryAfter: string | undefined;
    try {
      let answer: Answer;
      try {
        answer = await this.decide(req, fields);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        answer = { kind: 'json', status: err.status, body: errorBody(err.status, err.message) };
      }
      if (!clientGone) {
        await Promise.race([this.sleep((this.opts.latencyMs ?? 0) + (answer.delayMs ?? 0)), new Promise<void>((r) => (wake = r))]);
      }
      if (clientGone || this.closed) {
        status = CLIENT_CLOSED;
        return;
      }
      if (answer.kind === 'drop') {
        status = DROPPED;
        req.socket.destroy();
        return;
      }
      status = answer.kind === 'json' ? answer.status : 200;
      if (answer.kind === 'json') retryAfter = answer.headers?.['retry-after'];
      const headers = { 'request-id': this.requestId(), ...this.limiter.headers(Date.now()) };
      if (answer.kind === 'json') sendJson(res, answer.status, { ...headers, ...answer.headers }, answer.body);
      else if (answer.stream) sendStream(res, headers, answer.message);
      else sendJson(res, 200, headers, answer.message);
    } finally {
      this.inFlight--;
      const entry: SimLogEntry = { start, end: Date.now(), status, ...fields, ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}) };
      this.log.push(entry);
      this.byStatus[String(status)] = (this.byStatus[String(status)] ?? 0) + 1;
      try {
        this.opts.onRequest?.(entry);
      } catch {
        // A logging callback must not break the answer that was already sent.
      }
    }
  }

  /** Auth, validation, rate limits, faults, then the script or the default policy. */
  private async decide(req: http.IncomingMessage, fields: LogFields): Promise<Answer> {
    const raw = parseJson(await readBody(req));
    Object.assign(fields, looseLogFields(raw));
    this.authenticate(req);
    const parsed = messagesRequestSchema.safeParse(raw);
    if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error));
    const request = parsed.data;
    const view = viewRequest(request);
    Object.assign(fields, logFields(view), { digest: requestDigest(request) });

    const admission = this.limiter.admit(estimateInputTokens(request), Date.now());
    if (!admission.ok) {
      const retryAfter = String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
      return { kind: 'json', status: 429, headers: { 'retry-after': retryAfter }, body: errorBody(429, admission.message) };
    }
    if (this.opts.failRate && Math.random() < this.opts.failRate) {
      const overloaded = Math.random() < 0.5;
      const status = overloaded ? 529 : 500;
      return { kind: 'json', status, body: errorBody(status, overloaded ? 'Overloaded (simulated)' : 'Internal server error (simulated)') };
    }

    const hit = this.runner?.take(view);
    let message: SimMessage;
    if (hit?.rule.drop) {
      return { kind: 'drop', delayMs: hit.rule.delay_ms };
    } else if (hit?.rule.error) {
      const e = hit.rule.error;
      const body = e.body !== undefined ? e.body : errorBody(e.status, `Simulated error from sim script rule ${hit.index}.`);
      return { kind: 'json', status: e.status, headers: e.headers, body, delayMs: hit.rule.delay_ms };
    } else if (hit?.rule.reply) {
      message = completeReply(hit.rule.reply, request, requestDigest(request));
    } else if (this.runner && this.runner.fallback === 'error') {
      const message = `sim script: no rule matched (turn ${view.turn}, last user: ${JSON.stringify(view.lastUser.slice(0, 80))})`;
      return { kind: 'json', status: 500, body: errorBody(500, message) };
    } else {
      message = completeReply(defaultPolicy(view), request, requestDigest(request));
    }
    this.limiter.recordOutput(message.usage.output_tokens, Date.now());
    return { kind: 'message', message, stream: view.stream, delayMs: hit?.rule.delay_ms };
  }

  /** Without a configured key any key is accepted; with one, `x-api-key` or a Bearer token must equal it. */
  private authenticate(req: http.IncomingMessage): void {
    if (this.opts.apiKey === undefined) return;
    const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    const key = (req.headers['x-api-key'] as string | undefined) ?? bearer;
    if (key !== this.opts.apiKey) throw new HttpError(401, key ? 'invalid x-api-key' : 'x-api-key header is required');
  }

  private requestId(): string {
    return `req_sim_${String(this.nextRequestId++).padStart(6, '0')}`;
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve();
        }, ms),
        resolve,
      };
      this.sleepers.add(sleeper);
    });
  }
}

function logFields(view: RequestView): LogFields {
  return {
    model: view.model,
    system: view.system,
    last_user: view.lastUser,
    turn: view.turn,
    tools: view.toolNames,
    stream: view.stream,
  };
}

/** Best-effort log fields for requests that fail validation, so they still show up usefully. */
function looseLogFields(raw: unknown): Partial<LogFields> {
  if (!raw || typeof raw !== 'object') return {};
  const r = raw as Record<string, unknown>;
  const out: Partial<LogFields> = { stream: r.stream === true };
  if (typeof r.model === 'string') out.model = r.model;
  if (typeof r.system === 'string') out.system = r.system;
  else if (Array.isArray(r.system)) {
    out.system = systemText(r.system.filter((b): b is { type: string; text?: string } => !!b && typeof b === 'object'));
  }
  if (Array.isArray(r.tools)) out.tools = r.tools.map((t: { name?: unknown }) => String(t?.name ?? ''));
  return out;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `body: not valid JSON: ${(err as Error).message}`);
  }
}

function sendJson(res: http.ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendStream(res: http.ServerResponse, headers: Record<string, string>, message: SimMessage): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  for (const e of streamEvents(message)) res.write(formatEvent(e));
  res.end();
}

const SIM_MODELS = [...new Set([...Object.values(BUILTIN_MODELS), 'claude-sonnet-4-0', 'claude-3-5-haiku-latest'])];

function modelsResponse(id: string): unknown {
  const info = (m: string) => ({ type: 'model', id: m, display_name: `${m} (simulated)`, created_at: '2025-01-01T00:00:00Z' });
  if (id) {
    // Any id is "known": the sim answers for whatever model the team names.
    return info(decodeURIComponent(id));
  }
  const data = SIM_MODELS.map(info);
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}
