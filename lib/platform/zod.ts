/**
 * zod/mini installs no messages, so without a locale every problem reads "Invalid input". Every
 * module that declares a schema imports this file for its side effect (before `zod/mini`), so the
 * English messages are installed in every bundle whichever module loads first.
 *
 * Only the English locale, by name (zod's locale modules are side-effect free, so esbuild drops
 * the others): `z.locales.en()` or re-exporting the `z` namespace would bundle every export and
 * every locale of zod (about 390 KiB per function, measured in docs/decisions/002-bundling.md).
 */
import { config } from 'zod/mini';
import { en } from 'zod/v4/locales';

config(en());
