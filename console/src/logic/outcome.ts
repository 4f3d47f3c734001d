/**
 * What a decision from a card came to, and what the queue then shows: an approval or denial
 * takes the card away; an approval short of the quorum keeps it (with "you approved"); an edit or
 * a grant leaves a note in its place saying what happened and where to look.
 */
export type Outcome =
  | { kind: 'approved' | 'denied'; callId: string }
  | { kind: 'recorded'; callId: string; count: number; required: number }
  | { kind: 'edited'; callId: string; toolName: string; replacementId: string; replacementStatus: string }
  | { kind: 'granted'; callId: string; toolName: string; scope: 'RUN' | 'ALWAYS'; summary: string };

export interface Settled {
  callId: string;
  toolName: string;
  status: string;
  text: string;
  /** Where to follow it: the replacement call, or the grants. */
  link: { href: string; label: string } | null;
}

/** The note left in the queue for an outcome, or null when the card simply goes (or stays). */
export function settledNote(
  outcome: Outcome,
  hrefs: { call: (id: string) => string; grants: () => string },
): Settled | null {
  switch (outcome.kind) {
    case 'edited':
      return {
        callId: outcome.callId,
        toolName: outcome.toolName,
        status: 'EDITED',
        text: `Edited and approved: the new call is ${outcome.replacementStatus.toLowerCase().replace(/_/g, ' ')}.`,
        link: { href: hrefs.call(outcome.replacementId), label: `replacement ${outcome.replacementId}` },
      };
    case 'granted':
      return {
        callId: outcome.callId,
        toolName: outcome.toolName,
        status: 'APPROVED',
        text: `Approved ${outcome.scope === 'RUN' ? 'for the rest of this run' : 'always'}: ${outcome.summary}`,
        link: { href: hrefs.grants(), label: 'grants' },
      };
    default:
      return null;
  }
}

/** Whether the card leaves the queue on this page at once (before the server's LEFT). */
export const leavesQueue = (outcome: Outcome) => outcome.kind !== 'recorded';
