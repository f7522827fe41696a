// The few autocannon types scripts/bench-bridge.ts uses (the package ships none).
declare module "autocannon" {
  type Options = { url: string; connections?: number; duration?: number; headers?: Record<string, string> };
  type Result = { requests: { average: number }; non2xx: number; errors: number };
  export default function autocannon(options: Options): Promise<Result>;
}
