#!/usr/bin/env node
// Operator CLI: the TypeScript sources through tsx in a checkout, the compiled dist/ in the image (bin/launch.js).
import { launch } from './launch.js';

await launch('cli/main');
