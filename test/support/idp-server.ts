import type { Services } from '../../src/app/services.js';
import {
  DEFAULT_ALGORITHMS,
  DEFAULT_CLAIM_MAPPING,
  type IdentitySettings,
} from '../../src/features/identity/index.js';
import { serverTest } from './app-server.js';
import { IDP_AUDIENCE, startTestIdp, type TestIdp } from './oidc-provider.js';
import { startServices } from './services.js';

/** The claim mapping the identity tests use: admins, approvers of every user, agents on p1, everyone else a viewer. */
export const testClaimMapping = {
  ...DEFAULT_CLAIM_MAPPING,
  roles: [
    { group: 'ats-admins', role: 'ADMIN' as const },
    { group: 'ats-approvers', role: 'APPROVER' as const, allUsers: true },
    { group: 'ats-agents', role: 'AGENT' as const, profiles: ['p1'] },
  ],
  defaultRole: { role: 'VIEWER' as const },
};

/** Settings for `idp`: its issuer, its test audience, no JWKS cooldown (a rotated key is fetched at once). */
export const identitySettingsFor = (idp: TestIdp): IdentitySettings => ({
  issuer: idp.issuer,
  audience: [IDP_AUDIENCE],
  algorithms: DEFAULT_ALGORITHMS,
  claims: testClaimMapping,
  jwksCooldownMs: 0,
});

/**
 * `serverTest` with a real OpenID provider (`idp`, closed after the test) and services that accept
 * its tokens beside API tokens.
 */
export const idpTest = serverTest.extend<{ idp: TestIdp; services: Services }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  idp: async ({}, use) => {
    const idp = await startTestIdp();
    await use(idp);
    await idp.close();
  },
  services: async ({ testDb, idp }, use) => {
    const services = await startServices(testDb.database, { identity: identitySettingsFor(idp) });
    await use(services);
    await services.stop();
  },
});
