import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Every instrument this process exports at /metrics, on a registry of its own (tests build several). */
export class Metrics {
  readonly registry = new Registry();

  readonly toolCalls = new Counter({
    name: 'ats_tool_calls_total',
    help: 'Tool calls that reached a final status, by tool, source and status (every replica sees the whole journal).',
    labelNames: ['tool', 'source', 'status'] as const,
    registers: [this.registry],
  });

  readonly callDuration = new Histogram({
    name: 'ats_tool_call_duration_seconds',
    help: 'From request to final status, by tool, source and status.',
    labelNames: ['tool', 'source', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly approvalWait = new Histogram({
    name: 'ats_tool_call_approval_wait_seconds',
    help: 'From awaiting approval to the decision (approved, denied or expired), by tool and outcome.',
    labelNames: ['tool', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600, 14400, 86400],
    registers: [this.registry],
  });

  readonly leaseRecoveries = new Counter({
    name: 'ats_lease_recoveries_total',
    help: 'Calls whose lease expired with their process: requeued (idempotent tools) or interrupted.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly modelRequests = new Counter({
    name: 'ats_model_requests_total',
    help: "The agent loop's model requests in this process, by connection, wire format and outcome (ok, failed after its retries, cancelled).",
    labelNames: ['connection', 'format', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly journalLag = new Histogram({
    name: 'ats_journal_lag_seconds',
    help: "From an event's time in the journal to its delivery to this process's subscribers.",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly journalEvents = new Counter({
    name: 'ats_journal_events_delivered_total',
    help: "Journal events delivered to this process's subscribers.",
    registers: [this.registry],
  });

  readonly subscriptions = new Gauge({
    name: 'ats_open_subscriptions',
    help: 'Open GraphQL subscriptions in this process, by root field and transport.',
    labelNames: ['field', 'transport'] as const,
    registers: [this.registry],
  });

  readonly httpRequests = new Counter({
    name: 'ats_http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'ats_http_request_duration_seconds',
    help: 'HTTP request duration, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'ats_' });
  }

  /** A gauge read when scraped, never on the call path. */
  gauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    read: (set: GaugeSetter) => Promise<void> | void,
  ) {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await read((labels, value) => this.set(labels, value));
      },
    });
  }
}

export type GaugeSetter = (labels: Record<string, string>, value: number) => void;
