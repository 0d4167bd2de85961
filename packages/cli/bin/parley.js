#!/usr/bin/env node
// The `parley` command. Parley's packages ship TypeScript source, so the
// command registers tsx's loader first and then runs the CLI's entry point.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
