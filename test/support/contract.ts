/**
 * The response checker: does an HTTP response the service gave match docs/openapi.json? An
 * independent reading of the document (it never runs the generator): the path, then the method
 * (or the document's `x-unlisted-methods`, or `x-unknown-path`), then the status, then each
 * required header and the value of every described one, the media type, and the body against
 * the schema, compiled by Ajv for JSON Schema 2020-12 (the dialect of OpenAPI 3.1) in strict mode.
 *
 * The HTTP suites run every response they receive through it (test/support/contract-recorder.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** A response as the client received it. */
export interface ObservedResponse {
  readonly method: string;
  /** The path, without query. */
  readonly path: string;
  readonly status: number;
  /** Header names in any case; a repeated header as an array. */
  readonly headers: Readonly<Record<string, string | number | readonly string[] | undefined>>;
  readonly body: string;
}

type Json = Record<string, unknown>;
interface HeaderObject {
  readonly required?: boolean;
  readonly schema?: Json;
  readonly $ref?: string;
}
interface ResponseObject {
  readonly $ref?: string;
  readonly headers?: Record<string, HeaderObject>;
  readonly content?: Record<string, { readonly schema?: Json }>;
}
type Responses = Record<string, ResponseObject>;
interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { responses: Responses }>>;
  readonly components: { schemas: Record<string, Json>; responses?: Responses; headers?: Record<string, HeaderObject> };
  readonly 'x-unlisted-methods': { responses: Responses };
  readonly 'x-unknown-path': { responses: Responses };
}

export const OPENAPI_DOCUMENT_FILE = resolve(__dirname, '../../docs/openapi.json');

const SCHEMA_REF = '#/components/schemas/';
const COMPONENTS_ID = 'https://identity.invalid/openapi/components';

/** The document's schema references, pointed at the components registered with Ajv under their own id. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith(SCHEMA_REF)
        ? `${COMPONENTS_ID}#/$defs/${item.slice(SCHEMA_REF.length)}`
        : rewriteRefs(item),
    ]),
  );
}

export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<Json, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(this.ajv);
    // OpenAPI's annotation keywords are not JSON Schema's; none is used in a way that validates.
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components.schemas) as Json });
  }

  /** Every way `observed` departs from the document; empty when it conforms. */
  check(observed: ObservedResponse): string[] {
    const method = observed.method.toLowerCase();
    const label = `${observed.method.toUpperCase()} ${observed.path} → ${observed.status}`;
    const item = this.document.paths[observed.path];
    const responses: Responses =
      item === undefined
        ? this.document['x-unknown-path'].responses
        : (item[method]?.responses ?? this.document['x-unlisted-methods'].responses);
    const described = responses[String(observed.status)];
    if (described === undefined)
      return [`${label}: status ${observed.status} is not described (described: ${Object.keys(responses).join(', ')})`];
    const response = this.resolveResponse(described);
    return [...this.checkHeaders(label, response, observed), ...this.checkBody(label, response, observed)];
  }

  private resolveResponse(response: ResponseObject): ResponseObject {
    if (response.$ref === undefined) return response;
    const found = this.document.components.responses?.[response.$ref.split('/').pop() as string];
    if (found === undefined) throw new Error(`unresolved ${response.$ref}`);
    return found;
  }

  private resolveHeader(header: HeaderObject): HeaderObject {
    if (header.$ref === undefined) return header;
    const found = this.document.components.headers?.[header.$ref.split('/').pop() as string];
    if (found === undefined) throw new Error(`unresolved ${header.$ref}`);
    return found;
  }

  private checkHeaders(label: string, response: ResponseObject, observed: ObservedResponse): string[] {
    const problems: string[] = [];
    const received = new Map(Object.entries(observed.headers).map(([name, value]) => [name.toLowerCase(), value]));
    for (const [name, described] of Object.entries(response.headers ?? {})) {
      const header = this.resolveHeader(described);
      const raw = received.get(name.toLowerCase());
      if (raw === undefined) {
        if (header.required === true) problems.push(`${label}: the required header ${name} is missing`);
        continue;
      }
      if (header.schema === undefined) continue;
      for (const value of Array.isArray(raw) ? raw : [String(raw)]) {
        const numeric = header.schema.type === 'integer' || header.schema.type === 'number';
        const instance = numeric ? (/^-?\d+(\.\d+)?$/.test(String(value)) ? Number(value) : String(value)) : String(value);
        const errors = this.errorsOf(header.schema, instance);
        if (errors.length > 0) problems.push(`${label}: header ${name}: ${JSON.stringify(value)} ${errors.join('; ')}`);
      }
    }
    return problems;
  }

  private checkBody(label: string, response: ResponseObject, observed: ObservedResponse): string[] {
    const content = response.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      return observed.body === '' ? [] : [`${label}: a body where none is described (${observed.body.slice(0, 80)})`];
    }
    const header = Object.entries(observed.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    const mediaType = String(header ?? '')
      .split(';', 1)[0]
      ?.trim()
      .toLowerCase();
    const media = mediaType === undefined ? undefined : content[mediaType];
    if (media === undefined)
      return [`${label}: Content-Type ${JSON.stringify(header ?? null)} is not described (${mediaTypes.join(', ')})`];
    if (media.schema === undefined) return [];
    let instance: unknown = observed.body;
    if (mediaType === 'application/json' || mediaType?.endsWith('+json') === true) {
      try {
        instance = JSON.parse(observed.body);
      } catch {
        return [`${label}: the body is not JSON (${observed.body.slice(0, 80)})`];
      }
    }
    return this.errorsOf(media.schema, instance).map((error) => `${label}: body ${error}`);
  }

  private errorsOf(schema: Json, instance: unknown): string[] {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(rewriteRefs(schema) as Json);
      this.compiled.set(schema, validate);
    }
    if (validate(instance)) return [];
    return (validate.errors ?? []).map(
      (error: ErrorObject) => `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`,
    );
  }
}

let shared: ContractChecker | undefined;

/** The checker of the committed document (docs/openapi.json), built once per test file. */
export function responseContract(): ContractChecker {
  shared ??= new ContractChecker(JSON.parse(readFileSync(OPENAPI_DOCUMENT_FILE, 'utf8')) as OpenApiDocument);
  return shared;
}
