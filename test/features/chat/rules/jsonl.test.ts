import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../../src/core/errors.js';
import {
  ChatJsonlError,
  type ChatJsonlErrorReason,
  ChatJsonlReader,
  type ChatLine,
  parseChatJsonl,
  parseChatLine,
  serializeChatJsonl,
} from '../../../../src/features/chat/rules/jsonl.js';

const CHATS = new URL('../../../fixtures/sillytavern/chats/', import.meta.url);
const SERAPHINA = 'Seraphina - 2023-5-12 @21h 32m 29s 224ms.jsonl';
const LEGACY = [
  'legacy-tavernai/Aqua/1673181146000.jsonl',
  'legacy-tavernai/Darkness/1673225255706.jsonl',
  'legacy-tavernai/Megumin/1673323621108.jsonl',
];

const read = (name: string) => readFileSync(new URL(name, CHATS), 'utf8');
const nonEmptyLines = (text: string) => text.split('\n').filter((line) => line !== '');
const isCompact = (line: string) => JSON.stringify(JSON.parse(line)) === line;

function expectError(run: () => unknown, reason: ChatJsonlErrorReason, line: number): ChatJsonlError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ChatJsonlError);
    expect(error).toBeInstanceOf(DomainError);
    const chatError = error as ChatJsonlError;
    expect(chatError.reason).toBe(reason);
    expect(chatError.line).toBe(line);
    expect(chatError.code).toBe('BAD_USER_INPUT');
    expect(chatError.message).toContain(`line ${line}`);
    return chatError;
  }
  throw new Error('expected a ChatJsonlError');
}

describe('fixture chats round-trip', () => {
  it.each([SERAPHINA, ...LEGACY])('%s: serializes back to the identical bytes', (name) => {
    const source = read(name);
    expect(serializeChatJsonl(parseChatJsonl(source))).toBe(source);
  });

  it.each([SERAPHINA, ...LEGACY])(
    '%s: every output line is JSON-equal to its input line, in order',
    (name) => {
      const source = read(name);
      const output = nonEmptyLines(serializeChatJsonl(parseChatJsonl(source)));
      const input = nonEmptyLines(source);
      expect(output).toHaveLength(input.length);
      for (const [i, line] of output.entries()) {
        expect(JSON.parse(line)).toStrictEqual(JSON.parse(input[i] ?? ''));
      }
    },
  );

  it('records which source lines are compact JSON (what JSON.stringify would write)', () => {
    // Only the hand-inserted {"system": …} line has a space after its colon.
    expect(nonEmptyLines(read(SERAPHINA)).map(isCompact)).toEqual([true, false, true, true, true]);
    for (const name of LEGACY) expect(nonEmptyLines(read(name)).every(isCompact)).toBe(true);
  });

  it.each([SERAPHINA, ...LEGACY])(
    '%s: JSON.stringify(raw) alone reproduces exactly the compact lines',
    (name) => {
      const chat = parseChatJsonl(read(name));
      for (const line of chat.lines) {
        if (line.kind === 'blank') continue;
        const raw = line.kind === 'header' ? line.header.raw : line.message.raw;
        expect(JSON.stringify(raw) === line.text).toBe(isCompact(line.text));
      }
    },
  );

  it('keeps the trailing newline of Seraphina and its absence in the legacy files', () => {
    expect(parseChatJsonl(read(SERAPHINA)).lines.at(-1)?.eol).toBe('\n');
    for (const name of LEGACY) expect(parseChatJsonl(read(name)).lines.at(-1)?.eol).toBe('');
  });
});

