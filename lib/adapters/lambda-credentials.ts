/**
 * The AWS SDK's credentials inside a Lambda bundle: the execution role's, from the environment.
 *
 * Lambda puts the role's temporary credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`
 * and `AWS_SESSION_TOKEN` of every execution environment, valid for its whole life, and the SDK's
 * default chain (`@aws-sdk/credential-provider-node`) finds them first. The rest of that chain
 * (SSO, shared INI files, credential processes, web identity, the container and instance metadata
 * endpoints, and the STS, SSO, SSO-OIDC and sign-in clients they call) never runs on Lambda, yet
 * is 120–135 KB of every bundle. The bundles therefore resolve the chain's module to this one
 * (esbuild `alias`, infra/bundling.ts; docs/decisions/002-bundling.md). The sources run by
 * `npm start` and the tests keep the whole chain.
 *
 * With no credentials in the environment every AWS call fails with the SDK's own
 * `CredentialsProviderError` ("Unable to find environment variable credentials"): a broken
 * deployment, answered 500 by the adapters, never a silent fallback.
 */
import { fromEnv, type FromEnvInit } from '@aws-sdk/credential-provider-env';

/**
 * What the SDK clients call as `credentialDefaultProvider`: the environment's credentials.
 * @example new DynamoDBClient({ credentialDefaultProvider: defaultProvider })
 */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
