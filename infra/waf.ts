/**
 * The optional AWS WAF web ACL on the API stage: per-IP rate limits on chosen paths (by default
 * otp/send and the hosted login page's form posts, the two ways to have a code sent: every send
 * costs a message, and the service's own limits count per recipient and, per source, sends only),
 * and optionally AWS's IP reputation list. A blocked rate answers 429 in the service's error shape.
 */
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { DeployableStageConfig } from './stage-config';

type WafConfig = NonNullable<DeployableStageConfig['deployment']['waf']>;

export interface ServiceWafProps {
  readonly stage: string;
  readonly waf: WafConfig;
  /** The API stage to protect. */
  readonly stageArn: string;
}

/** The path pattern WAF matches: the route at the end of the URI (behind a stage prefix or not), with or without a trailing slash. */
export function pathPattern(path: string): string {
  return `${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`;
}

/** The requests a rate limit counts: those to `path`, and with `method`, only that method's. */
function scopeDown(path: string, method: string | undefined): CfnWebACL.StatementProperty {
  const onPath: CfnWebACL.StatementProperty = {
    regexMatchStatement: {
      fieldToMatch: { uriPath: {} },
      regexString: pathPattern(path),
      // Decode, then collapse `//` and `./` so spelling variants of the path are counted too.
      textTransformations: [
        { priority: 0, type: 'URL_DECODE' },
        { priority: 1, type: 'NORMALIZE_PATH' },
      ],
    },
  };
  if (method === undefined) return onPath;
  const withMethod: CfnWebACL.StatementProperty = {
    byteMatchStatement: {
      fieldToMatch: { method: {} },
      positionalConstraint: 'EXACTLY',
      searchString: method,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
  return { andStatement: { statements: [onPath, withMethod] } };
}

export class ServiceWaf extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ServiceWafProps) {
    super(scope, id);
    const metricPrefix = `identity-${props.stage}`;
    // No sampled requests: WAF keeps sampled requests' headers for three hours, and those of this
    // API carry client API keys (Authorization) and user ids in bodies it may show. Metrics only.
    const visibility = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${metricPrefix}-${name}`,
      sampledRequestsEnabled: false,
    });

    const rules: CfnWebACL.RuleProperty[] = props.waf.perIpRateLimits.map(({ path, method, limit }, index) => ({
      name: `per-ip-rate-${index}`,
      priority: index,
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: 'too_many_requests',
            responseHeaders: [{ name: 'Retry-After', value: String(props.waf.evaluationWindowSeconds) }],
          },
        },
      },
      statement: {
        rateBasedStatement: {
          limit,
          evaluationWindowSec: props.waf.evaluationWindowSeconds,
          aggregateKeyType: 'IP',
          scopeDownStatement: scopeDown(path, method),
        },
      },
      visibilityConfig: visibility(`per-ip-rate-${index}`),
    }));
    if (props.waf.ipReputationList) {
      rules.push({
        name: 'aws-ip-reputation',
        priority: rules.length,
        overrideAction: { none: {} },
        statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesAmazonIpReputationList' } },
        visibilityConfig: visibility('ip-reputation'),
      });
    }

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `identity-${props.stage}`,
      description: `Identity service ${props.stage} - per-IP rate limits`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      customResponseBodies: {
        too_many_requests: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: 'too_many_requests',
            error_description: 'Too many requests from this address; try again later.',
          }),
        },
      },
      rules,
      visibilityConfig: visibility('acl'),
    });
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stageArn, webAclArn: this.webAcl.attrArn });
  }
}
