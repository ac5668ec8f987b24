/**
 * lib/adapters/dynamodb/send-guards.ts `spendBudget`: concurrent sends of one container that meet
 * the day's last messages all end, each allowed or refused (issue 26: two sends whose leases came
 * back empty waited for each other's next empty lease for ever, in microtasks alone, and a CI run
 * hung for 90 minutes). The bursts run in a child process (test/support/budget-burst.ts), which
 * this test kills if it does not end: a livelock of microtasks would starve this process's timers.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

it('300 runs of four bursts over a budget that runs out mid-burst all end: each send allowed or refused, never more than the 24 left', async () => {
  const { stdout, killed } = await new Promise<{ stdout: string; killed: boolean }>((done) => {
    const child = execFile(
      process.execPath,
      [require.resolve('tsx/cli'), 'test/support/budget-burst.ts', '300'],
      { cwd: ROOT, timeout: 30_000 },
      (_error, out) => done({ stdout: out, killed: child.killed }),
    );
  });
  expect(killed).toBe(false);
  const runs = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as number[]);
  expect(runs).toHaveLength(300);
  // 24 messages for 35 sends: the first three bursts (23 sends) all go, the fourth gets the last one.
  expect(new Set(runs.map((run) => JSON.stringify(run)))).toEqual(new Set(['[5,11,7,1]']));
}, 45_000);
