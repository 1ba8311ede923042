/** The plans a key can be on. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests allowed in each window. */
export interface Limits {
  perMinute: number;
  perDay: number;
}

/** Limits of each plan but Enterprise, whose limits are agreed per key. */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, Limits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** Whether a string names a plan. */
export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
