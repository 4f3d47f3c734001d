import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { agentJobs } from '../../src/features/agent/tables.js';
import { schema } from '../../src/graphql/schema.js';
import type { Yoga } from '../../src/graphql/yoga.js';
import { readChat, readFixture } from '../support/chat.js';
import { dbTest, type Gql, type GqlResult } from '../support/fixtures.js';
import { admin } from '../support/lifecycle.js';
import { firstSubscriptionEvent } from '../support/sse.js';

/**
 * Who sees and changes another user's data. Bob owns a run (created by his agent's token) with a
 * call awaiting approval, a finished call with a stored resource, a workspace, an imported chat,
 * a world-info activation and a USER rule. Each principal below tries each operation on Bob's
 * things; the cell says what must happen. HIDDEN is NOT_FOUND, null or absent from a list, never a
 * different answer for what exists and what does not.
 */
type Outcome = 'SEES' | 'HIDDEN' | 'FORBIDDEN';

const principals = {
  ADMIN: { role: 'ADMIN' },
  HOST: { role: 'HOST' },
  AGENT_ALICE: { role: 'AGENT', userId: 'alice', profiles: ['*'] },
  /** Acts for Bob too, but did not create his run. */
  AGENT_BOB_OTHER: { role: 'AGENT', userId: 'bob', profiles: ['*'] },
  APPROVER_ALICE: { role: 'APPROVER', users: ['alice'] },
  APPROVER_B_GLOB: { role: 'APPROVER', users: ['b*'] },
  APPROVER_ALL: { role: 'APPROVER', allUsers: true },
  VIEWER_ALICE: { role: 'VIEWER', users: ['alice'] },
  VIEWER_BOB: { role: 'VIEWER', users: ['bob'] },
  EXTENSION: { role: 'EXTENSION', extensionId: 'dice' },
} as const;
type Who = keyof typeof principals;
const everyone = Object.keys(principals) as Who[];

interface World {
  runId: string;
  pendingCallId: string;
  doneCallId: string;
  resourceUri: string;
  workspaceId: string;
  chatId: string;
  ruleId: string;
  lorebookId: string;
  /** A RUN grant an admin made on Bob's run. */
  grantId: string;
  /** A one-time link to Bob's pending call, as a notification would carry it. */
  linkToken: string;
  /** A model turn of Bob's run whose one call awaits approval. */
  turnId: string;
}

interface Operation {
  field: string;
  document: string;
  variables: (w: World) => Record<string, unknown>;
  /** Whether a successful answer shows Bob's thing (or did what was asked). */
  sees: (data: Record<string, unknown>, w: World) => boolean;
  expect: Record<Who, Outcome>;
  subscription?: boolean;
  /** It changes Bob's things, so each principal gets a world of its own. */
  changes?: boolean;
}

/** The usual answer for a read of Bob's run and what belongs to it. */
const runReaders: Record<Who, Outcome> = {
  ADMIN: 'SEES',
  HOST: 'SEES',
  AGENT_ALICE: 'HIDDEN',
  AGENT_BOB_OTHER: 'HIDDEN',
  APPROVER_ALICE: 'HIDDEN',
  APPROVER_B_GLOB: 'SEES',
  APPROVER_ALL: 'SEES',
  VIEWER_ALICE: 'HIDDEN',
  VIEWER_BOB: 'SEES',
  EXTENSION: 'FORBIDDEN',
};
const withRoles = (base: Record<Who, Outcome>, over: Partial<Record<Who, Outcome>>) => ({ ...base, ...over });
/** Approvals are read and decided by people only. */
const approvalReaders = withRoles(runReaders, {
  HOST: 'FORBIDDEN',
  AGENT_ALICE: 'FORBIDDEN',
  AGENT_BOB_OTHER: 'FORBIDDEN',
});
const deciders = withRoles(approvalReaders, { VIEWER_ALICE: 'FORBIDDEN', VIEWER_BOB: 'FORBIDDEN' });
/** Changing Bob's run: agents (his own token only), hosts and admins. */
const runChangers = withRoles(runReaders, {
  APPROVER_ALICE: 'FORBIDDEN',
  APPROVER_B_GLOB: 'FORBIDDEN',
  APPROVER_ALL: 'FORBIDDEN',
  VIEWER_ALICE: 'FORBIDDEN',
  VIEWER_BOB: 'FORBIDDEN',
});
/** What a host feeds Bob's chat and workspace: hosts (for the users of their token) and admins only. */
const hostFeeders = withRoles(runChangers, { AGENT_ALICE: 'FORBIDDEN', AGENT_BOB_OTHER: 'FORBIDDEN' });
/** An agent must not even name Bob's things in a run of its own. */
const runCreators = withRoles(runChangers, { AGENT_ALICE: 'FORBIDDEN' });

