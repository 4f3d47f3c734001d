import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { parseJsonLines, parseSse } from './sse.js';

describe('parseSse', () => {
  it('decodes data payloads, ignoring event names and the [DONE] sentinel', () => {
    const text = 'event: ping\ndata: {"a":1}\n\ndata: {"b":\ndata: 2}\n\ndata: [DONE]\n\n';
    expect(parseSse(text)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('accepts CRLF line endings', () => {
    expect(parseSse('data: {"a":1}\r\n\r\ndata: {"a":2}\r\n\r\n')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('rejects a payload that is not JSON', () => {
    expect(() => parseSse('data: {"a":\n\n')).toThrow(DomainError);
  });
});

describe('parseJsonLines', () => {
  it('decodes one value per non-empty line', () => {
    expect(parseJsonLines('{"a":1}\n\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('names the line that is not JSON', () => {
    expect(() => parseJsonLines('{"a":1}\n{oops}\n')).toThrow('Stream line 2 is not valid JSON');
  });
});
