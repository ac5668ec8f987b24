/**
 * The local runtime's view of its own log lines, as CloudWatch Logs has of a function's: every
 * line the logger writes is handed to the listeners (the dev outbox of audit events, local/events.ts).
 *
 * Powertools Logger writes to the global console when POWERTOOLS_DEV is set (the tests, whose
 * console test/support/log-capture.ts captures), and otherwise to a console of its own on
 * process.stdout and process.stderr (`npm start`). Both are tapped, once per process: what a
 * global console method writes reaches the streams within the same call, and is handed over once,
 * by the console's tap. Nothing is changed in what is written.
 */
type Listener = (text: string) => void;

const listeners = new Set<Listener>();
let installed = false;
/** Inside a tapped console call: its writes to the streams are that call's, already handed over. */
let inConsole = false;

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/** Hands every line written from now on to `listener`, until the returned function is called. */
export function onLogLine(listener: Listener): () => void {
  install();
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function emit(text: string): void {
  for (const listener of listeners) {
    try {
      listener(text);
    } catch {
      // A listener's failure is its own: the log line was written.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const method of CONSOLE_METHODS) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      inConsole = true;
      try {
        original(...args);
      } finally {
        inConsole = false;
      }
      if (typeof args[0] === 'string' && listeners.size > 0) emit(args.map(String).join(' '));
    };
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = (chunk: unknown, ...rest: unknown[]): boolean => {
      if (!inConsole && listeners.size > 0 && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') emit(line);
      }
      return Reflect.apply(original, undefined, [chunk, ...rest]) as boolean;
    };
  }
}
