/**
 * zod/mini for every schema in the service: the same validation as zod at a fraction of the
 * bundle (docs/decisions/002-bundling.md). zod/mini installs no messages, so without the English
 * locale a problem reads "Invalid input"; importing zod from here guarantees it is installed in
 * every bundle, whichever module loads first.
 */
import * as z from 'zod/mini';

z.config(z.locales.en());

export { z };
