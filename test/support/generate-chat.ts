/**
 * Deterministic generator of long SillyTavern chats (JSONL, modern header) mixing Chinese and
 * English, for import tests and the chat-search benchmark. Lines are produced lazily so a
 * 1,000,000-message chat can be streamed to a file without holding it in memory.
 *
 * The same seed always gives the same bytes. A few rare terms are planted on a fixed schedule
 * (`PLANTED_TERMS`); none of their characters or words occur in the vocabulary, so the planted
 * messages are exactly the messages that contain them (`plantedMessageIndices`).
 */

export interface PlantedTerm {
  term: string;
  language: 'zh' | 'en';
  /** Message `index` is planted when `index % every === offset`. */
  every: number;
  offset: number;
}

export const PLANTED_TERMS: readonly PlantedTerm[] = [
  { term: '饕餮', language: 'zh', every: 50_000, offset: 1_234 },
  { term: '獬豸衔烛', language: 'zh', every: 125_000, offset: 777 },
  { term: 'zephyrquill', language: 'en', every: 200_000, offset: 4_242 },
  { term: 'obsidianwren', language: 'en', every: 1_000, offset: 500 },
];

export interface GenerateChatOptions {
  messages: number;
  seed?: number;
  userName?: string;
  characterName?: string;
  /** ISO timestamp of the first message. */
  start?: string;
}

export const DEFAULT_GENERATOR_SEED = 20240807;

/** Indices (0-based message positions) of the messages that contain `term`. */
export function plantedMessageIndices(term: string, messageCount: number): number[] {
  const planted = PLANTED_TERMS.find((candidate) => candidate.term === term);
  if (!planted) return [];
  const indices: number[] = [];
  for (let index = planted.offset; index < messageCount; index += planted.every) indices.push(index);
  return indices;
}

