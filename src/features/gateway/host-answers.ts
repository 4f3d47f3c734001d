import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError, type RelayedMessage } from '../../bridge/mcp/index.js';

interface Waiting {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/**
 * The requests this process sent to hosts on their held requests' streams, waiting for the hosts'
 * answers. A host answers with a POST of its own, which the gateway serves with a fresh SDK server,
 * so the answer cannot reach the server that asked: the HTTP face hands every answer to `answer`
 * first. The ids are this process's own (`ats-relay-<uuid>`), so they never meet a host's.
 */
export class HostAnswers {
  private readonly waiting = new Map<string, Waiting>();

  /** Sends `request` on the stream of the host request `relatedRequestId` and waits for the host's answer. */
  ask(
    transport: Transport,
    relatedRequestId: RequestId,
    request: RelayedMessage,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const id = `ats-relay-${randomUUID()}`;
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
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      transport
        .send({ jsonrpc: '2.0', id, method: request.method, params: request.params }, { relatedRequestId })
        .catch((error: Error) => this.waiting.get(id)?.reject(error));
    });
  }

  /** Takes a host's answer to one of this process's requests; false when it is not one. */
  answer(message: unknown): boolean {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return false;
    const waiting = typeof message.id === 'string' ? this.waiting.get(message.id) : undefined;
    if (!waiting) return false;
    if (isJSONRPCErrorResponse(message))
      waiting.reject(jsonRpcError(message.error.code, message.error.message, message.error.data));
    else waiting.resolve(message.result as Record<string, unknown>);
    return true;
  }
}
