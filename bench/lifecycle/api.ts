import { Agent, request } from 'node:http';
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * The benchmark's client side: what an agent host and an approver do through the public GraphQL
 * API, over HTTP for mutations and graphql-ws for the run's journal.
 */

type Data = Record<string, { id: string; status: string } | null>;

/**
 * A lean HTTP client: node:http over keep-alive sockets (one pool per token), each body written
 * with its headers in one go, the query's part of the body serialized once per query. The server
 * keeps idle sockets longer than any client here does (`KEEP_ALIVE_MS` in src/app/server.ts), so a
 * reused socket is not closed under a request.
 */
export function httpClient(endpoint: string, secret: string) {
  const url = new URL(endpoint);
  const agent = new Agent({ keepAlive: true });
  const authorization = `Bearer ${secret}`;
  const heads = new Map<string, string>();
  return (query: string, variables: Record<string, unknown> = {}): Promise<Data> => {
    let head = heads.get(query);
    if (head === undefined) {
      head = `{"query":${JSON.stringify(query)},"variables":`;
      heads.set(query, head);
    }
    const body = `${head}${JSON.stringify(variables)}}`;
    return new Promise<Data>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            try {
              const answer = JSON.parse(Buffer.concat(chunks).toString()) as { data: Data; errors?: unknown };
              if (answer.errors) reject(new Error(JSON.stringify(answer.errors)));
              else resolve(answer.data);
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}
export type Gql = ReturnType<typeof httpClient>;

export const createRun = async (gql: Gql) =>
  (await gql('mutation { createRun(input: {}) { id status } }')).createRun!.id;

const REQUEST = `mutation ($runId: ID!, $name: String!) {
  requestToolCall(input: { runId: $runId, name: $name }) { id status }
}`;
export const requestCall = async (gql: Gql, runId: string, name: string) =>
  (await gql(REQUEST, { runId, name })).requestToolCall!;

const APPROVE = 'mutation ($id: ID!) { approveToolCall(id: $id) { id status } }';
export const approveCall = (approver: Gql, id: string) => approver(APPROVE, { id });

const FINAL = new Set([
  'TOOL_CALL_COMPLETED',
  'TOOL_CALL_FAILED',
  'TOOL_CALL_DENIED',
  'TOOL_CALL_CANCELLED',
  'TOOL_CALL_EXPIRED',
]);

/**
 * Follows one run's journal the way an agent host waits for its calls: `journalEvents(runId,
 * afterSeq: "0")` replays the run from its start and then streams live, so no event can slip
 * between subscribing and the first call. A call's final event settles its waiter.
 */
export class RunFollower {
  private readonly settled = new Map<string, string>();
  private readonly waiters = new Map<string, (type: string) => void>();
  private readonly client: Client;

  constructor(wsEndpoint: string, secret: string, runId: string) {
    this.client = createClient({
      url: wsEndpoint,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${secret}` },
      retryAttempts: 0,
    });
    this.client.subscribe(
      {
        query: 'subscription ($runId: ID!) { journalEvents(runId: $runId, afterSeq: "0") { type callId } }',
        variables: { runId },
      },
      {
        next: (value) => {
          const event = (value.data as { journalEvents: { type: string; callId: string | null } })
            .journalEvents;
          if (!event.callId || !FINAL.has(event.type)) return;
          const waiter = this.waiters.get(event.callId);
          if (waiter) {
            this.waiters.delete(event.callId);
            waiter(event.type);
          } else this.settled.set(event.callId, event.type);
        },
        error: (error) => process.stderr.write(`journalEvents ended: ${JSON.stringify(error)}\n`),
        complete: () => {},
      },
    );
  }

  /** Resolves when the call is COMPLETED; any other final status is an error. */
  async completed(callId: string): Promise<void> {
    const type =
      this.settled.get(callId) ?? (await new Promise<string>((resolve) => this.waiters.set(callId, resolve)));
    this.settled.delete(callId);
    if (type !== 'TOOL_CALL_COMPLETED') throw new Error(`call ${callId} ended ${type}`);
  }

  close() {
    return this.client.dispose();
  }
}

/** request → approve (approver token) → TOOL_CALL_COMPLETED on the requester's journal subscription. */
export async function approvedRoundTrip(
  agent: Gql,
  approver: Gql,
  follower: RunFollower,
  runId: string,
  tool: string,
) {
  const call = await requestCall(agent, runId, tool);
  if (call.status !== 'AWAITING_APPROVAL')
    throw new Error(`call is ${call.status}, expected AWAITING_APPROVAL`);
  const done = follower.completed(call.id);
  done.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
  await approveCall(approver, call.id);
  await done;
}

/** An auto-approved call: it has run when requestToolCall returns. */
export async function autoApprovedCall(agent: Gql, runId: string, tool: string) {
  const call = await requestCall(agent, runId, tool);
  if (call.status !== 'COMPLETED') throw new Error(`call ended ${call.status}`);
}
