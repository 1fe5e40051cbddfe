// The package version, read from package.json (the one place it is written for Node).
import { createRequire } from 'node:module';

export const VERSION = createRequire(import.meta.url)('../package.json').version;
