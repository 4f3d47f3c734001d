import { CreateRunInput, RunType } from '../../calls/graphql/run.js';
import { builder, scopes } from '../../graphql/builder.js';
import { upperValues } from '../../graphql/enums.js';
import { ContextPresetInput } from '../../model/context/graphql.js';
import { startAgentRunInputSchema } from './input.js';
import { type ModelOutputEvent, modelOutputKinds } from './output.js';
import { agentJobPhases, agentJobStatuses, agentStopReasons } from './rules/stop.js';
import type { AgentJobRow, AgentRoundRow } from './service.js';

const AgentRunStatusEnum = builder.enumType('AgentRunStatus', {
  description: 'RUNNING: the server drives the loop (or waits for its calls). STOPPED: see stopReason.',
  values: agentJobStatuses,
});
const AgentRunPhaseEnum = builder.enumType('AgentRunPhase', {
  description:
    "REQUEST: the next model request is due (or in flight). WAIT: the last turn's calls are not all finished (an approval pauses here).",
  values: agentJobPhases,
});
const AgentStopReasonEnum = builder.enumType('AgentStopReason', {
  description:
    'Why the loop stopped: NO_CALLS (the model answered without calls) and FINISHED (workspace.finish completed) complete the run; MAX_ROUNDS, TOKEN_BUDGET, MODEL_REQUEST_FAILED (after its retries) and SYSTEM_FAILURE fail it; CANCELLED: the run was cancelled or ended otherwise.',
  values: upperValues(agentStopReasons),
});
const ModelOutputKindEnum = builder.enumType('ModelOutputKind', {
  description:
    'JOINED: the subscription is live (round: the rounds so far). ROUND_STARTED: a request went out. TEXT: a piece of the answer. TOOL_CALL_START: the model began a call. RETRY: the attempt failed and is retried (what streamed of it is void). ROUND_FINISHED: the turn is stored.',
  values: modelOutputKinds,
});

interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
}

const ModelUsageType = builder.objectRef<Usage>('ModelUsage').implement({
  description: 'Tokens as the provider counted them; null where it did not say.',
  fields: (t) => ({
    inputTokens: t.exposeInt('inputTokens', { description: 'Prompt tokens.', nullable: true }),
    outputTokens: t.exposeInt('outputTokens', {
      description: 'Answer tokens, reasoning included.',
      nullable: true,
    }),
    reasoningTokens: t.exposeInt('reasoningTokens', {
      description: 'Reasoning tokens (null where the format does not tell them apart).',
      nullable: true,
    }),
  }),
});

const AgentRoundType = builder.objectRef<AgentRoundRow>('AgentRound').implement({
  description: 'One model request of an agent loop and the turn it stored.',
  fields: (t) => ({
    round: t.exposeInt('round', { description: '1, 2, 3, … within the loop.' }),
    turnId: t.exposeID('turnId', { description: 'The stored model turn (see modelTurns).' }),
    calls: t.exposeInt('calls', { description: 'Calls the turn asked for.' }),
    usage: t.field({
      type: ModelUsageType,
      description: 'What the request cost; all null for a round taken over after a crash.',
      resolve: (r) => r,
    }),
    attempts: t.exposeInt('attempts', {
      description: 'HTTP attempts, retries included (0 for a round taken over after a crash).',
    }),
    durationMs: t.exposeInt('durationMs', { description: 'From the request to the whole answer.' }),
    createdAt: t.expose('createdAt', { description: 'When the turn was recorded.', type: 'DateTime' }),
  }),
});

const AgentRunType = builder.objectRef<AgentJobRow>('AgentRun').implement({
  description: 'The agent loop the server drives for a run: its state, limits and what it has cost.',
  fields: (t) => ({
    runId: t.exposeID('runId', { description: 'The run.' }),
    run: t.field({
      type: RunType,
      description: 'The run itself.',
      resolve: async (job, _args, ctx) => (await ctx.services.runs.get(job.runId))!,
    }),
    status: t.expose('status', { description: 'Running or stopped.', type: AgentRunStatusEnum }),
    phase: t.expose('phase', { description: 'The step it is on.', type: AgentRunPhaseEnum }),
    round: t.exposeInt('round', { description: 'Model turns the loop has stored.' }),
    stopReason: t.field({
      type: AgentStopReasonEnum,
      nullable: true,
      description: 'Why it stopped; null while it runs.',
      resolve: (job) => job.stopReason,
    }),
    connection: t.exposeString('connection', { description: 'The model connection it calls.' }),
    presetName: t.exposeString('presetName', {
      description: 'The built-in preset its requests use; null with an inline preset.',
      nullable: true,
    }),
    preset: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The inline preset its requests use; null with a preset name.',
      resolve: (job) => job.preset,
    }),
    prompt: t.exposeString('prompt', { description: 'The task, the last block of every request.' }),
    maxRounds: t.exposeInt('maxRounds', { description: 'Model requests it may make.' }),
    maxTokens: t.exposeInt('maxTokens', {
      description: 'Input plus output tokens it may use; null for no budget.',
      nullable: true,
    }),
    usage: t.field({
      type: ModelUsageType,
      description: 'The sum over its rounds.',
      resolve: (job) => job,
    }),
    rounds: t.field({
      type: [AgentRoundType],
      description: 'Each model request, in order.',
      resolve: (job, _args, ctx) => ctx.services.agentRuns.rounds(job.runId),
    }),
    createdAt: t.expose('createdAt', { description: 'When it started.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last moved.', type: 'DateTime' }),
  }),
});

