/**
 * RenewableClient (lib/platform/aws.ts): which failures retire a client, and when the retired one
 * is destroyed. Plain objects stand in for SDK clients here, because the rule is about the holder;
 * test/integration/delivery/poisoned-client.test.ts drives real SDK clients into the bad state.
 */
import { RenewableClient } from '../../../lib/adapters/aws-failures';

class FakeClient {
  destroyed = false;
  constructor(readonly id: number) {}
  destroy(): void {
    this.destroyed = true;
  }
}

function holder() {
  const created: FakeClient[] = [];
  const renewable = new RenewableClient(() => {
    const client = new FakeClient(created.length + 1);
    created.push(client);
    return client;
  });
  const idOfNextCall = () => renewable.use((client) => Promise.resolve(client.id));
  return { renewable, created, idOfNextCall };
}

/** What the SDK throws when its serializer fails: no `$metadata` at all. */
const serializerFailure = () => new URIError('URI malformed');
/** What the SDK throws on a timeout: `$metadata` without a status. */
const timeout = () => Object.assign(new Error('timed out'), { name: 'TimeoutError', $metadata: { attempts: 1 } });
/** What the SDK throws when the service refused: the answer's status. */
const refusal = () => Object.assign(new Error('refused'), { name: 'InvalidParameter', $metadata: { httpStatusCode: 400 } });

describe('RenewableClient', () => {
  it.each([
    ['a serializer failure (URIError, no $metadata)', serializerFailure],
    ['a timeout (TimeoutError, $metadata without a status)', timeout],
  ])('after %s, the next call gets a fresh client and the old one is destroyed', async (_, failure) => {
    const { renewable, created, idOfNextCall } = holder();

    await expect(renewable.use(() => Promise.reject(failure()))).rejects.toThrow();

    expect(await idOfNextCall()).toBe(2);
    expect(created.map((client) => client.destroyed)).toEqual([true, false]);
  });

  it('keeps the client after a failure the service answered', async () => {
    const { renewable, created, idOfNextCall } = holder();

    await expect(renewable.use(() => Promise.reject(refusal()))).rejects.toThrow('refused');

    expect(await idOfNextCall()).toBe(1);
    expect(created).toHaveLength(1);
  });

  it('passes results and errors through unchanged', async () => {
    const { renewable } = holder();
    const error = serializerFailure();
    expect(await renewable.use(() => Promise.resolve('sent'))).toBe('sent');
    await expect(renewable.use(() => Promise.reject(error))).rejects.toBe(error);
  });

  it('destroys a replaced client only after the calls still running on it have finished', async () => {
    const { renewable, created, idOfNextCall } = holder();
    let finishRunning: (value: string) => void = () => undefined;
    const running = renewable.use(() => new Promise<string>((resolve) => (finishRunning = resolve)));

    await expect(renewable.use(() => Promise.reject(serializerFailure()))).rejects.toThrow();
    expect(created[0]?.destroyed).toBe(false);
    expect(await idOfNextCall()).toBe(2);

    finishRunning('done');
    expect(await running).toBe('done');
    expect(created[0]?.destroyed).toBe(true);
  });

  it('replaces a client once when several calls on it fail together', async () => {
    const { renewable, created, idOfNextCall } = holder();
    const failures = [1, 2, 3].map(() => renewable.use(() => Promise.reject(timeout())));

    await Promise.allSettled(failures);

    expect(await idOfNextCall()).toBe(2);
    expect(created).toHaveLength(2);
    expect(created.map((client) => client.destroyed)).toEqual([true, false]);
  });
});
