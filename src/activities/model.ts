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

const KEEP_ALIVE_MS = 5_000;

export interface ModelConfig {
  /** Read from the worker's environment at start-up; never part of a workflow input. */
  apiKey?: string;
  /** An Anthropic-compatible endpoint (the simulator, a proxy). Defaults to the SDK's. */
  baseURL?: string;
  /** Per-request HTTP timeout; keep it below the activity's startToCloseTimeout. */
  timeoutMs?: number;
}

/**
 * The `callModel` activity: one Messages API call per attempt.
 *
 * The SDK's retries are off (`maxRetries: 0`) so every attempt is a visible, durable Temporal
 * attempt; errors are classified by {@link classifyModelError}.
 */
export function createModelActivities(config: ModelConfig, store = new ConversationStore()) {
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
    const keepAlive = setInterval(() => ctx.heartbeat(), KEEP_ALIVE_MS);
    try {
      // Streaming keeps long generations inside HTTP timeouts; the activity's signal aborts the
      // request when Temporal cancels the activity.
      const stream = client.messages.stream(params, { signal: ctx.cancellationSignal });
      stream.on('streamEvent', () => ctx.heartbeat());
      message = await stream.finalMessage();
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw cancellation(ctx);
      throw classifyModelError(err);
    } finally {
      clearInterval(keepAlive);
    }

    const reply = toModelReply(message);
    const conversation: ChatMessage[] = [...messages, { role: 'assistant', content: reply.content }];
    store.remember(input.conversation.key, conversation);
    return { reply, cached: conversation.length };
  }

  return { callModel };
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
