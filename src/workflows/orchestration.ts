/**
 * The orchestration tools other than `agent` (DESIGN.md §3). They run inside the workflow: no
 * activity, no model call. Each failure is an error tool_result the model can recover from.
 */
import { condition } from '@temporalio/workflow';
import { z } from 'zod';
import type { ToolResultBlock, ToolUseBlock } from '../shared/messages-api';
import { DEFAULTS, type AgentSpec } from '../shared/team';
import { isOrchestrationTool } from '../shared/tools';
import type { Delegator } from './delegation';
import type { OrchestrationHandler } from './tool-executor';
import { errorResult, okResult, parseProblems } from './tool-results';

/** Most agents create_subagent may add to one session. */
export const MAX_CREATED_AGENTS = 20;
/** wait_agent's timeout when the model gives none, and the most it may ask for. */
const DEFAULT_WAIT_S = 300;
const MAX_WAIT_S = 3600;

const createInput = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, 'use 1-40 lowercase letters, digits, - or _, starting with a letter'),
  description: z.string().min(1),
  prompt: z.string().min(1),
  tools: z.array(z.string()).optional(),
  model: z.string().min(1).optional(),
});
const sendInput = z.object({ agent_id: z.string().min(1), message: z.string().min(1), trigger: z.boolean().optional() });
const waitInput = z.object({ agent_ids: z.array(z.string()).optional(), timeout_s: z.number().positive().optional() });
const closeInput = z.object({ agent_id: z.string().min(1) });
const thinkInput = z.object({ thought: z.string().min(1) });

function parse<T>(schema: z.ZodType<T>, block: ToolUseBlock): { ok: true; data: T } | { ok: false; error: ToolResultBlock } {
  const r = schema.safeParse(block.input);
  if (r.success) return { ok: true, data: r.data };
  return { ok: false, error: errorResult(block, 'invalid_input', `invalid ${block.name} input: ${parseProblems(r.error)}`) };
}

/** Every orchestration tool of a delegating agent, by name. */
export function orchestrationHandlers(d: Delegator): Record<string, OrchestrationHandler> {
  return { agent: (b) => d.agentTool(b), ...new OrchestrationTools(d).handlers() };
}

class OrchestrationTools {
  constructor(private readonly d: Delegator) {}

  handlers(): Record<string, OrchestrationHandler> {
    return {
      create_subagent: async (b) => this.create(b),
      list_agents: async (b) => this.list(b),
      send_message: async (b) => this.send(b),
      wait_agent: (b) => this.wait(b),
      close_agent: (b) => this.close(b),
      get_available_models: async (b) => this.models(b),
      think: async (b) => this.think(b),
    };
  }

  private create(block: ToolUseBlock): ToolResultBlock {
    const p = parse(createInput, block);
    if (!p.ok) return p.error;
    const { name, description, prompt } = p.data;
    const { ctx, s } = this.d;
    if (this.d.agents()[name]) return errorResult(block, 'name_taken', `a subagent named "${name}" already exists: pick another name`);
    if (Object.keys(s.definitions).length >= MAX_CREATED_AGENTS) {
      return errorResult(block, 'limit_reached', `at most ${MAX_CREATED_AGENTS} agents can be created in one session`);
    }
    const tools = p.data.tools ?? ctx.ownTools;
    const orchestration = tools.filter(isOrchestrationTool);
    if (orchestration.length) {
      return errorResult(block, 'tool_not_allowed', `orchestration tools cannot be granted to a created agent: ${orchestration.join(', ')}`);
    }
    const notMine = tools.filter((t) => !ctx.ownTools.includes(t));
    if (notMine.length) {
      const mine = ctx.ownTools.join(', ') || 'none';
      return errorResult(block, 'tool_not_allowed', `tools can only narrow yours (${mine}); not yours: ${notMine.join(', ')}`);
    }
    const model = p.data.model ? this.d.resolveModel(p.data.model) : ctx.ownModel;
    if (!model) return errorResult(block, 'invalid_input', `unknown model "${p.data.model}" (see get_available_models)`);
    const spec: AgentSpec = { name, description, prompt, tools: [...new Set(tools)], model, maxTurns: DEFAULTS.maxTurns, maxTokens: DEFAULTS.maxTokens };
    s.definitions[name] = spec;
    ctx.onProgress();
    return okResult(block, JSON.stringify({ created: name, description, model, tools: spec.tools }));
  }

