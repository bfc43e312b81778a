// The cmi5 assignable unit's launcher: the LMS launches cmi5.html with endpoint, fetch, actor, registration and
// activityId in the query (cmi5 section 8.1). @xapi/cmi5 reads them, POSTs to the fetch URL once for the auth token,
// reads the LMS.LaunchData state document (contextTemplate, launchMode, masteryScore) and the learner's preferences,
// and sends "initialized". Then the lesson's answered and viewed statements go to the LRS as "cmi5 allowed"
// statements (the launch actor and registration, the contextTemplate's session id and grouping, no cmi5 category),
// and, in launch mode Normal, "completed" once the core says every question shown is settled, "passed" or "failed"
// judged by the core against the LMS's masteryScore (cmi5 9.3.4-9.3.5), "terminated" on pagehide. The learner's
// progress and what this registration already reported live in a state document of the lesson's own, so a
// relaunch in the same registration resumes and never says "completed" or "passed" twice. docs/cmi5.md says more.
// Graded practice: with data-attempt-problem="own" on cmi5.html's <html>, each registration works on its own
// problem: the lesson's core draws it from the attempt key "cmi5:<registration>"; its seed is kept in the state
// document (a relaunch uses the kept seed) and sent with every answer as the problemSeedExtension.
// This file is bundled (esbuild, by scripts/package-cmi5.mjs) with @xapi/cmi5 into the zip's cmi5-launch.js.
import Cmi5 from '@xapi/cmi5';
import { isoDuration, randomUuid } from '../web/src/lesson/answers.ts';

const lesson = document.querySelector('qkv-lesson');
const progressStateId = 'urn:qkv-lesson:cmi5-progress';
// The lesson's statements the launcher forwards; it makes the cmi5 defined ones itself.
const allowedVerbs = new Set(['http://adlnet.gov/expapi/verbs/answered', 'http://id.tincanapi.com/verb/viewed']);
const cmi5Category = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
// The seed of the drawn problem on screen when the statement was made (docs/statements.md).
const problemSeedExtension = 'urn:qkv-lesson:problem-seed';
const ownProblem = document.documentElement.dataset.attemptProblem === 'own';

function say(selector, text) {
  const element = document.querySelector(selector);
  element.textContent = text;
  element.hidden = !text;
}

// One message for every failure: the learner is told once, the console gets each detail.
let failureTold = false;
function failed(what, error, words = 'the learning platform (LMS) did not accept what this lesson sent it') {
  console.warn(`qkv-lesson cmi5: ${what}: ${error?.message ?? error}`);
  if (failureTold) return;
  failureTold = true;
  say('.scorm-alert', `Your answers are not being saved: ${words}. What you do here is still checked on this page, but it may not be there when you come back, and your teacher may not see it.`);
}

// Requests to the LRS, one at a time and in order (cmi5 orders a session's statements: initialized first,
// terminated last). A failed step is told and the next still runs.
let queue = Promise.resolve();
let pending = 0;
function inOrder(what, step) {
  pending++;
  queue = queue.then(step).catch((error) => failed(what, error)).finally(() => pending--);
  return queue;
}

// A statement of the lesson's as a "cmi5 allowed" one: the contextTemplate is the base of its context and none of
// its values is overwritten (cmi5 10.2.2); the lesson's parent, grouping and extensions are added to it.
function allowedStatement(cmi5, statement) {
  const template = cmi5.getLaunchData().contextTemplate ?? {};
  const own = statement.context ?? {};
  const seed = lesson.problemSeed;
  const extensions = { ...(own.extensions ?? {}), ...(typeof seed === 'string' ? { [problemSeedExtension]: seed } : {}), ...(template.extensions ?? {}) };
  const activities = { ...(own.contextActivities ?? {}) };
  for (const [kind, list] of Object.entries(template.contextActivities ?? {})) activities[kind] = [...list, ...(activities[kind] ?? [])];
  if (activities.category) activities.category = activities.category.filter(({ id }) => id !== cmi5Category);
  return {
    ...statement,
    actor: cmi5.getLaunchParameters().actor,
    context: {
      ...own,
      ...template,
      registration: cmi5.getLaunchParameters().registration,
      contextActivities: activities,
      extensions,
    },
  };
}

