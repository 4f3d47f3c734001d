/** An optional `ID` argument as the services take it: GraphQL may hand an ID over as a number. */
export const optionalId = (id: string | number | null | undefined) => (id == null ? null : String(id));
