/** Who gives a code: a service (as a DomainError), this server's GraphQL and HTTP layers, or graphql-yoga. */
export type GraphQLErrorSource = 'service' | 'server' | 'graphql-yoga';

export interface GraphQLErrorCodeEntry {
  from: readonly [GraphQLErrorSource, ...GraphQLErrorSource[]];
  /** The HTTP status the server or yoga sets for it; without one, 200 (graphql-ws carries no status). */
  status?: string;
  /** When a client gets it, and what it can do about it. */
  meaning: string;
  /** Fields beside `code` in `extensions`, when there are any. */
  extensions?: string;
}

/**
 * Every `extensions.code` a GraphQL client can get, spelled once; docs/errors.md is generated from
 * this table (`npm run errors:print`). A failed tool call is not among them: it is data
 * (`ToolCall.error`, see tool-error-codes.ts).
 */
export const graphqlErrorCodes = {
  UNAUTHENTICATED: {
    from: ['server', 'service'],
    meaning:
      'No token, or one that is unknown, revoked or expired; a running subscription, or a tool call the MCP gateway holds for a person, ends with it when its token is revoked or expires.',
  },
  FORBIDDEN: {
    from: ['server', 'service'],
    meaning:
      "The token's role may not use the field, or the service refuses this principal the action (a grant it may not make, approving its own run under `forbidSelfApproval`).",
  },
  NOT_FOUND: {
    from: ['service'],
    meaning:
      "The object does not exist, or lies outside the token's reach (another user's run is NOT_FOUND, not FORBIDDEN).",
  },
  BAD_USER_INPUT: {
    from: ['service', 'server'],
    meaning: 'An argument is invalid; nothing was changed. The message says which and why.',
    extensions: '`field`, `issues` (`{ field, message }`), `problems` (`{ path, message }`), `policyReason`',
  },
  CONFLICT: {
    from: ['service'],
    meaning:
      'The state does not allow it now: a call no longer awaiting approval, arguments changed since the approver saw them, a run not `RUNNING`, a BUILT_IN tool to replace. Read the object again.',
  },
  FAILED_PRECONDITION: {
    from: ['service'],
    meaning:
      'The request is valid but cannot be answered this way: `exportChat` of a chat larger than one response carries (export it with the CLI).',
  },
  CONTEXT_BUDGET_EXCEEDED: {
    from: ['service'],
    meaning:
      "A context preset's FAIL rule: a prompt component, or the whole frame, is over its token budget.",
    extensions: "`kind` (the component's kind, or `TOTAL`), `tokens`, `budget`",
  },
  RATE_LIMITED: {
    from: ['server'],
    status: '429',
    meaning:
      "Over the token's rate limit (operations per second or minute) or its number of open subscriptions; retry later.",
    extensions: '`retryAfterMs` (and a `Retry-After` header over HTTP)',
  },
  SUBSCRIBER_TOO_SLOW: {
    from: ['service'],
    meaning:
      'A subscription fell more than `maxBacklog` events behind (its client reads slower than events come); it ends after the events it has. Subscribe again with `afterSeq` set to the last position received: nothing is skipped.',
    extensions: '`maxBacklog`',
  },
  PAYLOAD_TOO_LARGE: {
    from: ['server'],
    status: '413',
    meaning: 'The request body is larger than `MAX_BODY_BYTES`; it was not read. Send less per request.',
    extensions: '`maxBodyBytes`',
  },
  LENGTH_REQUIRED: {
    from: ['server'],
    status: '411',
    meaning:
      'A chunked request body without `Content-Length`: the server needs the length to enforce its limit.',
    extensions: '`maxBodyBytes`',
  },
  UNAVAILABLE: {
    from: ['server'],
    status: '503',
    meaning: 'The server is shutting down; retry against another process (a `Retry-After` header says when).',
  },
  INTERNAL_SERVER_ERROR: {
    from: ['server'],
    meaning: 'Anything unexpected: a bug, masked; the details are in the server log under the request id.',
  },
  GRAPHQL_PARSE_FAILED: {
    from: ['graphql-yoga'],
    status: '400 when the request accepts `application/graphql-response+json`',
    meaning: 'The document is not GraphQL, or it has more than 2000 tokens.',
  },
  GRAPHQL_VALIDATION_FAILED: {
    from: ['graphql-yoga'],
    status: '400 when the request accepts `application/graphql-response+json`',
    meaning:
      'The document does not validate against the schema (`schema.graphql`): an unknown field, a variable of the wrong type.',
  },
  BAD_REQUEST: {
    from: ['graphql-yoga'],
    status: '400',
    meaning:
      'The HTTP request is malformed: a body that is not JSON, `variables` that are not an object, a mutation over GET.',
  },
} as const satisfies Record<string, GraphQLErrorCodeEntry>;

export type GraphQLErrorCode = keyof typeof graphqlErrorCodes;

/** The codes a service may throw (a DomainError); the GraphQL layer passes them on as `extensions.code`. */
export type DomainErrorCode = {
  [C in GraphQLErrorCode]: 'service' extends (typeof graphqlErrorCodes)[C]['from'][number] ? C : never;
}[GraphQLErrorCode];
