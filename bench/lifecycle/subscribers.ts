import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * Child process of the lifecycle benchmark: opens N graphql-ws subscriptions to the server, then
 * reports, for each event, when every subscriber received it. Kept out of the server's process so
 * that the server's memory per subscription is measured alone.
 */
const [url, token, countArg] = process.argv.slice(2);
const count = Number(countArg);
const arrivals = new Map<string, number[]>();
let ready = 0;

for (let i = 0; i < count; i += 1) {
  const client = createClient({
    url: url!,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    lazy: false,
    retryAttempts: 0,
  });
  client.on('connected', () => {
    ready += 1;
    if (ready === count) process.send!({ type: 'ready' });
  });
  client.subscribe(
    { query: 'subscription { journalEvents { seq type callId } }' },
    {
      next: (value) => {
        const event = (value.data as { journalEvents: { type: string; callId: string } }).journalEvents;
        if (event.type !== 'TOOL_CALL_APPROVED') return;
        const times = arrivals.get(event.callId) ?? [];
        times.push(performance.timeOrigin + performance.now());
        arrivals.set(event.callId, times);
        if (times.length === count) process.send!({ type: 'delivered', callId: event.callId, times });
      },
      error: (error) => process.send!({ type: 'error', message: String(error) }),
      complete: () => {},
    },
  );
}
