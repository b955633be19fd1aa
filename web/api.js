// The console's API calls. The browser sends the console's cookie (the access token) with each
// one, and an Origin header with each POST, which the server checks.

async function answerOf(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    throw new Error(body?.error ?? `${response.status} ${response.statusText}`);
  }
  return body;
}

/** GETs a JSON answer; rejects with the server's error message. */
export async function getJson(path) {
  return answerOf(await fetch(path, { headers: { Accept: 'application/json' } }));
}

/** POSTs (no body); rejects with the server's error message. */
export async function post(path) {
  return answerOf(await fetch(path, { method: 'POST', headers: { Accept: 'application/json' } }));
}

/** The API path of a job, its id encoded. */
export function jobPath(id, rest = '') {
  return `/api/jobs/${encodeURIComponent(id)}${rest}`;
}

/** The address of a job's page. */
export function jobPageHref(id) {
  return `/job?${new URLSearchParams({ id })}`;
}

/** POSTs a JSON body; rejects with the server's error message. */
export async function postJson(path, body) {
  return answerOf(
    await fetch(path, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}
