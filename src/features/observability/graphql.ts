import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { DocumentNode, GraphQLError, OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../../core/auth.js';
import { DomainError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Metrics } from './metrics.js';
import { noteTokenName } from './request-context.js';
import { tracer, tracingEnabled } from './spans.js';

/** Refusals a client caused and can fix: worth a line for whoever investigates, not an alert. */
const REFUSALS = new Set(['FORBIDDEN', 'UNAUTHENTICATED', 'RATE_LIMITED']);
const CLIENT_MISTAKES = new Set([
  'NOT_FOUND',
  'CONFLICT',
  'BAD_USER_INPUT',
  'GRAPHQL_VALIDATION_FAILED',
  'GRAPHQL_PARSE_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
]);

function codeOf(error: Partial<GraphQLError>, unwrapped: string): string | undefined {
  const original = error.originalError;
  if (DomainError.is(original)) return original.code;
  const code = error.extensions?.code;
  if (typeof code === 'string') return code;
  // Made by graphql-js itself (a variable of the wrong type, an unknown field): the document's fault.
  return original === undefined ? unwrapped : undefined;
}

/** Expected errors at info (refusals) or debug (client mistakes); anything else is a bug, at error. */
export function logErrors(
  logger: Logger,
  errors: readonly Error[],
  operation: string | null,
  unwrapped = 'BAD_USER_INPUT',
): void {
  for (const error of errors as readonly Partial<GraphQLError>[]) {
    const code = codeOf(error, unwrapped);
    const fields = { code, operation, path: error.path?.join('.') };
    if (code && REFUSALS.has(code)) logger.info(fields, error.message);
    else if (code && CLIENT_MISTAKES.has(code)) logger.debug(fields, error.message);
    else logger.error({ ...fields, err: error.originalError ?? error }, 'unexpected GraphQL error');
  }
}

/**
 * Yoga's own log. It reports every error the masking rewrote at error, expected ones included;
 * errors of an execution (they have a path) are logged by useObservability at their code's level,
 * so here they are left out and only the rest (a request yoga could not handle) stays at error.
 */
export function yogaLogging(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug({ yoga: args }),
    info: (...args: unknown[]) => logger.info({ yoga: args }),
    warn: (...args: unknown[]) => logger.warn({ yoga: args }),
    error: (...args: unknown[]) => {
      const rest = args.filter((a) => !(typeof a === 'object' && a !== null && 'path' in a && a.path));
      if (rest.length > 0) logger.error({ yoga: rest });
    },
  };
}

function operationOf(document: DocumentNode, name: string | null | undefined) {
  return document.definitions.find(
    (d): d is OperationDefinitionNode =>
      d.kind === 'OperationDefinition' && (name == null || d.name?.value === name),
  );
}

function rootField(operation: OperationDefinitionNode | undefined): string {
  const first = operation?.selectionSet.selections[0];
  return first?.kind === 'Field' ? first.name.value : 'unknown';
}

type Result = { errors?: readonly GraphQLError[] };
const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * The GraphQL side of observability: the token's name for the access log, each error logged at the
 * level its code deserves, open subscriptions counted by root field and transport, and, with
 * tracing on, a span per operation that the database and dispatch spans hang under.
 */
export function useObservability(logger: Logger, metrics: Metrics | null): Plugin {
  const traced = tracingEnabled();
  return {
    onContextBuilding:
      () =>
      ({ context }) => {
        const principal = (context as { principal?: Principal | null }).principal;
        if (principal) noteTokenName(principal.name);
      },
    onValidate:
      ({ params }) =>
      ({ result }) => {
        if (result.length > 0)
          logErrors(
            logger,
            result,
            operationOf(params.documentAST, null)?.name?.value ?? null,
            'GRAPHQL_VALIDATION_FAILED',
          );
      },
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      const name = args.operationName ?? operationOf(args.document, null)?.name?.value ?? null;
      if (traced) {
        const operation = operationOf(args.document, args.operationName);
        const type = operation?.operation ?? 'query';
        setExecuteFn((executeArgs) =>
          tracer.startActiveSpan(
            `${type} ${name ?? rootField(operation)}`,
            {
              kind: SpanKind.SERVER,
              attributes: { 'graphql.operation.type': type, 'graphql.operation.name': name ?? '' },
            },
            async (span) => {
              try {
                const result = (await executeFn(executeArgs)) as Result;
                if (result.errors?.length)
                  span.setStatus({ code: SpanStatusCode.ERROR, message: result.errors[0]!.message });
                return result as never;
              } finally {
                span.end();
              }
            },
          ),
        );
      }
      return {
        onExecuteDone: ({ result }) => {
          if (!isAsyncIterable(result) && result.errors?.length) logErrors(logger, result.errors, name);
        },
      };
    },
    onSubscribe: ({ args }) => ({
      onSubscribeResult: ({ result }) => {
        const name = args.operationName ?? null;
        if (!isAsyncIterable(result)) {
          if ((result as Result).errors?.length) logErrors(logger, (result as Result).errors!, name);
          return;
        }
        if (!metrics) return;
        const labels = {
          field: rootField(operationOf(args.document, args.operationName)),
          transport: 'socket' in (args.contextValue as object) ? 'graphql-ws' : 'sse',
        };
        metrics.subscriptions.inc(labels);
        return { onEnd: () => metrics.subscriptions.dec(labels) };
      },
    }),
  };
}
