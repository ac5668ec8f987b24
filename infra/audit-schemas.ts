/**
 * The JSON Schema of each audit event's `detail` (docs/events/<type>.v<version>.json), generated
 * from the catalogue (lib/audit/events.ts), the one source of the fields the forwarder copies and
 * validates. The files are committed for consumers; a test fails when one is stale or missing.
 * Regenerate with `npm run event-schemas`.
 *
 * The schemas describe the input shape (`io: 'input'`): they leave `additionalProperties` open, so
 * a consumer validating with a version's schema keeps accepting its events when a new optional
 * field is added (the versioning policy, docs/operations/audit-events.md).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { toJSONSchema } from 'zod/v4/core';
import { AUDIT_EVENT_TYPES, detailSchemaOf, type AuditEventType } from '../lib/audit/events';
import { PROJECT_ROOT } from './bundling';

export const EVENT_SCHEMA_DIR = resolve(PROJECT_ROOT, 'docs/events');

/** The file name of a type's schema. */
export const eventSchemaFileOf = (eventType: Pick<AuditEventType, 'type' | 'version'>): string =>
  `${eventType.type}.v${eventType.version}.json`;

/** Every schema file, by name, as committed (stable formatting, a final newline). */
export function eventSchemaFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const eventType of AUDIT_EVENT_TYPES as readonly AuditEventType[]) {
    const schema = toJSONSchema(detailSchemaOf(eventType), { io: 'input' });
    files[eventSchemaFileOf(eventType)] = `${JSON.stringify(
      {
        ...schema,
        title: `${eventType.type} v${eventType.version}`,
        description: eventType.description,
      },
      null,
      2,
    )}\n`;
  }
  return files;
}

if (require.main === module) {
  mkdirSync(EVENT_SCHEMA_DIR, { recursive: true });
  const files = eventSchemaFiles();
  // A type removed from the catalogue takes its file with it.
  for (const name of readdirSync(EVENT_SCHEMA_DIR)) if (name.endsWith('.json') && !(name in files)) rmSync(resolve(EVENT_SCHEMA_DIR, name));
  for (const [name, text] of Object.entries(files)) writeFileSync(resolve(EVENT_SCHEMA_DIR, name), text);
  console.log(`wrote ${Object.keys(files).length} schemas to ${EVENT_SCHEMA_DIR}`);
}
