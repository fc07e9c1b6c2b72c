import { z } from 'zod';

/**
 * Parsing and reading of an incoming Messages API request. The sim is lenient about what it does
 * not use but rejects what the real API would reject in ways a caller could get wrong
 * (missing model/messages/max_tokens, bad roles), so client bugs surface in tests too.
 */

const blockSchema = z.looseObject({ type: z.string() });

const messageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(blockSchema)]),
});

const toolSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
  type: z.string().optional(),
});

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(messageSchema).min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: z.looseObject({ type: z.string(), name: z.string().optional() }).optional(),
  stream: z.boolean().optional(),
});

/** count_tokens takes the same body without max_tokens and stream. */
export const countTokensRequestSchema = messagesRequestSchema.omit({ max_tokens: true, stream: true });

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type RequestMessage = z.infer<typeof messageSchema>;
export type RequestTool = z.infer<typeof toolSchema>;
type Block = z.infer<typeof blockSchema>;

export interface ToolResultView {
  toolUseId: string;
  content: string;
  isError: boolean;
}

/** What rules and the default policy look at, computed once per request. */
export interface RequestView {
  model: string;
  system: string;
  lastUser: string;
  turn: number;
  toolNames: string[];
  tools: RequestTool[];
  /** False when tool_choice is {type: "none"} or no tools are offered. */
  toolsAllowed: boolean;
  stream: boolean;
  messages: RequestMessage[];
  /** Any tool_result anywhere in the conversation. */
  hasToolResult: boolean;
  /** tool_results in the last user message, in order. */
  lastToolResults: ToolResultView[];
  /** The latest user text that is not a tool result: the task the agent is working on. */
  task: string;
}

/** Zod issues as one line in the style of the API's own messages: `messages.0.role: ...`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : 'body'}: ${i.message}`)
    .join('; ');
}

function blocks(content: string | Block[]): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The text of a tool_result's content (a string, or text blocks). */
export function toolResultText(block: Block): string {
  const c = block.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((b: unknown) => (b && typeof b === 'object' && (b as Block).type === 'text' ? str((b as Block).text) : ''))
      .filter((t) => t !== '')
      .join('\n');
  }
  return '';
}

export function systemText(system: MessagesRequest['system']): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system.map((b) => b.text ?? '').join('\n');
}

function userText(msg: RequestMessage, withToolResults: boolean): string {
  const parts: string[] = [];
  for (const b of blocks(msg.content)) {
    if (b.type === 'text') parts.push(str(b.text));
    else if (withToolResults && b.type === 'tool_result') parts.push(toolResultText(b));
  }
  return parts.filter((p) => p !== '').join('\n');
}

export function viewRequest(req: MessagesRequest): RequestView {
  const messages = req.messages;
  const users = messages.filter((m) => m.role === 'user');
  const lastUserMsg = users[users.length - 1];
  const lastToolResults: ToolResultView[] = lastUserMsg
    ? blocks(lastUserMsg.content)
        .filter((b) => b.type === 'tool_result')
        .map((b) => ({ toolUseId: str(b.tool_use_id), content: toolResultText(b), isError: b.is_error === true }))
    : [];
  const hasToolResult = users.some((m) => blocks(m.content).some((b) => b.type === 'tool_result'));
  let task = '';
  for (let i = users.length - 1; i >= 0 && task === ''; i--) task = userText(users[i], false);
  const tools = req.tools ?? [];
  return {
    model: req.model,
    system: systemText(req.system),
    lastUser: lastUserMsg ? userText(lastUserMsg, true) : '',
    turn: 1 + messages.filter((m) => m.role === 'assistant').length,
    toolNames: tools.map((t) => t.name),
    tools,
    toolsAllowed: tools.length > 0 && req.tool_choice?.type !== 'none',
    stream: req.stream === true,
    messages,
    hasToolResult,
    lastToolResults,
    task,
  };
}

/** Finds the tool_use block (in any assistant message) with this id. */
export function findToolUse(messages: RequestMessage[], id: string): Block | undefined {
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    const hit = blocks(m.content).find((b) => b.type === 'tool_use' && b.id === id);
    if (hit) return hit;
  }
  return undefined;
}
