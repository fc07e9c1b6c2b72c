/**
 * The `agent` tool: each call starts a subagent child workflow with a clean context and waits for
 * its result, which the child signals into the session's inbox. Calls from one reply run in
 * parallel, never more than `max_parallel_agents` at once; the rest wait as `queued`.
 */
import { CancellationScope, ParentClosePolicy, condition, executeChild } from '@temporalio/workflow';
import { z } from 'zod';
import type { ToolResultBlock, ToolUseBlock } from '../shared/messages-api';
import type { AgentInfo, ChildResult, SubagentInput } from '../shared/session-types';
import type { TeamSpec } from '../shared/team';
import type { subagentWorkflow } from './subagent';
import { describeFailure } from './failures';
import { errorResult, okResult, truncate } from './tool-results';

/** Longest child result the lead sees; longer ones are truncated with a marker. */
export const MAX_CHILD_RESULT_CHARS = 50_000;
/** Longest `context` a child gets. */
export const MAX_CONTEXT_CHARS = 20_000;
/** How long to wait for a cancelled child to report its partial usage. */
const CANCEL_GRACE_MS = 30_000;

const agentInput = z.object({
  subagent: z.string().min(1),
  task: z.string().min(1),
  context: z.string().optional(),
  max_turns: z.number().int().positive().optional(),
  model: z.string().min(1).optional(),
  mode: z.enum(['sync']).optional(),
});

export interface DelegatorContext {
  sessionId: string;
  team: TeamSpec;
  llmTaskQueue: string;
  /** Depth of the delegating agent (the lead is 0). */
  depth: number;
  onProgress(): void;
}

export class Delegator {
  readonly agents: AgentInfo[] = [];
  private readonly results: Record<string, ChildResult> = {};
  private readonly counters: Record<string, number> = {};
  private readonly slots: Slots;

  constructor(private readonly ctx: DelegatorContext) {
    this.slots = new Slots(ctx.team.limits.maxParallelAgents);
  }

  /** Signal handler: a child finished a task. */
  onChildResult(result: ChildResult): void {
    this.results[result.agentId] = result;
  }

  async agentTool(block: ToolUseBlock): Promise<ToolResultBlock> {
    const parsed = agentInput.safeParse(block.input);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
      return errorResult(block, 'invalid_input', `invalid agent input: ${problems}`);
    }
    const args = parsed.data;
    const spec = this.ctx.team.agents[args.subagent];
    if (!spec) {
      const known = Object.keys(this.ctx.team.agents).join(', ') || 'none';
      return errorResult(block, 'unknown_subagent', `no subagent named "${args.subagent}" (available: ${known})`);
    }
    const model = args.model ? this.resolveModel(args.model) : spec.model;
    if (!model) {
      return errorResult(block, 'invalid_input', `unknown model "${args.model}" (known aliases: ${Object.keys(this.ctx.team.models).join(', ')}, or a full model id)`);
    }
    const n = (this.counters[spec.name] = (this.counters[spec.name] ?? 0) + 1);
    const info: AgentInfo = {
      id: `${this.ctx.sessionId}/${spec.name}-${n}`,
      name: spec.name,
      model,
      status: 'queued',
      task: args.task,
      turns: 0,
      usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    };
    this.agents.push(info);
    this.ctx.onProgress();
    await this.slots.acquire();
    try {
      return await this.runChild(block, info, {
        parentWorkflowId: this.ctx.sessionId,
        agentId: info.id,
        spec: { ...spec, model },
        task: args.task,
        context: args.context === undefined ? undefined : truncate(args.context, MAX_CONTEXT_CHARS),
        maxTurns: args.max_turns ?? spec.maxTurns,
        depth: this.ctx.depth + 1,
        pricing: this.ctx.team.pricing,
        llmTaskQueue: this.ctx.llmTaskQueue,
      });
    } finally {
      this.slots.release();
      this.ctx.onProgress();
    }
  }

  private async runChild(block: ToolUseBlock, info: AgentInfo, input: SubagentInput): Promise<ToolResultBlock> {
    info.status = 'running';
    info.last = 'started';
    this.ctx.onProgress();
    const scope = new CancellationScope();
    let settled = false;
    let returned: ChildResult | undefined;
    let failure: unknown;
    scope
      .run(() =>
        executeChild<typeof subagentWorkflow>('subagentWorkflow', {
          workflowId: info.id,
          args: [input],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: `${info.name}: ${oneLine(input.task, 120)}`,
          staticDetails: `**${info.name}** (${info.model}) working for session \`${this.ctx.sessionId}\`\n\n${input.task}`,
        }),
      )
      .then(
        (r) => (returned = r),
        (err) => (failure = err),
      )
      .finally(() => (settled = true));

    const timeoutMs = input.spec.timeoutMs ?? this.ctx.team.limits.subagentTimeoutMs;
    const arrived = await condition(() => this.results[info.id] !== undefined || settled, timeoutMs);
    if (!arrived) {
      scope.cancel();
      // The cancelled child still reports what it spent; wait (bounded) so nothing is lost.
      await condition(() => this.results[info.id] !== undefined || settled, CANCEL_GRACE_MS);
      this.apply(info, this.results[info.id] ?? returned);
      info.status = 'timed_out';
      info.error = `no result within ${Math.round(timeoutMs / 1000)}s`;
      return errorResult(block, 'timeout', `subagent ${info.name} (${info.id}) gave no result within ${Math.round(timeoutMs / 1000)}s and was cancelled`);
    }
    const result = this.results[info.id] ?? returned;
    if (!result) {
      info.status = 'failed';
      info.error = describeFailure(failure);
      return errorResult(block, 'child_failed', `subagent ${info.name} (${info.id}) failed: ${info.error}`);
    }
    this.apply(info, result);
    if (result.status === 'failed' || result.status === 'cancelled') {
      const type = result.error?.type ?? result.status;
      return errorResult(block, 'child_failed', `subagent ${info.name} (${info.id}) ${result.status}: ${result.error?.message ?? type}`);
    }
    const note = result.status === 'max_turns' ? `[${info.name} stopped at its turn limit]\n` : '';
    return okResult(block, note + truncate(result.text, MAX_CHILD_RESULT_CHARS));
  }

  private apply(info: AgentInfo, result: ChildResult | undefined): void {
    if (!result) return;
    info.status = result.status;
    info.turns = result.turns;
    info.usage = result.usage;
    info.error = result.error?.message;
    info.last = result.status === 'completed' ? `answered (${result.text.length} chars)` : result.status;
  }

  private resolveModel(model: string): string | undefined {
    if (model === 'inherit') return this.ctx.team.lead.model;
    if (this.ctx.team.models[model]) return this.ctx.team.models[model];
    return /^claude-[a-z0-9.-]+$/.test(model) ? model : undefined;
  }
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
