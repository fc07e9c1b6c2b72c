/**
 * The live view of a session: a small agent table redrawn in place on a terminal, or one plain
 * line per change when the output is not a terminal (CI logs, pipes).
 */
import { formatUsage } from '../shared/render';
import type { AgentInfo, SessionResult, SessionState } from '../shared/session-types';

export interface Sink {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export class LiveView {
  private drawn = 0;
  private readonly seen = new Map<string, string>();

  constructor(private readonly out: Sink) {}

  private last?: SessionState;

  update(s: SessionState): void {
    this.last = s;
    if (this.out.isTTY) this.redraw(s);
    else this.printChanges(s);
  }

  /** Shows the agents' final states from the result (the last query may predate the end). */
  finalize(result: SessionResult): void {
    if (!this.last) return;
    const byId = new Map(result.agents.map((a) => [a.id, a]));
    const known = new Set(this.last.agents.map((a) => a.id));
    const agents: AgentInfo[] = this.last.agents.map((a) => ({ ...a, ...(byId.get(a.id) ?? {}) }));
    for (const a of result.agents) if (!known.has(a.id)) agents.push({ model: '', task: '', ...a } as AgentInfo);
    this.update({ ...this.last, status: result.status, usage: result.usage, agents });
    this.finish();
  }

  /** Leaves the last frame on screen. */
  finish(): void {
    this.drawn = 0;
  }

  private redraw(s: SessionState): void {
    const lines = [
      `${s.sessionId} · ${s.status} · ${formatUsage(s.usage)}`,
      row('lead', s.lead.model, s.status === 'running' ? 'running' : s.status, s.lead.turns, formatUsage(s.lead.usage), s.lead.last),
      ...s.agents.map((a) => row(shortId(a), a.model, a.status, a.turns, formatUsage(a.usage), a.last ?? a.error)),
    ];
    const width = (process.stdout.columns || 120) - 1;
    const clear = this.drawn > 0 ? `\x1b[${this.drawn}A\x1b[0J` : '';
    this.out.write(clear + lines.map((l) => l.slice(0, width)).join('\n') + '\n');
    this.drawn = lines.length;
  }

  private printChanges(s: SessionState): void {
    const entries: Array<[string, string]> = [
      ['lead', `lead: ${s.lead.last ?? 'starting'}`],
      ...s.agents.map((a): [string, string] => [a.id, `${shortId(a)} ${a.status}${a.status === 'running' ? '' : ` (${a.turns} turns, ${formatUsage(a.usage)})`}`]),
    ];
    for (const [key, line] of entries) {
      if (this.seen.get(key) === line) continue;
      this.seen.set(key, line);
      this.out.write(`${line}\n`);
    }
  }
}

function shortId(a: AgentInfo): string {
  return a.id.split('/').pop() ?? a.name;
}

function row(name: string, model: string, status: string, turns: number, usage: string, last?: string): string {
  return `  ${name.padEnd(16)} ${model.padEnd(20)} ${status.padEnd(10)} ${String(turns).padStart(2)} turns  ${usage.padEnd(22)} ${last ?? ''}`;
}
