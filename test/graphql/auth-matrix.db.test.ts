import { describe, expect } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import type { Yoga } from '../../src/graphql/yoga.js';
import { type GqlResult, type Role, dbTest as test } from '../support/fixtures.js';

const ALL: Role[] = ['ADMIN', 'HOST', 'APPROVER', 'AGENT', 'EXTENSION', 'VIEWER'];
const READERS: Role[] = ['ADMIN', 'HOST', 'APPROVER', 'AGENT', 'VIEWER'];
const AGENTS: Role[] = ['ADMIN', 'HOST', 'AGENT'];
const PEOPLE: Role[] = ['ADMIN', 'APPROVER', 'VIEWER'];
/** Hosts see every run, so they read the whole journal like people do. */
const JOURNAL: Role[] = [...PEOPLE, 'HOST'];
const NIL = '00000000-0000-4000-8000-000000000000';

interface Operation {
  field: string;
  document: string;
  allowed: Role[];
  subscription?: boolean;
}

const tool = `{ name: "ext.t.x", title: "T", description: "d", inputSchema: { type: "object" }, source: EXTENSION }`;

/** Every root field, who may use it, and an operation that exercises it. */
const operations: Operation[] = [
  {
    field: 'tools',
    document: '{ tools { edges { node { name } } } }',
    allowed: READERS,
  },
  {
    field: 'tool',
    document: '{ tool(name: "ext.t.x") { name } }',
    allowed: READERS,
  },
  { field: 'policyRules', document: '{ policyRules { id } }', allowed: ['ADMIN', 'APPROVER', 'VIEWER'] },
  {
    field: 'effectiveTools',
    document: '{ effectiveTools(context: { userId: "u1" }) { reason } }',
    allowed: READERS,
  },
  {
    field: 'policyExplain',
    document: '{ policyExplain(context: { userId: "u1" }, tool: "test.echo", arguments: {}) { outcome } }',
    allowed: READERS,
  },
  { field: 'apiTokens', document: '{ apiTokens { id } }', allowed: ['ADMIN'] },
  { field: 'me', document: '{ me { role } }', allowed: ALL },
  { field: 'whoami', document: '{ whoami { role idp { subject } } }', allowed: ALL },
  {
    field: 'registerTool',
    document: `mutation { registerTool(input: ${tool}) { name } }`,
    allowed: ['ADMIN'],
  },
  {
    field: 'updateTool',
    document: 'mutation { updateTool(name: "ext.t.x", input: { title: "U" }) { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'setToolEnabled',
    document: 'mutation { setToolEnabled(name: "ext.t.x", enabled: false) { name } }',
    allowed: ['ADMIN'],
  },
  { field: 'removeTool', document: 'mutation { removeTool(name: "ext.t.x") }', allowed: ['ADMIN'] },
  {
    field: 'setPolicyRule',
    document:
      'mutation { setPolicyRule(input: { layer: USER, scopeId: "alice", toolPattern: "*", effect: DENY }) { id } }',
    allowed: ['ADMIN', 'APPROVER'],
  },
  {
    field: 'removePolicyRule',
    document: 'mutation { removePolicyRule(id: "00000000-0000-0000-0000-000000000000") }',
    allowed: ['ADMIN', 'APPROVER'],
  },
  {
    field: 'createApiToken',
    document: 'mutation { createApiToken(input: { name: "n", role: VIEWER }) { token } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'revokeApiToken',
    document: 'mutation { revokeApiToken(id: "00000000-0000-0000-0000-000000000000") }',
    allowed: ['ADMIN'],
  },
  {
    field: 'bindApiToken',
    document:
      'mutation { bindApiToken(id: "00000000-0000-0000-0000-000000000000", input: { legacyUnbound: true }) { id } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'rotateApiToken',
    document: 'mutation { rotateApiToken(id: "00000000-0000-0000-0000-000000000000") { token } }',
    allowed: ['ADMIN'],
  },
  { field: 'mcpServers', document: '{ mcpServers { name } }', allowed: ['ADMIN'] },
  { field: 'mcpServer', document: '{ mcpServer(name: "nope") { name } }', allowed: ['ADMIN'] },
  {
    field: 'addMcpServer',
    document:
      'mutation { addMcpServer(input: { name: "m", transport: STREAMABLE_HTTP, url: "http://127.0.0.1:9/mcp", enabled: false }) { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'updateMcpServer',
    document: 'mutation { updateMcpServer(name: "nope", input: { args: ["x"] }) { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'setMcpServerEnabled',
    document: 'mutation { setMcpServerEnabled(name: "nope", enabled: false) { name } }',
    allowed: ['ADMIN'],
  },
  { field: 'removeMcpServer', document: 'mutation { removeMcpServer(name: "nope") }', allowed: ['ADMIN'] },
  {
    field: 'refreshMcpServer',
    document: 'mutation { refreshMcpServer(name: "nope") { changes { added } } }',
    allowed: ['ADMIN'],
  },
  { field: 'myUpstreamCredentials', document: '{ myUpstreamCredentials { server } }', allowed: ALL },
  { field: 'upstreamCredentials', document: '{ upstreamCredentials { server } }', allowed: ['ADMIN'] },
  {
    field: 'setUpstreamCredential',
    document: 'mutation { setUpstreamCredential(server: "nope", secret: "s") { server } }',
    allowed: ['AGENT'],
  },
  {
    field: 'connectUpstreamCredential',
    document: 'mutation { connectUpstreamCredential(server: "nope") { server } }',
    allowed: ['AGENT'],
  },
  {
    field: 'removeUpstreamCredential',
    document: 'mutation { removeUpstreamCredential(server: "nope") }',
    allowed: ['AGENT'],
  },
  {
    field: 'reencryptUpstreamCredentials',
    document: 'mutation { reencryptUpstreamCredentials }',
    allowed: ['ADMIN'],
  },
  { field: 'modelConnections', document: '{ modelConnections { name } }', allowed: ['ADMIN'] },
  {
    field: 'modelConnection',
    document: '{ modelConnection(name: "nope") { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'setModelConnection',
    document:
      'mutation { setModelConnection(input: { name: "m", wireFormat: OPENAI_CHAT, model: "x", baseUrl: "http://127.0.0.1:9/v1" }) { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'removeModelConnection',
    document: 'mutation { removeModelConnection(name: "nope") }',
    allowed: ['ADMIN'],
  },
  { field: 'notificationTargets', document: '{ notificationTargets { id } }', allowed: ['ADMIN'] },
  { field: 'notificationDeliveries', document: '{ notificationDeliveries { id } }', allowed: ['ADMIN'] },
  {
    field: 'approvalLink',
    document: '{ approvalLink(token: "nope") { usedAt } }',
    allowed: ['ADMIN', 'APPROVER'],
  },
  {
    field: 'createNotificationTarget',
    document:
      'mutation { createNotificationTarget(input: { name: "n", kind: WEBHOOK, url: "http://127.0.0.1:9/h", events: [CALL_DECIDED] }) { id } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'updateNotificationTarget',
    document: `mutation { updateNotificationTarget(id: "${NIL}", input: { enabled: false }) { id } }`,
    allowed: ['ADMIN'],
  },
  {
    field: 'deleteNotificationTarget',
    document: `mutation { deleteNotificationTarget(id: "${NIL}") { id } }`,
    allowed: ['ADMIN'],
  },
  { field: 'run', document: `{ run(id: "${NIL}") { id } }`, allowed: READERS },
  { field: 'agentRun', document: `{ agentRun(runId: "${NIL}") { status } }`, allowed: READERS },
  {
    field: 'startAgentRun',
    document: `mutation { startAgentRun(input: { runId: "${NIL}", connection: "none", prompt: "p" }) { status } }`,
    allowed: AGENTS,
  },
  { field: 'runs', document: '{ runs { edges { node { id } } } }', allowed: READERS },
  { field: 'toolCall', document: `{ toolCall(id: "${NIL}") { id } }`, allowed: READERS },
  { field: 'pendingApprovals', document: '{ pendingApprovals { edges { node { id } } } }', allowed: PEOPLE },
  // An agent must name one of its own runs to read the journal; without one it is refused.
  { field: 'journal', document: '{ journal { edges { node { seq } } } }', allowed: JOURNAL },
  { field: 'resource', document: '{ resource(uri: "resource://sha256/00") { uri } }', allowed: READERS },
  { field: 'createRun', document: 'mutation { createRun(input: {}) { id } }', allowed: AGENTS },
  {
    field: 'requestToolCall',
    document: `mutation { requestToolCall(input: { runId: "${NIL}", name: "ext.t.x" }) { id } }`,
    // Approvers call as people (USER_ONLY tools included) on runs of their users.
    allowed: [...AGENTS, 'APPROVER'],
  },
  {
    field: 'approveToolCall',
    document: `mutation { approveToolCall(id: "${NIL}") { id } }`,
    allowed: ['ADMIN', 'APPROVER'],
  },
  {
    field: 'denyToolCall',
    document: `mutation { denyToolCall(id: "${NIL}") { id } }`,
    allowed: ['ADMIN', 'APPROVER'],
  },
  { field: 'approvalBatch', document: `{ approvalBatch(turnId: "${NIL}") { turnId } }`, allowed: PEOPLE },
  {
    field: 'decideApprovalBatch',
    document: `mutation { decideApprovalBatch(turnId: "${NIL}", input: { all: APPROVE }) { conflicts { callId } } }`,
    allowed: ['ADMIN', 'APPROVER'],
  },
  {
    field: 'grantPreview',
    document: `{ grantPreview(callId: "${NIL}", scope: RUN) { summary } }`,
    allowed: ['ADMIN', 'APPROVER'],
  },
  { field: 'grants', document: '{ grants { id } }', allowed: PEOPLE },
  {
    field: 'revokeGrant',
    document: `mutation { revokeGrant(id: "${NIL}") { id } }`,
    allowed: ['ADMIN', 'APPROVER'],
  },
  {
    field: 'cancelRun',
    document: `mutation { cancelRun(id: "${NIL}") { id } }`,
    allowed: [...AGENTS, 'APPROVER'],
  },
  {
    field: 'completeRun',
    document: `mutation { completeRun(id: "${NIL}") { id } }`,
    allowed: AGENTS,
  },
  { field: 'workspace', document: '{ workspace(id: "w1") { id } }', allowed: READERS },
  { field: 'chat', document: `{ chat(id: "${NIL}") { byteSize } }`, allowed: READERS },
  { field: 'chats', document: '{ chats { edges { cursor } } }', allowed: READERS },
  { field: 'exportChat', document: `{ exportChat(id: "${NIL}") }`, allowed: READERS },
  {
    field: 'searchChat',
    document: `{ searchChat(chatId: "${NIL}", input: { query: "x" }) { capped } }`,
    allowed: READERS,
  },
  { field: 'lorebook', document: `{ lorebook(id: "${NIL}") { entryCount } }`, allowed: READERS },
  { field: 'lorebooks', document: '{ lorebooks { entryCount } }', allowed: READERS },
  { field: 'exportLorebook', document: `{ exportLorebook(id: "${NIL}") }`, allowed: READERS },
  { field: 'character', document: `{ character(id: "${NIL}") { name } }`, allowed: READERS },
  { field: 'characters', document: '{ characters { name } }', allowed: READERS },
  {
    field: 'exportCharacter',
    document: `{ exportCharacter(id: "${NIL}", spec: V2) }`,
    allowed: READERS,
  },
  { field: 'skill', document: '{ skill(name: "x") { name } }', allowed: READERS },
  { field: 'skills', document: '{ skills { name } }', allowed: READERS },
  { field: 'visibleSkills', document: '{ visibleSkills(profileId: "p") { name } }', allowed: READERS },
  { field: 'skillRules', document: '{ skillRules { id } }', allowed: READERS },
  {
    field: 'worldInfoActivation',
    document: '{ worldInfoActivation(chatId: "c") { chatId } }',
    allowed: READERS,
  },
  {
    field: 'importChat',
    document: 'mutation { importChat(input: { jsonl: "" }) { byteSize } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'appendChatMessages',
    document: `mutation { appendChatMessages(chatId: "${NIL}", messages: [{ name: "n", mes: "m" }]) { count } }`,
    allowed: ['ADMIN', 'HOST'],
  },
  {
    field: 'setChatOwner',
    document: `mutation { setChatOwner(id: "${NIL}", userId: "u1") { id } }`,
    allowed: ['ADMIN'],
  },
  {
    field: 'putWorkspaceInputs',
    document:
      'mutation { putWorkspaceInputs(workspaceId: "w1", files: [{ path: "inputs/a.md", text: "a" }]) { paths } }',
    allowed: ['ADMIN', 'HOST'],
  },
  {
    field: 'setWorkspaceOwner',
    document: 'mutation { setWorkspaceOwner(id: "w1", userId: "u1") { id } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'profileRunDefaults',
    document: '{ profileRunDefaults { profileId } }',
    allowed: [...PEOPLE, 'HOST'],
  },
  {
    field: 'setProfileRunDefaults',
    document: 'mutation { setProfileRunDefaults(input: { profileId: "p1", maxCalls: 5 }) { profileId } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'removeProfileRunDefaults',
    document: 'mutation { removeProfileRunDefaults(profileId: "p1") }',
    allowed: ['ADMIN'],
  },
  {
    field: 'importLorebook',
    document: 'mutation { importLorebook(input: { json: "" }) { entryCount } }',
    allowed: ['ADMIN'],
  },
  { field: 'importSkills', document: 'mutation { importSkills(skills: []) { name } }', allowed: ['ADMIN'] },
  {
    field: 'importCharacter',
    document: 'mutation { importCharacter(input: { json: "" }) { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'removeCharacter',
    document: `mutation { removeCharacter(id: "${NIL}") }`,
    allowed: ['ADMIN'],
  },
  {
    field: 'setSkillRule',
    document: 'mutation { setSkillRule(input: { effect: DENY, pattern: "x" }) { id } }',
    allowed: ['ADMIN'],
  },
  { field: 'removeSkillRule', document: `mutation { removeSkillRule(id: "${NIL}") }`, allowed: ['ADMIN'] },
  {
    field: 'recordWorldInfoActivation',
    document: 'mutation { recordWorldInfoActivation(input: { entries: [] }) { chatId } }',
    allowed: AGENTS,
  },
  {
    field: 'computeWorldInfoActivation',
    document: 'mutation { computeWorldInfoActivation(input: { chatId: "c", lorebookIds: [] }) { chatId } }',
    allowed: AGENTS,
  },
  {
    field: 'providerTools',
    document: `{ providerTools(runId: "${NIL}", provider: OPENAI_CHAT) { tools } }`,
    allowed: READERS,
  },
  {
    field: 'toolResultMessages',
    document: `{ toolResultMessages(runId: "${NIL}", provider: ANTHROPIC, callIds: []) }`,
    allowed: READERS,
  },
  { field: 'modelTurns', document: `{ modelTurns(runId: "${NIL}") { id } }`, allowed: READERS },
  {
    field: 'submitModelResponse',
    document: `mutation { submitModelResponse(runId: "${NIL}", provider: GEMINI, response: {}) { toolCalls { id } } }`,
    allowed: AGENTS,
  },
  { field: 'contextPresets', document: '{ contextPresets { name } }', allowed: READERS },
  {
    field: 'contextFrame',
    document: `{ contextFrame(runId: "${NIL}") { totalTokens } }`,
    allowed: READERS,
  },
  {
    field: 'modelRequest',
    document: `{ modelRequest(runId: "${NIL}", provider: OPENAI_RESPONSES) { body } }`,
    allowed: READERS,
  },
  {
    field: 'extensionConnections',
    document: '{ extensionConnections { extensionId } }',
    allowed: ['ADMIN', 'APPROVER', 'VIEWER'],
  },
  { field: 'extensionTools', document: '{ extensionTools { name } }', allowed: ['EXTENSION'] },
  {
    field: 'registerExtensionTools',
    document: 'mutation { registerExtensionTools(input: { tools: [] }) { name } }',
    allowed: ['EXTENSION'],
  },
  {
    field: 'unregisterExtensionTools',
    document: 'mutation { unregisterExtensionTools(names: []) { name } }',
    allowed: ['EXTENSION'],
  },
  {
    field: 'answerExtensionInvocation',
    document: `mutation { answerExtensionInvocation(callId: "${NIL}", result: { isError: true }) { status } }`,
    allowed: ['EXTENSION'],
  },
  {
    field: 'extensionInvocations',
    document: 'subscription { extensionInvocations { callId } }',
    allowed: ['EXTENSION'],
    subscription: true,
  },
  // Over SSE; an agent must name one of its own runs, so the bare subscription is refused to it.
  {
    field: 'journalEvents',
    document: 'subscription { journalEvents { seq } }',
    allowed: JOURNAL,
    subscription: true,
  },
  // An agent must name one of its own runs, like journalEvents.
  {
    field: 'modelOutput',
    document: `subscription { modelOutput(runId: "${NIL}") { kind } }`,
    allowed: JOURNAL,
    subscription: true,
  },
  {
    field: 'approvalQueue',
    document: 'subscription { approvalQueue { id } }',
    allowed: PEOPLE,
    subscription: true,
  },
  {
    field: 'approvalQueueEvents',
    document: 'subscription { approvalQueueEvents { kind pending } }',
    allowed: PEOPLE,
    subscription: true,
  },
];

