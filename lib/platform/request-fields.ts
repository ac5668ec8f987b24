/**
 * Field validation for request bodies: zod/mini schemas whose every message names the field, so a
 * client learns exactly what to fix (`400 invalid_request`, "user_id is required.").
 */
import './zod';
import * as z from 'zod/mini';
import { InvalidRequestError } from './errors';

/** A required, non-empty string field of at most `max` characters. */
export function textField(name: string, max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required.` : `${name} must be a string.`) })
    .check(z.minLength(1, `${name} must not be empty.`), z.maxLength(max, `${name} must be at most ${max} characters.`));
}

/** An optional string field; empty means absent, as in a form where an empty value is no value. */
export function optionalTextField(name: string, max: number) {
  return z.optional(
    z.pipe(
      z.string({ error: `${name} must be a string.` }).check(z.maxLength(max, `${name} must be at most ${max} characters.`)),
      z.transform((value) => (value === '' ? undefined : value)),
    ),
  );
}

/** A required field that must be one of `values`. */
export function enumField<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  const list = values.map((value) => `'${value}'`).join(' or ');
  return z.enum(values, {
    error: (issue) => (issue.input === undefined ? `${name} is required.` : `${name} must be ${list}.`),
  });
}

/** Validates `fields` against `schema`, throwing a 400 with the first problem. Unknown fields are ignored (RFC 6749 §3.1). */
export function parseFields<S extends z.ZodMiniType>(schema: S, fields: unknown): z.infer<S> {
  const result = schema.safeParse(fields);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new InvalidRequestError(issue?.message ?? 'The request is malformed.');
}
