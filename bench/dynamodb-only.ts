/**
 * The reference bundle of the module-load budget (docs/performance.md): the DynamoDB client and
 * one command, nothing of ours, built with the functions' own esbuild options. A function's load
 * time is compared with this one's: what our code and its other dependencies add.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

let client: DynamoDBClient | undefined;

export const handler = async () => {
  client ??= new DynamoDBClient({});
  await client.send(new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: 'reference' } } }));
  return { statusCode: 200, body: '{}' };
};
