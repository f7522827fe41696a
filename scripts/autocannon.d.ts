// autocannon ships no types; scripts/load.ts states the part of its API it uses.
declare module "autocannon";