/** mulberry32: tiny, fast and good enough for test data; not for anything secret. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ZH_PEOPLE = [
  '师兄',
  '师妹',
  '长老',
  '掌门',
  '小师弟',
  '她',
  '他',
  '我们',
  '你',
  '那位剑客',
  '老板娘',
  '云棠',
];
const ZH_PLACES = [
  '后山',
  '藏经阁',
  '山门',
  '丹房',
  '竹林',
  '溪边',
  '城南集市',
  '客栈',
  '演武场',
  '茶馆',
  '古井旁',
];
const ZH_ACTIONS = [
  '练剑',
  '炼丹',
  '打坐',
  '读书',
  '喝茶',
  '下棋',
  '散步',
  '赶路',
  '修炼心法',
  '整理药材',
  '抄写经文',
];
const ZH_FEELINGS = ['有些紧张', '很高兴', '心事重重', '安静地笑了', '皱起了眉头', '松了一口气', '若有所思'];
const ZH_THINGS = ['灵石', '长剑', '丹药', '地图', '书信', '玉佩', '竹笛', '雨伞', '灯笼', '药方'];
const ZH_WEATHER = ['下着小雨', '阳光正好', '起了大雾', '风很大', '月色很美', '有点冷'];

const EN_PEOPLE = [
  'the traveler',
  'the old librarian',
  'a young knight',
  'the innkeeper',
  'she',
  'he',
  'the bard',
];
const EN_PLACES = [
  'the forest',
  'the library',
  'the market',
  'the river bank',
  'the tavern',
  'the old tower',
];
const EN_ACTIONS = ['reading quietly', 'sharpening a sword', 'brewing tea', 'mapping the valley', 'waiting'];
const EN_FEELINGS = ['a little nervous', 'quite cheerful', 'lost in thought', 'tired but hopeful', 'curious'];
const EN_THINGS = [
  'a lantern',
  'a letter',
  'a silver key',
  'the map',
  'a small herb pouch',
  'a wooden flute',
];
const EN_WEATHER = ['it is raining softly', 'the sun is warm', 'a thick fog rolls in', 'the wind is cold'];
const EN_WORDS_IN_ZH = ['OK', 'library', 'plan B', 'deadline', 'map', 'magic'];

const MODELS = ['gpt-4o-mini', 'deepseek-chat', 'claude-3-5-sonnet', 'gemma2-27b'];

export function* generateChatJsonl(options: GenerateChatOptions): Generator<string> {
  const random = createRandom(options.seed ?? DEFAULT_GENERATOR_SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const userName = options.userName ?? 'Traveler';
  const characterName = options.characterName ?? '沈念';
  let clock = Date.parse(options.start ?? '2024-08-07T10:45:42.000Z');

  const zhSentence = (): string => {
    switch (Math.floor(random() * 5)) {
      case 0:
        return `${pick(ZH_PEOPLE)}在${pick(ZH_PLACES)}${pick(ZH_ACTIONS)}。`;
      case 1:
        return `今天${pick(ZH_WEATHER)}，${pick(ZH_PEOPLE)}想去${pick(ZH_PLACES)}看看。`;
      case 2:
        return `${pick(ZH_PEOPLE)}${pick(ZH_FEELINGS)}，把${pick(ZH_THINGS)}递了过来。`;
      case 3:
        return `“${pick(ZH_PEOPLE)}，你有没有见过我的${pick(ZH_THINGS)}？”`;
      default:
        return `我们先去${pick(ZH_PLACES)}，然后再说${pick(EN_WORDS_IN_ZH)}的事。`;
    }
  };
  const enSentence = (): string => {
    switch (Math.floor(random() * 4)) {
      case 0:
        return `${capitalize(pick(EN_PEOPLE))} found ${pick(EN_THINGS)} near ${pick(EN_PLACES)}.`;
      case 1:
        return `Outside, ${pick(EN_WEATHER)}, and ${pick(EN_PEOPLE)} keeps ${pick(EN_ACTIONS)}.`;
      case 2:
        return `*${capitalize(pick(EN_PEOPLE))} looks ${pick(EN_FEELINGS)}.*`;
      default:
        return `"Shall we go to ${pick(EN_PLACES)} before dark?"`;
    }
  };
  const paragraph = (sentences: number): string => {
    const style = random();
    const parts: string[] = [];
    for (let i = 0; i < sentences; i++) {
      const chinese = style < 0.45 || (style >= 0.85 && i % 2 === 0);
      parts.push(chinese ? zhSentence() : enSentence());
    }
    return parts.join(style < 0.45 ? '' : ' ');
  };
  const advance = (minSeconds: number, maxSeconds: number): string => {
    clock += Math.round((minSeconds + random() * (maxSeconds - minSeconds)) * 1000);
    return new Date(clock).toISOString();
  };

  yield JSON.stringify({
    user_name: userName,
    character_name: characterName,
    create_date: '2024-08-07@18h45m42s',
    chat_metadata: {
      chat_id_hash: 130419263489072,
      note_prompt: '',
      note_interval: 1,
      note_position: 1,
      note_depth: 4,
      note_role: 0,
      tainted: false,
      timedWorldInfo: { sticky: {}, cooldown: {} },
    },
  });

  let nextIsUser = false;
  for (let index = 0; index < options.messages; index++) {
    const narrator = index > 0 && random() < 0.01;
    const isUser: boolean = !narrator && nextIsUser;
    let mes = narrator
      ? `*${zhSentence()}*`
      : paragraph(isUser ? 1 + Math.floor(random() * 2) : 1 + Math.floor(random() * 5));
    for (const planted of PLANTED_TERMS) {
      if (index % planted.every === planted.offset) {
        mes +=
          planted.language === 'zh'
            ? `他忽然提起了${planted.term}的传说。`
            : ` Someone whispered the word ${planted.term} twice.`;
      }
    }
    const sendDate = advance(5, 600);

    if (narrator) {
      yield JSON.stringify({
        name: characterName,
        is_user: false,
        is_system: true,
        send_date: sendDate,
        mes,
        extra: { type: 'narrator' },
      });
      continue;
    }
    if (isUser) {
      yield JSON.stringify({
        name: userName,
        is_user: true,
        is_system: false,
        send_date: sendDate,
        mes,
        extra: {},
        force_avatar: 'User Avatars/user-default.png',
      });
    } else {
      const extra = { api: 'openai', model: pick(MODELS) };
      const genStarted = new Date(clock - 20_000).toISOString();
      const message: Record<string, unknown> = {
        name: characterName,
        is_user: false,
        is_system: false,
        send_date: sendDate,
        mes,
        extra,
        gen_started: genStarted,
        gen_finished: sendDate,
      };
      if (index > 0 && random() < 0.1) {
        const swipes = [mes];
        const count = 1 + Math.floor(random() * 2);
        for (let i = 0; i < count; i++) swipes.push(paragraph(1 + Math.floor(random() * 3)));
        const swipeId = Math.floor(random() * swipes.length);
        // The shown text is the chosen swipe, and only `mes` is searched: keep the planted text there.
        [swipes[0], swipes[swipeId]] = [swipes[swipeId] as string, mes];
        message.swipe_id = swipeId;
        message.swipes = swipes;
        message.swipe_info = swipes.map(() => ({
          send_date: sendDate,
          gen_started: genStarted,
          gen_finished: sendDate,
          extra,
        }));
      }
      yield JSON.stringify(message);
    }
    // Mostly strict alternation; an occasional double reply, as when a user continues the bot.
    nextIsUser = isUser ? false : random() >= 0.03;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
