import { describe, expect, test } from 'vitest';
import { callHref, grantsHref, parseRoute } from '../../console/src/route.js';

describe('parseRoute', () => {
  test.each([
    ['', { page: 'queue', search: '' }],
    ['#/?user=alice', { page: 'queue', search: '?user=alice' }],
    ['#/runs/r%201', { page: 'run', runId: 'r 1' }],
    ['#/calls/c1', { page: 'call', callId: 'c1', link: null }],
    ['#/calls/c1?link=abc.def', { page: 'call', callId: 'c1', link: 'abc.def' }],
    ['#/turns/t9', { page: 'turn', turnId: 't9' }],
    ['#/grants', { page: 'grants', userId: null, runId: null }],
    ['#/grants?user=alice&run=r1', { page: 'grants', userId: 'alice', runId: 'r1' }],
  ])('%s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  test('a signed link’s token survives the round trip through the href', () => {
    expect(parseRoute(`${callHref('c/1')}?link=${encodeURIComponent('a+b/c=')}`)).toEqual({
      page: 'call',
      callId: 'c/1',
      link: 'a+b/c=',
    });
  });

  test('grantsHref leaves out empty filters', () => {
    expect(grantsHref({})).toBe('#/grants');
    expect(grantsHref({ userId: 'alice', runId: null })).toBe('#/grants?user=alice');
  });
});
