import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';

// GraphiQL and generated clients show these descriptions as the API's reference, so a type,
// field or argument added without one is a gap in the manual.

const ownTypes: GraphQLNamedType[] = Object.values(schema.getTypeMap()).filter(
  (type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type),
);

const described = (thing: { description?: string | null }) => (thing.description ?? '').trim() !== '';

const fieldsOf = (type: GraphQLNamedType): GraphQLField<unknown, unknown>[] =>
  isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];

const inputFieldsOf = (type: GraphQLNamedType): GraphQLInputField[] =>
  isInputObjectType(type) ? Object.values(type.getFields()) : [];

const argumentsOf = (type: GraphQLNamedType): [string, GraphQLArgument][] =>
  fieldsOf(type).flatMap((field) =>
    field.args.map((arg): [string, GraphQLArgument] => [`${type.name}.${field.name}(${arg.name})`, arg]),
  );

describe('every part of the schema has a description', () => {
  it('every object, interface, union, input, enum and scalar type', () => {
    const missing = ownTypes.filter((type) => !described(type)).map((type) => type.name);
    expect(missing).toEqual([]);
  });

  it('every field of an object or interface', () => {
    const missing = ownTypes.flatMap((type) =>
      fieldsOf(type)
        .filter((field) => !described(field))
        .map((field) => `${type.name}.${field.name}`),
    );
    expect(missing).toEqual([]);
  });

  it('every input field', () => {
    const missing = ownTypes.flatMap((type) =>
      inputFieldsOf(type)
        .filter((field) => !described(field))
        .map((field) => `${type.name}.${field.name}`),
    );
    expect(missing).toEqual([]);
  });

  it('every argument of every field', () => {
    const missing = ownTypes
      .flatMap(argumentsOf)
      .filter(([, arg]) => !described(arg))
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });
});
