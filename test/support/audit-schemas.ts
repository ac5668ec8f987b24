/**
 * The committed JSON Schemas of the audit events (docs/events/<type>.v<version>.json), compiled
 * by ajv: the check a consumer would run, independent of the zod schemas the forwarder validates
 * with. Used by the audit tests and by the suite-wide log check (test/support/log-capture.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const SCHEMA_DIR = resolve(__dirname, '../../docs/events');

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction | undefined>();

function validatorOf(type: string, version: number): ValidateFunction | undefined {
  const name = `${type}.v${version}.json`;
  if (!validators.has(name)) {
    const file = resolve(SCHEMA_DIR, name);
    if (!existsSync(file)) validators.set(name, undefined);
    else {
      ajv ??= addFormats(new Ajv2020({ allErrors: true, strict: true }));
      validators.set(name, ajv.compile(JSON.parse(readFileSync(file, 'utf8')) as object));
    }
  }
  return validators.get(name);
}

/** What is wrong with an event's detail by its committed schema (empty: nothing). */
export function auditEventProblems(type: string, version: number, detail: unknown): string[] {
  const validate = validatorOf(type, version);
  if (validate === undefined) return [`${type} v${version}: no schema in docs/events/`];
  if (validate(detail)) return [];
  return (validate.errors ?? []).map((error) => `${type} v${version}: ${error.instancePath || '/'} ${error.message ?? ''}`);
}
