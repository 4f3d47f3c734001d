import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import {
  type ConnectionState,
  initialLink,
  type LinkEvent,
  type LinkState,
  linkReducer,
  retryDelayMs,
} from '../logic/connection-state';

export interface Request {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown>;
}

export interface Sink {
  next(value: unknown): void;
  error(error: unknown): void;
  complete(): void;
}

/** Told each time the subscription's stream is (re)established, so it can rebuild from a fresh start. */
export type OnConnected = (reconnected: boolean) => void;

/** WebSocket attempts that fail in a row, while plain HTTP reaches the server, before switching to SSE. */
const WS_FAILURES_BEFORE_SSE = 2;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Active {
  request: Request;
  sink: Sink;
  onConnected?: OnConnected;
  dispose: () => void;
}

/**
 * The page's one live link: graphql-ws, retrying forever with back-off; when WebSockets keep
 * failing while HTTP works (a proxy that blocks upgrades), SSE in distinct-connections mode
 * (yoga answers `Accept: text/event-stream` on /graphql). Subscriptions survive the switch.
 */
export class Connection {
  private link: LinkState = initialLink;
  private readonly listeners = new Set<() => void>();
  private readonly active = new Set<Active>();
  private ws: WsClient | null;
  private sse: SseClient | null = null;
  private wsFailures = 0;
  private probing = false;

  constructor(
    private readonly endpoint: string,
    private readonly token: string,
    /** Told when the server closed the socket for the token (revoked, expired): 4401 or 4403. */
    private readonly onTokenRefused: () => void,
  ) {
    this.ws = this.openWs();
    window.addEventListener('offline', this.browserOffline);
  }

  get state(): ConnectionState {
    return this.link.state;
  }

  get transport(): 'websocket' | 'sse' {
    return this.sse ? 'sse' : 'websocket';
  }

  /** For useSyncExternalStore. */
  readonly subscribeState = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  subscribe(request: Request, sink: Sink, onConnected?: OnConnected): () => void {
    const entry: Active = { request, sink, dispose: () => {} };
    if (onConnected) entry.onConnected = onConnected;
    this.active.add(entry);
    this.start(entry);
    return () => {
      this.active.delete(entry);
      entry.dispose();
    };
  }

  dispose(): void {
    window.removeEventListener('offline', this.browserOffline);
    for (const entry of this.active) entry.dispose();
    this.active.clear();
    void this.ws?.dispose();
    this.sse?.dispose();
  }

  private readonly browserOffline = () => this.emit('browser-offline');

  private emit(event: LinkEvent): void {
    const next = linkReducer(this.link, event);
    if (next.state === this.link.state && next.failures === this.link.failures) return;
    this.link = next;
    for (const listener of this.listeners) listener();
  }

  private start(entry: Active): void {
    if (this.sse) {
      entry.dispose = this.sse.subscribe(entry.request as never, entry.sink as never, {
        connecting: () => this.emit('connecting'),
        connected: (reconnected) => {
          this.emit('connected');
          entry.onConnected?.(reconnected);
        },
      });
      return;
    }
    const ws = this.ws!;
    // graphql-ws resubscribes by itself after a reconnect; `connected` (below) tells each entry first.
    entry.onConnected?.(false);
    entry.dispose = ws.subscribe(entry.request as never, entry.sink as never);
  }

  private openWs(): WsClient {
    const url = new URL(this.endpoint, window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return createWsClient({
      url: url.href,
      lazy: false,
      connectionParams: { authorization: `Bearer ${this.token}` },
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
      retryWait: (retries) => wait(retryDelayMs(retries)),
      on: {
        connecting: () => this.emit('connecting'),
        connected: (_socket, _payload, wasRetry) => {
          this.wsFailures = 0;
          this.emit('connected');
          if (wasRetry) for (const entry of this.active) entry.onConnected?.(true);
        },
        closed: (event) => {
          this.emit('closed');
          const code = (event as CloseEvent | undefined)?.code;
          if (code === 4401 || code === 4403) this.onTokenRefused();
          else if (this.link.state !== 'connected') this.wsFailed();
        },
      },
    });
  }

  private wsFailed(): void {
    this.wsFailures += 1;
    if (this.wsFailures < WS_FAILURES_BEFORE_SSE || this.probing || this.sse) return;
    this.probing = true;
    void this.httpReachable().then((reachable) => {
      this.probing = false;
      if (reachable && !this.sse) this.switchToSse();
    });
  }

  /** Whether the server answers over HTTP: then it is up and only the WebSocket is blocked. */
  private async httpReachable(): Promise<boolean> {
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      return response.ok;
    } catch {
      return false;
    }
  }

  private switchToSse(): void {
    void this.ws?.dispose();
    this.ws = null;
    this.sse = createSseClient({
      url: new URL(this.endpoint, window.location.href).href,
      headers: { authorization: `Bearer ${this.token}` },
      retryAttempts: Number.POSITIVE_INFINITY,
      retry: (retries) => wait(retryDelayMs(retries)),
    });
    for (const entry of this.active) {
      entry.dispose();
      this.start(entry);
    }
    for (const listener of this.listeners) listener();
  }
}
