import { describe, expect, test } from 'vitest';
import { leavesQueue, settledNote } from '../../console/src/logic/outcome.js';

const hrefs = { call: (id: string) => `#/calls/${id}`, grants: () => '#/grants?run=r1' };

describe('settledNote (what the queue shows where a decided card was)', () => {
  test('an edit leaves a note saying EDITED with a link to the replacement', () => {
    expect(
      settledNote(
        {
          kind: 'edited',
          callId: 'c1',
          toolName: 'workspace.write_file',
          replacementId: 'c2',
          replacementStatus: 'AWAITING_APPROVAL',
        },
        hrefs,
      ),
    ).toEqual({
      callId: 'c1',
      toolName: 'workspace.write_file',
      status: 'EDITED',
      text: 'Edited and approved: the new call is awaiting approval.',
      link: { href: '#/calls/c2', label: 'replacement c2' },
    });
  });

  test('a grant leaves the summary the preview showed and a link to the grants', () => {
    expect(
      settledNote(
        { kind: 'granted', callId: 'c1', toolName: 't', scope: 'RUN', summary: 'Allow t in run r1' },
        hrefs,
      ),
    ).toEqual({
      callId: 'c1',
      toolName: 't',
      status: 'APPROVED',
      text: 'Approved for the rest of this run: Allow t in run r1',
      link: { href: '#/grants?run=r1', label: 'grants' },
    });
  });

  test('a plain approval or denial leaves no note', () => {
    expect(settledNote({ kind: 'approved', callId: 'c1' }, hrefs)).toBeNull();
    expect(settledNote({ kind: 'denied', callId: 'c1' }, hrefs)).toBeNull();
  });
});

test('every outcome but an approval short of the quorum takes the card away', () => {
  expect(leavesQueue({ kind: 'recorded', callId: 'c', count: 1, required: 2 })).toBe(false);
  expect(leavesQueue({ kind: 'approved', callId: 'c' })).toBe(true);
  expect(leavesQueue({ kind: 'denied', callId: 'c' })).toBe(true);
});
