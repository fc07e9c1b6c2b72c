import { createHash } from 'node:crypto';
import type { MessagesRequest } from './conversation';
import type { SimReplyBlock, SimReplyBody } from './types';

/** A complete Messages API response body, as the sim sends it. */
export interface SimMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ResponseBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: { input_tokens: number; output_tokens: number; [key: string]: unknown };
  [key: string]: unknown;
}

export type ResponseBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: string; [key: string]: unknown };

/** The sim's rough tokenizer: about 4 characters per token, as the brief for offline use says. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

export function estimateInputTokens(req: Pick<MessagesRequest, 'system' | 'messages' | 'tools'>): number {
  return estimateTokens(JSON.stringify([req.system ?? '', req.messages, req.tools ?? []]).length);
}

export function estimateOutputTokens(content: ResponseBlock[]): number {
  let chars = 0;
  for (const b of content) {
    if (b.type === 'text') chars += String(b.text).length;
    else if (b.type === 'tool_use') chars += String(b.name).length + JSON.stringify(b.input).length;
    else chars += JSON.stringify(b).length;
  }
  return estimateTokens(chars);
}

/**
 * Ids derive from the request, so the same request always gets the same ids (deterministic
 * output), while each turn of a conversation differs and tool_use ids never collide within one.
 */
export function requestDigest(req: Pick<MessagesRequest, 'model' | 'system' | 'messages' | 'tools'>): string {
  return createHash('sha256')
    .update(JSON.stringify([req.model, req.system ?? '', req.messages, req.tools ?? []]))
    .digest('hex');
}

function isToolUseBlock(b: SimReplyBlock | ResponseBlock): b is { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> } {
  return b.type === 'tool_use';
}

/** Fills in what a scripted or policy reply omitted: ids, model, stop_reason, usage. */
export function completeReply(body: SimReplyBody, req: MessagesRequest, digest: string): SimMessage {
  const raw: SimReplyBlock[] = typeof body.content === 'string' ? [{ type: 'text', text: body.content }] : body.content;
  const content: ResponseBlock[] = raw.map((b, i) =>
    isToolUseBlock(b) ? { type: 'tool_use', id: b.id ?? `toolu_sim_${digest.slice(0, 16)}_${i}`, name: b.name, input: b.input } : { ...b },
  );
  const hasToolUse = content.some((b) => b.type === 'tool_use');
  const usage = {
    ...body.usage,
    input_tokens: body.usage?.input_tokens ?? estimateInputTokens(req),
    output_tokens: body.usage?.output_tokens ?? estimateOutputTokens(content),
  };
  return {
    ...body,
    id: body.id ?? `msg_sim_${digest.slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model: body.model ?? req.model,
    content,
    stop_reason: body.stop_reason !== undefined ? body.stop_reason : hasToolUse ? 'tool_use' : 'end_turn',
    stop_sequence: body.stop_sequence ?? null,
    usage,
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function errorTypeFor(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The Anthropic error body: `{"type":"error","error":{"type":...,"message":...}}`. */
export function errorBody(status: number, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: errorTypeFor(status), message } };
}
