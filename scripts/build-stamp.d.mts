/** Types for build-stamp.mjs, which runs under plain node before anything is built. */
export function inputsDigest(root: string): string;
export function isStale(root: string): boolean;
export function clearStamp(root: string): void;
export function writeStamp(root: string, digest: string): void;
