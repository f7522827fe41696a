import fc from "fast-check";

const seed = process.env.FC_SEED === undefined ? 424242 : Number(process.env.FC_SEED);
const numRuns = process.env.FC_RUNS === undefined ? 100 : Number(process.env.FC_RUNS);

// A fixed seed keeps CI repeatable; fast-check prints it (and the path) with every counterexample.
fc.configureGlobal({ seed, numRuns });