// The state document of this registration: { progress, completed, passed, failedScaled }. Its id is looked for in
// the list of this registration's documents first: a GET of a document that is not there answers 404, which the
// browser reports as an error on the console.
const stateOf = (cmi5) => ({ agent: cmi5.getLaunchParameters().actor, activityId: cmi5.getLaunchParameters().activityId, registration: cmi5.getLaunchParameters().registration });
async function readState(cmi5) {
  const { data: ids } = await cmi5.xapi.getStates(stateOf(cmi5));
  if (!Array.isArray(ids) || !ids.includes(progressStateId)) return {}; // a first launch in this registration
  const { data } = await cmi5.xapi.getState({ ...stateOf(cmi5), stateId: progressStateId });
  return typeof data === 'object' && data ? data : {};
}

class Session {
  constructor(cmi5, saved) {
    this.cmi5 = cmi5;
    this.completed = saved.completed === true;
    this.passed = saved.passed === true;
    // The score of the last "failed" (in any session): a relaunch that changes nothing says nothing new.
    this.failedScaled = typeof saved.failedScaled === 'number' ? saved.failedScaled : undefined;
    this.normal = cmi5.getLaunchData().launchMode === 'Normal';
    this.masteryScore = cmi5.getLaunchData().masteryScore;
    this.terminated = false;
    this.savesUnfinished = 0; // saves queued or in flight (inOrder)
  }

  get state() {
    if (ownProblem) this.attemptSeed ??= lesson.problemSeed ?? undefined;
    return { progress: lesson.progress, completed: this.completed, passed: this.passed, failedScaled: this.failedScaled, ...(this.attemptSeed ? { attemptSeed: this.attemptSeed } : {}) };
  }

  // Graded practice: a relaunch starts from the seed this registration kept (the same numbers even if the key's
  // derivation changed); a first launch keeps the one the lesson drew from the registration (get state).
  keepAttemptSeed(saved) {
    if (!ownProblem) return;
    const kept = typeof saved.attemptSeed === 'string' && /^\d{1,16}$/.test(saved.attemptSeed) ? saved.attemptSeed : undefined;
    if (kept) lesson.setAttribute('state', `v=${kept}`);
    this.attemptSeed = kept;
  }

  save() {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.terminated) return;
    const state = this.state;
    this.savesUnfinished++;
    inOrder('saving the progress', () => this.cmi5.xapi.setState({ ...stateOf(this.cmi5), stateId: progressStateId, state })).finally(() => this.savesUnfinished--);
  }

  // Typing in the challenge box or editing numbers changes the progress often: saved once it settles.
  saveSoon() {
    if (this.saveTimer === undefined) this.saveTimer = setTimeout(() => this.save(), 2000);
  }

  forward(statement) {
    if (this.terminated || !allowedVerbs.has(statement.verb?.id)) return;
    inOrder('sending an answer', () => this.cmi5.sendXapiStatement(allowedStatement(this.cmi5, statement)));
  }

  // The core grades (lesson.outcome against the LMS's masteryScore, or its own 0.8 when the LMS gives none); the
  // score sent is the core's: scaled, and raw as right answers out of the questions that count (cmi5 9.5.1: integers).
  judge() {
    if (lesson.dataset.state !== 'ready') return;
    this.applyMasteryScore();
    if (!this.normal || this.terminated) return;
    const outcome = lesson.outcome();
    if (!outcome?.completed) return;
    const score = { scaled: outcome.scaled, raw: outcome.right, min: 0, max: outcome.counted };
    let changed = false;
    if (!this.completed) {
      this.completed = changed = true;
      inOrder('sending "completed"', () => this.cmi5.complete());
    }
    if (!this.passed && outcome.passed) {
      this.passed = changed = true;
      inOrder('sending "passed"', () => this.cmi5.pass(score));
    } else if (!this.passed && this.failedScaled !== outcome.scaled) {
      this.failedScaled = outcome.scaled;
      changed = true;
      inOrder('sending "failed"', () => this.cmi5.fail(score));
    }
    if (changed) this.save();
  }

  // The LMS's masteryScore is the lesson's pass mark (cmi5 9.6.3.2: the AU must use it; the results view shows it),
  // once; one the core refuses leaves the lesson's own 0.8.
  applyMasteryScore() {
    if (this.masteryApplied || this.masteryScore === undefined) return;
    this.masteryApplied = true;
    lesson.passingFraction = this.masteryScore;
    if (!lesson.outcome()) lesson.passingFraction = null;
  }

  // On pagehide: an XHR started now is cancelled with the page, so the progress and "terminated" (built as
  // @xapi/cmi5 builds its own) go with fetch's keepalive. A request still in flight is lost (the console says so).
  terminate() {
    if (this.terminated) return;
    if (pending) console.warn(`qkv-lesson cmi5: ${pending} request(s) to the LRS had not finished when the lesson was closed`);
    const { endpoint, actor, activityId, registration } = this.cmi5.getLaunchParameters();
    const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
    const headers = { Authorization: `Basic ${this.cmi5.getAuthToken()}`, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' };
    const send = (path, method, body) => fetch(`${base}${path}`, { method, keepalive: true, headers, body: JSON.stringify(body) }).catch(() => {});
    // Not yet saved: a save waiting for its time, or one queued behind statements still in flight (it dies with the page).
    if (this.saveTimer !== undefined || this.savesUnfinished > 0) {
      const query = new URLSearchParams({ agent: JSON.stringify(actor), activityId, registration, stateId: progressStateId });
      send(`activities/state?${query}`, 'PUT', this.state);
    }
    clearTimeout(this.saveTimer);
    this.terminated = true;
    const template = this.cmi5.getLaunchData().contextTemplate ?? {};
    const statement = {
      id: randomUuid(),
      actor,
      verb: { id: 'http://adlnet.gov/expapi/verbs/terminated', display: { 'en-US': 'terminated' } },
      object: { objectType: 'Activity', id: activityId },
      result: { duration: isoDuration(Date.now() - this.cmi5.getInitializedDate().getTime()) },
      context: { ...template, registration, contextActivities: { ...(template.contextActivities ?? {}), category: [...(template.contextActivities?.category ?? []), { id: cmi5Category }] } },
      timestamp: new Date().toISOString(),
    };
    send('statements', 'POST', statement);
  }
}

