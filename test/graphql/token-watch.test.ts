import type { ExecutionResult } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { describe, expect, test } from 'vitest';
import { untilTokenEnds } from '../../src/graphql/token-watch.js';

/** A hold whose end the test triggers, and whether the stream released it. */
function manualHold() {
  const state = { end: (_reason: string) => {}, released: false };
  const hold = (end: (reason: string) => void) => {
    state.end = end;
    return () => {
      state.released = true;
    };
  };
  return { state, hold };
}

describe('untilTokenEnds', () => {
  test('passes results through, then ends with the reason as UNAUTHENTICATED and closes the source', async () => {
    let closed = false;
    const source = new Repeater<ExecutionResult>(async (push, stop) => {
      await push({ data: { n: 1 } });
      await stop;
      closed = true;
    });
    const { state, hold } = manualHold();
    const stream = untilTokenEnds(source, hold);
    expect(await stream.next()).toEqual({ done: false, value: { data: { n: 1 } } });
    const pending = stream.next();
    state.end('token revoked');
    const last = (await pending).value as ExecutionResult;
    expect(last.errors?.map((e) => ({ message: e.message, extensions: e.extensions }))).toEqual([
      { message: 'token revoked', extensions: { code: 'UNAUTHENTICATED' } },
    ]);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(true);
    expect(state.released).toBe(true);
  });

  test('a stream that ends on its own releases its hold', async () => {
    const source = new Repeater<ExecutionResult>(async (_push, stop) => stop());
    const { state, hold } = manualHold();
    const stream = untilTokenEnds(source, hold);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(state.released).toBe(true);
  });

  test('a client that unsubscribes releases its hold', async () => {
    const source = new Repeater<ExecutionResult>(async (_push, stop) => stop);
    const { state, hold } = manualHold();
    await untilTokenEnds(source, hold).return?.();
    expect(state.released).toBe(true);
  });
});
