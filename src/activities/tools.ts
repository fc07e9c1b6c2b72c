import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CancelledFailure, Context } from '@temporalio/activity';
import type { RunToolInput, RunToolOutput } from '../shared/activity-types';
import { CLIENT_TOOLS } from '../shared/tools';
import { htmlToText, looksLikeHtml } from './html-text';

export interface ToolConfig {
  /** `read_file` reads only inside this directory. */
  workDir: string;
  fetchTimeoutMs?: number;
}

const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Bytes read from a response or file before giving up on the rest: results are cut far shorter anyway. */
const MAX_READ_BYTES = 5 * 1024 * 1024;

/** A failure the model should see and can recover from (a bad URL, a missing file...). */
export class ToolError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

type ToolHandler = (input: Record<string, unknown>, signal: AbortSignal) => Promise<string>;

/**
 * The `runTool` activity: Cohort's built-in client tools (`CLIENT_TOOLS`). Failures are returned
 * as `{"error": {type, message}}` results with `isError: true`, never thrown, so the model sees
 * them and can recover; only a cancellation of the activity is thrown.
 */
export function createToolActivities(config: ToolConfig) {
  const workDir = path.resolve(config.workDir);
  const fetchTimeoutMs = config.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const handlers: Record<string, ToolHandler> = {
    web_fetch: (input, signal) => webFetch(input, signal, fetchTimeoutMs),
    read_file: (input) => readFile(input, workDir),
  };

  async function runTool(input: RunToolInput): Promise<RunToolOutput> {
    const handler = handlers[input.name];
    if (!handler) {
      const known = Object.keys(handlers).join(', ');
      return toolError(new ToolError('unknown_tool', `unknown tool "${input.name}"; this worker runs: ${known}`));
    }
    const signal = Context.current().cancellationSignal;
    try {
      const text = await handler(input.input ?? {}, signal);
      return { content: truncateResult(text, input.maxResultChars), isError: false };
    } catch (err) {
      if (signal.aborted) {
        throw signal.reason instanceof Error ? signal.reason : new CancelledFailure(`${input.name} cancelled`);
      }
      if (err instanceof ToolError) return toolError(err);
      const message = (err as { message?: unknown } | null)?.message;
      const why = typeof message === 'string' ? message : String(err);
      return toolError(new ToolError('tool_failed', `${input.name} failed: ${why}`));
    }
  }

  return { runTool };
}

function toolError(err: ToolError): RunToolOutput {
  return { content: JSON.stringify({ error: { type: err.type, message: err.message, ...err.extra } }), isError: true };
}

/** Cut `text` to `maxChars`, with a marker the model can see. */
export function truncateResult(text: string, maxChars: number): string {
  if (!(maxChars > 0) || text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[truncated: ${text.length} chars total, showing the first ${maxChars}]`;
}

function requireString(input: Record<string, unknown>, key: string, tool: string): string {
  const value = input[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ToolError('invalid_input', `${tool} needs a non-empty "${key}" string, got ${JSON.stringify(value)}`);
  }
  return value.trim();
}

async function webFetch(input: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const raw = requireString(input, 'url', CLIENT_TOOLS.web_fetch.name);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError('invalid_input', `not an absolute URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('invalid_input', `web_fetch fetches only http(s) URLs, not ${url.protocol} (${raw})`);
  }

  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      signal: AbortSignal.any([signal, timeout]),
      headers: { 'user-agent': 'Cohort web_fetch', accept: 'text/html, text/plain;q=0.9, */*;q=0.5' },
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ToolError('http_error', `GET ${url.href} returned ${response.status} ${response.statusText}`.trim(), {
        status: response.status,
      });
    }
    const contentType = response.headers.get('content-type');
    if (contentType && !isTextual(contentType)) {
      await response.body?.cancel();
      throw new ToolError('unsupported_content', `GET ${url.href} returned ${contentType}, which is not text`);
    }
    const { text, capped } = await readCapped(response, MAX_READ_BYTES);
    const readable = looksLikeHtml(contentType, text) ? htmlToText(text) : text;
    return capped ? `${readable}\n[cut: the response is larger than ${MAX_READ_BYTES} bytes]` : readable;
  } catch (err) {
    if (err instanceof ToolError || signal.aborted) throw err;
    if (timeout.aborted) throw new ToolError('timeout', `GET ${url.href} took longer than ${timeoutMs} ms`);
    throw new ToolError('fetch_failed', `GET ${url.href} failed: ${describeFetchError(err)}`);
  }
}

function isTextual(contentType: string): boolean {
  return /^text\/|json|xml|javascript|ecmascript|x-www-form-urlencoded/i.test(contentType);
}

/** undici reports "fetch failed" and hides the reason (ECONNREFUSED, ENOTFOUND...) in `cause`. */
function describeFetchError(err: unknown): string {
  // Duck-typed: undici's errors come from Node's own realm, so `instanceof Error` can fail (jest).
  const { message, cause } = (err ?? {}) as { message?: unknown; cause?: { message?: unknown; code?: unknown } };
  if (typeof message !== 'string') return String(err);
  if (cause && typeof cause.message === 'string') {
    const code = typeof cause.code === 'string' && !cause.message.includes(cause.code) ? `${cause.code}: ` : '';
    return `${message} (${code}${cause.message})`;
  }
  return message;
}

async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; capped: boolean }> {
  if (!response.body) return { text: '', capped: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), capped: false };
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel();
      return { text: text + decoder.decode(value.subarray(0, value.byteLength - (bytes - maxBytes))), capped: true };
    }
    text += decoder.decode(value, { stream: true });
  }
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

async function readFile(input: Record<string, unknown>, workDir: string): Promise<string> {
  const requested = requireString(input, 'path', CLIENT_TOOLS.read_file.name);
  const outside = new ToolError(
    'path_outside_workdir',
    `${requested} is outside the working directory; read_file reads only files under ${workDir}`,
  );
  const target = path.resolve(workDir, requested);
  if (!isInside(workDir, target)) throw outside;

  let real: string;
  try {
    real = await fs.realpath(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ToolError('not_found', `no such file: ${requested} (in ${workDir})`);
    }
    throw err;
  }
  // A symlink inside the directory must not lead out of it.
  if (!isInside(await fs.realpath(workDir), real)) throw outside;

  const stat = await fs.stat(real);
  if (stat.isDirectory()) throw new ToolError('is_directory', `${requested} is a directory, not a file`);

  const handle = await fs.open(real, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_READ_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) throw new ToolError('binary_file', `${requested} is a binary file, not UTF-8 text`);
    const text = bytes.toString('utf8');
    if (stat.size <= MAX_READ_BYTES) return text;
    return `${text}\n[cut: the file has ${stat.size} bytes; only the first ${MAX_READ_BYTES} were read]`;
  } finally {
    await handle.close();
  }
}
