import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import type { SimMatch, SimRule, SimScript } from './types';
import type { RequestView } from './conversation';

/** A script file or object that does not describe valid rules. The message names where. */
export class SimScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const regexString = z.string().superRefine((src, ctx) => {
  try {
    new RegExp(src);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${(err as Error).message}` });
  }
});

const matchSchema = z.strictObject({
  system: regexString.optional(),
  last_user: regexString.optional(),
  turn: z.number().int().min(1).optional(),
  has_tool: z.string().min(1).optional(),
});

const replyBlockSchema = z.union([
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({
    type: z.literal('tool_use'),
    id: z.string().optional(),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
  // Other block types (server tool results...) pass through untouched.
  z.looseObject({ type: z.string().refine((t) => t !== 'text' && t !== 'tool_use', 'malformed text/tool_use block') }),
]);

const replySchema = z.looseObject({
  content: z.union([z.string(), z.array(replyBlockSchema)]),
  stop_reason: z.string().nullable().optional(),
  stop_sequence: z.string().nullable().optional(),
  usage: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).optional(),
});

const ruleSchema = z
  .strictObject({
    match: matchSchema.optional(),
    reply: replySchema.optional(),
    error: z
      .strictObject({
        status: z.number().int().min(400).max(599),
        headers: z.record(z.string(), z.string()).optional(),
        body: z.unknown().optional(),
      })
      .optional(),
    drop: z.literal(true).optional(),
    delay_ms: z.number().min(0).optional(),
    times: z.number().int().min(1).optional(),
  })
  .refine(
    (r) => [r.reply, r.error, r.drop].filter((x) => x !== undefined).length === 1,
    'set exactly one of "reply" and "error" (or "drop": true)',
  );

const scriptSchema = z.strictObject({
  rules: z.array(ruleSchema),
  fallback: z.enum(['policy', 'error']).optional(),
});

function formatIssues(source: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
    return `${source}: ${where}: ${issue.message}`;
  });
  return lines.join('\n');
}

/** Validates a script given as a value; `source` names it in errors (a file path or "inline script"). */
export function parseSimScript(value: unknown, source = 'sim script'): SimScript {
  const parsed = scriptSchema.safeParse(value);
  if (!parsed.success) throw new SimScriptError(formatIssues(source, parsed.error));
  return parsed.data as SimScript;
}

/**
 * Reads and validates a script file (JSON, or YAML by extension). Errors name the file and the
 * path inside it, e.g. `rules.json: rules.0.match.turn: Invalid input: expected number, received string`.
 */
export function loadSimScript(file: string): SimScript {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SimScriptError(`${file}: cannot read sim script: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    const ext = path.extname(file).toLowerCase();
    value = ext === '.yaml' || ext === '.yml' ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new SimScriptError(`${file}: not valid ${file.match(/\.ya?ml$/i) ? 'YAML' : 'JSON'}: ${(err as Error).message}`);
  }
  return parseSimScript(value, file);
}

/** A script ready to answer: regexes compiled, per-rule fire counts kept. */
export class ScriptRunner {
  private readonly fired: number[];
  private readonly compiled: Array<{ system?: RegExp; last_user?: RegExp }>;

  constructor(readonly script: SimScript) {
    this.fired = script.rules.map(() => 0);
    this.compiled = script.rules.map((r) => ({
      system: r.match?.system !== undefined ? new RegExp(r.match.system) : undefined,
      last_user: r.match?.last_user !== undefined ? new RegExp(r.match.last_user) : undefined,
    }));
  }

  get fallback(): 'policy' | 'error' {
    return this.script.fallback ?? 'policy';
  }

  /** The first rule that matches and has firings left; counts it as fired. */
  take(view: RequestView): { rule: SimRule; index: number } | undefined {
    for (let i = 0; i < this.script.rules.length; i++) {
      const rule = this.script.rules[i];
      if (rule.times !== undefined && this.fired[i] >= rule.times) continue;
      if (!this.matches(rule.match, this.compiled[i], view)) continue;
      this.fired[i]++;
      return { rule, index: i };
    }
    return undefined;
  }

  private matches(match: SimMatch | undefined, re: { system?: RegExp; last_user?: RegExp }, view: RequestView): boolean {
    if (!match) return true;
    if (re.system && !re.system.test(view.system)) return false;
    if (re.last_user && !re.last_user.test(view.lastUser)) return false;
    if (match.turn !== undefined && match.turn !== view.turn) return false;
    if (match.has_tool !== undefined && !view.toolNames.includes(match.has_tool)) return false;
    return true;
  }
}