const noError = () => true;
const has = (value: unknown, id: string) => JSON.stringify(value).includes(id);

const operations: Operation[] = [
  {
    field: 'run',
    document: 'query($id: ID!) { run(id: $id) { id } }',
    variables: (w) => ({ id: w.runId }),
    sees: (d) => d.run !== null,
    expect: runReaders,
  },
  {
    field: 'runs',
    document: '{ runs(first: 200) { edges { node { id } } } }',
    variables: () => ({}),
    sees: (d, w) => has(d, w.runId),
    expect: runReaders,
  },
  {
    field: 'toolCall',
    document: 'query($id: ID!) { toolCall(id: $id) { id } }',
    variables: (w) => ({ id: w.pendingCallId }),
    sees: (d) => d.toolCall !== null,
    expect: runReaders,
  },
  {
    field: 'pendingApprovals',
    document: '{ pendingApprovals(first: 200) { edges { node { id } } } }',
    variables: () => ({}),
    sees: (d, w) => has(d, w.pendingCallId),
    expect: approvalReaders,
  },
  {
    field: 'journal',
    document: 'query($runId: ID) { journal(runId: $runId, first: 5) { edges { node { seq } } } }',
    variables: (w) => ({ runId: w.runId }),
    sees: (d) => (d.journal as { edges: unknown[] }).edges.length > 0,
    // Agents read the journal of their own runs only; the refusal is the same for any other run id.
    expect: withRoles(runReaders, { AGENT_ALICE: 'FORBIDDEN', AGENT_BOB_OTHER: 'FORBIDDEN' }),
  },
  {
    field: 'resource',
    document: 'query($uri: String!) { resource(uri: $uri) { uri } }',
    variables: (w) => ({ uri: w.resourceUri }),
    sees: (d) => d.resource !== null,
    expect: runReaders,
  },
  {
    field: 'modelTurns',
    document: 'query($id: ID!) { modelTurns(runId: $id) { id } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    expect: runReaders,
  },
  {
    field: 'providerTools',
    document: 'query($id: ID!) { providerTools(runId: $id, provider: OPENAI_CHAT) { tools } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    expect: runReaders,
  },
  {
    field: 'toolResultMessages',
    document:
      'query($id: ID!, $calls: [ID!]!) { toolResultMessages(runId: $id, provider: ANTHROPIC, callIds: $calls) }',
    variables: (w) => ({ id: w.runId, calls: [] }),
    sees: noError,
    expect: runReaders,
  },
  {
    field: 'contextFrame',
    document: 'query($id: ID!) { contextFrame(runId: $id) { totalTokens } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    expect: runReaders,
  },
  {
    field: 'modelRequest',
    document: 'query($id: ID!) { modelRequest(runId: $id, provider: OPENAI_RESPONSES) { body } }',
    variables: (w) => ({ id: w.runId }),
    // Bob's run has a call still pending: whoever sees the run is told so (CONFLICT).
    sees: noError,
    expect: runReaders,
  },
  {
    field: 'effectiveTools',
    document: '{ effectiveTools(context: { userId: "bob", profileId: "p1" }) { tool { name } } }',
    variables: () => ({}),
    sees: noError,
    expect: withRoles(runReaders, {
      AGENT_ALICE: 'FORBIDDEN',
      APPROVER_ALICE: 'FORBIDDEN',
      VIEWER_ALICE: 'FORBIDDEN',
      AGENT_BOB_OTHER: 'SEES',
    }),
  },
  {
    field: 'policyExplain',
    document:
      '{ policyExplain(context: { userId: "bob", profileId: "p1" }, tool: "test.echo", arguments: { text: "x" }) { outcome } }',
    variables: () => ({}),
    sees: noError,
    expect: withRoles(runReaders, {
      AGENT_ALICE: 'FORBIDDEN',
      APPROVER_ALICE: 'FORBIDDEN',
      VIEWER_ALICE: 'FORBIDDEN',
      AGENT_BOB_OTHER: 'SEES',
    }),
  },
  {
    field: 'policyRules',
    document: '{ policyRules { id } }',
    variables: () => ({}),
    sees: (d, w) => has(d, w.ruleId),
    expect: withRoles(approvalReaders, {}),
  },
  {
    field: 'workspace',
    document: 'query($id: ID!) { workspace(id: $id) { id } }',
    variables: (w) => ({ id: w.workspaceId }),
    sees: (d) => d.workspace !== null,
    expect: runReaders,
  },
  {
    field: 'chat',
    document: 'query($id: ID!) { chat(id: $id) { id } }',
    variables: (w) => ({ id: w.chatId }),
    sees: (d) => d.chat !== null,
    expect: runReaders,
  },
  {
    field: 'chats',
    document: '{ chats(first: 200) { edges { node { id } } } }',
    variables: () => ({}),
    sees: (d, w) => has(d, w.chatId),
    expect: runReaders,
  },
  {
    field: 'exportChat',
    document: 'query($id: ID!) { exportChat(id: $id) }',
    variables: (w) => ({ id: w.chatId }),
    sees: (d) => d.exportChat !== null,
    expect: runReaders,
  },
  {
    field: 'searchChat',
    document: 'query($id: ID!) { searchChat(chatId: $id, input: { query: "the" }) { capped } }',
    variables: (w) => ({ id: w.chatId }),
    sees: (d) => d.searchChat !== null,
    expect: runReaders,
  },
  {
    field: 'worldInfoActivation',
    document: 'query($id: String!) { worldInfoActivation(chatId: $id) { chatId } }',
    variables: (w) => ({ id: w.chatId }),
    sees: (d) => d.worldInfoActivation !== null,
    expect: runReaders,
  },
  {
    field: 'createRun',
    document:
      'mutation($ws: String, $chat: String) { createRun(input: { userId: "bob", profileId: "p1", workspaceId: $ws, chatId: $chat }) { id } }',
    variables: (w) => ({ ws: w.workspaceId, chat: w.chatId }),
    sees: noError,
    // Bob's other agent acts for Bob: it may start runs on his workspace and chat.
    expect: withRoles(runCreators, { AGENT_BOB_OTHER: 'SEES' }),
  },
  {
    field: 'requestToolCall',
    document: 'mutation($id: ID!) { requestToolCall(input: { runId: $id, name: "test.noop" }) { id } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    // Approvers call tools on runs of their users (USER_ONLY tools are theirs to run).
    expect: withRoles(runChangers, {
      APPROVER_ALICE: 'HIDDEN',
      APPROVER_B_GLOB: 'SEES',
      APPROVER_ALL: 'SEES',
    }),
    changes: true,
  },
  {
    field: 'submitModelResponse',
    document:
      'mutation($id: ID!, $r: JSON!) { submitModelResponse(runId: $id, provider: OPENAI_CHAT, response: $r) { toolCalls { id } } }',
    variables: (w) => ({
      id: w.runId,
      r: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }],
      },
    }),
    sees: noError,
    expect: runChangers,
    changes: true,
  },
  {
    field: 'cancelRun',
    document: 'mutation($id: ID!) { cancelRun(id: $id) { id } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    // Approvers may stop a run of a user they approve for.
    expect: withRoles(runChangers, {
      APPROVER_ALICE: 'HIDDEN',
      APPROVER_B_GLOB: 'SEES',
      APPROVER_ALL: 'SEES',
    }),
    changes: true,
  },
  {
    field: 'completeRun',
    document: 'mutation($id: ID!) { completeRun(id: $id) { id } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    expect: runChangers,
    changes: true,
  },
  {
    field: 'approveToolCall',
    document: 'mutation($id: ID!) { approveToolCall(id: $id) { id } }',
    variables: (w) => ({ id: w.pendingCallId }),
    sees: noError,
    expect: deciders,
    changes: true,
  },
  {
    field: 'denyToolCall',
    document: 'mutation($id: ID!) { denyToolCall(id: $id) { id } }',
    variables: (w) => ({ id: w.pendingCallId }),
    sees: noError,
    expect: deciders,
    changes: true,
  },
  {
    field: 'approvalBatch',
    document: 'query($turnId: ID!) { approvalBatch(turnId: $turnId) { turnId calls { id } } }',
    variables: (w) => ({ turnId: w.turnId }),
    sees: (d, w) => has(d, w.turnId),
    expect: approvalReaders,
  },
  {
    field: 'decideApprovalBatch',
    document:
      'mutation($turnId: ID!) { decideApprovalBatch(turnId: $turnId, input: { all: APPROVE }) { decided { id } } }',
    variables: (w) => ({ turnId: w.turnId }),
    sees: noError,
    expect: deciders,
    changes: true,
  },
  {
    field: 'grantPreview',
    document: 'query($id: ID!) { grantPreview(callId: $id, scope: RUN) { runId } }',
    variables: (w) => ({ id: w.pendingCallId }),
    sees: (d, w) => has(d, w.runId),
    expect: deciders,
  },
  {
    field: 'approvalLink',
    document: 'query($token: String!) { approvalLink(token: $token) { call { id } } }',
    variables: (w) => ({ token: w.linkToken }),
    sees: (d, w) => has(d, w.pendingCallId),
    expect: deciders,
  },
  {
    field: 'grants',
    document: 'query($runId: ID) { grants(runId: $runId) { id } }',
    variables: (w) => ({ runId: w.runId }),
    sees: (d, w) => has(d, w.grantId),
    expect: approvalReaders,
  },
  {
    field: 'revokeGrant',
    document: 'mutation($id: ID!) { revokeGrant(id: $id) { id } }',
    variables: (w) => ({ id: w.grantId }),
    sees: noError,
    expect: deciders,
    changes: true,
  },
  {
    field: 'recordWorldInfoActivation',
    document:
      'mutation($id: ID!) { recordWorldInfoActivation(input: { runId: $id, entries: [] }) { chatId } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    expect: runChangers,
    changes: true,
  },
  {
    field: 'computeWorldInfoActivation',
    document:
      'mutation($chat: String!, $books: [ID!]!) { computeWorldInfoActivation(input: { chatId: $chat, lorebookIds: $books }) { chatId } }',
    variables: (w) => ({ chat: w.chatId, books: [w.lorebookId] }),
    sees: noError,
    expect: runChangers,
  },
  {
    field: 'appendChatMessages',
    document:
      'mutation($id: ID!) { appendChatMessages(chatId: $id, messages: [{ name: "bob", mes: "more" }]) { count } }',
    variables: (w) => ({ id: w.chatId }),
    sees: (d) => d.appendChatMessages !== null,
    expect: hostFeeders,
    changes: true,
  },
  {
    field: 'putWorkspaceInputs',
    document:
      'mutation($id: ID!) { putWorkspaceInputs(workspaceId: $id, files: [{ path: "inputs/more.md", text: "more" }]) { paths } }',
    variables: (w) => ({ id: w.workspaceId }),
    sees: (d) => d.putWorkspaceInputs !== null,
    expect: hostFeeders,
    changes: true,
  },
  {
    field: 'setPolicyRule',
    document:
      'mutation { setPolicyRule(input: { layer: USER, scopeId: "bob", toolPattern: "test.big", effect: DENY }) { id } }',
    variables: () => ({}),
    sees: noError,
    expect: withRoles(deciders, {
      APPROVER_ALICE: 'FORBIDDEN',
      HOST: 'FORBIDDEN',
      VIEWER_BOB: 'FORBIDDEN',
    }),
  },
  {
    field: 'removePolicyRule',
    document: 'mutation($id: ID!) { removePolicyRule(id: $id) }',
    variables: (w) => ({ id: w.ruleId }),
    sees: noError,
    expect: withRoles(deciders, { APPROVER_ALICE: 'FORBIDDEN', HOST: 'FORBIDDEN', VIEWER_BOB: 'FORBIDDEN' }),
    changes: true,
  },
  {
    field: 'approvalQueue',
    document: 'subscription { approvalQueue { id } }',
    variables: () => ({}),
    sees: (d, w) => has(d, w.pendingCallId),
    expect: approvalReaders,
    subscription: true,
  },
  {
    field: 'approvalQueueEvents',
    document: 'subscription { approvalQueueEvents { kind call { id } } }',
    variables: () => ({}),
    sees: (d, w) => has(d, w.pendingCallId),
    expect: approvalReaders,
    subscription: true,
  },
  {
    field: 'modelOutput',
    document: 'subscription($id: ID!) { modelOutput(runId: $id) { kind } }',
    variables: (w) => ({ id: w.runId }),
    sees: (d) => d.modelOutput != null,
    expect: withRoles(runReaders, { AGENT_ALICE: 'FORBIDDEN', AGENT_BOB_OTHER: 'FORBIDDEN' }),
    subscription: true,
  },
  {
    field: 'agentRun',
    document: 'query($id: ID!) { agentRun(runId: $id) { runId } }',
    variables: (w) => ({ id: w.runId }),
    sees: (d) => d.agentRun !== null,
    expect: runReaders,
  },
  {
    // Bob's run already has a loop: whoever may change the run learns so (CONFLICT).
    field: 'startAgentRun',
    document:
      'mutation($id: ID!) { startAgentRun(input: { runId: $id, connection: "none", prompt: "p" }) { runId } }',
    variables: (w) => ({ id: w.runId }),
    sees: noError,
    expect: runChangers,
  },
  {
    field: 'journalEvents',
    document: 'subscription($id: ID) { journalEvents(runId: $id, afterSeq: "0") { seq } }',
    variables: (w) => ({ id: w.runId }),
    sees: (d) => d.journalEvents != null,
    expect: withRoles(runReaders, { AGENT_ALICE: 'FORBIDDEN', AGENT_BOB_OTHER: 'FORBIDDEN' }),
    subscription: true,
  },
];

