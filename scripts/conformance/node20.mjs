// `node --import ./node20.mjs conformance/dist/index.js`: lets the conformance CLI run on Node 20.
import { register } from "node:module";

if (Number(process.versions.node.split(".")[0]) < 22) register("./node20-hooks.mjs", import.meta.url);
