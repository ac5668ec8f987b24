/**
 * Once per `npm test`: DynamoDB Local and SES local on free ports, shared by every test file (each
 * file makes its own table and uses its own recipients, so files never see each other's data).
 */
import { startDynamoDbLocal } from '../../local/dynamodb';
import { startSesLocal } from '../../local/ses';

export default async function globalSetup(): Promise<void> {
  const [dynamodb, ses] = await Promise.all([startDynamoDbLocal(), startSesLocal()]);
  process.env.TEST_DYNAMODB_ENDPOINT = dynamodb.endpoint;
  process.env.TEST_SES_URL = ses.url;
  (globalThis as Record<string, unknown>).__localServices = [dynamodb, ses];
}
