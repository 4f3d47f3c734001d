import type { RunService, ToolCallService } from '../../calls/index.js';
import { CLI_PRINCIPAL, type Command, UsageError } from '../../cli/command.js';
import type { JournalEvent } from '../../core/journal-event.js';
import type { JournalService } from '../../journal/service.js';
import type { ChatService } from '../chat/index.js';
import type { ModelOutputEvent, ModelOutputHub } from './output.js';
import { autoApprovable } from './rules/stop.js';
import type { AgentRunService } from './service.js';

interface AgentCliServices {
  start(): Promise<void>;
  stop(): Promise<void>;
  runs: RunService;
  calls: ToolCallService;
  chats: ChatService;
  journal: JournalService;
  agentRuns: AgentRunService;
  agentOutput: ModelOutputHub;
}

const callStatusEvents: Partial<Record<JournalEvent['type'], string>> = {
  tool_call_awaiting_approval: 'awaiting approval',
  tool_call_approved: 'approved',
  tool_call_denied: 'denied',
  tool_call_started: 'started',
  tool_call_completed: 'completed',
  tool_call_failed: 'failed',
  tool_call_cancelled: 'cancelled',
  tool_call_expired: 'expired',
};

function positiveInt(value: unknown, option: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`--${option} must be a positive integer`);
  return number;
}

/** Streamed text arrives in pieces: whole lines are printed as they complete, the rest when the round ends. */
class TextLines {
  private pending = '';
  constructor(private readonly out: (line: string) => void) {}
  add(text: string): void {
    const lines = (this.pending + text).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.out(line);
  }
  flush(): void {
    if (this.pending !== '') this.out(this.pending);
    this.pending = '';
  }
}

export const agentCommands: Command<AgentCliServices>[] = [
  {
    path: ['agent', 'run'],
    summary: 'Run an agent loop here and print its streamed text, its calls and their status.',
    usage:
      'agent run --connection <name> [--profile <p>] [--chat <id>] [--workspace <id>] [--user <id>] [--preset <name>] [--max-rounds <n>] [--max-tokens <n>] [--auto-approve] "<prompt>"',
    options: {
      connection: { type: 'string', description: 'the model connection to call' },
      profile: { type: 'string', description: "the run's agent profile (its policy)" },
      chat: { type: 'string', description: 'the imported chat the context reads' },
      workspace: { type: 'string', description: 'the workspace its workspace tools use' },
      user: { type: 'string', description: "the user the run acts for (default: the chat's owner)" },
      preset: { type: 'string', description: 'a built-in context preset (default: default)' },
      'max-rounds': { type: 'string', description: 'model requests it may make (default 20)' },
      'max-tokens': { type: 'string', description: 'input plus output tokens it may use' },
      'auto-approve': {
        type: 'boolean',
        description: 'approve calls of read-only tools at once; anything that writes waits for a person',
      },
    },
    async run({ values, positionals }, services, io) {
      const prompt = positionals.join(' ').trim();
      if (prompt === '') throw new UsageError('the prompt is required');
      if (typeof values.connection !== 'string') throw new UsageError('--connection is required');
      const chatId = typeof values.chat === 'string' ? values.chat : null;
      const userId =
        typeof values.user === 'string'
          ? values.user
          : chatId
            ? ((await services.chats.get(chatId))?.ownerUserId ?? null)
            : null;
      const maxRounds = positiveInt(values['max-rounds'], 'max-rounds');
      const maxTokens = positiveInt(values['max-tokens'], 'max-tokens');
      await services.start();
      try {
        const run = await services.runs.create(
          {
            userId,
            profileId: values.profile ?? null,
            chatId,
            workspaceId: values.workspace ?? null,
          },
          CLI_PRINCIPAL,
        );
        io.out(`run ${run.id}`);
        return await watch(services, io, run.id, values['auto-approve'] === true, async () => {
          await services.agentRuns.start(
            {
              runId: run.id,
              connection: values.connection,
              presetName: values.preset ?? null,
              prompt,
              maxRounds,
              maxTokens,
            },
            CLI_PRINCIPAL,
          );
        });
      } finally {
        await services.stop();
      }
    },
  },
];

/**
 * Subscribes to the run's output and journal before the loop starts (nothing is missed), prints
 * both until the loop stops, and approves safe calls when asked to.
 */
async function watch(
  services: AgentCliServices,
  io: { out(line: string): void; err(line: string): void },
  runId: string,
  autoApprove: boolean,
  begin: () => Promise<void>,
): Promise<number> {
  const text = new TextLines((line) => io.out(line));
  const output = services.agentOutput.stream(runId, 0);
  const events = services.journal.stream({ runId, callId: null }, 0n);
  const names = new Map<string, string>();
  const printOutput = (async () => {
    for await (const event of output as AsyncIterable<ModelOutputEvent>) {
      if (event.kind === 'TEXT') text.add(event.text ?? '');
      else if (event.kind === 'RETRY') {
        text.flush();
        io.out(`  (model request failed: ${event.reason}; retrying in ${event.delayMs} ms)`);
      } else if (event.kind === 'ROUND_FINISHED') text.flush();
    }
  })();
  await begin();
  let code = 1;
  for await (const event of events) {
    if (event.type === 'tool_call_requested' && event.callId) {
      text.flush();
      const name = String(event.payload.name);
      names.set(event.callId, name);
      // The journal keeps a summary of the arguments (a string, cut when long).
      const args = event.payload.arguments;
      io.out(`→ ${name} ${typeof args === 'string' ? args : JSON.stringify(args ?? {})}`);
    }
    const status = callStatusEvents[event.type];
    if (status && event.callId) {
      text.flush();
      io.out(`  ${names.get(event.callId) ?? event.callId}: ${status}`);
      if (event.type === 'tool_call_awaiting_approval')
        await approveOrWait(services, io, event.callId, autoApprove);
    }
    if (event.type === 'model_request_failed' && event.payload.retryInMs === null)
      io.err(`model request failed: ${String(event.payload.reason)}`);
    if (event.type === 'agent_run_stopped') {
      text.flush();
      const reason = String(event.payload.reason);
      io.out(`stopped: ${reason} after ${String(event.payload.rounds)} rounds`);
      code = reason === 'no_calls' || reason === 'finished' ? 0 : 1;
      break;
    }
  }
  await events.return?.();
  await output.return();
  await printOutput;
  return code;
}

async function approveOrWait(
  services: AgentCliServices,
  io: { out(line: string): void },
  callId: string,
  autoApprove: boolean,
): Promise<void> {
  const call = await services.calls.get(callId);
  if (!call) return;
  if (autoApprove && call.tool && autoApprovable(call.tool.annotations)) {
    await services.calls.approve(
      callId,
      { argumentsHash: call.argumentsHash, reason: 'agent run --auto-approve: a safe tool' },
      CLI_PRINCIPAL,
    );
    return;
  }
  io.out(`  waiting for a decision on call ${callId} (approve it in the console)`);
}
