/**
 * Turns a parsed team file (plain JS from YAML) into a fully resolved TeamSpec, reporting every
 * problem it finds. Each section is validated on its own so one bad section does not hide the
 * problems of the others.
 */
import { DEFAULTS, type AgentSpec, type McpServerSpec, type Price, type RetrySpec, type TeamLimits, type TeamSpec } from '../shared/team';
import { resolveAliases, resolveModel } from './models';
import { loadPrompt } from './prompts';
import { describeValue, unknownKeyMessage, type Report } from './report';
import {
  AGENT_NAME,
  TOP_LEVEL_KEYS,
  agentSchema,
  leadSchema,
  limitsSchema,
  mcpServersSchema,
  modelsSchema,
  nameSchema,
  pricingSchema,
  versionSchema,
  type RawLimits,
} from './schema';
import { checkTools, type ToolContext } from './tools';

/** Used to fill a partly given `limits.model_retry`. */
export const MODEL_RETRY_DEFAULTS: RetrySpec = {
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 60_000,
  maximumAttempts: 8,
};

const RETIRED_SUBAGENTS =
  'this block was removed; declare agents under `agents:` and set limits.max_parallel_agents';

/** A short description starves the lead of what it needs to pick the right agent. */
const MIN_DESCRIPTION = 10;

export function resolveTeam(raw: unknown, baseDir: string, report: Report): TeamSpec | undefined {
  if (raw === null || raw === undefined) {
    report.error([], 'the team file is empty; it needs at least version, name and lead');
    return undefined;
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    report.error([], `expected a mapping with version, name and lead at the top level, got ${describeValue(raw)}`);
    return undefined;
  }
  const doc = raw as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    if (key === 'subagents') report.error([key], RETIRED_SUBAGENTS);
    else if (!TOP_LEVEL_KEYS.includes(key)) report.error([key], unknownKeyMessage(key, TOP_LEVEL_KEYS));
  }
  // An empty section (`agents:` with nothing under it) reads as null; treat it as absent.
  const section = (key: string): unknown => doc[key] ?? undefined;

  const version = report.check(versionSchema, doc.version, ['version']);
  const name = report.check(nameSchema, doc.name, ['name']);
  const models = resolveAliases(report.check(modelsSchema.optional(), section('models'), ['models']), report);
  const limits = resolveLimits(
    section('limits') === undefined ? undefined : report.checkObject(limitsSchema, section('limits'), ['limits']).data,
    report,
  );
  const mcpServers = resolveMcpServers(section('mcp_servers'), report);
  const pricing = resolvePricing(section('pricing'), models, report);
  const tools: ToolContext = { mcpServers: new Set(Object.keys(mcpServers)), maxDepth: limits.maxDepth };

  const lead = resolveLead(doc.lead, name ?? 'team', models, tools, baseDir, report);
  const agents = resolveAgents(section('agents'), lead, models, tools, limits, baseDir, report);

  if (report.errors.length || version === undefined || name === undefined || !lead || !agents) return undefined;
  return { version, name, models, lead, agents, limits, pricing, mcpServers };
}

function resolveLead(
  raw: unknown,
  teamName: string,
  models: Record<string, string>,
  tools: ToolContext,
  baseDir: string,
  report: Report,
): AgentSpec | undefined {
  if (raw === undefined) {
    report.error(['lead'], 'required: the lead agent (model, prompt or prompt_file, tools)');
    return undefined;
  }
  let input = raw;
  if (raw !== null && typeof raw === 'object' && 'subagents' in raw) {
    report.error(['lead', 'subagents'], RETIRED_SUBAGENTS);
    const { subagents: _retired, ...rest } = raw as Record<string, unknown>;
    input = rest;
  }
  const { data: spec, ok } = report.checkObject(leadSchema, input, ['lead']);
  if (!spec) return undefined;
  const model = resolveModel(spec.model ?? 'sonnet', models, undefined, ['lead', 'model'], report);
  const prompt = loadPrompt(spec, ['lead'], baseDir, report);
  const granted = checkTools(spec.tools ?? [], ['lead', 'tools'], 'lead', tools, report);
  if (!ok || model === undefined || prompt === undefined) return undefined;
  return {
    name: 'lead',
    description: spec.description?.trim() || `Lead of the ${teamName} team`,
    prompt,
    tools: granted,
    model,
    maxTurns: spec.max_turns ?? DEFAULTS.leadMaxTurns,
    maxTokens: spec.max_tokens ?? DEFAULTS.leadMaxTokens,
  };
}

function resolveAgents(
  raw: unknown,
  lead: AgentSpec | undefined,
  models: Record<string, string>,
  tools: ToolContext,
  limits: TeamLimits,
  baseDir: string,
  report: Report,
): Record<string, AgentSpec> | undefined {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    report.error(['agents'], `expected a mapping of agent name → definition, got ${describeValue(raw)}`);
    return undefined;
  }
  const agents: Record<string, AgentSpec> = {};
  let ok = true;
  for (const [name, value] of Object.entries(raw)) {
    const agent = resolveAgent(name, value, lead, models, tools, limits, baseDir, report);
    if (agent) agents[name] = agent;
    else ok = false;
  }
  return ok ? agents : undefined;
}

