import { describe, expect, test } from 'vitest';
import { algorithmProblem, DEFAULT_ALGORITHMS } from '../../../../src/features/identity/rules/algorithms.js';
import { claimMappingSchema } from '../../../../src/features/identity/rules/claim-mapping.js';
import { bindingFromClaims } from '../../../../src/features/identity/rules/claims.js';

const mapping = claimMappingSchema.parse({
  groupsClaim: 'realm_access.roles',
  roles: [
    { group: 'admins', role: 'ADMIN' },
    { group: 'approvers', role: 'APPROVER', users: ['team-*'] },
    { group: 'agents', role: 'AGENT' },
  ],
  defaultRole: { role: 'VIEWER' },
  profilesClaim: 'ats_profiles',
});

const person = (groups: string[], more: Record<string, unknown> = {}) => ({
  sub: 'u-1',
  name: 'Una',
  realm_access: { roles: groups },
  ...more,
});

describe('bindingFromClaims', () => {
  test('the first group in the table wins, read from a nested claim', () => {
    expect(bindingFromClaims(person(['approvers', 'admins']), mapping)).toEqual({
      ok: true,
      binding: { subject: 'u-1', displayName: 'Una', userId: 'u-1', role: 'ADMIN', users: [], profiles: [] },
    });
  });

  test('an approver is bound to the users its entry names', () => {
    expect(bindingFromClaims(person(['approvers']), mapping)).toMatchObject({
      binding: { role: 'APPROVER', users: ['team-*'] },
    });
  });

  test('without the APPROVER group a person gets the default role, bound to their own user', () => {
    expect(bindingFromClaims(person(['other']), mapping)).toMatchObject({
      binding: { role: 'VIEWER', users: ['u-1'] },
    });
  });

  test('without a matching group or a default role the token is refused', () => {
    const strict = claimMappingSchema.parse({ roles: [{ group: 'admins', role: 'ADMIN' }] });
    expect(bindingFromClaims({ sub: 'u-1' }, strict)).toEqual({
      ok: false,
      reason: "none of the token's groups maps to a role (claim groups) and no defaultRole is set",
    });
  });

  test('an agent takes its profiles from the named claim, dropping names that are not binding names', () => {
    expect(
      bindingFromClaims(person(['agents'], { ats_profiles: ['writer', 'bad name'] }), mapping),
    ).toMatchObject({
      binding: { role: 'AGENT', profiles: ['writer'] },
    });
  });

  test('the display name falls back through the claims, then to the subject', () => {
    const claims = { sub: 'u-1', preferred_username: 'una', realm_access: { roles: [] } };
    expect(bindingFromClaims(claims, mapping)).toMatchObject({ binding: { displayName: 'una' } });
    expect(bindingFromClaims({ sub: 'u-1' }, mapping)).toMatchObject({ binding: { displayName: 'u-1' } });
  });

  test('a user claim that is not a plain id is refused', () => {
    const byEmail = claimMappingSchema.parse({ userClaim: 'email', defaultRole: { role: 'VIEWER' } });
    expect(bindingFromClaims({ sub: 's', email: 'a*b@example.com' }, byEmail)).toEqual({
      ok: false,
      reason: "the token's email claim is not a user id (letters, digits and _ . @ : - only)",
    });
  });

  test('a mapping may not name EXTENSION', () => {
    expect(claimMappingSchema.safeParse({ roles: [{ group: 'g', role: 'EXTENSION' }] }).success).toBe(false);
  });
});

describe('algorithmProblem', () => {
  test.each([
    ['RS256', null],
    ['none', 'unsigned tokens (alg none) are refused'],
    ['HS256', 'HMAC-signed tokens (HS256) are refused: an IdP signs with a private key'],
    ['HS512', 'HMAC-signed tokens (HS512) are refused: an IdP signs with a private key'],
  ] as const)('%s', (alg, problem) => {
    expect(algorithmProblem(alg, DEFAULT_ALGORITHMS)).toBe(problem);
  });
});