/**
 * Root fields whose answer depends on the role alone, not on whose data it is: the registry, policy
 * administration, tokens, MCP servers, extensions (each sees its own tools), and what is shared by
 * every user (skills, lorebooks, character cards, context presets). The auth matrix covers them role by role.
 */
const roleOnly = [
  'tools',
  'tool',
  'registerTool',
  'updateTool',
  'setToolEnabled',
  'removeTool',
  'apiTokens',
  'me',
  'createApiToken',
  'revokeApiToken',
  'bindApiToken',
  'rotateApiToken',
  'mcpServers',
  'mcpServer',
  'addMcpServer',
  'updateMcpServer',
  'setMcpServerEnabled',
  'removeMcpServer',
  'refreshMcpServer',
  'modelConnections',
  'modelConnection',
  'setModelConnection',
  'removeModelConnection',
  'notificationTargets',
  'notificationDeliveries',
  'createNotificationTarget',
  'updateNotificationTarget',
  'deleteNotificationTarget',
  'extensionConnections',
  'extensionTools',
  'registerExtensionTools',
  'unregisterExtensionTools',
  'answerExtensionInvocation',
  'extensionInvocations',
  'skill',
  'skills',
  'visibleSkills',
  'skillRules',
  'setSkillRule',
  'removeSkillRule',
  'importSkills',
  'lorebook',
  'lorebooks',
  'character',
  'characters',
  'exportCharacter',
  'importCharacter',
  'removeCharacter',
  'exportLorebook',
  'importLorebook',
  'importChat',
  'setChatOwner',
  'setWorkspaceOwner',
  'contextPresets',
  'profileRunDefaults',
  'setProfileRunDefaults',
  'removeProfileRunDefaults',
  // Who the caller is, and the admin's view and re-encryption of every stored credential (metadata only).
  'whoami',
  'upstreamCredentials',
  'reencryptUpstreamCredentials',
];

