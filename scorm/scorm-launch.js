// The SCORM launch page's adapter: finds the LMS's API (SCORM 1.2 window.API or SCORM 2004 window.API_1484_11, in
// the parent chain or the opener's, as ADL's sample code searches), gives the lesson back its saved progress
// (cmi.suspend_data), and reports what the lesson tells its page: one interaction per check, the score, completion
// and success by the mastery rule below, and the progress to restore next time. Commits on each check and on exit.
//
// Mastery rule: the exercises are those the lesson shows (lesson.exerciseIds). An exercise counts as right when its
// last check was right and its answer had not been shown first. Score = right / shown, reported as raw = that in
// percent (min 0, max 100: LMSs such as Moodle grade cmi(.core).score.raw out of 100) and, in SCORM 2004, as
// scaled (0 to 1). Completed when every shown exercise was checked or had its answer shown; until then incomplete.
// Once completed: passed when the score reaches the passing fraction (SCORM 2004: cmi.scaled_passing_score; 1.2:
// cmi.student_data.mastery_score / 100; when the LMS gives none: 0.8), else failed.

const version = document.documentElement.dataset.scormVersion === '2004' ? '2004' : '1.2';
const lesson = document.querySelector('qkv-lesson');
const defaultPassing = 0.8;
// ADL's sample code gives up after 500 parents; a frame chain is never that deep.
const maxHops = 500;
const answeredVerb = 'http://adlnet.gov/expapi/verbs/answered';
const exerciseExtension = 'urn:qkv-lesson:exercise';

// The two versions' names for the same things.
const dialects = {
  '1.2': {
    apiName: 'API',
    calls: { init: 'LMSInitialize', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish', error: 'LMSGetLastError', errorText: 'LMSGetErrorString' },
    suspendLimit: 4096,
    status(completed, passed) {
      return { 'cmi.core.lesson_status': !completed ? 'incomplete' : passed ? 'passed' : 'failed' };
    },
    score({ raw }) {
      return { 'cmi.core.score.min': '0', 'cmi.core.score.max': '100', 'cmi.core.score.raw': raw };
    },
    passing(get) {
      const mastery = Number.parseFloat(get('cmi.student_data.mastery_score'));
      return Number.isFinite(mastery) && mastery >= 0 && mastery <= 100 ? mastery / 100 : undefined;
    },
    exit: (completed) => ({ 'cmi.core.exit': completed ? '' : 'suspend' }),
    sessionTime: (ms) => ({ 'cmi.core.session_time': timespan12(ms) }),
    mode: 'cmi.core.lesson_mode',
  },
  '2004': {
    apiName: 'API_1484_11',
    calls: { init: 'Initialize', get: 'GetValue', set: 'SetValue', commit: 'Commit', finish: 'Terminate', error: 'GetLastError', errorText: 'GetErrorString' },
    suspendLimit: 64000,
    status(completed, passed, settled) {
      return {
        'cmi.completion_status': completed ? 'completed' : 'incomplete',
        'cmi.success_status': !completed ? 'unknown' : passed ? 'passed' : 'failed',
        'cmi.progress_measure': settled,
      };
    },
    score({ raw, scaled }) {
      return { 'cmi.score.min': '0', 'cmi.score.max': '100', 'cmi.score.raw': raw, 'cmi.score.scaled': scaled };
    },
    passing(get) {
      const value = get('cmi.scaled_passing_score');
      const scaled = value === '' ? Number.NaN : Number(value);
      return Number.isFinite(scaled) && scaled >= -1 && scaled <= 1 ? scaled : undefined;
    },
    exit: (completed) => ({ 'cmi.exit': completed ? 'normal' : 'suspend' }),
    sessionTime: (ms) => ({ 'cmi.session_time': duration2004(ms) }),
    mode: 'cmi.mode',
  },
};
const dialect = dialects[version];

// Up the parent chain from `start` (a frame of another origin hides its properties: keep climbing past it).
function searchFrom(start, name) {
  let current = start;
  for (let hops = 0; current && hops <= maxHops; hops++) {
    try {
      if (current[name] != null) return current[name];
    } catch {
      // another origin's window: its API is not ours to use
    }
    if (current.parent == null || current.parent === current) break;
    current = current.parent;
  }
  return null;
}

function findApi(name) {
  const found = searchFrom(window, name);
  if (found) return found;
  try {
    const opener = window.top?.opener ?? window.opener;
    if (opener) return searchFrom(opener, name);
  } catch {
    // an opener of another origin
  }
  return null;
}

// Formats. SCORM 1.2 timespan HHHH:MM:SS.SS and time HH:MM:SS; SCORM 2004 duration PT…S and time with at most
// two decimals of seconds.
function timespan12(ms) {
  const centis = Math.max(0, Math.round(ms / 10));
  const hours = Math.min(9999, Math.floor(centis / 360000));
  const minutes = Math.floor(centis / 6000) % 60;
  const seconds = (centis % 6000) / 100;
  return `${String(hours).padStart(4, '0')}:${String(minutes).padStart(2, '0')}:${seconds.toFixed(2).padStart(5, '0')}`;
}
const duration2004 = (ms) => `PT${Math.max(0, Math.round(ms / 10) / 100)}S`;
const secondsOf = (iso) => {
  const match = /^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso ?? '');
  return match ? Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0) : undefined;
};
const two = (n) => String(n).padStart(2, '0');
const time12 = (date) => `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`; // the learner's clock
const time2004 = (date) => date.toISOString().replace(/\.(\d\d)\d*Z$/, '.$1Z');

