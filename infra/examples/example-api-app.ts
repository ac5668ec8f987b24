/**
 * A consuming team's app: one stack with a ProtectedHttpApi, deployed apart from the identity
 * service (its own `cdk deploy`, possibly its own account), told the issuer and the audience on
 * the command line.
 *
 *   # the issuer as a literal (a custom domain, or the Issuer output copied from the identity stack)
 *   npx cdk deploy --app 'npx tsx infra/examples/example-api-app.ts' \
 *     -c issuer=https://id.example.com -c audience=https://api.example.com -c scope=orders:read
 *
 *   # the issuer read from the identity stack's Issuer output at deployment (same account)
 *   npx cdk deploy --app 'npx tsx infra/examples/example-api-app.ts' \
 *     -c identityStack=Identity-dev -c audience=https://api.dev.example.com
 *
 * `audience` and `scope` take several values separated by spaces or commas. cdk-nag checks the
 * stack as it checks the identity service's.
 */
import { App, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { addNagChecks } from '../app';
import { issuerFromStackOutput } from './identity-issuer';
import { ProtectedHttpApi, SAMPLE_ROUTE, type ProtectedHttpApiProps } from './protected-http-api';

export type ExampleApiStackProps = StackProps & Pick<ProtectedHttpApiProps, 'issuer' | 'audiences' | 'sampleRouteScopes'>;

export class ExampleApiStack extends Stack {
  readonly protectedApi: ProtectedHttpApi;

  constructor(scope: Construct, id: string, props: ExampleApiStackProps) {
    super(scope, id, props);
    this.protectedApi = new ProtectedHttpApi(this, 'ProtectedApi', {
      issuer: props.issuer,
      audiences: props.audiences,
      ...(props.sampleRouteScopes === undefined ? {} : { sampleRouteScopes: props.sampleRouteScopes }),
    });
    new CfnOutput(this, 'HelloUrl', {
      description: 'Call it with Authorization: Bearer <access token of an RS256 client>',
      value: `${this.protectedApi.url}${SAMPLE_ROUTE.path.slice(1)}`,
    });
  }
}

/** The stack's props from the app's context (`-c key=value`), with a message naming what is missing. */
export function examplePropsFromContext(app: App): ExampleApiStackProps {
  const read = (key: string): string | undefined => {
    const value = app.node.tryGetContext(key) as unknown;
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const list = (value: string | undefined): string[] => (value === undefined ? [] : value.split(/[\s,]+/).filter((item) => item !== ''));
  const literal = read('issuer');
  const identityStack = read('identityStack');
  const audiences = list(read('audience'));
  if ((literal === undefined) === (identityStack === undefined) || audiences.length === 0) {
    throw new Error(
      'Give the audience, and the issuer either as -c issuer=<Issuer output> or as -c identityStack=<Identity-stage> [-c identityRegion=<region>]: ' +
        "npx cdk synth --app 'npx tsx infra/examples/example-api-app.ts' -c issuer=https://id.example.com -c audience=https://api.example.com",
    );
  }
  const region = read('identityRegion');
  const scopes = list(read('scope'));
  return {
    issuer: literal ?? issuerFromStackOutput(identityStack!, region === undefined ? {} : { region }),
    audiences,
    ...(scopes.length === 0 ? {} : { sampleRouteScopes: scopes }),
    description: "Example: an HTTP API protected by the identity service's RS256 access tokens",
  };
}

function main(): void {
  const app = new App();
  addNagChecks(app);
  new ExampleApiStack(app, 'ExampleProtectedApi', examplePropsFromContext(app));
  app.synth();
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
