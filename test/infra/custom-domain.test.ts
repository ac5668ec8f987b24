/**
 * A custom domain turned on for a stage that has none (dev), as docs/deploy.md describes it: the
 * issuer becomes the bare host, so every discovery location is served; and the check that keeps a
 * certificate of the wrong region from failing a deployment minutes in.
 */
import { readFileSync } from 'node:fs';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { issuerOf } from '../../infra/examples/identity-issuer';
import { IdentityStack, ISSUER_OUTPUT, stackNameOf } from '../../infra/identity-stack';
import { deploymentProblems, loadStageFile, type Stage } from '../../infra/stage';
import { parseDeployableStage } from '../../infra/stage-config';
import { logicalId, newApp, ofType, only, type Json, type TemplateJson } from './offline-synthesis';
import { productionConfigDir } from './production-stage';

describe('a stage with a custom domain', () => {
  const DOMAIN = 'id.dev.example.com';
  let stage: Stage;
  let identity: IdentityStack;
  let json: TemplateJson;

  beforeAll(() => {
    // The two lines docs/deploy.md tells a team to add to config/dev.json.
    const file = loadStageFile('dev').file;
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { deployment: Json };
    raw.deployment.customDomain = {
      domainName: DOMAIN,
      certificateArn: 'arn:aws:acm:eu-west-1:111122223333:certificate/00000000-0000-0000-0000-000000000000',
    };
    stage = { name: 'dev', file, config: parseDeployableStage(raw, 'config/dev.json') };
    identity = new IdentityStack(newApp(), stackNameOf('dev'), { stage });
    json = Template.fromStack(identity).toJSON() as TemplateJson;
  }, 60_000);

  it('is a valid stage file, with nothing else to change', () => {
    expect(deploymentProblems(stage.config)).toEqual([]);
  });

  it('refuses a certificate from another region than the one the stage pins', () => {
    // Arrange
    const config = structuredClone(loadStageFile('prod', productionConfigDir()).config);
    config.deployment.customDomain!.certificateArn = 'arn:aws:acm:us-east-1:111122223333:certificate/00000000-0000-0000-0000-000000000000';

    // Act
    const problems = deploymentProblems(config);

    // Assert
    expect(problems).toEqual([
      'deployment.customDomain.certificateArn: the certificate is in us-east-1 but the stage is deployed to eu-west-1; a regional custom domain needs an ACM certificate in eu-west-1',
    ]);
  });

  it('makes the issuer https://<domainName>, with no path: in the outputs and in every function that reads it', () => {
    const issuer = `https://${DOMAIN}`;
    expect(identity.issuer).toBe(issuer);
    expect({
      api: json.Outputs?.ApiUrl?.Value,
      issuer: json.Outputs?.[ISSUER_OUTPUT]?.Value,
      jwks: json.Outputs?.JwksUrl?.Value,
    }).toEqual({ api: issuer, issuer, jwks: `${issuer}/.well-known/jwks.json` });
    const readers = ofType(json, 'AWS::Lambda::Function')
      .map(([, fn]) => ((fn.Properties.Environment as { Variables?: Json } | undefined)?.Variables ?? {}).ISSUER)
      .filter((value) => value !== undefined);
    expect(readers.length).toBeGreaterThan(0);
    expect(new Set(readers)).toEqual(new Set([issuer]));
  });

  it('maps the domain’s root to the stage, so {issuer}/.well-known/… reaches the routes and RFC 8414’s inserted path is the same URL', () => {
    const [, mapping] = only(json, 'AWS::ApiGateway::BasePathMapping');
    expect(mapping.Properties.BasePath).toBeUndefined();
    expect(mapping.Properties).toMatchObject({
      DomainName: { Ref: expect.any(String) },
      RestApiId: { Ref: logicalId(identity, identity.api.api) },
    });
    const [, domain] = only(json, 'AWS::ApiGateway::DomainName');
    expect(domain.Properties).toMatchObject({
      DomainName: DOMAIN,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
  });

  it('hands the consumer the bare host as a literal issuer', () => {
    const consumer = new Stack(newApp(), 'Consumer');

    expect(issuerOf(identity, consumer)).toBe(`https://${DOMAIN}`);
    expect(consumer.dependencies).toEqual([]);
  });
});
