/**
 * DynamoDB Local is a Java program: check for Java 17+ up front, so a newcomer gets one line that
 * says what to install instead of a stack trace.
 */
import { spawnSync } from 'node:child_process';

export const JAVA_HINT =
  'DynamoDB Local needs Java 17 or newer: install it with `sudo apt-get install -y default-jre-headless` (Debian/Ubuntu) or `brew install openjdk@17` (macOS), then run again.';

/** The major version of `java` on the PATH, or undefined when there is none. */
export function javaMajorVersion(): number | undefined {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${result.stderr}${result.stdout}`);
  if (match === null) return undefined;
  // Java 8 and older report "1.8.0_…".
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

/** Throws an error whose message is the one-line hint when Java 17+ is missing. */
export function requireJava(): void {
  const major = javaMajorVersion();
  if (major === undefined || major < 17) throw new Error(JAVA_HINT);
}