async function start() {
  if (!Cmi5.isCmiAvailable) {
    say('.scorm-note', 'No cmi5 launch was found (this page was not opened by a learning platform): the lesson runs on its own and your answers are not recorded.');
    return;
  }
  const cmi5 = new Cmi5();
  // The lesson's questions are named under the AU's activity id (before it is ready and names any).
  lesson.setAttribute('activity-id', cmi5.getLaunchParameters().activityId);
  if (ownProblem) lesson.setAttribute('attempt-key', `cmi5:${cmi5.getLaunchParameters().registration}`);
  // A graded run's other options, as the author wrote them on cmi5.html's <html> (docs/course-authors.md).
  for (const [name, value] of [['attempts', document.documentElement.dataset.attempts], ['graded-questions', document.documentElement.dataset.gradedQuestions]])
    if (value) lesson.setAttribute(name, value);
  // What the learner checks while the session starts is kept, and sent once it runs.
  const early = [];
  const keepEarly = (event) => early.push(event.detail);
  lesson.addEventListener('qkv-lesson-answer', keepEarly);
  try {
    await cmi5.initialize();
  } catch (error) {
    // The fetch URL gives its token once (cmi5 8.2.3): without one, this page was reloaded or opened again.
    const words = cmi5.getAuthToken() ? undefined : 'this launch of the lesson was already used (a reload starts no new session); reopen the lesson from your course';
    failed('the launch (fetch URL, LMS.LaunchData or "initialized") failed', error, words);
    return;
  }
  let saved = {};
  try {
    saved = await readState(cmi5);
  } catch (error) {
    failed('reading the saved progress', error);
  }
  const session = new Session(cmi5, saved);
  if (!session.normal) say('.scorm-note', `${cmi5.getLaunchData().launchMode} mode: nothing you do now changes your result.`);
  lesson.removeEventListener('qkv-lesson-answer', keepEarly);
  for (const statement of early) session.forward(statement);
  lesson.addEventListener('qkv-lesson-answer', (event) => {
    session.forward(event.detail);
    session.judge();
    session.save();
  });
  lesson.addEventListener('qkv-lesson-progress', () => {
    session.judge();
    session.saveSoon();
  });
  lesson.addEventListener('qkv-lesson-ready', () => session.judge());
  addEventListener('pagehide', () => session.terminate());
  await customElements.whenDefined('qkv-lesson');
  session.keepAttemptSeed(saved);
  if (saved.progress) lesson.restoreProgress(saved.progress);
}

start();
