// A cmi5 LMS and LRS stand-in for the tests, written from the cmi5 specification (AICC/CMI-5_Spec_Current, "Quartz"):
// it reads the course structure (cmi5.xml), launches the AU with the launch parameters (§8.1), hands out one auth
// token per launch at the fetch URL (§8.2; a second POST gets error-code 1, §8.2.3), writes LMS.LaunchData (§10)
// before the launch, and serves an LRS (statements, activity state, agent profile) that checks every AU request
// against the profile's rules and records each breach in `violations` (and answers it 400 or 401):
// - requests: Basic auth with the launch's token, X-Experience-API-Version, the state API's agent = the actor;
// - statements (§9): an id that is a UUID; the launch actor; the registration; the session id extension and the
//   rest of the contextTemplate unchanged; durations ISO 8601; scores in range (§9.5.1);
// - order (§9.3): initialized first and once per session, nothing after terminated, completed and passed at most
//   once per registration, passed only with scaled ≥ masteryScore and failed only below it, the masteryScore
//   extension on both, none of completed/passed/failed outside launchMode Normal;
// - categories (§9.6.2): cmi5 defined statements (the cmi5 verbs about the AU) carry the cmi5 category, those with
//   result.success or completion the moveOn one; cmi5 allowed statements carry neither;
// - LMS.LaunchData is the LMS's: an AU that writes it is in breach (§10).
//   const lms = await startCmi5Lms(files) → { origin, launch({ registration, launchMode, masteryScore }), violations,
//   statements (per registration), holdRepliesTo(verbId), close() }
import { createServer } from 'node:http';
import { extname, normalize } from 'node:path';
import { randomUUID } from 'node:crypto';

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.json': 'application/json', '.xml': 'application/xml', '.md': 'text/markdown' };
const verbs = Object.fromEntries(['initialized', 'completed', 'passed', 'failed', 'terminated'].map((word) => [word, `http://adlnet.gov/expapi/verbs/${word}`]));
const cmi5Category = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
const moveOnCategory = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
const sessionIdExtension = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';
const masteryScoreExtension = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
// ISO 8601 durations as xAPI uses them: P[nY][nM][nD][T[nH][nM][n[.n]S]] or PnW, with at least one part.
const durationPattern = /^P(?!$)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$|^P\d+W$/;
const publisherId = 'https://lms.example.org/courses/qkv/au-publisher';

