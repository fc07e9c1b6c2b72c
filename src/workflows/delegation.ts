/**
 * Delegation for one delegating agent (the lead, or a subagent below max_depth): the `agent`
 * tool, the live instances it started, and the inbox their results arrive in.
 *
 * Each instance is a child workflow (`<ownerId>/<name>-<n>`). It reports by signal (progress, a
 * task's result, its end) and sleeps between tasks. Children are started with ABANDON policies so
 * they survive the owner's continue-as-new; every cancel is explicit (`closeAll`, `close_agent`).
 */
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import { z } from 'zod';
import { agentMessageSignal } from '../shared/definitions';
import { COHORT_AGENT, COHORT_TEAM } from '../shared/search-attributes';
import type { ChatMessage, ToolDefinition, ToolResultBlock, ToolUseBlock } from '../shared/messages-api';
import { orchestrationToolDefinitions } from '../shared/orchestration-schemas';
import type { AgentInfo, ChildEvent, ChildResult, DelegationSnapshot, InstanceState, SubagentInput, UsageTotals } from '../shared/session-types';
import { addUsage } from '../shared/session-types';
import type { AgentSpec, TeamSpec } from '../shared/team';
import type { subagentWorkflow } from './subagent';
import { type BudgetCap, describeCap, isSpent, tighter } from './budget';
import { describeFailure } from './failures';
import { transcript } from './history';
import { errorResult, okResult, parseProblems, truncate } from './tool-results';

/** Longest child result the lead sees; longer ones are truncated with a marker. */
export const MAX_CHILD_RESULT_CHARS = 50_000;
/** Longest `context` (and fork_history transcript) a child gets. */
export const MAX_CONTEXT_CHARS = 20_000;
/** How long to wait for a cancelled child to report its partial usage. */
const CANCEL_GRACE_MS = 30_000;

const agentInput = z.object({
  subagent: z.string().min(1),
  task: z.string().min(1),
  context: z.string().optional(),
  max_turns: z.number().int().positive().optional(),
  model: z.string().min(1).optional(),
  mode: z.enum(['sync', 'async']).optional(),
  fork_history: z.union([z.enum(['none', 'all']), z.number().int().positive()]).optional(),
  budget_usd: z.number().positive().optional(),
  budget_tokens: z.number().int().positive().optional(),
  timeout_s: z.number().positive().optional(),
});

export interface DelegatorContext {
  /** Workflow id of the delegating workflow: children signal it and their ids start with it. */
  ownerId: string;
  ownerLabel: string;
  team: TeamSpec;
  llmTaskQueue: string;
  /** Depth of the delegating agent (the lead is 0). */
  depth: number;
  /** The delegating agent's own non-orchestration tools: create_subagent can only narrow them. */
  ownTools: string[];
  ownModel: string;
  ownUsage(): UsageTotals;
  ownTurns(): number;
  /** The delegating agent's conversation, for fork_history. */
  history(): ChatMessage[];
  /** Cap on what the owner and everything below it may spend. */
  budget: BudgetCap;
  instanceIdleTimeoutMs?: number;
  onProgress(): void;
  restore?: DelegationSnapshot;
  /** Tag children with CohortTeam / CohortAgent (the namespace has them). */
  searchAttributes?: boolean;
}

/** What became of one task: the child's result, or an error the model sees. */
export type TaskOutcome = { ok: true; result: ChildResult } | { ok: false; type: string; message: string };

const LIVE: InstanceState[] = ['queued', 'running', 'sleeping'];

export class Delegator {
  readonly s: DelegationSnapshot;
  /** Task results by `<agentId>#<task>`; run-local (no task is in flight at continue-as-new). */
  private readonly results: Record<string, ChildResult> = {};
  private readonly slots: Slots;
  /** Tasks in flight per instance id (run-local: nothing is in flight at continue-as-new). */
  private readonly inFlight: Record<string, number> = {};

  constructor(readonly ctx: DelegatorContext) {
    this.s = ctx.restore ?? { instances: [], counters: {}, definitions: {}, inbox: [], thoughts: [] };
    this.slots = new Slots(ctx.team.limits.maxParallelAgents);
  }

  get instances(): AgentInfo[] {
    return this.s.instances;
  }

  /** Team agents plus the ones created in this session. */
  agents(): Record<string, AgentSpec> {
    return { ...this.ctx.team.agents, ...this.s.definitions };
  }

  toolDefinitions(): ToolDefinition[] {
    return orchestrationToolDefinitions(this.agents());
  }

  /** The owner plus every instance (each instance's usage already includes its own children). */
  totalUsage(): UsageTotals {
    return this.s.instances.reduce((sum, a) => addUsage(sum, a.usage), this.ctx.ownUsage());
  }

