import { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { MODEL_ERROR_TYPES } from '../shared/activity-types';

type ModelErrorType = (typeof MODEL_ERROR_TYPES)[keyof typeof MODEL_ERROR_TYPES];

interface Classification {
  type: ModelErrorType;
  retryable: boolean;
}

const BY_STATUS: Record<number, Classification> = {
  400: { type: MODEL_ERROR_TYPES.invalidRequest, retryable: false },
  401: { type: MODEL_ERROR_TYPES.authentication, retryable: false },
  403: { type: MODEL_ERROR_TYPES.permission, retryable: false },
  404: { type: MODEL_ERROR_TYPES.notFound, retryable: false },
  408: { type: MODEL_ERROR_TYPES.connection, retryable: true },
  // The SDK retries 409 (a lock timeout at the provider); so do we.
  409: { type: MODEL_ERROR_TYPES.server, retryable: true },
  429: { type: MODEL_ERROR_TYPES.rateLimited, retryable: true },
  529: { type: MODEL_ERROR_TYPES.overloaded, retryable: true },
};

/** Errors sent inside a stream (`event: error`) have no HTTP status, only the body's error type. */
const BY_BODY_TYPE: Record<string, Classification> = {
  invalid_request_error: BY_STATUS[400],
  authentication_error: BY_STATUS[401],
  permission_error: BY_STATUS[403],
  not_found_error: BY_STATUS[404],
  rate_limit_error: BY_STATUS[429],
  overloaded_error: BY_STATUS[529],
  api_error: { type: MODEL_ERROR_TYPES.server, retryable: true },
};

function classifyStatus(status: number): Classification {
  const known = BY_STATUS[status];
  if (known) return known;
  if (status >= 500) return { type: MODEL_ERROR_TYPES.server, retryable: true };
  // Other 4xx (413 too large, 422...) will fail the same way on every attempt.
  return { type: MODEL_ERROR_TYPES.invalidRequest, retryable: false };
}

/**
 * How long the provider asked us to wait, in ms: `retry-after-ms`, else `retry-after` in seconds
 * or as an HTTP date. Undefined when absent, unparseable or not in the future.
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value > 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isFinite(date) && date > now ? date - now : undefined;
}

function describe(err: APIError, label: string): string {
  const parts = [`model call failed: ${label}`];
  const detail = err.apiMessage ?? (err.status === undefined ? err.message : undefined);
  if (detail) parts.push(`: ${detail}`);
  if (err.requestID) parts.push(` (request-id ${err.requestID})`);
  return parts.join('');
}

/**
 * Turn an error from `@anthropic-ai/sdk` into the `ApplicationFailure` Temporal retries (or not).
 *
 * The SDK's own retries are off, so this is where the provider's advice is obeyed:
 * `retry-after-ms` / `retry-after` become `nextRetryDelay`, and `x-should-retry: false` makes
 * any error non-retryable.
 */
export function classifyModelError(err: unknown, now: number = Date.now()): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;

  // Check the timeout first: it is a subclass of APIConnectionError.
  if (err instanceof APIConnectionTimeoutError) {
    return ApplicationFailure.create({
      type: MODEL_ERROR_TYPES.timeout,
      message: `model call failed: request timed out (${err.message})`,
    });
  }
  if (err instanceof APIConnectionError) {
    return ApplicationFailure.create({
      type: MODEL_ERROR_TYPES.connection,
      message: `model call failed: could not reach the model API (${causeChain(err).join(': ')})`,
    });
  }
  if (err instanceof APIError) {
    const status: number | undefined = err.status;
    const bodyType = err.type ?? undefined;
    let classification: Classification;
    let label: string;
    if (status !== undefined) {
      classification = classifyStatus(status);
      label = bodyType ? `HTTP ${status} ${bodyType}` : `HTTP ${status}`;
    } else {
      classification = (bodyType && BY_BODY_TYPE[bodyType]) || { type: MODEL_ERROR_TYPES.server, retryable: true };
      label = `error in stream${bodyType ? ` (${bodyType})` : ''}`;
    }
    const shouldRetry = err.headers?.get('x-should-retry');
    const retryable = classification.retryable && shouldRetry !== 'false';
    const delay = retryable ? retryAfterMs(err.headers, now) : undefined;
    const advice = shouldRetry === 'false' && classification.retryable ? ' [provider says: do not retry]' : '';
    return ApplicationFailure.create({
      type: classification.type,
      message: describe(err, label) + advice,
      nonRetryable: !retryable,
      nextRetryDelay: delay,
      details: [{ status: status ?? null, requestId: err.requestID ?? null }],
    });
  }

  // Anything else (a malformed stream, a bug in mapping) is unexpected: let Temporal retry it.
  return ApplicationFailure.create({
    type: MODEL_ERROR_TYPES.server,
    message: `model call failed: ${messageOf(err) ?? String(err)}`,
  });
}

/** The messages of an error and its causes: fetch hides the useful one (ECONNREFUSED...) two levels down. */
function causeChain(err: unknown): string[] {
  const messages: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const message = messageOf(e);
    if (message && !messages.includes(message)) messages.push(message.replace(/\.$/, ''));
    e = (e as { cause?: unknown }).cause;
  }
  return messages;
}

/** Duck-typed: errors from Node's own realm (undici's) fail `instanceof Error` under jest. */
function messageOf(err: unknown): string | undefined {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}