// The note shown when no LMS records this launch (once), and the console's word for it.
function notice(text, level = 'info') {
  const note = document.querySelector('.scorm-note');
  if (note) {
    note.textContent = text;
    note.hidden = false;
  }
  console[level](`qkv-lesson SCORM ${version}: ${text}`);
}

class LmsSession {
  constructor(api) {
    this.api = api;
    this.started = performance.now();
    this.written = new Map(); // element → last value written (no repeated writes)
    this.warned = new Set();
    this.finished = false;
    this.commitTimer = undefined;
    this.trimNoted = false;
    this.passing = undefined; // the passing fraction, read once
    this.completed = false;
    // Review mode (the LMS shows a finished attempt again): the answers come back, nothing is recorded.
    this.reviewing = this.get(dialect.mode) === 'review';
  }

  call(name, ...args) {
    return String(this.api[dialect.calls[name]](...args));
  }

  get(element) {
    const value = this.call('get', element);
    return value === 'undefined' || value === 'null' ? '' : value;
  }

  // Writes one value; an LMS refusal is warned about once per element (the rest of the report still goes).
  set(element, value, { force = false } = {}) {
    const text = String(value);
    if (!force && this.written.get(element) === text) return true;
    const ok = this.call('set', element, text) === 'true';
    if (ok) this.written.set(element, text);
    else {
      const code = this.call('error');
      const key = element.replace(/\.\d+\./g, '.n.');
      if (!this.warned.has(key)) {
        this.warned.add(key);
        console.warn(`qkv-lesson SCORM ${version}: the LMS refused ${element} = ${JSON.stringify(text.slice(0, 80))} (error ${code}: ${this.call('errorText', code)})`);
      }
    }
    return ok;
  }

  setAll(values) {
    for (const [element, value] of Object.entries(values)) if (value !== undefined) this.set(element, value);
  }

  commit() {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (this.finished || this.reviewing) return;
    if (this.call('commit', '') !== 'true') {
      const code = this.call('error');
      console.warn(`qkv-lesson SCORM ${version}: commit failed (error ${code}: ${this.call('errorText', code)})`);
    }
  }

  // Typing in the challenge box or editing numbers changes the progress often: commit once it settles.
  commitSoon() {
    if (this.finished || this.commitTimer !== undefined) return;
    this.commitTimer = setTimeout(() => this.commit(), 2000);
  }

