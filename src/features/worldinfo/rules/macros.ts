/**
 * SillyTavern's macro substitution (`evaluateMacros` in public/scripts/macros.js, with the values
 * `substituteParams` gives it), for the macros whose value the server knows. Same order as ST:
 * 1. the legacy tags `<USER>`, `<BOT>`, `<CHAR>`, `<CHARIFNOTGROUP>`, `<GROUP>` (any case);
 * 2. `{{newline}}`, `{{trim}}` (with the newlines around it), `{{noop}}`;
 * 3. `{{user}}`, `{{char}}`, `{{group}}`, `{{charIfNotGroup}}`, `{{description}}`,
 *    `{{personality}}`, `{{scenario}}`, `{{persona}}`, `{{mesExamples}}`, `{{mesExamplesRaw}}`,
 *    `{{charVersion}}`, `{{char_version}}`, `{{charPrompt}}`, `{{charInstruction}}`,
 *    `{{charJailbreak}}` (names in any case, as ST's `gi` patterns);
 * 4. `{{lastMessage}}`, `{{lastUserMessage}}`, `{{lastCharMessage}}`;
 * 5. `{{// comments}}` are removed;
 * 6. `{{time}}`, `{{date}}`, `{{weekday}}`, `{{isotime}}`, `{{isodate}}` at `now`, in UTC and in
 *    moment's English `LT` / `LL` / `dddd` forms.
 * Left as written, since their value lives in the host or changes per roll: `{{random}}`,
 * `{{pick}}`, `{{roll}}`, variables (`{{getvar}}`, `{{setvar}}`, …), instruct-mode macros,
 * `{{input}}`, `{{maxPrompt}}`, `{{idle_duration}}`, `{{timeDiff}}`, `{{datetimeformat}}`, swipe and
 * message-id macros. A solo chat's `{{group}}` is the character, as in ST. `{{mesExamples}}` is the
 * examples as written (ST formats them for instruct mode).
 */

export interface MacroEnv {
  user: string;
  char: string;
  description: string;
  personality: string;
  scenario: string;
  persona: string;
  mesExamples: string;
  charVersion: string;
  /** The card's `system_prompt`. */
  charPrompt: string;
  /** The card's `post_history_instructions`. */
  charInstruction: string;
  lastMessage: string;
  lastUserMessage: string;
  lastCharMessage: string;
  now: Date;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const two = (n: number) => String(n).padStart(2, '0');

function timeMacros(now: Date): Record<string, string> {
  const hours = now.getUTCHours();
  return {
    time: `${hours % 12 === 0 ? 12 : hours % 12}:${two(now.getUTCMinutes())} ${hours < 12 ? 'AM' : 'PM'}`,
    date: `${MONTHS[now.getUTCMonth()]} ${now.getUTCDate()}, ${now.getUTCFullYear()}`,
    weekday: WEEKDAYS[now.getUTCDay()]!,
    isotime: `${two(hours)}:${two(now.getUTCMinutes())}`,
    isodate: `${now.getUTCFullYear()}-${two(now.getUTCMonth() + 1)}-${two(now.getUTCDate())}`,
  };
}

/** Replaces `{{name}}` in any case; a function replacement so `$` in a value stays literal. */
const replaceMacro = (text: string, name: string, value: string) =>
  text.replace(new RegExp(`\\{\\{${name}\\}\\}`, 'gi'), () => value);

export function substituteMacros(content: string, env: MacroEnv): string {
  if (!content) return '';
  let text = content
    .replace(/<USER>/gi, () => env.user)
    .replace(/<BOT>/gi, () => env.char)
    .replace(/<CHAR>/gi, () => env.char)
    .replace(/<CHARIFNOTGROUP>/gi, () => env.char)
    .replace(/<GROUP>/gi, () => env.char);
  if (!text.includes('{{')) return text;

  text = text
    .replace(/\{\{newline\}\}/gi, '\n')
    .replace(/\n*\{\{trim\}\}\n*/gi, '')
    .replace(/\{\{noop\}\}/gi, '');
  const values: Record<string, string> = {
    user: env.user,
    char: env.char,
    group: env.char,
    charIfNotGroup: env.char,
    description: env.description,
    personality: env.personality,
    scenario: env.scenario,
    persona: env.persona,
    mesExamples: env.mesExamples,
    mesExamplesRaw: env.mesExamples,
    charVersion: env.charVersion,
    char_version: env.charVersion,
    charPrompt: env.charPrompt,
    charInstruction: env.charInstruction,
    charJailbreak: env.charInstruction,
    lastMessage: env.lastMessage,
    lastUserMessage: env.lastUserMessage,
    lastCharMessage: env.lastCharMessage,
  };
  for (const [name, value] of Object.entries(values)) text = replaceMacro(text, name, value);
  text = text.replace(/\{\{\/\/([\s\S]*?)\}\}/gm, '');
  for (const [name, value] of Object.entries(timeMacros(env.now))) text = replaceMacro(text, name, value);
  return text;
}
