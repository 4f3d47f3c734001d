import type { BuiltInTool } from '../../src/calls/tool-contract.js';
import { CLI_PRINCIPAL } from '../../src/cli/command.js';
import type { Principal } from '../../src/core/auth.js';

/**
 * A built-in tool that does nothing; the benches allow `bench.noop` by policy and make `bench.ask`
 * ask a person. Having no effects, it has none outside the database: it runs in its call's
 * transaction, as the workspace tools do.
 */
export const noTool = (name: string): BuiltInTool => ({
  spec: {
    name,
    title: 'No-op',
    description: 'Does nothing.',
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, cost: null },
    visibility: 'MODEL',
    permission: 'ALWAYS_ALLOW',
    budget: { maxCalls: null, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
  },
  run: async () => ({ content: [] }),
  inDatabase: true,
});

/** The admin token's principal, for set-up done through services rather than the API. */
export const adminPrincipal = (tokenId: string): Principal => ({ ...CLI_PRINCIPAL, tokenId, name: 'bench' });
