import './lesson/define';
import type { QkvLessonElement } from './lesson/element';
import { registerOffline } from './offline';
import { offerStartOver } from './start-over';

// Offline after one visit: the page's service worker (web/pwa.ts).
const lesson = document.querySelector<QkvLessonElement>('qkv-lesson')!;
registerOffline(lesson);
// The page keeps the learner's work (progress-key in index.html); Start over clears it (start-over.ts).
offerStartOver(lesson, document.querySelector<HTMLElement>('.start-over')!);
