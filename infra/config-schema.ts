/**
 * The JSON Schema of stage files, generated from the stack's zod schema (infra/stage-config.ts),
 * so editors complete and check `config/<stage>.json` (each names it as `$schema`). The file is
 * committed; a test fails when it is stale. Regenerate with `npm run config-schema`.
 *
 * What JSON Schema cannot say (references between environments and clients, a sender covered by
 * an SES identity) is still checked by `cdk synth` and by the functions at start.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { toJSONSchema } from 'zod/v4/core';
import { PROJECT_ROOT } from './bundling';
import { deployableStageSchema } from './stage-config';

export const CONFIG_SCHEMA_FILE = resolve(PROJECT_ROOT, 'config/stage.schema.json');

/** The schema as committed: input shapes (fields with defaults are optional), stable formatting. */
export function stageJsonSchema(): string {
  const schema = toJSONSchema(deployableStageSchema, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify({ ...schema, title: 'Identity service stage configuration' }, null, 2)}\n`;
}

if (require.main === module) {
  writeFileSync(CONFIG_SCHEMA_FILE, stageJsonSchema());
  console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
}
