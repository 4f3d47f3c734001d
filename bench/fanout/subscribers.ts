import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * Child process of the fan-out benchmark: opens N graphql-ws journal subscriptions to the server
 * and measures, per delivery, the lag from the writer's clock stamp in the event's payload to its
 * arrival here. Kept out of the server's process so that the server's memory per subscription is
 * measured alone. The parent asks for a phase's figures with `report` and for a replay with `replay`.
 */
const [url, token, countArg] = process.argv.slice(2);
const count = Number(countArg);
const now = () => performance.timeOrigin + performance.now();

/** Lags in whole-millisecond buckets (sparse): several children's figures merge by adding counts. */
interface Phase {
  lags: Map<number, number>;
  deliveries: number;
  perSubscriber: Uint32Array;
  first: number;
  last: number;
}
const phases = new Map<string, Phase>();
const phaseOf = (name: string) => {
  let phase = phases.get(name);
  if (!phase) {
    phase = {
      lags: new Map(),
      deliveries: 0,
      perSubscriber: new Uint32Array(count),
      first: Number.NaN,
      last: Number.NaN,
    };
    phases.set(name, phase);
  }
  return phase;
};

const send = (message: unknown) => process.send!(message);
const client = (connectionParams: Record<string, string>) =>
  createClient({ url: url!, webSocketImpl: WebSocket, connectionParams, lazy: false, retryAttempts: 0 });

/** Sockets opened at once: a thousand handshakes in one go on a loaded host outlast the fleet's timeout. */
const WAVE = 50;

function open(i: number): Promise<void> {
  const c = client({ authorization: `Bearer ${token}` });
  const connected = new Promise<void>((resolve) => c.on('connected', () => resolve()));
  c.subscribe(
    { query: 'subscription { journalEvents { seq payload } }' },
    {
      next: (value) => {
        const at = now();
        const payload = (value.data as { journalEvents: { payload: { phase?: string; sentAt?: number } } })
          .journalEvents.payload;
        if (!payload.phase || payload.sentAt === undefined) return;
        const phase = phaseOf(payload.phase);
        const bucket = Math.max(0, Math.floor(at - payload.sentAt));
        phase.lags.set(bucket, (phase.lags.get(bucket) ?? 0) + 1);
        phase.deliveries += 1;
        phase.perSubscriber[i] = phase.perSubscriber[i]! + 1;
        if (Number.isNaN(phase.first)) phase.first = at;
        phase.last = at;
      },
      error: (error) => send({ type: 'error', message: String(error) }),
      complete: () => {},
    },
  );
  return connected;
}

void (async () => {
  for (let i = 0; i < count; i += WAVE)
    await Promise.all(Array.from({ length: Math.min(WAVE, count - i) }, (_, j) => open(i + j)));
  send({ type: 'ready' });
})();

/** Counts the events a fresh subscriber resuming after `afterSeq` receives until it has `expected`. */
function replay(afterSeq: string, expected: number) {
  const started = now();
  let received = 0;
  const c = client({ authorization: `Bearer ${token}` });
  const stop = c.subscribe(
    {
      query: 'subscription ($after: String) { journalEvents(afterSeq: $after) { seq } }',
      variables: { after: afterSeq },
    },
    {
      next: () => {
        received += 1;
        if (received === expected) {
          send({ type: 'replayed', received, seconds: (now() - started) / 1000 });
          stop();
          void c.dispose();
        }
      },
      error: (error) => send({ type: 'error', message: String(error) }),
      complete: () => {},
    },
  );
}

process.on('message', (m: { type: string; phase?: string; afterSeq?: string; expected?: number }) => {
  if (m.type === 'replay') replay(m.afterSeq!, m.expected!);
  if (m.type !== 'report') return;
  const phase = phaseOf(m.phase!);
  send({
    type: 'report',
    phase: m.phase,
    deliveries: phase.deliveries,
    fewest: count ? Math.min(...phase.perSubscriber) : 0,
    first: phase.first,
    last: phase.last,
    lags: [...phase.lags],
  });
});
