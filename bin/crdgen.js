#!/usr/bin/env node
// The crdgen command: runs the compiled CLI (npm run build produces dist/).
import "../dist/generator/cli.js";