  savedProgress() {
    const text = this.get('cmi.suspend_data');
    if (!text) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      console.warn(`qkv-lesson SCORM ${version}: cmi.suspend_data is not this lesson's progress; starting afresh`);
      return undefined;
    }
  }

  // The progress as JSON within the version's suspend_data limit: the edited numbers go first, then the challenge
  // text is shortened, then answers are left out from the last; the console says so once per session.
  suspendData(progress) {
    const limit = dialect.suspendLimit;
    let kept = progress;
    let text = JSON.stringify(kept);
    const dropped = [];
    if (text.length > limit && kept.state) {
      kept = { ...kept, state: '' };
      text = JSON.stringify(kept);
      dropped.push('the edited numbers');
    }
    if (text.length > limit && kept.challenge) {
      const over = text.length - limit;
      kept = { ...kept, challenge: kept.challenge.slice(0, Math.max(0, kept.challenge.length - over - 16)) };
      text = JSON.stringify(kept);
      dropped.push('the end of the challenge text');
    }
    if (text.length > limit) {
      const answers = Object.entries(kept.answers ?? {});
      while (text.length > limit && answers.length) {
        answers.pop();
        kept = { ...kept, answers: Object.fromEntries(answers) };
        text = JSON.stringify(kept);
      }
      dropped.push('some answers');
    }
    if (dropped.length && !this.trimNoted) {
      this.trimNoted = true;
      console.warn(`qkv-lesson SCORM ${version}: the progress is longer than the ${limit} characters cmi.suspend_data keeps, so ${dropped.join(', ')} will not be restored next time`);
    }
    return text;
  }

  // The mastery rule (see the top of this file) applied to the lesson's progress.
  report() {
    if (this.finished || this.reviewing || lesson.dataset.state !== 'ready') return undefined;
    const progress = lesson.progress;
    const shown = lesson.exerciseIds ?? [];
    const answers = progress?.answers ?? {};
    // The lesson's verdict (counts); work saved before it kept one: matched and never shown.
    const right = shown.filter((id) => answers[id]?.counts ?? (answers[id]?.correct && !answers[id]?.revealed)).length;
    const settled = shown.filter((id) => answers[id] && (answers[id].attempts > 0 || answers[id].revealed)).length;
    const fraction = shown.length ? right / shown.length : 0;
    const completed = shown.length > 0 && settled === shown.length;
    this.passing ??= dialect.passing((element) => this.get(element)) ?? defaultPassing;
    const passed = fraction >= this.passing;
    this.setAll(dialect.score({ raw: (Math.round(fraction * 10000) / 100).toString(), scaled: (Math.round(fraction * 1e7) / 1e7).toString() }));
    this.setAll(dialect.status(completed, passed, shown.length ? (Math.round((settled / shown.length) * 1e7) / 1e7).toString() : '0'));
    if (progress) this.set('cmi.suspend_data', this.suspendData(progress));
    this.completed = completed;
    return { right, shown: shown.length, completed, passed };
  }

  // One interaction per exercise: SCORM 2004 updates the one with the exercise's id (or adds it); SCORM 1.2's
  // interactions cannot be read back, so each check adds one (a journal: the last one per id is the latest).
  interaction(statement) {
    if (this.finished || this.reviewing) return;
    if (statement?.verb?.id !== answeredVerb) return;
    const id = statement.context?.extensions?.[exerciseExtension];
    if (typeof id !== 'string' || !id) return;
    const definition = statement.object.definition ?? {};
    const result = statement.result ?? {};
    const revealed = statement.context?.extensions?.['urn:qkv-lesson:revealed'] === true;
    const graded = typeof result.success === 'boolean';
    const success = graded && result.success && !revealed;
    const pattern = definition.correctResponsesPattern?.[0];
    const at = statement.timestamp ? new Date(statement.timestamp) : new Date();
    const latency = secondsOf(result.duration);
    const count = Number.parseInt(this.get('cmi.interactions._count'), 10) || 0;
    let n;
    if (version === '2004') {
      for (let i = 0; i < count && n === undefined; i++) if (this.get(`cmi.interactions.${i}.id`) === id) n = i;
    }
    n ??= count;
    const base = `cmi.interactions.${n}`;
    const write = (values) => {
      for (const [element, value] of Object.entries(values)) if (value !== undefined) this.set(`${base}.${element}`, value, { force: true });
    };
    if (version === '1.2') {
      write({
        id,
        type: definition.interactionType === 'choice' ? 'choice' : 'fill-in',
        time: time12(at),
        weighting: graded ? '1' : '0',
        student_response: (result.response ?? '').slice(0, 255),
        result: !graded ? 'neutral' : success ? 'correct' : 'wrong',
        latency: latency === undefined ? undefined : timespan12(latency * 1000),
      });
      if (pattern !== undefined) write({ 'correct_responses.0.pattern': pattern.slice(0, 255) });
    } else {
      const type = ['choice', 'fill-in', 'long-fill-in'].includes(definition.interactionType) ? definition.interactionType : 'long-fill-in';
      const description = definition.description?.['en-US'] ?? definition.name?.['en-US'];
      write({
        id,
        type,
        description: description?.slice(0, 250),
        timestamp: time2004(at),
        weighting: graded ? '1' : '0',
      });
      // The pattern before the response (a runtime may check the response against it). No spaces beside commas in
      // a fill-in pattern: SCORM's separator is "[,]", but runtimes such as scorm-again also split at bare commas
      // and then refuse the items that start with a space; the lesson reads "[4,7,2]" as it reads "[4, 7, 2]".
      if (pattern !== undefined) write({ 'correct_responses.0.pattern': type === 'fill-in' ? pattern.replace(/\s*,\s*/g, ',').trim() : pattern });
      write({
        learner_response: type === 'long-fill-in' ? (result.response ?? '').slice(0, 4000) : result.response ?? '',
        result: !graded ? 'neutral' : success ? 'correct' : 'incorrect',
        latency: latency === undefined ? undefined : duration2004(latency * 1000),
      });
    }
  }

  exit() {
    if (this.finished) return;
    if (!this.reviewing) {
      this.report();
      this.setAll(dialect.exit(this.completed));
      this.setAll(dialect.sessionTime(performance.now() - this.started));
      this.commit();
    }
    this.finished = true;
    clearTimeout(this.commitTimer);
    this.call('finish', '');
  }
}

