#!/usr/bin/env node
// Operator CLI launcher: runs the TypeScript sources through tsx so the installed package needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