describe('Seraphina (modern header, non-standard system line)', () => {
  const chat = parseChatJsonl(read(SERAPHINA));

  it('reads the modern header with its chat_metadata', () => {
    expect(chat.header.shape).toBe('modern');
    expect(chat.header.userName).toBe('Orion');
    expect(chat.header.characterName).toBe('Seraphina');
    expect(chat.header.createDate).toBe('2024-08-07@18h45m42s');
    expect(chat.header.createDateIso).toBe('2024-08-07T18:45:42.000Z');
    expect(chat.header.chatMetadata).toMatchObject({ chat_id_hash: 130419263489072, tainted: true });
    expect(chat.header.chatMetadata?.timedWorldInfo).toEqual({ sticky: {}, cooldown: {} });
  });

  it('keeps the {"system": …} line as a non-standard system message at index 0', () => {
    const [system] = chat.messages;
    expect(chat.messages).toHaveLength(4);
    expect(system).toMatchObject({ index: 0, lineNumber: 2, role: 'system', nonStandard: true, name: '' });
    expect(system?.text.startsWith("\n[Seraphina's Personality=")).toBe(true);
    expect(system?.raw).toEqual({ system: system?.text });
    expect(system?.sendDateIso).toBeNull();
  });

  it('reads roles, names and human send dates of the real messages', () => {
    expect(chat.messages.slice(1).map((m) => [m.index, m.role, m.name, m.sendDate, m.sendDateIso])).toEqual([
      [1, 'assistant', 'Seraphina', 'August 7, 2024 6:47pm', '2024-08-07T18:47:00.000Z'],
      [2, 'user', 'Orion', 'August 7, 2024 8:30pm', '2024-08-07T20:30:00.000Z'],
      [3, 'assistant', 'Seraphina', 'August 7, 2024 8:30pm', '2024-08-07T20:30:00.000Z'],
    ]);
    expect(chat.messages[2]?.text.startsWith('"Wow, thank you"')).toBe(true);
  });

  it('keeps every field and the key order of the raw message objects', () => {
    const reply = chat.messages[3];
    expect(Object.keys(reply?.raw ?? {})).toEqual([
      'extra',
      'name',
      'is_user',
      'send_date',
      'mes',
      'gen_started',
      'gen_finished',
      'swipe_id',
      'swipes',
      'swipe_info',
    ]);
    expect(reply?.raw.swipe_info).toEqual([
      {
        send_date: 'August 7, 2024 8:30pm',
        gen_started: '2024-08-07T12:30:37.813Z',
        gen_finished: '2024-08-07T12:31:50.366Z',
        extra: { api: 'tabby', model: 'gemma2-27b-6.5' },
      },
    ]);
    expect(chat.messages[2]?.raw).toMatchObject({
      force_avatar: 'User Avatars/user-default.png',
      extra: { isSmallSys: false },
    });
  });
});

describe('legacy TavernAI chats', () => {
  it.each(LEGACY)('%s: legacy header with epoch create_date, one greeting', (name) => {
    const chat = parseChatJsonl(read(name));
    expect(chat.header.shape).toBe('legacy');
    expect(chat.header.chatMetadata).toBeNull();
    expect(typeof chat.header.createDate).toBe('number');
    expect(chat.header.createDateIso).toBe(new Date(chat.header.createDate as number).toISOString());
    expect(chat.messages).toHaveLength(1);
    const [greeting] = chat.messages;
    expect(greeting).toMatchObject({ index: 0, role: 'assistant', isSystem: false, nonStandard: false });
    expect(greeting?.raw.is_name).toBe(true);
    expect(greeting?.name).toBe(chat.header.characterName);
    expect(typeof greeting?.sendDate).toBe('number');
  });

  it('converts the epoch-ms send_date of Aqua', () => {
    const chat = parseChatJsonl(read(LEGACY[0] ?? ''));
    expect(chat.messages[0]?.sendDate).toBe(1674563371558);
    expect(chat.messages[0]?.sendDateIso).toBe('2023-01-24T12:29:31.558Z');
  });
});

