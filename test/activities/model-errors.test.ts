import { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { classifyModelError, retryAfterMs } from '../../src/activities/model-errors';
import { MODEL_ERROR_TYPES, NON_RETRYABLE_MODEL_ERRORS } from '../../src/shared/activity-types';

function apiError(status: number, headers: Record<string, string> = {}, message = 'something went wrong'): APIError {
  const type = status === 429 ? 'rate_limit_error' : status === 400 ? 'invalid_request_error' : 'api_error';
  return APIError.generate(
    status,
    { type: 'error', error: { type, message } },
    undefined,
    new Headers({ 'request-id': 'req_123', ...headers }),
  );
}

describe('classifyModelError', () => {
  it.each([
    [429, MODEL_ERROR_TYPES.rateLimited],
    [529, MODEL_ERROR_TYPES.overloaded],
    [500, MODEL_ERROR_TYPES.server],
    [502, MODEL_ERROR_TYPES.server],
    [503, MODEL_ERROR_TYPES.server],
    [408, MODEL_ERROR_TYPES.connection],
  ])('retries HTTP %i as %s', (status, type) => {
    const failure = classifyModelError(apiError(status));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it.each([
    [400, MODEL_ERROR_TYPES.invalidRequest],
    [401, MODEL_ERROR_TYPES.authentication],
    [403, MODEL_ERROR_TYPES.permission],
    [404, MODEL_ERROR_TYPES.notFound],
    [413, MODEL_ERROR_TYPES.invalidRequest],
  ])('does not retry HTTP %i (%s)', (status, type) => {
    const failure = classifyModelError(apiError(status));
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    expect(NON_RETRYABLE_MODEL_ERRORS).toContain(type);
  });

  it('tells people the status, the provider message and the request id', () => {
    const failure = classifyModelError(apiError(400, {}, 'max_tokens: must be at most 8192'));
    expect(failure.message).toContain('400');
    expect(failure.message).toContain('max_tokens: must be at most 8192');
    expect(failure.message).toContain('req_123');
  });

  it('takes nextRetryDelay from retry-after-ms', () => {
    const failure = classifyModelError(apiError(429, { 'retry-after-ms': '1500', 'retry-after': '9' }));
    expect(failure.nextRetryDelay).toBe(1500);
  });

  it('takes nextRetryDelay from retry-after in seconds', () => {
    const failure = classifyModelError(apiError(529, { 'retry-after': '7' }));
    expect(failure.type).toBe(MODEL_ERROR_TYPES.overloaded);
    expect(failure.nextRetryDelay).toBe(7000);
  });

  it('takes nextRetryDelay from retry-after as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const failure = classifyModelError(apiError(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now);
    expect(failure.nextRetryDelay).toBe(30_000);
  });

  it('ignores retry-after values that are garbage or in the past', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'x', 'retry-after': '2' }), now)).toBe(2000);
  });

  it('obeys x-should-retry: false', () => {
    const failure = classifyModelError(apiError(500, { 'x-should-retry': 'false', 'retry-after': '5' }));
    expect(failure.type).toBe(MODEL_ERROR_TYPES.server);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('classifies an error event inside a stream by its body type', () => {
    const err = new APIError(
      undefined,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      new Headers(),
    );
    const failure = classifyModelError(err);
    expect(failure.type).toBe(MODEL_ERROR_TYPES.overloaded);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('Overloaded');
  });

  it('retries timeouts and connection errors', () => {
    const timeout = classifyModelError(new APIConnectionTimeoutError());
    expect(timeout.type).toBe(MODEL_ERROR_TYPES.timeout);
    expect(timeout.nonRetryable).toBe(false);

    const refused = new Error('connect ECONNREFUSED 127.0.0.1:9');
    const connection = classifyModelError(new APIConnectionError({ cause: refused }));
    expect(connection.type).toBe(MODEL_ERROR_TYPES.connection);
    expect(connection.nonRetryable).toBe(false);
    expect(connection.message).toContain('ECONNREFUSED');
  });

  it('leaves an ApplicationFailure as it is', () => {
    const original = ApplicationFailure.create({ type: 'ConversationCacheMiss', nonRetryable: true, message: 'x' });
    expect(classifyModelError(original)).toBe(original);
  });
});
