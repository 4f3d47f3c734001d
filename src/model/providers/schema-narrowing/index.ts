export { type NarrowingEntry, narrowingActions } from './report.js';
export { strictBlocker } from './strict-blocker.js';
export type { NarrowingTarget } from './targets.js';
export { narrowSchema } from './walk.js';
