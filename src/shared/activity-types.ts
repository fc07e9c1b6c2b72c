import type { ChatMessage, ModelReply, ToolDefinition } from './messages-api';

/**
 * How a conversation reaches `callModel`. Sending the whole conversation in every activity input
 * makes history grow quadratically with turns, so the workflow sends only the messages the
 * worker has not seen (`from` > 0) and the worker keeps the prefix in a cache. On a cache miss
 * (another worker, a restart) the activity fails with type `ConversationCacheMiss` and the
 * workflow resends the whole conversation (`from` = 0). See src/workflows/model.ts.
 */
export interface ConversationDelta {
  /** Stable per agent conversation, e.g. `<workflowId>#<agentId>`. */
  key: string;
  /** Index of the first message in `messages` within the whole conversation. */
  from: number;
  messages: ChatMessage[];
}

export interface CallModelInput {
  /** Instance id of the calling agent, for logs and activity summaries. */
  agentId: string;
  model: string;
  system: string;
  tools: ToolDefinition[];
  maxTokens: number;
  /** `none` keeps the tool definitions (required once tool blocks are in the conversation) but forbids their use. */
  toolChoice?: 'auto' | 'none';
  conversation: ConversationDelta;
}

export interface CallModelOutput {
  reply: ModelReply;
  /** The number of messages the worker's cache now holds for this key (request + reply). */
  cached: number;
}

export interface RunToolInput {
  agentId: string;
  name: string;
  input: Record<string, unknown>;
  /** Results longer than this are truncated with a visible marker. */
  maxResultChars: number;
}

export interface RunToolOutput {
  content: string;
  isError: boolean;
}

/** ApplicationFailure types thrown by callModel. */
export const MODEL_ERROR_TYPES = {
  rateLimited: 'RateLimited',
  overloaded: 'Overloaded',
  server: 'ServerError',
  connection: 'ConnectionError',
  timeout: 'Timeout',
  invalidRequest: 'InvalidRequest',
  authentication: 'AuthenticationError',
  permission: 'PermissionDenied',
  notFound: 'NotFound',
  cacheMiss: 'ConversationCacheMiss',
  /** A reply too big for one Temporal payload (callModel's result guard). */
  payloadTooLarge: 'PayloadTooLarge',
} as const;

export const NON_RETRYABLE_MODEL_ERRORS: string[] = [
  MODEL_ERROR_TYPES.invalidRequest,
  MODEL_ERROR_TYPES.authentication,
  MODEL_ERROR_TYPES.permission,
  MODEL_ERROR_TYPES.notFound,
  MODEL_ERROR_TYPES.cacheMiss,
  MODEL_ERROR_TYPES.payloadTooLarge,
];