  private list(block: ToolUseBlock): ToolResultBlock {
    const { s } = this.d;
    const definitions = Object.values(this.d.agents()).map((a) => ({
      name: a.name,
      description: a.description,
      model: a.model,
      tools: a.tools,
      created: a.name in s.definitions,
    }));
    const instances = s.instances.map((a) => ({
      agent_id: a.id,
      name: a.name,
      state: a.state ?? 'done',
      last_task_status: a.status,
      tasks: a.tasks ?? 1,
      turns: a.turns,
      tokens: a.usage.input_tokens + a.usage.output_tokens,
      cost_usd: Number(a.usage.cost_usd.toFixed(6)),
    }));
    return okResult(block, JSON.stringify({ definitions, instances }));
  }

  private send(block: ToolUseBlock): ToolResultBlock {
    const p = parse(sendInput, block);
    if (!p.ok) return p.error;
    const a = this.d.find(p.data.agent_id);
    if (!a) return errorResult(block, 'unknown_agent', `no instance with id "${p.data.agent_id}" (see list_agents)`);
    if (!this.d.isLive(a)) return errorResult(block, 'agent_closed', `${a.id} is ${a.state ?? 'done'}: start a new one with the agent tool`);
    if (p.data.trigger) {
      if (this.d.isPending(a.id)) return errorResult(block, 'agent_busy', `${a.id} is still working on a task: wait_agent for it first`);
      if (this.d.budgetSpent()) return errorResult(block, 'budget_exhausted', 'the budget is spent: no new tasks');
      this.d.triggerTask(a, p.data.message);
      return okResult(block, JSON.stringify({ agent_id: a.id, status: 'running', task: a.tasks }));
    }
    void this.d.notify(a, p.data.message);
    return okResult(block, JSON.stringify({ agent_id: a.id, queued: true }));
  }

  private async wait(block: ToolUseBlock): Promise<ToolResultBlock> {
    const p = parse(waitInput, block);
    if (!p.ok) return p.error;
    const { s } = this.d;
    const ids = p.data.agent_ids ?? s.instances.filter((a) => this.d.isPending(a.id)).map((a) => a.id);
    const unknown = ids.filter((id) => !this.d.find(id));
    if (unknown.length) return errorResult(block, 'unknown_agent', `no instance with id ${unknown.map((u) => `"${u}"`).join(', ')} (see list_agents)`);
    const timeoutS = Math.min(p.data.timeout_s ?? DEFAULT_WAIT_S, MAX_WAIT_S);
    const busy = () => ids.filter((id) => this.d.isPending(id));
    // A durable timer bounds the wait: it survives worker restarts like everything else.
    const done = await condition(() => busy().length === 0, timeoutS * 1000);
    const results = this.d.takeFrom(ids);
    const body: Record<string, unknown> = { results };
    if (!done) body.timeout = `still running after ${timeoutS}s: ${busy().join(', ')}`;
    if (results.length === 0 && done) body.note = ids.length ? 'no new results: they were delivered earlier' : 'no instance is running';
    return okResult(block, JSON.stringify(body));
  }

  private async close(block: ToolUseBlock): Promise<ToolResultBlock> {
    const p = parse(closeInput, block);
    if (!p.ok) return p.error;
    const a = this.d.find(p.data.agent_id);
    if (!a) return errorResult(block, 'unknown_agent', `no instance with id "${p.data.agent_id}" (see list_agents)`);
    if (!this.d.isLive(a)) return okResult(block, JSON.stringify({ agent_id: a.id, state: a.state ?? 'done', note: 'already ended' }));
    await this.d.cancel(a);
    return okResult(block, JSON.stringify({ agent_id: a.id, state: a.state, turns: a.turns, tokens: a.usage.input_tokens + a.usage.output_tokens }));
  }

  private models(block: ToolUseBlock): ToolResultBlock {
    const { team, ownModel } = this.d.ctx;
    return okResult(
      block,
      JSON.stringify({ aliases: team.models, your_model: ownModel, note: 'use an alias, a full model id (claude-...), or "inherit" for your model' }),
    );
  }

  private think(block: ToolUseBlock): ToolResultBlock {
    const p = parse(thinkInput, block);
    if (!p.ok) return p.error;
    this.d.s.thoughts.push({ agent: this.d.ctx.ownerLabel, turn: this.d.ctx.ownTurns(), thought: p.data.thought });
    this.d.ctx.onProgress();
    return okResult(block, 'Thought recorded.');
  }
}
