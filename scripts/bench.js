#!/usr/bin/env node
/**
 * `npm run bench`: Cohort's speed and history size, on a fresh dev server with the simulated
 * model (no network). Runs the built code in dist/ (npm install builds it).
 *
 *  1. one research session (lead + 3 subagents in parallel), wall time;
 *  2. a 20-turn session: workflow history size with conversation deltas, against the size the
 *     same session's activity inputs would have had if every call carried the whole conversation;
 *  3. N concurrent one-call sessions: sessions per second.
 */
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const { dist, startLocalStack } = require('./local-stack');
const { startSession, sessionResult } = dist('client/session');
const { loadTeam, parseTeam } = dist('team');

const CONCURRENT = Number(process.env.BENCH_SESSIONS ?? 50);

async function main() {
  const workDir = mkdtempSync(join(tmpdir(), 'cohort-bench-'));
  writeFileSync(join(workDir, 'notes.txt'), 'Heat pumps move heat; boilers make it. '.repeat(20));
  const taskQueue = 'bench';
  const { client, sim, stop } = await startLocalStack({ taskQueue, workDir, modelConcurrency: 100 });
  const rows = [];
  try {
    // 1. The example team, offline.
    const { team } = await loadTeam(join(__dirname, '..', 'examples', 'research', 'team.yaml'));
    await startSession(client, team, 'warm up', { taskQueue }).then(sessionResult); // bundles and caches warm
    const t1 = await timed('research session', async () => {
      const h = await startSession(client, team, 'How do heat pumps compare to gas boilers?', { taskQueue });
      return sessionResult(h);
    });
    rows.push(['research session (lead + 3 parallel subagents, sim)', `${t1.ms} ms`]);

    // 2. History size of a 20-turn session.
    sim.setScript({ rules: [{ match: { has_tool: 'read_file' }, reply: { content: [{ type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } }] } }] });
    const loopTeam = parseTeam(
      'version: 1\nname: loop\nlead:\n  model: haiku\n  prompt: "You read notes."\n  tools: [read_file]\n  max_turns: 20\n',
      { file: 'loop.yaml', baseDir: workDir },
    ).team;
    const h2 = await startSession(client, loopTeam, 'Read the notes twenty times', { taskQueue });
    await sessionResult(h2);
    const info = await h2.describe();
    const history = await h2.fetchHistory();
    const { historySize, naiveSize } = inputSizes(history);
    rows.push(['20-turn session: history events', String(history.events.length)]);
    rows.push(['20-turn session: history size (server)', kb(Number(info.raw.workflowExecutionInfo.historySizeBytes))]);
    rows.push(['20-turn session: callModel inputs, as sent (deltas)', kb(historySize)]);
    rows.push(['20-turn session: callModel inputs if each carried the whole conversation', kb(naiveSize)]);
    sim.setScript(undefined);

    // 3. Many concurrent one-call sessions.
    const solo = parseTeam('version: 1\nname: solo\nlead:\n  model: haiku\n  prompt: "You answer."\n  tools: []\n', { file: 'solo.yaml', baseDir: workDir }).team;
    const t3 = await timed(`${CONCURRENT} sessions`, async () => {
      const handles = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => startSession(client, solo, `question ${i}`, { taskQueue })));
      return Promise.all(handles.map(sessionResult));
    });
    rows.push([`${CONCURRENT} concurrent one-call sessions`, `${t3.ms} ms (${((CONCURRENT * 1000) / t3.ms).toFixed(1)} sessions/s)`]);
  } finally {
    await stop();
  }
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

/** Bytes of callModel inputs as recorded, and as they would be with whole conversations. */
function inputSizes(history) {
  const { defaultPayloadConverter } = require('@temporalio/common');
  let historySize = 0;
  let naiveSize = 0;
  const full = [];
  for (const e of history.events) {
    const done = e.activityTaskCompletedEventAttributes;
    const out = done?.result?.payloads?.[0] && defaultPayloadConverter.fromPayload(done.result.payloads[0]);
    if (out?.reply) full.push({ role: 'assistant', content: out.reply.content });
    const a = e.activityTaskScheduledEventAttributes;
    if (!a || a.activityType.name !== 'callModel') continue;
    const payload = a.input.payloads[0];
    historySize += payload.data.length;
    const input = defaultPayloadConverter.fromPayload(payload);
    full.length = input.conversation.from;
    full.push(...input.conversation.messages);
    naiveSize += Buffer.byteLength(JSON.stringify({ ...input, conversation: { ...input.conversation, from: 0, messages: full } }));
  }
  return { historySize, naiveSize };
}

async function timed(label, fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: Number((process.hrtime.bigint() - start) / 1_000_000n) };
}

function kb(n) {
  return `${(n / 1024).toFixed(1)} KiB`;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
