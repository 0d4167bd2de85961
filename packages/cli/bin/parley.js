#!/usr/bin/env node
// The `parley` command: runs the compiled CLI with plain node. In this
// repository `npm ci` builds dist/ (the root `prepare` script); after a
// source change, `npm run build` brings it up to date.
import '../dist/main.js';