/**
 * The first event of a subscription over SSE, or the error that refused it. A stream that is
 * allowed yields nothing at first, so after a short wait it counts as an accepted subscription.
 */
async function firstSseEvent(yoga: Yoga, query: string, token: string | null): Promise<GqlResult> {
  const controller = new AbortController();
  const response = await yoga.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 300));
  let text = '';
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk === null || chunk.done) return { data: {} };
      text += new TextDecoder().decode(chunk.value);
      const match = /data: (\{.*\})\n/.exec(text);
      if (match) return JSON.parse(match[1]!) as GqlResult;
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => {});
  }
}

const rootFields = () =>
  [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
    type ? Object.keys(type.getFields()) : [],
  );

describe('auth matrix', () => {
  test('covers every root field of the schema', () => {
    expect(operations.map((o) => o.field).sort()).toEqual(rootFields().sort());
  });

  const cells = operations.flatMap((op) =>
    ALL.map((role) => ({ ...op, role, ok: op.allowed.includes(role) })),
  );

  test.for(cells)(
    '$field as $role: allowed=$ok',
    async ({ document, role, ok, field, subscription }, { gql, tokens, services, yoga }) => {
      await services.registry.register({
        name: 'ext.t.x',
        title: 'T',
        description: 'd',
        inputSchema: { type: 'object' },
        source: 'EXTENSION',
      });
      const res = subscription
        ? await firstSseEvent(yoga, document, tokens[role])
        : await gql(document, {}, tokens[role]);
      const codes = (res.errors ?? []).map((e) => e.extensions?.code);
      if (ok) {
        expect(codes, `${field} must not be refused to ${role}`).not.toContain('FORBIDDEN');
        expect(codes).not.toContain('UNAUTHENTICATED');
      } else {
        expect(codes).toEqual(['FORBIDDEN']);
      }
    },
  );

  test.for(operations)(
    '$field without a token is UNAUTHENTICATED',
    async ({ document, subscription }, { gql, yoga }) => {
      const res = subscription ? await firstSseEvent(yoga, document, null) : await gql(document, {}, null);
      expect(res.errors!.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    },
  );

  test('an unknown token is UNAUTHENTICATED', async ({ gql }) => {
    const res = await gql('{ me { role } }', {}, 'ats_not-a-real-token');
    expect(res.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  test('a revoked token stops working at once', async ({ gql, services }) => {
    const { secret, token } = await services.tokens.create({ name: 'temp', role: 'VIEWER', users: ['u1'] });
    expect((await gql('{ me { name } }', {}, secret)).data!.me.name).toBe('temp');
    expect((await gql(`mutation { revokeApiToken(id: "${token.id}") }`)).data!.revokeApiToken).toBe(true);
    const res = await gql('{ me { name } }', {}, secret);
    expect(res.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
    expect(res.errors![0]!.message).toBe('authentication failed: this token was revoked');
  });
});

describe('USER policy layer ownership', () => {
  test('an approver may not set rules for another user', async ({ gql, tokens }) => {
    const res = await gql(
      'mutation { setPolicyRule(input: { layer: USER, scopeId: "bob", toolPattern: "*", effect: ALLOW }) { id } }',
      {},
      tokens.APPROVER,
    );
    expect(res.errors![0]!.extensions!.code).toBe('FORBIDDEN');
    expect(res.errors![0]!.message).toBe(
      'only an admin or an approver token bound to that user may change USER rules',
    );
  });

  test('an approver may not set PROFILE or PLATFORM rules', async ({ gql, tokens }) => {
    for (const layer of ['PROFILE', 'PLATFORM']) {
      const scope = layer === 'PROFILE' ? ', scopeId: "p1"' : '';
      const res = await gql(
        `mutation { setPolicyRule(input: { layer: ${layer}${scope}, toolPattern: "*", effect: ALLOW }) { id } }`,
        {},
        tokens.APPROVER,
      );
      expect(res.errors![0]!.extensions!.code).toBe('FORBIDDEN');
    }
  });

  test("an approver may not remove another user's rule", async ({ gql, tokens }) => {
    const created = await gql(
      'mutation { setPolicyRule(input: { layer: USER, scopeId: "bob", toolPattern: "*", effect: DENY }) { id } }',
    );
    const id = created.data!.setPolicyRule.id;
    const res = await gql(`mutation { removePolicyRule(id: "${id}") }`, {}, tokens.APPROVER);
    expect(res.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });
});

describe('API tokens', () => {
  test('stores only the hash of a secret', async ({ gql, services }) => {
    const res = await gql(
      'mutation { createApiToken(input: { name: "ci", role: AGENT, userId: "u1" }) { token apiToken { id name role } } }',
    );
    const { token, apiToken } = res.data!.createApiToken;
    expect(token).toMatch(/^ats_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toMatchObject({ name: 'ci', role: 'AGENT' });
    const rows = await services.tokens.list();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
  });

  test('an EXTENSION token must name its extension', async ({ gql }) => {
    const res = await gql('mutation { createApiToken(input: { name: "x", role: EXTENSION }) { token } }');
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toBe('input.extensionId: an EXTENSION token must name its extension');
  });

  test('revoking an unknown token is NOT_FOUND', async ({ gql }) => {
    const res = await gql('mutation { revokeApiToken(id: "not-a-uuid") }');
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
