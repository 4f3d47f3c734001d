import { describe, expect, test } from 'vitest';
import { actorName, newest, quorum } from '../../console/src/logic/quorum.js';

const ann = { role: 'APPROVER', name: 'ann' };

describe('quorum (progress towards the approvals a call needs)', () => {
  test('one approval needed and none given: nothing to show', () => {
    expect(quorum({ approvalsRequired: 1, approvals: [] }, ann)).toEqual({
      required: 1,
      count: 0,
      approvedBy: [],
      mine: false,
      label: null,
    });
  });

  test('two needed, one given by someone else: "1 of 2 approvals", and this person may still approve', () => {
    expect(quorum({ approvalsRequired: 2, approvals: [{ decidedBy: 'approver:ben' }] }, ann)).toEqual({
      required: 2,
      count: 1,
      approvedBy: ['approver:ben'],
      mine: false,
      label: '1 of 2 approvals',
    });
  });

  test('an approver who signed in with the IdP is listed by name and still recognised as this person', () => {
    const annAtIdp = { role: 'APPROVER', name: 'Ann Example' };
    const approvals = [{ decidedBy: 'approver:Ann Example', person: { displayName: 'Ann Example' } }];
    expect(quorum({ approvalsRequired: 2, approvals }, annAtIdp)).toMatchObject({
      approvedBy: ['Ann Example'],
      mine: true,
    });
  });

  test('this person’s own approval is recognised by the name decision records use', () => {
    expect(actorName(ann)).toBe('approver:ann');
    expect(quorum({ approvalsRequired: 2, approvals: [{ decidedBy: 'approver:ann' }] }, ann).mine).toBe(true);
    expect(quorum({ approvalsRequired: 2, approvals: [{ decidedBy: 'admin:ann' }] }, ann).mine).toBe(false);
  });

  test('a server without quorum fields counts as one approval needed', () => {
    expect(quorum({}, ann).required).toBe(1);
  });
});

test('newest keeps the view with more approvals: the answer to this page’s approval until the queue catches up', () => {
  const queued = { approvalsRequired: 2, approvals: [] };
  const answered = { approvalsRequired: 2, approvals: [{ decidedBy: 'approver:ann' }] };
  expect(newest(queued, answered)).toBe(answered);
  expect(newest(answered, { approvalsRequired: 2, approvals: [] })).toBe(answered);
  expect(newest(queued, null)).toBe(queued);
});