describe('other shapes', () => {
  it('reads the newer header whose user_name and character_name are the literal "unused"', () => {
    const text =
      '{"chat_metadata":{"integrity":"abc"},"user_name":"unused","character_name":"unused"}\n' +
      '{"name":"Alice","is_user":true,"is_system":false,"send_date":"2025-01-02T03:04:05.000Z","mes":"hi","extra":{}}\n';
    const chat = parseChatJsonl(text);
    expect(chat.header).toMatchObject({
      shape: 'placeholder',
      userName: null,
      characterName: null,
      createDate: null,
    });
    expect(chat.header.chatMetadata).toEqual({ integrity: 'abc' });
    expect(chat.messages[0]?.sendDateIso).toBe('2025-01-02T03:04:05.000Z');
    expect(serializeChatJsonl(chat)).toBe(text);
  });

  it('keeps unknown fields on messages and headers', () => {
    const text =
      '{"user_name":"u","character_name":"c","future":{"a":[1,2]}}\n{"mes":"x","name":"c","plugin_state":{"k":true}}';
    const chat = parseChatJsonl(text);
    expect(chat.header.raw.future).toEqual({ a: [1, 2] });
    expect(chat.messages[0]?.raw.plugin_state).toEqual({ k: true });
    expect(serializeChatJsonl(chat)).toBe(text);
  });

  it('treats is_system messages as system and hidden user messages as user', () => {
    const chat = parseChatJsonl(
      '{}\n{"name":"n","is_user":false,"is_system":true,"mes":"narration"}\n{"name":"u","is_user":true,"is_system":true,"mes":"hidden"}',
    );
    expect(chat.messages.map((m) => [m.role, m.isSystem])).toEqual([
      ['system', true],
      ['user', true],
    ]);
  });

  it('keeps blank lines, CRLF endings and a BOM byte for byte; blank lines are not messages', () => {
    const text = '\uFEFF{"user_name":"u"}\r\n{"mes":"a","name":"x"}\r\n\r\n{"mes":"b","name":"x"}\r\n';
    const chat = parseChatJsonl(text);
    expect(chat.messages.map((m) => [m.index, m.lineNumber, m.text])).toEqual([
      [0, 2, 'a'],
      [1, 4, 'b'],
    ]);
    expect(chat.lines.map((line) => line.kind)).toEqual(['header', 'message', 'blank', 'message']);
    expect(serializeChatJsonl(chat)).toBe(text);
  });

  it('writes an edited message as compact JSON and leaves the other lines untouched', () => {
    const source = read(SERAPHINA);
    const chat = parseChatJsonl(source);
    const greeting = chat.messages[1];
    if (!greeting) throw new Error('missing greeting');
    greeting.raw.mes = 'edited';
    const output = serializeChatJsonl(chat).split('\n');
    const input = source.split('\n');
    expect(output[2]).toBe(JSON.stringify({ ...JSON.parse(input[2] ?? ''), mes: 'edited' }));
    expect(output.filter((_, i) => i !== 2)).toEqual(input.filter((_, i) => i !== 2));
  });

  it('keeps a number spelling JSON.stringify would change while the value is unchanged', () => {
    const text = '{"create_date":1.50e3}\n{"mes":"caf\\u00e9","name":"x"}';
    const chat = parseChatJsonl(text);
    expect(chat.messages[0]?.text).toBe('café');
    expect(serializeChatJsonl(chat)).toBe(text);
  });
});

describe('errors carry the line number', () => {
  it('rejects an empty file', () => {
    expectError(() => parseChatJsonl(''), 'EMPTY_FILE', 1);
  });

  it('rejects a file of blank lines', () => {
    expectError(() => parseChatJsonl('\n  \n\n'), 'EMPTY_FILE', 3);
  });

  it('rejects invalid JSON on line N', () => {
    const error = expectError(
      () => parseChatJsonl('{"user_name":"u"}\n{"mes":"ok","name":"x"}\n{"mes": broken}\n'),
      'INVALID_JSON',
      3,
    );
    expect(error.message).toContain('invalid JSON');
  });

  it('rejects a header that is not an object', () => {
    const error = expectError(() => parseChatJsonl('[1,2]\n{"mes":"x"}'), 'HEADER_NOT_OBJECT', 1);
    expect(error.message).toContain('got an array');
  });

  it('rejects a message line that is not an object', () => {
    expectError(() => parseChatJsonl('{}\n42'), 'MESSAGE_NOT_OBJECT', 2);
  });
});

describe('streaming', () => {
  it('gives the same lines when the file arrives in small chunks', () => {
    const source = read(SERAPHINA);
    const reader = new ChatJsonlReader();
    const lines: ChatLine[] = [];
    for (let i = 0; i < source.length; i += 7) lines.push(...reader.push(source.slice(i, i + 7)));
    lines.push(...reader.end());
    expect(lines).toEqual(parseChatJsonl(source).lines);
    expect(reader.linesRead).toBe(5);
    expect(reader.messagesRead).toBe(4);
  });

  it('parses line by line with parseChatLine, the caller keeping the position', () => {
    const source = read(SERAPHINA);
    let nextMessageIndex: number | null = null;
    const messages = source
      .split('\n')
      .filter((text) => text !== '')
      .map((text, i) => {
        const line = parseChatLine(text, { lineNumber: i + 1, nextMessageIndex });
        if (line.kind === 'header') nextMessageIndex = 0;
        if (line.kind === 'message') nextMessageIndex = line.message.index + 1;
        return line;
      })
      .flatMap((line) => (line.kind === 'message' ? [line.message] : []));
    expect(messages).toEqual(parseChatJsonl(source).messages);
  });
});
