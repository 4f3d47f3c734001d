/**
 * The calls of one model turn decided together (decideApprovalBatch). Every call the page shows
 * and the person decided is listed with the argumentsHash shown, rather than sent as `all`: a call
 * that joined the turn after the page loaded is never decided unseen.
 */
export type Verdict = 'APPROVE' | 'DENY';

export interface BatchCall {
  id: string;
  status: string;
  argumentsHash: string;
}

export interface BatchDecision {
  id: string;
  verdict: Verdict;
  argumentsHash: string;
  reason?: string;
  feedback?: string;
  allowRetry?: boolean;
}

export interface BatchChoices {
  /** Per call; a call without one takes `all`, and stays pending when that is null too. */
  each: Readonly<Record<string, Verdict | undefined>>;
  all: Verdict | null;
  reason: string;
  feedback: string;
  allowRetry: boolean;
}

export const isPending = (call: { status: string }) => call.status === 'AWAITING_APPROVAL';

export function verdictOf(call: BatchCall, choices: BatchChoices): Verdict | null {
  return choices.each[call.id] ?? choices.all;
}

export function batchDecisions(calls: readonly BatchCall[], choices: BatchChoices): BatchDecision[] {
  const reason = choices.reason.trim();
  const feedback = choices.feedback.trim();
  return calls.filter(isPending).flatMap((call): BatchDecision[] => {
    const verdict = verdictOf(call, choices);
    if (!verdict) return [];
    return [
      {
        id: call.id,
        verdict,
        argumentsHash: call.argumentsHash,
        ...(reason ? { reason } : {}),
        ...(verdict === 'DENY' && feedback ? { feedback } : {}),
        ...(verdict === 'DENY' && choices.allowRetry ? { allowRetry: true } : {}),
      },
    ];
  });
}

/** How many queued calls share each turn: the queue offers the batch view for turns of two or more. */
export function turnSizes(cards: ReadonlyArray<{ turnId?: string | null }>): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const card of cards) if (card.turnId) sizes.set(card.turnId, (sizes.get(card.turnId) ?? 0) + 1);
  return sizes;
}
