import { describe, expect, test, vi } from 'vitest';
import type { Principal } from '../../../src/core/auth.js';
import { lifecycleEnd, type TokenLifecycle } from '../../../src/features/tokens/service.js';
import { TokenWatch } from '../../../src/features/tokens/watch.js';

const live = (id: string): TokenLifecycle => ({
  id,
  tokenHash: 'h-now',
  revokedAt: null,
  expiresAt: null,
  previousTokenHash: null,
  previousValidUntil: null,
});
const principal = (tokenId: string) => ({ tokenId }) as Principal;
const silent = { warn: vi.fn() } as never;
const NOW = new Date('2030-01-01T00:00:00Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

describe('lifecycleEnd', () => {
  test.each([
    ['a live token', live('t'), 'h-now', null],
    ['a revoked token', { ...live('t'), revokedAt: at(-1) }, 'h-now', 'token revoked'],
    ['a token no longer stored', undefined, 'h-now', 'token revoked'],
    ['a token past its expiry', { ...live('t'), expiresAt: at(0) }, 'h-now', 'token expired'],
    ['a token before its expiry', { ...live('t'), expiresAt: at(1) }, 'h-now', null],
    [
      'the previous secret during the overlap',
      { ...live('t'), previousTokenHash: 'h-old', previousValidUntil: at(1) },
      'h-old',
      null,
    ],
    [
      'the previous secret after the overlap',
      { ...live('t'), previousTokenHash: 'h-old', previousValidUntil: at(0) },
      'h-old',
      'token secret rotated out',
    ],
    [
      'a secret rotated out twice',
      { ...live('t'), previousTokenHash: 'h-old' },
      'h-older',
      'token secret rotated out',
    ],
  ] as const)('%s', (_name, state, hash, reason) => {
    expect(lifecycleEnd(state, hash, NOW)).toBe(reason);
  });
});

describe('TokenWatch', () => {
  test("what an IdP token opened ends at the token's exp, without a query", async () => {
    const lifecycleOf = vi.fn(async () => new Map());
    const watch = new TokenWatch({ lifecycleOf }, silent);
    const idp = { issuer: 'https://idp', subject: 's', displayName: 'S', expiresAt: at(1_000) };
    const end = vi.fn();
    watch.hold({ ...principal('person'), idp }, end);
    await watch.check(at(999));
    expect(end).not.toHaveBeenCalled();
    await watch.check(at(1_000));
    expect(end.mock.calls).toEqual([['token expired']]);
    expect(watch.size).toBe(0);
    expect(lifecycleOf).not.toHaveBeenCalled();
  });

  test('one query for every held token, and only the holders of an unusable one end, once', async () => {
    const lifecycleOf = vi.fn(
      async (ids: readonly string[]) =>
        new Map(ids.map((id) => [id, id === 'gone' ? { ...live(id), revokedAt: NOW } : live(id)])),
    );
    const watch = new TokenWatch({ lifecycleOf }, silent);
    const ended: string[] = [];
    watch.hold(principal('gone'), (reason) => ended.push(`a: ${reason}`));
    watch.hold(principal('gone'), (reason) => ended.push(`b: ${reason}`));
    watch.hold(principal('kept'), (reason) => ended.push(`c: ${reason}`));

    await watch.check();
    await watch.check();
    expect(lifecycleOf.mock.calls).toEqual([[['gone', 'kept']], [['kept']]]);
    expect(ended).toEqual(['a: token revoked', 'b: token revoked']);
    expect(watch.size).toBe(1);
  });

  test('a released holder is not checked or ended', async () => {
    const lifecycleOf = vi.fn(async () => new Map());
    const watch = new TokenWatch({ lifecycleOf }, silent);
    const end = vi.fn();
    watch.hold(principal('t'), end)();
    await watch.check();
    expect(lifecycleOf).not.toHaveBeenCalled();
    expect(end).not.toHaveBeenCalled();
  });

  test('a failed check is logged and ends nothing; the next one retries', async () => {
    const warn = vi.fn();
    const lifecycleOf = vi
      .fn()
      .mockRejectedValueOnce(new Error('db down'))
      .mockResolvedValueOnce(new Map([['t', undefined]]));
    const watch = new TokenWatch({ lifecycleOf }, { warn } as never);
    const end = vi.fn();
    watch.hold(principal('t'), end);
    await watch.check();
    expect(end).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledOnce();
    await watch.check();
    expect(end).toHaveBeenCalledWith('token revoked');
  });
});
