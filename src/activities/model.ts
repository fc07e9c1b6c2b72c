import Anthropic from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CallModelInput, CallModelOutput } from '../shared/activity-types';
import { MODEL_ERROR_TYPES } from '../shared/activity-types';
import type { ChatMessage, ContentBlock, ModelReply, StopReason, Usage } from '../shared/messages-api';
import { ConversationStore } from './conversation-store';
import { classifyModelError } from './model-errors';
import { recordModelCall } from './metrics';
import { RatePacer, estimateTokens } from './rate-pacer';

const KEEP_ALIVE_MS = 5_000;
/**
 * Temporal refuses payloads over 2 MB (and the activity would be retried with the same result
 * forever). A reply this big is a runaway generation, not something to carry in history.
 */
export const DEFAULT_MAX_RESULT_BYTES = 1_500_000;

export interface ModelConfig {
  /** Read from the worker's environment at start-up; never part of a workflow input. */
  apiKey?: string;
  /** An Anthropic-compatible endpoint (the simulator, a proxy). Defaults to the SDK's. */
  baseURL?: string;
  /** Per-request HTTP timeout; keep it below the activity's startToCloseTimeout. */
  timeoutMs?: number;
  /** Wait for the provider's rate-limit reset instead of sending a request it would refuse. Default true. */
  pacing?: boolean;
  /** Largest activity result, in bytes of JSON; a bigger reply fails once, non-retryably. */
  maxResultBytes?: number;
}

/**
 * The `callModel` activity: one Messages API call per attempt.
 *
 * The SDK's retries are off (`maxRetries: 0`) so every attempt is a visible, durable Temporal
 * attempt; errors are classified by {@link classifyModelError}.
 */
export function createModelActivities(config: ModelConfig, store = new ConversationStore()) {
  // One pacer per worker process: every model call of this worker shares what the headers said.
  const pacer = config.pacing === false ? undefined : new RatePacer();
  const maxResultBytes = config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const client = config.apiKey
    ? new Anthropic({
        apiKey: config.apiKey,
        authToken: null,
        baseURL: config.baseURL,
        timeout: config.timeoutMs,
        maxRetries: 0,
      })
    : undefined;

  async function callModel(input: CallModelInput): Promise<CallModelOutput> {
    if (!client) {
      throw ApplicationFailure.create({
        type: MODEL_ERROR_TYPES.authentication,
        nonRetryable: true,
        message: 'ANTHROPIC_API_KEY is not set on the worker (needed to call the model API)',
      });
    }
    const ctx = Context.current();
    const messages = store.resolve(input.conversation);
    const params: MessageCreateParamsNonStreaming = {
      model: input.model,
      max_tokens: input.maxTokens,
      // Cohort's shapes are Messages API JSON; the SDK's param types are stricter than what we pass through.
      messages: messages as unknown as MessageParam[],
      ...(input.system ? { system: input.system } : {}),
      ...(input.tools.length > 0 ? { tools: input.tools as unknown as Tool[] } : {}),
      // `none` keeps tool definitions (required once tool blocks are in the conversation) but forbids using them.
      ...(input.tools.length > 0 && input.toolChoice ? { tool_choice: { type: input.toolChoice } } : {}),
    };

    let message: Message;
    // Heartbeats show the worker is alive and are how a real worker learns of a cancellation.
    // Stream events drive them; the timer covers a slow first token. The worker throttles them.
    ctx.heartbeat();
    if (pacer) {
      const waited = await pacer
        .acquire(estimateTokens([params.system, params.messages, params.tools]), {
          heartbeat: () => ctx.heartbeat(),
          signal: ctx.cancellationSignal,
          heartbeatMs: KEEP_ALIVE_MS,
        })
        .catch(() => {
          throw cancellation(ctx);
        });
      if (waited > 0) ctx.log.info('model call paced by provider rate limit', { agentId: input.agentId, waitedMs: waited });
    }
    const keepAlive = setInterval(() => ctx.heartbeat(), KEEP_ALIVE_MS);
    try {
      // Streaming keeps long generations inside HTTP timeouts; the activity's signal aborts the
      // request when Temporal cancels the activity.
      const stream = client.messages.stream(params, { signal: ctx.cancellationSignal });
      stream.on('connect', () => pacer?.observe(stream.response?.headers));
      stream.on('streamEvent', () => ctx.heartbeat());
      message = await stream.finalMessage();
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw cancellation(ctx);
      pacer?.observe((err as { headers?: Headers } | null)?.headers);
      const failure = classifyModelError(err);
      recordModelCall(input.model, failure.type ?? 'error');
      throw failure;
    } finally {
      clearInterval(keepAlive);
    }

    const reply = toModelReply(message);
    recordModelCall(input.model, 'ok', reply.usage);
    const output: CallModelOutput = { reply, cached: messages.length + 1 };
    assertResultFits(output, maxResultBytes, input.agentId);
    const conversation: ChatMessage[] = [...messages, { role: 'assistant', content: reply.content }];
    store.remember(input.conversation.key, conversation);
    return output;
  }

  return { callModel };
}

/**
 * Fails once, non-retryably, when the result would not fit in a Temporal payload: retrying
 * would get the same oversized reply again (and pay for it), and the server's own refusal is an
 * opaque workflow-task failure that never ends.
 */
function assertResultFits(output: CallModelOutput, maxBytes: number, agentId: string): void {
  const bytes = Buffer.byteLength(JSON.stringify(output), 'utf8');
  if (bytes <= maxBytes) return;
  throw ApplicationFailure.create({
    type: MODEL_ERROR_TYPES.payloadTooLarge,
    nonRetryable: true,
    message:
      `model reply for agent ${agentId} is ${(bytes / 1e6).toFixed(2)} MB, over the ${(maxBytes / 1e6).toFixed(2)} MB ` +
      `limit for one Temporal payload (lower the agent's max_tokens)`,
    details: [{ agentId, bytes, maxBytes }],
  });
}

function cancellation(ctx: Context): Error {
  const reason: unknown = ctx.cancellationSignal.reason;
  return reason instanceof Error ? reason : new CancelledFailure('model call cancelled');
}

/** Map the SDK's Message to the plain JSON that goes into workflow history. */
export function toModelReply(message: Message): ModelReply {
  return {
    id: message.id,
    model: message.model,
    content: message.content.map(toContentBlock),
    stop_reason: toStopReason(message.stop_reason),
    usage: toUsage(message.usage),
  };
}

function toContentBlock(block: Message['content'][number]): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: toRecord(block.input) };
    default:
      // Server tool blocks, thinking blocks...: passed back to the API unchanged on the next turn.
      return JSON.parse(JSON.stringify(block)) as ContentBlock;
  }
}

function toRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (JSON.parse(JSON.stringify(value)) as Record<string, unknown>)
    : {};
}

function toStopReason(reason: Message['stop_reason']): StopReason | null {
  // A full context window cuts the reply off just as max_tokens does.
  if (reason === 'model_context_window_exceeded') return 'max_tokens';
  return reason;
}

function toUsage(usage: Message['usage']): Usage {
  const out: Usage = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens };
  if (typeof usage.cache_creation_input_tokens === 'number') {
    out.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  }
  if (typeof usage.cache_read_input_tokens === 'number') out.cache_read_input_tokens = usage.cache_read_input_tokens;
  return out;
}