// The AU of cmi5.xml: { id, url, moveOn, masteryScore }.
export function readCourseStructure(xml) {
  const au = /<au\s([^>]*)>([^]*?)<\/au>/.exec(xml);
  if (!au) throw new Error('cmi5.xml has no <au>');
  const attribute = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(au[1])?.[1];
  const masteryScore = attribute('masteryScore');
  return { id: attribute('id'), url: /<url>([^<]*)<\/url>/.exec(au[2])?.[1].trim(), moveOn: attribute('moveOn') ?? 'NotApplicable', masteryScore: masteryScore === undefined ? undefined : Number(masteryScore) };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const categories = (statement) => (statement.context?.contextActivities?.category ?? []).map(({ id }) => id);

export async function startCmi5Lms(files) {
  const course = readCourseStructure(new TextDecoder().decode(files.get('cmi5.xml')));
  const violations = [];
  const statements = new Map(); // registration → every statement the LRS kept, in order
  const registrations = new Map(); // registration → { completed, passed }
  const sessions = new Map(); // auth token → session
  const fetches = new Map(); // fetch id → { session, used }
  const states = new Map(); // JSON [activityId, agent, registration, stateId] → document text
  const held = new Map(); // verb id → the replies to statements of that verb, kept back until released
  let origin;

  const breach = (session, rule, detail) => {
    violations.push({ session: session?.id, rule, detail });
    return rule;
  };

  function launch({ registration = randomUUID(), launchMode = 'Normal', masteryScore = course.masteryScore, actor = { objectType: 'Agent', account: { homePage: 'https://lms.example.org', name: 'learner-17' }, name: 'A learner' } } = {}) {
    const session = { id: randomUUID(), registration, actor, launchMode, masteryScore, token: Buffer.from(`${randomUUID()}:${randomUUID()}`).toString('base64'), au: [] };
    const fetchId = randomUUID();
    fetches.set(fetchId, { session, used: false });
    sessions.set(session.token, session);
    if (!registrations.has(registration)) registrations.set(registration, { completed: false, passed: false });
    const contextTemplate = { contextActivities: { grouping: [{ objectType: 'Activity', id: publisherId }] }, extensions: { [sessionIdExtension]: session.id } };
    session.contextTemplate = contextTemplate;
    const launchData = { contextTemplate, launchMode, moveOn: course.moveOn, ...(masteryScore === undefined ? {} : { masteryScore }) };
    states.set(JSON.stringify([course.id, JSON.stringify(actor), registration, 'LMS.LaunchData']), JSON.stringify(launchData));
    // The LMS's own "launched" statement (§9.3.1) precedes the AU's.
    keep(registration, { id: randomUUID(), actor, verb: { id: 'http://adlnet.gov/expapi/verbs/launched' }, object: { objectType: 'Activity', id: course.id }, context: { ...contextTemplate, registration, contextActivities: { ...contextTemplate.contextActivities, category: [{ id: cmi5Category }] } }, by: 'lms' });
    const query = new URLSearchParams({ endpoint: `${origin}/lrs/`, fetch: `${origin}/fetch/${fetchId}`, actor: JSON.stringify(actor), registration, activityId: course.id });
    return { url: `${origin}/au/${course.url}?${query}`, session, fetchUrl: `${origin}/fetch/${fetchId}` };
  }

  function keep(registration, statement) {
    if (!statements.has(registration)) statements.set(registration, []);
    statements.get(registration).push(statement);
  }

  // The profile's rules for one statement of the AU's; returns the first breach's rule, or undefined.
  function judge(session, statement) {
    const problems = [];
    const fail = (rule, detail) => problems.push(breach(session, rule, detail ?? statement.verb?.id));
    if (!uuidPattern.test(statement.id ?? '')) fail('statement id is a UUID (§9.1)', statement.id);
    if (!same(statement.actor, session.actor)) fail('actor is the launch actor (§9.2)', JSON.stringify(statement.actor));
    const context = statement.context ?? {};
    if (context.registration !== session.registration) fail('registration is the launch registration (§9.6.1)', context.registration);
    if (context.extensions?.[sessionIdExtension] !== session.id) fail('session id extension on every statement (§9.6.3.1)');
    for (const [kind, list] of Object.entries(session.contextTemplate.contextActivities)) {
      for (const activity of list) if (!(context.contextActivities?.[kind] ?? []).some((own) => own.id === activity.id)) fail('contextTemplate kept (§10.2.2)', `${kind} ${activity.id}`);
    }
    const result = statement.result ?? {};
    if (result.duration !== undefined && !durationPattern.test(result.duration)) fail('duration is ISO 8601 (§9.5.3)', result.duration);
    const score = result.score;
    if (score) {
      if (score.scaled !== undefined && !(score.scaled >= -1 && score.scaled <= 1)) fail('score.scaled in [-1, 1]', score.scaled);
      if (score.raw !== undefined && (!Number.isInteger(score.raw) || score.min === undefined || score.max === undefined || score.raw < score.min || score.raw > score.max)) fail('score.raw an integer between min and max (§9.5.1)', JSON.stringify(score));
    }
    if (session.terminated) fail('no statement after terminated (§9.3.8)');
    const word = Object.keys(verbs).find((key) => verbs[key] === statement.verb?.id);
    const aboutAu = statement.object?.id === course.id;
    const defined = categories(statement).includes(cmi5Category);
    if (!session.au.length && word !== 'initialized') fail('initialized is the first statement of a session (§9.3.2)');
    if (word && aboutAu && !defined) fail('cmi5 defined statements carry the cmi5 category (§9.6.2.1)');
    if (defined && !(word && aboutAu)) fail('a cmi5 defined statement is one of the cmi5 verbs about the AU (§9.3, §9.4)');
    const judged = result.success !== undefined || result.completion !== undefined;
    if (categories(statement).includes(moveOnCategory) !== (defined && judged)) fail('the moveOn category on cmi5 defined statements with success or completion, on no other (§9.6.2.2)');
    if (defined) definedRules(session, word, result, context, fail);
    return problems[0];
  }

  function definedRules(session, word, result, context, fail) {
    const registration = registrations.get(session.registration);
    if (word === 'initialized' && session.au.some((s) => s.verb.id === verbs.initialized)) fail('initialized once per session (§9.3.2)');
    if (['completed', 'passed', 'failed'].includes(word) && session.launchMode !== 'Normal') fail('no completed, passed or failed outside launchMode Normal (§10.2.3)', session.launchMode);
    if (['completed', 'passed', 'failed', 'terminated'].includes(word) && !durationPattern.test(result.duration ?? '')) fail(`${word} has a duration (§9.5.3)`);
    if (word === 'completed') {
      if (result.completion !== true) fail('completed has result.completion true (§9.5.2)');
      if (registration.completed) fail('completed at most once per registration (§9.3.3)');
      registration.completed = true;
    }
    if (word === 'passed' || word === 'failed') {
      const scaled = result.score?.scaled;
      if (result.success !== (word === 'passed')) fail(`${word} has result.success ${word === 'passed'} (§9.5.2)`);
      if (session.masteryScore !== undefined) {
        if (context.extensions?.[masteryScoreExtension] !== session.masteryScore) fail(`${word} carries the masteryScore extension (§9.6.3.2)`);
        if (scaled !== undefined && (word === 'passed' ? scaled < session.masteryScore : scaled >= session.masteryScore)) fail(`${word} agrees with the masteryScore (§9.3.4, §9.3.5)`, `${scaled} against ${session.masteryScore}`);
      }
      if (word === 'passed') {
        if (registration.passed) fail('passed at most once per registration (§9.3.4)');
        registration.passed = true;
      }
    }
    if (word === 'terminated') session.terminated = true;
  }

  async function body(request) {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }

  const json = (response, status, value) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));

  // The fetch URL (§8.2): POST only; the token once, then error-code 1, both with status 200.
  function fetchUrl(request, response, id) {
    const entry = fetches.get(id);
    if (!entry) return json(response, 200, { 'error-code': '2', 'error-text': 'Unknown fetch URL.' });
    if (request.method !== 'POST') {
      breach(entry.session, 'the fetch URL is POSTed (§8.2.1)', request.method);
      return response.writeHead(405, { Allow: 'POST' }).end();
    }
    if (entry.used) {
      breach(entry.session, 'one POST to the fetch URL per launch (§8.2.3.1)');
      return json(response, 200, { 'error-code': '1', 'error-text': 'The authorization token has already been returned.' });
    }
    entry.used = true;
    return json(response, 200, { 'auth-token': entry.session.token });
  }

  async function lrs(request, response, resource, query) {
    const session = sessions.get(/^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1]);
    if (!session) {
      breach(undefined, 'LRS requests carry the fetched token (§8.2.2)', request.headers.authorization);
      return response.writeHead(401).end();
    }
    if (!request.headers['x-experience-api-version']) return response.writeHead(400).end(breach(session, 'X-Experience-API-Version header (xAPI)'));
    const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await body(request);
    if (resource === 'statements' && (request.method === 'POST' || request.method === 'PUT')) {
      const list = [JSON.parse(text)].flat();
      const ids = [];
      for (const statement of list) {
        const problem = judge(session, statement);
        if (problem) return response.writeHead(400).end(problem);
        session.au.push(statement);
        keep(session.registration, { ...statement, by: 'au' });
        ids.push(statement.id);
      }
      const reply = () => (request.method === 'PUT' ? response.writeHead(204).end() : json(response, 200, ids));
      const holding = list.map((statement) => held.get(statement.verb?.id)).find(Boolean);
      return holding ? void holding.push(reply) : reply();
    }
    if (resource === 'activities/state') {
      if (query.get('agent') !== null && !same(JSON.parse(query.get('agent')), session.actor)) breach(session, 'the state API agent is the launch actor (§8.1.2)', query.get('agent'));
      const scope = [query.get('activityId'), JSON.stringify(session.actor), query.get('registration') ?? ''];
      // Without stateId, a GET lists the ids of the scope's documents (xAPI 1.0.3, part three, §2.3).
      if (query.get('stateId') === null && request.method === 'GET') return json(response, 200, [...states.keys()].map((key) => JSON.parse(key)).filter((key) => same(key.slice(0, 3), scope)).map((key) => key[3]));
      const key = JSON.stringify([...scope, query.get('stateId')]);
      if (query.get('stateId') === 'LMS.LaunchData' && request.method !== 'GET') return response.writeHead(403).end(breach(session, 'the AU does not change LMS.LaunchData (§10)'));
      if (request.method === 'GET') return states.has(key) ? response.writeHead(200, { 'Content-Type': 'application/json' }).end(states.get(key)) : response.writeHead(404).end();
      if (request.method === 'PUT' || request.method === 'POST') {
        states.set(key, text);
        return response.writeHead(204).end();
      }
    }
    // The learner's preferences (§11), which the LMS keeps for every learner.
    if (resource === 'agents/profile' && request.method === 'GET' && query.get('profileId') === 'cmi5LearnerPreferences') return json(response, 200, { languagePreference: 'en-US', audioPreference: 'off' });
    return response.writeHead(400).end('not served by this stand-in');
  }

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const path = decodeURIComponent(url.pathname);
      let match;
      if ((match = /^\/au\/(.+)$/.exec(path)) && files.has(normalize(match[1]))) {
        response.writeHead(200, { 'Content-Type': types[extname(match[1])] ?? 'application/octet-stream', 'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'" }).end(files.get(normalize(match[1])));
      } else if ((match = /^\/fetch\/(.+)$/.exec(path))) fetchUrl(request, response, match[1]);
      else if ((match = /^\/lrs\/(.+)$/.exec(path))) await lrs(request, response, match[1], url.searchParams);
      else response.writeHead(path === '/favicon.ico' ? 204 : 404).end();
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    course,
    launch,
    violations,
    statements,
    // Keeps back the LRS's reply to every statement of `verbId` (each is kept as usual) until the returned function is
    // called: an AU whose requests are still in flight when the learner leaves.
    holdRepliesTo(verbId) {
      held.set(verbId, []);
      return () => {
        for (const reply of held.get(verbId) ?? []) reply();
        held.delete(verbId);
      };
    },
    close: () => new Promise((done) => server.close(() => done())),
  };
}