  budgetSpent(): boolean {
    return isSpent(this.totalUsage(), this.ctx.budget);
  }

  /**
   * A task is in flight: started (or waiting for a slot) and its outcome not yet handed over. Counted
   * apart from instance states so that a result is never "not running" before it is in the inbox.
   */
  hasRunning(): boolean {
    return Object.values(this.inFlight).some((n) => n > 0);
  }

  /** This instance has a task whose outcome is not handed over yet (wait_agent waits on it). */
  isPending(id: string): boolean {
    return (this.inFlight[id] ?? 0) > 0;
  }

  private track(id: string, delta: number): void {
    this.inFlight[id] = (this.inFlight[id] ?? 0) + delta;
  }

  inboxPending(): boolean {
    return this.s.inbox.length > 0;
  }

  takeInbox(): string[] {
    return this.s.inbox.splice(0).map((m) => m.text);
  }

  find(id: string): AgentInfo | undefined {
    return this.s.instances.find((a) => a.id === id);
  }

  isLive(a: AgentInfo): boolean {
    return LIVE.includes(stateOf(a));
  }

  snapshot(): DelegationSnapshot {
    return this.s;
  }

  /** Signal handler for everything a child reports. */
  onEvent(e: ChildEvent): void {
    const a = this.find(e.agentId);
    if (!a) return;
    a.usage = e.usage;
    a.turns = e.turns;
    if (e.kind === 'progress') {
      a.last = e.last;
    } else if (e.kind === 'result') {
      this.results[`${e.agentId}#${e.task ?? 1}`] = e;
      a.status = e.status;
      a.error = e.error?.message;
      a.last = e.status === 'completed' ? `answered (${e.text.length} chars)` : e.status;
      if (!this.isEnded(a)) a.state = 'sleeping';
    } else {
      this.markEnded(a, e.state);
    }
    this.ctx.onProgress();
  }

  private isEnded(a: AgentInfo): boolean {
    return !LIVE.includes(stateOf(a));
  }

  private markEnded(a: AgentInfo, state: 'done' | 'closed' | 'failed', error?: string): void {
    if (this.isEnded(a)) return;
    a.state = state;
    if (error && !a.error) a.error = error;
  }

  async agentTool(block: ToolUseBlock): Promise<ToolResultBlock> {
    const parsed = agentInput.safeParse(block.input);
    if (!parsed.success) return errorResult(block, 'invalid_input', `invalid agent input: ${parseProblems(parsed.error)}`);
    const args = parsed.data;
    const agents = this.agents();
    const spec = agents[args.subagent];
    if (!spec) {
      const known = Object.keys(agents).join(', ') || 'none';
      return errorResult(block, 'unknown_subagent', `no subagent named "${args.subagent}" (available: ${known})`);
    }
    const model = args.model ? this.resolveModel(args.model) : spec.model;
    if (!model) {
      return errorResult(block, 'invalid_input', `unknown model "${args.model}" (known aliases: ${Object.keys(this.ctx.team.models).join(', ')}, or a full model id)`);
    }
    if (this.budgetSpent()) {
      return errorResult(block, 'budget_exhausted', `the budget (${describeCap(this.ctx.budget)}) is spent: no new delegation; conclude with what you have`);
    }
    const live = this.s.instances.filter((a) => this.isLive(a)).length;
    const max = this.ctx.team.limits.maxSubAgents;
    if (live >= max) {
      return errorResult(block, 'limit_reached', `max_sub_agents (${max}) live instances already exist: close one with close_agent first`);
    }
    const n = (this.s.counters[spec.name] = (this.s.counters[spec.name] ?? 0) + 1);
    const info: AgentInfo = {
      id: `${this.ctx.ownerId}/${spec.name}-${n}`,
      name: spec.name,
      model,
      status: 'queued',
      state: 'queued',
      task: args.task,
      turns: 0,
      tasks: 1,
      usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    };
    this.s.instances.push(info);
    this.ctx.onProgress();
    const cap = tighter({ usd: spec.budgetUsd, tokens: spec.budgetTokens }, { usd: args.budget_usd, tokens: args.budget_tokens });
    const fork = args.fork_history && args.fork_history !== 'none' ? transcript(this.pastTurns(), args.fork_history, MAX_CONTEXT_CHARS) : undefined;
    const maxDepth = this.ctx.team.limits.maxDepth;
    const input: SubagentInput = {
      parentWorkflowId: this.ctx.ownerId,
      agentId: info.id,
      spec: { ...spec, model },
      task: args.task,
      context: args.context === undefined ? undefined : truncate(args.context, MAX_CONTEXT_CHARS),
      history: fork,
      maxTurns: args.max_turns ?? spec.maxTurns,
      depth: this.ctx.depth + 1,
      pricing: this.ctx.team.pricing,
      llmTaskQueue: this.ctx.llmTaskQueue,
      maxDepth,
      ...(this.ctx.depth + 1 < maxDepth ? { team: this.ctx.team } : {}),
      ...(cap.usd !== undefined ? { budgetUsd: cap.usd } : {}),
      ...(cap.tokens !== undefined ? { budgetTokens: cap.tokens } : {}),
      ...(this.ctx.instanceIdleTimeoutMs !== undefined ? { idleTimeoutMs: this.ctx.instanceIdleTimeoutMs } : {}),
    };
    const timeoutMs = args.timeout_s !== undefined ? args.timeout_s * 1000 : (spec.timeoutMs ?? this.ctx.team.limits.subagentTimeoutMs);
    const start = () => this.startInstance(info, input);
    if (args.mode === 'async') {
      void this.runAsync(info, 1, timeoutMs, start);
      return okResult(block, JSON.stringify({ agent_id: info.id, status: 'running' }));
    }
    this.track(info.id, 1);
    try {
      return this.toToolResult(block, info, await this.runTask(info, 1, timeoutMs, start));
    } finally {
      this.track(info.id, -1);
    }
  }

