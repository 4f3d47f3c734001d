import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderKind } from '../../src/model/providers/types.js';
import {
  type FakeCall,
  type FakeTurn,
  formatOfRequest,
  type SseEvent,
  sseText,
  turnIn,
} from './fake-provider-formats.js';

export type { FakeCall, FakeTurn } from './fake-provider-formats.js';

/**
 * What the fake provider does with one request. `answer` speaks the request's own wire format
 * (streamed when the request asks for it); the others are the failures real providers have.
 */
export type FakeReply =
  | { kind: 'answer'; turn: FakeTurn }
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Streams the turn's first `afterEvents` events, then destroys the socket. */
  | { kind: 'drop'; turn: FakeTurn; afterEvents: number }
  /** Sends these bytes as the answer, as they are (malformed chunks, a body that is not JSON). */
  | { kind: 'raw'; contentType: string; body: string; status?: number }
  /** Sends nothing until the client goes away. */
  | { kind: 'hang' };

/**
 * A reply made when its request arrives. It may be async: a test can look at the server's state
 * while the request is in flight (nothing changes until the answer is back) before answering.
 */
type ReplyMaker = (request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
  format: ProviderKind | null;
  stream: boolean;
  /** performance.now() when the whole request had arrived: tests compare these, not the wall clock. */
  receivedAt: number;
  /** Resolves when the client's socket closes; `closedEarly` says whether that was before the answer ended. */
  closed: Promise<void>;
  closedEarly: boolean;
}

export const answer = (turn: FakeTurn): FakeReply => ({ kind: 'answer', turn });
export const status = (code: number, headers: Record<string, string> = {}, body?: string): FakeReply => ({
  kind: 'status',
  status: code,
  headers,
  ...(body === undefined ? {} : { body }),
});

/** Scripted conversations the loop's tests play. */
export const conversations = {
  /** Two calls in one turn, then a closing text. */
  parallelCalls: (calls: [FakeCall, FakeCall], closing = 'Both done.'): FakeReply[] => [
    answer({ calls }),
    answer({ text: closing }),
  ],
  /** A call (the policy decides it needs approval), then the answer after it. */
  approval: (call: FakeCall, closing = 'Written.'): FakeReply[] => [
    answer({ calls: [call] }),
    answer({ text: closing }),
  ],
  /** A 429 asking to wait, then the turn. */
  rateLimited: (turn: FakeTurn, retryAfterSeconds: number): FakeReply[] => [
    status(
      429,
      { 'retry-after': String(retryAfterSeconds) },
      '{"error":{"type":"rate_limit_error","message":"slow down"}}',
    ),
    answer(turn),
  ],
  serverError: (turn: FakeTurn): FakeReply[] => [
    status(500, {}, '{"error":{"type":"server_error","message":"the model crashed"}}'),
    answer(turn),
  ],
  droppedMidStream: (turn: FakeTurn, afterEvents = 2): FakeReply[] => [
    { kind: 'drop', turn, afterEvents },
    answer(turn),
  ],
  /** A model that calls a tool in every turn, however long it is let run. */
  neverStops:
    (call: Omit<FakeCall, 'id'>): ReplyMaker =>
    (_request, index) =>
      answer({ calls: [{ ...call, id: `call_loop_${index}` }], id: `loop_${index}` }),
};

/**
 * An HTTP server on a real port speaking the four wire formats, one per path the client builds
 * (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`, `/v1/models/<m>:generateContent` and
 * `:streamGenerateContent?alt=sse`). It plays the replies it is given in order, then `otherwise`,
 * and keeps every request it received.
 */
export class FakeProvider {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Array<FakeReply | ReplyMaker> = [];
  private otherwise: ReplyMaker | null = null;
  private served = 0;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<FakeProvider> {
    let provider: FakeProvider | undefined;
    const server = createServer((req, res) => provider!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    provider = new FakeProvider(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return provider;
  }

  /** The base URL a connection names: every format is served under it. */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** Appends replies to the script. */
  script(...replies: Array<FakeReply | FakeReply[] | ReplyMaker>): this {
    for (const reply of replies) {
      if (Array.isArray(reply)) this.queue.push(...reply);
      else this.queue.push(reply);
    }
    return this;
  }

  /** What every request after the script gets (a 500 saying the script ran out, when not set). */
  always(maker: ReplyMaker): this {
    this.otherwise = maker;
    return this;
  }

  /** Forgets the script and the requests, between tests. */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.otherwise = null;
    this.served = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const route = formatOfRequest(path, body);
      let settle = () => {};
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path,
        headers: req.headers,
        body,
        format: route?.format ?? null,
        stream: route?.stream ?? false,
        receivedAt: performance.now(),
        closed: new Promise<void>((resolve) => {
          settle = resolve;
        }),
        closedEarly: false,
      };
      res.on('close', () => {
        recorded.closedEarly = !res.writableFinished;
        settle();
      });
      this.requests.push(recorded);
      const index = this.served++;
      const next = this.queue.shift() ?? this.otherwise;
      const reply: FakeReply | Promise<FakeReply> =
        next === null || next === undefined
          ? status(500, {}, '{"error":{"type":"fake_provider","message":"the script has no reply left"}}')
          : typeof next === 'function'
            ? next(recorded, index)
            : next;
      void Promise.resolve(reply).then(
        (made) => this.reply(recorded, made, index, res),
        (error: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { type: 'fake_provider', message: String(error) } }));
        },
      );
    });
  }

  private reply(
    request: RecordedRequest,
    reply: FakeReply,
    index: number,
    res: import('node:http').ServerResponse,
  ): void {
    switch (reply.kind) {
      case 'hang':
        return;
      case 'status':
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body ?? '');
        return;
      case 'raw':
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType });
        res.end(reply.body);
        return;
      case 'answer':
      case 'drop': {
        if (request.format === null) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error":{"type":"not_found","message":"no such endpoint"}}');
          return;
        }
        const { body, events } = turnIn(request.format, reply.turn, reply.turn.id ?? `turn_${index}`);
        if (!request.stream && reply.kind === 'answer') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const format = request.format;
        const sent: SseEvent[] = reply.kind === 'drop' ? events.slice(0, reply.afterEvents) : events;
        const text = sent.map((event) => sseText(format, event)).join('');
        // The events written are flushed before the socket goes, as when a provider dies mid-answer.
        if (reply.kind === 'drop') res.write(text, () => res.destroy());
        else res.end(text);
      }
    }
  }
}

type Use<T> = (value: T) => Promise<void>;

/** A fake provider per test file, emptied before each test: spread into a `test.extend`. */
export const fakeProviderFixtures: {
  fakeProviderFile: [(context: object, use: Use<FakeProvider>) => Promise<void>, { scope: 'file' }];
  fakeProvider: (context: { fakeProviderFile: FakeProvider }, use: Use<FakeProvider>) => Promise<void>;
} = {
  fakeProviderFile: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
    async ({}, use) => {
      const provider = await FakeProvider.start();
      await use(provider);
      await provider.close();
    },
    { scope: 'file' },
  ],
  fakeProvider: async ({ fakeProviderFile }, use) => {
    fakeProviderFile.reset();
    await use(fakeProviderFile);
  },
};
