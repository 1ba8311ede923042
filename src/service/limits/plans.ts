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

/**
 * The limits of a key: its plan's, or those agreed for an Enterprise key. Takes the fields of
 * the store's key record it reads, so the plans need not know the store.
 */
export function limitsOf(key: { id: string; plan: Plan; perMinute: number | null; perDay: number | null }): Limits {
  if (key.plan === 'enterprise') {
    if (key.perMinute === null || key.perDay === null) throw new Error(`Enterprise key ${key.id} has no limits`);
    return { perMinute: key.perMinute, perDay: key.perDay };
  }
  return PLAN_LIMITS[key.plan];
}

/** Limits per client address of what is served without a key (see limitPublic in src/service/http/middleware/rate-limit.ts). */
export interface PublicLimits {
  /** `/docs`, `/openapi.yaml`, `/openapi.json`. */
  documents: Limits;
  /** `/healthz`, `/readyz`: enough for a load balancer's checks. */
  health: Limits;
}

/** The public limits of a service given none: 120 documents and 600 health checks a minute. */
export const PUBLIC_LIMITS: PublicLimits = {
  documents: { perMinute: 120, perDay: 10_000 },
  health: { perMinute: 600, perDay: 1_000_000 },
};