  /** A task whose outcome goes to the inbox; in flight until it is there. */
  private async runAsync(info: AgentInfo, task: number, timeoutMs: number, start: () => Promise<void>): Promise<void> {
    this.track(info.id, 1);
    try {
      this.deliver(info, await this.runTask(info, task, timeoutMs, start));
    } catch (err) {
      // The owner is being cancelled: closeAll takes care of the child. Anything else is a bug
      // that must still reach the model rather than vanish as an unhandled rejection.
      if (!isCancellation(err)) this.deliver(info, { ok: false, type: 'internal_error', message: describeFailure(err) });
    } finally {
      this.track(info.id, -1);
    }
  }

  /** The owner's conversation without the reply being executed now (the one making this call). */
  private pastTurns(): ChatMessage[] {
    const all = this.ctx.history();
    return all[all.length - 1]?.role === 'assistant' ? all.slice(0, -1) : all;
  }

  /** Starts a new task on a sleeping instance (send_message with trigger); the result goes to the inbox. */
  triggerTask(info: AgentInfo, text: string): void {
    const task = (info.tasks ?? 1) + 1;
    info.tasks = task;
    info.task = text;
    const spec = this.agents()[info.name];
    const timeoutMs = spec?.timeoutMs ?? this.ctx.team.limits.subagentTimeoutMs;
    void this.runAsync(info, task, timeoutMs, () => getExternalWorkflowHandle(info.id).signal(agentMessageSignal, { text, trigger: true, task }));
  }

  /** A message for a live instance, delivered before its next turn (send_message without trigger). */
  async notify(info: AgentInfo, text: string): Promise<void> {
    try {
      await getExternalWorkflowHandle(info.id).signal(agentMessageSignal, { text, trigger: false });
    } catch (err) {
      this.markEnded(info, 'done', describeFailure(err));
    }
  }

  /** An async result, into the inbox for the owner's next turn. */
  private deliver(info: AgentInfo, o: TaskOutcome): void {
    const body = o.ok ? resultText(info, o.result) : JSON.stringify({ error: { type: o.type, message: o.message } });
    const status = o.ok ? o.result.status : 'error';
    this.s.inbox.push({ from: info.id, text: `<agent_result agent_id="${info.id}" status="${status}">\n${body}\n</agent_result>` });
    this.ctx.onProgress();
  }

  /** Takes the inbox items from the given instances (wait_agent). */
  takeFrom(ids: string[]): string[] {
    const picked = this.s.inbox.filter((m) => ids.includes(m.from));
    this.s.inbox = this.s.inbox.filter((m) => !ids.includes(m.from));
    return picked.map((m) => m.text);
  }

  private async startInstance(info: AgentInfo, input: SubagentInput): Promise<void> {
    // Started outside any cancellable scope: the child ends only by an explicit cancel (or itself).
    const handle = await CancellationScope.nonCancellable(() =>
      startChild<typeof subagentWorkflow>('subagentWorkflow', {
        workflowId: info.id,
        args: [input],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        staticSummary: `${info.name}: ${oneLine(input.task, 120)}`,
        staticDetails: `**${info.name}** (${info.model}) working for \`${this.ctx.ownerId}\`\n\n${input.task}`,
        ...(this.ctx.searchAttributes
          ? { typedSearchAttributes: [{ key: COHORT_TEAM, value: this.ctx.team.name }, { key: COHORT_AGENT, value: info.name }] }
          : {}),
      }),
    );
    // A child that dies without reporting its end (terminated, a bug) must not look alive.
    void handle.result().then(
      () => this.markEnded(info, 'done'),
      (err) => this.markEnded(info, isCancellation(err) ? 'closed' : 'failed', describeFailure(err)),
    );
  }

