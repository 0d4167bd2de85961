// The entry point of the `parley` bin (bin/parley.js loads the compiled file).
import { runCli } from './cli.js';

process.exit(await runCli(process.argv.slice(2)));
