/**
 * The agent loop shared by the lead and every subagent (DESIGN.md §4). What differs between them
 * is data (prompt, tools, limits) and the tool executor passed in.
 */
import type { ChatMessage, ContentBlock, ToolDefinition, ToolResultBlock, ToolUseBlock } from '../shared/messages-api';
import { isToolUse, replyText } from '../shared/messages-api';
import type { Price } from '../shared/team';
import { costOf } from '../shared/pricing';
import type { UsageTotals } from '../shared/session-types';
import { ZERO_USAGE, addUsage } from '../shared/session-types';
import type { ModelActivities } from './activities';
import { callModelWithConversation, type ConversationCursor } from './model';

export interface AgentLoopConfig {
  /** Instance id (`lead` or `<sessionId>/<name>-<n>`). */
  agentId: string;
  /** Short name for summaries: `lead`, `researcher-1`. */
  label: string;
  model: string;
  system: string;
  tools: ToolDefinition[];
  maxTokens: number;
  maxTurns: number;
  pricing: Record<string, Price>;
  llm: ModelActivities;
  conversationKey: string;
  /** Runs one tool_use; never throws for tool-level problems (they become error results). */
  executeTool(block: ToolUseBlock): Promise<ToolResultBlock>;
  /** Messages that arrived for this agent (inbox), delivered before its next model turn. */
  takeInbox?(): string[];
  /** Called after every state change, for queries and UI details. */
  onProgress?(): void;
}

export type LoopStatus = 'completed' | 'max_turns';

export interface LoopOutcome {
  status: LoopStatus;
  text: string;
}

const LAST_TURN_NOTE =
  'You have reached your turn limit. Tools are no longer available: give your final answer now with what you have.';

export class AgentLoop {
  messages: ChatMessage[] = [];
  turns = 0;
  usage: UsageTotals = { ...ZERO_USAGE };
  /** One line on the latest step, for live views. */
  last?: string;
  private readonly cursor: ConversationCursor;

  constructor(private readonly cfg: AgentLoopConfig) {
    this.cursor = { key: cfg.conversationKey, synced: 0 };
  }

  /** Runs the agent on one task until it ends its turn or hits max_turns. */
  async run(task: string): Promise<LoopOutcome> {
    this.pushUser([{ type: 'text', text: task }]);
    const limit = Math.max(1, this.cfg.maxTurns);
    for (;;) {
      this.deliverInbox();
      this.turns += 1;
      const lastTurn = this.turns >= limit && this.cfg.tools.length > 0;
      this.last = `turn ${this.turns}: calling ${this.cfg.model}`;
      this.cfg.onProgress?.();
      const reply = await callModelWithConversation(
        this.cfg.llm,
        {
          agentId: this.cfg.agentId,
          model: this.cfg.model,
          system: lastTurn ? `${this.cfg.system}\n\n${LAST_TURN_NOTE}` : this.cfg.system,
          tools: this.cfg.tools,
          toolChoice: lastTurn ? 'none' : 'auto',
          maxTokens: this.cfg.maxTokens,
        },
        this.messages,
        this.cursor,
        `${this.cfg.label} · turn ${this.turns} · ${this.cfg.model}`,
      );
      this.recordUsage(reply.model || this.cfg.model, reply.usage);
      this.messages.push({ role: 'assistant', content: reply.content });
      const toolUses = reply.content.filter(isToolUse);
      const text = replyText(reply.content);
      if (toolUses.length === 0 || reply.stop_reason !== 'tool_use') {
        this.last = `answered (${text.length} chars)`;
        this.cfg.onProgress?.();
        return { status: 'completed', text };
      }
      if (this.turns >= limit) {
        // The model kept asking for tools past its last turn: stop here, unexecuted.
        this.last = `stopped at max_turns (${limit})`;
        this.cfg.onProgress?.();
        return { status: 'max_turns', text: text || `Stopped after ${limit} turns without a final answer.` };
      }
      this.last = `turn ${this.turns}: ${toolUses.map(describeToolUse).join(', ')}`;
      this.cfg.onProgress?.();
      // Several tool_use blocks in one reply run in parallel: the model decides parallelism.
      const results = await Promise.all(toolUses.map((b) => this.cfg.executeTool(b)));
      this.pushUser(results);
    }
  }

  private recordUsage(model: string, usage: { input_tokens: number; output_tokens: number }): void {
    this.usage = addUsage(this.usage, {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cost_usd: costOf(model, usage, this.cfg.pricing),
    });
  }

  private deliverInbox(): void {
    const pending = this.cfg.takeInbox?.() ?? [];
    if (pending.length > 0) this.pushUser(pending.map((text) => ({ type: 'text', text })));
  }

  /** Consecutive user content is merged into one message so roles keep alternating. */
  private pushUser(blocks: ContentBlock[]): void {
    const lastMsg = this.messages[this.messages.length - 1];
    if (lastMsg?.role === 'user' && Array.isArray(lastMsg.content)) {
      // Replace rather than mutate: the cached prefix sent to the worker must not change under it.
      this.messages[this.messages.length - 1] = { role: 'user', content: [...lastMsg.content, ...blocks] };
      if (this.cursor.synced >= this.messages.length) this.cursor.synced = this.messages.length - 1;
    } else {
      this.messages.push({ role: 'user', content: blocks });
    }
  }
}

function describeToolUse(b: ToolUseBlock): string {
  if (b.name === 'agent' && typeof b.input.subagent === 'string') return `agent → ${b.input.subagent}`;
  return b.name;
}
