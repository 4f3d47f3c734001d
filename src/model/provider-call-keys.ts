/**
 * The key a model's call is stored under (unique per run), for each call of a new turn, in order.
 * Some providers and local servers number their call ids per response (`call_0` in every turn), so
 * a native id already used in this run, by an earlier turn or earlier in the same turn, gets the
 * turn's index as a suffix: the repeat is a new call, never the replay of an old one. An empty id
 * (a sloppy server's) always gets one. The native id itself stays in the turn and is what the
 * provider sees again.
 */
export function providerCallKeys(
  nativeIds: readonly string[],
  taken: ReadonlySet<string>,
  turnIndex: number,
): string[] {
  const used = new Set(taken);
  return nativeIds.map((id) => {
    let key = id;
    for (let k = 1; key === '' || used.has(key); k += 1)
      key = k === 1 ? `${id}#t${turnIndex}` : `${id}#t${turnIndex}.${k}`;
    used.add(key);
    return key;
  });
}
