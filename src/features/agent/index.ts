/** The agent loop the server drives (issue 15): jobs, the driver, live model output and the CLI. */
export { agentCommands } from './cli.js';
export { AgentLoop, type AgentLoopOptions } from './loop.js';
export { ModelOutputHub } from './output.js';
export { AgentRunService } from './service.js';
