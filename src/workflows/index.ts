// Every workflow the worker registers (its workflowsPath points here).
export { sessionWorkflow } from './session';
export { subagentWorkflow } from './subagent';
export { batchWorkflow } from './batch';
