import type { z } from 'zod';
import type { ToolResultBlock, ToolUseBlock } from '../shared/messages-api';

/**
 * Every failure reaches the model as a tool_result with is_error and a JSON body
 * `{"error": {"type", "message"}}`, so the model can recover and the session does not crash.
 */
export function errorResult(block: ToolUseBlock, type: string, message: string): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: block.id,
    is_error: true,
    content: JSON.stringify({ error: { type, message } }),
  };
}

export function okResult(block: ToolUseBlock, content: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: block.id, content };
}

/** Keep a payload the model sees under a size, with a marker it can read. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[truncated: ${text.length} chars total, showing the first ${max}]`;
}

/** Zod issues as one line naming each bad field: `task: Invalid input: expected string`. */
export function parseProblems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
}
