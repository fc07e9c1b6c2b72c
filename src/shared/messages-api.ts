/**
 * The subset of the Anthropic Messages API that crosses Cohort's workflow boundaries.
 * Cohort defines its own shapes (not the SDK's types, which require many fields we never use)
 * so that everything in workflow history is plain JSON we control.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** Server-side tool blocks (web_search results...) are passed through untouched. */
export interface OtherBlock {
  type: string;
  [key: string]: unknown;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | OtherBlock;

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

/** A client tool (runs in Cohort) or a server tool (runs at the provider, e.g. web_search). */
export type ToolDefinition =
  | { name: string; description: string; input_schema: Record<string, unknown> }
  | { type: string; name: string; [key: string]: unknown };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal';

/** What `callModel` returns: one assistant message. */
export interface ModelReply {
  id: string;
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  usage: Usage;
}

export function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

export function isText(block: ContentBlock): block is TextBlock {
  return block.type === 'text';
}

/** The concatenated text of an assistant reply. */
export function replyText(content: ContentBlock[]): string {
  return content
    .filter(isText)
    .map((b) => b.text)
    .join('\n')
    .trim();
}