function resolveAgent(
  name: string,
  raw: unknown,
  lead: AgentSpec | undefined,
  models: Record<string, string>,
  tools: ToolContext,
  limits: TeamLimits,
  baseDir: string,
  report: Report,
): AgentSpec | undefined {
  const path = ['agents', name];
  let ok = true;
  if (!AGENT_NAME.test(name)) {
    report.error(path, 'an agent name starts with a letter and uses letters, digits, "_" and "-"');
    ok = false;
  } else if (name === 'lead') {
    report.error(path, '"lead" is reserved for the team\'s lead agent; pick another name');
    ok = false;
  }
  const parsed = report.checkObject(agentSchema, raw, path);
  const spec = parsed.data;
  if (!spec) return undefined;
  if (!parsed.ok) ok = false;

  const description = spec.description?.trim() ?? '';
  if (spec.description === undefined) {
    report.error(path, 'description is required: the lead chooses which agent to call by it');
    ok = false;
  } else if (description === '') {
    report.error([...path, 'description'], 'is empty; say what this agent does, the lead routes by it');
    ok = false;
  } else if (description.length < MIN_DESCRIPTION) {
    report.warn([...path, 'description'], `"${description}" is very short; the lead routes by the description, so say what the agent does`);
  }

  const prompt = loadPrompt(spec, path, baseDir, report);
  // Omitted model = inherit. If the lead itself failed, '' stands in so `inherit` adds no second error.
  const model = resolveModel(spec.model ?? 'inherit', models, lead?.model ?? '', [...path, 'model'], report);
  // Omitted tools inherit the lead's own (non-orchestration) tools; `tools: []` means none.
  const granted = spec.tools ? checkTools(spec.tools, [...path, 'tools'], 'agent', tools, report) : [...(lead?.tools ?? [])];
  if (!ok || prompt === undefined || model === undefined || !lead) return undefined;

  const agent: AgentSpec = {
    name,
    description,
    prompt,
    tools: granted,
    model,
    maxTurns: spec.max_turns ?? DEFAULTS.maxTurns,
    maxTokens: spec.max_tokens ?? DEFAULTS.maxTokens,
    timeoutMs: spec.timeout ?? limits.subagentTimeoutMs,
  };
  if (spec.budget_usd !== undefined) agent.budgetUsd = spec.budget_usd;
  if (spec.budget_tokens !== undefined) agent.budgetTokens = spec.budget_tokens;
  return agent;
}

function resolveLimits(raw: RawLimits | undefined, report: Report): TeamLimits {
  const limits: TeamLimits = {
    maxParallelAgents: raw?.max_parallel_agents ?? DEFAULTS.maxParallelAgents,
    maxSubAgents: raw?.max_sub_agents ?? DEFAULTS.maxSubAgents,
    maxDepth: raw?.max_depth ?? DEFAULTS.maxDepth,
    subagentTimeoutMs: raw?.subagent_timeout ?? DEFAULTS.subagentTimeoutMs,
  };
  if (raw?.budget_usd !== undefined) limits.budgetUsd = raw.budget_usd;
  if (raw?.budget_tokens !== undefined) limits.budgetTokens = raw.budget_tokens;
  const retry = raw?.model_retry;
  if (retry) {
    limits.modelRetry = {
      initialIntervalMs: retry.initial_interval ?? MODEL_RETRY_DEFAULTS.initialIntervalMs,
      backoffCoefficient: retry.backoff_coefficient ?? MODEL_RETRY_DEFAULTS.backoffCoefficient,
      maximumIntervalMs: retry.maximum_interval ?? MODEL_RETRY_DEFAULTS.maximumIntervalMs,
      maximumAttempts: retry.maximum_attempts ?? MODEL_RETRY_DEFAULTS.maximumAttempts,
    };
    if (limits.modelRetry.maximumIntervalMs < limits.modelRetry.initialIntervalMs) {
      report.error(['limits', 'model_retry', 'maximum_interval'], 'must not be shorter than initial_interval');
    }
  }
  if (limits.maxParallelAgents > limits.maxSubAgents) {
    report.warn(
      ['limits', 'max_parallel_agents'],
      `${limits.maxParallelAgents} is more than limits.max_sub_agents (${limits.maxSubAgents}), ` +
        `so at most ${limits.maxSubAgents} agents can run at once`,
    );
  }
  return limits;
}

function resolveMcpServers(raw: unknown, report: Report): Record<string, McpServerSpec> {
  const servers = report.check(mcpServersSchema.optional(), raw, ['mcp_servers']) ?? {};
  const out: Record<string, McpServerSpec> = {};
  for (const [name, spec] of Object.entries(servers)) {
    const path = ['mcp_servers', name];
    if (!/^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/.test(name)) {
      // Tool names are mcp__<server>__<tool>, so "__" in a server name would be ambiguous.
      report.error(path, 'a server name uses letters, digits, "-" and single "_" (tools are named mcp__<server>__<tool>)');
    } else if (spec.command !== undefined && spec.url !== undefined) {
      report.error(path, 'set command or url, not both');
    } else if (spec.command === undefined && spec.url === undefined) {
      report.error(path, 'set command (a local server) or url (an HTTP server)');
    } else if (spec.url !== undefined && spec.args !== undefined) {
      report.error([...path, 'args'], 'args only apply to a command server');
    } else {
      out[name] = spec.url !== undefined ? { url: spec.url } : { command: spec.command, args: spec.args ?? [] };
    }
  }
  return out;
}

/** Pricing keys are model ids; an alias is accepted and turned into its id. */
function resolvePricing(raw: unknown, models: Record<string, string>, report: Report): Record<string, Price> {
  const prices = report.check(pricingSchema.optional(), raw, ['pricing']) ?? {};
  const out: Record<string, Price> = {};
  for (const [model, price] of Object.entries(prices)) out[models[model] ?? model] = price;
  return out;
}
