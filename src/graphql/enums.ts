/**
 * Enum values for a GraphQL enum over lower-case stored values: the GraphQL names are the values
 * upper-cased (`added` is ADDED), and a value's description, when given, goes with it.
 */
export const upperValues = <T extends string>(
  values: readonly T[],
  descriptions: Partial<Record<T, string>> = {},
) =>
  Object.fromEntries(
    values.map((value) => {
      const description = descriptions[value];
      return [value.toUpperCase(), description === undefined ? { value } : { value, description }];
    }),
  ) as {
    [K in Uppercase<T>]: { value: Lowercase<K> & T; description?: string };
  };
