import { createHash } from 'node:crypto';
import { findToolUse, toolResultText, type RequestTool, type RequestView, type ToolResultView } from './conversation';
import type { SimReplyBlock, SimReplyBody } from './types';

/**
 * The default policy: a small, deterministic stand-in for a sensible team model (DESIGN.md §6).
 * - A lead (offered the `agent` tool) delegates one sub-question per subagent in one reply, then
 *   answers by quoting every tool_result it got, so tests can see each result reach the lead.
 * - Any other agent fetches the URL its task names when it has `web_fetch`, then reports a
 *   finding that names its role (first line of its system prompt), its task and its sources.
 */
export function defaultPolicy(view: RequestView): SimReplyBody {
  const agentTool = view.tools.find((t) => t.name === 'agent');
  if (agentTool) return leadReply(view, agentTool);
  return workerReply(view);
}

interface Member {
  name: string;
  description: string;
}

/** Subagents from the `agent` tool: names from the `subagent` enum, descriptions from "- name: description" lines. */
export function roster(tool: RequestTool): Member[] {
  const described = new Map<string, string>();
  for (const m of (tool.description ?? '').matchAll(/^\s*-\s*([\w.-]+):\s*(.+)$/gm)) described.set(m[1], m[2].trim());
  const props = (tool.input_schema?.properties ?? {}) as Record<string, { enum?: unknown }>;
  const names = Array.isArray(props.subagent?.enum)
    ? props.subagent.enum.filter((n): n is string => typeof n === 'string')
    : [...described.keys()];
  return names.map((name) => ({ name, description: described.get(name) ?? 'a specialist on the team' }));
}

function leadReply(view: RequestView, agentTool: RequestTool): SimReplyBody {
  if (view.lastToolResults.length > 0) return { content: finalAnswer(view, view.lastToolResults) };
  const team = roster(agentTool);
  if (!view.toolsAllowed || team.length === 0) {
    const earlier = allToolResults(view);
    if (earlier.length > 0) return { content: finalAnswer(view, earlier) };
    return { content: workerText(view, []) };
  }
  const n = team.length;
  const intro =
    `I'll split this into ${n} sub-question${n === 1 ? '' : 's'} and ask ` +
    `${team.map((m) => m.name).join(', ')} in parallel, then combine what they find.`;
  const calls: SimReplyBlock[] = team.map((m, i) => ({
    type: 'tool_use',
    name: 'agent',
    input: { subagent: m.name, task: subQuestion(view.task, m, i, n) },
  }));
  return { content: [{ type: 'text', text: intro }, ...calls] };
}

function subQuestion(task: string, member: Member, i: number, n: number): string {
  return (
    `${task.trim()}\n\n` +
    `Sub-question ${i + 1} of ${n}, for the ${member.name} (${member.description}): ` +
    `answer the part of this task that fits that role and report your findings in a few sentences.`
  );
}

/** A section per result, quoted line by line, headed by the subagent (or tool) that produced it. */
function finalAnswer(view: RequestView, results: ToolResultView[]): string {
  const sections = results.map((r) => {
    const use = findToolUse(view.messages, r.toolUseId);
    const input = (use?.input ?? {}) as Record<string, unknown>;
    const who = typeof input.subagent === 'string' ? input.subagent : typeof use?.name === 'string' ? use.name : 'tool';
    const body = clip(r.content, 4000)
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
    return `### ${who}${r.isError ? ' (error)' : ''}\n${body}`;
  });
  const failed = results.filter((r) => r.isError).length;
  return [
    `Final answer for: ${firstLine(view.task, 200)}`,
    `I combined ${results.length} result${results.length === 1 ? '' : 's'} from the team:`,
    ...sections,
    failed
      ? `${failed} of ${results.length} sub-tasks failed; the answer above rests on the others.`
      : `All ${results.length} sub-tasks reported back; together they answer the task.`,
  ].join('\n\n');
}

function workerReply(view: RequestView): SimReplyBody {
  if (view.toolsAllowed && !view.hasToolResult && view.toolNames.includes('web_fetch')) {
    const urls = extractUrls(view.task).slice(0, 3);
    if (urls.length > 0) {
      const intro = `I'll read ${urls.length === 1 ? 'the source' : 'the sources'} first.`;
      return {
        content: [{ type: 'text', text: intro }, ...urls.map((url): SimReplyBlock => ({ type: 'tool_use', name: 'web_fetch', input: { url } }))],
      };
    }
  }
  return { content: workerText(view, allToolResults(view)) };
}

const FINDINGS = [
  'the evidence points to a few main drivers, one clear trade-off between cost and speed, and open risks that deserve a follow-up',
  'the main factors are scope, timing and cost; the strongest option is a phased approach with a small first milestone',
  'the picture is consistent across what I checked: the core claim holds, with caveats about scale and maintenance effort',
];

function workerText(view: RequestView, results: ToolResultView[]): string {
  const role = firstLine(view.system, 160) || 'Assistant';
  const task = firstLine(view.task, 240) || '(no task given)';
  const pick = createHash('sha256').update(view.task).digest()[0] % FINDINGS.length;
  const lines = [`Role: ${role}`, `Task: ${task}`];
  for (const r of results) lines.push(`Source excerpt${r.isError ? ' (error)' : ''}: "${clip(r.content.replace(/\s+/g, ' ').trim(), 200)}"`);
  lines.push(`Finding: ${FINDINGS[pick]}.`);
  return lines.join('\n');
}

function allToolResults(view: RequestView): ToolResultView[] {
  const out: ToolResultView[] = [];
  for (const m of view.messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        out.push({ toolUseId: String(b.tool_use_id ?? ''), content: toolResultText(b), isError: b.is_error === true });
      }
    }
  }
  return out;
}

export function extractUrls(text: string): string[] {
  const found = (text.match(/https?:\/\/[^\s<>"'`)\]]+/g) ?? []).map((u) => u.replace(/[.,;:!?]+$/, ''));
  return [...new Set(found)];
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return clip(line.trim(), max);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