  /** One task of an instance: a slot, the budget check, the start, the wait (bounded by the timeout). */
  private async runTask(info: AgentInfo, task: number, timeoutMs: number, start: () => Promise<void>): Promise<TaskOutcome> {
    info.status = 'queued';
    info.state = 'queued';
    await this.slots.acquire();
    try {
      // close_agent may have closed it while it waited for a slot.
      if ((info.state as InstanceState) === 'closed') return { ok: false, type: 'cancelled', message: `${info.id} was closed before it started` };
      if (this.budgetSpent()) {
        if (task === 1) this.s.instances.splice(this.s.instances.indexOf(info), 1);
        else info.state = 'sleeping';
        return { ok: false, type: 'budget_exhausted', message: `the budget (${describeCap(this.ctx.budget)}) is spent: ${info.name} was not started` };
      }
      info.status = 'running';
      info.state = 'running';
      info.last = 'started';
      this.ctx.onProgress();
      try {
        await start();
      } catch (err) {
        info.status = 'failed';
        this.markEnded(info, 'failed', describeFailure(err));
        return { ok: false, type: 'child_failed', message: `could not start ${info.id}: ${describeFailure(err)}` };
      }
      const key = `${info.id}#${task}`;
      const arrived = await condition(() => this.results[key] !== undefined || this.isEnded(info), timeoutMs);
      if (!arrived) {
        await this.cancel(info);
        info.status = 'timed_out';
        const secs = Math.round(timeoutMs / 1000);
        info.error = `no result within ${secs}s`;
        return { ok: false, type: 'timeout', message: `subagent ${info.name} (${info.id}) gave no result within ${secs}s and was cancelled` };
      }
      const result = this.results[key];
      if (!result) {
        info.status = stateOf(info) === 'closed' ? 'cancelled' : 'failed';
        return { ok: false, type: 'child_failed', message: `subagent ${info.name} (${info.id}) ended without a result${info.error ? `: ${info.error}` : ''}` };
      }
      if (result.status === 'failed' || result.status === 'cancelled') {
        const type = result.error?.type ?? result.status;
        return { ok: false, type: 'child_failed', message: `subagent ${info.name} (${info.id}) ${result.status}: ${result.error?.message ?? type}` };
      }
      return { ok: true, result };
    } finally {
      this.slots.release();
      this.ctx.onProgress();
    }
  }

  private toToolResult(block: ToolUseBlock, info: AgentInfo, o: TaskOutcome): ToolResultBlock {
    if (!o.ok) return errorResult(block, o.type, o.message);
    return okResult(block, resultText(info, o.result));
  }

  /** Cancels one instance and waits (bounded) for it to report what it spent. */
  async cancel(info: AgentInfo): Promise<void> {
    if (this.isEnded(info)) return;
    if (stateOf(info) === 'queued' && info.turns === 0 && (info.tasks ?? 1) === 1) {
      info.state = 'closed';
      info.status = 'cancelled';
      return;
    }
    await CancellationScope.nonCancellable(async () => {
      try {
        await getExternalWorkflowHandle(info.id).cancel();
      } catch {
        // Already ended: its end event is on the way or has arrived.
      }
      await condition(() => this.isEnded(info), CANCEL_GRACE_MS);
    });
    this.markEnded(info, 'closed');
  }

  /** Closes every live instance (session end, cancellation): running ones report partial usage. */
  async closeAll(): Promise<void> {
    await Promise.all(this.s.instances.filter((a) => this.isLive(a)).map((a) => this.cancel(a)));
  }

  resolveModel(model: string): string | undefined {
    if (model === 'inherit') return this.ctx.ownModel;
    if (this.ctx.team.models[model]) return this.ctx.team.models[model];
    return /^claude-[a-z0-9.-]+$/.test(model) ? model : undefined;
  }
}

function stateOf(a: AgentInfo): InstanceState {
  return a.state ?? 'done';
}

function resultText(info: AgentInfo, result: ChildResult): string {
  const note =
    result.status === 'max_turns'
      ? `[${info.name} stopped at its turn limit]\n`
      : result.status === 'budget_exhausted'
        ? `[${info.name} stopped: its budget is spent]\n`
        : '';
  return note + truncate(result.text, MAX_CHILD_RESULT_CHARS);
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A FIFO counting semaphore. A slot is handed straight to the next waiter on release: with
 * `condition(() => running < max)` every waiter woken in the same activation would pass at once.
 */
class Slots {
  private readonly waiting: Array<() => void> = [];

  constructor(private free: number) {}

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}
