import {
  ApplicationFailure,
  isCancellation,
  setHandler,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import { childResultSignal, sessionStateQuery } from '../shared/definitions';
import { agentToolDefinition } from '../shared/orchestration-schemas';
import { sessionDetailsMarkdown } from '../shared/render';
import type { SessionInput, SessionResult, SessionState, SessionStatus } from '../shared/session-types';
import { addUsage } from '../shared/session-types';
import { modelActivities, toolActivities } from './activities';
import { AgentLoop } from './agent-loop';
import { Delegator } from './delegation';
import { describeFailure } from './failures';
import { makeToolExecutor, toolDefinitions } from './tool-executor';

const MAX_TOOL_RESULT_CHARS = 50_000;

/** One research session: the lead agent's loop, delegating to subagent child workflows. */
export async function sessionWorkflow(input: SessionInput): Promise<SessionResult> {
  const { team } = input;
  const info = workflowInfo();
  const sessionId = info.workflowId;
  const llmTaskQueue = input.llmTaskQueue ?? `${info.taskQueue}-llm`;
  let status: SessionStatus = 'running';
  let answer: string | undefined;
  let error: string | undefined;

  const progress = () => setCurrentDetails(sessionDetailsMarkdown(state()));
  const delegator = new Delegator({ sessionId, team, llmTaskQueue, depth: 0, onProgress: progress });
  const hasAgents = Object.keys(team.agents).length > 0;
  const lead = new AgentLoop({
    agentId: 'lead',
    label: 'lead',
    model: team.lead.model,
    system: team.lead.prompt,
    tools: [...toolDefinitions(team.lead.tools), ...(hasAgents ? [agentToolDefinition(team.agents)] : [])],
    maxTokens: team.lead.maxTokens,
    maxTurns: team.lead.maxTurns,
    pricing: team.pricing,
    llm: modelActivities(llmTaskQueue, team.limits.modelRetry),
    conversationKey: `${sessionId}#lead`,
    onProgress: progress,
    executeTool: makeToolExecutor({
      agentLabel: 'lead',
      granted: team.lead.tools,
      orchestration: hasAgents ? { agent: (b) => delegator.agentTool(b) } : {},
      noDelegationReason: 'this team defines no subagents (add some under `agents:`)',
      tools: toolActivities(),
      maxResultChars: MAX_TOOL_RESULT_CHARS,
    }),
  });

  function state(): SessionState {
    const usage = delegator.agents.reduce((sum, a) => addUsage(sum, a.usage), lead.usage);
    return {
      sessionId,
      team: team.name,
      task: input.task,
      status,
      lead: { model: team.lead.model, turns: lead.turns, usage: lead.usage, last: lead.last },
      agents: delegator.agents,
      usage,
      answer,
      error,
    };
  }

  function result(): SessionResult {
    const s = state();
    return {
      workflowId: sessionId,
      status: s.status,
      answer: s.answer ?? '',
      usage: s.usage,
      agents: s.agents.map(({ id, name, status, turns, usage }) => ({ id, name, status, turns, usage })),
      ...(s.error ? { error: s.error } : {}),
    };
  }

  setHandler(childResultSignal, (r) => delegator.onChildResult(r));
  setHandler(sessionStateQuery, state);

  try {
    const outcome = await lead.run(input.task);
    status = outcome.status;
    answer = outcome.text;
    progress();
    return result();
  } catch (err) {
    if (isCancellation(err)) {
      status = 'cancelled';
      progress();
      throw err;
    }
    status = 'failed';
    error = `lead failed: ${describeFailure(err)}`;
    progress();
    // Fail the workflow (not the workflow task, which would retry forever) with the result attached.
    throw ApplicationFailure.create({ type: 'SessionFailed', message: error, nonRetryable: true, details: [result()] });
  }
}
