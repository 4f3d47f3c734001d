import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a script reads JSON.
export type Json = any;

export class GraphQLRequestError extends Error {
  override name = 'GraphQLRequestError';
  constructor(
    readonly operation: string,
    readonly errors: ReadonlyArray<{ message: string; extensions?: { code?: string } }>,
  ) {
    super(
      `${operation}: ${errors.map((e) => `${e.message}${e.extensions?.code ? ` (${e.extensions.code})` : ''}`).join('; ')}`,
    );
  }
  get code(): string | undefined {
    return this.errors[0]?.extensions?.code;
  }
}

/** The operation's name for error messages: `mutation createRun…` → `createRun`. */
function operationName(query: string): string {
  return /\{\s*(?:\w+\s*:\s*)?(\w+)/.exec(query)?.[1] ?? 'request';
}

/** One token's view of the server: queries and mutations over HTTP, subscriptions over graphql-ws. */
export class Api {
  private ws: Client | null = null;

  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  async request<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: T; errors?: GraphQLRequestError['errors'] };
    if (body.errors?.length) throw new GraphQLRequestError(operationName(query), body.errors);
    return body.data as T;
  }

  private socket(): Client {
    this.ws ??= createClient({
      url: this.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${this.token}` },
      lazy: true,
      retryAttempts: 5,
    });
    return this.ws;
  }

  /** Follows a subscription until `stop()`; `onError` hears a failure of the stream itself. */
  subscribe<T = Json>(
    query: string,
    variables: Record<string, unknown>,
    onData: (data: T) => void,
    onError: (error: unknown) => void,
  ): () => void {
    return this.socket().subscribe<T>(
      { query, variables },
      {
        next: (value) => {
          if (value.errors?.length) onError(new GraphQLRequestError(operationName(query), value.errors));
          else if (value.data) onData(value.data as T);
        },
        error: onError,
        complete: () => {},
      },
    );
  }

  /** A query or mutation over this token's graphql-ws connection (an extension's answers go this way). */
  requestOverSocket<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let data: T | undefined;
      this.socket().subscribe<T>(
        { query, ...(variables ? { variables } : {}) },
        {
          next: (value) => {
            if (value.errors?.length) reject(new GraphQLRequestError(operationName(query), value.errors));
            else data = value.data as T;
          },
          error: reject,
          complete: () => resolve(data as T),
        },
      );
    });
  }

  async close(): Promise<void> {
    await this.ws?.dispose();
    this.ws = null;
  }
}
