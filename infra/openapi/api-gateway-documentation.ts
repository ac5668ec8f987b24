/**
 * The API description (docs/openapi.json) as API Gateway documentation parts, for
 * `aws apigateway import-documentation-parts` (docs/deploy.md, "API documentation").
 *
 * API Gateway imports OpenAPI 2.0 and 3.0 only, and takes documentation from the
 * `x-amazon-apigateway-documentation` extension alone, so the same document is carried over part by
 * part: the API, each method, its query parameters, each response and its headers. Every route is
 * one `ANY` method in the stack (infra/api.ts), so the parts are placed on `ANY`, and a path with
 * two documented methods (authorize, UserInfo) says what each does.
 */
type Json = Record<string, unknown>;

interface Operation {
  readonly summary?: string;
  readonly description?: string;
  readonly parameters?: ReadonlyArray<{ name: string; in: string; description?: string }>;
  readonly responses: Record<
    string,
    { $ref?: string; description?: string; headers?: Record<string, { $ref?: string; description?: string }> }
  >;
}

interface Part {
  readonly location: Record<string, string>;
  readonly properties: Record<string, string>;
}

/** The documentation parts of `document`, in an OpenAPI 3.0 wrapper API Gateway accepts. */
export function apiGatewayDocumentation(document: Json): Json {
  const info = document.info as { title: string; version: string; description: string };
  const components = document.components as { responses: Record<string, Json>; headers: Record<string, Json> };
  const resolve = <T extends { $ref?: string }>(value: T, from: Record<string, Json>): T =>
    value.$ref === undefined ? value : (from[value.$ref.split('/').pop() as string] as unknown as T);

  const parts: Part[] = [{ location: { type: 'API' }, properties: { description: info.description } }];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    const operations = Object.entries(item).filter(([method]) => method !== 'options');
    const label = (method: string, text: string) => (operations.length > 1 ? `${method.toUpperCase()}: ${text}` : text);
    const joined = (texts: Array<[string, string | undefined]>) =>
      [...new Set(texts.filter(([, text]) => text !== undefined).map(([method, text]) => label(method, text as string)))].join('\n\n');
    const at = { path, method: 'ANY' };

    parts.push({
      location: { type: 'METHOD', ...at },
      properties: {
        summary: joined(operations.map(([method, operation]) => [method, operation.summary])),
        description: joined(operations.map(([method, operation]) => [method, operation.description])),
      },
    });
    const parameters = new Map<string, Array<[string, string | undefined]>>();
    for (const [method, operation] of operations) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query')
          parameters.set(parameter.name, [...(parameters.get(parameter.name) ?? []), [method, parameter.description]]);
      }
    }
    for (const [name, texts] of parameters)
      parts.push({ location: { type: 'QUERY_PARAMETER', ...at, name }, properties: { description: joined(texts) } });

    const statuses = [...new Set(operations.flatMap(([, operation]) => Object.keys(operation.responses)))].sort();
    for (const statusCode of statuses) {
      const responses = operations.flatMap(([method, operation]) =>
        operation.responses[statusCode] === undefined
          ? []
          : [[method, resolve(operation.responses[statusCode], components.responses)] as const],
      );
      parts.push({
        location: { type: 'RESPONSE', ...at, statusCode },
        properties: { description: joined(responses.map(([method, response]) => [method, response.description])) },
      });
      const headers = new Map<string, Array<[string, string | undefined]>>();
      for (const [method, response] of responses) {
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          headers.set(name, [...(headers.get(name) ?? []), [method, resolve(header, components.headers).description]]);
        }
      }
      for (const [name, texts] of headers) {
        parts.push({ location: { type: 'RESPONSE_HEADER', ...at, statusCode, name }, properties: { description: joined(texts) } });
      }
    }
  }
  return {
    openapi: '3.0.1',
    info: { title: info.title, version: info.version },
    paths: {},
    'x-amazon-apigateway-documentation': { version: info.version, documentationParts: parts },
  };
}
