import { dbTest } from './fixtures.js';
import { admin, allow } from './lifecycle.js';
import { loopClient } from './model-loop.js';

/** `dbTest` plus a run the agent created over GraphQL, in which test.echo needs a person's approval. */
export const echoAsksTest = dbTest.extend<{
  loopRun: { loop: ReturnType<typeof loopClient>; runId: string };
}>({
  loopRun: async ({ services, gql, tokens }, use) => {
    await allow(services);
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const loop = loopClient(gql, tokens);
    await use({ loop, runId: await loop.createRun({ profileId: 'p1', userId: 'u1' }) });
  },
});
