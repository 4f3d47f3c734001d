/**
 * How far a call is towards its quorum, and whether this person may still add to it: a call that
 * needs two approvers shows "1 of 2 approvals" and who gave them, and an approver who already
 * approved gets no second button (the server would refuse it with CONFLICT anyway).
 */
export interface QuorumCall {
  approvalsRequired?: number | null;
  approvals?: ReadonlyArray<{ decidedBy: string; person?: { displayName: string } | null }> | null;
}

export interface Quorum {
  required: number;
  count: number;
  /** Who approved so far: a person's name when they signed in with the IdP, else the token's actor. */
  approvedBy: string[];
  /** This person's approval is among them. */
  mine: boolean;
  /** "1 of 2 approvals"; null when one approval is all it takes and none is in yet. */
  label: string | null;
}

/** How decision records name a token's principal (the server's actorOf). */
export const actorName = (me: { role: string; name: string }) => `${me.role.toLowerCase()}:${me.name}`;

export function quorum(call: QuorumCall, me: { role: string; name: string }): Quorum {
  const required = Math.max(1, call.approvalsRequired ?? 1);
  const approvals = call.approvals ?? [];
  const approvedBy = approvals.map((a) => a.person?.displayName ?? a.decidedBy);
  const count = approvedBy.length;
  return {
    required,
    count,
    approvedBy,
    mine: approvals.some((a) => a.decidedBy === actorName(me)),
    label:
      required === 1 && count === 0 ? null : `${count} of ${required} approval${required === 1 ? '' : 's'}`,
  };
}

/** Of two views of one call's approvals, the one with more (approvals are only ever added). */
export function newest(a: QuorumCall, b: QuorumCall | null): QuorumCall {
  if (!b) return a;
  return (b.approvals?.length ?? 0) > (a.approvals?.length ?? 0) ? b : a;
}
