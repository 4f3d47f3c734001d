import { describe, expect, test } from 'vitest';
import { type BatchChoices, batchDecisions, turnSizes } from '../../console/src/logic/batch.js';

const calls = [
  { id: 'c1', status: 'AWAITING_APPROVAL', argumentsHash: 'h1' },
  { id: 'c2', status: 'AWAITING_APPROVAL', argumentsHash: 'h2' },
  { id: 'c3', status: 'APPROVED', argumentsHash: 'h3' },
];
const none: BatchChoices = { each: {}, all: null, reason: '', feedback: '', allowRetry: false };

describe('batchDecisions (what decideApprovalBatch is sent)', () => {
  test('approve all lists every waiting call with the hash shown, never a decided one', () => {
    expect(batchDecisions(calls, { ...none, all: 'APPROVE', reason: ' ok ' })).toEqual([
      { id: 'c1', verdict: 'APPROVE', argumentsHash: 'h1', reason: 'ok' },
      { id: 'c2', verdict: 'APPROVE', argumentsHash: 'h2', reason: 'ok' },
    ]);
  });

  test('each its own decision; a call without one stays pending', () => {
    expect(batchDecisions(calls, { ...none, each: { c2: 'DENY' } })).toEqual([
      { id: 'c2', verdict: 'DENY', argumentsHash: 'h2' },
    ]);
  });

  test('a per-call choice wins over all; feedback and allowRetry go with denials only', () => {
    expect(
      batchDecisions(calls, {
        ...none,
        all: 'DENY',
        each: { c1: 'APPROVE' },
        feedback: 'not now',
        allowRetry: true,
      }),
    ).toEqual([
      { id: 'c1', verdict: 'APPROVE', argumentsHash: 'h1' },
      { id: 'c2', verdict: 'DENY', argumentsHash: 'h2', feedback: 'not now', allowRetry: true },
    ]);
  });
});

test('turnSizes counts queued calls per turn and ignores calls without one', () => {
  expect(turnSizes([{ turnId: 't1' }, { turnId: null }, { turnId: 't1' }, { turnId: 't2' }, {}])).toEqual(
    new Map([
      ['t1', 2],
      ['t2', 1],
    ]),
  );
});
