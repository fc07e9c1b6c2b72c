/**
 * Public types of the simulated model (DESIGN.md §6). The sim speaks the Anthropic Messages API
 * on loopback so that `cohort run` works offline and tests never need a live model.
 */

export interface SimOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the sim is a local test double, never a public server. */
  host?: string;
  /** Scripted rules; without one every request is answered by the default policy. */
  script?: SimScript;
  /** Added to every /v1/messages answer, errors included. */
  latencyMs?: number;
  /** Requests per minute (sliding one-minute window); above it the sim answers 429. */
  rpm?: number;
  /** Tokens per minute, input + output (sliding one-minute window); above it the sim answers 429. */
  tpm?: number;
  /**
   * Length of the rate-limit window, ms (default 60 000). Limits scale with it: rpm 60 over a
   * 5 s window admits 5 requests per 5 s, so tests see 429s without waiting a minute.
   */
  rateWindowMs?: number;
  /** 0..1: the share of /v1/messages requests answered by a random 500 or 529. */
  failRate?: number;
  /** If set, requests carrying any other key get 401. */
  apiKey?: string;
  /** Called when a /v1/messages request has been answered (the CLI prints these). */
  onRequest?: (entry: SimLogEntry) => void;
}

export interface SimServer {
  /** http://127.0.0.1:PORT — give it to the SDK as `baseURL` or to Cohort as ANTHROPIC_BASE_URL. */
  url: string;
  port: number;
  stats(): SimStats;
  /** Forgets stats, rate-limit windows and rule `times` counters. */
  reset(): void;
  /** Replaces the script (undefined = default policy only); rule counters start again. */
  setScript(s: SimScript | undefined): void;
  close(): Promise<void>;
}

export interface SimStats {
  /** POST /v1/messages requests answered (count_tokens, models and stats are not counted). */
  requests: number;
  /** HTTP status → count. 499 = the client went away before the answer was sent. */
  by_status: Record<string, number>;
  max_concurrent: number;
  /** One entry per answered /v1/messages request, in order of completion. */
  log: SimLogEntry[];
}

export interface SimLogEntry {
  /** ms since the epoch */
  start: number;
  /** ms since the epoch */
  end: number;
  status: number;
  model: string;
  /** The whole system prompt (text blocks joined). */
  system: string;
  /** Text of the last user message: text blocks and tool_result contents joined. */
  last_user: string;
  /** 1 + the number of assistant messages in the request. */
  turn: number;
  /** Names of the tools offered. */
  tools: string[];
  stream: boolean;
  /** sha256 of model, system, messages and tools: equal digests = the same call repeated. */
  digest?: string;
  /** The `retry-after` header sent with an error answer, if any (seconds, as sent). */
  retry_after?: string;
}

/** What a scripted rule tests; every field given must hold. */
export interface SimMatch {
  /** Regex tested against the whole system prompt. */
  system?: string;
  /** Regex tested against the last user message's text. */
  last_user?: string;
  /** Exact turn number (1 = first model call of a conversation). */
  turn?: number;
  /** The request offers a tool with this name. */
  has_tool?: string;
}

/** A content block of a scripted reply; tool_use ids may be omitted. */
export type SimReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> }
  | { type: string; [key: string]: unknown };

/**
 * A Messages API response body. Everything but `content` may be omitted and is filled in:
 * ids, model (the request's), stop_reason (tool_use if any tool_use block, else end_turn) and
 * usage (estimated at 4 characters per token). A string `content` is one text block.
 */
export interface SimReplyBody {
  id?: string;
  type?: 'message';
  role?: 'assistant';
  model?: string;
  content: string | SimReplyBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export interface SimErrorReply {
  status: number;
  headers?: Record<string, string>;
  /** Default: the Anthropic error shape `{"type":"error","error":{"type":...,"message":...}}`. */
  body?: unknown;
}

export interface SimRule {
  match?: SimMatch;
  /** Exactly one of reply, error and drop. */
  reply?: SimReplyBody;
  error?: SimErrorReply;
  /** Close the connection without answering (after `delay_ms`): a dropped connection. Logged as status 0. */
  drop?: boolean;
  delay_ms?: number;
  /** How many times the rule may fire; unlimited if omitted. */
  times?: number;
}

/**
 * A scripted mode for the sim: rules are tried in order and the first that matches answers.
 * `fallback` says what answers when none matches: the default policy (default) or a 500.
 *
 * @example
 * const script: SimScript = {
 *   rules: [{ match: { system: '^You lead', turn: 1 }, reply: { content: 'Hello' }, times: 1 }],
 *   fallback: 'policy',
 * };
 */
export interface SimScript {
  rules: SimRule[];
  fallback?: 'policy' | 'error';
}