/**
 * Root fields that name no user: they act on the caller's own upstream credentials, so there is no
 * Bob's thing for another caller to reach. test/bridge/mcp/credentials/graphql.db.test.ts shows
 * one user's credential staying invisible and untouchable to another.
 */
const callerOwn = [
  'myUpstreamCredentials',
  'setUpstreamCredential',
  'connectUpstreamCredential',
  'removeUpstreamCredential',
];

async function call(yoga: Yoga, op: Operation, w: World, token: string): Promise<GqlResult> {
  const response = await yoga.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...(op.subscription ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify({ query: op.document, variables: op.variables(w) }),
  });
  if (!op.subscription) return (await response.json()) as GqlResult;
  return firstSubscriptionEvent(response, 1_000);
}

function outcomeOf(op: Operation, res: GqlResult, w: World): Outcome | string {
  const codes = (res.errors ?? []).map((e) => e.extensions?.code);
  if (codes.includes('FORBIDDEN')) return 'FORBIDDEN';
  if (codes.includes('NOT_FOUND')) return 'HIDDEN';
  // Whoever may see Bob's run learns its state: that is what CONFLICT answers (a call pending).
  if (codes.includes('CONFLICT')) return 'SEES';
  if (codes.length > 0) return `unexpected ${codes.join(', ')}: ${res.errors![0]!.message}`;
  return op.sees((res.data ?? {}) as Record<string, unknown>, w) ? 'SEES' : 'HIDDEN';
}

