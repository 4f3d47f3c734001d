import type { Services } from '../../src/app/services.js';
import type { Principal } from '../../src/core/auth.js';

const unbound = {
  userId: null,
  users: [],
  profiles: [],
  planNodes: null,
  extensionId: null,
  legacyUnbound: false,
  idp: null,
};

/** An agent acting for u1, on any profile: the user every test run is for unless it says otherwise. */
export const agent: Principal = {
  ...unbound,
  tokenId: '00000000-0000-4000-8000-000000000001',
  name: 'agent',
  role: 'AGENT',
  userId: 'u1',
  profiles: ['*'],
};
export const admin: Principal = {
  ...unbound,
  tokenId: '00000000-0000-4000-8000-000000000002',
  name: 'root',
  role: 'ADMIN',
};
/** An approver for alice and u1: it decides the calls of the test runs. */
export const approver: Principal = {
  ...unbound,
  tokenId: '00000000-0000-4000-8000-000000000003',
  name: 'alice',
  role: 'APPROVER',
  users: ['alice', 'u1'],
};

export async function allow(services: Services, pattern = 'test.*', extra: Record<string, unknown> = {}) {
  return services.policy.set(
    { layer: 'PROFILE', scopeId: 'p1', toolPattern: pattern, effect: 'ALLOW', ...extra },
    admin,
  );
}

export async function newRun(services: Services, input: Record<string, unknown> = {}) {
  return services.runs.create({ profileId: 'p1', userId: 'u1', ...input }, agent);
}

export async function eventTypes(services: Services, filter: { runId?: string; callId?: string }) {
  const events = await services.journal.read({ ...filter, limit: 1000 });
  return events.map((e) => e.type);
}

/** Polls `probe` every `pollMs` until it gives a truthy value, which it returns. */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  pollMs = 25,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the structured results are asserted field by field.
export const structured = (row: { result: { structured: unknown } | null }) => row.result!.structured as any;

/** The text parts of a call's result, one per line. */
export const resultText = (row: { result: { content: Array<{ type: string; text?: string }> } | null }) =>
  row.result!.content.map((part) => part.text ?? '').join('\n');
