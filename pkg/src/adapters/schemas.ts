/**
 * Tools' input schemas as JSON Schema, to be counted as the provider receives them: the one
 * conversion every adapter uses.
 *
 * @internal
 * @module
 */

import { isRecord } from '../validate/fields.js';

/**
 * A tool's schema as JSON Schema: an AI SDK `jsonSchema()` schema holds it (`jsonSchema`); a zod 4
 * schema converts itself (`toJSONSchema()`, which LangChain's and the AI SDK's own conversions use
 * too); a plain object is JSON Schema already. A zod 3 schema has no conversion without importing
 * zod: `undefined` (its name and description are still counted).
 */
export function jsonSchemaOf(schema: unknown): unknown {
  if (!isRecord(schema)) return undefined;
  if (isRecord(schema['jsonSchema'])) return schema['jsonSchema'];
  const convert = schema['toJSONSchema'];
  if (typeof convert === 'function') {
    try {
      const { $schema: _, ...rest } = convert.call(schema) as Record<string, unknown>;
      return rest;
    } catch {
      return undefined; // a schema zod cannot express in JSON (a transform, a custom type)
    }
  }
  return '_def' in schema || '_zod' in schema ? undefined : schema;
}
