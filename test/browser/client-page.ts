/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The page of the browser test (test/browser/client.system.test.ts), bundled with esbuild from the
 * published client package: what a frontend team's code does, from another origin than the API.
 * It reads the API's address and a Free key from its own query string, writes what it saw into
 * #result (JSON) and a table the screenshot shows; with `follow=N`, it follows the animals added
 * (GET /pets/feed) until N have come.
 */
import { createAnimalStoreClient, type Pet } from '@animal-store/client';

interface PageResult {
  firstPage: { status: number; names: string[]; remaining: string | null; link: string | null };
  allPets: number;
  pagesFollowed: number;
  created: {
    status: number;
    id: number | undefined;
    replayedStatus: number;
    replayedId: number | undefined;
    replayedHeader: string | null;
  };
  limit: { refusedWith: number[]; retryAfter: string | null; waitedMs: number; finalStatus: number; remainingAfter: string | null };
  error?: string;
}

const params = new URLSearchParams(location.search);
const baseUrl = params.get('api') ?? '';
const apiKey = params.get('key') ?? '';
const rows: [string, string][] = [];
const show = (label: string, value: string) => {
  rows.push([label, value]);
  const table = document.querySelector('#log')!;
  const row = table.appendChild(document.createElement('tr'));
  row.appendChild(document.createElement('th')).textContent = label;
  row.appendChild(document.createElement('td')).textContent = value;
};

// Every answer the client gets, retries included, seen through the fetch it is given.
const statuses: { status: number; retryAfter: string | null; at: number }[] = [];
let pagesFollowed = 0;
const client = createAnimalStoreClient({
  baseUrl,
  apiKey,
  retry: { maxRetries: 3, deadlineMs: 90_000 },
  fetch: async (request) => {
    if (request.method === 'GET' && new URL(request.url).searchParams.has('cursor')) pagesFollowed++;
    const response = await fetch(request);
    statuses.push({ status: response.status, retryAfter: response.headers.get('Retry-After'), at: performance.now() });
    return response;
  },
});

async function run(): Promise<PageResult> {
  const first = await client.GET('/pets', { params: { query: { limit: 2 } } });
  const firstPage = {
    status: first.response.status,
    names: (first.data ?? []).map((pet) => pet.name),
    remaining: first.response.headers.get('X-RateLimit-Remaining'),
    link: first.response.headers.get('Link'),
  };
  show('first page', `${firstPage.status}: ${firstPage.names.join(', ')}`);
  show('X-RateLimit-Remaining', String(firstPage.remaining));
  show('Link', String(firstPage.link));

  const all: Pet[] = [];
  for await (const pet of client.listAllPets({ pageSize: 2 })) all.push(pet);
  show('all animals, 2 per page', `${all.length} in ${pagesFollowed + 1} pages`);

  const idempotencyKey = crypto.randomUUID();
  const body = { name: 'Browser Rex', categoryId: 2 };
  const created = await client.POST('/pets', { body, headers: { 'Idempotency-Key': idempotencyKey } });
  const replayed = await client.POST('/pets', { body, headers: { 'Idempotency-Key': idempotencyKey } });
  show(
    'created',
    `${created.response.status} #${created.data?.id}; again with the same Idempotency-Key: ${replayed.response.status} #${replayed.data?.id}`,
  );

  // Past the Free key's limit: the client waits out Retry-After by itself and succeeds.
  let last = first.response;
  while (Number(client.rateLimit?.remaining ?? 1) > 0) last = (await client.GET('/pets', { params: { query: { limit: 1 } } })).response;
  show('allowance used up', `X-RateLimit-Remaining: ${last.headers.get('X-RateLimit-Remaining')}`);
  const before = statuses.length;
  const started = performance.now();
  const beyond = await client.GET('/pets', { params: { query: { limit: 1 } } });
  const waitedMs = Math.round(performance.now() - started);
  const refused = statuses.slice(before).filter((s) => s.status === 429);
  show(
    'one more request',
    `${refused.map((s) => `429 (Retry-After: ${s.retryAfter})`).join(', ')} → waited ${(waitedMs / 1000).toFixed(1)} s → ${beyond.response.status}`,
  );

  return {
    firstPage,
    allPets: all.length,
    pagesFollowed,
    created: {
      status: created.response.status,
      id: created.data?.id,
      replayedStatus: replayed.response.status,
      replayedId: replayed.data?.id,
      replayedHeader: replayed.response.headers.get('Idempotent-Replayed'),
    },
    limit: {
      refusedWith: refused.map((s) => s.status),
      retryAfter: refused[0]?.retryAfter ?? null,
      waitedMs,
      finalStatus: beyond.response.status,
      remainingAfter: beyond.response.headers.get('X-RateLimit-Remaining'),
    },
  };
}

/** With ?follow=N: the animals added, through followPets, until N have come; what a live page does. */
async function followAdded(count: number): Promise<{ followed: string[] }> {
  const followed: string[] = [];
  const stop = new AbortController();
  document.querySelector('#result')!.setAttribute('data-following', '');
  for await (const pet of client.followPets({ signal: stop.signal })) {
    followed.push(pet.name);
    show('added', `#${pet.id} ${pet.name}`);
    if (followed.length === count) stop.abort();
  }
  return { followed };
}

const output = document.querySelector('#result')!;
const following = params.get('follow');
(following === null ? run() : followAdded(Number(following))).then(
  (result) => {
    output.textContent = JSON.stringify(result);
    output.setAttribute('data-done', 'ok');
  },
  (error: unknown) => {
    show('error', String(error));
    output.textContent = JSON.stringify({ error: String(error) });
    output.setAttribute('data-done', 'error');
  },
);
