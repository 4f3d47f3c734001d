import { Api, GraphQLRequestError, type Json } from './api.js';

const QUEUE = `subscription($runId: ID!) {
  approvalQueueEvents(filter: { runId: $runId }) { kind call { id status approvalRequest { argumentsHash } } } }`;
const APPROVE = `mutation($id: ID!, $hash: String!, $reason: String!) {
  approveToolCall(id: $id, argumentsHash: $hash, reason: $reason) { id status } }`;

/**
 * `--auto-approve`: a second person at the console, played by the demo. It follows the approval
 * queue with the approver token the demo printed and approves each call of the demo's run after a
 * pause (so the card is visible in an open console first), bound to the arguments hash it saw.
 */
export class AutoApprover {
  private readonly api: Api;
  private readonly scheduled = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stop: (() => void) | null = null;

  constructor(
    url: string,
    token: string,
    private readonly runId: string,
    private readonly afterMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.api = new Api(url, token);
  }

  start(): void {
    this.stop = this.api.subscribe<Json>(
      QUEUE,
      { runId: this.runId },
      ({ approvalQueueEvents: { kind, call } }) => {
        if (kind !== 'ENTERED' || this.scheduled.has(call.id)) return;
        this.scheduled.add(call.id);
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          void this.approve(call.id, call.approvalRequest.argumentsHash);
        }, this.afterMs);
        this.timers.add(timer);
      },
      (error) => this.onError(error),
    );
  }

  private async approve(id: string, hash: string): Promise<void> {
    try {
      await this.api.request(APPROVE, { id, hash, reason: 'approved by the demo (--auto-approve)' });
    } catch (error) {
      // A person in the console decided first: theirs is the decision that counts.
      if (!(error instanceof GraphQLRequestError && error.code === 'CONFLICT')) this.onError(error);
    }
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.stop?.();
    await this.api.close();
  }
}
