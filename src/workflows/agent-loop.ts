/**
 * The agent loop shared by the lead and every subagent (DESIGN.md §4). What differs between them
 * is data (prompt, tools, limits) and the tool executor passed in.
 */
import type { ChatMessage, ContentBlock, ToolDefinition, ToolResultBlock, ToolUseBlock } from '../shared/messages-api';
import { isToolUse, replyText } from '../shared/messages-api';
import type { Price } from '../shared/team';
import { costOf } from '../shared/pricing';
import type { LoopSnapshot, UsageTotals } from '../shared/session-types';
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
  /** Tool definitions for the next request (a function: create_subagent changes the roster). */
  tools: () => ToolDefinition[];
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
  /** True once the agent's budget is spent: it then gets one last turn without tools. */
  budgetExhausted?(): boolean;
  /** Runs before each model turn; the session continues-as-new from here. */
  beforeTurn?(): Promise<void>;
  /** Saved state from an earlier run. */
  restore?: LoopSnapshot;
}

export type LoopStatus = 'completed' | 'max_turns' | 'budget_exhausted';

export interface LoopOutcome {
  status: LoopStatus;
  text: string;
}

const LAST_TURN_NOTE =
  'You have reached your turn limit. Tools are no longer available: give your final answer now with what you have.';
const BUDGET_NOTE =
  'Your budget is spent. Tools are no longer available: give your final answer now with what you have.';

export class AgentLoop {
  messages: ChatMessage[] = [];
  /** Model turns over the agent's whole life. */
  turns = 0;
  /** Model turns in the current task: max_turns counts these. */
  taskTurns = 0;
  usage: UsageTotals = { ...ZERO_USAGE };
  /** One line on the latest step, for live views. */
  last?: string;
  private readonly cursor: ConversationCursor;

  constructor(private readonly cfg: AgentLoopConfig) {
    const r = cfg.restore;
    // The cursor travels with the messages over continue-as-new: the worker cache is keyed by
    // conversation, not by run, and a miss only costs one full resend (see ./model.ts).
    this.cursor = { key: cfg.conversationKey, synced: r?.synced ?? 0 };
    if (r) {
      this.messages = r.messages;
      this.turns = r.turns;
      this.taskTurns = r.taskTurns;
      this.usage = r.usage;
      this.last = r.last;
    }
  }

  snapshot(): LoopSnapshot {
    return { messages: this.messages, turns: this.turns, taskTurns: this.taskTurns, usage: this.usage, last: this.last, synced: this.cursor.synced };
  }

  /** Starts a new task (history kept) and runs until the agent ends its turn or hits a limit. */
  async run(task: string): Promise<LoopOutcome> {
    this.taskTurns = 0;
    this.pushUser([{ type: 'text', text: task }]);
    return this.resume();
  }

  /**
   * Continues the current task: used when inbox messages wake an agent that ended its turn, and
   * after continue-as-new. The inbox is delivered first, so the model sees what arrived.
   */
  async resume(): Promise<LoopOutcome> {
    const limit = Math.max(1, this.cfg.maxTurns);
    for (;;) {
      await this.cfg.beforeTurn?.();
      this.deliverInbox();
      this.turns += 1;
      this.taskTurns += 1;
      const tools = this.cfg.tools();
      const broke = this.cfg.budgetExhausted?.() ?? false;
      const atLimit = this.taskTurns >= limit;
      const lastTurn = (atLimit || broke) && tools.length > 0;
      const note = broke ? BUDGET_NOTE : LAST_TURN_NOTE;
      this.last = `turn ${this.turns}: calling ${this.cfg.model}`;
      this.cfg.onProgress?.();
      const reply = await callModelWithConversation(
        this.cfg.llm,
        {
          agentId: this.cfg.agentId,
          model: this.cfg.model,
          system: lastTurn ? `${this.cfg.system}\n\n${note}` : this.cfg.system,
          tools,
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
      if (broke) {
        this.last = 'stopped: budget spent';
        this.cfg.onProgress?.();
        return { status: 'budget_exhausted', text: text || 'Stopped: the budget is spent.' };
      }
      if (toolUses.length === 0 || reply.stop_reason !== 'tool_use') {
        this.last = `answered (${text.length} chars)`;
        this.cfg.onProgress?.();
        return { status: 'completed', text };
      }
      if (atLimit) {
        // The model kept asking for tools past its last turn: stop here, unexecuted.
        this.last = `stopped at max_turns (${limit})`;
        // Answer the unexecuted calls so the conversation stays valid for a later task.
        this.pushUser(toolUses.map((b) => ({ type: 'tool_result', tool_use_id: b.id, is_error: true, content: 'not run: turn limit reached' })));
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
