/**
 * The JSON Schema editors use for config/<stage>.json: generated from the stack's zod schema,
 * committed, and current.
 */
import { readFileSync } from 'node:fs';
import { CONFIG_SCHEMA_FILE, stageJsonSchema } from '../../infra/config-schema';
import { availableStages, CONFIG_DIR } from '../../infra/stage';

it('is current: regenerate with npm run config-schema when the schema changes', () => {
  expect(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')).toBe(stageJsonSchema());
});

it.each(availableStages())('is named by config/%s.json as its $schema', (stage) => {
  const file = JSON.parse(readFileSync(`${CONFIG_DIR}/${stage}.json`, 'utf8')) as { $schema?: string };
  expect(file.$schema).toBe('./stage.schema.json');
});

it('describes what the stack checks field by field: an unknown field and a wrong type are refused', () => {
  const schema = JSON.parse(stageJsonSchema()) as {
    additionalProperties: boolean;
    properties: Record<string, { type?: string }>;
    required: string[];
  };
  expect(schema.additionalProperties).toBe(false);
  expect(schema.required).toEqual(expect.arrayContaining(['defaultEnvironment', 'environments', 'clients']));
  expect(schema.properties.deployment?.type).toBe('object');
});
