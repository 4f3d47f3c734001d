import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError, type RelayedMessage } from '../../bridge/mcp/index.js';
import type { Logger } from '../../core/logger.js';
import type { Database } from '../../db/client.js';
import { HOST_ANSWER_CHANNEL, HostAnswerStore } from './answer-store.js';

const ID_PREFIX = 'ats-relay-';

interface Waiting {
  /** The session of the held host request: only an answer that comes in the same session is taken. */
  sessionId: string;
  settle: (message: JSONRPCResultResponse | JSONRPCErrorResponse) => void;
}

const isResponse = (message: unknown): message is JSONRPCResultResponse | JSONRPCErrorResponse =>
  isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);

/**
 * The requests this process sent to hosts on their held requests' streams, waiting for the hosts'
 * answers. A host answers with a POST of its own, which the gateway serves with a fresh SDK server
 * and which a load balancer may send to any process: the HTTP face hands every answer to `answer`,
 * which settles a waiter of this process at once, or stores the answer (answer-store.ts) for the
 * process that asked, whose LISTEN wakes it to take it. The ids are the gateway's own
 * (`ats-relay-<uuid>`), so they never meet a host's.
 */
export class HostAnswers {
  private readonly waiting = new Map<string, Waiting>();
  private readonly store: HostAnswerStore;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {
    this.store = new HostAnswerStore(database.db);
  }

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(HOST_ANSWER_CHANNEL, {
      onNotify: (requestId) => this.fetch(requestId),
      // Wake-ups sent while the LISTEN was down are lost: look for every answer still awaited.
      onListen: () => {
        for (const requestId of this.waiting.keys()) this.fetch(requestId);
      },
    });
  }

  async stop(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.();
  }

  /**
   * Sends `request` on the stream of the host request `relatedRequestId` (of session `sessionId`,
   * `''` for none) and waits for the host's answer.
   */
  ask(
    transport: Transport,
    relatedRequestId: RequestId,
    request: RelayedMessage,
    sessionId: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const id = `${ID_PREFIX}${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const done = () => {
        this.waiting.delete(id);
        signal.removeEventListener('abort', aborted);
      };
      const aborted = () => {
        done();
        void transport
          .send(
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } },
            { relatedRequestId },
          )
          .catch(() => {});
        reject(new Error(`the request to the host ended: ${String(signal.reason ?? 'aborted')}`));
      };
      if (signal.aborted) return aborted();
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.set(id, {
        sessionId,
        settle: (message) => {
          done();
          if (isJSONRPCErrorResponse(message))
            reject(jsonRpcError(message.error.code, message.error.message, message.error.data));
          else resolve(message.result as Record<string, unknown>);
        },
      });
      transport
        .send({ jsonrpc: '2.0', id, method: request.method, params: request.params }, { relatedRequestId })
        .catch((error: Error) => {
          done();
          reject(error);
        });
    });
  }

  /**
   * Takes a host's answer that came in session `sessionId` (checked against the token by the
   * caller): settles this process's waiter, or keeps it for the process that asked. False when it
   * is no answer to a request of the gateway, or answers one of this process's from another session.
   */
  async answer(message: unknown, sessionId: string): Promise<boolean> {
    if (!isResponse(message) || typeof message.id !== 'string' || !message.id.startsWith(ID_PREFIX))
      return false;
    const waiting = this.waiting.get(message.id);
    if (waiting) {
      if (waiting.sessionId !== sessionId) return false;
      waiting.settle(message);
      return true;
    }
    await this.store.put(message.id, sessionId, message as unknown as Record<string, unknown>);
    return true;
  }

  /** Takes a stored answer to one of this process's waiting requests, if it is there. */
  private fetch(requestId: string): void {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return;
    this.store
      .take(requestId, waiting.sessionId)
      .then((message) => {
        if (message && isResponse(message)) this.waiting.get(requestId)?.settle(message);
      })
      .catch((error: unknown) =>
        this.logger.warn({ err: error, requestId }, 'taking a host answer another process stored failed'),
      );
  }
}
