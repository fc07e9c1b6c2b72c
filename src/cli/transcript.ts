/** `cohort transcript <id> [--agent NAME|ID] [--format md|json]`: what an agent was sent and said. */
import { WorkflowNotFoundError } from '@temporalio/client';
import { TranscriptError, readTranscript, type Transcript, type TranscriptTurn } from '../client/transcript';
import type { ChatMessage, ContentBlock } from '../shared/messages-api';
import { formatUsage } from '../shared/render';
import { connectOrExplain } from './connect';
import { CliError } from './errors';

export async function transcriptCommand(id: string, opts: { agent?: string; format?: string }): Promise<number> {
  const format = opts.format ?? 'md';
  if (format !== 'md' && format !== 'json') throw new CliError(`--format must be md or json (got "${format}")`, 2);
  const { client, connection } = await connectOrExplain();
  try {
    const t = await readTranscript(client, id, opts.agent).catch((err) => {
      if (err instanceof WorkflowNotFoundError) throw new CliError(`no session with id ${id}`);
      if (err instanceof TranscriptError) throw new CliError(err.message);
      throw err;
    });
    process.stdout.write(format === 'json' ? `${JSON.stringify(t, null, 2)}\n` : transcriptMarkdown(t));
    return 0;
  } finally {
    await connection.close();
  }
}

/** The transcript for a person: each turn's new input, then the reply with its tool calls. */
export function transcriptMarkdown(t: Transcript): string {
  const out: string[] = [`# Transcript of ${t.agent} · ${t.workflowId}`, ''];
  out.push(`${t.turns.length} model turn${t.turns.length === 1 ? '' : 's'} · ${formatUsage(t.totals)}${t.runs > 1 ? ` · ${t.runs} workflow runs (continue-as-new)` : ''}`);
  if (t.children.length) {
    out.push('', `Subagents: ${t.children.map((c) => c.split('/').pop()).join(', ')} (read one with \`--agent <name>\`)`);
  }
  const toolNames = new Map<string, string>();
  let system: string | undefined;
  for (const turn of t.turns) {
    if (turn.system !== system) {
      out.push('', system === undefined ? '## System prompt' : `## System prompt (changed at turn ${turn.turn})`, '', fence(turn.system, 'text'));
      if (turn.tools.length) out.push('', `Tools: ${turn.tools.join(', ')}`);
      system = turn.system;
    }
    out.push('', turnHeading(turn));
    for (const m of turn.input) out.push('', ...messageLines(m, toolNames));
    if (turn.reply) out.push('', ...messageLines({ role: 'assistant', content: turn.reply.content }, toolNames));
    if (turn.error) out.push('', `**Model call failed:** ${turn.error}`);
  }
  return `${out.join('\n')}\n`;
}

function turnHeading(turn: TranscriptTurn): string {
  const parts = [`## Turn ${turn.turn}`, turn.model];
  if (turn.reply) {
    const u = turn.reply.usage;
    parts.push(`${u.input_tokens} in / ${u.output_tokens} out tokens`, `$${(turn.cost_usd ?? 0).toFixed(4)}`, turn.reply.stop_reason ?? 'no stop reason');
  }
  if (turn.toolChoice === 'none') parts.push('tools off');
  if (turn.at) parts.push(turn.at.replace('T', ' ').slice(0, 19));
  return parts.join(' · ');
}

function messageLines(m: ChatMessage, toolNames: Map<string, string>): string[] {
  if (typeof m.content === 'string') return [`**${m.role === 'user' ? 'User' : 'Assistant'}**`, '', m.content];
  const lines: string[] = [];
  let textHeader = false;
  for (const block of m.content) {
    if (block.type === 'text') {
      if (!textHeader) lines.push(`**${m.role === 'user' ? 'User' : 'Assistant'}**`, '');
      textHeader = true;
      lines.push(String((block as { text: string }).text), '');
    } else {
      lines.push(...blockLines(block, toolNames), '');
    }
  }
  return lines.slice(0, -1);
}

function blockLines(block: ContentBlock, toolNames: Map<string, string>): string[] {
  if (block.type === 'tool_use') {
    const b = block as { id: string; name: string; input: unknown };
    toolNames.set(b.id, b.name);
    return [`**Tool call** \`${b.name}\` (${b.id})`, '', fence(JSON.stringify(b.input, null, 2), 'json')];
  }
  if (block.type === 'tool_result') {
    const b = block as { tool_use_id: string; content: unknown; is_error?: boolean };
    const content = typeof b.content === 'string' ? b.content : JSON.stringify(b.content, null, 2);
    const name = toolNames.get(b.tool_use_id) ?? 'tool';
    return [`**Tool result** of \`${name}\` (${b.tool_use_id})${b.is_error ? ' · error' : ''}`, '', quote(content)];
  }
  return [`**${block.type}**`, '', fence(JSON.stringify(block, null, 2), 'json')];
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

/** A code fence longer than any backtick run inside, so the content cannot close it. */
function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}
