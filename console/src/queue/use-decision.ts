import { useState } from 'react';
import { type CombinedError, useMutation } from 'urql';
import { ApproveMutation, DenyMutation } from '../api/documents';
import { errorText } from '../api/errors';
import type { ApproveMutationVariables, DenyMutationVariables } from '../gql/graphql';

/**
 * The two decisions on one call, one at a time: a second click while the first is on its way does
 * nothing, and a refusal (CONFLICT, FORBIDDEN, an edit policy would not allow) is kept to show.
 */
export function useDecision() {
  const [, approve] = useMutation(ApproveMutation);
  const [, deny] = useMutation(DenyMutation);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  async function send<T>(work: () => Promise<{ data?: T; error?: CombinedError }>) {
    if (busy) return null;
    setBusy(true);
    setProblem(null);
    const result = await work();
    setBusy(false);
    if (result.error || !result.data) {
      setProblem(result.error ? errorText(result.error) : 'no answer');
      return null;
    }
    return result.data;
  }

  return {
    busy,
    problem,
    setProblem,
    approve: (variables: ApproveMutationVariables) =>
      send(() => approve(variables)).then((data) => data?.approveToolCall ?? null),
    deny: (variables: DenyMutationVariables) =>
      send(() => deny(variables)).then((data) => data?.denyToolCall ?? null),
  };
}