async function start() {
  const api = findApi(dialect.apiName);
  if (!api) {
    notice(`No learning platform (LMS) was found to report to: the lesson runs on its own and your answers are not recorded.`);
    return;
  }
  if (String(api[dialect.calls.init]('')) !== 'true') {
    const code = String(api[dialect.calls.error]());
    notice(`The learning platform (LMS) did not start this session (error ${code}): the lesson runs, but your answers are not recorded.`, 'warn');
    return;
  }
  const session = new LmsSession(api);
  if (session.reviewing) notice('Review mode: your earlier answers are shown; nothing you do now is recorded.');
  const saved = session.savedProgress();
  // Listen before the lesson can be ready: every event after this point reaches the LMS.
  lesson.addEventListener('qkv-lesson-answer', (event) => {
    session.interaction(event.detail);
    session.report();
    session.commit();
  });
  lesson.addEventListener('qkv-lesson-progress', () => {
    session.report();
    session.commitSoon();
  });
  const whenReady = () => {
    session.report();
    session.commit();
  };
  lesson.addEventListener('qkv-lesson-ready', whenReady);
  // pagehide is the last event a page reliably gets (also in a frame the LMS removes); beforeunload comes earlier
  // on a navigation, and the first of the two ends the session.
  addEventListener('pagehide', () => session.exit());
  addEventListener('beforeunload', () => session.exit());
  await customElements.whenDefined('qkv-lesson');
  if (saved) lesson.restoreProgress(saved);
  if (lesson.dataset.state === 'ready') whenReady();
}

start();
