/**
 * The credentials every bundle's SDK clients use (lib/adapters/lambda-credentials.ts): the
 * execution role's, from the environment, as Lambda provides them; none is an error, not a
 * search through files and metadata endpoints.
 */
import { defaultProvider } from '../../../lib/adapters/lambda-credentials';

const VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION', 'AWS_PROFILE'];
let saved: Record<string, string | undefined>;
beforeEach(() => {
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

it('reads the execution role’s credentials from the environment, as Lambda sets them', async () => {
  // Arrange
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'session' });

  // Act
  const credentials = await defaultProvider()();

  // Assert
  expect(credentials).toEqual(expect.objectContaining({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' }));
});

it('fails with the SDK’s credentials error when the environment has none (a broken deployment, never a fallback)', async () => {
  await expect(defaultProvider()()).rejects.toMatchObject({ name: 'CredentialsProviderError' });
});
