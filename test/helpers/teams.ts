/**
 * The small teams the workflow tests share, as YAML. Each agent's prompt is "You are the <name>."
 * and the lead's "You lead the <team> team.", so tests can match requests by system prompt.
 */
const DESCRIPTIONS: Record<string, string> = {
  researcher: 'Finds sources on one sub-question',
  analyst: 'Analyses findings for one sub-question',
  writer: 'Writes one section of the report',
};

/** A lead named after the team and the given subagents; `extra` is appended (limits...). */
export function teamYaml(name: string, agents: string[], extra = ''): string {
  const agentLines = agents.flatMap((a) => [`  ${a}:`, `    description: ${DESCRIPTIONS[a] ?? `Handles ${a} work`}`, `    prompt: "You are the ${a}."`]);
  return [
    'version: 1',
    `name: ${name}`,
    'lead:',
    '  model: sonnet',
    `  prompt: "You lead the ${name} team."`,
    ...(agents.length ? ['agents:', ...agentLines] : []),
    extra.trim(),
    '',
  ].join('\n');
}

/** A lead with no agents: exactly one model call per session. */
export const SOLO_YAML = 'version: 1\nname: solo\nlead:\n  model: sonnet\n  prompt: "You answer alone."\n';
