/**
 * The shape of a team file as written (DESIGN.md §2), before resolution. Objects are strict so a
 * misspelt key is an error, not a silently ignored setting. Rules that need more than one field
 * (prompt xor prompt_file, model aliases, tool names) are checked in resolve.ts with clearer messages.
 */
import { z } from 'zod';
import { DURATION_HINT, parseDuration } from './duration';

/** `60s`, `2m`, `1500ms`, `1h` or seconds → ms; absent stays undefined. */
const duration = z.unknown().optional().transform((value, ctx): number | undefined => {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `${DURATION_HINT}, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return ms;
});

const count = z.int().min(1);
const toolList = z.array(z.string().min(1));

export const TEAM_NAME = /^[a-z0-9_-]+$/;
export const AGENT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

export const versionSchema = z.literal(1);
export const nameSchema = z
  .string()
  .regex(TEAM_NAME, { error: 'use lowercase letters, digits, "_" and "-" (the name goes into workflow ids)' });

const promptFields = {
  prompt: z.string().optional(),
  prompt_file: z.string().min(1).optional(),
};

export const leadSchema = z.strictObject({
  description: z.string().optional(),
  model: z.string().min(1).optional(),
  ...promptFields,
  tools: toolList.optional(),
  max_turns: count.optional(),
  max_tokens: count.optional(),
});
export type RawLead = z.output<typeof leadSchema>;

export const agentSchema = z.strictObject({
  // Required, but checked in resolve.ts so a missing description gets a message saying why.
  description: z.string().optional(),
  ...promptFields,
  tools: toolList.optional(),
  model: z.string().min(1).optional(),
  max_turns: count.optional(),
  max_tokens: count.optional(),
  timeout: duration,
  budget_usd: z.number().positive().optional(),
  budget_tokens: z.int().positive().optional(),
});
export type RawAgent = z.output<typeof agentSchema>;

export const limitsSchema = z.strictObject({
  max_parallel_agents: count.optional(),
  max_sub_agents: count.optional(),
  max_depth: z.int().min(1).max(3).optional(),
  subagent_timeout: duration,
  budget_usd: z.number().positive().optional(),
  budget_tokens: z.int().positive().optional(),
  model_retry: z
    .strictObject({
      initial_interval: duration,
      backoff_coefficient: z.number().min(1).optional(),
      maximum_interval: duration,
      // 0 means unlimited, as in Temporal's RetryPolicy.
      maximum_attempts: z.int().min(0).optional(),
    })
    .optional(),
});
export type RawLimits = z.output<typeof limitsSchema>;

export const modelsSchema = z.record(z.string(), z.string().min(1));

export const pricingSchema = z.record(
  z.string(),
  z.strictObject({ input: z.number().min(0), output: z.number().min(0) }),
);

export const mcpServerSchema = z.strictObject({
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
});
export const mcpServersSchema = z.record(z.string(), mcpServerSchema);

/** Top-level keys, in the order DESIGN.md §2 lists them. */
export const TOP_LEVEL_KEYS = ['version', 'name', 'models', 'lead', 'agents', 'limits', 'pricing', 'mcp_servers'];