let worlds = 0;

/** Bob's things, made through the API by his agent and an admin, each time with new ids. */
async function bobWorld(services: Services, gql: Gql, bobAgent: string): Promise<World> {
  const n = ++worlds;
  await services.policy.set(
    { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'ALLOW' },
    admin,
  );
  await services.policy.set(
    { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.echo', effect: 'ASK' },
    admin,
  );
  const rule = await services.policy.set(
    { layer: 'USER', scopeId: 'bob', toolPattern: 'test.typed', effect: 'DENY' },
    admin,
  );
  const chat = await gql(
    'mutation($jsonl: String!, $id: String) { importChat(input: { jsonl: $jsonl, id: $id, ownerUserId: "bob" }) { id } }',
    {
      jsonl: readChat('legacy-tavernai/Aqua/1673181146000.jsonl'),
      id: `bob-chat-${n}`,
    },
  );
  const chatId = chat.data!.importChat.id as string;
  const workspaceId = `bob-ws-${n}`;
  const run = await gql(
    'mutation($ws: String, $chat: String) { createRun(input: { profileId: "p1", workspaceId: $ws, chatId: $chat }) { id } }',
    { ws: workspaceId, chat: chatId },
    bobAgent,
  );
  const runId = run.data!.createRun.id as string;
  const request = (name: string, args: Record<string, unknown>) =>
    gql(
      'mutation($id: ID!, $name: String!, $args: JSON) { requestToolCall(input: { runId: $id, name: $name, arguments: $args }) { id status result { resourceRefs } } }',
      { id: runId, name, args },
      bobAgent,
    );
  const pending = await request('test.echo', { text: `bob ${n}` });
  const done = await request('test.big', { chars: 40_000 + n });
  const turn = await gql(
    'mutation($id: ID!, $response: JSON!) { submitModelResponse(runId: $id, provider: OPENAI_CHAT, response: $response) { turn { id } } }',
    { id: runId, response: modelTurn(`bob-turn-${n}`, `bob turn ${n}`) },
    bobAgent,
  );
  const doneCall = (await services.calls.get(done.data!.requestToolCall.id))!;
  const grant = await services.database.db.transaction((tx) =>
    services.grants.create(tx, doneCall, { scope: 'RUN', conditions: [], profileId: null }, admin),
  );
  await gql(
    'mutation($id: ID!, $chat: String) { recordWorldInfoActivation(input: { runId: $id, chatId: $chat, entries: [] }) { chatId } }',
    { id: runId, chat: chatId },
    bobAgent,
  );
  // A loop that has stopped (none is driven here): enough for agentRun and startAgentRun to find.
  await services.database.db.insert(agentJobs).values({
    runId,
    status: 'STOPPED',
    phase: 'WAIT',
    stopReason: 'cancelled',
    connection: 'none',
    prompt: 'p',
    maxRounds: 1,
    principal: admin,
  });
  const book = await gql('mutation($json: String!) { importLorebook(input: { json: $json }) { id } }', {
    json: readFixture('sillytavern/worlds/Eldoria.json'),
  });
  return {
    runId,
    pendingCallId: pending.data!.requestToolCall.id,
    doneCallId: done.data!.requestToolCall.id,
    resourceUri: done.data!.requestToolCall.result.resourceRefs[0],
    workspaceId,
    chatId,
    ruleId: rule.id,
    lorebookId: book.data!.importLorebook.id,
    grantId: grant.id,
    linkToken: (
      await services.notifications.links.issue(
        services.database.db,
        pending.data!.requestToolCall.id,
        null,
        null,
      )
    ).token,
    turnId: turn.data!.submitModelResponse.turn.id,
  };
}

/** An OpenAI chat completion calling test.echo once. */
const modelTurn = (id: string, text: string) => ({
  id,
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_bob',
            type: 'function',
            function: { name: 'test_echo', arguments: JSON.stringify({ text }) },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
});

const test = dbTest.extend<{ secrets: Record<Who, string>; bobAgent: string }>({
  secrets: async ({ services }, use) => {
    const entries = await Promise.all(
      everyone.map(async (who) => {
        const { secret } = await services.tokens.create({ name: who.toLowerCase(), ...principals[who] });
        return [who, secret] as const;
      }),
    );
    await use(Object.fromEntries(entries) as Record<Who, string>);
  },
  bobAgent: async ({ services }, use) => {
    const { secret } = await services.tokens.create({
      name: 'bob-agent',
      role: 'AGENT',
      userId: 'bob',
      profiles: ['*'],
    });
    await use(secret);
  },
});

const rootFields = () =>
  [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
    type ? Object.keys(type.getFields()) : [],
  );

describe('security matrix', () => {
  test('covers every root field: in the matrix, or named as depending on the role alone', () => {
    const listed = [...operations.map((o) => o.field), ...roleOnly, ...callerOwn].sort();
    expect(listed).toEqual(rootFields().sort());
  });

  test.for(operations)('$field on Bob’s things', async (op, { services, gql, yoga, secrets, bobAgent }) => {
    let world = await bobWorld(services, gql, bobAgent);
    const seen: Record<string, Outcome | string> = {};
    for (const who of everyone) {
      if (op.changes) world = await bobWorld(services, gql, bobAgent);
      seen[who] = outcomeOf(op, await call(yoga, op, world, secrets[who]), world);
    }
    expect(seen).toEqual(op.expect);
  });
});
