/** A fetch that counts the statuses it saw. */
export function countingFetch() {
  const statuses: number[] = [];
  const requests: Request[] = [];
  const fetchFn = async (request: Request) => {
    requests.push(request.clone());
    const response = await fetch(request);
    statuses.push(response.status);
    return response;
  };
  return { fetchFn, statuses, requests };
}