const ModelOutputEventType = builder.objectRef<ModelOutputEvent>('ModelOutputEvent').implement({
  description: "A piece of a run's model output as it streams in; fields not of its kind are null.",
  fields: (t) => ({
    runId: t.exposeID('runId', { description: 'The run.' }),
    round: t.exposeInt('round', { description: 'The round the request belongs to.' }),
    kind: t.expose('kind', { description: 'What it is.', type: ModelOutputKindEnum }),
    text: t.exposeString('text', { description: 'TEXT: the new text.', nullable: true }),
    index: t.exposeInt('index', {
      description: "TOOL_CALL_START: the call's place in the turn.",
      nullable: true,
    }),
    providerCallId: t.exposeString('providerCallId', {
      description: "TOOL_CALL_START: the provider's call id, when it streams one.",
      nullable: true,
    }),
    name: t.exposeString('name', {
      description: 'TOOL_CALL_START: the tool name as the provider sends it (`workspace_read_file`).',
      nullable: true,
    }),
    attempt: t.exposeInt('attempt', { description: 'RETRY: the attempt that failed.', nullable: true }),
    delayMs: t.exposeInt('delayMs', { description: 'RETRY: the wait before the next one.', nullable: true }),
    status: t.exposeInt('status', { description: 'RETRY: the HTTP status, if any.', nullable: true }),
    reason: t.exposeString('reason', { description: 'RETRY: why, in a few words.', nullable: true }),
    turnId: t.exposeID('turnId', { description: 'ROUND_FINISHED: the stored turn.', nullable: true }),
    calls: t.exposeInt('calls', { description: 'ROUND_FINISHED: calls the turn asked for.', nullable: true }),
  }),
});

const StartAgentRunInput = builder.inputType('StartAgentRunInput', {
  description: 'An agent loop to start: on an existing run (runId) or a new one (run).',
  fields: (t) => ({
    runId: t.id({ description: "An existing run (the caller's own, RUNNING, without a loop)." }),
    run: t.field({ type: CreateRunInput, description: 'The fields of a new run, as createRun takes them.' }),
    connection: t.string({ required: true, description: 'The model connection to call.' }),
    preset: t.field({ type: ContextPresetInput, description: 'An inline preset; or presetName.' }),
    presetName: t.string({ description: 'A built-in preset; `default` when neither is given.' }),
    prompt: t.string({
      required: true,
      description: 'The task (at most 200,000 characters): the last block of every request.',
    }),
    maxRounds: t.int({ description: 'Model requests it may make, 1 to 500; default 20.' }),
    maxTokens: t.int({ description: 'Input plus output tokens it may use; none when absent.' }),
  }),
});

builder.queryFields((t) => ({
  agentRun: t.field({
    type: AgentRunType,
    nullable: true,
    description:
      "A run's agent loop; null when the run has none or the token may not read the run. Every role but EXTENSION.",
    authScopes: scopes.readers,
    args: { runId: t.arg.id({ description: 'The run.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.agentRuns.get(String(args.runId), ctx.principal!),
  }),
}));

builder.mutationFields((t) => ({
  startAgentRun: t.field({
    type: AgentRunType,
    description:
      'Starts the server-driven agent loop: each round the request modelRequest gives goes to the connection (streamed), the turn is stored as submitModelResponse stores it and its calls go through the lifecycle; approvals pause it. It stops with a journaled reason (agent_run_stopped); cancelRun stops it. A run that already has a loop: CONFLICT. ADMIN, HOST and AGENT.',
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        description: 'The loop.',
        type: StartAgentRunInput,
        required: true,
        validate: { schema: startAgentRunInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.agentRuns.start(args.input, ctx.principal!),
  }),
}));

builder.subscriptionFields((t) => ({
  modelOutput: t.field({
    type: ModelOutputEventType,
    description:
      "A run's model output live, as it streams (text, call starts, retries, stored rounds); nothing is replayed: finished turns are in the journal and modelTurns. Every process streams them, whichever drives the run. Agents must name one of their runs; people bound to users only runs of those users. Every role but EXTENSION.",
    authScopes: scopes.readers,
    args: { runId: t.arg.id({ description: 'The run.', required: true }) },
    subscribe: async (_root, args, ctx) => {
      const runId = String(args.runId);
      await ctx.services.journal.authorize(ctx.principal!, { runId, callId: null });
      const job = await ctx.services.agentRuns.get(runId, ctx.principal!);
      return ctx.services.agentOutput.stream(runId, job?.round ?? 0);
    },
    resolve: (event: ModelOutputEvent) => event,
  }),
}));
