import type { SessionState, UsageTotals } from './session-types';

export function formatUsage(u: UsageTotals): string {
  return `${formatTokens(u.input_tokens + u.output_tokens)} tok · $${u.cost_usd.toFixed(4)}`;
}

export function formatTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** The agent tree as markdown, for the Temporal UI's current details. */
export function sessionDetailsMarkdown(s: SessionState): string {
  const lines = [
    `**${s.team}** · ${s.status} · ${formatUsage(s.usage)}`,
    '',
    '| agent | model | status | turns | usage | last |',
    '| --- | --- | --- | --- | --- | --- |',
    `| lead | ${s.lead.model} | ${s.status} | ${s.lead.turns} | ${formatUsage(s.lead.usage)} | ${s.lead.last ?? ''} |`,
    ...s.agents.map(
      (a) =>
        `| ${a.id.split('/').pop()} | ${a.model} | ${a.state && a.state !== 'running' ? `${a.state} (${a.status})` : a.status} | ${a.turns} | ${formatUsage(a.usage)} | ${(a.last ?? '').replace(/\|/g, '/')} |`,
    ),
  ];
  const thoughts = (s.thoughts ?? []).slice(-5);
  if (thoughts.length) {
    lines.push('', '**Thoughts**', ...thoughts.map((t) => `- ${t.agent} (turn ${t.turn}): ${t.thought.replace(/\s+/g, ' ').slice(0, 300)}`));
  }
  if (s.inbox) lines.push('', `${s.inbox} message${s.inbox === 1 ? '' : 's'} waiting for the lead`);
  return lines.join('\n');
}
