import type { Quorum } from '../logic/quorum';

/** "1 of 2 approvals: approver:ann" on a call that needs more than one approver. */
export function QuorumProgress({ quorum }: { quorum: Quorum }) {
  if (!quorum.label) return null;
  return (
    <p className="quorum" data-testid="quorum" data-count={quorum.count} data-required={quorum.required}>
      <progress max={quorum.required} value={quorum.count} /> {quorum.label}
      {quorum.approvedBy.length > 0 && <>: {quorum.approvedBy.join(', ')}</>}
      {quorum.mine && <strong data-testid="quorum-mine"> · you approved</strong>}
    </p>
  );
}
