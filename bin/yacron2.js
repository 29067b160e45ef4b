#!/usr/bin/env node
// Entry point of the `yacron2` command: everything lives in the compiled cli/main.js.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
